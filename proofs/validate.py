"""Validation at the public boundary: numbers a claim needs, with one-line errors that name the
value, the constraint and the fix. Signs are decided exactly (rational arithmetic or arb), so a
value such as 1 - e^-800 is not mistaken for 1."""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

import sympy as sp

from proofs.decide import truth_at
from proofs.errors import InputError
from proofs.expr import as_expr
from proofs.numeric import NotNumeric, to_ball
from proofs.smt import prove_forall

__all__ = [
    "MAX_COMPOSITIONS",
    "MAX_GROUP",
    "check_delta",
    "check_description",
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
    from proofs.decide import closed_sign

    if value.is_Rational and bound.is_Rational:
        return value < bound if strict else value <= bound
    # by arb (SymPy's own value < bound is a two-digit guess: -9e-36 passed as positive)
    sign = closed_sign(bound - value)
    if sign is not None:
        return sign > 0 if strict else sign >= 0
    try:
        to_ball(bound - value)
    except (NotNumeric, ArithmeticError, ValueError, TypeError):
        # a function arb does not know (erfinv): SymPy's relation, as before
        try:
            return bool(value < bound) if strict else bool(value <= bound)
        except TypeError:  # (SymPy could not tell either)
            return False
    return False


def _maybe_real(value: sp.Expr) -> bool:
    try:
        return value.is_real is not False
    except (ArithmeticError, ValueError, TypeError):  # (SymPy's evalf of 1/log(1 + 10^-12))
        return True  # the range check decides


def check_in_range(value: sp.Expr, name: str, lo, hi, lo_open=True, hi_open=True, fix="") -> None:
    """If `value` is a number, check lo <(=) value <(=) hi; symbols pass (a description's
    domain() constrains them)."""
    if value.free_symbols:
        return
    ok = (
        _maybe_real(value)
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


def real_value(value: Any, name: str) -> sp.Expr:
    """A numeric value of any sign, as an exact SymPy number."""
    return _number(value, name, f"give e.g. {name}=1")


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


def _one_symbol_per_name(mech: Any, fields: dict) -> None:
    """One name, one parameter: two fields given symbols of the same name with different
    assumptions (scale b positive, sensitivity b a positive integer) are refused, since SymPy
    holds them apart and a claim would be decided about two quantities the user wrote as one."""
    seen: dict[str, tuple[str, sp.Symbol]] = {}
    for name in fields:
        value = getattr(mech, name, None)
        if not isinstance(value, sp.Basic):
            continue
        for s in sorted(value.free_symbols, key=str):
            first = seen.setdefault(s.name, (name, s))
            if first[1] != s:
                where = name if first[0] == name else f"{name} and {first[0]}"
                raise InputError(
                    f"{where} use two different symbols named {s.name!r} (with different "
                    "assumptions); create the symbol once and use it throughout."
                )


def check_description(mech: Any) -> None:
    """A mechanism description's own checks (``validate``), then two that hold for every one:

    - a field whose default symbol is an integer (a count of bins, hashes, values, reports) is
      given as an integer when it is a number: ``bins=1/2`` or a formula equal to 2 is refused;
    - every constraint of ``domain()`` that the numbers close holds, decided exactly. A number
      out of the domain would otherwise make every proof over it vacuous, and one whose
      constraint cannot be decided (``h = 4(atan(1/2) + atan(1/3))/pi``, which is 1) could not
      be trusted either way.
    """
    fields = getattr(mech, "__dataclass_fields__", {})
    _one_symbol_per_name(mech, fields)
    for name, f in fields.items():
        default, value = f.default, getattr(mech, name, None)
        if (
            isinstance(default, sp.Symbol)
            and default.is_integer
            and isinstance(value, sp.Expr)
            and not value.free_symbols
            and not value.is_Integer
        ):
            raise InputError(f"{name}={value} must be an integer; give e.g. {name}=2.")
        if (
            isinstance(default, sp.Symbol)
            and default.is_integer
            and isinstance(value, sp.Expr)
            and value.free_symbols
            and value.is_integer is not True
        ):
            # a proof (and an attained point) over non-integer values would be about another
            # mechanism: TwoSidedGeometric(b, D) with D = 3/2 attains 1/b, not D/b
            raise InputError(
                f"{name}={value} must be an integer for every value of its symbols; use "
                f"an integer symbol, e.g. sp.Symbol({str(default)!r}, integer=True, "
                "positive=True)."
            )
    if hasattr(mech, "validate"):
        mech.validate()
    if not hasattr(mech, "domain"):
        return
    symbolic = []
    for i, c in enumerate(domain_of(mech)):
        if c.free_symbols:
            symbolic.append(c)
            continue
        truth = truth_at(c, {})
        if truth is not True:
            what = "breaks" if truth is False else "cannot be decided to satisfy"
            raise InputError(
                f"{type(mech).__name__}: {_constraint(mech, i, c, what)}; give exact numbers "
                "in the mechanism's domain."
            )
    check_satisfiable(symbolic, type(mech).__name__)


def domain_of(mech: Any) -> list:
    """The mechanism's constraints, a closed one as written: SymPy decides a closed relation
    such as c > 0 as it builds it, by a two-digit guess (e^-40 - log(1 + e^-40) - e^-80 > 0
    was true to it), or fails (1/log(1 + 10^-12) > 0 divided by 0)."""
    with sp.evaluate(False):
        written = [sp.sympify(c) for c in mech.domain()]
    try:
        built = [sp.sympify(c) for c in mech.domain()]
    except (ArithmeticError, ValueError, TypeError):
        return written
    return [w if isinstance(b, sp.logic.boolalg.BooleanAtom) else b for b, w in zip(built, written)]


def check_satisfiable(constraints, what: str) -> None:
    """Refuse constraints (with their symbols' assumptions) that no value satisfies: every
    claim over them would hold vacuously. Decided by z3 proving ``1 <= 0`` under them."""
    if not constraints:
        return
    if _empty(tuple(constraints)):
        shown = ", ".join(str(c) for c in constraints)
        raise InputError(
            f"{what}: no parameter value satisfies its constraints ({shown}); every claim over "
            "them would hold vacuously. Give satisfiable assumptions."
        )


def _constraint(mech: Any, i: int, c: sp.Expr, what: str) -> str:
    """Constraint i of the domain in words: the values given and the constraint written in the
    fields' names (the closed constraint itself may already read False)."""
    fields = getattr(mech, "__dataclass_fields__", {})
    names = [n for n, f in fields.items() if isinstance(f.default, sp.Symbol)]
    try:  # the same description with a plain symbol for each parameter
        generic = sp.sympify(
            dataclasses.replace(mech, **{n: sp.Symbol(n) for n in names}).domain()[i]
        )
    except Exception:  # a description that cannot be rebuilt with symbols
        generic = sp.true
    used = [n for n in names if sp.Symbol(n) in generic.free_symbols]
    if not used:
        verb = "does not hold" if what == "breaks" else "cannot be decided"
        return f"its parameter constraint {c} {verb}"
    return f"{', '.join(f'{n}={getattr(mech, n)}' for n in used)} {what} {generic}"


@functools.lru_cache(maxsize=512)
def _empty(constraints: tuple) -> bool:
    """z3 proves ``1 <= 0`` under the constraints (descriptions share a few domains: cached),
    over the reals or with integer symbols as integers (1 < k < 2 holds no integer k)."""
    return any(
        prove_forall(
            sp.Integer(1), sp.Integer(0), list(constraints), timeout_ms=3_000, integers=ints
        ).status
        == "proved"
        for ints in (False, True)
    )


def allowed(symbol: Any, value: Any) -> bool:
    """Does ``value`` certainly meet every assumption of ``symbol`` (integer, even, prime,
    positive, ...)? A counterexample at a value outside them is about another claim: k = 3
    for an even k, p = 1 for a prime p."""
    if not isinstance(symbol, sp.Symbol):
        return True
    v = sp.sympify(value)
    return all(
        getattr(v, f"is_{key}", None) is want
        for key, want in symbol.assumptions0.items()
        if key != "commutative"
    )
