"""Validation at the public boundary: numbers a claim needs, with one-line errors that name the
value, the constraint and the fix. Signs are decided exactly (rational arithmetic or arb), so a
value such as 1 - e^-800 is not mistaken for 1."""

from __future__ import annotations

from typing import Any

import sympy as sp

from proofs.errors import InputError
from proofs.expr import as_expr
from proofs.numeric import certainly_greater, certainly_less

__all__ = [
    "MAX_COMPOSITIONS",
    "MAX_GROUP",
    "check_delta",
    "check_eps_value",
    "check_epsilon",
    "check_in_range",
    "check_k",
    "check_positive",
    "group_size",
    "positive_number",
]

MAX_COMPOSITIONS = 10**5
MAX_GROUP = 1000


def _below(value: sp.Expr, bound, strict: bool) -> bool:
    """value < bound (strict) or value <= bound, decided exactly; undecidable counts as no."""
    if value.is_Rational:
        return value < bound if strict else value <= bound
    if strict:
        return certainly_less(value, bound) is True
    return certainly_greater(value, bound) is False


def check_in_range(value: sp.Expr, name: str, lo, hi, lo_open=True, hi_open=True, fix="") -> None:
    """If `value` is a number, check lo <(=) value <(=) hi; symbols pass (a description's
    domain() constrains them)."""
    if value.free_symbols:
        return
    ok = (
        value.is_real is not False
        and (lo is None or _below(sp.sympify(lo), value, lo_open))
        and (hi is None or _below(value, sp.sympify(hi), hi_open))
    )
    if not ok:
        left, right = "(" if lo_open else "[", ")" if hi_open else "]"
        span = f"{left}{'-inf' if lo is None else lo}, {'inf' if hi is None else hi}{right}"
        raise InputError(f"{name}={value} must be in {span}; {fix}".rstrip("; "))


def check_positive(value: sp.Expr, name: str, fix: str = "") -> None:
    check_in_range(value, name, 0, None, fix=fix or f"give a positive {name}")


def check_epsilon(value: sp.Expr, name: str = "epsilon") -> None:
    """Reject a negative numeric epsilon."""
    check_in_range(
        value,
        name,
        0,
        None,
        lo_open=False,
        fix="privacy parameters are non-negative; use e.g. --epsilon 1",
    )


def _number(value: Any, name: str, fix: str) -> sp.Expr:
    e = as_expr(value, name)
    if e.free_symbols or e.is_real is False:
        raise InputError(f"{name}={value!r} must be a number; {fix}.")
    return e


def check_delta(delta: Any, name: str = "delta") -> sp.Expr:
    """A numeric delta in [0, 1), as an exact SymPy number."""
    d = _number(delta, name, f"use {name}=0 for pure DP")
    if not (_below(sp.Integer(0), d, False) and _below(d, sp.Integer(1), True)):
        raise InputError(f"{name}={delta!r} must be a number in [0, 1); use {name}=0 for pure DP.")
    return d


def check_eps_value(eps: Any, name: str = "epsilon") -> sp.Expr:
    """A numeric epsilon >= 0, as an exact SymPy number."""
    e = _number(eps, name, f"e.g. {name}=1")
    if not _below(sp.Integer(0), e, False):
        raise InputError(f"{name}={eps!r} must be a non-negative number; e.g. {name}=1.")
    return e


def positive_number(value: Any, name: str) -> sp.Expr:
    """A numeric value > 0, as an exact SymPy number."""
    v = _number(value, name, f"give e.g. {name}=1")
    if not _below(sp.Integer(0), v, True):
        raise InputError(f"{name}={value!r} must be a positive number; give e.g. {name}=1.")
    return v


def _integer(value: Any, name: str) -> int | None:
    v = None if isinstance(value, bool) else as_expr(value, name)
    return int(v) if v is not None and v.is_Integer else None


def _count(k: Any, limit: int, what: str) -> int:
    value = _integer(k, "k")
    if value is None or not 1 <= value <= limit:
        raise InputError(f"k={k!r} must be an integer in [1, {limit}] ({what}).")
    return value


def check_k(k: Any) -> int:
    """The number of mechanisms composed: an integer in [1, MAX_COMPOSITIONS]."""
    return _count(k, MAX_COMPOSITIONS, "the number of mechanisms composed")


def group_size(k: Any) -> int:
    """A numeric group size: an integer in [1, MAX_GROUP]."""
    return _count(k, MAX_GROUP, "the group size; or leave k=None for every k")
