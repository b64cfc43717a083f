"""Selection: the exponential mechanism, report noisy max and the noisy maximum value."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import sympy as sp

from proofs.errors import InputError
from proofs.expr import as_expr
from proofs.mechanisms.base import sym
from proofs.validate import check_epsilon, check_positive

__all__ = ["ExponentialMechanism", "NoisyMaxValue", "ReportNoisyMax"]

NOISES = ("laplace", "exponential")


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
    """Report noisy max (Dwork and Roth 2014, Claim 3.9).

    Adds independent noise of scale b to each of m queries and reports the index of the largest
    noisy answer. Neighbours move every answer by at most 1: all in the same direction
    (`monotone=True`, counting queries under add/remove: eps = 1/b, so Lap(1/eps) is eps-DP
    for every m) or each its own way (`monotone=False`, any sensitivity-1 queries: eps = 2/b,
    so Lap(2/eps) is eps-DP; Ding et al. 2018, Alg. 5). `noise="exponential"` adds Exp(b)
    noise instead (Ding et al. 2018, Alg. 6; McKenna and Sheldon 2020, permute-and-flip): the
    same bounds hold, and the loss attains them.
    """

    scale: Any = sym("b")
    monotone: bool = True
    noise: str = "laplace"

    def __post_init__(self):
        object.__setattr__(self, "scale", as_expr(self.scale, "scale"))

    @classmethod
    def calibrated(cls, epsilon=sym("epsilon")) -> ReportNoisyMax:
        eps = as_expr(epsilon, "epsilon")
        check_epsilon(eps)
        return cls(scale=1 / eps)

    def domain(self):
        return (self.scale > 0,)

    def validate(self):
        check_positive(self.scale, "scale")
        check_noise(self.noise)

    def win_probability_two(self, gap) -> sp.Expr:
        """P[query 1 wins] for two queries when count1 - count2 = gap (closed form).

        N2 - N1 of two iid Lap(b) has P[N2 - N1 > t] = exp(-t/b)(1 + t/(2b))/2 for t >= 0; of
        two iid Exp(b) it is Lap(b), with P[N2 - N1 > t] = exp(-t/b)/2.
        """
        b = self.scale
        t = -sp.sympify(gap)
        if self.noise == "exponential":
            tail = lambda s: sp.exp(-s / b) / 2
        else:
            tail = lambda s: sp.exp(-s / b) * (1 + s / (2 * b)) / 2
        return sp.Piecewise((tail(t), t >= 0), (1 - tail(-t), True))


def check_noise(noise: Any) -> None:
    if noise not in NOISES:
        raise InputError(f"noise={noise!r} is not supported; use one of {', '.join(NOISES)}.")


@dataclass(frozen=True, slots=True)
class NoisyMaxValue:
    """The largest of m noisy answers, reported as a value (Ding et al. 2018, Alg. 7 and 8).

    Adds independent noise of scale b (Lap(b), or Exp(b) with `noise="exponential"`) to each of
    `queries` answers of sensitivity 1 and outputs the largest noisy answer itself. It is a
    post-processing of the m noisy answers, so with Laplace noise it is (m/b)-DP, and the loss
    attains m/b below every answer when all answers move together. Exponential noise has
    support [answer, inf): moving every answer up by 1 moves the support of the maximum, so
    no finite epsilon holds.
    """

    scale: Any = sym("b")
    queries: Any = sp.Symbol("m", integer=True, positive=True)
    noise: str = "laplace"

    def __post_init__(self):
        object.__setattr__(self, "scale", as_expr(self.scale, "scale"))
        object.__setattr__(self, "queries", as_expr(self.queries, "queries"))

    def domain(self):
        return (self.scale > 0, self.queries >= 1)

    def validate(self):
        check_positive(self.scale, "scale")
        check_noise(self.noise)
        if self.queries.is_number and not (self.queries.is_integer and self.queries >= 1):
            raise InputError(f"queries={self.queries} must be an integer >= 1.")

    def density(self, answers, y) -> sp.Expr:
        """Density of the maximum at y when every one of the m answers equals `answers`."""
        b, m = self.scale, self.queries
        t = y - answers
        if self.noise == "exponential":
            pdf = sp.Piecewise((sp.exp(-t / b) / b, t >= 0), (0, True))
            cdf = sp.Piecewise((1 - sp.exp(-t / b), t >= 0), (0, True))
        else:
            pdf = sp.exp(-sp.Abs(t) / b) / (2 * b)
            cdf = sp.Piecewise((1 - sp.exp(-t / b) / 2, t >= 0), (sp.exp(t / b) / 2, True))
        return m * pdf * cdf ** (m - 1)
