"""Facts about distributions that the lecture notes use, as checkable claims.

- :class:`Normalised`: a mechanism's pmf or a noise density is non-negative and sums (integrates)
  to 1 for every parameter value. Densities on the reals are integrated over the two half-lines
  (y = s and y = -s, s > 0); pmfs on the integers are summed over z >= 0 and z <= -1, with
  exp(c0 + c1 z) rewritten as exp(c0) r^z, r = exp(c1) a symbol in (0, 1) once z3 shows c1 < 0
  (for the two-sided geometric, r = a = exp(-1/b)). Finite mechanisms: every row sums to 1
  (k-ary randomized response with k symbolic: (e^eps + (k - 1))/(e^eps + k - 1) = 1).
- :class:`Moment`: the mean or variance of a noise law, by symbolic integration/summation:
  Lap(b): 0 and 2 b^2 (notes 000, "Def Laplace distribution"); N(0, sigma^2): 0 and sigma^2;
  two-sided geometric with a = exp(-1/b): 0 and 2a/(1 - a)^2, since
  sum_{z in Z} z^2 (1 - a)/(1 + a) a^|z| = 2 (1 - a)/(1 + a) a (1 + a)/(1 - a)^3.
- :class:`NoisyMeanVariance`: the mean of n values in [0, 1] has sensitivity Delta = 1/n
  (replace-one neighbours; notes 000, "L1-sensitivity", Example); released as mean + Lap(Delta/eps)
  its variance given the data is Var[noise] = 2 Delta^2/eps^2 = 2/(eps n)^2 (notes 000,
  "Def Laplace mechanism", Example), and sigma^2 with N(0, sigma^2) noise.
- :class:`DistanceBound`: inequalities between the distances of the closeness tool
  (:mod:`auditor.closeness.core`) for distributions P, Q on m points: TV = L1/2 (definition), L2 <= L1,
  L1 <= sqrt(m) L2 (Cauchy-Schwarz), TV <= 1, KL >= 0 (Gibbs), Pinsker TV <= sqrt(KL/2) (Cover and
  Thomas 2006, Lemma 11.6.1), ordered EMD <= TV and categorical EMD = TV (Li, Li,
  Venkatasubramanian 2007, Sec. 4.2). Each fact has a structured proof whose steps are discharged
  by SymPy (a difference simplifies to exactly 0) or z3; a stated inequality is proved when z3
  derives it from the proved facts, refuted by a pair of concrete rational distributions
  (re-checked exactly or with arb balls), and otherwise unknown.

Steps stated as argument text rather than discharged (as ``lemma_argument`` in
:mod:`proofs._formulations`): the inductions over m and over the size of a merged group (each
induction step is discharged), the mean-value-theorem reading of "(q - p) f'(q) >= 0", the
averaging in the ordered EMD, the optimal transport plan of the categorical EMD, and the
translation y = f(x) + t that reduces a mechanism's density to its noise law. Integrals and sums
are trusted to SymPy, as everywhere in :mod:`proofs`.

Verdicts: ``proved`` only by exact algebra or z3 over the whole parameter domain; an unevaluated
Integral/Sum, a SymPy error or a Piecewise condition z3 cannot decide gives ``unknown``;
``refuted`` only with concrete parameter values re-checked with exact rationals or arb balls.
"""

from __future__ import annotations

import itertools
import math
import time
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

import sympy as sp
import z3
from sympy.functions.elementary.hyperbolic import HyperbolicFunction

from proofs.errors import InputError
from proofs._smt import prove_forall
from proofs.approx import make_result
from proofs.decide import closed_compare
from proofs.expr import as_expr, by_name, parse, symbols_of
from proofs.mechanisms import (
    AlphaCoinRR, ExponentialMechanism, FiniteMechanism, ForcedResponse, Gaussian, KAryRR,
    Laplace, OneBitTelemetry, TwoSidedGeometric, sym,
)
from proofs.results import Counterexample, ProofResult, Verdict

__all__ = [
    "EMD", "EMD_CAT", "KL", "L1", "L2", "TV", "DistanceBound", "DistanceFact", "M", "Moment",
    "N", "NoiseDensity", "NoisyMeanVariance", "Normalised", "Y", "Z", "distance_facts",
    "geometric_ratio", "noise_law",
]

Y = sp.Symbol("y", real=True)  # a real noise value
Z = sp.Symbol("z", integer=True)  # an integer noise value
N = sp.Symbol("n", integer=True, positive=True)  # number of values in the noisy mean

# Dummies cannot capture a user's symbol of the same name.
_S = sp.Dummy("s", positive=True)  # y = s or y = -s on the two half-lines
_Z0 = sp.Dummy("z", integer=True, nonnegative=True)  # z >= 0
_K = sp.Dummy("k", integer=True, positive=True)  # z = -k <= -1
_R = sp.Dummy("r", positive=True)  # ratio of a geometric series, in (0, 1)
_C = sp.Dummy("c", real=True)  # the (fixed) value of the query on the data
_TIMEOUT_MS = 3000
_POOL = (sp.Rational(1, 2), sp.Integer(2), sp.Integer(1), sp.Integer(3), sp.Rational(1, 10),
         sp.Integer(10))
_REAL_POOL = (sp.Integer(0), sp.Rational(1, 2), sp.Integer(1), sp.Integer(-1), sp.Integer(2),
              sp.Rational(-1, 2), sp.Integer(3), sp.Integer(-3), sp.Integer(10))
_INT_POOL = (sp.Integer(1), sp.Integer(2), sp.Integer(3), sp.Integer(5), sp.Integer(10))
_MAX_POINTS = 40


class _Undecided(Exception):
    """SymPy or z3 could not settle a step; the claim is then unknown."""


def _meta(id, source, expect, statement) -> dict:
    return {"id": id, "source": source, "expect": expect, "statement": statement}


# --- exact and certified helpers ------------------------------------------------------------------


def _hyperbolic_to_exp(e: sp.Expr) -> sp.Expr:
    return sp.sympify(e).replace(lambda x: isinstance(x, HyperbolicFunction),
                                 lambda x: x.rewrite(sp.exp))


def _exp_rational_zero(e: sp.Expr) -> bool:
    """Is `e` 0 as a rational function of w = exp(u), where every exponential is exp(k u) with k
    rational? (An identity in an independent w > 0 implies the identity at w = exp(u).)"""
    e = _hyperbolic_to_exp(e)
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


def _is_zero(expr: sp.Expr) -> bool:
    """True only when SymPy simplifies `expr` to exactly 0."""
    try:
        e = sp.sympify(expr)
        if e == 0:
            return True
        return (sp.simplify(e) == 0 or sp.simplify(sp.expand(sp.powsimp(sp.expand(e)))) == 0
                or _exp_rational_zero(e))
    except (NotImplementedError, ValueError, TypeError, RecursionError, ZeroDivisionError):
        return False


def _closed(e: sp.Expr) -> bool:
    """A finite closed form: no unevaluated Integral/Sum/Piecewise and no infinities."""
    e = sp.sympify(e)
    return not (e.has(sp.Integral, sp.Sum, sp.Piecewise, sp.Limit, sp.Product)
                or e.has(sp.oo, -sp.oo, sp.zoo, sp.nan))


def _holds(lhs, rhs, domain, strict=False) -> bool:
    """z3 proves lhs <= rhs (lhs < rhs when strict) for every value allowed by `domain`."""
    out = prove_forall(sp.sympify(lhs), sp.sympify(rhs), list(domain), strict=strict,
                       timeout_ms=_TIMEOUT_MS)
    return out.status == "proved"


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
            return True if all(p is True for p in parts) else (
                False if any(p is False for p in parts) else None)
        return True if any(p is True for p in parts) else (
            False if all(p is False for p in parts) else None)
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
            return True if _holds(lhs, rhs, domain, True) else (
                False if _holds(rhs, lhs, domain) else None)
        if isinstance(cond, (sp.LessThan, sp.GreaterThan)):
            return True if _holds(lhs, rhs, domain) else (
                False if _holds(rhs, lhs, domain, True) else None)
        if isinstance(cond, (sp.Equality, sp.Unequality)):
            equal = True if (_holds(lhs, rhs, domain) and _holds(rhs, lhs, domain)) else (
                False if (_holds(lhs, rhs, domain, True) or _holds(rhs, lhs, domain, True))
                else None)
            if equal is None or isinstance(cond, sp.Equality):
                return equal
            return not equal
    except (TypeError, ValueError, AttributeError):
        return None
    return None


def _discharge(expr: sp.Expr, domain) -> sp.Expr:
    """Replace every Piecewise by the branch that applies on the whole domain (first condition
    proved true, all earlier ones proved false); raise _Undecided otherwise."""
    expr = sp.sympify(expr)
    for _ in range(50):
        pieces = [p for p in sp.preorder_traversal(expr) if isinstance(p, sp.Piecewise)]
        if not pieces:
            return expr
        inner = next(p for p in pieces
                     if not any(isinstance(q, sp.Piecewise) for a in p.args
                                for q in sp.preorder_traversal(a)))
        for value, cond in inner.args:
            verdict = _decide(cond, domain)
            if verdict is True:
                expr = expr.xreplace({inner: value})
                break
            if verdict is None:
                raise _Undecided(f"cannot decide the condition {cond} of a Piecewise")
        else:
            raise _Undecided(f"no branch of {inner} applies")
    raise _Undecided("too many nested Piecewise results")


def _relax_exp(expr: sp.Expr, domain) -> tuple[sp.Expr, list]:
    """Replace each exp(u) by a fresh positive symbol E (a superset of values: sound for proofs),
    keeping E < 1, E <= 1, E >= 1 or E > 1 when z3 proves the sign of u."""
    mapping, extra = {}, []
    for node in sorted(sp.sympify(expr).atoms(sp.exp), key=str):
        if not node.free_symbols:
            continue
        e = sp.Dummy("E", positive=True)
        u = node.args[0]
        if _holds(u, 0, domain, strict=True):
            extra.append(e < 1)
        elif _holds(0, u, domain, strict=True):
            extra.append(e > 1)
        elif _holds(u, 0, domain):
            extra.append(e <= 1)
        elif _holds(0, u, domain):
            extra.append(e >= 1)
        mapping[node] = e
    return sp.sympify(expr).xreplace(mapping), extra


def _nonneg(expr: sp.Expr, domain) -> str | None:
    """How `expr >= 0` was shown on the whole domain, or None."""
    e = sp.sympify(expr)
    if e.is_nonnegative:
        return "SymPy assumptions"
    if e.is_Mul and all(_nonneg(f, domain) for f in e.args):
        return "a product of non-negative factors"
    try:
        relaxed, extra = _relax_exp(e, domain)
        if _holds(0, relaxed, [*domain, *extra]):
            return "z3 (exponentials relaxed to positive variables)"
    except (TypeError, ValueError, AttributeError):
        return None
    return None


def _greater(lhs: sp.Expr, rhs: sp.Expr) -> tuple[bool, str]:
    """Certainly lhs > rhs, for closed values? Exact for rationals, arb balls otherwise
    (:func:`proofs.decide.closed_compare`); cosh/sinh are first written with exp for arb."""
    lhs, rhs = sp.sympify(lhs), sp.sympify(rhs)
    if lhs.free_symbols or rhs.free_symbols or lhs.has(sp.oo, -sp.oo, sp.zoo, sp.nan) \
            or rhs.has(sp.oo, -sp.oo, sp.zoo, sp.nan):
        return False, ""
    out = closed_compare(_hyperbolic_to_exp(lhs), _hyperbolic_to_exp(rhs))
    return out.status == "violated", out.detail


def _differ(lhs: sp.Expr, rhs: sp.Expr) -> tuple[bool, str]:
    big, how = _greater(lhs, rhs)
    if big:
        return True, how
    return _greater(rhs, lhs)


def _show(v: sp.Expr) -> str:
    v = sp.sympify(v)
    if v.is_Rational:
        return str(v)
    try:
        return f"{v} (~{float(v):.6g})"
    except (TypeError, ValueError):
        return str(v)


def _pool(s: sp.Symbol):
    if s.is_integer:
        return _INT_POOL if s.is_positive else (sp.Integer(0), *_INT_POOL)
    if s.is_positive:
        return _POOL
    if s.is_nonnegative:
        return (sp.Integer(0), *_POOL)
    return _REAL_POOL


def _points(symbols, domain, limit=_MAX_POINTS):
    """Concrete values (small first) of `symbols` satisfying every constraint of `domain`."""
    symbols = sorted(symbols, key=str)
    found = 0
    for combo in itertools.product(*(_pool(s) for s in symbols)):
        values = dict(zip(symbols, combo))
        ok = True
        for c in domain:
            try:
                ok = sp.sympify(c).subs(values) is sp.true
            except (TypeError, ValueError):
                ok = False
            if not ok:
                break
        if ok:
            yield values
            found += 1
            if found >= limit:
                return


_INTEGER_POINTS = tuple(sp.Integer(z) for z in (0, 1, -1, 2, -2, 3, -3, 10, -10))
_CONTINUOUS = (sp.exp, sp.log, sp.Abs, sp.Max, sp.Min, sp.erf, sp.erfc, sp.sin, sp.cos,
               HyperbolicFunction)


def _continuous(expr: sp.Expr) -> bool:
    """Built from + * ^ and continuous functions only: continuous wherever it is finite."""
    for node in sp.preorder_traversal(expr):
        if isinstance(node, sp.Function) and not isinstance(node, _CONTINUOUS):
            return False
        if isinstance(node, (sp.Piecewise, sp.Heaviside, sp.sign, sp.floor, sp.ceiling)):
            return False
    return True


def _check_domain(domain, what: str) -> None:
    """Reject numeric parameters outside the domain: a false constraint would make every z3
    proof over the domain vacuous."""
    for c in domain:
        if sp.sympify(c) is sp.false:
            raise InputError(f"{what}: the constraint {c} fails for the given numbers; give "
                             "parameters inside the mechanism's domain.")


def _params(values: dict) -> dict:
    return {str(k): str(v) for k, v in values.items()}


# --- noise laws -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class NoiseDensity:
    """A noise law: a density in :data:`Y` on the reals (``support='reals'``) or a pmf in
    :data:`Z` on the integers (``support='integers'``). ``domain`` lists the constraints on its
    parameters (besides their SymPy assumptions). Use it to state a density directly, e.g. the
    slip (1/b) exp(-|y|/b) for the Laplace density."""

    expr: Any
    support: str = "reals"
    domain: tuple = ()
    name: str = "noise density"

    def __post_init__(self):
        expr = as_expr(self.expr, "expr", symbols={"y": Y, "z": Z})
        # a user's own symbol named y or z is the noise value
        expr = expr.xreplace({s: {"y": Y, "z": Z}[s.name] for s in expr.free_symbols
                              if s.name in ("y", "z")})
        object.__setattr__(self, "expr", expr)
        if not all(isinstance(c, (sp.core.relational.Relational, sp.logic.boolalg.Boolean))
                   for c in self.domain):
            raise InputError(f"domain={self.domain!r} must be SymPy relations such as b > 0.")
        object.__setattr__(self, "domain", tuple(self.domain))
        _check_domain(self.domain, "NoiseDensity")
        if self.domain and _holds(1, 0, self.domain):
            raise InputError(f"domain={self.domain} admits no parameter value; every claim "
                             "over it would hold vacuously.")
        if self.support not in ("reals", "integers"):
            raise InputError(f"support={self.support!r} is not known; use 'reals' or 'integers'.")
        other = Z if self.support == "reals" else Y
        if other in self.expr.free_symbols:
            raise InputError(f"expr={self.expr} uses {other} but support={self.support!r}; "
                             f"write a density in {self.variable} ('reals': y, 'integers': z).")

    @property
    def variable(self) -> sp.Symbol:
        return Y if self.support == "reals" else Z

    @property
    def parameters(self) -> set:
        extra = set().union(*(c.free_symbols for c in self.domain)) if self.domain else set()
        return (self.expr.free_symbols | extra) - {self.variable}


def geometric_ratio(mech: TwoSidedGeometric) -> sp.Expr:
    """a = exp(-1/b), the ratio of the two-sided geometric pmf (1 - a)/(1 + a) a^|z|."""
    return sp.exp(-1 / mech.scale)


def noise_law(law: Any) -> NoiseDensity:
    """The noise of an additive mechanism, pdf(f(x), f(x) + y) (it does not depend on f(x):
    y = f(x) + t is a translation, a bijection that preserves Lebesgue/counting measure)."""
    if isinstance(law, NoiseDensity):
        return law
    if isinstance(law, (Laplace, Gaussian, TwoSidedGeometric)):
        integer = isinstance(law, TwoSidedGeometric)
        fx = sp.Symbol("f_x", integer=True) if integer else sp.Symbol("f_x", real=True)
        v = Z if integer else Y
        dens = law.pmf(fx, fx + v) if integer else law.pdf(fx, fx + v)
        dens = sp.sympify(dens)
        if fx in dens.free_symbols:
            dens = sp.simplify(dens)
        if fx in dens.free_symbols:
            raise InputError(f"{type(law).__name__}: its density depends on f(x) beyond a shift.")
        if isinstance(law, Laplace):
            name = f"Lap({law.scale})"
        elif isinstance(law, Gaussian):
            name = f"N(0, {law.sigma}^2)"
        else:
            name = f"two-sided geometric (b = {law.scale})"
        _check_domain(law.domain(), type(law).__name__)
        domain = tuple(c for c in law.domain() if sp.sympify(c).free_symbols
                       and sp.sympify(c).free_symbols <= dens.free_symbols)
        return NoiseDensity(dens, "integers" if integer else "reals", domain, name)
    raise InputError(f"{type(law).__name__} is not a noise law; use Laplace, Gaussian, "
                     "TwoSidedGeometric or NoiseDensity.")


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
    negative = bool(c1 < 0) if not c1.free_symbols else _holds(c1, 0, domain, strict=True)
    if not negative:
        return None
    new = expr.xreplace({node: sp.exp(c0) * _R**v for node, (c0, _c) in parts.items()})
    return new, sp.exp(c1)


def _half_total(expr: sp.Expr, v: sp.Symbol, lo: int, discrete: bool, domain) -> sp.Expr:
    """integral_0^oo expr dv, or sum_{v=lo}^oo expr, as a finite closed form (else _Undecided)."""
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
            total = _discharge(total, domain)
            if back is not None:
                total = total.xreplace({_R: back})
        else:
            total = _discharge(sp.integrate(expr, (v, lo, sp.oo)), domain)
    except (NotImplementedError, ValueError, TypeError, ZeroDivisionError,
            sp.PolynomialError) as exc:
        raise _Undecided(f"SymPy: {type(exc).__name__}: {exc}") from None
    if not _closed(total):
        raise _Undecided(f"SymPy left {total}")
    return total


def _raw_moment(law: NoiseDensity, j: int, values: dict | None = None) -> sp.Expr:
    """E[X^j] (j = 0: the total mass) over both half-lines, optionally at concrete values."""
    g = law.expr if values is None else law.expr.xreplace(values)
    domain = law.domain if values is None else ()
    # a parameter the domain shows to be positive becomes a positive symbol for SymPy
    # (the result is then valid for every positive value, hence on the whole domain)
    positive = {} if values is not None else {
        s: sp.Dummy(s.name, positive=True) for s in sorted(law.parameters, key=str)
        if s.is_positive is not True and _holds(0, s, domain, strict=True)}
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


# --- Normalised -------------------------------------------------------------------------------


def _finite_rows(law: Any, utilities: tuple) -> list[tuple[str, list, tuple]]:
    """(row label, [(multiplicity, probability)], extra constraints) for a finite mechanism."""
    if isinstance(law, (AlphaCoinRR, ForcedResponse)):
        return [(f"{x}", [(1, sp.sympify(law.pmf(x, y))) for y in (0, 1)], ()) for x in (0, 1)]
    if isinstance(law, KAryRR):
        if law.k.is_Integer and int(law.k) <= 20:
            k = int(law.k)
            return [(f"{x}", [(1, law.pmf(x, y)) for y in range(k)], ()) for x in range(k)]
        return [("any x (P[Y=x] once, P[Y=y] for the k - 1 values y != x)",
                 [(1, law.pmf(0, 0)), (law.k - 1, law.pmf(0, 1))], ())]
    if isinstance(law, OneBitTelemetry):
        x = sp.Symbol("x", real=True)
        return [("any x in [0, m]", [(1, law.pmf(x, 1)), (1, law.pmf(x, 0))],
                 (x >= 0, x <= law.m))]
    if isinstance(law, ExponentialMechanism):
        us = utilities or sp.symbols("u_1:4", real=True)
        return [(f"utilities {tuple(us)}", [(1, law.pmf(list(us), r)) for r in range(len(us))],
                 ())]
    if isinstance(law, FiniteMechanism):
        return [(f"{x!r}", [(1, as_expr(v, f"pmf[{x!r}]")) for v in row.values()], ())
                for x, row in law.pmf.items()]
    raise InputError(f"{type(law).__name__} is not supported by Normalised; use a finite "
                     "mechanism, Laplace, Gaussian, TwoSidedGeometric or NoiseDensity.")


@dataclass(frozen=True, slots=True)
class Normalised:
    """Claim: the pmf/density of `law` is a probability distribution for every parameter value:
    non-negative, and summing (integrating) to 1 over its outputs.

    `law` is a finite mechanism (AlphaCoinRR, ForcedResponse, KAryRR, OneBitTelemetry,
    ExponentialMechanism with `utilities` (default three symbolic utilities), FiniteMechanism),
    an additive mechanism (Laplace, Gaussian, TwoSidedGeometric: its noise law) or a
    :class:`NoiseDensity`. The probability simplex is notes 004, "Probability Simplex"."""

    law: Any
    utilities: tuple = ()

    def __post_init__(self):
        object.__setattr__(self, "utilities",
                           tuple(as_expr(u, "utility") for u in self.utilities))
        if isinstance(self.law, (NoiseDensity, Laplace, Gaussian, TwoSidedGeometric)):
            noise_law(self.law)  # raises InputError for parameters outside the domain
        else:
            _finite_rows(self.law, self.utilities)  # raises InputError when unsupported
            _check_domain(self.law.domain(), type(self.law).__name__)

    def _name(self) -> str:
        if isinstance(self.law, NoiseDensity):
            return f"{self.law.name} {self.law.expr}"
        if isinstance(self.law, ExponentialMechanism):
            us = self.utilities or sp.symbols("u_1:4", real=True)
            return f"ExponentialMechanism (utilities {', '.join(map(str, us))})"
        if isinstance(self.law, FiniteMechanism):
            return f"FiniteMechanism {self.law.name!r}"
        return type(self.law).__name__

    def statement(self) -> str:
        return (f"{self._name()}: the pmf/density is >= 0 and sums/integrates to 1 for every "
                "parameter value")

    def check(self, *, id="", source="", expect="holds", statement=None) -> ProofResult:
        start = time.perf_counter()
        meta = _meta(id, source, expect, statement)
        if isinstance(self.law, (NoiseDensity, Laplace, Gaussian, TwoSidedGeometric)):
            return self._check_density(meta, start)
        return self._check_rows(meta, start)

    # densities and pmfs on the reals/integers
    def _check_density(self, meta, start) -> ProofResult:
        law = noise_law(self.law)
        v, dom = law.variable, list(law.domain)
        kind = "integral over the reals" if law.support == "reals" else "sum over the integers"
        steps = [f"noise law g({v}) = {law.expr} (translation y = f(x) + t)"
                 if not isinstance(self.law, NoiseDensity) else f"g({v}) = {law.expr}"]
        nonneg = _nonneg(law.expr, dom)
        steps.append(f"g >= 0: {nonneg or 'not shown'}")
        try:
            mass = _raw_moment(law, 0)
        except _Undecided as exc:
            steps.append(f"{kind}: {exc}")
            return self._search_density(meta, start, law, steps, None, nonneg,
                                        reason=f"the {kind} was not evaluated: {exc}")
        steps.append(f"{kind} of g (both half-lines) = {mass}")
        if _is_zero(mass - 1) and nonneg:
            return make_result(meta, self.statement(), Verdict.PROVED,
                               f"{kind} by SymPy (exactly 1), g >= 0 by {nonneg}", start,
                               steps=tuple(steps))
        return self._search_density(meta, start, law, steps, mass, nonneg,
                                    reason="mass 1 and g >= 0 not both shown")

    def _search_density(self, meta, start, law, steps, mass, nonneg, reason) -> ProofResult:
        v = law.variable
        # A density is only defined up to null sets: a negative value at one point refutes it
        # only where the expression is continuous (then it is negative on a neighbourhood).
        # A pmf on the integers is checked pointwise.
        if law.support == "integers":
            where = _INTEGER_POINTS
        else:
            where = _REAL_POOL if _continuous(law.expr) else ()
        for values in _points(law.parameters, law.domain, limit=8):
            if not nonneg:
                for y in where:
                    g = law.expr.xreplace({**values, v: y})
                    bad, how = _greater(0, g)
                    if bad:
                        cex = Counterexample(_params(values), ("-", "-"), f"g({v} = {y})",
                                             f"-g({y}) = {_show(-g)}", "0", how,
                                             note="a density/pmf must be >= 0")
                        return make_result(meta, self.statement(), Verdict.REFUTED,
                                           "negative value, re-checked", start,
                                           counterexample=cex, steps=tuple(steps))
            if mass is None or _is_zero(mass - 1):
                continue
            try:
                total = _raw_moment(law, 0, values)  # recomputed at the concrete values
            except _Undecided:
                continue
            bad, how = _differ(total, 1)
            if bad:
                cex = Counterexample(_params(values), ("-", "-"), "total mass",
                                     f"|total - 1| = |{_show(total)} - 1|", "0", how,
                                     note="mass recomputed at these values by SymPy")
                return make_result(meta, self.statement(), Verdict.REFUTED,
                                   "total mass at concrete values, re-checked", start,
                                   counterexample=cex, steps=tuple(steps))
        return make_result(meta, self.statement(), Verdict.UNKNOWN, "symbolic integration",
                           start, reason=reason + "; no counterexample found",
                           steps=tuple(steps))

    # finite mechanisms
    def _check_rows(self, meta, start) -> ProofResult:
        rows = _finite_rows(self.law, self.utilities)
        domain = tuple(self.law.domain())
        _check_domain(domain, type(self.law).__name__)
        steps, ok = [], True
        for label, entries, extra in rows:
            dom = [*domain, *extra]
            total = sum(mult * p for mult, p in entries)
            one = _is_zero(total - 1)
            signs = [_nonneg(p, dom) for _m, p in entries]
            steps.append(f"row {label}: sum = {sp.simplify(total)} "
                         f"({'exactly 1' if one else 'not shown to be 1'}); entries >= 0: "
                         f"{'yes' if all(signs) else 'not shown'}")
            ok &= one and all(signs)
        if ok:
            return make_result(meta, self.statement(), Verdict.PROVED,
                               "exact algebra (SymPy) and z3 for the signs", start,
                               steps=tuple(steps))
        for label, entries, extra in rows:
            free = set().union(*(sp.sympify(p).free_symbols for _m, p in entries),
                               *(sp.sympify(m).free_symbols for m, _p in entries),
                               *(sp.sympify(c).free_symbols for c in domain))
            for values in _points(free, [*domain, *extra]):
                probs = [(sp.sympify(m).xreplace(values), sp.sympify(p).xreplace(values))
                         for m, p in entries]
                total = sum(m * p for m, p in probs)
                bad, how = _differ(total, 1)
                if bad:
                    cex = Counterexample(_params(values), (label, "-"), "sum of the row",
                                         f"|sum - 1| = |{_show(total)} - 1|", "0", how)
                    return make_result(meta, self.statement(), Verdict.REFUTED,
                                       "row sum at concrete values, re-checked", start,
                                       counterexample=cex, steps=tuple(steps))
                for i, (_m, p) in enumerate(probs):
                    neg, how = _greater(0, p)
                    if neg:
                        cex = Counterexample(_params(values), (label, "-"), f"entry {i}",
                                             f"-P = {_show(-p)}", "0", how)
                        return make_result(meta, self.statement(), Verdict.REFUTED,
                                           "negative probability, re-checked", start,
                                           counterexample=cex, steps=tuple(steps))
        return make_result(meta, self.statement(), Verdict.UNKNOWN, "exact algebra", start,
                           reason="rows not shown to be distributions; no counterexample",
                           steps=tuple(steps))


# --- Moment -----------------------------------------------------------------------------------


_KINDS = ("mean", "variance")


def _moment(law: NoiseDensity, kind: str, values: dict | None = None) -> sp.Expr:
    m1 = _raw_moment(law, 1, values)
    if kind == "mean":
        return m1
    return sp.simplify(_raw_moment(law, 2, values) - m1**2)


@dataclass(frozen=True, slots=True)
class Moment:
    """Claim: the noise of `law` (Laplace, Gaussian, TwoSidedGeometric or a NoiseDensity) has
    mean (``kind='mean'``) or variance (``kind='variance'``) equal to `value`, an expression in
    the law's parameters, for every parameter value: E[X] = integral of x g(x) (a sum for the
    integers), Var[X] = E[X^2] - E[X]^2, computed by SymPy on the two half-lines. The law must
    also be shown to be normalised. Lap(b): 0 and 2 b^2; N(0, sigma^2): 0 and sigma^2;
    two-sided geometric: 0 and 2a/(1 - a)^2 with a = exp(-1/b) (:func:`geometric_ratio`)."""

    law: Any
    kind: str
    value: Any

    def __post_init__(self):
        if self.kind not in _KINDS:
            raise InputError(f"kind={self.kind!r} is not known; use 'mean' or 'variance'.")
        table = symbols_of(noise_law(self.law).expr, *noise_law(self.law).domain)
        object.__setattr__(self, "value", by_name(as_expr(self.value, "value", table), table))
        noise_law(self.law)  # raises InputError for laws without a density

    def statement(self) -> str:
        law = noise_law(self.law)
        return f"the {self.kind} of {law.name} ({law.expr}) is {self.value}"

    def check(self, *, id="", source="", expect="holds", statement=None) -> ProofResult:
        start = time.perf_counter()
        meta = _meta(id, source, expect, statement)
        law = noise_law(self.law)
        steps = [f"g({law.variable}) = {law.expr}"]
        try:
            mass = _raw_moment(law, 0)
            got = _moment(law, self.kind)
        except _Undecided as exc:
            return make_result(meta, self.statement(), Verdict.UNKNOWN, "symbolic integration",
                               start, reason=str(exc), steps=tuple(steps))
        normalised = _is_zero(mass - 1) and _nonneg(law.expr, law.domain) is not None
        steps += [f"total mass = {mass}", f"{self.kind} = {got}"]
        if _is_zero(got - self.value):
            if normalised:
                return make_result(meta, self.statement(), Verdict.PROVED,
                                   "symbolic integration/summation (SymPy), difference exactly 0",
                                   start, steps=tuple(steps))
            return make_result(meta, self.statement(), Verdict.UNKNOWN, "symbolic integration",
                               start, reason="the law is not shown to be a distribution "
                               "(non-negative, total mass 1)",
                               steps=tuple(steps))
        symbols = law.parameters | self.value.free_symbols
        for values in _points(symbols, law.domain, limit=12):
            closed = got.xreplace(values)
            claimed = self.value.xreplace(values)
            bad, _how = _differ(closed, claimed)
            if not bad:
                continue
            try:  # re-check: the moment recomputed from the density at these values
                recomputed = _moment(law, self.kind, values)
            except _Undecided:
                continue
            bad, how = _differ(recomputed, claimed)
            if bad:
                cex = Counterexample(_params(values), ("-", "-"), self.kind,
                                     f"|{self.kind} - claimed| = |{_show(recomputed)} - "
                                     f"{_show(claimed)}|", "0", how,
                                     note=f"{self.kind} recomputed at these values by SymPy")
                return make_result(meta, self.statement(), Verdict.REFUTED,
                                   f"{self.kind} at concrete values, re-checked", start,
                                   counterexample=cex, steps=tuple(steps))
        return make_result(meta, self.statement(), Verdict.UNKNOWN, "symbolic integration",
                           start, reason=f"{self.kind} - claimed = {sp.simplify(got - self.value)}"
                           " not shown to be 0 or non-zero", steps=tuple(steps))


# --- NoisyMeanVariance ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class NoisyMeanVariance:
    """Claim: the mean f(x) = (1/n) sum x_i of n values in [0, 1], released as f(x) + noise,
    has Var[f(x) + noise | x] = `value`.

    Replace-one neighbours change one x_j, so |f(x) - f(x')| = |x_j - x'_j|/n <= 1/n, attained at
    x_j = 1, x'_j = 0: the sensitivity is Delta = 1/n (notes 000, "L1-sensitivity", Example).
    ``noise='laplace'``: Lap(Delta/eps) = Lap(1/(eps n)) (Dwork and Roth 2014, Thm 3.6), so
    Var = 2/(eps n)^2 (notes 000, "Def Laplace mechanism", Example); ``noise='gaussian'``:
    N(0, sigma^2) with `sigma` (any expression, e.g. a calibration), so Var = sigma^2. Given the
    data f(x) = c is a constant and Var[c + N] = E[(c + N)^2] - E[c + N]^2 = Var[N] (linearity
    of expectation), with the moments of N computed by SymPy."""

    value: Any
    noise: str = "laplace"
    n: Any = N
    epsilon: Any = sym("epsilon")
    sigma: Any = sym("sigma")

    def __post_init__(self):
        if self.noise not in ("laplace", "gaussian"):
            raise InputError(f"noise={self.noise!r} is not known; use 'laplace' or 'gaussian'.")
        for name in ("n", "epsilon", "sigma"):
            object.__setattr__(self, name, as_expr(getattr(self, name), name))
        # the value's n, epsilon and sigma are the fields (symbols or numbers), matched by name
        table = {"n": self.n, "epsilon": self.epsilon, "sigma": self.sigma}
        object.__setattr__(self, "value", by_name(as_expr(self.value, "value"), table))
        if self.n.is_number and not (self.n.is_integer and self.n >= 1):
            raise InputError(f"n={self.n} must be a positive integer (the number of values).")
        checks = [self.epsilon > 0] + ([self.sigma > 0] if self.noise == "gaussian" else [])
        _check_domain(checks, "NoisyMeanVariance")

    def statement(self) -> str:
        noise = (f"Lap({1 / (self.epsilon * self.n)})" if self.noise == "laplace"
                 else f"N(0, ({self.sigma})^2)")
        return (f"mean of {self.n} values in [0, 1] + {noise}: Var[release | data] = "
                f"{self.value}")

    def _law(self, sigma=None) -> NoiseDensity:
        delta = 1 / self.n
        if self.noise == "laplace":
            return noise_law(Laplace.calibrated(self.epsilon, delta))
        return noise_law(Gaussian(self.sigma if sigma is None else sigma, delta))

    def _domain(self) -> list:
        return [self.n >= 1, self.epsilon > 0]

    def check(self, *, id="", source="", expect="holds", statement=None) -> ProofResult:
        start = time.perf_counter()
        meta = _meta(id, source, expect, statement)
        xj, xpj = sp.symbols("x_j xp_j", real=True)
        n = self.n
        box = [xj >= 0, xj <= 1, xpj >= 0, xpj <= 1, n >= 1]
        sens = _holds(sp.Abs(xj - xpj) / n, 1 / n, box)
        attained = _is_zero((sp.Abs(xj - xpj) / n).subs({xj: 1, xpj: 0}) - 1 / n)
        steps = [(f"sensitivity: |x_j - x'_j|/n <= 1/n for x_j, x'_j in [0, 1]: "
                  f"{'z3' if sens else 'not shown'}; attained at (1, 0): {attained}")]
        # Gaussian: moments for a positive symbol s, then s := sigma (needs sigma > 0)
        s = sp.Dummy("sigma", positive=True)
        law = self._law(s)
        positive = self.noise == "laplace" or self.sigma.is_positive is True or _holds(
            0, self.sigma, self._domain(), True)
        try:
            mass, m1, m2 = (_raw_moment(law, j).xreplace({s: self.sigma}) for j in (0, 1, 2))
        except _Undecided as exc:
            return make_result(meta, self.statement(), Verdict.UNKNOWN, "symbolic integration",
                               start, reason=str(exc), steps=tuple(steps))
        law = self._law()
        nonneg = _nonneg(law.expr, law.domain)
        var = sp.simplify(sp.expand((_C**2 + 2 * _C * m1 + m2) - (_C + m1) ** 2))
        steps += [f"noise {law.expr}: mass {mass}, E[N] = {m1}, E[N^2] = {m2}",
                  f"Var[c + N] = (c^2 + 2c E[N] + E[N^2]) - (c + E[N])^2 = {var}"]
        if not positive:
            steps.append(f"sigma = {self.sigma} not shown to be > 0")
        if sens and attained and positive and nonneg and _is_zero(mass - 1) \
                and _C not in var.free_symbols and _is_zero(var - self.value):
            return make_result(meta, self.statement(), Verdict.PROVED,
                               "sensitivity by z3; variance by symbolic integration (SymPy)",
                               start, steps=tuple(steps))
        symbols = (var.free_symbols | self.value.free_symbols | law.parameters) - {_C}
        for values in _points(symbols, self._domain(), limit=12):
            claimed = self.value.xreplace(values)
            bad, _how = _differ(var.xreplace(values), claimed)
            if not bad:
                continue
            try:
                recomputed = _moment(law, "variance", values)
            except _Undecided:
                continue
            bad, how = _differ(recomputed, claimed)
            if bad:
                cex = Counterexample(_params(values), ("data mean c", "-"), "Var[c + N]",
                                     f"|Var - claimed| = |{_show(recomputed)} - "
                                     f"{_show(claimed)}|", "0", how,
                                     note="noise variance recomputed at these values by SymPy")
                return make_result(meta, self.statement(), Verdict.REFUTED,
                                   "variance at concrete values, re-checked", start,
                                   counterexample=cex, steps=tuple(steps))
        return make_result(meta, self.statement(), Verdict.UNKNOWN, "symbolic integration",
                           start, reason="no proof and no counterexample", steps=tuple(steps))


# --- distances between distributions on m points ----------------------------------------------

TV = sp.Symbol("TV", real=True)  # total variation, (1/2) sum |P - Q|
L1 = sp.Symbol("L1", real=True)  # sum |P - Q|
L2 = sp.Symbol("L2", real=True)  # sqrt(sum (P - Q)^2)
KL = sp.Symbol("KL", real=True)  # sum P ln(P/Q), natural log (finite: supp P within supp Q)
EMD = sp.Symbol("EMD", real=True)  # ordered EMD, (1/(m-1)) sum_i |sum_{j<=i} (P - Q)_j|
EMD_CAT = sp.Symbol("EMD_cat", real=True)  # EMD with equal ground distance (categorical)
M = sp.Symbol("m", integer=True, positive=True)  # number of points
_NAMES = {"TV": TV, "L1": L1, "L2": L2, "KL": KL, "EMD": EMD, "EMD_cat": EMD_CAT, "m": M}
_ORDER = (TV, L1, L2, KL, EMD, EMD_CAT, M)


@dataclass(frozen=True, slots=True)
class DistanceFact:
    """A proved (or not) fact about the distances of every pair of distributions P, Q on m
    points: `relations` hold together; `steps` is its structured proof."""

    name: str
    relations: tuple
    statement: str
    proved: bool
    method: str
    steps: tuple[str, ...]
    source: str = ""


class _Proof:
    """Accumulates the steps of a structured proof; `ok` is False once a step is not shown."""

    def __init__(self) -> None:
        self.steps: list[str] = []
        self.ok = True

    def zero(self, label: str, expr: sp.Expr) -> None:
        """Logarithms are expanded with force=True: every proof below uses it only where all
        logarithm arguments are positive on the step's domain, where the expansion is exact."""
        done = _is_zero(sp.expand_log(sp.sympify(expr), force=True))
        how = "SymPy simplifies the difference to 0" if done else "NOT SHOWN"
        self.steps.append(f"{label}: {how}")
        self.ok &= done

    def le(self, label: str, lhs, rhs, constraints=(), strict=False) -> None:
        done = _holds(lhs, rhs, constraints, strict)
        self.steps.append(f"{label}: {'z3 (unsat negation)' if done else 'NOT SHOWN'}")
        self.ok &= done

    def eq(self, label: str, lhs, rhs, constraints=()) -> None:
        done = _holds(lhs, rhs, constraints) and _holds(rhs, lhs, constraints)
        self.steps.append(f"{label}: {'z3, both directions' if done else 'NOT SHOWN'}")
        self.ok &= done

    def text(self, label: str) -> None:
        self.steps.append(label)

    def fact(self, name, relations, statement, method, source) -> DistanceFact:
        return DistanceFact(name, tuple(relations), statement, self.ok, method,
                            tuple(self.steps), source)


_LLV07 = ("Li, Li, Venkatasubramanian (2007), t-Closeness: privacy beyond k-anonymity and "
          "l-diversity, ICDE, Sec. 4.2")
_CT06 = "Cover and Thomas (2006), Elements of Information Theory, 2nd ed."
_N003 = 'notes 003, "Epsilon-closeness" (L2, L1, variational distance, KL)'


def _fact_definitions() -> DistanceFact:
    pr = _Proof()
    x = sp.Symbol("x", real=True)
    pr.text("definitions (auditor.closeness.core.distribution_distance, notes 003): d = P - Q, "
            "TV = (1/2) sum |d_i|, L1 = sum |d_i|, L2 = sqrt(sum d_i^2), EMD = (1/(m-1)) "
            "sum_{i<m} |d_1 + ... + d_i| (0 when m = 1), EMD_cat = min transport cost with "
            "ground distance 1")
    pr.le("|x| >= 0, so TV, L1, EMD >= 0; a square root is >= 0, so L2 >= 0", 0, sp.Abs(x))
    pr.text("TV = L1/2: the same sum, halved (definition)")
    return pr.fact("definitions", [sp.Eq(TV, L1 / 2), L1 >= 0, L2 >= 0, EMD >= 0,
                                   EMD_CAT >= 0],
                   "TV = L1/2; TV, L1, L2, EMD, EMD_cat >= 0", "definitions", _N003)


def _fact_l2_le_l1() -> DistanceFact:
    pr = _Proof()
    A, B, a, u, w = sp.symbols("A B a u w", nonnegative=True)
    x = sp.Symbol("x", real=True)
    pr.text("induction on m with A_m = sum_{i<=m} |d_i| (= L1), B_m = sum_{i<=m} d_i^2 (= L2^2)")
    pr.zero("base m = 1: B_1 = d_1^2 = |d_1|^2 = A_1^2", sp.Abs(x) ** 2 - x**2)
    pr.le("step: B <= A^2, A, a >= 0 imply B + a^2 <= (A + a)^2 (cross term 2 A a >= 0)",
          B + a**2, (A + a) ** 2, [B <= A**2])
    pr.le("L2^2 <= L1^2 with L1, L2 >= 0 gives L2 <= L1", u, w, [u**2 <= w**2])
    return pr.fact("l2_le_l1", [L2 <= L1], "L2 <= L1", "induction on m, steps by z3",
                   "sum of squares <= square of the sum of absolute values")


def _fact_cauchy_schwarz() -> DistanceFact:
    pr = _Proof()
    A, B, a = sp.symbols("A B a", nonnegative=True)
    m = sp.Symbol("m", positive=True)
    x = sp.Symbol("x", real=True)
    pr.text("induction on m with A_m = sum |d_i| (= L1), B_m = sum d_i^2 (= L2^2): "
            "A_m^2 <= m B_m")
    pr.zero("base m = 1: A_1^2 = |d_1|^2 = 1 * B_1", sp.Abs(x) ** 2 - x**2)
    pr.le("step: A^2 <= m B, m >= 1 imply (A + a)^2 <= (m + 1)(B + a^2) "
          "(2 A a <= A^2/m + m a^2)", (A + a) ** 2, (m + 1) * (B + a**2), [A**2 <= m * B, m >= 1])
    pr.text("L1^2 <= m L2^2 with L1, L2 >= 0 is L1 <= sqrt(m) L2")
    return pr.fact("cauchy_schwarz", [L1**2 <= M * L2**2], "L1 <= sqrt(m) L2",
                   "induction on m, steps by z3", "Cauchy-Schwarz inequality")


def _fact_tv_le_1() -> DistanceFact:
    pr = _Proof()
    p, q, l1 = sp.symbols("p q l1", nonnegative=True)
    pr.le("|p_i - q_i| <= p_i + q_i for p_i, q_i >= 0", sp.Abs(p - q), p + q)
    pr.text("summing: L1 <= sum p_i + sum q_i = 2")
    pr.le("L1 <= 2 gives TV = L1/2 <= 1", l1 / 2, 1, [l1 <= 2])
    return pr.fact("tv_le_1", [TV <= 1], "TV <= 1", "termwise bound by z3", _N003)


def _unimodal(pr: _Proof, label: str, f, x, x0, fprime, constraints) -> None:
    """f >= f(x0) = 0 on an interval containing x0: f(x0) = 0 and f' = fprime exactly (SymPy),
    (x - x0) f'(x) >= 0 (z3): by the mean value theorem f decreases left of x0 and increases
    right of it."""
    pr.zero(f"{label}: f({x0}) = 0", sp.sympify(f).subs(x, x0))
    pr.zero(f"{label}: f'({x}) = {fprime}", sp.diff(f, x) - fprime)
    pr.le(f"{label}: ({x} - {x0}) f'({x}) >= 0, so f decreases then increases, minimum "
          f"f({x0}) = 0", 0, (x - x0) * fprime, constraints)


def _fact_gibbs() -> DistanceFact:
    pr = _Proof()
    x = sp.Symbol("x", positive=True)
    p, q = sp.symbols("p q", positive=True)
    qs = sp.Symbol("Q_s", nonnegative=True)
    _unimodal(pr, "ln x <= x - 1 (g = x - 1 - ln x, x0 = 1)", x - 1 - sp.log(x), x, 1,
              1 - 1 / x, [])
    pr.zero("p ln(p/q) = -p ln(q/p)", p * sp.log(p / q) + p * sp.log(q / p))
    pr.zero("-p (q/p - 1) = p - q, so p ln(p/q) >= p - q for p, q > 0", -p * (q / p - 1) - (p - q))
    pr.text("summing over supp P: KL >= sum_{p_i > 0} (p_i - q_i) = 1 - Q(supp P)")
    pr.le("Q(supp P) <= 1 gives 1 - Q(supp P) >= 0", 0, 1 - qs, [qs <= 1])
    return pr.fact("gibbs", [KL >= 0], "KL(P||Q) >= 0", "ln x <= x - 1 (SymPy, z3)",
                   f"Gibbs' inequality; {_CT06}, Thm 2.6.3")


def _kl_bin(s, t):
    return s * sp.log(s / t) + (1 - s) * sp.log((1 - s) / (1 - t))


def _fact_pinsker() -> DistanceFact:
    pr = _Proof()
    p, q = sp.symbols("p q", positive=True)
    p0 = sp.Symbol("p", nonnegative=True)
    fprime = (q - p) * (1 / (q * (1 - q)) - 4)
    pr.text("binary case: f(q) = p ln(p/q) + (1-p) ln((1-p)/(1-q)) - 2 (p - q)^2 >= 0 "
            "for p in [0, 1], q in (0, 1)")
    _unimodal(pr, "0 < p < 1", _kl_bin(p, q) - 2 * (p - q) ** 2, q, p, fprime,
              [p < 1, q < 1])
    pr.le("q (1 - q) <= 1/4, so 1/(q (1 - q)) - 4 >= 0", q * (1 - q), sp.Rational(1, 4))
    pr.le("(q - p) f'(q) = (q - p)^2 (1/(q(1-q)) - 4) >= 0 also for p in {0, 1}", 0,
          (q - p0) * fprime.subs(p, p0), [p0 <= 1, q < 1])
    f0, f1 = -sp.log(1 - q) - 2 * q**2, -sp.log(q) - 2 * (1 - q) ** 2
    pr.zero("p = 0 (0 ln 0 = 0): f = -ln(1-q) - 2q^2 has f' = (q - 0)(1/(q(1-q)) - 4)",
            sp.diff(f0, q) - fprime.subs(p, 0))
    pr.zero("p = 1: f = -ln q - 2(1-q)^2 has f' = (q - 1)(1/(q(1-q)) - 4)",
            sp.diff(f1, q) - fprime.subs(p, 1))
    pr.zero("p = 0: f -> f(0) = 0 as q -> 0; p = 1: f(1) = 0 as q -> 1 (f monotone on (0, 1))",
            f0.subs(q, 0) + f1.subs(q, 1))
    pr.text("q in {0, 1} with KL finite forces p = q: both sides are 0")
    a, b, c, d = sp.symbols("a b c d", positive=True)
    s, t = a / (a + c), b / (b + d)
    pr.zero("grouping two points: a ln(a/b) + c ln(c/d) = (a+c) ln((a+c)/(b+d)) + "
            "(a+c) KLbin(a/(a+c), b/(b+d))",
            a * sp.log(a / b) + c * sp.log(c / d) - (a + c) * sp.log((a + c) / (b + d))
            - (a + c) * _kl_bin(s, t))
    pr.zero("grouping with a = 0 (0 ln 0 = 0): KLbin(0, t) = ln(1/(1-t))",
            c * sp.log(c / d) - c * sp.log(c / (b + d)) - c * sp.log(1 / (1 - t)))
    pr.zero("grouping with c = 0: KLbin(1, t) = ln(1/t)",
            a * sp.log(a / b) - a * sp.log(a / (b + d)) - a * sp.log(1 / t))
    pr.text("KLbin >= 2 (s - t)^2 >= 0 (binary case), so merging two points never increases KL; "
            "merging point by point (induction on the group size; points with q_i = 0 have "
            "p_i = 0 and add nothing), the partition A = {p_i > q_i}, A^c gives "
            "KL(P||Q) >= KLbin(P(A), Q(A)) (data processing for KL; log-sum inequality, "
            f"{_CT06}, Thm 2.7.1)")
    sa, sc, pa, qa = sp.symbols("S_A S_c P_A Q_A", real=True)
    pr.eq("TV is preserved: S_A = sum_A d_i >= 0, S_c = sum_{A^c} d_i <= 0, S_A + S_c = 0, "
          "L1 = S_A - S_c give TV = L1/2 = S_A = P(A) - Q(A)",
          (sa - sc) / 2, sa, [sa >= 0, sc <= 0, sp.Eq(sa + sc, 0)])
    pr.eq("the binary pair (P(A), 1 - P(A)), (Q(A), 1 - Q(A)) has TV = P(A) - Q(A)",
          (sp.Abs(pa - qa) + sp.Abs((1 - pa) - (1 - qa))) / 2, pa - qa, [pa >= qa])
    pr.text("so KL(P||Q) >= KLbin(P(A), Q(A)) >= 2 (P(A) - Q(A))^2 = 2 TV^2, i.e. "
            "TV <= sqrt(KL/2)")
    return pr.fact("pinsker", [2 * TV**2 <= KL], "TV <= sqrt(KL/2) (Pinsker)",
                   "reduction to two points (grouping identity by SymPy) and the binary "
                   "inequality (f(p) = 0, f' by SymPy, sign of (q - p) f' by z3)",
                   f"Pinsker's inequality; {_CT06}, Lemma 11.6.1")


def _fact_emd_ordered() -> DistanceFact:
    pr = _Proof()
    u, v, t, pos, neg = sp.symbols("U V T Pos Neg", nonnegative=True)
    pr.text("d = P - Q sums to 0; Pos = sum d_i^+, Neg = sum d_i^-")
    pr.eq("Pos - Neg = 0 and TV = (Pos + Neg)/2 give Pos = Neg = TV", pos, (pos + neg) / 2,
          [sp.Eq(pos - neg, 0)])
    pr.le("a partial sum S_i = U_i - V_i with 0 <= U_i <= Pos = TV, 0 <= V_i <= Neg = TV has "
          "|S_i| <= TV", sp.Abs(u - v), t, [u <= t, v <= t])
    pr.text("EMD = (1/(m-1)) sum_{i<m} |S_i|: a mean of m - 1 terms, each <= TV, so EMD <= TV; "
            "m = 1: EMD = 0 <= TV (definition)")
    return pr.fact("emd_ordered_le_tv", [EMD <= TV], "ordered EMD <= TV",
                   "partial sums bounded by the positive mass (z3)", _LLV07)


def _fact_emd_categorical() -> DistanceFact:
    pr = _Proof()
    p, q = sp.symbols("p q", nonnegative=True)
    x = sp.Symbol("x", real=True)
    pr.text("a transport plan F (F_ij >= 0, rows sum to p_i, columns to q_j) costs "
            "sum_{i != j} F_ij = 1 - sum_i F_ii with ground distance 1; F_ii <= min(p_i, q_i)")
    pr.eq("min(p, q) = p - (p - q)^+", sp.Min(p, q), p - sp.Max(p - q, 0))
    pr.eq("(x)^+ = (|x| + x)/2", sp.Max(x, 0), (sp.Abs(x) + x) / 2)
    pr.text("so every plan costs >= 1 - sum min(p_i, q_i) = sum (p_i - q_i)^+ = (L1 + 0)/2 = TV; "
            "the plan that keeps min(p_i, q_i) in place and moves each surplus (p_i - q_i)^+ to "
            "the deficits costs exactly TV (Li et al. 2007, Sec. 4.2); the closeness tool "
            "computes the categorical EMD as TV")
    return pr.fact("emd_categorical_eq_tv", [sp.Eq(EMD_CAT, TV)], "categorical EMD = TV",
                   "transport argument, identities by z3", _LLV07)


@lru_cache(maxsize=1)
def distance_facts() -> tuple[DistanceFact, ...]:
    """The distance facts with their structured proofs (computed once)."""
    return (_fact_definitions(), _fact_l2_le_l1(), _fact_cauchy_schwarz(), _fact_tv_le_1(),
            _fact_gibbs(), _fact_pinsker(), _fact_emd_ordered(), _fact_emd_categorical())


class _Unsupported(Exception):
    pass


class _DistanceZ3:
    """Polynomials and square roots of the distance symbols as z3 terms. A square root is a
    fresh r >= 0 with r^2 = base when base >= 0; `defined` collects base >= 0 and non-zero
    denominators, which the proof must also establish."""

    def __init__(self) -> None:
        self.vars: dict = {}
        self.side: list = []
        self.defined: list = []

    def var(self, s: sp.Symbol):
        if s not in self.vars:
            self.vars[s] = z3.Real(s.name)
        return self.vars[s]

    def term(self, e):
        e = sp.sympify(e)
        if e.is_Rational:
            return z3.RealVal(f"{e.p}/{e.q}")
        if isinstance(e, sp.Symbol):
            return self.var(e)
        if e.is_Add:
            return z3.Sum([self.term(a) for a in e.args])
        if e.is_Mul:
            return z3.Product([self.term(a) for a in e.args])
        if e.is_Pow and e.exp.is_Rational and e.exp.q in (1, 2):
            base = self.term(e.base)
            if e.exp.q == 2:
                r = z3.FreshReal("sqrt")
                self.side += [r >= 0, z3.Implies(base >= 0, r * r == base)]
                self.defined.append(base >= 0)
                base = r
            k = int(e.exp.p)
            if k == 0:
                return z3.RealVal(1)
            if k > 0:
                return base if k == 1 else base**k
            self.defined.append(base != 0)
            return 1 / (base if k == -1 else base ** (-k))
        raise _Unsupported(f"{type(e).__name__} in {e}")

    def rel(self, c):
        ops = {sp.StrictLessThan: lambda a, b: a < b, sp.LessThan: lambda a, b: a <= b,
               sp.StrictGreaterThan: lambda a, b: a > b, sp.GreaterThan: lambda a, b: a >= b,
               sp.Equality: lambda a, b: a == b}
        for kind, op in ops.items():
            if isinstance(c, kind):
                return op(self.term(c.lhs), self.term(c.rhs))
        raise _Unsupported(f"relation {c}")


def _derive(lhs, rhs, relation, facts) -> tuple[list | None, str]:
    """The proved facts z3 needs to derive lhs <= rhs (or ==), or None and the reason."""
    tr = _DistanceZ3()
    try:
        left, right = tr.term(lhs), tr.term(rhs)
        formulas = [(f, z3.And([tr.rel(r) for r in f.relations])) for f in facts if f.proved]
        m = tr.var(M)
    except _Unsupported as exc:
        return None, f"outside the z3 fragment (polynomials and square roots): {exc}"
    goal = left <= right if relation == "<=" else left == right
    solver = z3.Solver()
    solver.set("timeout", 5000)
    solver.add(*tr.side, m >= 1)
    flags = []
    for i, (fact, formula) in enumerate(formulas):
        flag = z3.Bool(f"fact_{i}_{fact.name}")
        flags.append((flag, fact))
        solver.add(z3.Implies(flag, formula))
    undefined = z3.Not(z3.And(tr.defined)) if tr.defined else z3.BoolVal(False)
    solver.add(z3.Or(z3.Not(goal), undefined))
    answer = solver.check(*[flag for flag, _f in flags])
    if answer == z3.unsat:
        core = {str(c) for c in solver.unsat_core()}
        needed = [(flag, f) for flag, f in flags if str(flag) in core]
        for item in list(needed):  # drop facts the derivation does not need
            trial = [other for other in needed if other is not item]
            if solver.check(*[flag for flag, _f in trial]) == z3.unsat:
                needed = trial
        return [f for _flag, f in needed], ""
    if answer == z3.sat:
        return None, "z3: the proved facts do not imply it"
    return None, f"z3 returned unknown ({solver.reason_unknown()})"


def _compositions(total: int, parts: int):
    if parts == 1:
        yield (total,)
        return
    for first in range(total + 1):
        for rest in _compositions(total - first, parts - 1):
            yield (first, *rest)


def _float_values(P, Q) -> tuple:
    d = [float(p - q) for p, q in zip(P, Q)]
    l1 = sum(abs(x) for x in d)
    cums = list(itertools.accumulate(d))
    m = len(P)
    emd = sum(abs(c) for c in cums[:-1]) / (m - 1) if m > 1 else 0.0
    if any(p > 0 and q == 0 for p, q in zip(P, Q)):
        kl = math.inf
    else:
        kl = sum(float(p) * math.log(p / q) for p, q in zip(P, Q) if p > 0)
    return (l1 / 2, l1, math.sqrt(sum(x * x for x in d)), kl, emd, l1 / 2, float(m))


@lru_cache(maxsize=1)
def _candidate_pairs() -> tuple:
    """Pairs of rational distributions on 2 to 5 points (small m first), with float distances."""
    F = Fraction
    grid = [F(0), F(1, 100), F(1, 10), F(1, 4), F(1, 3), F(1, 2), F(2, 3), F(3, 4), F(9, 10),
            F(99, 100), F(1)]
    pairs = []
    for m, den in ((2, None), (3, 4), (4, 3), (5, 2)):
        if den is None:
            vs = [(p, 1 - p) for p in grid]
        else:
            vs = [tuple(F(c, den) for c in comp) for comp in _compositions(den, m)]
        if m == 3:
            vs += [(F(1, 3),) * 3, (F(1, 2), F(1, 3), F(1, 6)), (F(1, 10), F(1, 10), F(4, 5))]
        pairs += [(P, Q, _float_values(P, Q)) for P in vs for Q in vs]
    return tuple(pairs)


def _exact_values(P, Q) -> dict:
    def R(f: Fraction) -> sp.Rational:
        return sp.Rational(f.numerator, f.denominator)

    d = [p - q for p, q in zip(P, Q)]
    m = len(P)
    l1 = sum(abs(x) for x in d)
    cums = list(itertools.accumulate(d))
    emd = sum(abs(c) for c in cums[:-1]) / (m - 1) if m > 1 else Fraction(0)
    kl = sum((R(p) * sp.log(R(p) / R(q)) for p, q in zip(P, Q) if p > 0), sp.Integer(0))
    return {TV: R(l1) / 2, L1: R(l1), L2: sp.sqrt(R(sum(x * x for x in d))), KL: kl,
            EMD: R(emd), EMD_CAT: R(l1) / 2, M: sp.Integer(m)}


def _distance_counterexample(lhs, rhs, relation) -> Counterexample | None:
    """A pair P, Q violating the claim: floats find candidates, exact/arb arithmetic decides."""
    f_lhs = sp.lambdify(_ORDER, lhs, modules="math")
    f_rhs = sp.lambdify(_ORDER, rhs, modules="math")
    uses_kl = KL in (lhs.free_symbols | rhs.free_symbols)
    for P, Q, fv in _candidate_pairs():
        if uses_kl and math.isinf(fv[3]):
            continue
        try:
            a, b = f_lhs(*fv), f_rhs(*fv)
        except (ValueError, ZeroDivisionError, OverflowError, TypeError):
            continue
        if not all(isinstance(v, (int, float)) and math.isfinite(v) for v in (a, b)):
            continue
        tol = 1e-9 * max(1.0, abs(a), abs(b))
        if not (a - b > tol if relation == "<=" else abs(a - b) > tol):
            continue
        exact = _exact_values(P, Q)
        lv, rv = lhs.xreplace(exact), rhs.xreplace(exact)
        bad, how = _greater(lv, rv) if relation == "<=" else _differ(lv, rv)
        if not bad:
            continue
        def show(v) -> str:
            return "(" + ", ".join(str(x) for x in v) + ")"

        used = sorted(lhs.free_symbols | rhs.free_symbols, key=str)
        values = ", ".join(f"{s} = {_show(exact[s])}" for s in used)
        def side(expr, value) -> str:
            return _show(value) if not expr.free_symbols else f"{expr} = {_show(value)}"

        if relation == "<=":
            ratio, bound = side(lhs, lv), side(rhs, rv)
        else:
            ratio, bound = f"|{lhs} - ({rhs})| = |{_show(lv)} - {_show(rv)}|", "0"
        return Counterexample({"m": len(P), "P": show(P), "Q": show(Q)}, (show(P), show(Q)),
                              values, ratio, bound, how)
    return None


def _distance_expr(value: Any, name: str) -> sp.Expr:
    e = parse(value, name, _NAMES) if isinstance(value, str) else as_expr(value, name)
    e = e.xreplace({s: _NAMES[s.name] for s in e.free_symbols
                    if isinstance(s, sp.Symbol) and s.name in _NAMES})
    unknown = e.free_symbols - set(_NAMES.values())
    if unknown:
        raise InputError(f"{name}={value!r} uses {', '.join(sorted(map(str, unknown)))}; write it "
                         f"in the distances {', '.join(_NAMES)}.")
    return e


@dataclass(frozen=True, slots=True)
class DistanceBound:
    """Claim: `lhs` <= `rhs` (``relation='<='``) or `lhs` == `rhs` (``'=='``) for every pair of
    distributions P, Q on m >= 1 points (with supp P within supp Q when KL occurs).

    `lhs` and `rhs` are formulas (strings or SymPy expressions) in TV, L1, L2, KL, EMD (the
    ordered EMD of the closeness tool), EMD_cat (the categorical EMD) and m. Proved when z3
    derives the claim (polynomials and square roots) from the proved :func:`distance_facts`;
    refuted by concrete rational distributions on 2 to 5 points, re-checked with exact
    rationals or arb balls; unknown otherwise."""

    lhs: Any
    rhs: Any
    relation: str = "<="

    def __post_init__(self):
        if self.relation not in ("<=", "=="):
            raise InputError(f"relation={self.relation!r}; use '<=' or '=='.")
        object.__setattr__(self, "lhs", _distance_expr(self.lhs, "lhs"))
        object.__setattr__(self, "rhs", _distance_expr(self.rhs, "rhs"))

    def statement(self) -> str:
        kl = KL in (self.lhs.free_symbols | self.rhs.free_symbols)
        return (f"{self.lhs} {self.relation} {self.rhs} for all distributions P, Q on m points"
                + (" with KL(P||Q) finite" if kl else ""))

    def check(self, *, id="", source="", expect="holds", statement=None) -> ProofResult:
        start = time.perf_counter()
        meta = _meta(id, source, expect, statement)
        facts = distance_facts()
        used, why = _derive(self.lhs, self.rhs, self.relation, facts)
        if used is not None:
            steps = []
            for f in used:
                steps.append(f"{f.name}: {f.statement} [{f.method}; {f.source}]")
                steps += [f"  {s}" for s in f.steps]
            names = ", ".join(f.name for f in used) or "no facts (m >= 1 only)"
            steps.append(f"z3: the claim follows from {names}")
            return make_result(meta, self.statement(), Verdict.PROVED,
                               f"structured proof: z3 from the proved facts {names}", start,
                               steps=tuple(steps))
        cex = _distance_counterexample(self.lhs, self.rhs, self.relation)
        if cex is not None:
            return make_result(meta, self.statement(), Verdict.REFUTED,
                               "concrete distributions, re-checked", start,
                               counterexample=cex, steps=(why,))
        unproved = [f.name for f in facts if not f.proved]
        reason = why + f"; no counterexample among {len(_candidate_pairs())} pairs"
        if unproved:
            reason += f"; facts not proved: {', '.join(unproved)}"
        return make_result(meta, self.statement(), Verdict.UNKNOWN, "z3 and search", start,
                           reason=reason, steps=(why,))
