"""proofs.true_epsilon: the value and how it is known, and one-line errors on bad input."""

import math

import pytest
import sympy as sp

from proofs import (
    AlphaCoinRR,
    ExponentialMechanism,
    Gaussian,
    InputError,
    Laplace,
    Published,
    rr_table,
    sym,
    true_epsilon,
)


def test_bases_strongest_first():
    attained = true_epsilon(Laplace(10, 1))
    assert attained.value == pytest.approx(0.1) and attained.basis.startswith("proved, attained")
    supremum = true_epsilon(ExponentialMechanism(1))
    assert supremum.value == 1.0 and supremum.basis.startswith("proved, supremum")
    at_delta = true_epsilon(Gaussian(1, 1), "1e-5")
    assert 4.37 < at_delta.value < 4.38 and at_delta.basis.startswith("certified at delta")
    cited = true_epsilon(Published("SVT, Alg. 5", math.inf, "Lyu, Su and Li (2017)"))
    assert cited.value == math.inf and not cited.proved
    assert true_epsilon(rr_table(3)).exact == sp.log(3)


def test_symbolic_descriptions_keep_the_exact_value():
    t = true_epsilon(AlphaCoinRR(sym("alpha")))
    assert t.value is None and t.exact == sp.log((1 + sym("alpha")) / (1 - sym("alpha")))


@pytest.mark.parametrize(
    "mech, delta, match",
    [
        (Gaussian(1, 1), "abc", "delta='abc'"),
        (Gaussian(1, 1), 1.5, "delta=1.5"),
        (object(), 0, "is not a description"),
    ],
)
def test_bad_input_is_a_one_line_error(mech, delta, match):
    with pytest.raises(InputError, match=match) as info:
        true_epsilon(mech, delta)
    assert "\n" not in str(info.value)
