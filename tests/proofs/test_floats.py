"""Mechanisms on doubles. The textbook floating-point Laplace sampler: the witness set of
outputs really comes from f(x) = 0, and no output of f(x') = Delta that small is off the
ulp(Delta/2) grid. A release suppressing answers as 0.0 * f(x): -0.0 comes from f(x) < 0 only."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from auditor.catalogue import sampler_for
from proofs import FloatLaplace, InputError, PureDP, SignedZeroLaplace, Verdict
from proofs.epsilon import true_epsilon


@pytest.mark.parametrize("scale", [0.5, 1.0, 3.7, 10.0, 1e6])
@pytest.mark.parametrize("delta", [0.25, 1.0, 3.0])
def test_the_witness_comes_from_zero_and_is_off_the_grid(scale, delta):
    u, outputs = FloatLaplace(scale, delta).witness()
    assert 0.0 + scale * math.log(u + u) in outputs  # this machine's C log: one of the two
    grid = Fraction(math.ulp(delta / 2))
    assert all(abs(y) < delta / 4 and Fraction(y) % grid != 0 for y in outputs)
    assert Fraction(u) % Fraction(2**-53) == 0 and 0 < u < 0.5


@settings(max_examples=2000, deadline=None, derandomize=True)
@given(delta=st.sampled_from([0.25, 1.0, 3.0, 10.0]), noise=st.floats(-20.0, 20.0, allow_nan=False))
def test_small_outputs_of_delta_are_on_the_grid(delta, noise):
    """Sterbenz: delta + n is exact for n in [-2 delta, -delta/2], hence on the grid."""
    for n in (noise, -delta + noise * 2**-40, math.nextafter(-delta, noise)):
        y = delta + n
        if abs(y) < delta / 4:
            assert Fraction(y) % Fraction(math.ulp(delta / 2)) == 0


def test_the_sampler_draws_raw_doubles_and_the_claim_is_refuted():
    mech = FloatLaplace(10.0, 1.0)
    out = sampler_for(mech)(0.0, 1000, np.random.default_rng(0))
    assert out.dtype == np.float64 and len(np.unique(out)) == 1000
    assert true_epsilon(mech).value == math.inf
    assert PureDP(mech, 1000).check().verdict is Verdict.REFUTED


@pytest.mark.parametrize("bad", [dict(scale=0.0), dict(scale=math.inf), dict(sensitivity=-1.0)])
def test_bad_parameters_are_one_line_errors(bad):
    with pytest.raises(InputError) as err:
        FloatLaplace(**bad).validate()
    assert "\n" not in str(err.value)


def _negative_zeros(y: np.ndarray) -> int:
    return int(np.sum((y == 0) & np.signbit(y)))


def _numpy_noise(u: float, scale: float) -> float:
    """NumPy's Generator.laplace for the uniform draw u, operation by operation."""
    return scale * math.log(u + u) if u < 0.5 else -(scale * math.log(2.0 - u - u))


@settings(max_examples=300, deadline=None, derandomize=True)
@given(scale=st.floats(1e-3, 1e6), threshold=st.floats(1e-9, 1e3), sensitivity=st.floats(1e-3, 1e3))
def test_the_signed_zero_witness_is_suppressed_to_negative_zero(scale, threshold, sensitivity):
    # NumPy's noise is at most -scale log(2^-52) = 36.04 scale: the answer must reach the band
    assume(sensitivity / 2 < 30 * scale)
    mech = SignedZeroLaplace(scale, threshold, sensitivity)
    u = mech.witness()
    assert u is not None and 0 < u < 1 and Fraction(u) % Fraction(2**-53) == 0
    a = -sensitivity / 2
    noisy = a + _numpy_noise(u, scale)  # this machine's C log: one of the two tried
    assert abs(noisy) <= threshold
    y = 0.0 * a
    assert y == 0 and math.copysign(1.0, y) == -1.0


def test_only_a_negative_answer_is_suppressed_to_negative_zero():
    mech = SignedZeroLaplace(10.0, 10.0, 1.0)
    sample = sampler_for(mech)
    low, high = (sample(v, 100_000, np.random.default_rng(1)) for v in (-0.5, 0.5))
    assert _negative_zeros(low) > 50_000 and _negative_zeros(high) == 0  # P ~ 0.62 under -0.5
    assert np.sum(high == 0) > 50_000  # suppressed to +0.0 instead
    assert np.all((np.abs(low) > 10.0) | (low == 0))
    assert true_epsilon(mech).value == math.inf
    result = PureDP(mech, 1000).check()
    assert result.verdict is Verdict.REFUTED and result.counterexample.output == "-0.0"


@pytest.mark.parametrize("bad", [dict(scale=0.0), dict(threshold=math.inf), dict(sensitivity=-1)])
def test_bad_signed_zero_parameters_are_one_line_errors(bad):
    with pytest.raises(InputError) as err:
        SignedZeroLaplace(**bad).validate()
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("ratio", [1e15, 3e15, 9e15, 1e16, 1e30, 1e300])
def test_coarse_noise_never_takes_delta_to_zero(ratio):
    """Noise too coarse for the small-output witness: 0.0 comes from U = 1/2 under f(x) = 0,
    and no draw of the first branch (the only negative noise) gives exactly -Delta: checked
    with this machine's log for the first 10^6 draws below 1/2, past where the noise falls
    below -Delta."""
    mech = FloatLaplace(ratio, 1.0)
    assert mech.witness() is None and mech.zero_witness()
    assert 0.0 + _numpy_noise(0.5, ratio) == 0
    # math.log is the C library's, as the sampler's (np.log may be a vectorised variant)
    noise = [ratio * math.log(1.0 - j * 2.0**-52) for j in range(1, 1_000_001)]
    assert noise[-1] < -1.0 and -1.0 not in noise
    result = PureDP(mech, 1000).check()
    assert result.verdict is Verdict.REFUTED and result.counterexample.output == "{0.0, -0.0}"


def test_the_zero_witness_refuses_a_noise_that_lands_on_minus_delta():
    scale = 1e15
    delta = -(scale * math.log(1.0 - 3 * 2.0**-52))  # draw j = 3 gives noise -delta here
    assert not FloatLaplace(scale, delta).zero_witness()
    assert not FloatLaplace(1.0, 1.0).zero_witness(tries=3)  # fine noise: gives up


@pytest.mark.parametrize("scale, sensitivity", [(1.0, 80.0), (1e-3, 1.0), (1.0, 1e300)])
def test_separated_answers_keep_their_signs(scale, sensitivity):
    """No noise reaches sensitivity/2: the extreme draws' noise is within 37 scale, and the
    sampler's outputs of -sensitivity/2 all have the sign bit set, those of +sensitivity/2 none."""
    mech = SignedZeroLaplace(scale, 1e-6, sensitivity)
    assert mech.witness() is None and mech.separated()
    for u in (2.0**-53, 0.5 - 2.0**-53, 0.5, 1.0 - 2.0**-53):
        assert abs(_numpy_noise(u, scale)) <= 37 * scale
    sample = sampler_for(mech)
    low, high = (
        sample(v, 100_000, np.random.default_rng(2)) for v in (-sensitivity / 2, sensitivity / 2)
    )
    assert np.all(np.signbit(low)) and not np.any(np.signbit(high))
    result = PureDP(mech, 1000).check()
    assert result.verdict is Verdict.REFUTED and result.counterexample.output == "y < 0 or y = -0.0"
    assert not SignedZeroLaplace(1.0, 1e-20, 1.0).separated()  # overlapping answers
