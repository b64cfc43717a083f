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
from auditor.engine.scores import block_bayes, column_blocks
from auditor.engine.select import FAMILIES, _local_tally, block_keys


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
    # one block holding the whole output: the atoms family already orders its flags' patterns
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
    bb = block_bayes(keys, [_local_tally(k, yx, yy) for k in keys])
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
    assert "joint values" in r.witness.event


@pytest.mark.parametrize("seed", range(6))
def test_blocks_do_not_flag_a_composition_at_its_composed_claim(seed):
    r = audit(
        _echoed_flags(0.5),
        [(0, 1)],
        epsilon=1.0,
        samples=20_000,
        seed=seed,
        families=("blocks",),
        confidence=0.9,
    )
    assert not r.violation and r.epsilon_lower_bound <= 1.0
