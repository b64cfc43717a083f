"""The demo's two-stage audit: more samples only where the first stage's evidence points above
the claim, each stage at half the failure probability."""

from __future__ import annotations

from auditor.catalogue import CATALOGUE
from auditor.reports.demo_audit import ESCALATE, point_estimate, staged_audit


def test_a_violation_out_of_the_first_stages_reach_is_caught_by_the_second():
    # GeoSample's true epsilon ln(9/8) = 0.118 against 0.1: too close for 30k samples
    entry = CATALOGUE["truncated_geometric.balcer_vadhan"]
    result, _ = staged_audit(entry, 30_000, seed=0)
    assert result.violation
    assert any("escalated" in n for n in result.notes)
    assert result.samples == ESCALATE * 30_000
    assert result.confidence == 0.975  # each stage at half the failure probability


def test_no_second_stage_when_the_evidence_is_below_the_claim():
    entry = CATALOGUE["svt1"]  # correct: its epsilon on these pairs is 0.0885 < 0.1
    result, _ = staged_audit(entry, 50_000, seed=3)
    est = point_estimate(result)
    assert not result.violation
    assert not any("escalated" in n for n in result.notes)
    assert est is None or est <= entry.claimed_epsilon
