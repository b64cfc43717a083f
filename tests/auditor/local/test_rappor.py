"""RAPPOR: privacy parameters, Bloom filter, memoized PRR, IRR rates, and the decoder's accuracy."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import binom

from auditor.local.rappor import (
    RapporAggregate,
    RapporClient,
    RapporParams,
    bloom_false_positive_rate,
    bloom_filter,
    bloom_indices,
    bloom_member,
    decode,
    epsilon_infinity,
    epsilon_one,
    instantaneous_response,
    permanent_response,
    repeated_reports,
    reported_bit_probabilities,
    simulate_aggregate,
)
from proofs.errors import InputError


def _zipf_population(clients, values, rng, s=1.1):
    weights = 1 / np.arange(1, values + 1) ** s
    return rng.choice(values, clients, p=weights / weights.sum())


def test_privacy_parameters_closed_forms():
    # eps_inf = 2 h ln((1 - f/2)/(f/2)); h = 2, f = 1/2 gives 4 ln 3 = 4.394 (the notes' "~4.4").
    assert epsilon_infinity(2, 0.5) == pytest.approx(4 * math.log(3))
    assert epsilon_infinity(2, 0.0) == math.inf
    # eps_1 with h = 2, f = 1/2, p = 1/2, q = 3/4: q* = 11/16, p* = 9/16 (hand computation).
    q_star, p_star = reported_bit_probabilities(0.5, 0.5, 0.75)
    assert (q_star, p_star) == (pytest.approx(11 / 16), pytest.approx(9 / 16))
    assert epsilon_one(2, 0.5, 0.5, 0.75) == pytest.approx(2 * math.log((11 * 7) / (9 * 5)))
    assert epsilon_one(2, 0.5, 0.5, 0.75) < epsilon_infinity(2, 0.5)


def test_epsilon_one_is_exact_at_tiny_noise_and_infinite_only_without_noise():
    # p = 0, q = 1: q* = 1 - f/2 and p* = f/2, so eps_1 = 2 h ln((1 - f/2) / (f/2)) = eps_inf,
    # finite for every f > 0 (q* rounds to 1.0 in floating point at f = 1e-300)
    assert epsilon_one(2, 1e-300, 0.0, 1.0) == pytest.approx(4 * math.log(2e300), rel=1e-12)
    assert epsilon_one(2, 1e-300, 0.0, 1.0) == pytest.approx(epsilon_infinity(2, 1e-300))
    assert epsilon_one(2, 0.0, 0.0, 1.0) == math.inf  # no noise at all: the bit itself
    assert epsilon_one(2, 0.0, 0.0, 0.75) == math.inf  # p* = 0: a 1 only from a set bit
    assert epsilon_one(2, 0.0, 0.25, 0.75) == pytest.approx(2 * math.log(0.75 * 0.75 / 0.0625))


def test_numpy_scalars_are_numbers():
    exact = epsilon_one(2, 0.5, 0.25, 0.75)
    assert epsilon_one(np.int64(2), np.float32(0.5), np.float16(0.25), 0.75) == exact
    assert epsilon_infinity(2, np.float32(0.5)) == epsilon_infinity(2, 0.5)
    for bad in (True, np.bool_(True), "0.5", math.nan):
        with pytest.raises(InputError, match="must be a number in"):
            epsilon_one(2, bad, 0.25, 0.75)


def test_bloom_filter_is_deterministic_and_cohort_dependent():
    params = RapporParams(k=64, h=3, cohorts=4)
    assert bloom_indices("chrome://settings", params, 1) == bloom_indices(
        "chrome://settings", params, 1
    )
    assert 1 <= bloom_filter("x", params, 0).sum() <= 3
    by_cohort = {bloom_indices("x", params, j) for j in range(4)}
    assert len(by_cohort) > 1
    with pytest.raises(InputError, match="cohort=4"):
        bloom_indices("x", params, 4)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(
    st.lists(st.text(max_size=12), min_size=1, max_size=30),
    st.integers(1, 128),
    st.integers(1, 6),
    st.integers(0, 3),
)
def test_a_bloom_filter_has_no_false_negatives(values, k, h, cohort):
    # notes 001: "if answer 'no', then element was not added"
    params = RapporParams(k=k, h=min(h, k), cohorts=4)  # (h <= k, as RAPPOR requires)
    bits = np.zeros(k, dtype=bool)
    for v in values:
        bits |= bloom_filter(v, params, cohort)
    assert all(bloom_member(v, bits, params, cohort) for v in values)


def test_bloom_false_positives_come_at_the_predicted_rate():
    # "if answer 'yes', then element was either added, or false positive": 10 values in 64 bits
    # with 2 hashes leave (1 - (63/64)^20)^2 = 0.0730 of the non-members found
    params = RapporParams(k=64, h=2)
    bits = np.zeros(64, dtype=bool)
    for i in range(10):
        bits |= bloom_filter(f"member {i}", params)
    rate = bloom_false_positive_rate(10, params)
    assert rate == pytest.approx((1 - (63 / 64) ** 20) ** 2)
    trials = 20_000
    found = sum(bloom_member(f"other {i}", bits, params) for i in range(trials))
    # the hashes are fixed, so this count is too; it lies well inside the binomial's 1e-4 tails
    # (the filter's own fill varies with which 10 members were drawn: 0.06-0.09 over sets)
    assert 0.04 < found / trials < 0.11
    assert bloom_false_positive_rate(0, params) == 0.0
    with pytest.raises(InputError, match="shape"):
        bloom_member("x", np.zeros(8, dtype=bool), params)
    with pytest.raises(InputError, match="members=-1"):
        bloom_false_positive_rate(-1, params)


@pytest.mark.parametrize(
    "kwargs, needle",
    [
        ({"k": 0}, "k=0"),
        ({"h": 5, "k": 4}, "h=5"),
        ({"f": 1.0}, "f=1.0"),
        ({"p": 0.8, "q": 0.7}, "p=0.8"),
        ({"cohorts": 0}, "cohorts=0"),
    ],
)
def test_bad_parameters_name_the_value(kwargs, needle):
    with pytest.raises(InputError, match=needle):
        RapporParams(**kwargs)


def test_permanent_response_is_memoized_per_client_and_value():
    params = RapporParams(k=128, h=2, f=0.5)
    client = RapporClient(params, secret=12345)
    assert np.array_equal(client.memo("a"), client.memo("a"))
    other = RapporClient(params, secret=54321)
    assert not np.array_equal(client.memo("a"), other.memo("a"))
    rng = np.random.default_rng(0)
    reports = np.array([client.report("a", rng) for _ in range(4000)])
    # repeated reports average to the memo's IRR rates, not the raw Bloom filter's
    memo = client.memo("a")
    rate = reports.mean(axis=0)
    assert np.all(np.abs(rate - np.where(memo, params.q, params.p)) < 0.05)


def test_reported_bit_rates_match_q_star_and_p_star():
    f, p, q, n = 0.5, 0.5, 0.75, 200_000
    rng = np.random.default_rng(1)
    ones = np.ones(n, dtype=bool)
    sent_one = instantaneous_response(permanent_response(ones, f, rng), p, q, rng).sum()
    sent_zero = instantaneous_response(permanent_response(~ones, f, rng), p, q, rng).sum()
    q_star, p_star = reported_bit_probabilities(f, p, q)
    for count, prob in ((sent_one, q_star), (sent_zero, p_star)):
        assert binom.ppf(1e-7, n, prob) <= count <= binom.ppf(1 - 1e-7, n, prob)


@pytest.mark.parametrize(
    "params", [RapporParams(k=128, h=2, cohorts=1), RapporParams(k=32, h=2, cohorts=8)]
)
def test_decoder_recovers_zipf_population_within_standard_errors(params):
    rng = np.random.default_rng(2024)
    values = 50
    candidates = [f"value-{i}" for i in range(values)]
    population = _zipf_population(50_000, values, rng)
    truth = np.bincount(population, minlength=values)
    estimate = decode(simulate_aggregate(population, candidates, params, rng), candidates)
    z = (estimate.counts - truth) / estimate.standard_errors
    assert np.all(np.abs(z[:10]) < 4.5), z[:10]  # top values: P(|z| > 4.5) ~ 7e-6 each
    assert np.all(np.abs(z) < 5.0)
    assert abs(z.mean()) < 1.5
    assert estimate.frequencies.sum() == pytest.approx(1.0, abs=0.2)
    assert estimate.to_dict()["schema_version"] == "1.0"
    assert "RAPPOR decode" in estimate.summary()


def test_standard_errors_are_calibrated_over_repeated_populations():
    """Across 40 independent simulations, z-scores have variance near 1 (chi-square tolerance)."""
    rng = np.random.default_rng(7)
    params = RapporParams(k=32, h=2, cohorts=4)
    candidates = [str(i) for i in range(10)]
    z = []
    for _ in range(40):
        population = _zipf_population(5_000, 10, rng)
        estimate = decode(simulate_aggregate(population, candidates, params, rng), candidates)
        z.append(
            (estimate.counts - np.bincount(population, minlength=10)) / estimate.standard_errors
        )
    z = np.concatenate(z)
    assert 0.75 < z.std() < 1.3
    assert np.mean(np.abs(z) < 1.96) > 0.9


def test_nnls_is_non_negative_and_rank_deficiency_is_rejected():
    rng = np.random.default_rng(3)
    params = RapporParams(k=16, h=2, cohorts=2)
    candidates = [str(i) for i in range(8)]
    population = rng.choice(3, 4_000)  # only three of the eight candidates occur
    aggregate = simulate_aggregate(population, candidates, params, rng)
    estimate = decode(aggregate, candidates, method="nnls")
    assert np.all(estimate.counts >= 0)
    # a count NNLS sets to 0 keeps least squares' uncertainty: never an interval [0, 0]
    assert np.any(estimate.counts == 0)
    ls = decode(aggregate, candidates, method="ls")
    np.testing.assert_allclose(estimate.standard_errors, ls.standard_errors, rtol=0.2)
    assert np.all(estimate.ci_high > 0) and np.all(estimate.standard_errors > 0)
    with pytest.raises(InputError, match="rank"):
        decode(aggregate, candidates + ["0"])
    empty = RapporAggregate(params, np.zeros((2, 16), dtype=np.int64), np.zeros(2, np.int64))
    with pytest.raises(InputError, match="method"):
        decode(empty, candidates, method="lasso")


def test_repeated_reports_share_one_memo_per_client():
    params = RapporParams(k=16, h=2, f=0.5)
    rng = np.random.default_rng(4)
    sent = repeated_reports(np.zeros(200, dtype=np.int64), ["v"], params, 400, rng)
    assert sent.shape == (200, 400, 16)
    rate = sent.mean(axis=1)  # per client and bit: q or p, by the client's memo bit
    near_q, near_p = np.abs(rate - params.q) < 0.1, np.abs(rate - params.p) < 0.1
    assert np.all(near_q | near_p)
    # about f/2 of the bits outside the Bloom filter are memoized as 1
    outside = ~bloom_filter("v", params, 0)
    assert 0.15 < near_q[:, outside].mean() < 0.35


@pytest.mark.parametrize(
    "call, needle",
    [
        (lambda: epsilon_one(2, 0.5, 0.8, 0.2), "p=0.8, q=0.2"),
        (lambda: epsilon_one(0, 0.5, 0.5, 0.75), "h=0"),
        (lambda: epsilon_infinity(-1, 0.5), "h=-1"),
        (lambda: epsilon_infinity(1.5, 0.5), "h=1.5"),
        (lambda: reported_bit_probabilities(2, 0.5, 0.75), "f=2"),
    ],
)
def test_privacy_helpers_refuse_parameters_no_rappor_has(call, needle):
    with pytest.raises(InputError, match=needle):
        call()


def test_repeated_reports_check_values_and_cohorts():
    params = RapporParams(k=4, h=1, f=0, p=0, q=1)
    rng = np.random.default_rng(0)
    with pytest.raises(InputError, match=r"lie in \[0, 2\)"):
        repeated_reports(np.array([-1]), ["a", "c"], params, 3, rng)  # once read as 'c'
    with pytest.raises(InputError, match="cohorts"):
        repeated_reports(np.array([1]), ["a", "c"], params, 3, rng, cohorts=np.array([3]))
    assert repeated_reports(np.array([1, 0]), ["a", "c"], params, 2, rng).shape == (2, 2, 4)


def test_aggregates_and_parameters_are_checked():
    params = RapporParams(k=4, h=1, f=0, p=0, q=1)
    with pytest.raises(InputError, match="shape"):
        RapporAggregate(params, np.zeros((2, 4)), np.zeros(1))
    with pytest.raises(InputError, match="between 0"):
        RapporAggregate(params, -np.ones((1, 4)), np.ones(1))
    with pytest.raises(InputError, match=r"f='0\.5' must be a number"):
        RapporParams(f="0.5")


def test_inputs_that_would_be_read_as_others_are_refused():
    params = RapporParams(k=16, h=2, cohorts=2)
    assert bloom_indices("a", params, np.int64(1)) == bloom_indices("a", params, 1)
    for cohort in ("0", 0.5, True):  # a text or fractional cohort hashed as another cohort
        with pytest.raises(InputError, match="cohort="):
            bloom_indices("a", params, cohort)
    with pytest.raises(InputError, match="whole numbers"):  # 0.5 was truncated to 0
        RapporAggregate(RapporParams(k=2, h=1), [[0.5, 1]], [2])
    empty = RapporAggregate(params, np.zeros((2, 16), dtype=np.int64), np.zeros(2, np.int64))
    with pytest.raises(InputError, match="no reports"):  # (counts 0 +- 0, frequencies NaN)
        decode(empty, ["a", "b"])
