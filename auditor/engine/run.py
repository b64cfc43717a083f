"""The audit: select events on one sample, certify them on fresh samples.

Soundness argument. Selection uses generators spawned from the seed that certification never
touches, so the certified events are fixed before the certification samples exist; so is their
number K (1, or 2 when the plain and the conservative predictions disagree). For each of
the ``K`` certified events we compute two one-sided Clopper-Pearson bounds at level
``a = alpha_l / (2K)`` at each look ``l`` of the schedule declared in
:mod:`auditor.engine.schedule`; by the union bound all of them hold simultaneously with
probability at least ``confidence``, and then every reported quantity (the max over events of
``ln((p_lo - delta) / p_hi)`` and of ``p_lo - e^eps p_hi``) is a valid bound, at whichever look
the audit stopped. The phases and the executors are in :mod:`auditor.engine.session` and
:mod:`auditor.engine.executors`.
"""

from __future__ import annotations

import hashlib
import math
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from auditor.engine.adapter import (
    Mechanism,
    as_mechanism,
    copies_repeat,
    moves_beyond_stream,
    pickled_by_reference,
    processes_repeat,
)
from auditor.engine.checkpoint import Checkpoint
from auditor.engine.choice import EPSILON_FLOOR, Outcome, conclusive, power_of
from auditor.engine.claims import as_profile, profile_report
from auditor.engine.config import AuditConfig, check_number, validate
from auditor.engine.deadline import Deadline, OutOfTime, cut_at, hung_after
from auditor.engine.events import event_state, event_to_dict
from auditor.engine.executors import Runner, open_runner
from auditor.engine.pairs import (
    RECORDS,
    Pair,
    check_pair,
    check_records,
    check_size,
    generate_pairs,
    normalise_relation,
    same_dataset,
)
from auditor.engine.plan import Plan, probe
from auditor.engine.result import SIZED_NOTE, AuditResult, Witness
from auditor.engine.select import FAMILIES, Candidate
from auditor.engine.session import Session
from auditor.engine.stats import cp_lower, cp_upper, delta_bound, epsilon_bound
from proofs.errors import InputError
from proofs.io import exits_guarded

__all__ = ["audit"]

PAIR_SEARCHES = ("patterns", "hypothesis")
SEMANTICS = ("float", "ideal")


def _as_pairs(
    pairs: Iterable[Any] | None,
    relation: str | None,
    sensitivity: float,
    size: int,
    seed: int,
    search: str = "patterns",
    mechanism: Any = None,
    records: Any = None,
    until: float | None = None,
) -> tuple[list[Pair], list[str]]:
    """The pairs to audit, and notes on them (a search cut at ``until``): the caller's,
    checked, or generated under ``relation`` (by ``search``: :func:`_searched_pairs`)."""
    rel = normalise_relation(relation)
    sens = check_number("sensitivity", sensitivity)
    if rel == "sensitivity" and not (0 < sens < math.inf):
        raise InputError(f"sensitivity={sensitivity!r} must be a finite number > 0, e.g. 1.")
    if search not in PAIR_SEARCHES:
        raise InputError(
            f"pair_search={search!r} is unknown; use one of {', '.join(PAIR_SEARCHES)}."
        )
    if pairs is None:
        if relation is None:
            raise InputError(
                "no neighbouring pair given; give pairs [(A, B), ...] or a neighbouring relation."
            )
        check_size(size)
        span = check_records(records, rel)
        if search == "hypothesis":
            return _searched_pairs(mechanism, rel, sensitivity, size, seed, span, until)
        pairs = generate_pairs(rel, size=size, sensitivity=sensitivity, seed=seed, records=span)
        return pairs, []
    if records is not None:
        raise InputError(
            f"records={records!r} sets the records of generated datasets; with pairs of your "
            "own, leave it out."
        )
    if isinstance(pairs, (str, bytes)) or not isinstance(pairs, Iterable):
        raise InputError(
            f"pairs={pairs!r} is not a list of neighbouring pairs; give [(A, B), ...]."
        )
    if isinstance(pairs, tuple) and len(pairs) == 2 and not any(isinstance(p, Pair) for p in pairs):
        # ([1, 2], [1, 3]) read as two pairs, 1 vs 2 and 1 vs 3, audited a pair never meant
        import reprlib

        raise InputError(
            f"pairs={reprlib.repr(pairs)} is a tuple of two: one pair (A, B) or two pairs? "
            "Pass a list: [(A, B)] for one pair, [(A1, B1), (A2, B2)] for two."
        )
    out = []
    for p in pairs:
        pair = p if isinstance(p, Pair) else _tuple_pair(p)
        for side, data in (("A", pair.a), ("B", pair.b)):
            if not _finite_data(data):
                raise InputError(
                    f"pair {pair.label!r} dataset {side}={pair.to_dict()[side.lower()]!r} holds "
                    "NaN or infinity; give finite numbers."
                )
        check_pair(pair, rel, sensitivity)
        out.append(pair)
    if not out:
        raise InputError("pairs=[] is empty; pass at least one neighbouring pair (A, B).")
    if all(same_dataset(p) for p in out):  # (one among others only costs its share of selection)
        raise InputError(
            f"pair {out[0].label!r}: A and B are the same dataset ({out[0].to_dict()['a']!r}); "
            "no event tells a dataset from itself, so the audit could find nothing; give two "
            "datasets that differ."
        )
    return out, []


def _finite_data(x: Any) -> bool:
    """No NaN or infinity anywhere in a dataset (numbers, lists, dicts, arrays)."""
    if isinstance(x, np.ndarray):
        return x.dtype.kind not in "fc" or bool(np.all(np.isfinite(x)))
    if isinstance(x, (float, np.floating)):
        return math.isfinite(x)
    if isinstance(x, (list, tuple)):
        return all(_finite_data(v) for v in x)
    if isinstance(x, dict):
        return all(_finite_data(v) for v in x.values())
    return True


SEARCHED_RECORDS = (-2.0, 2.0)  # a --search hypothesis record's default range (32-bit floats)


def _searched_pairs(
    mechanism: Any,
    rel: str,
    sensitivity: float,
    size: int,
    seed: int,
    records: tuple[float, float] | None = None,
    until: float | None = None,
) -> tuple[list[Pair], list[str]]:
    """Hypothesis-driven search (`hypothesis.target` on the estimated loss), with the
    pattern pairs as a floor so the search can only add candidates. Records are 32-bit floats
    in SEARCHED_RECORDS, or doubles in ``records``. The search ends at ``until`` with what it
    has found; the notes then say so (and that the audit is not reproducible)."""
    from hypothesis import strategies as st

    from auditor.testing.strategies import searched

    if rel == "any":
        raise InputError(
            "pair_search='hypothesis' needs --relation (relation=) add-remove, replace-one or "
            "sensitivity."
        )
    if rel == "sensitivity":
        elements = None
    elif records is None:
        elements = st.floats(*SEARCHED_RECORDS, allow_nan=False, width=32)
    else:
        elements = st.floats(*records, allow_nan=False)
    search = searched(
        mechanism,
        rel,
        elements,
        # answers to a fixed set of queries keep their number (a mechanism answering each one
        # outputs as many values: pairs of 2 and of 4 answers were blamed on it); records vary
        min_size=size if rel == "sensitivity" else max(1, size - 2),
        max_size=size,
        sensitivity=sensitivity,
        seed=seed,
        until=until,
    )
    for p in search.pairs:
        check_pair(p, rel, sensitivity)
    floor = generate_pairs(rel, size=size, sensitivity=sensitivity, seed=seed, records=records)
    pairs = search.pairs + floor[:3]
    if not search.cut:
        return pairs, []
    return pairs, [
        "not reproducible as asked: the time limit ended the pair search after "
        f"{search.tried} of its {search.max_examples} pairs (its share, {SEARCH_SHARE:.0%}, "
        "of the limit), so which pairs were found depends on this machine's speed; "
        + ("the best it found and " if search.pairs else "")
        + "three pattern pairs were audited"
    ]


def _tuple_pair(p: Any) -> Pair:
    if isinstance(p, (tuple, list)) and len(p) == 2:
        return Pair(p[0], p[1])
    raise InputError(f"pair {p!r} is not a 2-tuple (A, B); pass pairs=[(A, B), ...].")


def _witness(c: Candidate, pair: Pair, counts: np.ndarray, n: int, lo: float, hi: float) -> Witness:
    num, den = (0, 1) if c.forward else (1, 0)
    return Witness(
        pair=pair.to_dict(),
        event=c.event.describe(),
        event_spec=event_to_dict(c.event),
        numerator="a" if c.forward else "b",
        count_numerator=int(counts[num]),
        count_denominator=int(counts[den]),
        certification_samples=n,
        p_lower=lo,
        p_upper=hi,
        selection_prediction=c.predicted,
        event_state=event_state(c.event),
    )


def _ratio(joint: dict, k: int, level: float) -> dict[str, Any]:
    """Event k's joint ratio bound for the witness (auditor.engine.session.Session._joint),
    certified at ``level`` (:meth:`Outcome.joint_levels`)."""
    value = float(joint["statistic"][k])
    out = {
        "count_numerator": int(joint["counts"][k, 0]),
        "count_denominator": int(joint["counts"][k, 1]),
        "samples_numerator": int(joint["sizes"][k, 0]),
        "samples_denominator": int(joint["sizes"][k, 1]),
        "level": level,
        "epsilon_lower_bound": value if math.isfinite(value) else None,
    }
    pooled = (joint.get("pooled") or {}).get(k)
    if pooled is not None:
        d = pooled["partner"]
        out["pooled"] = {
            "partner_event": d.event.describe(),
            "partner_event_spec": event_to_dict(d.event),
            "partner_event_state": event_state(d.event),
            "counts_event_only": pooled["own"],
            "counts_partner_only": pooled["partner_own"],
        }
    return out


STOPS = {
    "complete": "all certification samples drawn",
    "violation": "stopped early: a violation was certified",
    "max-time": "stopped by the time limit: the result uses the samples up to the last look",
}


def _conclude(
    mech: Mechanism,
    pairs: Sequence[Pair],
    out: Outcome,
    cfg: AuditConfig,
    selection: int,
    t0: float,
    notes: Sequence[str] = (),
    seeded: bool = True,
    distinct: int = 0,
    single: bool = False,
) -> AuditResult:
    chosen, counts, n, a = out.chosen, out.counts, out.samples, out.levels()
    eps, delta, claim = float(cfg.epsilon), float(cfg.delta), cfg.claim
    best, eps_lb, d_lb, witness, stat = -1, 0.0, 0.0, None, np.zeros(0)
    kn = np.array([counts[k, 0 if c.forward else 1] for k, c in enumerate(chosen)], dtype=int)
    kd = np.array([counts[k, 1 if c.forward else 0] for k, c in enumerate(chosen)], dtype=int)
    lo = hi = np.zeros(0)
    joint, joint_levels = out.joint, out.joint_levels()
    if chosen and n > 0:
        lo, hi = cp_lower(kn, n, a), cp_upper(kd, n, a)
        stat = claim.statistic(lo, hi)
        bounds = epsilon_bound(lo, hi, delta)
        if joint is not None:  # both sets of bounds are certified: the better of each pair
            stat = np.maximum(stat, joint["statistic"])
            bounds = np.maximum(bounds, joint["statistic"])
        best = int(np.argmax(stat))
        eps_lb = float(max(np.max(bounds), 0.0))
        if math.isfinite(eps):
            d_lb = float(max(np.max(delta_bound(lo, hi, eps)), 0.0))
        c = chosen[best]
        witness = _witness(
            c, pairs[c.pair_index], counts[best], n, float(lo[best]), float(hi[best])
        )
        if joint is not None:
            witness = replace(witness, ratio=_ratio(joint, best, float(joint_levels[best])))
        simple = out.simple[best] if best < len(out.simple) else None
        if simple is not None:
            witness = replace(
                witness,
                simple_event=f"{simple.event.describe()}, more likely under "
                f"{'a' if simple.forward else 'b'} (on the selection data its predicted bound "
                f"is {simple.plain:.3g}, against {c.plain:.3g} for the learned event; not "
                "certified)",
            )
    violated = bool(best >= 0 and stat[best] > claim.threshold)
    judge, detect = claim.detection(0.5), math.inf
    if best >= 0 and n > 0:

        def power(k: int) -> tuple[float, Any]:
            joint_level = None if joint_levels is None else float(joint_levels[k])
            parts = None  # (a pooled pair's joint bound counts both differences: their sums)
            both = (joint.get("pooled") or {}).get(k) if joint is not None else None
            if both is not None:
                parts = [(int(x[1]), int(x[0])) for x in (both["own"], both["partner_own"])]
            return power_of(claim, int(kd[k]), int(kn[k]), n, float(a[k]), joint_level, parts)

        # what the audit could have caught: what any of its certified events would have (the
        # witness's event unless it could not and another could; the others are asked then)
        detect, judge = power(best)
        if not conclusive(detect, judge, cfg.inconclusive_factor):
            others = [power(k) for k in range(len(chosen)) if k != best]
            good = [(d, j) for d, j in others if conclusive(d, j, cfg.inconclusive_factor)]
            detect, judge = min(good, key=_first) if good else (detect, judge)
    kinds = sorted({_kind(c) for c, s in zip(chosen, stat) if s > claim.threshold})
    float_events = sorted(
        {
            type(c.event).__name__
            for c, s in zip(chosen, stat)
            if s > claim.threshold and _kind(c) == "float-representation"
        }
    )
    apart = witness is not None and float(lo[best]) > float(hi[best])
    verdict, hint = _verdict(
        violated, detect, judge, cfg, witness is not None, apart, distinct, single
    )
    if verdict == "inconclusive" and out.stop == "max-time" and n == 0 and cfg.max_time is not None:
        hint = (
            "inconclusive: the time limit ran out before any certification sample was drawn; "
            + (
                f"raise --max-time (max_time, now {cfg.max_time:g} s); the samples were "
                "already sized to it."
                if any(note.startswith(SIZED_NOTE) for note in notes)
                else f"raise --max-time (max_time, now {cfg.max_time:g} s) or lower --samples "
                f"(samples, now {cfg.samples})."
            )
        )
    profile = (
        None
        if cfg.profile is None
        else profile_report(cfg.profile, chosen, lo, hi, stat, best, pairs)
    )
    notes = [*notes] + ([] if out.stop == "complete" else [STOPS[out.stop]])
    if not mech.wants_rng:
        notes.append(
            "not reproducible: the mechanism takes no rng, so a rerun with the same seed may differ"
        )
    return AuditResult(
        mechanism=mech.name,
        claimed_epsilon=eps,
        delta=delta,
        confidence=float(cfg.confidence),
        epsilon_lower_bound=eps_lb,
        unbounded_witness=bool(best >= 0 and kd[best] == 0 and kn[best] > 0),
        delta_lower_bound=d_lb,
        violation=violated,
        p_value=out.p_value,
        witness=witness,
        samples=int(cfg.samples),
        selection_samples=selection,
        certification_samples=n,
        seed=cfg.seed,
        seconds=time.perf_counter() - t0,
        pairs_searched=len(pairs),
        events_certified=len(chosen),
        reproducible=mech.wants_rng and seeded,
        stop=out.stop,
        look=out.look,
        looks=out.looks,
        notes=tuple(notes),
        verdict=verdict,
        detectable_epsilon=detect,
        hint=hint,
        violation_kind=_kind(chosen[best]) if violated else "",
        violation_kinds=tuple(kinds),
        float_events=tuple(float_events),
        event=chosen[best].event if best >= 0 else None,
        profile=profile,
        claim=claim,
    )


def _kind(c: Candidate) -> str:
    """``float-representation`` for an event on the bits of a double, else ``distributional``."""
    return "float-representation" if c.family == "float" else "distributional"


def _first(x: tuple) -> Any:
    return x[0]


_SAMPLES = "more samples (--samples, samples=)"
_PAIRS = "other pairs (--relation with --search hypothesis; relation=, pair_search='hypothesis')"
_TRY = f"try {_SAMPLES}, {_PAIRS} or other event families (families=)."


def _verdict(
    violation: bool,
    detect: float,
    judge: Any,
    cfg: AuditConfig,
    found: bool,
    apart: bool = False,
    distinct: int = 0,
    single: bool = False,
) -> tuple[str, str]:
    """``violation``; ``inconclusive`` when the audit could only have certified a violation
    of a mechanism ``inconclusive_factor`` times leakier than claimed (its detectable epsilon
    is above that); else ``no violation found``. The hint says what to change. ``apart``: the
    witness's certified bounds tell the datasets apart (its lower bound under one is above
    its upper bound under the other). ``distinct``: the probe drew this many categories,
    all different (0 if not). ``single``: every output of the probe was one value."""
    if violation:
        return "violation", ""
    if conclusive(detect, judge, cfg.inconclusive_factor):
        return "no violation found", ""
    if math.isinf(detect) and found and apart:  # e.g. where a profile's curve is 0
        return "inconclusive", (
            "inconclusive: the certified events tell the datasets apart, but only where the "
            "claim allows any mechanism to, so none could have been caught on them; " + _TRY
        )
    if (not found or math.isinf(detect)) and distinct:
        return "inconclusive", (
            f"inconclusive: no event told the datasets apart, and all {distinct} outputs of "
            "the probe were different (text that never repeats, such as an id or a time), so "
            "no event on them recurs and more samples cannot help; map the outputs to fewer "
            "categories or to numbers."
        )
    if (not found or math.isinf(detect)) and single:
        return "inconclusive", (
            "inconclusive: no event told the datasets apart, and the probe's outputs were all "
            "one value: on these pairs the mechanism may be constant (epsilon 0), which no "
            f"audit can tell from private; try {_PAIRS}, or {_SAMPLES} if it rarely returns "
            "anything else."
        )
    if not found or math.isinf(detect):  # (an event seen alike under both datasets)
        return "inconclusive", (
            f"inconclusive: no event told the datasets apart; try {_PAIRS} or {_SAMPLES}."
        )
    return "inconclusive", (
        f"inconclusive: this audit could not have caught {_leakier(judge, cfg)}: it detects "
        f"only {judge.unit} >= {detect:.3g}; " + _TRY
    )


def _leakier(judge: Any, cfg: AuditConfig) -> str:
    """The mechanism an audit must be able to catch to be conclusive, in words: one
    ``inconclusive_factor`` times leakier than claimed, or, for a claim below the floor
    (epsilon 0: no multiple of it is leakier), one at the factor times the floor."""
    factor = cfg.inconclusive_factor
    if float(judge.scale) >= EPSILON_FLOOR:
        return f"a mechanism {factor:g}x leakier than claimed"
    return (
        f"a mechanism of {judge.unit} {factor * EPSILON_FLOOR:.3g} ({factor:g}x "
        f"{EPSILON_FLOOR:g}: a claim below {EPSILON_FLOOR:g} is judged as {EPSILON_FLOOR:g})"
    )


def _identity(mech: Mechanism, pairs: Sequence[Pair], cfg: AuditConfig, plan: Plan) -> dict:
    """Everything that changes the result: a checkpoint is only resumed by the same audit."""
    return {
        "target": mech.name,
        "pairs": [p.to_dict() for p in pairs],
        "epsilon": float(cfg.epsilon),
        "delta": float(cfg.delta),
        "profile": None if cfg.profile is None else repr(cfg.profile),
        "samples": int(cfg.samples),
        "confidence": float(cfg.confidence),
        "seed": int(cfg.seed),  # type: ignore[arg-type]
        "selection_samples": int(cfg.selection_samples),  # type: ignore[arg-type]
        "max_certified": int(cfg.max_certified),
        "families": list(cfg.families),
        "early_stop": bool(cfg.early_stop),
        "chunks": plan.chunks,
        "looks": len(plan.looks),
        "mechanism": _fingerprint(mech),
        # (it decides whether the most powerful event is certified beside the leader)
        "inconclusive_factor": float(cfg.inconclusive_factor),
    }


def _fingerprint(mech: Mechanism) -> str:
    """The mechanism itself, not only its name: closures from one factory share a name but not
    their captured parameters, and a file target's globals may come from its environment.
    Pickled by value (cloudpickle, with sets in a fixed order) unless importable by name, so
    the source file of the module defining it counts too (an edited ``module:callable``)."""
    try:
        blob = _stable_pickle(mech.func)
    except Exception:  # an unpicklable mechanism cannot run on workers either; name it only
        return "unpicklable"
    # (a function pickled by value carries its code; one pickled by name, only its name)
    source = _module_sources(mech.func) if pickled_by_reference(mech.func) else b""
    return hashlib.sha256(blob + source).hexdigest()[:16]


def _stable_pickle(func: Any) -> bytes:
    """cloudpickle's bytes of ``func`` with every set in a fixed order: a set of strings is
    pickled in the order of each process's string hashing, so a file target using one
    changed fingerprint with every run and its checkpoint could never be resumed. For
    hashing only (functions' and code objects' reductions are rewritten, not loadable)."""
    import io
    import types

    import cloudpickle

    def canon(x: Any) -> Any:
        if isinstance(x, (set, frozenset)):
            return ("<set>", tuple(sorted((canon(v) for v in x), key=repr)))
        if isinstance(x, dict):
            items = sorted(x.items(), key=lambda kv: repr(kv[0]))  # (by key: a value may be big)
            return ("<dict>", tuple((canon(k), canon(v)) for k, v in items))
        if isinstance(x, (list, tuple)):
            return type(x)(canon(v) for v in x)
        if isinstance(x, types.CellType):
            try:
                return ("<cell>", canon(x.cell_contents))
            except ValueError:  # an empty cell
                return ("<cell>",)
        return x

    class Stable(cloudpickle.Pickler):
        def reducer_override(self, obj: Any) -> Any:
            if isinstance(obj, types.CodeType):
                return types.CodeType, (obj.co_code, canon(obj.co_consts), obj.co_names)
            rv = super().reducer_override(obj)
            if isinstance(obj, types.FunctionType) and isinstance(rv, tuple):
                return tuple(canon(part) if i in (1, 2) else part for i, part in enumerate(rv))
            return rv

    buf = io.BytesIO()
    Stable(buf).dump(func)
    return buf.getvalue()


def _module_sources(func: Any) -> bytes:
    """SHA-256 digests of the source files of the modules defining ``func`` and its type."""
    out = b""
    for name in sorted({getattr(func, "__module__", None) or "", type(func).__module__}):
        path = getattr(sys.modules.get(name), "__file__", None) if name else None
        try:
            out += hashlib.sha256(Path(path).read_bytes()).digest() if path else b""
        except OSError:
            continue
    return out


# of a time limit, the share the sampling may take when an audit is sized to fit it (the rest
# goes to building and judging events, and to the rate's error)
FIT_SHARE = 0.5


def _fit_to_time(
    cfg: AuditConfig, pr: Any, plan: Plan, workers: int, chosen_split: bool, left: float
) -> tuple[AuditConfig, list[str]] | None:
    """With a time limit and no checkpoint (which means to run in slices), fewer samples when
    the probed rate says the asked ones take longer than FIT_SHARE of the ``left`` seconds of
    it (after the probe and the checks): otherwise the limit ends the audit in its selection
    and nothing is certified. Decided before any sample is
    drawn (the probe's are never used), so every bound stays valid. The size follows the
    machine's speed and the workers, so the same seed need not repeat the result: the notes
    say how to. None to keep the plan (also when the fitted audit could refute no claim:
    then the limit ends it as asked)."""
    if cfg.max_time is None or cfg.max_time <= 0 or cfg.checkpoint is not None:
        return None
    projected = plan.serial_seconds(pr.rate) / max(workers, 1)
    if projected <= FIT_SHARE * left or left <= 0:
        return None
    samples = max(int(cfg.samples * FIT_SHARE * left / projected), 200)
    if samples >= cfg.samples:
        return None
    scale = samples / cfg.samples
    selection = None if chosen_split else max(int(cfg.selection_samples * scale), 100)
    fitted = replace(cfg, samples=samples, selection_samples=selection)
    if chosen_split:
        fitted = replace(fitted, selection_samples=fitted.split(pr.scalar, plan.n_pairs)[0])
    try:
        validate(fitted)
    except InputError:
        return None
    return fitted, [
        f"{SIZED_NOTE}: {samples:,} samples per dataset of the {cfg.samples:,} asked "
        f"(at the probed {pr.rate:.3g} samples/s per worker on {workers} worker(s), those "
        f"would take about {projected:.3g} s against the {left:.3g} s left of --max-time "
        f"{cfg.max_time:g}); give a "
        "checkpoint to run the whole audit in slices instead",
        f"not reproducible as asked: the sample count was sized to this machine's speed; "
        f"--samples {samples} with the same seed and no time limit repeats this audit",
    ]


# of a time limit, the share the checks before sampling may take of what the probe left (at
# least CHECK_FLOOR seconds: less lets a pool reuse the noise of a mechanism with hidden state)
CHECK_SHARE, CHECK_FLOOR = 0.2, 1.0

# the probe's least time: its first outputs are drawn whatever the limit (a limit of 0 ends
# the audit at its first chunk, with the plan of the audit asked for saved in a checkpoint).
# With a checkpoint a slice's limit counts from its first chunk: the probe is then only cut
# when it hangs, after SLICE_PROBE_FLOOR seconds
PROBE_FLOOR, SLICE_PROBE_FLOOR = 1.0, 60.0


def _probe(mech: Mechanism, data: Any, seed: int, deadline: Deadline, sliced: bool) -> Any:
    """:func:`probe`, cut at the time limit (or its floor, if later) when its first draw has
    not returned; a later cut ends only its timing."""
    if deadline.at is None:
        return probe(mech, data, seed)
    floor = SLICE_PROBE_FLOOR if sliced else PROBE_FLOOR
    try:
        return probe(mech, data, seed, until=max(deadline.at, deadline.t0 + floor))
    except OutOfTime:
        raise InputError(
            f"mechanism {mech.name} did not return its first 8 outputs in "
            f"{max(float(deadline.limit or 0), floor):g} s (max_time={deadline.limit:g}, "
            f"counted from the {'probe' if sliced else 'audit'}'s start); raise --max-time, "
            "or make the mechanism faster."
        ) from None


def _or_cut(when: float | None, check: Callable[..., Any], *args, **kw) -> Any:
    """A check before sampling, cut at ``when``; None when cut (the audit then ends before
    sampling: a cut check decides nothing)."""
    try:
        return cut_at(when, check, *args, **kw)
    except OutOfTime:
        return None


def run(
    mechanism: Callable[..., Any] | Mechanism,
    pairs: Sequence[Pair],
    cfg: AuditConfig,
    name: str | None = None,
    notes: Sequence[str] = (),
    t0: float | None = None,
    timed: bool = False,
) -> AuditResult:
    """Audit an adapted mechanism on validated pairs (the engine behind :func:`audit`);
    ``notes`` go into the result's. The time limit counts from ``t0`` (a
    :func:`time.perf_counter` reading; default now); ``timed`` pairs depend on the machine's
    speed (a pair search the limit cut), so the result is not reproducible."""
    with exits_guarded():
        return _run(mechanism, pairs, cfg, name, notes, t0, timed)


def _run(
    mechanism: Callable[..., Any] | Mechanism,
    pairs: Sequence[Pair],
    cfg: AuditConfig,
    name: str | None,
    notes: Sequence[str],
    t0: float | None,
    timed: bool,
) -> AuditResult:
    t0 = time.perf_counter() if t0 is None else t0
    validate(cfg)
    mech = as_mechanism(mechanism, name)
    seed = cfg.seed if cfg.seed is not None else int(np.random.SeedSequence().generate_state(1)[0])
    # (with a checkpoint a slice's limit counts from its first chunk, and the probe's floor
    # from the probe's start, not from a pair search before it)
    deadline = Deadline(cfg.max_time, t0 if cfg.checkpoint is None else time.perf_counter())
    pr = _probe(mech, pairs[0].a, seed, deadline, cfg.checkpoint is not None)
    cfg = replace(cfg, seed=seed)
    chosen_split = cfg.selection_samples is None
    if chosen_split:
        cfg = replace(cfg, selection_samples=cfg.split(pr.scalar, len(pairs))[0])
    m, n = cfg.split(pr.scalar, len(pairs))
    sequential = cfg.early_stop or cfg.max_time is not None
    plan = Plan.of(m, n, mech, pr, cfg.batch_size, len(pairs), sequential)
    ckpt = Checkpoint(cfg.checkpoint, _identity(mech, pairs, cfg, plan)) if cfg.checkpoint else None
    a, b = pairs[0].a, pairs[0].b
    # (the checks may take up to 1% of the projected work, between 1 s and a minute, and
    # CHECK_SHARE of a time limit's seconds left, but never less than CHECK_FLOOR)
    work = plan.serial_seconds(pr.rate)
    budget = max(CHECK_FLOOR, min(60.0, 0.01 * work, CHECK_SHARE * deadline.left()))
    # the checks in this process are cut at the limit; with a checkpoint (an audit run in
    # slices, whose limit counts from a slice's first chunk) only when they hang. Each draws
    # 64 outputs at least. (processes_repeat waits for its processes a bounded time itself)
    cut = deadline.at if ckpt is None or deadline.at is None else hung_after(budget, 64, pr.rate)
    # do two draws from one stream differ? Then the outputs depend on more than the rng the
    # mechanism is given, and the same seed need not give the same result. Asked on every
    # audit, whatever executes it, so that the draws it takes move a mechanism's hidden state
    # alike on one worker or many
    moved = _or_cut(cut, moves_beyond_stream, mech, a, seed, budget / 4, other=b)
    if (
        moved is not None
        and ckpt is not None
        and ckpt.state
        and processes_repeat(mech, a, seed, other=b, first=moved)
    ):
        raise InputError(
            f"checkpoint {cfg.checkpoint!r} cannot be resumed: the mechanism's random draws "
            "restart from one state in every new process (randomness dpaudit cannot reseed), "
            "so a resumed audit would reuse the noise it chose its events on; delete the "
            "checkpoint to start over, or let the mechanism take an `rng` argument."
        )
    runner = (
        open_runner(cfg.executor, cfg.workers, cfg.scheduler, work)
        if moved is not None
        else Runner(None, 1, "inline")
    )
    notes = list(notes)
    # copies from one pickle stand for workers sent the mechanism by value; modules it uses by
    # name are imported afresh in each worker, which only new processes show (started only
    # when something besides the stream moves its outputs here)
    if moved is not None and not runner.inline:
        repeats = _or_cut(cut, copies_repeat, mech, a, seed, budget / 2, other=b)
        if repeats is None:
            moved = None
        elif repeats or processes_repeat(mech, a, seed, budget / 2, other=b, first=moved):
            runner.close()
            runner = Runner(None, 1, "inline")
            notes.append(
                "run in this process: copies of the mechanism repeat one another's random "
                "draws (its randomness is in state dpaudit cannot reseed), so a worker pool "
                "would reuse noise between selection and certification"
            )
    if moved is None:
        notes.append(
            "the time limit ended the audit in its checks of the mechanism, before sampling "
            "(nothing new was drawn): whether the same seed repeats its draws was not checked"
        )
    # (sized once the runner is final: the checks above may leave one worker of several)
    fitted = (
        None
        if moved is None
        else _fit_to_time(cfg, pr, plan, runner.workers, chosen_split, deadline.left())
    )
    if fitted is not None:
        cfg, sized = fitted
        plan = Plan.of(
            *cfg.split(pr.scalar, len(pairs)), mech, pr, cfg.batch_size, len(pairs), True
        )
        notes += sized
    if ckpt is not None:  # (a slice's limit counts from its first chunk)
        deadline = Deadline(cfg.max_time, time.perf_counter())
    session = Session(mech, pairs, cfg, plan, pr, runner, ckpt, deadline)
    try:
        out = session.run() if moved is not None else session.ended()
    except KeyboardInterrupt:
        session.save()
        runner.abort()
        raise
    finally:
        runner.close()
    if moved and mech.wants_rng:  # (one without an rng has its note already)
        notes.append(
            "not reproducible: two draws from one rng stream differ, so the outputs depend on "
            "more than the rng the mechanism is given (randomness of its own, a counter); a "
            "rerun with the same seed may differ"
        )
    # (a sized audit's size is the machine's speed's, as are timed pairs)
    seeded = moved == 0 and fitted is None and not timed
    return _conclude(
        mech, pairs, out, cfg, session.selection_used, t0, notes, seeded, pr.distinct, pr.single
    )


def audit(
    mechanism: Callable[..., Any],
    pairs: Iterable[Any] | None = None,
    *,
    epsilon: float | None = None,
    delta: float | None = None,
    profile: Any = None,
    samples: int = 1_000_000,
    confidence: float = 0.95,
    seed: int | None = 0,
    relation: str | None = None,
    sensitivity: float = 1.0,
    size: int = 5,
    selection_samples: int | None = None,
    max_certified: int = 3,
    families: Sequence[str] = FAMILIES,
    name: str | None = None,
    pair_search: str = "patterns",
    records: tuple[float, float] | None = None,
    progress: bool | None = None,
    early_stop: bool = True,
    workers: int | None = None,
    executor: Any = None,
    scheduler: str | None = None,
    checkpoint: str | None = None,
    max_time: float | None = None,
    checkpoint_every: float = 10.0,
    inconclusive_factor: float = 2.0,
    semantics: str = "float",
) -> AuditResult:
    """Audit the claim "``mechanism`` is (epsilon, delta)-DP" on neighbouring ``pairs``, or,
    with ``profile=``, the claim that it meets a whole privacy profile.

    ``profile`` is ``"gaussian:SIGMA[:SENS]"``, ``"gdp:MU"``, ``"zcdp:RHO"``, ``"rdp:FILE"``,
    ``"pld:FILE"``, a profile object of :mod:`auditor.engine.claims`, or a dp_accounting
    ``PrivacyLossDistribution`` or ``DpEvent``. Certified points of the trade-off curve are
    tested against the claimed one (``result.profile``: the points, the most violated one and a
    certified lower bound on the mechanism's GDP mu); ``delta`` (default 1e-5) is then where the
    profile is read as an epsilon, and ``epsilon_lower_bound`` is the certified epsilon there.

    ``pairs`` are ``(A, B)`` datasets passed as ``data``; with ``pairs=None`` and a ``relation``
    (``add-remove``, ``replace-one``, ``sensitivity``) candidate pairs are generated and searched.
    ``pair_search="hypothesis"`` replaces the pattern list by a Hypothesis search steered by
    the estimated loss (plus three pattern pairs). ``records = (lo, hi)`` is the range of one
    record's value in generated add-remove and replace-one datasets: the patterns add or swap
    in lo and hi and start from random records between (default 0 and 1), the search draws
    doubles in it (default 32-bit floats in [-2, 2]). A leak that only other records trigger
    is out of such an audit's reach, and ``result.notes`` says so.
    ``samples`` is the total per dataset (selection + certification). ``families`` restricts
    the event families searched (see ``auditor.engine.select.FAMILIES``). Returns an
    :class:`AuditResult`; ``violation`` is True with probability at most ``1 - confidence`` when
    the claim holds. ``progress`` shows a bar on stderr (None: only when it is a terminal).

    Scale: samples are drawn in chunks on ``executor`` (``"local"``: a process pool of
    ``workers`` processes, default every core; ``"dask"`` with ``scheduler`` an address, or without
    one a local Dask cluster of ``workers`` processes; or any
    ``concurrent.futures.Executor``); the same seed gives the same result on any of them.
    ``checkpoint`` names a file that saves progress (every ``checkpoint_every`` seconds and at
    exit) and resumes it when the same audit is run again. Certification looks at its counts on
    a schedule declared before sampling; ``early_stop`` ends it at the first look that certifies
    a violation, and ``max_time`` (seconds from the start) ends it with the result of the last
    look completed, cutting a call of the mechanism then under way (:mod:`.deadline`).
    With neither, it looks once, at the end, and spends the whole failure probability there.

    ``semantics="ideal"`` audits the idealised mechanism: the floating-point events (the bit
    pattern of doubles) are off. By default they are on, and ``result.violation_kinds`` says
    which kinds of violation were certified (``float-representation``, ``distributional``).

    The verdict (``result.verdict``) is ``violation``, ``no violation found``, or
    ``inconclusive`` when no violation was found and ``result.detectable_epsilon`` (the smallest
    true epsilon the certified events and sample size would have certified above the claim with
    probability 1/2) exceeds ``inconclusive_factor`` times the claimed epsilon (0.01 for a
    claim of 0).
    """
    t0 = time.perf_counter()  # (the time limit counts from here: a pair search counts)
    if semantics not in SEMANTICS:
        raise InputError(f"semantics={semantics!r} must be one of {', '.join(SEMANTICS)}.")
    if (epsilon is None) == (profile is None):
        raise InputError(
            "give either epsilon= (an (epsilon, delta) claim) or profile= (a privacy profile, "
            "e.g. 'gdp:1'), not " + ("both." if profile is not None else "neither.")
        )
    if profile is not None:
        if delta is not None:
            check_number("delta", delta)
        prof = as_profile(profile, delta)
        epsilon, delta = prof.epsilon, prof.delta
    else:
        prof = None
        delta = 0.0 if delta is None else delta
    if semantics == "ideal":  # the idealised mechanism: no events on the bits of doubles
        families = tuple(f for f in families if f != "float")
    cfg = AuditConfig(
        epsilon=epsilon,
        delta=delta,
        samples=samples,
        confidence=confidence,
        seed=seed,
        selection_samples=selection_samples,
        max_certified=max_certified,
        families=tuple(families),
        progress=progress,
        early_stop=early_stop,
        workers=workers,
        executor=executor,
        scheduler=scheduler,
        checkpoint=None if checkpoint is None else str(checkpoint),
        max_time=max_time,
        checkpoint_every=checkpoint_every,
        inconclusive_factor=inconclusive_factor,
        profile=prof,
    )
    validate(cfg)
    pair_list, searched = _as_pairs(
        pairs,
        relation,
        sensitivity,
        size,
        0 if seed is None else seed,
        pair_search,
        mechanism,
        records,
        _search_until(cfg, t0),
    )
    if searched and cfg.checkpoint is not None:
        raise InputError(
            f"the pair search did not end in {max(cfg.max_time, SLICE_SEARCH_FLOOR):g} s: with "
            "--checkpoint every "
            "slice must find the same pairs, so the search is not cut short; pass the pairs "
            "(--pairs FILE.json, pairs=), or audit without --checkpoint (the search then takes "
            f"{SEARCH_SHARE:.0%} of --max-time)."
        )
    notes = _generated_note(relation, pair_search, records) if pairs is None else []
    return run(
        mechanism, pair_list, cfg, name=name, notes=notes + searched, t0=t0, timed=bool(searched)
    )


# of a time limit, the share a pair search may take. With a checkpoint (whose slices must all
# find the same pairs) a search is only cut when it hangs, after SLICE_SEARCH_FLOOR seconds
SEARCH_SHARE, SLICE_SEARCH_FLOOR = 0.25, 300.0


def _search_until(cfg: AuditConfig, t0: float) -> float | None:
    """When a pair search started at ``t0`` is cut (a :func:`time.perf_counter` reading)."""
    if cfg.max_time is None:
        return None
    if cfg.checkpoint is not None:
        return t0 + max(float(cfg.max_time), SLICE_SEARCH_FLOOR)
    return t0 + SEARCH_SHARE * float(cfg.max_time)


def _generated_note(relation: str | None, search: str, records: Any) -> list[str]:
    """What generated pairs cover (records of other values are not tried)."""
    rel = normalise_relation(relation)
    if rel not in ("add-remove", "replace-one"):
        return []
    lo, hi = check_records(records, rel) or (RECORDS if search == "patterns" else SEARCHED_RECORDS)
    return [
        f"pairs: generated under {rel} with records in [{lo:g}, {hi:g}]; a leak that other "
        "record values trigger (a wider clipping range, say) needs --records LO HI (records=) "
        "or pairs of your own"
    ]
