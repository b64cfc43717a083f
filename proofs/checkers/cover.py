"""A certified cover of one real variable: f(x) >= 0 for every x of a bounded interval.

Branch and bound with arb balls (:mod:`proofs.numeric`). A box is done when an enclosure of f
over it is certainly >= 0: the natural one, or the mean-value form f(m) + f'(B)(B - m) where
f is smooth. A bound tight at an end of its interval (e^eps - 1 <= 2 eps on (0, 1) is an
equality at 0) never closes that way, since every enclosure of a box touching the end reaches
below 0. There Taylor's theorem closes it: at a left end a, if f(a), f'(a), ..., f^(k-1)(a)
are >= 0 (decided exactly or by arb) and f^(k) >= 0 on the box
[a, c], then each of f^(k-1), ..., f is increasing from a value >= 0, so f >= 0 on [a, c]; at
a right end b the same with (-1)^j f^(j) in place of f^(j). Points inside where the bound is
tight at a short rational (cosh x >= 1 + x^2/2 at 0) are made ends of two intervals. The
whole search, ends included, has a time limit (``SECONDS``) and a box budget.

Soundness rests on four things, each checked rather than assumed:
- the interval contains the claim's domain: only linear constraints with closed real
  coefficients are read, an irrational end rounded outward (:func:`proofs.numeric.as_fraction`);
  any other constraint is dropped, which widens the interval;
- an enclosure is a proof only where arb certifies it (a ball with NaN or an infinite end is
  never >= 0), and each side of the claim is a finite ball at every node on every box (SymPy
  cancels a term on both sides, so f alone can be defined where a side is not);
- derivatives are used only for expressions built from functions that are smooth wherever
  their arb value and every derivative's are finite (no Abs, Max, Min, Piecewise, sign), and
  only on a box where every node of f, ..., f^(k) is a finite ball, so f is k times
  differentiable there and SymPy's derivative is its derivative;
- a value at an end counts as >= 0 only when decided exactly or by arb.
"""

from __future__ import annotations

import itertools
import time
import warnings
from dataclasses import dataclass
from fractions import Fraction

import sympy as sp
from flint import arb

from proofs.decide import closed_compare, show
from proofs.expr import rationalize
from proofs.numeric import (
    NotNumeric,
    as_fraction,
    ball_of,
    certainly_greater,
    certainly_less,
    compile_ball,
    precision,
)

__all__ = ["Cover", "cover", "interval_of"]

MAX_BOXES = 4000
MAX_ORDER = 8  # derivatives tried at a tight end (sin x <= x - x^3/6 + x^5/120 needs 7)
SECONDS = 10.0
_SIMPLIFY_OPS = 80  # the largest value at an end that exact algebra is asked to decide

# functions smooth at every point where they and their derivatives are finite
_SMOOTH = (
    sp.exp,
    sp.log,
    sp.erf,
    sp.erfc,
    sp.sin,
    sp.cos,
    sp.tanh,
    sp.sinh,
    sp.cosh,
    sp.coth,
    sp.atanh,
    sp.asinh,
    sp.acosh,
)


@dataclass(frozen=True, slots=True)
class Cover:
    """The outcome: ``ok`` when every box closed; else ``unknown`` with the reason."""

    ok: bool
    boxes: int
    detail: str


def _linear_bound(c, x: sp.Symbol) -> tuple[str, Fraction] | None:
    """A relation linear in x with closed real coefficients as ("lo" | "hi", value), an
    irrational end rounded outward to a rational; None for anything else (the caller drops it:
    a wider interval)."""
    if not isinstance(c, (sp.StrictLessThan, sp.LessThan, sp.StrictGreaterThan, sp.GreaterThan)):
        return None
    d = sp.expand(c.lhs - c.rhs)  # d < 0, d <= 0, d > 0 or d >= 0
    try:
        poly = sp.Poly(d, x)
    except sp.PolynomialError:
        return None
    if poly.degree() != 1 or any(k.free_symbols for k in poly.all_coeffs()):
        return None
    slope, cut = poly.all_coeffs()
    rising = certainly_greater(slope, 0)
    if not rising and not certainly_less(slope, 0):
        return None
    below = isinstance(c, (sp.StrictLessThan, sp.LessThan))  # d below 0
    # slope * (x - root) below 0 means x below root when the slope is positive
    side = "hi" if below == bool(rising) else "lo"
    try:
        return side, as_fraction(-cut / slope, "up" if side == "hi" else "down")
    except (NotNumeric, ValueError, ZeroDivisionError, OverflowError):
        return None


def interval_of(x: sp.Symbol, domain) -> tuple[Fraction, Fraction] | None:
    """Finite rational ends [a, b] of an interval containing every x that meets ``domain``
    and x's sign, or None when no such finite interval is read."""
    lo = Fraction(0) if x.is_nonnegative else None
    hi = Fraction(0) if x.is_nonpositive else None
    for c in domain:
        got = _linear_bound(c, x) if c.free_symbols == {x} else None
        if got is None:
            continue
        side, value = got
        if side == "lo":
            lo = value if lo is None else max(lo, value)
        else:
            hi = value if hi is None else min(hi, value)
    if lo is None or hi is None or not lo < hi:
        return None
    return lo, hi


def _smooth(f: sp.Expr) -> bool:
    """Built only from sums, products, powers and functions smooth wherever they and their
    derivatives are finite."""
    return all(
        isinstance(node, (sp.Symbol, sp.Number, sp.NumberSymbol, sp.Add, sp.Mul, sp.Pow, _SMOOTH))
        for node in sp.preorder_traversal(f)
    )


@dataclass(slots=True)
class _Problem:
    natural: object  # ball -> ball enclosing f over the box
    derivs: _Derivatives | None  # derivs[j]: ball -> ball enclosing f^(j), every node finite
    tight: dict  # (end, side) -> k: side^j f^(j)(end) >= 0 for every j < k
    defined: list  # ball -> ball of each side, raising NotNumeric unless every node is finite


class _Derivatives:
    """f, f', ..., f^(MAX_ORDER) compiled to arb functions (every node finite) when first
    asked for: most boxes close by an enclosure, and compiling the high derivatives of a
    nested composition cost seconds. Raises NotNumeric for one arb cannot enclose."""

    def __init__(self, f: sp.Expr, x: sp.Symbol) -> None:
        self.x, self.exprs, self.compiled = x, [f], {}

    def __getitem__(self, j: int):
        if j not in self.compiled:
            while len(self.exprs) <= j:
                self.exprs.append(sp.diff(self.exprs[-1], self.x))
            try:
                self.compiled[j] = compile_ball(self.exprs[j], (self.x,), finite=True)
            except NotNumeric as exc:
                self.compiled[j] = exc  # (kept: not compiled again on every box)
        if isinstance(self.compiled[j], NotNumeric):
            raise self.compiled[j]
        return self.compiled[j]


def _nonnegative(value: sp.Expr) -> bool:
    """0 <= value, certainly: exactly for a rational, else by arb, else (a value arb cannot
    separate from 0) by exact algebra, only on small expressions: SymPy's simplification of
    a high derivative took minutes."""
    try:
        if sp.count_ops(value) > _SIMPLIFY_OPS:
            value = rationalize(value)
            return bool(value.is_Rational and value >= 0) or certainly_less(value, 0) is False
        return closed_compare(sp.Integer(0), value).status in ("proved", "certified")
    except (TypeError, ValueError, ArithmeticError, RecursionError):
        return False


def _end_orders(f: sp.Expr, x: sp.Symbol, end: Fraction, side: int, until: float) -> int:
    """The largest k <= MAX_ORDER with side^j f^(j)(end) >= 0 for every j < k (side is 1 at a
    box's left end, -1 at its right end); what is not decided by ``until`` counts as not."""
    k, g, at = 0, f, {x: sp.Rational(end)}
    while k < MAX_ORDER and time.monotonic() < until:
        if not _nonnegative(side**k * g.xreplace(at)):
            break
        k, g = k + 1, sp.diff(g, x)
    return k


_FAILS = (NotNumeric, ZeroDivisionError, ValueError, OverflowError)


def _closes(p: _Problem, a: Fraction, b: Fraction) -> bool:
    """Is f >= 0 on [a, b], certainly: by an enclosure, or by Taylor's theorem at a tight end?"""
    box = ball_of(a, b)
    try:
        for side in p.defined:
            side(box)
    except _FAILS:
        return False
    try:
        if p.natural(box) >= 0:
            return True
    except _FAILS:
        pass
    if p.derivs is None:
        return False
    try:  # the mean-value form, where f is differentiable on the box
        mid = ball_of((a + b) / 2)
        if _differentiable(p, box, 1) and p.natural(mid) + p.derivs[1](box) * (box - mid) >= 0:
            return True
    except _FAILS:
        pass
    for end, side in ((a, 1), (b, -1)):
        for k in range(1, p.tight.get((end, side), 0) + 1):
            try:
                if _differentiable(p, box, k) and side**k * p.derivs[k](box) >= 0:
                    return True
            except _FAILS:
                break
    return False


def _differentiable(p: _Problem, box: arb, k: int) -> bool:
    """f is k times differentiable on the box, with SymPy's derivatives as its own: every node
    of f, f', ..., f^(k) is a finite ball there (raises NotNumeric otherwise)."""
    for j in range(k + 1):
        p.derivs[j](box)
    return True


def _splits(f: sp.Expr, x: sp.Symbol, a: Fraction, b: Fraction, until: float) -> list[Fraction]:
    """Short rationals inside (a, b) near a local minimum of f found at 0 in floating point
    (a bound tight inside), where f >= 0 is decided: each becomes an end (any split is sound;
    these are the ones Taylor's theorem can close)."""
    import numpy as np

    try:
        g = sp.lambdify(x, f, "numpy")
        grid = np.linspace(float(a), float(b), 2001)
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (a complex value: NumPy's ComplexWarning)
            v = np.broadcast_to(np.asarray(g(grid), dtype=float), grid.shape)
    except Exception:  # (a function NumPy lacks, ends past a double: no split points)
        return []
    inside = (v[1:-1] <= v[:-2]) & (v[1:-1] <= v[2:]) & (np.abs(v[1:-1]) < 1e-9)
    out: list[Fraction] = []
    for i in np.flatnonzero(inside)[:8] + 1:
        c = Fraction(float(grid[i])).limit_denominator(1000)
        if a < c < b and c not in out and time.monotonic() < until:
            if _nonnegative(f.xreplace({x: sp.Rational(c)})):
                out.append(c)
    return sorted(out)


def cover(f: sp.Expr, x: sp.Symbol, a: Fraction, b: Fraction, parts: tuple = ()) -> Cover:
    """Is f(x) >= 0 for every x in [a, b], certainly? Each of ``parts`` (the sides f was made
    from) must also be a finite real number at every x: SymPy cancels what appears on both
    sides, so f alone can be defined where a side is not (log(x - 5) on [-2, 2])."""
    start = time.monotonic()
    until = start + SECONDS
    try:
        natural = compile_ball(f, (x,))
        defined = [compile_ball(e, (x,), finite=True) for e in parts]
    except NotNumeric as exc:
        return Cover(False, 0, f"arb cannot enclose it ({exc})")
    derivs = _Derivatives(f, x) if _smooth(f) else None
    ends = [a, *_splits(f, x, a, b, until), b]
    tight = {}
    if derivs is not None:
        for end in ends:
            for side in (1, -1):
                k = _end_orders(f, x, end, side, until)
                if k:
                    tight[(end, side)] = k
    p = _Problem(natural, derivs, tight, defined)
    stack = list(itertools.pairwise(ends))[::-1]
    boxes = 0
    with precision(128):
        while stack:
            lo, hi = stack.pop()
            boxes += 1
            if boxes > MAX_BOXES or time.monotonic() > until:
                return Cover(False, boxes, f"the cover did not close near {show(sp.Rational(lo))}")
            if not _closes(p, lo, hi):
                mid = (lo + hi) / 2
                stack += [(mid, hi), (lo, mid)]
    return Cover(True, boxes, f"{boxes} boxes")
