"""Mechanisms given by a table (finite pmf) or by a published epsilon."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import sympy as sp

from proofs.errors import InputError
from proofs.expr import as_expr

__all__ = ["FiniteMechanism", "Published", "geo_sample"]


@dataclass(frozen=True, slots=True)
class FiniteMechanism:
    """A mechanism given by its table: `pmf[x][y]` = P[M(x) = y] for finitely many x and y.

    `neighbours` lists the neighbouring pairs (both orders are checked); None means every two
    distinct inputs are neighbours (local DP). Entries may be SymPy expressions in symbols
    constrained by `assumptions`.
    """

    pmf: Mapping
    neighbours: tuple | None = None
    assumptions: tuple = ()
    name: str = "finite mechanism"

    def __post_init__(self):
        if not isinstance(self.pmf, Mapping) or not all(
            isinstance(row, Mapping) for row in self.pmf.values()
        ):
            raise InputError("pmf must be a dict of dicts: pmf[x][y] = P[M(x) = y].")
        if self.neighbours is not None and not all(
            isinstance(p, (tuple, list)) and len(p) == 2 and all(_hashable(x) for x in p)
            for p in self.neighbours
        ):
            raise InputError(
                f"neighbours={self.neighbours!r} must be a tuple of (x, x') pairs, "
                "or None for every pair."
            )
        given = self.assumptions
        if isinstance(given, (sp.Basic, str)):  # (one relation for a tuple of them)
            given = (given,)
        for c in given:
            if not isinstance(c, (sp.core.relational.Relational, sp.logic.boolalg.Boolean)):
                raise InputError(
                    f"assumptions entry {c!r} must be a SymPy relation such as p > 0 "
                    "(sympy.Symbol('p') > 0), not text or a number."
                )
        object.__setattr__(self, "assumptions", tuple(given))

    def domain(self):
        return tuple(self.assumptions)

    def pmf_constraints(self) -> tuple:
        """Where the table is a mechanism at all: every symbolic entry >= 0 and every symbolic
        row summing to 1. A claim about the mechanism holds where these do (a true claim was
        refuted at a = 2, where the row (a, 1 - a) holds -1, with a counterexample that read
        "1/3 > 2"); a claim that the table is a distribution (Normalised) is what checks them."""
        valid = []
        for x, row in self.pmf.items():
            values = [as_expr(v, f"pmf[{x!r}][{y!r}]") for y, v in row.items()]
            valid += [v >= 0 for v in values if v.free_symbols]
            total = sp.simplify(sum(values))
            if total.free_symbols:
                valid.append(sp.Eq(total, 1))
        return tuple(c for c in valid if c is not sp.true)

    def validate(self):
        from proofs.decide import known  # (signs of closed values by arb, not SymPy's guess)

        if not self.pmf:
            raise InputError("pmf={} is empty; give P[M(x)=y] for at least two inputs x.")
        outputs = {frozenset(row) for row in self.pmf.values()}  # (0 and "0" differ)
        if len(outputs) > 1:
            raise InputError("pmf rows have different outputs; list every output for every input.")
        for x, row in self.pmf.items():
            values = [as_expr(v, f"pmf[{x!r}][{y!r}]") for y, v in row.items()]
            if any(known(v, "negative") or known(v - 1, "positive") for v in values):
                raise InputError(
                    f"pmf[{x!r}] = {dict(row)} has a value outside [0, 1]; give probabilities."
                )
            total = sp.simplify(sum(values))
            if not total.free_symbols and total != 1:
                raise InputError(f"pmf[{x!r}] sums to {total}, not 1; fix the row's probabilities.")
        for pair in self.neighbour_pairs():
            for x in pair:
                if x not in self.pmf:
                    raise InputError(f"neighbour {x!r} is not an input of pmf; add its row.")
        if not self.neighbour_pairs():
            raise InputError(
                f"pmf has no neighbouring pair of inputs (inputs {list(self.pmf)}); give at "
                "least two inputs, or the neighbours to compare."
            )

    def neighbour_pairs(self) -> list[tuple]:
        if self.neighbours is None:
            keys = list(self.pmf)
            return [(a, b) for a in keys for b in keys if a != b]
        return [p for a, b in self.neighbours for p in ((a, b), (b, a))]


def _hashable(x) -> bool:
    try:
        hash(x)
    except TypeError:
        return False
    return True


def same_inputs(tables, what: str = "mechanisms") -> None:
    """Raise InputError unless the tables share their inputs and their neighbouring pairs.

    Parts run on one input (a composition) are private with respect to one neighbour relation:
    each part's epsilon on its own pairs says nothing of the others' pairs (two tables whose
    only neighbours differ are each 0-DP on their own pair, and their composition is not)."""
    tables = list(tables)
    if len(tables) < 2:
        return
    inputs = set(tables[0].pmf)
    pairs = frozenset(tables[0].neighbour_pairs())
    for t in tables[1:]:
        if set(t.pmf) != inputs:
            raise InputError(
                f"{what} have different inputs {sorted(map(str, t.pmf))} vs "
                f"{sorted(map(str, inputs))}; describe all on the same inputs."
            )
        differ = sorted(frozenset(t.neighbour_pairs()) ^ pairs, key=repr)
        if differ:
            x, xp = differ[0]
            raise InputError(
                f"{what} have different neighbours: ({x!r}, {xp!r}) are neighbours in one "
                "table and not in another; give every table the same neighbours (the parts "
                "run on one input)."
            )


_GEO_SAMPLE_K = 1000  # (2^k-sized integers in a table of n + 1 outputs)


def _geo_sample_k(e: sp.Expr, given: Any) -> int:
    """k = ceil(ln(2/eps)), the least k >= 1 with eps e^k >= 2, decided exactly or with arb
    (in doubles, eps = 2e^-3 - 10^-30 gave 3 instead of 4)."""
    import math

    from proofs.decide import closed_sign
    from proofs.numeric import NotNumeric, as_fraction

    def sign(x: sp.Expr) -> int:
        s = closed_sign(x)
        if s is None:
            raise InputError(f"epsilon={given} cannot be compared exactly; give a rational.")
        return s

    if sign(e) <= 0 or sign(e - 2) >= 0:
        raise InputError(
            f"epsilon={given} must be in (0, 2) for GeoSample (k = ceil(ln(2/eps)) >= 1); "
            "use e.g. geo_sample(0.1, 5)."
        )
    try:  # (a guess, then exact steps: float(e) is 0 for eps = 10^-400)
        k = max(1, math.ceil(as_fraction(sp.log(2 / e))) - 1)
    except (NotNumeric, ValueError, OverflowError, ZeroDivisionError):
        k = 1
    if k > _GEO_SAMPLE_K:
        raise InputError(
            f"epsilon={given} is too small for GeoSample's exact table (k = ceil(ln(2/eps)) "
            f"past {_GEO_SAMPLE_K}); use epsilon >= 1e-300."
        )
    while sign(e * sp.exp(k) - 2) < 0:
        k += 1
    while k > 1 and sign(e * sp.exp(k - 1) - 2) >= 0:
        k -= 1
    return k


def geo_sample(epsilon, n: int) -> FiniteMechanism:
    """GeoSample(eps, n), Alg. 4.8 of Balcer and Vadhan (2018), Differential privacy on finite
    computers: a truncated geometric mechanism on the counts {0, ..., n} that needs only
    integer arithmetic. With k = ceil(ln(2/eps)) and d = (2^(k+1) + 1)(2^k + 1)^(n-1), the
    output on count c is the least z with F_c(z) >= U, U uniform on {1, ..., d}, where
    F_c(z) = 2^(k(c-z)) (2^k + 1)^(n-(c-z)) for z < c, d - 2^(k(z-c+1)) (2^k + 1)^(n-1-(z-c))
    for c <= z < n, and F_c(n) = d. Its pmf is exact (rationals); Thm 4.7 there states it is
    ln(1 + 2^-k)-DP. Neighbouring counts differ by one."""
    e = as_expr(epsilon, "epsilon")
    if e.free_symbols:
        raise InputError(f"epsilon={epsilon} must be a number for GeoSample; use e.g. 0.1.")
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise InputError(f"n={n!r} must be a whole number of individuals >= 1; use e.g. n=5.")
    k = _geo_sample_k(e, epsilon)
    base = 2**k + 1
    d = (2 ** (k + 1) + 1) * base ** (n - 1)

    def cdf(c: int, z: int) -> int:
        if z < 0:
            return 0
        if z >= n:
            return d
        if z < c:
            return 2 ** (k * (c - z)) * base ** (n - (c - z))
        return d - 2 ** (k * (z - c + 1)) * base ** (n - 1 - (z - c))

    pmf = {
        c: {z: sp.Rational(cdf(c, z) - cdf(c, z - 1), d) for z in range(n + 1)}
        for c in range(n + 1)
    }
    return FiniteMechanism(
        pmf, tuple((c, c + 1) for c in range(n)), name=f"GeoSample(k={k}, n={n})"
    )


@dataclass(frozen=True, slots=True)
class Published:
    """A mechanism the proof checker cannot describe yet, with its epsilon as published: the
    value is cited, not proved here (:func:`proofs.true_epsilon` reports it with that basis).
    `epsilon` is a number (``math.inf`` for no finite epsilon)."""

    name: str
    epsilon: float
    source: str

    def domain(self):
        return ()

    def validate(self):
        if (
            not isinstance(self.epsilon, (int, float))
            or self.epsilon != self.epsilon
            or self.epsilon < 0
        ):
            raise InputError(
                f"epsilon={self.epsilon!r} must be a number >= 0 (math.inf for no finite epsilon)."
            )
