"""JUnit XML for CI systems: one test case per claim (`dpaudit prove --junit-xml OUT`) or per
audit (`dpaudit audit --junit-xml OUT`), so any CI shows each failing theorem or audit by name.

Prove: a claim whose verdict is not as expected is a failure, one that could not be checked an
error. Audit: a violation is a failure, an inconclusive audit is skipped (it decided nothing).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

__all__ = ["audit_junit", "proofs_junit"]


def _suite(name: str, cases: list[ET.Element], seconds: float) -> str:
    counts = {k: sum(1 for c in cases if c.find(k) is not None) for k in ("failure", "error")}
    skipped = sum(1 for c in cases if c.find("skipped") is not None)
    suite = ET.Element(
        "testsuite",
        name=name,
        tests=str(len(cases)),
        failures=str(counts["failure"]),
        errors=str(counts["error"]),
        skipped=str(skipped),
        time=f"{seconds:.3f}",
    )
    suite.extend(cases)
    root = ET.Element("testsuites")
    root.append(suite)
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def proofs_junit(run: Any) -> str:
    """The proof run as a JUnit test suite, one test case per claim."""
    cases = []
    for r in run.results:
        case = ET.Element(
            "testcase",
            classname=f"dpaudit.prove.{r.file or 'catalogue'}",
            name=r.id,
            time=f"{r.seconds or 0.0:.3f}",
        )
        if r.verdict.value == "error":
            ET.SubElement(case, "error", message=r.reason or "error").text = r.summary()
        elif not r.as_expected:
            message = f"verdict {r.verdict.value}, expected {r.expect}"
            ET.SubElement(case, "failure", message=message).text = r.summary()
        ET.SubElement(case, "system-out").text = r.summary()
        cases.append(case)
    return _suite("dpaudit prove", cases, sum(r.seconds or 0.0 for r in run.results))


def audit_junit(result: Any) -> str:
    """One audit as a JUnit test suite with one test case."""
    case = ET.Element(
        "testcase",
        classname="dpaudit.audit",
        name=f"{result.mechanism} is {result.claim_words().removeprefix('the profile ')}",
        time=f"{result.seconds:.3f}",
    )
    if result.violation:
        message = f"violation: certified {result.bound_words()} at confidence {result.confidence:g}"
        ET.SubElement(case, "failure", message=message).text = result.summary()
    elif result.verdict == "inconclusive":
        ET.SubElement(case, "skipped", message=result.hint or "inconclusive")
    ET.SubElement(case, "system-out").text = result.summary()
    return _suite("dpaudit audit", [case], result.seconds)
