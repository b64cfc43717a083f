"""The reference catalogue against the auditor: agreement, broken mechanisms, false alarms.

True epsilons come from the theorems cited in each entry's ``source`` (closed forms; the Gaussian
one from the analytic Gaussian of Balle and Wang 2018). Fixed seeds, modest sizes, wide margins.
"""

from __future__ import annotations

import math

import pytest
from scipy import stats

from auditor import audit
from auditor.catalogue import CATALOGUE

CORRECT = [name for name, e in CATALOGUE.items() if e.correct]
BROKEN = [name for name, e in CATALOGUE.items() if not e.correct]
FINITE = [
    name
    for name, e in CATALOGUE.items()
    if e.true_epsilon is not None and math.isfinite(e.true_epsilon)
]
VECTOR_OR_MANY_PAIRS = {
    "svt1",
    "svt2",
    "laplace_parallel20",
    "rappor",
    "one_time_rappor",
    "report_noisy_max.laplace",
    "rnm2",
}

# samples per dataset at which each broken benchmark is caught (measured once, x2-5 margin)
BROKEN_SAMPLES = {
    "laplace.float_textbook": 20_000,
    "exponential.no_half_factor": 400_000,
    "rnm3": 400_000,
    "rnm4": 400_000,
    "noisy_hist2": 20_000,
    "histogram.replace_one": 300_000,
    "svt3": 5_000_000,  # its selection is weak too: 3e6 detects ~11 of 12 seeds
    "svt4": 4_000_000,  # its selection is weak (issue-level work): 1e6 detects ~80% of seeds
    "svt5": 20_000,
    "svt6": 300_000,
    "prefix_sum": 50_000,
    "truncated_geometric.balcer_vadhan": 2_000_000,  # true ln(9/8) = 0.1178 vs claimed 0.1
}
# broken entries the auditor does not catch yet at any sample size the suite can afford: the
# c=2 sparse vector outputs of SVT34Parallel (eps_lb 0.0 at 1e6 per dataset; DP-Sniper
# reports 0.261 at 2e8)
NOT_CAUGHT_YET = {"svt34_parallel"}


def _run(name: str, samples: int, seed: int, confidence: float = 0.95):
    e = CATALOGUE[name]
    return audit(
        e.sampler(),
        e.pairs,
        epsilon=e.claimed_epsilon,
        delta=e.delta,
        samples=samples,
        confidence=confidence,
        seed=seed,
        name=name,
    )


def test_every_entry_names_its_theorem_and_pairs():
    for name, e in CATALOGUE.items():
        assert e.source and e.pairs, name
        holds = e.true_epsilon is not None and e.true_epsilon <= e.claimed_epsilon + 1e-12
        assert e.correct == holds, name


def test_broken_list_is_covered():
    assert set(BROKEN) == set(BROKEN_SAMPLES) | NOT_CAUGHT_YET


@pytest.mark.parametrize("name", FINITE)
def test_agreement_bound_never_exceeds_true_epsilon(name):
    r = _run(name, 50_000, seed=101, confidence=0.99)
    assert r.epsilon_lower_bound <= CATALOGUE[name].true_epsilon


@pytest.mark.parametrize("name", [n for n in BROKEN if n not in NOT_CAUGHT_YET])
def test_broken_mechanisms_get_violation(name):
    r = _run(name, BROKEN_SAMPLES[name], seed=202)
    assert r.violation, r.summary()
    true = CATALOGUE[name].true_epsilon
    assert true is None or r.epsilon_lower_bound <= true


@pytest.mark.parametrize("name", CORRECT)
def test_no_false_alarm_on_correct_mechanisms(name):
    """The headline guarantee at confidence 0.95 is a rate (at most 5% of audits flag a
    correct mechanism), and an exact test of a tight claim comes near it (rr.alpha_coin, whose
    claim is its true epsilon: 7 of 200 seeds at 10,000 samples). Of 20 seeded runs each for
    the cheap ones, 5 for the others, more than 4 (of 20) or 2 (of 5) flagged has probability
    below 0.003 at a 5% rate (`python -m bench` counts the rate over 20 seeds for
    every correct entry)."""
    seeds = range(5) if name in VECTOR_OR_MANY_PAIRS else range(20)
    flagged = [seed for seed in seeds if _run(name, 10_000, seed=seed).violation]
    assert stats.binom.sf(len(flagged) - 1, len(seeds), 0.05) >= 0.01, (name, flagged)
