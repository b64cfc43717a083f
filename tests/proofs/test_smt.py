"""proofs.smt: rational powers (square roots among them) in for-all inequalities.

A root b**(p/q) is a fresh r >= 0 with r**q = b**|p|: exact only where b >= 0, so a proof
must first show that of the whole domain. These tests try to make it prove something false."""

from __future__ import annotations

import math

import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from proofs.smt import prove_forall

A, B = sp.symbols("a b", nonnegative=True)
X = sp.Symbol("x", real=True)


def test_inequalities_with_roots_are_proved():
    assert prove_forall(A + B, sp.sqrt(2 * (A**2 + B**2))).status == "proved"  # QM-AM
    assert prove_forall(sp.sqrt(A**2 + B**2), A + B).status == "proved"
    assert prove_forall(X ** sp.Rational(3, 2), X**2, [X >= 1]).status == "proved"
    assert prove_forall(1 / sp.sqrt(X), 1, [X >= 1]).status == "proved"
    assert prove_forall(A ** sp.Rational(1, 3), 1 + A).status == "proved"


def test_a_false_inequality_with_roots_gives_a_model_that_violates_it():
    found = prove_forall(sp.sqrt(2 * (A**2 + B**2)), A + B)
    assert found.status == "model"
    at = found.model["symbols"]
    a, b = float(at.get(A, 0)), float(at.get(B, 0))
    assert math.sqrt(2 * (a * a + b * b)) > a + b


def test_a_root_that_is_not_real_on_the_whole_domain_proves_nothing():
    """sqrt(x) <= 1 holds wherever the root is real (0 <= x <= 1), but x < 0 is allowed:
    the definition r^2 = x has no solution there, and a proof would have skipped it."""
    assert prove_forall(sp.sqrt(X), 1, [X <= 1]).status == "unknown"
    assert prove_forall(1 / sp.sqrt(A), 1 + 1 / A, [A <= 1]).status == "unknown"  # a = 0 allowed
    assert prove_forall(sp.sqrt(X), 1, [X <= 1, X >= 0]).status == "proved"


def test_a_nested_root_is_outside_the_fragment():
    found = prove_forall(sp.sqrt(1 + sp.sqrt(A)), 1 + A)
    assert found.status == "unknown" and "nested root" in found.reason


_exponents = st.sampled_from(
    [sp.Rational(1, 2), sp.Rational(3, 2), sp.Rational(1, 3), -sp.Rational(1, 2)]
)
_coefficients = st.integers(-3, 3)


@settings(max_examples=40, deadline=None)
@given(
    e=_exponents,
    c=st.tuples(_coefficients, _coefficients, _coefficients),
    points=st.lists(st.fractions(1, 20, max_denominator=50), min_size=1, max_size=30),
)
def test_a_proved_inequality_with_a_root_holds_at_every_point(e, c, points):
    """c0 + c1 x**e <= c2 x on x >= 1, whenever proved, holds at sampled points (and a model
    returned for it is a point where it fails)."""
    x = sp.Symbol("x", positive=True)
    lhs, rhs = c[0] + c[1] * x**e, c[2] * x
    found = prove_forall(lhs, rhs, [x >= 1])
    value = lambda t: c[0] + c[1] * float(t) ** float(e) - c[2] * float(t)
    if found.status == "proved":
        assert all(value(t) <= 1e-9 for t in points)
    elif found.status == "model":
        assert value(found.model["symbols"][x]) > -1e-9


def test_a_root_of_high_degree_is_outside_the_fragment():
    """a^(1/1000) <= 1 + a became r^1000 = a, and z3 overran a 5 s limit to 21 s."""
    found = prove_forall(A ** sp.Rational(1, 1000), 1 + A, timeout_ms=5000)
    assert found.status == "unknown" and "root of degree 1000" in found.reason
