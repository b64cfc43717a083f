"""Verdicts and result objects of the proof checker.

A verdict is only ever as strong as its evidence:

- ``proved``: holds for every parameter value allowed by the stated assumptions (exact
  algebra or an SMT proof over the reals);
- ``certified``: holds at the stated numeric parameter values, by rigorous interval arithmetic
  (or for every size up to a stated bound, which the summary then says);
- ``checked``: holds on the listed instances only (a general rule that was not proved
  symbolically). Never counted as a proof: not in the totals of proved or certified claims, not
  a pass in exit codes, reports or the CI baseline;
- ``refuted``: a concrete counterexample, re-checked with exact or interval arithmetic;
- ``unknown``: no conclusion, with the reason. Never a pass;
- ``error``: the claim could not be checked (bad input, or an internal error); the result
  carries the claim's id, its file and a one-line message, and the other claims still run.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

from proofs.io import SCHEMA_VERSION

__all__ = ["SCHEMA_VERSION", "Counterexample", "Finding", "ProofResult", "ProofRun", "Verdict"]


class Verdict(str, enum.Enum):
    PROVED = "proved"
    CERTIFIED = "certified"
    CHECKED = "checked"
    REFUTED = "refuted"
    UNKNOWN = "unknown"
    ERROR = "error"

    @property
    def holds(self) -> bool:
        """True for the two verdicts that establish the claim."""
        return self in (Verdict.PROVED, Verdict.CERTIFIED)


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, (bool, int, float, str)) or value is None:
        return value
    return str(value)


@dataclass(frozen=True, slots=True)
class Counterexample:
    """A concrete violation, re-checked before it is reported.

    ``parameters`` are the mechanism parameters, ``inputs`` the two neighbouring inputs,
    ``output`` the output (or event) and ``ratio`` the privacy loss found there, compared with
    ``bound`` (the claim). ``check`` says how the re-check was done.
    """

    parameters: dict
    inputs: tuple
    output: Any
    ratio: str
    bound: str
    check: str
    note: str = ""

    def to_dict(self) -> dict:
        return _jsonable(
            {
                "parameters": self.parameters,
                "inputs": list(self.inputs),
                "output": self.output,
                "ratio": self.ratio,
                "bound": self.bound,
                "check": self.check,
                "note": self.note,
            }
        )

    def summary(self) -> str:
        params = ", ".join(f"{k}={v}" for k, v in self.parameters.items())
        x, xp = self.inputs
        where = [f"x={x}, x'={xp}"] if (x, xp) != ("-", "-") else []
        where += [f"output {self.output}"] if self.output != "-" else []
        text = f"at {params or 'the stated parameters'}: " + (
            f"{', '.join(where)}: " if where else ""
        )
        text += f"{self.ratio} > {self.bound} ({self.check})"
        return text + (f"; {self.note}" if self.note else "")


@dataclass(frozen=True, slots=True)
class Finding:
    """What a checker decided about one claim. The verdict is this field, set by the checker;
    :func:`proofs.check` adds the theorem's id, statement, source and the time taken."""

    verdict: Verdict
    method: str
    reason: str = ""
    counterexample: Counterexample | None = None
    tight_epsilon: str | None = None
    steps: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ProofResult:
    """The checker's answer for one claim; copies the claim's id, statement and source."""

    id: str
    statement: str
    verdict: Verdict
    method: str
    reason: str = ""
    counterexample: Counterexample | None = None
    tight_epsilon: str | None = None
    source: str = ""
    expect: str = "holds"
    seconds: float = 0.0
    steps: tuple[str, ...] = field(default_factory=tuple)
    file: str = ""
    internal: bool = False

    @property
    def as_expected(self) -> bool:
        """Did the verdict come out as the entry expects (a pass when expect='holds')?"""
        if self.expect == "refuted":
            return self.verdict is Verdict.REFUTED
        return self.verdict.holds

    def summary(self) -> str:
        if self.verdict is Verdict.ERROR:
            where = f" in {self.file}" if self.file else ""
            return f"{self.id}: error{where} - {self.reason}"
        line = f"{self.id}: {self.verdict.value} ({self.method}) - {self.statement}"
        if self.tight_epsilon:
            line += f"\n    tight epsilon: {self.tight_epsilon}"
        if self.reason:
            line += f"\n    {self.reason}"
        if self.counterexample is not None:
            line += f"\n    counterexample: {self.counterexample.summary()}"
        return line

    def to_dict(self, timings: bool = True) -> dict:
        """The JSON form; `timings=False` gives ``seconds: null`` (a baseline under version
        control then changes only when a verdict or a statement does)."""
        return {
            "schema_version": SCHEMA_VERSION,
            "id": self.id,
            "statement": self.statement,
            "verdict": self.verdict.value,
            "method": self.method,
            "reason": self.reason,
            "counterexample": None
            if self.counterexample is None
            else self.counterexample.to_dict(),
            "tight_epsilon": self.tight_epsilon,
            "source": self.source,
            "expect": self.expect,
            "as_expected": self.as_expected,
            "seconds": round(self.seconds, 4) if timings else None,
            "steps": list(self.steps),
            "file": self.file,
        }


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
            lines.append(
                f"{r.id:<{width}}  {r.verdict.value:<9}  {r.expect:<8}  "
                f"{r.seconds:7.3f}  {r.method}{mark}"
            )
        counts = ", ".join(f"{n} {v}" for v, n in self.counts().items() if n)
        bad = sum(not r.as_expected for r in self.results)
        lines.append(
            f"{len(self.results)} claims: {counts}; {bad} not as expected; {self.seconds:.2f} s"
        )
        return "\n".join(lines)

    def to_dict(self, timings: bool = True) -> dict:
        return {
            "schema_version": SCHEMA_VERSION,
            "seconds": round(self.seconds, 3) if timings else None,
            "all_as_expected": self.all_as_expected,
            "counts": self.counts(),
            "results": [r.to_dict(timings) for r in self.results],
        }
