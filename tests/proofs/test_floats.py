"""The textbook floating-point Laplace sampler: the witness set of outputs really comes from
f(x) = 0, and no output of f(x') = Delta that small is off the ulp(Delta/2) grid."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from auditor.catalogue import sampler_for
from proofs import FloatLaplace, InputError, PureDP, Verdict
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
