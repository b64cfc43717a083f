"""Known answers: dp-accounting and scipy against the certified numbers of the approximate-DP,
composition and calibration checkers (proofs.checkers.profiles, .composition, .calibration).

Sources of the hard-coded numbers: dp-accounting's PLD accountant (Gaussian sigma = 3, k = 10,
delta = 1e-5: eps = 4.6530) and its `advanced_composition` (the KOV theorem: 4.400); the DRV
formula evaluated in closed form (5.850); basic composition (10.0)."""

import math

import numpy as np
import pytest
import sympy as sp
from scipy.stats import norm

from proofs import (
    ApproxDP,
    ComposedDP,
    Gaussian,
    GaussianCalibration,
    InputError,
    Laplace,
    Verdict,
    calibrate_gaussian,
    check,
    drv_epsilon,
    gaussian_delta,
    gaussian_epsilon,
    kov_delta,
    kov_epsilon,
    laplace_delta,
)

dp_accounting = pytest.importorskip("dp_accounting")
from dp_accounting.pld import accountant as pld_accountant  # noqa: E402
from dp_accounting.pld import common as pld_common  # noqa: E402
from dp_accounting.pld import pld_privacy_accountant  # noqa: E402


def _pld_epsilon(event, k, delta):
    acc = pld_privacy_accountant.PLDAccountant()
    acc.compose(event, k)
    return acc.get_epsilon(delta)


def test_gaussian_composition_matches_the_pld_accountant():
    lo, hi = gaussian_epsilon(3 / math.sqrt(10), 1e-5)
    pld = _pld_epsilon(dp_accounting.GaussianDpEvent(3.0), 10, 1e-5)
    assert round(lo, 4) == round(hi, 4) == 4.6530
    assert abs(pld - (lo + hi) / 2) < 1e-4  # PLD discretisation error only
    direct = dp_accounting.get_epsilon_gaussian(3 / math.sqrt(10), 1e-5)
    assert direct == pytest.approx(lo, abs=1e-6)


def test_laplace_100_fold_basic_drv_kov():
    eps, k, delta = 0.1, 100, 1e-5  # Laplace b = 10, sensitivity 1: eps = 0.1
    basic = k * eps
    drv = float(drv_epsilon(sp.Rational(1, 10), k, sp.Rational(1, 10**5)))
    kov, enclosure = kov_epsilon(sp.Rational(1, 10), k, sp.Rational(1, 10**5))
    params = pld_common.DifferentialPrivacyParameters(eps, 0)
    assert round(basic, 1) == 10.0
    assert round(drv, 3) == 5.850
    assert (
        float(kov) == pytest.approx(4.400) == pld_accountant.advanced_composition(params, k, delta)
    )
    assert float(enclosure.upper()) <= delta
    # each of them is sound by the exact KOV sum; basic is (10.0, 0)-DP, decided exactly (every
    # term of the sum vanishes): proved; the others by arb: certified
    assert check(ComposedDP(eps, k, basic, delta)).verdict is Verdict.PROVED
    for total in (drv, float(kov)):
        assert check(ComposedDP(eps, k, total, delta)).verdict is Verdict.CERTIFIED
    assert float(kov_delta(eps, k, basic).upper()) < 1e-30  # exactly 0, up to arb radius
    # dp-accounting's PLD accountant gives infinity at delta = 0 and the (smaller) exact Laplace
    # value at 1e-5: Laplace is not the worst 0.1-DP mechanism
    laplace_pld = _pld_epsilon(dp_accounting.LaplaceDpEvent(10.0), k, delta)
    assert _pld_epsilon(dp_accounting.LaplaceDpEvent(10.0), k, 0.0) == math.inf
    assert 4.2 < laplace_pld < float(kov)


def test_balle_wang_profile_matches_scipy():
    for sigma, eps in [(0.5, 0.1), (1, 1), (3, 2), (10, 0.05)]:
        mu = 1 / sigma
        ref = norm.cdf(mu / 2 - eps / mu) - np.exp(eps) * norm.cdf(-mu / 2 - eps / mu)
        ball = gaussian_delta(sp.nsimplify(eps), sp.nsimplify(sigma))
        assert float(ball.lower()) - 1e-15 <= ref <= float(ball.upper()) + 1e-15


def test_laplace_profile_matches_numerical_integration():
    from scipy.integrate import quad

    b, eps = 2.0, 0.2
    p = lambda y: np.exp(-abs(y - 1) / b) / (2 * b)
    q = lambda y: np.exp(-abs(y) / b) / (2 * b)
    ref = quad(lambda y: max(p(y) - np.exp(eps) * q(y), 0), -50, 50, points=[0, 1], limit=200)[0]
    assert float(laplace_delta(sp.Rational(1, 5), 2)) == pytest.approx(ref, rel=1e-7)
    assert check(ApproxDP(Laplace(2, 1), sp.Rational(1, 5), ref * 1.001)).verdict.holds


def test_calibrator_certificate_and_dp_accounting():
    result = calibrate_gaussian(1, 1e-5)
    assert result.sigma == pytest.approx(3.7306316, abs=1e-6)
    assert result.delta_at_sigma[1] <= 1e-5 < result.delta_below[0]
    assert result.classical_sigma is None  # eps = 1 is outside the classical theorem's range
    sigma_acc = dp_accounting.get_sigma_gaussian(1.0, 1e-5)
    assert sigma_acc == pytest.approx(result.sigma, rel=1e-6)
    assert result.to_dict()["schema_version"] == "1.0"
    half = calibrate_gaussian(0.5, 1e-5)
    assert half.sigma < half.classical_sigma  # the classical calibration is loose
    assert "smallest sigma" in half.summary()


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: ApproxDP(Gaussian(3, 1), 1, 1.5), "delta=1.5 must be a number in [0, 1)"),
        (lambda: ApproxDP(Gaussian(3, 1), -1, 0.1), "epsilon=-1 must be a non-negative number"),
        (lambda: ComposedDP(0.1, 0, 1, 1e-5), "k=0 must be an integer in [1, "),
        (lambda: GaussianCalibration(0), "delta=0: Gaussian noise is never"),
        (lambda: calibrate_gaussian(1, 0), "both must be > 0"),
    ],
)
def test_bad_input_names_the_value_and_the_fix(make, message):
    with pytest.raises(InputError, match=None) as info:
        make()
    assert message in str(info.value)
    assert "\n" not in str(info.value)


def test_kov_with_per_mechanism_delta_matches_dp_accounting():
    params = pld_common.DifferentialPrivacyParameters(0.2, 1e-6)
    expected = pld_accountant.advanced_composition(params, 50, 1e-4)
    value, enclosure = kov_epsilon(
        sp.Rational(1, 5), 50, sp.Rational(1, 10**4), sp.Rational(1, 10**6)
    )
    assert float(value) == pytest.approx(expected)
    assert float(enclosure.upper()) <= 1e-4


@pytest.mark.parametrize("epsilon, delta", [(1e-3, 1e-5), (1e-4, 1e-5), (0.01, 1e-6), (5, 1e-9)])
def test_the_calibrated_sigma_is_minimal_to_the_claims_default_tolerance(epsilon, delta):
    """The bisection stopped on a step relative to sigma: at eps = 1e-3 sigma 1724.259 was
    1.5e-6 above the smallest, and CalibrationMinimal (tolerance 1e-6) refuted it."""
    from proofs import CalibrationMinimal

    best = calibrate_gaussian(epsilon, delta)
    assert check(CalibrationMinimal(epsilon, delta, best.sigma)).verdict is Verdict.CERTIFIED
