"""The selection-loss diagnostic's replay of judging (bench/selection_loss.py) on candidates
whose probabilities are known."""

from __future__ import annotations

import numpy as np
import pytest

from auditor.engine.claims import PointClaim
from auditor.engine.events import KeyFn, KeySet
from auditor.engine.select import Candidate, Scorer
from auditor.engine.stats import expected_certified
from bench.selection_loss import CHUNK, Collected, replay

N, A = 700_000, 0.025
CLAIM = PointClaim(0.1, 0.0)


def _collected(probs: list[tuple[float, float, bool]], chunks: int = 40, seed: int = 3):
    """Candidates with (P under the first dataset, P under the second, forward), their counts
    drawn per chunk; judged on 6 chunks as an audit at 1e6 per dataset is."""
    rng = np.random.default_rng(seed)
    cands, counts = [], np.zeros((chunks, len(probs), 2), dtype=np.int64)
    for j, (p, q, forward) in enumerate(probs):
        cands.append(Candidate(KeySet(KeyFn(), (j,), (str(j),)), forward, 0.0, family="atoms"))
        counts[:, j, 0] = rng.binomial(CHUNK, p, chunks)
        counts[:, j, 1] = rng.binomial(CHUNK, q, chunks)
    return Collected(cands, counts, 6 * CHUNK, Scorer(6 * CHUNK, N, A, CLAIM), 0.0)


def _value(num: float, den: float) -> float:
    return float(expected_certified(num, den, N, A, CLAIM.statistic))


def test_a_clearly_best_candidate_is_picked_and_oriented():
    """The best event counts its numerator under the pair's second dataset (not forward): the
    replay reads it that way, picks it every time, and its value is the event's."""
    col = _collected([(0.07, 0.10, False), (0.50, 0.45, True), (0.02, 0.019, True)])
    picks, best = replay(col, replicates=30)
    assert best == pytest.approx(_value(0.10, 0.07), rel=0.05)
    assert np.all(picks > _value(0.50, 0.45))
    assert picks.mean() == pytest.approx(best, rel=0.05)


def test_the_best_candidate_is_not_flattered_and_the_loss_is_shown():
    """Thirty equal candidates: the best one is worth what each is (judged on half the counts,
    valued on the other half, not the largest of thirty noisy estimates), and so is the pick.
    Add one better candidate, two standard errors of the judging counts ahead: the judge often
    takes one of the thirty instead, and the replay shows that loss."""
    same = [(0.10, 0.09, True)] * 30
    picks, best = replay(_collected(same), replicates=30)
    assert best == pytest.approx(_value(0.10, 0.09), abs=0.006)
    assert picks.mean() == pytest.approx(_value(0.10, 0.09), abs=0.006)
    picks, best = replay(_collected([(0.10, 0.088, True)] + same, chunks=160), replicates=30)
    assert best == pytest.approx(_value(0.10, 0.088), abs=0.006)
    assert picks.mean() < best - 0.005
