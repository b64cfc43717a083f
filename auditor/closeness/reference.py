"""(n, t): the best reference set of at least n records for one class, found exactly.

Only the counts of each sensitive value in the reference set matter, so the search runs over
integer count vectors (see :func:`best_reference_set`). SciPy (``milp``, HiGHS) is imported inside
the functions that solve the programs, so importing this module stays cheap.
"""

from __future__ import annotations

import contextlib
import math
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from auditor.closeness.distances import (
    EXACT_REFERENCE_DISTANCES,
    effective_distance,
    linear_scale,
    linear_terms,
)
from auditor.closeness.table import labelled_counts
from proofs.errors import InputError

__all__ = ["ReferenceSet", "best_reference_set"]

_MAX_STEPS = 100  # Dinkelbach steps; each strictly lowers the distance
GAP = 1e-5  # a search stops, unproved, once its set's distance is within this of its lower bound
PROVED = 1e-6  # HiGHS's default absolute gap: a step solved to it proves its lambda optimal
_MET = 1e-11  # a set this close to a lower bound (the LP's less 1e-12, or a step's) is the best
_FIRST_SLICE = 1.0  # seconds: the first step's time limit (see refine)


@dataclass(frozen=True, slots=True)
class ReferenceSet:
    """The chosen reference set M: how many records of each sensitive value it takes.

    ``distance`` is recomputed exactly (rational arithmetic) from the integer counts, so it is
    attained by this M. ``method`` is ``"scaling"`` when a multiple of the class's own reduced
    counts fits (distance 0, optimal), ``"lp-rounding"`` when rounding the continuous optimum
    meets the continuous lower bound (optimal, to 1e-12), or ``"milp-dinkelbach"`` (optimal up to
    HiGHS's tolerances); for the partition-level set, :data:`auditor.closeness.shared.METHOD`.
    ``optimal`` is False when the search stopped before proving its set the best (its time limit,
    or a set within :data:`GAP` of the lower bound): then ``distance`` is only an upper bound on
    the best reference set's distance (still attained by this M) and ``lower_bound`` a lower
    bound, the continuous optimum's or HiGHS's dual bound's (``lambda + LB / (k |c| n)``, since
    ``f - lambda g >= LB`` and ``g >= k |c| n`` for every feasible set).
    """

    size: int
    counts: tuple[tuple[str, int], ...]
    distance: float
    method: str
    iterations: int
    optimal: bool = True
    lower_bound: float | None = None

    @property
    def bound(self) -> float:
        """Lower bound on the best distance (equal to ``distance`` when optimal)."""
        return self.distance if self.optimal or self.lower_bound is None else self.lower_bound

    def to_dict(self) -> dict[str, Any]:
        return {
            "size": self.size,
            "counts": dict(self.counts),
            "distance": self.distance,
            "method": self.method,
            "iterations": self.iterations,
            "optimal": self.optimal,
            "lower_bound": self.bound,
        }


def check_reference_distance(distance: str) -> None:
    if distance not in EXACT_REFERENCE_DISTANCES:
        raise InputError(
            "--n needs a distance the exact reference-set solver supports "
            f"({'/'.join(EXACT_REFERENCE_DISTANCES)}), not {distance!r}; use "
            "--distance tv, l1 or emd."
        )


def check_reference_size(n: int, rows: int) -> None:
    if not 1 <= n <= rows:
        raise InputError(
            f"n={n} must be between 1 and the table's {rows} rows (the size of the reference "
            f"set); choose an --n in that range."
        )


def best_reference_set(
    class_counts: Sequence[int],
    table_counts: Sequence[int],
    n: int,
    distance: str = "tv",
    ordered: bool = False,
    values: Sequence[str] | None = None,
    time_limit: float = 60.0,
) -> ReferenceSet:
    """min over integer x with 0 <= x_v <= N_v, sum x >= n of D(c / |c|, x / |x|).

    With ``S = sum x`` the objective is ``sum_i |a_i S - |c| y_i(x)| / (k |c| S)`` where for
    TV/L1/categorical EMD ``a = c`` and ``y = x`` (k = 2, 1, 2), and for ordered EMD ``a`` and
    ``y`` are the cumulative counts (k = m - 1). It is a ratio of a convex piecewise-linear
    function and a positive linear one, minimised over integers: Dinkelbach's method (Dinkelbach
    1967) solves a sequence of MILPs ``min f - lambda g`` (scipy.optimize.milp, HiGHS), each
    strictly lowering ``lambda = D`` of the integer solution, until none improves it.
    ``time_limit`` (seconds) bounds the search; past it the result says ``optimal=False`` and
    carries a lower bound (0 when ``time_limit <= 0``, which returns the whole table at once).
    """
    check_reference_distance(distance)
    c = np.asarray(class_counts, dtype=np.int64)
    big = np.asarray(table_counts, dtype=np.int64)
    values = tuple(values) if values is not None else tuple(str(i) for i in range(c.size))
    if c.shape != big.shape or c.sum() <= 0 or np.any(c < 0) or np.any(c > big):
        raise InputError(
            "class counts must be non-negative, not all zero, and at most the "
            "table counts value by value; pass the class's and the table's counts."
        )
    check_reference_size(n, int(big.sum()))
    # with a single value the order does not matter (every distance is 0)
    spec = _Ratio(c, big, effective_distance(distance, ordered and c.size > 1))
    x = _scaled_copy(c, big, n)
    if x is not None:
        return _reference(x, values, spec, "scaling", 0)
    x, iterations, lower = _dinkelbach(spec, n, time_limit)
    method = "milp-dinkelbach" if iterations else "lp-rounding"
    return _reference(x, values, spec, method, iterations, lower)


@dataclass(frozen=True, slots=True)
class _Ratio:
    """``D(c/|c|, x/|x|) = f(x) / g(x)``, ``f = sum_i |a_i S - |c| y_i(x)|``, ``g = k |c| S``.

    ``kind`` is the effective linear distance (tv, l1 or the ordered emd); ``big`` the table's
    counts, the upper bounds on x.
    """

    c: np.ndarray
    big: np.ndarray
    kind: str

    @property
    def cumulative(self) -> bool:
        return self.kind == "emd"

    @property
    def k(self) -> int:
        return linear_scale(self.kind, self.c.size)

    @property
    def a(self) -> np.ndarray:
        return linear_terms(self.c, self.kind)

    def counts(self, w: np.ndarray) -> np.ndarray:
        """The counts x from the programs' variables w (x itself, or its cumulative sums)."""
        return np.diff(np.r_[0, w]) if self.cumulative else w

    def exact(self, x: np.ndarray) -> Fraction:
        s, nc = int(x.sum()), int(self.c.sum())
        y = linear_terms(x, self.kind)
        num = sum(abs(int(ai) * s - nc * int(yi)) for ai, yi in zip(self.a, y, strict=True))
        return Fraction(num, self.k * nc * s)


def _scaled_copy(c: np.ndarray, big: np.ndarray, n: int) -> np.ndarray | None:
    """Smallest multiple of c's reduced counts with at least n records, if it fits (distance 0)."""
    r = c // math.gcd(*map(int, c))
    need = -(-n // int(r.sum()))
    support = r > 0
    fits = int(np.min(big[support] // r[support]))
    return r * need if need <= fits else None


def _dinkelbach(spec: _Ratio, n: int, time_limit: float) -> tuple[np.ndarray, int, float | None]:
    """The best integer counts, the iterations, and None when optimality was proved, else a
    lower bound on the optimal distance.

    Starts from the better of the whole table and a rounding of the continuous optimum; the
    continuous optimum (an LP) is also a lower bound, so a rounding that meets it is optimal.
    """
    if time_limit <= 0:  # no time left: the whole table, and only the trivial lower bound
        return spec.big.copy(), 0, 0.0
    deadline = time.monotonic() + time_limit
    floor, x = _continuous_start(spec, n)
    lam = spec.exact(x)
    if float(lam) <= floor + 1e-12:
        return x, 0, None
    if time.monotonic() >= deadline:
        return x, 0, floor
    g_min = spec.k * int(spec.c.sum()) * n  # the least g: a step's bound d gives lam + d / g_min

    def step(lam: float, seconds: float):
        return solve_step(_program(spec, n, lam), spec, seconds)

    return refine(x, lam, floor, spec.exact, step, g_min, deadline)


def refine(
    x: np.ndarray,
    lam: Fraction,
    lower: float,
    value: Callable[[np.ndarray], Fraction],
    step: Callable[[float, float], tuple[np.ndarray | None, float, int]],
    scale: float,
    deadline: float,
) -> tuple[np.ndarray, int, float | None]:
    """Dinkelbach's steps from counts ``x`` of distance ``lam = value(x)``, ``lower`` a lower
    bound on the best distance: (the best counts, the steps taken, None when no set beats them,
    else a lower bound). ``step(lam, seconds)`` minimises ``f - lam g`` over integer sets
    (:func:`solve_step`), and a bound ``d`` on it gives ``lam + d / scale`` (``scale`` the least
    ``g``). A step gets a time slice (the first :data:`_FIRST_SLICE` seconds), which doubles
    each time one ends on it without a better set: on larger tables HiGHS often finds a set
    within :data:`GAP` of the lower bound at once, then would spend the whole time limit
    proving what could no longer change the answer. The search stops, unproved, when a step
    ends on its slice with a set within GAP of the lower bound, and at the deadline."""
    slice_ = _FIRST_SLICE
    for steps in range(1, _MAX_STEPS + 1):
        seconds = min(slice_, deadline - time.monotonic())
        candidate, dual, status = step(float(lam), seconds)
        lower = max(lower, float(lam) + min(0.0, dual) / scale)
        better = candidate is not None and value(candidate) < lam
        stopped = status == 1
        if better:
            x, lam = candidate, value(candidate)
        elif not stopped:  # solved: no set beats lam (or it failed, and lam stays unproved)
            return x, steps, None if status == 0 else lower
        if float(lam) <= lower + _MET:  # it meets the lower bound: the best
            return x, steps, None
        if time.monotonic() >= deadline or (stopped and float(lam) <= lower + GAP):
            return x, steps, lower  # (proving it would cost more than it could change)
        if stopped and not better:
            slice_ *= 2
    return x, _MAX_STEPS, lower


def _continuous_start(spec: _Ratio, n: int) -> tuple[float, np.ndarray]:
    """(lower bound, integer counts): min D over real x with S = n, and a rounding of it.

    Any feasible integer set with S >= n has proportions x/S with x_v/S <= N_v/n, so the real
    optimum at S = n bounds every integer one from below.
    """
    from scipy.optimize import milp

    cost, constraints, bounds, _ = _program(spec, n, 0.0, fixed_size=True)
    res = milp(cost, constraints=constraints, bounds=bounds)
    whole = spec.big.copy()
    if res.x is None:
        return 0.0, whole
    nc, m = int(spec.c.sum()), spec.c.size
    floor = max(0.0, float(res.fun) / (spec.k * nc * n) - 1e-12) if res.status == 0 else 0.0
    real = np.clip(spec.counts(res.x[:m]), 0, spec.big)
    x = _round_to_size(real, spec.big, n)
    return floor, x if spec.exact(x) < spec.exact(whole) else whole


def _round_to_size(real: np.ndarray, big: np.ndarray, n: int) -> np.ndarray:
    """Integer counts near ``real`` within ``0..big`` summing to n (largest remainders)."""
    x = np.minimum(np.floor(real + 1e-9).astype(np.int64), big)
    short = n - int(x.sum())
    order = np.argsort(-(real - x), kind="stable")
    for v in order:
        if short <= 0:
            break
        add = min(short, int(big[v] - x[v]))
        x[v] += add
        short -= add
    return x


def _program(spec: _Ratio, n: int, lam: float, fixed_size: bool = False):
    """min sum u - lam * k |c| S  s.t.  u_i >= |a_i S - |c| w_i|, S >= n (S = n if fixed_size).

    ``w`` is x itself, or for ordered EMD the cumulative counts X_i = x_1 + ... + x_i with
    ``0 <= X_i - X_{i-1} <= N_i`` (a sparse band instead of a dense triangle). Variables are
    (w, S, u); returns milp's cost, constraints, bounds and integrality (w and S integer).
    """
    from scipy.optimize import Bounds, LinearConstraint
    from scipy.sparse import vstack

    m, r, nc = spec.c.size, spec.a.size, int(spec.c.sum())
    blocks = [*_gap_rows(spec), *_count_rows(spec)]  # (matrix, lower, upper) each
    rows, lo, hi = zip(*blocks, strict=True)
    constraints = LinearConstraint(vstack(rows).tocsr(), np.concatenate(lo), np.concatenate(hi))
    total = float(spec.big.sum())
    w_hi = np.full(m, total) if spec.cumulative else spec.big.astype(float)
    bounds = Bounds(
        np.r_[np.zeros(m), n, np.zeros(r)],
        np.r_[w_hi, float(n) if fixed_size else total, np.full(r, np.inf)],
    )
    cost = np.r_[np.zeros(m), -lam * spec.k * nc, np.ones(r)]
    return cost, constraints, bounds, np.r_[np.ones(m + 1), np.zeros(r)]


def _gap_rows(spec: _Ratio) -> list[tuple[Any, np.ndarray, np.ndarray]]:
    """``u_i >= |a_i S - |c| w_i|`` as two rows per i over (w, S, u), with their bounds."""
    from scipy.sparse import csr_matrix, eye, hstack

    m, nc, a = spec.c.size, int(spec.c.sum()), spec.a
    r = a.size
    pick = eye(r, m, format="csr")
    s_col = csr_matrix(a.reshape(-1, 1).astype(float))
    ident = eye(r, format="csr")
    lo, hi = np.zeros(r), np.full(r, np.inf)
    return [
        (hstack([nc * pick, -s_col, ident]), lo, hi),  # u + |c| w - a S >= 0
        (hstack([-nc * pick, s_col, ident]), lo, hi),  # u - |c| w + a S >= 0
    ]


def _count_rows(spec: _Ratio) -> list[tuple[Any, np.ndarray, np.ndarray]]:
    """``S = sum x`` over (w, S, u), and for cumulative w the band ``0 <= w_i - w_{i-1} <= N_i``."""
    from scipy.sparse import csr_matrix, eye, hstack

    m, r = spec.c.size, spec.a.size
    blocks = []
    if spec.cumulative:
        band = hstack([eye(m, format="csr") - eye(m, k=-1, format="csr"), csr_matrix((m, 1 + r))])
        blocks.append((band, np.zeros(m), spec.big.astype(float)))
        link = np.r_[np.zeros(m - 1), 1.0]  # w_m = sum x
    else:
        link = np.ones(m)
    size = csr_matrix(np.r_[link, -1.0, np.zeros(r)].reshape(1, -1))
    blocks.append((size, np.zeros(1), np.zeros(1)))
    return blocks


@contextlib.contextmanager
def _c_stdout_silenced():
    """While HiGHS runs, file descriptor 1 goes to the null device: some HiGHS builds print
    internal messages ("HighsMipSolverData::transformNewIntegerFeasibleSolution ...") with the
    C library's printf even with their log off, which would land in the closeness summary (or a
    piped stdout). The C buffer is flushed before fd 1 comes back."""
    import ctypes

    sys.stdout.flush()
    try:
        libc = ctypes.CDLL(None)
        null = os.open(os.devnull, os.O_WRONLY)
    except OSError:  # (no C library handle or no descriptor to spare: leave stdout alone)
        yield
        return
    saved = os.dup(1)
    try:
        libc.fflush(None)
        os.dup2(null, 1)
        yield
    finally:
        libc.fflush(None)
        os.dup2(saved, 1)
        os.close(saved)
        os.close(null)


def solve_step(program, spec: _Ratio, time_limit: float) -> tuple[np.ndarray | None, float, int]:
    """Solve one step's ``(cost, constraints, bounds, integrality)`` whose first variables are
    ``spec``'s w, to optimality (within HiGHS's absolute gap, :data:`PROVED`) or for
    ``time_limit`` seconds: the counts x (or None), a lower bound on the step's optimum (-inf
    when there is none), and milp's status (0 solved, 1 stopped by the time limit, 2-4
    infeasible, unbounded or failed)."""
    from scipy.optimize import milp

    cost, constraints, bounds, integrality = program
    with _c_stdout_silenced():
        res = milp(
            cost,
            constraints=constraints,
            bounds=bounds,
            integrality=integrality,
            options={"mip_rel_gap": 0.0, "time_limit": max(time_limit, 0.05)},
        )
    bound = getattr(res, "mip_dual_bound", None)
    if bound is not None and math.isfinite(bound):
        dual = float(bound)
    elif res.status == 0:  # solved: its optimum is within HiGHS's gap of the solution's value
        dual = float(res.fun) - PROVED
    else:
        dual = -math.inf
    if res.x is None:
        return None, dual, res.status
    w = np.rint(res.x[: spec.c.size]).astype(np.int64)
    return np.clip(spec.counts(w), 0, spec.big), dual, res.status


def _reference(
    x: np.ndarray,
    values: tuple[str, ...],
    spec: _Ratio,
    method: str,
    iterations: int,
    lower: float | None = None,
) -> ReferenceSet:
    """``lower`` is None when the search proved optimality, else a lower bound."""
    counts = labelled_counts(values, x)
    distance = float(spec.exact(x))
    if lower is None:
        return ReferenceSet(int(x.sum()), counts, distance, method, iterations)
    return ReferenceSet(
        int(x.sum()), counts, distance, method, iterations, False, max(0.0, min(lower, distance))
    )
