"""What an audit is asked: the claim, the sample sizes and how they split between selection and
certification, the scale settings; their validation at the public boundary, and the fewest
samples that could refute a claim at all."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from auditor.engine.claims import PointClaim
from auditor.engine.select import FAMILIES
from auditor.engine.stats import (
    JOINT_SHARE,
    cp_lower,
    cp_upper,
    epsilon_bound,
    prefix_mean,
    ratio_lower,
)
from proofs.errors import InputError
from proofs.io import brief

__all__ = ["AuditConfig", "check_number", "minimum_samples", "validate"]

SELECTION_CAP = 1_000_000  # per dataset and pair, for vector outputs
SCALAR_SELECTION_CAP = 4_000_000  # scalar outputs are cheap to judge: choose events more finely
EASY_SELECTION_SHARE = 0.1  # of the samples, for selection: scalar outputs, one pair
SELECTION_SHARE = 0.3  # vector outputs or several pairs
# a scalar output's selection samples, at least (up to SELECTION_SHARE of them): whether a rare
# event is worth certifying shows by how many outputs the judging sample sees in it
SCALAR_SELECTION_FLOOR = 80_000


@dataclass(frozen=True, slots=True)
class AuditConfig:
    """What to audit against and with how many samples (``samples`` is per dataset)."""

    epsilon: float
    delta: float = 0.0
    samples: int = 1_000_000
    confidence: float = 0.95
    seed: int | None = 0
    selection_samples: int | None = None
    max_certified: int = 3
    batch_size: int | None = None
    families: tuple[str, ...] = FAMILIES
    progress: bool | None = None  # a bar on stderr; None: only when stderr is a terminal
    early_stop: bool = True  # end at the first look that certifies a violation
    workers: int | None = None  # None: every core
    executor: Any = None  # "local" (default), "dask", or a concurrent.futures.Executor
    scheduler: str | None = None  # Dask scheduler address
    checkpoint: str | None = None  # file to save progress to and resume from
    max_time: float | None = None  # seconds; the result then uses the last look completed
    checkpoint_every: float = 10.0  # seconds between checkpoint saves
    # "inconclusive" when the detectable epsilon exceeds this multiple of the claim
    inconclusive_factor: float = 2.0
    # a whole privacy profile (auditor.engine.claims); epsilon and delta are then its reading
    # at the reference delta
    profile: Any = None

    @property
    def claim(self) -> Any:
        """What the audit tests: the profile, or the point claim (epsilon, delta)."""
        return self.profile if self.profile is not None else PointClaim(self.epsilon, self.delta)

    @property
    def alpha_per_bound(self) -> float:
        """Level of each bound when one event is certified (used to predict and to size)."""
        return (1.0 - self.confidence) / 2

    def level(self, n_events: int) -> float:
        """Level of each of the 2 * n_events one-sided bounds (Bonferroni)."""
        return (1.0 - self.confidence) / (2 * max(n_events, 1))

    def split(self, scalar: bool = True, pairs: int = 1) -> tuple[int, int]:
        """(selection, certification) samples per dataset, selection capped: a tenth for a
        scalar output on one pair of datasets; three tenths for vector outputs or several
        pairs, where choosing among many candidate events on a tenth is the larger loss
        (sparse vector at 1e6: mean eps_lb 0.040 with a tenth, 0.063 with three; bench).

        The scalar tenth is raised to SCALAR_SELECTION_FLOOR samples (three tenths at most) on
        smaller budgets: the best event may be a rare tail or atom, and whether it is worth
        certifying shows only once the judging sample sees enough outputs in it, whatever
        the budget. Mean eps_lb over 100 seeds (2026-2125), the tenth against the floor:

        - the catalogue's Gaussian, 0.097 -> 0.123 at 1e5 samples (oracle 0.159 and 0.149
          with the smaller certification sample), 0.136 -> 0.164 at 2e5, 0.184 -> 0.200 at
          4e5 (oracle 0.209 and 0.205);
        - k-ary randomized response 0.074 -> 0.081 at 1e5, the Laplace 0.0858 -> 0.0869
          (both lost their zero bounds, lucky rare picks);
        - where the best event is wide and easily found, the smaller certification sample
          costs a little: the geometric 0.0861 -> 0.0831 and alpha-coin randomized response
          0.0888 -> 0.0874 at 1e5; at 4e5 every entry measured is within 1%.

        A profile claim keeps its tenth: its best events lie mid-curve (probabilities 0.1 to
        0.5), found on a tenth, and the certification sample is what bounds them (the correct
        Gaussian of mu 0.1032 against its curve at 1e5, 100 seeds: mean mu_lb / mu 0.808 with
        a tenth, 0.786 with three).
        """
        m = self.selection_samples
        if m is None:
            cap = SCALAR_SELECTION_CAP if scalar else SELECTION_CAP
            easy = scalar and pairs <= 1
            share = EASY_SELECTION_SHARE if easy else SELECTION_SHARE
            floor = 0
            if easy and self.profile is None:
                floor = min(SCALAR_SELECTION_FLOOR, int(self.samples * SELECTION_SHARE))
            m = max(min(int(self.samples * share), cap), floor, min(1000, self.samples // 2))
        return m, self.samples - m


_EXAMPLES = {
    "epsilon": "1",
    "delta": "1e-5",
    "confidence": "0.95",
    "max_time": "600",
    "checkpoint_every": "10",
    "inconclusive_factor": "2",
}


def check_number(name: str, value: Any) -> float:
    example = f", e.g. {_EXAMPLES[name]}" if name in _EXAMPLES else ""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise InputError(f"{name}={value!r} must be a number{example}.")
    v = float(value)
    if math.isnan(v):
        raise InputError(f"{name}=nan must be a number{example}.")
    return v


MAX_TIME = 1e9  # seconds, about 31 years
# (a seed is written to the result and checkpoint: past 300 digits a JSON integer is read back
# as a float, and the tool refused its own files)
MAX_SEED = 2**512


def validate(config: AuditConfig) -> None:
    """Check a configuration at the public boundary (each message names value and fix)."""
    eps = check_number("epsilon", config.epsilon)
    if config.profile is None and (eps < 0 or math.isinf(eps)):
        raise InputError(f"epsilon={config.epsilon!r} must be finite and >= 0, e.g. 1.")
    delta = check_number("delta", config.delta)
    if not 0 <= delta < 1:
        raise InputError(f"delta={config.delta!r} must be in [0, 1) (0 for pure DP).")
    if config.profile is not None and not 0 < delta < 1:
        raise InputError(
            f"delta={config.delta!r}: a profile is read off at a delta in (0, 1), e.g. 1e-5."
        )
    conf = check_number("confidence", config.confidence)
    if not 0.5 <= conf < 1:  # below 1/2 a "certified" bound is more likely wrong than right
        raise InputError(f"confidence={config.confidence!r} must be in [0.5, 1), e.g. 0.95.")
    if (
        isinstance(config.samples, bool)
        or not isinstance(config.samples, (int, np.integer))
        or config.samples < 200
        or config.samples > MAX_SAMPLES
    ):
        raise InputError(
            f"samples={brief(config.samples)} must be an integer in [200, {MAX_SAMPLES:.0e}], "
            "e.g. 1000000."
        )
    unknown = set(config.families) - set(FAMILIES)
    if unknown or not config.families:
        raise InputError(f"families={config.families!r} must be a non-empty subset of {FAMILIES}.")
    if config.max_time is not None:
        t = check_number("max_time", config.max_time)
        if not 0 <= t <= MAX_TIME:  # (the alarm timer overflows beyond; NaN fails too)
            raise InputError(
                f"max_time={config.max_time!r} must be a number of seconds in [0, "
                f"{MAX_TIME:.0e}], e.g. 600; omit it for no time limit."
            )
    if not check_number("checkpoint_every", config.checkpoint_every) > 0:
        raise InputError(f"checkpoint_every={config.checkpoint_every!r} must be > 0 seconds.")
    seed = config.seed
    if seed is not None and (
        isinstance(seed, bool)
        or not isinstance(seed, (int, np.integer))
        or not 0 <= seed < MAX_SEED
    ):
        raise InputError(
            f"seed={brief(seed)} must be an integer in [0, 2^512) (or None for a fresh one)."
        )
    if config.checkpoint is not None and config.seed is None:
        raise InputError("a checkpoint needs a fixed seed (an integer >= 0).")
    factor = check_number("inconclusive_factor", config.inconclusive_factor)
    if not factor > 1 or math.isinf(factor):
        raise InputError(
            f"inconclusive_factor={config.inconclusive_factor!r} must be a finite number > 1, "
            "e.g. 2."
        )
    for name in ("max_certified", "selection_samples"):
        value = getattr(config, name)
        if value is not None and (
            isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1
        ):
            raise InputError(f"{name}={value!r} must be an integer >= 1.")
    m, n = config.split()
    if not 0 < m < config.samples:
        raise InputError(f"selection_samples={m} must be in (0, samples={config.samples}).")
    # what is too small when the user set the split: the certification samples it leaves
    short = (
        f"selection_samples={m} leaves {n} of samples={config.samples} for certification"
        if config.selection_samples is not None
        else f"samples={config.samples} is too small"
    )
    if config.profile is not None:
        claim = config.profile
        a = config.alpha_per_bound
        if not float(claim.statistic(cp_lower(n, n, a), cp_upper(0, n, a))) > claim.threshold:
            raise InputError(
                f"{short} at confidence={conf:g}: even a perfect witness could not violate the "
                f"profile {claim.describe()}; use more samples."
            )
        return
    best = _perfect_bound(n, config.alpha_per_bound, delta)
    if best <= eps:
        need = minimum_samples(eps, delta, config.confidence)
        if need is None:
            raise InputError(
                f"epsilon={eps:g} cannot be refuted by sampling: even a perfect witness needs more "
                f"than {MAX_SAMPLES:.0e} samples per dataset; audit a smaller claimed epsilon."
            )
        fix = (
            f"use {need} or more"
            if config.selection_samples is None
            else "leave more for certification (or selection_samples unset)"
        )
        raise InputError(
            f"{short} at confidence={conf:g}: even an event seen in every sample of one dataset "
            f"and never in the other would certify only epsilon >= {max(best, 0):.3g}, not above "
            f"the claimed {eps:g}; {fix}."
        )


def _perfect_bound(n: int, a: float, delta: float) -> float:
    """What an event seen in every sample of one dataset and never in the other certifies on
    ``n`` samples, ``a`` the level of each bound when it alone is certified (a pure claim: the
    better of the joint ratio bound, its count at the Poisson prefix's mean, and the split
    bounds at their share; auditor.engine.session.Session._look)."""
    if delta != 0:
        return float(epsilon_bound(cp_lower(n, n, a), cp_upper(0, n, a), delta))
    split = a * (1 - JOINT_SHARE)
    return max(
        float(epsilon_bound(cp_lower(n, n, split), cp_upper(0, n, split), 0.0)),
        float(ratio_lower(math.floor(prefix_mean(n)), 0, 2 * a * JOINT_SHARE)),
    )


MAX_SAMPLES = 10**15


def minimum_samples(epsilon: float, delta: float, confidence: float) -> int | None:
    """Smallest per-dataset sample count (to a factor 2) at which a perfect witness could beat
    ``epsilon``; None beyond ``MAX_SAMPLES``."""
    samples = 200
    while samples <= MAX_SAMPLES:
        cfg = AuditConfig(epsilon=epsilon, delta=delta, samples=samples, confidence=confidence)
        _m, n = cfg.split()
        if _perfect_bound(n, cfg.alpha_per_bound, delta) > epsilon:
            return samples
        samples *= 2
    return None
