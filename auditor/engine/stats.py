"""Exact binomial bounds and the (epsilon, delta) arithmetic of an audit.

Clopper-Pearson one-sided bounds (Clopper and Pearson 1934) via ``scipy.stats.beta.ppf``:
with ``k`` successes in ``n`` trials, ``P[p < lower(k, n, a)] <= a`` and ``P[p > upper] <= a``.
For an event E and datasets D, D' the bound ``epsilon_lb = ln((p_lo(D) - delta) / p_hi(D'))`` holds
whenever both one-sided bounds hold; a union bound over every certified bound gives the level.

A pure claim (delta = 0) is about the ratio ``P_D(E) / P_D'(E)`` alone, and one joint bound on
the ratio is tighter than two bounds on its terms (each at half the level, each taking its
worst case). With Poisson counts ``X ~ Poisson(t p)`` and ``Y ~ Poisson(t q)``, given
``X + Y = k`` the count ``X`` is ``Binomial(k, p / (p + q))`` (for every ``k``), so a
Clopper-Pearson lower bound ``theta`` on that proportion bounds the ratio exactly:
``p / q >= theta / (1 - theta)`` (:func:`ratio_lower`; the conditional test of two Poisson
rates, Przyborowski and Wilenski 1940). The counts are made Poisson by counting the event on
the first ``N ~ Poisson(lambda)`` of the ``n`` samples drawn (:func:`prefix_mean`: ``lambda``
six standard deviations below ``n``), ``N`` drawn from a stream of its own. For weak signals
the joint bound's margin is about ``1.6 sqrt(1/X + 1/Y)`` against ``2 (1/sqrt(X) + 1/sqrt(Y))``
for the split: SVT1's best event at 7e5 samples certifies 0.069 instead of 0.057.

*Pooled*: a pure claim bounds both directions, so for any events E and F,
``P_D(E) + P_D'(F) <= e^eps (P_D'(E) + P_D(F))``. With E and F disjoint, the Poisson prefix
counts ``X = N_D(E) + N_D'(F)`` and ``Y = N_D'(E) + N_D(F)`` are independent Poisson (a Poisson
process splits into independent ones on disjoint sets, and the two datasets' prefixes are
independent) with means ``lambda (P_D(E) + P_D'(F))`` and ``lambda (P_D'(E) + P_D(F))``, so
:func:`ratio_lower` bounds their ratio exactly as it bounds one event's. Any E and F are made
disjoint by counting ``E \\ F`` and ``F \\ E`` (:class:`auditor.engine.events.Difference`). With F
the mirror image of E (a symmetric mechanism), X and Y are twice one event's counts, and the
margin shrinks by about sqrt(2) (:func:`auditor.engine.choice.partner` picks F on selection
data; :func:`auditor.engine.choice.pooled_pair` may replace E and F by the tails of one fitted
score whose pooled bound is predicted best).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

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
    "prefix_mean",
    "ratio_lower",
    "ratio_p_value",
    "simulate_certified",
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


PREFIX_SIGMAS = 6.0  # the Poisson prefix's mean sits this many sds below the samples drawn
JOINT_SHARE = 0.9  # of a pure claim's level, the share of the joint ratio bounds


def prefix_mean(n: int) -> float:
    """The mean ``lambda`` of the Poisson prefix of ``n`` samples: ``N > n`` has probability
    about 1e-9 (the joint bound then claims nothing) and the prefix loses ``6 / sqrt(n)`` of
    the samples (0.7% at 7e5)."""
    return max(float(n) - PREFIX_SIGMAS * math.sqrt(n), 0.0)


def ratio_lower(kx, ky, a):
    """Exact lower bound at failure probability ``a`` on ``p / q`` from independent counts
    ``kx ~ Poisson(t p)`` and ``ky ~ Poisson(t q)`` (the conditional test: see the module);
    0 when ``kx`` is 0. Returned as its logarithm (``-inf`` for 0)."""
    kx = np.asarray(kx, dtype=float)
    ky = np.asarray(ky, dtype=float)
    pos = kx > 0
    x = np.where(pos, kx, 1.0)
    # theta = Beta^-1(a; kx, ky + 1) and 1 - theta = Beta^-1(1 - a; ky + 1, kx), each exact
    with np.errstate(divide="ignore"):
        out = np.log(stats.beta.ppf(a, x, ky + 1)) - np.log(stats.beta.isf(a, ky + 1, x))
    return np.where(pos, out, -np.inf)


def ratio_p_value(kx, ky, epsilon: float) -> np.ndarray:
    """Exact p-value of ``p <= e^epsilon q`` from the counts of :func:`ratio_lower`: under it,
    ``P[Binomial(kx + ky, e^eps / (1 + e^eps)) >= kx]`` bounds the chance of counts this far
    out, and ``ratio_lower(kx, ky, a) > e^eps`` exactly when this is below ``a``."""
    kx = np.asarray(kx, dtype=float)
    ky = np.asarray(ky, dtype=float)
    theta = special.expit(epsilon) if math.isfinite(epsilon) else 1.0
    return np.where(kx > 0, stats.binom.sf(kx - 1, kx + ky, theta), 1.0)


def simulate_certified(
    probs, n: int, a, delta: float, sims: int, joint_level, seed: int = 1, parts=None
) -> np.ndarray:
    """The certified epsilon (floored at 0) of ``sims`` simulated certifications of K events
    with probabilities ``probs`` (K, 2: numerator, denominator) on ``n`` samples per dataset:
    the best event's split bound at per-bound level ``a`` (a number, or one per event) and,
    given ``joint_level`` (a pure claim; a number or one per event), its joint ratio bound on
    the Poisson prefix, counted on the same samples (a prefix of ``N ~ Poisson(prefix_mean(n))``,
    the rest up to ``n``). ``parts`` (K, 2, 2), for events whose joint bound is pooled
    (module docstring): the probabilities of the event without its partner and of the
    partner without the event, under the event's numerator and denominator datasets (0 for
    the second when the event is not pooled); their counts on the prefix are drawn with the
    event's own, as cells of one multinomial."""
    probs = np.asarray(probs, dtype=float).reshape(-1, 2)
    if probs.shape[0] == 0 or n <= 0:
        return np.zeros(0)
    rng = np.random.default_rng(seed)
    shape = (sims, probs.shape[0], 2)
    size = np.broadcast_to(rng.poisson(prefix_mean(n), size=(sims, 1, 2)), shape)
    if parts is None:
        head = rng.binomial(np.minimum(size, n), np.broadcast_to(probs, shape))
        x, y = head[..., 0], head[..., 1]
    else:
        head, x, y = _pooled_cells(rng, np.minimum(size, n), probs, parts, shape)
    full = head + rng.binomial(np.maximum(n - size, 0), np.broadcast_to(probs, shape))
    bound = epsilon_bound(cp_lower(full[..., 0], n, a), cp_upper(full[..., 1], n, a), delta)
    if joint_level is not None:
        joint = ratio_lower(x, y, joint_level)
        bound = np.maximum(bound, np.where((size <= n).all(axis=2), joint, -np.inf))
    return np.maximum(np.max(bound, axis=1), 0.0)


def _pooled_cells(rng, m, probs, parts, shape):
    """One multinomial draw per stream over the cells (E and F, E without F, F without E) of
    ``m`` prefix samples: E's prefix count and the joint bound's two sums (module: Pooled)."""
    parts = np.asarray(parts, dtype=float).reshape(-1, 2, 2)
    only_e, only_f = (np.broadcast_to(parts[:, i, :], shape) for i in (0, 1))
    both = np.clip(np.broadcast_to(probs, shape) - only_e, 0.0, 1.0)
    left = m
    cells = []
    mass = 1.0
    for p in (both, only_e, only_f):  # conditional binomials: the multinomial's cells in turn
        got = rng.binomial(left, np.clip(p / np.maximum(mass, 1e-300), 0.0, 1.0))
        cells.append(got)
        left, mass = left - got, mass - p
    both_n, e_n, f_n = cells
    return both_n + e_n, e_n[..., 0] + f_n[..., 1], e_n[..., 1] + f_n[..., 0]


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
    """``lo_x - e^epsilon hi_y`` (the delta any claim at ``epsilon`` must at least have).
    A profile read at a tiny delta can give an epsilon past a double's exp (1150 for Renyi
    order 1.01): e^epsilon is then infinite, and so is what it multiplies unless that is 0."""
    lo, hi = np.asarray(lo_x, dtype=float), np.asarray(hi_y, dtype=float)
    factor = math.exp(epsilon) if epsilon < 709.0 else math.inf
    with np.errstate(invalid="ignore", over="ignore"):
        return lo - np.where(hi > 0, factor * hi, 0.0)


def _wilson(k, n, a) -> tuple[np.ndarray, np.ndarray]:
    """The one-sided Wilson score bounds at level ``a`` each (Wilson 1927): the roots in p of
    ``(k - n p)^2 = z^2 n p (1 - p)``, ``z`` the normal quantile at ``a``. The same numbers as
    statsmodels' ``proportion_confint(k, n, alpha=2a, method="wilson")`` (a test checks it),
    without its argument handling, which cost a third of a small audit's time: selection
    calls this thousands of times."""
    k = np.asarray(k, dtype=float)
    n = np.asarray(n, dtype=float)
    z = -special.ndtri(a)
    z2 = z * z
    q = k / n
    denom = 1.0 + z2 / n
    centre = (q + z2 / (2.0 * n)) / denom
    half = z * np.sqrt(q * (1.0 - q) / n + z2 / (4.0 * n * n)) / denom
    return centre - half, centre + half


def wilson_lower(k, n, a):
    """Wilson score lower bound: a fast stand-in for Clopper-Pearson when *choosing* events."""
    return np.maximum(_wilson(k, n, a)[0], 0.0)


def wilson_upper(k, n, a):
    """Wilson score upper bound (see :func:`wilson_lower`)."""
    return np.minimum(_wilson(k, n, a)[1], 1.0)


def predicted(
    cx,
    cy,
    m: int,
    n: int,
    a: float,
    statistic,
    shrink: float = 0.01,
    favourable: bool = False,
    joint: bool = False,
):
    """The ``statistic(lo, hi)`` (auditor.engine.claims: the certified epsilon, mu, ...) we
    expect to certify on ``n`` fresh samples from selection counts on ``m``.

    Counts are first shrunk toward the unfavourable side (a Wilson bound at one-sided level
    ``shrink`` on the selection sample) so rare events seen a few times by luck do not win the
    selection. ``favourable``: moved to the favourable side instead (the most the event could
    plausibly certify). ``joint``: a pure claim's joint ratio bound is predicted instead (see
    :func:`expected_certified`).
    """
    if favourable:
        px, py = wilson_upper(cx, m, shrink), wilson_lower(cy, m, shrink)
    else:
        px, py = wilson_lower(cx, m, shrink), wilson_upper(cy, m, shrink)
    return expected_certified(px, py, n, a, statistic, joint)


def expected_certified(px, py, n: int, a: float, statistic, joint: bool = False):
    """The ``statistic(lo, hi)`` certification on ``n`` samples gives when the event's
    probabilities are ``px`` and ``py`` and the counts land on them (Wilson bounds at ``a``).
    ``joint``: the joint ratio bound of a pure claim instead (:func:`ratio_lower`), at the
    level it gets when the split bounds are at ``a`` (a Wilson bound on the conditional
    proportion: this only ranks events)."""
    if not joint:
        return statistic(
            wilson_lower(np.asarray(px) * n, n, a), wilson_upper(np.asarray(py) * n, n, a)
        )
    lam = prefix_mean(n)
    x, y = np.broadcast_arrays(np.asarray(px, dtype=float) * lam, np.asarray(py, dtype=float) * lam)
    pos = x > 0
    total = np.where(pos, x + y, 1.0)
    theta = wilson_lower(np.where(pos, x, 1.0), total, 2 * a * JOINT_SHARE)
    theta = np.where(pos, np.minimum(theta, 1.0 - 1e-16), 0.0)
    with np.errstate(divide="ignore"):
        return np.log(theta) - np.log1p(-theta)


EACH_SIDE = math.sqrt(0.5)  # two independent counts each on their good side: probability 1/2


def detectable_epsilon(
    k_den: int, n: int, a: float, epsilon: float, delta: float, cap: float = 50.0
) -> float:
    """:func:`detectable` for the point claim (epsilon, delta)."""
    from auditor.engine.claims import PointClaim

    return detectable(k_den, n, a, PointClaim(epsilon, delta), cap)


def detectable(
    k_den: int,
    n: int,
    a: float,
    claim,
    cap: float = 50.0,
    k_num: int | None = None,
    joint_level: float | None = None,
    joint_parts: Sequence[tuple[int, int]] | None = None,
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
    response at a tight epsilon 5: inf, and inconclusive, with the first family alone). With
    ``joint_level`` (a pure claim) the joint ratio bound on Poisson prefix counts at that level
    certifies too (:func:`ratio_lower`). ``joint_parts``: the (denominator, numerator) counts
    of the disjoint parts whose sums that bound counts, where they are not the event's own (a
    pooled pair's two differences: "Pooled" above); each part is raised, or lowered, as far
    as a mechanism of the strength allows, and the joint bound judges their sums. Returns
    ``inf`` when not even ``cap`` is detectable (the event is too rare for this sample
    size)."""
    q = min((k_den + 0.5) / n, 1.0)
    parts = [(k_den, k_num)] if joint_parts is None else list(joint_parts)
    q_parts = [min((d + 0.5) / n, 1.0) for d, _ in parts]
    k_d = float(stats.binom.ppf(EACH_SIDE, n, q))
    hi = float(cp_upper(k_d, n, a))
    lam = prefix_mean(n)
    numerator = np.vectorize(claim.numerator, otypes=[float])

    def joint(p: np.ndarray, q) -> np.ndarray:
        if joint_level is None:
            return np.zeros(np.shape(p), dtype=bool)
        x = stats.poisson.ppf(1 - EACH_SIDE, lam * p)
        y = stats.poisson.ppf(EACH_SIDE, lam * np.asarray(q, dtype=float))
        return ratio_lower(x, y, joint_level) > claim.threshold

    def raised(strength: np.ndarray) -> np.ndarray:
        p = numerator(q, strength)
        k_n = stats.binom.ppf(1 - EACH_SIDE, n, p)
        split = claim.statistic(cp_lower(k_n, n, a), hi) > claim.threshold
        if joint_parts is None:
            return split | joint(p, q)
        return split | joint(sum(numerator(x, strength) for x in q_parts), sum(q_parts))

    best = _smallest(raised, cap)
    lower = getattr(claim, "denominator", None)
    if k_num is not None and lower is not None:
        p = min((k_num + 0.5) / n, 1.0)
        lo = float(cp_lower(float(stats.binom.ppf(1 - EACH_SIDE, n, p)), n, a))
        denominator = np.vectorize(lower, otypes=[float])

        p_parts = [min((k + 0.5) / n, 1.0) for _, k in parts]

        def lowered(strength: np.ndarray) -> np.ndarray:
            q_s = denominator(p, strength)
            k_d = stats.binom.ppf(EACH_SIDE, n, q_s)
            split = claim.statistic(lo, cp_upper(k_d, n, a)) > claim.threshold
            if joint_parts is None:
                return split | joint(np.full(q_s.shape, p), q_s)
            q_js = sum(denominator(x, strength) for x in p_parts)
            return split | joint(np.full(q_s.shape, sum(p_parts)), q_js)

        best = min(best, _smallest(lowered, cap))
    return best


_GRID = 12  # strengths tried at once per refinement of :func:`_smallest`


def _smallest(certified: Callable[[np.ndarray], np.ndarray], cap: float) -> float:
    """The least strength in (0, cap] at which ``certified`` (monotone, vectorised over an
    array of strengths) holds, to a relative 1e-4, or inf: each round tries ``_GRID``
    strengths across the bracket at once, the first up to ``cap`` itself (three rounds reach
    3e-6 from a cap of 50; scipy's per-call cost, not the grid's size, dominates)."""
    lo_s, hi_s = 0.0, cap
    grid = np.linspace(lo_s, hi_s, _GRID + 1)[1:]
    while True:
        ok = np.asarray(certified(grid), dtype=bool)
        if not ok.any():
            if hi_s == cap:
                return math.inf
            first = grid.size - 1  # not monotone at this resolution: keep the bracket's top
        else:
            first = int(np.argmax(ok))
        lo_s = grid[first - 1] if first > 0 else lo_s
        hi_s = grid[first]
        if hi_s - lo_s < 1e-4 * max(hi_s, 1e-3):
            return float(hi_s)
        grid = np.linspace(lo_s, hi_s, _GRID + 1)[1:]


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
