"""What :func:`auditor.closeness.closeness` returns: one entry per listed class and the table's
result, with their JSON form (:meth:`ClosenessResult.to_dict`) and text summary."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from auditor.closeness.reference import ReferenceSet
from proofs.io import SCHEMA_VERSION, finite_or_none

__all__ = ["SCHEMA_VERSION", "ClassDistance", "ClosenessResult"]

_SHOWN_COUNTS = 12  # reference-set counts listed per class in the summary


@dataclass(frozen=True, slots=True)
class ClassDistance:
    """One equivalence class: its QI values, size, and distance.

    ``distance`` is the one the verdict uses: against the best reference set when ``n`` was given
    (then ``reference`` describes it), else against the whole table (``table_distance``).
    ``infinite`` is true when the distance is +inf (KL with an empty reference bin).
    """

    qi_values: tuple[str, ...]
    size: int
    first_row: int
    distance: float
    table_distance: float
    counts: tuple[tuple[str, int], ...]
    reference: ReferenceSet | None = None

    @property
    def infinite(self) -> bool:
        return math.isinf(self.distance)

    def to_dict(self, qi: Sequence[str]) -> dict[str, Any]:
        return {
            "qi_values": dict(zip(qi, self.qi_values, strict=False)),
            "size": self.size,
            "first_data_row": self.first_row + 1,
            "distance": finite_or_none(self.distance),
            "infinite": self.infinite,
            "table_distance": finite_or_none(self.table_distance),
            "counts": dict(self.counts),
            "reference": self.reference.to_dict() if self.reference else None,
        }


@dataclass(frozen=True, slots=True)
class ClosenessResult:
    """Outcome of :func:`closeness`. Copies its inputs; ``closeness`` is the max over classes.

    ``verdict`` is ``"t-close"`` / ``"not t-close"`` (``"(n,t)-close"`` / ``"not (n,t)-close"``
    with ``n``) when ``t`` was given, else ``None``; with ``n`` it is ``"undetermined"`` when every
    class above t was not proved optimal and has a lower bound <= t (``unproved_classes``
    counts the classes not proved optimal: their distance is an upper bound). ``worst`` holds
    the ``top`` classes with the largest distance (ties: earliest first row).
    """

    source: str
    qi: tuple[str, ...]
    sensitive: str
    distance: str
    ordered: bool
    t: float | None
    n: int | None
    rows: int
    classes: int
    values: int
    closeness: float
    violating_classes: int | None
    infinite_classes: int
    worst: tuple[ClassDistance, ...]
    reference_solves: int
    seconds: float
    notes: tuple[str, ...] = ()
    unproved_classes: int = 0
    violating_unproved: int = 0
    # partition-level (n, t): the one reference set of every class (None: one per class)
    shared_reference: ReferenceSet | None = None

    @property
    def verdict(self) -> str | None:
        if self.t is None:
            return None
        name = "t-close" if self.n is None else "(n,t)-close"
        if self.closeness <= self.t:
            return name
        if self.violating_classes == self.violating_unproved:
            return "undetermined"
        return f"not {name}"

    @property
    def violation(self) -> bool:
        return self.verdict is not None and self.verdict.startswith("not ")

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema_version": SCHEMA_VERSION,
            "source": self.source,
            "qi": list(self.qi),
            "sensitive": self.sensitive,
            "distance": self.distance,
            "ordered": self.ordered,
            "t": self.t,
            "n": self.n,
            "rows": self.rows,
            "classes": self.classes,
            "sensitive_values": self.values,
            "closeness": finite_or_none(self.closeness),
            "closeness_infinite": math.isinf(self.closeness),
            "verdict": self.verdict,
            "violation": self.violation,
            "violating_classes": self.violating_classes,
            "infinite_classes": self.infinite_classes,
            "worst": [w.to_dict(self.qi) for w in self.worst],
            "reference_solves": self.reference_solves,
            "unproved_classes": self.unproved_classes,
            "shared_reference": (
                None if self.shared_reference is None else self.shared_reference.to_dict()
            ),
            "seconds": self.seconds,
            "notes": list(self.notes),
        }

    def summary(self) -> str:
        kind = f"({self.n}, t)-closeness" if self.n is not None else "closeness"
        if self.shared_reference is not None:
            kind = f"partition-level {kind} (one reference set for every class)"
        head = (
            f"{self.source}: {self.rows} rows, {self.classes} classes on QI "
            f"{', '.join(self.qi)}; sensitive {self.sensitive!r} ({self.values} values"
            f"{', ordered' if self.ordered else ''}); distance {self.distance}"
        )
        top = self.worst[0].reference if self.worst else None
        bound = top is not None and not top.optimal  # (a time limit: an upper bound only)
        lines = [
            head,
            f"{kind} {'<=' if bound else '='} {_fmt(self.closeness)} (max over classes"
            + (
                ", an upper bound: that class's best reference set was not proved optimal)"
                if bound
                else ")"
            ),
        ]
        if self.t is not None:
            unproved = (
                f", {self.violating_unproved} of them by an upper bound only"
                if self.violating_unproved
                else ""
            )
            lines.append(
                f"verdict: {self.verdict} at t = {self.t:g} "
                f"({self.violating_classes} of {self.classes} classes exceed t{unproved})"
            )
        lines.extend(self.notes)
        if self.shared_reference is not None:
            lines.append(_reference_line(self.shared_reference, self.closeness).strip())
        lines.append(f"worst {len(self.worst)} class(es):")
        lines.extend(_class_line(w, self.qi) for w in self.worst)
        return "\n".join(lines)


def _fmt(x: float) -> str:
    return "inf" if math.isinf(x) else f"{x:.6g}"


def _class_line(w: ClassDistance, qi: Sequence[str]) -> str:
    label = ", ".join(f"{k}={v}" for k, v in zip(qi, w.qi_values, strict=False))
    line = f"  D = {_fmt(w.distance):>9}  size {w.size:>7}  [{label}]"
    if w.reference is None:
        return line
    return line + _reference_line(w.reference, w.distance)


def _reference_line(ref: ReferenceSet, distance: float) -> str:
    counts = ", ".join(f"{v}: {c}" for v, c in ref.counts[:_SHOWN_COUNTS])
    more = ", ..." if len(ref.counts) > _SHOWN_COUNTS else ""
    proved = (
        ""
        if ref.optimal
        else f" [not proved optimal (time limit or gap): best distance in [{ref.bound:.6g}, "
        f"{distance:.6g}]]"
    )
    return f"\n      best reference M: {ref.size} records ({counts}{more}){proved}"
