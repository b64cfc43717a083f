"""Numeric witnesses of the mutation oracle for noisy max with a reported value or exponential
noise, the sparse vector technique and composition: mpmath densities and quadrature, written
independently of the checker's closed forms.

For the sparse vector technique and compositions the checker proves upper bounds that need not
be attained, so a witness below the claim proves nothing: :func:`witness_only` lists the types
whose claims the oracle can refute but never confirm.
"""

from __future__ import annotations

import mpmath as mp

from proofs import mechanisms as m

__all__ = ["threshold_loss", "witness_only"]

witness_only = (m.SparseVector, m.Composition)


def _laplace_cdf(t, b):
    return mp.exp(t / b) / 2 if t < 0 else 1 - mp.exp(-t / b) / 2


def _pattern(sv: dict, answers, flags) -> mp.mpf:
    """P[flags] by quadrature over the threshold noise (one draw per segment if redrawn)."""
    b_rho, b_nu, t = sv["rho"], sv["nu"], sv["t"]
    segments, start = [], 0
    for i, f in enumerate(flags):
        if sv["refresh"] and f == 1:
            segments.append((start, i + 1))
            start = i + 1
    if start < len(flags):
        segments.append((start, len(flags)))
    total = mp.mpf(1)
    for lo, hi in segments:
        seg = list(zip(answers[lo:hi], flags[lo:hi]))

        def integrand(z, seg=seg):
            v = mp.exp(-abs(z) / b_rho) / (2 * b_rho)
            for a, f in seg:
                below = _laplace_cdf(t + z - a, b_nu)
                v *= (1 - below) if f == 1 else below
            return v

        kinks = sorted({mp.mpf(0), *(mp.mpf(a) - t for a, _ in seg)})
        total *= mp.quad(integrand, [-mp.inf, *kinks, mp.inf])
    return total


def _sparse_vector(mech: m.SparseVector, sub) -> mp.mpf:
    sv = dict(
        rho=sub(mech.threshold_scale),
        nu=sub(mech.query_scale),
        t=sub(mech.threshold),
        refresh=mech.refresh,
    )
    if sv["nu"] == 0:
        return mp.inf  # flags (0, 1) on equal answers are impossible, on (0, 1) they are not
    best = -mp.inf
    n = mech.queries
    for k in sorted({1, mech.positives if mech.cutoff is not None else n // 2}):
        flags = (0,) * (n - k) + (1,) * k
        x = tuple(2 if f else 0 for f in flags)
        best = max(best, mp.log(_pattern(sv, x, flags)) - mp.log(_pattern(sv, (1,) * n, flags)))
    return best


def _noisy_max_value(mech: m.NoisyMaxValue, sub) -> mp.mpf:
    b, n = sub(mech.scale), int(sub(mech.queries))
    if mech.noise == "exponential":
        return mp.inf  # all answers up by 1: the maximum cannot fall below the new answers

    def log_density(y, c):  # the maximum of n answers c + Lap(b)
        t = y - c
        return mp.log(n) - abs(t) / b - mp.log(2 * b) + (n - 1) * mp.log(_laplace_cdf(t, b))

    return max(log_density(y, 0) - log_density(y, 1) for y in (-5, -1, 0, 1, 3))


def _exponential_noisy_max(mech: m.ReportNoisyMax, sub) -> mp.mpf:
    b = sub(mech.scale)

    def win2(gap):  # P[query 2 wins] when count1 - count2 = gap, two Exp(b) noises
        return mp.quad(lambda z: mp.exp(-z / b) / b * mp.exp(-(z + gap) / b), [0, mp.inf])

    shift = 1 if mech.monotone else 2
    return mp.log(win2(1)) - mp.log(win2(1 + shift))


def threshold_loss(mech, sub, pure_loss) -> mp.mpf | None:
    """A witness lower bound on the privacy loss of `mech` (None: not one of these types);
    `pure_loss(part)` gives the witness of a composition's part."""
    if isinstance(mech, m.SparseVector):
        return _sparse_vector(mech, sub)
    if isinstance(mech, m.NoisyMaxValue):
        return _noisy_max_value(mech, sub)
    if isinstance(mech, m.ReportNoisyMax) and mech.noise == "exponential":
        return _exponential_noisy_max(mech, sub)
    if isinstance(mech, m.Composition):
        parts = [pure_loss(part) for part in mech.mechanisms]
        return None if any(p is None for p in parts) else max(parts)  # an event on one part
    return None
