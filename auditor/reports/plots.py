"""Plot data for audit reports, drawn from fresh samples on the witness pair.

Everything here is an *illustration* computed from its own samples (its own seed stream);
the certified bound of the audit comes from the certification samples only. The data is
plain JSON (lists of numbers) so that `dpaudit report result.json` can re-render a report
without the mechanism.

- ``outputs``: the two output distributions (histogram of the event's score, or the most
  frequent outputs) with the chosen event marked;
- ``loss``: eps_lb of threshold events {score > t} / {score <= t} (or of each atom) at the
  audit's confidence, against the claimed epsilon;
- ``tradeoff``: the empirical trade-off curve of the likelihood-ratio test built from the
  cells (type I error alpha under one dataset, type II error beta under the other, with
  Clopper-Pearson bands) and the curve that the claimed (eps, delta) allows (f-DP view, Dong,
  Roth, Su 2019): f(alpha) = max(0, 1 - delta - e^eps alpha, e^-eps (1 - delta - alpha)).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from auditor.engine.adapter import Mechanism, as_mechanism, draw
from auditor.engine.events import FloatMultiple, KeySet, NegativeZero, ScoreInterval
from auditor.engine.stats import cp_lower, cp_upper, epsilon_bound
from proofs.io import number_or_text

__all__ = ["claimed_tradeoff", "collect_plot_data"]

_BINS = 60
_TOP = 25


def claimed_tradeoff(alpha: np.ndarray, epsilon: float, delta: float) -> np.ndarray:
    """The smallest type II error an (eps, delta)-DP mechanism allows at type I error alpha."""
    e = math.exp(min(epsilon, 700.0))
    return np.maximum.reduce([np.zeros_like(alpha), 1 - delta - e * alpha, (1 - delta - alpha) / e])


def _cells_from_scores(sa: np.ndarray, sb: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    lo, hi = np.quantile(np.concatenate([sa, sb]), [0.001, 0.999])
    if not hi > lo:
        lo, hi = lo - 0.5, hi + 0.5
    inner = np.linspace(lo, hi, _BINS + 1)
    edges = np.concatenate([[-np.inf], inner, [np.inf]])
    ca = np.histogram(sa, edges)[0]
    cb = np.histogram(sb, edges)[0]
    return edges, ca, cb


def _score_data(
    event: ScoreInterval, ya: np.ndarray, yb: np.ndarray, eps: float, delta: float, a: float
) -> dict[str, Any]:
    sa, sb = event.score(ya), event.score(yb)
    edges, ca, cb = _cells_from_scores(sa, sb)
    n = len(sa)
    # threshold events at the finite edges, both orientations, both directions
    above_a, above_b = n - np.cumsum(ca)[:-1], n - np.cumsum(cb)[:-1]
    t = edges[1:-1]
    best = np.max(
        [
            epsilon_bound(cp_lower(x, n, a), cp_upper(y, n, a), delta)
            for x, y in (
                (above_a, above_b),
                (above_b, above_a),
                (n - above_a, n - above_b),
                (n - above_b, n - above_a),
            )
        ],
        axis=0,
    )
    finite = edges[1:-1]
    return {
        "kind": "score",
        "score": event.score.describe(),
        "edges": [float(v) for v in finite],
        "counts_a": ca[1:-1].tolist(),
        "counts_b": cb[1:-1].tolist(),
        "tails": {"a": [int(ca[0]), int(ca[-1])], "b": [int(cb[0]), int(cb[-1])]},
        "event": [number_or_text(event.lo), number_or_text(event.hi)],
        "loss_x": [float(v) for v in t],
        "loss_y": [float(max(v, 0.0)) for v in best],
        "cells_a": ca.tolist(),
        "cells_b": cb.tolist(),
    }


def _atom_data(
    event, ya: np.ndarray, yb: np.ndarray, eps: float, delta: float, a: float
) -> dict[str, Any]:
    key = event.key if isinstance(event, KeySet) else None
    ka = key(ya) if key is not None else _labels(ya)
    kb = key(yb) if key is not None else _labels(yb)
    values, inverse = np.unique(np.concatenate([ka, kb]), return_inverse=True)
    n = len(ka)
    ca = np.bincount(inverse[:n], minlength=len(values))
    cb = np.bincount(inverse[n:], minlength=len(values))
    order = np.argsort(-(ca + cb), kind="stable")[:_TOP]
    labels = [_label(values[i], event) for i in order]
    in_event = set(map(str, getattr(event, "keys", ()))) if key is not None else set()
    eps_atom = np.maximum(
        epsilon_bound(cp_lower(ca, n, a), cp_upper(cb, n, a), delta),
        epsilon_bound(cp_lower(cb, n, a), cp_upper(ca, n, a), delta),
    )
    return {
        "kind": "atoms",
        "labels": labels,
        "counts_a": ca[order].tolist(),
        "counts_b": cb[order].tolist(),
        "in_event": [str(values[i]) in in_event for i in order],
        "loss_x": labels,
        "loss_y": [float(max(eps_atom[i], 0.0)) for i in order],
        "cells_a": ca.tolist(),
        "cells_b": cb.tolist(),
    }


def _labels(y: np.ndarray) -> np.ndarray:
    if y.ndim == 2:
        return np.array([",".join(f"{v:g}" for v in row) for row in y])
    return y.astype(str)


def _label(value: Any, event) -> str:
    if isinstance(event, KeySet) and event.key.cols is not None:
        for k, lab in zip(event.keys, event.labels):
            if str(k) == str(value):
                return lab
        return "other cell"
    return str(value)


def _float_data(
    event: FloatMultiple | NegativeZero,
    ya: np.ndarray,
    yb: np.ndarray,
    eps: float,
    delta: float,
    a: float,
) -> dict[str, Any]:
    ina, inb = event.contains(ya), event.contains(yb)
    n = len(ina)
    ca = np.array([int(ina.sum()), int(n - ina.sum())])
    cb = np.array([int(inb.sum()), int(n - inb.sum())])
    eps_atom = np.maximum(
        epsilon_bound(cp_lower(ca, n, a), cp_upper(cb, n, a), delta),
        epsilon_bound(cp_lower(cb, n, a), cp_upper(ca, n, a), delta),
    )
    labels = [event.describe(), "otherwise"]
    return {
        "kind": "atoms",
        "labels": labels,
        "counts_a": ca.tolist(),
        "counts_b": cb.tolist(),
        "in_event": [True, False],
        "loss_x": labels,
        "loss_y": [float(max(v, 0.0)) for v in eps_atom],
        "cells_a": ca.tolist(),
        "cells_b": cb.tolist(),
    }


def _tradeoff(ca: np.ndarray, cb: np.ndarray, claimed, a: float) -> dict[str, Any]:
    """Neyman-Pearson tests from cells ordered by empirical likelihood ratio P_b / P_a.

    Rejecting 'the data is A' on the cells with the largest b/a ratio first: alpha = P_a[reject]
    (type I), beta = P_b[accept] (type II). ``claimed(alpha)`` is the claim's trade-off curve.
    """
    ca, cb = np.asarray(ca, float), np.asarray(cb, float)
    n = ca.sum()
    ratio = (cb + 0.5) / (ca + 0.5)
    order = np.argsort(-ratio, kind="stable")
    ka = np.concatenate([[0.0], np.cumsum(ca[order])])
    kb = np.concatenate([[0.0], np.cumsum(cb[order])])
    alpha, beta = ka / n, 1 - kb / n
    grid = np.linspace(0, 1, 201)
    gap = claimed(alpha) - beta  # > 0: below the claimed curve
    i = int(np.argmax(gap))
    worst = (
        {"alpha": float(alpha[i]), "beta": float(beta[i]), "gap": float(gap[i])}
        if gap[i] > 0
        else None
    )
    return {
        "worst": worst,
        "alpha": alpha.tolist(),
        "beta": beta.tolist(),
        "alpha_hi": cp_upper(ka, n, a).tolist(),
        "beta_lo": (1 - cp_upper(kb, n, a)).tolist(),
        "claimed_alpha": grid.tolist(),
        "claimed_beta": claimed(grid).tolist(),
    }


def collect_plot_data(
    mechanism,
    pair_a: Any,
    pair_b: Any,
    event,
    *,
    epsilon: float,
    delta: float,
    confidence: float,
    samples: int = 50_000,
    seed: int = 0,
    tradeoff=None,
) -> dict[str, Any]:
    """Draw `samples` fresh outputs per dataset and build the report's plot data;
    ``tradeoff(alpha)`` is the claimed trade-off curve (default: the (epsilon, delta) one)."""
    mech: Mechanism = as_mechanism(mechanism)
    rng = np.random.default_rng(np.random.SeedSequence([int(seed) & 0xFFFFFFFF, 0x9107]))
    ya = draw(mech, pair_a, samples, rng)
    yb = draw(mech, pair_b, samples, rng)
    a = (1 - confidence) / 2
    if isinstance(event, ScoreInterval):
        data = _score_data(event, ya, yb, epsilon, delta, a)
    elif isinstance(event, (FloatMultiple, NegativeZero)):
        data = _float_data(event, ya, yb, epsilon, delta, a)
    else:
        data = _atom_data(event, ya, yb, epsilon, delta, a)
    claimed = tradeoff or (lambda alpha: claimed_tradeoff(alpha, epsilon, delta))
    data["tradeoff"] = _tradeoff(data.pop("cells_a"), data.pop("cells_b"), claimed, a)
    data.update(
        samples=samples,
        seed=seed,
        claimed_epsilon=epsilon,
        delta=delta,
        confidence=confidence,
        event_text=event.describe(),
    )
    return data
