"""Theorems (catalogue entries) and the dispatcher that checks any claim.

A claims file (``dpaudit prove my_claims.py``) defines a module-level list ``CLAIMS`` whose
items are :class:`Theorem` objects or bare claims such as :class:`proofs.PureDP`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from functools import singledispatch
from typing import Any

from proofs.errors import InputError
from proofs.pure import PureDP, check_pure
from proofs.results import SCHEMA_VERSION, ProofResult, Verdict

__all__ = ["Theorem", "check", "check_isolated", "error_result", "ProofRun", "run_theorems"]

_EXPECTATIONS = ("holds", "refuted")


@dataclass(frozen=True, slots=True)
class Theorem:
    """A named claim with its source. `expect='refuted'` marks a deliberately false statement:
    the run counts it as expected when it comes out refuted."""

    id: str
    claim: Any
    source: str
    statement: str | None = None
    expect: str = "holds"
    file: str = ""

    def __post_init__(self):
        if self.expect not in _EXPECTATIONS:
            raise InputError(f"expect={self.expect!r} for {self.id!r}; use 'holds' or 'refuted'.")
        if not self.id or not isinstance(self.id, str):
            raise InputError(f"id={self.id!r} must be a non-empty string naming the theorem.")


@singledispatch
def check_claim(claim: Any, **meta) -> ProofResult:
    """Check one claim. Claim classes outside this module provide `check(**meta)`."""
    if callable(getattr(claim, "check", None)):
        return claim.check(**meta)
    raise InputError(
        f"{type(claim).__name__} is not a claim dpaudit can check; use proofs.PureDP "
        "(or another claim class from proofs)."
    )


@check_claim.register
def _(claim: PureDP, **meta) -> ProofResult:
    return check_pure(claim, **meta)


def check(item: Theorem | Any) -> ProofResult:
    """Check a theorem or a bare claim and return its result (never `proved` on doubt)."""
    if isinstance(item, Theorem):
        return check_claim(item.claim, id=item.id, source=item.source, expect=item.expect,
                           statement=item.statement)
    return check_claim(item)


def error_result(id: str, message: str, *, file: str = "", source: str = "",
                 expect: str = "holds", internal: bool = False) -> ProofResult:
    """The `error` result of a claim that could not be checked."""
    return ProofResult(id=id, statement="", verdict=Verdict.ERROR,
                       method="internal error" if internal else "bad input",
                       reason=" ".join(message.split()), source=source, expect=expect,
                       file=file, internal=internal)


def check_isolated(item: Theorem | Any) -> ProofResult:
    """Like :func:`check`, but a claim that cannot be checked gives an `error` result (bad
    input) instead of an exception, and SymPy's NotImplementedError gives `unknown`: one bad
    claim never stops a run."""
    theorem = item if isinstance(item, Theorem) else None
    meta = dict(file=theorem.file, source=theorem.source, expect=theorem.expect) if theorem \
        else {}
    ident = theorem.id if theorem else "claim"
    start = time.perf_counter()
    try:
        result = check(item)
    except InputError as exc:
        return error_result(ident, str(exc), **meta)
    except NotImplementedError as exc:
        return ProofResult(id=ident, statement=_statement(item), verdict=Verdict.UNKNOWN,
                           method="none", reason=f"SymPy cannot handle this claim: {exc}",
                           seconds=time.perf_counter() - start,
                           **{k: v for k, v in meta.items() if k != "file"})
    except RecursionError:
        return error_result(ident, "the claim is too deeply nested to check; simplify it.",
                            **meta)
    except Exception as exc:  # noqa: BLE001 - isolate the claim; the run reports exit 3
        return error_result(ident, f"internal error ({type(exc).__name__}: {exc}); please "
                                   "report it.", internal=True, **meta)
    if theorem is not None and theorem.file:
        return replace(result, file=theorem.file)
    return result


def _statement(item) -> str:
    try:
        if isinstance(item, Theorem):
            return item.statement or item.claim.statement()
        return item.statement()
    except Exception:  # noqa: BLE001 - a statement is only for display
        return type(item.claim if isinstance(item, Theorem) else item).__name__


@dataclass(frozen=True, slots=True)
class ProofRun:
    """Results of checking a list of theorems, with the total time."""

    results: tuple[ProofResult, ...]
    seconds: float

    @property
    def all_as_expected(self) -> bool:
        return all(r.as_expected for r in self.results)

    @property
    def errors(self) -> tuple[ProofResult, ...]:
        return tuple(r for r in self.results if r.verdict is Verdict.ERROR)

    def counts(self) -> dict[str, int]:
        out = {v.value: 0 for v in Verdict}
        for r in self.results:
            out[r.verdict.value] += 1
        return out

    def summary(self) -> str:
        width = max((len(r.id) for r in self.results), default=10)
        lines = [f"{'id':<{width}}  {'verdict':<9}  {'expected':<8}  {'seconds':>7}  method"]
        for r in self.results:
            mark = "" if r.as_expected else "  <-- NOT AS EXPECTED"
            lines.append(f"{r.id:<{width}}  {r.verdict.value:<9}  {r.expect:<8}  "
                         f"{r.seconds:7.3f}  {r.method}{mark}")
        counts = ", ".join(f"{n} {v}" for v, n in self.counts().items() if n)
        bad = sum(not r.as_expected for r in self.results)
        lines.append(f"{len(self.results)} claims: {counts}; {bad} not as expected; "
                     f"{self.seconds:.2f} s")
        return "\n".join(lines)

    def to_dict(self) -> dict:
        return {"schema_version": SCHEMA_VERSION, "seconds": round(self.seconds, 3),
                "all_as_expected": self.all_as_expected, "counts": self.counts(),
                "results": [r.to_dict() for r in self.results]}


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
