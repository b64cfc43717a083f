"""One catalogue audit with its report's plot data (used by `dpaudit demo`)."""

from __future__ import annotations

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
    )
    return d


def audit_with_plots(entry, samples: int, seed: int = 0) -> dict[str, Any]:
    from auditor import audit

    mech = entry.sampler()
    result = audit(
        mech,
        [(p.a, p.b) for p in entry.pairs],
        epsilon=entry.claimed_epsilon,
        delta=entry.delta,
        samples=samples,
        seed=seed,
        name=entry.name,
    )
    return with_plots(result, mech, min(PLOT_SAMPLES, samples))
