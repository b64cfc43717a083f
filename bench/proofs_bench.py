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
    _fresh_fuzz()


def _fresh_fuzz() -> None:
    """The fuzz in a process of its own: after the sections before it, in the same process,
    Hypothesis drew other claims (the same 2,000 draws gave 116 or 161 errors as those
    sections changed), so its counts could not be compared from one run to the next."""
    import subprocess
    import sys

    code = "from bench import proofs_bench as p; p.fuzz()"
    sys.stdout.flush()
    subprocess.run([sys.executable, "-c", code], check=True)
