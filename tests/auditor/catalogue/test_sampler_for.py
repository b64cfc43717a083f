"""sampler_for samples the distribution its description states: empirical frequencies against
the description's own pmf (exact SymPy values), and continuous noise against SciPy's CDFs.
Fixed seeds; 6-sigma margins (the chance of a false failure is below 1e-7 per check)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from auditor.catalogue import sampler_for, supported_descriptions
from proofs import mechanisms as m
from proofs.errors import InputError

N = 40_000


def _close(sample: np.ndarray, expected: dict) -> None:
    values, counts = np.unique(sample, return_counts=True)
    seen = dict(zip(values.tolist(), counts.tolist()))
    assert set(seen) <= set(expected), (set(seen), set(expected))
    for y, p in expected.items():
        freq = seen.get(y, 0) / sample.size
        margin = 6 * math.sqrt(max(p * (1 - p), 1e-4) / sample.size)
        assert abs(freq - p) <= margin, (y, freq, p)


fractions = st.fractions(min_value=Fraction(1, 20), max_value=Fraction(19, 20), max_denominator=40)


@settings(max_examples=15, deadline=None, derandomize=True)
@given(alpha=fractions, x=st.integers(0, 1))
def test_alpha_coin_matches_pmf(alpha, x):
    mech = m.AlphaCoinRR(alpha)
    out = sampler_for(mech)(x, N, np.random.default_rng(1))
    _close(out, {y: float(mech.pmf(x, y)) for y in (0, 1)})


@settings(max_examples=15, deadline=None, derandomize=True)
@given(p_truth=fractions, p_yes=fractions, x=st.integers(0, 1))
def test_forced_response_matches_pmf(p_truth, p_yes, x):
    mech = m.ForcedResponse(p_truth, p_yes)
    out = sampler_for(mech)(x, N, np.random.default_rng(2))
    _close(out, {y: float(mech.pmf(x, y)) for y in (0, 1)})


@settings(max_examples=10, deadline=None, derandomize=True)
@given(eps=fractions, k=st.integers(2, 6), data=st.data())
def test_k_ary_matches_pmf(eps, k, data):
    x = data.draw(st.integers(0, k - 1))
    mech = m.KAryRR(eps * 3, k)
    out = sampler_for(mech)(x, N, np.random.default_rng(3))
    _close(out, {f"c{y}": float(mech.pmf(x, y)) for y in range(k)})


@settings(max_examples=10, deadline=None, derandomize=True)
@given(eps=fractions, frac=fractions, form=st.sampled_from(["sum", "product"]))
def test_one_bit_matches_pmf(eps, frac, form):
    mech = m.OneBitTelemetry(eps, 10, form)
    x = frac * 10
    out = sampler_for(mech)(float(x), N, np.random.default_rng(4))
    _close(out, {y: float(mech.pmf(x, y)) for y in (0, 1)})


@settings(max_examples=8, deadline=None, derandomize=True)
@given(
    scale=st.fractions(min_value=Fraction(1, 4), max_value=4, max_denominator=8),
    fx=st.integers(-3, 3),
)
def test_two_sided_geometric_matches_pmf(scale, fx):
    mech = m.TwoSidedGeometric(scale, 1)
    out = sampler_for(mech)(fx, N, np.random.default_rng(5))
    support = range(fx - 60, fx + 61)
    _close(out, {y: float(mech.pmf(fx, y)) for y in support})


@settings(max_examples=10, deadline=None, derandomize=True)
@given(rows=st.lists(st.lists(st.integers(1, 9), min_size=3, max_size=3), min_size=2, max_size=3))
def test_finite_mechanism_matches_its_table(rows):
    pmf = {
        f"x{i}": {f"y{j}": Fraction(w, sum(row)) for j, w in enumerate(row)}
        for i, row in enumerate(rows)
    }
    mech = m.FiniteMechanism(pmf)
    for x, row in pmf.items():
        out = sampler_for(mech)(x, N, np.random.default_rng(6))
        _close(out, {y: float(p) for y, p in row.items()})


def test_repeated_one_bit_memoized_repeats_one_bit_and_fresh_bits_are_independent():
    rng = np.random.default_rng(7)
    memo = sampler_for(m.RepeatedOneBit(1, 1, 4, memoized=True))(1.0, N, rng)
    assert memo.shape == (N, 4) and (memo == memo[:, :1]).all()
    fresh = sampler_for(m.RepeatedOneBit(1, 1, 4, memoized=False))(1.0, N, rng)
    p1 = float(m.OneBitTelemetry(1, 1).p_one(1))
    _close(fresh.sum(axis=1), {k: math.comb(4, k) * p1**k * (1 - p1) ** (4 - k) for k in range(5)})


@pytest.mark.parametrize("reports", ["one", "unlimited"])
def test_rappor_bits_match_the_description(reports):
    mech = m.Rappor(f=0.5, p=0.5, q=0.75, h=2, reports=reports)
    out = sampler_for(mech)(3, N, np.random.default_rng(8))
    q1, q0 = (float(v) for v in mech.bit_probabilities())
    from auditor.catalogue import bloom_bits

    bloom = bloom_bits(3, out.shape[1], 2).astype(bool)
    assert bloom.sum() == 2
    for bit in range(out.shape[1]):
        p = q1 if bloom[bit] else q0
        _close(out[:, bit], {1: p, 0: 1 - p})


@pytest.mark.parametrize(
    "mech, dist",
    [
        (m.Laplace(2, 1), stats.laplace(loc=1.5, scale=2)),
        (m.Gaussian(3, 1), stats.norm(loc=1.5, scale=3)),
    ],
)
def test_continuous_noise_follows_its_law(mech, dist):
    out = sampler_for(mech)(1.5, N, np.random.default_rng(9))
    assert stats.kstest(out, dist.cdf).pvalue > 1e-6


def test_selection_mechanisms_favour_the_largest_utility():
    rng = np.random.default_rng(10)
    em = sampler_for(m.ExponentialMechanism(2, 1))([0.0, 1.0], N, rng)
    p = math.exp(1) / (1 + math.exp(1))  # rate eps/(2 Delta) = 1
    _close(em, {0: 1 - p, 1: p})
    rnm = sampler_for(m.ReportNoisyMax(1, monotone=False))([0.0, 50.0, 0.0], 2000, rng)
    assert (rnm == 1).all()


def test_symbolic_or_unknown_descriptions_get_one_line_errors():
    with pytest.raises(InputError, match="symbolic"):
        sampler_for(m.Laplace())
    with pytest.raises(InputError, match="no sampler"):
        sampler_for(object())
    assert "Laplace" in supported_descriptions()
