"""Mechanism descriptions: what a mechanism is, never how to check it.

Each description is a frozen dataclass whose parameters are SymPy symbols (with assumptions)
or numbers. It states its pmf/pdf, its neighbouring relation and the paper it comes from.
Checkers in :mod:`proofs.pure` take descriptions as input. ``domain()`` lists the constraints
on the parameters that the proofs may assume (besides the symbols' own assumptions);
``validate()`` rejects numeric parameters outside that domain with an error that names the
value and the fix.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import sympy as sp

from proofs.errors import InputError
from proofs.expr import as_expr
from proofs.validate import check_epsilon, check_in_range, check_positive

__all__ = [
    "AlphaCoinRR",
    "ForcedResponse",
    "KAryRR",
    "Laplace",
    "LaplaceVector",
    "TwoSidedGeometric",
    "ExponentialMechanism",
    "ReportNoisyMax",
    "Histogram",
    "OneBitTelemetry",
    "Gaussian",
    "FiniteMechanism",
    "Rappor",
    "RepeatedOneBit",
    "describe",
    "sym",
]


def sym(name: str, **assumptions: bool) -> sp.Symbol:
    """A parameter symbol; positive unless other assumptions are given."""
    return sp.Symbol(name, **(assumptions or {"positive": True}))


def describe(mech) -> str:
    """A one-line description: the class and its fields (a finite table by its name)."""
    if isinstance(mech, FiniteMechanism):
        return f"FiniteMechanism({mech.name!r})"
    fields = getattr(mech, "__dataclass_fields__", {})
    return f"{type(mech).__name__}(" + ", ".join(f"{k}={getattr(mech, k)}" for k in fields) + ")"


@dataclass(frozen=True, slots=True)
class AlphaCoinRR:
    """Randomized response with an alpha-coin (Warner 1965; the notes' local protocol).

    Each bit x in {0, 1} is reported as itself with probability alpha and replaced by a fair
    coin otherwise: P[Y = x] = (1 + alpha)/2, P[Y = 1 - x] = (1 - alpha)/2, for 0 < alpha < 1.
    Neighbours: the two values of the bit. True epsilon: ln((1 + alpha)/(1 - alpha)).
    """

    alpha: Any = sym("alpha")

    def __post_init__(self):
        object.__setattr__(self, "alpha", as_expr(self.alpha, "alpha"))

    def domain(self):
        return (self.alpha > 0, self.alpha < 1)

    def validate(self):
        check_in_range(self.alpha, "alpha", 0, 1, fix="give alpha in (0, 1), the probability of answering truthfully")

    def pmf(self, x, y):
        a = self.alpha
        return (1 + a) / 2 if x == y else (1 - a) / 2


@dataclass(frozen=True, slots=True)
class ForcedResponse:
    """Two-coin forced response (Dwork and Roth 2014, Sec. 3.2; notes 002 and 004).

    With probability p_truth answer truthfully; otherwise answer "yes" with probability p_yes.
    P[yes | x=1] = p_truth + (1 - p_truth) p_yes, P[yes | x=0] = (1 - p_truth) p_yes.
    With two fair coins: 3/4 versus 1/4, epsilon = ln 3.
    """

    p_truth: Any = sp.Rational(1, 2)
    p_yes: Any = sp.Rational(1, 2)

    def __post_init__(self):
        object.__setattr__(self, "p_truth", as_expr(self.p_truth, "p_truth"))
        object.__setattr__(self, "p_yes", as_expr(self.p_yes, "p_yes"))

    def domain(self):
        return (self.p_truth > 0, self.p_truth < 1, self.p_yes > 0, self.p_yes < 1)

    def validate(self):
        check_in_range(self.p_truth, "p_truth", 0, 1)
        check_in_range(self.p_yes, "p_yes", 0, 1)

    def pmf(self, x, y):
        yes = self.p_truth * x + (1 - self.p_truth) * self.p_yes
        return yes if y == 1 else 1 - yes


@dataclass(frozen=True, slots=True)
class KAryRR:
    """k-ary randomized response (Kairouz, Oh, Viswanath 2014/2016; Warner's generalisation).

    Values in {0, ..., k-1}: P[Y = x] = e^eps/(e^eps + k - 1), P[Y = y] = 1/(e^eps + k - 1) for
    y != x. Neighbours: any two values. True epsilon: eps.
    """

    epsilon: Any = sym("epsilon")
    k: Any = sp.Symbol("k", integer=True, positive=True)

    def __post_init__(self):
        object.__setattr__(self, "epsilon", as_expr(self.epsilon, "epsilon"))
        object.__setattr__(self, "k", as_expr(self.k, "k"))

    def domain(self):
        return (self.k >= 2, self.epsilon > 0)

    def validate(self):
        check_epsilon(self.epsilon)
        check_in_range(self.k, "k", 2, None, lo_open=False, fix="k-ary RR needs k >= 2 values")

    def pmf(self, x, y):
        e = sp.exp(self.epsilon)
        return (e if x == y else 1) / (e + self.k - 1)


@dataclass(frozen=True, slots=True)
class Laplace:
    """Laplace mechanism M(x) = f(x) + Lap(scale) (Dwork, McSherry, Nissim, Smith 2006).

    Density (1/(2 b)) exp(-|y - f(x)|/b); neighbours move f by at most `sensitivity` (Delta).
    With b = Delta/eps it is eps-DP (Dwork and Roth 2014, Thm 3.6). Use `Laplace.calibrated`.
    """

    scale: Any = sym("b")
    sensitivity: Any = sym("Delta")

    def __post_init__(self):
        object.__setattr__(self, "scale", as_expr(self.scale, "scale"))
        object.__setattr__(self, "sensitivity", as_expr(self.sensitivity, "sensitivity"))

    @classmethod
    def calibrated(cls, epsilon=sym("epsilon"), sensitivity=sym("Delta")) -> "Laplace":
        eps, delta = as_expr(epsilon, "epsilon"), as_expr(sensitivity, "sensitivity")
        check_epsilon(eps)
        return cls(scale=delta / eps, sensitivity=delta)

    def domain(self):
        return (self.scale > 0, self.sensitivity > 0)

    def validate(self):
        check_positive(self.scale, "scale")
        check_positive(self.sensitivity, "sensitivity")

    def pdf(self, fx, y):
        return sp.exp(-sp.Abs(y - fx) / self.scale) / (2 * self.scale)


@dataclass(frozen=True, slots=True)
class LaplaceVector:
    """k-dimensional Laplace mechanism with L1 sensitivity (Dwork and Roth 2014, Def 3.3, Thm 3.6).

    Independent Lap(scale) noise on each of k coordinates; neighbours move f(x) by at most
    `sensitivity` in L1 norm. With scale = Delta_1/eps it is eps-DP for every k.
    """

    scale: Any = sym("b")
    sensitivity: Any = sym("Delta")
    dimension: Any = sp.Symbol("k", integer=True, positive=True)

    def __post_init__(self):
        for name in ("scale", "sensitivity", "dimension"):
            object.__setattr__(self, name, as_expr(getattr(self, name), name))

    @classmethod
    def calibrated(cls, epsilon=sym("epsilon"), sensitivity=sym("Delta"),
                   dimension=sp.Symbol("k", integer=True, positive=True)) -> "LaplaceVector":
        eps, delta = as_expr(epsilon, "epsilon"), as_expr(sensitivity, "sensitivity")
        check_epsilon(eps)
        return cls(scale=delta / eps, sensitivity=delta, dimension=dimension)

    def domain(self):
        return (self.scale > 0, self.sensitivity > 0, self.dimension >= 1)

    def validate(self):
        check_positive(self.scale, "scale")
        check_positive(self.sensitivity, "sensitivity")
        check_in_range(self.dimension, "dimension", 1, None, lo_open=False)


@dataclass(frozen=True, slots=True)
class TwoSidedGeometric:
    """Two-sided geometric mechanism (Ghosh, Roughgarden, Sundararajan 2009).

    Integer noise Z with P[Z = z] = (1 - a)/(1 + a) a^|z|, a = exp(-1/scale); integer-valued
    f with sensitivity Delta. With scale = Delta/eps it is eps-DP.
    """

    scale: Any = sym("b")
    sensitivity: Any = sp.Symbol("Delta", integer=True, positive=True)

    def __post_init__(self):
        object.__setattr__(self, "scale", as_expr(self.scale, "scale"))
        object.__setattr__(self, "sensitivity", as_expr(self.sensitivity, "sensitivity"))

    @classmethod
    def calibrated(cls, epsilon=sym("epsilon"),
                   sensitivity=sp.Symbol("Delta", integer=True, positive=True)):
        eps, delta = as_expr(epsilon, "epsilon"), as_expr(sensitivity, "sensitivity")
        check_epsilon(eps)
        return cls(scale=delta / eps, sensitivity=delta)

    def domain(self):
        return (self.scale > 0, self.sensitivity >= 1)

    def validate(self):
        check_positive(self.scale, "scale")
        check_positive(self.sensitivity, "sensitivity")

    def pmf(self, fx, y):
        a = sp.exp(-1 / self.scale)
        return (1 - a) / (1 + a) * sp.exp(-sp.Abs(y - fx) / self.scale)


@dataclass(frozen=True, slots=True)
class ExponentialMechanism:
    """Exponential mechanism (McSherry and Talwar 2007; Dwork and Roth 2014, Thm 3.10).

    P[r | x] proportional to exp(eps u(x, r) / (2 Delta_u)) with the factor 1/2
    (`half_factor=True`), or exp(eps u(x, r)/Delta_u) without it. Neighbours change every
    utility by at most Delta_u; `monotone=True` restricts to neighbours whose utility changes
    all have the same sign. With the factor 1/2 it is eps-DP; without it, eps-DP only for
    monotone utilities (Dwork and Roth 2014, remark after Thm 3.10), else 2 eps.
    """

    epsilon: Any = sym("epsilon")
    sensitivity: Any = sym("Delta_u")
    half_factor: bool = True
    monotone: bool = False

    def __post_init__(self):
        object.__setattr__(self, "epsilon", as_expr(self.epsilon, "epsilon"))
        object.__setattr__(self, "sensitivity", as_expr(self.sensitivity, "sensitivity"))

    def domain(self):
        return (self.epsilon > 0, self.sensitivity > 0)

    def validate(self):
        check_epsilon(self.epsilon)
        check_positive(self.sensitivity, "sensitivity")

    @property
    def rate(self) -> sp.Expr:
        """The coefficient c in exp(c u): eps/(2 Delta_u) or eps/Delta_u."""
        return self.epsilon / (2 * self.sensitivity if self.half_factor else self.sensitivity)

    def pmf(self, utilities, r):
        weights = [sp.exp(self.rate * u) for u in utilities]
        return weights[r] / sum(weights)


@dataclass(frozen=True, slots=True)
class ReportNoisyMax:
    """Report noisy max with Laplace noise (Dwork and Roth 2014, Claim 3.9).

    Adds independent Lap(scale) noise to each of m counting queries and reports the index of
    the largest noisy count. Neighbours (add/remove one record) move every count by at most 1,
    all in the same direction. With scale = 1/eps it is eps-DP for every m.
    """

    scale: Any = sym("b")

    def __post_init__(self):
        object.__setattr__(self, "scale", as_expr(self.scale, "scale"))

    @classmethod
    def calibrated(cls, epsilon=sym("epsilon")) -> "ReportNoisyMax":
        eps = as_expr(epsilon, "epsilon")
        check_epsilon(eps)
        return cls(scale=1 / eps)

    def domain(self):
        return (self.scale > 0,)

    def validate(self):
        check_positive(self.scale, "scale")

    def win_probability_two(self, gap) -> sp.Expr:
        """P[query 1 wins] for two queries when count1 - count2 = gap (closed form).

        N1 - N2 of two iid Lap(b) has P[N1 - N2 > t] = exp(-t/b)(1 + t/(2b))/2 for t >= 0.
        """
        b = self.scale
        t = -sp.sympify(gap)
        tail = lambda s: sp.exp(-s / b) * (1 + s / (2 * b)) / 2  # noqa: E731
        return sp.Piecewise((tail(t), t >= 0), (1 - tail(-t), True))


@dataclass(frozen=True, slots=True)
class Histogram:
    """Histogram with independent Lap(scale) noise per bin (Dwork and Roth 2014, Sec. 3.3).

    Under add/remove-one neighbours one bin count moves by 1 (L1 sensitivity 1); under
    replace-one, one bin loses a record and another gains it (L1 sensitivity 2). Lap(1/eps)
    per bin is eps-DP for add/remove, Lap(2/eps) for replace-one (notes 000, "Histogram").
    """

    scale: Any = sym("b")
    neighbours: str = "add_remove"
    bins: Any = sp.Symbol("k", integer=True, positive=True)

    def __post_init__(self):
        object.__setattr__(self, "scale", as_expr(self.scale, "scale"))
        object.__setattr__(self, "bins", as_expr(self.bins, "bins"))
        if self.neighbours not in ("add_remove", "replace_one"):
            raise InputError(
                f"neighbours={self.neighbours!r} is not a relation; use 'add_remove' or 'replace_one'."
            )

    @property
    def l1_sensitivity(self) -> int:
        return 1 if self.neighbours == "add_remove" else 2

    def domain(self):
        return (self.scale > 0, self.bins >= 1)

    def validate(self):
        check_positive(self.scale, "scale")


@dataclass(frozen=True, slots=True)
class OneBitTelemetry:
    """One-bit telemetry for values x in [0, m] (Ding, Kulkarni, Yekhanin 2017, Sec. 2.1).

    Reports 1 with probability 1/(e^eps + 1) + (x/m)(e^eps - 1)/(e^eps + 1) (`form='sum'`), an
    eps-LDP mechanism. `form='product'` is the notes' transcription (001), which multiplies the
    two terms: 1/(e^eps + 1) * (x/m) * (e^eps - 1)/(e^eps + 1); it reports 1 with probability 0
    at x = 0 and is not DP for any finite epsilon.
    """

    epsilon: Any = sym("epsilon")
    m: Any = sym("m")
    form: str = "sum"

    def __post_init__(self):
        object.__setattr__(self, "epsilon", as_expr(self.epsilon, "epsilon"))
        object.__setattr__(self, "m", as_expr(self.m, "m"))
        if self.form not in ("sum", "product"):
            raise InputError(f"form={self.form!r} is not known; use 'sum' or 'product'.")

    def domain(self):
        return (self.epsilon > 0, self.m > 0)

    def validate(self):
        check_epsilon(self.epsilon)
        check_positive(self.m, "m")

    def p_one(self, x) -> sp.Expr:
        e = sp.exp(self.epsilon)
        if self.form == "sum":
            return 1 / (e + 1) + (x / self.m) * (e - 1) / (e + 1)
        return 1 / (e + 1) * (x / self.m) * (e - 1) / (e + 1)

    def pmf(self, x, y):
        p = self.p_one(x)
        return p if y == 1 else 1 - p


@dataclass(frozen=True, slots=True)
class Gaussian:
    """Gaussian mechanism M(x) = f(x) + N(0, sigma^2) (Dwork and Roth 2014, Thm A.1).

    Neighbours move f by at most `sensitivity` (L2). It is (eps, delta)-DP for delta > 0 but
    never eps-DP: the privacy loss ((y - f(x'))^2 - (y - f(x))^2)/(2 sigma^2) is unbounded in y.
    """

    sigma: Any = sym("sigma")
    sensitivity: Any = sym("Delta")

    def __post_init__(self):
        object.__setattr__(self, "sigma", as_expr(self.sigma, "sigma"))
        object.__setattr__(self, "sensitivity", as_expr(self.sensitivity, "sensitivity"))

    def domain(self):
        return (self.sigma > 0, self.sensitivity > 0)

    def validate(self):
        check_positive(self.sigma, "sigma")
        check_positive(self.sensitivity, "sensitivity")

    def pdf(self, fx, y):
        s = self.sigma
        return sp.exp(-((y - fx) ** 2) / (2 * s**2)) / (s * sp.sqrt(2 * sp.pi))


@dataclass(frozen=True, slots=True)
class FiniteMechanism:
    """A mechanism given by its table: `pmf[x][y]` = P[M(x) = y] for finitely many x and y.

    `neighbours` lists the neighbouring pairs (both orders are checked); None means every two
    distinct inputs are neighbours (local DP). Entries may be SymPy expressions in symbols
    constrained by `assumptions`.
    """

    pmf: Mapping
    neighbours: tuple | None = None
    assumptions: tuple = ()
    name: str = "finite mechanism"

    def __post_init__(self):
        if not isinstance(self.pmf, Mapping) or not all(
                isinstance(row, Mapping) for row in self.pmf.values()):
            raise InputError("pmf must be a dict of dicts: pmf[x][y] = P[M(x) = y].")
        if self.neighbours is not None and not all(
                isinstance(p, (tuple, list)) and len(p) == 2 for p in self.neighbours):
            raise InputError(f"neighbours={self.neighbours!r} must be a tuple of (x, x') pairs, "
                             "or None for every pair.")

    def domain(self):
        return tuple(self.assumptions)

    def validate(self):
        if not self.pmf:
            raise InputError("pmf={} is empty; give P[M(x)=y] for at least two inputs x.")
        outputs = {tuple(sorted(map(str, row))) for row in self.pmf.values()}
        if len(outputs) > 1:
            raise InputError("pmf rows have different outputs; list every output for every input.")
        for x, row in self.pmf.items():
            values = [as_expr(v, f"pmf[{x!r}][{y!r}]") for y, v in row.items()]
            if any(v.is_negative or (v - 1).is_positive for v in values):
                raise InputError(f"pmf[{x!r}] = {dict(row)} has a value outside [0, 1]; give "
                                 "probabilities.")
            total = sp.simplify(sum(values))
            if not total.free_symbols and total != 1:
                raise InputError(f"pmf[{x!r}] sums to {total}, not 1; fix the row's probabilities.")
        for pair in self.neighbour_pairs():
            for x in pair:
                if x not in self.pmf:
                    raise InputError(f"neighbour {x!r} is not an input of pmf; add its row.")

    def neighbour_pairs(self) -> list[tuple]:
        if self.neighbours is None:
            keys = list(self.pmf)
            return [(a, b) for a in keys for b in keys if a != b]
        return [p for a, b in self.neighbours for p in ((a, b), (b, a))]


@dataclass(frozen=True, slots=True)
class Rappor:
    """RAPPOR's randomized responses on a Bloom filter (Erlingsson, Pihur, Korolova 2014).

    A value sets at most h of the k Bloom bits. The permanent randomized response (PRR)
    reports each bit as 1 with probability f/2, 0 with probability f/2, itself otherwise, and is
    memoized per value; each report then passes every memoized bit through the instantaneous
    randomized response (IRR): 1 with probability q if the bit is 1, p if it is 0.
    `reports='unlimited'` describes what many reports of one value reveal, the PRR itself:
    eps_inf = 2h ln((1 - f/2)/(f/2)) (Thm 1). `reports='one'` describes one report:
    eps_1 = h ln(q*(1 - p*)/(p*(1 - q*))), q* = (1 - f/2) q + (f/2) p, p* = (f/2) q + (1 - f/2) p
    (Sec. 3.2). Neighbours: any two client values.
    """

    f: Any = sym("f")
    p: Any = sym("p")
    q: Any = sym("q")
    h: Any = sp.Symbol("h", integer=True, positive=True)
    reports: str = "one"

    def __post_init__(self):
        for name in ("f", "p", "q", "h"):
            object.__setattr__(self, name, as_expr(getattr(self, name), name))
        if self.reports not in ("one", "unlimited"):
            raise InputError(f"reports={self.reports!r} is not known; use 'one' or 'unlimited'.")

    def domain(self):
        return (self.f > 0, self.f < 1, self.p > 0, self.p < self.q, self.q < 1, self.h >= 1)

    def validate(self):
        check_in_range(self.f, "f", 0, 1, fix="f is the PRR noise level")
        check_in_range(self.p, "p", 0, 1)
        check_in_range(self.q, "q", 0, 1)
        if not (self.p.free_symbols or self.q.free_symbols) and not self.p < self.q:
            raise InputError(f"p={self.p}, q={self.q}: RAPPOR needs p < q; swap them.")

    def bit_probabilities(self) -> tuple[sp.Expr, sp.Expr]:
        """(P[reported bit = 1 | Bloom bit 1], P[reported bit = 1 | Bloom bit 0])."""
        half = self.f / 2
        if self.reports == "unlimited":
            return 1 - half, half
        return (1 - half) * self.q + half * self.p, half * self.q + (1 - half) * self.p


@dataclass(frozen=True, slots=True)
class RepeatedOneBit:
    """T reports of one client's value x in [0, m] by one-bit telemetry (Ding, Kulkarni,
    Yekhanin 2017). Without memoization each report draws a fresh bit (T-fold composition:
    T eps); with memoization the client draws the bit once per value and repeats it, so the T
    reports are a function of one eps-LDP bit (post-processing: eps for any T; Sec. 3).
    """

    epsilon: Any = sym("epsilon")
    m: Any = sym("m")
    reports: Any = sp.Symbol("T", integer=True, positive=True)
    memoized: bool = False

    def __post_init__(self):
        for name in ("epsilon", "m", "reports"):
            object.__setattr__(self, name, as_expr(getattr(self, name), name))

    def domain(self):
        return (self.epsilon > 0, self.m > 0, self.reports >= 1)

    def validate(self):
        check_epsilon(self.epsilon)
        check_positive(self.m, "m")
        check_in_range(self.reports, "reports", 1, None, lo_open=False)

    @property
    def single(self) -> "OneBitTelemetry":
        return OneBitTelemetry(self.epsilon, self.m)
