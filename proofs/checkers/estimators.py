"""Estimators of the local protocols: bias, exact variance, variance bounds, tail bounds.

A :class:`LinearEstimator` estimates a population quantity from n binary reports
y_i = M(x_i) in {0, 1} as  slope * S + intercept,  S = sum_i y_i, where M is a description
with ``pmf(x, y)`` (alpha-coin randomized response, forced response, one-bit telemetry). The
population has n individuals, n_1 of them with x = 1 (binary inputs), so, exactly,

    E[S]   = n_1 P[M(1)=1] + (n - n_1) P[M(0)=1],
    Var[S] = n_1 P[M(1)=1] P[M(1)=0] + (n - n_1) P[M(0)=1] P[M(0)=0]   (independent reports).

- Alpha-coin RR (Warner 1965; notes 003): p_hat = S/(alpha n) - (1 - alpha)/(2 alpha) is unbiased
  for p = n_1/n with Var = (1 - alpha^2)/(4 alpha^2 n) <= 1/(4 alpha^2 n) (notes 003 state the
  looser 1/(alpha^2 n) from Var(y_i) <= 1), and by Chebyshev
  P[|p_hat - p| >= t] <= 1/(4 alpha^2 n t^2).
- Forced response (notes 004): n_true_hat = 2 n_obs - N/2 is unbiased for n_true; Var = 3N/4.
- A worked estimate (:class:`EstimateAt`; notes 003: alpha = 1/2, 9 ones in 18 reports give
  p_hat = 9/9 - 1/2 = 1/2): the estimator evaluated on the reports, exactly; ``certified`` (it
  holds at the stated values), or ``refuted`` with the value it does take.
- One-bit telemetry (Ding, Kulkarni, Yekhanin 2017, Sec. 2.1): with P[b=1 | x] =
  1/(e^eps+1) + (x/m)(e^eps-1)/(e^eps+1), the mean estimator
  (m/n) sum_i (b_i (e^eps + 1) - 1)/(e^eps - 1) is unbiased for the mean of x_i in [0, m]
  (:class:`PerReportUnbiased`: each term is unbiased for its x_i, and expectations add).

Verdicts: ``proved`` by exact algebra (SymPy simplifies the difference to 0) or z3 over the
stated domain; ``refuted`` with concrete values (exact rationals) where the claim fails; tail
claims are refuted by the exact distribution of S (a convolution of two binomials).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import sympy as sp

from proofs.claims import ChebyshevTail, EstimateAt, PerReportUnbiased, Unbiased, Variance
from proofs.claims.estimation import NotRational
from proofs.decide import at, differs_somewhere, holds_at, trustworthy
from proofs.decide import compare as _compare
from proofs.errors import Undecided
from proofs.expr import rationalize
from proofs.results import Counterexample, Finding, Verdict
from proofs.smt import prove_forall
from proofs.symbols import N1, REPORT_BIT, N, T, X
from proofs.validate import allowed

__all__ = ["check", "supports"]


_RATIONALS = [sp.Rational(1, 2), sp.Rational(1, 4), sp.Rational(3, 4), sp.Rational(1, 10), 1, 2, 3]


_POPULATIONS = (1, 2, 3, 4)  # (an exact tail sums over every outcome: small n only)
# a variance is a closed form, cheap at any n: a bound that fails only for larger populations
# (1/(alpha^2 n^2) from n = 5) is refuted there
_VARIANCE_POPULATIONS = (1, 2, 3, 4, 5, 10, 100, 10**4)


def _points(symbols: list, domain: list, populations: Sequence[int] = _POPULATIONS):
    """Concrete values in the domain (small first): exact rationals and small integers."""
    pools = []
    for s in symbols:
        if s == N:
            pools.append(list(populations))
        elif s == N1:
            pools.append([0, 1, 2])
        elif s.is_integer:
            pools.append([1, 2, 3, 4])  # 4: the smallest Hadamard response (K >= 4)
        else:
            pools.append(_RATIONALS)
    for combo in itertools.product(*pools):
        values = dict(zip(symbols, map(sp.sympify, combo)))
        if all(holds_at(c, values) for c in domain):
            yield values


def _refute_difference(
    lhs: sp.Expr,
    rhs: sp.Expr,
    domain: list,
    strict_gt: bool,
    first: Sequence[dict] = (),
    populations: Sequence[int] = _POPULATIONS,
):
    """Values where lhs != rhs (strict_gt False) or lhs > rhs (True), re-checked exactly:
    ``first`` (z3's models, inside the domain), then small values."""
    symbols = sorted(
        (sp.sympify(lhs).free_symbols | sp.sympify(rhs).free_symbols)
        | set().union(*(sp.sympify(c).free_symbols for c in domain)),
        key=str,
    )
    inside = [  # (z3 works over the reals: a model's n may be 3/2, which no population is)
        v
        for v in first
        if set(symbols) <= set(v)
        and all(allowed(s, v[s]) for s in symbols)
        and all(holds_at(c, v) for c in domain)
    ]
    for values in itertools.chain(inside, _points(symbols, domain, populations)):
        try:
            lv = rationalize(at(sp.sympify(lhs), values))
            rv = rationalize(at(sp.sympify(rhs), values))
        except Undecided:
            continue
        status, how = _compare(lv, rv)
        if strict_gt and status == "violated":
            return values, lv, rv, how
        if not strict_gt:
            if lv.is_Rational and rv.is_Rational and lv != rv:
                return values, lv, rv, "exact rational arithmetic"
            if status == "violated" or _compare(rv, lv)[0] == "violated":
                return values, lv, rv, how
    return None


def _abs(v: sp.Expr) -> str:
    v = rationalize(sp.Abs(v))
    return str(v) if v.is_Rational else f"{v} (~{float(v):.6g})"


def _params(values: dict) -> dict:
    return {str(k): str(v) for k, v in values.items()}


def _zero(simplified: sp.Expr, difference: sp.Expr) -> bool:
    """Did SymPy simplify `difference` to 0, and arb find no point where it is not? (simplify
    took a bias of 1.7e-14, a difference of logarithms, for 0)"""
    return simplified == 0 and not differs_somewhere(difference) and trustworthy(difference)


def _check_unbiased(claim) -> Finding:
    e = claim.estimator
    mean = e.mean()
    bias = sp.simplify(mean - e.target)
    steps = (f"E[S] = n_1 P[M(1)=1] + (n - n_1) P[M(0)=1]; E[estimate] = {mean}", f"bias = {bias}")
    if _zero(bias, mean - e.target):
        return Finding(Verdict.PROVED, "exact algebra (SymPy)", steps=steps)
    found = _refute_difference(mean, e.target, e.domain(), strict_gt=False)
    if found:
        values, lv, rv, how = found
        cex = Counterexample(
            _params(values),
            ("population", f"n_1={values.get(N1)}"),
            "E[estimate]",
            f"|bias| = |{lv} - {rv}| = {_abs(lv - rv)}",
            "0",
            how,
            note=f"E[estimate] = {lv}, target = {rv}",
        )
        return Finding(
            Verdict.REFUTED,
            "exact algebra, counterexample re-checked",
            counterexample=cex,
            steps=steps,
        )
    return Finding(
        Verdict.UNKNOWN,
        "exact algebra",
        reason=f"bias {bias} not shown to be 0 or non-zero",
        steps=steps,
    )


def _check_variance(claim) -> Finding:
    e = claim.estimator
    var = e.variance()
    steps = (f"Var[estimate] = slope^2 (sum of Bernoulli variances) = {var}",)
    gap = sp.simplify(claim.bound - var)
    if _zero(gap, claim.bound - var):
        return Finding(Verdict.PROVED, "exact algebra (SymPy)", steps=steps, reason="equality")
    models = []
    if claim.relation == "<=":
        out = prove_forall(var, claim.bound, e.domain())
        if out.status == "proved":
            return Finding(
                Verdict.PROVED,
                "exact variance (SymPy), bound by z3 over the domain",
                steps=(*steps, f"bound - Var = {gap}"),
            )
        if out.status == "model" and out.model is not None:
            models.append(dict(out.model["symbols"]))
    found = _refute_difference(
        var,
        claim.bound,
        e.domain(),
        strict_gt=claim.relation == "<=",
        first=models,
        populations=_VARIANCE_POPULATIONS,
    )
    if found:
        values, lv, rv, how = found
        if claim.relation == "<=":
            shown = (f"Var = {lv}", f"claimed bound {rv}")
        else:
            shown = (f"|Var - claimed| = |{lv} - {rv}| = {_abs(lv - rv)}", "0")
        cex = Counterexample(
            _params(values), ("population", f"n_1={values.get(N1)}"), "Var[estimate]", *shown, how
        )
        return Finding(
            Verdict.REFUTED,
            "exact variance, counterexample re-checked",
            counterexample=cex,
            steps=steps,
        )
    return Finding(
        Verdict.UNKNOWN, "exact variance", reason="no proof and no counterexample", steps=steps
    )


def _check_chebyshev_tail(claim) -> Finding:
    e, bound = claim.estimator, claim.bound
    unbiased = check(Unbiased(e))
    var_ok = check(Variance(e, bound * T**2))
    steps = (f"unbiased: {unbiased.verdict.value}", f"Var <= bound t^2: {var_ok.verdict.value}")
    if unbiased.verdict is Verdict.PROVED and var_ok.verdict is Verdict.PROVED:
        return Finding(
            Verdict.PROVED,
            "Chebyshev's inequality; unbiasedness and variance bound proved",
            steps=steps,
        )
    cex = _chebyshev_tail_exact_counterexample(claim, e, bound)
    if cex is not None:
        return Finding(
            Verdict.REFUTED,
            "exact tail probability (binomial convolution)",
            counterexample=cex,
            steps=steps,
        )
    return Finding(
        Verdict.UNKNOWN,
        "Chebyshev",
        reason="premises not proved and no exact violation found",
        steps=steps,
    )


def _chebyshev_tail_exact_counterexample(claim, e, bound) -> Counterexample | None:
    symbols = sorted(
        bound.free_symbols
        | e.slope.free_symbols
        | e.target.free_symbols
        | set().union(*(sp.sympify(c).free_symbols for c in e.domain()))
        | {N, N1, T},
        key=str,
    )
    for values in _points(symbols, [*e.domain(), T > 0]):
        try:
            tail = e.exact_tail(values, values[T])
        except NotRational:
            continue
        try:
            b = rationalize(at(bound, values))
        except Undecided:
            continue
        status, how = _compare(sp.Rational(tail.numerator, tail.denominator), b)
        if status == "violated":
            return Counterexample(
                _params(values),
                ("population", f"n_1={values[N1]}"),
                f"|estimate - target| >= {values[T]}",
                f"P = {tail} (exact)",
                f"bound = {b}",
                how,
            )
    return None


def _check_per_report_unbiased(claim) -> Finding:
    mech = claim.mechanism
    p = sp.sympify(mech.p_one(X) if hasattr(mech, "p_one") else mech.pmf(X, 1))
    g = claim.term
    mean = sp.simplify(g.subs(REPORT_BIT, 1) * p + g.subs(REPORT_BIT, 0) * (1 - p))
    bias = sp.simplify(mean - claim.target)
    steps = (f"P[b=1 | x] = {p}", f"E[g(b)] = {mean}", f"bias = {bias}")
    if _zero(bias, mean - claim.target):
        return Finding(Verdict.PROVED, "exact algebra (SymPy)", steps=steps)
    if hasattr(mech, "input_domain"):  # x in [0, m]
        found = _refute_difference(
            mean, claim.target, [*mech.domain(), *mech.input_domain(X)], False
        )
    else:  # a bit: x in {0, 1}, where the bias must vanish (target x^2 is x there)
        at_bits = [sp.simplify(bias.subs(X, v)) for v in (0, 1)]
        steps += (f"bias at x = 0, 1: {at_bits[0]}, {at_bits[1]}",)
        if all(_zero(b, (mean - claim.target).subs(X, v)) for b, v in zip(at_bits, (0, 1))):
            return Finding(Verdict.PROVED, "exact algebra (SymPy) at x = 0 and 1", steps=steps)
        found = None
        for v in (0, 1):
            found = _refute_difference(
                mean.subs(X, v), claim.target.subs(X, v), list(mech.domain()), False
            )
            if found:
                found = ({**found[0], X: sp.Integer(v)}, *found[1:])
                break
    if found:
        values, lv, rv, how = found
        cex = Counterexample(
            _params(values),
            (str(values.get(X)), "-"),
            "E[g(b)]",
            f"|bias| = |{lv} - {rv}| = {_abs(lv - rv)}",
            "0",
            how,
            note=f"E[g(b)] = {lv}, target = {rv}",
        )
        return Finding(
            Verdict.REFUTED,
            "exact algebra, counterexample re-checked",
            counterexample=cex,
            steps=steps,
        )
    return Finding(Verdict.UNKNOWN, "exact algebra", reason=f"bias {bias} not decided", steps=steps)


def _check_estimate_at(claim) -> Finding:
    e, bits = claim.estimator, claim.reports
    values = claim.values()
    ones = sp.Integer(sum(bits))
    slope, intercept = (rationalize(at(sp.sympify(x), values)) for x in (e.slope, e.intercept))
    estimate = sp.simplify(slope * ones + intercept)
    steps = (
        f"n = {len(bits)}, S = {ones}",
        f"{e.name} = ({slope}) * {ones} + ({intercept}) = {estimate}",
    )
    gap = sp.simplify(estimate - claim.value)
    if _zero(gap, estimate - claim.value):
        return Finding(Verdict.CERTIFIED, "exact arithmetic at the stated values", steps=steps)
    status, how = _compare(estimate, claim.value)
    if status != "violated":
        status, how = _compare(claim.value, estimate)
    if estimate.is_Rational and claim.value.is_Rational:
        status, how = "violated", "exact rational arithmetic"
    if status == "violated":
        cex = Counterexample(
            _params(values),
            ("-", "-"),
            f"{ones} ones in {len(bits)} reports",
            f"|{e.name} - claimed| = |{estimate} - {claim.value}| = {_abs(estimate - claim.value)}",
            "0",
            how,
            note=f"{e.name} = {estimate}, claimed {claim.value}",
        )
        return Finding(
            Verdict.REFUTED,
            "exact arithmetic at the stated values",
            counterexample=cex,
            steps=steps,
        )
    return Finding(
        Verdict.UNKNOWN,
        "exact arithmetic",
        reason=f"{estimate} - {claim.value} not decided",
        steps=steps,
    )


_CHECKS = {
    EstimateAt: _check_estimate_at,
    Unbiased: _check_unbiased,
    Variance: _check_variance,
    ChebyshevTail: _check_chebyshev_tail,
    PerReportUnbiased: _check_per_report_unbiased,
}


def supports(claim) -> bool:
    return type(claim) in _CHECKS


def check(claim) -> Finding:
    return _CHECKS[type(claim)](claim)
