"""The expected certified bound of the events an audit chose: its bound apart from the luck of
its certification draw.

`python -m bench.expected NAME [NAME ...] [--seeds 2026 2027 ...] [--samples 1e6] [--truth 4e6]`

A certified bound mixes two kinds of noise: which events selection chose (what the engine
decides) and how their certification counts fell (luck that no choice of event removes:
:mod:`bench.cert_noise` gives its exact law). This diagnostic keeps the first and averages out
the second, so two versions of the engine can be compared on a few seeds. Each audit runs as
the bench runs it (every sample, one look at the end); the events it certifies, their number
K, the certification size n and the level of each one-sided bound are recorded. Each event is
then counted on ``truth`` fresh outputs per dataset of its input pair, and ``sims``
certifications are simulated with those probabilities: binomial counts on n samples per
dataset, the certified epsilon of their exact Clopper-Pearson bounds at the audit's level, the
largest over the K events, floored at 0. Reported per run: the audit's own bound, the mean and
median of the simulated ones, and each event's family, pair, probabilities and log-ratio.

The truth outputs of a pair come from a stream of the seed and the pair alone, the same for
every event counted on it (common random numbers): two versions of the engine that certify the
same event get the same estimate of it, so their comparison is not blurred by the truth
sample. That estimate is still noisy for a rare event (one of mass 0.5% has a log-ratio
standard error near 0.01 on 4e6 outputs per dataset): compare versions over several seeds.

A developer's diagnostic, not part of ``make bench``: a vector audit at 1e6 per dataset takes
20-60 s on this machine, and counting its events on 4e6 outputs per dataset about as long.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, replace
from unittest import mock

import numpy as np

from auditor.catalogue import CATALOGUE
from auditor.engine import run as run_module
from auditor.engine.choice import Outcome
from auditor.engine.events import Difference
from auditor.engine.select import Candidate
from auditor.engine.stats import simulate_certified
from bench.selection_loss import _count, audit_entry

CHUNK = 200_000  # truth outputs drawn at a time per dataset
TRUTH_STREAM = 0x7E57  # the truth streams' tag: apart from the audit's own streams


@dataclass(frozen=True)
class Expected:
    """One audit's certified events, their probabilities and the bound they are worth."""

    name: str
    seed: int
    certified: float  # the audit's own bound
    chosen: list[Candidate]
    probs: np.ndarray  # (K, 2): numerator and denominator probability of each event
    samples: int  # certification samples per dataset
    level: float  # of each one-sided bound
    bounds: np.ndarray  # the simulated certified bounds

    @property
    def mean(self) -> float:
        return float(self.bounds.mean()) if self.bounds.size else 0.0

    @property
    def median(self) -> float:
        return float(np.median(self.bounds)) if self.bounds.size else 0.0


def recorded(name: str, samples: int, seed: int):
    """Run the audit of a catalogue entry as the bench does; the result and what its
    certification ended with (its :class:`~auditor.engine.choice.Outcome`)."""
    seen: dict = {}
    conclude = run_module._conclude

    def record(mech, pairs, out, cfg, *rest):
        seen["out"] = out
        return conclude(mech, pairs, out, cfg, *rest)

    with mock.patch.object(run_module, "_conclude", record):
        result = audit_entry(name, samples, seed)
    return result, seen["out"]


def certified_events(name: str, samples: int, seed: int) -> tuple[float, Outcome]:
    """Run the audit of a catalogue entry; its bound and what its certification ended with."""
    result, out = recorded(name, samples, seed)
    return result.epsilon_lower_bound, out


def true_probabilities(name: str, chosen: list[Candidate], seed: int, truth: int) -> np.ndarray:
    """(K, 2): each event's probability under its numerator dataset and under the other, on
    ``truth`` outputs per dataset (rounded down to whole chunks) drawn from the stream of
    ``seed`` and the event's pair: the same outputs for every event of one pair."""
    entry = CATALOGUE[name]
    sampler = entry.sampler()
    chunks = max(1, truth // CHUNK)
    counts = np.zeros((len(chosen), 2), dtype=np.int64)
    for i in sorted({c.pair_index for c in chosen}):
        idx = [k for k, c in enumerate(chosen) if c.pair_index == i]
        mine = [chosen[k] for k in idx]
        pair = entry.pairs[i]
        rng = np.random.default_rng([seed, TRUTH_STREAM, i])
        for _ in range(chunks):
            for side, data in enumerate((pair.a, pair.b)):
                counts[idx, side] += _count(mine, sampler(data, CHUNK, rng))
    p = counts / (chunks * CHUNK)
    fwd = np.array([c.forward for c in chosen], dtype=bool)
    return np.stack([np.where(fwd, p[:, 0], p[:, 1]), np.where(fwd, p[:, 1], p[:, 0])], 1)


def simulate(
    probs: np.ndarray,
    n: int,
    a: float,
    delta: float,
    sims: int,
    seed: int = 1,
    joint_level: float | None = None,
) -> np.ndarray:
    """Certified epsilon of ``sims`` simulated certifications (the best of the K events'
    bounds, floored at 0; :func:`auditor.engine.stats.simulate_certified`)."""
    return simulate_certified(probs, n, a, delta, sims, joint_level, seed)


def pooled_parts(
    name: str, out: Outcome, seed: int, truth: int, probs: np.ndarray | None = None
) -> np.ndarray | None:
    """(K, 2, 2): for each certified event whose joint bound is pooled with a partner
    (:func:`auditor.engine.choice.partner`), the probabilities of the event without its partner
    and of the partner without the event, under the event's numerator and denominator
    datasets, counted on the truth outputs of :func:`true_probabilities`; an event not pooled
    gets its own probabilities (``probs``, when already counted) and zeros. None when no
    event is pooled."""
    pooled = (out.joint or {}).get("pooled") or {}
    if not pooled:
        return None
    chosen = out.chosen
    extra = []
    for k in sorted(pooled):
        c, d = chosen[k], pooled[k]["partner"]
        extra += [
            replace(c, event=Difference(c.event, d.event)),
            replace(c, event=Difference(d.event, c.event)),
        ]
    diffs = true_probabilities(name, extra, seed, truth)
    parts = np.zeros((len(chosen), 2, 2))
    parts[:, 0] = true_probabilities(name, chosen, seed, truth) if probs is None else probs
    for i, k in enumerate(sorted(pooled)):
        parts[k] = diffs[2 * i : 2 * i + 2]
    return parts


def expected(name: str, seed: int, samples: int, truth: int, sims: int = 4000) -> Expected:
    certified, out = certified_events(name, samples, seed)
    probs = true_probabilities(name, out.chosen, seed, truth)
    joint = out.joint_levels()
    bounds = simulate_certified(
        probs,
        out.samples,
        out.levels(),
        CATALOGUE[name].delta,
        sims,
        joint,
        parts=pooled_parts(name, out, seed, truth, probs),
    )
    return Expected(name, seed, certified, out.chosen, probs, out.samples, out.level, bounds)


def describe(e: Expected) -> str:
    parts = []
    for c, (pn, pd) in zip(e.chosen, e.probs):
        ln = f"{np.log(pn / pd):.4f}" if pd > 0 and pn > 0 else ("inf" if pn > 0 else "-")
        parts.append(f"{c.family} [pair {c.pair_index}] {pn:.4g} vs {pd:.4g} (ln {ln})")
    return "; ".join(parts) or "none"


def audit_arguments(ap: argparse.ArgumentParser, seeds: list[int]) -> None:
    """The arguments of a diagnostic that audits catalogue entries and counts their events on
    fresh outputs: the entries, the seeds, the audit's and the truth's samples per dataset."""
    ap.add_argument("names", nargs="+", choices=sorted(CATALOGUE), metavar="NAME")
    ap.add_argument("--seeds", nargs="+", type=int, default=seeds)
    ap.add_argument("--samples", type=float, default=1e6)
    ap.add_argument("--truth", type=float, default=4e6)


def check_sizes(ap: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Refuse (exit 2, naming the value) an audit or a truth sample too small to mean anything."""
    if not args.samples >= 1e4:
        ap.error(f"--samples {args.samples:g} is too few: use at least 1e4 per dataset")
    if not args.truth >= CHUNK:
        ap.error(f"--truth {args.truth:g} is too few: use at least {CHUNK} per dataset")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.expected")
    audit_arguments(ap, [2026, 2027, 2028, 2029, 2030])
    ap.add_argument("--sims", type=int, default=4000)
    args = ap.parse_args(argv)
    check_sizes(ap, args)
    if args.sims < 1:
        ap.error(f"--sims {args.sims} must be at least 1")
    print("| entry | seed | K | audit's bound | expected (mean) | median | events certified |")
    print("|---|---|---|---|---|---|---|")
    for name in args.names:
        for seed in args.seeds:
            e = expected(name, seed, int(args.samples), int(args.truth), args.sims)
            print(
                f"| {name} | {seed} | {len(e.chosen)} | {e.certified:.4f} | {e.mean:.4f} "
                f"| {e.median:.4f} | {describe(e)} |",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
