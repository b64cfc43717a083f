"""Section 11 of the bench (bench/spread_bench.py): the bound over seeds at two splits."""

from __future__ import annotations

from bench import spread_bench


def test_the_default_split_and_a_tenth_are_what_the_audits_used():
    lb, m, n = spread_bench._bounds("laplace.scalar", 20_000, (1, 2), None)
    assert (m, n) == (6_000, 14_000) and lb.shape == (2,)  # three tenths: under the floor
    tenth, m10, n10 = spread_bench._bounds("laplace.scalar", 20_000, (1, 2), 2_000)
    assert (m10, n10) == (2_000, 18_000)
    assert all(0 <= x <= 0.1 * 1.5 for x in [*lb, *tenth])  # a 0.1-DP mechanism
