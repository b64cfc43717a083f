"""The audit: select events on one sample, certify them on fresh samples.

Soundness argument. Selection uses generators spawned from the seed that certification never
touches, so the certified events are fixed before the certification samples exist; so is their
number K (1, or 2 when the plain and the conservative predictions disagree). For each of
the ``K`` certified events we compute two one-sided Clopper-Pearson bounds at level
``a = (1 - confidence) / (2K)``; by the union bound all ``2K`` hold simultaneously with
probability at least ``confidence``, and then every reported quantity (the max over events of
``ln((p_lo - delta) / p_hi)`` and of ``p_lo - e^eps p_hi``) is a valid bound.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from auditor.engine.adapter import Mechanism, as_mechanism, draw, kind_of
from auditor.engine.events import event_to_dict
from auditor.engine.pairs import Pair, check_pair, generate_pairs, normalise_relation
from auditor.engine.progress import Progress
from auditor.engine.result import AuditResult, Witness
from auditor.engine.select import FAMILIES, Candidate, Scorer, propose
from auditor.engine.stats import cp_lower, cp_upper, delta_bound, epsilon_bound, p_value
from proofs.errors import InputError

__all__ = ["AuditConfig", "audit", "minimum_samples"]

SELECTION_CAP = 1_000_000  # per dataset and pair, for vector outputs (memory)
SCALAR_SELECTION_CAP = 4_000_000  # scalar outputs are cheap to hold: choose events more finely


@dataclass(frozen=True, slots=True)
class AuditConfig:
    """What to audit against and with how many samples (``samples`` is per dataset)."""

    epsilon: float
    delta: float = 0.0
    samples: int = 1_000_000
    confidence: float = 0.95
    seed: int | None = 0
    selection_samples: int | None = None
    max_certified: int = 2
    batch_size: int | None = None
    families: tuple[str, ...] = FAMILIES
    progress: bool | None = None  # a bar on stderr; None: only when stderr is a terminal

    @property
    def alpha_per_bound(self) -> float:
        """Level of each bound when one event is certified (used to predict and to size)."""
        return (1.0 - self.confidence) / 2

    def level(self, n_events: int) -> float:
        """Level of each of the 2 * n_events one-sided bounds (Bonferroni)."""
        return (1.0 - self.confidence) / (2 * max(n_events, 1))

    def split(self, scalar: bool = False) -> tuple[int, int]:
        """(selection, certification) samples per dataset: a tenth for selection, capped."""
        m = self.selection_samples
        if m is None:
            cap = SCALAR_SELECTION_CAP if scalar else SELECTION_CAP
            m = max(min(self.samples // 10, cap), min(1000, self.samples // 2))
        return m, self.samples - m


def _number(name: str, value: Any, flag: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise InputError(f"{name}={value!r} must be a number; pass {flag} as a number.")
    v = float(value)
    if math.isnan(v):
        raise InputError(f"{name}=nan must be a number; pass {flag} as a number.")
    return v


def validate(config: AuditConfig) -> None:
    """Check a configuration at the public boundary (each message names value and fix)."""
    eps = _number("epsilon", config.epsilon, "--epsilon")
    if eps < 0 or math.isinf(eps):
        raise InputError(
            f"epsilon={config.epsilon!r} must be finite and >= 0; use e.g. --epsilon 1."
        )
    delta = _number("delta", config.delta, "--delta")
    if not 0 <= delta < 1:
        raise InputError(f"delta={config.delta!r} must be in [0, 1); use --delta 0 for pure DP.")
    conf = _number("confidence", config.confidence, "--confidence")
    if not 0 < conf < 1:
        raise InputError(
            f"confidence={config.confidence!r} must be in (0, 1); use e.g. --confidence 0.95."
        )
    if (
        isinstance(config.samples, bool)
        or not isinstance(config.samples, (int, np.integer))
        or config.samples < 200
    ):
        raise InputError(
            f"samples={config.samples!r} must be an integer >= 200; use e.g. --samples 1000000."
        )
    unknown = set(config.families) - set(FAMILIES)
    if unknown or not config.families:
        raise InputError(f"families={config.families!r} must be a non-empty subset of {FAMILIES}.")
    if config.max_certified < 1:
        raise InputError(f"max_certified={config.max_certified!r} must be >= 1.")
    m, n = config.split()
    if not 0 < m < config.samples:
        raise InputError(f"selection_samples={m} must be in (0, samples={config.samples}).")
    best = _perfect_bound(n, config.alpha_per_bound, delta)
    if best <= eps:
        need = minimum_samples(eps, delta, config.confidence)
        if need is None:
            raise InputError(
                f"epsilon={eps:g} cannot be refuted by sampling: even a perfect witness needs more "
                f"than {MAX_SAMPLES:.0e} samples per dataset; audit a smaller claimed epsilon."
            )
        raise InputError(
            f"samples={config.samples} is too small for confidence={conf:g}: even an event seen in "
            f"every sample of one dataset and never in the other would certify only epsilon >= "
            f"{max(best, 0):.3g} <= claimed {eps:g}; use --samples {need} or more."
        )


def _perfect_bound(n: int, a: float, delta: float) -> float:
    return float(epsilon_bound(cp_lower(n, n, a), cp_upper(0, n, a), delta))


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


PAIR_SEARCHES = ("patterns", "hypothesis")


def _as_pairs(
    pairs: Iterable[Any] | None,
    relation: str | None,
    sensitivity: float,
    size: int,
    seed: int,
    search: str = "patterns",
    mechanism: Any = None,
) -> list[Pair]:
    rel = normalise_relation(relation)
    if search not in PAIR_SEARCHES:
        raise InputError(
            f"pair_search={search!r} is unknown; use one of {', '.join(PAIR_SEARCHES)}."
        )
    if pairs is None:
        if relation is None:
            raise InputError(
                "no neighbouring pair given; pass pairs=[(A, B)] (--pair A B) or a relation."
            )
        if search == "hypothesis":
            return _searched_pairs(mechanism, rel, sensitivity, size, seed)
        return generate_pairs(rel, size=size, sensitivity=sensitivity, seed=seed)
    out = []
    for p in pairs:
        pair = p if isinstance(p, Pair) else _tuple_pair(p)
        check_pair(pair, rel, sensitivity)
        out.append(pair)
    if not out:
        raise InputError("pairs=[] is empty; pass at least one neighbouring pair (A, B).")
    return out


def _searched_pairs(
    mechanism: Any, rel: str, sensitivity: float, size: int, seed: int
) -> list[Pair]:
    """Hypothesis-driven search (`hypothesis.target` on the estimated loss), with the
    pattern pairs as a floor so the search can only add candidates."""
    from hypothesis import strategies as st

    from auditor.testing.strategies import search_pairs

    if rel == "any":
        raise InputError(
            "pair_search='hypothesis' needs --relation add-remove, replace-one or sensitivity."
        )
    elements = st.floats(-2.0, 2.0, allow_nan=False, width=32) if rel != "sensitivity" else None
    found = search_pairs(
        mechanism,
        rel,
        elements,
        min_size=max(1, size - 2),
        max_size=size,
        sensitivity=sensitivity,
        seed=seed,
    )
    for p in found:
        check_pair(p, rel, sensitivity)
    return found + generate_pairs(rel, size=size, sensitivity=sensitivity, seed=seed)[:3]


def _tuple_pair(p: Any) -> Pair:
    if isinstance(p, (tuple, list)) and len(p) == 2:
        return Pair(p[0], p[1])
    raise InputError(f"pair {p!r} is not a 2-tuple (A, B); pass pairs=[(A, B), ...].")


@dataclass(frozen=True, slots=True)
class _Streams:
    selection: list[tuple[np.random.Generator, np.random.Generator]]
    certification: list[tuple[np.random.Generator, np.random.Generator]]
    selection_seed: int


def _streams(seed: int, n_pairs: int) -> _Streams:
    # Independent streams per (phase, pair, dataset): selection samples are never reused.
    root = np.random.SeedSequence(seed)
    sel_root, cert_root, misc = root.spawn(3)
    gen = lambda ss: [
        tuple(np.random.default_rng(c) for c in s.spawn(2)) for s in ss.spawn(n_pairs)
    ]
    return _Streams(gen(sel_root), gen(cert_root), int(misc.generate_state(1)[0]))


@dataclass(frozen=True, slots=True)
class _Shape:
    kind: str
    tail: tuple[int, ...]


def _check_shape(mech: Mechanism, arr: np.ndarray, expected: _Shape | None, data: Any) -> _Shape:
    got = _Shape(kind_of(arr), arr.shape[1:])
    if expected is not None and got != expected:
        raise InputError(
            f"mechanism {mech.name} returned {got.kind} outputs of shape {got.tail} on "
            f"data={data!r} "
            f"but {expected.kind} outputs of shape {expected.tail} earlier; outputs must have one "
            "type."
        )
    return got


def _select(
    mech: Mechanism, pairs: Sequence[Pair], cfg: AuditConfig, streams: _Streams
) -> tuple[list[Candidate], _Shape]:
    m, n = cfg.split()
    scorer = Scorer(m, n, cfg.alpha_per_bound, float(cfg.delta))
    shape: _Shape | None = None
    cands: list[Candidate] = []
    for i, pair in enumerate(pairs):
        ga, gb = streams.selection[i]
        ya = draw(mech, pair.a, m, ga)
        shape = _check_shape(mech, ya, shape, pair.a)
        yb = draw(mech, pair.b, m, gb)
        shape = _check_shape(mech, yb, shape, pair.b)
        found = propose(shape.kind, ya, yb, scorer, streams.selection_seed, cfg.families)
        cands += [replace(c, pair_index=i) for c in found]
    return _choose(cands, cfg.max_certified), shape  # type: ignore[return-value]


def _choose(cands: list[Candidate], k_max: int) -> list[Candidate]:
    """The best event by the conservative (1.6-sigma shrunk) prediction; if a different event is
    clearly best by the milder 1-sigma prediction (typically a rarer, higher-ratio one), certify it
    too (K = 2).

    K is decided on selection data only, so the union bound over 2K certified bounds is valid.
    """
    if not cands:
        return []
    key = lambda c: (c.pair_index, c.forward, repr(c.event))
    chosen = [max(cands, key=lambda c: c.rank)]
    bold = max(cands, key=lambda c: c.plain)
    # a second event costs a wider union bound: only worth it when clearly better
    if (
        k_max >= 2
        and key(bold) != key(chosen[0])
        and bold.plain > chosen[0].plain + 0.03 * abs(chosen[0].plain)
    ):
        chosen.append(bold)
    return chosen[:k_max]


def _batch_size(cfg: AuditConfig, mech: Mechanism, shape: _Shape, n: int) -> int:
    if cfg.batch_size:
        return min(cfg.batch_size, n)
    width = int(np.prod(shape.tail)) if shape.tail else 1
    base = 1 << 20 if mech.batched else 1 << 16
    return max(1, min(n, max(4096, base // width)))


def _certify(
    mech: Mechanism,
    pairs: Sequence[Pair],
    chosen: Sequence[Candidate],
    cfg: AuditConfig,
    streams: _Streams,
    shape: _Shape,
) -> np.ndarray:
    """Counts[k] = (count under a, count under b) on fresh samples, streamed in batches."""
    _, n = cfg.split()
    counts = np.zeros((len(chosen), 2), dtype=np.int64)
    bs = _batch_size(cfg, mech, shape, n)
    pair_ids = sorted({c.pair_index for c in chosen})
    bar = Progress(2 * n * len(pair_ids), "certifying", enabled=cfg.progress)
    for i in pair_ids:
        idx = [k for k, c in enumerate(chosen) if c.pair_index == i]
        for side, data in enumerate((pairs[i].a, pairs[i].b)):
            gen = streams.certification[i][side]
            done = 0
            while done < n:
                size = min(bs, n - done)
                y = draw(mech, data, size, gen)
                _check_shape(mech, y, shape, data)
                for k in idx:
                    counts[k, side] += int(np.count_nonzero(chosen[k].event.contains(y)))
                done += size
                bar.update(size)
    bar.close()
    return counts


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
    )


def _conclude(
    mech: Mechanism,
    pairs: Sequence[Pair],
    chosen: Sequence[Candidate],
    counts: np.ndarray,
    cfg: AuditConfig,
    seed: int,
    t0: float,
) -> AuditResult:
    m, n = cfg.split()
    a = cfg.level(len(chosen))
    eps, delta = float(cfg.epsilon), float(cfg.delta)
    kn = np.array([counts[k, 0 if c.forward else 1] for k, c in enumerate(chosen)])
    kd = np.array([counts[k, 1 if c.forward else 0] for k, c in enumerate(chosen)])
    lo, hi = cp_lower(kn, n, a), cp_upper(kd, n, a)
    bounds = epsilon_bound(lo, hi, delta)
    best = int(np.argmax(bounds)) if len(chosen) else -1
    eps_lb = float(max(bounds[best], 0.0)) if best >= 0 else 0.0
    d_lb = float(max(np.max(delta_bound(lo, hi, eps)), 0.0)) if best >= 0 else 0.0
    pv = min(
        (
            p_value(int(kn[k]), int(kd[k]), n, n, eps, delta, 2 * len(chosen))
            for k in range(len(chosen))
        ),
        default=1.0,
    )
    witness = None
    if best >= 0:
        c = chosen[best]
        witness = _witness(
            c, pairs[c.pair_index], counts[best], n, float(lo[best]), float(hi[best])
        )
    return AuditResult(
        mechanism=mech.name,
        claimed_epsilon=eps,
        delta=delta,
        confidence=float(cfg.confidence),
        epsilon_lower_bound=eps_lb,
        unbounded_witness=bool(best >= 0 and kd[best] == 0 and kn[best] > 0),
        delta_lower_bound=d_lb,
        violation=bool(eps_lb > eps),
        p_value=pv,
        witness=witness,
        samples=int(cfg.samples),
        selection_samples=m,
        certification_samples=n,
        seed=seed,
        seconds=time.perf_counter() - t0,
        pairs_searched=len(pairs),
        events_certified=len(chosen),
        event=chosen[best].event if best >= 0 else None,
    )


def _is_scalar(mech: Mechanism, pair: Pair, seed: int) -> bool:
    """Probe a few outputs (on a stream of their own) to size the selection sample."""
    probe = draw(mech, pair.a, 8, np.random.default_rng(np.random.SeedSequence([seed, 0x5CA1])))
    return probe.ndim == 1


def run(
    mechanism: Callable[..., Any] | Mechanism,
    pairs: Sequence[Pair],
    cfg: AuditConfig,
    name: str | None = None,
) -> AuditResult:
    """Audit an adapted mechanism on validated pairs (the engine behind :func:`audit`)."""
    t0 = time.perf_counter()
    validate(cfg)
    mech = as_mechanism(mechanism, name)
    seed = cfg.seed if cfg.seed is not None else int(np.random.SeedSequence().generate_state(1)[0])
    cfg = replace(cfg, seed=seed)
    if cfg.selection_samples is None:
        cfg = replace(cfg, selection_samples=cfg.split(_is_scalar(mech, pairs[0], seed))[0])
    streams = _streams(seed, len(pairs))
    chosen, shape = _select(mech, pairs, cfg, streams)
    counts = _certify(mech, pairs, chosen, cfg, streams, shape)
    return _conclude(mech, pairs, chosen, counts, cfg, seed, t0)


def audit(
    mechanism: Callable[..., Any],
    pairs: Iterable[Any] | None = None,
    *,
    epsilon: float,
    delta: float = 0.0,
    samples: int = 1_000_000,
    confidence: float = 0.95,
    seed: int | None = 0,
    relation: str | None = None,
    sensitivity: float = 1.0,
    size: int = 5,
    selection_samples: int | None = None,
    max_certified: int = 2,
    families: Sequence[str] = FAMILIES,
    name: str | None = None,
    pair_search: str = "patterns",
    progress: bool | None = None,
) -> AuditResult:
    """Audit the claim "``mechanism`` is (epsilon, delta)-DP" on neighbouring ``pairs``.

    ``pairs`` are ``(A, B)`` datasets passed as ``data``; with ``pairs=None`` and a ``relation``
    (``add-remove``, ``replace-one``, ``sensitivity``) candidate pairs are generated and searched.
    ``pair_search="hypothesis"`` replaces the pattern list by a Hypothesis search steered by
    the estimated loss (plus three pattern pairs).
    ``samples`` is the total per dataset (selection + certification). ``families`` restricts
    the event families searched (see ``auditor.engine.select.FAMILIES``). Returns an
    :class:`AuditResult`; ``violation`` is True with probability at most ``1 - confidence`` when
    the claim holds. ``progress`` shows a bar on stderr (None: only when it is a terminal).
    """
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
    )
    validate(cfg)
    pair_list = _as_pairs(
        pairs, relation, sensitivity, size, 0 if seed is None else seed, pair_search, mechanism
    )
    return run(mechanism, pair_list, cfg, name=name)
