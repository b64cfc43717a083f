"""Mechanisms given by a table (finite pmf) or by a published epsilon."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import sympy as sp

from proofs.errors import InputError
from proofs.expr import as_expr

__all__ = ["FiniteMechanism", "Published"]


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
            isinstance(p, (tuple, list)) and len(p) == 2 for p in self.neighbours
        ):
            raise InputError(
                f"neighbours={self.neighbours!r} must be a tuple of (x, x') pairs, "
                "or None for every pair."
            )

    def domain(self):
        return tuple(self.assumptions)

    def validate(self):
        if not self.pmf:
            raise InputError("pmf={} is empty; give P[M(x)=y] for at least two inputs x.")
        outputs = {tuple(sorted(map(str, row))) for row in self.pmf.values()}
        if len(outputs) > 1:
            raise InputError("pmf rows have different outputs; list every output for every input.")
        for x, row in self.pmf.items():
            values = [as_expr(v, f"pmf[{x!r}][{y!r}]") for y, v in row.items()]
            if any(v.is_negative or (v - 1).is_positive for v in values):
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

    def neighbour_pairs(self) -> list[tuple]:
        if self.neighbours is None:
            keys = list(self.pmf)
            return [(a, b) for a in keys for b in keys if a != b]
        return [p for a, b in self.neighbours for p in ((a, b), (b, a))]


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
