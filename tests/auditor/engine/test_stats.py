"""The exact binomial intervals and normal quantiles every part of the auditor uses."""

import pytest
from scipy.stats import binomtest, norm

from auditor.engine.stats import cp_interval, cp_lower, cp_upper, normal_quantile


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
