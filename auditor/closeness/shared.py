"""Partition-level (n, t)-closeness: one reference set of at least n records for every class.

The notes (003, "n-epsilon-closeness") define two things. A *class* is (n, t)-close when some
subset ``M`` with ``|M| >= n`` has ``D(P_L, P_{Q|M}) <= t`` (:func:`best_reference_set`, one
``M`` per class). A *partitioning* is (n, t)-close when there exists one subset ``M`` with
``|M| >= n`` such that *each* class satisfies ``D(P_L, P_{Q|M}) <= t``. The second is the
stronger requirement: its closeness ``min_M max_L D(P_L, P_{Q|M})`` is at least the largest
class-level one and at most the whole table's (``M`` = the table).

With ``S = |M|`` and integer counts ``x`` of ``M``, each class's distance is
``f_L(x) / (k |c_L| S)`` (:class:`auditor.closeness.reference._Ratio`), so the objective is one
ratio ``max_L (f_L(x) / (k |c_L|)) / S`` of a convex piecewise-linear function and a positive
linear one: Dinkelbach's method solves a sequence of MILPs ``min z - lambda S`` with
``z >= f_L(x) / (k |c_L|)`` for every class (scipy.optimize.milp, HiGHS), each strictly lowering
``lambda`` (recomputed exactly, in rational arithmetic, from the integer counts) until none
improves it. Classes with the same distribution share their constraints.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from fractions import Fraction

import numpy as np

from auditor.closeness.distances import effective_distance
from auditor.closeness.reference import (
    _MET,
    GAP,
    ReferenceSet,
    _count_rows,
    _Ratio,
    check_reference_distance,
    check_reference_size,
    refine,
    solve_step,
)
from auditor.closeness.table import labelled_counts
from proofs.errors import InputError

__all__ = ["GAP", "METHOD", "shared_reference_set"]

METHOD = "milp-dinkelbach, one set for every class"


def shared_reference_set(
    class_counts: Sequence[Sequence[int]],
    table_counts: Sequence[int],
    n: int,
    distance: str = "tv",
    ordered: bool = False,
    values: Sequence[str] | None = None,
    time_limit: float = 60.0,
) -> ReferenceSet:
    """min over integer x with 0 <= x_v <= N_v, sum x >= n of max_L D(c_L / |c_L|, x / |x|):
    the partition-level (n, t)-closeness of classes with counts ``class_counts`` (one row per
    class) in a table with counts ``table_counts``, as a :class:`ReferenceSet` whose
    ``distance`` is the largest class distance to it (exact for its counts). ``time_limit``
    (seconds) bounds the search; past it, or once its set is within :data:`GAP` of the lower
    bound, the result says ``optimal=False`` and carries that lower bound on the best set's
    largest distance."""
    check_reference_distance(distance)
    big = np.asarray(table_counts, dtype=np.int64)
    rows = np.asarray(class_counts, dtype=np.int64).reshape(-1, big.size)
    values = tuple(values) if values is not None else tuple(str(i) for i in range(big.size))
    if rows.shape[0] == 0 or np.any(rows < 0) or np.any(rows > big) or np.any(rows.sum(1) <= 0):
        raise InputError(
            "class counts must be non-negative, not all zero, and at most the table counts "
            "value by value; pass each class's and the table's counts."
        )
    check_reference_size(n, int(big.sum()))
    kind = effective_distance(distance, ordered and big.size > 1)
    specs = [_Ratio(c, big, kind) for c in _distinct_distributions(rows)]
    x, iterations, lower = _dinkelbach(specs, n, time_limit)
    value = _largest(specs, x)
    counts = labelled_counts(values, x)
    if lower is None:
        return ReferenceSet(int(x.sum()), counts, float(value), METHOD, iterations)
    low = max(0.0, min(lower, float(value)))
    return ReferenceSet(int(x.sum()), counts, float(value), METHOD, iterations, False, low)


def _distinct_distributions(rows: np.ndarray) -> list[np.ndarray]:
    """One count vector per distinct distribution (counts divided by their gcd)."""
    out: dict[bytes, np.ndarray] = {}
    for c in rows:
        r = c // math.gcd(*map(int, c))
        out.setdefault(r.tobytes(), r)
    return list(out.values())


def _largest(specs: list[_Ratio], x: np.ndarray) -> Fraction:
    return max(s.exact(x) for s in specs)


def _dinkelbach(
    specs: list[_Ratio], n: int, time_limit: float
) -> tuple[np.ndarray, int, float | None]:
    """The best integer counts, the steps taken, and None when optimality was proved, else a
    lower bound. Starts from the better of the whole table (``M`` = the table) and a rounding
    of the continuous optimum, which is also a lower bound (:func:`_continuous_start`)."""
    x = specs[0].big.copy()
    lam = _largest(specs, x)
    if lam == 0:
        return x, 0, None
    if time_limit <= 0:
        return x, 0, 0.0
    deadline = time.monotonic() + time_limit
    lower, start = _continuous_start(specs, n)
    if _largest(specs, start) < lam:
        x, lam = start, _largest(specs, start)
    if float(lam) <= lower + _MET:  # (the floor is the LP's optimum less 1e-12)
        return x, 0, None
    if float(lam) <= lower + GAP or time.monotonic() >= deadline:  # (GAP: narrow enough)
        return x, 0, lower

    def step(lam: float, seconds: float):
        return solve_step(_program(specs, n, lam), specs[0], seconds)

    return refine(x, lam, lower, lambda c: _largest(specs, c), step, n, deadline)


def _continuous_start(specs: list[_Ratio], n: int) -> tuple[float, np.ndarray]:
    """(lower bound, integer counts): the real optimum with ``S = n`` (an LP) and a rounding of
    it. Any integer set with ``S >= n`` has proportions ``x / S <= N / n``, which a real set of
    size n also has, so the LP's optimum bounds every integer set's from below."""
    from scipy.optimize import milp

    from auditor.closeness.reference import _round_to_size

    first = specs[0]
    cost, constraints, bounds, _ = _program(specs, n, 0.0, fixed_size=True)
    res = milp(cost, constraints=constraints, bounds=bounds)
    whole = first.big.copy()
    if res.x is None:
        return 0.0, whole
    floor = max(0.0, float(res.fun) / n - 1e-12) if res.status == 0 else 0.0  # (proved only)
    real = np.clip(first.counts(res.x[: first.c.size]), 0, first.big)
    # rounded at size n, and scaled up to the largest size its proportions fit in the table
    # (where rounding moves the proportions least: 1.4e-6 from the bound on a 1e6-row table)
    held = real > 0
    most = int(np.floor(np.min(first.big[held] * n / real[held]))) if held.any() else n
    tries = [whole, _round_to_size(real, first.big, n)]
    if most > n:
        tries.append(_round_to_size(real * most / n, first.big, most))
    return floor, min(tries, key=lambda x: _largest(specs, x))


def _program(specs: list[_Ratio], n: int, lam: float, fixed_size: bool = False):
    """``min z - lam S`` over (w, S, u_1, ..., u_K, z) with ``u_{L,i} >= |a_{L,i} S - |c_L| w_i|``
    and ``z >= sum_i u_{L,i} / (k |c_L|)`` for every class, ``S >= n`` (``S = n`` if
    ``fixed_size``): milp's cost, constraints, bounds and integrality (w and S integer)."""
    from scipy.optimize import Bounds, LinearConstraint
    from scipy.sparse import csr_matrix, eye, hstack, vstack

    first = specs[0]
    m, r = first.c.size, first.a.size
    k_classes = len(specs)
    width = m + 1 + k_classes * r + 1  # (w, S, u_1..u_K, z)
    blocks, lo, hi = [], [], []
    pick = eye(r, m, format="csr")
    for j, s in enumerate(specs):
        nc = float(s.c.sum())
        s_col = csr_matrix(s.a.reshape(-1, 1).astype(float))
        before = csr_matrix((r, j * r))
        after = csr_matrix((r, (k_classes - j - 1) * r + 1))
        ident = eye(r, format="csr")
        for sign in (1.0, -1.0):  # u + sign (|c| w - a S) >= 0
            blocks.append(hstack([sign * nc * pick, -sign * s_col, before, ident, after]))
            lo.append(np.zeros(r))
            hi.append(np.full(r, np.inf))
        scale = 1.0 / (s.k * nc)  # z - sum_i u_i / (k |c|) >= 0
        row = np.zeros(width)
        row[m + 1 + j * r : m + 1 + (j + 1) * r] = -scale
        row[-1] = 1.0
        blocks.append(csr_matrix(row.reshape(1, -1)))
        lo.append(np.zeros(1))
        hi.append(np.full(1, np.inf))
    for mat, low, high in _count_rows(first):  # S = sum x (and the cumulative band)
        extra = csr_matrix((mat.shape[0], width - mat.shape[1]))
        blocks.append(hstack([mat, extra]))
        lo.append(low)
        hi.append(high)
    constraints = LinearConstraint(vstack(blocks).tocsr(), np.concatenate(lo), np.concatenate(hi))
    total = float(first.big.sum())
    w_hi = np.full(m, total) if first.cumulative else first.big.astype(float)
    bounds = Bounds(
        np.r_[np.zeros(m), n, np.zeros(k_classes * r + 1)],
        np.r_[w_hi, float(n) if fixed_size else total, np.full(k_classes * r + 1, np.inf)],
    )
    cost = np.zeros(width)
    cost[m] = -lam
    cost[-1] = 1.0
    integrality = np.r_[np.ones(m + 1), np.zeros(k_classes * r + 1)]
    return cost, constraints, bounds, integrality
