"""Is one description an instance of another? (A theorem about ``Laplace(Delta/eps, Delta)``
covers ``Laplace(10, 1)``: Delta = 1, eps = 1/10.)

:func:`instance_of` matches the fields of two descriptions of the same type: a field that is a
bare symbol in the general description binds to the specific value, other fields are solved for
their one remaining symbol, and every field must then agree exactly (SymPy algebra, never floats).
Bound values must respect the symbols' assumptions (positive, integer, ...).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import sympy as sp

from proofs.decide import is_zero, known

__all__ = ["instance_of"]


def instance_of(general: Any, specific: Any) -> dict | None:
    """The binding {symbol: value} that turns `general` into `specific`, or None when
    `specific` is not an instance of `general` (other type, other fixed fields, no solution)."""
    if type(general) is not type(specific) or not dataclasses.is_dataclass(general):
        return None
    binding: dict = {}
    pending = []
    for f in dataclasses.fields(general):
        g, s = getattr(general, f.name), getattr(specific, f.name)
        if _descriptions(g, s):  # the parts of a composition, matched in order
            for part_g, part_s in zip(g, s):
                part = instance_of(part_g, part_s)
                if part is None or any(binding.get(k, v) != v for k, v in part.items()):
                    return None
                binding.update(part)
        elif isinstance(g, sp.Basic) and isinstance(s, sp.Basic):
            if isinstance(g, sp.Symbol) and g not in binding:
                binding[g] = s
            else:
                pending.append((g, s))
        elif g != s:
            return None
    for g, s in pending:
        if not _resolve(g, s, binding):
            return None
    if not all(_respects(sym, value) for sym, value in binding.items()):
        return None
    return binding


def _descriptions(g: Any, s: Any) -> bool:
    return (
        isinstance(g, tuple)
        and isinstance(s, tuple)
        and len(g) == len(s) > 0
        and all(dataclasses.is_dataclass(x) for x in (*g, *s))
    )


def _resolve(g: sp.Expr, s: sp.Expr, binding: dict) -> bool:
    g = g.subs(binding)
    free = g.free_symbols - s.free_symbols
    if len(free) == 1:
        (sym,) = free
        try:
            solutions = [v for v in sp.solve(sp.Eq(g, s), sym) if _respects(sym, v)]
        except (NotImplementedError, TypeError, ValueError):
            return False
        if len(solutions) != 1:
            return False
        binding[sym] = solutions[0]
        g = g.subs(sym, solutions[0])
    return not (g.free_symbols - s.free_symbols) and is_zero(g - s)


def _respects(sym: sp.Symbol, value: sp.Expr) -> bool:
    """Does `value` satisfy the assumptions of `sym`? (Unknown counts as no.)"""
    value = sp.sympify(value)
    checks = {
        "positive": known(value, "positive"),
        "nonnegative": known(value, "nonnegative"),
        "integer": value.is_integer,
        "real": value.is_real,
    }
    return all(checks[name] is True for name in checks if sym.assumptions0.get(name))
