"""Deciding inequalities: the one place where "is a <= b?" is answered.

- :func:`closed_compare` decides a <= b for closed expressions: exact rational arithmetic when
  both sides are rational, SymPy when they are identical, python-flint arb balls otherwise;
- :func:`discharge` proves a <= b for every value satisfying the constraints (and the symbols'
  assumptions): exact algebra when the sides are identical, z3 over the reals otherwise
  (see :mod:`proofs._smt`), returning a candidate model when z3 finds one;
- :func:`truth_at` evaluates a constraint at exact values (True, False or undecidable), and
  :func:`holds_at` asks whether it certainly holds.

Outcomes are ``proved`` (for all values, or exactly at closed values), ``certified`` (closed
values, by arb), ``violated`` (closed values, certainly; or a z3 model, to be re-checked by the
caller) and ``unknown``.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import sympy as sp
from sympy.functions.elementary.hyperbolic import HyperbolicFunction

from proofs.errors import Undecided
from proofs.expr import rationalize
from proofs.numeric import NotNumeric, certainly_greater, certainly_less, precision, to_ball
from proofs.smt import prove_forall

__all__ = [
    "Outcome",
    "algebraically_equal",
    "at",
    "closed_compare",
    "closed_sign",
    "compare",
    "differ",
    "differs_somewhere",
    "discharge",
    "free_symbols",
    "greater",
    "holds_at",
    "hyperbolic_to_exp",
    "is_zero",
    "known",
    "long_numbers",
    "long_rationals",
    "show",
    "simplifies_to_zero",
    "too_long",
    "trustworthy",
    "truth_at",
    "undecided_gives",
]


def free_symbols(expr_list) -> set:
    out: set = set()
    for e in expr_list:
        out |= sp.sympify(e).free_symbols
    return out


def holds_at(relation, values: dict) -> bool:
    """Does a constraint certainly hold at exact values? (Undecidable counts as no: use this
    to skip a point, never to conclude that a constraint fails.)"""
    return truth_at(relation, values) is True


def truth_at(relation, values: dict) -> bool | None:
    """A constraint at exact values: True, False, or None when it cannot be decided (a free
    symbol left, or a difference arb cannot separate from 0 that SymPy cannot show is 0).
    SymPy's own verdict on a relation between closed numbers is never taken: it comes from a
    two-digit evaluation, and log(1 + 10^-12) > 0 was False to it."""
    try:
        rel = sp.sympify(relation)
    except (TypeError, AttributeError, ValueError, sp.SympifyError):
        return None
    if rel in (sp.true, True):
        return True
    if rel in (sp.false, False):
        return False
    if isinstance(rel, (sp.And, sp.Or, sp.Not)):
        return _connective(rel, [truth_at(a, values) for a in rel.args])
    if not isinstance(rel, sp.core.relational.Relational):
        return None
    try:
        d = rationalize(at(rel.lhs, values) - at(rel.rhs, values))
    except (TypeError, AttributeError, ValueError, sp.SympifyError):
        return None
    if d.free_symbols or d.has(sp.nan, sp.zoo) or not isinstance(d, sp.Expr):
        return None
    sign = 1 if d is sp.oo else -1 if d is -sp.oo else _exact_sign(d)
    if sign is None:
        return None
    if isinstance(rel, (sp.Eq, sp.Ne)):
        return (sign == 0) == isinstance(rel, sp.Eq)
    if isinstance(rel, (sp.StrictLessThan, sp.LessThan)):
        sign = -sign  # x > 0 or x >= 0
    strict = isinstance(rel, (sp.StrictGreaterThan, sp.StrictLessThan))
    return sign > 0 if strict else sign >= 0


def _connective(rel, truths: list) -> bool | None:
    if isinstance(rel, sp.Not):
        return None if truths[0] is None else not truths[0]
    decisive = isinstance(rel, sp.Or)  # (a True decides an Or, a False an And)
    if decisive in truths:
        return decisive
    return None if None in truths else not decisive


def _exact_sign(d: sp.Expr) -> int | None:
    """The sign of a closed difference: rational arithmetic, arb, or 0 by exact algebra."""
    if d.is_Rational:
        return 1 if d > 0 else -1 if d < 0 else 0
    if certainly_greater(d, 0):
        return 1
    if certainly_less(d, 0):
        return -1
    return 0 if is_zero(d) else None


_DECISIONS = (
    sp.Piecewise,
    sp.Max,
    sp.Min,
    sp.Abs,
    sp.sign,
    sp.Heaviside,
    sp.floor,
    sp.ceiling,
    sp.frac,
    sp.Mod,
    sp.arg,
    sp.core.relational.Relational,
)


def at(expr, values: dict) -> sp.Expr:
    """``expr`` with ``values`` substituted, as SymPy's ``subs`` gives it, except that every
    choice on the way is made by a shown sign, never by SymPy's two-digit comparison: a
    Piecewise branch and a closed relation by :func:`truth_at`; Max/Min of closed values, and
    Abs, sign, Heaviside, floor, ceiling, frac, Mod and arg of a closed value, by
    :func:`closed_sign`; a root, and a choice that keeps symbols, only where SymPy's view of
    what it compares is believable (:func:`_believable`). Raises :class:`Undecided` where a
    choice cannot be shown. (SymPy's subs took the eps <= 0
    branch at eps = log(1 + 10^-12), made Max(log(1 + 10^-12), log(1 + 2 10^-12)) the first,
    and floor(log(1 + 2 10^-12) - 10^-12) -1.)"""
    e = sp.sympify(expr)
    if not values or not (e.has(*_DECISIONS) or _has_root(e)):
        return e.subs(values)
    return _walk(e, {sp.sympify(k): sp.sympify(v) for k, v in values.items()})


def undecided_gives(default):
    """A decorator for a search at one point: where :func:`at` cannot show a choice there, the
    point gives ``default`` (no counterexample) instead of ending the whole check."""

    def wrap(fn):
        @functools.wraps(fn)
        def point(*args, **kwargs):
            try:
                return fn(*args, **kwargs)
            except Undecided:
                return default

        return point

    return wrap


def _has_root(e: sp.Expr) -> bool:
    return any(not p.exp.is_Integer for p in e.atoms(sp.Pow))


def _walk(e: sp.Basic, values: dict) -> sp.Basic:
    if e in values:
        return values[e]
    if not e.args or not (e.free_symbols & values.keys()):
        return e
    if isinstance(e, (sp.Sum, sp.Integral, sp.Derivative, sp.Lambda)):
        return e.subs(values)  # (bound variables: SymPy's own substitution knows them)
    if isinstance(e, sp.Piecewise) and not any(
        pair.cond.free_symbols - values.keys() for pair in e.args
    ):
        for branch, cond in e.args:
            truth = truth_at(cond, values)
            if truth is None:
                raise Undecided(f"cannot decide the condition {cond} at {_values_text(values)}")
            if truth:
                return _walk(branch, values)
        return sp.nan  # (no branch holds: undefined there, as SymPy has it)
    if isinstance(e, sp.core.relational.Relational) and not (
        e.free_symbols - values.keys()
    ):  # (a closed condition inside a Piecewise that keeps symbols elsewhere)
        truth = truth_at(e, values)
        if truth is None:
            raise Undecided(f"cannot decide {e} at {_values_text(values)}")
        return sp.true if truth else sp.false
    args = [_walk(a, values) for a in e.args]
    own = _decide(e, args)
    if own is not None:
        return own
    for part in _decided_on(e, args):
        if not _believable(part):
            raise Undecided(f"cannot show the sign of {_shown(part)} that {e.func} rests on")
    return e.func(*args)


def _believable(part: sp.Expr) -> bool:
    """May SymPy's sign facts about ``part`` be believed? Closed: every closed part agrees
    with arb. With symbols, also no sum mixes closed constants and every closed sum SymPy forms
    agrees (as in :func:`known`): Max(n - 1 + e^-40, log(1 + e^-40) + e^-80) was n - 1 +
    e^-40 to it, wrong at n = 1."""
    if not isinstance(part, sp.Expr) or not trustworthy(part):
        return False
    if not part.free_symbols:
        return True
    return not _mixed_constants(part) and all(_sign_agrees(s) for s in _closed_sums(part))


def _shown_sign(x: sp.Expr) -> int:
    sign = closed_sign(x)
    if sign is None:
        raise Undecided(f"cannot show the sign of {_shown(x)}")
    return sign


def _decide(e: sp.Basic, args: list) -> sp.Basic | None:
    """``e.func(*args)`` worked out by shown signs where its choice is between closed values;
    None where SymPy is left to build it."""
    closed = [a for a in args if isinstance(a, sp.Expr) and not a.free_symbols]
    if isinstance(e, (sp.Max, sp.Min)) and closed:
        top = _extreme(closed, 1 if isinstance(e, sp.Max) else -1)
        rest = [a for a in args if a.free_symbols]
        for a in rest:  # (SymPy compares the closed top with each argument that has symbols)
            if not _believable(a - top):
                raise Undecided(f"cannot show the sign of {_shown(a - top)} that {e.func} rests on")
        return e.func(*rest, top) if rest else top
    if not closed or closed[0] is not args[0] or args[0].is_extended_real is False:
        return None  # (|2 pi i| is SymPy's to build: a closed sign is of real values)
    x = args[0]
    if isinstance(e, sp.Abs):
        return x if _shown_sign(x) >= 0 else -x
    if isinstance(e, sp.sign):
        return sp.Integer(_shown_sign(x))
    if isinstance(e, sp.Heaviside):
        sign = _shown_sign(x)
        return e.func(sp.Integer(0), *args[1:]) if sign == 0 else sp.Integer(int(sign > 0))
    if isinstance(e, (sp.floor, sp.ceiling)):
        return _integer_part(x, isinstance(e, sp.floor))
    if isinstance(e, sp.frac):
        return x - _integer_part(x, True)
    if isinstance(e, sp.arg):
        return sp.Integer(0) if _shown_sign(x) >= 0 else sp.pi  # (arg(0) is 0, as SymPy has it)
    if isinstance(e, sp.Mod) and len(closed) == 2 and args[1].is_extended_real is not False:
        q = args[1]
        if _shown_sign(q) == 0:
            return None  # (Mod(x, 0): SymPy's nan)
        return x - q * _integer_part(x / q, True)
    return None


def _extreme(closed: list, direction: int) -> sp.Expr:
    """The largest (direction 1) or smallest (-1) of closed values, each comparison shown."""
    best = closed[0]
    for a in closed[1:]:
        if direction * _shown_sign(a - best) > 0:
            best = a
    return best


def _integer_part(x: sp.Expr, down: bool) -> sp.Integer:
    """floor(x) (or ceiling), shown: n <= x < n + 1 (n - 1 < x <= n) by closed signs."""
    from proofs.numeric import as_fraction

    try:
        guess = math.floor(as_fraction(x))
    except (NotNumeric, ValueError, OverflowError, ZeroDivisionError) as exc:
        raise Undecided(f"cannot evaluate {_shown(x)}") from exc
    for n in (guess, guess + 1, guess - 1):
        if down and _shown_sign(x - n) >= 0 and _shown_sign(x - n - 1) < 0:
            return sp.Integer(n)
        if not down and _shown_sign(x - n) <= 0 and _shown_sign(x - n + 1) > 0:
            return sp.Integer(n)
    raise Undecided(f"cannot show the integer part of {_shown(x)}")


def _decided_on(e: sp.Basic, args: list) -> list:
    """The values whose signs SymPy consults to build ``e.func(*args)``: for Max, Min and a
    relation the differences of their arguments, for the others the argument, and for a root
    a closed base."""
    if isinstance(e, (sp.Max, sp.Min, sp.core.relational.Relational)):
        return [a - b for i, a in enumerate(args) for b in args[i + 1 :]]
    if isinstance(e, (sp.Abs, sp.sign, sp.Heaviside, sp.floor, sp.ceiling, sp.frac, sp.arg)):
        return args[:1]
    if isinstance(e, sp.Mod):
        return [args[0] / args[1]] if args[1] != 0 else []
    if e.is_Pow and not args[1].is_Integer and not args[0].free_symbols:
        return args[:1]
    return []


def _values_text(values: dict) -> str:
    return ", ".join(f"{k} = {_shown(v)}" for k, v in values.items())


@dataclass(frozen=True, slots=True)
class Outcome:
    status: str  # "proved" | "certified" | "violated" | "unknown"
    detail: str = ""
    model: dict | None = None


def closed_compare(lhs: sp.Expr, rhs: sp.Expr) -> Outcome:
    """Decide lhs <= rhs for closed expressions: exact if rational, else with arb balls."""
    lhs, rhs = rationalize(lhs), rationalize(rhs)
    if lhs.is_Rational and rhs.is_Rational:
        return Outcome("proved" if lhs <= rhs else "violated", "exact rational arithmetic")
    if lhs == rhs:
        return Outcome("proved", "exact algebra (equality)")
    greater = certainly_greater(lhs, rhs)
    if greater is None and (lhs - rhs).has(sp.erf):
        # 1 - erf(r) is a ball around 0 at any precision arb reaches for a large r; as
        # erfc(r) it is enclosed to its own relative precision
        greater = certainly_greater((lhs - rhs).rewrite(sp.erfc), 0)
    if greater is True:
        return Outcome("violated", "arb interval arithmetic")
    if greater is False:
        return Outcome("certified", "arb interval arithmetic")
    if is_zero(lhs - rhs):  # arb cannot separate equal values: try exact algebra
        return Outcome("proved", "exact algebra (equality)")
    greater = certainly_greater(lhs, rhs, precisions=_DEEP)
    if greater is not None:
        how = f"arb interval arithmetic at {_DEEP[-1]} bits"
        return Outcome("violated" if greater else "certified", how)
    return Outcome("unknown", f"cannot separate {lhs} and {rhs} with arb")


# bits tried when arb's usual precisions leave two closed values unseparated and exact algebra
# does not show them equal: a composition rule 10^-777 below its bound was otherwise undecided
_DEEP = (4096, 16384)


def algebraically_equal(a: sp.Expr, b: sp.Expr, thorough: bool = False) -> bool:
    """a == b identically, by SymPy simplification.

    Logarithms are expanded with force=True where they enter the difference linearly (sums
    and products of them with factors free of logarithms, none inside another). That is valid
    because privacy losses and claimed epsilons are real (logarithms of positive
    probabilities on the domain): forced expansion moves each logarithm by a multiple of
    2 pi i only, so it moves a real linear combination of them by an imaginary amount, and a
    real difference that simplifies to 0 is 0. Inside anything else the move is not
    imaginary: |log(y^2) - 2 log(y)| is 2 pi at y < 0, and forced expansion made it 0.
    """
    diff = a - b
    if diff == 0:
        return True
    # (SymPy's simplify may take a tiny value for 0)
    if differs_somewhere(diff) or not trustworthy(diff):
        return False
    if sp.expand(diff) == 0:
        return True
    # erf as 1 - erfc before simplify: its sign tests evaluated 1 - erf(10^4) at ever more
    # digits and did not end (erfc(r) against 1 - erf(r), 1 - erf(r) against 2 erfc(r))
    if diff.has(sp.erf):
        alt = diff.rewrite(sp.erfc)  # (not expanded: (erf(1) + sqrt 2)^160 took 40 s)
        if alt == 0:
            return True
        if sp.count_ops(alt) <= sp.count_ops(diff):
            diff = alt
    # (simplify can take minutes; with a kink, arb's points do not count, and simplify's
    # logcombine raised a 16-digit rational to a power until memory ran out)
    thorough = thorough and not differs_somewhere(diff) and not long_numbers(diff)
    if diff.has(sp.log) and _logs_linear(diff):
        logs = sp.expand_log(sp.expand(diff, deep=False), force=True)
        if sp.expand(logs) == 0 or (thorough and sp.simplify(logs) == 0):
            return True
    return thorough and sp.simplify(diff) == 0


def _logs_linear(e: sp.Expr) -> bool:
    """Is ``e`` linear in its logarithms: built from them by sums and by products with
    factors free of logarithms, with no logarithm inside another?"""
    if not e.has(sp.log):
        return True
    if isinstance(e, sp.log):
        return not e.args[0].has(sp.log)
    if e.is_Add:
        return all(_logs_linear(a) for a in e.args)
    if e.is_Mul:
        logs = [f for f in e.args if f.has(sp.log)]
        return len(logs) == 1 and _logs_linear(logs[0])
    return False


# functions analytic where defined: a difference of them that vanishes on an open set of
# allowed values vanishes at every allowed point where it is defined
_KINKED = (sp.Abs, sp.Min, sp.Max, sp.Piecewise, sp.sign, sp.floor, sp.ceiling, sp.Heaviside)
_PROBES = (sp.Rational(7, 13), sp.Rational(29, 11))


def differs_somewhere(diff: sp.Expr) -> bool:
    """Is ``diff`` certainly non-zero (by arb) at a point whose values have its symbols' signs,
    integrality and parity (closed: at all)? Then it is not identically zero, and no
    simplification can show that it is. False when undecided, or when ``diff`` has kinks
    (``|x| - x`` vanishes where ``x > 0`` only). Only ever used to skip trying to show
    ``diff`` is zero: its points need not satisfy every assumption (a prime symbol's, say)."""
    diff = sp.sympify(diff)
    symbols = sorted(diff.free_symbols, key=str)
    if not symbols:
        if diff.is_Rational or diff.has(sp.zoo, sp.nan, sp.oo, -sp.oo):
            return diff.is_Rational and diff != 0
        return certainly_greater(diff, 0) is True or certainly_less(diff, 0) is True
    if diff.has(*_KINKED):
        return False
    for r in _PROBES:
        try:  # balls, never exact rationals: (7/13)**(10**8) is not computed
            with precision(128):
                env = {s: to_ball(_probe_value(s, r)) for s in symbols}
                value = to_ball(diff, env)
                if value > 0 or value < 0:
                    return True
        except (NotNumeric, ZeroDivisionError, ValueError, OverflowError, TypeError):
            continue
    return False


def _probe_value(s: sp.Symbol, r: sp.Rational) -> sp.Expr:
    if s.is_integer:
        v = math.ceil(3 * r)
        if (s.is_odd and v % 2 == 0) or (s.is_even and v % 2 == 1):
            v += 1
        r = sp.Integer(v)
    return -r if s.is_nonpositive else r


def discharge(lhs, rhs, constraints) -> Outcome:
    """Prove lhs <= rhs for all values satisfying constraints (and symbol assumptions)."""
    lhs, rhs = sp.sympify(lhs), sp.sympify(rhs)
    if algebraically_equal(lhs, rhs):
        return Outcome("proved", "exact algebra (equality)")
    if not free_symbols([lhs, rhs, *constraints]):
        truths = [truth_at(c, {}) for c in constraints]
        if False in truths:
            return Outcome("proved", "vacuous: constraints never hold")
        if None in truths:
            c = constraints[truths.index(None)]
            return Outcome("unknown", f"cannot decide whether {c} holds")
        return closed_compare(lhs, rhs)
    result = prove_forall(lhs, rhs, constraints)
    if result.status == "proved":
        return Outcome("proved", "z3")
    if result.status == "model":
        return Outcome("violated", "z3 model", result.model)
    return Outcome("unknown", result.reason)


def compare(value: sp.Expr, bound: sp.Expr) -> tuple[str, str]:
    """value <= bound for closed values: 'exact' (rational arithmetic or both infinite),
    'certified' (arb balls), 'violated' (certainly greater) or 'unknown', and how."""
    value, bound = rationalize(sp.sympify(value)), rationalize(sp.sympify(bound))
    if bound is sp.oo:
        return "exact", "the bound is infinite"
    if value is sp.oo:
        return "violated", "exact: infinite"
    if value.is_Rational and bound.is_Rational:
        return ("exact" if value <= bound else "violated"), "exact rational arithmetic"
    greater = certainly_greater(value, bound)
    if greater is True:
        return "violated", "arb interval arithmetic"
    if greater is False:
        return "certified", "arb interval arithmetic"
    if is_zero(value - bound):
        return "exact", "exact algebra (equality)"
    greater = certainly_greater(value, bound, precisions=_DEEP)
    if greater is not None:
        return ("violated" if greater else "certified"), f"arb at {_DEEP[-1]} bits"
    return "unknown", f"cannot compare {_shown(value)} with {_shown(bound)}"


def _shown(expr: sp.Expr) -> str:
    """``expr`` as text; printing may evaluate it (SymPy orders terms numerically), which fails
    on values such as erfc(1e300): then a placeholder, never an internal error."""
    try:
        return str(expr)
    except (ArithmeticError, ValueError, RecursionError):
        return "(an expression too large to print)"


def is_zero(expr: sp.Expr) -> bool:
    """expr == 0 identically, by SymPy simplification (also with erfc written as erf, with
    powers collected, and as a rational function of one exponential). False means "not shown",
    never "non-zero". Never tried where arb shows a value other than 0 (SymPy's simplify made
    log(1 + e^-t) - log((2/3)/(2/3 - e^-t/3)), about 9e-15 at t = 31.6, exactly 0)."""
    expr = sp.sympify(expr)
    try:
        if expr == 0:
            return True
        if long_rationals(expr) or differs_somewhere(expr) or not trustworthy(expr):
            return False
        if sp.expand(expr) == 0:
            return True
        # (sinh/cosh as exponentials first: a group bound's sinh(2 log(3/2)) / sinh(log(3/2)/2)
        # equalities took simplify 0.2 s each, and a search tried hundreds)
        if expr.has(HyperbolicFunction) and sp.simplify(hyperbolic_to_exp(expr)) == 0:
            return True
        if sp.simplify(expr) == 0:
            return True
        if expr.has(sp.erfc) and sp.simplify(expr.rewrite(sp.erf)) == 0:
            return True
        return sp.simplify(sp.expand(sp.powsimp(sp.expand(expr)))) == 0 or _exp_rational_zero(expr)
    except (
        OverflowError,
        ValueError,
        TypeError,
        RecursionError,
        ZeroDivisionError,
        NotImplementedError,
    ):
        return False  # SymPy (or mpmath inside it) gave up: not shown


def closed_sign(expr: sp.Expr) -> int | None:
    """The sign (1, 0 or -1) of a closed real expression, shown rigorously: exact for a
    rational, by arb balls otherwise, and 0 by exact algebra where arb cannot separate the
    value from 0. None when undecided, or when ``expr`` has symbols or is not finite."""
    e = sp.sympify(expr)
    if e.is_Rational:
        return 1 if e > 0 else (-1 if e < 0 else 0)
    if e.free_symbols or e.has(sp.zoo, sp.nan, sp.oo, -sp.oo):
        return None
    if certainly_greater(e, 0) is True:
        return 1
    if certainly_less(e, 0) is True:
        return -1
    forms = [e.rewrite(sp.erfc)] if e.has(sp.erf) else []  # (1 - erf(100): a ball around 0)
    for form in forms:
        if certainly_greater(form, 0) is True:
            return 1
        if certainly_less(form, 0) is True:
            return -1
    if certainly_greater(e, 0, precisions=_DEEP) is True:
        return 1
    if certainly_greater(0, e, precisions=_DEEP) is True:
        return -1
    # inseparable from 0 at 16,384 bits: 0 only where exact algebra shows it (SymPy's own
    # sign guesses are what this function stands in for, so they are not asked again here)
    if (
        long_rationals(e)
        or long_numbers(e)
        or e.has(sp.erf, sp.erfc)
        or sp.count_ops(e) > _SIGN_OPS
    ):
        return None  # (simplify of a long closed value may not end)
    try:
        return 0 if sp.expand(e) == 0 or sp.simplify(e) == 0 else None
    except (OverflowError, ValueError, TypeError, RecursionError, ZeroDivisionError):
        return None


_SIGN_OPS = 40  # the largest closed value whose 0 closed_sign asks simplify to show

_FACTS = {
    "positive": {1},
    "nonnegative": {0, 1},
    "negative": {-1},
    "nonpositive": {-1, 0},
    "zero": {0},
    "nonzero": {-1, 1},
}


def known(expr: sp.Expr, fact: str) -> bool:
    """Is ``expr`` shown to be `fact` (positive, nonnegative, negative, nonpositive, zero or
    nonzero) for every value of its symbols? Closed: by :func:`closed_sign`. With symbols: by
    SymPy's assumptions, believed only when each closed part they rest on has the sign SymPy
    gives it, confirmed by arb. SymPy finds a closed number's sign by evaluating it to two
    digits, which a cancellation fools: e^-40 - log(1 + e^-40) - e^-80, about -9e-36, was
    nonnegative to it, and a table with that entry was proved a distribution."""
    e = sp.sympify(expr)
    if not e.free_symbols:
        sign = closed_sign(e)
        return sign is not None and sign in _FACTS[fact]
    # (trustworthy first: it does not ask SymPy about a closed part with a long rational
    # power, whose sign query may not end, and then no query of the whole reaches that part)
    if _mixed_constants(e) or not trustworthy(e) or getattr(e, f"is_{fact}") is not True:
        return False
    return all(_sign_agrees(part) for part in _closed_sums(e))


def trustworthy(expr: sp.Expr) -> bool:
    """Does every closed sub-expression of ``expr`` other than a rational have the sign (and
    zero-ness) SymPy believes, shown by arb? Where one does not, SymPy's assumptions and
    simplify about ``expr`` are not to be believed: G = log(1 + e^-32) - log((2/3)/(2/3 -
    e^-32/3)), about 6e-15, is 0 to SymPy, and so was simplify(G max(x, y))."""
    e = sp.sympify(expr)
    return all(
        _sign_agrees(node)
        for node in sp.preorder_traversal(e)
        if not node.free_symbols and not node.is_Rational and isinstance(node, sp.Expr)
    )


def _mixed_constants(e: sp.Expr) -> bool:
    """Does a sum in ``e`` hold two or more terms with closed factors other than rationals?
    SymPy signs such a sum as a polynomial, by sums of its coefficients that no node holds
    (n - 1 + n e^-40 - n log(1 + e^-40) - n e^-80 was positive to it; at n = 1 it is -9e-36)."""
    for node in sp.preorder_traversal(e):
        if node.is_Add and node.free_symbols:
            closed = [
                a
                for a in node.args
                if any(not f.free_symbols and not f.is_Rational for f in sp.Mul.make_args(a))
            ]
            if len(closed) >= 2:
                return True
    return False


def simplifies_to_zero(expr: sp.Expr) -> bool:
    """SymPy's simplify gives 0, arb finds no point where ``expr`` is not 0, and every closed
    part has the sign SymPy believes (see :func:`trustworthy`)."""
    expr = sp.sympify(expr)
    if expr == 0:
        return True
    if long_rationals(expr) or differs_somewhere(expr) or not trustworthy(expr):
        return False
    try:
        return sp.simplify(expr) == 0
    except (OverflowError, ValueError, TypeError, RecursionError, ZeroDivisionError):
        return False


def _closed_sums(e: sp.Expr):
    """In each sum with symbols, the sum of its closed terms, with and without its rational
    one (its closed parts themselves are :func:`trustworthy`'s): SymPy judges n - 1 + c (n a
    positive integer) at n = 1 by the sign of c, a sum no node holds."""
    for node in sp.preorder_traversal(e):
        if node.is_Add and node.free_symbols:
            closed = [a for a in node.args if not a.free_symbols and not a.is_Rational]
            if closed:
                yield sp.Add(*closed)
                yield sp.Add(*(a for a in node.args if not a.free_symbols))


@functools.lru_cache(maxsize=4096)
def _sign_agrees(part: sp.Expr) -> bool:
    """Does every sign fact SymPy holds of the closed ``part`` agree with its shown sign?"""
    if part.is_Rational or part.is_NumberSymbol or part is sp.E:
        return True
    if part.has(sp.erf, sp.erfc):  # (asked its sign, SymPy evaluated 1 - erf(10^4) at ever
        return True  # more digits without end; not judged here, as before)
    if long_rationals(part):  # SymPy's sign query looks for the minimal polynomial of
        return False  # e^(1 - 10^-400) without end: its beliefs are not asked, nor trusted
    sign = closed_sign(part)
    for value, said in ((1, part.is_positive), (-1, part.is_negative), (0, part.is_zero)):
        if (said is True and sign != value) or (said is False and sign == value):
            return False
    return True


# SymPy's simplify and sign queries write r^(p/q) as an algebraic number of degree q and look
# for its minimal polynomial, or c log(r) as log(r^c) and look for an exact root of r: with
# q past this (a z3 model 2^-40 from a bound; a rule 6^-1000 below one) they ran for hours
LONG_DENOMINATOR = 10**6


def long_numbers(expr: sp.Expr) -> bool:
    """Does ``expr`` hold a rational of more than 12 digits (numerator or denominator)?"""
    return any(max(abs(r.p), r.q) > 10**12 for r in sp.sympify(expr).atoms(sp.Rational))


def long_rationals(expr: sp.Expr) -> bool:
    """Does ``expr`` hold a power with a rational exponent, or a logarithm times a rational,
    whose denominator is past :data:`LONG_DENOMINATOR`? Exact algebra is not tried on it (it
    may not end); other long rationals (a tiny epsilon) are harmless there."""

    def long(q) -> bool:
        return q.is_Rational and q.q > LONG_DENOMINATOR

    for node in sp.preorder_traversal(sp.sympify(expr)):
        if node.is_Pow and long(node.exp):
            return True
        if node.is_Mul and any(isinstance(a, sp.log) for a in node.args):
            if any(long(a) for a in node.args):
                return True
    return False


def hyperbolic_to_exp(e: sp.Expr) -> sp.Expr:
    """cosh, sinh, tanh, ... written with exp (arb and the rules below know exp only)."""
    return sp.sympify(e).replace(
        lambda x: isinstance(x, HyperbolicFunction), lambda x: x.rewrite(sp.exp)
    )


def _exp_rational_zero(e: sp.Expr) -> bool:
    """Is `e` 0 as a rational function of w = exp(u), where every exponential is exp(k u) with k
    rational? (An identity in an independent w > 0 implies the identity at w = exp(u).)"""
    e = hyperbolic_to_exp(e)
    nodes = [x for x in e.atoms(sp.exp) if x.args[0].free_symbols]
    if not nodes:
        return False
    u = nodes[0].args[0]
    ratios = [sp.simplify(x.args[0] / u) for x in nodes]
    if not all(r.is_Rational for r in ratios):
        return False
    den = math.lcm(*(int(r.q) for r in ratios))
    w = sp.Dummy("w", positive=True)
    e = e.xreplace({x: w ** int(r * den) for x, r in zip(nodes, ratios)})
    if any(x.args[0].free_symbols for x in e.atoms(sp.exp)):
        return False
    return sp.cancel(sp.together(e)) == 0


def greater(lhs: sp.Expr, rhs: sp.Expr) -> tuple[bool, str]:
    """Certainly lhs > rhs, for closed finite values? (True, how) or (False, ...)."""
    lhs, rhs = sp.sympify(lhs), sp.sympify(rhs)
    if (
        lhs.free_symbols
        or rhs.free_symbols
        or lhs.has(sp.oo, -sp.oo, sp.zoo, sp.nan)
        or rhs.has(sp.oo, -sp.oo, sp.zoo, sp.nan)
    ):
        return False, ""
    out = closed_compare(hyperbolic_to_exp(lhs), hyperbolic_to_exp(rhs))
    return out.status == "violated", out.detail


def differ(lhs: sp.Expr, rhs: sp.Expr) -> tuple[bool, str]:
    """Certainly lhs != rhs, for closed finite values? (True, how) or (False, ...)."""
    big, how = greater(lhs, rhs)
    return (True, how) if big else greater(rhs, lhs)


SHOW_CHARS = 400  # an exact value longer than this is shown as a certified decimal


def show(v) -> str:
    """A value for people: exact, with a decimal approximation when it is not rational; a
    value too long to read (1 - (1 - 10^-10)^500 as a fraction has about 5,000 digits, beyond
    what Python converts to text at all) as arb's enclosure of it and its length."""
    v = sp.sympify(v)
    if too_long(v):  # (also an integer beyond Python's limit on digits in text)
        return _long(v)
    text = str(v)
    if v.is_Rational or v.free_symbols:
        return text
    try:
        return f"{text} (~{float(v):.6g})"
    except (TypeError, ValueError):
        return text


def too_long(v) -> bool:
    """Is ``v`` too long to show exactly (:func:`show` then gives a certified decimal)?"""
    try:
        return len(str(v)) > SHOW_CHARS
    except ValueError:
        return True


def _long(v) -> str:
    from proofs.numeric import NotNumeric, precision, show_ball, to_ball

    what = "an exact rational" if v.is_Rational else "an exact expression"
    if v.is_Rational:
        size = max(int(v.p).bit_length(), int(v.q).bit_length())
        what += f" of about {int(size * math.log10(2)) + 1} digits"
    head = "" if v.is_Rational else f"{str(v)[: SHOW_CHARS // 2]}... = "
    try:
        with precision(128):
            return f"{head}{show_ball(to_ball(v))} ({what})"
    except (NotNumeric, ZeroDivisionError, ValueError, OverflowError):
        return f"{head}({what}, too long to show)"
