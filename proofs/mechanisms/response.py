"""Randomized response: the alpha-coin, forced response and k-ary variants."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import sympy as sp

from proofs.expr import as_expr
from proofs.mechanisms.base import sym
from proofs.validate import check_epsilon, check_in_range

__all__ = ["AlphaCoinRR", "ForcedResponse", "KAryRR"]


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
        check_in_range(
            self.alpha,
            "alpha",
            0,
            1,
            fix="give alpha in (0, 1), the probability of answering truthfully",
        )

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

    def support_probabilities(self) -> tuple[sp.Expr, sp.Expr]:
        """As a frequency oracle (direct encoding, Wang et al. 2017): the report supports the
        value it equals, so p* = P[Y = x], q* = P[Y = y] for y != x."""
        return self.pmf(0, 0), self.pmf(0, 1)
