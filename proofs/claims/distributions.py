"""Claims about the distributions the notes use: normalisation of densities and mass functions,
moments of the noise, the variance of a noisy mean, and the inequalities between the distances
of the closeness tool (TV, L1, L2, KL, EMD). Descriptions only, with the checks of their input;
the checkers are :mod:`proofs.checkers.densities` and :mod:`proofs.checkers.distances`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import sympy as sp

from proofs.claims.base import Claim
from proofs.errors import InputError
from proofs.expr import as_expr, by_name, parse, reserve, symbols_of
from proofs.mechanisms import (
    AlphaCoinRR,
    ExponentialMechanism,
    FiniteMechanism,
    ForcedResponse,
    Gaussian,
    KAryRR,
    Laplace,
    OneBitTelemetry,
    TwoSidedGeometric,
    sym,
)
from proofs.smt import prove_forall
from proofs.symbols import N, Y, Z

__all__ = [
    "DISTANCE_NAMES",
    "EMD",
    "EMD_CAT",
    "KINDS",
    "KL",
    "L1",
    "L2",
    "TIMEOUT_MS",
    "TV",
    "DistanceBound",
    "M",
    "Moment",
    "NoiseDensity",
    "NoisyMeanVariance",
    "Normalised",
    "check_domain",
    "distance_expr",
    "finite_rows",
    "holds_everywhere",
    "noise_law",
]

TIMEOUT_MS = 3_000


TV = sp.Symbol("TV", real=True)  # total variation, (1/2) sum |P - Q|
L1 = sp.Symbol("L1", real=True)  # sum |P - Q|
L2 = sp.Symbol("L2", real=True)  # sqrt(sum (P - Q)^2)
KL = sp.Symbol("KL", real=True)  # sum P ln(P/Q), natural log (finite: supp P within supp Q)
EMD = sp.Symbol("EMD", real=True)  # ordered EMD, (1/(m-1)) sum_i |sum_{j<=i} (P - Q)_j|
EMD_CAT = sp.Symbol("EMD_cat", real=True)  # EMD with equal ground distance (categorical)
M = sp.Symbol("m", integer=True, positive=True)  # number of points
DISTANCE_NAMES = {"TV": TV, "L1": L1, "L2": L2, "KL": KL, "EMD": EMD, "EMD_cat": EMD_CAT, "m": M}


KINDS = ("mean", "variance")


def check_domain(domain, what: str) -> None:
    """Reject numeric parameters outside the domain: a false constraint would make every z3
    proof over the domain vacuous."""
    for c in domain:
        if sp.sympify(c) is sp.false:
            raise InputError(
                f"{what}: the constraint {c} fails for the given numbers; give "
                "parameters inside the mechanism's domain."
            )


def holds_everywhere(lhs, rhs, domain, strict=False) -> bool:
    """z3 proves lhs <= rhs (lhs < rhs when strict) for every value allowed by `domain`."""
    out = prove_forall(
        sp.sympify(lhs), sp.sympify(rhs), list(domain), strict=strict, timeout_ms=TIMEOUT_MS
    )
    return out.status == "proved"


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
        expr = expr.xreplace(
            {s: {"y": Y, "z": Z}[s.name] for s in expr.free_symbols if s.name in ("y", "z")}
        )
        object.__setattr__(self, "expr", expr)
        if not all(
            isinstance(c, (sp.core.relational.Relational, sp.logic.boolalg.Boolean))
            for c in self.domain
        ):
            raise InputError(f"domain={self.domain!r} must be SymPy relations such as b > 0.")
        object.__setattr__(self, "domain", tuple(self.domain))
        check_domain(self.domain, "NoiseDensity")
        noise = [c for c in self.domain if {s.name for s in c.free_symbols} & {"y", "z"}]
        if noise:
            raise InputError(
                f"domain entry {noise[0]} constrains the noise value; the domain is for "
                "parameters only (the density is integrated over every value): write a "
                "density that is 0 off its support, e.g. Piecewise((exp(-y), y > 0), (0, True))."
            )
        if self.domain and holds_everywhere(1, 0, self.domain):
            raise InputError(
                f"domain={self.domain} admits no parameter value; every claim "
                "over it would hold vacuously."
            )
        if self.support not in ("reals", "integers"):
            raise InputError(f"support={self.support!r} is not known; use 'reals' or 'integers'.")
        other = Z if self.support == "reals" else Y
        if other in self.expr.free_symbols:
            raise InputError(
                f"expr={self.expr} uses {other} but support={self.support!r}; "
                f"write a density in {self.variable} ('reals': y, 'integers': z)."
            )

    @property
    def variable(self) -> sp.Symbol:
        return Y if self.support == "reals" else Z

    @property
    def parameters(self) -> set:
        extra = set().union(*(c.free_symbols for c in self.domain)) if self.domain else set()
        return (self.expr.free_symbols | extra) - {self.variable}


NOISE_NAMES = {"y": "the noise value (reals)", "z": "the noise value (integers)"}


def noise_law(law: Any) -> NoiseDensity:
    """The noise of an additive mechanism, pdf(f(x), f(x) + y) (it does not depend on f(x):
    y = f(x) + t is a translation, a bijection that preserves Lebesgue/counting measure)."""
    if isinstance(law, NoiseDensity):
        return law
    if isinstance(law, (Laplace, Gaussian, TwoSidedGeometric)):
        integer = isinstance(law, TwoSidedGeometric)
        # (NoiseDensity reads every symbol named y or z as the noise value)
        reserve(law, NOISE_NAMES, "distribution claims")
        fx = sp.Dummy("f_x", integer=True) if integer else sp.Dummy("f_x", real=True)
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
        check_domain(law.domain(), type(law).__name__)
        domain = tuple(
            c
            for c in law.domain()
            if sp.sympify(c).free_symbols and sp.sympify(c).free_symbols <= dens.free_symbols
        )
        return NoiseDensity(dens, "integers" if integer else "reals", domain, name)
    raise InputError(
        f"{type(law).__name__} is not a noise law; use Laplace, Gaussian, "
        "TwoSidedGeometric or NoiseDensity."
    )


def finite_rows(law: Any, utilities: tuple) -> list[tuple[str, list, tuple]]:
    """(row label, [(multiplicity, probability)], extra constraints) for a finite mechanism."""
    if isinstance(law, (AlphaCoinRR, ForcedResponse)):
        return [(f"{x}", [(1, sp.sympify(law.pmf(x, y))) for y in (0, 1)], ()) for x in (0, 1)]
    if isinstance(law, KAryRR):
        if law.k.is_Integer and int(law.k) <= 20:
            k = int(law.k)
            return [(f"{x}", [(1, law.pmf(x, y)) for y in range(k)], ()) for x in range(k)]
        return [
            (
                "any x (P[Y=x] once, P[Y=y] for the k - 1 values y != x)",
                [(1, law.pmf(0, 0)), (law.k - 1, law.pmf(0, 1))],
                (),
            )
        ]
    if isinstance(law, OneBitTelemetry):
        x = sp.Symbol("x", real=True)
        return [("any x in [0, m]", [(1, law.pmf(x, 1)), (1, law.pmf(x, 0))], (x >= 0, x <= law.m))]
    if isinstance(law, ExponentialMechanism):
        us = utilities or sp.symbols("u_1:4", real=True)
        return [(f"utilities {tuple(us)}", [(1, law.pmf(list(us), r)) for r in range(len(us))], ())]
    if isinstance(law, FiniteMechanism):
        return [
            (f"{x!r}", [(1, as_expr(v, f"pmf[{x!r}]")) for v in row.values()], ())
            for x, row in law.pmf.items()
        ]
    raise InputError(
        f"{type(law).__name__} is not supported by Normalised; use a finite "
        "mechanism, Laplace, Gaussian, TwoSidedGeometric or NoiseDensity."
    )


@dataclass(frozen=True, slots=True)
class Normalised(Claim):
    """Claim: the pmf/density of `law` is a probability distribution for every parameter value:
    non-negative, and summing (integrating) to 1 over its outputs.

    `law` is a finite mechanism (AlphaCoinRR, ForcedResponse, KAryRR, OneBitTelemetry,
    ExponentialMechanism with `utilities` (default three symbolic utilities), FiniteMechanism),
    an additive mechanism (Laplace, Gaussian, TwoSidedGeometric: its noise law) or a
    :class:`NoiseDensity`. The probability simplex is notes 004, "Probability Simplex"."""

    law: Any
    utilities: tuple = ()

    def __post_init__(self):
        object.__setattr__(self, "utilities", tuple(as_expr(u, "utility") for u in self.utilities))
        if isinstance(self.law, (NoiseDensity, Laplace, Gaussian, TwoSidedGeometric)):
            noise_law(self.law)  # raises InputError for parameters outside the domain
        else:
            finite_rows(self.law, self.utilities)  # raises InputError when unsupported
            check_domain(self.law.domain(), type(self.law).__name__)

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
        return (
            f"{self._name()}: the pmf/density is >= 0 and sums/integrates to 1 for every "
            "parameter value"
        )

    # densities and pmfs on the reals/integers

    # finite mechanisms


@dataclass(frozen=True, slots=True)
class Moment(Claim):
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
        if self.kind not in KINDS:
            raise InputError(f"kind={self.kind!r} is not known; use 'mean' or 'variance'.")
        table = symbols_of(noise_law(self.law).expr, *noise_law(self.law).domain)
        object.__setattr__(self, "value", by_name(as_expr(self.value, "value", table), table))
        noise_law(self.law)  # raises InputError for laws without a density

    def statement(self) -> str:
        law = noise_law(self.law)
        return f"the {self.kind} of {law.name} ({law.expr}) is {self.value}"


@dataclass(frozen=True, slots=True)
class NoisyMeanVariance(Claim):
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
        check_domain(checks, "NoisyMeanVariance")

    def statement(self) -> str:
        noise = (
            f"Lap({1 / (self.epsilon * self.n)})"
            if self.noise == "laplace"
            else f"N(0, ({self.sigma})^2)"
        )
        return f"mean of {self.n} values in [0, 1] + {noise}: Var[release | data] = {self.value}"


def distance_expr(value: Any, name: str) -> sp.Expr:
    e = parse(value, name, DISTANCE_NAMES) if isinstance(value, str) else as_expr(value, name)
    e = e.xreplace(
        {
            s: DISTANCE_NAMES[s.name]
            for s in e.free_symbols
            if isinstance(s, sp.Symbol) and s.name in DISTANCE_NAMES
        }
    )
    unknown = e.free_symbols - set(DISTANCE_NAMES.values())
    if unknown:
        raise InputError(
            f"{name}={value!r} uses {', '.join(sorted(map(str, unknown)))}; write it "
            f"in the distances {', '.join(DISTANCE_NAMES)}."
        )
    return e


@dataclass(frozen=True, slots=True)
class DistanceBound(Claim):
    """Claim: `lhs` <= `rhs` (``relation='<='``) or `lhs` == `rhs` (``'=='``) for every pair of
    distributions P, Q on m >= 1 points (with supp P within supp Q when KL occurs).

    `lhs` and `rhs` are formulas (strings or SymPy expressions) in TV, L1, L2, KL, EMD (the
    ordered EMD of the closeness tool), EMD_cat (the categorical EMD) and m. Proved when z3
    derives the claim (polynomials and square roots) from the proved :func:`distance_facts`;
    refuted by concrete rational distributions on 2 to 20 points, re-checked with exact
    rationals or arb balls; unknown otherwise."""

    lhs: Any
    rhs: Any
    relation: str = "<="

    def __post_init__(self):
        if self.relation not in ("<=", "=="):
            raise InputError(f"relation={self.relation!r}; use '<=' or '=='.")
        object.__setattr__(self, "lhs", distance_expr(self.lhs, "lhs"))
        object.__setattr__(self, "rhs", distance_expr(self.rhs, "rhs"))

    def statement(self) -> str:
        kl = KL in (self.lhs.free_symbols | self.rhs.free_symbols)
        return f"{self.lhs} {self.relation} {self.rhs} for all distributions P, Q on m points" + (
            " with KL(P||Q) finite" if kl else ""
        )
