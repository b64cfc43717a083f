"""The distances between sensitive-value distributions: one pair at a time
(:func:`distribution_distance`), and every class against the whole table at once, vectorised over
the non-zero cells of the class x value count matrix (:func:`class_distances`).

TV, L1 and EMD are *linear*: ``D = sum_i |A(p - q)_i| / k`` where ``A`` is the identity (TV, L1
and the categorical EMD, which equals TV) or, for the ordered EMD, the cumulative sums but the
last; ``k`` is 2 (TV), 1 (L1) or ``m - 1`` (ordered EMD). :func:`linear_terms` and
:func:`linear_scale` hold that fact for every user of it (here and the reference-set search).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from auditor.closeness.names import DISTANCES, EXACT_REFERENCE_DISTANCES
from auditor.closeness.table import Cells, SensitiveTable, class_sizes, count_cells, value_totals
from proofs.errors import InputError

__all__ = ["DISTANCES", "EXACT_REFERENCE_DISTANCES", "distribution_distance"]

# Distances for which the (n, t) reference set is found exactly (linear after the
# Charnes-Cooper/Dinkelbach treatment of the ratio): TV, L1 and EMD (both kinds).


def check_distance(distance: str) -> None:
    if distance not in DISTANCES:
        raise InputError(
            f"distance={distance!r} is not one of {', '.join(DISTANCES)}; pick one with --distance."
        )


def effective_distance(distance: str, ordered: bool) -> str:
    """The distance computed: the EMD with equal ground distance (categorical) is TV."""
    return "tv" if distance == "emd" and not ordered else distance


def linear_terms(v: np.ndarray, kind: str) -> np.ndarray:
    """``A v`` for a linear distance ``kind`` (see the module docstring)."""
    return np.cumsum(v)[:-1] if kind == "emd" else v


def linear_scale(kind: str, m: int) -> int:
    """``k`` for a linear distance ``kind`` on ``m`` values (see the module docstring)."""
    if kind == "emd":
        return m - 1
    return 1 if kind == "l1" else 2


def distribution_distance(
    p: Sequence[float], q: Sequence[float], distance: str = "tv", ordered: bool = False
) -> float:
    """``D(p, q)`` for two distributions on the same (ordered, when ``ordered``) values.

    ``kl`` returns ``math.inf`` when ``q`` has an empty bin where ``p`` has mass.
    """
    check_distance(distance)
    p, q = np.asarray(p, dtype=float), np.asarray(q, dtype=float)
    if p.shape != q.shape or p.ndim != 1 or p.size == 0:
        raise InputError(
            f"distributions of shapes {p.shape} and {q.shape} differ or are empty; "
            "give two 1-D arrays over the same values."
        )
    kind = effective_distance(distance, ordered)
    diff = p - q
    if kind in EXACT_REFERENCE_DISTANCES:
        terms = linear_terms(diff, kind)
        return 0.0 if terms.size == 0 else float(np.abs(terms).sum() / linear_scale(kind, p.size))
    if kind == "l2":
        return float(np.sqrt((diff**2).sum()))
    support = p > 0
    if np.any(q[support] <= 0):
        return math.inf
    return float((p[support] * np.log(p[support] / q[support])).sum())


def class_distances(table: SensitiveTable, distance: str) -> np.ndarray:
    """D(P_L, P_Q) for every class against the whole table, vectorised over non-zero cells."""
    cells = count_cells(table)
    sizes, totals = class_sizes(table), value_totals(table)
    n_total = table.rows
    n_c, n_v = sizes[cells.cls], totals[cells.val]
    kind = effective_distance(distance, table.ordered)
    if kind in ("tv", "l1"):
        # Exact integers: sum_v |c N - n_c N_v| = n_c N + sum_{c_v>0} (|c N - n_c N_v| - n_c N_v).
        scaled = cells.count * n_total - n_c * n_v
        terms = np.abs(scaled) - n_c * n_v
        num = np.add.reduceat(terms, cells.starts) + sizes * n_total
        return num / (linear_scale(kind, totals.size) * sizes * float(n_total))
    if kind == "emd":
        return _ordered_emd(cells, sizes, totals, n_total)
    p, q = cells.count / n_c, n_v / n_total
    if kind == "l2":
        q2 = float(((totals / n_total) ** 2).sum())
        inner = np.add.reduceat((p - q) ** 2 - q**2, cells.starts)
        # the sum cancels to rounding error where a class matches the whole table: below
        # the terms' rounding (a few ulps of their magnitude) the distance is 0, not ~1e-8
        size = np.add.reduceat((p - q) ** 2 + q**2, cells.starts) + q2
        square = inner + q2
        return np.sqrt(np.where(square > 16 * np.finfo(float).eps * size, square, 0.0))
    return np.add.reduceat(p * np.log(p / q), cells.starts)


def _ordered_emd(cells: Cells, sizes: np.ndarray, totals: np.ndarray, n_total: int) -> np.ndarray:
    """EMD = 1/(m-1) sum_i |F_L(i) - F_Q(i)|, summed segment by segment over each class's support,
    in exact integers: times n_c N, each term is |c N - n_c T(i)| with c the class's and T(i) the
    table's cumulative count (a float sum of the CDFs put a round EMD such as 0.25 one ulp above
    itself, and a table exactly t-close failed at t).

    Between two consecutive support points of a class its cumulative count is a constant c; the
    sum over a segment splits where the (monotone) table count crosses it.
    """
    m = totals.size
    if m == 1:
        return np.zeros(sizes.size)
    # int64 while the largest sum fits (n_c * sum_i T(i) <= m N^2), Python integers beyond
    exact = object if m * n_total**2 >= 2**62 else np.int64
    t_count = np.cumsum(totals).astype(exact)
    prefix = np.r_[np.zeros(1, dtype=exact), np.cumsum(t_count)]
    running = np.cumsum(cells.count)
    earlier = np.r_[0, running[cells.starts[1:] - 1]]  # records of the classes before each one
    lengths = cells.ends - cells.starts
    c = (running - np.repeat(earlier, lengths)).astype(exact)  # class's cumulative count
    n_c = sizes[cells.cls].astype(exact)
    a = cells.val
    last = np.r_[cells.cls[1:] != cells.cls[:-1], True]
    b = np.where(last, m, np.r_[cells.val[1:], 0])
    # the first i with n_c T(i) >= c N (a float search: at a tie the term is 0 on either side)
    cross = c.astype(float) * n_total / n_c.astype(float)
    k = np.clip(np.searchsorted(t_count.astype(float), cross, side="left"), a, b)
    cn = c * n_total
    seg = (
        cn * (k - a) - n_c * (prefix[k] - prefix[a]) + n_c * (prefix[b] - prefix[k]) - cn * (b - k)
    )
    head = n_c[cells.starts] * prefix[cells.val[cells.starts]]
    total = np.add.reduceat(seg, cells.starts) + head
    scale = (m - 1) * n_total
    return np.array([int(t) / (int(n) * scale) for t, n in zip(total, sizes)], dtype=float)
