"""The naive-Bayes score: per-column binned log-likelihood ratios, summed (independent columns,
such as mechanisms run side by side on the same input)."""

from __future__ import annotations

import numpy as np
import pytest

from auditor import audit
from auditor.engine.events import NaiveBayes, ScoreInterval, event_from_state, event_state
from auditor.engine.scores import (
    _bin_counts,
    homogeneity,
    mode_bin,
    naive_bayes,
    tree_weights,
    weigh_columns,
)
from auditor.engine.select import FAMILIES, column_keys, key_functions, local_tally


def _side_by_side(eps: float, k: int = 4):
    """Two k-ary randomized responses of the same value, each eps-DP, as one 2-column output:
    eps-DP each, so 2 eps-DP together (basic composition, tight for a pair of distinct values)."""

    def sample(data, size, rng):
        e = np.exp(eps)
        keep = rng.random((size, 2)) < e / (e + k - 1)
        other = (int(data) + rng.integers(1, k, (size, 2))) % k
        return np.where(keep, int(data), other).astype(float)

    return sample


def test_score_sums_the_weight_of_each_columns_bin():
    nb = NaiveBayes((0, 2), ((0.0, 1.0), (5.0,)), ((-1.0, 0.5, 2.0), (0.25, -0.25)))
    y = np.array([[-3.0, 9.0, 5.0], [0.0, 9.0, 4.0], [1.0, 9.0, 7.0]])
    # bins (right side): y=-3 -> 0, y=0 -> 1, y=1 -> 2; y=5 -> 1, y=4 -> 0, y=7 -> 1
    assert np.allclose(nb(y), [-1.0 - 0.25, 0.5 + 0.25, 2.0 - 0.25])
    ev = ScoreInterval(nb, 0.0, float("inf"))
    assert event_from_state(event_state(ev)) == ev
    assert "naive-Bayes" in ev.describe() and "y[0, 2]" in ev.describe()


def test_bin_counts_from_a_tally_match_a_direct_count():
    rng = np.random.default_rng(0)
    yx = rng.normal(0.0, 1.0, (5_000, 3))
    yy = rng.normal(0.3, 1.0, (4_000, 3))
    keys = column_keys(yx, yy, set(FAMILIES))
    assert [k.cols for k in keys] == [(0,), (1,), (2,)]
    key = keys[1]
    cx, cy = _bin_counts(key, local_tally(key, yx, yy))
    edges = np.asarray(key.edges[0])
    want_x = np.bincount(np.searchsorted(edges, yx[:, 1], side="right"), minlength=edges.size + 1)
    want_y = np.bincount(np.searchsorted(edges, yy[:, 1], side="right"), minlength=edges.size + 1)
    assert cx.tolist() == want_x.tolist() and cy.tolist() == want_y.tolist()


def test_column_keys_bin_discrete_columns_by_value_and_skip_constant_ones():
    rng = np.random.default_rng(1)
    y = np.stack([rng.integers(0, 3, 2_000), np.zeros(2_000), rng.normal(size=2_000)], 1)
    keys = column_keys(y, y, set(FAMILIES))
    assert [k.cols for k in keys] == [(0,), (2,)]  # the constant column says nothing
    assert keys[0].edges == ((0.5, 1.5),)  # one bin per value
    assert column_keys(y, y, set(FAMILIES) - {"naive_bayes"}) == []
    assert column_keys(y[:, :1], y[:, :1], set(FAMILIES)) == []  # one column: no sum to take
    # the session tallies them on the streamed sample with the other key functions
    assert set(keys) <= set(key_functions("vector", y, y))


def test_a_real_column_is_cut_at_its_median_and_its_mode_held_alone():
    """A naive-Bayes column of real values has two bins, below and above the pooled median;
    one with a mode ("no answer": 0) has that value in a bin of its own besides."""
    rng = np.random.default_rng(3)
    n = 20_000
    answer = np.where(rng.random(2 * n) < 0.7, 0.0, rng.laplace(5.0, 1.0, 2 * n))
    y = np.stack([rng.laplace(0.0, 1.0, 2 * n), answer], 1)
    keys = column_keys(y[:n], y[n:], set(FAMILIES))
    (plain,), (released,) = keys[0].edges, keys[1].edges
    assert plain == (pytest.approx(np.median(y[:, 0])),)
    k = mode_bin(released)
    assert len(released) == 3 and released[k - 1] == 0.0
    assert released[-1] == pytest.approx(np.median(answer[answer != 0]))


def test_weights_follow_the_informative_column_and_shrink_the_others():
    rng = np.random.default_rng(2)
    n = 100_000
    yx = np.stack([rng.random(n) < 0.6, rng.random(n) < 0.5], 1).astype(float)
    yy = np.stack([rng.random(n) < 0.4, rng.random(n) < 0.5], 1).astype(float)
    keys = column_keys(yx, yy, set(FAMILIES))
    nb = naive_bayes(keys, [local_tally(k, yx, yy) for k in keys])
    assert nb is not None
    w = dict(zip(nb.cols, nb.weights))
    # column 0: bit 1 has ratio 0.6/0.4, bit 0 has 0.4/0.6
    assert w[0][1] == pytest.approx(np.log(1.5), abs=0.03)
    assert w[0][0] == pytest.approx(-np.log(1.5), abs=0.03)
    # column 1 is noise: it tells the datasets nothing, and weighs nothing
    assert nb.cols == (0,)


def test_a_bloom_filters_uninformative_bits_weigh_nothing():
    """20 bits, 6 of which move (RAPPOR's pair: 3 bits set by one value, 3 by the other, each
    with a ratio near e^0.05). Only those 6 carry weight, so the score's top level is their
    pattern whole (all six on the first value's side), not slices of it cut by noise."""
    rng = np.random.default_rng(5)
    n, hi, lo = 300_000, 0.5125, 0.4875
    px = np.full(20, 0.5)
    py = px.copy()
    px[:3], py[:3] = hi, lo
    px[3:6], py[3:6] = lo, hi
    yx = (rng.random((n, 20)) < px).astype(float)
    yy = (rng.random((n, 20)) < py).astype(float)
    keys = column_keys(yx, yy, set(FAMILIES))
    nb = naive_bayes(keys, [local_tally(k, yx, yy) for k in keys])
    assert nb is not None and nb.cols == tuple(range(6))
    s = nb(yx)
    top = s == s.max()
    want = np.all(yx[:, :3] == 1, axis=1) & np.all(yx[:, 3:6] == 0, axis=1)
    assert np.array_equal(top, want)


def test_homogeneity_asks_whether_the_bins_differ_beyond_noise():
    rng = np.random.default_rng(6)
    draw = lambda: rng.multinomial(50_000, [0.2, 0.3, 0.5], 2)
    same = [homogeneity(*draw(), None, False) < 1e-3 for _ in range(200)]
    assert sum(same) <= 3  # about 0.2 of 200 by chance
    assert homogeneity(np.array([5200.0, 4800.0]), np.array([4800.0, 5200.0]), None, False) < 1e-7
    assert homogeneity(np.array([10.0, 0.0]), np.array([0.0, 0.0]), None, False) == 1.0  # empty
    assert homogeneity(np.array([10.0, 0.0]), np.array([7.0, 0.0]), None, False) == 1.0  # one bin


def test_a_column_weighed_given_its_mode_is_judged_on_its_other_bins():
    """A released answer's column whose release rate differs but whose answers do not: given
    the release (the pattern's evidence), it tells nothing; not given, the mode's ratio does."""
    cx = np.array([600.0, 20_000.0, 600.0])  # the mode (no answer) is bin 1
    cy = np.array([1_000.0, 20_000.0, 1_000.0])
    assert homogeneity(cx, cy, 1, True) > 0.5 and homogeneity(cx, cy, 1, False) < 1e-9
    strong = (np.array([6_000.0, 4_000.0]), np.array([4_000.0, 6_000.0]), None, False)
    w = weigh_columns([strong, (cx, cy, 1, True)])
    assert np.all(w[1] == 0) and np.any(w[0] != 0)


def test_weak_columns_keep_their_weights_where_no_column_is_clear():
    """Many weak columns (a parallel composition, or a small sample): none is clear on its
    own, so none is dropped, and their sum keeps the evidence they hold together."""
    rng = np.random.default_rng(7)
    weak = [
        (*(rng.multinomial(20_000, p) for p in ([0.51, 0.49], [0.49, 0.51])), None, False)
        for _ in range(10)
    ]
    assert all(homogeneity(*m) > 1e-9 for m in weak)
    w = weigh_columns(weak)
    assert all(np.any(x != 0) for x in w)
    strong = (np.array([6_000.0, 4_000.0]), np.array([4_000.0, 6_000.0]), None, False)
    beside = weigh_columns([strong, *weak])  # beside a clear column, the noise-like ones go
    dropped = [np.all(x == 0) for x in beside[1:]]
    assert dropped == [homogeneity(*m) >= 1e-3 for m in weak] and any(dropped)


def _bins(ratio: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Bin probabilities under two datasets of equal mass per bin, with ln(px / py) = ratio."""
    px, py = np.exp(ratio / 2), np.exp(-ratio / 2)
    return px / px.sum(), py / py.sum()


def _independent(cx, cy):  # each bin shrunk towards 0 on its own
    d = np.log(cx / cy) - np.log(cx.sum() / cy.sum())
    return d**3 / (d**2 + 1 / cx + 1 / cy)


@pytest.mark.parametrize("n", [20_000, 200_000])
def testtree_weights_of_a_step_are_closer_to_it_than_bin_by_bin_estimates(n):
    """Shifted noise: one sign of the ratio on each side of the shift (NumericalSVT's
    answers). The fine bins share their half's estimate instead of adding their own noise."""
    step = np.where(np.arange(12) < 6, 0.033, -0.033)
    px, py = _bins(step)
    truth = np.log(px / py)
    tree, alone = [], []
    for seed in range(20):
        rng = np.random.default_rng(seed)
        cx, cy = rng.multinomial(n, px) + 0.5, rng.multinomial(n, py) + 0.5
        tree.append(np.mean((tree_weights(cx, cy) - truth) ** 2))
        alone.append(np.mean((_independent(cx, cy) - truth) ** 2))
    assert np.mean(tree) < 0.8 * np.mean(alone)


def testtree_weights_follow_a_ratio_that_varies_across_the_bins():
    px, py = _bins(np.linspace(-0.5, 0.5, 12))
    rng = np.random.default_rng(1)
    cx, cy = rng.multinomial(200_000, px) + 0.5, rng.multinomial(200_000, py) + 0.5
    assert np.allclose(tree_weights(cx, cy), np.log(px / py), atol=0.03)


def test_a_bin_unlike_its_neighbours_keeps_its_own_ratio():
    """A bin holding a mode such as "no answer" (most of the mass, its own ratio) is not
    averaged into its neighbours' weight: its difference from its half is far beyond noise."""
    cx = np.array([1000.0, 1000.0, 50_000.0, 1000.0, 1000.0])
    cy = np.array([1000.0, 1000.0, 30_000.0, 1000.0, 1000.0])
    w = tree_weights(cx, cy)
    d = np.log(cx / cy) - np.log(cx.sum() / cy.sum())
    assert w[2] == pytest.approx(d[2], abs=0.01) and w[0] == pytest.approx(d[0], abs=0.05)


def test_a_mode_among_the_values_is_split_off_before_the_halves():
    """A released answer's column: "no answer" (most of the mass, its own ratio) lies among
    the answers' bins in their order, and the answers' ratio is a step at their median
    (shifted noise). Split off first, the mode leaves the halves of the answers to compare
    the two sides of the step; halving across it never does, and its bins keep more noise."""
    ratio = np.array([0.03, 0.03, -0.4, 0.03, -0.03, -0.03, -0.03])  # the mode is bin 2
    mass = np.array([0.02, 0.05, 0.7, 0.05, 0.05, 0.08, 0.05])
    px, py = mass * np.exp(ratio / 2), mass * np.exp(-ratio / 2)
    px, py = px / px.sum(), py / py.sum()
    truth = np.log(px / py)
    first, halves = [], []
    for seed in range(30):
        rng = np.random.default_rng(seed)
        cx, cy = rng.multinomial(300_000, px) + 0.5, rng.multinomial(300_000, py) + 0.5
        first.append(np.mean((tree_weights(cx, cy, mode=2) - truth) ** 2))
        halves.append(np.mean((tree_weights(cx, cy) - truth) ** 2))
    assert np.mean(first) < 0.7 * np.mean(halves)
    # the mode's own weight is kept either way: its difference is far beyond its noise
    assert tree_weights(cx, cy, mode=2)[2] == pytest.approx(truth[2], abs=0.02)


def test_naive_bayes_alone_finds_the_composed_epsilon_of_side_by_side_releases():
    """2 x eps=0.5 on the same value: true 1.0. Over a claim of 0.6 it is caught by this family
    alone, with a bound above what either column could certify (0.5)."""
    r = audit(
        _side_by_side(0.5),
        [(0, 1)],
        epsilon=0.6,
        samples=200_000,
        seed=4,
        families=("naive_bayes",),
    )
    assert r.violation and 0.6 < r.epsilon_lower_bound <= 1.0
    # the score's threshold, or the cells of its grid (the naive-Bayes cells family)
    assert "naive-Bayes" in r.witness.event or "histogram over y[[0, 1]]" in r.witness.event


@pytest.mark.parametrize("seed", range(6))
def test_naive_bayes_does_not_flag_side_by_side_releases_at_their_composed_claim(seed):
    r = audit(
        _side_by_side(0.5),
        [(0, 1)],
        epsilon=1.0,
        samples=20_000,
        seed=seed,
        families=("naive_bayes",),
        confidence=0.9,
    )
    assert not r.violation and r.epsilon_lower_bound <= 1.0
