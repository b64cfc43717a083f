"""The benchmark's oracle bounds (bench/oracle.py) against sampling and against each other."""

from __future__ import annotations

import numpy as np
import pytest

from auditor.catalogue import CATALOGUE
from auditor.catalogue import entries as samplers
from bench import oracle


def _numerical_svt():
    mech = samplers.get("numerical_svt").description
    scales = [float(getattr(mech, k)) for k in ("threshold_scale", "query_scale", "threshold")]
    return mech, scales


@pytest.mark.parametrize("index", [0, 7])
def test_numerical_svt_pattern_masses_match_the_sampler(index):
    mech, (b_rho, b_nu, t) = _numerical_svt()
    pair = samplers.get("numerical_svt").pairs[index]
    masses = oracle._pattern_masses(np.asarray(pair.a, float), b_rho, b_nu, t, mech.cutoff)
    assert len(masses) == 1 + 10 + 45  # none, one or two positives among 10 queries
    assert sum(masses.values()) == pytest.approx(1.0, abs=1e-5)
    n = 200_000
    flags = CATALOGUE["numerical_svt"].sampler()(pair.a, size=n, rng=np.random.default_rng(5))
    seen: dict[tuple, int] = {}
    for row in flags[:, :10]:
        key = tuple(int(i) for i in np.flatnonzero(row == 1))
        seen[key] = seen.get(key, 0) + 1
    assert set(seen) <= set(masses)
    for key, p in masses.items():
        sd = np.sqrt(p * (1 - p) / n)
        assert abs(seen.get(key, 0) / n - p) < 5 * sd + 1e-6, key


def test_numerical_svt_answers_add_to_the_patterns_evidence():
    """With the answers' cells the oracle exceeds the patterns' alone, and stays below the
    eps-DP ceiling of the mechanism (0.1)."""
    mech, (b_rho, b_nu, t) = _numerical_svt()
    n, a = 700_000, 0.025
    full = oracle.oracle_bound("numerical_svt", 0.1, n, a)
    patterns = 0.0
    for pair in samplers.get("numerical_svt").pairs:
        ma = oracle._pattern_masses(np.asarray(pair.a, float), b_rho, b_nu, t, mech.cutoff)
        mb = oracle._pattern_masses(np.asarray(pair.b, float), b_rho, b_nu, t, mech.cutoff)
        px, py = np.array(list(ma.values())), np.array([mb[k] for k in ma])
        patterns = max(patterns, oracle._discrete_oracle(px, py, n, a, 0.0))
    assert 0.01 < patterns < full < 0.1


def test_merging_cells_by_ratio_keeps_the_bound():
    rng = np.random.default_rng(0)
    px = rng.dirichlet(np.ones(50))
    py = px * np.exp(rng.choice([-0.2, 0.0, 0.1], size=50))
    py /= py.sum()
    mx, my = oracle._merged(px, py)
    assert mx.size < px.size and mx.sum() == pytest.approx(1.0)
    args = (100_000, 0.025, 0.0)
    assert oracle._discrete_oracle(mx, my, *args) == pytest.approx(
        oracle._discrete_oracle(px, py, *args), rel=1e-9
    )


@pytest.mark.parametrize("name", ["report_noisy_max.laplace", "rnm2"])
def test_report_noisy_max_index_pmf_matches_the_sampler(name):
    entry, noise = CATALOGUE[name], "laplace" if name.endswith("laplace") else "exponential"
    b = 2 / entry.claimed_epsilon
    n = 400_000
    for pair in entry.pairs[2:4]:
        q = np.asarray(pair.b, float)
        pmf = oracle._argmax_pmf(q, noise, b)
        seen = np.bincount(
            entry.sampler()(pair.b, size=n, rng=np.random.default_rng(3)), minlength=q.size
        )
        assert np.all(np.abs(seen / n - pmf) < 5 * np.sqrt(pmf * (1 - pmf) / n))


def test_report_noisy_max_oracle_stays_below_the_proved_epsilon():
    """Report noisy max with Lap(2/eps) or Exp(2/eps) is eps-DP: no bound may pass 0.1."""
    for name in ("report_noisy_max.laplace", "rnm2"):
        bound = oracle.ORACLES[name](0.1)  # what oracle_bound builds: its pmfs, built once
        lo = bound(700_000, 0.025, 0.0)
        hi = bound(70_000_000, 0.025, 0.0)
        assert 0.05 < lo < hi < 0.1


def test_svt34_parallel_compared_value_cells_match_the_sampler():
    """Alg. 3's cells (cutoff 2, compared answers revealed): their pattern sums are the flag
    pmf, and the masses of patterns and value blocks match the sampler's frequencies."""
    entry = samplers.get("svt34_parallel")
    alg3 = entry.description.mechanisms[0]
    scales = [float(getattr(alg3, k)) for k in ("threshold_scale", "query_scale", "threshold")]
    pair = entry.pairs[4]
    q = np.asarray(pair.b, float)
    cells, edges = oracle._compared_value_cells(q, *scales, alg3.cutoff)
    flags = oracle._pattern_masses(q, *scales, alg3.cutoff)
    assert set(cells) == set(flags)
    assert sum(float(np.sum(v)) for v in cells.values()) == pytest.approx(1.0, abs=5e-3)
    for k, p in flags.items():
        assert float(np.sum(cells[k])) == pytest.approx(p, abs=1e-3)
    n = 400_000
    y = CATALOGUE["svt34_parallel"].sampler()(pair.b, size=n, rng=np.random.default_rng(2))
    positives = y[:, :10] == 1
    half = edges.size // 2
    for ones in [(3,), (0, 5), (6, 8)]:
        rows = np.all(positives[:, list(ones)], axis=1) & (positives.sum(axis=1) == len(ones))
        p = float(np.sum(cells[ones]))
        assert abs(rows.mean() - p) < 5 * np.sqrt(p / n)
        # the first positive's value in the lower half of the cells
        low = rows & (np.searchsorted(edges, y[:, 10 + ones[0]], side="right") <= half)
        block = cells[ones][: half + 1] if len(ones) == 1 else cells[ones][: half + 1, :]
        pb = float(np.sum(block))
        assert abs(low.mean() - pb) < 5 * np.sqrt(pb / n) + 2e-4


def test_svt34_parallel_oracle_lies_between_its_parts_and_the_composition_bound():
    n, a = 700_000, 0.025
    bound = oracle.ORACLES["svt34_parallel"](0.1)  # what oracle_bound builds, built once
    full = bound(n, a, 0.0)
    assert bound(10 * n, a, 0.0) > full
    assert 0.1 < full < 0.575  # Alg. 3 and Alg. 4 composed: at most 5.75 eps


@pytest.mark.parametrize(
    "name, move", [("gaussian.vector_l2", 1.0), ("gaussian.vector_per_coordinate", 0.25)]
)
def test_vector_gaussian_oracle_event_is_a_half_space_across_the_move(name, move):
    """The oracle's event for a Gaussian on R^16 is a threshold on the projection on the move
    (every pair moves an L2 distance of 1); its two probabilities match the sampler's, on every
    pair of the entry, and the per-coordinate calibration (a quarter of the noise) certifies
    more than the claim on the sample the bench uses."""
    from scipy import stats

    e = CATALOGUE[name]
    eps, n, a = e.claimed_epsilon, 1_000_000, 0.025
    bound, p_num, p_den, pooled = oracle.oracle_event(name, eps, n, a, e.delta)
    assert not pooled  # (a claim with delta > 0 is never pooled)
    sigma = float(e.description.sigma)
    assert sigma == pytest.approx(np.sqrt(2 * np.log(1.25 / e.delta)) * move / eps)
    # the projection of N(x, s^2 I) on the unit move from x to x' is N(0, s^2) vs N(1, s^2):
    # the oracle's two probabilities are those of one threshold on it
    t = stats.norm.isf(p_num, 1, sigma)  # P[proj > t] under x' is p_num
    assert stats.norm.sf(t, 0, sigma) == pytest.approx(p_den, rel=1e-9)
    sample = e.sampler()
    for pair in e.pairs:
        x, y = np.asarray(pair.a, float), np.asarray(pair.b, float)
        u = (y - x) / np.linalg.norm(y - x)
        assert np.linalg.norm(y - x) == pytest.approx(1.0)
        rng = np.random.default_rng(3)
        proj_y = (sample(pair.b, 20_000, rng) - x) @ u
        proj_x = (sample(pair.a, 20_000, rng) - x) @ u
        for proj, mean in ((proj_x, 0.0), (proj_y, 1.0)):
            assert abs(proj.mean() - mean) < 5 * sigma / np.sqrt(2e4)
            assert np.std(proj) == pytest.approx(sigma, rel=0.03)
    if e.correct:
        assert 0 < bound <= eps
    else:
        assert bound > eps
