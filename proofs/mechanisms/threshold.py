"""The sparse vector technique, and several mechanisms run on the same input."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import sympy as sp

from proofs.errors import InputError
from proofs.expr import as_expr
from proofs.mechanisms.response import AlphaCoinRR, ForcedResponse, KAryRR
from proofs.mechanisms.tables import FiniteMechanism, same_inputs
from proofs.validate import check_description, check_epsilon, check_positive

__all__ = ["Composition", "SparseVector"]

REVEALS = ("flags", "compared", "fresh")

# Lyu, Su and Li (2017), Figure 1: the share of epsilon spent on the threshold (eps1), the
# threshold noise scale and the query noise scale, as functions of eps1, eps2 = eps - eps1 and
# the cutoff c; None for no query noise.
_LSL_SHARE = {1: 2, 2: 2, 3: 2, 4: 4, 5: 2, 6: 2}
_LSL_RHO = {2: lambda e1, c: c / e1}
_LSL_NU = {
    1: lambda e2, c: 2 * c / e2,
    2: lambda e2, c: 2 * c / e2,
    3: lambda e2, c: c / e2,
    4: lambda e2, c: 1 / e2,
    5: lambda e2, c: sp.Integer(0),
    6: lambda e2, c: 1 / e2,
}


@dataclass(frozen=True, slots=True)
class SparseVector:
    """The sparse vector technique on `queries` answers of sensitivity 1 each (Dwork and Roth
    2014, Alg. 1-2; Lyu, Su and Li 2017, Figure 1; Wang et al. 2019, NumericalSVT).

    A noisy threshold T + rho, rho ~ Lap(threshold_scale), is compared with each noisy answer
    q_i + nu_i, nu_i ~ Lap(query_scale) (0: no query noise): the output flag is 1 when the
    noisy answer is at least the threshold, else 0. After `cutoff` positive answers the rest are
    not answered (flag -1); `cutoff=None` never stops. `refresh=True` redraws rho after every
    positive answer (Alg. 2). `reveal` says what else a positive answer outputs: nothing
    (``"flags"``), the compared noisy answer itself (``"compared"``, Alg. 3), or a fresh noisy
    answer q_i + Lap(answer_scale) (``"fresh"``, NumericalSVT).

    Neighbours move every answer by at most 1, each its own way. Build the published variants
    with :meth:`lyu_su_li` and :meth:`numerical`.
    """

    threshold_scale: Any
    query_scale: Any
    queries: int = 10
    cutoff: int | None = 1
    refresh: bool = False
    reveal: str = "flags"
    answer_scale: Any = 0
    threshold: Any = 1

    def __post_init__(self):
        for name in ("threshold_scale", "query_scale", "answer_scale", "threshold"):
            object.__setattr__(self, name, as_expr(getattr(self, name), name))

    @classmethod
    def lyu_su_li(
        cls, variant: int, epsilon: Any, queries: int = 10, cutoff: int = 1, threshold: Any = 1
    ) -> SparseVector:
        """Algorithm `variant` (1-6) of Lyu, Su and Li (2017), Figure 1, at `epsilon`: Alg. 1
        (theirs), 2 (Dwork and Roth 2014), 3 (Roth 2011), 4 (Lee and Clifton 2014), 5
        (Stoddard et al. 2014) and 6 (Chen et al. 2015). Alg. 5 and 6 have no cutoff."""
        if variant not in _LSL_NU:
            raise InputError(f"variant={variant!r} is not one of Lyu, Su and Li's 1-6.")
        eps = as_expr(epsilon, "epsilon")
        check_epsilon(eps)
        e1 = eps / _LSL_SHARE[variant]
        e2 = eps - e1
        rho = _LSL_RHO.get(variant, lambda e1, c: 1 / e1)(e1, cutoff)
        return cls(
            threshold_scale=rho,
            query_scale=_LSL_NU[variant](e2, cutoff),
            queries=queries,
            cutoff=None if variant in (5, 6) else cutoff,
            refresh=variant == 2,
            reveal="compared" if variant == 3 else "flags",
            threshold=threshold,
        )

    @classmethod
    def numerical(
        cls, epsilon: Any, queries: int = 10, cutoff: int = 2, threshold: Any = 1
    ) -> SparseVector:
        """Numerical sparse vector (Wang, Ding, Wang, Kifer and Zhang 2019, ShadowDP): threshold
        noise Lap(3/eps), comparison noise Lap(6c/eps), positive answers released with fresh
        Lap(3c/eps) noise."""
        eps = as_expr(epsilon, "epsilon")
        check_epsilon(eps)
        return cls(
            threshold_scale=3 / eps,
            query_scale=6 * cutoff / eps,
            queries=queries,
            cutoff=cutoff,
            reveal="fresh",
            answer_scale=3 * cutoff / eps,
            threshold=threshold,
        )

    @property
    def positives(self) -> int:
        """The most positive answers one run can give."""
        return self.queries if self.cutoff is None else min(self.cutoff, self.queries)

    def domain(self):
        return (self.threshold_scale > 0, self.query_scale >= 0, self.answer_scale >= 0)

    def validate(self):
        check_positive(self.threshold_scale, "threshold_scale")
        for name in ("query_scale", "answer_scale"):
            value = getattr(self, name)
            if value.is_number and not value >= 0:
                raise InputError(f"{name}={value} must be >= 0 (0: no noise).")
        if not isinstance(self.queries, int) or self.queries < 2:
            raise InputError(f"queries={self.queries!r} must be an integer >= 2.")
        if self.cutoff is not None and (
            isinstance(self.cutoff, bool) or not isinstance(self.cutoff, int) or self.cutoff < 1
        ):
            raise InputError(f"cutoff={self.cutoff!r} must be an integer >= 1, or None.")
        if self.reveal not in REVEALS:
            raise InputError(f"reveal={self.reveal!r} must be one of {', '.join(REVEALS)}.")
        if (self.reveal == "fresh") != (self.answer_scale != 0):
            raise InputError(
                f"answer_scale={self.answer_scale} goes with reveal='fresh' only; give both or "
                "neither."
            )


def _values_of(mech) -> set | None:
    """The inputs a response mechanism takes, where a table's may be read with them (it is
    private on every pair of them, so on any neighbours a table names among them); None for
    any other description."""
    if isinstance(mech, (AlphaCoinRR, ForcedResponse)):
        return {0, 1}
    k = mech.k if isinstance(mech, KAryRR) else None
    return set(range(int(k))) if isinstance(k, (int, sp.Integer)) else None


@dataclass(frozen=True, slots=True)
class Composition:
    """Independent mechanisms run on the same input, their outputs reported together (basic
    sequential composition, Dwork and Roth 2014, Thm 3.14: the epsilons add up)."""

    mechanisms: tuple

    def __post_init__(self):
        object.__setattr__(self, "mechanisms", tuple(self.mechanisms))

    def domain(self):
        return tuple(c for mech in self.mechanisms for c in mech.domain())

    def validate(self):
        if len(self.mechanisms) < 1:
            raise InputError("mechanisms=() is empty; give at least one description.")
        for mech in self.mechanisms:
            if not hasattr(mech, "domain"):
                raise InputError(f"mechanism={mech!r} is not a description.")
            check_description(mech)
        leaves = self.leaves()
        tables = [t for t in leaves if isinstance(t, FiniteMechanism)]
        for other in leaves:
            if isinstance(other, FiniteMechanism) or not tables:
                continue
            values = _values_of(other)
            if values is None or any(not set(t.pmf) <= values for t in tables):
                raise InputError(
                    f"a table is composed with {other!r}, whose inputs are not the table's "
                    "(or not known); the parts run on one input with one neighbour relation, "
                    "so describe every part as a FiniteMechanism on the same inputs and "
                    "neighbours."
                )
        same_inputs(tables, "composed tables")

    def leaves(self) -> tuple:
        """The parts, nested compositions opened (their parts run on the same input too)."""
        out: list = []
        for mech in self.mechanisms:
            out += mech.leaves() if isinstance(mech, Composition) else [mech]
        return tuple(out)
