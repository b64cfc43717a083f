"""One audit run: build candidate events, judge them, certify the chosen ones, in chunks.

Phases, each drawn from streams of its own (so no sample is used twice):
1. *build*: a capped sample per dataset of each pair, held in memory; the event families
   propose candidates on it (:func:`auditor.engine.select.build`);
2. *judge*: the rest of the selection sample, streamed in chunks, counts every candidate; the
   best one or two are chosen (:func:`auditor.engine.select.judge`, :func:`choose`);
3. *certify*: fresh samples streamed in chunks count the chosen events; the counts are looked
   at on the schedule of :mod:`auditor.engine.schedule`, which also states why stopping early
   (a violation certified, a time limit) keeps every bound valid.

Memory does not grow with the sample count: only the build sample (capped) is ever held.
Chunks run on the executor of :mod:`auditor.engine.executors` and are consumed in chunk order;
the session saves its progress to a checkpoint (:mod:`auditor.engine.checkpoint`) and resumes
from one.
"""

from __future__ import annotations

import contextlib
import math
import signal
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from auditor.engine.adapter import Mechanism, draw, kind_of
from auditor.engine.checkpoint import (
    Checkpoint,
    candidate_from_state,
    candidate_state,
    counts_from_state,
    counts_state,
)
from auditor.engine.executors import Runner, Tally, Task
from auditor.engine.pairs import Pair
from auditor.engine.progress import Progress
from auditor.engine.schedule import ChunkPlan, look_levels, looks
from auditor.engine.select import (
    JUDGE_SHRINK,
    Candidate,
    Scorer,
    build,
    judge,
    key_functions,
    merge_tally,
    tally,
)
from auditor.engine.stats import cp_lower, cp_upper, epsilon_bound, p_value
from proofs.errors import InputError

__all__ = ["Outcome", "Plan", "Probe", "Round", "Session", "choose", "halving", "probe"]

BUILD = 0
JUDGE = 1
CERTIFY = 2
KEYS = 4  # (3 seeds the event families' own randomness)
ROUND_PHASES = 8  # round r > 0 of selection draws from phases 8r + BUILD, JUDGE, KEYS
MIN_ROUND = 25_000  # fewest selection samples per dataset in the first round of halving
# up to this many pairs, every pair is judged on the whole selection sample: screening the
# pattern lists (8 pairs) on a fraction of it picks worse pairs on weak signals (SVT1 at 1e6:
# mean eps_lb 0.024-0.046 with halving against 0.046-0.063 without, 4 seeds)
HALVING_PAIRS = 8
# a candidate's rank and plain predictions shrink each count by 1.645 and 0.994 sigmas (levels
# 0.05 and 0.16, select.py): their gap over this is about one sd of the log-ratio estimate
SHRINK_GAP = (1.645 - 0.994) * math.sqrt(2)
SCALAR_BUILD_CAP = 1 << 17  # outputs per dataset held for building events
VECTOR_BUILD_ELEMENTS = 1 << 20  # vector outputs held: rows = this / width (at least 16k)
VECTOR_TALLY_ELEMENTS = 1 << 23  # vector outputs whose key values are tallied, streamed
WARN_SECONDS = 3600.0
SAY_SECONDS = 10.0


@dataclass(frozen=True, slots=True)
class Probe:
    """What a few outputs on their own stream tell: output kind and shape, samples per second."""

    kind: str
    tail: tuple[int, ...]
    rate: float

    @property
    def scalar(self) -> bool:
        return not self.tail

    @property
    def width(self) -> int:
        return int(np.prod(self.tail)) if self.tail else 1


def probe(mech: Mechanism, data: Any, seed: int, budget: float = 0.05) -> Probe:
    """Draw a few outputs (never used by the audit) to learn their shape and the speed."""
    gen = np.random.default_rng(np.random.SeedSequence([seed, 0x5CA1]))
    t0 = time.perf_counter()
    y = draw(mech, data, 8, gen)
    total, size, elapsed = 8, 16, time.perf_counter() - t0
    while elapsed < budget and total < 16_384:  # a slow mechanism is timed on its first 8
        draw(mech, data, size, gen)
        total += size
        elapsed = time.perf_counter() - t0
        size *= 4
    return Probe(kind_of(y), tuple(y.shape[1:]), total / max(elapsed, 1e-9))


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
    ) -> Plan:
        cap = batch_size or max(1, (1 << 20 if mech.batched else 1 << 16) // pr.width)
        hold = SCALAR_BUILD_CAP if pr.scalar else max(1 << 14, VECTOR_BUILD_ELEMENTS // pr.width)
        rounds = []
        for alive, m in halving(n_pairs, selection):
            h = max(1, min(m // 2, hold))
            wide = h if pr.scalar else max(h, min(m // 2, VECTOR_TALLY_ELEMENTS // pr.width))
            rounds.append(
                Round(ChunkPlan(h, cap), ChunkPlan(wide - h, cap), ChunkPlan(m - wide, cap), alive)
            )
        cert = ChunkPlan(certification, cap)
        return cls(tuple(rounds), cert, looks(cert, True), n_pairs)

    @property
    def chunks(self) -> list[list[int]]:
        """What fixes every chunk's size (part of a checkpoint's identity)."""
        return [[r.alive, r.build.n, r.keys.n, r.judge.n, r.build.cap] for r in self.rounds] + [
            [self.certify.n, self.certify.cap]
        ]

    def serial_seconds(self, rate: float) -> float:
        draws = 2 * (sum(r.alive * r.n for r in self.rounds) + self.certify.n)
        return draws / max(rate, 1e-9)


def choose(cands: list[Candidate], k_max: int) -> list[Candidate]:
    """The best event by the conservative (1.6-sigma shrunk) prediction, and a second one
    (K = 2) when it may be better after all:

    - a different event clearly best by the milder 1-sigma prediction (typically a rarer,
      higher-ratio one);
    - else the best event of another input pair whose prediction, two sigmas up, reaches the
      first one's 1-sigma prediction: among many candidates judged on a finite sample, a
      high-mass event on a worse pair often outranks the best pair's rarer event by a lucky
      draw (sparse vector: 0.09 against 0.135), and certifying both settles it on fresh data.

    When the chosen events are all floating-point ones (the bit pattern of the output), the
    best distributional event joins them, so a scale bug in a float sampler is reported as
    both kinds of violation.

    K is decided on selection data only, so the union bound over 2K certified bounds is valid.
    """
    chosen = _choose(cands, k_max)
    if chosen and all(c.family == "float" for c in chosen):
        real = [c for c in cands if c.family != "float" and c.rank > c.plain - 1e2]
        if real:
            chosen.append(max(real, key=lambda c: c.rank))
    return chosen


def _choose(cands: list[Candidate], k_max: int) -> list[Candidate]:
    if not cands:
        return []
    key = lambda c: (c.pair_index, c.forward, repr(c.event))
    first = max(cands, key=lambda c: c.rank)
    bold = max(cands, key=lambda c: c.plain)
    if k_max < 2:
        return [first]
    # a second event costs a wider union bound: only worth it when it may well be better
    if key(bold) != key(first) and bold.plain > first.plain + 0.03 * abs(first.plain):
        return [first, bold]
    # (a candidate with no shrunk gain ranks at its plain prediction - 1e3: see select.judge)
    others = [c for c in cands if c.pair_index != first.pair_index and c.rank > c.plain - 1e2]
    if others:
        runner = max(others, key=lambda c: c.rank)
        sigma = (runner.plain - runner.rank) / SHRINK_GAP
        if runner.rank > 0 and runner.plain + 2 * sigma >= first.plain:
            return [first, runner]
    return [first]


@dataclass(frozen=True, slots=True)
class Outcome:
    """What certification ended with: the counts at the reported look and why it stopped."""

    chosen: list[Candidate]
    counts: np.ndarray  # (K, 2): counts under the pair's first and second dataset
    samples: int  # certification samples per dataset at the reported look
    level: float  # level of each one-sided bound at that look
    p_value: float
    stop: str  # "complete", "violation", "max-time"
    look: int  # 1-based index of the reported look (0: none)
    looks: int
    simple: list = field(default_factory=list)  # per chosen event: a simpler one, or None


SIMPLE_FAMILIES = ("coordinate", "threshold", "threshold tails", "atoms")
LEARNED_FAMILIES = ("classifier", "projection", "vote", "score tails", "box", "histogram")
SIMPLE_SHARE = 0.95  # a simple event stands in for a learned one within 5% of its prediction


def simplest(judged: list[Candidate], c: Candidate) -> Candidate | None:
    """For a learned event (a classifier score, a vote, a box), the best simple one of the
    same pair (a coordinate threshold, an atom, a set of output patterns) whose judged
    prediction is within 5% of the learned one's: the witness in words. It is judged on the
    selection data only and never certified."""
    if c.family not in LEARNED_FAMILIES or not c.plain > 0:
        return None
    near = [
        x
        for x in judged
        if x.pair_index == c.pair_index
        and x.family in SIMPLE_FAMILIES
        and x.plain >= SIMPLE_SHARE * c.plain
    ]
    return max(near, key=lambda x: x.plain) if near else None


class _OutOfTime(Exception):
    pass


class Session:
    """The state of one audit; :meth:`run` goes through the phases, saving as it goes."""

    def __init__(
        self,
        mech: Mechanism,
        pairs: Sequence[Pair],
        cfg: Any,
        plan: Plan,
        pr: Probe,
        runner: Runner,
        checkpoint: Checkpoint | None,
    ):
        self.mech, self.pairs, self.cfg, self.plan, self.probe = mech, pairs, cfg, plan, pr
        self.runner, self.checkpoint = runner, checkpoint
        self.datas = tuple(d for p in pairs for d in (p.a, p.b))  # dataset 2i + side
        self.entropy = int(cfg.seed)
        self.misc_seed = int(
            np.random.SeedSequence(self.entropy, spawn_key=(3,)).generate_state(1)[0]
        )
        self.t0 = time.perf_counter()
        self.last_save = self.t0
        self._critical = self._pending = False
        # per round of selection, per pair: candidates built, their judging state (None: the
        # pair is out of the round, or not reached yet)
        rounds = len(plan.rounds)
        self.cands: list[list[list[Candidate] | None]] = [
            [None] * len(pairs) for _ in range(rounds)
        ]
        self.judged: list[list[dict[str, Any] | None]] = [
            [None] * len(pairs) for _ in range(rounds)
        ]
        self.chosen: list[Candidate] | None = None
        self.cert: dict[str, Any] | None = None
        self.levels = look_levels(len(plan.looks), 1.0 - float(cfg.confidence))
        if checkpoint is not None and checkpoint.state:
            self._restore(checkpoint.state)

    # -- checkpoint ---------------------------------------------------------------------------

    def state(self) -> dict[str, Any]:
        cert = None
        if self.cert is not None:
            cert = dict(self.cert)
            cert["counts"] = counts_state(cert["counts"])
            if cert["reported"] is not None:
                rep = dict(cert["reported"])
                rep["counts"] = counts_state(rep["counts"])
                cert["reported"] = rep
        return {
            "candidates": [
                [None if cs is None else [candidate_state(c) for c in cs] for cs in rnd]
                for rnd in self.cands
            ],
            "judged": [
                [
                    None
                    if j is None
                    else {
                        "done": j["done"],
                        "counts": counts_state(j["counts"]),
                        "early": j["early"],
                    }
                    for j in rnd
                ]
                for rnd in self.judged
            ],
            "chosen": None if self.chosen is None else [candidate_state(c) for c in self.chosen],
            "certify": cert,
        }

    def _restore(self, st: dict[str, Any]) -> None:
        try:
            self.cands = [
                [None if cs is None else [candidate_from_state(c) for c in cs] for cs in rnd]
                for rnd in st["candidates"]
            ]
            self.judged = [
                [
                    None
                    if j is None
                    else {
                        "done": int(j["done"]),
                        "counts": counts_from_state(j["counts"], (len(self.cands[r][i] or ()), 2)),
                        "early": bool(j["early"]),
                    }
                    for i, j in enumerate(rnd)
                ]
                for r, rnd in enumerate(st["judged"])
            ]
            shape = (len(self.plan.rounds), len(self.pairs))
            for name, rows in (("candidates", self.cands), ("judged", self.judged)):
                if (len(rows), *{len(row) for row in rows}) != shape:
                    raise ValueError(
                        f"{name} must hold {shape[1]} pairs in each of {shape[0]} rounds"
                    )
            self.chosen = (
                None if st["chosen"] is None else [candidate_from_state(c) for c in st["chosen"]]
            )
            cert = st["certify"]
            if cert is not None:
                k = len(self.chosen or ())
                cert = dict(cert)
                cert["counts"] = counts_from_state(cert["counts"], (k, 2))
                if cert["reported"] is not None:
                    rep = dict(cert["reported"])
                    rep["counts"] = counts_from_state(rep["counts"], (k, 2))
                    cert["reported"] = rep
                cert["done"], cert["next_look"] = int(cert["done"]), int(cert["next_look"])
                cert["p"] = float(cert["p"])
                self._check_certify(cert)
            for r, rnd in enumerate(self.judged):
                for i, j in enumerate(rnd):
                    if j is not None and not 0 <= j["done"] <= 2 * self.plan.rounds[r].judge.count:
                        raise ValueError(f"judged[{r}][{i}].done={j['done']} out of range")
            self.cert = cert
        except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
            raise InputError(
                f"checkpoint {str(self.checkpoint.path)!r} is corrupt ({exc}); delete it to start "  # type: ignore[union-attr]
                "over."
            ) from None

    def _check_certify(self, cert: dict[str, Any]) -> None:
        """Ranges a resumed run relies on (the digest already rules out accidents)."""
        per = 2 * len({c.pair_index for c in self.chosen or ()})
        if not 0 <= cert["done"] <= per * self.plan.certify.count:
            raise ValueError(f"certify.done={cert['done']} out of range")
        if not 0 <= cert["next_look"] <= len(self.plan.looks):
            raise ValueError(f"certify.next_look={cert['next_look']} out of range")
        if cert["stop"] not in (None, "complete", "violation"):
            raise ValueError(f"certify.stop={cert['stop']!r} unknown")
        if cert["stop"] is None and cert["next_look"] == len(self.plan.looks):
            raise ValueError("every look taken but no stop recorded")
        if not 0.0 <= cert["p"] <= 1.0:
            raise ValueError(f"certify.p={cert['p']} is not a probability")
        rep = cert["reported"]
        if rep is not None:
            if not 1 <= int(rep["look"]) <= len(self.plan.looks):
                raise ValueError(f"reported.look={rep['look']} out of range")
            if (
                not 0 < int(rep["samples"]) <= self.plan.certify.n
                or not 0 < float(rep["level"]) < 1
            ):
                raise ValueError("reported samples or level out of range")

    def save(self, force: bool = True) -> None:
        if self.checkpoint is None:
            return
        now = time.perf_counter()
        if force or now - self.last_save >= self.cfg.checkpoint_every:
            self.checkpoint.save(self.state())
            self.last_save = now

    @contextlib.contextmanager
    def _atomic(self):
        """Ctrl-C inside waits until the state is consistent again (what a checkpoint saves)."""
        self._critical = True
        try:
            yield
        finally:
            self._critical = False
        if self._pending:
            self._pending = False
            raise KeyboardInterrupt

    @contextlib.contextmanager
    def _interrupts(self):
        """Route SIGINT through :meth:`_atomic` while the audit runs (main thread only)."""
        if (
            threading.current_thread() is not threading.main_thread()
            or signal.getsignal(signal.SIGINT) is not signal.default_int_handler
        ):
            yield
            return

        def handler(signum, frame):
            if self._critical:
                self._pending = True
            else:
                raise KeyboardInterrupt

        signal.signal(signal.SIGINT, handler)
        try:
            yield
        finally:
            signal.signal(signal.SIGINT, signal.default_int_handler)

    def _tick(self) -> None:
        self.save(force=False)
        limit = self.cfg.max_time
        if limit is not None and time.perf_counter() - self.t0 >= limit:
            raise _OutOfTime

    # -- chunks -------------------------------------------------------------------------------

    def _task(self, phase: int, pair: int, side: int, plan: ChunkPlan, j: int) -> Task:
        return Task(2 * pair + side, self.entropy, (phase, pair, side), j, plan.size(j))

    @staticmethod
    def _phase(phase: int, r: int) -> int:
        """Stream id of a selection phase in round r (round 0 keeps the plain ids)."""
        return phase + ROUND_PHASES * r if r else phase

    def _check(self, shape: tuple[str, tuple[int, ...]], pair: int, side: int) -> None:
        if shape != (self.probe.kind, self.probe.tail):
            p = self.pairs[pair]
            raise InputError(
                f"mechanism {self.mech.name} returned {shape[0]} outputs of shape {shape[1]} on "
                f"data={(p.a if side == 0 else p.b)!r} but {self.probe.kind} outputs of shape "
                f"{self.probe.tail} earlier; outputs must have one type."
            )

    # -- phases -------------------------------------------------------------------------------

    def _build(self, r: int, i: int, bar: Progress) -> None:
        rnd = self.plan.rounds[r]
        plan = rnd.build
        phase = self._phase(BUILD, r)
        tasks = [self._task(phase, i, s, plan, j) for j in range(plan.count) for s in (0, 1)]
        parts: list[list[np.ndarray]] = [[], []]
        for g, (shape, y) in enumerate(self.runner.results(self.mech, None, self.datas, tasks)):
            self._check(shape, i, g % 2)
            parts[g % 2].append(y)
            bar.update(len(y))
            self._tick()
        ya, yb = np.concatenate(parts[0]), np.concatenate(parts[1])
        del parts
        tallies = self._tally(r, i, ya, yb, bar)
        scorer = Scorer(
            plan.n, self.plan.certify.n, self.cfg.alpha_per_bound, float(self.cfg.delta)
        )
        found = build(
            self.probe.kind, ya, yb, scorer, self.misc_seed, self.cfg.families, tallies=tallies
        )
        with self._atomic():
            self.cands[r][i] = [replace(c, pair_index=i) for c in found]
            self.judged[r][i] = {
                "done": 0,
                "counts": np.zeros((len(found), 2), dtype=np.int64),
                "early": False,
            }
        self.save(force=False)

    def _tally(self, r: int, i: int, ya: np.ndarray, yb: np.ndarray, bar: Progress) -> dict | None:
        """Key values counted on the held outputs and on a larger streamed sample (vectors):
        likelihood-ordered key sets need many outputs, which need not be held."""
        plan = self.plan.rounds[r].keys
        keys = key_functions(self.probe.kind, ya, yb, self.cfg.families) if plan.n else []
        if not keys:
            return None
        tallies = {
            k: merge_tally(merge_tally(None, tally(k, ya), 0, len(ya)), tally(k, yb), 1, 0)
            for k in keys
        }
        phase = self._phase(KEYS, r)
        tasks = [self._task(phase, i, s, plan, j) for j in range(plan.count) for s in (0, 1)]
        work = Tally(tuple(keys))
        for g, (shape, parts) in enumerate(self.runner.results(self.mech, work, self.datas, tasks)):
            self._check(shape, i, g % 2)
            size = plan.size(g // 2)
            for k, part in zip(keys, parts):
                tallies[k] = merge_tally(tallies[k], part, g % 2, size)
            bar.update(size)
            self._tick()
        return tallies

    def _judge(self, r: int, i: int, bar: Progress) -> None:
        plan, state = self.plan.rounds[r].judge, self.judged[r][i]
        cands = self.cands[r][i] or []
        total = 2 * plan.count
        if not cands or state["early"] or state["done"] >= total:  # type: ignore[index]
            if not cands:
                state["done"] = total  # type: ignore[index]
            return
        events = tuple(c.event for c in cands)
        start = state["done"]  # type: ignore[index]
        bar.update(plan.end(start // 2) * 2)
        phase = self._phase(JUDGE, r)
        tasks = (self._task(phase, i, g % 2, plan, g // 2) for g in range(start, total))
        stops = set(looks(plan, True)) if self.cfg.early_stop else set()
        for g, (shape, counts) in enumerate(
            self.runner.results(self.mech, events, self.datas, tasks), start
        ):
            self._check(shape, i, g % 2)
            with self._atomic():  # the count, the progress and the early-stop rule together
                state["counts"][:, g % 2] += counts  # type: ignore[index]
                state["done"] = g + 1  # type: ignore[index]
                if g % 2 and (g + 1) // 2 in stops:
                    m2 = plan.end((g + 1) // 2)
                    state["early"] = self._clear(cands, state["counts"], m2)  # type: ignore[index]
            bar.update(plan.size(g // 2))
            if state["early"]:  # type: ignore[index]
                break
            self._tick()

    @property
    def selection_used(self) -> int:
        """Selection samples drawn per dataset (the most any pair used, over its rounds)."""
        used = [0] * len(self.pairs)
        for rnd, cands, judged in zip(self.plan.rounds, self.cands, self.judged):
            for i, (cs, j) in enumerate(zip(cands, judged)):
                if cs is not None:
                    used[i] += rnd.held + (0 if j is None else rnd.judge.end(j["done"] // 2))
        return max(used, default=0)

    def _clear(self, cands: list[Candidate], counts: np.ndarray, m2: int) -> bool:
        """Would a candidate already certify a violation with as many samples as it was judged
        on, at the first look's level? Then judging more only delays the verdict. (Selection
        data never enter a bound, so any rule on them keeps certification valid.)"""
        a = self.levels[0] / (2 * self.cfg.max_certified)
        sc = Scorer(m2, m2, a, float(self.cfg.delta), shrink=JUDGE_SHRINK)
        fwd = np.array([c.forward for c in cands])
        num = np.where(fwd, counts[:, 0], counts[:, 1]).astype(float)
        den = np.where(fwd, counts[:, 1], counts[:, 0]).astype(float)
        return bool(np.max(sc(num, den)) > float(self.cfg.epsilon))

    def _early(self) -> bool:
        return any(j is not None and j.get("early") for rnd in self.judged for j in rnd)

    def _judged(self, r: int) -> list[Candidate]:
        """Round r's candidates re-scored on their judging counts, best rank first."""
        rnd = self.plan.rounds[r]
        scorer = Scorer(
            rnd.build.n, self.plan.certify.n, self.cfg.alpha_per_bound, float(self.cfg.delta)
        )
        out: list[Candidate] = []
        for cs, state in zip(self.cands[r], self.judged[r]):
            if cs and state is not None and state["done"] > 0:
                out += judge(cs, state["counts"], rnd.judge.end(state["done"] // 2), scorer)
        out.sort(key=lambda c: -c.rank)
        return out

    def _alive(self, r: int) -> list[int]:
        """The pairs in round r: all in the first; then the best judged of the round before
        (ties to the earlier pair), decided on selection data only."""
        if r == 0:
            return list(range(len(self.pairs)))
        best = dict.fromkeys(self._alive(r - 1), -math.inf)
        for c in self._judged(r - 1):
            best[c.pair_index] = max(best[c.pair_index], c.rank)
        ranked = sorted(best, key=lambda i: (-best[i], i))
        return sorted(ranked[: self.plan.rounds[r].alive])

    def _select(self) -> None:
        total = 2 * sum(rnd.alive * rnd.n for rnd in self.plan.rounds)
        bar = Progress(total, "selecting", enabled=self.cfg.progress)
        last = 0
        try:
            for r, rnd in enumerate(self.plan.rounds):
                if self._early():
                    break  # a clear violation: the rounds and pairs not judged yet are left out
                last = r
                for i in self._alive(r):
                    if self._early():
                        break
                    if self.cands[r][i] is None:
                        self._build(r, i, bar)
                    else:
                        bar.update(2 * rnd.held)
                    self._judge(r, i, bar)
        finally:
            bar.close()
        chosen = choose(self._judged(last), self.cfg.max_certified)
        with self._atomic():
            self.chosen = chosen
            self.cert = {
                "done": 0,
                "counts": np.zeros((len(chosen), 2), dtype=np.int64),
                "next_look": 0,
                "p": 1.0,
                "reported": None,
                "stop": None,
            }
        self.save()

    def _look(self, t: int) -> None:
        """Evaluate look ``next_look`` after ``t`` chunks per stream (see the schedule)."""
        cert, chosen = self.cert, self.chosen or []
        assert cert is not None
        idx = cert["next_look"]
        n = self.plan.certify.end(t)
        k = len(chosen)
        alpha = 1.0 - float(self.cfg.confidence)
        share = self.levels[idx] / alpha
        a = self.levels[idx] / (2 * max(k, 1))
        counts = cert["counts"]
        kn = np.array([counts[j, 0 if c.forward else 1] for j, c in enumerate(chosen)])
        kd = np.array([counts[j, 1 if c.forward else 0] for j, c in enumerate(chosen)])
        eps, delta = float(self.cfg.epsilon), float(self.cfg.delta)
        # with early stopping the audit ends at the first look that rejects, so the minimum
        # over the looks taken is its p-value; without, the reported look's p-value
        pv = min(
            (
                p_value(int(kn[j]), int(kd[j]), n, n, eps, delta, 2 * k, share=share)
                for j in range(k)
            ),
            default=1.0,
        )
        cert["p"] = min(cert["p"], pv) if self.cfg.early_stop else pv
        cert["reported"] = {"look": idx + 1, "samples": n, "level": a, "counts": counts.copy()}
        cert["next_look"] = idx + 1
        if idx + 1 == len(self.plan.looks):
            cert["stop"] = "complete"
        elif self.cfg.early_stop and k:
            bound = epsilon_bound(cp_lower(kn, n, a), cp_upper(kd, n, a), delta)
            if float(np.max(bound)) > eps:
                cert["stop"] = "violation"

    def _certify(self) -> None:
        cert, chosen = self.cert, self.chosen or []
        assert cert is not None
        plan = self.plan.certify
        pair_ids = sorted({c.pair_index for c in chosen})
        if not chosen:
            cert["stop"] = "complete"
            return
        per = 2 * len(pair_ids)
        rows = [[k for k, c in enumerate(chosen) if c.pair_index == i] for i in pair_ids]
        total = per * plan.count
        events = tuple(c.event for c in chosen)
        start = cert["done"]
        bar = Progress(per * plan.n, "certifying", enabled=self.cfg.progress)
        bar.update(per * plan.end(start // per))

        def task(g: int) -> Task:
            j, r = divmod(g, per)
            return self._task(CERTIFY, pair_ids[r // 2], r % 2, plan, j)

        try:
            tasks = (task(g) for g in range(start, total))
            results = self.runner.results(self.mech, events, self.datas, tasks)
            for g, (shape, counts) in enumerate(results, start):
                j, r = divmod(g, per)
                self._check(shape, pair_ids[r // 2], r % 2)
                with self._atomic():
                    for k in rows[r // 2]:
                        cert["counts"][k, r % 2] += counts[k]
                    cert["done"] = g + 1
                    if r == per - 1 and j + 1 == self.plan.looks[cert["next_look"]]:
                        self._look(j + 1)
                bar.update(plan.size(j))
                if cert["stop"] is not None:
                    break
                self._tick()
        finally:
            bar.close()

    def run(self) -> Outcome:
        """Go through the phases (skipping what the checkpoint holds); return the outcome."""
        self._say()
        stop = None
        try:
            with self._interrupts():
                if self.chosen is None:
                    self._select()
                if self.cert is not None and self.cert["stop"] is None:
                    self._certify()
        except _OutOfTime:
            stop = "max-time"
        self.save()
        return self._outcome(stop)

    def _simple(self, c: Candidate) -> Candidate | None:
        """:func:`simplest` among the judged events of the last round that judged c's pair."""
        for r in reversed(range(len(self.plan.rounds))):
            judged = [x for x in self._judged(r) if x.pair_index == c.pair_index]
            if judged:
                return simplest(judged, c)
        return None

    def _outcome(self, stop: str | None) -> Outcome:
        out = self._certified(stop)
        return replace(out, simple=[self._simple(c) for c in out.chosen])

    def _certified(self, stop: str | None) -> Outcome:
        chosen = self.chosen or []
        cert = self.cert or {}
        rep = cert.get("reported")
        if rep is None:  # nothing certified: no candidate event, or out of time before a look
            return Outcome(
                chosen,
                np.zeros((len(chosen), 2), dtype=np.int64),
                0,
                0.0,
                1.0,
                stop or cert.get("stop") or "max-time",
                0,
                len(self.plan.looks),
            )
        return Outcome(
            chosen,
            rep["counts"],
            int(rep["samples"]),
            float(rep["level"]),
            float(cert["p"]),
            stop or cert["stop"],
            int(rep["look"]),
            len(self.plan.looks),
        )

    def _say(self) -> None:
        """Print the projected time of a long run (a warning beyond an hour)."""
        if self.cfg.progress is False:
            return
        secs = self.plan.serial_seconds(self.probe.rate) / max(self.runner.workers, 1)
        show = self.cfg.progress or getattr(sys.stderr, "isatty", lambda: False)()
        if secs >= WARN_SECONDS or (show and secs >= SAY_SECONDS):
            warn = "warning: " if secs >= WARN_SECONDS else ""
            print(
                f"dpaudit: {warn}probe: {self.probe.rate:.3g} samples/s per worker; projected "
                f"{_duration(secs)} on {self.runner.workers} worker(s)"
                + ("; consider a time limit or fewer samples" if warn else ""),
                file=sys.stderr,
                flush=True,
            )


def _duration(secs: float) -> str:
    if not math.isfinite(secs):
        return "forever"
    for unit, size in (("days", 86400.0), ("h", 3600.0), ("min", 60.0)):
        if secs >= size:
            return f"{secs / size:.3g} {unit}"
    return f"{secs:.3g} s"
