"""The symbols claims quantify over, one place for each (claims match user symbols to these by
name, :func:`proofs.expr.by_name`)."""

from __future__ import annotations

import sympy as sp

__all__ = [
    "ALPHA",
    "D1",
    "D2",
    "DEL",
    "DELTA",
    "E0",
    "E1",
    "E2",
    "EPS",
    "EPSILON",
    "N1",
    "REPORT_BIT",
    "SENSITIVITY",
    "K",
    "N",
    "T",
    "X",
    "Y",
    "Z",
]


def _positive(name: str) -> sp.Symbol:
    return sp.Symbol(name, positive=True)


EPSILON, DELTA, SENSITIVITY = _positive("epsilon"), _positive("delta"), _positive("Delta")
ALPHA = _positive("alpha")  # a Renyi order

# group privacy: the group size k and the (eps, delta) of the mechanism, eps = 0 allowed
K = sp.Symbol("k", integer=True, positive=True)
EPS = sp.Symbol("epsilon", nonnegative=True)
DEL = sp.Symbol("delta", nonnegative=True)

# general rules: the epsilons and deltas of the mechanisms composed or post-processed
E0, E1, E2 = _positive("epsilon_0"), _positive("epsilon_1"), _positive("epsilon_2")
D1, D2 = sp.Symbol("delta_1", nonnegative=True), sp.Symbol("delta_2", nonnegative=True)

# estimators: population size n, n_1 ones, the tail threshold t, a report bit b, an input x
N = sp.Symbol("n", integer=True, positive=True)
N1 = sp.Symbol("n_1", integer=True, nonnegative=True)
T = _positive("t")
REPORT_BIT = sp.Symbol("b", integer=True, nonnegative=True)
X = sp.Symbol("x", nonnegative=True)

# noise values: a real one and an integer one
Y = sp.Symbol("y", real=True)
Z = sp.Symbol("z", integer=True)
