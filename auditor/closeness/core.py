"""Epsilon-closeness (t-closeness) of a released table, and the (n, t) variant.

Definitions (notes 003; Li, Li and Venkatasubramanian, "t-Closeness: Privacy Beyond k-Anonymity
and l-Diversity", ICDE 2007, and "Closeness: A New Privacy Measure for Data Publishing", TKDE 2010):

* Rows are grouped into *equivalence classes* by their quasi-identifier (QI) values.
* ``P_Q`` is the distribution of the sensitive attribute over the whole table and ``P_L`` its
  distribution inside one class. A class is t-close when ``D(P_L, P_Q) <= t``; the table's
  closeness is the maximum of ``D(P_L, P_Q)`` over its classes, and the table is t-close when
  that maximum is at most t.
* Distances ``D``: total variation ``tv = 1/2 sum |P_L - P_Q|``, ``l1 = sum |P_L - P_Q|``,
  ``l2 = sqrt(sum (P_L - P_Q)^2)``, Kullback-Leibler ``kl = sum P_L log(P_L / P_Q)`` (natural log,
  infinite when the reference has an empty bin where the class has mass), and the Earth Mover's
  Distance ``emd``. For a categorical attribute the EMD with equal ground distance is the TV
  distance (Li et al. 2007, section 4.2). For an ordered attribute with distinct values
  ``v_1 < ... < v_m`` the ground distance is ``|i - j| / (m - 1)`` and
  ``EMD = 1/(m - 1) sum_{i=1}^{m} |sum_{j<=i} (P_L(v_j) - P_Q(v_j))|`` (ibid., section 4.2).
* (n, t)-closeness, as in the notes: a class is (n, t)-close when some subset ``M`` of the table
  with ``|M| >= n`` has ``D(P_L, P_{Q|M}) <= t``. Li et al. (2010, Definition 2) require ``M`` to
  be a *natural superset* of the class (a generalisation of its QI values); the notes' version,
  implemented here, lets ``M`` be any subset, so its distance is a lower bound on the paper's.
  Only the counts of each sensitive value in ``M`` matter, so the best ``M`` is found exactly over
  integer count vectors ``0 <= x_v <= N_v`` with ``sum x_v >= n`` (see :func:`best_reference_set`).

With the whole table as reference every value seen in a class occurs in the table, so KL against
the whole table is always finite; KL is infinite only against a reference with an empty bin,
which :func:`distribution_distance` reports as ``inf`` and results flag as ``infinite``.
"""

from __future__ import annotations

import csv
import math
import os
import time
from dataclasses import dataclass, field
from fractions import Fraction
from operator import itemgetter
from typing import Any, Sequence

import numpy as np

from proofs.errors import InputError

__all__ = [
    "SCHEMA_VERSION",
    "DISTANCES",
    "EXACT_REFERENCE_DISTANCES",
    "SensitiveTable",
    "ReferenceSet",
    "ClassDistance",
    "ClosenessResult",
    "load_table",
    "table_from_columns",
    "distribution_distance",
    "closeness",
    "best_reference_set",
]

SCHEMA_VERSION = 1
DISTANCES = ("tv", "kl", "l1", "l2", "emd")
#: Distances for which the (n, t) reference set is found exactly (linear after the
#: Charnes-Cooper/Dinkelbach treatment of the ratio): TV, L1 and EMD (both kinds).
EXACT_REFERENCE_DISTANCES = ("tv", "l1", "emd")
_CHUNK = 1 << 16


# ----------------------------------------------------------------------------------------------
# The table, reduced to integer codes
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SensitiveTable:
    """A table reduced to what closeness needs, in memory linear in the rows.

    ``class_index[r]`` is row r's equivalence class (0..classes-1), ``class_first_row[c]`` the
    0-based data row where class c first occurs, ``class_labels_at(c)`` its QI values.
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
        return tuple(strings[int(codes[row])] for codes, strings in zip(self.qi_codes,
                                                                         self.qi_strings))


def load_table(path: str | os.PathLike, qi: Sequence[str], sensitive: str,
               ordered: bool = False) -> SensitiveTable:
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
            codes, strings = _read_coded_columns(reader, idx, names, src)
    except OSError as exc:
        raise InputError(f"table {src!r} cannot be read ({exc.strerror or exc}); check the path "
                         "and its permissions.") from None
    except UnicodeDecodeError as exc:
        raise InputError(f"table {src!r} is not UTF-8 text ({exc.reason} at byte {exc.start}); "
                         "save it as UTF-8 CSV.") from None
    except csv.Error as exc:
        raise InputError(f"table {src!r} is not valid CSV ({exc}); fix the quoting.") from None
    return _build_table(src, qi, sensitive, ordered, codes, strings)


def table_from_columns(qi_columns: dict[str, Sequence[Any]], sensitive: Sequence[Any],
                       sensitive_name: str = "sensitive", ordered: bool = False,
                       source: str = "<columns>") -> SensitiveTable:
    """Build a :class:`SensitiveTable` from in-memory columns (values are turned into strings)."""
    qi = _check_columns(tuple(qi_columns), sensitive_name)
    columns = [*(qi_columns[name] for name in qi), sensitive]
    lengths = {len(col) for col in columns}
    if len(lengths) != 1:
        raise InputError(f"columns have different lengths {sorted(lengths)}; give equal-length "
                         "columns.")
    codes, strings = [], []
    for col in columns:
        mapping: dict[str, int] = {}
        codes.append(np.array([mapping.setdefault(str(v), len(mapping)) for v in col],
                              dtype=np.int64))
        strings.append(tuple(mapping))
    return _build_table(source, qi, sensitive_name, ordered, codes, strings)


def _check_columns(qi: Sequence[str], sensitive: str) -> tuple[str, ...]:
    qi = tuple(qi)
    if not qi:
        raise InputError("no quasi-identifier columns given; name at least one with "
                         "--qi col1,col2.")
    if len(set(qi)) != len(qi):
        raise InputError(f"quasi-identifier columns {list(qi)} repeat a name; list each once.")
    if sensitive in qi:
        raise InputError(f"sensitive column {sensitive!r} is also a quasi-identifier; a column "
                         "is one or the other.")
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
        raise InputError(f"column {name!r} is not in the header of {src!r} (columns: {shown}); "
                         "check --qi/--sensitive.")
    if len(hits) > 1:
        raise InputError(f"column {name!r} appears {len(hits)} times in the header of {src!r}; "
                         "rename the duplicates.")
    return hits[0]


def _read_coded_columns(reader, idx: list[int], names: Sequence[str], src: str):
    """Stream the rows in chunks; code each needed column's strings as integers."""
    maps: list[dict[str, int]] = [{} for _ in idx]
    chunks: list[list[np.ndarray]] = [[] for _ in idx]
    done = 0
    while True:
        rows = [row for _, row in zip(range(_CHUNK), reader)]
        if not rows:
            break
        rows = [row for row in rows if row]
        for j, i in enumerate(idx):
            try:
                col = list(map(itemgetter(i), rows))
            except IndexError:
                bad = next(k for k, row in enumerate(rows) if len(row) <= i)
                raise InputError(f"data row {done + bad + 1} of {src!r} has "
                                 f"{len(rows[bad])} fields but column {names[j]!r} is field "
                                 f"{i + 1}; fix that row.") from None
            mapping = maps[j]
            for value in dict.fromkeys(col):  # new values get the next codes, in row order
                if value not in mapping:
                    mapping[value] = len(mapping)
            chunks[j].append(np.fromiter(map(mapping.__getitem__, col), dtype=np.int32,
                                         count=len(col)))
        done += len(rows)
    if done == 0:
        raise InputError(f"table {src!r} has a header but no data rows; give at least one row.")
    codes = [np.concatenate(parts) for parts in chunks]
    return codes, [tuple(m) for m in maps]


def _build_table(src: str, qi: tuple[str, ...], sensitive: str, ordered: bool,
                 codes: list[np.ndarray], strings: list[tuple[str, ...]]) -> SensitiveTable:
    if codes[0].size == 0:
        raise InputError(f"table {src!r} has no data rows; give at least one row.")
    qi_codes, qi_strings = tuple(codes[:-1]), tuple(strings[:-1])
    class_index, first_row = _group(qi_codes)
    value_index, values = _rank_values(codes[-1], strings[-1], ordered, sensitive, src)
    return SensitiveTable(src, qi, sensitive, ordered, values, class_index, first_row,
                          value_index, qi_codes, qi_strings)


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


def _rank_values(codes: np.ndarray, strings: tuple[str, ...], ordered: bool, name: str,
                 src: str) -> tuple[np.ndarray, tuple[str, ...]]:
    """Map value codes to positions in the sorted distinct values (merging '1' and '1.0')."""
    if ordered:
        numbers = np.array([_as_number(s, k, codes, name, src) for k, s in enumerate(strings)])
        distinct, rank = np.unique(numbers, return_inverse=True)
        shown = {}
        for k, r in enumerate(rank.reshape(-1)):
            shown.setdefault(int(r), strings[k])
        values = tuple(shown[r] for r in range(distinct.size))
    else:
        order = sorted(range(len(strings)), key=strings.__getitem__)
        rank = np.empty(len(strings), dtype=np.int64)
        rank[order] = np.arange(len(strings))
        values = tuple(strings[k] for k in order)
    return rank.reshape(-1).astype(np.int64)[codes], values


def _as_number(text: str, code: int, codes: np.ndarray, name: str, src: str) -> float:
    try:
        x = float(text)
    except ValueError:
        x = math.nan
    if not math.isfinite(x):
        row = int(np.argmax(codes == code)) + 1
        raise InputError(f"sensitive value {text!r} in column {name!r} (data row {row} of "
                         f"{src!r}) is not a finite number, but --ordered needs numbers; fix the "
                         "value or drop --ordered.")
    return x


# ----------------------------------------------------------------------------------------------
# Distances
# ----------------------------------------------------------------------------------------------


def distribution_distance(p: Sequence[float], q: Sequence[float], distance: str = "tv",
                          ordered: bool = False) -> float:
    """``D(p, q)`` for two distributions on the same (ordered, when ``ordered``) values.

    ``kl`` returns ``math.inf`` when ``q`` has an empty bin where ``p`` has mass.
    """
    _check_distance(distance)
    p, q = np.asarray(p, dtype=float), np.asarray(q, dtype=float)
    if p.shape != q.shape or p.ndim != 1 or p.size == 0:
        raise InputError(f"distributions of shapes {p.shape} and {q.shape} differ or are empty; "
                         "give two 1-D arrays over the same values.")
    diff = p - q
    if distance == "tv" or (distance == "emd" and not ordered):
        return float(0.5 * np.abs(diff).sum())
    if distance == "l1":
        return float(np.abs(diff).sum())
    if distance == "l2":
        return float(np.sqrt((diff**2).sum()))
    if distance == "emd":
        return 0.0 if p.size == 1 else float(np.abs(np.cumsum(diff)[:-1]).sum() / (p.size - 1))
    support = p > 0
    if np.any(q[support] <= 0):
        return math.inf
    return float((p[support] * np.log(p[support] / q[support])).sum())


def _check_distance(distance: str) -> None:
    if distance not in DISTANCES:
        raise InputError(f"distance={distance!r} is not one of {', '.join(DISTANCES)}; pick one "
                         "with --distance.")


@dataclass(frozen=True, slots=True)
class _Pairs:
    """The non-zero cells of the class x value count matrix, sorted by (class, value)."""

    cls: np.ndarray
    val: np.ndarray
    count: np.ndarray
    starts: np.ndarray


def _pairs(table: SensitiveTable) -> _Pairs:
    m = len(table.values)
    keys, count = np.unique(table.class_index * m + table.value_index, return_counts=True)
    cls, val = keys // m, keys % m
    starts = np.flatnonzero(np.r_[True, cls[1:] != cls[:-1]])
    return _Pairs(cls, val, count.astype(np.int64), starts)


def _class_distances(table: SensitiveTable, distance: str) -> np.ndarray:
    """D(P_L, P_Q) for every class against the whole table, vectorised over non-zero cells."""
    pairs = _pairs(table)
    sizes = np.bincount(table.class_index, minlength=table.classes).astype(np.int64)
    totals = np.bincount(table.value_index, minlength=len(table.values)).astype(np.int64)
    n_total = table.rows
    n_c, n_v = sizes[pairs.cls], totals[pairs.val]
    if distance in ("tv", "l1") or (distance == "emd" and not table.ordered):
        # Exact integers: sum_v |c N - n_c N_v| = n_c N + sum_{c_v>0} (|c N - n_c N_v| - n_c N_v).
        scaled = pairs.count * n_total - n_c * n_v
        terms = np.abs(scaled) - n_c * n_v
        num = np.add.reduceat(terms, pairs.starts) + sizes * n_total
        return num / ((2 if distance != "l1" else 1) * sizes * float(n_total))
    p, q = pairs.count / n_c, n_v / n_total
    if distance == "l2":
        q2 = float(((totals / n_total) ** 2).sum())
        inner = np.add.reduceat((p - q) ** 2 - q**2, pairs.starts)
        return np.sqrt(np.maximum(inner + q2, 0.0))
    if distance == "kl":
        return np.add.reduceat(p * np.log(p / q), pairs.starts)
    return _ordered_emd(pairs, sizes, totals, n_total)


def _ordered_emd(pairs: _Pairs, sizes: np.ndarray, totals: np.ndarray, n_total: int) -> np.ndarray:
    """EMD = 1/(m-1) sum_i |F_L(i) - F_Q(i)|, summed segment by segment over each class's support.

    Between two consecutive support points of a class its CDF F_L is a constant v; the sum of
    |v - F_Q(i)| over a segment splits where the (monotone) table CDF crosses v.
    """
    m = totals.size
    if m == 1:
        return np.zeros(sizes.size)
    cdf = np.cumsum(totals) / n_total
    cdf[-1] = 1.0
    prefix = np.r_[0.0, np.cumsum(cdf)]
    running = np.cumsum(pairs.count)
    earlier = np.r_[0, running[pairs.starts[1:] - 1]]  # records of the classes before each one
    lengths = np.diff(np.r_[pairs.starts, pairs.count.size])
    v = (running - np.repeat(earlier, lengths)) / sizes[pairs.cls]  # class CDF at its support
    a = pairs.val
    last = np.r_[pairs.cls[1:] != pairs.cls[:-1], True]
    b = np.where(last, m, np.r_[pairs.val[1:], 0])
    k = np.clip(np.searchsorted(cdf, v, side="left"), a, b)
    seg = v * (k - a) - (prefix[k] - prefix[a]) + (prefix[b] - prefix[k]) - v * (b - k)
    head = prefix[pairs.val[pairs.starts]]
    return (np.add.reduceat(seg, pairs.starts) + head) / (m - 1)


# ----------------------------------------------------------------------------------------------
# (n, t): the best reference set, exactly
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ReferenceSet:
    """The chosen reference set M: how many records of each sensitive value it takes.

    ``distance`` is recomputed exactly (rational arithmetic) from the integer counts, so it is
    attained by this M. ``method`` is ``"scaling"`` when a multiple of the class's own reduced
    counts fits (distance 0, optimal), ``"lp-rounding"`` when rounding the continuous optimum
    meets the continuous lower bound (optimal, to 1e-12), or ``"milp-dinkelbach"`` (optimal up to
    HiGHS's tolerances).
    ``optimal`` is False when the solver's time limit stopped it first: then ``distance`` is only
    an upper bound on the best reference set's distance (still attained by this M) and
    ``lower_bound`` a lower bound from HiGHS's dual bound (``lambda + LB / (k |c| n)``, since
    ``f - lambda g >= LB`` and ``g >= k |c| n`` for every feasible set).
    """

    size: int
    counts: tuple[tuple[str, int], ...]
    distance: float
    method: str
    iterations: int
    optimal: bool = True
    lower_bound: float | None = None

    @property
    def bound(self) -> float:
        """Lower bound on the best distance (equal to ``distance`` when optimal)."""
        return self.distance if self.optimal or self.lower_bound is None else self.lower_bound

    def to_dict(self) -> dict[str, Any]:
        return {"size": self.size, "counts": {v: c for v, c in self.counts},
                "distance": self.distance, "method": self.method,
                "iterations": self.iterations, "optimal": self.optimal,
                "lower_bound": self.bound}


def best_reference_set(class_counts: Sequence[int], table_counts: Sequence[int], n: int,
                       distance: str = "tv", ordered: bool = False,
                       values: Sequence[str] | None = None,
                       time_limit: float = 60.0) -> ReferenceSet:
    """min over integer x with 0 <= x_v <= N_v, sum x >= n of D(c / |c|, x / |x|).

    With ``S = sum x`` the objective is ``sum_i |a_i S - |c| y_i(x)| / (k |c| S)`` where for
    TV/L1/categorical EMD ``a = c`` and ``y = x`` (k = 2, 1, 2), and for ordered EMD ``a`` and
    ``y`` are the cumulative counts (k = m - 1). It is a ratio of a convex piecewise-linear
    function and a positive linear one, minimised over integers: Dinkelbach's method (Dinkelbach
    1967) solves a sequence of MILPs ``min f - lambda g`` (scipy.optimize.milp, HiGHS), each
    strictly lowering ``lambda = D`` of the integer solution, until none improves it.
    ``time_limit`` (seconds) bounds the search; past it the result says ``optimal=False`` and
    carries a lower bound (0 when ``time_limit <= 0``, which returns the whole table at once).
    """
    if distance not in EXACT_REFERENCE_DISTANCES:
        raise InputError(f"the exact (n, t) reference-set solver supports distance "
                         f"{'/'.join(EXACT_REFERENCE_DISTANCES)}, not {distance!r}; use "
                         "--distance tv, l1 or emd with --n.")
    c = np.asarray(class_counts, dtype=np.int64)
    big = np.asarray(table_counts, dtype=np.int64)
    values = tuple(values) if values is not None else tuple(str(i) for i in range(c.size))
    if c.shape != big.shape or c.sum() <= 0 or np.any(c < 0) or np.any(c > big):
        raise InputError("class counts must be non-negative, not all zero, and at most the "
                         "table counts value by value; pass the class's and the table's counts.")
    if not 1 <= n <= int(big.sum()):
        raise InputError(f"n={n} must be between 1 and the table's {int(big.sum())} rows; "
                         "choose a smaller --n.")
    spec = _Ratio(c, big, distance, ordered)
    x = _scaled_copy(c, big, n)
    if x is not None:
        return _reference(x, values, spec, "scaling", 0)
    x, iterations, lower = _dinkelbach(spec, n, time_limit)
    method = "milp-dinkelbach" if iterations else "lp-rounding"
    return _reference(x, values, spec, method, iterations, lower)


@dataclass(frozen=True, slots=True)
class _Ratio:
    c: np.ndarray
    big: np.ndarray
    distance: str
    ordered: bool

    @property
    def cumulative(self) -> bool:
        return self.distance == "emd" and self.ordered and self.c.size > 1

    @property
    def k(self) -> int:
        if self.cumulative:
            return self.c.size - 1
        return 1 if self.distance == "l1" else 2

    def exact(self, x: np.ndarray) -> Fraction:
        a = np.cumsum(self.c)[:-1] if self.cumulative else self.c
        y = np.cumsum(x)[:-1] if self.cumulative else x
        if self.distance == "emd" and self.ordered and self.c.size == 1:
            return Fraction(0)
        s, nc = int(x.sum()), int(self.c.sum())
        num = sum(abs(int(ai) * s - nc * int(yi)) for ai, yi in zip(a, y))
        return Fraction(num, self.k * nc * s)


def _scaled_copy(c: np.ndarray, big: np.ndarray, n: int) -> np.ndarray | None:
    """Smallest multiple of c's reduced counts with at least n records, if it fits (distance 0)."""
    r = c // math.gcd(*map(int, c))
    need = -(-n // int(r.sum()))
    support = r > 0
    fits = int(np.min(big[support] // r[support]))
    return r * need if need <= fits else None


def _dinkelbach(spec: _Ratio, n: int, time_limit: float) -> tuple[np.ndarray, int, float | None]:
    """The best integer counts, the iterations, and None when optimality was proved, else a
    lower bound on the optimal distance.

    Starts from the better of the whole table and a rounding of the continuous optimum; the
    continuous optimum (an LP) is also a lower bound, so a rounding that meets it is optimal.
    """
    if time_limit <= 0:  # no time left: the whole table, and only the trivial lower bound
        return spec.big.copy(), 0, 0.0
    deadline = time.monotonic() + time_limit
    floor, x = _continuous_start(spec, n)
    lam = spec.exact(x)
    if float(lam) <= floor + 1e-12:
        return x, 0, None
    if time.monotonic() >= deadline:
        return x, 0, floor
    g_min = spec.k * int(spec.c.sum()) * n
    for iteration in range(1, 101):
        candidate, dual = _milp_step(spec, n, float(lam), deadline - time.monotonic())
        lower = None if dual is None else max(floor, float(lam) + min(0.0, dual) / g_min)
        if candidate is None:
            return x, iteration, lower if lower is not None else floor
        value = spec.exact(candidate)
        if value >= lam:
            return x, iteration, lower
        x, lam = candidate, value
        if time.monotonic() >= deadline:
            return x, iteration, lower if lower is not None else floor
    return x, 100, floor


def _continuous_start(spec: _Ratio, n: int) -> tuple[float, np.ndarray]:
    """(lower bound, integer counts): min D over real x with S = n, and a rounding of it.

    Any feasible integer set with S >= n has proportions x/S with x_v/S <= N_v/n, so the real
    optimum at S = n bounds every integer one from below.
    """
    from scipy.optimize import milp

    cost, constraints, bounds, _ = _program(spec, n, 0.0, fixed_size=True)
    res = milp(cost, constraints=constraints, bounds=bounds)
    whole = spec.big.copy()
    if res.x is None:
        return 0.0, whole
    nc, m = int(spec.c.sum()), spec.c.size
    floor = max(0.0, float(res.fun) / (spec.k * nc * n) - 1e-12)
    w = res.x[:m]
    real = np.clip(np.diff(np.r_[0.0, w]) if spec.cumulative else w, 0, spec.big)
    x = _round_to_size(real, spec.big, n)
    return floor, x if spec.exact(x) < spec.exact(whole) else whole


def _round_to_size(real: np.ndarray, big: np.ndarray, n: int) -> np.ndarray:
    """Integer counts near ``real`` within ``0..big`` summing to n (largest remainders)."""
    x = np.minimum(np.floor(real + 1e-9).astype(np.int64), big)
    short = n - int(x.sum())
    order = np.argsort(-(real - x), kind="stable")
    for v in order:
        if short <= 0:
            break
        add = min(short, int(big[v] - x[v]))
        x[v] += add
        short -= add
    return x


def _program(spec: _Ratio, n: int, lam: float, fixed_size: bool = False):
    """min sum u - lam * k |c| S  s.t.  u_i >= |a_i S - |c| w_i|, S >= n (S = n if fixed_size).

    ``w`` is x itself, or for ordered EMD the cumulative counts X_i = x_1 + ... + x_i with
    ``0 <= X_i - X_{i-1} <= N_i`` (a sparse band instead of a dense triangle). Variables are
    (w, S, u); returns milp's cost, constraints, bounds and integrality (w and S integer).
    """
    from scipy.optimize import Bounds, LinearConstraint
    from scipy.sparse import csr_matrix, eye, hstack, vstack

    m, nc = spec.c.size, int(spec.c.sum())
    a = np.cumsum(spec.c)[:-1] if spec.cumulative else spec.c
    r = a.size
    pick = eye(r, m, format="csr")
    s_col = csr_matrix(a.reshape(-1, 1).astype(float))
    ident = eye(r, format="csr")
    rows = [hstack([nc * pick, -s_col, ident]),     # u + |c| w - a S >= 0
            hstack([-nc * pick, s_col, ident])]     # u - |c| w + a S >= 0
    lo, hi = [np.zeros(2 * r)], [np.full(2 * r, np.inf)]
    total = float(spec.big.sum())
    if spec.cumulative:
        band = eye(m, format="csr") - eye(m, k=-1, format="csr")
        rows.append(hstack([band, csr_matrix((m, 1)), csr_matrix((m, r))]))
        lo.append(np.zeros(m))
        hi.append(spec.big.astype(float))
        link = np.r_[np.zeros(m - 1), 1.0]
        w_hi = np.full(m, total)
    else:
        link = np.ones(m)
        w_hi = spec.big.astype(float)
    rows.append(csr_matrix(np.r_[link, -1.0, np.zeros(r)].reshape(1, -1)))  # S = sum x
    lo.append([0.0])
    hi.append([0.0])
    constraints = LinearConstraint(vstack(rows).tocsr(), np.concatenate(lo), np.concatenate(hi))
    bounds = Bounds(np.r_[np.zeros(m), n, np.zeros(r)],
                    np.r_[w_hi, float(n) if fixed_size else total, np.full(r, np.inf)])
    cost = np.r_[np.zeros(m), -lam * spec.k * nc, np.ones(r)]
    return cost, constraints, bounds, np.r_[np.ones(m + 1), np.zeros(r)]


def _milp_step(spec: _Ratio, n: int, lam: float,
               time_limit: float) -> tuple[np.ndarray | None, float | None]:
    """One Dinkelbach step over integer sets: the counts x (or None), and None when HiGHS
    proved the step optimal, else its dual bound on the step's objective."""
    from scipy.optimize import milp

    cost, constraints, bounds, integrality = _program(spec, n, lam)
    res = milp(cost, constraints=constraints, bounds=bounds, integrality=integrality,
               options={"mip_rel_gap": 0.0, "time_limit": max(time_limit, 0.1)})
    dual = None if res.status == 0 else float(getattr(res, "mip_dual_bound", None) or -np.inf)
    if res.x is None:
        return None, dual if dual is not None else -np.inf
    m = spec.c.size
    w = np.rint(res.x[:m]).astype(np.int64)
    x = np.diff(np.r_[0, w]) if spec.cumulative else w
    return np.clip(x, 0, spec.big), dual


def _reference(x: np.ndarray, values: tuple[str, ...], spec: _Ratio, method: str,
               iterations: int, lower: float | None = None) -> ReferenceSet:
    """``lower`` is None when the search proved optimality, else a lower bound."""
    counts = tuple((values[i], int(x[i])) for i in range(x.size) if x[i] > 0)
    distance = float(spec.exact(x))
    if lower is None:
        return ReferenceSet(int(x.sum()), counts, distance, method, iterations)
    return ReferenceSet(int(x.sum()), counts, distance, method, iterations, False,
                        max(0.0, min(lower, distance)))


# ----------------------------------------------------------------------------------------------
# The check and its result
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ClassDistance:
    """One equivalence class: its QI values, size, and distance.

    ``distance`` is the one the verdict uses: against the best reference set when ``n`` was given
    (then ``reference`` describes it), else against the whole table (``table_distance``).
    ``infinite`` is true when the distance is +inf (KL with an empty reference bin).
    """

    qi_values: tuple[str, ...]
    size: int
    first_row: int
    distance: float
    table_distance: float
    counts: tuple[tuple[str, int], ...]
    reference: ReferenceSet | None = None

    @property
    def infinite(self) -> bool:
        return math.isinf(self.distance)

    def to_dict(self, qi: Sequence[str]) -> dict[str, Any]:
        return {"qi_values": dict(zip(qi, self.qi_values)), "size": self.size,
                "first_data_row": self.first_row + 1, "distance": _json_number(self.distance),
                "infinite": self.infinite, "table_distance": _json_number(self.table_distance),
                "counts": {v: c for v, c in self.counts},
                "reference": self.reference.to_dict() if self.reference else None}


def _json_number(x: float) -> float | None:
    return x if math.isfinite(x) else None


@dataclass(frozen=True, slots=True)
class ClosenessResult:
    """Outcome of :func:`closeness`. Copies its inputs; ``closeness`` is the max over classes.

    ``verdict`` is ``"t-close"`` / ``"not t-close"`` (``"(n,t)-close"`` / ``"not (n,t)-close"``
    with ``n``) when ``t`` was given, else ``None``; with ``n`` it is ``"undetermined"`` when every
    class above t hit its search's time limit with a lower bound <= t (``unproved_classes``
    counts the classes not proved optimal: their distance is an upper bound). ``worst`` holds
    the ``top`` classes with the largest distance (ties: earliest first row).
    """

    source: str
    qi: tuple[str, ...]
    sensitive: str
    distance: str
    ordered: bool
    t: float | None
    n: int | None
    rows: int
    classes: int
    values: int
    closeness: float
    violating_classes: int | None
    infinite_classes: int
    worst: tuple[ClassDistance, ...]
    reference_solves: int
    seconds: float
    notes: tuple[str, ...] = ()
    unproved_classes: int = 0
    violating_unproved: int = 0

    @property
    def verdict(self) -> str | None:
        if self.t is None:
            return None
        name = "t-close" if self.n is None else "(n,t)-close"
        if self.closeness <= self.t:
            return name
        if self.violating_classes == self.violating_unproved:
            return "undetermined"
        return f"not {name}"

    @property
    def violation(self) -> bool:
        return self.verdict is not None and self.verdict.startswith("not ")

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema_version": SCHEMA_VERSION,
            "source": self.source, "qi": list(self.qi), "sensitive": self.sensitive,
            "distance": self.distance, "ordered": self.ordered, "t": self.t, "n": self.n,
            "rows": self.rows, "classes": self.classes, "sensitive_values": self.values,
            "closeness": _json_number(self.closeness),
            "closeness_infinite": math.isinf(self.closeness),
            "verdict": self.verdict, "violation": self.violation,
            "violating_classes": self.violating_classes,
            "infinite_classes": self.infinite_classes,
            "worst": [w.to_dict(self.qi) for w in self.worst],
            "reference_solves": self.reference_solves,
            "unproved_classes": self.unproved_classes,
            "seconds": self.seconds, "notes": list(self.notes),
        }

    def summary(self) -> str:
        kind = f"({self.n}, t)-closeness" if self.n is not None else "closeness"
        head = (f"{self.source}: {self.rows} rows, {self.classes} classes on QI "
                f"{', '.join(self.qi)}; sensitive {self.sensitive!r} ({self.values} values"
                f"{', ordered' if self.ordered else ''}); distance {self.distance}")
        lines = [head, f"{kind} = {_fmt(self.closeness)} (max over classes)"]
        if self.t is not None:
            lines.append(f"verdict: {self.verdict} at t = {self.t:g} "
                         f"({self.violating_classes} of {self.classes} classes exceed t)")
        lines.extend(self.notes)
        lines.append(f"worst {len(self.worst)} class(es):")
        lines.extend(_class_line(w, self.qi) for w in self.worst)
        return "\n".join(lines)


def _fmt(x: float) -> str:
    return "inf" if math.isinf(x) else f"{x:.6g}"


def _class_line(w: ClassDistance, qi: Sequence[str]) -> str:
    label = ", ".join(f"{k}={v}" for k, v in zip(qi, w.qi_values))
    line = f"  D = {_fmt(w.distance):>9}  size {w.size:>7}  [{label}]"
    if w.reference is not None:
        counts = ", ".join(f"{v}: {c}" for v, c in w.reference.counts[:12])
        more = ", ..." if len(w.reference.counts) > 12 else ""
        proved = ("" if w.reference.optimal else
                  f" [time limit: best distance in [{w.reference.bound:.6g}, {w.distance:.6g}]]")
        line += (f"\n      best reference M: {w.reference.size} records ({counts}{more})"
                 f"{proved}")
    return line


def closeness(table: SensitiveTable, distance: str = "tv", t: float | None = None,
              n: int | None = None, top: int = 10,
              time_limit: float = 120.0) -> ClosenessResult:
    """Distance of each class's sensitive distribution to the table's; the worst ``top`` classes.

    With ``n``, each class is compared with its best reference set of at least ``n`` records
    (:func:`best_reference_set`; TV, L1 and EMD only) instead of the whole table. ``time_limit``
    is the total budget (seconds) of the exact searches, shared evenly among the classes still to
    solve; once spent, the remaining classes get the whole table as reference (an upper bound) and
    the lower bound 0, unless a scaled copy of the class fits (distance 0).
    """
    started = time.perf_counter()
    _check_distance(distance)
    _check_t_n_top(t, n, top, table.rows)
    if n is not None and distance not in EXACT_REFERENCE_DISTANCES:
        raise InputError(f"--n needs a distance the exact reference-set solver supports "
                         f"({'/'.join(EXACT_REFERENCE_DISTANCES)}), not {distance!r}; use "
                         "--distance tv, l1 or emd.")
    table_d = _class_distances(table, distance)
    d, refs = ((table_d, {}) if n is None
               else _reference_distances(table, distance, n, time_limit))
    order = np.lexsort((table.class_first_row, -d))
    sizes = np.bincount(table.class_index, minlength=table.classes)
    worst = tuple(_class_entry(table, int(c), d, table_d, sizes, refs) for c in order[:top])
    return ClosenessResult(
        table.source, table.qi, table.sensitive, distance, table.ordered, t, n, table.rows,
        table.classes, len(table.values), float(d.max()),
        None if t is None else int(np.count_nonzero(~(d <= t))), int(np.isinf(d).sum()),
        worst, len({id(r) for r in refs.values()}), time.perf_counter() - started,
        _notes(distance, table, d, refs), *_unproved(d, refs, t))


def _unproved(d: np.ndarray, refs: dict[int, ReferenceSet], t: float | None) -> tuple[int, int]:
    """Classes not proved optimal; those above t whose lower bound is not (undecided)."""
    loose = [c for c, r in refs.items() if not r.optimal]
    above = 0 if t is None else sum(1 for c in loose if not d[c] <= t and refs[c].bound <= t)
    return len(loose), above


def _check_t_n_top(t: float | None, n: int | None, top: int, rows: int) -> None:
    if t is not None and not (math.isfinite(t) and t >= 0):
        raise InputError(f"t={t!r} must be a finite number >= 0; pass e.g. --epsilon 0.2.")
    if n is not None and not 1 <= n <= rows:
        raise InputError(f"n={n} must be between 1 and the table's {rows} rows; no larger "
                         "reference set exists; choose a smaller --n.")
    if top < 1:
        raise InputError(f"top={top} must be at least 1; pass e.g. --top 10.")


def _reference_distances(table: SensitiveTable, distance: str, n: int, time_limit: float):
    """Best reference set per class, solved once per distinct count vector."""
    m = len(table.values)
    pairs = _pairs(table)
    totals = np.bincount(table.value_index, minlength=m)
    ends = np.r_[pairs.starts[1:], pairs.cls.size]
    keys = [(pairs.val[a:b].tobytes(), pairs.count[a:b].tobytes())
            for a, b in zip(pairs.starts, ends)]
    todo = len(set(keys))
    deadline = time.monotonic() + time_limit
    solved: dict[tuple, ReferenceSet] = {}
    refs: dict[int, ReferenceSet] = {}
    d = np.empty(table.classes)
    for c, a, b, key in zip(pairs.cls[pairs.starts], pairs.starts, ends, keys):
        if key not in solved:
            counts = np.zeros(m, dtype=np.int64)
            counts[pairs.val[a:b]] = pairs.count[a:b]
            share = (deadline - time.monotonic()) / todo
            solved[key] = best_reference_set(counts, totals, n, distance, table.ordered,
                                             table.values, share)
            todo -= 1
        refs[int(c)] = solved[key]
        d[c] = solved[key].distance
    return d, refs


def _class_entry(table: SensitiveTable, c: int, d: np.ndarray, table_d: np.ndarray,
                 sizes: np.ndarray, refs: dict[int, ReferenceSet]) -> ClassDistance:
    values = table.value_index[table.class_index == c]
    counts = np.bincount(values, minlength=len(table.values))
    listed = tuple((table.values[i], int(k)) for i, k in enumerate(counts) if k)
    return ClassDistance(table.class_label(c), int(sizes[c]), int(table.class_first_row[c]),
                         float(d[c]), float(table_d[c]), listed, refs.get(c))


def _notes(distance: str, table: SensitiveTable, d: np.ndarray,
           refs: dict[int, ReferenceSet]) -> tuple[str, ...]:
    notes = []
    loose = sum(1 for r in refs.values() if not r.optimal)
    if loose:
        notes.append(f"{loose} class(es) hit the solver time limit: their distance is an upper "
                     "bound (attained by the set shown) and a lower bound is given.")
    if distance == "kl":
        inf = int(np.isinf(d).sum())
        notes.append(f"KL is infinite for {inf} class(es): the reference has an empty bin where "
                     "the class has mass." if inf else
                     "KL(P_L || P_ref) in nats; it would be infinite where the reference had an "
                     "empty bin under a value the class holds (none here).")
    if distance == "emd":
        notes.append("EMD with ordered ground distance |i-j|/(m-1) over the sorted distinct "
                     "values." if table.ordered else
                     "EMD with equal ground distance (categorical): equals the TV distance.")
    return tuple(notes)
