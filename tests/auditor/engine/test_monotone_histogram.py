"""Histogram cells ordered by ratios fitted monotone in a value (select.monotone_log_ratio).

A synthetic histogram with known cell probabilities: flag patterns whose one real column has
a likelihood ratio rising or falling in its value, a pattern in which two real columns vary
(their log ratios add up), and one with a single cell. Counts are drawn from the exact
probabilities, so the test knows the best possible event and needs no mechanism.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from auditor.engine.claims import PointClaim
from auditor.engine.events import KeyFn
from auditor.engine.select import KeyTally, Scorer, keyset_candidates, monotone_log_ratio
from auditor.engine.stats import expected_certified

BINS = 20
PATTERNS = 8
EDGES = tuple(float(e) for e in np.arange(1, BINS))  # bins of a value in [0, BINS)
KEY = KeyFn((0, 1, 2), ((), EDGES, EDGES))


def _cells() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(rows, probabilities under dataset a, under b) of every cell: PATTERNS flag patterns
    whose value's log ratio is linear in it, rising or falling, steeper in later patterns,
    a pattern in which two real columns vary, and a last one of a single cell."""
    k = np.arange(BINS)
    rows, lr, mass = [], [], []
    for flag in range(PATTERNS):
        slope = (-1) ** flag * (0.05 + 0.2 * flag / PATTERNS) * (k - BINS / 2) / (BINS / 2)
        for j in k:
            rows.append((flag, j + 0.5, 0.5))
            lr.append(slope[j])
            mass.append(0.9 / PATTERNS / BINS)
    for i in range(5):
        for j in range(5):
            rows.append((PATTERNS, 4 * i + 0.5, 4 * j + 0.5))
            lr.append(0.05 * (i - j))
            mass.append(0.09 / 25)
    rows.append((PATTERNS + 1, 0.5, 0.5))
    lr.append(0.1)
    mass.append(0.01)
    lr, mass = np.array(lr), np.array(mass)
    pa, pb = mass * np.exp(lr / 2), mass * np.exp(-lr / 2)
    return np.array(rows), pa / pa.sum(), pb / pb.sum()


def _tally(rows, pa, pb, m: int, seed: int) -> KeyTally:
    rng = np.random.default_rng(seed)
    counts = np.stack([rng.multinomial(m, pa), rng.multinomial(m, pb)], 1)
    keys = KEY(rows)
    order = np.argsort(keys)
    return KeyTally(keys[order], counts[order].astype(np.int64), rows[order], m)


def test_fit_is_monotone_within_patterns_and_additive_across_columns():
    rows, pa, pb = _cells()
    t = _tally(rows, pa, pb, 50_000, seed=1)
    lr = monotone_log_ratio(KEY, t)
    assert lr is not None and lr.shape == (rows.shape[0],)
    for flag, rising in ((0, True), (1, False), (5, False)):
        at = np.flatnonzero(t.rows[:, 0] == flag)
        fit = lr[at[np.argsort(t.rows[at, 1])]]
        steps = np.diff(fit)
        assert np.all(steps >= -1e-12) if rising else np.all(steps <= 1e-12)
        assert np.ptp(fit) > 0.05  # the fit follows the signal, it is not flattened
    two = np.flatnonzero(t.rows[:, 0] == PATTERNS)
    grid = np.full((5, 5), np.nan)
    grid[(t.rows[two, 1] // 4).astype(int), (t.rows[two, 2] // 4).astype(int)] = lr[two]
    interaction = grid - grid[:, :1] - grid[:1, :] + grid[0, 0]
    np.testing.assert_allclose(interaction, 0.0, atol=1e-9)  # one effect per column, added
    assert np.all(np.diff(grid, axis=0) >= -1e-12) and np.all(np.diff(grid, axis=1) <= 1e-12)
    one = t.rows[:, 0] == PATTERNS + 1
    a, b = t.counts[one, 0], t.counts[one, 1]
    np.testing.assert_allclose(lr[one], np.log((a + 1.0) / (b + 1.0)))  # nothing to pool


def test_no_fit_without_a_varying_real_column():
    rows, pa, pb = _cells()
    t = _tally(rows, pa, pb, 50_000, seed=2)
    assert monotone_log_ratio(KeyFn((0, 1, 2)), t) is None  # no edges: not a histogram
    assert monotone_log_ratio(KeyFn((0,), ((),)), t) is None  # no real column
    fixed = (t.rows[:, 1] == 0.5) & (t.rows[:, 2] == 0.5)  # one cell per pattern
    sub = KeyTally(t.keys[fixed], t.counts[fixed], t.rows[fixed], t.m)
    assert monotone_log_ratio(KEY, sub) is None


def _best_exact(cands, keys, pa, pb, n, a, claim) -> float:
    best = 0.0
    for c in cands:
        inside = np.isin(keys, np.asarray(c.event.keys, dtype=keys.dtype))
        px, py = pa[inside].sum(), pb[inside].sum()
        num, den = (px, py) if c.forward else (py, px)
        best = max(best, float(expected_certified(num, den, n, a, claim.statistic)))
    return best


@pytest.mark.parametrize("m", [20_000, 50_000])
def test_monotone_order_finds_better_events_than_own_counts(m):
    """Over 12 seeds, the best proposed event's exact certified bound (true probabilities,
    700k certification samples) is higher on average with the fitted order than with the
    cells' own ratios, and the fitted order reaches at least 80% of the ideal order's."""
    rows, pa, pb = _cells()
    keys = KEY(rows)
    order = np.argsort(keys)
    keys, pa_s, pb_s = keys[order], pa[order], pb[order]
    claim, n, a = PointClaim(0.0, 0.0), 700_000, 0.0125
    scorer = Scorer(m, n, a, claim)
    expected = np.round(m * np.stack([pa_s, pb_s], 1)).astype(np.int64)
    ideal_t = KeyTally(keys, expected, rows[order], m)
    ideal = _best_exact(
        keyset_candidates(KEY, rows, rows, scorer, ideal_t, np.log(pa_s / pb_s)),
        keys,
        pa_s,
        pb_s,
        n,
        a,
        claim,
    )
    raw, fitted = [], []
    for seed in range(12):
        t = _tally(rows, pa, pb, m, seed)
        lr = monotone_log_ratio(KEY, t)
        raw.append(
            _best_exact(
                keyset_candidates(KEY, rows, rows, scorer, t), keys, pa_s, pb_s, n, a, claim
            )
        )
        fitted.append(
            _best_exact(
                keyset_candidates(KEY, rows, rows, scorer, t, lr), keys, pa_s, pb_s, n, a, claim
            )
        )
    assert np.mean(fitted) > np.mean(raw) * 1.05
    assert np.mean(fitted) > 0.8 * ideal


@settings(max_examples=150, deadline=None)
@given(sizes=st.lists(st.integers(1, 12), min_size=1, max_size=8), seed=st.integers(0, 2**32 - 1))
def test_all_segments_fitted_at_once_are_each_segments_best_monotone_fit(sizes, seed):
    """The two isotonic fits over every segment at once (shifted so no block crosses a
    boundary) give each segment the better of its own increasing and decreasing fits."""
    from scipy.optimize import isotonic_regression

    from auditor.engine.select import _monotone_logits

    rng = np.random.default_rng(seed)
    seg = np.repeat(np.arange(len(sizes)), sizes)
    a, b = rng.integers(0, 40, seg.size).astype(float), rng.integers(0, 40, seg.size).astype(float)
    got = _monotone_logits(seg, a, b)
    for s in range(len(sizes)):
        i = seg == s
        w, p = a[i] + b[i] + 1, (a[i] + 0.5) / (a[i] + b[i] + 1)
        fit = 1 / (1 + np.exp(-got[i]))
        sse = float(np.sum(w * (fit - p) ** 2))
        best = min(
            float(np.sum(w * (isotonic_regression(p, weights=w, increasing=up).x - p) ** 2))
            for up in (True, False)
        )
        assert np.all(np.diff(fit) >= -1e-12) or np.all(np.diff(fit) <= 1e-12)
        assert sse == pytest.approx(best, rel=1e-9, abs=1e-12)


@settings(max_examples=150, deadline=None)
@given(
    shape=st.tuples(st.integers(1, 60), st.integers(1, 5)),
    levels=st.integers(1, 6),
    seed=st.integers(0, 2**32 - 1),
)
def test_unique_rows_is_numpys_row_unique(shape, levels, seed):
    from auditor.engine.select import unique_rows

    rng = np.random.default_rng(seed)
    rows = rng.integers(-levels, levels, shape).astype(float) * 0.25
    if seed % 4 == 0:  # NaN: numpy's row unique keeps NaN rows apart
        rows[rows == 0.25] = np.nan
    cells, inv = unique_rows(rows)
    want, want_inv = np.unique(rows, axis=0, return_inverse=True)
    assert np.array_equal(cells, want, equal_nan=True)
    assert np.array_equal(inv, want_inv.ravel())
    assert np.array_equal(cells[inv], rows, equal_nan=True)
