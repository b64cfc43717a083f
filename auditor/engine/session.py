"""One audit run: build candidate events, judge them, certify the chosen ones, in chunks.

Phases, each drawn from streams of its own (so no sample is used twice):
1. *build*: a capped sample per dataset of each pair, held in memory; the event families
   propose candidates on it (:func:`auditor.engine.select.build`);
2. *judge*: the rest of the selection sample, streamed in chunks, counts every candidate; the
   best one or two are chosen (:func:`auditor.engine.select.judge`, :func:`choose`). For
   vectors it also tallies the pair's grid key (the naive-Bayes grid, or a flag grid), whose
   cells' candidates are then judged cross-fitted (:mod:`auditor.engine.crossfit`): built on
   each sample, counted on the other, and built on both for certification;
3. *certify*: fresh samples streamed in chunks count the chosen events; the counts are looked
   at on the schedule of :mod:`auditor.engine.schedule`, which also states why stopping early
   (a violation certified, a time limit) keeps every bound valid.

Memory does not grow with the sample count: only the build sample (capped) is ever held, and
key tallies hold at most MAX_KEYS values (fewer of a wide output: select.key_cap).
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
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from auditor.engine.adapter import ChangingOutputs, Mechanism
from auditor.engine.checkpoint import Checkpoint
from auditor.engine.choice import Outcome, Power, choose, partner, pooled_pairs, shares, simplest
from auditor.engine.crossfit import count_keys, crossfit
from auditor.engine.deadline import Deadline, OutOfTime, cut_at, hung_after
from auditor.engine.events import Difference
from auditor.engine.executors import CountTally, Runner, Tally, Task
from auditor.engine.pairs import Pair
from auditor.engine.plan import Plan, Probe, family_looks
from auditor.engine.progress import Progress
from auditor.engine.schedule import ChunkPlan, look_levels, looks
from auditor.engine.select import (
    CROSSED_FAMILIES,
    JUDGE_SHRINK,
    PER_FAMILY,
    Candidate,
    Scorer,
    VectorKeys,
    build,
    judge,
    local_tally,
    merge_tally,
    oriented,
    survivors,
    value_tails,
    vector_keys,
)
from auditor.engine.session_state import restore_session, session_state
from auditor.engine.stats import (
    JOINT_SHARE,
    P_FLOOR,
    cp_lower,
    cp_upper,
    p_value,
    prefix_mean,
    ratio_lower,
    ratio_p_value,
)
from proofs.errors import Terminated, raise_terminated

__all__ = ["Session"]

BUILD = 0
JUDGE = 1
CERTIFY = 2
KEYS = 4  # (3 seeds the event families' own randomness)
PREFIX = 5  # the Poisson prefix sizes of the certification streams (auditor.engine.stats)
ROUND_PHASES = 8  # round r > 0 of selection draws from phases 8r + BUILD, JUDGE, KEYS
WARN_SECONDS = 3600.0
SAY_SECONDS = 10.0

_END = object()


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
        deadline: Deadline,
    ):
        self.mech, self.pairs, self.cfg, self.plan, self.probe = mech, pairs, cfg, plan, pr
        self.runner, self.checkpoint = runner, checkpoint
        # the time limit: from the audit's start, or with a checkpoint (an audit run in
        # slices) from this slice's first chunk; it stops no slice before its state moved
        self.deadline = deadline
        self._moved = False  # this run changed the state it saves
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
        # per round, per pair: the tallies of the keys whose key-set candidates are
        # cross-fitted: "keys", which is the pair's grid, "grids" how its cells are ordered
        # (True: naive Bayes; the blocks of a flag grid), their tallies on the building
        # sample ("a") and on the judging sample so far ("b")
        self.folds: list[list[dict[str, Any] | None]] = [[None] * len(pairs) for _ in range(rounds)]
        self.chosen: list[Candidate] | None = None
        # per chosen event: the event of the other direction pooled with it in its joint
        # ratio bound (choice.partner), or None
        self.partners: list[Candidate | None] = []
        self.cert: dict[str, Any] | None = None
        self.levels = look_levels(len(plan.looks), 1.0 - float(cfg.confidence))
        # a pure point claim is certified by joint ratio bounds on Poisson prefixes too
        self.joint = cfg.profile is None and float(cfg.delta) == 0.0
        self._prefixes: dict[tuple[int, int], np.ndarray] = {}
        if checkpoint is not None and checkpoint.state:
            self._restore(checkpoint.state)

    # -- checkpoint ---------------------------------------------------------------------------

    def state(self) -> dict[str, Any]:
        return session_state(self)

    def _restore(self, st: dict[str, Any]) -> None:
        restore_session(self, st)

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
            self._moved = True
        finally:
            self._critical = False
        if self._pending:
            pending, self._pending = self._pending, False
            raise Terminated if pending == signal.SIGTERM else KeyboardInterrupt

    @contextlib.contextmanager
    def _interrupts(self):
        """Route SIGINT, and SIGTERM where the command line turns it into :class:`Terminated`,
        through :meth:`_atomic` while the audit runs (main thread only)."""
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        routed = {
            sig: old
            for sig, old, ours in (
                (signal.SIGINT, signal.getsignal(signal.SIGINT), signal.default_int_handler),
                (signal.SIGTERM, signal.getsignal(signal.SIGTERM), raise_terminated),
            )
            if old is ours
        }

        def handler(signum, frame):
            if self._critical:  # (a SIGTERM pending stays so: it ends with 143)
                if self._pending != signal.SIGTERM:
                    self._pending = signum
            else:
                raise Terminated if signum == signal.SIGTERM else KeyboardInterrupt

        for sig in routed:
            signal.signal(sig, handler)
        try:
            yield
        finally:
            for sig, old in routed.items():
                signal.signal(sig, old)

    def _tick(self) -> None:
        self.save(force=False)
        # (with a checkpoint, not before the state moved: a slice ended earlier would lose
        # its work, as the held outputs of a selection round, and the next slice the same)
        if self.deadline.passed() and (self.checkpoint is None or self._moved):
            raise OutOfTime

    # -- chunks -------------------------------------------------------------------------------

    def _results(self, events: Any, tasks: Iterable[Task]) -> Iterator[Any]:
        """The runner's results of ``tasks``, each awaited under the time limit (cut when it
        passes: the chunk is then discarded whole, and nothing of ours is cut). With a
        checkpoint, chunks run whole unless they hang (hung_after) until the slice has changed
        the state it saves, so that every slice makes progress whatever its limit."""
        results = self.runner.results(self.mech, events, self.datas, tasks)
        try:
            while True:
                when = self.deadline.at
                if when is not None and self.checkpoint is not None and not self._moved:
                    when = max(when, hung_after(0.0, self.plan.certify.cap, self.probe.rate))
                if when is not None and time.perf_counter() >= when:
                    raise OutOfTime  # (between chunks: those under way finish as they are)
                got = cut_at(when, next, results, _END)
                if got is _END:
                    return
                yield got
        finally:
            results.close()  # (a pool's chunks still pending are cancelled)

    def _task(self, phase: int, pair: int, side: int, plan: ChunkPlan, j: int) -> Task:
        return Task(2 * pair + side, self.entropy, (phase, pair, side), j, plan.size(j))

    def _scorer(self, m: int) -> Scorer:
        """Predictions from a selection sample of ``m``, for the certification sample."""
        return Scorer(
            m, self.plan.certify.n, self.cfg.alpha_per_bound, self.cfg.claim, joint=self.joint
        )

    @staticmethod
    def _phase(phase: int, r: int) -> int:
        """Stream id of a selection phase in round r (round 0 keeps the plain ids)."""
        return phase + ROUND_PHASES * r if r else phase

    def _check(self, shape: tuple[str, tuple[int, ...]], pair: int, side: int) -> None:
        # integers and reals are one kind of number: a mechanism whose rare outputs are
        # fractions has chunks of integers only (every event compares values, not types)
        numbers = ("real", "discrete")
        if shape[1] == self.probe.tail and shape[0] in numbers and self.probe.kind in numbers:
            return
        if shape != (self.probe.kind, self.probe.tail):
            p = self.pairs[pair]
            raise ChangingOutputs(
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
        for g, (shape, y) in enumerate(self._results(None, tasks)):
            self._check(shape, i, g % 2)
            parts[g % 2].append(y)
            bar.update(len(y))
            self._tick()
        ya, yb = np.concatenate(parts[0]), np.concatenate(parts[1])
        del parts
        keys = None
        if self.probe.kind == "vector":
            keys = vector_keys(ya, yb, set(self.cfg.families))
        tallies = self._tally(r, i, ya, yb, bar, keys)
        scorer = self._scorer(plan.n)
        found = build(
            self.probe.kind,
            ya,
            yb,
            scorer,
            self.misc_seed,
            self.cfg.families,
            tallies=tallies,
            keys=keys,
        )
        folds = None
        if keys is not None:
            # a grid's cells and a histogram's monotone order are cross-fitted (the families
            # CROSSED_FAMILIES): their orders pool many cells, so they are stable on half the
            # outputs. The monotone histogram's raised SVT3's expected bound at 1e6 from 0.120
            # to 0.129 (seeds 2026-2031; none lower by more than 0.001; NumericalSVT the
            # same). The atoms' and the plain histogram's own-count orders are not: with them,
            # SVT1 at 1e6 (seed 2026) certified the wrong pair's common pattern, expected
            # bound 0.033 against 0.053, its few rare patterns' order being unstable on half
            # the outputs
            fold_a = [
                (k, g, (tallies or {}).get(k) or local_tally(k, ya, yb))
                for k, g in keys.ordered()
                if g or k.edges is not None
            ]
            fold_a = [x for x in fold_a if not x[2].overflow]
            if fold_a:
                folds = {
                    "keys": tuple(k for k, _, _ in fold_a),
                    "grids": tuple(g for _, g, _ in fold_a),
                    "a": [t for _, _, t in fold_a],
                    "b": [None] * len(fold_a),
                }
        with self._atomic():
            self.folds[r][i] = folds
            self.cands[r][i] = [replace(c, pair_index=i) for c in found]
            self.judged[r][i] = {
                "done": 0,
                "counts": np.zeros((len(found), 2), dtype=np.int64),
                "early": False,
                "alive": np.ones(len(found), dtype=bool),
            }
        self.save(force=False)

    def _tally(
        self,
        r: int,
        i: int,
        ya: np.ndarray,
        yb: np.ndarray,
        bar: Progress,
        fixed: VectorKeys | None,
    ) -> dict | None:
        """Key values counted on the held outputs and on a larger streamed sample (vectors):
        likelihood-ordered key sets need many outputs, which need not be held."""
        plan = self.plan.rounds[r].keys
        keys = fixed.all() if fixed is not None and plan.n else []
        if not keys:
            return None
        tallies = {k: local_tally(k, ya, yb) for k in keys}
        phase = self._phase(KEYS, r)
        tasks = [self._task(phase, i, s, plan, j) for j in range(plan.count) for s in (0, 1)]
        work = Tally(tuple(keys))
        for g, (shape, parts) in enumerate(self._results(work, tasks)):
            self._check(shape, i, g % 2)
            size = plan.size(g // 2)
            for k, part in zip(keys, parts):
                tallies[k] = merge_tally(tallies[k], part, g % 2, size)
            bar.update(size)
            self._tick()
        return tallies

    def _judge(self, r: int, i: int, bar: Progress) -> None:
        """Count round r's candidates of pair i on the judging stream. At the family looks
        (:func:`auditor.engine.plan.family_looks`) candidates clearly behind stop being counted
        (:func:`auditor.engine.select.survivors`); the stream is drawn in segments between
        looks so that workers count only what is still alive."""
        plan, state = self.plan.rounds[r].judge, self.judged[r][i]
        cands = self.cands[r][i] or []
        folds = self.folds[r][i]
        total = 2 * plan.count
        if not cands or state["early"] or state["done"] >= total:  # type: ignore[index]
            if not cands:
                state["done"] = total  # type: ignore[index]
            return
        bar.update(plan.end(state["done"] // 2) * 2)  # type: ignore[index]
        phase = self._phase(JUDGE, r)
        stops = set(looks(plan, True)) if self.cfg.early_stop else set()
        screens = family_looks(plan)
        scorer = self._scorer(self.plan.rounds[r].build.n)
        while state["done"] < total and not state["early"]:  # type: ignore[index]
            start = state["done"]  # type: ignore[index]
            end = 2 * next((t for t in screens if 2 * t > start), plan.count)
            alive = np.flatnonzero(state["alive"])  # type: ignore[index]
            live = [cands[k] for k in alive]
            events: Any = tuple(c.event for c in live)
            if folds is not None:  # the judging sample is tallied too, for cross-fitting
                events = CountTally(events, folds["keys"])
            tasks = (self._task(phase, i, g % 2, plan, g // 2) for g in range(start, end))
            for g, (shape, got) in enumerate(self._results(events, tasks), start):
                self._check(shape, i, g % 2)
                counts, parts = got if folds is not None else (got, None)
                with self._atomic():  # the count, the progress and the rules on them together
                    state["counts"][alive, g % 2] += counts  # type: ignore[index]
                    if parts is not None:
                        size = plan.size(g // 2)
                        folds["b"] = [  # type: ignore[index]
                            merge_tally(t, part, g % 2, size)
                            for t, part in zip(folds["b"], parts)  # type: ignore[index]
                        ]
                    state["done"] = g + 1  # type: ignore[index]
                    t = (g + 1) // 2
                    if g % 2 and t in stops:
                        state["early"] = self._clear(  # type: ignore[index]
                            live, state["counts"][alive], plan.end(t)
                        )
                    if g + 1 == end and end < total and not state["early"]:
                        keep = survivors(live, state["counts"][alive], plan.end(t), scorer)
                        state["alive"][alive[~keep]] = False  # type: ignore[index]
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
        sc = Scorer(m2, m2, a, self.cfg.claim, shrink=JUDGE_SHRINK, joint=self.joint)
        own = ~value_tails(cands)  # value tails count through their model only (select.judge)
        own &= np.array([not c.unseen for c in cands], dtype=bool)  # (joins on a tenth only)
        if not own.any():
            return False
        scores = np.asarray(sc(*oriented(cands, counts)), dtype=float)
        return bool(np.max(scores[own]) > self.cfg.claim.threshold)

    def _early(self) -> bool:
        return any(j is not None and j.get("early") for rnd in self.judged for j in rnd)

    def _judged(self, r: int) -> list[Candidate]:
        """Round r's candidates re-scored on their judging counts, best rank first. Key-set
        candidates whose key's tallies are at hand (the naive-Bayes grid's) are replaced by
        their cross-fitted versions (:mod:`auditor.engine.crossfit`), judged on the building
        and judging samples both.

        The rule against lucky rare candidates (:func:`auditor.engine.select.flukes`) counts
        the rivals of every pair: the choice takes the best over all of them. Counted per
        pair, a rare tail of a naive-Bayes score of NumericalSVT at 1e7 (seed 2026) passed
        among its pair's 122 candidates on judging counts of 61 against 25, its true
        probabilities 8.5e-5 and 8.1e-5, and was certified (0.0118 against 0.0471 before the
        score's columns were pruned); among the round's 1,097 it is a fluke."""
        rnd = self.plan.rounds[r]
        scorer = self._scorer(rnd.build.n)
        groups = []
        for i, (cs, state) in enumerate(zip(self.cands[r], self.judged[r])):
            if cs and state is not None and state["done"] > 0:
                alive = np.flatnonzero(state["alive"])  # those dropped were counted on fewer
                xc, xcounts, xm, crossed = self._crossfit(r, i, scorer)
                rest = [
                    k
                    for k in alive
                    if not (
                        cs[k].family in CROSSED_FAMILIES
                        and getattr(cs[k].event, "key", None) in crossed
                    )
                ]
                groups.append((i, cs, state, rest, xc, xcounts, xm))
        # (a group's value tails are judged through their model, not counted as rivals)
        tails = {i: int(value_tails([cs[k] for k in rest]).sum()) for i, cs, _, rest, *_ in groups}
        everyone = sum(len(rest) + len(xc) - tails[i] for i, _, _, rest, xc, *_ in groups)
        out: list[Candidate] = []
        for i, cs, state, rest, xc, xcounts, xm in groups:
            m2 = rnd.judge.end(state["done"] // 2)
            rivals = everyone + tails[i]
            out += judge([cs[k] for k in rest], state["counts"][rest], m2, scorer, rivals)
            if xc:
                xc = [replace(c, pair_index=i) for c in xc]
                # their counts value the recipe built on the other half, not the event
                # certified (auditor.engine.crossfit): no probabilities to judge power by
                out += [
                    replace(c, share=(math.nan, math.nan))
                    for c in judge(xc, xcounts, xm, scorer, rivals)
                ]
        out.sort(key=lambda c: -c.rank)
        return out

    def _owned(self, r: int, i: int, cands: list[Candidate]) -> list[Candidate]:
        """Cross-fitted key-set candidates with their own (numerator, denominator)
        probabilities on pair i's judging sample, from that sample's tally of their key
        (:attr:`Candidate.own`)."""
        folds = self.folds[r][i]
        m2 = max(self.plan.rounds[r].judge.end(self.judged[r][i]["done"] // 2), 1)
        tallies = dict(zip(folds["keys"], folds["b"]))
        counts = np.array([count_keys(c.event, tallies[c.event.key]) for c in cands])
        num, den = oriented(cands, counts)
        return [replace(c, own=(float(a) / m2, float(b) / m2)) for c, a, b in zip(cands, num, den)]

    def _crossfit(self, r: int, i: int, scorer: Scorer) -> tuple:
        """Pair i's cross-fitted key-set candidates in round r (:func:`crossfit`), once its
        judging sample has as many outputs of both datasets; none before."""
        folds, state = self.folds[r][i], self.judged[r][i]
        none = ([], np.zeros((0, 2), dtype=np.int64), 0, [])
        if folds is None or state is None or state["done"] % 2 or None in folds["b"]:
            return none
        cached = folds.get("crossed")
        if cached is None or cached[0] != state["done"]:
            found = crossfit(
                list(folds["keys"]),
                folds["a"],
                folds["b"],
                scorer,
                4 * PER_FAMILY,
                list(folds["grids"]),
                CROSSED_FAMILIES,
            )
            found = (self._owned(r, i, found[0]), *found[1:])
            folds["crossed"] = cached = (state["done"], found)
        return cached[1]

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
        cfg = self.cfg
        # each event's power as the verdict will judge it, one event certified at the last
        # look (a pure claim: its split bounds' share of the level, and the joint bound's)
        end = float(self.levels[-1])
        split, joint = (1.0 - JOINT_SHARE, end * JOINT_SHARE) if self.joint else (1.0, None)
        power = Power(
            self.plan.certify.n, end * split / 2, cfg.claim, cfg.inconclusive_factor, joint
        )
        judged = self._judged(last)
        chosen = choose(judged, self.cfg.max_certified, power)
        partners: list[Candidate | None] = [None] * len(chosen)
        if self.joint and chosen:
            # (each joint bound's level at the last look, where the most samples are)
            level = self.levels[-1] * JOINT_SHARE / len(chosen) * shares(chosen)
            partners = [
                partner(c, judged, self.plan.certify.n, float(v)) for c, v in zip(chosen, level)
            ]
            chosen, partners = pooled_pairs(chosen, partners, judged, self.plan.certify.n, level)
        with self._atomic():
            self.chosen, self.partners = chosen, partners
            rows = len(self._counted())
            self.cert = {
                "done": 0,
                "counts": np.zeros((rows, 2), dtype=np.int64),
                "prefix": np.zeros((len(self.plan.looks), rows, 2), dtype=np.int64),
                "next_look": 0,
                "p": 1.0,
                "reported": None,
                "stop": None,
            }
        self.save()

    def _look(self, t: int) -> None:
        """Evaluate look ``next_look`` after ``t`` chunks per stream (see the schedule). A pure
        claim spends JOINT_SHARE of the look's level on the joint ratio bounds of the Poisson
        prefixes and the rest on the split bounds (which also give the witness's probability
        bounds and the delta needed); the union bound covers both."""
        cert, chosen = self.cert, self.chosen or []
        assert cert is not None
        idx = cert["next_look"]
        n = self.plan.certify.end(t)
        k = len(chosen)
        alpha = 1.0 - float(self.cfg.confidence)
        share = self.levels[idx] / alpha
        split = 1.0 - JOINT_SHARE if self.joint else 1.0
        a = self.levels[idx] * split / (2 * max(k, 1))
        each = shares(chosen)  # event j's bounds at level a * each[j]
        counts = cert["counts"]
        kn = np.array([counts[j, 0 if c.forward else 1] for j, c in enumerate(chosen)])
        kd = np.array([counts[j, 1 if c.forward else 0] for j, c in enumerate(chosen)])
        claim = self.cfg.claim
        # with early stopping the audit ends at the first look that rejects, so the minimum
        # over the looks taken is its p-value; without, the reported look's p-value
        pv = min(
            (
                p_value(int(kn[j]), int(kd[j]), n, n, claim, 2 * k / each[j], share=share * split)
                for j in range(k)
            ),
            default=1.0,
        )
        joint = self._joint(idx, cert["prefix"][idx], n) if self.joint and k else None
        if joint is not None:
            x, y = joint["counts"][:, 0], joint["counts"][:, 1]
            pj = np.where(joint["valid"], ratio_p_value(x, y, claim.epsilon), 1.0) / each
            joint_p = max(float(np.min(pj)) * k / (share * JOINT_SHARE), P_FLOOR)  # (underflow)
            pv = min(pv, joint_p, 1.0)
        cert["p"] = min(cert["p"], pv) if self.cfg.early_stop else pv
        cert["reported"] = {
            "look": idx + 1,
            "samples": n,
            "level": a,
            "counts": counts.copy(),
            "prefix": cert["prefix"][idx].copy(),
        }
        cert["next_look"] = idx + 1
        if idx + 1 == len(self.plan.looks):
            cert["stop"] = "complete"
        elif self.cfg.early_stop and k:
            bound = claim.statistic(cp_lower(kn, n, a * each), cp_upper(kd, n, a * each))
            if joint is not None:
                bound = np.maximum(bound, joint["statistic"])
            if float(np.max(bound)) > claim.threshold:
                cert["stop"] = "violation"

    def _joint(self, idx: int, prefix: np.ndarray, n: int) -> dict[str, Any]:
        """The joint ratio bounds at look ``idx`` (``n`` samples per stream) from the chosen
        events' prefix counts (K, 2): per event its (numerator, denominator) counts and prefix
        sizes, whether both prefixes fit in the samples drawn, the level, the statistic."""
        chosen = self.chosen or []
        k = len(chosen)
        level = self.levels[idx] * JOINT_SHARE / max(k, 1)
        counts = np.zeros((k, 2), dtype=np.int64)
        sizes = np.zeros((k, 2), dtype=np.int64)
        pooled: dict[int, Any] = {}
        for j, c in enumerate(chosen):
            num, den = (0, 1) if c.forward else (1, 0)
            counts[j] = [prefix[j, num], prefix[j, den]]
            sizes[j] = [self.prefix_sizes(c.pair_index, s)[idx] for s in (num, den)]
            rows = self._pool_rows().get(j)
            if rows is not None:  # (stats: pooled) c's event without its partner's, and back
                own, other = prefix[rows[0]], prefix[rows[1]]
                counts[j] = [own[num] + other[den], own[den] + other[num]]
                pooled[j] = {
                    "partner": self.partners[j],
                    "own": [int(own[num]), int(own[den])],
                    "partner_own": [int(other[den]), int(other[num])],
                }
        valid = (sizes <= n).all(axis=1)
        # (``level`` is an even split's; event j's is level * shares[j])
        each = level * shares(chosen)
        stat = np.where(valid, ratio_lower(counts[:, 0], counts[:, 1], each), -np.inf)
        return {
            "counts": counts,
            "sizes": sizes,
            "valid": valid,
            "level": level,
            "statistic": stat,
            "pooled": pooled,
        }

    def _pool_rows(self) -> dict[int, tuple[int, int]]:
        """Chosen event j pooled with its partner -> the rows counting (its event without the
        partner's, the partner's without its), after the K chosen events' own rows."""
        rows, k = {}, len(self.chosen or [])
        for j, d in enumerate(self.partners):
            if d is not None:
                rows[j] = (k, k + 1)
                k += 2
        return rows

    def _counted(self) -> list[Any]:
        """The events certification counts: the chosen ones, then each pooled pair's two
        differences (:meth:`_pool_rows`)."""
        chosen = self.chosen or []
        out: list[Any] = [c.event for c in chosen]
        for j, d in enumerate(self.partners):
            if d is not None:
                out += [Difference(chosen[j].event, d.event), Difference(d.event, chosen[j].event)]
        return out

    def _row_pair(self, row: int) -> int:
        """The pair whose streams count certification row ``row``."""
        chosen = self.chosen or []
        for j, rows in self._pool_rows().items():
            if row in rows:
                return chosen[j].pair_index
        return chosen[row].pair_index

    def _certify(self) -> None:
        cert, chosen = self.cert, self.chosen or []
        assert cert is not None
        plan = self.plan.certify
        pair_ids = sorted({c.pair_index for c in chosen})
        if not chosen:
            cert["stop"] = "complete"
            return
        per = 2 * len(pair_ids)
        counted = self._counted()
        rows = [[k for k in range(len(counted)) if self._row_pair(k) == i] for i in pair_ids]
        total = per * plan.count
        events = tuple(counted)
        start = cert["done"]
        bar = Progress(per * plan.n, "certifying", enabled=self.cfg.progress)
        bar.update(per * plan.end(start // per))

        def task(g: int) -> Task:
            j, r = divmod(g, per)
            t = self._task(CERTIFY, pair_ids[r // 2], r % 2, plan, j)
            if not self.joint:
                return t
            return replace(t, cuts=tuple(self._cuts(pair_ids[r // 2], r % 2, j)))

        try:
            tasks = (task(g) for g in range(start, total))
            results = self._results(events, tasks)
            for g, (shape, got) in enumerate(results, start):
                j, r = divmod(g, per)
                self._check(shape, pair_ids[r // 2], r % 2)
                counts, parts = got if isinstance(got, tuple) else (got, None)
                with self._atomic():
                    for k in rows[r // 2]:
                        cert["counts"][k, r % 2] += counts[k]
                    if self.joint:
                        self._add_prefix(pair_ids[r // 2], r % 2, j, rows[r // 2], counts, parts)
                    cert["done"] = g + 1
                    if r == per - 1 and j + 1 == self.plan.looks[cert["next_look"]]:
                        self._look(j + 1)
                bar.update(plan.size(j))
                if cert["stop"] is not None:
                    break
                self._tick()
        finally:
            bar.close()

    def prefix_sizes(self, pair: int, side: int) -> np.ndarray:
        """The Poisson prefix of each look on the certification stream of (pair, side): a
        Poisson process at the looks' means (:func:`~auditor.engine.stats.prefix_mean`), drawn
        from a stream of its own (fixed by the seed, independent of every sample)."""
        got = self._prefixes.get((pair, side))
        if got is None:
            gen = np.random.default_rng(
                np.random.SeedSequence(self.entropy, spawn_key=(PREFIX, pair, side))
            )
            means = [prefix_mean(self.plan.certify.end(t)) for t in self.plan.looks]
            steps = np.diff(np.maximum.accumulate([0.0, *means]))
            got = self._prefixes[(pair, side)] = np.cumsum(gen.poisson(steps))
        return got

    def _cuts(self, pair: int, side: int, j: int) -> list[int]:
        """Offsets in chunk j of (pair, side) where a look's prefix ends inside the chunk."""
        start_j, end_j = self.plan.certify.end(j), self.plan.certify.end(j + 1)
        sizes = self.prefix_sizes(pair, side)
        return sorted({int(x) - start_j for x in sizes if start_j < x < end_j})

    def _add_prefix(
        self, pair: int, side: int, j: int, rows: list[int], counts: np.ndarray, parts: Any
    ) -> None:
        """Add chunk j's counts to each look's prefix that holds the chunk (its rows before the
        cut where the prefix ends inside it)."""
        plan, prefix = self.plan.certify, self.cert["prefix"]  # type: ignore[index]
        start_j, end_j = plan.end(j), plan.end(j + 1)
        cuts = self._cuts(pair, side, j)
        for look, size in enumerate(self.prefix_sizes(pair, side)):
            if size >= end_j:
                part = counts
            elif size > start_j:
                part = parts[cuts.index(int(size) - start_j)]
            else:
                continue
            for k in rows:
                prefix[look, k, side] += part[k]

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
        except OutOfTime:
            if self.cert is None or self.cert["stop"] is None:  # (not once the last look is in)
                stop = "max-time"
            # stop the workers still drawing (a hung call among them would keep the process
            # from exiting); nothing to stop in this process
            self.runner.abort()
        self.save()
        return self._outcome(stop)

    def ended(self) -> Outcome:
        """The outcome when the time limit ended the audit before this run drew anything (the
        checkpoint's state, if any, as it is)."""
        done = self.cert is not None and self.cert["stop"] is not None
        return self._outcome(None if done else "max-time")

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
        joint = None
        if self.joint and chosen:
            joint = self._joint(int(rep["look"]) - 1, rep["prefix"], int(rep["samples"]))
        return Outcome(
            chosen,
            rep["counts"][: len(chosen)],
            int(rep["samples"]),
            float(rep["level"]),
            float(cert["p"]),
            stop or cert["stop"],
            int(rep["look"]),
            len(self.plan.looks),
            joint=joint,
        )

    def _say(self) -> None:
        """Print the projected time of a long run (a warning beyond an hour)."""
        if self.cfg.progress is False:
            return
        secs = self.plan.serial_seconds(self.probe.rate) / max(self.runner.workers, 1)
        show = self.cfg.progress or getattr(sys.stderr, "isatty", lambda: False)()
        if secs >= WARN_SECONDS or (show and secs >= SAY_SECONDS):
            warn = "warning: " if secs >= WARN_SECONDS else ""
            limit = self.cfg.max_time
            advice = (
                f"; the time limit ({_duration(limit)}) will end it first"
                if limit is not None and limit < secs
                else "; consider a time limit or fewer samples"
                if warn and limit is None
                else ""
            )
            print(
                f"dpaudit: {warn}probe: {self.probe.rate:.3g} samples/s per worker; projected "
                f"{_duration(secs)} on {self.runner.workers} worker(s)" + advice,
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
