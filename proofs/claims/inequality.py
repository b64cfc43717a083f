"""A for-all inequality: one step of a proof, checked on its own."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import sympy as sp

from proofs.claims.base import Claim
from proofs.errors import InputError
from proofs.expr import as_expr, by_name, symbols_of

__all__ = ["Inequality"]


def _real(expr: Any) -> Any:
    """Symbols not known to be real are taken as real: inequalities order real numbers. A sign
    they carry stays (``extended_positive=True``, ``positive=False``): it is assumed of the
    real value, as of +oo (dropped, it made 0 <= x "refuted" at x = -1)."""
    swap = {s: _real_symbol(s) for s in expr.free_symbols if s.is_real is None}
    return expr.xreplace(swap) if swap else expr


_SIGNS = ("positive", "nonnegative", "negative", "nonpositive", "nonzero")


def _real_symbol(s: sp.Symbol) -> sp.Symbol:
    signs = {f: getattr(s, f"is_extended_{f}") for f in _SIGNS} | {"zero": s.is_zero}
    for f in signs:  # (positive=False: no positive real, so a real one is at most 0)
        if getattr(s, f"is_{f}") is False:
            signs[f] = False if signs[f] is None else signs[f]
    return sp.Symbol(s.name, real=True, **{f: v for f, v in signs.items() if v is not None})


@dataclass(frozen=True, slots=True)
class Inequality(Claim):
    """Claim: ``lhs <= rhs`` for every value of their symbols that meets the symbols'
    assumptions (positive, integer, ...) and every constraint of ``domain`` (SymPy relations).

    A step of a proof stated on its own, e.g. the bound on one coordinate of the Laplace
    mechanism's ratio, exp(-eps/Delta (|a - y| - |b - y|)) <= exp(eps/Delta |a - b|) (notes 000,
    "Laplace mechanism is DP"). Text is read by :func:`proofs.parse` (a name without an
    assumption is a positive symbol there); a symbol with no assumption is taken as real, and
    one name means one quantity in both sides and the domain (the first occurrence, lhs
    first, gives its assumptions). Decided by exact algebra and z3 (exponentials compared by
    their exponents, as exp is increasing); a counterexample is a point of the domain
    re-checked exactly or with arb balls.

    The claim is about the points where it is defined: both sides, and every term in
    `guards`. Text fills `guards` with each quotient (as 1/b), root, logarithm and power it
    wrote (:func:`proofs.expr.parse`), since SymPy folds ``(x - 1)/(x - 1)`` to 1 while
    reading it; terms given here are added to those, and their symbols are quantified over
    like the sides' (so ``(x - 1)/(x - 1) <= 1`` is about every x > 0 but 1)."""

    lhs: Any
    rhs: Any
    domain: tuple = ()
    guards: tuple = ()

    def __post_init__(self):
        written: list = []
        lhs = _real(as_expr(self.lhs, "lhs", guards=written))
        rhs = _real(as_expr(self.rhs, "rhs", symbols=symbols_of(lhs), guards=written))
        given = self.guards if isinstance(self.guards, (tuple, list)) else (self.guards,)
        written = [_real(g) for g in written]
        written += [_real(as_expr(g, "guards", symbols=symbols_of(lhs))) for g in given]
        for side in (lhs, rhs, *written):  # (which one would win is up to set order: refuse)
            names = [s.name for s in side.free_symbols]
            if len(names) != len(set(names)):
                raise InputError(
                    "one name is used for symbols with different assumptions; give each "
                    "quantity one symbol."
                )
        table = symbols_of(lhs, rhs, *written)
        rhs = by_name(rhs, table)
        guards = tuple(dict.fromkeys(by_name(g, table) for g in written if g.free_symbols))
        domain = self.domain if isinstance(self.domain, (tuple, list)) else (self.domain,)
        rels = []
        for c in domain:
            c = sp.sympify(c) if not isinstance(c, str) else c
            if not isinstance(c, (sp.core.relational.Relational, sp.logic.boolalg.Boolean)):
                raise InputError(
                    f"domain entry {c!r} must be a SymPy relation such as b > 0 (use "
                    "sympy.Symbol('b', positive=True) > 0, not text)."
                )
            c = by_name(_real(c), table)
            if c is sp.false:
                raise InputError(
                    f"domain entry {c} is false for the given numbers; every claim over it "
                    "would hold vacuously. Give satisfiable constraints."
                )
            rels.append(c)
        every = set().union(lhs.free_symbols, rhs.free_symbols, *(g.free_symbols for g in guards))
        every |= set().union(*(c.free_symbols for c in rels))
        if any(s.is_real is False for s in every):
            raise InputError(
                f"symbols {sorted(str(s) for s in every if s.is_real is False)} are not real; "
                "an inequality orders real numbers."
            )
        object.__setattr__(self, "lhs", lhs)
        object.__setattr__(self, "rhs", rhs)
        object.__setattr__(self, "domain", tuple(c for c in rels if c is not sp.true))
        object.__setattr__(self, "guards", guards)

    def statement(self) -> str:
        where = f" where {', '.join(str(c) for c in self.domain)}" if self.domain else ""
        return f"{self.lhs} <= {self.rhs} for every value of its symbols{where}"
