"""The Hypothesis-driven pair search finds the pair that exposes a bug."""

import numpy as np

from auditor import audit
from auditor.cli import main
from auditor.testing.strategies import estimated_loss, search_pairs


def leaky_sum(data, size, rng):
    """Laplace noise on the sum, but records above 1.5 leak: the output jumps by 10."""
    data = np.asarray(data, dtype=float)
    jump = 10.0 * np.any(data > 1.5)
    y = np.clip(data, -1, 1).sum() + jump + rng.laplace(0, 2.0, size)  # clipped sum: eps 1
    return np.round(y * 2.0**20) / 2.0**20  # on a grid: no floating-point low-bit leak


def test_estimated_loss_orders_pairs():
    rng = np.random.default_rng(0)
    close = estimated_loss(rng.laplace(0, 1, 4000), rng.laplace(0.1, 1, 4000))
    far = estimated_loss(rng.laplace(0, 1, 4000), rng.laplace(3, 1, 4000))
    assert far > close
    cats = estimated_loss(np.array(["a"] * 100), np.array(["b"] * 100))
    assert cats > 3


def test_search_finds_the_leaking_records():
    pairs = search_pairs(leaky_sum, "replace-one", max_size=4, samples=500, max_examples=60, seed=1)
    assert pairs, "the search returned nothing"
    a, b = pairs[0].a, pairs[0].b
    assert any(v > 1.5 for v in a) != any(v > 1.5 for v in b), (a, b)


def test_audit_with_hypothesis_search_catches_the_bug():
    r = audit(
        leaky_sum,
        None,
        relation="replace-one",
        epsilon=1.0,
        samples=100_000,
        seed=2,
        pair_search="hypothesis",
        size=4,
    )
    assert r.violation and r.epsilon_lower_bound > 3
    a, b = r.witness.pair["a"], r.witness.pair["b"]
    assert any(v > 1.5 for v in a) != any(v > 1.5 for v in b), (a, b)
    assert r.witness.pair["label"].startswith("hypothesis search")


def test_the_classic_patterns_miss_this_bug():
    # the pattern pairs use records in [0, 1]: the search is what finds the leaking record
    r = audit(
        leaky_sum,
        None,
        relation="replace-one",
        epsilon=1.0,
        samples=100_000,
        seed=2,
        pair_search="patterns",
        size=4,
    )
    assert not r.violation


def test_cli_search_flag(tmp_path, capsys):
    f = tmp_path / "mech.py"
    f.write_text(
        "import numpy as np\n"
        "def m(data, size, rng):\n"
        "    data = np.asarray(data, dtype=float)\n"
        "    y = np.clip(data, -1, 1).sum() + 10.0 * np.any(data > 1.5)\n"
        "    y = y + rng.laplace(0, 2.0, size)\n"
        "    return np.round(y * 2.0**20) / 2.0**20\n"
    )
    code = main(
        [
            "audit",
            f"{f}:m",
            "--epsilon",
            "1",
            "--relation",
            "replace-one",
            "--search",
            "hypothesis",
            "--size",
            "4",
            "--samples",
            "100000",
            "--quiet",
        ]
    )
    assert code == 1
