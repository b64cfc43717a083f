"""Privacy-loss formulation of the textbook floating-point Laplace sampler: an output that one
input can give (with probability at least 2^-53) and its neighbour never can, found and checked
in exact binary arithmetic (:meth:`proofs.mechanisms.FloatLaplace.witness`)."""

from __future__ import annotations

import sympy as sp

from proofs import mechanisms as m
from proofs.checkers.formulations import Case, Formulation, formulate

__all__: list[str] = []


@formulate.register
def _(mech: m.FloatLaplace) -> Formulation:
    found = mech.witness()
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
    return Formulation(
        (case,),
        tight_note="unbounded: the outputs of the two inputs are different sets of doubles",
        unbounded=(0, {}),
    )
