"""The three verdicts: detectable_epsilon is what its definition says (checked by simulation),
a weak audit is inconclusive, a tight one is not, and the rule's factor is validated."""

from __future__ import annotations

import math

import numpy as np
import pytest

from auditor import audit
from auditor.catalogue import get
from auditor.engine.stats import cp_lower, cp_upper, detectable_epsilon, epsilon_bound
from proofs import InputError


def test_detectable_epsilon_shrinks_with_samples_and_grows_with_rarity():
    a, eps = 0.0125, 0.1
    by_n = [detectable_epsilon(int(0.2 * n), n, a, eps, 0.0) for n in (10**4, 10**5, 10**6)]
    assert by_n[0] > by_n[1] > by_n[2] > eps
    by_q = [detectable_epsilon(k, 10**5, a, eps, 0.0) for k in (50_000, 5_000, 50)]
    assert by_q[0] < by_q[1] < by_q[2]
    # an event nearly sure under both datasets can never certify above eps: ln(1/q) <= eps
    assert detectable_epsilon(99_000, 10**5, a, eps, 0.0) == math.inf


@pytest.mark.parametrize("k_den, n", [(2_000, 20_000), (200, 50_000)])
def test_at_the_detectable_epsilon_half_of_the_audits_certify_above_the_claim(k_den, n):
    """Simulate the counts of a mechanism with exactly the detectable epsilon on this event:
    at least half the simulated audits certify above the claim; at 0.9 times it, fewer do."""
    a, eps = 0.0125, 0.1
    d = detectable_epsilon(k_den, n, a, eps, 0.0)
    rng = np.random.default_rng(5)
    q = (k_den + 0.5) / n

    def share(eps_true: float) -> float:
        kx = rng.binomial(n, min(math.exp(eps_true) * q, 1.0), 4000)
        ky = rng.binomial(n, q, 4000)
        return float(np.mean(epsilon_bound(cp_lower(kx, n, a), cp_upper(ky, n, a), 0.0) > eps))

    assert share(d) >= 0.5 - 0.03  # 4000 draws: sd 0.008
    assert share(eps + 0.9 * (d - eps)) < share(d)


def test_an_event_near_certain_under_the_numerator_is_detected_by_a_rarer_denominator():
    """Randomized response at a tight epsilon 5: the witness holds 99.3% of the numerator's
    outputs, so no stronger mechanism raises that side; a stronger one lowers the other side,
    and the audit is strong (it certifies 4.9 of 5), not inconclusive."""
    a, n = 0.0125, 10**5
    assert detectable_epsilon(670, n, a, 5.0, 0.0) == math.inf  # the raising family alone
    from auditor.engine.claims import PointClaim
    from auditor.engine.stats import detectable

    d = detectable(670, n, a, PointClaim(5.0), k_num=99_330)
    assert 5.0 < d < 5.3
    p = math.exp(5) / (1 + math.exp(5))

    def rr(data, size, rng):
        return np.where(rng.random(size) < p, data, 1 - data)

    r = audit(rr, [(0, 1)], epsilon=5.0, samples=100_000, seed=0, workers=1, progress=False)
    assert r.verdict == "no violation found" and r.detectable_epsilon < 5.3


def test_a_weak_audit_is_inconclusive_and_a_tight_one_is_not():
    # (at 5,000 samples a balanced event already detects 0.196 < 2 x 0.1: no violation found)
    weak = get("laplace_parallel20")
    r = audit(weak.sampler(), weak.pairs, epsilon=0.1, samples=2_000, seed=2, progress=False)
    assert r.verdict == "inconclusive" and not r.violation
    assert r.detectable_epsilon > 0.2 and "samples" in r.hint
    assert r.to_dict()["verdict"] == "inconclusive"
    tight = get("laplace")  # (built at 0.1, claimed 0.125: no seed can alarm)
    r = audit(tight.sampler(), tight.pairs, epsilon=0.125, samples=200_000, seed=2, progress=False)
    assert r.verdict == "no violation found" and r.detectable_epsilon < 0.2 and not r.hint
    broken = get("noisy_hist2")
    r = audit(broken.sampler(), broken.pairs, epsilon=0.1, samples=5_000, seed=2, progress=False)
    assert r.verdict == "violation" and r.violation


def test_an_inconclusive_claim_of_epsilon_0_names_the_floor_it_is_judged_against():
    """No multiple of 0 is leakier than 0: the hint names the epsilon the audit had to catch,
    the factor times the floor (2 x 0.01), and the one it could (a fair coin, data-free)."""

    def coin(data, size, rng):
        return rng.integers(0, 2, size)

    r = audit(coin, [(0, 1)], epsilon=0.0, samples=20_000, seed=1, workers=1, progress=False)
    assert r.verdict == "inconclusive" and r.detectable_epsilon > 0.02
    assert "a mechanism of epsilon 0.02 (2x 0.01" in r.hint and "leakier than" not in r.hint
    r = audit(coin, [(0, 1)], epsilon=0.1, samples=2_000, seed=1, workers=1, progress=False)
    assert r.verdict == "inconclusive" and "a mechanism 2x leakier than claimed" in r.hint


def test_the_factor_moves_the_line_and_is_validated():
    entry = get("laplace")
    args = (entry.sampler(), entry.pairs)
    kw = dict(epsilon=0.1, samples=200_000, seed=3, progress=False)
    loose = audit(*args, inconclusive_factor=100.0, **kw)
    strict = audit(*args, inconclusive_factor=1.01, **kw)
    assert loose.verdict == "no violation found" and strict.verdict == "inconclusive"
    assert loose.detectable_epsilon == strict.detectable_epsilon
    for bad in (1.0, 0.5, float("inf"), float("nan"), "2"):
        with pytest.raises(InputError, match="inconclusive_factor"):
            audit(*args, inconclusive_factor=bad, **kw)


def test_outputs_that_never_repeat_say_so():
    """Every output a fresh id: "try other pairs or more samples" could never help."""

    def ids(data, rng):
        return ("A-" if sum(data) > 0 else "B-") + f"{int(rng.integers(0, 2**63)):032x}"

    r = audit(ids, [([1], [0])], epsilon=1.0, samples=4_000, seed=0, workers=1)
    assert r.verdict == "inconclusive"
    assert "outputs of the probe were different" in r.hint and "fewer categories" in r.hint
    rr = audit(
        lambda data, rng: str(rng.integers(0, 3)), [([1], [0])], epsilon=1.0, samples=4_000, seed=0
    )
    assert "probe were different" not in (rr.hint or "")


def test_a_constant_mechanism_says_so():
    """One output under both datasets: the hint says the mechanism may be constant (it only
    advised other pairs or more samples). One constant under one dataset only is no such case."""
    r = audit(lambda data: 42, [([1], [0])], epsilon=1.0, samples=4_000, seed=0, workers=1)
    assert r.verdict == "inconclusive" and "may be constant" in r.hint, r.hint
    moved = audit(lambda data: 42 + (sum(data) == 0), [([1], [0])], epsilon=1.0, samples=4_000,
                  seed=0, workers=1)  # fmt: skip
    assert moved.violation and "constant" not in (moved.hint or "")


def test_a_pure_violation_never_reads_as_needing_delta_zero(tmp_path):
    """A pure claim refuted by the joint ratio bound, whose separate bounds give no positive
    delta, printed "delta needed: >= 0" beside the violation."""
    from dataclasses import replace

    from auditor.reports.audit import write_audit_report

    def rr(data, size, rng):
        keep = rng.random(size) < math.exp(2.0) / (1 + math.exp(2.0))
        return np.where(keep, int(data), 1 - int(data))

    found = audit(rr, [(0, 1)], epsilon=1.0, samples=20_000, seed=3)
    assert found.violation
    ratio_only = replace(found, delta_lower_bound=0.0)
    assert "delta needed at epsilon=1: > 0 (shown by the ratio bound" in ratio_only.summary()
    write_audit_report(ratio_only.to_dict(), str(tmp_path / "r.md"))
    assert "0 (shown by the ratio bound" in (tmp_path / "r.md").read_text()
    assert f">= {found.delta_lower_bound:.3g}" in found.summary()
