"""How far certification noise alone moves a certified bound: a perfect auditor, which knows
the oracle's event in advance, certifies it on fresh samples (section 10 of ``make bench``).

An audit's bound on one seed is the Clopper-Pearson bound of the counts of its event on the
certification sample, and those counts are random. The oracle bound (:mod:`bench.oracle`) is
what the best event certifies at its *expected* counts; on a real sample it lands above or
below. Here the oracle's event is certified by an auditor that needs no selection (one event,
the whole failure probability on it), and the law of its bound is computed exactly: the chance
that one seed reaches a given fraction of the oracle, and that the median of several seeds
does. Where a perfect auditor's median misses 0.95x the oracle one time in three, a real
audit's median below it on five seeds says little about its selection.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from auditor.catalogue import CATALOGUE
from auditor.engine.config import AuditConfig
from auditor.engine.stats import cp_lower, cp_upper, epsilon_bound
from bench.oracle import oracle_event

CONFIDENCE = 0.95
SEEDS = 5
WIDTH = 10.0  # standard deviations of each count summed over (the rest is below 1e-20)
DRAWS = 200_000  # Monte Carlo draws for the mean and spread of the bound (fixed seed)


def _support(n: int, p: float) -> np.ndarray:
    sd = np.sqrt(n * p * (1 - p)) + 1.0
    lo, hi = max(0, int(n * p - WIDTH * sd)), min(n, int(np.ceil(n * p + WIDTH * sd)))
    return np.arange(lo, hi + 1)


def reach(p: float, q: float, n: int, a: float, delta: float, target: float) -> float:
    """P[the bound certified from X ~ Bin(n, p), Y ~ Bin(n, q) is >= target], exactly (up to
    the WIDTH-sigma truncation). The bound rises with X and falls with Y, so for each x the
    counts y that reach the target are those up to a cut, found by bisection."""
    xs, ys = _support(n, p), _support(n, q)
    lo = cp_lower(xs, n, a)
    hi = cp_upper(ys, n, a)
    ok = lambda i: (
        np.asarray(epsilon_bound(lo, hi[np.clip(i, 0, ys.size - 1)], delta), dtype=float) >= target
    )
    # for each x: the number of y values (from the smallest) that reach the target
    left, right = np.zeros(xs.size, dtype=int), np.full(xs.size, ys.size)
    while np.any(left < right):
        mid = (left + right) // 2
        good = ok(mid) & (left < right)
        left = np.where(good, mid + 1, left)
        right = np.where(~good & (left < right), mid, right)
    below = np.where(left > 0, stats.binom.cdf(ys[np.maximum(left - 1, 0)], n, q), 0.0)
    return float(np.clip(np.sum(stats.binom.pmf(xs, n, p) * below), 0.0, 1.0))  # rounding


def median_reaches(r: float, seeds: int = SEEDS) -> float:
    """P[the median of ``seeds`` independent bounds reaches the target], r for one seed."""
    return float(stats.binom.sf((seeds - 1) // 2, seeds, r))


def certification_samples(name: str, samples: int) -> int:
    """Certification samples per dataset of a default audit of catalogue entry ``name``."""
    e = CATALOGUE[name]
    y = np.asarray(e.sampler()(e.pairs[0].a, 4, np.random.default_rng(0)))
    config = AuditConfig(epsilon=e.claimed_epsilon, delta=e.delta or 0.0, samples=samples)
    return config.split(scalar=y.ndim == 1, pairs=len(e.pairs))[1]


def row(name: str, reference: float, samples: int = 1_000_000) -> tuple[list[str], float] | None:
    """One table row for catalogue entry ``name``, and the chance that the median of SEEDS
    seeds reaches the target: min(0.9x ``reference`` (DP-Sniper's bound), 0.95x the oracle)."""
    e = CATALOGUE[name]
    n = certification_samples(name, samples)
    a, delta = (1 - CONFIDENCE) / 2, e.delta or 0.0
    found = oracle_event(name, e.claimed_epsilon, n, a, delta)
    if found is None:
        return None
    oracle, p, q = found
    rng = np.random.default_rng(0)
    (ux, ix), (uy, iy) = (np.unique(rng.binomial(n, r, DRAWS), return_inverse=True) for r in (p, q))
    lb = np.maximum(
        np.asarray(epsilon_bound(cp_lower(ux, n, a)[ix], cp_upper(uy, n, a)[iy], delta), float), 0.0
    )
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
