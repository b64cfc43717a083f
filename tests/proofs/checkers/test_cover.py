"""The certified cover of one variable (proofs.checkers.cover): bounds tight at an end of their
interval are certified, and a bound below 0 anywhere never is."""

from __future__ import annotations

from fractions import Fraction

import mpmath as mp
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from proofs import Inequality, Verdict, check
from proofs.checkers.cover import cover, interval_of

x = sp.Symbol("x", real=True)
eps = sp.Symbol("epsilon", positive=True)


@pytest.mark.parametrize(
    "lhs, rhs, bound",
    [
        # the textbook steps that z3 cannot take (exp and tanh outside its fragment)
        (sp.exp(eps) - 1, 2 * eps, 1),  # equal at 0
        (sp.tanh(eps / 2), eps / 2, 3),  # equal at 0 to third order
        ((sp.exp(eps) - 1) / (sp.exp(eps) + 1), eps / 2, 3),
        (eps**2 / 2, sp.exp(eps) - 1 - eps, 2),  # f''' > 0 after three zeros
        (sp.exp(eps) - 1, (sp.E - 1) * eps, 1),  # the chord: equal at both ends
        (1 + eps**2 / 2, sp.cosh(eps), 4),
    ],
)
def test_textbook_bounds_tight_at_an_end_are_certified(lhs, rhs, bound):
    found = check(Inequality(lhs, rhs, domain=[eps < bound]))
    assert found.verdict is Verdict.CERTIFIED, found.summary()
    assert f"[0, {bound}]" in found.method


def test_a_bound_tight_inside_its_interval_is_split_there():
    # cosh x >= 1 + x^2/2 is an equality at 0, inside (-1, 2)
    found = check(Inequality(1 + x**2 / 2, sp.cosh(x), domain=[x > -1, x < 2]))
    assert found.verdict is Verdict.CERTIFIED, found.summary()


@pytest.mark.parametrize(
    "domain, ends",
    [
        ([eps < 1], (0, 1)),
        ([2 * eps < 3], (0, Fraction(3, 2))),
        ([-eps > -1], (0, 1)),
        ([eps <= 1, eps < 2], (0, 1)),
        ([eps > sp.Rational(1, 3), eps < 1], (Fraction(1, 3), 1)),
        ([eps**2 < 1], None),  # not linear: dropped, and nothing bounds eps above
        ([eps < sp.Float(0.5)], (0, Fraction(1, 2))),
        ([sp.Eq(eps, 1)], None),
        ([], None),
    ],
)
def test_the_interval_holds_the_domain_read_exactly(domain, ends):
    got = interval_of(eps, domain)
    assert got == (None if ends is None else tuple(map(Fraction, ends)))


_TIGHT = [  # f >= 0 on [0, 1], tight at 0 to the given order (f ~ c x^order)
    (sp.exp(x) - 1 - x, 2),
    (x - sp.sin(x), 3),
    (x - sp.tanh(x), 3),
    (x - sp.log(1 + x), 2),
    (sp.cosh(x) - 1, 2),
    (2 * x - sp.exp(x) + 1, 1),
    (x**3 * sp.exp(x), 3),
]


def _least(f, digits: int = 40) -> mp.mpf:
    """The least value of f at 2,000 grid points of [0, 1] and at 10^-k and 1 - 10^-k."""
    g = sp.lambdify(x, f, "mpmath")
    with mp.workdps(digits):
        pts = [mp.mpf(i) / 2000 for i in range(2001)]
        near = [mp.mpf(10) ** -k for k in range(1, 16)]
        pts += near + [1 - t for t in near]
        return min(g(p) for p in pts)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(
    st.sampled_from(range(len(_TIGHT))),
    st.integers(1, 4),
    st.fractions(min_value=Fraction(-1, 100), max_value=Fraction(1, 100), max_denominator=10**6),
)
def test_the_cover_never_certifies_a_bound_that_fails(which, power, delta):
    """f + delta x^power on [0, 1]: below 0 near 0 whenever delta < 0 and power is below the
    order at which f is tight; whatever is certified is >= 0 at every point tried."""
    g, order = _TIGHT[which]
    f = g + sp.Rational(delta) * x**power
    out = cover(f, x, Fraction(0), Fraction(1))
    if delta < 0 and power < order:
        assert not out.ok, (f, out)
    if out.ok:
        assert _least(f) >= 0, (f, out)


@pytest.mark.parametrize(
    "f",
    [
        sp.Abs(x - sp.Rational(1, 2)) - sp.Rational(1, 10**9),  # no derivative: enclosures only
        1 / (x - sp.Rational(1, 3)) ** 2 - 10,  # a pole inside
        sp.sqrt(x) - x - sp.Rational(1, 10**12),  # below 0 at 0, tight slope infinite
        sp.tanh(1 / (x - sp.Rational(1, 3))) + 1 - sp.Rational(1, 10**9),  # a jump at 1/3
    ],
)
def test_the_cover_refuses_what_is_below_zero_somewhere(f):
    assert not cover(f, x, Fraction(0), Fraction(1)).ok


def test_a_false_bound_tight_at_an_end_is_refuted_not_certified():
    # 2 eps - (e^eps - 1) - eps^2 / 10^6 ... is true; (1 - 10^-9) eps is not below e^eps - 1
    found = check(Inequality(sp.exp(eps) - 1, (1 - sp.Rational(1, 10**9)) * eps, domain=[eps < 1]))
    assert found.verdict is Verdict.REFUTED, found.summary()


def test_an_irrational_end_is_rounded_outward():
    lo, hi = (
        sp.Rational(e.numerator, e.denominator) for e in interval_of(x, [x > -sp.pi, x < sp.log(3)])
    )
    assert (
        bool(lo < -sp.pi) and bool(hi > sp.log(3)) and bool(hi - sp.log(3) < sp.Rational(1, 10**30))
    )
    found = check(Inequality(sp.exp(eps) - 1, 2 * eps, domain=[eps < sp.log(2)]))
    assert found.verdict is Verdict.CERTIFIED and "rounded outward" in found.method


def test_bounds_tight_to_sixth_and_seventh_order_are_certified():
    found = check(Inequality(sp.cos(x), 1 - x**2 / 2 + x**4 / 24, domain=[x > -1, x < 1]))
    assert found.verdict is Verdict.CERTIFIED, found.summary()
    taylor = x - x**3 / 6 + x**5 / 120
    found = check(Inequality(sp.sin(x), taylor, domain=[x > 0, x < 2]))
    assert found.verdict is Verdict.CERTIFIED, found.summary()
    # a hundredth off the fifth-order term: false near 0
    nudged = x - x**3 / 6 + sp.Rational(99, 100) * x**5 / 120
    assert check(Inequality(sp.sin(x), nudged, domain=[x > 0, x < 2])).verdict is Verdict.REFUTED


@pytest.mark.parametrize(
    "lhs, rhs, domain",
    [
        # f = rhs - lhs is defined everywhere once SymPy cancels the side that is not
        (sp.sqrt(x - 5), sp.sqrt(x - 5) + 1, [x > -2, x < 2]),
        (sp.log(x - 5), sp.log(x - 5) + x**2, [x > -2, x < 2]),
        (sp.log(x), sp.log(x) + sp.exp(x) - 1 - x, [x > -1, x < 1]),
        (sp.acosh(x), sp.acosh(x) + x**2, [x > -1, x < 1]),
        # the one-exponential route read d = rhs - lhs after the same cancellation
        (sp.exp(x) + sp.log(x - 5), sp.log(x - 5) + 10, [x > -2, x < 2]),
        (sp.exp(x) + sp.log(x), sp.log(x) + 2, [x <= 0]),
        (sp.exp(x) + sp.acosh(x), sp.acosh(x) + 3, [x > -1, x < 1]),
    ],
)
def test_a_side_undefined_on_the_interval_is_never_proved_or_certified(lhs, rhs, domain):
    found = check(Inequality(lhs, rhs, domain=domain))
    assert found.verdict not in (Verdict.PROVED, Verdict.CERTIFIED), found.summary()


def test_ends_past_a_double_and_exact_zeros_of_large_derivatives_are_quick():
    import time

    huge = check(Inequality(sp.Rational(3, 2), sp.exp(x - 10**400), [x > 10**400, x < 10**400 + 1]))
    assert huge.verdict is Verdict.REFUTED
    a = sp.Rational(1, 3)
    g = sp.asinh(sp.coth(x + 2) / 3)
    taylor = sp.series(g, x, a, 5).removeO()
    start = time.perf_counter()  # (SymPy simplified the derivatives at 1/3 for over a minute)
    found = check(Inequality(g - (x - a) ** 2 / 10, taylor, [x > -a / 2, x < 1 - a / 2]))
    assert found.verdict is not Verdict.REFUTED
    assert time.perf_counter() - start < 40
