"""The one dispatcher: ``check(claim) -> ProofResult`` over the checkers of :mod:`proofs.checkers`.

Each checker module says which claims it decides (``supports(claim)``) and decides them
(``check(claim) -> Finding``); the dispatcher times the check and copies the theorem's id,
statement, source and expectation into the result. :func:`check_isolated` turns a claim that
cannot be checked into an ``error`` result instead of an exception, so one bad claim never
stops a run (:func:`run_theorems`).
"""

from __future__ import annotations

import importlib
import time
from dataclasses import replace
from functools import lru_cache
from typing import Any

from proofs.claims import Theorem
from proofs.errors import InputError, Undecided
from proofs.io import long_integers
from proofs.results import Finding, ProofResult, ProofRun, Verdict

__all__ = ["CHECKERS", "check", "check_isolated", "checker_for", "error_result", "run_theorems"]

CHECKERS = (
    "proofs.checkers.pure",
    "proofs.checkers.profiles",
    "proofs.checkers.calibration",
    "proofs.checkers.composition",
    "proofs.checkers.group",
    "proofs.checkers.postprocessing",
    "proofs.checkers.renyi",
    "proofs.checkers.rdp",
    "proofs.checkers.estimators",
    "proofs.checkers.densities",
    "proofs.checkers.distances",
    "proofs.checkers.inequality",
)


@lru_cache(maxsize=1)
def _checkers() -> tuple:
    return tuple(importlib.import_module(name) for name in CHECKERS)


def checker_for(claim: Any):
    """The checker module that supports `claim`; an InputError when none does."""
    for checker in _checkers():
        if checker.supports(claim):
            return checker
    raise InputError(
        f"{type(claim).__name__} is not a claim dpaudit can check; use proofs.PureDP "
        "(or another claim class from proofs; see docs/claims.md)."
    )


def check(item: Theorem | Any) -> ProofResult:
    """Check a theorem or a bare claim and return its result (never `proved` on doubt)."""
    theorem = item if isinstance(item, Theorem) else Theorem("claim", item, "")
    with long_integers():
        return _check(theorem)


def _check(theorem: Theorem) -> ProofResult:
    checker = checker_for(theorem.claim)
    start = time.perf_counter()
    try:
        finding = checker.check(theorem.claim)
    except Undecided as exc:  # (a checker that does not catch it itself: still no verdict)
        finding = Finding(Verdict.UNKNOWN, "none", reason=str(exc))
    return ProofResult(
        id=theorem.id,
        statement=theorem.statement or theorem.claim.statement(),
        verdict=finding.verdict,
        method=finding.method,
        reason=finding.reason,
        counterexample=finding.counterexample,
        tight_epsilon=finding.tight_epsilon,
        source=theorem.source,
        expect=theorem.expect,
        steps=tuple(finding.steps),
        seconds=time.perf_counter() - start,
        file=theorem.file,
    )


def error_result(
    id: str,
    message: str,
    *,
    file: str = "",
    source: str = "",
    expect: str = "holds",
    internal: bool = False,
) -> ProofResult:
    """The `error` result of a claim that could not be checked."""
    return ProofResult(
        id=id,
        statement="",
        verdict=Verdict.ERROR,
        method="internal error" if internal else "bad input",
        reason=" ".join(message.split()),
        source=source,
        expect=expect,
        file=file,
        internal=internal,
    )


def check_isolated(item: Theorem | Any) -> ProofResult:
    """Like :func:`check`, but a claim that cannot be checked gives an `error` result (bad
    input) instead of an exception, and SymPy's NotImplementedError gives `unknown`."""
    theorem = item if isinstance(item, Theorem) else Theorem("claim", item, "")
    meta = dict(file=theorem.file, source=theorem.source, expect=theorem.expect)
    try:
        return check(theorem)
    except InputError as exc:
        return error_result(theorem.id, str(exc), **meta)
    except NotImplementedError as exc:
        return replace(
            error_result(theorem.id, "", **meta),
            verdict=Verdict.UNKNOWN,
            statement=_statement(theorem),
            method="none",
            reason=f"SymPy cannot handle this claim: {exc}",
        )
    except RecursionError:
        return error_result(
            theorem.id, "the claim is too deeply nested to check; simplify it.", **meta
        )
    except Exception as exc:
        return error_result(
            theorem.id,
            f"internal error ({type(exc).__name__}: {exc}); please report it.",
            internal=True,
            **meta,
        )


def _statement(theorem: Theorem) -> str:
    try:
        return theorem.statement or theorem.claim.statement()
    except Exception:
        return type(theorem.claim).__name__


def run_theorems(items, progress=None) -> ProofRun:
    """Check every item in order, each isolated (see :func:`check_isolated`); items may also be
    ready-made `error` results (a claims file that did not load). `progress(result)` is called
    after each one."""
    start = time.perf_counter()
    results = []
    for item in items:
        result = item if isinstance(item, ProofResult) else check_isolated(item)
        results.append(result)
        if progress is not None:
            progress(result)
    return ProofRun(tuple(results), time.perf_counter() - start)
