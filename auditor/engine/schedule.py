"""The sampling plan, fixed before any certification sample is drawn: chunks, looks, levels.

Chunks. Each stream of ``n`` samples is cut into chunks of ``first, 2 first, 4 first, ...``
samples up to ``cap``, then ``cap`` each (the last one shorter). Sizes depend only on ``n`` and
on the mechanism's batching and output width, never on the number of workers, so a chunk's
samples are the same whoever draws them.

Looks and soundness of stopping early. Certification looks at its counts after ``t_1 < t_2 <
... < t_L = T`` chunks per stream: the first boundary past ``FIRST_LOOK`` samples, then each
boundary past ``LOOK_RATIO`` times the previous look, and the end. Look ``l`` gets a share
``alpha_l`` of the failure probability ``alpha = 1 - confidence``: ``FINAL_SHARE`` of it for
the last look and the rest split evenly over the earlier ones, so ``sum alpha_l = alpha``.
At look ``l`` each of the ``2K`` one-sided Clopper-Pearson bounds (K certified events, an upper
and a lower bound each) is taken at level ``alpha_l / (2K)`` on the first ``n_l`` samples of each
dataset. For a pure claim (delta 0) the K joint ratio bounds on the Poisson prefixes
(:func:`auditor.engine.stats.ratio_lower`; prefix sizes drawn from their own stream, at most
``n_l``) get ``0.9 alpha_l / K`` each and the 2K split bounds ``0.1 alpha_l / (2K)``. By the union
bound over the ``L`` looks and every bound, with probability at least ``confidence`` *every*
bound at *every* look holds at once (the events, the looks, the prefix sizes and the levels were
all fixed before the certification samples were drawn). On that event any
quantity computed at any look is valid, whichever rule picks the look that is reported: the
first look whose bound exceeds the claim (early stopping), the last look completed before a time
limit, or the final look. So a reported ``violation`` is false with probability at most
``1 - confidence`` however the audit ended. This is alpha spending over a declared schedule
(group-sequential testing) with exact binomial bounds.

Looks are always declared (so a time limit or an interrupted run can report one); early stopping
only decides whether a look that certifies a violation ends the audit. The cost of the early
looks is small: the last look keeps ``FINAL_SHARE`` of ``alpha``, so a full-length audit
certifies at level ``0.9 alpha`` instead of ``alpha``.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["FINAL_SHARE", "FIRST_LOOK", "LOOK_RATIO", "ChunkPlan", "look_levels", "looks"]

MIN_CHUNK = 1024
FIRST_LOOK = 4096
LOOK_RATIO = 1.5
FINAL_SHARE = 0.9


@dataclass(frozen=True, slots=True)
class ChunkPlan:
    """Chunk sizes of one stream of ``n`` samples: doubling from ``first`` up to ``cap``."""

    n: int
    cap: int

    @property
    def first(self) -> int:
        return max(1, min(MIN_CHUNK, self.cap))

    @property
    def growing(self) -> int:
        """How many chunks are smaller than ``cap`` (before the plateau)."""
        k = 0
        while self.first << k < self.cap:
            k += 1
        return k

    def end(self, t: int) -> int:
        """Samples in the first ``t`` chunks."""
        g = self.growing
        if t <= g:
            total = self.first * ((1 << t) - 1)
        else:
            total = self.first * ((1 << g) - 1) + (t - g) * self.cap
        return min(total, self.n)

    def chunks_for(self, samples: int) -> int:
        """The fewest chunks holding at least ``samples`` samples (at most :attr:`count`)."""
        samples = min(samples, self.n)
        g = self.growing
        grow_total = self.first * ((1 << g) - 1)
        if samples <= grow_total:
            t = 0
            while self.end(t) < samples:
                t += 1
            return t
        return g + -(-(samples - grow_total) // self.cap)

    @property
    def count(self) -> int:
        return self.chunks_for(self.n)

    def size(self, j: int) -> int:
        return self.end(j + 1) - self.end(j)


def looks(plan: ChunkPlan, sequential: bool) -> tuple[int, ...]:
    """Chunk counts at which certification looks (the last is always the end)."""
    total = plan.count
    if not sequential:
        return (total,)
    out: list[int] = []
    target = float(FIRST_LOOK)
    while target < plan.n:
        t = plan.chunks_for(int(target))
        if t < total and (not out or t > out[-1]):
            out.append(t)
        target = max(target * LOOK_RATIO, plan.end(t) * LOOK_RATIO)
    return (*out, total)


def look_levels(n_looks: int, alpha: float) -> tuple[float, ...]:
    """The failure probability spent at each look; the levels sum to ``alpha``."""
    if n_looks == 1:
        return (alpha,)
    early = alpha * (1 - FINAL_SHARE) / (n_looks - 1)
    return (*([early] * (n_looks - 1)), alpha * FINAL_SHARE)
