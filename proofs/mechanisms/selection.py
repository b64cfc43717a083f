"""Selection: the exponential mechanism and report noisy max."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import sympy as sp

from proofs.expr import as_expr
from proofs.mechanisms.base import sym
from proofs.validate import check_epsilon, check_positive

__all__ = ["ExponentialMechanism", "ReportNoisyMax"]


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

    Adds independent Lap(scale) noise to each of m queries and reports the index of the largest
    noisy answer. Neighbours move every answer by at most 1: all in the same direction
    (`monotone=True`, counting queries under add/remove: eps = 1/scale, so Lap(1/eps) is eps-DP
    for every m) or each its own way (`monotone=False`, any sensitivity-1 queries: eps =
    2/scale, so Lap(2/eps) is eps-DP; Ding et al. 2018, Alg. 5).
    """

    scale: Any = sym("b")
    monotone: bool = True

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

    def win_probability_two(self, gap) -> sp.Expr:
        """P[query 1 wins] for two queries when count1 - count2 = gap (closed form).

        N1 - N2 of two iid Lap(b) has P[N1 - N2 > t] = exp(-t/b)(1 + t/(2b))/2 for t >= 0.
        """
        b = self.scale
        t = -sp.sympify(gap)
        tail = lambda s: sp.exp(-s / b) * (1 + s / (2 * b)) / 2
        return sp.Piecewise((tail(t), t >= 0), (1 - tail(-t), True))
