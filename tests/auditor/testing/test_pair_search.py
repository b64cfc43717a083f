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


def clipped_sum(data, size, rng, lo=-1.0, hi=1.0, scale=1.0):
    """Records clipped to [lo, hi], Laplace(scale) on the sum: replace-one sensitivity hi - lo,
    so epsilon 2 for [-1, 1] at scale 1, not the 1 a unit range would give."""
    s = float(np.clip(np.asarray(data, dtype=float), lo, hi).sum())
    return np.round((s + rng.laplace(0, scale, size)) * 2.0**20) / 2.0**20


def test_records_widen_the_patterns_to_the_clipping_range():
    """The patterns' records are 0 and 1 and values between: a sum clipped to [-1, 1] moves by
    1 there and the leak (epsilon 2 against a claim of 1) was "no violation found" on every
    seed; with the records' range given the patterns swap -1 for 1, and the note says which
    records were tried."""
    kw = dict(relation="replace-one", epsilon=1.0, samples=60_000, workers=1)
    for seed in (0, 1):
        r = audit(clipped_sum, None, seed=seed, **kw)
        assert not r.violation
        assert any("records in [0, 1]" in n for n in r.notes), r.notes
        assert "records in [0, 1]" in r.summary()
        wide = audit(clipped_sum, None, seed=seed, records=(-1, 1), **kw)
        assert wide.violation and wide.epsilon_lower_bound > 1.1, wide.summary()
        assert any("records in [-1, 1]" in n for n in wide.notes)
    # a correct mechanism on that range stays clear
    fair = audit(lambda data, size, rng: clipped_sum(data, size, rng, scale=2.0), None, seed=0,
                 records=(-1, 1), **kw)  # fmt: skip
    assert not fair.violation, fair.summary()


def test_records_under_add_remove_and_in_the_search():
    from auditor.engine.pairs import generate_pairs

    pairs = generate_pairs("add-remove", size=4, seed=3, records=(0, 3))
    assert all(0 <= v <= 3 for p in pairs for d in (p.a, p.b) for v in d)
    assert any(p.label == "all zero, add 3.0" for p in pairs)
    # the defaults are the pairs generated before the option existed
    assert [p.label for p in generate_pairs("replace-one", seed=3)] == [
        "replace first by 1.0",
        "replace first by 0.0",
        "all zero, replace one by 1.0",
        "replace by adversarial float",
    ]
    found = search_pairs(clipped_sum, "replace-one", max_size=3, samples=300, max_examples=10,
                         seed=1)  # fmt: skip
    assert found


def test_records_bad_input(tmp_path, capsys):
    import pytest

    from proofs.errors import InputError

    for bad, needle in [((1, 0), "LO < HI"), ((0, float("inf")), "finite"), ((0,), "two")]:
        with pytest.raises(InputError, match=needle):
            audit(clipped_sum, None, relation="replace-one", epsilon=1.0, records=bad)
    with pytest.raises(InputError, match="add-remove or replace-one"):
        audit(clipped_sum, None, relation="sensitivity", epsilon=1.0, records=(0, 1))
    with pytest.raises(InputError, match="pairs of your own"):
        audit(clipped_sum, [(0.0, 1.0)], relation="replace-one", epsilon=1.0, records=(0, 1))
    f = tmp_path / "mech.py"
    f.write_text("def m(data):\n    return 0\n")
    code = main(["audit", f"{f}:m", "--epsilon", "1", "--relation", "any", "--records", "0", "3"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and "records=" in err, err


def test_records_at_the_ends_of_the_doubles_or_in_a_narrow_range():
    """hi - lo overflowed at (-1e308, 1e308): every record was 1e308 and the adversarial one
    inf; 6-digit rounding collapsed (0, 1e-12) to zeros, and pairs of one dataset twice came
    out. Every generated record lies in the range and every pair differs."""
    import pytest

    from auditor.engine.pairs import generate_pairs
    from proofs.errors import InputError

    for lo, hi in ((-1e308, 1e308), (0.0, 1e-12), (1e10, 1e10 + 1), (-3.0, -2.0)):
        for rel in ("add-remove", "replace-one"):
            pairs = generate_pairs(rel, size=4, seed=3, records=(lo, hi))
            assert len(pairs) >= 3, (lo, hi, rel)
            assert all(p.a != p.b for p in pairs)
            assert all(lo <= v <= hi for p in pairs for d in (p.a, p.b) for v in d)
            assert len({(str(p.a), str(p.b)) for p in pairs}) == len(pairs)
    with pytest.raises(InputError, match="two finite numbers"):
        generate_pairs("replace-one", records="01")


def test_searched_answers_keep_their_number():
    """Under the sensitivity relation the search drew 2 to 4 answers, and a correct mechanism
    answering each one was refused for changing its output's shape (5 seeds in 6)."""

    def per_answer(data, size, rng):
        x = np.asarray(data, float)
        return x + rng.laplace(0.0, len(x), size=(size, len(x)))  # eps 1 by composition

    for seed in range(3):
        r = audit(
            per_answer,
            relation="sensitivity",
            size=4,
            pair_search="hypothesis",
            epsilon=1.0,
            samples=4_000,
            seed=seed,
            workers=1,
            semantics="ideal",
        )
        assert not r.violation and len(r.witness.pair["a"]) == 4
