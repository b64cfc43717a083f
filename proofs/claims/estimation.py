"""Claims about the estimators of the local protocols: linear estimators from n binary reports,
their bias, variance and tails, and per-report unbiased terms. Descriptions only."""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from math import comb
from typing import Any

import sympy as sp

from proofs.claims.base import Claim
from proofs.errors import InputError
from proofs.expr import as_expr, by_name, rationalize, reserve, symbols_of
from proofs.mechanisms import AlphaCoinRR, ForcedResponse, OneBitTelemetry, SupportReport, sym
from proofs.symbols import N1, REPORT_BIT, N, T, X
from proofs.validate import allowed, check_description

__all__ = [
    "ChebyshevTail",
    "EstimateAt",
    "LinearEstimator",
    "NotRational",
    "PerReportUnbiased",
    "Unbiased",
    "Variance",
    "forced_response_estimator",
    "fraction",
    "frequency_estimator",
    "frequency_variance",
    "rr_estimator",
]


_BINARY = (AlphaCoinRR, ForcedResponse, OneBitTelemetry, SupportReport)


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
        reserve(self.mechanism, ESTIMATOR_NAMES, "an estimator's claims")
        table = {"n": N, "n_1": N1, **symbols_of(self.mechanism)}
        for f in ("slope", "intercept", "target"):
            object.__setattr__(self, f, by_name(as_expr(getattr(self, f), f, table), table))
        for f in ("slope", "intercept", "target"):
            unknown = sorted(getattr(self, f).free_symbols - set(table.values()), key=str)
            if unknown:
                params = ", ".join(k for k in table if k not in ("n", "n_1")) or (
                    "none: its parameters are numbers here"
                )
                raise InputError(
                    f"{f}={getattr(self, f)} uses {', '.join(map(str, unknown))}: an "
                    f"estimator is written in n, n_1 and the mechanism's symbolic parameters "
                    f"({params}) only."
                )
        for f in ("slope", "intercept"):
            if N1 in getattr(self, f).free_symbols:
                raise InputError(
                    f"{f}={getattr(self, f)} uses n_1, the count being estimated; an "
                    "estimator's coefficients may use n and the mechanism's parameters only."
                )
        if not isinstance(self.mechanism, _BINARY):
            raise InputError(
                f"mechanism={self.mechanism!r} is not a description of binary "
                "reports; use AlphaCoinRR, ForcedResponse, OneBitTelemetry or "
                "SupportReport(frequency oracle)."
            )
        check_description(self.mechanism)

    def _p(self, x: int) -> sp.Expr:
        return sp.sympify(self.mechanism.pmf(x, 1))

    def mean(self) -> sp.Expr:
        es = N1 * self._p(1) + (N - N1) * self._p(0)
        return sp.simplify(self.slope * es + self.intercept)

    def variance(self) -> sp.Expr:
        vs = N1 * self._p(1) * (1 - self._p(1)) + (N - N1) * self._p(0) * (1 - self._p(0))
        return sp.simplify(self.slope**2 * vs)

    def domain(self) -> list:
        """The mechanism's domain, n_1 <= n, n >= 1, and each of the inputs 0 and 1 an input
        of the mechanism wherever the population has it: one-bit telemetry's m >= 1 unless
        n_1 = 0 (at m = 1/4, P[b = 1 | x = 1] passes 1 and a 'variance' is negative)."""
        inputs = getattr(self.mechanism, "input_domain", lambda x: ())
        used = [sp.Or(sp.Eq(N1, 0), sp.And(*inputs(1))), sp.Or(sp.Eq(N1, N), sp.And(*inputs(0)))]
        return [*self.mechanism.domain(), N1 <= N, N >= 1, *(c for c in used if c is not sp.true)]

    def exact_tail(self, values: dict, t: sp.Expr) -> Fraction:
        """P[|estimate - target| >= t] exactly, at numeric n, n_1 and mechanism parameters."""
        n, n1 = int(values[N]), int(values[N1])
        p1, p0 = (fraction(self._p(x).subs(values)) for x in (1, 0))
        a = fraction(self.slope.subs(values))
        b = fraction(self.intercept.subs(values))
        target = fraction(self.target.subs(values))
        tt = fraction(sp.sympify(t).subs(values))
        total = Fraction(0)
        for s1, s0 in itertools.product(range(n1 + 1), range(n - n1 + 1)):
            if abs(a * (s1 + s0) + b - target) >= tt:
                total += (
                    comb(n1, s1)
                    * p1**s1
                    * (1 - p1) ** (n1 - s1)
                    * comb(n - n1, s0)
                    * p0**s0
                    * (1 - p0) ** (n - n1 - s0)
                )
        return total


# the names an estimator's claims give their own variables
ESTIMATOR_NAMES = {
    "n": "the number of reports",
    "n_1": "the count of ones among the inputs",
    "t": "the tail threshold (ChebyshevTail)",
}
REPORT_NAMES = {"b": "the report bit", "x": "the input"}


class NotRational(Exception):
    pass


def fraction(value: sp.Expr) -> Fraction:
    """An exact rational value as a Fraction; anything else cannot enter the exact tail."""
    v = rationalize(value)
    if not v.is_Rational:
        raise NotRational(str(v))
    return Fraction(int(v.p), int(v.q))


def bound_expr(bound, estimator) -> sp.Expr:
    """A bound in n, n_1, t and the mechanism's parameters, matched by name."""
    table = {"n": N, "n_1": N1, "t": T, **symbols_of(estimator.mechanism)}
    return by_name(as_expr(bound, "bound", table), table)


def check_estimator(estimator) -> None:
    if not isinstance(estimator, LinearEstimator):
        raise InputError(
            f"estimator={estimator!r} is not a LinearEstimator; build one with "
            "rr_estimator(), forced_response_estimator() or LinearEstimator(...)."
        )


def rr_estimator(alpha=sym("alpha")) -> LinearEstimator:
    """p_hat = S/(alpha n) - (1 - alpha)/(2 alpha) for alpha-coin RR, estimating p = n_1/n."""
    a = as_expr(alpha, "alpha")
    return LinearEstimator(AlphaCoinRR(a), 1 / (a * N), -(1 - a) / (2 * a), N1 / N, "p_hat")


def frequency_estimator(oracle: Any) -> LinearEstimator:
    """c_hat(v) = (S - n q*) / (p* - q*) for a frequency oracle, S the reports supporting v,
    estimating n_1, the clients whose value is v (Wang et al. 2017, Sec. 3)."""
    report = SupportReport(oracle)
    p, q = report.p_star, report.q_star
    return LinearEstimator(report, 1 / (p - q), -N * q / (p - q), N1, "c_hat")


def frequency_variance(oracle: Any) -> sp.Expr:
    """Var[c_hat(v)] = n q*(1 - q*) / (p* - q*)^2 + n_1 (1 - p* - q*) / (p* - q*) (Wang et al.
    2017, Thm 2)."""
    report = SupportReport(oracle)
    p, q = report.p_star, report.q_star
    return N * q * (1 - q) / (p - q) ** 2 + N1 * (1 - p - q) / (p - q)


def forced_response_estimator(slope=2, intercept=-N / 2) -> LinearEstimator:
    """n_true_hat = 2 n_obs - N/2 for two-coin forced response (notes 004), N = n."""
    return LinearEstimator(ForcedResponse(), slope, intercept, N1, "n_true_hat")


@dataclass(frozen=True, slots=True)
class Unbiased(Claim):
    """Claim: E[estimator] = target for every population and parameter in the domain."""

    estimator: LinearEstimator

    def __post_init__(self):
        check_estimator(self.estimator)

    def statement(self) -> str:
        e = self.estimator
        return (
            f"{e.name} = ({e.slope}) S + ({e.intercept}) is unbiased for {e.target} "
            f"under {type(e.mechanism).__name__}"
        )


@dataclass(frozen=True, slots=True)
class Variance(Claim):
    """Claim: Var[estimator] `relation` bound, relation '==' (exact) or '<=' (upper bound),
    for every population and parameter in the domain. The population is fixed: the variance
    is the mechanism's alone. (Inputs drawn i.i.d. Bernoulli(p), as some texts model them, add
    their own sampling variance: for randomized response p(1 - p)/n more.)"""

    estimator: LinearEstimator
    bound: Any
    relation: str = "<="

    def __post_init__(self):
        check_estimator(self.estimator)
        object.__setattr__(self, "bound", bound_expr(self.bound, self.estimator))
        if self.relation not in ("<=", "=="):
            raise InputError(f"relation={self.relation!r}; use '<=' or '=='.")

    def statement(self) -> str:
        e = self.estimator
        return (
            f"Var[{e.name}] {self.relation} {self.bound} under {type(e.mechanism).__name__}, "
            "the inputs fixed (n_1 ones of n)"
        )


@dataclass(frozen=True, slots=True)
class ChebyshevTail(Claim):
    """Claim: P[|estimate - target| >= t] <= bound for every t > 0 (bound in T and the
    parameters). Proved by Chebyshev's inequality when the estimator is unbiased (proved) and
    Var <= bound t^2 (proved); refuted by the exact distribution of S at concrete values."""

    estimator: LinearEstimator
    bound: Any

    def __post_init__(self):
        check_estimator(self.estimator)
        object.__setattr__(self, "bound", bound_expr(self.bound, self.estimator))

    def statement(self) -> str:
        return f"P[|{self.estimator.name} - target| >= t] <= {self.bound}"


@dataclass(frozen=True, slots=True)
class EstimateAt(Claim):
    """Claim: the estimator's value on the given reports (a sequence of 0/1 bits, so n is its
    length and S its sum) is exactly `value`, at the mechanism parameters `at` (a mapping from
    name to number; parameters the estimator was built with need none). A worked example:
    notes 003 ask alpha = 1/2 of 18 people, 9 say 0 and 9 say 1, and p_hat is 1/2."""

    estimator: LinearEstimator
    reports: Any
    value: Any
    at: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self):
        check_estimator(self.estimator)
        e = self.estimator
        bits = _report_bits(self.reports)
        object.__setattr__(self, "reports", bits)
        table = symbols_of(e.mechanism, e.slope, e.intercept)
        table.pop("n", None)
        table.pop("n_1", None)
        if not isinstance(self.at, Mapping):
            raise InputError(f"at={self.at!r} is not a mapping; give e.g. at={{'alpha': 1/2}}.")
        fixed = {}
        for name, number in self.at.items():
            if name not in table:
                raise InputError(
                    f"at names {name!r}, not a parameter of this estimator; its parameters are "
                    f"{sorted(table) or 'none (all fixed)'}."
                )
            v = as_expr(number, f"at[{name!r}]")
            if v.free_symbols:
                raise InputError(f"at[{name!r}]={number!r} is not a number; give a number.")
            fixed[name] = v
        open_ = sorted(set(table) - set(fixed))
        if open_:
            raise InputError(
                f"parameters {open_} of the estimator have no value; give them in at, "
                f"e.g. at={{{open_[0]!r}: 1/2}}."
            )
        values = self.values()
        for s, v in values.items():
            if not allowed(s, v):
                raise InputError(
                    f"at[{s.name!r}]={v} is not a value {s.name} can take "
                    f"({', '.join(k for k in _KINDS if s.assumptions0.get(k))}); give one "
                    "inside the mechanism's domain."
                )
        for c in e.mechanism.domain():
            if sp.sympify(c).subs(values) is not sp.true:
                raise InputError(
                    f"at={dict(self.at)!r} is outside the mechanism's domain ({c}); give "
                    "parameter values inside it."
                )
        object.__setattr__(self, "at", fixed)
        v = as_expr(self.value, "value")
        if v.free_symbols:
            raise InputError(f"value={self.value!r} is not a number; give the claimed estimate.")
        object.__setattr__(self, "value", v)

    def values(self) -> dict:
        """The symbol -> number substitution: n from the reports and the parameters in `at`."""
        table = symbols_of(self.estimator.mechanism, self.estimator.slope, self.estimator.intercept)
        out = {table[k]: as_expr(v, k) for k, v in self.at.items()}
        return {**out, N: sp.Integer(len(self.reports))}

    def statement(self) -> str:
        e, bits = self.estimator, self.reports
        at = ", ".join(f"{k} = {v}" for k, v in self.at.items())
        return (
            f"{e.name} = {self.value} from {sum(bits)} ones in {len(bits)} reports of "
            f"{type(e.mechanism).__name__}{f' ({at})' if at else ''}"
        )


_KINDS = ("integer", "positive", "nonnegative", "even", "odd", "prime")


def _report_bits(reports: Any) -> tuple[int, ...]:
    if isinstance(reports, (str, bytes)) or not hasattr(reports, "__iter__"):
        raise InputError(
            f"reports={reports!r} is not a sequence of 0/1 reports; give e.g. [0, 1, 1]."
        )
    bits = []
    for b in reports:
        if isinstance(b, bool) or (hasattr(b, "__index__") and int(b) in (0, 1)):
            bits.append(int(b))
        else:
            raise InputError(f"reports holds {b!r}, not a 0/1 report; give bits 0 or 1.")
    if not bits:
        raise InputError("reports=[] has no report; give at least one 0/1 report.")
    return tuple(bits)


@dataclass(frozen=True, slots=True)
class PerReportUnbiased(Claim):
    """Claim: for a one-bit report b ~ M(x) (M with ``p_one(x)`` or ``pmf(x, 1)``), the term
    g(b) (an expression in the symbol b) has E[g(b)] = target(x) for every input x: in [0, m]
    for one-bit telemetry, a bit (0 or 1) for forced response;
    by linearity (1/n) sum_i g(b_i) is then unbiased for the mean of the x_i.
    E[g(b)] = g(1) P[b=1 | x] + g(0) P[b=0 | x], exactly."""

    mechanism: Any
    term: Any
    target: Any = X

    def __post_init__(self):
        if not isinstance(self.mechanism, (OneBitTelemetry, ForcedResponse)):
            raise InputError(
                f"mechanism={self.mechanism!r} does not report one bit with "
                "P[b=1 | x] linear in x; use OneBitTelemetry or ForcedResponse."
            )
        check_description(self.mechanism)
        reserve(self.mechanism, REPORT_NAMES, "per-report claims")
        table = symbols_of(self.mechanism)
        term_names, target_names = {"b": REPORT_BIT, **table}, {"x": X, **table}
        object.__setattr__(
            self, "term", by_name(as_expr(self.term, "term", term_names), term_names)
        )
        unknown = sorted(self.term.free_symbols - set(term_names.values()), key=str)
        if unknown:
            names = ", ".join(map(str, unknown))
            params = ", ".join(table) or "none: its parameters are numbers here"
            raise InputError(
                f"term={self.term} uses {names}: a term is a function of the report bit b and "
                f"of the mechanism's symbolic parameters ({params}) only; the input x is what "
                "it estimates."
            )
        object.__setattr__(
            self, "target", by_name(as_expr(self.target, "target", target_names), target_names)
        )

    def statement(self) -> str:
        return (
            f"E[{self.term}] = {self.target} for b ~ {type(self.mechanism).__name__}(x), "
            f"every x in {'[0, m]' if hasattr(self.mechanism, 'm') else '{0, 1}'}"
        )
