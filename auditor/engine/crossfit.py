"""Cross-fitted judging of key-set events.

A key-set event (a set of cells of a key function) is built from a tally of key values and
judged by its counts on fresh outputs. When the judging outputs are tallied too, the two
samples can swap roles: each recipe (:func:`auditor.engine.select.keyset_recipes`: a prefix
mass or a best atom, in one direction, in one order of the cells) is built on one sample and
counted on the other, both ways. Its judged counts then come from both samples, twice the
outputs, so the judge's pick among hundreds of candidates is far less noisy, and the event
that goes on to certification is the recipe built on both samples together: its cells are
ordered on twice the outputs too.

The counts value the recipe built on half the outputs, not the event certified: where the
cells' order is stable on half the outputs (the naive-Bayes grid, ordered by a score of a
few dozen pooled weights, or a histogram's cells ordered by a monotone fit over each
pattern's bins) the two agree, but where it rests on a few rare cells of similar ratios (a
sparse vector's output patterns) the recipe's counts mix cells of both orders and
undervalue it. The engine cross-fits a pair's grid (the naive-Bayes grid or a flag grid) and
its histogram's monotone order, not the cells' own-count orders
(:data:`auditor.engine.select.CROSSED_FAMILIES`, :mod:`auditor.engine.session`).

Everything here is selection: the certified bound is computed on fresh outputs, whatever was
built or judged on these (the select/certify split is untouched).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from auditor.engine.events import KeyFn, KeySet, joined, matched
from auditor.engine.select import (
    MAX_KEYS,
    Candidate,
    KeyTally,
    Scorer,
    key_orders,
    keyset_recipes,
    labelled,
)

__all__ = ["add_tallies", "count_keys", "crossfit"]


def add_tallies(t1: KeyTally, t2: KeyTally) -> KeyTally:
    """The tally of two samples of one key function together (labels from the first)."""
    if t1.overflow or t2.overflow:
        return KeyTally(t1.keys[:0], t1.counts[:0], t1.rows[:0], t1.m + t2.m, overflow=True)
    keys, first, inv = np.unique(joined(t1.keys, t2.keys), return_index=True, return_inverse=True)
    if keys.size > MAX_KEYS:
        return KeyTally(keys[:0], t1.counts[:0], t1.rows[:0], t1.m + t2.m, overflow=True)
    counts = np.zeros((keys.size, 2), dtype=np.int64)
    np.add.at(counts, np.ravel(inv), np.concatenate([t1.counts, t2.counts]))
    rows = np.concatenate([t1.rows, t2.rows])[first]
    return KeyTally(keys, counts, rows, t1.m + t2.m)


def count_keys(event: KeySet, t: KeyTally) -> np.ndarray:
    """How many outputs of the tallied sample fall in a key-set event: (under the pair's first
    dataset, under its second)."""
    have, wanted = matched(t.keys, event.keys)
    hit = np.isin(have, wanted)
    return t.counts[hit].sum(axis=0).astype(np.int64)


def crossfit(
    keys: list[KeyFn],
    folds_a: list[KeyTally],
    folds_b: list[KeyTally],
    scorer: Scorer,
    keep: int,
    grids: list[bool | tuple[KeyFn, ...]] | None = None,
    families: tuple[str, ...] | None = None,
) -> tuple[list[Candidate], np.ndarray, int, list[KeyFn]]:
    """The cross-fitted candidates of key functions from two independent tallies of each
    (``folds_a``: the building sample's, ``folds_b``: the judging sample's, as many outputs
    per dataset in every key's tally); ``grids`` says how each key's cells are ordered: a
    grid's by its score (True: the naive-Bayes grid; a flag grid: its blocks), others by
    their own ratios (:func:`auditor.engine.select.key_orders`); ``families``, which of the
    keys' families are cross-fitted (None: all).

    Returns (candidates, their counts (K, 2) under the pair's first and second dataset, the
    outputs per dataset those counts are on, the key functions cross-fitted). A candidate's
    event is its recipe built on both tallies together; its counts are the recipe built on
    ``fold_a`` counted on ``fold_b`` plus the recipe built on ``fold_b`` counted on
    ``fold_a``. Each family keeps its ``keep`` best by the prediction of the events built on
    both tallies (as :func:`auditor.engine.select.build` keeps the best of each family), and
    a recipe one of the folds cannot build (too few outputs for the key) is left out. A key
    whose values overflowed either tally, or both together, is not cross-fitted (its
    candidates are judged as they were built).
    """
    found: dict[str, list[tuple[Candidate, np.ndarray]]] = {}
    done: list[KeyFn] = []
    both: dict[KeyFn, KeyTally] = {}
    m = 0
    for key, fold_a, fold_b, grid in zip(keys, folds_a, folds_b, grids or [False] * len(keys)):
        if fold_a.overflow or fold_b.overflow or fold_a.m <= 0 or fold_b.m <= 0:
            continue
        together = add_tallies(fold_a, fold_b)
        if together.overflow:  # too many values for a key-set event built on both
            continue
        m = fold_a.m + fold_b.m
        done.append(key)
        both[key] = together
        crossed = _crossed(key, fold_a, fold_b, both[key], scorer, grid, families)
        for family, pairs in crossed.items():
            found.setdefault(family, []).extend(pairs)
    cands: list[Candidate] = []
    counts: list[np.ndarray] = []
    names: dict[KeyFn, dict[int, str]] = {}  # labels made, per key, by position in its tally
    for pairs in found.values():
        pairs.sort(key=lambda x: -x[0].predicted)
        for c, judged in pairs[:keep]:
            assert isinstance(c.event, KeySet)
            key = c.event.key
            tallied = both[key]
            cands.append(replace(c, event=labelled(c.event, tallied, names.setdefault(key, {}))))
            counts.append(judged)
    return cands, np.array(counts, dtype=np.int64).reshape(len(cands), 2), m, done


def _crossed(
    key: KeyFn,
    fold_a: KeyTally,
    fold_b: KeyTally,
    both: KeyTally,
    scorer: Scorer,
    grid: bool | tuple[KeyFn, ...],
    families: tuple[str, ...] | None = None,
) -> dict[str, list[tuple[Candidate, np.ndarray]]]:
    """One key's cross-fitted candidates (not labelled yet) and their counts, by family."""
    folds = {"a": fold_a, "b": fold_b, "ab": both}
    orders = {name: key_orders(key, t, grid) for name, t in folds.items()}
    out: dict[str, list[tuple[Candidate, np.ndarray]]] = {}
    for family in orders["ab"]:
        if families is not None and family not in families:
            continue
        if not all(family in o for o in orders.values()):
            continue
        built = {
            # (no zero atoms: a fold's most frequent value unseen under one dataset may be
            # another in the other fold, and a grid's rarest cells are lucky draws)
            name: dict(
                keyset_recipes(key, t, scorer, orders[name][family], labelled=False, zero=False)
            )
            for name, t in folds.items()
        }
        seen: set[tuple] = set()
        for recipe, c in built["ab"].items():
            ea, eb = built["a"].get(recipe), built["b"].get(recipe)
            if ea is None or eb is None:
                continue
            assert isinstance(c.event, KeySet)
            assert isinstance(ea.event, KeySet) and isinstance(eb.event, KeySet)
            if (recipe[:2], c.event.keys) in seen:  # two masses may end at one key
                continue
            seen.add((recipe[:2], c.event.keys))
            judged = count_keys(ea.event, fold_b) + count_keys(eb.event, fold_a)
            out.setdefault(family, []).append((replace(c, family=family), judged))
    return out
