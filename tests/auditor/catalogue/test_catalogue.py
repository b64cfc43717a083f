"""The reference catalogue against the auditor: agreement, broken mechanisms, false alarms.

True epsilons come from the theorems cited in each entry's ``source`` (closed forms; the Gaussian
one from the analytic Gaussian of Balle and Wang 2018). Fixed seeds, modest sizes, wide margins.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from auditor import audit
from auditor.catalogue import CATALOGUE
from auditor.engine.adapter import as_mechanism, draw

CORRECT = [name for name, e in CATALOGUE.items() if e.correct]
BROKEN = [name for name, e in CATALOGUE.items() if not e.correct]
FINITE = [
    name
    for name, e in CATALOGUE.items()
    if e.true_epsilon is not None and math.isfinite(e.true_epsilon)
]


def _costly(name: str) -> bool:
    """Many pairs or wide vector outputs: an audit costs seconds, so fewer seeds are run."""
    e = CATALOGUE[name]
    y = draw(as_mechanism(e.sampler()), e.pairs[0].a, 2, np.random.default_rng(0))
    return len(e.pairs) >= 8 or (np.ndim(y) == 2 and np.shape(y)[1] >= 16)


# samples per dataset at which each broken benchmark is caught (measured once, x2-5 margin)
BROKEN_SAMPLES = {
    "laplace.float_textbook": 20_000,
    "laplace.signed_zero": 5_000,
    "exponential.no_half_factor": 400_000,
    "rnm3": 400_000,
    "rnm4": 400_000,
    "noisy_hist2": 20_000,
    "histogram.replace_one": 300_000,
    "svt3": 5_000_000,  # on its witness pair alone (below): 8 of 8 seeds (202-209), 5-12 s
    "svt4": 1_000_000,  # 5 of 5 seeds (200-204) at 5e5 and at 1e6, 4 of 5 at 2.5e5
    "svt5": 20_000,
    "svt6": 300_000,
    "prefix_sum": 50_000,
    "truncated_geometric.balcer_vadhan": 2_000_000,  # true ln(9/8) = 0.1178 vs claimed 0.1
    "gaussian.vector_per_coordinate": 150_000,  # 10 of 10 seeds (200-209) at 5e4 and 1.5e5
    "rr.alpha_coin.two_alpha": 40_000,  # 10 of 10 seeds (200-209) at 1e4 and 2e4
    "one_bit.product_form": 10_000,  # 10 of 10 seeds (200-209) at 2e3 and 5e3
}
# broken entries left to `make bench` (section 8 audits them at 1e6 and 1e7 per dataset): the
# c=2 sparse vector outputs of SVT34Parallel are caught from 2.5e5 per dataset (5 of 5 seeds,
# eps_lb 0.016 at 1e5), but an audit of that size takes over 20 s here
BENCH_ONLY = {"svt34_parallel"}
# broken entries audited here on one of their pairs: svt3 on all eight pairs is caught at 5e6
# per dataset but takes 45-50 s (its pair search is in `make bench` section 8 and the demo)
ONE_PAIR = {"svt3": "X shape"}


def _run(name: str, samples: int, seed: int, confidence: float = 0.95, pairs=None):
    e = CATALOGUE[name]
    return audit(
        e.sampler(),
        pairs or e.pairs,
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
    assert set(BROKEN) == set(BROKEN_SAMPLES) | BENCH_ONLY


@pytest.mark.parametrize("name", FINITE)
def test_agreement_bound_never_exceeds_true_epsilon(name):
    r = _run(name, 50_000, seed=101, confidence=0.99)
    assert r.epsilon_lower_bound <= CATALOGUE[name].true_epsilon


@pytest.mark.parametrize("name", [n for n in BROKEN if n not in BENCH_ONLY])
def test_broken_mechanisms_get_violation(name):
    pairs = (
        [p for p in CATALOGUE[name].pairs if p.label == ONE_PAIR[name]]
        if name in ONE_PAIR
        else None
    )
    assert pairs is None or len(pairs) == 1
    r = _run(name, BROKEN_SAMPLES[name], seed=202, pairs=pairs)
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
    seeds = range(5) if _costly(name) else range(20)
    flagged = [seed for seed in seeds if _run(name, 10_000, seed=seed).violation]
    assert stats.binom.sf(len(flagged) - 1, len(seeds), 0.05) >= 0.01, (name, flagged)


@pytest.mark.parametrize(
    "name, bad, allowed",
    [
        ("ldp.grr", -1, "0..7"),  # read as the last value by int() and numpy indexing
        ("ldp.oue", 0.5, "0..7"),  # read as 0
        ("rr.forced_response", 2, "0..1"),  # a third answer to a yes/no question
        ("ldp.hadamard", 15, "0..14"),  # K = 16: rows 1..15 of the Hadamard matrix
        ("geometric", 1.5, "an integer"),
    ],
)
def test_samplers_refuse_inputs_they_would_read_as_others(name, bad, allowed):
    from auditor.catalogue import get
    from proofs.errors import InputError

    sample = get(name).sampler(1.0)
    with pytest.raises(InputError, match=f"data={bad!r} is not an input.*{allowed}"):
        sample(bad, 10, np.random.default_rng(0))
    assert len(sample(True if name.startswith("rr") else 1, 10, np.random.default_rng(0))) == 10


def test_the_vector_gaussian_sampler_takes_its_dimensions_vector():
    from auditor.catalogue import get
    from proofs.errors import InputError

    sample = get("gaussian.vector_l2").sampler()
    assert sample([0.25] * 16, 7, np.random.default_rng(0)).shape == (7, 16)
    with pytest.raises(InputError, match=r"shape \(3,\) for a 16-dimensional"):
        sample([0.0, 1.0, 2.0], 7, np.random.default_rng(0))
    from auditor.catalogue.samplers import sampler_for
    from proofs import GaussianVector

    for bad, what in ((GaussianVector(1, 1, 2.5), "integer"), (GaussianVector(-1, 1, 2), "sigma")):
        with pytest.raises(InputError, match=what):
            sampler_for(bad)
