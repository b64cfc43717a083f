"""The vote score: a weighted count of coordinates above their cuts (many weak, alike shifts)."""

from __future__ import annotations

import numpy as np

from auditor import audit
from auditor.engine.events import ScoreInterval, Vote, event_from_state, event_state
from auditor.engine.scores import votes as _votes


def _parallel(scale: float, k: int = 20):
    """k Laplace mechanisms on one number (DP-Sniper's LaplaceParallel): true eps k/scale."""

    def sample(data, size, rng):
        return float(data) + rng.laplace(0.0, scale, (size, k))

    return sample


def test_vote_counts_weighted_coordinates_above_their_cuts():
    v = Vote((0.0, 1.0, 2.0), (1.0, -0.5, 0.25))
    y = np.array([[0.5, 0.5, 3.0], [-1.0, 2.0, 2.0], [1.0, 1.5, 2.5]])
    assert np.allclose(v(y), [1.25, -0.5, 0.75])
    ev = ScoreInterval(v, 0.0, float("inf"))
    assert event_from_state(event_state(ev)) == ev
    assert "vote" in ev.describe()


def test_vote_weights_pool_many_weak_alike_shifts():
    """20 coordinates each shifted by 1/200 of their noise: one by one the shifts are noise,
    but the James-Stein pooling gives near-equal weights of one sign."""
    rng = np.random.default_rng(0)
    yx = rng.laplace(1.0, 200.0, (50_000, 20))
    yy = rng.laplace(0.0, 200.0, (50_000, 20))
    v = _votes(yx, yy)[0]
    w = np.asarray(v.weights)
    assert np.all(w > 0) and w.min() > 0.3 * w.max()


def test_vote_family_alone_catches_a_parallel_composition_over_its_claim():
    r = audit(
        _parallel(10.0), [(0.0, 1.0)], epsilon=0.5, samples=200_000, seed=3, families=("vote",)
    )
    assert r.violation and 0.5 < r.epsilon_lower_bound <= 2.0  # true eps: 20 / 10


def test_pooled_and_increment_votes_are_proposed():
    rng = np.random.default_rng(1)
    yx = rng.laplace(1.0, 200.0, (20_000, 6))
    yy = rng.laplace(0.0, 200.0, (20_000, 6))
    raw, pooled, inc = _votes(yx, yy)
    assert not raw.increments and not pooled.increments and inc.increments
    assert len(set(pooled.weights)) == 1  # equal weights: the sign test
    assert "(y[1]-y[0])" in ScoreInterval(inc, 0.0, float("inf")).describe()


def test_near_certain_events_are_not_proposed():
    """An event seen in over 99% of both samples can certify at most ln(1/0.99); on a weak
    signal its near-zero prediction would beat every informative event."""
    from auditor.engine.select import _degenerate

    off = _degenerate(np.array([995, 500, 995]), np.array([996, 400, 900]), 1000, 1000)
    assert off.tolist() == [-np.inf, 0.0, 0.0]


def test_tail_cuts_find_where_one_support_ends():
    """Exponential noise (RNM4): below the other dataset's support edge the ratio is unbounded,
    and only cuts beyond the building sample's extremes reach there."""
    from auditor.engine.select import TAIL_RANKS, tail_candidates

    rng = np.random.default_rng(2)
    yx = 1.0 + rng.exponential(20.0, 5_000)
    yy = 2.0 + rng.exponential(20.0, 5_000)
    cands = tail_candidates(yx, yy)
    assert len(cands) == 4 * len(TAIL_RANKS)  # 2 tails x 2 directions
    lows = sorted(c.event.hi for c in cands if np.isinf(c.event.lo))
    assert lows[0] < 2.0  # the lowest cut lies where only the first dataset reaches


def test_tails_of_the_pooled_vote_hold_the_larger_ratios():
    """A parallel composition's best event is a tail of the sign test (few coordinates above
    their medians), which the building sample's own best cut cannot see: the count cuts
    offer it, and on a fresh sample the best of them beats the median cut."""
    from auditor.engine.select import count_candidates

    rng = np.random.default_rng(1)
    draw = lambda c, n: rng.laplace(c, 20.0, (n, 20))  # true eps 20/20 = 1
    yx, yy = draw(1.0, 20_000), draw(0.0, 20_000)
    pooled = _votes(yx, yy)[1]
    assert np.ptp(np.abs(pooled.weights)) < 1e-3
    cands = count_candidates(pooled, pooled(yx), pooled(yy))
    assert {c.forward for c in cands} == {True, False} and len(cands) >= 8
    fx, fy = draw(1.0, 200_000), draw(0.0, 200_000)

    def loss(ev):
        px, py = ev.contains(fx).mean(), ev.contains(fy).mean()
        return abs(np.log(px / py)) if min(px, py) > 0 else 0.0

    median = ScoreInterval(pooled, float(np.median(pooled(yx))), float("inf"))
    assert max(loss(c.event) for c in cands) > 1.5 * loss(median)


def test_a_cut_one_ulp_under_an_integer_reads_as_at_least():
    from auditor.engine.events import Vote

    words = Vote((0.9999999999999999, 0.5, 2.0), (1.0, 1.0, 1.0)).describe()
    assert words == "vote 1[y[0] >= 1] + 1[y[1] > 0.5] + 1[y[2] > 2]"
