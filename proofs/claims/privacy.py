"""Claims about one mechanism's privacy: pure DP, (eps, delta) at numeric values, privacy
profiles and Gaussian calibrations. Descriptions only: what a claim says and the checks of its
input; the checkers (:mod:`proofs.checkers`) decide them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import sympy as sp

from proofs.claims.base import Claim
from proofs.errors import InputError
from proofs.expr import as_expr, by_name, symbols_of
from proofs.formulas import balle_wang_formula, classical_sigma, laplace_formula
from proofs.mechanisms import describe, sym
from proofs.symbols import DELTA, EPSILON, SENSITIVITY
from proofs.validate import check_delta, check_eps_value, positive_number

__all__ = [
    "ApproxDP",
    "CalibrationMinimal",
    "GaussianCalibration",
    "GaussianCalibrationRegion",
    "PrivacyProfile",
    "PureDP",
]


def sigma_expr(sigma: Any) -> sp.Expr:
    """A calibration sigma in epsilon, delta and Delta (matched by name; default: classical)."""
    if sigma is None:
        return classical_sigma()
    names = {"epsilon": EPSILON, "delta": DELTA, "Delta": SENSITIVITY}
    return by_name(as_expr(sigma, "sigma", names), names)


@dataclass(frozen=True, slots=True)
class PureDP(Claim):
    """Claim: `mechanism` is `epsilon`-DP (and, if `exact`, no smaller epsilon works)."""

    mechanism: Any
    epsilon: Any
    exact: bool = False

    def __post_init__(self):
        table = symbols_of(self.mechanism)
        object.__setattr__(self, "epsilon", by_name(as_expr(self.epsilon, "epsilon", table), table))

    def statement(self) -> str:
        word = "exactly" if self.exact else "at most"
        return f"{describe(self.mechanism)} has pure-DP epsilon {word} {self.epsilon}"


@dataclass(frozen=True, slots=True)
class PrivacyProfile(Claim):
    """Claim: the exact privacy profile delta(eps) = integral of (p - e^eps q)_+ of the named
    mechanism ('gaussian': N(Delta, sigma^2) vs N(0, sigma^2); 'laplace': Lap(Delta, b) vs
    Lap(0, b), for eps < Delta/b) equals `formula`, an expression in epsilon, sigma or b, Delta.
    Default formulas: Balle and Wang (2018, Thm 8); 1 - exp((eps - Delta/b)/2)."""

    mechanism: str = "gaussian"
    formula: Any = None

    def __post_init__(self):
        if self.mechanism not in ("gaussian", "laplace"):
            raise InputError(f"mechanism={self.mechanism!r}; use 'gaussian' or 'laplace'.")

    def _formula(self) -> sp.Expr:
        if self.formula is not None:
            names = {"epsilon": EPSILON, "sigma": sym("sigma"), "Delta": SENSITIVITY, "b": sym("b")}
            return by_name(as_expr(self.formula, "formula", names), names)
        return balle_wang_formula() if self.mechanism == "gaussian" else laplace_formula()

    def statement(self) -> str:
        return f"the {self.mechanism} privacy profile is delta(eps) = {self._formula()}"


@dataclass(frozen=True, slots=True)
class ApproxDP(Claim):
    """Claim: `mechanism` is (epsilon, delta)-DP, i.e. its exact privacy profile at epsilon is
    at most delta on every ordered neighbouring pair.

    Supported descriptions with numeric parameters: :class:`proofs.Gaussian` (Balle-Wang
    profile, arb), :class:`proofs.Laplace` (closed form, arb) and :class:`proofs.FiniteMechanism`
    (exact sum). Anything else, or symbolic parameters, gives ``unknown``.
    """

    mechanism: Any
    epsilon: Any
    delta: Any

    def __post_init__(self):
        object.__setattr__(self, "epsilon", check_eps_value(self.epsilon))
        object.__setattr__(self, "delta", check_delta(self.delta))

    def statement(self) -> str:
        return f"{describe(self.mechanism)} is ({self.epsilon}, {self.delta})-DP"


@dataclass(frozen=True, slots=True)
class GaussianCalibration(Claim):
    """Claim: for every eps in [eps_min, eps_max], N(0, sigma(eps, delta)^2) noise on a query of
    L2 sensitivity Delta is (eps, delta)-DP, at the stated numeric `delta`.

    `sigma` is an expression in the symbols EPSILON, DELTA and SENSITIVITY (Delta); the
    Gaussian profile depends on sigma/Delta only, so sigma must be proportional to Delta.
    The check encloses the Balle-Wang delta(eps) over boxes of eps with arb (branch and bound):
    ``certified`` when the boxes cover the range; ``refuted`` with the first failing eps located
    by certified bisection. Default sigma: the classical calibration (Dwork and Roth 2014, Thm A.1).
    """

    delta: Any
    eps_min: Any = 0
    eps_max: Any = 1
    sigma: Any = None

    def __post_init__(self):
        object.__setattr__(self, "delta", check_delta(self.delta))
        if self.delta == 0:
            raise InputError("delta=0: Gaussian noise is never (eps, 0)-DP; give delta > 0.")
        lo, hi = check_eps_value(self.eps_min, "eps_min"), check_eps_value(self.eps_max, "eps_max")
        if not hi > lo:
            raise InputError(f"eps_max={self.eps_max!r} must exceed eps_min={self.eps_min!r}.")
        object.__setattr__(self, "eps_min", lo)
        object.__setattr__(self, "eps_max", hi)
        object.__setattr__(self, "sigma", sigma_expr(self.sigma))

    def statement(self) -> str:
        return (
            f"sigma = {self.sigma} gives (eps, {self.delta})-DP for every eps in "
            f"[{self.eps_min}, {self.eps_max}]"
        )


@dataclass(frozen=True, slots=True)
class GaussianCalibrationRegion(Claim):
    """Claim: for every eps in [eps_min, eps_max] and every delta in [delta_min, delta_max],
    N(0, sigma(eps, delta)^2) noise is (eps, delta)-DP (default sigma: the classical
    calibration of Dwork and Roth 2014, Thm A.1).

    Checked by a two-dimensional branch and bound with arb balls over boxes of eps and
    v = ln(1/delta): on each box the enclosure of delta(eps; sigma) - delta must be <= 0.
    ``certified`` when the boxes cover the region; ``refuted`` when the centre of a box
    certainly violates it; ``unknown`` when the box budget runs out."""

    delta_min: Any
    delta_max: Any
    eps_min: Any = 0
    eps_max: Any = 1
    sigma: Any = None
    max_boxes: int = 20000

    def __post_init__(self):
        lo, hi = check_delta(self.delta_min, "delta_min"), check_delta(self.delta_max, "delta_max")
        if not 0 < lo < hi:
            raise InputError(
                f"delta_min={self.delta_min!r}, delta_max={self.delta_max!r}: need "
                "0 < delta_min < delta_max < 1."
            )
        object.__setattr__(self, "delta_min", lo)
        object.__setattr__(self, "delta_max", hi)
        lo, hi = check_eps_value(self.eps_min, "eps_min"), check_eps_value(self.eps_max, "eps_max")
        if not hi > lo:
            raise InputError(f"eps_max={self.eps_max!r} must exceed eps_min={self.eps_min!r}.")
        object.__setattr__(self, "eps_min", lo)
        object.__setattr__(self, "eps_max", hi)
        object.__setattr__(self, "sigma", sigma_expr(self.sigma))
        b = self.max_boxes
        if isinstance(b, bool) or not isinstance(b, int) or b < 1:
            raise InputError(f"max_boxes={b!r} must be an integer >= 1, e.g. 20000.")

    def statement(self) -> str:
        return (
            f"sigma = {self.sigma} gives (eps, delta)-DP for every eps in [{self.eps_min}, "
            f"{self.eps_max}] and delta in [{self.delta_min}, {self.delta_max}]"
        )


@dataclass(frozen=True, slots=True)
class CalibrationMinimal(Claim):
    """Claim: `sigma` (a number) is within `tolerance` of the smallest sigma giving
    (epsilon, delta)-DP with sensitivity Delta: delta(eps; sigma) <= delta and
    delta(eps; sigma - tolerance) > delta, both certified with arb."""

    epsilon: Any
    delta: Any
    sigma: Any
    tolerance: Any = sp.Rational(1, 10**6)
    sensitivity: Any = 1

    def __post_init__(self):
        object.__setattr__(self, "epsilon", check_eps_value(self.epsilon))
        object.__setattr__(self, "delta", check_delta(self.delta))
        for name in ("sigma", "tolerance", "sensitivity"):
            object.__setattr__(self, name, positive_number(getattr(self, name), name))

    def statement(self) -> str:
        return (
            f"sigma = {self.sigma} is the smallest (to {self.tolerance}) giving "
            f"({self.epsilon}, {self.delta})-DP at Delta = {self.sensitivity}"
        )
