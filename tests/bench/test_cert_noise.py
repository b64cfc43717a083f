"""The perfect auditor of bench/cert_noise.py: the oracle's event and the law of its bound."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from auditor.engine.stats import cp_lower, cp_upper, epsilon_bound
from bench import cert_noise, oracle


@pytest.mark.parametrize("name", ["laplace_parallel20", "svt1", "rappor.dpsniper"])
def test_the_oracle_event_certifies_the_oracle_bound_at_its_expected_counts(name):
    n, a = 700_000, 0.025
    bound, p, q = oracle.oracle_event(name, 0.1, n, a)
    assert bound == pytest.approx(oracle.oracle_bound(name, 0.1, n, a), rel=1e-12)
    assert 0 < q < p < 1
    again = float(np.ravel(epsilon_bound(cp_lower(n * p, n, a), cp_upper(n * q, n, a), 0.0))[0])
    assert again == pytest.approx(bound, rel=1e-9)


def test_no_oracle_no_event():
    assert oracle.oracle_event("svt5", 0.1, 700_000, 0.025) is None  # no closed form


@pytest.mark.parametrize(("p", "q", "target"), [(0.05, 0.04, 0.1), (0.3, 0.28, 0.035)])
def test_reach_matches_sampling(p, q, target):
    n, a = 50_000, 0.025
    rng = np.random.default_rng(11)
    m = 400_000
    (ux, ix), (uy, iy) = (
        np.unique(rng.binomial(n, r, m), return_inverse=True) for r in (p, q)
    )  # Clopper-Pearson of each distinct count once
    lb = epsilon_bound(cp_lower(ux, n, a)[ix], cp_upper(uy, n, a)[iy], 0.0)
    sampled = float(np.mean(np.asarray(lb) >= target))
    exact = cert_noise.reach(p, q, n, a, 0.0, target)
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
