"""The Hypothesis strategies generate pairs that the auditor's relation check accepts."""

import subprocess
import sys
import textwrap

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from auditor.engine.pairs import Pair, check_pair, same_dataset
from auditor.testing.strategies import neighbouring_pairs
from proofs import InputError


@pytest.mark.parametrize("relation", ["add-remove", "replace-one", "sensitivity"])
def test_generated_pairs_are_neighbours(relation):
    @settings(max_examples=60, deadline=None, derandomize=True)
    @given(neighbouring_pairs(relation, max_size=8, sensitivity=2.0))
    def inner(pair):
        a, b = pair
        check_pair(Pair(a, b), relation, sensitivity=2.0)  # raises if not neighbouring
        assert not same_dataset(Pair(a, b))  # (a fifth of replace-one draws were ([0], [0]))
        assert max(len(a), len(b)) <= 8  # both within max_size
        if relation == "add-remove":
            assert abs(len(a) - len(b)) == 1
        else:
            assert len(a) == len(b)
        if relation == "replace-one":
            assert sum(x != y for x, y in zip(a, b)) <= 1

    inner()


def test_custom_elements():
    @settings(max_examples=20, deadline=None, derandomize=True)
    @given(neighbouring_pairs("replace-one", elements=st.sampled_from("abc"), min_size=2))
    def inner(pair):
        assert all(x in "abc" for x in pair[0] + pair[1])
        assert len(pair[0]) >= 2

    inner()


def test_bad_arguments_name_the_value():
    with pytest.raises(InputError, match="relation='swap'"):
        neighbouring_pairs("swap")
    with pytest.raises(InputError, match="sensitivity=0"):
        neighbouring_pairs("sensitivity", sensitivity=0)
    with pytest.raises(InputError, match="sensitivity='1'"):  # (was a TypeError)
        neighbouring_pairs("sensitivity", sensitivity="1")
    with pytest.raises(InputError, match="relation=None"):  # (was an AttributeError)
        neighbouring_pairs(None)
    with pytest.raises(InputError, match="sensitivity=inf"):
        neighbouring_pairs("sensitivity", sensitivity=float("inf"))
    with pytest.raises(InputError, match="max_size=0"):  # (was Hypothesis's error when drawn)
        neighbouring_pairs("replace-one", max_size=0)
    with pytest.raises(InputError, match="min_size = max_size = 3"):
        neighbouring_pairs("add-remove", min_size=3, max_size=3)


def test_sensitivity_pairs_take_their_answers_from_elements():
    """elements= was silently ignored under the sensitivity relation."""

    @settings(max_examples=30, deadline=None, derandomize=True)
    @given(neighbouring_pairs("sensitivity", elements=st.integers(100, 110), max_size=4))
    def inner(pair):
        assert all(100 <= x <= 110 for x in pair[0])

    inner()


def test_the_plugin_fixture_works_inside_a_given_test(tmp_path):
    """The function-scoped fixture failed Hypothesis's health check in any @given test."""
    (tmp_path / "test_user.py").write_text(
        textwrap.dedent(
            """
            import numpy as np
            from hypothesis import given, settings
            from auditor.testing.strategies import neighbouring_pairs

            def rr(data, size, rng):  # ln(3)-DP randomized response on the first record
                keep = rng.random(size) < 0.5
                return np.where(keep, int(data[0] > 0), rng.integers(0, 2, size))

            @settings(max_examples=2, deadline=None, derandomize=True)
            @given(neighbouring_pairs("replace-one", min_size=1, max_size=1))
            def test_rr(assert_dp, pair):
                assert_dp(rr, [pair], epsilon=1.2, samples=20_000, allow_inconclusive=True)
            """
        )
    )
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_user.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0 and "1 passed" in run.stdout, run.stdout + run.stderr
