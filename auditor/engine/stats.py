"""Exact binomial bounds and the (epsilon, delta) arithmetic of an audit.

Clopper-Pearson one-sided bounds (Clopper and Pearson 1934) via ``scipy.stats.beta.ppf``:
with ``k`` successes in ``n`` trials, ``P[p < lower(k, n, a)] <= a`` and ``P[p > upper] <= a``.
For an event E and datasets D, D' the bound ``epsilon_lb = ln((p_lo(D) - delta) / p_hi(D'))`` holds
whenever both one-sided bounds hold; a union bound over every certified bound gives the level.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from scipy import optimize, special, stats

__all__ = [
    "cp_interval",
    "cp_lower",
    "cp_upper",
    "delta_bound",
    "detectable",
    "detectable_epsilon",
    "epsilon_bound",
    "expected_certified",
    "normal_quantile",
    "p_value",
    "predicted",
    "wilson_lower",
    "wilson_upper",
]


def cp_lower(k, n, a):
    """Exact one-sided lower Clopper-Pearson bound at failure probability ``a``."""
    k = np.asarray(k, dtype=float)
    out = stats.beta.ppf(a, np.maximum(k, 1e-300), n - k + 1)
    return np.where(k <= 0, 0.0, out)


def cp_upper(k, n, a):
    """Exact one-sided upper Clopper-Pearson bound at failure probability ``a``."""
    k = np.asarray(k, dtype=float)
    out = stats.beta.ppf(1 - a, k + 1, np.maximum(n - k, 1e-300))
    return np.where(k >= n, 1.0, out)


def cp_interval(k: int, n: int, confidence: float) -> tuple[float, float]:
    """Two-sided exact Clopper-Pearson interval at `confidence` (each tail (1 - confidence)/2):
    scipy's ``binomtest(k, n).proportion_ci(method="exact")``."""
    ci = stats.binomtest(int(k), int(n)).proportion_ci(confidence_level=confidence, method="exact")
    return float(ci.low), float(ci.high)


def normal_quantile(a: float) -> float:
    """z with P[N(0, 1) > z] = a: the one-sided normal quantile (two-sided at confidence c:
    ``normal_quantile((1 - c) / 2)``)."""
    return float(-special.ndtri(a))


def epsilon_bound(lo_x, hi_y, delta: float):
    """``ln((lo_x - delta) / hi_y)``; ``-inf`` when the numerator is not positive."""
    lo_x = np.asarray(lo_x, dtype=float)
    hi_y = np.asarray(hi_y, dtype=float)
    num = lo_x - delta
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.log(num) - np.log(hi_y)
    return np.where(num > 0, out, -np.inf)


def delta_bound(lo_x, hi_y, epsilon: float):
    """``lo_x - e^epsilon hi_y`` (the delta any claim at ``epsilon`` must at least have)."""
    return np.asarray(lo_x, dtype=float) - math.exp(epsilon) * np.asarray(hi_y, dtype=float)


def _wilson(k, n, a) -> tuple[np.ndarray, np.ndarray]:
    """The one-sided Wilson score bounds at level ``a`` each: statsmodels' two-sided
    ``proportion_confint(method="wilson")`` at ``alpha = 2a`` (imported on first use)."""
    from statsmodels.stats.proportion import proportion_confint

    lo, hi = proportion_confint(np.asarray(k, dtype=float), n, alpha=2 * a, method="wilson")
    return np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)


def wilson_lower(k, n, a):
    """Wilson score lower bound: a fast stand-in for Clopper-Pearson when *choosing* events."""
    return np.maximum(_wilson(k, n, a)[0], 0.0)


def wilson_upper(k, n, a):
    """Wilson score upper bound (see :func:`wilson_lower`)."""
    return np.minimum(_wilson(k, n, a)[1], 1.0)


def predicted(
    cx, cy, m: int, n: int, a: float, statistic, shrink: float = 0.01, favourable: bool = False
):
    """The ``statistic(lo, hi)`` (auditor.engine.claims: the certified epsilon, mu, ...) we
    expect to certify on ``n`` fresh samples from selection counts on ``m``.

    Counts are first shrunk toward the unfavourable side (a Wilson bound at one-sided level
    ``shrink`` on the selection sample) so rare events seen a few times by luck do not win the
    selection. ``favourable``: moved to the favourable side instead (the most the event could
    plausibly certify).
    """
    if favourable:
        px, py = wilson_upper(cx, m, shrink), wilson_lower(cy, m, shrink)
    else:
        px, py = wilson_lower(cx, m, shrink), wilson_upper(cy, m, shrink)
    return expected_certified(px, py, n, a, statistic)


def expected_certified(px, py, n: int, a: float, statistic):
    """The ``statistic(lo, hi)`` certification on ``n`` samples gives when the event's
    probabilities are ``px`` and ``py`` and the counts land on them (Wilson bounds at ``a``)."""
    return statistic(wilson_lower(np.asarray(px) * n, n, a), wilson_upper(np.asarray(py) * n, n, a))


EACH_SIDE = math.sqrt(0.5)  # two independent counts each on their good side: probability 1/2


def detectable_epsilon(
    k_den: int, n: int, a: float, epsilon: float, delta: float, cap: float = 50.0
) -> float:
    """:func:`detectable` for the point claim (epsilon, delta)."""
    from auditor.engine.claims import PointClaim

    return detectable(k_den, n, a, PointClaim(epsilon, delta), cap)


def detectable(
    k_den: int, n: int, a: float, claim, cap: float = 50.0, k_num: int | None = None
) -> float:
    """The smallest true strength (epsilon for a point claim, mu for a GDP one) this audit's
    event and sample size would have certified above ``claim`` with probability at least 1/2.

    The event keeps its estimated probability ``q`` under the denominator dataset (``k_den``
    of ``n``, plus one half so a never-seen event has some), and the numerator's is set to the
    most a mechanism of that strength allows (``claim.numerator``: ``e^eps' q + delta``, or
    ``Phi(Phi^-1(q) + mu')``). With each count at its quantile ``1 - sqrt(1/2)`` on the
    unfavourable side, both hold together with probability 1/2, and the certified statistic at
    the audit's per-bound level ``a`` must exceed the claim's threshold. Given ``k_num``, the
    mirror family counts too (the numerator's probability kept, the denominator's the least the
    strength allows): an event already near probability 1 under the numerator, where no
    stronger mechanism could raise it, is still detected by a rarer denominator (randomized
    response at a tight epsilon 5: inf, and inconclusive, with the first family alone). Returns
    ``inf`` when not even ``cap`` is detectable (the event is too rare for this sample size)."""
    q = min((k_den + 0.5) / n, 1.0)
    k_d = float(stats.binom.ppf(EACH_SIDE, n, q))
    hi = float(cp_upper(k_d, n, a))

    def raised(strength: float) -> bool:
        p = claim.numerator(q, strength)
        k_n = float(stats.binom.ppf(1 - EACH_SIDE, n, p))
        return float(claim.statistic(cp_lower(k_n, n, a), hi)) > claim.threshold

    best = _smallest(raised, cap)
    lower = getattr(claim, "denominator", None)
    if k_num is not None and lower is not None:
        p = min((k_num + 0.5) / n, 1.0)
        lo = float(cp_lower(float(stats.binom.ppf(1 - EACH_SIDE, n, p)), n, a))

        def lowered(strength: float) -> bool:
            k_d = float(stats.binom.ppf(EACH_SIDE, n, lower(p, strength)))
            return float(claim.statistic(lo, cp_upper(k_d, n, a))) > claim.threshold

        best = min(best, _smallest(lowered, cap))
    return best


def _smallest(certified: Callable[[float], bool], cap: float) -> float:
    """The least strength in [0, cap] at which ``certified`` holds (monotone), or inf."""
    if not certified(cap):
        return math.inf
    lo_s, hi_s = 0.0, cap
    for _ in range(60):
        mid = (lo_s + hi_s) / 2
        lo_s, hi_s = (lo_s, mid) if certified(mid) else (mid, hi_s)
        if hi_s - lo_s < 1e-4 * max(hi_s, 1e-3):
            break
    return hi_s


P_FLOOR = 1e-15  # p-values below this are reported as this (an upper bound on the p-value)


def _single_level(kx: int, ky: int, n_x: int, n_y: int, claim) -> float:
    """Smallest per-bound level ``a`` at which the certified statistic exceeds the claim's
    threshold (1 if none)."""

    def margin(log_a: float) -> float:
        a = math.exp(log_a)
        lo = float(cp_lower(kx, n_x, a))
        hi = float(cp_upper(ky, n_y, a))
        value = float(claim.statistic(lo, hi)) - claim.threshold
        return value if math.isfinite(value) else math.copysign(1e300, value)

    hi_log, lo_log = math.log(0.5), math.log(P_FLOOR)
    if margin(hi_log) <= 0:
        return 1.0
    if margin(lo_log) > 0:
        return P_FLOOR
    root = optimize.brentq(margin, lo_log, hi_log, xtol=1e-10)
    return math.exp(root)


def p_value(
    kx: int, ky: int, n_x: int, n_y: int, claim, n_bounds: int, share: float = 1.0
) -> float:
    """Exact p-value of H0 "the claim holds on event E" (for a point claim,
    "P_D(E) <= e^eps P_D'(E) + delta") from the CP construction.

    Under H0 the event {statistic(lower_a(D), upper_a(D')) > threshold} has probability at
    most 2a (one of the two one-sided bounds must fail: the statistic is monotone). The
    p-value is the smallest total level
    ``n_bounds * a`` at which the counts reject, so ``p <= 1 - confidence`` iff the certified
    bound at that confidence exceeds the claim. With looks at the counts (``share``: the
    fraction of the failure probability this look spends), the bounds at overall level ``p`` are
    taken at ``share * p / n_bounds``, so the look's p-value is ``n_bounds * a / share``; the
    minimum over the looks taken is again a valid p-value (union bound over the looks).
    """
    a = _single_level(kx, ky, n_x, n_y, claim)
    return float(min(1.0, n_bounds * a / share))
