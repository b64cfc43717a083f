"""Mechanisms on IEEE-754 doubles: the textbook floating-point Laplace sampler."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from proofs.errors import InputError

__all__ = ["FloatLaplace"]

GRID = 2.0**-53  # numpy's uniform doubles are the multiples of 2^-53 in [0, 1)


@dataclass(frozen=True, slots=True)
class FloatLaplace:
    """f(x) + Lap(scale) computed in doubles by the textbook sampler (Mironov 2012).

    The sampler is NumPy's ``Generator.laplace``: U uniform on the multiples of 2^-53 in
    [0, 1), noise ``scale * log(U + U)`` when U < 1/2 (else ``-scale * log(2 - U - U)``), and
    the output is the double ``f(x) + noise``. Neighbours have f(x) = 0 and f(x') =
    `sensitivity`. Over the reals this is (sensitivity/scale)-DP; over doubles some outputs are
    possible from one input and impossible from the other, so no finite epsilon holds.

    :meth:`witness` finds one: the outputs y of f(x) = 0 for one U (probability at least
    2^-53), with |y| < sensitivity/4 and y not a multiple of ulp(sensitivity/2). From
    f(x') = Delta an output that small needs noise n in [-2 Delta, -Delta/2], where Delta + n is
    exact (Sterbenz's lemma) and a multiple of ulp(Delta/2): y is impossible. The argument needs
    IEEE-754 round-to-nearest addition and multiplication and a faithful ``log`` (error below
    one ulp, as the C library's that NumPy's sampler calls): both doubles around the exact
    logarithm are tried.
    """

    scale: Any = 10.0
    sensitivity: Any = 1.0

    def domain(self):
        return ()

    def validate(self):
        for name in ("scale", "sensitivity"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or not (0 < value < math.inf):
                raise InputError(f"{name}={value!r} must be a finite number > 0 (a double).")

    def witness(self, tries: int = 64) -> tuple[float, tuple[float, ...]] | None:
        """(U, outputs): a uniform draw U < 1/2 and the outputs f(x) = 0 can give for it,
        none of which f(x') = sensitivity can give; None when the first `tries` draws give none.

        ``log(U + U)`` is irrational, so a faithful log returns one of the two doubles around
        it; both are tried, so the witness holds whichever the C library returns (the event
        is the set of the outputs, of probability at least 2^-53 under f(x) = 0)."""
        import mpmath as mp

        delta, scale = float(self.sensitivity), float(self.scale)
        grid = Fraction(math.ulp(delta / 2))
        for k in range(1, tries + 1):
            u = 0.5 - k * GRID
            with mp.workdps(60):
                exact = mp.log(mp.mpf(u + u))  # U + U = 1 - k 2^-52 exactly
                below = float(mp.mpf(exact))
                below = below if mp.mpf(below) < exact else math.nextafter(below, -math.inf)
            outputs = tuple(0.0 + scale * v for v in (below, math.nextafter(below, math.inf)))
            if all(y != 0 and abs(y) < delta / 4 and Fraction(y) % grid != 0 for y in outputs):
                return u, outputs
        return None
