"""Mechanisms on IEEE-754 doubles: the textbook floating-point Laplace sampler, and a Laplace
release whose suppressed answers keep the sign of the true answer (a signed zero)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from proofs.errors import InputError

__all__ = ["FloatLaplace", "SignedZeroLaplace"]

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
        delta, scale = float(self.sensitivity), float(self.scale)
        grid = Fraction(math.ulp(delta / 2))
        for k in range(1, tries + 1):
            u = 0.5 - k * GRID
            outputs = tuple(0.0 + scale * v for v in _faithful_logs(u + u))  # U + U = 1 - k 2^-52
            if all(y != 0 and abs(y) < delta / 4 and Fraction(y) % grid != 0 for y in outputs):
                return u, outputs
        return None

    def zero_witness(self, tries: int = 64) -> bool:
        """Whether the output 0.0 is one f(x) = 0 gives and f(x') = sensitivity never does: the
        fallback when the noise is too coarse for :meth:`witness` (scale/sensitivity above
        about 1e15).

        U = 1/2 takes the second branch, whose log(2 - U - U) = log(1) is exactly 0, so f(x) = 0
        outputs a zero (probability at least 2^-53). A sum of doubles is zero only when it is
        exactly zero, so f(x') gives one only with noise exactly -sensitivity. The second
        branch's noise is never negative, and the first branch's is ``scale * log(1 - j
        2^-52)`` for U = 1/2 - j 2^-53, decreasing in j (rounding is monotone): the j whose
        noise could be -sensitivity are tried, with both faithful logs, until the noise is
        below it; False when ``tries`` values of j do not get there."""
        delta, scale = float(self.sensitivity), float(self.scale)
        for j in range(1, tries + 1):
            noise = [scale * v for v in _faithful_logs(1.0 - j * 2.0**-52)]
            if -delta in noise:
                return False
            if max(noise) < -delta:
                return True
        return False


def _faithful_logs(value: float) -> tuple[float, float]:
    """The two doubles around ``log(value)`` (irrational for a double ``value`` other than 1):
    a faithful logarithm, as the C library's that NumPy's sampler calls, returns one of them."""
    import mpmath as mp

    with mp.workdps(60):
        exact = mp.log(mp.mpf(value))
        below = float(mp.mpf(exact))
        below = below if mp.mpf(below) < exact else math.nextafter(below, -math.inf)
    return below, math.nextafter(below, math.inf)


@dataclass(frozen=True, slots=True)
class SignedZeroLaplace:
    """f(x) + Lap(scale) in doubles, with every answer of magnitude at most ``threshold``
    suppressed as ``0.0 * f(x)``: by IEEE 754's sign rule (the sign of a product is the
    exclusive or of its operands' signs, zeros included) the suppressed answer is -0.0 when
    f(x) < 0 and +0.0 when f(x) > 0. Neighbours have f(x) = -sensitivity/2 and f(x') =
    +sensitivity/2. Over the reals the suppression is post-processing of the Laplace answer,
    so the release would be (sensitivity/scale)-DP; since -0.0 is an output f(x') never gives,
    no finite epsilon holds.

    :meth:`witness` finds a draw that f(x) suppresses (probability at least 2^-53). The noise is
    NumPy's ``Generator.laplace`` (as :class:`FloatLaplace`).
    """

    scale: Any = 10.0
    threshold: Any = 10.0
    sensitivity: Any = 1.0

    def domain(self):
        return ()

    def validate(self):
        for name in ("scale", "threshold", "sensitivity"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or not (0 < value < math.inf):
                raise InputError(f"{name}={value!r} must be a finite number > 0 (a double).")

    def witness(self, tries: int = 64) -> float | None:
        """A uniform draw U with which f(x) = -sensitivity/2 is suppressed to -0.0 whichever
        faithful rounding of the log the C library returns (None when none of the ``tries``
        draws on either side of two centres is): U = 1/2 (noise 0) and the U whose noise is
        about sensitivity/2 (the noisy answer about 0). The noise is computed as NumPy's
        sampler does, operation by operation in doubles."""
        self.validate()
        a, b, t = -float(self.sensitivity) / 2, float(self.scale), float(self.threshold)
        near_zero = round((1 - math.exp(a / b) / 2) / GRID) * GRID  # noise = -b log(2 - 2U) = -a
        for centre in (0.5, near_zero):
            for k in range(tries):
                for u in (centre - k * GRID, centre + (k + 1) * GRID):
                    if not 0 < u < 1:
                        continue
                    if u < 0.5:
                        noise = tuple(b * v for v in _faithful_logs(u + u))
                    else:
                        noise = tuple(-(b * v) for v in _faithful_logs(2.0 - u - u))
                    if all(abs(a + n) <= t for n in noise):
                        return u
        return None

    def separated(self) -> bool:
        """Whether no noise reaches sensitivity/2, so every output of f(x) = -sensitivity/2 has
        its sign bit set (a negative double, or -0.0 when suppressed) and none of f(x') =
        +sensitivity/2 has: the fallback when :meth:`witness` finds no suppressed draw.

        The uniform draws are the multiples of 2^-53 in (0, 1), so each log NumPy's sampler
        takes is of a double in [2^-53, 1]: its magnitude is at most 53 ln 2 < 36.8 (a faithful
        log stays below 37), and the noise at most ``scale * 37`` rounded (monotone). A
        nonzero exact sum never rounds to zero, so -sensitivity/2 + noise stays negative."""
        self.validate()
        half = float(self.sensitivity) / 2
        return float(self.scale) * 37.0 < half
