"""The expected-bound diagnostic (bench/expected.py): its truth counts and its simulated
certifications, on events whose probabilities are known."""

from __future__ import annotations

import math

import numpy as np
import pytest

from auditor.engine.claims import PointClaim
from auditor.engine.events import KeyFn, KeySet
from auditor.engine.select import Candidate
from auditor.engine.stats import expected_certified, simulate_certified
from bench.choice_replay import main as choice_replay_main
from bench.crossfit_gap import main as crossfit_gap_main
from bench.expected import expected, main, pooled_parts, recorded, simulate, true_probabilities

N, A = 700_000, 0.025
KEEP = math.tanh(0.05)  # rr.alpha_coin at eps 0.1: the bit is kept with this probability


def _one(forward: bool, pair: int = 0) -> Candidate:
    return Candidate(KeySet(KeyFn(), (1,), ("1",)), forward, 0.0, pair_index=pair)


def test_simulated_certifications_centre_on_the_expected_bound():
    """One event: the simulated bounds centre on the bound its probabilities give when the
    counts land on them; an event of equal probabilities is worth nothing (floored at 0), and
    certifying it beside the good one changes little."""
    good = simulate(np.array([[0.05, 0.04]]), N, A, 0.0, 2000)
    at = float(expected_certified(0.05, 0.04, N, A, PointClaim(0.1, 0.0).statistic))
    assert np.median(good) == pytest.approx(at, abs=0.004)
    assert np.all(simulate(np.array([[0.05, 0.05]]), N, A, 0.0, 2000) <= 0.02)
    assert np.min(simulate(np.array([[0.05, 0.05]]), N, A, 0.0, 2000)) == 0.0
    both = simulate(np.array([[0.05, 0.04], [0.05, 0.05]]), N, A, 0.0, 2000)
    assert both.mean() == pytest.approx(good.mean(), abs=0.003)
    assert simulate(np.zeros((0, 2)), N, A, 0.0, 10).size == 0


def test_truth_counts_are_the_mechanisms_probabilities_on_common_draws():
    """Randomized response keeps the bit with probability tanh(eps / 2): the event "output 1"
    has probability (1 - keep) / 2 on the bit 0 and (1 + keep) / 2 on the bit 1. Both
    directions read it from the same draws (one is the other's mirror), and so does a
    rerun with the same seed."""
    probs = true_probabilities("rr.alpha_coin", [_one(True), _one(False)], 5, 400_000)
    lo, hi = (1 - KEEP) / 2, (1 + KEEP) / 2
    se = math.sqrt(0.25 / 400_000)
    assert probs[0] == pytest.approx([lo, hi], abs=5 * se)
    assert probs[1] == pytest.approx(probs[0][::-1], abs=1e-12)
    again = true_probabilities("rr.alpha_coin", [_one(True)], 5, 400_000)
    assert again[0] == pytest.approx(probs[0], abs=1e-12)
    other = true_probabilities("rr.alpha_coin", [_one(True)], 6, 400_000)
    assert not np.allclose(other[0], probs[0], atol=1e-12)


def test_an_audit_is_valued_by_its_own_events():
    """A small audit of randomized response: its certified events are valued on the truth
    sample, at its own certification size and level."""
    e = expected("rr.alpha_coin", 3, 20_000, 200_000, sims=400)
    assert e.chosen and e.probs.shape == (len(e.chosen), 2)
    assert 0 < e.samples <= 20_000 and 0 < e.level < 0.05
    assert e.bounds.size == 400 and np.all(e.bounds >= 0)
    assert e.mean <= math.log(1 + KEEP) - math.log(1 - KEEP) + 1e-9


@pytest.mark.parametrize(
    "diagnostic", [main, crossfit_gap_main, choice_replay_main], ids=lambda f: f.__module__
)
@pytest.mark.parametrize(
    "argv",
    [["rr.alpha_coin", "--samples", "10"], ["rr.alpha_coin", "--truth", "10"], ["no.such.entry"]],
)
def test_bad_arguments_are_refused(diagnostic, argv, capsys):
    """Every diagnostic sharing these arguments refuses a bad one (exit 2, naming it)."""
    with pytest.raises(SystemExit) as err:
        diagnostic(argv)
    assert err.value.code == 2
    said = capsys.readouterr().err
    assert ("too few" if len(argv) > 1 else "no.such.entry") in said


def test_a_pooled_event_is_simulated_on_both_differences():
    """A pure claim's event pooled with its mirror image (disjoint, module stats: Pooled):
    the joint bound counts both, so its simulated bounds sit above the event's alone and, at a
    ratio exactly the claim's, exceed it on at most the joint level's share of draws. An event
    "pooled" with an empty partner is the event alone."""
    n, p, eps, joint = 200_000, 0.02, 0.05, 0.045
    probs = [[p * math.exp(eps), p]]
    mirror = [[[p * math.exp(eps), p], [p, p * math.exp(eps)]]]
    alone = simulate_certified(probs, n, 0.0025, 0.0, 4000, joint)
    pooled = simulate_certified(probs, n, 0.0025, 0.0, 4000, joint, parts=mirror)
    empty = simulate_certified(probs, n, 0.0025, 0.0, 4000, joint, parts=[[probs[0], [0, 0]]])
    assert np.median(pooled) > np.median(alone) + 0.005
    assert np.mean(pooled > eps) <= 0.05 + 4.5 * math.sqrt(0.05 * 0.95 / 4000)
    assert np.mean(empty) == pytest.approx(np.mean(alone), abs=0.002)
    # a partner holding the event whole leaves both sums empty: the split bounds alone
    same = simulate_certified(probs, n, 0.0025, 0.0, 4000, joint, parts=[[[0, 0], [0, 0]]])
    split = simulate_certified(probs, n, 0.0025, 0.0, 4000, None)
    assert np.mean(same) == pytest.approx(np.mean(split), abs=0.002)
    assert np.median(alone) > np.median(split)


def test_an_audit_that_pools_is_valued_on_its_pooled_sums():
    """A pure claim on randomized response pools an output with its mirror image: the
    diagnostic counts both differences, and their mean bound is above the event's alone."""
    _, out = recorded("rr.alpha_coin", 20_000, 3)
    parts = pooled_parts("rr.alpha_coin", out, 3, 200_000)
    assert parts is not None and parts.shape == (len(out.chosen), 2, 2)
    k = min((out.joint or {})["pooled"])
    assert parts[k, 1].sum() > 0 and np.all(parts[k, 0] <= 1)
    e = expected("rr.alpha_coin", 3, 20_000, 200_000, sims=400)
    assert e.mean <= math.log(1 + KEEP) - math.log(1 - KEEP) + 1e-9
