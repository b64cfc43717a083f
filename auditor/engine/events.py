"""Output events: frozen descriptions with a vectorised membership test.

Every event is fixed before certification starts (it depends only on the selection sample),
which is what makes the Clopper-Pearson bounds on fresh samples valid. Events built from a
hash of the output are still fixed sets of outputs, so hash collisions cannot break soundness.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from proofs.io import brief, number_or_text

__all__ = [
    "BlockBayes",
    "Coordinate",
    "Difference",
    "Event",
    "FloatMultiple",
    "Identity",
    "KeyFn",
    "KeySet",
    "Linear",
    "MinBox",
    "NaiveBayes",
    "NegativeZero",
    "Score",
    "ScoreInterval",
    "Vote",
    "event_from_state",
    "event_state",
    "matched",
]

_MULT = np.uint64(0x9E3779B97F4A7C15)


def _fmt(x: float) -> str:
    return f"{x:.6g}"


def _above(t: float) -> str:
    """The words for "> t": a cut just below an integer (the midpoint rule on 0/1 columns puts it
    one ulp under) reads ">= n", not a "> 1" that a 0/1 column never meets."""
    n = round(t)
    return f">= {n}" if 0 < n - t <= 1e-9 * max(1.0, abs(t)) else f"> {_fmt(t)}"


@dataclass(frozen=True, slots=True)
class Identity:
    """The scalar output itself."""

    def __call__(self, y: np.ndarray) -> np.ndarray:
        return y.astype(float, copy=False)

    def describe(self) -> str:
        return "y"


@dataclass(frozen=True, slots=True)
class Coordinate:
    """One coordinate ``y[i]`` of a vector output."""

    index: int

    def __call__(self, y: np.ndarray) -> np.ndarray:
        return y[:, self.index].astype(float, copy=False)

    def describe(self) -> str:
        return f"y[{self.index}]"


@dataclass(frozen=True, slots=True)
class MinBox:
    """``min_i s_i (y[c_i] - m_i) / w_i``: a threshold on it is a product of coordinate "
    "thresholds."""

    coords: tuple[int, ...]
    signs: tuple[float, ...]
    centres: tuple[float, ...]
    widths: tuple[float, ...]

    def __call__(self, y: np.ndarray) -> np.ndarray:
        sub = y[:, list(self.coords)].astype(float, copy=False)
        s = np.asarray(self.signs) / np.asarray(self.widths)
        return np.min((sub - np.asarray(self.centres)) * s, axis=1)

    def describe(self) -> str:
        parts = [
            f"{'+' if s > 0 else '-'}(y[{c}]-{_fmt(m)})/{_fmt(w)}"
            for c, s, m, w in zip(self.coords, self.signs, self.centres, self.widths)
        ]
        return f"min({', '.join(parts)})"


@dataclass(frozen=True, slots=True)
class Linear:
    """``w . y``: a projection or the score of a fitted linear classifier (``label`` says which)."""

    weights: tuple[float, ...]
    label: str = "projection"

    def __call__(self, y: np.ndarray) -> np.ndarray:
        return y.astype(float, copy=False) @ np.asarray(self.weights)

    def describe(self) -> str:
        w = ", ".join(_fmt(v) for v in self.weights[:8])
        more = ", ..." if len(self.weights) > 8 else ""
        return f"{self.label} w.y with w=[{w}{more}]"


@dataclass(frozen=True, slots=True)
class Vote:
    """``sum_i w_i [y[i] > t_i]``: a weighted count of the coordinates above their cut points.

    For outputs with independent coordinates (noisy histograms, parallel compositions, the
    bits of a Bloom filter), the likelihood ratio of the indicators is close to linear in them,
    so a threshold on this score is close to the best event; it is robust where a projection
    of the raw values is not (heavy-tailed noise, many weak coordinates).
    """

    cuts: tuple[float, ...]
    weights: tuple[float, ...]
    increments: bool = False  # vote on y[i] - y[i-1] (y[-1] = 0): outputs that are running sums

    def __call__(self, y: np.ndarray) -> np.ndarray:
        v = y.astype(float, copy=False)
        if self.increments:
            v = np.diff(v, axis=1, prepend=0.0)
        return (v > np.asarray(self.cuts)) @ np.asarray(self.weights)

    def describe(self) -> str:
        term = "(y[{i}]-y[{j}])" if self.increments else "y[{i}]"
        parts = [
            f"{_fmt(w)}[{term.format(i=i, j=i - 1) if i else 'y[0]'} {_above(t)}]"
            for i, (t, w) in enumerate(zip(self.cuts, self.weights))
            if w != 0
        ]
        return "vote " + " + ".join(parts[:8]) + (" + ..." if len(parts) > 8 else "")


@dataclass(frozen=True, slots=True)
class NaiveBayes:
    """``sum_j weights[j][b_j(y)]``, where ``b_j(y)`` is the bin of ``y[cols[j]]`` among
    ``edges[j]`` (``numpy.searchsorted``, right side: bin 0 is ``y < edges[j][0]``).

    With ``weights[j]`` the log-likelihood ratios of column ``cols[j]``'s bins, this is the
    naive-Bayes likelihood-ratio score: exact (up to the binning) when the coordinates are
    independent, as in compositions of mechanisms run side by side, parallel releases and
    Bloom-filter bits, whose likelihood ratio is the product of the coordinates' ratios.
    """

    cols: tuple[int, ...]
    edges: tuple[tuple[float, ...], ...]
    weights: tuple[tuple[float, ...], ...]

    def __call__(self, y: np.ndarray) -> np.ndarray:
        out = np.zeros(y.shape[0])
        for c, e, w in zip(self.cols, self.edges, self.weights):
            v = y[:, c].astype(float, copy=False)
            out += np.asarray(w)[np.searchsorted(np.asarray(e), v, side="right")]
        return out

    def describe(self) -> str:
        shown = ", ".join(str(c) for c in self.cols[:8]) + (", ..." if len(self.cols) > 8 else "")
        return f"naive-Bayes log-likelihood-ratio score of the binned y[{shown}]"


@dataclass(frozen=True, slots=True)
class BlockBayes:
    """``sum_b w_b(cell_b(y)) + rest(y)``: the log-likelihood ratio of an output whose
    columns fall into independent blocks, as the sum of each block's own ratio (``keys[b]``
    hashes a block's discrete columns; ``cells[b]``, sorted, are the values seen on the
    building tally and ``weights[b]`` their log-likelihood ratios; a value never seen weighs
    0), plus a naive-Bayes score of the remaining (real) columns.

    Mechanisms run side by side on the same input with independent noise (a composition) have
    a likelihood ratio that is a sum over their parts; each part's ratio is estimated over
    that part's few patterns, so combinations too rare to be counted jointly are still ranked.
    """

    keys: tuple[KeyFn, ...]
    cells: tuple[tuple[int, ...], ...]
    weights: tuple[tuple[float, ...], ...]
    rest: NaiveBayes | None = None  # the columns outside the blocks' keys, one by one

    def __call__(self, y: np.ndarray) -> np.ndarray:
        out = np.zeros(y.shape[0]) if self.rest is None else self.rest(y)
        for key, c, w in zip(self.keys, self.cells, self.weights):
            k = key(y)
            cells = np.asarray(c, dtype=np.uint64)
            idx = np.minimum(np.searchsorted(cells, k), cells.size - 1)
            out += np.where(cells[idx] == k, np.asarray(w)[idx], 0.0)
        return out

    def describe(self) -> str:
        blocks = "; ".join(_span(k.cols or ()) for k in self.keys)
        more = "" if self.rest is None else f" plus naive Bayes on {_span(self.rest.cols)}"
        return f"likelihood-ratio score of the joint values of {{{blocks}}}{more}"


def _span(cols: tuple[int, ...]) -> str:
    """``y[0-9]`` for a run of columns, else the list."""
    if len(cols) > 2 and list(cols) == list(range(cols[0], cols[-1] + 1)):
        return f"y[{cols[0]}-{cols[-1]}]"
    return "y[" + ",".join(str(c) for c in cols) + "]"


Score = Identity | Coordinate | MinBox | Linear | Vote | NaiveBayes | BlockBayes


@dataclass(frozen=True, slots=True)
class ScoreInterval:
    """``lo < score(y) <= hi`` (a threshold when one end is infinite)."""

    score: Score
    lo: float
    hi: float

    def contains(self, y: np.ndarray) -> np.ndarray:
        s = self.score(y)
        return (s > self.lo) & (s <= self.hi)

    def describe(self) -> str:
        name = self.score.describe()
        if math.isinf(self.lo):
            return f"{name} <= {_fmt(self.hi)}"
        if math.isinf(self.hi):
            return f"{name} > {_fmt(self.lo)}"
        return f"{_fmt(self.lo)} < {name} <= {_fmt(self.hi)}"


@dataclass(frozen=True, slots=True)
class KeyFn:
    """The output itself (``cols`` is None) or a 64-bit hash of the listed vector columns.

    With ``edges``, column ``cols[j]`` is first replaced by its bin index under ``edges[j]``
    (an empty tuple keeps the raw value): a histogram over the output space, whose
    likelihood-ordered cells form a histogram-based likelihood-ratio classifier.
    """

    cols: tuple[int, ...] | None = None
    edges: tuple[tuple[float, ...], ...] | None = None

    def __call__(self, y: np.ndarray) -> np.ndarray:
        if self.cols is None:
            return y
        sub = np.array(y[:, list(self.cols)], dtype=np.float64)
        if self.edges is not None:
            for j, e in enumerate(self.edges):
                if e:
                    sub[:, j] = np.searchsorted(np.asarray(e), sub[:, j], side="right")
        bits = np.ascontiguousarray(sub).view(np.uint64)
        h = np.full(sub.shape[0], np.uint64(0xCBF29CE484222325))
        for j in range(bits.shape[1]):
            h = (h ^ bits[:, j]) * _MULT
            h ^= h >> np.uint64(29)
        return h

    def describe(self) -> str:
        if self.cols is None:
            return "y"
        if self.edges is None or not any(self.edges):
            return f"y[{list(self.cols)}]"
        return f"cells of a histogram over y[{list(self.cols)}]"


def matched(values: np.ndarray, keys: tuple[Any, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Key values and an event's keys in one dtype to compare them in, exactly: strings as
    strings, integers in a dtype holding both sides, reals in float64, and across kinds only
    the keys a value of the other kind can equal (an integer key beyond 2**53 that no double
    holds matches no double, a fraction no integer, 258 no uint8). Cast to the values' dtype,
    a key 0.5 chosen where fractions occurred became 0 in an integer chunk, 258 became 2 in a
    uint8 one, and 2**60 + 1 met the double 2**60: whether an output was in the event
    depended on the rest of its chunk, and correct mechanisms were violations."""
    if values.dtype.kind == "U":
        return values, np.asarray(keys, dtype=str)
    if values.dtype.kind == "b":
        values = values.astype(np.int64)
    k = np.asarray(keys)
    if k.size == 0:
        return values, np.empty(0, dtype=values.dtype)
    if values.dtype.kind in "iu" and k.dtype.kind != "i" and all(type(x) is int for x in keys):
        try:  # Python ints, exactly in the values' own dtype (hash keys: half are >= 2**63)
            return values, np.array(keys, dtype=values.dtype)
        except OverflowError:
            pass
    if k.dtype.kind == "f" and not np.abs(k).max() < 2**53:  # doubles of integer keys?
        if any(isinstance(x, (int, np.integer)) for x in keys):
            return _exactly(values, keys)
    if k.dtype == values.dtype:
        return values, k
    if values.dtype.kind in "iu" and k.dtype.kind in "iub":
        common = np.promote_types(values.dtype, k.dtype)
        if common.kind in "iu":
            return values.astype(common, copy=False), k.astype(common, copy=False)
        if values.dtype == np.uint64:  # int64 keys: only those >= 0 can be met, exactly
            return values, k[k >= 0].astype(np.uint64)
        return values, k[k <= np.iinfo(np.int64).max].astype(np.int64)  # uint64 keys
    if values.dtype.kind in "iu" or k.dtype.kind != "f":
        return _exactly(values, keys)
    return values.astype(np.float64, copy=False), k.astype(np.float64, copy=False)


def joined(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Two arrays of keys end to end: integers of two kinds that NumPy would join as doubles
    (int64 beside uint64) as uint64 when none is negative, so that tallies of chunks of both
    kinds keep 2**60 and 2**60 + 1 apart."""
    if a.dtype.kind in "iub" and b.dtype.kind in "iub":
        if np.promote_types(a.dtype, b.dtype).kind == "f" and not (
            (a.size and a.min() < 0) or (b.size and b.min() < 0)
        ):
            return np.concatenate([a.astype(np.uint64), b.astype(np.uint64)])
    return np.concatenate([a, b])


def _exactly(values: np.ndarray, keys: tuple[Any, ...]) -> tuple[np.ndarray, np.ndarray]:
    """``values`` (in float64 unless they are integers) and the keys one of them can equal,
    in their dtype, found one key at a time (Python compares ints and floats exactly)."""
    if values.dtype.kind not in "iu":
        values = values.astype(np.float64, copy=False)
    info = np.iinfo(values.dtype) if values.dtype.kind in "iu" else None
    kept = []
    for x in keys:
        x = x.item() if isinstance(x, np.generic) else x
        if info is not None:
            if isinstance(x, float) and not (math.isfinite(x) and x.is_integer()):
                continue
            if info.min <= int(x) <= info.max:
                kept.append(int(x))
        else:
            try:
                f = float(x)
            except OverflowError:
                continue
            if f == x:
                kept.append(f)
    return values, np.asarray(kept, dtype=values.dtype)


@dataclass(frozen=True, slots=True)
class KeySet:
    """The output (or the listed columns of a vector output) is one of ``keys``.

    ``labels`` are readable versions of the keys (for hashed rows, the rows themselves).
    """

    key: KeyFn
    keys: tuple[Any, ...]
    labels: tuple[str, ...]

    def contains(self, y: np.ndarray) -> np.ndarray:
        k, keys = matched(self.key(y), self.keys)
        return np.isin(k, keys)

    def describe(self) -> str:
        what = self.key.describe()
        shown = ", ".join(self.labels[:6]) + (", ..." if len(self.labels) > 6 else "")
        if self.key.edges is not None and any(self.key.edges):  # (labels: the cells)
            over = f"a histogram over y[{list(self.key.cols or ())}]"
            if len(self.labels) == 1:
                return f"y in one cell of {over}: {shown}"
            return f"y in {len(self.labels)} cells of {over}: {{{shown}}}"
        if len(self.labels) == 1:
            return f"{what} == {shown}"
        return f"{what} in {{{shown}}} ({len(self.labels)} values)"


@dataclass(frozen=True, slots=True)
class FloatMultiple:
    """The output is (``negate`` False) or is not a multiple of ``2**-k``.

    Catches precision attacks on textbook floating-point samplers (Mironov 2012): the set of
    doubles a sampler can emit depends on its input, so low-order bits leak the input.
    """

    k: int
    negate: bool = False
    coord: int | None = None

    def contains(self, y: np.ndarray) -> np.ndarray:
        v = y if self.coord is None else y[:, self.coord]
        with np.errstate(invalid="ignore", over="ignore"):
            is_mult = np.mod(v.astype(float, copy=False) * (2.0**self.k), 1.0) == 0
        return ~is_mult if self.negate else is_mult

    def describe(self) -> str:
        what = "y" if self.coord is None else f"y[{self.coord}]"
        verb = "is not" if self.negate else "is"
        power = f"2^-{self.k}" if self.k >= 0 else f"2^{-self.k}"
        return f"{what} {verb} a multiple of {power}"


@dataclass(frozen=True, slots=True)
class NegativeZero:
    """The output is (``negate`` False) or is not the double -0.0.

    IEEE 754 has two zeros that compare equal, so no threshold, interval or key set tells them
    apart; a mechanism whose zero's sign depends on its input (rounding a noisy value that is
    negative more often under one dataset, a product with the sign of a private value) leaks
    through it, and its -0.0 may be an event of probability 0 under the other dataset.
    """

    negate: bool = False
    coord: int | None = None

    def contains(self, y: np.ndarray) -> np.ndarray:
        v = y if self.coord is None else y[:, self.coord]
        is_nz = (v == 0) & np.signbit(v)
        return ~is_nz if self.negate else is_nz

    def describe(self) -> str:
        what = "y" if self.coord is None else f"y[{self.coord}]"
        return f"{what} {'is not' if self.negate else 'is'} -0.0 (the negative zero)"


@dataclass(frozen=True, slots=True)
class Difference:
    """``y in keep and not in drop``. A pure claim's pooled ratio bound
    (auditor.engine.stats, "Pooled") counts an event and its partner of the other direction
    on their differences, which are disjoint: a Poisson prefix's counts on disjoint events are
    independent."""

    keep: ScoreInterval | KeySet | FloatMultiple | NegativeZero
    drop: ScoreInterval | KeySet | FloatMultiple | NegativeZero

    def contains(self, y: np.ndarray) -> np.ndarray:
        return self.keep.contains(y) & ~self.drop.contains(y)

    def describe(self) -> str:
        return f"({self.keep.describe()}) and not ({self.drop.describe()})"


Event = ScoreInterval | KeySet | FloatMultiple | NegativeZero | Difference


def event_to_dict(event: Event) -> dict[str, Any]:
    """A JSON-ready description of an event, enough to replay it."""
    d: dict[str, Any] = {"type": type(event).__name__, "description": event.describe()}
    if isinstance(event, ScoreInterval):
        d.update(
            score=event.score.describe(), lo=number_or_text(event.lo), hi=number_or_text(event.hi)
        )
    elif isinstance(event, KeySet):
        d.update(columns=None if event.key.cols is None else list(event.key.cols))
        d.update(bin_edges=None if event.key.edges is None else [list(e) for e in event.key.edges])
        d.update(values=list(event.labels))
    elif isinstance(event, NegativeZero):
        d.update(negate=event.negate, coordinate=event.coord)
    elif isinstance(event, Difference):
        d.update(keep=event_to_dict(event.keep), drop=event_to_dict(event.drop))
    else:
        d.update(k=event.k, negate=event.negate, coordinate=event.coord)
    return d


_STATE_TYPES = {
    cls.__name__: cls
    for cls in (
        Identity,
        Coordinate,
        MinBox,
        Linear,
        Vote,
        NaiveBayes,
        BlockBayes,
        ScoreInterval,
        KeyFn,
        KeySet,
        FloatMultiple,
        NegativeZero,
        Difference,
    )
}


def event_state(obj: Any) -> Any:
    """A lossless JSON-ready form of an event (checkpoints, replay): floats round-trip exactly."""
    if type(obj).__name__ in _STATE_TYPES and type(obj) is _STATE_TYPES[type(obj).__name__]:
        out = {"type": type(obj).__name__}
        out.update({f.name: event_state(getattr(obj, f.name)) for f in fields(obj)})
        return out
    if isinstance(obj, (tuple, list)):
        return [event_state(x) for x in obj]
    if isinstance(obj, np.generic):
        obj = obj.item()
    if isinstance(obj, float) and not math.isfinite(obj):
        return {"float": repr(obj)}
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    raise TypeError(f"cannot serialise {obj!r} in an event")


_PLAIN = {"float": (int, float), "int": (int,), "str": (str,), "bool": (bool,)}


def _top_level(kind: str, sep: str) -> list[str]:
    """``kind`` split at ``sep`` outside brackets."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(kind):
        depth += ch == "["
        depth -= ch == "]"
        if depth == 0 and kind.startswith(sep, i):
            parts.append(kind[start:i].strip())
            start = i + len(sep)
    return [*parts, kind[start:].strip()]


def _fits(v: Any, kind: str) -> bool:
    """Does ``v`` have the type a field's annotation names (as its text: int, float, str,
    bool, None, Any, tuple[X, ...], tuple[X, Y], A | B, and the event classes)? An edited
    state with a list where a number belongs, or a number where a score belongs, failed only
    later, in the middle of describing or counting."""
    options = _top_level(kind, "|")
    if len(options) > 1:
        return any(_fits(v, k) for k in options)
    if kind == "Any":
        return True
    if kind == "None":
        return v is None
    if kind in _PLAIN:
        return isinstance(v, _PLAIN[kind]) and (kind == "bool" or not isinstance(v, bool))
    if kind == "Score":
        return _fits(v, " | ".join(c.__name__ for c in Score.__args__))
    if kind.startswith("tuple[") and kind.endswith("]"):
        items = _top_level(kind[len("tuple[") : -1], ",")
        if not isinstance(v, tuple):
            return False
        if items[-1] == "...":
            return all(_fits(x, items[0]) for x in v)
        return len(v) == len(items) and all(_fits(x, k) for x, k in zip(v, items))
    cls = _STATE_TYPES.get(kind)
    return cls is not None and isinstance(v, cls)


def event_from_state(state: Any) -> Any:
    """Inverse of :func:`event_state`; raises ValueError on anything it did not write."""
    if isinstance(state, list):
        return tuple(event_from_state(x) for x in state)
    if isinstance(state, dict):
        if set(state) == {"float"} and state["float"] in ("inf", "-inf", "nan"):
            return float(state["float"])
        cls = _STATE_TYPES.get(state.get("type"))  # type: ignore[arg-type]
        if cls is None:
            raise ValueError(f"unknown event type {state.get('type')!r}")
        kinds = {f.name: f.type for f in fields(cls)}
        args = {k: v for k, v in state.items() if k != "type"}
        if set(args) != set(kinds):
            raise ValueError(f"{cls.__name__} needs fields {sorted(kinds)}")
        values = {k: event_from_state(v) for k, v in args.items()}
        for k, v in values.items():
            if not _fits(v, kinds[k]):
                raise ValueError(f"{cls.__name__}.{k}={brief(v, 80)} is not {kinds[k]}")
        return cls(**values)
    if state is None or isinstance(state, (bool, int, float, str)):
        return state
    raise ValueError(f"unexpected value {state!r} in an event")
