"""Learned scores of vector outputs for threshold events: coordinates, boxes on the most
shifted coordinates, votes (weighted counts of coordinates above their medians), a projection
and a logistic-regression classifier, each fitted on the building sample only."""

from __future__ import annotations

import math

import numpy as np
from scipy import optimize, stats

from auditor.engine.events import (
    BlockBayes,
    Coordinate,
    KeyFn,
    Linear,
    MinBox,
    NaiveBayes,
    Score,
    Vote,
)

__all__ = [
    "block_bayes",
    "column_blocks",
    "column_weights",
    "homogeneity",
    "mode_bin",
    "naive_bayes",
    "pattern_weights",
    "tree_weights",
    "vector_scores",
    "votes",
    "weigh_columns",
]

LOGISTIC_ROWS = 100_000  # rows per dataset the logistic-regression event is fitted on


def _logistic_weights(
    yx: np.ndarray, yy: np.ndarray, seed: int, limit: int = LOGISTIC_ROWS
) -> np.ndarray:
    """L2-regularised logistic regression of "came from D" on the raw output (numpy + L-BFGS,
    full-batch on up to ``limit`` rows per dataset: weak signals need many rows, and a
    full-batch quasi-Newton fit of a few dozen weights on 10^5 rows takes well under a
    second)."""
    rng = np.random.default_rng(seed)
    ix = rng.permutation(yx.shape[0])[:limit]
    iy = rng.permutation(yy.shape[0])[:limit]
    X = np.concatenate([yx[ix], yy[iy]]).astype(float)
    mu, sd = X.mean(axis=0), X.std(axis=0)
    sd[sd == 0] = 1.0
    Z = np.hstack([(X - mu) / sd, np.ones((X.shape[0], 1))])
    t = np.concatenate([np.ones(ix.size), np.zeros(iy.size)])
    lam = 1e-3

    def loss(w):
        z = Z @ w
        p = 1.0 / (1.0 + np.exp(-z))
        val = np.mean(np.logaddexp(0.0, z) - t * z) + lam * w[:-1] @ w[:-1]
        grad = Z.T @ (p - t) / Z.shape[0]
        grad[:-1] += 2 * lam * w[:-1]
        return val, grad

    res = optimize.minimize(
        loss, np.zeros(Z.shape[1]), jac=True, method="L-BFGS-B", options={"maxiter": 200}
    )
    return res.x[:-1] / sd


def _robust_scale(yx: np.ndarray, yy: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    mx, my = np.median(yx, axis=0), np.median(yy, axis=0)
    q = np.quantile(np.concatenate([yx, yy]), [0.25, 0.75], axis=0)
    width = q[1] - q[0]
    width[width <= 0] = 1.0
    return mx, my, width


def vector_scores(yx: np.ndarray, yy: np.ndarray, seed: int, on: set[str]) -> list[Score]:
    """Coordinates, threshold products on the most-shifted coordinates, projection, classifier."""
    d = yx.shape[1]
    scores: list[Score] = [Coordinate(i) for i in range(min(d, 32))] if "coordinate" in on else []
    mx, my, width = _robust_scale(yx, yy)
    diff = (mx - my) / width
    mean_diff = (yx.mean(axis=0) - yy.mean(axis=0)) / width
    rank = np.argsort(-(np.abs(diff) + 1e-9 * np.abs(mean_diff)), kind="stable")
    for k in range(2, min(d, 6) + 1) if "box" in on else ():
        c = rank[:k]
        signs = np.where(diff[c] + 1e-12 * mean_diff[c] >= 0, 1.0, -1.0)
        scores.append(
            MinBox(
                tuple(int(i) for i in c),
                tuple(signs.tolist()),
                tuple(((mx[c] + my[c]) / 2).tolist()),
                tuple(width[c].tolist()),
            )
        )
    if "vote" in on:
        scores += votes(yx, yy)
    if "projection" in on and np.any(mean_diff != 0):
        scores.append(Linear(tuple((mean_diff / width).tolist()), "projection"))
    if "classifier" not in on:
        return scores
    w = _logistic_weights(yx, yy, seed)
    if np.any(w != 0):
        scores.append(Linear(tuple(w.tolist()), "logistic-regression score"))
    return scores


def _bin_counts(key: KeyFn, counted) -> tuple[np.ndarray, np.ndarray]:
    """Counts of each of a one-column key's bins under the two datasets, from its tally (keys
    are hashes of bin indices: hash one representative value per bin and look it up)."""
    (col,), (edges,) = key.cols, key.edges
    rep = np.zeros((len(edges) + 1, col + 1))
    rep[:, col] = np.concatenate([[-np.inf], edges])
    h = key(rep)
    idx = np.minimum(np.searchsorted(counted.keys, h), max(counted.keys.size - 1, 0))
    hit = (counted.keys.size > 0) & (counted.keys[idx] == h)
    c = np.where(hit[:, None], counted.counts[idx], 0).astype(float)
    return c[:, 0], c[:, 1]


def mode_bin(edges) -> int | None:
    """The bin that holds one value alone (a column's mode, such as "no answer": edges ``v``
    and the next float above it), or None."""
    e = np.asarray(edges, dtype=float)
    one = np.flatnonzero(e[1:] == np.nextafter(e[:-1], np.inf))
    return int(one[0]) + 1 if one.size else None


def column_weights(cx: np.ndarray, cy: np.ndarray, mode: int | None, given: bool) -> np.ndarray:
    """One column's naive-Bayes weight of each of its bins, from the bins' counts: by
    :func:`tree_weights`, or *given* whether the column holds its ``mode`` bin (see
    :func:`naive_bayes`): the mode weighs 0 and the other bins their ratio among themselves."""
    if not given or mode is None:
        return tree_weights(cx + 0.5, cy + 0.5, mode)
    w = np.zeros(cx.size)
    rest = np.arange(cx.size) != mode
    if rest.sum() > 0:
        w[rest] = tree_weights(cx[rest] + 0.5, cy[rest] + 0.5)
    return w


COLUMN_LEVEL = 1e-3  # beside a STRONG_LEVEL column, one not rejected at this level weighs 0
STRONG_LEVEL = 1e-9  # a column whose homogeneity is rejected at this level: clear evidence


def weigh_columns(margins: list[tuple[np.ndarray, np.ndarray, int | None, bool]]) -> list:
    """The naive-Bayes weights of a score's columns (:func:`column_weights`), each given as
    its bins' counts (cx, cy), mode bin and whether it is weighed given its mode.

    Where some column tells the datasets apart clearly (:func:`homogeneity` below
    STRONG_LEVEL), a column that does not tell them apart at all (not below COLUMN_LEVEL)
    weighs 0. Shrunk but kept, its noise would split every level of the score: over a Bloom
    filter's bits (RAPPOR) the 14 bits that neither value sets carried weights near 0.001
    beside the 6 differing bits' 0.05, so the score's top tails were slices of the top class
    (all six on their favoured side, mass 0.018) that selection ranked by their luck; at 1e7
    per dataset one of mass 0.006 was certified where the class, pooled with its mirror
    image, is worth 0.2955. With those columns at 0 (and the tails' model fitted on a score of
    few values, :mod:`count_tails`), RAPPOR's mean bound over seeds 2026-2035 at 1e7 rose from
    0.2944 to 0.2962, and over seeds 2026-2045 at 1e6 from 0.2778 to 0.2787. Where no column
    is clear (many weak columns, or a small sample: a sparse vector's flags at 5e4 outputs),
    every column keeps its shrunk weight, and their sum its evidence."""
    tests = [homogeneity(*m) for m in margins]
    clear = min(tests, default=1.0) < STRONG_LEVEL
    return [
        np.zeros(m[0].size) if clear and t >= COLUMN_LEVEL else column_weights(*m)
        for m, t in zip(margins, tests)
    ]


def homogeneity(cx: np.ndarray, cy: np.ndarray, mode: int | None, given: bool) -> float:
    """The p-value of a G-test that a column's bins hold the same distribution under the two
    datasets (for a column weighed given its mode: its other bins, among themselves). Empty
    bins do not count as degrees of freedom; 1 where there are none."""
    if given and mode is not None:
        rest = np.arange(cx.size) != mode
        cx, cy = cx[rest], cy[rest]
    seen = (cx + cy) > 0
    obs = np.stack([cx[seen], cy[seen]]).astype(float)
    dof = obs.shape[1] - 1
    if dof < 1 or np.any(obs.sum(1) == 0):
        return 1.0
    exp = np.outer(obs.sum(1), obs.sum(0)) / obs.sum()
    pos = obs > 0
    g = 2.0 * float(np.sum(obs[pos] * np.log(obs[pos] / exp[pos])))
    return float(stats.chi2.sf(g, dof))


def naive_bayes(
    keys: list[KeyFn], tallies: list, given: frozenset[int] = frozenset()
) -> NaiveBayes | None:
    """The naive-Bayes score of one-column binned keys, from their tallies: each bin weighs
    its log-likelihood ratio ln(p_x / p_y), estimated by :func:`tree_weights` so that bins
    whose ratio is noise carry their coarser neighbourhood's weight. ``None`` if no weight
    survives.

    The columns in ``given`` are weighed *given* whether they hold their mode: the mode's bin
    weighs 0 and the others their ratio among the non-modal values. Where a pattern of flags
    that is weighed on its own says which answers are released (a sparse vector's revealed
    values), the evidence of "released or not" is the pattern's and is not counted again."""
    cols, edges, weights = [], [], []
    kept = [(k, c) for k, c in zip(keys, tallies) if c is not None and not c.overflow]
    margins = [
        (*_bin_counts(key, counted), mode_bin(key.edges[0]), key.cols[0] in given)
        for key, counted in kept
    ]
    for (key, _), w in zip(kept, weigh_columns(margins)):
        if np.max(np.abs(w)) > 1e-9:
            cols.append(key.cols[0])
            edges.append(key.edges[0])
            weights.append(tuple(np.round(w, 9).tolist()))
    if not cols:
        return None
    return NaiveBayes(tuple(cols), tuple(edges), tuple(weights))


BLOCK_LEVEL = 1e-9  # a column pair is dependent when independence is rejected at this level


def column_blocks(codes: list[np.ndarray], level: float = BLOCK_LEVEL) -> list[list[int]]:
    """Blocks of columns (lists of column positions): the connected components of "dependent",
    where a pair of columns is dependent when a G-test of independence of their bin codes
    (``codes``: one (rows, columns) integer array per dataset) rejects at ``level`` on either
    dataset. Independence must hold on each dataset alone: pooled, two shifted columns would
    look dependent through the mixture."""
    d = codes[0].shape[1]
    parent = list(range(d))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i in range(d):
        for j in range(i + 1, d):
            if root(i) != root(j) and any(_dependent(c[:, i], c[:, j], level) for c in codes):
                parent[root(j)] = root(i)
    groups: dict[int, list[int]] = {}
    for i in range(d):
        groups.setdefault(root(i), []).append(i)
    return list(groups.values())


def _dependent(a: np.ndarray, b: np.ndarray, level: float) -> bool:
    """Is independence of two columns of small non-negative codes rejected at ``level``
    (G-test; empty rows and columns of the table do not count as degrees of freedom)?"""
    ka, kb = int(a.max()) + 1, int(b.max()) + 1
    obs = np.bincount(a * kb + b, minlength=ka * kb).reshape(ka, kb).astype(float)
    rows, cols = obs.sum(1), obs.sum(0)
    dof = (np.count_nonzero(rows) - 1) * (np.count_nonzero(cols) - 1)
    if dof < 1:
        return False
    seen = obs > 0
    exp = np.outer(rows, cols)[seen] / obs.sum()
    g = 2.0 * float(np.sum(obs[seen] * np.log(obs[seen] / exp)))
    return bool(stats.chi2.sf(g, dof) < level)


def block_bayes(
    keys: list[KeyFn], tallies: list, rest: NaiveBayes | None = None
) -> BlockBayes | None:
    """The block score of :class:`BlockBayes` from each block key's tally, plus ``rest`` (the
    naive-Bayes score of the other columns): a cell (a pattern of the block's columns) weighs
    its log-likelihood ratio as fitted by :func:`pattern_weights`. ``None`` if a block's cells
    overflowed the tally."""
    cells, weights = [], []
    for key, counted in zip(keys, tallies):
        if counted is None or counted.overflow or counted.keys.size == 0:
            return None
        rows = np.asarray(counted.rows[:, list(key.cols or ())], dtype=np.float64)
        w = pattern_weights(rows, counted.counts[:, 0], counted.counts[:, 1])
        cells.append(tuple(int(k) for k in counted.keys.tolist()))
        weights.append(tuple(np.round(w, 9).tolist()))
    return BlockBayes(tuple(keys), tuple(cells), tuple(weights), rest)


# A block's pattern weights come from a logistic regression of the dataset on its columns'
# values (one indicator per value of each column), fitted on the block's patterns weighted by
# their counts: the discriminative counterpart of the naive-Bayes sum of the columns' own
# ratios, which counts twice the evidence that dependent columns share (a sparse vector's
# flags, tied by one threshold noise and its cutoff). Before, each pattern weighed its own
# ratio shrunk toward a naive-Bayes prior, which left a rare pattern's ratio to its few
# counts; a dozen fitted coefficients rank the rare patterns, where the best events lie, far
# better. On SVT34Parallel (two sparse vectors side by side, 56 patterns each), patterns
# drawn at 3e5 per dataset and the best likelihood-ordered prefix set valued exactly: 0.217
# and 0.222 with the shrunk ratios, 0.228 with these weights, 0.239 and 0.241 with the exact
# order (its pairs 4 and 7, 10 draws each). The fit does not see interactions between a
# block's columns (a pattern whose ratio is not the sum of its values'); the atoms family's
# own-count order of the joint patterns still does.
def pattern_weights(cells: np.ndarray, cx: np.ndarray, cy: np.ndarray) -> np.ndarray:
    """Log-likelihood ratios of a block's distinct patterns (``cells``, one row each, with
    counts ``cx`` and ``cy`` under the two datasets), by the logistic fit described above: its
    log-odds at a pattern, less the log-ratio of the two sample sizes. Zeros when a dataset
    has no count or no column varies."""
    import warnings

    from sklearn.exceptions import ConvergenceWarning
    from sklearn.linear_model import LogisticRegression

    cx, cy = np.asarray(cx, dtype=float), np.asarray(cy, dtype=float)
    parts = []
    for j in range(cells.shape[1]):
        at = np.ravel(np.unique(cells[:, j], return_inverse=True)[1])
        if at.max() > 0:
            parts.append(np.eye(int(at.max()) + 1)[at])
    if not parts or not (cx.sum() > 0 and cy.sum() > 0):
        return np.zeros(cells.shape[0])
    x = np.hstack(parts)
    w = np.concatenate([cx, cy])
    label = np.r_[np.ones(cx.size), np.zeros(cy.size)]
    held = w > 0
    with warnings.catch_warnings():  # a fit stopped early still orders the patterns
        warnings.simplefilter("ignore", ConvergenceWarning)
        fit = LogisticRegression(max_iter=500).fit(np.vstack([x, x])[held], label[held], w[held])
    return fit.decision_function(x) - math.log(cx.sum() / cy.sum())


TREE_SHRINK = 1.0  # k: 1 shrinks a difference by half where it equals its standard error


def tree_weights(cx: np.ndarray, cy: np.ndarray, mode: int | None = None) -> np.ndarray:
    """Log-likelihood ratios of ordered bins (relative to the whole column), estimated down a
    binary tree: the column splits into halves, each half into halves, and so on; each node's
    estimate is its parent's plus their difference shrunk by
    d^2 / (d^2 + k se^2) (se^2 the delta-method variance of the difference). Where the ratio
    is a step (shifted noise: one sign on each side of the shift), the fine bins share the
    well-estimated weight of their half instead of adding their own noise to it; where it
    varies across the bins, the differences are large and kept.

    A ``mode`` bin (a value held alone, :func:`mode_bin`: "no answer") is split off first,
    and the halves are those of the other bins: the mode lies among the values in the bins'
    order (a sparse vector's 0 for "no answer" among its released answers), and halving
    across it would never compare the values below their median with those above, the one
    difference a shifted answer has."""
    total = math.log(cx.sum() / cy.sum())
    w = np.zeros(cx.size)

    def node(idx: np.ndarray, parent_d: float, parent_w: float, parent_var: float) -> None:
        sx, sy = cx[idx].sum(), cy[idx].sum()
        d, var = math.log(sx / sy) - total, 1 / sx + 1 / sy
        diff = d - parent_d
        here = parent_w + diff**3 / (diff**2 + TREE_SHRINK * max(var - parent_var, 1e-15))
        if idx.size == 1:
            w[idx[0]] = here
            return
        half = idx.size // 2
        node(idx[:half], d, here, var)
        node(idx[half:], d, here, var)

    if mode is None or cx.size < 3:
        node(np.arange(cx.size), 0.0, 0.0, 0.0)
    else:
        root = 1 / cx.sum() + 1 / cy.sum()
        node(np.array([mode]), 0.0, 0.0, root)
        node(np.flatnonzero(np.arange(cx.size) != mode), 0.0, 0.0, root)
    return w


def votes(yx: np.ndarray, yy: np.ndarray) -> list[Vote]:
    """A vote on the coordinates and one on their increments (outputs that are running sums,
    such as prefix sums or continual counters, have independent increments)."""
    d = yx.shape[1]
    if d < 2:
        return []
    inc = lambda y: np.diff(y.astype(float, copy=False), axis=1, prepend=0.0)
    out = [_vote(yx, yy, False), _vote(yx, yy, False, pooled=True)]
    out.append(_vote(inc(yx), inc(yy), True))
    return [v for v in out if v is not None]


def _vote(yx: np.ndarray, yy: np.ndarray, increments: bool, pooled: bool = False) -> Vote | None:
    """A vote score: each coordinate cut at its pooled median, weighted by the log-likelihood
    ratio of "above the cut" (to first order: the difference of the two frequencies over
    p(1-p)), estimated here with its t-statistic shrunk towards the mean t over the
    coordinates (James-Stein). Many weak, alike shifts (a parallel composition) then pool into
    near-equal weights, while a few strong ones (Bloom filter bits) keep theirs; ``pooled``
    shrinks all the way (equal weights: the sign test of a parallel composition)."""
    d = yx.shape[1]
    both = np.concatenate([yx[:50_000], yy[:50_000]]).astype(float)
    cuts = np.median(both, axis=0)
    # a coordinate with mass at its median: cut just below it ([y >= median])
    low = np.mean(both > cuts, axis=0) < 0.05
    cuts = np.where(low, np.nextafter(cuts, -np.inf), cuts)
    zx, zy = np.mean(yx > cuts, axis=0), np.mean(yy > cuts, axis=0)
    p = np.clip((zx + zy) / 2, 1e-6, 1 - 1e-6)
    se = np.sqrt(p * (1 - p) * (1 / yx.shape[0] + 1 / yy.shape[0]))
    t = (zx - zy) / se
    spread = float(np.sum((t - t.mean()) ** 2))
    keep = max(0.0, 1 - (d - 3) / spread) if d > 3 and spread > 0 else 1.0
    # pooled: all the way to the mean (every coordinate alike, e.g. a parallel composition)
    shrunk = t.mean() + (0.0 if pooled else keep) * (t - t.mean())
    w = shrunk * se / (p * (1 - p))
    if not np.any(np.abs(w) > 0) or not np.all(np.isfinite(w)):
        return None
    w = w / np.max(np.abs(w))
    if pooled and np.ptp(np.abs(w)) < 1e-3:  # alike coordinates: (minus) a count (count_tails)
        w = np.sign(w)
    return Vote(tuple(cuts.tolist()), tuple(np.round(w, 6).tolist()), increments)
