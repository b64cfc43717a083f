"""The cross-fitting gap diagnostic (bench/crossfit_gap.py): its per-family means on known
probabilities, and the candidates it records from a small audit."""

from __future__ import annotations

import math

import numpy as np
import pytest

from auditor.engine.events import KeyFn, KeySet
from auditor.engine.select import CROSSED_FAMILIES, Candidate
from bench.crossfit_gap import Crossed, gaps, record


def _cand(family: str) -> Candidate:
    return Candidate(KeySet(KeyFn(), (1,), ("1",)), True, 0.0, family=family)


def test_gaps_average_each_familys_log_ratios_inside_the_band():
    """Two families on one pair: the means are of the log-ratios of the candidates whose true
    favoured mass lies in the band; one outside it, and one with a zero count, are left out."""
    rows = [
        ("naive_bayes cells", (0.010, 0.009), (0.012, 0.009), (0.011, 0.009)),
        ("naive_bayes cells", (0.020, 0.019), (0.022, 0.019), (0.021, 0.018)),
        ("naive_bayes cells", (0.300, 0.200), (0.300, 0.200), (0.300, 0.200)),  # out of band
        ("monotone histogram", (0.004, 0.003), (0.005, 0.003), (0.004, 0.004)),
        ("monotone histogram", (0.004, 0.0), (0.005, 0.003), (0.004, 0.003)),  # zero count
    ]
    crossed = [
        Crossed(
            0,
            [_cand(f) for f, *_ in rows],
            np.array([r[1] for r in rows]),
            np.array([r[2] for r in rows]),
            np.array([r[3] for r in rows]),
        )
    ]
    out = gaps(crossed)
    assert set(out) == {"naive_bayes cells", "monotone histogram"}
    k, cf, ins, tr = out["naive_bayes cells"]
    assert k == 2
    assert cf == pytest.approx((math.log(10 / 9) + math.log(20 / 19)) / 2)
    assert ins == pytest.approx((math.log(12 / 9) + math.log(22 / 19)) / 2)
    assert tr == pytest.approx((math.log(11 / 9) + math.log(21 / 18)) / 2)
    assert out["monotone histogram"] == pytest.approx((1, math.log(4 / 3), math.log(5 / 3), 0.0))


def test_a_small_audit_records_every_pairs_crossfitted_candidates():
    """A sparse vector audited on 50,000 outputs per dataset: the recorded candidates are
    cross-fitted ones, each of its own pair, with probabilities; the event certified is built
    on both folds, so its in-sample counts differ from the cross-fitted ones somewhere."""
    bound, crossed = record("svt1", 50_000, 2026)
    assert bound >= 0 and crossed
    assert len({x.pair for x in crossed}) == len(crossed)
    for x in crossed:
        assert {c.family for c in x.cands} <= set(CROSSED_FAMILIES)
        assert all(c.pair_index == x.pair for c in x.cands)
        for p in (x.judged, x.in_sample):
            assert p.shape == (len(x.cands), 2) and np.all((p >= 0) & (p <= 1))
    assert any(not np.allclose(x.judged, x.in_sample) for x in crossed)
