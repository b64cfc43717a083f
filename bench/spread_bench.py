"""Section 11: the certified bound of scalar catalogue entries over 100 seeds, at small budgets.

One seed's bound on a weak signal is noisy (section 10): the mean over seeds is what a user can
expect. For each entry and budget, the mean, median and smallest bound of `audit` over the
seeds 2026-2125 at the default split of the samples, then the same with selection on a tenth
of them (the split before small budgets got a floor, `auditor.engine.config`), each beside its
oracle (the best bound any audit with that certification sample could certify, at the same
confidence and interval split: :mod:`bench.oracle`).
"""

from __future__ import annotations

import time

import numpy as np

from bench.oracle import oracle_bound

CONFIDENCE = 0.95
SEEDS = tuple(range(2026, 2126))
ENTRIES = ("gaussian", "laplace.scalar", "geometric.two_sided", "rr.k_ary")
SAMPLES = (100_000, 400_000, 1_000_000)

HEAD = [
    "mechanism",
    "samples/side",
    "selection",
    "mean",
    "median",
    "min",
    "oracle",
    "mean x oracle",
    "a tenth: mean",
    "oracle",
    "mean x oracle",
]


def _bounds(name: str, samples: int, seeds, selection: int | None) -> tuple[np.ndarray, int, int]:
    from bench.selection_loss import audit_entry

    out, split = [], (0, 0)
    for seed in seeds:  # (every sample, one look at the end: the tightest bound)
        r = audit_entry(name, samples, seed, selection_samples=selection, workers=1)
        out.append(r.epsilon_lower_bound)
        split = (r.selection_samples, r.certification_samples)
    return np.array(out), *split


def run(quick: bool = False) -> tuple[list[list[str]], float]:
    """The table's rows and the seconds they took."""
    from auditor.catalogue import CATALOGUE

    seeds = SEEDS[:10] if quick else SEEDS
    sizes = tuple(s // 10 for s in SAMPLES) if quick else SAMPLES
    a = (1 - CONFIDENCE) / 2
    rows, t0 = [], time.perf_counter()
    for name in ENTRIES:
        e = CATALOGUE[name]
        for samples in sizes:
            lb, m, n = _bounds(name, samples, seeds, None)
            tenth, _m, n10 = _bounds(name, samples, seeds, samples // 10)
            o, o10 = (oracle_bound(name, e.claimed_epsilon, k, a, e.delta) for k in (n, n10))
            rows.append(
                [
                    name,
                    f"{samples:.0e}",
                    f"{m:,}",
                    f"{lb.mean():.4f}",
                    f"{np.median(lb):.4f}",
                    f"{lb.min():.4f}",
                    f"{o:.4f}" if o else "-",
                    f"{lb.mean() / o:.3f}" if o else "-",
                    f"{tenth.mean():.4f}",
                    f"{o10:.4f}" if o10 else "-",
                    f"{tenth.mean() / o10:.3f}" if o10 else "-",
                ]
            )
    return rows, time.perf_counter() - t0
