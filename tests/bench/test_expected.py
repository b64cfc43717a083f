"""The expected-bound diagnostic (bench/expected.py): its truth counts and its simulated
certifications, on events whose probabilities are known."""

from __future__ import annotations

import math

import numpy as np
import pytest

from auditor.engine.claims import PointClaim
from auditor.engine.events import KeyFn, KeySet
from auditor.engine.select import Candidate
from auditor.engine.stats import expected_certified
from bench.choice_replay import main as choice_replay_main
from bench.crossfit_gap import main as crossfit_gap_main
from bench.expected import expected, main, simulate, true_probabilities

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
