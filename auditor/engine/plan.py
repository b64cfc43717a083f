"""The sample plan of an audit: a probe of the mechanism's outputs and speed, the rounds of
selection (successive halving over input pairs), and the chunk plans of every phase."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from auditor.engine.adapter import Mechanism, draw, kind_of, one_shape
from auditor.engine.deadline import OutOfTime, cut_at
from auditor.engine.schedule import ChunkPlan, looks

__all__ = [
    "HALVING_PAIRS",
    "MIN_ROUND",
    "Plan",
    "Probe",
    "Round",
    "family_looks",
    "halving",
    "probe",
]

MIN_ROUND = 25_000  # fewest selection samples per dataset in the first round of halving
# up to this many pairs, every pair is judged on the whole selection sample: screening the
# pattern lists (8 pairs) on a fraction of it picks worse pairs on weak signals (SVT1 at 1e6:
# mean eps_lb 0.024-0.046 with halving against 0.046-0.063 without, 4 seeds)
HALVING_PAIRS = 8
SCALAR_BUILD_CAP = 1 << 17  # outputs per dataset held for building events
VECTOR_BUILD_ELEMENTS = 1 << 20  # vector outputs held: rows = this / width (at least 16k)
# ... but never more elements than this (128 MiB of float64 per dataset): 16k rows of a
# 10,000-wide output held 2.6 GB and peaked at 4.7 GB at 2e4 samples
VECTOR_HELD_ELEMENTS = 1 << 24
VECTOR_TALLY_ELEMENTS = 1 << 25  # vector outputs whose key values are tallied, streamed


@dataclass(frozen=True, slots=True)
class Probe:
    """What a few outputs on their own stream tell: output kind and shape, samples per second."""

    kind: str
    tail: tuple[int, ...]
    rate: float
    # categories drawn in the probe's largest batch, when every one of them was different
    # (text that never repeats, as an id): no event on such outputs recurs; else 0
    distinct: int = 0
    # the probe's first 8 outputs (of the first pair's first dataset) were one value
    single: bool = False

    @property
    def scalar(self) -> bool:
        return not self.tail

    @property
    def width(self) -> int:
        return int(np.prod(self.tail)) if self.tail else 1


DISTINCT_PROBE = 64  # fewest probe outputs, all different, that say outputs never repeat


def probe(
    mech: Mechanism, data: Any, seed: int, budget: float = 0.05, until: float | None = None
) -> Probe:
    """Draw a few outputs (never used by the audit) to learn their shape and the speed. The
    draws are cut at ``until`` (a :func:`time.perf_counter` reading): OutOfTime when the first
    8 have not returned by then; later draws only end the timing."""
    gen = np.random.default_rng(np.random.SeedSequence([seed, 0x5CA1]))
    t0 = time.perf_counter()
    y = last = cut_at(until, draw, mech, data, 8, gen)
    elapsed = took = time.perf_counter() - t0
    total, size = 8, 16
    try:
        while elapsed < budget and total < 16_384:  # a slow one is timed on its first 8
            t = time.perf_counter()
            last = cut_at(until, draw, mech, data, size, gen)
            one_shape(mech, y, last)
            took, total, size = time.perf_counter() - t, total + size, size * 4
            elapsed = time.perf_counter() - t0
    except OutOfTime:  # the time limit cut the timing: the draws done time it
        pass
    kind = kind_of(y)
    rows = np.unique(last, axis=0).shape[0] if kind == "category" else 0  # (rows of a vector)
    unique = rows == last.shape[0] >= DISTINCT_PROBE
    single = bool(np.unique(y, axis=0).shape[0] == 1)  # (its first 8: drawn on every run)
    return Probe(
        kind,
        tuple(y.shape[1:]),
        _rate(total, elapsed, last.shape[0], took),
        last.shape[0] * unique,
        single,
    )


# the least time of the probe's largest draw that times the speed on its own
RATE_DRAW_SECONDS = 0.002


def _rate(total: int, elapsed: float, last: int, took: float) -> float:
    """Outputs per second in chunks: those of the largest draw, which time well enough (a cost
    per call, as a batched mechanism's set-up, weighs on small draws: counted over all of
    them, it made a mechanism with 5 ms per call look five times slower than its largest draw),
    else those of all the draws."""
    if took >= RATE_DRAW_SECONDS:
        return max(last / took, total / max(elapsed, 1e-9))
    return total / max(elapsed, 1e-9)


@dataclass(frozen=True, slots=True)
class Round:
    """One round of selection: the pairs still in it (``alive``) each draw a build, a key-tally
    and a judging sample per dataset."""

    build: ChunkPlan
    keys: ChunkPlan  # streamed after the build sample, tallied for key-set events (vectors)
    judge: ChunkPlan
    alive: int

    @property
    def n(self) -> int:
        return self.build.n + self.keys.n + self.judge.n

    @property
    def held(self) -> int:
        return self.build.n + self.keys.n


def halving(pairs: int, selection: int) -> list[tuple[int, int]]:
    """(pairs alive, selection samples each) of the rounds of successive halving.

    Every pair gets a small screening sample; each round keeps the better half (by the judged
    prediction) and gives it twice the samples, so the pair that is certified drew exactly
    ``selection`` per dataset, and the pairs dropped early cost little. Rounds of fewer than
    MIN_ROUND samples are not worth their noise: small audits screen in fewer rounds, or in
    one (every pair judged on the whole selection sample).
    """
    rounds = 1 if pairs <= HALVING_PAIRS else math.ceil(math.log2(pairs)) + 1
    while rounds > 1 and selection // ((1 << rounds) - 1) < MIN_ROUND:
        rounds -= 1
    if rounds == 1:
        return [(pairs, selection)]
    unit = selection // ((1 << rounds) - 1)
    sizes = [unit << r for r in range(rounds - 1)]
    sizes.append(selection - sum(sizes))
    alive = [max(1, math.ceil(pairs * pairs ** (-r / (rounds - 1)))) for r in range(rounds)]
    alive[-1] = 1
    return list(zip(alive, sizes))


FAMILY_LOOKS = (8, 4, 2)  # the judging sample is screened after 1/8, 1/4 and 1/2 of it


def family_looks(judge: ChunkPlan) -> tuple[int, ...]:
    """Chunk counts of a judging stream after which candidates clearly behind are dropped
    (:func:`auditor.engine.select.survivors`): the chunk boundaries past ``n / 8``, ``n / 4``
    and ``n / 2``, none before MIN_ROUND samples (a screen on fewer is mostly noise)."""
    out: list[int] = []
    for part in FAMILY_LOOKS:
        t = judge.chunks_for(max(judge.n // part, MIN_ROUND))
        if t < judge.count and t not in out:
            out.append(t)
    return tuple(out)


@dataclass(frozen=True, slots=True)
class Plan:
    """Sample sizes per dataset and the chunk plans of the phases."""

    rounds: tuple[Round, ...]
    certify: ChunkPlan
    looks: tuple[int, ...]
    n_pairs: int

    @classmethod
    def of(
        cls,
        selection: int,
        certification: int,
        mech: Mechanism,
        pr: Probe,
        batch_size: int | None,
        n_pairs: int,
        sequential: bool = True,
    ) -> Plan:
        """``sequential``: certification looks at its counts on the schedule (early stopping or
        a time limit); otherwise once, at the end, with the whole failure probability."""
        cap = batch_size or max(1, (1 << 20 if mech.batched else 1 << 16) // pr.width)
        hold = SCALAR_BUILD_CAP if pr.scalar else _vector_hold(pr.width)
        rounds = []
        for alive, m in halving(n_pairs, selection):
            h = max(1, min(m // 2, hold))
            wide = h if pr.scalar else max(h, min(m // 2, VECTOR_TALLY_ELEMENTS // pr.width))
            rounds.append(
                Round(ChunkPlan(h, cap), ChunkPlan(wide - h, cap), ChunkPlan(m - wide, cap), alive)
            )
        cert = ChunkPlan(certification, cap)
        return cls(tuple(rounds), cert, looks(cert, sequential), n_pairs)

    @property
    def chunks(self) -> list[list[int]]:
        """What fixes every chunk's size (part of a checkpoint's identity)."""
        return [[r.alive, r.build.n, r.keys.n, r.judge.n, r.build.cap] for r in self.rounds] + [
            [self.certify.n, self.certify.cap]
        ]

    def serial_seconds(self, rate: float) -> float:
        draws = 2 * (sum(r.alive * r.n for r in self.rounds) + self.certify.n)
        return draws / max(rate, 1e-9)


def _vector_hold(width: int) -> int:
    """Rows of a vector output held per dataset for building events."""
    rows = max(1 << 14, VECTOR_BUILD_ELEMENTS // width)
    return max(min(rows, VECTOR_HELD_ELEMENTS // width), 64)
