"""Hypothesis strategies for neighbouring datasets, one per relation.

    from hypothesis import given
    from auditor.testing.strategies import neighbouring_pairs

    @given(neighbouring_pairs("replace-one", elements=st.integers(0, 9), max_size=20))
    def test_my_mechanism(pair):
        a, b = pair
        ...

Every generated pair is neighbouring under the named relation by construction, the two
datasets differ, and the auditor's own checks agree (a test holds them together): a pair of
one dataset twice tells nothing and ``assert_dp`` refuses it.
"""

from __future__ import annotations

import json
import math
import numbers
import time
from dataclasses import dataclass

import numpy as np
from hypothesis import assume
from hypothesis import strategies as st

from proofs.errors import InputError

__all__ = ["datasets", "estimated_loss", "neighbouring_pairs", "search_pairs"]

_RELATIONS = ("add-remove", "replace-one", "sensitivity")


def datasets(elements=None, min_size: int = 0, max_size: int = 10):
    """Lists of records (default: small integers)."""
    return st.lists(
        elements if elements is not None else st.integers(-5, 5),
        min_size=min_size,
        max_size=max_size,
    )


def _add_remove(elements, min_size: int, max_size: int):
    @st.composite
    def build(draw):
        base = draw(datasets(elements, min_size, max_size - 1))  # (the other has one more)
        extra = draw(elements)
        index = draw(st.integers(0, len(base)))
        bigger = base[:index] + [extra] + base[index:]
        return (bigger, base) if draw(st.booleans()) else (base, bigger)

    return build()


def _replace_one(elements, min_size: int, max_size: int):
    @st.composite
    def build(draw):
        base = draw(datasets(elements, max(min_size, 1), max_size))
        index = draw(st.integers(0, len(base) - 1))
        other = list(base)
        other[index] = draw(elements)
        assume(not _same(base, other))  # (elements with one value: Hypothesis says so)
        return base, other

    return build()


def _same(a, b) -> bool:
    from auditor.engine.pairs import Pair, same_dataset

    return same_dataset(Pair(a, b))


def _sensitivity(sensitivity: float, min_size: int, max_size: int, elements=None):
    answers = (
        elements
        if elements is not None
        else st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False)
    )

    @st.composite
    def build(draw):
        a = draw(st.lists(answers, min_size=max(min_size, 1), max_size=max_size))
        moves = st.floats(-sensitivity, sensitivity, allow_nan=False)
        b = [x + draw(moves) for x in a]
        # float rounding may push |b - a| a hair past the sensitivity; clip it back inside
        b = [min(max(y, x - sensitivity), x + sensitivity) for x, y in zip(a, b)]
        assume(not _same(a, b))
        return a, b

    return build()


def neighbouring_pairs(
    relation: str = "replace-one",
    elements=None,
    *,
    min_size: int = 0,
    max_size: int = 10,
    sensitivity: float = 1.0,
):
    """A strategy of neighbouring pairs `(a, b)` under `relation`.

    - ``add-remove``: `b` is `a` with one record added (or removed), anywhere in the list;
    - ``replace-one``: same length, exactly one position may differ;
    - ``sensitivity``: query-answer vectors in which each answer moves by at most `sensitivity`
      (answers drawn from `elements`, numbers; default floats in [-1000, 1000]).

    The two datasets of a pair always differ.
    """
    if not isinstance(relation, str):
        raise InputError(
            f"relation={relation!r} is not a relation; use one of {', '.join(_RELATIONS)}."
        )
    rel = relation.replace("_", "-").lower()
    if rel not in _RELATIONS:
        raise InputError(f"relation={relation!r} is unknown; use one of {', '.join(_RELATIONS)}.")
    if not 0 <= min_size <= max_size:
        raise InputError(
            f"min_size={min_size}, max_size={max_size}: need 0 <= min_size <= max_size."
        )
    if max_size < 1:  # (an empty dataset has no neighbour of the same size at most 0)
        raise InputError(f"max_size={max_size}: a neighbouring pair needs max_size >= 1.")
    elements_given = elements
    elements = elements if elements is not None else st.integers(-5, 5)
    if rel == "add-remove":
        if min_size == max_size:
            raise InputError(
                f"min_size = max_size = {max_size}: add-remove neighbours differ in size by one; "
                "give max_size > min_size."
            )
        return _add_remove(elements, min_size, max_size)
    if rel == "replace-one":
        return _replace_one(elements, min_size, max_size)
    if (
        isinstance(sensitivity, bool)
        or not isinstance(sensitivity, numbers.Real)
        or not 0 < sensitivity < math.inf
    ):
        raise InputError(
            f"sensitivity={sensitivity!r} must be a finite number > 0; e.g. sensitivity=1."
        )
    return _sensitivity(float(sensitivity), min_size, max_size, elements_given)


def estimated_loss(ya: np.ndarray, yb: np.ndarray) -> float:
    """A quick, smoothed estimate of the privacy loss between two output samples.

    Outputs are reduced to one real score (vectors: projection on the mean difference), cut
    into up to 32 quantile cells (or atoms), and the largest |ln| ratio of add-one-smoothed
    tail and cell frequencies is returned. Only used to steer the search; never certified.
    """
    ya, yb = np.asarray(ya), np.asarray(yb)
    if ya.dtype.kind in "USO":
        keys, inv = np.unique(np.concatenate([ya, yb]).astype(str), return_inverse=True)
        n = len(ya)
        ca = np.bincount(inv[:n], minlength=len(keys)).astype(float)
        cb = np.bincount(inv[n:], minlength=len(keys)).astype(float)
    else:
        xa, xb = ya.astype(float), yb.astype(float)
        if xa.ndim == 2:
            w = xa.mean(axis=0) - xb.mean(axis=0)
            w = w if np.any(w) else np.ones(xa.shape[1])
            xa, xb = xa @ w, xb @ w
        edges = np.unique(np.quantile(np.concatenate([xa, xb]), np.linspace(0, 1, 33)[1:-1]))
        ca = np.bincount(np.searchsorted(edges, xa, side="right"), minlength=len(edges) + 1).astype(
            float
        )
        cb = np.bincount(np.searchsorted(edges, xb, side="right"), minlength=len(edges) + 1).astype(
            float
        )
    tails_a = np.concatenate([np.cumsum(ca), np.cumsum(ca[::-1])])
    tails_b = np.concatenate([np.cumsum(cb), np.cumsum(cb[::-1])])
    counts_a = np.concatenate([ca, tails_a])
    counts_b = np.concatenate([cb, tails_b])
    ratio = np.log((counts_a + 1) / (counts_b + 1))
    return float(np.max(np.abs(ratio)))


def search_pairs(
    mechanism,
    relation: str = "replace-one",
    elements=None,
    *,
    min_size: int = 1,
    max_size: int = 5,
    sensitivity: float = 1.0,
    samples: int = 1000,
    max_examples: int = 200,
    keep: int = 3,
    seed: int = 0,
    until: float | None = None,
):
    """Search neighbouring pairs with Hypothesis, steering by `hypothesis.target` on the
    estimated privacy loss; return the `keep` most promising pairs.

    The search draws its own samples (seeded by `seed`); an audit then selects events and
    certifies on fresh samples, so using the pairs it returns keeps the audit sound. With
    `until` (a `time.perf_counter` reading) the search ends then, with the pairs found so far,
    a mechanism's call under way cut (see `auditor.engine.deadline`).
    """
    return searched(
        mechanism, relation, elements, min_size=min_size, max_size=max_size,
        sensitivity=sensitivity, samples=samples, max_examples=max_examples, keep=keep,
        seed=seed, until=until,
    ).pairs  # fmt: skip


class _Ended(BaseException):
    """The search's time has passed (raised through Hypothesis, which lets a BaseException
    other than SystemExit and GeneratorExit through at once, as KeyboardInterrupt)."""


@dataclass(frozen=True, slots=True)
class Searched:
    """What :func:`search_pairs` found: the pairs, after how many of ``max_examples`` pairs
    tried, and whether its time (``until``) cut it short."""

    pairs: list
    tried: int
    max_examples: int
    cut: bool


def searched(
    mechanism,
    relation: str,
    elements,
    *,
    min_size: int,
    max_size: int,
    sensitivity: float,
    samples: int = 1000,
    max_examples: int = 200,
    keep: int = 3,
    seed: int = 0,
    until: float | None = None,
) -> Searched:
    """:func:`search_pairs`, with what the search did."""
    from hypothesis import HealthCheck, Phase, given, settings, target

    from auditor.engine.adapter import as_mechanism, draw
    from auditor.engine.deadline import OutOfTime, cut_at
    from auditor.engine.pairs import Pair

    if not (isinstance(samples, int) and samples >= 50):
        raise InputError(
            f"samples={samples!r} must be an integer >= 50 per dataset for the search."
        )
    mech = as_mechanism(mechanism)
    rng = np.random.default_rng(np.random.SeedSequence([int(seed) & 0xFFFFFFFF, 0x5EA2]))
    found: dict[str, tuple[float, object, object]] = {}
    tried, cut = [0], [False]

    def both(a, b):
        return draw(mech, a, samples, rng), draw(mech, b, samples, rng)

    @settings(
        max_examples=max_examples,
        deadline=None,
        database=None,
        derandomize=True,
        phases=[Phase.generate, Phase.target],
        suppress_health_check=list(HealthCheck),
    )
    @given(
        neighbouring_pairs(
            relation, elements, min_size=min_size, max_size=max_size, sensitivity=sensitivity
        )
    )
    def probe(pair):
        # only the mechanism's draws are cut, never Hypothesis's own steps (a cut there was
        # taken for a failing example, replayed, and ended as a FlakyStrategyDefinition);
        # then _Ended, a BaseException Hypothesis does not take for a failure, ends the run
        if until is not None and time.perf_counter() >= until:
            raise _Ended
        a, b = pair
        try:
            ya, yb = cut_at(until, both, a, b)
        except OutOfTime:
            raise _Ended from None
        loss = estimated_loss(ya, yb)
        target(loss if math.isfinite(loss) else 1e9, label="estimated privacy loss")
        key = json.dumps([a, b], default=str)
        if loss > found.get(key, (-1.0,))[0]:
            found[key] = (loss, a, b)
        tried[0] += 1

    try:
        probe()
    except _Ended:
        cut[0] = True
    best = sorted(found.values(), key=lambda t: -t[0])[:keep]
    pairs = [Pair(a, b, f"hypothesis search (estimated loss {loss:.3g})") for loss, a, b in best]
    return Searched(pairs, tried[0], max_examples, cut[0])
