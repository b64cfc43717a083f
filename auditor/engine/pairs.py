"""Neighbouring pairs: explicit ones, checks under a relation, and generated candidates.

Relations: ``add-remove`` (one dataset is the other with one record added), ``replace-one``
(same size, one record differs), ``sensitivity`` (a query-answer vector in which each answer moves
by at most the sensitivity), ``any`` (no check; the user vouches for the pair).
Generated candidates follow the input patterns of StatDP (Ding et al. 2018, Sec. 5.1: one above,
one below, one above rest below, one below rest above, half-half, all above, all below, X shape)
plus random and adversarial floating-point datasets.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from auditor.engine.relations import RELATIONS
from auditor.engine.result import dataset_words
from proofs.errors import InputError

__all__ = [
    "RELATIONS",
    "Pair",
    "check_pair",
    "check_records",
    "check_size",
    "generate_pairs",
    "integer_input",
    "load_pairs_file",
    "parse_json_value",
    "same_dataset",
]


@dataclass(frozen=True, slots=True)
class Pair:
    """Two datasets passed to the mechanism as ``data``; ``label`` names the pattern."""

    a: Any
    b: Any
    label: str = "explicit"

    def to_dict(self) -> dict[str, Any]:
        return {"a": _jsonable(self.a), "b": _jsonable(self.b), "label": self.label}


def _jsonable(x: Any) -> Any:
    if isinstance(x, np.ndarray):
        return x.tolist()
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    return x


def normalise_relation(relation: str | None) -> str:
    rel = (relation or "any").replace("_", "-").lower()
    if rel not in RELATIONS:
        raise InputError(f"relation={relation!r} is unknown; use one of {', '.join(RELATIONS)}.")
    return rel


def parse_json_value(text: str, what: str = "--pair value") -> Any:
    try:
        return json.loads(text)
    except (json.JSONDecodeError, TypeError):
        raise InputError(
            f"{what} {text!r} is not JSON; write numbers as 1.5, lists as [1,2], strings as "
            "'\"a\"'."
        ) from None


MAX_SIZE = 100_000  # records or answers per generated dataset


def check_size(size: Any) -> None:
    """The dataset size of generated pairs: an integer from 1 to :data:`MAX_SIZE`."""
    if (
        isinstance(size, bool)
        or not isinstance(size, (int, np.integer))
        or not 1 <= size <= MAX_SIZE
    ):
        raise InputError(
            f"size={size!r} must be an integer from 1 (a single query answer) to {MAX_SIZE:,} "
            "records; for larger datasets give the pairs themselves."
        )


def load_pairs_file(path: str) -> list[Pair]:
    """A JSON file holding ``[[A, B], ...]`` or ``[{"a": A, "b": B}, ...]``."""
    p = Path(path)
    try:
        raw = json.loads(p.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputError(
            f"pairs file {path!r} cannot be read ({exc.strerror}); pass an existing JSON file."
        ) from None
    except UnicodeDecodeError:
        raise InputError(f"pairs file {path!r} is not UTF-8 text; write it as JSON.") from None
    except json.JSONDecodeError as exc:
        raise InputError(
            f"pairs file {path!r} is not JSON ({exc.msg} at line {exc.lineno}); fix the file."
        ) from None
    if not isinstance(raw, list) or not raw:
        raise InputError(f"pairs file {path!r} must hold a non-empty JSON list of [A, B] pairs.")
    return [_pair_from_json(item, i, path) for i, item in enumerate(raw)]


def _pair_from_json(item: Any, i: int, path: str) -> Pair:
    if isinstance(item, dict) and "a" in item and "b" in item:
        return Pair(item["a"], item["b"], str(item.get("label", f"{path}[{i}]")))
    if isinstance(item, list) and len(item) == 2:
        return Pair(item[0], item[1], f"{path}[{i}]")
    raise InputError(
        f'pairs file {path!r} entry {i} = {item!r} is not [A, B] or {{"a": A, "b": B}}.'
    )


def _records(x: Any, pair: Pair, relation: str) -> list[Any]:
    if not isinstance(x, (list, tuple, np.ndarray)):
        raise InputError(
            f"pair {dataset_words(pair.to_dict())} is not neighbouring under {relation}: "
            f"{dataset_words(x)} is not a list of "
            "records; pass datasets as JSON lists."
        )
    return list(_jsonable(x))


def _key(rec: Any) -> str:
    return json.dumps(_jsonable(rec), sort_keys=True)


def _check_add_remove(pair: Pair) -> bool:
    a, b = _records(pair.a, pair, "add-remove"), _records(pair.b, pair, "add-remove")
    if abs(len(a) - len(b)) != 1:
        return False
    big, small = (a, b) if len(a) > len(b) else (b, a)
    diff = Counter(map(_key, big))
    diff.subtract(Counter(map(_key, small)))
    return all(v >= 0 for v in diff.values()) and sum(diff.values()) == 1


def _check_replace_one(pair: Pair) -> bool:
    a, b = _records(pair.a, pair, "replace-one"), _records(pair.b, pair, "replace-one")
    return len(a) == len(b) and sum(_key(x) != _key(y) for x, y in zip(a, b)) <= 1


def _check_sensitivity(pair: Pair, sensitivity: float) -> bool:
    try:
        a = np.asarray(pair.a, dtype=float)
        b = np.asarray(pair.b, dtype=float)
    except (TypeError, ValueError, OverflowError):  # (an integer beyond a double's range)
        return False
    if a.shape != b.shape or not (np.isfinite(a).all() and np.isfinite(b).all()):
        return False
    return bool(np.max(np.abs(a - b), initial=0.0) <= sensitivity * (1 + 1e-12))


def check_pair(pair: Pair, relation: str, sensitivity: float = 1.0) -> None:
    """Raise InputError unless ``pair`` is neighbouring under ``relation``."""
    rel = normalise_relation(relation)
    ok = {
        "any": lambda: True,
        "add-remove": lambda: _check_add_remove(pair),
        "replace-one": lambda: _check_replace_one(pair),
        "sensitivity": lambda: _check_sensitivity(pair, sensitivity),
    }[rel]()
    if not ok:
        extra = f" {sensitivity:g}" if rel == "sensitivity" else ""
        raise InputError(
            f"pair A={dataset_words(_jsonable(pair.a))}, B={dataset_words(_jsonable(pair.b))} "
            "is not neighbouring under "
            f"relation {rel}{extra}; give a neighbouring pair or the right relation."
        )


def _pattern_pairs(n: int, s: float) -> list[Pair]:
    """StatDP patterns around the all-ones database (Ding et al. 2018)."""
    h = n // 2
    base = [1.0] * n
    pats = {
        "one above": [1 + s] + [1.0] * (n - 1),
        "one below": [1 - s] + [1.0] * (n - 1),
        "one above rest below": [1 + s] + [1 - s] * (n - 1),
        "one below rest above": [1 - s] + [1 + s] * (n - 1),
        "half-half": [1 + s] * h + [1 - s] * (n - h),
        "all above": [1 + s] * n,
        "all below": [1 - s] * n,
    }
    out = [Pair(base, p, label) for label, p in pats.items()]
    if n >= 2:
        out.append(Pair([1.0] * h + [1 - s] * (n - h), [1 - s] * h + [1.0] * (n - h), "X shape"))
    return out


def _float_pairs(n: int, s: float) -> list[Pair]:
    """Adversarial floats: values whose sums and noise round differently (Mironov 2012)."""
    vals = [(0.0, 0.1 * s), (1 / 3, 1 / 3 + s), (2.0**40 + 0.5, 2.0**40 + 0.5 + s)]
    if n == 1:
        return [Pair(a, b, "adversarial float") for a, b in vals]
    return [Pair([a] * n, [b] + [a] * (n - 1), "adversarial float") for a, b in vals]


RECORDS = (0.0, 1.0)  # the records of generated add-remove and replace-one datasets
RECORD_RELATIONS = ("add-remove", "replace-one")


def check_records(records: Any, relation: str | None) -> tuple[float, float] | None:
    """``records = (lo, hi)``, the range of one record's value in generated datasets (None:
    :data:`RECORDS`): two finite numbers lo < hi, for a relation on records."""
    if records is None:
        return None
    try:
        if isinstance(records, (str, bytes)):
            raise TypeError
        lo, hi = (float(v) for v in records)
        ok = math.isfinite(lo) and math.isfinite(hi) and lo < hi
    except (TypeError, ValueError):
        ok = False
    if not ok:
        raise InputError(
            f"records={records!r} must be two finite numbers LO < HI, the range of one record's "
            "value, e.g. --records -1 1."
        )
    if relation is None or normalise_relation(relation) not in RECORD_RELATIONS:
        raise InputError(
            f"records={records!r} sets the records of generated datasets: it needs --relation "
            "add-remove or replace-one and no pairs of your own."
        )
    return lo, hi


def generate_pairs(
    relation: str,
    size: int = 5,
    sensitivity: float = 1.0,
    seed: int = 0,
    records: tuple[float, float] | None = None,
) -> list[Pair]:
    """Candidate neighbouring pairs under ``relation`` for datasets of ``size`` records/answers.
    Under add-remove and replace-one the records lie in ``records`` = (lo, hi) (default
    :data:`RECORDS`): a random dataset, the extremes lo and hi added or swapped in, a dataset
    of lo's with one hi (a sum clipped to [lo, hi] moves by hi - lo), and a record a hair
    above lo (rounding)."""
    rel = normalise_relation(relation)
    check_size(size)
    lo, hi = RECORDS if records is None else check_records(records, rel)
    if rel in ("sensitivity", "any"):
        if size == 1:
            scalars = [
                Pair(1.0, 1.0 + sensitivity, "one above"),
                Pair(1.0, 1.0 - sensitivity, "one below"),
            ]
            return scalars + _float_pairs(1, sensitivity)
        return _pattern_pairs(size, sensitivity) + _float_pairs(size, sensitivity)
    rng = np.random.default_rng(seed)
    # points of [lo, hi] at positions t in [0, 1] (rounded to 6 digits), written so that no
    # width overflows (lo = -1e308, hi = 1e308) and a narrow range keeps its points apart
    at = lambda t: min(max(lo * (1 - t) + hi * t, lo), hi)
    base = [at(float(round(v, 6))) for v in rng.random(size)]
    tiny = at(2.0**-30)
    low = "all zero" if lo == 0 else f"all {lo!r}"
    if rel == "add-remove":
        pairs = [
            Pair(base, base[:-1], "remove one record"),
            Pair(base, base + [hi], f"add record {hi!r}"),
            Pair(base, base + [lo], f"add record {lo!r}"),
            Pair([lo] * size, [lo] * size + [hi], f"{low}, add {hi!r}"),
            Pair(base, base + [tiny], "add adversarial float"),
        ]
    else:
        pairs = [
            Pair(base, [hi] + base[1:], f"replace first by {hi!r}"),
            Pair(base, [lo] + base[1:], f"replace first by {lo!r}"),
            Pair([lo] * size, [hi] + [lo] * (size - 1), f"{low}, replace one by {hi!r}"),
            Pair(base, [tiny] + base[1:], "replace by adversarial float"),
        ]
    for p in pairs:
        check_pair(p, rel, sensitivity)
    # (a range where two of these coincide: a pair of one dataset twice, or a pair twice)
    seen, out = set(), []
    for p in pairs:
        key = (_written(p.a), _written(p.b))
        if not same_dataset(p) and key not in seen:
            seen.add(key)
            out.append(p)
    return out


def _written(x: Any) -> str | None:
    try:
        return json.dumps(_jsonable(x), sort_keys=True)
    except (TypeError, ValueError):
        return None


def same_dataset(pair: Pair) -> bool:
    """The two datasets written alike (as JSON: 0 and 0.0 differ, as a mechanism may tell)."""
    a = _written(pair.a)
    return a is not None and a == _written(pair.b)


def integer_input(data: Any, k: int | None = None) -> int:
    """The input as an integer (one of the k values 0, ..., k - 1 of a local protocol when k is
    given). int() alone would audit another dataset than the one asked for: 0.5 read as 0, a
    value -1 as the protocol's last one, 2 as a third answer of a yes/no question."""
    try:
        x = int(data)
        ok = x == data and (k is None or 0 <= x < k)
    except (TypeError, ValueError, OverflowError):
        ok = False
    if not ok:
        allowed = "an integer" if k is None else f"an integer in 0..{k - 1}"
        raise InputError(
            f"data={dataset_words(data)} is not an input of this mechanism; give {allowed}."
        )
    return x
