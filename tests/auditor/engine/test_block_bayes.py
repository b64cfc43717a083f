"""The block score: the columns of a vector output split into blocks of mutually dependent
columns (the parts of a composition), each block's discrete pattern weighed by its own
log-likelihood ratio, plus naive Bayes on the remaining columns."""

from __future__ import annotations

import numpy as np
import pytest

from auditor import audit
from auditor.engine.events import (
    BlockBayes,
    KeyFn,
    NaiveBayes,
    ScoreInterval,
    event_from_state,
    event_state,
)
from auditor.engine.scores import block_bayes, column_blocks, mode_bin, naive_bayes
from auditor.engine.select import (
    FAMILIES,
    _column_edges,
    _cuts,
    _given,
    block_keys,
    column_keys,
    local_tally,
)


def _echoed_flags(eps: float, blocks: int = 2, flip: float = 0.1):
    """``blocks`` independent parts, each a randomized response ``a`` of the input bit (eps-DP)
    and a noisy copy of it (``a`` flipped with probability ``flip``, whatever the input): the
    copy adds no privacy loss but is strongly dependent on ``a``. True epsilon: blocks * eps."""

    def sample(data, size, rng):
        keep = rng.random((size, blocks)) < np.exp(eps) / (np.exp(eps) + 1)
        a = np.where(keep, int(data), 1 - int(data))
        b = a ^ (rng.random((size, blocks)) < flip)
        return np.stack([a, b], 2).reshape(size, 2 * blocks).astype(float)

    return sample


def test_score_adds_each_blocks_cell_weight_and_the_rest():
    k = KeyFn((0, 1))
    y = np.array([[0.0, 1.0, 5.0], [1.0, 1.0, 4.0], [1.0, 0.0, 7.0]])
    h = k(y)
    order = np.argsort(h[:2])
    cells = tuple(int(x) for x in h[:2][order])
    weights = tuple(float(w) for w in np.array([0.5, -2.0])[order])
    rest = NaiveBayes((2,), ((5.0,),), ((0.25, -0.25),))
    bb = BlockBayes((k,), (cells,), (weights,), rest)
    # row 3's pattern (1, 0) was never seen: it weighs 0
    assert np.allclose(bb(y), [0.5 - 0.25, -2.0 + 0.25, 0.0 - 0.25])
    ev = ScoreInterval(bb, 0.0, float("inf"))
    assert event_from_state(event_state(ev)) == ev
    assert "joint values of {y[0,1]}" in ev.describe() and "naive Bayes on y[2]" in ev.describe()


def test_column_blocks_are_the_dependent_groups_on_each_dataset():
    rng = np.random.default_rng(0)
    n = 20_000
    a, c = rng.integers(0, 2, n), rng.integers(0, 3, n)
    b = a ^ (rng.random(n) < 0.1)  # depends on a
    d = (c + (rng.random(n) < 0.2)) % 3  # depends on c
    e = rng.integers(0, 2, n)  # independent of everything
    codes = np.stack([a, c, b, e, d], 1)
    assert sorted(map(sorted, column_blocks([codes, codes]))) == [[0, 2], [1, 4], [3]]
    indep = rng.integers(0, 4, (n, 5))
    assert column_blocks([indep, indep]) == [[0], [1], [2], [3], [4]]


def test_a_shift_between_datasets_does_not_join_independent_columns():
    """Pooled, two columns that both shift with the dataset look dependent (through the
    mixture); on each dataset alone they are independent, and they stay apart."""
    rng = np.random.default_rng(1)
    n = 20_000
    x = (rng.random((n, 2)) < 0.8).astype(int)
    y = (rng.random((n, 2)) < 0.2).astype(int)
    assert column_blocks([x, y]) == [[0], [1]]
    assert len(column_blocks([np.concatenate([x, y])])) == 1  # what pooling would say


def test_block_keys_of_a_composition_and_when_there_are_none():
    rng = np.random.default_rng(2)
    sample = _echoed_flags(0.5)
    yx, yy = sample(0, 20_000, rng), sample(1, 20_000, rng)
    keys = block_keys(yx, yy, set(FAMILIES))
    assert sorted(k.cols for k in keys) == [(0, 1), (2, 3)]
    assert block_keys(yx, yy, set(FAMILIES) - {"blocks"}) == []
    # one block holding the whole output: the atoms family already orders its patterns
    one = _echoed_flags(0.5, blocks=1)
    assert block_keys(one(0, 20_000, rng), one(1, 20_000, rng), set(FAMILIES)) == []
    value = rng.normal(size=(20_000, 1))  # a real column released when the first flag is up
    yx = np.hstack([yx[:, :2], np.where(yx[:, :1] == 1, value, 0.0)])
    assert block_keys(yx, yx, set(FAMILIES)) == []
    # independent columns: no block of two
    ind = rng.integers(0, 2, (20_000, 4)).astype(float)
    assert block_keys(ind, ind, set(FAMILIES)) == []


def test_a_blocks_weight_is_its_joint_ratio_not_the_product_of_its_columns():
    """In each block the copy carries no evidence of its own: the pattern's weight follows the
    first flag alone, where a per-column sum would count the evidence about twice."""
    rng = np.random.default_rng(3)
    eps = 0.5
    sample = _echoed_flags(eps)
    yx, yy = sample(0, 200_000, rng), sample(1, 200_000, rng)
    keys = block_keys(yx, yy, set(FAMILIES))
    bb = block_bayes(keys, [local_tally(k, yx, yy) for k in keys])
    assert bb is not None
    for k, cells, weights in zip(bb.keys, bb.cells, bb.weights):
        w = dict(zip(cells, weights))
        for a, b in [(0, 0), (0, 1), (1, 0), (1, 1)]:
            cell = int(k(np.array([[a, b, a, b]], dtype=float))[0])
            assert w[cell] == pytest.approx(eps if a == 0 else -eps, abs=0.05)


def test_blocks_alone_find_the_composed_epsilon():
    """2 blocks of eps=0.5: true 1.0. Over a claim of 0.6 it is caught by this family alone,
    with a bound above what one block could certify (0.5)."""
    r = audit(
        _echoed_flags(0.5), [(0, 1)], epsilon=0.6, samples=200_000, seed=4, families=("blocks",)
    )
    assert r.violation and 0.6 < r.epsilon_lower_bound <= 1.0
    # the block score's threshold, or a set of patterns of both blocks (its flag grid's cells)
    assert "joint values" in r.witness.event or "y[[0, 1, 2, 3]]" in r.witness.event


@pytest.mark.parametrize("seed", range(6))
def test_blocks_do_not_flag_a_composition_at_its_composed_claim(seed):
    """Two blocks at 0.45 each (true epsilon 0.9) against the claim 1: some slack, as a
    mechanism at its exact epsilon is flagged on up to 1 - confidence of the seeds."""
    r = audit(
        _echoed_flags(0.45),
        [(0, 1)],
        epsilon=1.0,
        samples=20_000,
        seed=seed,
        families=("blocks",),
        confidence=0.9,
    )
    assert not r.violation and r.epsilon_lower_bound <= 1.0


def _released(eps_flag: float, eps_value: float, width: int = 3):
    """A flag (randomized response of the input bit, eps_flag) and, when it is up, a released
    answer ``bit + Lap(1 / eps_value)`` in the column after it (0: no answer); ``width`` such
    parts side by side on the same bit. The flags and their answers are dependent, the parts
    independent. True epsilon: width * (eps_flag + eps_value), on the rows with every flag up
    and every answer beyond the input's range."""

    def sample(data, size, rng):
        keep = rng.random((size, width)) < np.exp(eps_flag) / (np.exp(eps_flag) + 1)
        flag = np.where(keep, 1 - int(data), int(data))
        answer = int(data) + rng.laplace(0.0, 1 / eps_value, (size, width))
        return np.stack([flag, np.where(flag == 1, answer, 0.0)], 2).reshape(size, 2 * width)

    return sample


def test_a_mode_bin_holds_the_mode_alone():
    rng = np.random.default_rng(5)
    col = np.where(rng.random(10_000) < 0.7, 0.0, rng.normal(size=10_000))
    e = _cuts(col, alone=True)
    k = mode_bin(e)
    codes = np.searchsorted(e, col, side="right")
    assert k is not None and np.array_equal(codes == k, col == 0.0)
    assert mode_bin(_cuts(rng.normal(size=10_000), alone=True)) is None  # no mode: no bin


def test_released_answers_are_given_their_flags_and_a_free_mode_is_not():
    rng = np.random.default_rng(6)
    sample = _released(0.5, 0.5, width=1)
    yx, yy = sample(0, 20_000, rng), sample(1, 20_000, rng)
    clipped = np.maximum(rng.normal(size=(20_000, 1)), 0.0)  # a mode (0) no flag tells
    yx, yy = np.hstack([yx, clipped]), np.hstack([yy, clipped[::-1]])
    keys = block_keys(yx, yy, set(FAMILIES))
    assert [k.cols for k in keys] == [(0,)]  # the flag's block; the clipped column has none
    real = [k for k in column_keys(yx, yy, set(FAMILIES)) if k.cols[0] in (1, 2)]
    assert _given(yx, yy, keys, real) == {1}


def test_answers_weighed_given_their_flags_do_not_count_the_flags_again():
    """The answer column's non-modal bins weigh their ratio among released answers (about
    +-eps_value at the ends), not that plus the flag's; its "no answer" bin weighs 0."""
    rng = np.random.default_rng(7)
    sample = _released(1.0, 0.5, width=1)
    yx, yy = sample(0, 200_000, rng), sample(1, 200_000, rng)
    both = np.concatenate([yx, yy])
    key = KeyFn((1,), (_column_edges(both, {0}, 1),))
    counted = local_tally(key, yx, yy)
    given = naive_bayes([key], [counted], frozenset({1})).weights[0]
    plain = naive_bayes([key], [counted]).weights[0]
    k = mode_bin(key.edges[0])
    assert given[k] == 0.0 and plain[k] < -0.5  # "no answer" is the flag's evidence
    ends = [w for i, w in enumerate(given) if i != k]
    assert ends[0] == pytest.approx(0.5, abs=0.1) and ends[-1] == pytest.approx(-0.5, abs=0.1)
    assert plain[0] - given[0] > 0.8  # the plain weight adds the flag's ln e^1 again


def test_the_pattern_score_finds_flags_and_their_answers_together():
    """3 parts of (flag 0.3, answer 0.3): true 1.8; claimed 1.0 is caught by the block score of
    the flags' joint pattern plus the answers given the flags, and the claim at the true value
    is not flagged."""
    sample, fams = _released(0.3, 0.3), ("blocks", "naive_bayes")
    r = audit(sample, [(0, 1)], epsilon=1.0, samples=300_000, seed=8, families=fams)
    assert r.violation and 1.0 < r.epsilon_lower_bound <= 1.8
    # the block score, or the naive-Bayes grid's cells over all six columns (their joint
    # tally holds the flags' pattern too)
    ev = r.witness.event
    assert "joint values of {y[0]; y[2]; y[4]} plus naive Bayes on y[1,3,5]" in ev or (
        "histogram over y[[0, 1, 2, 3, 4, 5]]" in ev
    )
    for seed in range(3):
        r = audit(sample, [(0, 1)], epsilon=1.8, samples=100_000, seed=seed, families=fams)
        assert not r.violation


def test_rare_patterns_weigh_the_sum_of_their_flags_fitted_coefficients():
    """6 independent flags (randomized response of the bit, eps 0.4 each) held as one block:
    the exact ratio of a pattern is the sum of its flags'. On a small tally the fitted weights
    are far nearer the exact ratios than each pattern's own count ratio (mean squared error
    over the patterns seen below a quarter of it), on each of 5 seeds. On a block whose
    second flag only echoes the first, the weights still follow the joint ratio (the fit does
    not count the echo's evidence twice, as naive Bayes would)."""
    eps, k = 0.4, 6
    key = KeyFn(tuple(range(k)))
    p = np.exp(eps) / (np.exp(eps) + 1)
    for seed in range(5):
        rng = np.random.default_rng(seed)
        yx = np.where(rng.random((1_000, k)) < p, 1.0, 0.0)
        yy = np.where(rng.random((1_000, k)) < p, 0.0, 1.0)
        counted = local_tally(key, yx, yy)
        exact = eps * (2 * counted.rows.sum(1) - k)
        w = np.asarray(block_bayes([key], [counted]).weights[0])
        cx, cy = counted.counts[:, 0] + 0.5, counted.counts[:, 1] + 0.5
        own = np.log(cx / cy) - np.log(cx.sum() / cy.sum())
        assert np.mean((w - exact) ** 2) < 0.25 * np.mean((own - exact) ** 2)
    rng = np.random.default_rng(9)
    sample = _echoed_flags(eps, blocks=1, flip=0.05)
    yx, yy = sample(0, 200_000, rng), sample(1, 200_000, rng)
    key = KeyFn((0, 1))
    bb = block_bayes([key], [local_tally(key, yx, yy)])
    w = dict(zip(bb.cells[0], bb.weights[0]))
    for a, b in [(0, 0), (0, 1), (1, 0), (1, 1)]:
        cell = int(key(np.array([[a, b]], dtype=float))[0])
        assert w[cell] == pytest.approx(eps if a == 0 else -eps, abs=0.05)
