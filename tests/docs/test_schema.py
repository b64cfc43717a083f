"""auditor/schemas: the audit and prove JSON outputs validate against their JSON Schemas."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import numpy as np
import pytest

from auditor import audit
from auditor.catalogue import get
from proofs.catalogue import catalogue
from proofs.dispatch import run_theorems

ROOT = Path(__file__).resolve().parents[2]
SCHEMAS = ROOT / "auditor" / "schemas"


def _validator(name: str):
    schema = json.loads((SCHEMAS / f"{name}.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


@pytest.mark.parametrize(
    "name, samples",
    [
        ("noisy_hist2", 5_000),
        ("laplace", 20_000),
        ("laplace_parallel20", 2_000),
        ("rr.k_ary", 20_000),
    ],
)
def test_audit_results_validate(name, samples):
    entry = get(name)
    r = audit(entry.sampler(), entry.pairs, epsilon=entry.claimed_epsilon, samples=samples, seed=1)
    d = json.loads(json.dumps(r.to_dict(), allow_nan=False))  # what --json writes
    _validator("audit").validate(d)


def test_an_audit_without_a_witness_validates():
    def same(data, size, rng):
        return np.zeros(size, dtype=int)

    r = audit(same, [(0, 1)], epsilon=1.0, samples=1_000, seed=0)
    _validator("audit").validate(json.loads(json.dumps(r.to_dict())))


def test_a_broken_document_does_not_validate():
    entry = get("laplace")
    d = audit(entry.sampler(), entry.pairs, epsilon=0.1, samples=5_000, seed=1).to_dict()
    d["verdict"] = "probably fine"
    with pytest.raises(jsonschema.ValidationError):
        _validator("audit").validate(json.loads(json.dumps(d)))


@pytest.mark.parametrize(
    "edit",
    [
        {"verdict": "no violation found", "violation": True},
        {"verdict": "violation", "violation": False},
        {"delta_lower_bound": 5},
        {"detectable_epsilon": -1},
        {"seconds": -1},
    ],
    ids=["verdict-vs-flag", "flag-vs-verdict", "delta-above-1", "negative-detectable", "time"],
)
def test_documents_that_no_audit_writes_do_not_validate(edit):
    """The schema accepted a verdict contradicting the violation flag, a delta of 5, negative
    detectable epsilons and times, and an event of a type no audit writes."""
    entry = get("noisy_hist2")
    r = audit(entry.sampler(), entry.pairs, epsilon=0.1, samples=5_000, seed=1)
    d = json.loads(json.dumps(r.to_dict()))
    _validator("audit").validate(d)
    with pytest.raises(jsonschema.ValidationError):
        _validator("audit").validate({**d, **edit})
    d["witness"]["event_state"]["type"] = "Nope"
    with pytest.raises(jsonschema.ValidationError):
        _validator("audit").validate(d)


def test_the_event_types_of_the_schema_are_the_ones_replay_reads():
    from auditor.engine.events import _STATE_TYPES

    schema = json.loads((SCHEMAS / "audit.schema.json").read_text())
    state = schema["$defs"]["witness"]["properties"]["event_state"]
    assert sorted(state["properties"]["type"]["enum"]) == sorted(_STATE_TYPES)


def test_a_replay_output_validates_against_its_own_schema():
    """`replay --json` had no schema and failed the audit's."""
    from auditor import replay

    entry = get("noisy_hist2")
    r = audit(entry.sampler(), entry.pairs, epsilon=0.1, samples=5_000, seed=1)
    again = replay(r, entry.sampler())
    _validator("replay").validate(json.loads(json.dumps(again.to_dict(), allow_nan=False)))


def test_the_prove_output_validates():
    run = run_theorems(catalogue()[:12])
    _validator("prove").validate(json.loads(json.dumps(run.to_dict())))
    _validator("prove").validate(json.loads((ROOT / "reports" / "proofs.json").read_text()))
