"""Certified numerics: evaluate closed SymPy expressions as arb balls (python-flint).

An arb ball is a midpoint and a radius that is guaranteed to contain the true value, so a
comparison that arb answers with True is a proof of that comparison. `certainly_less` and
friends retry at increasing precision and return None when the two sides cannot be separated.
"""

from __future__ import annotations

from fractions import Fraction

import sympy as sp
from flint import arb, ctx

__all__ = ["to_arb", "certainly_greater", "certainly_less", "arb_interval"]

_PRECISIONS = (64, 128, 256, 1024)


class NotNumeric(Exception):
    """The expression has free symbols or a function arb cannot evaluate."""


def _arb_rational(value: sp.Rational) -> arb:
    return arb(int(value.p)) / arb(int(value.q))


def _pow(base: arb, exponent: sp.Expr) -> arb:
    if exponent.is_Integer:
        n = int(exponent)
        result = base ** abs(n)
        return 1 / result if n < 0 else result
    return base ** to_arb(exponent)


_FUNCTIONS = {
    sp.exp: lambda x: x.exp(),
    sp.log: lambda x: x.log(),
    sp.erf: lambda x: x.erf(),
    sp.erfc: lambda x: x.erfc(),
    sp.sin: lambda x: x.sin(),
    sp.cos: lambda x: x.cos(),
    sp.Abs: abs,
}


def _extreme(balls: list[arb], largest: bool) -> arb:
    """Max or min of balls, only when one of them certainly dominates the others."""
    for ball in balls:
        if all((ball >= other) if largest else (ball <= other) for other in balls):
            return ball
    raise NotNumeric("cannot order the arguments of a Max/Min rigorously")


def to_arb(expr: sp.Expr) -> arb:
    """Evaluate a closed SymPy expression as an arb ball at the current precision."""
    expr = sp.sympify(expr)
    if expr.is_Rational:
        return _arb_rational(expr)
    if expr is sp.E:
        return arb(1).exp()
    if expr is sp.pi:
        return arb.pi()
    if expr.is_Float:
        return arb(Fraction(str(expr)).numerator) / arb(Fraction(str(expr)).denominator)
    if expr.is_Add:
        return sum((to_arb(a) for a in expr.args), arb(0))
    if expr.is_Mul:
        result = arb(1)
        for a in expr.args:
            result *= to_arb(a)
        return result
    if expr.is_Pow:
        return _pow(to_arb(expr.base), expr.exp)
    if isinstance(expr, (sp.Max, sp.Min)):
        return _extreme([to_arb(a) for a in expr.args], isinstance(expr, sp.Max))
    for func, apply in _FUNCTIONS.items():
        if isinstance(expr, func):
            return apply(to_arb(expr.args[0]))
    raise NotNumeric(f"cannot evaluate {expr} with certified arithmetic")


def _compare(lhs: sp.Expr, rhs: sp.Expr, want_greater: bool) -> bool | None:
    """True if certainly lhs > rhs (or < when want_greater is False); None if undecided."""
    old = ctx.prec
    try:
        for prec in _PRECISIONS:
            ctx.prec = prec
            diff = to_arb(lhs) - to_arb(rhs)
            if (diff > 0) if want_greater else (diff < 0):
                return True
            if (diff <= 0) if want_greater else (diff >= 0):
                return False
        return None
    except (NotNumeric, ZeroDivisionError, ValueError):
        return None
    finally:
        ctx.prec = old


def certainly_greater(lhs: sp.Expr, rhs: sp.Expr) -> bool | None:
    """Decide lhs > rhs rigorously: True, False, or None when arb cannot separate them."""
    return _compare(lhs, rhs, want_greater=True)


def certainly_less(lhs: sp.Expr, rhs: sp.Expr) -> bool | None:
    """Decide lhs < rhs rigorously: True, False, or None when arb cannot separate them."""
    return _compare(lhs, rhs, want_greater=False)


def arb_interval(expr: sp.Expr, prec: int = 128) -> tuple[float, float]:
    """A float interval [lo, hi] certified to contain the value of a closed expression."""
    old = ctx.prec
    try:
        ctx.prec = prec
        ball = to_arb(expr)
        lo, hi = ball.lower(), ball.upper()
        return float(lo), float(hi)
    finally:
        ctx.prec = old
