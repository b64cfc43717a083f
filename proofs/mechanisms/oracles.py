"""Local-DP frequency oracles (Wang, Blocki, Li and Jha, USENIX Security 2017; Acharya, Sun and
Zhang 2019; Ye and Barg 2018): a client holds a value in {0, ..., k-1} and sends one report;
the server counts, for each value v, the reports that *support* v.

Generalized randomized response (direct encoding) is :class:`~proofs.mechanisms.KAryRR`. Each
oracle here, like it, has a two-level pmf: ``P[y | x] = high`` when the report y supports x and
``low`` otherwise, with ``high / low = e^eps`` (unary encoding: per bit), and every value is
supported by the same share of the outputs, so the normaliser does not depend on x.
``support_probabilities()`` gives (p*, q*): the probability that a report supports v when the
client's value is v, and when it is another value; :class:`SupportReport` turns them into a
binary report for the estimator claims.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import sympy as sp

from proofs.errors import InputError
from proofs.expr import as_expr
from proofs.mechanisms.base import sym
from proofs.symbols import K
from proofs.validate import check_epsilon, check_in_range

__all__ = [
    "HadamardResponse",
    "LocalHashing",
    "SubsetSelection",
    "SupportReport",
    "UnaryEncoding",
    "optimal_hash_range",
    "optimal_subset_size",
]


def _int_at_least(value: sp.Expr, name: str, lo: int, fix: str) -> None:
    check_in_range(value, name, lo, None, lo_open=False, fix=fix)
    if not value.free_symbols and not value.is_integer:
        raise InputError(f"{name}={value} must be an integer >= {lo}; {fix}.")


@dataclass(frozen=True, slots=True)
class UnaryEncoding:
    """Unary encoding (Wang et al. 2017, Sec. 4.3): the value v becomes k bits, bit v is
    reported as 1 with probability p, every other bit with probability q, independently.

    ``variant='symmetric'`` (SUE, basic one-time RAPPOR): p = e^(eps/2) / (e^(eps/2) + 1),
    q = 1 - p. ``variant='optimized'`` (OUE): p = 1/2, q = 1 / (e^eps + 1), the q minimising the
    estimator's variance. Neighbours: any two client values. Exact epsilon:
    ln(p (1 - q) / ((1 - p) q)) = eps for both variants.
    """

    epsilon: Any = sym("epsilon")
    k: Any = K
    variant: str = "optimized"

    def __post_init__(self):
        object.__setattr__(self, "epsilon", as_expr(self.epsilon, "epsilon"))
        object.__setattr__(self, "k", as_expr(self.k, "k"))
        if self.variant not in ("symmetric", "optimized"):
            raise InputError(
                f"variant={self.variant!r} is not known; use 'symmetric' (SUE) or 'optimized' "
                "(OUE)."
            )

    def domain(self):
        return (self.k >= 2, self.epsilon > 0)

    def validate(self):
        check_epsilon(self.epsilon)
        _int_at_least(self.k, "k", 2, "unary encoding needs k >= 2 values")

    @property
    def bit_probabilities(self) -> tuple[sp.Expr, sp.Expr]:
        """(p, q): P[bit = 1] for the client's own bit and for any other bit."""
        if self.variant == "symmetric":
            half = sp.exp(self.epsilon / 2)
            return half / (half + 1), 1 / (half + 1)
        return sp.Rational(1, 2), 1 / (sp.exp(self.epsilon) + 1)

    def support_probabilities(self) -> tuple[sp.Expr, sp.Expr]:
        return self.bit_probabilities

    @property
    def tight_epsilon(self) -> sp.Expr:
        p, q = self.bit_probabilities
        return sp.log(p * (1 - q) / ((1 - p) * q))


@dataclass(frozen=True, slots=True)
class LocalHashing:
    """Local hashing (Wang et al. 2017, Sec. 4.4; Bassily and Smith 2015): the client draws a
    hash function H from a universal family onto {0, ..., g-1} and reports (H, y), with y
    generalized randomized response over the g hash values: y = H(v) with probability
    e^eps / (e^eps + g - 1). BLH: g = 2; OLH: g = e^eps + 1, rounded
    (:func:`optimal_hash_range`). Neighbours: any two client values. Exact epsilon: eps (the
    family has an H with H(v) != H(v'), and H's law does not depend on the value).

    Assumption for the estimator: the family is universal, P[H(v) = H(v')] = 1/g for v != v'.
    """

    epsilon: Any = sym("epsilon")
    g: Any = sp.Symbol("g", integer=True, positive=True)

    def __post_init__(self):
        object.__setattr__(self, "epsilon", as_expr(self.epsilon, "epsilon"))
        object.__setattr__(self, "g", as_expr(self.g, "g"))

    def domain(self):
        return (self.g >= 2, self.epsilon > 0)

    def validate(self):
        check_epsilon(self.epsilon)
        _int_at_least(self.g, "g", 2, "local hashing needs g >= 2 hash values")

    @property
    def levels(self) -> tuple[sp.Expr, sp.Expr]:
        """P[y = H(x) | H] and P[y = any other value | H]."""
        e = sp.exp(self.epsilon)
        return e / (e + self.g - 1), 1 / (e + self.g - 1)

    def support_probabilities(self) -> tuple[sp.Expr, sp.Expr]:
        high, low = self.levels
        # another value collides with the client's under H with probability 1/g
        return high, high / self.g + (1 - 1 / self.g) * low

    @property
    def tight_epsilon(self) -> sp.Expr:
        return self.epsilon


def optimal_hash_range(epsilon: float) -> int:
    """OLH's g: e^eps + 1 rounded to the nearest integer (at least 2)."""
    import math

    return max(2, round(math.exp(float(epsilon)) + 1))


@dataclass(frozen=True, slots=True)
class HadamardResponse:
    """Hadamard response (Acharya, Sun and Zhang 2019): with K the smallest power of two above
    k, value v owns the set C_v of the K/2 columns where row v + 1 of the K x K Sylvester
    Hadamard matrix is +1. The report y in {0, ..., K-1} has P[y | v] = 2 e^eps / (K (1 + e^eps))
    on C_v and 2 / (K (1 + e^eps)) off it. Two distinct rows agree on exactly half the columns,
    so |C_v minus C_v'| = K/4 >= 1. Neighbours: any two values. Exact epsilon: eps.
    """

    epsilon: Any = sym("epsilon")
    K: Any = sp.Symbol("K", integer=True, positive=True)

    def __post_init__(self):
        object.__setattr__(self, "epsilon", as_expr(self.epsilon, "epsilon"))
        object.__setattr__(self, "K", as_expr(self.K, "K"))

    @classmethod
    def for_values(cls, epsilon: Any, k: int) -> HadamardResponse:
        """The response for k values: K = the smallest power of two > k."""
        return cls(epsilon, 1 << int(k).bit_length())

    def domain(self):
        return (self.K >= 4, self.epsilon > 0)

    def validate(self):
        check_epsilon(self.epsilon)
        _int_at_least(self.K, "K", 4, "Hadamard response needs K >= 4 (k >= 2 values)")
        if not self.K.free_symbols and int(self.K) & (int(self.K) - 1):
            raise InputError(f"K={self.K} must be a power of two; use for_values(epsilon, k).")

    @property
    def levels(self) -> tuple[sp.Expr, sp.Expr]:
        e = sp.exp(self.epsilon)
        return 2 * e / (self.K * (1 + e)), 2 / (self.K * (1 + e))

    def support_probabilities(self) -> tuple[sp.Expr, sp.Expr]:
        high, low = self.levels
        # C_v has K/2 outputs; for another value it shares K/4 of them with C_x
        return self.K / 2 * high, self.K / 4 * (high + low)

    @property
    def tight_epsilon(self) -> sp.Expr:
        return self.epsilon


@dataclass(frozen=True, slots=True)
class SubsetSelection:
    """Subset selection (Ye and Barg 2018; Wang et al. 2016): the report is a set S of d of the
    k values, P[S | v] proportional to e^eps if v is in S and to 1 otherwise. The normaliser
    C(k-1, d-1) e^eps + C(k-1, d) does not depend on v. Best d: k / (e^eps + 1), rounded
    (:func:`optimal_subset_size`). Neighbours: any two values. Exact epsilon: eps (a set with v
    and without v' exists when 1 <= d < k).
    """

    epsilon: Any = sym("epsilon")
    k: Any = K
    d: Any = sp.Symbol("d", integer=True, positive=True)

    def __post_init__(self):
        for name in ("epsilon", "k", "d"):
            object.__setattr__(self, name, as_expr(getattr(self, name), name))

    def domain(self):
        return (self.k >= 2, self.d >= 1, self.d < self.k, self.epsilon > 0)

    def validate(self):
        check_epsilon(self.epsilon)
        _int_at_least(self.k, "k", 2, "subset selection needs k >= 2 values")
        _int_at_least(self.d, "d", 1, "the subsets need d >= 1 values")
        if not (self.k.free_symbols | self.d.free_symbols) and not self.d < self.k:
            raise InputError(
                f"d={self.d} must be < k={self.k}: a subset of every value says nothing."
            )

    def support_probabilities(self) -> tuple[sp.Expr, sp.Expr]:
        """p* = d e^eps / (d e^eps + k - d); q* = d ((d-1) e^eps + k - d) / ((k-1)(d e^eps +
        k - d)), from the binomial ratios C(k-1, d-1) / C(k-1, d) = d / (k - d) and so on."""
        e, k, d = sp.exp(self.epsilon), self.k, self.d
        z = d * e + k - d
        return d * e / z, d * ((d - 1) * e + k - d) / ((k - 1) * z)

    @property
    def tight_epsilon(self) -> sp.Expr:
        return self.epsilon


def optimal_subset_size(epsilon: float, k: int) -> int:
    """d = k / (e^eps + 1), rounded, within [1, k - 1]."""
    import math

    return min(max(1, round(k / (math.exp(float(epsilon)) + 1))), k - 1)


@dataclass(frozen=True, slots=True)
class SupportReport:
    """The binary report "one oracle report supports the value v": x = 1 when the client's
    value is v; P[1 | x = 1] = p*, P[1 | x = 0] = q* (``oracle.support_probabilities()``)."""

    oracle: Any
    p_star: Any = None
    q_star: Any = None

    def __post_init__(self):
        if not hasattr(self.oracle, "support_probabilities"):
            raise InputError(
                f"oracle={self.oracle!r} is not a frequency oracle; use UnaryEncoding, "
                "LocalHashing, HadamardResponse, SubsetSelection or KAryRR."
            )
        p, q = self.oracle.support_probabilities()
        object.__setattr__(self, "p_star", sp.simplify(p))
        object.__setattr__(self, "q_star", sp.simplify(q))

    def domain(self):
        return self.oracle.domain()

    def validate(self):
        self.oracle.validate()

    def pmf(self, x: int, y: int) -> sp.Expr:
        p = self.p_star if x == 1 else self.q_star
        return p if y == 1 else 1 - p
