"""Estimators: known answers, unbiasedness and interval coverage (seeded, binomial tolerances)."""

import math

import numpy as np
import pytest
from scipy.stats import binom

from auditor.local.estimators import (
    Estimate,
    forced_response_count,
    one_bit_mean,
    randomize_forced_response,
    randomize_one_bit,
    randomize_rr,
    rappor_frequency,
    rr_proportion,
)
from auditor.local.rappor import RapporParams, decode, simulate_aggregate
from proofs.errors import InputError

REPEATS = 400
CONFIDENCE = 0.95


def _coverage_floor(repeats, confidence):
    """Fewest covering intervals consistent with coverage >= confidence (1e-6 error rate)."""
    return binom.ppf(1e-6, repeats, confidence)


def _coverage_ceiling(repeats, confidence):
    return binom.ppf(1 - 1e-6, repeats, confidence)


def test_known_answers_from_the_notes_and_closed_forms():
    # Notes 003: n = 18, alpha = 1/2, nine 1s -> p_hat = 1/2.
    est = rr_proportion([1] * 9 + [0] * 9, alpha=0.5)
    assert est.estimate == pytest.approx(0.5)
    assert est.standard_error == pytest.approx(math.sqrt((1 - 0.25) / (4 * 0.25 * 18)))
    # Fair-coin forced response: n_true_hat = 2 n_obs - N/2.
    assert forced_response_count([1] * 30 + [0] * 70).estimate == pytest.approx(2 * 30 - 50)
    # One-bit, every report 1: mean_hat = (m/n) n (e^eps + 1 - 1)/(e^eps - 1) = m e^eps/(e^eps - 1).
    e = math.exp(1.0)
    assert one_bit_mean([1] * 10, 1.0, 4.0).estimate == pytest.approx(4 * e / (e - 1))
    assert isinstance(est, Estimate) and est.to_dict()["schema_version"] == "1.0"
    assert "interval" in est.summary()


@pytest.mark.parametrize("p_truth, p_yes", [(0.5, 0.5), (0.6, 0.25), (0.25, 0.8), (1.0, 0.3)])
def test_forced_response_coins_mean_what_the_proofs_description_says(p_truth, p_yes):
    """The estimator and the sampler take the coins of proofs.ForcedResponse (p_yes is the
    second coin, P[yes | not truthful]): fed the expected count of "yes" under that
    description's pmf, the estimator returns the true count, and the sampler's rate matches."""
    from fractions import Fraction

    from proofs import ForcedResponse

    mech = ForcedResponse(Fraction(str(p_truth)), Fraction(str(p_yes)))
    x = [1] * 40 + [0] * 60
    expected_yes = sum(mech.pmf(v, 1) for v in x)
    n_obs = int(expected_yes * 100)  # 100 copies of the population: an exact integer count
    assert n_obs == expected_yes * 100
    reports = [1] * n_obs + [0] * (100 * len(x) - n_obs)
    assert forced_response_count(reports, p_truth, p_yes).estimate == pytest.approx(100 * 40)
    bits = randomize_forced_response(
        np.zeros(200_000, int), np.random.default_rng(3), p_truth, p_yes
    )
    assert bits.mean() == pytest.approx(float(mech.pmf(0, 1)), abs=0.005)


def _simulate(name, rng, method):
    n = 400
    if name == "rr":
        x = (rng.random(n) < 0.3).astype(int)
        return x.mean(), rr_proportion(randomize_rr(x, 0.4, rng), 0.4, CONFIDENCE, method)
    if name == "rr-bernoulli":
        x = (rng.random(n) < 0.3).astype(int)
        est = rr_proportion(randomize_rr(x, 0.4, rng), 0.4, CONFIDENCE, method, "bernoulli")
        return 0.3, est
    if name == "forced":
        x = (rng.random(n) < 0.2).astype(int)
        return x.sum(), forced_response_count(
            randomize_forced_response(x, rng), confidence=CONFIDENCE, method=method
        )
    x = rng.uniform(0, 10, n)
    return x.mean(), one_bit_mean(
        randomize_one_bit(x, 1.0, 10.0, rng), 1.0, 10.0, CONFIDENCE, method
    )


@pytest.mark.parametrize("name", ["rr", "rr-bernoulli", "forced", "one-bit"])
@pytest.mark.parametrize("method", ["clopper-pearson", "normal"])
def test_unbiased_and_coverage_at_the_stated_rate(name, method):
    rng = np.random.default_rng(11)
    errors, covered, z = [], 0, []
    for _ in range(REPEATS):
        truth, est = _simulate(name, rng, method)
        errors.append(est.estimate - truth)
        z.append((est.estimate - truth) / est.standard_error)
        covered += est.covers(truth)
    errors = np.array(errors)
    # unbiased: the mean error is within 4.5 of its own standard error
    assert abs(errors.mean()) < 4.5 * errors.std() / math.sqrt(REPEATS)
    # the stated standard error matches the spread of the estimates
    assert 0.8 < np.std(z) < 1.2
    assert covered >= _coverage_floor(REPEATS, CONFIDENCE)
    if method == "normal":  # Wald is not conservative: it should not over-cover grossly either
        assert covered <= _coverage_ceiling(REPEATS, CONFIDENCE)


def test_rappor_frequency_intervals_cover_at_the_stated_rate():
    rng = np.random.default_rng(5)
    params = RapporParams(k=32, h=2, cohorts=4)
    candidates = [f"v{i}" for i in range(10)]
    weights = 1 / np.arange(1, 11)
    covered = total = 0
    for _ in range(30):
        population = rng.choice(10, 5_000, p=weights / weights.sum())
        truth = np.bincount(population, minlength=10) / population.size
        decoded = decode(simulate_aggregate(population, candidates, params, rng), candidates)
        for i, value in enumerate(candidates):
            covered += rappor_frequency(decoded, value).covers(truth[i])
            total += 1
    # 300 intervals in 30 correlated groups of 10: a loose two-sided band around 95%
    assert 0.88 * total <= covered <= total


@pytest.mark.parametrize(
    "call, needle",
    [
        (lambda: rr_proportion([1, 0], alpha=0), "alpha=0"),
        (lambda: rr_proportion([1, 2], alpha=0.5), "0/1"),
        (lambda: rr_proportion([], alpha=0.5), "non-empty"),
        (lambda: rr_proportion([1], alpha=0.5, confidence=1.5), "confidence=1.5"),
        (lambda: forced_response_count([1], p_truth=0, p_yes=0.5), "p_truth=0"),
        (lambda: forced_response_count([1], p_truth=0.5, p_yes=1.5), "p_yes=1.5"),
        (lambda: one_bit_mean([1], epsilon=0, m=1), "epsilon=0"),
        (lambda: one_bit_mean([1], epsilon=1, m=1, method="wilson"), "method='wilson'"),
    ],
)
def test_bad_arguments_raise_input_error_naming_the_value(call, needle):
    with pytest.raises(InputError, match=needle):
        call()


@pytest.mark.parametrize("method", ["clopper-pearson", "normal"])
def test_intervals_stay_ordered_when_the_data_lie_outside_the_model(method):
    """All ones from 13 randomized-response clients (probability 0.75^13 = 2.4% when every
    client holds 1) put the bit rate's interval above the model's range: the interval is clamped
    to the range's nearest end, never returned inverted."""
    for est, top in (
        (rr_proportion([1] * 13, 0.5, method=method), 1.0),
        (rr_proportion([0] * 50, 0.5, method=method), 1.0),
        (one_bit_mean([1] * 50, 1.0, 1.0, method=method), 1.0),
        (one_bit_mean([1, 1], 1.0, 1.0, method=method), 1.0),
        (forced_response_count([1] * 50, method=method), 50.0),
    ):
        assert 0.0 <= est.ci_low <= est.ci_high <= top


def test_one_bit_mean_is_stable_at_extreme_epsilons():
    # (e^eps + 1) / (e^eps - 1) as 1 / tanh(eps / 2): no overflow at 800, no 0/0 at 1e-17
    for eps in (1e-17, 1e-300, 800.0):
        assert one_bit_mean([1, 0], eps, 2.0).estimate == pytest.approx(1.0)
    e = math.exp(0.7)
    got = one_bit_mean([1, 0, 0, 0, 1, 1, 1], 0.7, 3.0).estimate
    assert got == pytest.approx(3 / 7 * ((e + 1) * 4 - 7) / (e - 1), rel=1e-12)
    bits = randomize_one_bit([0.0, 2.0], 800.0, 2.0, np.random.default_rng(0))
    assert bits.tolist() == [0, 1]
    with pytest.raises(InputError, match="m=0"):
        randomize_one_bit([0.0], 1.0, 0, np.random.default_rng(0))


@pytest.mark.parametrize(
    "call, needle",
    [
        (lambda: rr_proportion([1], "0.5"), "alpha='0.5' must be a number"),
        (lambda: one_bit_mean([1], None, 2), "epsilon=None must be a number"),
        (lambda: rr_proportion([[1, 0], [1]], 0.5), "flat list"),
        (lambda: rr_proportion([1, 0, 1], 0.5, confidence="x"), "confidence='x'"),
        (lambda: randomize_rr([1, 0], 2, np.random.default_rng(0)), "alpha=2"),
        (
            lambda: randomize_forced_response([1], np.random.default_rng(0), 1.5, 0.5),
            "p_truth=1.5, p_yes=0.5",
        ),
    ],
)
def test_parameters_of_the_wrong_type_are_input_errors(call, needle):
    with pytest.raises(InputError, match=needle):
        call()


def test_one_bit_refuses_values_it_cannot_encode():
    rng = np.random.default_rng(0)
    with pytest.raises(InputError, match="numbers in"):
        randomize_one_bit(["a"], 1.0, 10, rng)
    with pytest.raises(InputError, match="NaN"):  # NaN failed no comparison: the bit of x = 0
        randomize_one_bit([1.0, float("nan")], 1.0, 10, rng)


@pytest.mark.parametrize(
    "call, needle",
    [
        (lambda: rr_proportion([0, 1, 1, 0], 1e-200), "alpha=1e-200 is too small"),
        (lambda: rr_proportion([0, 1, 1, 0], 1e-320), "alpha=1e-320 is too small"),
        (lambda: one_bit_mean([0, 1, 1], 1e-310, 1.0), "epsilon=1e-310 is too small"),
    ],
)
def test_parameters_too_small_for_a_double_are_input_errors(call, needle):
    """Inside their ranges, but the estimate divides by them: alpha = 1e-200 raised
    ZeroDivisionError (alpha**2 underflowed), epsilon = 1e-310 returned an infinite mean."""
    with pytest.raises(InputError, match=needle):
        call()
    assert rr_proportion([1, 0], 1e-100).standard_error > 1e99  # tiny, yet still a number
