"""Certified numerics: the one evaluator of SymPy expressions as arb balls (python-flint).

An arb ball is a midpoint and a radius guaranteed to contain the true value, so a comparison
that arb answers with True is a proof of that comparison. :func:`to_ball` evaluates a closed
expression (or one whose symbols are bound to balls, i.e. intervals); :func:`compile_ball`
turns an expression into a function of balls, with the same rules, for branch and bound;
:func:`certainly_greater` and :func:`certainly_less` retry at increasing precision and return
None when the two sides cannot be separated.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from contextlib import contextmanager
from fractions import Fraction
from typing import Any

import sympy as sp
from flint import arb, ctx

from proofs.expr import rationalize

__all__ = [
    "PRECISION",
    "NotNumeric",
    "arb_interval",
    "as_fraction",
    "ball_of",
    "certainly_greater",
    "certainly_less",
    "compile_ball",
    "precision",
    "show_ball",
    "tight_ball",
    "to_ball",
]

PRECISION = 128
_PRECISIONS = (64, 128, 256, 1024)


class NotNumeric(ValueError):
    """The expression has unbound symbols or a function arb cannot evaluate."""


@contextmanager
def precision(bits: int | None = None):
    """Run arb arithmetic at `bits` of precision (default PRECISION), restoring the old one."""
    old = ctx.prec
    ctx.prec = PRECISION if bits is None else bits
    try:
        yield
    finally:
        ctx.prec = old


def _extreme(balls: list[arb], largest: bool) -> arb:
    """Max or min of balls, only when one of them certainly dominates the others."""
    for ball in balls:
        if all((ball >= other) if largest else (ball <= other) for other in balls):
            return ball
    raise NotNumeric("cannot order the arguments of a Max/Min rigorously")


def _monotone(fn: Callable[[arb], arb]) -> Callable[[arb], arb]:
    """`fn` of a ball as the union of `fn` at its two (exact) endpoints, for a monotone `fn`.
    arb's own error propagation for erfc is far too wide at large arguments (erfc of a ball
    around 7e5 of radius 6e-33 comes out as [+/- 3.6e-217147022368], its true value being
    2.9e-217147023811), which left delta(eps) of a Gaussian at eps = 1e6 undecided."""

    def apply(b: arb) -> arb:
        if b.rad() == 0 or not b.is_finite():
            return fn(b)
        return fn(b.lower()).union(fn(b.upper()))

    return apply


_FUNCTIONS: dict[type, Callable] = {
    sp.exp: arb.exp,
    sp.log: arb.log,
    sp.erf: _monotone(arb.erf),
    sp.erfc: _monotone(arb.erfc),
    sp.sin: arb.sin,
    sp.cos: arb.cos,
    sp.Abs: abs,
    sp.tanh: arb.tanh,
    sp.sinh: arb.sinh,
    sp.cosh: arb.cosh,
    sp.coth: arb.coth,
    sp.atanh: arb.atanh,
    sp.asinh: arb.asinh,
    sp.acosh: arb.acosh,
}


def _power(base: arb, exponent: sp.Expr, exponent_ball: Callable[[], arb]) -> arb:
    if exponent.is_Integer:
        n = int(exponent)
        return base**n if n >= 0 else 1 / base ** (-n)
    if exponent == sp.Rational(1, 2):
        return base.sqrt()
    if exponent == -sp.Rational(1, 2):
        return 1 / base.sqrt()
    return base ** exponent_ball()


def _rational(value: sp.Rational) -> arb:
    return arb(int(value.p)) / arb(int(value.q))


def to_ball(expr: Any, env: dict | None = None) -> arb:
    """Evaluate a SymPy expression as an arb ball at the current precision; `env` binds symbols
    to balls. Raises :class:`NotNumeric` for what arb cannot enclose."""
    e = sp.sympify(expr)
    if env and e in env:
        return env[e]
    if e.is_Float:
        e = rationalize(e)
    if e.is_Rational:
        return _rational(e)
    if e is sp.pi:
        return arb.pi()
    if e is sp.E:
        return arb(1).exp()
    if e.is_Add:
        return sum((to_ball(a, env) for a in e.args), arb(0))
    if e.is_Mul:
        out = arb(1)
        for a in e.args:
            out *= to_ball(a, env)
        return out
    if e.is_Pow:
        return _power(to_ball(e.base, env), e.exp, lambda: to_ball(e.exp, env))
    if isinstance(e, (sp.Max, sp.Min)):
        return _extreme([to_ball(a, env) for a in e.args], isinstance(e, sp.Max))
    for func, apply in _FUNCTIONS.items():
        if isinstance(e, func):
            return apply(to_ball(e.args[0], env))
    raise NotNumeric(f"cannot enclose {e} with arb")


def compile_ball(expr: Any, symbols: tuple, finite: bool = False) -> Callable[..., arb]:
    """A function of one ball per symbol enclosing `expr` over them, with the rules of
    :func:`to_ball`; much faster than re-walking the tree in a branch and bound. With
    ``finite``, it raises :class:`NotNumeric` unless every node's ball is finite (no pole, no
    logarithm of 0, no NaN anywhere over the balls)."""
    node = _compile(sp.sympify(expr), symbols, finite)
    return (lambda *b: _finite(node(*b))) if finite else node


def _finite(b: arb) -> arb:
    if not b.is_finite():
        raise NotNumeric("an enclosure is not finite over these balls")
    return b


def _compile(e: sp.Expr, symbols: tuple, finite: bool) -> Callable[..., arb]:
    if e in symbols:
        i = symbols.index(e)
        return lambda *b: b[i]
    if not e.free_symbols:
        return lambda *b: to_ball(e)

    def sub(a: sp.Expr) -> Callable[..., arb]:
        inner = _compile(a, symbols, finite)
        return (lambda *b: _finite(inner(*b))) if finite else inner

    if e.is_Add or e.is_Mul:
        parts = [sub(a) for a in e.args]
        if e.is_Add:
            return lambda *b: sum((p(*b) for p in parts), arb(0))

        def product(*b):
            out = arb(1)
            for p in parts:
                out *= p(*b)
            return out

        return product
    if e.is_Pow:
        base, power = sub(e.base), sub(e.exp)
        return lambda *b: _power(base(*b), e.exp, lambda: power(*b))
    for func, apply in _FUNCTIONS.items():
        if isinstance(e, func):
            inner = sub(e.args[0])
            return lambda *b, g=apply: g(inner(*b))
    raise NotNumeric(f"cannot enclose {e} with arb")


def _compare(
    lhs: Any, rhs: Any, want_greater: bool, precisions: tuple = _PRECISIONS
) -> bool | None:
    """True if certainly lhs > rhs (or < when want_greater is False); None if undecided."""
    try:
        for bits in precisions:
            with precision(bits):
                diff = to_ball(lhs) - to_ball(rhs)
                if (diff > 0) if want_greater else (diff < 0):
                    return True
                if (diff <= 0) if want_greater else (diff >= 0):
                    return False
        return None
    except (NotNumeric, ZeroDivisionError, ValueError, OverflowError):
        return None


def certainly_greater(lhs: Any, rhs: Any, precisions: tuple = _PRECISIONS) -> bool | None:
    """Decide lhs > rhs rigorously: True, False, or None when arb cannot separate them at
    any of ``precisions`` (bits)."""
    return _compare(lhs, rhs, want_greater=True, precisions=precisions)


def certainly_less(lhs: Any, rhs: Any) -> bool | None:
    """Decide lhs < rhs rigorously: True, False, or None when arb cannot separate them."""
    return _compare(lhs, rhs, want_greater=False)


def arb_interval(expr: Any, bits: int = PRECISION) -> tuple[float, float]:
    """A float interval [lo, hi] certified to contain the value of a closed expression."""
    with precision(bits):
        ball = to_ball(expr)
        return float(ball.lower()), float(ball.upper())


def ball_of(lo: Fraction, hi: Fraction | None = None) -> arb:
    """An arb ball containing the exact interval [lo, hi] (or the point lo)."""
    a = arb(lo.numerator) / arb(lo.denominator)
    if hi is None or hi == lo:
        return a
    return a.union(arb(hi.numerator) / arb(hi.denominator))


def tight_ball(expr: Any, ball: arb) -> arb:
    """An enclosure of the closed ``expr`` at least as narrow as ``ball``, to about ten
    digits where arb's precisions reach them: a small difference of near values (a delta of
    5e-301) is a ball around 0 at the default precision, a figure no reader can check."""
    for bits in _PRECISIONS:
        try:
            with precision(bits):
                b = to_ball(expr)
        except (NotNumeric, ZeroDivisionError, ValueError, OverflowError):
            break
        if b.rad() < ball.rad():
            ball = b
        if ball.rel_accuracy_bits() >= 34:
            break
    return ball


def show_ball(b: arb) -> str:
    return f"[{_show_end(b.lower())}, {_show_end(b.upper())}]"


def _show_end(x: arb) -> str:
    """An exact endpoint to 10 digits; arb's own notation beyond a double's range (a delta
    of 1e-138807 is not 0)."""
    f = float(x)
    if (f == 0 and x != 0) or (math.isinf(f) and x.is_finite()):
        return x.str(10, radius=False)
    return f"{f:.10g}"


def as_fraction(v: Any, rounding: str = "down") -> Fraction:
    """`v` as an exact Fraction; an irrational value is rounded outward ('down' or 'up') to a
    rational certified by arb to lie below (above) it, so a region never shrinks."""
    if isinstance(v, (int, Fraction)):
        return Fraction(v)
    v = rationalize(sp.sympify(v))
    if v.is_Rational:
        return Fraction(int(v.p), int(v.q))
    with precision(256):
        ball = to_ball(v)
        end = ball.lower() if rounding == "down" else ball.upper()
    f = Fraction(end.str(50, radius=False))
    step = abs(f) * Fraction(1, 10**40) + Fraction(1, 10**60)  # covers the decimal rounding
    return f - step if rounding == "down" else f + step
