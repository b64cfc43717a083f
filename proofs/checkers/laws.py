"""The algebra of noise laws behind the checks of facts about distributions: sign decisions
for the conditions SymPy leaves (exact algebra, z3, arb at sample points), the half-line and
geometric-series integrals, and the raw and central moments of a law."""

from __future__ import annotations

import itertools

import sympy as sp
from sympy.functions.elementary.hyperbolic import HyperbolicFunction

from proofs.claims.distributions import NoiseDensity, holds_everywhere
from proofs.decide import closed_sign, holds_at, known
from proofs.symbols import Y, Z
from proofs.validate import allowed

__all__ = [
    "INTEGER_POINTS",
    "REAL_POOL",
    "C",
    "Undecided",
    "continuous",
    "moment",
    "nonneg",
    "params",
    "points",
    "raw_moment",
]


_S = sp.Dummy("s", positive=True)  # y = s or y = -s on the two half-lines
_Z0 = sp.Dummy("z", integer=True, nonnegative=True)  # z >= 0


_K = sp.Dummy("k", integer=True, positive=True)  # z = -k <= -1


_R = sp.Dummy("r", positive=True)  # ratio of a geometric series, in (0, 1)


C = sp.Dummy("c", real=True)  # the (fixed) value of the query on the data


_POOL = (
    sp.Rational(1, 2),
    sp.Integer(2),
    sp.Integer(1),
    sp.Integer(3),
    sp.Rational(1, 10),
    sp.Integer(10),
)


REAL_POOL = (
    sp.Integer(0),
    sp.Rational(1, 2),
    sp.Integer(1),
    sp.Integer(-1),
    sp.Integer(2),
    sp.Rational(-1, 2),
    sp.Integer(3),
    sp.Integer(-3),
    sp.Integer(10),
)


_INT_POOL = (sp.Integer(1), sp.Integer(2), sp.Integer(3), sp.Integer(5), sp.Integer(10))


_MAX_POINTS = 40


class Undecided(Exception):
    """SymPy or z3 could not settle a step; the claim is then unknown."""


def _closed(e: sp.Expr) -> bool:
    """A finite closed form: no unevaluated Integral/Sum/Piecewise and no infinities."""
    e = sp.sympify(e)
    return not (
        e.has(sp.Integral, sp.Sum, sp.Piecewise, sp.Limit, sp.Product)
        or e.has(sp.oo, -sp.oo, sp.zoo, sp.nan)
    )


def _decide(cond, domain) -> bool | None:
    """Decide a Piecewise condition for every value in `domain`: True, False or None."""
    cond = sp.sympify(cond)
    if cond is sp.true:
        return True
    if cond is sp.false:
        return False
    if isinstance(cond, (sp.And, sp.Or)):
        parts = [_decide(a, domain) for a in cond.args]
        if isinstance(cond, sp.And):
            return (
                True
                if all(p is True for p in parts)
                else (False if any(p is False for p in parts) else None)
            )
        return (
            True
            if any(p is True for p in parts)
            else (False if all(p is False for p in parts) else None)
        )
    if isinstance(cond, sp.Not):
        inner = _decide(cond.args[0], domain)
        return None if inner is None else not inner
    if not isinstance(cond, sp.core.relational.Relational):
        return None
    lhs, rhs = cond.lhs, cond.rhs
    if isinstance(cond, (sp.StrictGreaterThan, sp.GreaterThan)):
        lhs, rhs = rhs, lhs
    try:
        if isinstance(cond, (sp.StrictLessThan, sp.StrictGreaterThan)):
            return (
                True
                if holds_everywhere(lhs, rhs, domain, True)
                else (False if holds_everywhere(rhs, lhs, domain) else None)
            )
        if isinstance(cond, (sp.LessThan, sp.GreaterThan)):
            return (
                True
                if holds_everywhere(lhs, rhs, domain)
                else (False if holds_everywhere(rhs, lhs, domain, True) else None)
            )
        if isinstance(cond, (sp.Equality, sp.Unequality)):
            equal = (
                True
                if (holds_everywhere(lhs, rhs, domain) and holds_everywhere(rhs, lhs, domain))
                else (
                    False
                    if (
                        holds_everywhere(lhs, rhs, domain, True)
                        or holds_everywhere(rhs, lhs, domain, True)
                    )
                    else None
                )
            )
            if equal is None or isinstance(cond, sp.Equality):
                return equal
            return not equal
    except (TypeError, ValueError, AttributeError):
        return None
    return None


def discharge(expr: sp.Expr, domain) -> sp.Expr:
    """Replace every Piecewise by the branch that applies on the whole domain (first condition
    proved true, all earlier ones proved false); raise Undecided otherwise."""
    expr = sp.sympify(expr)
    for _ in range(50):
        pieces = [p for p in sp.preorder_traversal(expr) if isinstance(p, sp.Piecewise)]
        if not pieces:
            return expr
        inner = next(
            p
            for p in pieces
            if not any(
                isinstance(q, sp.Piecewise) for a in p.args for q in sp.preorder_traversal(a)
            )
        )
        for value, cond in inner.args:
            verdict = _decide(cond, domain)
            if verdict is True:
                expr = expr.xreplace({inner: value})
                break
            if verdict is None:
                raise Undecided(f"cannot decide the condition {cond} of a Piecewise")
        else:
            raise Undecided(f"no branch of {inner} applies")
    raise Undecided("too many nested Piecewise results")


def _relax_exp(expr: sp.Expr, domain) -> tuple[sp.Expr, list]:
    """Replace each exp(u) by a fresh positive symbol E (a superset of values: sound for proofs),
    keeping E < 1, E <= 1, E >= 1 or E > 1 when z3 proves the sign of u."""
    mapping, extra = {}, []
    for node in sorted(sp.sympify(expr).atoms(sp.exp), key=str):
        if not node.free_symbols:
            continue
        e = sp.Dummy("E", positive=True)
        u = node.args[0]
        if holds_everywhere(u, 0, domain, strict=True):
            extra.append(e < 1)
        elif holds_everywhere(0, u, domain, strict=True):
            extra.append(e > 1)
        elif holds_everywhere(u, 0, domain):
            extra.append(e <= 1)
        elif holds_everywhere(0, u, domain):
            extra.append(e >= 1)
        mapping[node] = e
    return sp.sympify(expr).xreplace(mapping), extra


def nonneg(expr: sp.Expr, domain) -> str | None:
    """How `expr >= 0` was shown on the whole domain, or None."""
    e = sp.sympify(expr)
    if known(e, "nonnegative"):
        return "SymPy assumptions"
    if e.is_Mul and all(nonneg(f, domain) for f in e.args):
        return "a product of non-negative factors"
    try:
        relaxed, extra = _relax_exp(e, domain)
        if holds_everywhere(0, relaxed, [*domain, *extra]):
            return "z3 (exponentials relaxed to positive variables)"
    except (TypeError, ValueError, AttributeError):
        return None
    return None


def _pool(s: sp.Symbol):
    if s.is_integer:
        return _INT_POOL if s.is_positive else (sp.Integer(0), *_INT_POOL)
    if s.is_positive:
        return _POOL
    if s.is_nonnegative:
        return (sp.Integer(0), *_POOL)
    return REAL_POOL


def _between(s: sp.Symbol, domain) -> tuple:
    """Values of `s` the fixed pool misses inside a domain bounded by numbers: each number in a
    constraint on `s` alone (a closed bound is allowed), and the midpoints of consecutive
    values of the pool and those numbers (r < 2 over a pool 1, 2, 3 gets 3/2)."""
    cuts = {
        n
        for c in domain
        if sp.sympify(c).free_symbols == {s}
        for n in sp.sympify(c).atoms(sp.Rational)
    }
    if not cuts:
        return ()
    grid = sorted(set(_pool(s)) | cuts)
    steps = tuple(n + d for n in cuts for d in (1, -1)) if s.is_integer else ()
    near = (*sorted(cuts), *steps)
    mids = () if s.is_integer else tuple((a + b) / 2 for a, b in itertools.pairwise(grid))
    seen = set(_pool(s))
    return tuple(v for v in dict.fromkeys((*near, *mids)) if v not in seen and allowed(s, v))


_MAX_EXTRA_TRIES = 4096  # combinations tried beyond the fixed pools


def _meets(values, domain) -> bool:
    for c in domain:
        try:
            if not holds_at(c, values):
                return False
        except (TypeError, ValueError):
            return False
    return True


def points(symbols, domain, limit=_MAX_POINTS):
    """Concrete values (small first) of `symbols` satisfying every constraint of `domain`: the
    fixed pools first, then combinations using a value between them (:func:`_between`)."""
    symbols = sorted(symbols, key=str)
    found = 0
    for combo in itertools.product(*(_pool(s) for s in symbols)):
        values = dict(zip(symbols, combo))
        if _meets(values, domain):
            yield values
            found += 1
            if found >= limit:
                return
    extra = [_between(s, domain) for s in symbols]
    if not any(extra):
        return
    tries = 0
    full = [(*_pool(s), *e) for s, e in zip(symbols, extra)]
    for combo in itertools.product(*full):
        if all(v in _pool(s) for s, v in zip(symbols, combo)):
            continue  # tried in the first pass
        tries += 1
        if tries > _MAX_EXTRA_TRIES:
            return
        values = dict(zip(symbols, combo))
        if _meets(values, domain):
            yield values
            found += 1
            if found >= limit:
                return


INTEGER_POINTS = tuple(sp.Integer(z) for z in (0, 1, -1, 2, -2, 3, -3, 10, -10))


_CONTINUOUS = (
    sp.exp,
    sp.log,
    sp.Abs,
    sp.Max,
    sp.Min,
    sp.erf,
    sp.erfc,
    sp.sin,
    sp.cos,
    HyperbolicFunction,
)


def continuous(expr: sp.Expr) -> bool:
    """Built from + * ^ and continuous functions only: continuous wherever it is finite."""
    for node in sp.preorder_traversal(expr):
        if isinstance(node, sp.Function) and not isinstance(node, _CONTINUOUS):
            return False
        if isinstance(node, (sp.Piecewise, sp.Heaviside, sp.sign, sp.floor, sp.ceiling)):
            return False
    return True


def params(values: dict) -> dict:
    return {str(k): str(v) for k, v in values.items()}


def _geometric_rewrite(expr: sp.Expr, v: sp.Symbol, domain) -> tuple[sp.Expr, sp.Expr] | None:
    """exp(c0 + c1 v) -> exp(c0) r^v with r = exp(c1) in (0, 1), when every exponential in v
    has the same rate c1 and z3 (or arithmetic) shows c1 < 0. Returns (new expr, exp(c1))."""
    rates, parts = set(), {}
    for node in expr.atoms(sp.exp):
        arg = sp.expand(node.args[0])
        if v not in arg.free_symbols:
            continue
        poly = sp.Poly(arg, v) if arg.is_polynomial(v) else None
        if poly is None or poly.degree() != 1:
            return None
        c1 = poly.coeff_monomial(v)
        rates.add(c1)
        parts[node] = (arg - c1 * v, c1)
    if len(rates) != 1:
        return None
    c1 = rates.pop()
    negative = (
        closed_sign(c1) == -1  # (SymPy's c1 < 0 is a two-digit guess: 4e-13 was negative)
        if not c1.free_symbols
        else holds_everywhere(c1, 0, domain, strict=True)
    )
    if not negative:
        return None
    new = expr.xreplace({node: sp.exp(c0) * _R**v for node, (c0, _c) in parts.items()})
    return new, sp.exp(c1)


def _half_total(expr: sp.Expr, v: sp.Symbol, lo: int, discrete: bool, domain) -> sp.Expr:
    """integral_0^oo expr dv, or sum_{v=lo}^oo expr, as a finite closed form (else Undecided)."""
    try:
        if discrete:
            back = None
            geo = _geometric_rewrite(expr, v, domain)
            if geo is not None:
                expr, back = geo
                domain = [*domain, _R < 1]
            total = sp.Integer(0)
            for term in sp.Add.make_args(sp.expand(expr)):
                coeff, rest = term.as_independent(v, as_Add=False)
                total += coeff * sp.summation(rest, (v, lo, sp.oo))
            total = discharge(total, domain)
            if back is not None:
                total = total.xreplace({_R: back})
        else:
            total = discharge(sp.integrate(expr, (v, lo, sp.oo)), domain)
    except (
        NotImplementedError,
        ValueError,
        TypeError,
        ZeroDivisionError,
        sp.PolynomialError,
    ) as exc:
        raise Undecided(f"SymPy: {type(exc).__name__}: {exc}") from None
    if not _closed(total):  # (not printed: SymPy orders a sum's terms by evaluating them,
        # and with a rate of 4e-13 that did not end)
        kind = "sum" if discrete else "integral"
        raise Undecided(f"SymPy could not close the {kind} over {v} to a number")
    return total


def raw_moment(law: NoiseDensity, j: int, values: dict | None = None) -> sp.Expr:
    """E[X^j] (j = 0: the total mass) over both half-lines, optionally at concrete values."""
    g = law.expr if values is None else law.expr.xreplace(values)
    domain = law.domain if values is None else ()
    # a parameter the domain shows to be positive becomes a positive symbol for SymPy
    # (the result is then valid for every positive value, hence on the whole domain)
    positive = (
        {}
        if values is not None
        else {
            s: sp.Dummy(s.name, positive=True)
            for s in sorted(law.parameters, key=str)
            if s.is_positive is not True and holds_everywhere(0, s, domain, strict=True)
        }
    )
    if positive:
        g = g.xreplace(positive)
        domain = tuple(sp.sympify(c).xreplace(positive) for c in domain)
    if law.support == "reals":
        pieces = [(_S**j * g.subs(Y, _S), _S, 0), ((-_S) ** j * g.subs(Y, -_S), _S, 0)]
    else:
        pieces = [(_Z0**j * g.subs(Z, _Z0), _Z0, 0), ((-_K) ** j * g.subs(Z, -_K), _K, 1)]
    discrete = law.support == "integers"
    total = sp.together(sum(_half_total(e, v, lo, discrete, domain) for e, v, lo in pieces))
    return total.xreplace({d: s for s, d in positive.items()})


def moment(law: NoiseDensity, kind: str, values: dict | None = None) -> sp.Expr:
    m1 = raw_moment(law, 1, values)
    if kind == "mean":
        return m1
    return sp.simplify(raw_moment(law, 2, values) - m1**2)
