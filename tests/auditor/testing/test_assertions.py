"""assert_dp: catches broken catalogue mechanisms, passes correct ones, names the witness."""

import pytest

from auditor import catalogue
from auditor.testing.assertions import DPViolation, assert_dp

CORRECT = [
    "laplace.scalar",
    "rr.alpha_coin",
    "noisy_hist1",
    "geometric.two_sided",
    "exponential.half_factor",
    "one_bit.telemetry",
]
BROKEN = [
    "noisy_hist2",
    "laplace.float_textbook",
    "svt5",
    "histogram.replace_one",
    "exponential.no_half_factor",
]


def _pairs(entry):
    return [(p.a, p.b) for p in entry.pairs]


@pytest.mark.parametrize("name", CORRECT)
def test_correct_mechanisms_pass(name):
    entry = catalogue.get(name)
    result = assert_dp(
        entry.sampler(1.0), _pairs(entry), epsilon=1.0, delta=entry.delta, samples=100_000, seed=3
    )
    assert result.epsilon_lower_bound <= 1.0


@pytest.mark.parametrize("name", BROKEN)
def test_broken_mechanisms_fail_with_the_witness(name):
    entry = catalogue.get(name)
    eps = 1.0 if name != "noisy_hist2" else 0.1
    with pytest.raises(DPViolation) as info:
        assert_dp(
            entry.sampler(eps),
            _pairs(entry),
            epsilon=eps,
            delta=entry.delta,
            samples=400_000,
            seed=3,
        )
    message = str(info.value)
    assert "witness pair" in message and "event" in message and "certified epsilon >=" in message
    assert info.value.result.violation


def test_pytest_fixture_is_the_same_function(assert_dp):  # provided by the dpaudit plugin
    entry = catalogue.get("laplace.scalar")
    result = assert_dp(entry.sampler(1.0), _pairs(entry), epsilon=1.0, samples=50_000)
    assert not result.violation
