"""The frequency oracles' support probabilities (p*, q*), which the estimator theorems rest
on, against exact enumeration of small instances; the samplers against them; and the audit
of each catalogue oracle close to its exact epsilon."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import sympy as sp

from auditor import audit
from auditor.catalogue import get, sampler_for
from auditor.catalogue.samplers import hadamard_sets
from proofs import (
    HadamardResponse,
    KAryRR,
    LocalHashing,
    SubsetSelection,
    UnaryEncoding,
    true_epsilon,
)

E = sp.exp(sp.Rational(7, 10))


def _close(expr: sp.Expr, value: sp.Expr) -> bool:
    return abs(float(sp.N(expr - value, 30))) < 1e-20


def test_hadamard_sets_are_rows_of_the_sylvester_matrix():
    s = hadamard_sets(8)
    h = np.array([[1]])
    while h.shape[0] < 8:
        h = np.block([[h, h], [h, -h]])
    assert np.array_equal(s, h == 1)
    for v, w in itertools.combinations(range(1, 8), 2):
        assert np.sum(s[v] & ~s[w]) == 2  # K/4 columns for v and not w


@pytest.mark.parametrize("K", [4, 8, 16])
def test_hadamard_support_by_enumeration(K):
    mech = HadamardResponse(sp.Rational(7, 10), K)
    high, low = mech.levels
    sets = hadamard_sets(K)
    x, v = 0, 1
    pmf = [high if sets[x + 1][y] else low for y in range(K)]
    assert _close(sum(pmf), 1)
    p, q = mech.support_probabilities()
    assert _close(sum(pmf[y] for y in range(K) if sets[x + 1][y]), p)
    assert _close(sum(pmf[y] for y in range(K) if sets[v + 1][y]), q)


@pytest.mark.parametrize(("k", "d"), [(4, 1), (5, 2), (6, 3)])
def test_subset_selection_support_by_enumeration(k, d):
    mech = SubsetSelection(sp.Rational(7, 10), k, d)
    subsets = list(itertools.combinations(range(k), d))
    weight = {s: (E if 0 in s else 1) for s in subsets}
    z = sum(weight.values())
    p, q = mech.support_probabilities()
    assert _close(sum(w for s, w in weight.items() if 0 in s) / z, p)
    assert _close(sum(w for s, w in weight.items() if 1 in s) / z, q)


@pytest.mark.parametrize(("k", "g"), [(3, 2), (4, 3)])
def test_local_hashing_support_by_enumeration(k, g):
    """Over every function of the k values onto g (a universal family), with GRR over g."""
    mech = LocalHashing(sp.Rational(7, 10), g)
    high, low = mech.levels
    p = q = sp.Integer(0)
    functions = list(itertools.product(range(g), repeat=k))
    for h in functions:
        for y in range(g):
            prob = (high if y == h[0] else low) / len(functions)
            p += prob if y == h[0] else 0
            q += prob if y == h[1] else 0
    ps, qs = mech.support_probabilities()
    assert _close(p, ps) and _close(q, qs)


def test_grr_and_unary_supports():
    p, q = KAryRR(sp.Rational(7, 10), 5).support_probabilities()
    assert _close(p + 4 * q, 1)
    for variant in ("symmetric", "optimized"):
        mech = UnaryEncoding(sp.Rational(7, 10), 5, variant)
        assert _close(mech.tight_epsilon, sp.Rational(7, 10))


ORACLES = ["grr", "sue", "oue", "blh", "olh", "hadamard", "subset_selection"]


@pytest.mark.parametrize("key", ORACLES)
def test_sampler_supports_match(key):
    """The sampler's support frequencies match (p*, q*) within 5 standard errors."""
    entry = get(f"ldp.{key}")
    mech = entry.description
    n = 200_000
    y = sampler_for(mech)(0, n, np.random.default_rng(5))
    if key == "grr":
        hits = (y == "c0", y == "c1")
    elif key == "hadamard":
        sets = hadamard_sets(int(mech.K))
        hits = (sets[1][y], sets[2][y])
    else:
        hits = (y[:, 0] == 1, y[:, 1] == 1)
    for got, want in zip(hits, mech.support_probabilities()):
        w = float(want)
        assert abs(np.mean(got) - w) < 5 * math.sqrt(w * (1 - w) / n), (key, np.mean(got), w)


@pytest.mark.parametrize("key", ORACLES)
def test_catalogue_oracles_audit_close_to_exact(key):
    entry = get(f"ldp.{key}")
    r = audit(entry.sampler(), [(0, 1)], epsilon=1.0, samples=100_000, seed=9)
    assert r.verdict == "no violation found"
    assert 0.85 <= r.epsilon_lower_bound <= entry.true_epsilon


def test_broken_unary_encoding_is_caught():
    """Each bit kept with e^eps/(e^eps+1): the symmetric encoding at 2 eps, claimed eps."""
    broken = UnaryEncoding(2.0, 8, "symmetric")
    r = audit(sampler_for(broken), [(0, 1)], epsilon=1.0, samples=100_000, seed=9)
    true = true_epsilon(broken).value
    assert true == pytest.approx(2.0)
    assert r.verdict == "violation" and 1.5 < r.epsilon_lower_bound <= true
