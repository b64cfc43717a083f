"""assert_dp: catches broken catalogue mechanisms, passes correct ones, names the witness."""

import numpy as np
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
    "laplace.signed_zero",
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
    assert "witness:" in message and "event" in message and "certified epsilon >=" in message
    assert "replay" in message and len(message.splitlines()) <= 6
    assert info.value.result.violation


def test_pytest_fixture_is_the_same_function(assert_dp):  # provided by the dpaudit plugin
    entry = catalogue.get("laplace.scalar")
    result = assert_dp(entry.sampler(1.0), _pairs(entry), epsilon=1.0, samples=50_000)
    assert not result.violation


def test_an_inconclusive_audit_fails_unless_allowed():
    """A mechanism whose outputs barely differ (20 Laplace draws of scale 200 on one number):
    200 samples cannot catch even twice the claimed epsilon."""
    entry = catalogue.get("laplace_parallel20")
    kwargs = dict(epsilon=0.1, samples=2_000, seed=1)
    with pytest.raises(DPViolation) as info:
        assert_dp(entry.sampler(0.1), _pairs(entry), **kwargs)
    assert info.value.result.verdict == "inconclusive" and not info.value.result.violation
    assert "allow_inconclusive=True" in str(info.value)
    result = assert_dp(entry.sampler(0.1), _pairs(entry), allow_inconclusive=True, **kwargs)
    assert result.verdict == "inconclusive" and result.detectable_epsilon > 0.2


def test_outputs_alike_under_both_datasets_ask_for_other_pairs_not_more_samples():
    """A 0-DP mechanism: every event is seen alike, nothing is detectable at any sample size."""
    with pytest.raises(DPViolation) as info:
        assert_dp(lambda d, size, rng: np.zeros(size), pairs=[(0, 1)], epsilon=1.0, samples=5_000)
    assert "no event told the datasets apart" in str(info.value)
    assert "more samples (--samples)" not in str(info.value)


def test_the_message_says_which_dataset_each_count_is_under():
    """Counts were printed numerator first after the pair in its own order: with the numerator
    dataset b, '1 vs 0 ... counts 3593 vs 491' put b's count under a's name."""

    def flag(data, size, rng):  # a flag raised far more often on data 1 than on data 0
        return (rng.random(size) < (0.2 if data else 0.002)).astype(int)

    with pytest.raises(DPViolation) as info:
        assert_dp(flag, [(0, 1)], epsilon=1.0, samples=20_000, seed=3)
    w = info.value.result.witness
    under = {w.numerator: w.count_numerator, "ab".replace(w.numerator, ""): w.count_denominator}
    line = next(x for x in str(info.value).splitlines() if x.startswith("counts:"))
    assert w.numerator == "b"  # the witness event is likelier under the second dataset
    assert f"{under['a']} under 0" in line and f"{under['b']} under 1" in line


def _noisy_sum(data, size, rng):
    return float(np.sum(data)) + rng.standard_normal(size)  # GDP mu = 1 on these pairs


def test_a_profile_claim_is_stated_as_a_profile_in_the_message():
    """The message gave '(1.99309, 1e-05)-DP violated ... certified epsilon >= 0.6892' (the
    profile's reading, above the bound it called a violation); an inconclusive profile audit
    raised TypeError; a profile needed epsilon=None to be accepted."""
    pairs = [([0, 1], [0])]
    with pytest.raises(DPViolation) as info:
        assert_dp(_noisy_sum, pairs, profile="gaussian:2", samples=20_000, semantics="ideal")
    text = str(info.value)
    assert text.startswith("the profile gaussian:2 violated") and "GDP mu >= " in text
    assert "> claimed mu 0.5" in text and "-DP violated" not in text
    with pytest.raises(DPViolation) as info:
        assert_dp(_noisy_sum, pairs, profile="gaussian:2", samples=300, semantics="ideal")
    assert "inconclusive audit of the profile gaussian:2" in str(info.value)
    assert "detects only GDP mu >= " in str(info.value)


def test_long_datasets_are_cut_in_messages_not_in_the_result():
    """A witness pair of 20,000 records made a message of half a megabyte (the summary, the
    Markdown report and the JUnit case too)."""
    big_a, big_b = [1] * 20_000, [1] * 19_999 + [0]

    def last_record(data, size, rng):
        return float(data[-1]) + rng.laplace(0.0, 0.05, size)

    with pytest.raises(DPViolation) as info:
        assert_dp(last_record, [(big_a, big_b)], epsilon=1.0, samples=4_000, relation="any")
    text = str(info.value)
    assert len(text) < 2_000 and "(20,000 items)" in text
    result = info.value.result
    assert len(result.summary()) < 3_000
    assert result.to_dict()["witness"]["pair"]["a"] == big_a  # the JSON keeps it whole
