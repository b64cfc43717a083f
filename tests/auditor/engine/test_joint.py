"""The joint ratio bound of a pure claim: exact coverage of the conditional test, its duality
with its p-value, and Poisson prefix counts that are the counts of the stream's first rows."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from auditor import audit
from auditor.catalogue import CATALOGUE
from auditor.engine.adapter import as_mechanism, draw
from auditor.engine.events import Difference
from auditor.engine.executors import Task, chunk_rng, count_events, run_chunk
from auditor.engine.schedule import ChunkPlan
from auditor.engine.session import CERTIFY
from auditor.engine.stats import prefix_mean, ratio_lower, ratio_p_value, simulate_certified
from bench.expected import recorded

DRAWS = 40_000


@pytest.mark.parametrize(
    ("mean_y", "epsilon"), [(0.4, 0.5), (3.0, 0.1), (30.0, 1.0), (400.0, 0.1), (20_000.0, 0.05)]
)
@pytest.mark.parametrize("a", [0.05, 0.005])
def test_the_ratio_bound_exceeds_a_true_ratio_at_most_at_its_level(mean_y, epsilon, a):
    """At the boundary p = e^eps q the bound exceeds e^eps with probability at most a (exact,
    for small counts as for large); 4.5 binomial sds of margin over DRAWS seeded draws. For
    large counts it is not much below a either: the test is exact, not loose."""
    rng = np.random.default_rng(7)
    x = rng.poisson(mean_y * math.exp(epsilon), DRAWS)
    y = rng.poisson(mean_y, DRAWS)
    rate = float(np.mean(ratio_lower(x, y, a) > epsilon))
    assert rate <= a + 4.5 * math.sqrt(a * (1 - a) / DRAWS), rate
    if mean_y >= 400:
        assert rate >= 0.6 * a, rate


def test_the_ratio_bound_is_tighter_than_the_split_on_a_weak_signal():
    """SVT1's best event at 7e5 samples (probabilities 0.0239 and 0.0219): the split bound at
    a/2 each certifies 0.057, the joint one at a 0.069."""
    from auditor.engine.stats import cp_lower, cp_upper

    n, p, q = 700_000, 0.0239, 0.0219
    split = math.log(cp_lower(n * p, n, 0.025) / cp_upper(n * q, n, 0.025))
    joint = float(ratio_lower(n * p, n * q, 0.05))
    assert 0.055 < split < 0.058 and 0.068 < joint < 0.070


def test_edges_of_the_ratio_bound():
    assert ratio_lower(0, 5, 0.05) == -math.inf
    assert ratio_p_value(0, 5, 0.1) == 1.0
    # never seen under the denominator: a finite bound that grows with the count
    assert 0 < ratio_lower(10, 0, 0.05) < ratio_lower(100, 0, 0.05) < math.inf
    assert ratio_p_value(20, 0, 0.0) == pytest.approx(0.5**20)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.integers(1, 5000), st.integers(0, 5000), st.floats(-1.0, 3.0, allow_nan=False))
def test_the_p_value_is_the_level_at_which_the_bound_reaches_epsilon(x, y, epsilon):
    p = float(ratio_p_value(x, y, epsilon))
    if not 1e-12 < p < 0.99:
        return
    assert float(ratio_lower(x, y, p * (1 - 1e-6))) <= epsilon + 1e-9
    assert float(ratio_lower(x, y, p * (1 + 1e-6))) >= epsilon - 1e-9


def test_the_prefix_mean_keeps_a_poisson_prefix_inside_the_samples():
    for n in (4096, 700_000, 10**8):
        lam = prefix_mean(n)
        assert n - lam == pytest.approx(6 * math.sqrt(n))


@dataclass(frozen=True)
class Above:
    t: float

    def contains(self, y):
        return y > self.t


def test_a_chunk_with_cuts_counts_the_rows_before_each_cut():
    mech = as_mechanism(lambda data, size, rng: rng.integers(0, 5, size))
    events = (Above(2.5), Above(0.5))
    task = Task(0, 11, (CERTIFY, 0, 0), 3, 1000, cuts=(1, 400, 999))
    (_, (full, parts)) = run_chunk(mech, events, (0,), task)
    y = draw(mech, 0, 1000, chunk_rng(11, (CERTIFY, 0, 0), 3))
    assert list(full) == list(count_events(events, y))
    for cut, part in zip(task.cuts, parts):
        assert list(part) == list(count_events(events, y[:cut]))


@pytest.mark.parametrize(("name", "pooled_expected"), [("rr.alpha_coin", True), ("svt1", False)])
def test_prefix_counts_are_the_counts_of_the_first_rows_of_each_stream(name, pooled_expected):
    """Recount every certified event on the first N outputs of its certification streams
    (N the prefix sizes the audit reports), drawn again chunk by chunk: the counts agree, and
    the witness reports the best event's. An event pooled with a partner of the other
    direction (randomized response is symmetric; the sparse vector's pairs are not) is
    recounted as its two differences, each on its own stream's prefix."""
    e = CATALOGUE[name]
    result, out = recorded(name, 60_000, seed=5)
    joint = out.joint
    assert joint is not None and joint["valid"].all()
    mech = as_mechanism(e.sampler())
    width = int(np.prod(draw(mech, e.pairs[0].a, 2, np.random.default_rng(0)).shape[1:]))
    plan = ChunkPlan(out.samples, max(1, (1 << 20 if mech.batched else 1 << 16) // width))
    for k, c in enumerate(out.chosen):
        pair = e.pairs[c.pair_index]
        pooled = joint["pooled"].get(k)
        got = np.zeros((2, 3), dtype=np.int64)  # per column: E, E \ F, F \ E
        for col, side in enumerate((0, 1) if c.forward else (1, 0)):
            size = int(joint["sizes"][k, col])
            assert 0 < size <= out.samples
            data = pair.a if side == 0 else pair.b
            ys = [
                draw(mech, data, plan.size(j), chunk_rng(5, (CERTIFY, c.pair_index, side), j))
                for j in range(plan.chunks_for(size))
            ]
            y = np.concatenate(ys)[:size]
            events = [c.event]
            if pooled is not None:
                f = pooled["partner"].event
                events += [Difference(c.event, f), Difference(f, c.event)]
            got[col, : len(events)] = count_events(events, y)
        if pooled is None:
            assert list(got[:, 0]) == list(joint["counts"][k])
        else:  # E without F under c's numerator plus F without E under its denominator
            assert pooled["own"] == list(got[:, 1]) and pooled["partner_own"] == list(got[::-1, 2])
            assert list(joint["counts"][k]) == [got[0, 1] + got[1, 2], got[1, 1] + got[0, 2]]
            assert got[:, 1].sum() + got[:, 2].sum() > 0
    assert pooled_expected == bool(joint["pooled"])
    ratio = result.witness.ratio
    assert ratio["count_numerator"] + ratio["count_denominator"] > 0
    assert ratio["samples_numerator"] in joint["sizes"]


def test_a_claim_with_delta_has_no_joint_bound():
    e = CATALOGUE["rr.alpha_coin"]
    result = audit(
        e.sampler(), e.pairs, epsilon=0.05, delta=1e-3, samples=20_000, seed=1, progress=False
    )
    assert result.witness is not None and result.witness.ratio is None


def test_simulated_certification_of_a_correct_event_rarely_exceeds_its_ratio():
    """The simulated auditor (bench) at the boundary: bounds above the true log-ratio on at
    most the level's share of draws, and the joint bound lifts the median on a weak signal."""
    n, p, eps = 200_000, 0.02, 0.05
    probs = [[p * math.exp(eps), p]]
    both = simulate_certified(probs, n, 0.0025, 0.0, 4000, joint_level=0.045)
    split = simulate_certified(probs, n, 0.025, 0.0, 4000, joint_level=None)
    assert np.mean(both > eps) <= 0.05 + 4.5 * math.sqrt(0.05 * 0.95 / 4000)
    assert np.median(both) > np.median(split)
