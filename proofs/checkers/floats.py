"""Privacy-loss formulations on doubles (the textbook floating-point Laplace sampler, and a
release whose suppressed answers keep the true answer's sign): an output that one input can
give (with probability at least 2^-53) and its neighbour never can, found and checked in exact
binary arithmetic (:meth:`proofs.mechanisms.FloatLaplace.witness`,
:meth:`proofs.mechanisms.SignedZeroLaplace.witness`)."""

from __future__ import annotations

import sympy as sp

from proofs import mechanisms as m
from proofs.checkers.formulations import Case, Formulation, formulate

__all__: list[str] = []


def _unbounded(case: Case, note: str) -> Formulation:
    """The formulation of one witness output that one input gives and its neighbour never does."""
    return Formulation((case,), tight_note=note, unbounded=(0, {}))


@formulate.register
def _(mech: m.FloatLaplace) -> Formulation:
    found = mech.witness()
    if found is None and mech.zero_witness():
        case = Case(
            f"output y = 0.0 (noise -scale*log(2 - U - U) = -0.0 at U = 0.5): P[M(0) = 0] >= "
            f"2^-53; f(x') = {mech.sensitivity} gives 0 only with noise exactly "
            f"-{mech.sensitivity}, and every nonzero noise is at least scale*2^-53 = "
            f"{float(mech.scale) * 2.0**-53!r} in magnitude",
            sp.Rational(1, 2**53),
            sp.Integer(0),
            (0.0, float(mech.sensitivity), "{0.0, -0.0}"),
            note="IEEE-754 doubles, NumPy's Generator.laplace (Mironov 2012)",
        )
        return _unbounded(case, "unbounded: the noise is too coarse for f(x') to reach 0")
    if found is None:
        return Formulation((), tight_note="no double output was found that one input cannot give")
    u, outputs = found
    shown = " or ".join(repr(y) for y in outputs)
    case = Case(
        f"outputs y = {shown} (scale*log(2U) at U = {u!r}, either faithful rounding of the "
        f"log): P[M(0) = y] >= 2^-53; no y is a multiple of ulp({mech.sensitivity}/2), so f(x') "
        f"= {mech.sensitivity} cannot give one",
        sp.Rational(1, 2**53),
        sp.Integer(0),
        (0.0, float(mech.sensitivity), "{" + ", ".join(repr(y) for y in outputs) + "}"),
        note="IEEE-754 doubles, NumPy's Generator.laplace (Mironov 2012)",
    )
    return _unbounded(
        case, "unbounded: the outputs of the two inputs are different sets of doubles"
    )


@formulate.register
def _(mech: m.SignedZeroLaplace) -> Formulation:
    u = mech.witness()
    half = mech.sensitivity / 2
    if u is None and mech.separated():
        case = Case(
            f"outputs with the sign bit set (y < 0 or y = -0.0): the noise is at most "
            f"scale*37 = {float(mech.scale) * 37.0!r} < {half!r} in magnitude, so f(x) = "
            f"{-half!r} gives only these and f(x') = {half!r} none",
            sp.Integer(1),
            sp.Integer(0),
            (-half, half, "y < 0 or y = -0.0"),
            note="IEEE-754 doubles: a nonzero exact sum never rounds to zero",
        )
        return _unbounded(case, "unbounded: the two inputs' outputs have opposite signs")
    if u is None:
        return Formulation((), tight_note="no draw was found that suppresses f(x)'s answer")
    case = Case(
        f"output y = -0.0: f(x) = {-half!r} is suppressed to 0.0 * f(x) = -0.0 at U = {u!r} "
        f"(|f(x) + noise| <= {mech.threshold!r}, either faithful rounding of the log), so "
        f"P[M(x) = -0.0] >= 2^-53; f(x') = {half!r} gives +0.0 when suppressed and |y| > "
        f"{mech.threshold!r} otherwise, never -0.0",
        sp.Rational(1, 2**53),
        sp.Integer(0),
        (-half, half, "-0.0"),
        note="IEEE-754 doubles: the sign of a product is the exclusive or of its operands' signs",
    )
    return _unbounded(
        case,
        "unbounded: -0.0 is an output of f(x) < 0 only (over the reals the "
        f"release would be {mech.sensitivity / mech.scale!r}-DP: suppression is post-processing)",
    )
