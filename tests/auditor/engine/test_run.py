"""Engine and statistics: soundness arithmetic, p-values, determinism, result objects."""

from __future__ import annotations

import json
import math
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from auditor import AuditResult, audit, minimum_samples
from auditor.catalogue import sampler
from auditor.engine.claims import PointClaim
from auditor.engine.stats import cp_lower, cp_upper, epsilon_bound, p_value
from proofs.errors import InputError
from tests.auditor.contract import AUDIT_JSON_KEYS


def test_clopper_pearson_matches_binomial_tails():
    """Known answer: lower bound L satisfies P[Bin(n, L) >= k] = a (definition of CP)."""
    k, n, a = 37, 200, 0.025
    lo, hi = float(cp_lower(k, n, a)), float(cp_upper(k, n, a))
    assert math.isclose(stats.binom.sf(k - 1, n, lo), a, rel_tol=1e-6)
    assert math.isclose(stats.binom.cdf(k, n, hi), a, rel_tol=1e-6)
    assert float(cp_lower(0, n, a)) == 0.0 and float(cp_upper(n, n, a)) == 1.0
    # zero count: upper bound 1 - a^(1/n)
    assert math.isclose(float(cp_upper(0, n, a)), 1 - a ** (1 / n), rel_tol=1e-9)


def test_epsilon_bound_with_delta():
    assert float(epsilon_bound(0.5, 0.25, 0.0)) == pytest.approx(math.log(2))
    assert float(epsilon_bound(0.5, 0.25, 0.25)) == pytest.approx(0.0)
    assert float(epsilon_bound(0.2, 0.25, 0.25)) == -math.inf


def test_p_value_agrees_with_verdict():
    kx, ky, n = 60_000, 50_000, 100_000
    # claimed eps below the empirical log-ratio ln(1.2) = 0.182: small p; above: p = 1
    assert p_value(kx, ky, n, n, PointClaim(0.1, 0.0), 2) < 0.05
    assert p_value(kx, ky, n, n, PointClaim(0.3, 0.0), 2) == 1.0


def test_result_is_frozen_and_serialisable():
    # a claim above the true epsilon 1: no violation (a tight claim is flagged up to 5% of seeds)
    r = audit(sampler("laplace.scalar", 1.0), [(0.0, 1.0)], epsilon=1.2, samples=10_000, seed=7)
    assert isinstance(r, AuditResult)
    with pytest.raises(AttributeError):
        r.violation = True  # type: ignore[misc]
    d = r.to_dict()
    json.dumps(d, allow_nan=False)
    assert set(AUDIT_JSON_KEYS) <= set(d)
    assert set(d["witness"]) >= {"pair", "event", "counts"}
    assert "not a proof of privacy" in r.summary()


def test_same_seed_same_result():
    f = sampler("laplace.scalar", 1.0)
    a = audit(f, [(0.0, 1.0)], epsilon=1.0, samples=20_000, seed=11).to_dict()
    b = audit(f, [(0.0, 1.0)], epsilon=1.0, samples=20_000, seed=11).to_dict()
    a.pop("seconds"), b.pop("seconds")
    assert a == b


def test_zero_probability_witness_is_finite():
    def det(data, size):
        return np.full(size, float(data))

    r = audit(det, [(0, 1)], epsilon=1.0, samples=10_000, seed=1)
    assert r.unbounded_witness and math.isfinite(r.epsilon_lower_bound) and r.violation
    assert r.witness.count_denominator == 0


def test_delta_lower_bound_reported():
    """Known answer: M(0) = 0 w.p. 1; M(1) = 0 w.p. 0.9 else 1 is (0, 0.1)-DP exactly."""

    def m(data, size, rng):
        return np.where((data == 1) & (rng.random(size) < 0.1), 1, 0)

    # every sample: the tightest bound (early stopping would report an early look)
    r = audit(m, [(0, 1)], epsilon=0.0, delta=0.0, samples=200_000, seed=3, early_stop=False)
    assert r.violation and 0.09 < r.delta_lower_bound <= 0.1 and r.look == r.looks
    ok = audit(m, [(0, 1)], epsilon=0.0, delta=0.1, samples=200_000, seed=3)
    assert not ok.violation


@pytest.mark.parametrize("epsilon, delta", [(3.0, 0.0), (5.0, 0.0), (8.0, 0.0), (3.0, 0.1)])
def test_minimum_samples_is_enough(epsilon, delta):
    """With minimum_samples() per dataset, a mechanism whose outputs always separate the pair is
    caught (the perfect witness certifies more than the claim); with half as many the audit is
    refused as too small and names that number (it is minimal up to a factor 2)."""

    def det(data, size):
        return np.full(size, float(data))

    n = minimum_samples(epsilon, delta, 0.95)
    assert n is not None and n >= 200
    r = audit(det, [(0, 1)], epsilon=epsilon, delta=delta, samples=n, seed=0)
    assert r.violation and r.unbounded_witness, r.summary()
    assert r.epsilon_lower_bound > epsilon
    if n // 2 >= 200:  # below 200 the general floor on samples applies instead
        with pytest.raises(InputError, match=rf"samples={n // 2} is too small.* {n} or more"):
            audit(det, [(0, 1)], epsilon=epsilon, delta=delta, samples=n // 2, seed=0)


def test_minimum_samples_is_none_when_no_feasible_sample_refutes_the_claim():
    assert minimum_samples(1000.0, 0.0, 0.95) is None


@settings(max_examples=12, deadline=None)
@given(eps=st.floats(0.05, 3.0), seed=st.integers(0, 2**31))
def test_laplace_bound_never_exceeds_true_epsilon(eps, seed):
    """Property: for a correct Laplace mechanism epsilon_lb <= eps (here at confidence 0.999)."""
    r = audit(
        sampler("laplace.scalar", eps),
        [(0.0, 1.0)],
        epsilon=eps,
        samples=20_000,
        confidence=0.999,
        seed=seed,
    )
    assert r.epsilon_lower_bound <= eps and not r.violation


def test_a_time_limit_before_certification_says_so(tmp_path):
    def slow(data, rng):
        time.sleep(0.0005)
        return int(rng.random() < (0.75 if data[0] else 0.25))

    # a slice of an audit run with a checkpoint keeps its samples: the limit ends it
    kw = dict(epsilon=0.3, samples=200_000, max_time=1, workers=1, progress=False, seed=0)
    r = audit(slow, [([1], [0])], checkpoint=tmp_path / "slice.ckpt", **kw)
    assert r.verdict == "inconclusive" and r.certification_samples == 0
    assert "time limit ran out before any certification sample" in r.hint
    assert "(max_time, now 1 s)" in r.hint and "(samples, now 200000)" in r.hint
    # one run with a limit is sized to it, and certifies
    sized = audit(slow, [([1], [0])], **kw)
    assert sized.verdict == "violation" and sized.samples < 200_000


def test_a_scalar_selection_has_a_floor_on_small_budgets():
    """A scalar output on one pair selects on a tenth of its samples, but a point claim on at
    least SCALAR_SELECTION_FLOOR (three tenths at most); vectors and several pairs keep three
    tenths, a profile claim its tenth, and an explicit selection size is kept as given."""
    from auditor.engine.config import SCALAR_SELECTION_FLOOR, AuditConfig

    def sel(samples, scalar=True, pairs=1, given=None):
        cfg = AuditConfig(epsilon=1.0, samples=samples, selection_samples=given)
        m, n = cfg.split(scalar, pairs)
        assert m + n == samples
        return m

    assert sel(100_000) == 30_000  # three tenths: below the floor
    assert sel(400_000) == SCALAR_SELECTION_FLOOR == 80_000
    assert sel(1_000_000) == 100_000  # the tenth is above the floor
    assert sel(2_000) == 1_000  # tiny budgets: half, as before
    assert sel(100_000, scalar=False) == sel(100_000, pairs=3) == 30_000
    assert sel(400_000, scalar=False) == 120_000
    assert sel(400_000, given=5_000) == 5_000
    # a profile claim's best events are mid-curve: its tenth is kept
    from auditor.engine.claims import GaussianDP

    prof = AuditConfig(epsilon=1.0, samples=100_000, profile=GaussianDP(0.5))
    assert prof.split() == (10_000, 90_000)
    # the run reports the split it used
    r = audit(
        sampler("laplace.scalar", 1.0),
        [(0.0, 1.0)],
        epsilon=1.0,
        samples=100_000,
        seed=1,
        workers=1,
        progress=False,
    )
    assert (r.selection_samples, r.certification_samples) == (30_000, 70_000)


def test_a_tuple_of_two_is_refused_as_ambiguous_not_read_as_two_pairs():
    """assert_dp(m, ([1, 2], [1, 3])) audited the pairs 1 vs 2 and 1 vs 3 and reported a
    violation of a correct mechanism; a list, or Pair objects, say what is meant."""
    from auditor.engine.pairs import Pair

    def noisy_sum(data, size, rng):
        return float(np.sum(data)) + rng.laplace(0.0, 1.0, size)

    with pytest.raises(InputError, match=r"tuple of two: one pair \(A, B\) or two pairs"):
        audit(noisy_sum, ([1, 2], [1, 3]), epsilon=1.0, samples=2000, workers=1)
    for pairs in ([([1, 2], [1, 3])], (Pair([1, 2], [1, 3]), Pair([0], [1]))):
        audit(noisy_sum, pairs, epsilon=1.0, samples=2000, workers=1)
