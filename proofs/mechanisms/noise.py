"""Additive noise: Laplace (scalar, vector, histogram), two-sided geometric and Gaussian."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import sympy as sp

from proofs.errors import InputError
from proofs.expr import as_expr
from proofs.mechanisms.base import sym
from proofs.validate import check_epsilon, check_in_range, check_positive

__all__ = [
    "Gaussian",
    "GaussianVector",
    "Histogram",
    "Laplace",
    "LaplaceVector",
    "TwoSidedGeometric",
    "gaussian_vector_reduction",
]


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
    def calibrated(cls, epsilon=sym("epsilon"), sensitivity=sym("Delta")) -> Laplace:
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
    def calibrated(
        cls,
        epsilon=sym("epsilon"),
        sensitivity=sym("Delta"),
        dimension=sp.Symbol("k", integer=True, positive=True),
    ) -> LaplaceVector:
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
    def calibrated(
        cls, epsilon=sym("epsilon"), sensitivity=sp.Symbol("Delta", integer=True, positive=True)
    ):
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
                f"neighbours={self.neighbours!r} is not a relation; use 'add_remove' or "
                "'replace_one'."
            )

    @property
    def l1_sensitivity(self) -> int:
        return 1 if self.neighbours == "add_remove" else 2

    def domain(self):
        # replace-one needs two bins to move a record between (one bin never changes: eps 0)
        return (self.scale > 0, self.bins >= self.l1_sensitivity)

    def validate(self):
        check_positive(self.scale, "scale")


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
class GaussianVector:
    """d-dimensional Gaussian mechanism M(x) = f(x) + N(0, sigma^2 I_d): f maps a dataset to
    R^d, and neighbours move it by at most `sensitivity` in L2 norm (notes 004, "Example of
    DP-mechanism: Gaussian Mechanism", l2-sensitivity; Dwork and Roth 2014, Thm A.1).

    The same noise on every coordinate makes it the one-dimensional :class:`Gaussian` with
    the L2 sensitivity as its shift, whatever d (:meth:`reduced`,
    :func:`gaussian_vector_reduction`): every privacy claim about it is decided on that one.
    """

    sigma: Any = sym("sigma")
    sensitivity: Any = sym("Delta")
    dimension: Any = sp.Symbol("d", integer=True, positive=True)

    def __post_init__(self):
        for name in ("sigma", "sensitivity", "dimension"):
            object.__setattr__(self, name, as_expr(getattr(self, name), name))

    def domain(self):
        return (self.sigma > 0, self.sensitivity > 0, self.dimension >= 1)

    def validate(self):
        check_positive(self.sigma, "sigma")
        check_positive(self.sensitivity, "sensitivity")
        check_in_range(self.dimension, "dimension", 1, None, lo_open=False)

    def reduced(self) -> Gaussian:
        """The one-dimensional Gaussian mechanism with the same privacy losses."""
        return Gaussian(self.sigma, self.sensitivity)


def gaussian_vector_reduction(mech: GaussianVector) -> tuple[str, ...]:
    """The steps that make `mech` the one-dimensional Gaussian of :meth:`GaussianVector.reduced`,
    the algebra checked by SymPy (a ValueError if it does not simplify to 0):

    1. coordinate j, a = f_j(x), b = f_j(x'), y = a + z: the log-ratio
       ((y - b)^2 - (y - a)^2) / (2 sigma^2) is z (a - b)/sigma^2 + (a - b)^2/(2 sigma^2);
    2. summed over the d independent coordinates, with v = f(x) - f(x'): the loss is
       <z, v>/sigma^2 + |v|^2/(2 sigma^2), and <z, v> ~ N(0, sigma^2 |v|^2) (independent
       normals: their variances add);
    3. the one-dimensional mechanism shifted by t = |v| has the loss z t/sigma^2 + t^2/(2 sigma^2)
       with z t ~ N(0, sigma^2 t^2) (step 1 with d = 1): the same law. Its neighbours shift by
       |t| <= Delta exactly when the vector's move by |v|_2 <= Delta, so both mechanisms have the
       same privacy losses over their neighbours, and the same profile."""
    s = mech.sigma
    a, b, z, t = sp.symbols("a b z t", real=True)
    y = a + z
    loss = ((y - b) ** 2 - (y - a) ** 2) / (2 * s**2)
    linear = z * (a - b) / s**2 + (a - b) ** 2 / (2 * s**2)
    if sp.simplify(sp.expand(loss - linear)) != 0:
        raise ValueError("the coordinate loss did not simplify to its linear form")
    one = ((z + t) ** 2 - z**2) / (2 * s**2) - (z * t / s**2 + t**2 / (2 * s**2))
    if sp.simplify(sp.expand(one)) != 0:
        raise ValueError("the one-dimensional loss did not simplify to its linear form")
    return (
        "coordinate j (a = f_j(x), b = f_j(x'), y = a + z): ((y - b)^2 - (y - a)^2)/(2 sigma^2) "
        "= z (a - b)/sigma^2 + (a - b)^2/(2 sigma^2) (SymPy: difference simplifies to 0)",
        "summed over the d coordinates, v = f(x) - f(x'): loss = <z, v>/sigma^2 + |v|^2/(2 "
        "sigma^2), <z, v> ~ N(0, sigma^2 |v|^2) (independent normal coordinates)",
        "the one-dimensional mechanism shifted by t = |v|: loss = z t/sigma^2 + t^2/(2 sigma^2), "
        "the same law; L2 moves |v| <= Delta are its shifts |t| <= Delta: decided as "
        f"Gaussian(sigma={mech.sigma}, sensitivity={mech.sensitivity}), whatever the dimension",
    )
