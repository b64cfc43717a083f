"""EstimateAt: an estimator evaluated on given reports, exactly (notes 003's worked example)."""

from __future__ import annotations

from fractions import Fraction

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from proofs import (
    ChebyshevTail,
    EstimateAt,
    LinearEstimator,
    OneBitTelemetry,
    Unbiased,
    Variance,
    Verdict,
    check,
    forced_response_estimator,
    rr_estimator,
)
from proofs.errors import InputError

HALF = sp.Rational(1, 2)


def test_the_notes_example_is_certified_and_half_ones_give_one_half_for_every_alpha():
    assert check(EstimateAt(rr_estimator(HALF), [0] * 9 + [1] * 9, HALF)).verdict.value == (
        "certified"
    )
    for alpha in ("1/10", "1/4", "3/4", "99/100"):
        claim = EstimateAt(rr_estimator(), [1, 0] * 9, HALF, at={"alpha": alpha})
        assert check(claim).verdict.value == "certified", alpha


@settings(max_examples=40, deadline=None)
@given(
    alpha=st.fractions(min_value=Fraction(1, 100), max_value=Fraction(99, 100)),
    bits=st.lists(st.integers(0, 1), min_size=1, max_size=40),
    off=st.fractions(min_value=Fraction(-3), max_value=Fraction(3)).filter(lambda f: f != 0),
)
def test_the_estimate_is_certified_and_any_other_value_refuted(alpha, bits, off):
    n, s = len(bits), sum(bits)
    exact = Fraction(s, 1) / (alpha * n) - (1 - alpha) / (2 * alpha)  # computed apart
    at = {"alpha": sp.Rational(alpha.numerator, alpha.denominator)}
    right = EstimateAt(rr_estimator(), bits, sp.Rational(exact.numerator, exact.denominator), at)
    assert check(right).verdict.value == "certified"
    wrong_value = exact + off
    wrong = EstimateAt(
        rr_estimator(), bits, sp.Rational(wrong_value.numerator, wrong_value.denominator), at
    )
    result = check(wrong)
    assert result.verdict.value == "refuted"
    assert str(sp.Rational(exact.numerator, exact.denominator)) in result.counterexample.note


def test_irrational_parameters_are_decided_exactly():
    e = LinearEstimator(
        OneBitTelemetry(),
        "(exp(epsilon) + 1)/(n*(exp(epsilon) - 1))",
        "-1/(exp(epsilon) - 1)",
        "n_1/n",
    )
    value = "(2*(exp(1) + 1) - 3)/(3*(exp(1) - 1))"  # n = 3, S = 2 at epsilon = 1
    assert check(EstimateAt(e, [1, 1, 0], value, at={"epsilon": 1, "m": 1})).verdict.value == (
        "certified"
    )
    off = value + " + 10**-30"  # a hair off: arb decides it
    assert check(EstimateAt(e, [1, 1, 0], off, at={"epsilon": 1, "m": 1})).verdict.value == (
        "refuted"
    )


def test_forced_response_count_from_reports():
    # n_true_hat = 2 n_obs - N/2: 3 yes of 4 give 4
    assert check(EstimateAt(forced_response_estimator(), [1, 1, 1, 0], 4)).verdict.value == (
        "certified"
    )


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"reports": [0, 2]}, "reports holds 2, not a 0/1 report"),
        ({"reports": "0101"}, "reports='0101' is not a sequence of 0/1 reports"),
        ({"reports": [0.0, 1.0]}, "reports holds 0.0"),
        ({"reports": []}, "reports=\\[\\] has no report"),
        ({"at": {"beta": 1}}, "at names 'beta', not a parameter"),
        ({"at": {}}, "parameters \\['alpha'\\] of the estimator have no value"),
        ({"at": {"alpha": 0}}, "at\\['alpha'\\]=0 is not a value alpha can take"),
        ({"at": {"alpha": 1}}, "outside the mechanism's domain"),
        ({"at": {"alpha": "x"}}, "is not a number"),
        ({"value": "p"}, "value='p' is not a number"),
        ({"at": 3}, "at=3 is not a mapping"),
    ],
)
def test_bad_input_is_a_one_line_input_error(kwargs, message):
    args = {"estimator": rr_estimator(), "reports": [0, 1], "value": HALF, "at": {"alpha": HALF}}
    with pytest.raises(InputError, match=message) as info:
        EstimateAt(**{**args, **kwargs})
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("bound", ["1/(alpha**2*n**2)", "(1 - alpha**2)/(4*alpha**2*n**2) * 3"])
def test_a_variance_bound_false_only_for_larger_populations_is_refuted(bound):
    """Only n <= 4 was tried: Var <= 1/(alpha^2 n^2), false from n = 5 (alpha = 1/10), was
    'unknown'. z3's model of the failed proof is re-checked first, then larger n."""
    result = check(Variance(rr_estimator(), bound))
    assert result.verdict is Verdict.REFUTED, result.summary()
    assert result.counterexample is not None


@pytest.mark.parametrize(
    "extra", ["(n - 1)*(n - 2)/n", "(n - 1)*(n - 2)", "n_1*(n_1 - 1)"], ids=["a", "b", "c"]
)
def test_a_true_variance_bound_is_never_refuted_at_a_model_no_population_has(extra):
    """Each bound exceeds Var = 3/(4n) at every integer n (and n_1), not at n = 3/2 or
    n_1 = 1/2, where z3's model of the failed proof lay: they were refuted there."""
    from proofs.symbols import N1, N

    extra_expr = sp.sympify(extra, locals={"n": N, "n_1": N1})
    result = check(Variance(rr_estimator(HALF), 3 / (4 * N) + extra_expr))
    assert result.verdict is not Verdict.REFUTED, result.summary()


@pytest.mark.parametrize("factor", [2, sp.Rational(101, 100)])
def test_one_bit_telemetry_is_never_refuted_at_an_input_beyond_m(factor):
    """The estimator's inputs are 0 and 1, so one-bit telemetry's m is at least 1 wherever a
    population has a 1: at m = 1/4 P[b = 1 | x = 1] is (4e - 3)/(e + 1) > 1 and the 'variance'
    negative, where a true bound Var <= c Var (c >= 1) was refuted. A bound below the
    variance is still refuted, at a valid population."""
    e = LinearEstimator(
        OneBitTelemetry(), "m*(exp(epsilon)+1)/(exp(epsilon)-1)", "-n*m/(exp(epsilon)-1)", "n_1"
    )
    assert check(Variance(e, factor * e.variance())).verdict is Verdict.PROVED
    low = check(Variance(e, e.variance() / factor))
    assert low.verdict is Verdict.REFUTED
    values = low.counterexample.parameters
    assert values["n_1"] == "0" or sp.Rational(values["m"]) >= 1


def test_one_bit_telemetry_with_m_below_1_is_judged_on_populations_without_ones():
    """Populations of 0s are valid inputs whatever m is: the input-1 condition narrows the
    domain only where n_1 > 0. Made unconditional, it was False at m = 1/2 and every claim
    was proved over nothing, and at symbolic m it dropped the m < 1 populations of 0s."""
    half = sp.Rational(1, 2)
    e = LinearEstimator(
        OneBitTelemetry(m=half),
        "(1/2)*(exp(epsilon)+1)/(exp(epsilon)-1)",
        "-n*(1/2)/(exp(epsilon)-1)",
        "n_1",
    )
    assert check(Variance(e, -1)).verdict is Verdict.REFUTED
    assert check(ChebyshevTail(e, 0)).verdict is not Verdict.PROVED
    assert check(Unbiased(LinearEstimator(OneBitTelemetry(m=half), 1, 0, "n_1"))).verdict is (
        Verdict.REFUTED
    )
    sym = LinearEstimator(
        OneBitTelemetry(), "m*(exp(epsilon)+1)/(exp(epsilon)-1)", "-n*m/(exp(epsilon)-1)", "n_1"
    )
    quarter = check(Variance(sym, "m**2*(exp(epsilon)+1)**2/(exp(epsilon)-1)**2 * n*m/4"))
    assert quarter.verdict is Verdict.REFUTED  # at m = 1/2, n_1 = 0: Var 0.2302 > 0.1463
