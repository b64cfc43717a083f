"""The Hypothesis strategies generate pairs that the auditor's relation check accepts."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from auditor.engine.pairs import Pair, check_pair
from auditor.testing.strategies import neighbouring_pairs
from proofs import InputError


@pytest.mark.parametrize("relation", ["add-remove", "replace-one", "sensitivity"])
def test_generated_pairs_are_neighbours(relation):
    @settings(max_examples=60, deadline=None, derandomize=True)
    @given(neighbouring_pairs(relation, max_size=8, sensitivity=2.0))
    def inner(pair):
        a, b = pair
        check_pair(Pair(a, b), relation, sensitivity=2.0)  # raises if not neighbouring
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
    with pytest.raises(InputError, match="sensitivity=inf"):
        neighbouring_pairs("sensitivity", sensitivity=float("inf"))
    with pytest.raises(InputError, match="max_size=0"):  # (was Hypothesis's error when drawn)
        neighbouring_pairs("replace-one", max_size=0)
    with pytest.raises(InputError, match="min_size = max_size = 3"):
        neighbouring_pairs("add-remove", min_size=3, max_size=3)
