"""Partition-level (n, t)-closeness (auditor.closeness.shared): one reference set for every
class, checked against brute force over every count vector of small tables."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from auditor.closeness.reference import best_reference_set
from auditor.closeness.shared import shared_reference_set
from proofs.errors import InputError


def _distance(c: np.ndarray, x: np.ndarray, distance: str, ordered: bool) -> Fraction:
    p = [Fraction(int(v), int(c.sum())) for v in c]
    q = [Fraction(int(v), int(x.sum())) for v in x]
    if distance == "emd" and ordered and len(p) > 1:
        cum = itertools.accumulate(a - b for a, b in zip(p, q, strict=True))
        return sum((abs(v) for v in list(cum)[:-1]), Fraction(0)) / (len(p) - 1)
    l1 = sum((abs(a - b) for a, b in zip(p, q, strict=True)), Fraction(0))
    return l1 if distance == "l1" else l1 / 2


def _brute(classes: np.ndarray, big: np.ndarray, n: int, distance: str, ordered: bool):
    best = None
    for x in itertools.product(*(range(int(b) + 1) for b in big)):
        x = np.asarray(x)
        if x.sum() < n:
            continue
        value = max(_distance(c, x, distance, ordered) for c in classes)
        best = value if best is None else min(best, value)
    return best


@st.composite
def _tables(draw):
    m = draw(st.integers(1, 3))
    k = draw(st.integers(1, 3))
    classes = np.array(
        [[draw(st.integers(0, 3)) for _ in range(m)] for _ in range(k)], dtype=np.int64
    )
    classes[classes.sum(1) == 0, 0] = 1
    big = classes.sum(0) + np.array([draw(st.integers(0, 3)) for _ in range(m)])
    n = draw(st.integers(1, int(big.sum())))
    return classes, big, n


@settings(max_examples=60, deadline=None)
@given(
    table=_tables(),
    how=st.sampled_from([("tv", False), ("l1", False), ("emd", True), ("emd", False)]),
)
def test_the_shared_set_is_the_brute_force_optimum(table, how):
    classes, big, n = table
    distance, ordered = how
    ref = shared_reference_set(classes, big, n, distance, ordered)
    want = _brute(classes, big, n, distance, ordered)
    held = dict(ref.counts)  # values the set holds none of are left out
    x = np.array([held.get(str(i), 0) for i in range(big.size)])
    assert ref.optimal and ref.size >= n and np.all(x <= big)
    assert ref.distance == pytest.approx(float(want), abs=1e-12)
    # it is attained: the largest distance of the classes to the counts reported
    got = max(_distance(c, x, distance, ordered) for c in classes)
    assert ref.distance == pytest.approx(float(got), abs=1e-12)
    # between the largest class-level optimum and the whole table's closeness
    each = max(best_reference_set(c, big, n, distance, ordered).distance for c in classes)
    whole = max(_distance(c, big, distance, ordered) for c in classes)
    assert each - 1e-12 <= ref.distance <= float(whole) + 1e-12


def test_one_set_for_two_opposite_classes_costs_more_than_one_each():
    # classes all-a and all-b: each alone has a reference set at distance 0, together at best 1/2
    classes = np.array([[4, 0], [0, 4]])
    ref = shared_reference_set(classes, [6, 6], 2, "tv", values=("a", "b"))
    assert ref.optimal and ref.distance == pytest.approx(0.5)
    assert dict(ref.counts)["a"] == dict(ref.counts)["b"]


def test_bad_counts_are_one_line_input_errors():
    with pytest.raises(InputError, match="at most the table counts"):
        shared_reference_set([[5, 0]], [3, 3], 2)
    with pytest.raises(InputError, match="n=9"):
        shared_reference_set([[1, 1]], [3, 3], 9)


def test_a_search_stopped_at_its_gap_brackets_the_optimum(monkeypatch):
    """With a gap wide enough to stop at the start, the result is the best start, unproved,
    and the bracket [lower bound, distance] holds the brute-force optimum."""
    import auditor.closeness.shared as mod

    monkeypatch.setattr(mod, "GAP", 1.0)
    rng = np.random.default_rng(5)
    for _ in range(20):
        classes = rng.integers(0, 4, (3, 3))
        classes[classes.sum(1) == 0, 0] = 1
        big = classes.sum(0) + rng.integers(0, 3, 3)
        n = int(rng.integers(1, big.sum() + 1))
        ref = shared_reference_set(classes, big, n, "tv")
        best = float(_brute(classes, big, n, "tv", False))
        assert ref.bound - 1e-12 <= best <= ref.distance + 1e-12
        assert ref.optimal or ref.iterations == 0
