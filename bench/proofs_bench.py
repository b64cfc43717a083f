"""Proof-checker bench: the whole catalogue's timing, mutation testing of every true theorem
(each mutant judged by an independent numeric oracle, :mod:`proofs.mutation`), and a Hypothesis
fuzz of random claims built from the exported constructors (no internal error allowed)."""

from __future__ import annotations

import collections
import time


def catalogue_timing() -> None:
    from proofs.catalogue import catalogue
    from proofs.dispatch import run_theorems

    run = run_theorems(catalogue())
    print("## Proof catalogue\n")
    print(run.summary().splitlines()[-1])
    slow = sorted(run.results, key=lambda r: -r.seconds)[:5]
    print("slowest: " + ", ".join(f"{r.id} {r.seconds:.2f} s" for r in slow) + "\n")


def mutation() -> None:
    from proofs.catalogue import catalogue
    from proofs.mutation import run_mutation

    start = time.perf_counter()
    result = run_mutation(catalogue())
    print("## Mutation testing of the catalogue (`proofs.mutation`)\n")
    print(result.summary())
    for line in result.false_passed:
        print(f"  FALSE MUTANT PASSED: {line}")
    if result.theorems_without_false_mutant:
        print(
            "  theorems without a false mutant: " + ", ".join(result.theorems_without_false_mutant)
        )
    print(f"{time.perf_counter() - start:.0f} s\n")


def fuzz(examples: int = 2000) -> None:
    """Random claims from the exported constructors (the strategies of the test suite)."""
    import sys
    import warnings
    from pathlib import Path

    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st
    from hypothesis.errors import HypothesisWarning

    from proofs import InputError
    from proofs.dispatch import check_isolated

    warnings.simplefilter("ignore", HypothesisWarning)  # long reprs of the strategies
    # SymPy's cache, filled by the sections before, can change whether a constructor refuses
    # its arguments, and so the claims Hypothesis goes on to draw: the fuzz drew other claims
    # from run to run (2,000 claims with 116 or 161 errors); emptied, it draws the claims a
    # fresh process draws
    from sympy.core.cache import clear_cache

    clear_cache()

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from tests.proofs import test_fuzz as strategies

    counts: collections.Counter = collections.Counter()
    internal: list[str] = []

    @settings(
        max_examples=examples,
        deadline=None,
        database=None,
        derandomize=True,
        suppress_health_check=list(HealthCheck),
    )
    @given(st.data())
    def run(data):
        try:
            claim = data.draw(strategies.claims)
        except InputError:
            counts["refused at construction (InputError)"] += 1
            return
        result = check_isolated(claim)
        counts[result.verdict.value] += 1
        if result.internal:
            internal.append(result.reason)

    start = time.perf_counter()
    run()
    print(f"## Fuzz: {examples} random claims from the exported constructors\n")
    print(", ".join(f"{k}: {v}" for k, v in sorted(counts.items())))
    print(f"internal errors: {len(internal)}" + (f" (first: {internal[0]})" if internal else ""))
    print(f"{time.perf_counter() - start:.0f} s\n")


def run() -> None:
    catalogue_timing()
    mutation()
    fuzz()
