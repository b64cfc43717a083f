"""The perfect auditor of bench/cert_noise.py: the oracle's event and the law of its bound."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from auditor.engine.stats import (
    JOINT_SHARE,
    cp_lower,
    cp_upper,
    epsilon_bound,
    prefix_mean,
    ratio_lower,
)
from bench import cert_noise, oracle


@pytest.mark.parametrize(
    "name, pooled", [("laplace_parallel20", True), ("svt1", False), ("rappor.dpsniper", True)]
)
def test_the_oracle_event_certifies_the_oracle_bound_at_its_expected_counts(name, pooled):
    """Parallel Laplace and RAPPOR are their own mirror images on their pairs: the oracle's
    best is a pooled pair, certified by its joint bound alone; the sparse vector's is one
    event."""
    n, a = 700_000, 0.025
    bound, p, q, got = oracle.oracle_event(name, 0.1, n, a)
    assert got == pooled
    assert bound == pytest.approx(oracle.oracle_bound(name, 0.1, n, a), rel=1e-12)
    assert 0 < q < p < 1
    # a pure claim: the joint ratio bound on the Poisson prefix at 0.9 of the level, or the
    # split bound at the rest, whichever is larger (here the joint one)
    lam = prefix_mean(n)
    joint = float(ratio_lower(lam * p, lam * q, 2 * a * JOINT_SHARE))
    if pooled:
        assert joint == pytest.approx(bound, rel=1e-9)
        return
    split = float(
        np.ravel(
            epsilon_bound(
                cp_lower(n * p, n, a * (1 - JOINT_SHARE)),
                cp_upper(n * q, n, a * (1 - JOINT_SHARE)),
                0.0,
            )
        )[0]
    )
    assert max(joint, split) == pytest.approx(bound, rel=1e-9) and joint > split


def test_no_oracle_no_event():
    assert oracle.oracle_event("svt5", 0.1, 700_000, 0.025) is None  # no closed form


@pytest.mark.parametrize(
    ("p", "q", "target", "delta"),
    [(0.05, 0.04, 0.1, 1e-4), (0.3, 0.28, 0.035, 1e-3), (0.05, 0.04, 0.17, 0.0)],
)
def test_reach_matches_sampling(p, q, target, delta):
    """The exact reach against sampled counts: binomial counts and the split bound for a
    claim with delta; for a pure one Poisson counts and the joint ratio bound."""
    n, a = 50_000, 0.025
    rng = np.random.default_rng(11)
    m = 400_000
    if delta:
        (ux, ix), (uy, iy) = (
            np.unique(rng.binomial(n, r, m), return_inverse=True) for r in (p, q)
        )  # Clopper-Pearson of each distinct count once
        lb = epsilon_bound(cp_lower(ux, n, a)[ix], cp_upper(uy, n, a)[iy], delta)
    else:
        lam = prefix_mean(n)
        lb = ratio_lower(rng.poisson(lam * p, m), rng.poisson(lam * q, m), 2 * a * JOINT_SHARE)
    sampled = float(np.mean(np.asarray(lb) >= target))
    exact = cert_noise.reach(p, q, n, a, delta, target)
    assert 0.05 < exact < 0.95  # a target the bound reaches sometimes, not always
    assert abs(exact - sampled) < 5 * np.sqrt(exact * (1 - exact) / m)


def test_reach_falls_as_the_target_rises():
    n, a, p, q = 100_000, 0.025, 0.02, 0.017
    values = [cert_noise.reach(p, q, n, a, 0.0, t) for t in (-1.0, 0.0, 0.05, 0.1, 0.2, 1.0)]
    assert values[0] == pytest.approx(1.0, abs=1e-9)
    assert all(x >= y for x, y in itertools.pairwise(values))
    assert values[-1] < 1e-12
    assert all(0.0 <= v <= 1.0 for v in values)  # a probability, even where rounding adds up
    # GeoSample's oracle event at 0.86x its oracle: the terms sum to 1 + 2e-15 unclipped
    certain = cert_noise.reach(9 / 17, 8 / 17, 700_000, 0.025, 0.0, 0.0977)
    assert 0.999 < certain <= 1.0 and 0.999 < cert_noise.median_reaches(certain) <= 1.0


def test_median_of_five():
    assert cert_noise.median_reaches(0.5) == pytest.approx(0.5)
    assert cert_noise.median_reaches(1.0) == pytest.approx(1.0)
    # at least 3 of 5: 10 r^3 (1 - r)^2 + 5 r^4 (1 - r) + r^5
    r = 0.6
    assert cert_noise.median_reaches(r) == pytest.approx(
        10 * r**3 * (1 - r) ** 2 + 5 * r**4 * (1 - r) + r**5
    )


def test_certification_samples_follow_the_audit_split():
    assert cert_noise.certification_samples("laplace.scalar", 1_000_000) == 900_000
    assert cert_noise.certification_samples("svt1", 1_000_000) == 700_000
