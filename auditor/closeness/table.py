"""The released table, reduced to integer codes: loading a CSV file or in-memory columns, grouping
the rows into equivalence classes, and counting sensitive values per class."""

from __future__ import annotations

import csv
import math
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from operator import itemgetter
from typing import Any

import numpy as np

from proofs.errors import InputError

__all__ = ["SensitiveTable", "load_table", "table_from_columns"]

_CHUNK = 1 << 16


@dataclass(frozen=True, slots=True)
class SensitiveTable:
    """A table reduced to what closeness needs, in memory linear in the rows.

    ``class_index[r]`` is row r's equivalence class (0..classes-1), ``class_first_row[c]`` the
    0-based data row where class c first occurs, ``class_label(c)`` its QI values.
    ``value_index[r]`` is the position of row r's sensitive value in ``values`` (sorted: by number
    when ``ordered``, else as strings).
    """

    source: str
    qi: tuple[str, ...]
    sensitive: str
    ordered: bool
    values: tuple[str, ...]
    class_index: np.ndarray
    class_first_row: np.ndarray
    value_index: np.ndarray
    qi_codes: tuple[np.ndarray, ...] = field(repr=False)
    qi_strings: tuple[tuple[str, ...], ...] = field(repr=False)

    @property
    def rows(self) -> int:
        return int(self.value_index.size)

    @property
    def classes(self) -> int:
        return int(self.class_first_row.size)

    def class_label(self, c: int) -> tuple[str, ...]:
        row = int(self.class_first_row[c])
        return tuple(
            strings[int(codes[row])]
            for codes, strings in zip(self.qi_codes, self.qi_strings, strict=True)
        )


def load_table(
    path: str | os.PathLike, qi: Sequence[str], sensitive: str, ordered: bool = False
) -> SensitiveTable:
    """Read a CSV file with a header row (standard library ``csv``, UTF-8, optional BOM).

    Only the QI and sensitive columns are kept, as integer codes: memory is linear in the rows.
    Blank lines are skipped. Raises :class:`InputError` for an unreadable or empty file, a missing
    or duplicated column, a row too short for a needed column, no data rows, or (with
    ``ordered``) a sensitive value that is not a finite number.
    """
    qi = _check_columns(qi, sensitive)
    names = (*qi, sensitive)
    src = os.fspath(path)
    try:
        with open(src, newline="", encoding="utf-8-sig") as fh:
            reader = csv.reader(fh)
            header = _read_header(reader, src)
            idx = [_column_position(header, name, src) for name in names]
            codes, strings = _read_coded_columns(reader, idx, names, src, len(header))
    except OSError as exc:
        raise InputError(
            f"table {src!r} cannot be read ({exc.strerror or exc}); check the path "
            "and its permissions."
        ) from None
    except UnicodeDecodeError as exc:
        raise InputError(
            f"table {src!r} is not UTF-8 text ({exc.reason} at byte {exc.start}); "
            "save it as UTF-8 CSV."
        ) from None
    except csv.Error as exc:
        raise InputError(f"table {src!r} is not valid CSV ({exc}); fix the quoting.") from None
    return _build_table(src, qi, sensitive, ordered, codes, strings)


def table_from_columns(
    qi_columns: dict[str, Sequence[Any]],
    sensitive: Sequence[Any],
    sensitive_name: str = "sensitive",
    ordered: bool = False,
    source: str = "<columns>",
) -> SensitiveTable:
    """Build a :class:`SensitiveTable` from in-memory columns (values are turned into strings)."""
    qi = _check_columns(tuple(qi_columns), sensitive_name)
    columns = [*(qi_columns[name] for name in qi), sensitive]
    lengths = {len(col) for col in columns}
    if len(lengths) != 1:
        raise InputError(
            f"columns have different lengths {sorted(lengths)}; give equal-length columns."
        )
    maps: list[dict[str, int]] = [{} for _ in columns]
    codes = [
        _code([str(v) for v in col], mapping) for col, mapping in zip(columns, maps, strict=True)
    ]
    strings = [tuple(mapping) for mapping in maps]
    return _build_table(source, qi, sensitive_name, ordered, codes, strings)


# ----------------------------------------------------------------------------------------------
# Counts per class and value (used by the distances and the reference-set search)
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Cells:
    """The non-zero cells of the class x value count matrix, sorted by (class, value).

    Class ``cls[starts[i]]`` owns the cells ``starts[i]:ends[i]``.
    """

    cls: np.ndarray
    val: np.ndarray
    count: np.ndarray
    starts: np.ndarray

    @property
    def ends(self) -> np.ndarray:
        return np.r_[self.starts[1:], self.cls.size]


def count_cells(table: SensitiveTable) -> Cells:
    m = len(table.values)
    keys, count = np.unique(table.class_index * m + table.value_index, return_counts=True)
    cls, val = keys // m, keys % m
    starts = np.flatnonzero(np.r_[True, cls[1:] != cls[:-1]])
    return Cells(cls, val, count.astype(np.int64), starts)


def class_sizes(table: SensitiveTable) -> np.ndarray:
    """Rows per equivalence class."""
    return np.bincount(table.class_index, minlength=table.classes).astype(np.int64)


def value_totals(table: SensitiveTable) -> np.ndarray:
    """Rows per sensitive value, over the whole table."""
    return np.bincount(table.value_index, minlength=len(table.values)).astype(np.int64)


def labelled_counts(values: Sequence[str], counts: np.ndarray) -> tuple[tuple[str, int], ...]:
    """``(value, count)`` for each non-zero count, in the order of ``values``."""
    return tuple((values[i], int(k)) for i, k in enumerate(counts) if k > 0)


# ----------------------------------------------------------------------------------------------
# Reading and coding the columns
# ----------------------------------------------------------------------------------------------


def _check_columns(qi: Sequence[str], sensitive: str) -> tuple[str, ...]:
    qi = tuple(qi)
    if not qi:
        raise InputError(
            "no quasi-identifier columns given; name at least one with --qi col1,col2."
        )
    if len(set(qi)) != len(qi):
        raise InputError(f"quasi-identifier columns {list(qi)} repeat a name; list each once.")
    if sensitive in qi:
        raise InputError(
            f"sensitive column {sensitive!r} is also a quasi-identifier; a column "
            "is one or the other."
        )
    return qi


def _read_header(reader, src: str) -> list[str]:
    for header in reader:
        if header:
            return [name.strip() for name in header]
    raise InputError(f"table {src!r} is empty; give a CSV file with a header row and data rows.")


def _column_position(header: list[str], name: str, src: str) -> int:
    hits = [i for i, h in enumerate(header) if h == name]
    if not hits:
        shown = ", ".join(header[:20]) + (", ..." if len(header) > 20 else "")
        raise InputError(
            f"column {name!r} is not in the header of {src!r} (columns: {shown}); "
            "check --qi/--sensitive."
        )
    if len(hits) > 1:
        raise InputError(
            f"column {name!r} appears {len(hits)} times in the header of {src!r}; "
            "rename the duplicates."
        )
    return hits[0]


def _read_coded_columns(reader, idx: list[int], names: Sequence[str], src: str, width: int):
    """Stream the rows in chunks; code each needed column's strings as integers. Every data row
    has the header's ``width`` fields: a row with one more (an unquoted comma) would otherwise
    shift its values into the wrong columns unseen."""
    maps: list[dict[str, int]] = [{} for _ in idx]
    chunks: list[list[np.ndarray]] = [[] for _ in idx]
    done = 0
    while rows := [row for _, row in zip(range(_CHUNK), reader, strict=False)]:
        rows = [row for row in rows if row]
        bad = next((k for k, row in enumerate(rows) if len(row) != width), None)
        if bad is not None:
            raise InputError(
                f"data row {done + bad + 1} of {src!r} has {len(rows[bad])} fields but the header "
                f"has {width}; quote fields that hold commas, or fix that row."
            )
        for j, i in enumerate(idx):
            chunks[j].append(_code(list(map(itemgetter(i), rows)), maps[j]))
        done += len(rows)
    if done == 0:
        raise InputError(f"table {src!r} has a header but no data rows; give at least one row.")
    codes = [np.concatenate(parts) for parts in chunks]
    return codes, [tuple(m) for m in maps]


def _code(col: list[str], mapping: dict[str, int]) -> np.ndarray:
    """Integer codes of ``col``; values not in ``mapping`` get the next codes, in row order."""
    for value in dict.fromkeys(col):
        if value not in mapping:
            mapping[value] = len(mapping)
    return np.fromiter(map(mapping.__getitem__, col), dtype=np.int32, count=len(col))


def _build_table(
    src: str,
    qi: tuple[str, ...],
    sensitive: str,
    ordered: bool,
    codes: list[np.ndarray],
    strings: list[tuple[str, ...]],
) -> SensitiveTable:
    if codes[0].size == 0:
        raise InputError(f"table {src!r} has no data rows; give at least one row.")
    qi_codes, qi_strings = tuple(codes[:-1]), tuple(strings[:-1])
    class_index, first_row = _group(qi_codes)
    value_index, values = _rank_values(codes[-1], strings[-1], ordered, sensitive, src)
    return SensitiveTable(
        src,
        qi,
        sensitive,
        ordered,
        values,
        class_index,
        first_row,
        value_index,
        qi_codes,
        qi_strings,
    )


def _group(qi_codes: tuple[np.ndarray, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Class id per row from the QI codes (mixed radix, compressed so it never overflows)."""
    key = qi_codes[0].astype(np.int64)
    for codes in qi_codes[1:]:
        base = int(codes.max()) + 1
        if (int(key.max()) + 1) * base >= 2**62:
            key = np.unique(key, return_inverse=True)[1].reshape(-1).astype(np.int64)
        key = key * base + codes
    _, first_row, class_index = np.unique(key, return_index=True, return_inverse=True)
    return class_index.reshape(-1).astype(np.int64), first_row.astype(np.int64)


def _rank_values(
    codes: np.ndarray, strings: tuple[str, ...], ordered: bool, name: str, src: str
) -> tuple[np.ndarray, tuple[str, ...]]:
    """Map value codes to positions in the sorted distinct values (merging '1' and '1.0').
    Numbers are read exactly: as doubles 2^53 and 2^53 + 1 were one value."""
    if ordered:
        numbers = [_as_number(s, k, codes, name, src) for k, s in enumerate(strings)]
        order = sorted(range(len(numbers)), key=numbers.__getitem__)
        rank = np.empty(len(numbers), dtype=np.int64)
        distinct = -1
        for i, k in enumerate(order):
            distinct += i == 0 or numbers[k] != numbers[order[i - 1]]
            rank[k] = distinct
        shown = {}
        for k, r in enumerate(rank.reshape(-1)):
            shown.setdefault(int(r), strings[k])
        values = tuple(shown[r] for r in range(distinct + 1))
    else:
        order = sorted(range(len(strings)), key=strings.__getitem__)
        rank = np.empty(len(strings), dtype=np.int64)
        rank[order] = np.arange(len(strings))
        values = tuple(strings[k] for k in order)
    return rank.reshape(-1).astype(np.int64)[codes], values


def _as_number(text: str, code: int, codes: np.ndarray, name: str, src: str) -> Fraction:
    """The number a sensitive value writes, exactly: doubles merged 2^53 and 2^53 + 1. What
    a double does not read ('3/4') or reads as no finite number is refused, as before."""
    try:
        x = float(text)
    except ValueError:
        x = math.nan
    if not math.isfinite(x):
        row = int(np.argmax(codes == code)) + 1
        raise InputError(
            f"sensitive value {text!r} in column {name!r} (data row {row} of {src!r}) is not a "
            "finite number, but --ordered needs numbers; fix the value or drop --ordered."
        )
    exponent = _EXPONENT.search(text)
    if exponent is not None and abs(int(exponent.group(1))) > 400:
        return Fraction(x)  # (an exact 1e-10000000 costs seconds; no table needs it)
    try:
        return Fraction(text.strip())
    except ValueError:  # ('1_000': Fraction reads no underscores)
        return Fraction(x)


_EXPONENT = re.compile(r"[eE]\s*([+-]?\d+)")
