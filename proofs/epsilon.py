"""The true epsilon of a mechanism description, computed by the proof checker.

:func:`true_epsilon` answers with the value and its basis, strongest first:

- ``proved, attained``: the upper bound is proved (or certified) by the pure-DP checker and the
  privacy loss attains it at a stated point (:func:`proofs.checkers.pure.tight_epsilon`);
- ``proved, supremum``: the upper bound is proved and the loss tends to it along a stated
  family of inputs (the limit is computed by SymPy), so no smaller epsilon works;
- ``certified at delta``: for the Gaussian mechanism at delta > 0, the exact epsilon of its
  privacy profile (Balle and Wang 2018, Thm 8), enclosed with arb (the upper end is reported);
- ``proved, unbounded``: an output has probability 0 under one input and not under its
  neighbour, both decided exactly, so no finite epsilon holds (the value is ``math.inf``);
- ``proved, upper bound``: an upper bound proved by a structured argument (sparse vector,
  composition) that is not shown to be attained; the true epsilon is at most the value;
- ``published``: a :class:`proofs.mechanisms.Published` description, whose value is cited.

None when none of these applies.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import sympy as sp

from proofs.errors import InputError
from proofs.mechanisms import Gaussian, GaussianVector, Published
from proofs.validate import check_delta, check_description

__all__ = ["TrueEpsilon", "true_epsilon"]


@dataclass(frozen=True, slots=True)
class TrueEpsilon:
    """A mechanism's epsilon (``math.inf``: no finite epsilon; None while it depends on free
    symbols), the exact value when known, and how the proof checker knows it."""

    value: float | None
    basis: str
    exact: Any = None

    @property
    def proved(self) -> bool:
        return not self.basis.startswith("published")

    @property
    def tight(self) -> bool:
        """Is the value the epsilon itself, not only an upper bound on it?"""
        return not self.basis.startswith("proved, upper bound")


def true_epsilon(mech: Any, delta: Any = 0) -> TrueEpsilon | None:
    """The true epsilon of `mech` (at `delta` for the Gaussian), or None when unknown."""
    delta = check_delta(delta)
    if not hasattr(mech, "domain"):
        raise InputError(
            f"mechanism={mech!r} is not a description; pass e.g. proofs.Laplace(10, 1)."
        )
    check_description(mech)  # bad parameters are a one-line InputError, never a verdict
    if isinstance(mech, Published):
        return TrueEpsilon(float(mech.epsilon), f"published: {mech.source}")
    if isinstance(mech, GaussianVector):
        mech = mech.reduced()  # the same privacy losses (proofs.mechanisms.noise)
    if isinstance(mech, Gaussian) and delta > 0:
        from proofs.checkers.profiles import gaussian_epsilon

        _lo, hi = gaussian_epsilon(mech.sigma, delta, mech.sensitivity)
        return TrueEpsilon(hi, "certified at delta: the exact Gaussian profile (Balle-Wang), arb")
    from proofs.checkers.pure import supremum_epsilon, tight_epsilon, upper_bound

    try:
        value, how = tight_epsilon(mech)
    except NotImplementedError:
        return None  # no pure-DP formulation of this description (e.g. a finite table)
    if value is sp.oo:
        return TrueEpsilon(math.inf, f"proved, unbounded: {how}", value)
    if value is not None:
        return TrueEpsilon(_float(value), f"proved, attained: {how}", value)
    value, how = supremum_epsilon(mech)
    if value is not None:
        return TrueEpsilon(_float(value), f"proved, supremum: {how}", value)
    value, how = upper_bound(mech)
    if value is not None:
        return TrueEpsilon(_float(value), f"proved, upper bound: {how}", value)
    return None


def _float(value: sp.Expr) -> float | None:
    v = sp.sympify(value)
    if v.free_symbols:
        return None
    return math.inf if v is sp.oo else float(v)
