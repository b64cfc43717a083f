"""Named formulas from the literature, as SymPy expressions (one place for each)."""

from __future__ import annotations

from typing import Any

import sympy as sp

from proofs.expr import as_expr
from proofs.symbols import DEL, DELTA, EPS, EPSILON, REPORT_BIT, SENSITIVITY, K

__all__ = [
    "balle_wang_formula",
    "chain_delta",
    "classical_sigma",
    "drv_epsilon",
    "geometric_ratio",
    "laplace_formula",
    "notes_sigma",
    "one_bit_term",
    "phi",
    "standard_delta",
]

_I = sp.Symbol("i", integer=True, nonnegative=True)


def phi(x: sp.Expr) -> sp.Expr:
    """Standard normal CDF, Phi(x) = erfc(-x/sqrt(2))/2."""
    return sp.erfc(-x / sp.sqrt(2)) / 2


def balle_wang_formula() -> sp.Expr:
    """Phi(Delta/(2 sigma) - eps sigma/Delta) - e^eps Phi(-Delta/(2 sigma) - eps sigma/Delta):
    the Gaussian mechanism's privacy profile (Balle and Wang 2018, Thm 8)."""
    s, d, e = sp.Symbol("sigma", positive=True), SENSITIVITY, EPSILON
    return phi(d / (2 * s) - e * s / d) - sp.exp(e) * phi(-d / (2 * s) - e * s / d)


def laplace_formula() -> sp.Expr:
    """1 - exp((eps - Delta/b)/2): the Laplace mechanism's privacy profile for eps < Delta/b."""
    return 1 - sp.exp((EPSILON - SENSITIVITY / sp.Symbol("b", positive=True)) / 2)


def classical_sigma(epsilon=EPSILON, delta=DELTA, sensitivity=SENSITIVITY) -> sp.Expr:
    """sigma = sqrt(2 ln(1.25/delta)) Delta/eps (Dwork and Roth 2014, Thm A.1)."""
    return sp.sqrt(2 * sp.log(sp.Rational(5, 4) / delta)) * sensitivity / epsilon


def notes_sigma(epsilon=EPSILON, delta=DELTA, sensitivity=SENSITIVITY) -> sp.Expr:
    """sigma = (2 Delta/eps) ln(1.25/delta), as written in notes 004 (Def. Gaussian mechanism)."""
    return 2 * sensitivity / epsilon * sp.log(sp.Rational(5, 4) / delta)


def drv_epsilon(epsilon: Any, k: Any, delta_prime: Any) -> sp.Expr:
    """eps' = sqrt(2 k ln(1/delta')) eps + k eps (e^eps - 1) (Dwork, Rothblum, Vadhan 2010)."""
    e, kk, dp = as_expr(epsilon, "epsilon"), as_expr(k, "k"), as_expr(delta_prime, "delta_prime")
    return sp.sqrt(2 * kk * sp.log(1 / dp)) * e + kk * e * (sp.exp(e) - 1)


def chain_delta() -> sp.Expr:
    """delta sum_{i<k} e^{i eps}: the exact chain bound of group privacy."""
    return DEL * sp.Sum(sp.exp(_I * EPS), (_I, 0, K - 1))


def standard_delta() -> sp.Expr:
    """k e^{(k-1) eps} delta (Dwork and Roth 2014, after Thm 2.2 / Vadhan 2017, Lemma 2.2)."""
    return K * sp.exp((K - 1) * EPS) * DEL


def one_bit_term(
    epsilon: Any = sp.Symbol("epsilon", positive=True), m: Any = sp.Symbol("m", positive=True)
) -> sp.Expr:
    """m (b (e^eps + 1) - 1)/(e^eps - 1): one user's term of the mean estimator of one-bit
    telemetry (Ding, Kulkarni, Yekhanin 2017, Sec. 2.1), b the reported bit."""
    e = sp.exp(as_expr(epsilon, "epsilon"))
    return as_expr(m, "m") * (REPORT_BIT * (e + 1) - 1) / (e - 1)


def geometric_ratio(mech) -> sp.Expr:
    """a = exp(-1/b), the ratio of the two-sided geometric pmf (1 - a)/(1 + a) a^|z|."""
    return sp.exp(-1 / mech.scale)
