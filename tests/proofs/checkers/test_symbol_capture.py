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

from proofs import ExponentialMechanism, Gaussian, Laplace, PureDP, Theorem, TwoSidedGeometric
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
