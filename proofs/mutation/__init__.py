"""Mutation testing of theorem catalogues: perturb true claims, judge each mutant with an
independent numeric oracle, and check that no false mutant is ever proved or certified.

:func:`mutants` perturbs a true claim systematically:

- ``epsilon x0.99``: the claimed epsilon (or the rule, or eps_k) times 99/100;
- ``delta x0.99``: the claimed delta (or the delta rule, or delta_k) times 99/100;
- ``k+1`` and ``k-1``: the number of compositions, the group size, the number of reports or
  hash functions, moved by one;
- ``constant``: one constant of the claim (a noise scale, a stated value, a bound) times 99/100
  or 101/100.

:func:`oracle` judges a claim by direct numerical evaluation, independent of the checker's
symbolic path (no SymPy simplification, no z3, no formulations): densities and mass functions of
the descriptions evaluated with mpmath at 40 digits on grids of inputs and outputs, integrals by
quadrature, sums by brute force, at a grid of parameter values inside the claim's domain. It
answers ``False`` only with a numeric witness that beats the claim by a relative margin of
1e-6 (far below the 1% mutations, far above the 40-digit arithmetic), ``True`` when no sampled
point violates the claim (evidence, not proof), and ``None`` when it cannot evaluate the claim.

A mutant whose oracle says ``False`` must never be ``proved`` or ``certified``
(:func:`run_mutation`); mutants the oracle finds still true are counted apart (a true mutant
may well be proved).
"""

from __future__ import annotations

from dataclasses import dataclass

from proofs.claims import Theorem
from proofs.mutation.mutants import Mutant, mutants
from proofs.mutation.oracle import oracle
from proofs.results import Verdict

__all__ = ["Mutant", "MutationRun", "mutants", "oracle", "run_mutation"]


@dataclass(frozen=True, slots=True)
class MutationRun:
    """Counts of a mutation run. `false_passed` must be empty: false mutants proved/certified."""

    mutants: int
    false: int
    still_true: int
    undecided: int
    refuted: int
    unknown_or_checked: int
    false_passed: tuple[str, ...]
    true_passed: int
    theorems_without_false_mutant: tuple[str, ...]
    by_kind: dict

    def summary(self) -> str:
        kinds = ", ".join(f"{k}: {v}" for k, v in sorted(self.by_kind.items()))
        return (
            f"{self.mutants} mutants ({kinds}); oracle: {self.false} false, "
            f"{self.still_true} still true, {self.undecided} undecided; of the false: "
            f"{self.refuted} refuted, {self.unknown_or_checked} unknown or checked, "
            f"{len(self.false_passed)} proved or certified; still-true mutants proved or "
            f"certified: {self.true_passed}; theorems with no false mutant: "
            f"{len(self.theorems_without_false_mutant)}"
        )


def run_mutation(theorems, check=None) -> MutationRun:
    """Mutate every true theorem, judge each mutant with :func:`oracle` and the checker."""
    from proofs.dispatch import check_isolated

    check = check or check_isolated
    counts = dict(false=0, true=0, none=0, refuted=0, open=0, true_passed=0)
    passed, by_kind, covered, total, ids = [], {}, set(), 0, []
    for theorem in theorems:
        if theorem.expect != "holds":
            continue
        ids.append(theorem.id)
        for mutant in mutants(theorem):
            truth = oracle(mutant.claim)
            total += 1
            by_kind[mutant.kind] = by_kind.get(mutant.kind, 0) + 1
            verdict = check(Theorem(f"{theorem.id}~{mutant.kind}", mutant.claim, "mutant")).verdict
            if truth is False:
                counts["false"] += 1
                covered.add(theorem.id)
                if verdict.holds:
                    passed.append(f"{theorem.id} ({mutant.kind}): {verdict.value}")
                elif verdict is Verdict.REFUTED:
                    counts["refuted"] += 1
                else:
                    counts["open"] += 1
            elif truth is True:
                counts["true"] += 1
                counts["true_passed"] += verdict.holds
            else:
                counts["none"] += 1
    return MutationRun(
        total,
        counts["false"],
        counts["true"],
        counts["none"],
        counts["refuted"],
        counts["open"],
        tuple(passed),
        counts["true_passed"],
        tuple(i for i in ids if i not in covered),
        by_kind,
    )
