"""Claims about accounting: Renyi divergence and zCDP of the Gaussian, RDP and zCDP conversions,
and RDP compositions of any mechanisms (the accountant is :mod:`proofs.checkers.rdp`).
Descriptions only, with the checks of their input."""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy as sp

from proofs.claims.base import Claim
from proofs.errors import InputError
from proofs.expr import as_expr, rationalize, rule_expr
from proofs.mechanisms import (
    AlphaCoinRR,
    FiniteMechanism,
    ForcedResponse,
    Gaussian,
    Histogram,
    KAryRR,
    Laplace,
    describe,
)
from proofs.mechanisms.tables import same_inputs
from proofs.symbols import ALPHA, SENSITIVITY
from proofs.validate import (
    check_delta,
    check_description,
    check_eps_value,
    check_k,
    positive_number,
)

__all__ = [
    "CONVERSIONS",
    "CONVERSION_NAMES",
    "DEFAULT_ORDERS",
    "SUPPORTED",
    "RDPComposition",
    "RDPConversion",
    "RenyiGaussian",
    "ZCDPConversion",
    "composition_of",
    "conversion_of",
    "describe_composition",
    "number",
    "orders_of",
    "positive_delta",
]

_SIGMA = sp.Symbol("sigma", positive=True)
RDP, RHO, DL = (sp.Symbol(n, positive=True) for n in ("rdp", "rho", "delta"))


def _gaussian_setting(claim) -> None:
    """Validate and convert the numeric sigma, k, delta and sensitivity of a conversion claim."""
    object.__setattr__(claim, "sigma", positive_number(claim.sigma, "sigma"))
    object.__setattr__(claim, "sensitivity", positive_number(claim.sensitivity, "sensitivity"))
    object.__setattr__(claim, "k", check_k(claim.k))
    delta = check_delta(claim.delta)
    if delta == 0:
        raise InputError("delta=0: Gaussian noise is never (eps, 0)-DP; give delta > 0.")
    object.__setattr__(claim, "delta", delta)


# The default orders: 1 + i/100 (i = 1..100), 2 + i/20 up to 20, the integers 21..64, then
# round(64 * 2^(i/16)) up to 2^16 (664 orders; 128, 256, 512, 1024 among them). Why: the best
# order of a Gaussian-like composition, r(alpha) = rho alpha, is about 1 + sqrt(ln(1/delta)/rho),
# so it is close to 1 when much privacy is spent and in the thousands for tiny rho; the loss of a
# grid depends on its relative spacing in alpha - 1, here at most about 5% (1/100 next to 1,
# where the arb balls keep the conversion stable, unlike floats). Against the continuous optimum
# of the improved conversion this grid loses at most 0.05% for every rho in [1e-7, 1e4] and delta
# in [1e-12, 1e-3]; dp_accounting's default grid (which ours contains, so ours is never looser)
# loses up to 5% for large rho and far more for rho < 1e-5 (its largest order is 1024).
# Evaluating 664 orders costs milliseconds.
DEFAULT_ORDERS: tuple[sp.Rational, ...] = tuple(
    sorted(
        {
            *(1 + sp.Rational(i, 100) for i in range(1, 101)),
            *(2 + sp.Rational(i, 20) for i in range(1, 361)),
            *(sp.Integer(i) for i in range(21, 65)),
            *(sp.Integer(round(64 * 2 ** (i / 16))) for i in range(1, 161)),
        }
    )
)
CONVERSIONS = ("improved", "mironov")
CONVERSION_NAMES = {
    "improved": "improved conversion (Canonne-Kamath-Steinke 2020 Prop. 12; Balle et al. 2020 "
    "Thm 21)",
    "mironov": "Mironov's conversion (Mironov 2017 Prop. 3)",
}
SUPPORTED = (Gaussian, Laplace, KAryRR, AlphaCoinRR, ForcedResponse, FiniteMechanism, Histogram)


def number(value: Any, name: str) -> sp.Expr:
    """A number as an exact SymPy number: int, float (the decimal it prints as), Fraction, SymPy
    numbers and numpy scalars are accepted; symbols and non-numbers are refused."""
    if isinstance(value, bool):
        raise InputError(f"{name}={value!r} must be a number, not a bool.")
    if isinstance(value, Fraction):
        return sp.Rational(value.numerator, value.denominator)
    if isinstance(value, numbers.Integral) and not isinstance(value, sp.Basic):
        return sp.Integer(int(value))
    if isinstance(value, numbers.Real) and not isinstance(value, sp.Basic):
        value = float(value)  # numpy floats, whose repr is not a plain decimal
        if not math.isfinite(value):
            raise InputError(f"{name}={value!r} must be a finite number.")
    e = rationalize(as_expr(value, name))
    if e.free_symbols:
        raise InputError(
            f"{name}={value!r} is symbolic; the RDP accountant needs a number here, e.g. {name}=2."
        )
    if e.is_real is not True or e.is_finite is not True:
        raise InputError(f"{name}={value!r} must be a finite real number.")
    return e


def _order(value: Any, name: str = "order") -> sp.Rational:
    a = number(value, name)
    if not a.is_Rational or not a > 1:
        raise InputError(
            f"{name}={value!r} must be a rational number > 1 (a Renyi order); "
            "give e.g. 1.5, 2 or Fraction(21, 20)."
        )
    return a


def orders_of(orders: Any) -> tuple[sp.Rational, ...]:
    if orders is None:
        return DEFAULT_ORDERS
    if isinstance(orders, (str, bytes)) or not hasattr(orders, "__iter__"):
        raise InputError(
            f"orders={orders!r} must be a list of Renyi orders > 1, e.g. "
            "[1.5, 2, 4, 8], or None for the default grid."
        )
    out = tuple(_order(a, f"orders[{i}]") for i, a in enumerate(orders))
    if not out:
        raise InputError(
            "orders=[] is empty; give at least one order > 1, or None for the default grid."
        )
    return out


def _count(value: Any, name: str) -> int:
    if isinstance(value, bool):
        raise InputError(
            f"{name}={value!r} must be a positive integer (how many times the mechanism runs)."
        )
    c = number(value, name)
    if not c.is_Integer or c < 1:
        raise InputError(
            f"{name}={value!r} must be a positive integer (how many times the "
            "mechanism runs), e.g. 10."
        )
    return int(c)


def conversion_of(value: Any) -> str:
    if value not in CONVERSIONS:
        raise InputError(
            f"conversion={value!r} is not known; use 'improved' (default) or 'mironov'."
        )
    return value


def _check_mechanism(mech: Any, where: str) -> None:
    if not isinstance(mech, SUPPORTED):
        names = ", ".join(t.__name__ for t in SUPPORTED)
        raise InputError(f"{where}: no RDP curve for {type(mech).__name__}; use one of {names}.")
    kind = type(mech).__name__
    if isinstance(mech, FiniteMechanism):
        for x, row in mech.pmf.items():
            for y, v in row.items():
                number(v, f"{where} {kind}.pmf[{x!r}][{y!r}]")
    else:
        for field in mech.__dataclass_fields__:
            value = getattr(mech, field)
            if isinstance(mech, Histogram) and field == "bins":
                continue  # the number of bins does not change the RDP
            if isinstance(value, sp.Basic) and value.free_symbols:
                raise InputError(
                    f"{where}: {kind}.{field}={value} is symbolic; the RDP accountant needs "
                    f"numeric parameters, e.g. {_example(kind)}."
                )
    check_description(mech)
    if isinstance(mech, KAryRR) and not mech.k.is_Integer:
        raise InputError(
            f"{where}: KAryRR.k={mech.k} must be an integer >= 2 (the number of values)."
        )


def _example(kind: str) -> str:
    return {
        "Gaussian": "Gaussian(sigma=2, sensitivity=1)",
        "Laplace": "Laplace(scale=1, sensitivity=1)",
        "KAryRR": "KAryRR(epsilon=1, k=4)",
        "AlphaCoinRR": "AlphaCoinRR(alpha=0.5)",
        "ForcedResponse": "ForcedResponse(0.5, 0.5)",
        "Histogram": "Histogram(scale=2)",
    }.get(kind, f"{kind}(...) with numbers")


def composition_of(composition: Any) -> tuple[tuple[Any, int], ...]:
    """((mechanism, count), ...) from a mechanism, or a sequence of mechanisms and pairs."""
    items = [composition] if isinstance(composition, SUPPORTED) else composition
    if isinstance(items, (str, bytes)) or not hasattr(items, "__iter__"):
        raise InputError(
            f"composition={composition!r} must be a sequence of (mechanism, count) "
            "pairs, e.g. [(Gaussian(2, 1), 10), (Laplace(1, 1), 3)]."
        )
    out = []
    for i, item in enumerate(items):
        if isinstance(item, (tuple, list)) and len(item) == 2:
            mech, count = item
            count = _count(count, f"composition[{i}] count")
        else:
            mech, count = item, 1
        _check_mechanism(mech, f"composition[{i}]")
        out.append((mech, count))
    if not out:
        raise InputError("composition=[] is empty; give at least one (mechanism, count) pair.")
    same_inputs([m for m, _ in out if isinstance(m, FiniteMechanism)], "composed tables")
    return tuple(out)


def positive_delta(delta: Any) -> sp.Expr:
    d = number(delta, "delta")
    if not 0 < d < 1:
        raise InputError(
            f"delta={delta!r} must be in (0, 1); RDP gives no finite epsilon at "
            "delta=0. Give e.g. delta=1e-5."
        )
    return d


def describe_composition(composition: tuple[tuple[Any, int], ...]) -> str:
    """'Gaussian(sigma=2, sensitivity=1) x 10 + Laplace(scale=1, sensitivity=1)'."""
    parts = []
    for mech, count in composition:
        text = describe(mech)
        parts.append(text if count == 1 else f"{text} x {count}")
    return " + ".join(parts)


@dataclass(frozen=True, slots=True)
class RenyiGaussian(Claim):
    """Claim: the Gaussian mechanism has Renyi divergence of order alpha > 1 at most `bound`
    (an expression in alpha, sigma, Delta), for all alpha > 1, sigma, Delta > 0. With
    `per_alpha=True` the claim is zCDP: D_alpha <= bound * alpha (bound = rho)."""

    bound: Any
    per_alpha: bool = False

    def __post_init__(self):
        object.__setattr__(
            self,
            "bound",
            rule_expr(self.bound, "bound", {"alpha": ALPHA, "sigma": _SIGMA, "Delta": SENSITIVITY}),
        )

    def statement(self) -> str:
        if self.per_alpha:
            return f"the Gaussian mechanism is rho-zCDP with rho = {self.bound}"
        return f"the Gaussian mechanism has D_alpha <= {self.bound} for every alpha > 1"


@dataclass(frozen=True, slots=True)
class RDPConversion(Claim):
    """Claim: k-fold composition of N(0, sigma^2) noise (sensitivity Delta) is
    (eps, delta)-DP with eps = min over `alphas` of
    k alpha Delta^2/(2 sigma^2) + ln(1/delta)/(alpha - 1)
    (Mironov 2017, Prop. 1 (composition) and Prop. 3 (conversion)); checked against the exact
    profile: k Gaussians compose to one with sigma/sqrt(k) (the privacy loss of each is
    N(mu^2/2, mu^2), mu = Delta/sigma, and these add)."""

    sigma: Any
    k: int
    delta: Any
    alphas: tuple = tuple(sp.Rational(i, 4) for i in range(5, 400))
    sensitivity: Any = 1
    formula: Any = None

    def __post_init__(self):
        _gaussian_setting(self)
        alphas = tuple(as_expr(a, "alphas") for a in self.alphas)
        if not alphas or any(not (a.is_number and a > 1) for a in alphas):
            raise InputError(f"alphas={self.alphas!r} must be numbers > 1 (Renyi orders).")
        object.__setattr__(self, "alphas", alphas)
        if self.formula is not None:
            object.__setattr__(
                self,
                "formula",
                rule_expr(self.formula, "formula", {"rdp": RDP, "alpha": ALPHA, "delta": DL}),
            )

    def epsilon(self) -> sp.Expr:
        """min over alphas of formula(rdp, alpha, delta); default rdp + ln(1/delta)/(alpha - 1)."""
        s, D = self.sigma, self.sensitivity
        f = self.formula if self.formula is not None else RDP + sp.log(1 / DL) / (ALPHA - 1)
        from proofs.decide import at  # (a Piecewise formula: its branch shown, not guessed)

        vals = [
            at(f, {RDP: self.k * a * D**2 / (2 * s**2), ALPHA: a, DL: self.delta})
            for a in self.alphas
        ]
        approx = []
        for a, v in zip(self.alphas, vals):
            n = sp.N(v, 30) if v != sp.oo else sp.oo
            # (nan is neither real nor not real to SymPy, and min() skipped it unless first:
            # 0 log 0 at one order made the claim's epsilon depend on the orders' order)
            if v != sp.oo and (v.has(sp.nan, sp.zoo, -sp.oo) or not n.is_real):
                raise InputError(
                    f"formula={self.formula} gives epsilon = {v} at alpha = {a}, not a real "
                    "number; give a formula real for every order (e.g. rdp + log(1/delta)/(alpha "
                    "- 1))."
                )
            approx.append(n)
        # the least value, exactly: by 30-digit values first (floats overflowed past 1e308),
        # then every value within a hair of it goes into a Min that SymPy or arb decides
        # exactly (two orders whose values tie as floats picked the larger one, and a false
        # claim was certified at that larger epsilon)
        low = min(approx)
        hair = sp.Float("1e-9", 30) * sp.Max(1, abs(low)) if low.is_finite else 0
        near = [v for v, n in zip(vals, approx) if n <= low + hair]
        return near[0] if len(near) == 1 else sp.Min(*near)

    def statement(self) -> str:
        return (
            f"{self.k}-fold Gaussian(sigma={self.sigma}) is ({float(self.epsilon()):.6g}, "
            f"{self.delta})-DP by the RDP conversion"
        )


@dataclass(frozen=True, slots=True)
class ZCDPConversion(Claim):
    """Claim: k-fold composition of N(0, sigma^2) noise is (eps, delta)-DP with
    eps = formula(rho, delta), rho = k Delta^2/(2 sigma^2) (zCDP composes additively; Bun and
    Steinke 2016, Lemma 2.3). Default formula: rho + 2 sqrt(rho ln(1/delta)) (Prop. 1.3).
    Checked against the exact Gaussian profile with arb."""

    sigma: Any
    k: int
    delta: Any
    formula: Any = None
    sensitivity: Any = 1

    def __post_init__(self):
        _gaussian_setting(self)
        if self.formula is not None:
            object.__setattr__(
                self, "formula", rule_expr(self.formula, "formula", {"rho": RHO, "delta": DL})
            )

    def epsilon(self) -> sp.Expr:
        f = self.formula if self.formula is not None else RHO + 2 * sp.sqrt(RHO * sp.log(1 / DL))
        s, D = self.sigma, self.sensitivity
        from proofs.decide import at  # (a Piecewise formula: its branch shown, not guessed)

        return at(f, {RHO: self.k * D**2 / (2 * s**2), DL: self.delta})

    def statement(self) -> str:
        return (
            f"{self.k}-fold Gaussian(sigma={self.sigma}) is ({float(self.epsilon()):.6g}, "
            f"{self.delta})-DP by the zCDP conversion"
        )


@dataclass(frozen=True, slots=True)
class RDPComposition(Claim):
    """Claim: the (adaptive) composition of `composition`, a sequence of (mechanism, count)
    pairs with numeric parameters, is (epsilon, delta)-DP.

    ``certified`` when the RDP accountant's certified upper bound (:func:`rdp_epsilon`, with
    `orders` and `conversion`) is at most `epsilon`: RDP composition (Mironov 2017, Prop. 1) and
    the conversion theorem (Canonne, Kamath, Steinke 2020, Prop. 12, or Mironov 2017, Prop. 3)
    then prove the claim. When every mechanism is Gaussian the claim is also decided exactly:
    the composition's privacy loss is N(mu^2/2, mu^2) with mu^2 = sum of count (Delta/sigma)^2
    (Dong, Roth, Su 2022, Cor. 3.3), so its profile is one Gaussian's (Balle and Wang 2018,
    Thm 8): ``certified`` or ``refuted`` by the arb enclosure of that delta(epsilon). A mixed
    composition is ``refuted`` when its Gaussian releases alone already exceed the claim (the
    others can be dropped by post-processing, which never increases delta), or its responses on
    a bit alone do (their exact privacy-loss distribution on the pair (0, 1) or (1, 0)).
    Otherwise a bound above `epsilon` gives ``unknown``: an RDP bound can never refute."""

    composition: Any
    epsilon: Any
    delta: Any
    orders: Any = None
    conversion: str = "improved"

    def __post_init__(self):
        object.__setattr__(self, "composition", composition_of(self.composition))
        object.__setattr__(self, "epsilon", check_eps_value(number(self.epsilon, "epsilon")))
        object.__setattr__(self, "delta", positive_delta(self.delta))
        object.__setattr__(self, "orders", orders_of(self.orders))
        object.__setattr__(self, "conversion", conversion_of(self.conversion))

    def statement(self) -> str:
        return (
            f"{describe_composition(self.composition)} is ({self.epsilon}, {self.delta})-DP "
            f"(RDP accountant, {self.conversion} conversion)"
        )
