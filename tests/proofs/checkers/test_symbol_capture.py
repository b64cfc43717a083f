"""Soundness: a claim's symbols are never the checker's own bound variables.

SymPy takes two symbols of one name and the same assumptions for one object. The checkers once
built their bound variables (the output y, the query values fx and fxp, the exponential
mechanism's weight ratios t_A and t_B, ...) as plain symbols, so a claim whose epsilon used a
parameter of that name made the claimed epsilon a function of the output and inputs, and false
claims came out proved (Laplace with epsilon Max(0, |y - fxp| - |y - fx|), which is 0 at
y = fx = fxp; the exponential mechanism at log(t_B/t_A + t_A/t_B), ln 2 at t_A = t_B = 1).
"""

from __future__ import annotations

import ast
import pathlib

import pytest
import sympy as sp

from proofs import (
    ChebyshevTail,
    ExponentialMechanism,
    FiniteMechanism,
    ForcedResponse,
    Gaussian,
    InputError,
    Laplace,
    LinearEstimator,
    Moment,
    NoiseDensity,
    Normalised,
    OneBitTelemetry,
    PerReportUnbiased,
    PureDP,
    Theorem,
    TwoSidedGeometric,
    Unbiased,
    rr_estimator,
    sym,
)
from proofs import check as check_claim

CHECKERS = pathlib.Path(__file__).parents[3] / "proofs" / "checkers"


def _verdict(claim) -> str:
    return check_claim(Theorem("capture", claim, source="test")).verdict.value


def _loss(kind: dict):
    y, fx, fxp = (sp.Symbol(n, **kind) for n in ("y", "fx", "fxp"))
    return sp.Abs(y - fxp) - sp.Abs(y - fx)


@pytest.mark.parametrize(
    "claim",
    [
        PureDP(ExponentialMechanism(1, 1), "log(t_B/t_A + t_A/t_B)"),
        PureDP(Laplace(1, 1), sp.Max(0, _loss(dict(real=True)))),
        PureDP(Laplace(1, 1), _loss(dict(real=True))),
        PureDP(TwoSidedGeometric(1, 1), _loss(dict(integer=True))),
    ],
    ids=["exponential-tA-tB", "laplace-max", "laplace-loss", "geometric-loss"],
)
def test_a_claim_naming_a_bound_variable_is_not_proved(claim):
    """Each claim is false (its epsilon is 0 or ln 2 at some value of its parameters, below
    the mechanism's true 1): it must not pass."""
    assert _verdict(claim) not in ("proved", "certified")


def test_gaussian_loss_named_like_the_bound_variables_is_not_proved():
    y, fx, fxp = (sp.Symbol(n, real=True) for n in ("y", "fx", "fxp"))
    claim = PureDP(Gaussian(1, 1), ((y - fxp) ** 2 - (y - fx) ** 2) / 2)  # no finite epsilon
    assert _verdict(claim) not in ("proved", "certified")


def _symbol_calls(tree: ast.AST):
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr == "Symbol":
                yield node, "Symbol"
            elif node.func.attr == "symbols" and not any(k.arg == "cls" for k in node.keywords):
                yield node, "symbols"


def test_the_checkers_bound_variables_are_dummies():
    """A guard for checkers to come: a bound variable made with ``sp.Symbol`` (or
    ``sp.symbols`` without ``cls=sp.Dummy``) is the same object as a claim's symbol of that
    name and assumptions. The claims' own symbols come from proofs.symbols."""
    found = [
        f"{path.name}:{node.lineno} sp.{what}"
        for path in sorted(CHECKERS.glob("*.py"))
        for node, what in _symbol_calls(ast.parse(path.read_text()))
    ]
    assert not found, found


def _false_or_refused(build) -> None:
    """``build()`` makes a false claim: it must be refused at construction, or not pass."""
    try:
        claim = build()
    except InputError as exc:
        assert "another name" in str(exc) or "parameters only" in str(exc), str(exc)
        return
    assert _verdict(claim) not in ("proved", "certified")


_HALF = sp.Rational(1, 2)
_X = sp.Symbol("x", nonnegative=True)  # the one-bit input's own symbol, as the docs write it
_Y = sp.Symbol("y", real=True)


@pytest.mark.parametrize(
    "build",
    [
        # a coin named t: the Chebyshev bound held only where the threshold t equals the coin
        lambda: ChebyshevTail(rr_estimator("t"), "1/(4*t^4*n)"),
        lambda: ChebyshevTail(
            LinearEstimator(
                ForcedResponse(p_truth="t", p_yes=_HALF), "1/t", "-n*(1-t)/(2*t)", "n_1"
            ),
            "n/(4*t^4)",
        ),
        # one-bit telemetry's range named n: unbiased only where it equals the report count
        lambda: Unbiased(
            LinearEstimator(
                OneBitTelemetry("epsilon", "n"),
                "n*(exp(epsilon)+1)/(exp(epsilon)-1)",
                "-n^2/(exp(epsilon)-1)",
                "n_1",
            )
        ),
        # the range, or the truth probability, is the input x itself
        lambda: PerReportUnbiased(
            OneBitTelemetry("epsilon", m=_X), "x*b*(exp(epsilon)+1)/exp(epsilon)"
        ),
        lambda: PerReportUnbiased(ForcedResponse(p_truth=_X, p_yes=_HALF), "2*b - 1"),
        # a domain on the noise value only restricted the sign check: g(-2) < 0
        lambda: Normalised(NoiseDensity("(1+y)*exp(-abs(y))/2", domain=(_Y > 0,))),
        lambda: Moment(NoiseDensity("(1+y)*exp(-abs(y))/2", domain=(_Y > 0,)), "mean", 2),
    ],
    ids=["rr-t", "forced-t", "onebit-n", "onebit-x", "forced-x", "density-domain", "moment-domain"],
)
def test_an_estimator_or_law_naming_the_claims_own_variable_is_refused(build):
    _false_or_refused(build)


def test_a_law_whose_parameter_is_named_like_the_noise_value_is_refused():
    """A Laplace of scale y was turned into exp(-|y|/y)/(2y), the scale merged with the noise
    value, and the true claim that it is normalised was refuted."""
    for law in (lambda: Laplace(scale=sym("y")), lambda: Gaussian(sigma=sym("z"))):
        with pytest.raises(InputError, match="another name"):
            Normalised(law())
    assert _verdict(Normalised(Laplace(scale=sym("y_0")))) == "proved"


def test_two_integer_symbols_of_one_name_are_two_z3_variables():
    """z3's names were compared with the terms' text, ToReal(k) for an integer k: two integer
    symbols named k were one z3 variable, and constraints k >= 2 on one and k <= 0 on the
    other read as no parameter value at all (the claim refused)."""
    p = sym("p")
    k1, k2 = sp.Symbol("k", integer=True), sp.Symbol("k", integer=True, nonnegative=True)
    mech = FiniteMechanism(
        {0: {0: p, 1: 1 - p}, 1: {0: 1 - p, 1: p}}, assumptions=(p > _HALF, p < 1, k1 >= 2, k2 <= 0)
    )
    assert _verdict(PureDP(mech, sp.log(p / (1 - p)))) == "proved"


def test_a_frequency_oracles_parameter_named_like_an_estimator_variable_is_refused():
    """A report of a frequency oracle keeps only p* and q*: Hadamard response's K lived on in
    the domain (K >= 4) alone, so a K named t restricted the tail threshold to t >= 4, and a
    false Chebyshev bound was proved."""
    from proofs.claims.estimation import frequency_estimator
    from proofs.mechanisms.oracles import HadamardResponse, UnaryEncoding

    eps = sp.Symbol("epsilon", positive=True)
    with pytest.raises(InputError, match="named t"):
        frequency_estimator(HadamardResponse(eps, sp.Symbol("t", positive=True)))
    with pytest.raises(InputError, match="named n"):
        frequency_estimator(UnaryEncoding(eps, sp.Symbol("n", integer=True, positive=True)))


def test_a_parameter_named_like_a_z3_term_is_its_own_variable():
    """The z3 variable standing for exp(epsilon/2) was named so, and a claim's symbol of that
    very name was the same variable: exp(epsilon/2) <= s was proved."""
    from proofs import Inequality

    eps = sp.Symbol("epsilon", positive=True)
    for name in ("exp(epsilon/1)", "exp(epsilon/2)", "c!0"):
        s = sp.Symbol(name, positive=True)
        assert _verdict(Inequality(sp.exp(eps / 2), s)) == "refuted", name
