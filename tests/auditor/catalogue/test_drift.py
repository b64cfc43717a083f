"""The two catalogues cannot drift apart: every audited entry is covered by proof-catalogue
theorems about its own description, every mechanism a theorem describes can be sampled, each
entry's claim gets the verdict its correctness says, and each entry's true epsilon is the
proof checker's (test_catalogue checks that no audit certifies more than it)."""

from __future__ import annotations

import pytest

from auditor.catalogue import CATALOGUE, supported_descriptions
from proofs import ApproxDP, PureDP, Verdict
from proofs import mechanisms as m
from proofs.catalogue import catalogue, theorem
from proofs.instances import instance_of

DESCRIBED = [n for n, e in CATALOGUE.items() if not e.published]
PUBLISHED = [n for n, e in CATALOGUE.items() if e.published]
# entries the proof checker cannot describe; adding one here needs a reason in its entry
EXPECTED_PUBLISHED: set[str] = set()


def _covering(entry) -> tuple[str, ...]:
    return entry.theorems + ((entry.refuted_by,) if entry.refuted_by else ())


@pytest.mark.parametrize("name", DESCRIBED)
def test_described_entry_is_covered_by_theorems_about_its_description(name):
    entry = CATALOGUE[name]
    assert _covering(entry), f"{name} has no covering theorem"
    for tid in _covering(entry):
        t = theorem(tid)  # KeyError: the id is not in the proof catalogue
        mech = getattr(t.claim, "mechanism", None)
        if mech is not None and not isinstance(mech, str):
            assert instance_of(mech, entry.description) is not None, (
                f"{name}: {entry.description} is not an instance of {tid}'s {mech}"
            )


@pytest.mark.parametrize("name", DESCRIBED)
def test_correct_and_broken_entries_name_the_right_theorems(name):
    entry = CATALOGUE[name]
    if entry.correct:
        assert any(theorem(t).expect == "holds" for t in entry.theorems), name
    else:
        assert entry.refuted_by is not None, f"broken entry {name} names no refuting theorem"
        assert theorem(entry.refuted_by).expect == "refuted", name


@pytest.mark.parametrize("name", DESCRIBED)
def test_entry_claim_gets_the_verdict_its_correctness_says(name):
    """The entry's own claim, at its numbers, checked by the proof checker. (A claimed epsilon
    that is an exact value, such as RAPPOR's eps_1, is stored as the nearest double, which may
    fall below it by an ulp: correct entries get that much slack.)"""
    entry = CATALOGUE[name]
    eps = entry.claimed_epsilon * (1 + 1e-12) if entry.correct else entry.claimed_epsilon
    if entry.delta > 0:
        claim = ApproxDP(entry.description, eps, entry.delta)
    else:
        claim = PureDP(entry.description, eps)
    verdict = claim.check().verdict
    if entry.correct:
        assert verdict in (Verdict.PROVED, Verdict.CERTIFIED), (name, verdict)
    else:
        assert verdict is Verdict.REFUTED, (name, verdict)


@pytest.mark.parametrize("name", list(CATALOGUE))
def test_true_epsilon_comes_from_the_proof_checker(name):
    entry = CATALOGUE[name]
    true = entry.true()
    assert true is not None, f"the proof checker gives no epsilon for {name}"
    assert true.proved == (name in DESCRIBED)
    assert entry.correct == (true.value <= entry.claimed_epsilon * (1 + 1e-12)), name


def test_published_entries_are_the_expected_ones_and_cite_a_source():
    assert set(PUBLISHED) == EXPECTED_PUBLISHED
    for name in PUBLISHED:
        entry = CATALOGUE[name]
        assert entry.description.source and entry.make is not None, name


def test_every_mechanism_a_theorem_describes_has_a_sampler():
    described = set()
    for t in catalogue():
        mech = getattr(t.claim, "mechanism", None)
        if mech is not None and not isinstance(mech, (str, m.Published)):
            described.add(type(mech).__name__)
    missing = described - set(supported_descriptions())
    assert not missing, f"no sampler for {sorted(missing)}"
    assert {"Laplace", "Rappor", "RepeatedOneBit", "FiniteMechanism"} <= described
