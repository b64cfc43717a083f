"""Facts about distributions the notes use: normalisation, moments of the noise, and the
variance of a noisy mean, each proved for every parameter value by symbolic integration or
summation (SymPy) with every remaining step discharged by exact algebra or z3.

- ``Normalised``: a pmf or density is non-negative and sums (integrates) to 1. Densities on the
  reals are integrated on the two half-lines (y = s and y = -s, s > 0); two-sided geometric
  sums are split into z >= 0 and z < 0 and summed as geometric series in a = exp(-1/b).
- ``Moment``: the mean or variance of the noise, E[X] = integral of x g(x), Var[X] = E[X^2] -
  E[X]^2; the law must also be shown normalised before ``proved``.
- ``NoisyMeanVariance``: the mean of n values in [0, 1] has sensitivity 1/n (z3), and
  Var[f(x) + noise | x] = Var[noise] (linearity of expectation).

A SymPy call that returns an unevaluated Integral or Sum, raises NotImplementedError or leaves a
Piecewise that cannot be discharged gives ``unknown``, never ``proved``. Counterexamples are
concrete parameter values, re-checked with exact rationals or arb balls.
"""

from __future__ import annotations

import itertools

import sympy as sp
from sympy.functions.elementary.hyperbolic import HyperbolicFunction

from proofs.claims import Moment, NoisyMeanVariance, Normalised
from proofs.claims.distributions import (
    NoiseDensity,
    check_domain,
    finite_rows,
    holds_everywhere,
    noise_law,
)
from proofs.decide import differ, greater, is_zero, show
from proofs.mechanisms import Gaussian, Laplace, TwoSidedGeometric
from proofs.results import Counterexample, Finding, Verdict
from proofs.symbols import Y, Z

__all__ = ["check", "supports"]


# Dummies cannot capture a user's symbol of the same name.
_S = sp.Dummy("s", positive=True)  # y = s or y = -s on the two half-lines
_Z0 = sp.Dummy("z", integer=True, nonnegative=True)  # z >= 0


_K = sp.Dummy("k", integer=True, positive=True)  # z = -k <= -1


_R = sp.Dummy("r", positive=True)  # ratio of a geometric series, in (0, 1)


_C = sp.Dummy("c", real=True)  # the (fixed) value of the query on the data


_POOL = (sp.Rational(1, 2), sp.Integer(2), sp.Integer(1), sp.Integer(3), sp.Rational(1, 10),
         sp.Integer(10))


_REAL_POOL = (sp.Integer(0), sp.Rational(1, 2), sp.Integer(1), sp.Integer(-1), sp.Integer(2),
              sp.Rational(-1, 2), sp.Integer(3), sp.Integer(-3), sp.Integer(10))


_INT_POOL = (sp.Integer(1), sp.Integer(2), sp.Integer(3), sp.Integer(5), sp.Integer(10))


_MAX_POINTS = 40


class _Undecided(Exception):
    """SymPy or z3 could not settle a step; the claim is then unknown."""


def _closed(e: sp.Expr) -> bool:
    """A finite closed form: no unevaluated Integral/Sum/Piecewise and no infinities."""
    e = sp.sympify(e)
    return not (e.has(sp.Integral, sp.Sum, sp.Piecewise, sp.Limit, sp.Product)
                or e.has(sp.oo, -sp.oo, sp.zoo, sp.nan))


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
            return True if holds_everywhere(lhs, rhs, domain, True) else (
                False if holds_everywhere(rhs, lhs, domain) else None)
        if isinstance(cond, (sp.LessThan, sp.GreaterThan)):
            return True if holds_everywhere(lhs, rhs, domain) else (
                False if holds_everywhere(rhs, lhs, domain, True) else None)
        if isinstance(cond, (sp.Equality, sp.Unequality)):
            equal = True if (holds_everywhere(lhs, rhs, domain) and holds_everywhere(rhs, lhs, domain)) else (
                False if (holds_everywhere(lhs, rhs, domain, True) or holds_everywhere(rhs, lhs, domain, True))
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


def _nonneg(expr: sp.Expr, domain) -> str | None:
    """How `expr >= 0` was shown on the whole domain, or None."""
    e = sp.sympify(expr)
    if e.is_nonnegative:
        return "SymPy assumptions"
    if e.is_Mul and all(_nonneg(f, domain) for f in e.args):
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


def _params(values: dict) -> dict:
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
    negative = bool(c1 < 0) if not c1.free_symbols else holds_everywhere(c1, 0, domain, strict=True)
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
        if s.is_positive is not True and holds_everywhere(0, s, domain, strict=True)}
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


def _moment(law: NoiseDensity, kind: str, values: dict | None = None) -> sp.Expr:
    m1 = _raw_moment(law, 1, values)
    if kind == "mean":
        return m1
    return sp.simplify(_raw_moment(law, 2, values) - m1**2)


def _check_normalised(claim) -> Finding:
    if isinstance(claim.law, (NoiseDensity, Laplace, Gaussian, TwoSidedGeometric)):
        return _normalised_check_density(claim)
    return _normalised_check_rows(claim)


def _normalised_check_density(claim) -> Finding:
    law = noise_law(claim.law)
    v, dom = law.variable, list(law.domain)
    kind = "integral over the reals" if law.support == "reals" else "sum over the integers"
    steps = [f"noise law g({v}) = {law.expr} (translation y = f(x) + t)"
             if not isinstance(claim.law, NoiseDensity) else f"g({v}) = {law.expr}"]
    nonneg = _nonneg(law.expr, dom)
    steps.append(f"g >= 0: {nonneg or 'not shown'}")
    try:
        mass = _raw_moment(law, 0)
    except _Undecided as exc:
        steps.append(f"{kind}: {exc}")
        return _normalised_search_density(claim, law, steps, None, nonneg,
                                    reason=f"the {kind} was not evaluated: {exc}")
    steps.append(f"{kind} of g (both half-lines) = {mass}")
    if is_zero(mass - 1) and nonneg:
        return Finding(Verdict.PROVED, f"{kind} by SymPy (exactly 1), g >= 0 by {nonneg}", steps=tuple(steps))
    return _normalised_search_density(claim, law, steps, mass, nonneg,
                                reason="mass 1 and g >= 0 not both shown")


def _normalised_search_density(claim, law, steps, mass, nonneg, reason) -> Finding:
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
                bad, how = greater(0, g)
                if bad:
                    cex = Counterexample(_params(values), ("-", "-"), f"g({v} = {y})",
                                         f"-g({y}) = {show(-g)}", "0", how,
                                         note="a density/pmf must be >= 0")
                    return Finding(Verdict.REFUTED, "negative value, re-checked", counterexample=cex, steps=tuple(steps))
        if mass is None or is_zero(mass - 1):
            continue
        try:
            total = _raw_moment(law, 0, values)  # recomputed at the concrete values
        except _Undecided:
            continue
        bad, how = differ(total, 1)
        if bad:
            cex = Counterexample(_params(values), ("-", "-"), "total mass",
                                 f"|total - 1| = |{show(total)} - 1|", "0", how,
                                 note="mass recomputed at these values by SymPy")
            return Finding(Verdict.REFUTED, "total mass at concrete values, re-checked", counterexample=cex, steps=tuple(steps))
    return Finding(Verdict.UNKNOWN, "symbolic integration", reason=reason + "; no counterexample found", steps=tuple(steps))


def _normalised_check_rows(claim) -> Finding:
    rows = finite_rows(claim.law, claim.utilities)
    domain = tuple(claim.law.domain())
    check_domain(domain, type(claim.law).__name__)
    steps, ok = [], True
    for label, entries, extra in rows:
        dom = [*domain, *extra]
        total = sum(mult * p for mult, p in entries)
        one = is_zero(total - 1)
        signs = [_nonneg(p, dom) for _m, p in entries]
        steps.append(f"row {label}: sum = {sp.simplify(total)} "
                     f"({'exactly 1' if one else 'not shown to be 1'}); entries >= 0: "
                     f"{'yes' if all(signs) else 'not shown'}")
        ok &= one and all(signs)
    if ok:
        return Finding(Verdict.PROVED, "exact algebra (SymPy) and z3 for the signs", steps=tuple(steps))
    for label, entries, extra in rows:
        free = set().union(*(sp.sympify(p).free_symbols for _m, p in entries),
                           *(sp.sympify(m).free_symbols for m, _p in entries),
                           *(sp.sympify(c).free_symbols for c in domain))
        for values in _points(free, [*domain, *extra]):
            probs = [(sp.sympify(m).xreplace(values), sp.sympify(p).xreplace(values))
                     for m, p in entries]
            total = sum(m * p for m, p in probs)
            bad, how = differ(total, 1)
            if bad:
                cex = Counterexample(_params(values), (label, "-"), "sum of the row",
                                     f"|sum - 1| = |{show(total)} - 1|", "0", how)
                return Finding(Verdict.REFUTED, "row sum at concrete values, re-checked", counterexample=cex, steps=tuple(steps))
            for i, (_m, p) in enumerate(probs):
                neg, how = greater(0, p)
                if neg:
                    cex = Counterexample(_params(values), (label, "-"), f"entry {i}",
                                         f"-P = {show(-p)}", "0", how)
                    return Finding(Verdict.REFUTED, "negative probability, re-checked", counterexample=cex, steps=tuple(steps))
    return Finding(Verdict.UNKNOWN, "exact algebra", reason="rows not shown to be distributions; no counterexample", steps=tuple(steps))


def _check_moment(claim) -> Finding:
    law = noise_law(claim.law)
    steps = [f"g({law.variable}) = {law.expr}"]
    try:
        mass = _raw_moment(law, 0)
        got = _moment(law, claim.kind)
    except _Undecided as exc:
        return Finding(Verdict.UNKNOWN, "symbolic integration", reason=str(exc), steps=tuple(steps))
    normalised = is_zero(mass - 1) and _nonneg(law.expr, law.domain) is not None
    steps += [f"total mass = {mass}", f"{claim.kind} = {got}"]
    if is_zero(got - claim.value):
        if normalised:
            return Finding(Verdict.PROVED, "symbolic integration/summation (SymPy), difference exactly 0", steps=tuple(steps))
        return Finding(Verdict.UNKNOWN, "symbolic integration", reason="the law is not shown to be a distribution "
                           "(non-negative, total mass 1)", steps=tuple(steps))
    symbols = law.parameters | claim.value.free_symbols
    for values in _points(symbols, law.domain, limit=12):
        closed = got.xreplace(values)
        claimed = claim.value.xreplace(values)
        bad, _how = differ(closed, claimed)
        if not bad:
            continue
        try:  # re-check: the moment recomputed from the density at these values
            recomputed = _moment(law, claim.kind, values)
        except _Undecided:
            continue
        bad, how = differ(recomputed, claimed)
        if bad:
            cex = Counterexample(_params(values), ("-", "-"), claim.kind,
                                 f"|{claim.kind} - claimed| = |{show(recomputed)} - "
                                 f"{show(claimed)}|", "0", how,
                                 note=f"{claim.kind} recomputed at these values by SymPy")
            return Finding(Verdict.REFUTED, f"{claim.kind} at concrete values, re-checked", counterexample=cex, steps=tuple(steps))
    return Finding(Verdict.UNKNOWN, "symbolic integration", reason=f"{claim.kind} - claimed = {sp.simplify(got - claim.value)}"
                       " not shown to be 0 or non-zero", steps=tuple(steps))


def _noisy_mean_variance_law(claim, sigma=None) -> NoiseDensity:
    delta = 1 / claim.n
    if claim.noise == "laplace":
        return noise_law(Laplace.calibrated(claim.epsilon, delta))
    return noise_law(Gaussian(claim.sigma if sigma is None else sigma, delta))


def _noisy_mean_variance_domain(claim) -> list:
    return [claim.n >= 1, claim.epsilon > 0]


def _check_noisy_mean_variance(claim) -> Finding:
    xj, xpj = sp.symbols("x_j xp_j", real=True)
    n = claim.n
    box = [xj >= 0, xj <= 1, xpj >= 0, xpj <= 1, n >= 1]
    sens = holds_everywhere(sp.Abs(xj - xpj) / n, 1 / n, box)
    attained = is_zero((sp.Abs(xj - xpj) / n).subs({xj: 1, xpj: 0}) - 1 / n)
    steps = [(f"sensitivity: |x_j - x'_j|/n <= 1/n for x_j, x'_j in [0, 1]: "
              f"{'z3' if sens else 'not shown'}; attained at (1, 0): {attained}")]
    # Gaussian: moments for a positive symbol s, then s := sigma (needs sigma > 0)
    s = sp.Dummy("sigma", positive=True)
    law = _noisy_mean_variance_law(claim, s)
    positive = claim.noise == "laplace" or claim.sigma.is_positive is True or holds_everywhere(
        0, claim.sigma, _noisy_mean_variance_domain(claim), True)
    try:
        mass, m1, m2 = (_raw_moment(law, j).xreplace({s: claim.sigma}) for j in (0, 1, 2))
    except _Undecided as exc:
        return Finding(Verdict.UNKNOWN, "symbolic integration", reason=str(exc), steps=tuple(steps))
    law = _noisy_mean_variance_law(claim)
    nonneg = _nonneg(law.expr, law.domain)
    var = sp.simplify(sp.expand((_C**2 + 2 * _C * m1 + m2) - (_C + m1) ** 2))
    steps += [f"noise {law.expr}: mass {mass}, E[N] = {m1}, E[N^2] = {m2}",
              f"Var[c + N] = (c^2 + 2c E[N] + E[N^2]) - (c + E[N])^2 = {var}"]
    if not positive:
        steps.append(f"sigma = {claim.sigma} not shown to be > 0")
    if sens and attained and positive and nonneg and is_zero(mass - 1) \
            and _C not in var.free_symbols and is_zero(var - claim.value):
        return Finding(Verdict.PROVED, "sensitivity by z3; variance by symbolic integration (SymPy)", steps=tuple(steps))
    symbols = (var.free_symbols | claim.value.free_symbols | law.parameters) - {_C}
    for values in _points(symbols, _noisy_mean_variance_domain(claim), limit=12):
        claimed = claim.value.xreplace(values)
        bad, _how = differ(var.xreplace(values), claimed)
        if not bad:
            continue
        try:
            recomputed = _moment(law, "variance", values)
        except _Undecided:
            continue
        bad, how = differ(recomputed, claimed)
        if bad:
            cex = Counterexample(_params(values), ("data mean c", "-"), "Var[c + N]",
                                 f"|Var - claimed| = |{show(recomputed)} - "
                                 f"{show(claimed)}|", "0", how,
                                 note="noise variance recomputed at these values by SymPy")
            return Finding(Verdict.REFUTED, "variance at concrete values, re-checked", counterexample=cex, steps=tuple(steps))
    return Finding(Verdict.UNKNOWN, "symbolic integration", reason="no proof and no counterexample", steps=tuple(steps))


_CHECKS = {Normalised: _check_normalised, Moment: _check_moment,
           NoisyMeanVariance: _check_noisy_mean_variance}


def supports(claim) -> bool:
    return type(claim) in _CHECKS


def check(claim) -> Finding:
    return _CHECKS[type(claim)](claim)
