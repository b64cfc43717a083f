"""Violation kinds: a textbook float sampler violates in its bits only; one with a scale bug
violates as a distribution too; semantics='ideal' audits the real-number mechanism."""

from __future__ import annotations

import pytest

from auditor import audit
from proofs import InputError


def _float_laplace(scale: float):
    def sample(data, size, rng):
        return float(data) + rng.laplace(scale=scale, size=size)

    return sample


def test_a_textbook_float_sampler_violates_in_its_bits_only():
    r = audit(_float_laplace(10.0), [(0, 1)], epsilon=0.1, samples=100_000, seed=1)
    assert r.violation and r.violation_kind == "float-representation"
    assert r.violation_kinds == ("float-representation",)
    assert "Mironov 2012" in r.summary() and "--semantics ideal" in r.summary()
    assert r.to_dict()["violation_kinds"] == ["float-representation"]


def test_a_scale_bug_in_a_float_sampler_is_reported_as_both_kinds():
    r = audit(_float_laplace(1.0), [(0, 1)], epsilon=0.1, samples=100_000, seed=1)
    assert set(r.violation_kinds) == {"float-representation", "distributional"}
    assert "also violates the claim as a distribution" in r.summary()


def test_ideal_semantics_turns_the_bit_events_off():
    ideal = dict(epsilon=0.1, samples=100_000, seed=1, semantics="ideal")
    assert not audit(_float_laplace(10.0), [(0, 1)], **ideal).violation
    r = audit(_float_laplace(1.0), [(0, 1)], **ideal)
    assert r.violation and r.violation_kinds == ("distributional",)
    with pytest.raises(InputError, match="semantics='exact'"):
        audit(_float_laplace(1.0), [(0, 1)], epsilon=0.1, semantics="exact")
