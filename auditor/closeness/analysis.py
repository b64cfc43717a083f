"""The check itself: :func:`closeness` compares every class with the whole table, or with n, with
its best reference set, and lists the worst classes."""

from __future__ import annotations

import math
import time

import numpy as np

from auditor.closeness.distances import check_distance, class_distances, effective_distance
from auditor.closeness.reference import (
    GAP,
    ReferenceSet,
    _Ratio,
    best_reference_set,
    check_reference_distance,
    check_reference_size,
)
from auditor.closeness.result import ClassDistance, ClosenessResult
from auditor.closeness.shared import shared_reference_set
from auditor.closeness.table import (
    SensitiveTable,
    class_sizes,
    count_cells,
    labelled_counts,
    value_totals,
)
from proofs.errors import InputError

__all__ = ["closeness"]


def closeness(
    table: SensitiveTable,
    distance: str = "tv",
    t: float | None = None,
    n: int | None = None,
    top: int = 10,
    time_limit: float = 120.0,
    shared: bool = False,
) -> ClosenessResult:
    """Distance of each class's sensitive distribution to the table's; the worst ``top`` classes.

    With ``n``, each class is compared with its best reference set of at least ``n`` records
    (:func:`best_reference_set`; TV, L1 and EMD only) instead of the whole table. ``time_limit``
    is the total budget (seconds) of the exact searches, shared evenly among the classes still to
    solve; once spent, the remaining classes get the whole table as reference (an upper bound) and
    the lower bound 0, unless a scaled copy of the class fits (distance 0).

    ``shared`` (with ``n``): the notes' partition-level (n, t)-closeness instead, one reference
    set for every class (:func:`auditor.closeness.shared.shared_reference_set`); each class's
    distance is then its distance to that set, and ``time_limit`` bounds the one search.
    """
    started = time.perf_counter()
    _check_arguments(table, distance, t, n, top)
    if shared and n is None:
        raise InputError(
            "shared=True (--shared) compares every class with one reference set of at least n "
            "records; give n as well, e.g. --n 1000."
        )
    table_d = class_distances(table, distance)
    common = None
    if n is None:
        d, refs = table_d, {}
    elif shared:
        d, common = _shared_distances(table, distance, n, time_limit)
        refs = {}
    else:
        d, refs = _reference_distances(table, distance, n, time_limit)
    order = np.lexsort((table.class_first_row, -d))
    sizes = class_sizes(table)
    worst = tuple(_class_entry(table, int(c), d, table_d, sizes, refs) for c in order[:top])
    infinite = int(np.isinf(d).sum())
    unproved, violating_unproved = _unproved(d, refs, t)
    if common is not None and not common.optimal:  # one bound for the whole partition
        unproved = table.classes
        above = 0 if t is None else int(np.count_nonzero(~(d <= t)))
        violating_unproved = above if t is not None and common.bound <= t else 0
    return ClosenessResult(
        source=table.source,
        qi=table.qi,
        sensitive=table.sensitive,
        distance=distance,
        ordered=table.ordered,
        t=t,
        n=n,
        rows=table.rows,
        classes=table.classes,
        values=len(table.values),
        closeness=float(d.max()),
        violating_classes=None if t is None else int(np.count_nonzero(~(d <= t))),
        infinite_classes=infinite,
        worst=worst,
        reference_solves=len({id(r) for r in refs.values()}),
        seconds=time.perf_counter() - started,
        notes=_notes(distance, table.ordered, infinite, 0 if common is not None else unproved),
        unproved_classes=unproved,
        violating_unproved=violating_unproved,
        shared_reference=common,
    )


def _check_arguments(
    table: SensitiveTable, distance: str, t: float | None, n: int | None, top: int
) -> None:
    check_distance(distance)
    if t is not None and not (math.isfinite(t) and t >= 0):
        raise InputError(f"t={t!r} must be a finite number >= 0; pass e.g. --epsilon 0.2.")
    if n is not None:
        check_reference_size(n, table.rows)
    if top < 1:
        raise InputError(f"top={top} must be at least 1; pass e.g. --top 10.")
    if n is not None:
        check_reference_distance(distance)


def _unproved(d: np.ndarray, refs: dict[int, ReferenceSet], t: float | None) -> tuple[int, int]:
    """Classes not proved optimal; those above t whose lower bound is not (undecided)."""
    loose = [c for c, r in refs.items() if not r.optimal]
    above = 0 if t is None else sum(1 for c in loose if not d[c] <= t and refs[c].bound <= t)
    return len(loose), above


def _reference_distances(
    table: SensitiveTable, distance: str, n: int, time_limit: float
) -> tuple[np.ndarray, dict[int, ReferenceSet]]:
    """Best reference set per class, solved once per distinct count vector."""
    m = len(table.values)
    cells = count_cells(table)
    totals = value_totals(table)
    spans = list(zip(cells.cls[cells.starts], cells.starts, cells.ends, strict=True))
    keys = [(cells.val[a:b].tobytes(), cells.count[a:b].tobytes()) for _, a, b in spans]
    todo = len(set(keys))
    deadline = time.monotonic() + time_limit
    solved: dict[tuple, ReferenceSet] = {}
    refs: dict[int, ReferenceSet] = {}
    d = np.empty(table.classes)
    for (c, a, b), key in zip(spans, keys, strict=True):
        if key not in solved:
            counts = np.zeros(m, dtype=np.int64)
            counts[cells.val[a:b]] = cells.count[a:b]
            share = (deadline - time.monotonic()) / todo
            solved[key] = best_reference_set(
                counts, totals, n, distance, table.ordered, table.values, share
            )
            todo -= 1
        refs[int(c)] = solved[key]
        d[c] = solved[key].distance
    return d, refs


def _shared_distances(
    table: SensitiveTable, distance: str, n: int, time_limit: float
) -> tuple[np.ndarray, ReferenceSet]:
    """Each class's distance to the one reference set that is best for all of them."""
    m = len(table.values)
    cells = count_cells(table)
    totals = value_totals(table)
    rows = np.zeros((table.classes, m), dtype=np.int64)
    for c, a, b in zip(cells.cls[cells.starts], cells.starts, cells.ends, strict=True):
        rows[c, cells.val[a:b]] = cells.count[a:b]
    common = shared_reference_set(
        rows, totals, n, distance, table.ordered, table.values, time_limit
    )
    held = dict(common.counts)
    x = np.array([held.get(v, 0) for v in table.values], dtype=np.int64)
    kind = effective_distance(distance, table.ordered and m > 1)
    d = np.array([float(_Ratio(r, totals, kind).exact(x)) for r in rows])
    return d, common


def _class_entry(
    table: SensitiveTable,
    c: int,
    d: np.ndarray,
    table_d: np.ndarray,
    sizes: np.ndarray,
    refs: dict[int, ReferenceSet],
) -> ClassDistance:
    values = table.value_index[table.class_index == c]
    counts = np.bincount(values, minlength=len(table.values))
    return ClassDistance(
        table.class_label(c),
        int(sizes[c]),
        int(table.class_first_row[c]),
        float(d[c]),
        float(table_d[c]),
        labelled_counts(table.values, counts),
        refs.get(c),
    )


def _notes(distance: str, ordered: bool, infinite: int, unproved: int) -> tuple[str, ...]:
    """What the reader needs to interpret the distances: bounds, units, which EMD."""
    notes = []
    if unproved:
        notes.append(
            f"{unproved} class(es) not proved optimal (the search's time limit, or a set "
            f"within {GAP:g} of its lower bound): their distance is an upper bound (attained by "
            "the set shown) and a lower bound is given."
        )
    if distance == "kl":
        notes.append(
            f"KL is infinite for {infinite} class(es): the reference has an empty bin where "
            "the class has mass."
            if infinite
            else "KL(P_L || P_ref) in nats; it would be infinite where the reference had an "
            "empty bin under a value the class holds (none here)."
        )
    if distance == "emd":
        notes.append(
            "EMD with ordered ground distance |i-j|/(m-1) over the sorted distinct values."
            if ordered
            else "EMD with equal ground distance (categorical): equals the TV distance."
        )
    return tuple(notes)
