"""Auditing inside any test suite: `assert_dp` and a pytest fixture.

    from auditor.testing.assertions import assert_dp

    def test_my_laplace_is_private():
        assert_dp(my_mechanism, pairs=[([1, 2, 3], [1, 2, 4])], epsilon=1.0)

`assert_dp` runs :func:`auditor.audit` and fails with the witness (pair, event, counts,
certified epsilon lower bound) when the audit finds a violation of the claimed
(epsilon, delta). False-failure rate: on a mechanism that satisfies its claim, a failure by a
certified violation happens with probability at most ``1 - confidence`` (default 0.999, so at
most 1 run in 1000), over the audit's own randomness. A failure for an inconclusive audit (too
little power at the claim) is not bounded by it: raise ``samples``, or pass
``allow_inconclusive=True``. With a fixed ``seed`` (the default) the outcome is
deterministic for a deterministic sampler, so a passing test stays passing.
A pass is not a proof of privacy: it means no violation was found with these samples.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

__all__ = ["DPViolation", "assert_dp"]


class DPViolation(AssertionError):
    """The audit certified, at the stated confidence, that the claim is violated."""

    def __init__(self, message: str, result: Any):
        super().__init__(message)
        self.result = result


def assert_dp(
    mechanism: Callable[..., Any],
    pairs: Iterable[Any] | None = None,
    epsilon: float | None = None,
    delta: float | None = None,
    *,
    samples: int = 200_000,
    confidence: float = 0.999,
    seed: int | None = 0,
    relation: str | None = None,
    allow_inconclusive: bool = False,
    **options: Any,
):
    """Fail (raise :class:`DPViolation`, an AssertionError) if the audit finds a violation, or
    if it is inconclusive (it could not have caught a mechanism twice as leaky as claimed)
    unless ``allow_inconclusive``. The claim is ``epsilon`` (default 1.0) and ``delta``
    (default 0), or a privacy profile, ``profile="gaussian:2"`` (the command line's
    ``--profile`` forms; ``delta`` is then where it is read as an epsilon, default 1e-5).

    Returns the :class:`auditor.AuditResult` on success so tests can inspect the bound.
    """
    __tracebackhide__ = True  # pytest shows the caller's line, not this frame
    from auditor import audit

    if epsilon is None and options.get("profile") is None:
        epsilon = 1.0
    result = audit(
        mechanism,
        pairs,
        epsilon=epsilon,
        delta=delta,
        samples=samples,
        confidence=confidence,
        seed=seed,
        relation=relation,
        **options,
    )
    if result.violation:
        raise DPViolation(_violation_message(result), result)
    if result.verdict == "inconclusive" and not allow_inconclusive:
        raise DPViolation(
            f"inconclusive audit of {result.claim_words()}: no violation found, but it "
            f"detects only {_unit(result)} >= {result.detectable_epsilon:.4g}\n"
            f"{result.hint}\nor pass allow_inconclusive=True",
            result,
        )
    return result


def _unit(result: Any) -> str:
    return "epsilon" if result.profile is None else "GDP mu"


def _violation_message(result: Any) -> str:
    """At most seven lines: verdict, bound against the claim, witness in words, counts, what a
    float-representation violation means, how to replay."""
    from auditor.engine.result import dataset_words, float_note

    w = result.witness
    why = " (an event never seen under the other dataset)" if result.unbounded_witness else ""
    lines = [
        f"{result.claim_words()} violated at confidence {result.confidence:g}: certified "
        f"{result.bound_words()}{why}"
    ]
    if w is not None:
        a, b = dataset_words(w.pair.get("a")), dataset_words(w.pair.get("b"))
        lines.append(f"witness: {a} vs {b}, event {w.event}")
        if w.simple_event:
            lines.append(f"in words: {w.simple_event}")
        num, den = (a, b)[:: 1 if w.numerator == "a" else -1]
        lines.append(
            f"counts: {w.count_numerator} under {num} vs {w.count_denominator} under {den} "
            f"of {w.certification_samples} samples each (seed {result.seed})"
        )
    if "float-representation" in result.violation_kinds:
        lines.append(float_note(result.float_events).strip())
    lines.append("replay: auditor.replay(error.result, mechanism) on fresh samples")
    return "\n".join(lines)
