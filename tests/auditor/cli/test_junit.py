"""JUnit XML: one test case per claim or audit; failures, errors and skips where CI expects."""

from __future__ import annotations

import textwrap
import xml.etree.ElementTree as ET

from auditor.cli import main


def _cases(path):
    suite = ET.parse(path).getroot().find("testsuite")
    return suite, {c.get("name"): c for c in suite.findall("testcase")}


def test_prove_junit_marks_the_unexpected_claim_and_the_broken_one(tmp_path):
    claims = tmp_path / "claims.py"
    claims.write_text(
        textwrap.dedent("""
        from proofs import Laplace, PureDP, Theorem
        CLAIMS = [
            Theorem("good", PureDP(Laplace(10, 1), "1/10"), "DR14"),
            Theorem("wrong", PureDP(Laplace(10, 1), "1/20"), "a typo"),
            Theorem("bad", PureDP(Laplace(-1, 1), "1/10"), "bad input"),
        ]
        """)
    )
    out = tmp_path / "p.xml"
    assert main(["prove", str(claims), "--quiet", "--junit-xml", str(out)]) == 2
    suite, cases = _cases(out)
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("3", "1", "1")
    assert cases["good"].find("failure") is None and cases["good"].find("error") is None
    assert "expected holds" in cases["wrong"].find("failure").get("message")
    assert cases["bad"].find("error") is not None


def test_audit_junit_fails_a_violation_and_skips_an_inconclusive_audit(tmp_path):
    out = tmp_path / "a.xml"
    args = ["--epsilon", "0.1", "--samples", "5000", "--quiet", "--junit-xml", str(out)]
    assert main(["audit", "noisy_hist2", *args]) == 1
    suite, cases = _cases(out)
    (case,) = cases.values()
    assert suite.get("failures") == "1" and "violation" in case.find("failure").get("message")
    weak = [*args[:2], "--samples", "2000", *args[4:]]  # (at 5,000 a balanced event detects 2x)
    assert main(["audit", "laplace_parallel20", *weak]) == 4
    suite, cases = _cases(out)
    assert suite.get("skipped") == "1" and suite.get("failures") == "0"


def test_a_profile_audit_is_named_and_failed_as_a_profile(tmp_path):
    """The case read '... is (1.99309, 1e-05)-DP' and failed with 'certified epsilon >= 0.7589 >
    claimed 1.99309', an inequality that does not hold."""
    (tmp_path / "noisy_sum.py").write_text(
        "import numpy as np\n\n"
        "def release(data, size, rng):\n"
        "    return float(np.sum(data)) + rng.standard_normal(size)\n"
    )
    out = tmp_path / "p.xml"
    target = f"{tmp_path / 'noisy_sum.py'}:release"
    argv = ["audit", target, "--profile", "gaussian:2", "--pair", "[0, 1]", "[0]"]
    extra = ["--samples", "20000", "--semantics", "ideal", "--workers", "1", "--quiet"]
    assert main([*argv, *extra, "--junit-xml", str(out)]) == 1
    _suite, cases = _cases(out)
    (name,) = cases
    assert name.endswith("is gaussian:2")
    message = cases[name].find("failure").get("message")
    assert "GDP mu >= " in message and "> claimed mu 0.5" in message, message
