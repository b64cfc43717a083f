"""One catalogue audit with its report's plot data (used by `dpaudit demo`)."""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

from auditor.reports.plots import collect_plot_data

PLOT_SAMPLES = 50_000


def with_plots(result, mechanism, samples: int = PLOT_SAMPLES) -> dict[str, Any]:
    """`result.to_dict()` plus plot data on the witness pair, when the result has a witness."""
    d = result.to_dict()
    event = getattr(result, "event", None)
    if result.witness is None or event is None:
        return d
    pair = result.witness.pair
    a, b = (pair["a"], pair["b"]) if result.witness.numerator == "a" else (pair["b"], pair["a"])
    d["plots"] = collect_plot_data(
        mechanism,
        a,
        b,
        event,
        epsilon=result.claimed_epsilon,
        delta=result.delta,
        confidence=result.confidence,
        samples=samples,
        seed=result.seed or 0,
        tradeoff=None if result.profile is None else result.claim.tradeoff,
    )
    return d


ESCALATE = 10  # the second stage's samples, as a multiple of the first's


def point_estimate(result) -> float | None:
    """ln((k_num/n - delta) / (k_den/n)) of the certified event's counts: where the certified
    bound would sit with no sampling error (None without a witness)."""
    w = result.witness
    if w is None or w.count_numerator == 0:
        return None
    n = w.certification_samples
    num = w.count_numerator / n - result.delta
    if num <= 0:
        return None
    return math.inf if w.count_denominator == 0 else math.log(num * n / w.count_denominator)


def staged_audit(entry, samples: int, seed: int = 0, confidence: float = 0.95):
    """The demo's audit: ``samples`` first; if that finds no violation but its witness's point
    estimate lies above the claim (evidence the bound falls short for lack of samples), a
    second audit on fresh streams with ESCALATE times the samples. Each stage has half the
    failure probability, so a correct mechanism is flagged with probability at most
    1 - confidence overall (union bound); the decision to go on uses only the first stage."""
    from auditor import audit

    mech = entry.sampler()
    half = 1 - (1 - confidence) / 2
    kw = dict(epsilon=entry.claimed_epsilon, delta=entry.delta, name=entry.name)
    pairs = [(p.a, p.b) for p in entry.pairs]
    first = audit(mech, pairs, samples=samples, seed=seed, confidence=half, **kw)
    est = point_estimate(first)
    if first.violation or est is None or est <= entry.claimed_epsilon:
        return first, mech
    second = audit(mech, pairs, samples=ESCALATE * samples, seed=seed + 1, confidence=half, **kw)
    note = (
        f"escalated: {samples} samples found no violation, but the witness's point estimate "
        f"{est:.4g} exceeds the claim; this result is a second audit with {ESCALATE * samples} "
        "(each stage at half the failure probability)"
    )
    return replace(second, notes=(*second.notes, note)), mech


def audit_with_plots(entry, samples: int, seed: int = 0) -> dict[str, Any]:
    result, mech = staged_audit(entry, samples, seed)
    return with_plots(result, mech, min(PLOT_SAMPLES, samples))
