"""The exact binomial intervals and normal quantiles every part of the auditor uses."""

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy.stats import binomtest, norm
from statsmodels.stats.proportion import proportion_confint

from auditor.engine.stats import (
    cp_interval,
    cp_lower,
    cp_upper,
    normal_quantile,
    wilson_lower,
    wilson_upper,
)


def test_clopper_pearson_interval_matches_scipy_binomtest():
    for ones, n in ((0, 10), (3, 10), (10, 10), (512, 1000)):
        ci = binomtest(ones, n).proportion_ci(confidence_level=0.9, method="exact")
        assert cp_interval(ones, n, 0.9) == (pytest.approx(ci.low), pytest.approx(ci.high))


def test_one_sided_bounds_are_the_tails_of_the_two_sided_interval():
    low, high = cp_interval(37, 200, 0.9)  # scipy's binomtest: the same quantiles, 1e-15 apart
    assert float(cp_lower(37, 200, 0.05)) == pytest.approx(low, rel=1e-12)
    assert float(cp_upper(37, 200, 0.05)) == pytest.approx(high, rel=1e-12)
    assert float(cp_lower(0, 50, 0.05)) == 0.0 and float(cp_upper(50, 50, 0.05)) == 1.0


def test_normal_quantile_is_the_upper_tail_quantile():
    for a in (0.5, 0.05, 0.025, 1e-6):
        assert normal_quantile(a) == pytest.approx(norm.isf(a), rel=1e-12)


@settings(max_examples=200, deadline=None)
@given(n=st.integers(1, 10**9), frac=st.floats(0, 1), a=st.floats(1e-12, 0.49))
@example(n=19, frac=0.0, a=0.13108620861327816).via("a random run once found it")
def test_wilson_bounds_are_statsmodels_one_sided_wilson_bounds(n, frac, a):
    k = np.floor(frac * n)
    lo, hi = proportion_confint(k, n, alpha=2 * a, method="wilson")
    # (abs 1e-15: at k = 0 the lower root is a difference of two equal terms, and each
    # computation leaves its own rounding there, ~1e-18: 3.5e-18 against statsmodels' 0 at
    # n = 19, a = 0.131)
    assert float(wilson_lower(k, n, a)) == pytest.approx(max(lo, 0.0), rel=1e-9, abs=1e-15)
    assert float(wilson_upper(k, n, a)) == pytest.approx(min(hi, 1.0), rel=1e-9, abs=1e-15)


def test_wilson_bounds_broadcast_over_counts_and_sizes():
    k, n = np.array([[0.0], [5.0], [40.0]]), np.array([40, 400])
    lo, hi = proportion_confint(
        np.broadcast_to(k, (3, 2)), np.broadcast_to(n, (3, 2)), 0.1, "wilson"
    )
    assert wilson_lower(k, n, 0.05) == pytest.approx(np.maximum(lo, 0), rel=1e-12)
    assert wilson_upper(k, n, 0.05) == pytest.approx(np.minimum(hi, 1), rel=1e-12)


@settings(max_examples=200, deadline=None)
@given(t=st.floats(0, 60), cap=st.sampled_from([1.0, 50.0]))
def test_smallest_finds_a_monotone_threshold_to_its_tolerance(t, cap):
    from auditor.engine.stats import _smallest

    calls = []

    def certified(s):
        calls.append(np.size(s))
        return np.asarray(s) >= t

    got = _smallest(certified, cap)
    if t > cap:
        assert got == float("inf")
    else:
        assert t <= got <= t + 1e-4 * max(got, 1e-3)
    assert len(calls) <= 12  # a few vectorised rounds (to 1e-7 near 0), not 60 scalar steps
