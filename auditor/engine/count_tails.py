"""Tails of a count score, judged through a two-parameter model of the count.

The pooled vote of a vector output (``scores.votes``: every coordinate cut at its median, all
weights equal) counts the coordinates above their cuts. When the coordinates are independent
and alike (a parallel composition: the same mechanism run k times on one input), the count is
binomial under each dataset and its log-likelihood ratio is *linear* in the count. Its best
event is a tail, ``count >= c``, whose ratio grows with ``c`` while its mass shrinks.

Judged on their own counts, such tails are ranked badly on a weak signal: a tail of mass 6% seen
on 150k outputs has a log-ratio standard error near 0.015, far above the differences between
neighbouring tails, and the shrink that protects the choice against lucky draws penalises the
rarer tail most (LaplaceParallel, 20 x eps/20: the judge picks tails of mass 25-35% whose
expected bound is 0.77x that of the best one, about 6%).

Here every tail is judged through the model instead: a logistic regression of "which dataset"
on the count value, fitted on the judging counts of all the tails together (the binned counts
between consecutive cuts), gives each tail's expected counts and the standard error of its
log-ratio, which is several times smaller than the tail's own. The fit is used only when it
fits: a deviance goodness-of-fit test at level GOF_LEVEL; otherwise the tails keep their plain
judged counts. All of this is selection data: certification of the chosen event is untouched.

The tails of a learned likelihood-ratio score (naive Bayes over the columns, the block score;
families LLR_FAMILIES) are judged the same way, with the score's value in place of the count
(a bin's value: the midpoint of its cuts). Where the score is the log-likelihood ratio (columns
independent, as the bits of a Bloom filter), the logit is linear in it with slope 1, and the
rarest levels, whose own counts are too few to rank them (RAPPOR at 1e6 per dataset: all
differing bits on their favoured side, mass 1-2%), are predicted from every level at once. A
score whose fitted slope is far from 1 (CALIBRATED, at 2 standard errors) overcounts dependent
columns (sparse vector: naive Bayes over the flags of one run fits slopes of 0.1-0.5); its
ratio need not be linear in it, and extrapolating the slope to its rare tails misjudges them,
so its tails keep their own counts.

A real output's own tails (families VALUE_FAMILIES: cuts at fixed quantiles of the building
sample, 1e-4 to 0.1 on each side) are judged the same way, one model per side
(:func:`_side_model`). The Gaussian's logit is linear in its output, so its rare tails, whose
ratio grows as they shrink, are predicted from every bin of their side; ranked on their own
counts, the shrink against lucky draws steered the choice to a tail ten times too large (the
catalogue's Gaussian at 1e6: certified 0.198 against an oracle of 0.238). The outer tails
alone hold too few outputs to show their slope at that size (3 standard errors off 0 in few
audits: the same Gaussian over 100 seeds still averaged 0.200), so the side's model first sees
its inner bins too, down to the 0.4 quantile, and is kept where that whole side is one straight
line: slope WIDE_Z standard errors off 0, no broken line (linear to a knot, flat beyond it: a
Laplace's logit, bent at the shift) fitting its bins HINGE_GAIN better, and the outer tails'
own slope in agreement (AGREE_Z); over 100 seeds the Gaussian then averaged 0.229. Otherwise
the model of the outer tails alone, with its slope SLOPE_Z standard errors off 0, refitted
flat beyond the innermost knot whose broken line fits those bins within KNOT_SLACK of the best
(:func:`_loose_knots`): where the data cannot tell whether the logit keeps rising, the rarer
tails are not credited with a ratio the line alone would give them. Report-noisy-max's value
(the largest of five noisy answers) falls across its outer tails and turns flat where all five
answers lie in their Laplace tails (every tail beyond has the full ratio e^0.25); the straight
line ranked its rarest tails first, and at 1e6 two of five seeds certified 0.108 and 0.036
(0.212 and 0.236 flat beyond the knot; the catalogue's Gaussian, whose logit is straight, kept
its mean over 100 seeds). Either model predicts the outer tails only, and a side with no
model offers no candidates at all
(select.judge): where the logit is flat in the tails (Laplace), a chance slope would send the
choice to a rare tail no better than a wide one, and more tails ranked on their own counts
would only add lucky draws.

A learned score's model is trusted only where the judging sample sees the tail: a tail with
fewer than MIN_TAIL expected judging outputs under either dataset keeps its own counts. Its
most extreme values come from the few building outputs that fell in rare cells, and its fitted
slope, set by the bulk of the bins, overstates their ratio (SVT34Parallel at 1e6: the block
score's last tail, of mass 5e-4, was predicted to certify 0.21; its log-ratio is 0.14, and
on 700k fresh outputs it certified 0). A count's levels are the mechanism's own, and its
model, exact where the coordinates are independent, predicts its rare tails too
(LaplaceParallel at 1e7: with the floor on its count as well, its bound fell from 0.0467 to
0.0443).
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from auditor.engine.events import ScoreInterval, Vote

__all__ = ["FAMILY", "TailModel", "fit_groups", "is_count", "tail_cuts"]

FAMILY = "count tails"
LLR_FAMILIES = frozenset({"naive_bayes tails", "blocks tails"})
LOW, HIGH = "value tails (low)", "value tails (high)"  # a real output's own tails, each side
VALUE_FAMILIES = frozenset({LOW, HIGH})
MODELLED = LLR_FAMILIES | VALUE_FAMILIES | {FAMILY}
CALIBRATED = (0.8, 1.25)  # a likelihood-ratio score's fitted slope must be near 1 (2 sigma)
GOF_LEVEL = 0.01  # the linear model is rejected below this deviance p-value
MIN_BIN = 5.0  # bins with fewer outputs (both datasets) are left out of the fit
MAX_CUTS = 24  # cuts offered per count score (wide counts: at spread quantiles)
SEPARATED = 1e-9  # a fitted probability this near 0 or 1: separation, the tails' own counts rule
SLOPE_Z = 3.0  # a real output's side gets its model only when its slope is this many sds off 0
OUTER = 0.15  # a real output's outer tails: bins with at most this mass beyond them
WIDE_Z = 4.0  # a real output's whole-side model: its slope this many sds off 0
HINGE_GAIN = 4.0  # ... no broken line fitting its bins better by this much chi-square
AGREE_Z = 2.0  # ... and its outer tails' own slope within this many sds of its slope
KNOT_SLACK = 4.0  # outer tails alone: flat beyond the innermost knot fitting this near the best
MIN_TAIL = 500.0  # a learned score's tail with fewer judging outputs (either side): own counts


def is_count(score) -> bool:
    """A vote whose weights are all +1 or all -1: its value is (minus) an integer count."""
    return (
        isinstance(score, Vote)
        and len(score.weights) > 1
        and len({float(w) for w in score.weights}) == 1
        and abs(float(score.weights[0])) == 1.0
    )


def tail_cuts(s: np.ndarray, least: int = 3) -> list[float]:
    """Half-integer cuts between the count values of the building scores ``s`` with at least
    ``least`` of them on either side (rarer values join the outermost bins); at most MAX_CUTS,
    spread over the quantiles of ``s`` (densest in its tails) when the count has more values."""
    s = np.sort(np.asarray(s, dtype=float))
    if s.size < 2 * least:
        return []
    lo, hi = int(np.floor(s[least - 1])), int(np.ceil(s[-least]))
    if hi - lo <= MAX_CUTS:
        return [v + 0.5 for v in range(lo, hi)]
    tail = np.geomspace(least, s.size / 2, MAX_CUTS // 4)
    ranks = np.concatenate([tail, s.size - tail, np.linspace(0, s.size - 1, MAX_CUTS // 2)])
    values = np.floor(s[np.clip(ranks.astype(np.int64), least - 1, s.size - least)])
    return sorted({float(v) + 0.5 for v in values if lo <= v < hi})


@dataclass(frozen=True, slots=True)
class TailModel:
    """Fitted ``logit P[first dataset | count v] = alpha + beta v`` over the bins of a group of
    tails of one count score; ``n`` outputs per bin (both datasets), ``v`` the bin's value."""

    cuts: np.ndarray  # sorted half-integer cuts; bin j lies between cuts j-1 and j
    v: np.ndarray
    n: np.ndarray
    theta: np.ndarray
    cov: np.ndarray
    learned: bool = False  # a learned score's (LLR_FAMILIES), not a count's
    skip: int | None = None  # a bin outside the fit (a value tail's rest): no tail through it
    closed: tuple[int, ...] = ()  # bins no predicted tail may contain (a side's inner bins)

    def tail(self, cut: float, upper: bool, forward: bool, z: float) -> tuple[float, float] | None:
        """(numerator, denominator) expected fractions of the tail ``score > cut`` (``upper``)
        or ``score <= cut``, their log-ratio moved ``z`` of its standard errors toward the
        unfavourable side (half on each); None where the model cannot tell (no outputs)."""
        from scipy.special import expit

        k = int(np.searchsorted(self.cuts, cut))  # bins 0..k lie below the cut
        part = slice(k + 1, None) if upper else slice(0, k + 1)
        if self.skip is not None and self.skip in range(self.v.size)[part]:
            return None
        if any(j in range(self.v.size)[part] for j in self.closed):
            return None
        eta = self.theta[0] + self.theta[1] * self.v[part]
        p, q, n = expit(eta), expit(-eta), self.n[part]
        x, y = float(np.sum(n * p)), float(np.sum(n * q))
        if not (x > 0 and y > 0) or (self.learned and min(x, y) < MIN_TAIL):
            return None
        w = n * p * q
        g = (1 / x + 1 / y) * np.array([np.sum(w), np.sum(w * self.v[part])])
        se = math.sqrt(max(float(g @ self.cov @ g), 0.0))
        if not math.isfinite(se) or z * se > 20:
            return None
        num, den = (x, y) if forward else (y, x)
        m = float(np.sum(self.n)) / 2  # outputs per dataset
        return min(num / m * math.exp(-z * se / 2), 1.0), min(den / m * math.exp(z * se / 2), 1.0)


def _bins(cuts: np.ndarray, above: np.ndarray, m: float) -> tuple[np.ndarray, np.ndarray]:
    """Counts per bin between consecutive cuts, for one dataset, from its tail counts above
    each cut (``m`` outputs in all)."""
    edges = np.concatenate([[m], above, [0.0]])
    return -np.diff(edges)


def fit(
    cuts: np.ndarray,
    above_x: np.ndarray,
    above_y: np.ndarray,
    m: float,
    integer: bool = True,
    calibrated: bool = False,
    skip: int | None = None,
    exclude=(),
    slope_z: float = SLOPE_Z,
    flat: tuple[float, float] = (-math.inf, math.inf),
) -> TailModel | None:
    """The logistic model on the bins of the cuts (counts above each cut under the pair's first
    and second dataset, ``m`` judging outputs each), or None if it does not fit. ``integer``:
    the cuts are half-integers between the values of a count; otherwise a real score's.
    ``calibrated``: the score claims to be the log-likelihood ratio, and gets no model unless
    its slope is near 1. ``skip``: a bin left out of the fit and of every prediction (the
    rest of a real output beyond one side's tails, whose logit the tails' line does not
    describe)."""
    order = np.argsort(cuts)
    cuts, above_x, above_y = cuts[order], above_x[order], above_y[order]
    bx, by = _bins(cuts, above_x, m), _bins(cuts, above_y, m)
    if np.any(bx < 0) or np.any(by < 0):
        return None
    if integer:
        lo, hi = 0.5, 0.5
    else:  # a real score: the outer bins' values half a neighbouring bin's width out
        lo, hi = (cuts[1] - cuts[0]) / 2, (cuts[-1] - cuts[-2]) / 2
    v = np.concatenate([[cuts[0] - lo], (cuts[:-1] + cuts[1:]) / 2, [cuts[-1] + hi]])
    v = np.clip(v, *flat)
    n = bx + by
    used = n >= MIN_BIN
    if skip is not None:
        used[skip] = False
    used[np.asarray(exclude, dtype=np.int64)] = False
    if used.sum() < 3:
        return None
    if skip is not None and not _slope_may_show(v[used], bx[used], by[used], slope_z):
        return None
    from scipy import stats
    from statsmodels.genmod.families import Binomial
    from statsmodels.genmod.generalized_linear_model import GLM
    from statsmodels.tools.sm_exceptions import ConvergenceWarning, ModelWarning

    design = np.column_stack([np.ones(int(used.sum())), v[used]])
    try:
        with warnings.catch_warnings(record=True) as caught:  # separation, no convergence
            warnings.simplefilter("always")
            res = GLM(np.column_stack([bx[used], by[used]]), design, family=Binomial()).fit()
            cov = np.asarray(res.cov_params(), dtype=float)
    except Exception:  # a degenerate fit: no model
        return None
    fitted = np.asarray(res.fittedvalues, dtype=float)
    trouble = (RuntimeWarning, ModelWarning, ConvergenceWarning)
    if (
        any(issubclass(w.category, trouble) for w in caught)
        or not res.converged
        or not np.isfinite(res.deviance)
        or not (np.all(np.isfinite(res.params)) and np.all(np.isfinite(cov)))
        or np.any((fitted < SEPARATED) | (fitted > 1 - SEPARATED))
    ):
        return None  # where the datasets separate, the tails' own counts are the witness
    beta, se = float(res.params[1]), math.sqrt(max(float(cov[1, 1]), 0.0))
    if calibrated and (beta + 2 * se < CALIBRATED[0] or beta - 2 * se > CALIBRATED[1]):
        return None
    if skip is not None and not abs(beta) >= slope_z * se:
        return None  # a value tail's ratio not seen to change across its side: own counts
    df = int(used.sum()) - 2
    if df > 0 and float(stats.chi2.sf(res.deviance, df)) < GOF_LEVEL:
        return None
    return TailModel(cuts, v, n, np.asarray(res.params, dtype=float), cov, calibrated, skip)


def _slope_may_show(
    v: np.ndarray, bx: np.ndarray, by: np.ndarray, slope_z: float = SLOPE_Z
) -> bool:
    """A quick screen before a value tail's fit: the weighted least-squares slope of the bins'
    empirical logits, at least ``slope_z - 1`` of its standard errors off 0 (the fit then asks
    ``slope_z``: SLOPE_Z for the outer tails, WIDE_Z for a whole side). A flat side (most of
    them: the Laplace's) then costs no logistic fit, and no import of statsmodels (0.6 s, a
    fifth of a small scalar audit's time)."""
    beta, se = _wls_slope(v, bx, by)
    return abs(beta) >= (slope_z - 1) * se


def _wls_slope(v: np.ndarray, bx: np.ndarray, by: np.ndarray) -> tuple[float, float]:
    """Weighted least-squares slope of the bins' empirical logits on their values, and its
    standard error (inf when the values do not vary)."""
    logit = np.log((bx + 0.5) / (by + 0.5))
    w = 1.0 / (1.0 / (bx + 0.5) + 1.0 / (by + 0.5))
    with np.errstate(over="ignore", invalid="ignore"):  # (values near 1e300: no fit, quietly)
        vm = np.sum(w * v) / np.sum(w)
        sxx = float(np.sum(w * (v - vm) ** 2))
        if not (sxx > 0 and math.isfinite(sxx)):
            return 0.0, math.inf
        return float(np.sum(w * (v - vm) * logit)) / sxx, 1.0 / math.sqrt(sxx)


def counts_above(cands, idx, num: np.ndarray, den: np.ndarray, m: float) -> dict:
    """The judging counts beyond each cut of a group of tails (candidates ``idx``), under the
    pair's first and second dataset, by cut: a lower tail's counts are turned into those above
    its cut (``m`` judging outputs per dataset)."""
    above: dict[float, tuple[float, float]] = {}
    for i in idx:
        c = cands[i]
        x, y = (num[i], den[i]) if c.forward else (den[i], num[i])
        upper = math.isinf(c.event.hi)
        cut = c.event.lo if upper else c.event.hi
        above[cut] = (x, y) if upper else (m - x, m - y)
    return above


def fit_groups(cands, num: np.ndarray, den: np.ndarray, m2: int) -> dict[int, TailModel]:
    """For every group of modelled tail candidates (same pair, same score; families MODELLED),
    the fitted model, keyed by the candidates' indices. ``num``, ``den``: their oriented
    judging counts."""
    groups: dict[tuple, list[int]] = {}
    for i, c in enumerate(cands):
        if c.family in MODELLED and isinstance(c.event, ScoreInterval):
            groups.setdefault((c.pair_index, c.event.score, c.family), []).append(i)
    out: dict[int, TailModel] = {}
    for idx in groups.values():
        above = counts_above(cands, idx, num, den, m2)
        if len(above) < 2:
            continue
        cuts = np.array(sorted(above))
        family = cands[idx[0]].family
        if family in VALUE_FAMILIES:
            model = _side_model(cuts, above, float(m2), family)
            if model is not None:
                out.update(dict.fromkeys(idx, model))
            continue
        ax = np.array([above[c][0] for c in cuts])
        ay = np.array([above[c][1] for c in cuts])
        model = fit(
            cuts,
            ax,
            ay,
            float(m2),
            integer=family == FAMILY,
            calibrated=family in LLR_FAMILIES,
            skip={LOW: cuts.size, HIGH: 0}.get(family),
        )
        bulk = _bulk(cuts, ax, ay, float(m2)) if family in LLR_FAMILIES else None
        if model is None and bulk is not None:
            model = fit(cuts, ax, ay, float(m2), integer=False, calibrated=True, exclude=(bulk,))
            if model is not None:
                model = dataclasses.replace(model, closed=(bulk,))
        if model is not None:
            out.update(dict.fromkeys(idx, model))
    return out


def _bulk(cuts: np.ndarray, ax: np.ndarray, ay: np.ndarray, m: float) -> int | None:
    """The bin of a learned score's tails that holds most outputs (more than half of both
    datasets'), between the two sides' innermost cuts, or None. It spans many of the score's
    values, and the midpoint of its cuts, the value the model gives a bin, need not be its
    outputs' mean score: where the score has few values (naive Bayes over a few bits) and the
    cuts fall unevenly on its two sides, the bulk's midpoint lay 0.017 above its log-ratio,
    4 standard errors on 150,000 outputs, and the deviance test rejected the model. Where the
    model with it does not fit, the model without it is tried, and no tail it predicts runs
    through the bulk (such a tail keeps its own counts)."""
    order = np.argsort(cuts)
    n = _bins(cuts[order], ax[order], m) + _bins(cuts[order], ay[order], m)
    big = int(np.argmax(n))
    return big if n[big] > n.sum() / 2 else None


def _side_model(cuts: np.ndarray, above: dict, m: float, family: str) -> TailModel | None:
    """The model of one side of a real output (``above``: its judging counts beyond each cut),
    or None. First the line through every bin of the side, its outer tails and the inner bins
    of WIDE_QUANTILES: kept if its slope is WIDE_Z standard errors off 0, it fits, no broken
    line (flat beyond a knot) fits its bins better by HINGE_GAIN, and the slope of the outer
    tails alone agrees with it (AGREE_Z). Otherwise the model of the outer tails alone (their
    slope SLOPE_Z standard errors off 0), flat beyond their loose knot (:func:`_loose_knots`).
    Either predicts only the outer tails."""
    ax = np.array([above[c][0] for c in cuts])
    ay = np.array([above[c][1] for c in cuts])
    rest = {LOW: cuts.size, HIGH: 0}[family]
    bx, by = _bins(cuts, ax, m), _bins(cuts, ay, m)
    mass = (bx + by) / (2 * m)
    outward = np.cumsum(mass[::-1])[::-1] if family == HIGH else np.cumsum(mass)
    outer = outward <= OUTER  # the bins beyond the outer tails' widest cut
    inner = tuple(int(j) for j in np.flatnonzero(~outer))
    seen = bx + by >= MIN_BIN
    side = seen.copy()
    side[rest] = False
    used = seen & outer
    used[rest] = False
    high = family == HIGH

    wide = fit(cuts, ax, ay, m, integer=False, skip=rest, slope_z=WIDE_Z)
    if (
        wide is not None
        and used.sum() >= 3
        and _hinge_gain(wide.v[side], bx[side], by[side], high) < HINGE_GAIN
    ):
        beta, se = _wls_slope(wide.v[used], bx[used], by[used])
        wse = math.sqrt(max(float(wide.cov[1, 1]), 0.0))
        if abs(beta - wide.theta[1]) <= AGREE_Z * math.hypot(se, wse):
            return dataclasses.replace(wide, closed=inner)
    model = fit(cuts, ax, ay, m, integer=False, skip=rest, exclude=inner)
    if model is None:
        return None
    # flat beyond the innermost loose knot whose refit fits (any slope: the line's was shown)
    for knot in _loose_knots(model.v[used], bx[used], by[used], high):
        flat = (-math.inf, knot) if high else (knot, math.inf)
        bent = fit(cuts, ax, ay, m, integer=False, skip=rest, exclude=inner, slope_z=0, flat=flat)
        if bent is not None:
            model = bent
            break
    return dataclasses.replace(model, closed=inner)


def _loose_knots(v: np.ndarray, bx: np.ndarray, by: np.ndarray, high: bool) -> list[float]:
    """The values ``v`` (bins of one side's outer tails) at which the logit may turn flat,
    innermost first: the broken line, linear up to the knot and flat beyond it on the outer
    side, fits within KNOT_SLACK chi-square of the best broken line or straight line. Not the
    outermost value (that is the straight line)."""
    fits = _broken_fits(v, bx, by, high)
    best = min(fits.values())
    edge = float(v.max() if high else v.min())
    fine = [k for k, r in fits.items() if k not in (None, edge) and r <= best + KNOT_SLACK]
    return sorted(fine, reverse=not high)


def _broken_fits(v: np.ndarray, bx: np.ndarray, by: np.ndarray, high: bool) -> dict:
    """The weighted chi-square of the bins' empirical logits about the straight line (key
    None) and about each broken line: linear up to a knot at one of the values ``v``, flat
    beyond it on the outer side (above it when ``high``)."""
    logit = np.log((bx + 0.5) / (by + 0.5))
    w = 1.0 / (1.0 / (bx + 0.5) + 1.0 / (by + 0.5))

    def rss(x: np.ndarray) -> float:
        r = logit - np.average(logit, weights=w)
        xc = x - np.average(x, weights=w)
        sxx = float(np.sum(w * xc * xc))
        if sxx > 0:
            r = r - float(np.sum(w * xc * logit)) / sxx * xc
        return float(np.sum(w * r * r))

    out: dict = {None: rss(v)}
    for k in v.tolist():
        out[k] = rss(np.minimum(v, k) if high else np.maximum(v, k))
    return out


def _hinge_gain(v: np.ndarray, bx: np.ndarray, by: np.ndarray, high: bool) -> float:
    """By how much (weighted chi-square of the bins' empirical logits) the best broken line,
    linear up to a knot at one of the values ``v`` and flat beyond it on the outer side (a
    Laplace's logit, flat beyond the shift), fits better than one straight line."""
    fits = _broken_fits(v, bx, by, high)
    return fits[None] - min(fits.values())


def fractions(cands, models: dict[int, TailModel], z: float) -> dict[int, tuple[float, float]]:
    """The modelled candidates' (numerator, denominator) expected fractions at shrink ``z``
    (standard errors of the tail's log-ratio), where the model can tell."""
    out = {}
    for i, model in models.items():
        ev = cands[i].event
        upper = math.isinf(ev.hi)
        f = model.tail(ev.lo if upper else ev.hi, upper, cands[i].forward, z)
        if f is not None:
            out[i] = f
    return out


def modelled(cands, models: dict[int, TailModel], z: float, predict: Callable) -> dict[int, float]:
    """Predictions of the modelled candidates at shrink ``z`` (standard errors of the tail's
    log-ratio): ``predict(px, py)`` turns expected fractions into a certified statistic."""
    return {i: float(predict(*f)) for i, f in fractions(cands, models, z).items()}
