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
import time
from dataclasses import dataclass
from fractions import Fraction
from math import comb
from typing import Any

import sympy as sp

from proofs.errors import InputError
from proofs._smt import prove_forall
from proofs.approx import make_result
from proofs.decide import compare as _compare
from proofs.expr import by_name, rationalize, symbols_of
from proofs.mechanisms import AlphaCoinRR, ForcedResponse, OneBitTelemetry, as_expr, sym
from proofs.results import Counterexample, ProofResult, Verdict

__all__ = [
    "LinearEstimator", "Unbiased", "Variance", "ChebyshevTail", "PerReportUnbiased",
    "N", "N1", "T", "rr_estimator", "forced_response_estimator", "one_bit_term",
]

N = sp.Symbol("n", integer=True, positive=True)
N1 = sp.Symbol("n_1", integer=True, nonnegative=True)
T = sym("t")
_B = sp.Symbol("b", integer=True, nonnegative=True)
_X = sp.Symbol("x", nonnegative=True)
_RATIONALS = [sp.Rational(1, 2), sp.Rational(1, 4), sp.Rational(3, 4), sp.Rational(1, 10), 1, 2, 3]


_BINARY = (AlphaCoinRR, ForcedResponse, OneBitTelemetry)


@dataclass(frozen=True, slots=True)
class LinearEstimator:
    """slope * S + intercept from n binary reports of `mechanism`, estimating `target`
    (an expression in N and N1; N1 <= N ones among the inputs)."""

    mechanism: Any
    slope: Any
    intercept: Any
    target: Any
    name: str = "estimator"

    def __post_init__(self):
        table = {"n": N, "n_1": N1, **symbols_of(self.mechanism)}
        for f in ("slope", "intercept", "target"):
            object.__setattr__(self, f, by_name(as_expr(getattr(self, f), f, table), table))
        if not isinstance(self.mechanism, _BINARY):
            raise InputError(f"mechanism={self.mechanism!r} is not a description of binary "
                             "reports; use AlphaCoinRR, ForcedResponse or OneBitTelemetry.")
        self.mechanism.validate()

    def _p(self, x: int) -> sp.Expr:
        return sp.sympify(self.mechanism.pmf(x, 1))

    def mean(self) -> sp.Expr:
        es = N1 * self._p(1) + (N - N1) * self._p(0)
        return sp.simplify(self.slope * es + self.intercept)

    def variance(self) -> sp.Expr:
        vs = N1 * self._p(1) * (1 - self._p(1)) + (N - N1) * self._p(0) * (1 - self._p(0))
        return sp.simplify(self.slope**2 * vs)

    def domain(self) -> list:
        return [*self.mechanism.domain(), N1 <= N, N >= 1]

    def exact_tail(self, values: dict, t: sp.Expr) -> Fraction:
        """P[|estimate - target| >= t] exactly, at numeric n, n_1 and mechanism parameters."""
        n, n1 = int(values[N]), int(values[N1])
        p1, p0 = (_fraction(self._p(x).subs(values)) for x in (1, 0))
        a = _fraction(self.slope.subs(values))
        b = _fraction(self.intercept.subs(values))
        target = _fraction(self.target.subs(values))
        tt = _fraction(sp.sympify(t).subs(values))
        total = Fraction(0)
        for s1, s0 in itertools.product(range(n1 + 1), range(n - n1 + 1)):
            if abs(a * (s1 + s0) + b - target) >= tt:
                total += (comb(n1, s1) * p1**s1 * (1 - p1) ** (n1 - s1)
                          * comb(n - n1, s0) * p0**s0 * (1 - p0) ** (n - n1 - s0))
        return total


class _NotRational(Exception):
    pass


def _fraction(value: sp.Expr) -> Fraction:
    """An exact rational value as a Fraction; anything else cannot enter the exact tail."""
    v = rationalize(value)
    if not v.is_Rational:
        raise _NotRational(str(v))
    return Fraction(int(v.p), int(v.q))


def _bound_expr(bound, estimator) -> sp.Expr:
    """A bound in n, n_1, t and the mechanism's parameters, matched by name."""
    table = {"n": N, "n_1": N1, "t": T, **symbols_of(estimator.mechanism)}
    return by_name(as_expr(bound, "bound", table), table)


def _check_estimator(estimator) -> None:
    if not isinstance(estimator, LinearEstimator):
        raise InputError(f"estimator={estimator!r} is not a LinearEstimator; build one with "
                         "rr_estimator(), forced_response_estimator() or LinearEstimator(...).")


def rr_estimator(alpha=sym("alpha")) -> LinearEstimator:
    """p_hat = S/(alpha n) - (1 - alpha)/(2 alpha) for alpha-coin RR, estimating p = n_1/n."""
    a = as_expr(alpha, "alpha")
    return LinearEstimator(AlphaCoinRR(a), 1 / (a * N), -(1 - a) / (2 * a), N1 / N, "p_hat")


def forced_response_estimator(slope=2, intercept=-N / 2) -> LinearEstimator:
    """n_true_hat = 2 n_obs - N/2 for two-coin forced response (notes 004), N = n."""
    return LinearEstimator(ForcedResponse(), slope, intercept, N1, "n_true_hat")


def one_bit_term(epsilon=sym("epsilon"), m=sym("m")) -> sp.Expr:
    """m (b (e^eps + 1) - 1)/(e^eps - 1): one user's term of the DKY mean estimator."""
    e = sp.exp(as_expr(epsilon, "epsilon"))
    return as_expr(m, "m") * (_B * (e + 1) - 1) / (e - 1)


def _points(symbols: list, domain: list):
    """Concrete values in the domain (small first): exact rationals and small integers."""
    pools = []
    for s in symbols:
        if s == N:
            pools.append([1, 2, 3, 4])
        elif s == N1:
            pools.append([0, 1, 2])
        elif s.is_integer:
            pools.append([1, 2, 3])
        else:
            pools.append(_RATIONALS)
    for combo in itertools.product(*pools):
        values = dict(zip(symbols, map(sp.sympify, combo)))
        if all(sp.sympify(c).subs(values) is sp.true for c in domain):
            yield values


def _meta(id, source, expect, statement) -> dict:
    return dict(id=id, source=source, expect=expect, statement=statement)


def _refute_difference(lhs: sp.Expr, rhs: sp.Expr, domain: list, strict_gt: bool):
    """Values where lhs != rhs (strict_gt False) or lhs > rhs (True), re-checked exactly."""
    symbols = sorted((sp.sympify(lhs).free_symbols | sp.sympify(rhs).free_symbols)
                     | set().union(*(sp.sympify(c).free_symbols for c in domain)), key=str)
    for values in _points(symbols, domain):
        lv = rationalize(sp.sympify(lhs).subs(values))
        rv = rationalize(sp.sympify(rhs).subs(values))
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


@dataclass(frozen=True, slots=True)
class Unbiased:
    """Claim: E[estimator] = target for every population and parameter in the domain."""

    estimator: LinearEstimator

    def __post_init__(self):
        _check_estimator(self.estimator)

    def statement(self) -> str:
        e = self.estimator
        return (f"{e.name} = ({e.slope}) S + ({e.intercept}) is unbiased for {e.target} "
                f"under {type(e.mechanism).__name__}")

    def check(self, *, id="", source="", expect="holds", statement=None) -> ProofResult:
        start = time.perf_counter()
        meta = _meta(id, source, expect, statement)
        e = self.estimator
        mean = e.mean()
        bias = sp.simplify(mean - e.target)
        steps = (f"E[S] = n_1 P[M(1)=1] + (n - n_1) P[M(0)=1]; E[estimate] = {mean}",
                 f"bias = {bias}")
        if bias == 0:
            return make_result(meta, self.statement(), Verdict.PROVED, "exact algebra (SymPy)",
                               start, steps=steps)
        found = _refute_difference(mean, e.target, e.domain(), strict_gt=False)
        if found:
            values, lv, rv, how = found
            cex = Counterexample(_params(values), ("population", f"n_1={values.get(N1)}"),
                                 "E[estimate]", f"|bias| = |{lv} - {rv}| = {_abs(lv - rv)}",
                                 "0", how, note=f"E[estimate] = {lv}, target = {rv}")
            return make_result(meta, self.statement(), Verdict.REFUTED,
                               "exact algebra, counterexample re-checked", start,
                               counterexample=cex, steps=steps)
        return make_result(meta, self.statement(), Verdict.UNKNOWN, "exact algebra", start,
                           reason=f"bias {bias} not shown to be 0 or non-zero", steps=steps)


@dataclass(frozen=True, slots=True)
class Variance:
    """Claim: Var[estimator] `relation` bound, relation '==' (exact) or '<=' (upper bound),
    for every population and parameter in the domain."""

    estimator: LinearEstimator
    bound: Any
    relation: str = "<="

    def __post_init__(self):
        _check_estimator(self.estimator)
        object.__setattr__(self, "bound", _bound_expr(self.bound, self.estimator))
        if self.relation not in ("<=", "=="):
            raise InputError(f"relation={self.relation!r}; use '<=' or '=='.")

    def statement(self) -> str:
        e = self.estimator
        return f"Var[{e.name}] {self.relation} {self.bound} under {type(e.mechanism).__name__}"

    def check(self, *, id="", source="", expect="holds", statement=None) -> ProofResult:
        start = time.perf_counter()
        meta = _meta(id, source, expect, statement)
        e = self.estimator
        var = e.variance()
        steps = (f"Var[estimate] = slope^2 (sum of Bernoulli variances) = {var}",)
        gap = sp.simplify(self.bound - var)
        if gap == 0:
            return make_result(meta, self.statement(), Verdict.PROVED, "exact algebra (SymPy)",
                               start, steps=steps, reason="equality")
        if self.relation == "<=":
            out = prove_forall(var, self.bound, e.domain())
            if out.status == "proved":
                return make_result(meta, self.statement(), Verdict.PROVED,
                                   "exact variance (SymPy), bound by z3 over the domain", start,
                                   steps=(*steps, f"bound - Var = {gap}"))
        found = _refute_difference(var, self.bound, e.domain(), strict_gt=self.relation == "<=")
        if found:
            values, lv, rv, how = found
            if self.relation == "<=":
                shown = (f"Var = {lv}", f"claimed bound {rv}")
            else:
                shown = (f"|Var - claimed| = |{lv} - {rv}| = {_abs(lv - rv)}", "0")
            cex = Counterexample(_params(values), ("population", f"n_1={values.get(N1)}"),
                                 "Var[estimate]", *shown, how)
            return make_result(meta, self.statement(), Verdict.REFUTED,
                               "exact variance, counterexample re-checked", start,
                               counterexample=cex, steps=steps)
        return make_result(meta, self.statement(), Verdict.UNKNOWN, "exact variance", start,
                           reason="no proof and no counterexample", steps=steps)


@dataclass(frozen=True, slots=True)
class ChebyshevTail:
    """Claim: P[|estimate - target| >= t] <= bound for every t > 0 (bound in T and the
    parameters). Proved by Chebyshev's inequality when the estimator is unbiased (proved) and
    Var <= bound t^2 (proved); refuted by the exact distribution of S at concrete values."""

    estimator: LinearEstimator
    bound: Any

    def __post_init__(self):
        _check_estimator(self.estimator)
        object.__setattr__(self, "bound", _bound_expr(self.bound, self.estimator))

    def statement(self) -> str:
        return f"P[|{self.estimator.name} - target| >= t] <= {self.bound}"

    def check(self, *, id="", source="", expect="holds", statement=None) -> ProofResult:
        start = time.perf_counter()
        meta = _meta(id, source, expect, statement)
        e, bound = self.estimator, as_expr(self.bound, "bound")
        unbiased = Unbiased(e).check()
        var_ok = Variance(e, bound * T**2).check()
        steps = (f"unbiased: {unbiased.verdict.value}", f"Var <= bound t^2: {var_ok.verdict.value}")
        if unbiased.verdict is Verdict.PROVED and var_ok.verdict is Verdict.PROVED:
            return make_result(meta, self.statement(), Verdict.PROVED,
                               "Chebyshev's inequality; unbiasedness and variance bound proved",
                               start, steps=steps)
        cex = self._exact_counterexample(e, bound)
        if cex is not None:
            return make_result(meta, self.statement(), Verdict.REFUTED,
                               "exact tail probability (binomial convolution)", start,
                               counterexample=cex, steps=steps)
        return make_result(meta, self.statement(), Verdict.UNKNOWN, "Chebyshev", start,
                           reason="premises not proved and no exact violation found", steps=steps)

    def _exact_counterexample(self, e, bound) -> Counterexample | None:
        symbols = sorted(bound.free_symbols | e.slope.free_symbols | e.target.free_symbols
                         | set().union(*(sp.sympify(c).free_symbols for c in e.domain()))
                         | {N, N1, T}, key=str)
        for values in _points(symbols, [*e.domain(), T > 0]):
            try:
                tail = e.exact_tail(values, values[T])
            except _NotRational:
                continue
            b = rationalize(bound.subs(values))
            status, how = _compare(sp.Rational(tail.numerator, tail.denominator), b)
            if status == "violated":
                return Counterexample(_params(values), ("population", f"n_1={values[N1]}"),
                                      f"|estimate - target| >= {values[T]}",
                                      f"P = {tail} (exact)", f"bound = {b}", how)
        return None


@dataclass(frozen=True, slots=True)
class PerReportUnbiased:
    """Claim: for a one-bit report b ~ M(x) (M with ``p_one(x)`` or ``pmf(x, 1)``), the term
    g(b) (an expression in the symbol b) has E[g(b)] = target(x) for every x in [0, m];
    by linearity (1/n) sum_i g(b_i) is then unbiased for the mean of the x_i.
    E[g(b)] = g(1) P[b=1 | x] + g(0) P[b=0 | x], exactly."""

    mechanism: Any
    term: Any
    target: Any = _X

    def __post_init__(self):
        if not isinstance(self.mechanism, (OneBitTelemetry, ForcedResponse)):
            raise InputError(f"mechanism={self.mechanism!r} does not report one bit with "
                             "P[b=1 | x] linear in x; use OneBitTelemetry or ForcedResponse.")
        self.mechanism.validate()
        table = symbols_of(self.mechanism)
        term_names, target_names = {"b": _B, **table}, {"x": _X, **table}
        object.__setattr__(self, "term", by_name(as_expr(self.term, "term", term_names),
                                                 term_names))
        object.__setattr__(self, "target", by_name(as_expr(self.target, "target", target_names),
                                                   target_names))

    def statement(self) -> str:
        return (f"E[{self.term}] = {self.target} for b ~ {type(self.mechanism).__name__}(x), "
                f"every x in [0, m]")

    def check(self, *, id="", source="", expect="holds", statement=None) -> ProofResult:
        start = time.perf_counter()
        meta = _meta(id, source, expect, statement)
        mech = self.mechanism
        p = sp.sympify(mech.p_one(_X) if hasattr(mech, "p_one") else mech.pmf(_X, 1))
        g = self.term
        mean = sp.simplify(g.subs(_B, 1) * p + g.subs(_B, 0) * (1 - p))
        bias = sp.simplify(mean - self.target)
        steps = (f"P[b=1 | x] = {p}", f"E[g(b)] = {mean}", f"bias = {bias}")
        if bias == 0:
            return make_result(meta, self.statement(), Verdict.PROVED, "exact algebra (SymPy)",
                               start, steps=steps)
        m = getattr(mech, "m", sym("m"))
        found = _refute_difference(mean, self.target, [*mech.domain(), _X <= m],
                                   strict_gt=False)
        if found:
            values, lv, rv, how = found
            cex = Counterexample(_params(values), (str(values.get(_X)), "-"), "E[g(b)]",
                                 f"|bias| = |{lv} - {rv}| = {_abs(lv - rv)}", "0", how,
                                 note=f"E[g(b)] = {lv}, target = {rv}")
            return make_result(meta, self.statement(), Verdict.REFUTED,
                               "exact algebra, counterexample re-checked", start,
                               counterexample=cex, steps=steps)
        return make_result(meta, self.statement(), Verdict.UNKNOWN, "exact algebra", start,
                           reason=f"bias {bias} not decided", steps=steps)


