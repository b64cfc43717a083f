"""Cross-fitted judging of key-set events (auditor/engine/crossfit.py): each recipe is built on
one sample and counted on the other, both ways, and the event certified is built on both."""

from __future__ import annotations

import numpy as np
import pytest

from auditor import audit
from auditor.engine.claims import PointClaim
from auditor.engine.crossfit import add_tallies, count_keys, crossfit
from auditor.engine.events import KeyFn, KeySet
from auditor.engine.select import (
    MAX_KEYS,
    MONOTONE,
    KeyTally,
    Scorer,
    keyset_recipes,
    merge_tally,
    monotone_log_ratio,
    tally,
)

KEY = KeyFn((0, 1), ((), (-1.0, 0.0, 1.0, 2.0)))  # a flag and a binned value: a histogram


def _sample(shift: float, size: int, rng) -> np.ndarray:
    flag = rng.integers(0, 3, size)
    value = rng.laplace(shift * (flag == 1), 1.0, size)
    return np.stack([flag, value], 1).astype(float)


def _tally(key: KeyFn, size: int, seed: int) -> KeyTally:
    rng = np.random.default_rng(seed)
    t = merge_tally(None, tally(key, _sample(0.0, size, rng)), 0, size)
    return merge_tally(t, tally(key, _sample(0.6, size, rng)), 1, size)


SCORER = Scorer(20_000, 100_000, 0.025, PointClaim(0.1, 0.0))


def test_two_tallies_add_up_cell_by_cell():
    a, b = _tally(KEY, 20_000, 1), _tally(KEY, 30_000, 2)
    both = add_tallies(a, b)
    assert both.m == 50_000 and not both.overflow
    for k, c in zip(both.keys.tolist(), both.counts.tolist()):
        want = np.zeros(2, dtype=np.int64)
        for t in (a, b):
            want += t.counts[t.keys == k].sum(axis=0)
        assert c == want.tolist()
    assert both.counts.sum(axis=0).tolist() == [50_000, 50_000]


def test_a_key_set_is_counted_on_a_tally_as_on_the_outputs():
    rng = np.random.default_rng(3)
    ya, yb = _sample(0.0, 5000, rng), _sample(0.6, 5000, rng)
    t = merge_tally(merge_tally(None, tally(KEY, ya), 0, 5000), tally(KEY, yb), 1, 5000)
    ev = KeySet(KEY, tuple(t.keys[::2].tolist()), ("",) * len(t.keys[::2]))
    assert count_keys(ev, t).tolist() == [int(ev.contains(ya).sum()), int(ev.contains(yb).sum())]


def test_each_recipe_is_built_on_one_fold_counted_on_the_other_and_refit_on_both():
    a, b = _tally(KEY, 20_000, 4), _tally(KEY, 20_000, 5)
    cands, counts, m, done = crossfit([KEY], [a], [b], SCORER, keep=1000)
    assert m == 40_000 and done == [KEY] and len(cands) == counts.shape[0] > 10
    both = add_tallies(a, b)
    families = {c.family for c in cands}
    assert families == {"histogram", MONOTONE}
    for family in families:
        folds = {1: a, 2: b, 3: both}
        built = {
            name: dict(
                keyset_recipes(
                    KEY, t, SCORER, None if family == "histogram" else monotone_log_ratio(KEY, t)
                )
            )
            for name, t in folds.items()
        }
        mine = [(c, n) for c, n in zip(cands, counts) if c.family == family]
        assert mine
        for c, n in mine:
            recipe = next(r for r, x in built[3].items() if x.event == c.event)
            assert c.forward == recipe[0]
            want = count_keys(built[1][recipe].event, b) + count_keys(built[2][recipe].event, a)
            assert n.tolist() == want.tolist()


def test_each_family_keeps_its_best_by_the_refit_prediction():
    a, b = _tally(KEY, 20_000, 6), _tally(KEY, 20_000, 7)
    every, _, _, _ = crossfit([KEY], [a], [b], SCORER, keep=1000)
    few, _, _, _ = crossfit([KEY], [a], [b], SCORER, keep=3)
    for family in ("histogram", MONOTONE):
        ranked = sorted((c.predicted for c in every if c.family == family), reverse=True)
        assert sorted((c.predicted for c in few if c.family == family), reverse=True) == ranked[:3]


def test_only_the_families_asked_for_are_crossed():
    """The engine crosses a histogram's monotone order but not its cells' own-count order:
    the other family's candidates are left to be judged as they were built."""
    a, b = _tally(KEY, 20_000, 10), _tally(KEY, 20_000, 11)
    every, _, _, _ = crossfit([KEY], [a], [b], SCORER, keep=1000)
    some, counts, m, done = crossfit([KEY], [a], [b], SCORER, keep=1000, families=(MONOTONE,))
    assert m == 40_000 and done == [KEY]
    assert some and {c.family for c in some} == {MONOTONE} and counts.shape == (len(some), 2)
    assert [c.event for c in some] == [c.event for c in every if c.family == MONOTONE]


def test_a_key_that_overflowed_or_was_not_judged_is_not_crossed():
    a, b = _tally(KEY, 20_000, 8), _tally(KEY, 20_000, 9)
    over = KeyTally(b.keys[:0], b.counts[:0], b.rows[:0], b.m, overflow=True)
    empty = KeyTally(b.keys[:0], b.counts[:0], b.rows[:0], 0)
    for fold_b in (over, empty):
        cands, counts, _, done = crossfit([KEY], [a], [fold_b], SCORER, keep=24)
        assert cands == [] and counts.shape == (0, 2) and done == []


def test_a_key_whose_two_tallies_overflow_together_is_not_crossed():
    """Each fold under the key limit, their union over it: no event could be built on both,
    so the key keeps its own candidates (it is not reported as cross-fitted)."""
    size = MAX_KEYS // 2 + 10
    rng = np.random.default_rng(15)
    one = lambda lo: KeyTally(
        np.arange(lo, lo + size, dtype=np.uint64),
        rng.integers(1, 5, (size, 2)),
        np.zeros((size, 1)),
        200_000,
    )
    key = KeyFn((0,))
    cands, counts, _, done = crossfit([key], [one(0)], [one(size)], SCORER, keep=24)
    assert cands == [] and counts.shape == (0, 2) and done == []


def test_adding_tallies_past_the_key_limit_overflows():
    size = MAX_KEYS // 2 + 10
    one = lambda lo: KeyTally(
        np.arange(lo, lo + size, dtype=np.uint64),
        np.ones((size, 2), dtype=np.int64),
        np.zeros((size, 1)),
        size,
    )
    assert add_tallies(one(0), one(size)).overflow
    assert not add_tallies(one(0), one(0)).overflow


def _pattern_vector(data, size, rng):
    """First of 4 noisy queries above a noisy threshold, and its noisy answer (a sparse vector
    that reveals its answer)."""
    q = np.asarray(data, float)
    noisy = q + rng.laplace(0, 4.0, (size, 4))
    above = noisy >= 1.0 + rng.laplace(0, 2.0, (size, 1))
    first = np.where(above.any(1), np.argmax(above, 1), 4)
    flags = (np.arange(4) == first[:, None]).astype(float)
    value = np.where(first < 4, noisy[np.arange(size), np.minimum(first, 3)], 0.0)
    return np.round(np.column_stack([flags, value]), 3)


@pytest.mark.parametrize("seed", [1, 2])
def test_an_audit_certifies_the_crossed_event_and_resumes_to_it(tmp_path, monkeypatch, seed):
    """A sparse-vector-like mechanism: its key-set candidates are judged cross-fitted (their
    counts on twice the judging outputs), and an interrupt in its judging resumes to the same
    result."""
    from auditor.engine import session
    from tests.auditor.engine.test_scale import _interrupt_then_resume

    seen = []
    real = session.crossfit

    def spy(keys, a, b, scorer, keep, grids, families):
        out = real(keys, a, b, scorer, keep, grids, families)
        seen.append((out[2], a[0].m, b[0].m if b[0] is not None else 0, len(out[0])))
        return out

    monkeypatch.setattr(session, "crossfit", spy)
    pairs = [((1, 1, 1, 1), (2, 2, 0, 0))]
    kw = dict(epsilon=0.5, samples=200_000, seed=seed, workers=1, early_stop=False)
    plain = audit(_pattern_vector, pairs, **kw)
    assert seen and all(m == ma + mb and ma > 0 and mb > 0 and k > 0 for m, ma, mb, k in seen)
    monkeypatch.setattr(session, "crossfit", real)
    _interrupt_then_resume(monkeypatch, tmp_path, 12, _pattern_vector, pairs, kw, plain)
    assert plain.epsilon_lower_bound >= 0


def test_the_grid_cells_weigh_what_the_naive_bayes_score_gives_their_outputs():
    """The naive-Bayes grid's cell order is the naive-Bayes score itself: each column's
    margin of the grid's tally is that column's own tally, so the weights are the same."""
    from auditor.engine.scores import naive_bayes
    from auditor.engine.select import FAMILIES, column_keys, grid_key, grid_log_ratio, local_tally

    rng = np.random.default_rng(12)
    yx = np.asarray(_pattern_vector((1, 1, 1, 1), 40_000, rng), float)
    yy = np.asarray(_pattern_vector((2, 2, 0, 0), 40_000, rng), float)
    grid = grid_key(yx, yy, set(FAMILIES))
    assert grid is not None and grid.cols == (0, 1, 2, 3, 4)
    counted = local_tally(grid, yx, yy)
    cols = column_keys(yx, yy, set(FAMILIES))
    nb = naive_bayes(cols, [local_tally(k, yx, yy) for k in cols])
    assert nb is not None
    assert np.allclose(grid_log_ratio(grid, counted), nb(counted.rows), atol=1e-6)


def test_no_grid_for_many_real_columns():
    from auditor.engine.select import FAMILIES, grid_key

    rng = np.random.default_rng(13)
    y = rng.laplace(0, 1, (20_000, 16))  # each column in 2 bins: 65,536 cells
    assert grid_key(y, y + 0.1, set(FAMILIES)) is None
    assert grid_key(y[:, :8], y[:, :8] + 0.1, set(FAMILIES)) is not None  # 256 cells
    assert grid_key(y, y, {"atoms"}) is None  # naive Bayes off


def test_a_checkpoint_holds_the_tallies_exactly_and_refuses_a_bad_one(tmp_path):
    """The key tallies of both samples survive a checkpoint bit for bit (a resumed audit
    cross-fits on exactly the uninterrupted one's), and a tally that does not hold together
    is refused as a corrupt checkpoint."""
    import hashlib
    import json

    from auditor.engine import session_state
    from proofs.errors import InputError

    t = _tally(KEY, 5000, 14)
    back = session_state._tally_from_state(json.loads(json.dumps(session_state._tally_state(t))))
    for name in ("keys", "counts", "rows"):
        a, b = getattr(t, name), getattr(back, name)
        assert a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b)
    assert (back.m, back.overflow) == (t.m, t.overflow)

    ck = tmp_path / "f.ckpt"
    pairs = [((1, 1, 1, 1), (2, 2, 0, 0))]
    kw = dict(epsilon=0.5, samples=100_000, seed=3, workers=1, checkpoint=ck)
    audit(_pattern_vector, pairs, **kw)
    doc = json.loads(ck.read_text())
    fold = next(f for rnd in doc["state"]["folds"] for f in rnd if f is not None)
    fold["a"][0]["counts"] = session_state._array_state(np.zeros((1, 2), dtype=np.int64))
    text = json.dumps([doc["identity"], doc["state"]], sort_keys=True)  # past the digest
    doc["digest"] = hashlib.sha256(text.encode()).hexdigest()
    ck.write_text(json.dumps(doc))
    with pytest.raises(InputError, match=r"corrupt.*tally"):
        audit(_pattern_vector, pairs, **kw)


def _two_parts(a, b):
    """Two sparse vectors that reveal their answers, run side by side with independent noise:
    two blocks of flags (each with its answer), independent of each other."""

    def sample(data, size, rng):
        return np.column_stack([_pattern_vector(a if data == 0 else b, size, rng) for _ in (0, 1)])

    return sample


def _flag_grid_sample(seed: int):
    from auditor.engine.select import FAMILIES, block_keys

    rng = np.random.default_rng(seed)
    sample = _two_parts((1, 1, 1, 1), (2, 2, 0, 0))
    yx, yy = sample(0, 40_000, rng), sample(1, 40_000, rng)
    return yx, yy, tuple(block_keys(yx, yy, set(FAMILIES)))


def test_a_flag_grid_weighs_each_cell_by_the_sum_of_its_blocks_pattern_weights():
    """Each block's tally is a margin of the grid's, so a cell weighs its blocks' pattern
    weights fitted on those margins, summed (the blocks are independent)."""
    from auditor.engine.scores import pattern_weights
    from auditor.engine.select import block_log_ratio, flag_grid
    from auditor.engine.select import local_tally as local

    yx, yy, blocks = _flag_grid_sample(15)
    assert [k.cols for k in blocks] == [(0, 1, 2, 3), (5, 6, 7, 8)]
    grid = flag_grid(yx, yy, blocks)
    assert grid is not None and grid.cols == (0, 1, 2, 3, 5, 6, 7, 8) and grid.edges is None
    counted = local(grid, yx, yy)
    want = np.zeros(counted.keys.size)
    for k in blocks:
        own = local(k, yx, yy)  # the block's own tally: its patterns and their counts
        w = pattern_weights(own.rows[:, list(k.cols)], own.counts[:, 0], own.counts[:, 1])
        at = np.searchsorted(own.keys, k(counted.rows))
        want += w[at]
    assert np.allclose(block_log_ratio(grid, counted, blocks), want, atol=1e-4)


def test_the_flag_grid_stands_in_for_a_naive_bayes_grid_that_cannot_be_had():
    """With no naive-Bayes grid (here naive Bayes is off; on many real columns it has too many
    cells) and two blocks, the blocks' flag grid is the grid whose cells are cross-fitted,
    ordered by the block score; one block alone gets none (its patterns are the atoms')."""
    from auditor.engine.select import BLOCK_CELLS, FAMILIES, flag_grid, key_orders, vector_keys
    from auditor.engine.select import local_tally as local

    yx, yy, blocks = _flag_grid_sample(16)
    keys = vector_keys(yx, yy, set(FAMILIES) - {"naive_bayes"})
    assert keys.grid == flag_grid(yx, yy, blocks) and keys.grid_blocks == blocks
    assert keys.ordered()[-1] == (keys.grid, blocks)
    assert list(key_orders(keys.grid, local(keys.grid, yx, yy), blocks)) == [BLOCK_CELLS]
    assert flag_grid(yx, yy, blocks[:1]) is None


def test_a_naive_bayes_grid_of_blocks_is_ordered_by_the_block_score_which_it_replaces():
    """With the naive-Bayes grid at hand, its cells (the flags and the answers' bins) are
    ordered by the block score, and neither that score's nor the naive-Bayes score's threshold
    events (functions of the same cells) are proposed beside them; with naive Bayes off, the
    flag grid leaves the answers out, and the block score's events are still proposed."""
    from auditor.engine.select import (
        BLOCK_CELLS,
        FAMILIES,
        NB_CELLS,
        Scorer,
        _vector_candidates,
        grid_key,
        key_orders,
        vector_keys,
    )
    from auditor.engine.select import local_tally as local

    yx, yy, blocks = _flag_grid_sample(18)
    keys = vector_keys(yx, yy, set(FAMILIES))
    assert keys.grid == grid_key(yx, yy, set(FAMILIES)) and keys.grid.edges is not None
    assert keys.grid_blocks == blocks
    orders = key_orders(keys.grid, local(keys.grid, yx, yy), blocks)
    assert list(orders) == [BLOCK_CELLS]
    scorer = Scorer(40_000, 100_000, 0.025, PointClaim(0.1, 0.0))
    fams = {c.family for c in _vector_candidates(yx, yy, scorer, 0, set(FAMILIES), keys=keys)}
    assert BLOCK_CELLS in fams and NB_CELLS not in fams
    assert not fams & {"blocks", "blocks tails", "naive_bayes", "naive_bayes tails"}
    off = set(FAMILIES) - {"naive_bayes"}
    fams = {c.family for c in _vector_candidates(yx, yy, scorer, 0, off)}
    assert {BLOCK_CELLS, "blocks", "blocks tails"} <= fams


def test_a_released_answer_is_weighed_given_the_pattern_that_says_it_is_released():
    """On the naive-Bayes grid ordered by blocks, a real column whose "no answer" mode is fixed
    by the flags weighs 0 there, and its released values by their ratio among themselves."""
    from auditor.engine.scores import mode_bin, tree_weights
    from auditor.engine.select import FAMILIES, _rest_weights, vector_keys
    from auditor.engine.select import local_tally as local

    yx, yy, blocks = _flag_grid_sample(19)
    for y in (yx, yy):  # a released answer rounded to the "no answer" value 0 would blur it
        for flags, j in (((0, 1, 2, 3), 4), ((5, 6, 7, 8), 9)):
            y[(y[:, flags].sum(1) > 0) & (y[:, j] == 0), j] = 0.001
    keys = vector_keys(yx, yy, set(FAMILIES))
    counted = local(keys.grid, yx, yy)
    inside = sorted({j for k in blocks for j in k.cols})
    w = _rest_weights(keys.grid, counted, inside)
    pos = keys.grid.cols.index(4)  # the first block's answer
    edges = np.asarray(keys.grid.edges[pos])
    at = np.searchsorted(edges, counted.rows[:, 4], side="right")
    silent = at == mode_bin(edges)
    assert silent.any() and (~silent).any()
    other = np.searchsorted(edges, counted.rows[:, 9], side="right")  # the second's
    quiet = other == mode_bin(np.asarray(keys.grid.edges[keys.grid.cols.index(9)]))
    assert np.allclose(w[silent & quiet], 0.0)
    # with the second answer silent, a cell weighs its first answer's bin: that bin's ratio
    # among the released values' bins, from the grid's counts summed over the other columns
    c = counted.counts.astype(float)
    size = edges.size + 1
    bx, by = np.bincount(at, c[:, 0], size), np.bincount(at, c[:, 1], size)
    released = np.arange(size) != mode_bin(edges)
    want = np.zeros(size)
    want[released] = tree_weights(bx[released] + 0.5, by[released] + 0.5)
    one = ~silent & quiet
    assert one.any() and np.allclose(w[one], want[at[one]])
    assert np.ptp(want[released]) > 0.05  # the answers carry evidence of their own


def test_the_crossed_flag_grid_and_its_blocks_survive_a_checkpoint():
    import json

    from auditor.engine import session_state
    from auditor.engine.select import flag_grid
    from auditor.engine.select import local_tally as local

    yx, yy, blocks = _flag_grid_sample(17)
    grid = flag_grid(yx, yy, blocks)
    assert grid is not None
    folds = {"keys": (grid,), "grids": (blocks,), "a": [local(grid, yx, yy)], "b": [None]}
    state = json.loads(json.dumps(session_state._folds_state(folds)))
    back = session_state._folds_from_state(state)
    assert back["keys"] == (grid,) and back["grids"] == (blocks,) and back["b"] == [None]
    assert np.array_equal(back["a"][0].counts, folds["a"][0].counts)
    state["grids"] = [[]]  # a flag grid of no blocks: corrupt
    with pytest.raises(ValueError, match="tallies"):
        session_state._folds_from_state(state)


def test_a_blocks_pattern_weights_are_a_logistic_fit_that_sees_through_dependent_columns():
    """Two flags that always agree under both datasets carry one piece of evidence: naive Bayes
    counts it twice, the logistic fit once. With the log-ratio additive in the columns' values
    (here exactly: P_D = P_D' times exp(w . x), renormalised), the fitted weights are the true
    log-ratios, whatever the dependence."""
    from auditor.engine.scores import pattern_weights

    cells = np.array([[0, 0, 0], [0, 0, 1], [1, 1, 0], [1, 1, 1], [0, 1, 0]], dtype=float)
    base = np.array([0.3, 0.2, 0.25, 0.2, 0.05])  # dependent columns: 0 and 1 mostly agree
    truth = cells @ np.array([0.2, 0.3, -0.4])
    tilted = base * np.exp(truth)
    px, py = tilted / tilted.sum(), base
    w = pattern_weights(cells, 1e6 * px, 1e6 * py)
    exact = np.log(px / py)
    assert np.allclose(w, exact, atol=2e-3)
    nb = np.zeros(len(cells))  # the naive-Bayes sum of each column's own ratio
    for j in range(cells.shape[1]):
        on = cells[:, j] == 1
        nb += np.where(
            on, np.log(px[on].sum() / py[on].sum()), np.log(px[~on].sum() / py[~on].sum())
        )
    assert not np.allclose(nb - nb.mean(), exact - exact.mean(), atol=0.05)
    assert np.array_equal(pattern_weights(cells, np.zeros(5), py), np.zeros(5))


def test_a_prefix_set_never_splits_a_level_of_its_pooled_score():
    """Cells a pooled fit scores alike are one level: a naive-Bayes grid whose other columns
    weigh 0 scores every cell by its clear column alone. A prefix that cut through a level
    would take the cells its own counts favour, a slice chosen by luck (laplace.vector_l1 at
    1e6: 0.0827 against 0.0894 with whole levels); each prefix ends at a level's last cell."""
    t = _tally(KEY, 20_000, 12)
    flag = t.rows[:, 0]
    score = np.where(flag == 1, 0.3, np.where(flag == 2, -0.1, 0.0))  # by the flag alone
    prefixes = [c for r, c in keyset_recipes(KEY, t, SCORER, score) if r[1] == "prefix"]
    assert prefixes
    level = dict(zip(t.keys.tolist(), score.tolist()))
    for c in prefixes:
        inside = set(c.event.keys)
        for value in set(level.values()):
            cells = {k for k, v in level.items() if v == value}
            assert cells <= inside or not cells & inside, (c.forward, sorted(inside))
    # on the cells' own ratios (no pooled fit) the prefixes follow the cells one by one
    own = [c for r, c in keyset_recipes(KEY, t, SCORER) if r[1] == "prefix"]
    assert len({len(c.event.keys) for c in own}) > len({len(c.event.keys) for c in prefixes})
