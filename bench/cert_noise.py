"""How far certification noise alone moves a certified bound: a perfect auditor, which knows the
oracle's event in advance, certifies it on fresh samples (section 10 of ``make bench``).

An audit's bound on one seed is the exact bound of the counts of its event on the certification
sample (for a pure claim, the better of the joint ratio bound on the Poisson prefix and the
split Clopper-Pearson bound), and those counts are random. The oracle bound
(:mod:`bench.oracle`) is what the best event certifies at its *expected* counts; on a real
sample it lands above or below. Here the oracle's event is certified by an auditor that needs no
selection (one event, or the oracle's pooled pair of events, the whole failure probability on
it), and the law of its bound is computed exactly: the chance that one seed reaches a given
fraction of the oracle, and that the median of several seeds does. Where a perfect auditor's
median misses 0.95x the oracle one time in three, a real audit's median below it on five seeds
says little about its selection.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from auditor.catalogue import CATALOGUE
from auditor.engine.config import AuditConfig
from auditor.engine.stats import (
    JOINT_SHARE,
    cp_lower,
    cp_upper,
    epsilon_bound,
    prefix_mean,
    ratio_lower,
    simulate_certified,
)
from bench.oracle import oracle_event

CONFIDENCE = 0.95
SEEDS = 5
WIDTH = 10.0  # standard deviations of each count summed over (the rest is below 1e-20)
DRAWS = 200_000  # Monte Carlo draws for the mean and spread of the bound (fixed seed)


def _support(mean: float, sd: float, top: float) -> np.ndarray:
    sd += 1.0
    return np.arange(max(0, int(mean - WIDTH * sd)), int(min(top, np.ceil(mean + WIDTH * sd))) + 1)


def _reach(xs, pmf_x, ys, cdf_y, bound, target: float) -> float:
    """P[bound(X, Y) >= target] for independent X (values ``xs``, pmf ``pmf_x``) and Y
    (values ``ys``, CDF ``cdf_y``). The bound rises with X and falls with Y, so for each x the
    counts y that reach the target are those up to a cut, found by bisection."""
    ok = lambda i: np.asarray(bound(xs, ys[np.clip(i, 0, ys.size - 1)]), dtype=float) >= target
    # for each x: the number of y values (from the smallest) that reach the target
    left, right = np.zeros(xs.size, dtype=int), np.full(xs.size, ys.size)
    while np.any(left < right):
        mid = (left + right) // 2
        good = ok(mid) & (left < right)
        left = np.where(good, mid + 1, left)
        right = np.where(~good & (left < right), mid, right)
    below = np.where(left > 0, cdf_y(ys[np.maximum(left - 1, 0)]), 0.0)
    return float(np.clip(np.sum(pmf_x(xs) * below), 0.0, 1.0))  # rounding


def reach(p: float, q: float, n: int, a: float, delta: float, target: float) -> float:
    """P[the bound certified is >= target], exactly (up to the WIDTH-sigma truncation), for
    one event certified alone, ``a`` the level of each of its bounds: the split bound of
    X ~ Bin(n, p), Y ~ Bin(n, q) for a claim with delta > 0; for a pure claim, the joint ratio
    bound of the Poisson prefix counts at its share of the level (the split bound it also
    certifies, at the rest of the level, is left out: this is then a lower bound)."""
    if delta != 0:
        xs = _support(n * p, np.sqrt(n * p * (1 - p)), n)
        ys = _support(n * q, np.sqrt(n * q * (1 - q)), n)
        bound = lambda x, y: epsilon_bound(cp_lower(x, n, a), cp_upper(y, n, a), delta)
        return _reach(
            xs,
            lambda x: stats.binom.pmf(x, n, p),
            ys,
            lambda y: stats.binom.cdf(y, n, q),
            bound,
            target,
        )
    lam = prefix_mean(n)
    xs = _support(lam * p, np.sqrt(lam * p), np.inf)
    ys = _support(lam * q, np.sqrt(lam * q), np.inf)
    bound = lambda x, y: ratio_lower(x, y, 2 * a * JOINT_SHARE)
    return _reach(
        xs,
        lambda x: stats.poisson.pmf(x, lam * p),
        ys,
        lambda y: stats.poisson.cdf(y, lam * q),
        bound,
        target,
    )


def median_reaches(r: float, seeds: int = SEEDS) -> float:
    """P[the median of ``seeds`` independent bounds reaches the target], r for one seed."""
    return float(stats.binom.sf((seeds - 1) // 2, seeds, r))


def certification_samples(name: str, samples: int) -> int:
    """Certification samples per dataset of a default audit of catalogue entry ``name``."""
    e = CATALOGUE[name]
    y = np.asarray(e.sampler()(e.pairs[0].a, 4, np.random.default_rng(0)))
    config = AuditConfig(epsilon=e.claimed_epsilon, delta=e.delta or 0.0, samples=samples)
    return config.split(scalar=y.ndim == 1, pairs=len(e.pairs))[1]


def _pooled_bounds(p: float, q: float, n: int, level: float) -> np.ndarray:
    """DRAWS simulated joint bounds of a pooled pair: independent Poisson prefix counts of
    means lambda p and lambda q (p, q: the pair's pooled probabilities)."""
    rng = np.random.default_rng(0)
    lam = prefix_mean(n)
    return np.asarray(ratio_lower(rng.poisson(lam * p, DRAWS), rng.poisson(lam * q, DRAWS), level))


def row(name: str, reference: float, samples: int = 1_000_000) -> tuple[list[str], float] | None:
    """One table row for catalogue entry ``name``, and the chance that the median of SEEDS
    seeds reaches the target: min(0.9x ``reference`` (DP-Sniper's bound), 0.95x the oracle)."""
    e = CATALOGUE[name]
    n = certification_samples(name, samples)
    a, delta = (1 - CONFIDENCE) / 2, e.delta or 0.0
    found = oracle_event(name, e.claimed_epsilon, n, a, delta)
    if found is None:
        return None
    oracle, p, q, pooled = found
    joint = None if delta else 2 * a * JOINT_SHARE
    split = a if delta else a * (1 - JOINT_SHARE)
    if not pooled:
        lb = simulate_certified([[p, q]], n, split, delta, DRAWS, joint, seed=0)
    else:  # a pooled pair (bench.oracle._pooled): its joint bound alone, as reach() takes it
        lb = _pooled_bounds(p, q, n, joint)
    target = min(0.9 * reference, 0.95 * oracle)
    r95, rt = (reach(p, q, n, a, delta, t) for t in (0.95 * oracle, target))
    cells = [
        name,
        f"{n:,}",
        f"{oracle:.4f}",
        f"{p:.3g} / {q:.3g}",
        f"{lb.mean():.4f} ({lb.std():.4f})",
        f"{r95:.2f}",
        f"{median_reaches(r95):.2f}",
        f"{target:.4f} ({target / oracle:.2f}x)",
        f"{median_reaches(rt):.2f}",
    ]
    return cells, median_reaches(rt)


HEAD = [
    "mechanism",
    "certification samples",
    "oracle",
    "event P_D / P_D'",
    "bound: mean (sd)",
    "P[one seed >= 0.95x]",
    f"P[median of {SEEDS} >= 0.95x]",
    "target: min(0.9x DP-Sniper, 0.95x oracle)",
    f"P[median of {SEEDS} >= target]",
]


def run(rows, samples: int = 1_000_000) -> tuple[list[list[str]], float]:
    """The table over ``rows`` of (catalogue entry, DP-Sniper's bound), and the chance that a
    perfect auditor's median meets every row's target (seeds independent across rows)."""
    out, every = [], 1.0
    for name, reference in rows:
        got = row(name, reference, samples)
        if got is not None:
            out.append(got[0])
            every *= got[1]
    return out, every
