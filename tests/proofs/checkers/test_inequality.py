"""For-all inequalities (proofs.Inequality): known answers, the monotone rewrites, integer
symbols, input errors, and a property test of soundness against independent numerics."""

import random
import re
from fractions import Fraction

import mpmath as mp
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from proofs import Inequality, InputError, Verdict, check
from proofs.decide import differs_somewhere

a, b, y = sp.symbols("a b y", real=True)
c = sp.Symbol("c", positive=True)
k = sp.Symbol("k", integer=True, positive=True)
eps, Delta = sp.symbols("epsilon Delta", positive=True)


def _laplace_step(sign):
    loss = sp.exp(-eps / Delta * (sp.Abs(a - y) - sp.Abs(b - y)))
    return Inequality(loss, sp.exp(sign * eps / Delta * sp.Abs(a - b)))


@pytest.mark.parametrize(
    "claim, verdict",
    [
        (Inequality(sp.Abs(a + b), sp.Abs(a) + sp.Abs(b)), "proved"),
        (Inequality(sp.Abs(a) + sp.Abs(b), sp.Abs(a + b)), "refuted"),
        (Inequality(1 + a, sp.exp(a)), "proved"),
        (Inequality(sp.exp(a), 1 + a + a**2), "refuted"),
        (_laplace_step(+1), "proved"),  # exp compared by its exponent
        (_laplace_step(-1), "refuted"),  # the notes' sign
        (Inequality(sp.log(1 + c), c), "proved"),  # log(A) <= R as A <= exp(R)
        (Inequality(c, sp.log(1 + c)), "refuted"),
        (Inequality(k * (k + 1) / 2, k**2), "proved"),  # k >= 1 for a positive integer
        (Inequality(k**2, 2 * k), "refuted"),
        (Inequality(a, 2, (a < 1,)), "proved"),
        (Inequality(a, sp.Rational(1, 2), (a < 1,)), "refuted"),
        (Inequality(sp.E, sp.Rational(272, 100)), "certified"),
        (Inequality(sp.E, sp.Rational(271, 100)), "refuted"),
        (Inequality("exp(-x)", "1"), "proved"),  # text: x is a positive symbol
    ],
)
def test_known_answers(claim, verdict):
    r = check(claim)
    assert r.verdict.value == verdict, r.summary()
    if verdict == "refuted":
        cex = r.counterexample
        values = {s: sp.Rational(cex.parameters[s.name]) for s in _symbols(claim)}
        assert _lhs_exceeds(claim, values, digits=50)


def test_a_plain_symbol_is_real_and_one_name_is_one_quantity():
    x = sp.Symbol("x")  # no assumptions: real, so x^2 >= 0 holds and x >= 0 does not
    assert check(Inequality(0, x**2)).verdict is Verdict.PROVED
    assert check(Inequality(0, x)).verdict is Verdict.REFUTED
    # "x" in the text of rhs is the lhs's real x, not a new positive symbol
    assert check(Inequality(x, "x + 1")).verdict is Verdict.PROVED
    assert check(Inequality(-x, "x")).verdict is Verdict.REFUTED


def test_integer_counterexamples_meet_the_assumptions():
    """Over the reals k^2 <= k fails at k = 1/2 too; only integer points may be reported."""
    r = check(Inequality(k**2, 3 * k))
    assert r.verdict is Verdict.REFUTED and sp.Rational(r.counterexample.parameters["k"]) >= 4


def test_bad_inputs_are_input_errors():
    with pytest.raises(InputError, match="domain entry"):
        Inequality(a, b, ("a < 1",))
    with pytest.raises(InputError, match="no parameter value"):
        check(Inequality(a, b, (a < 0, a > 1)))
    with pytest.raises(InputError, match="false for the given numbers"):
        Inequality(a, b, (sp.Integer(1) < 0,))


# -- soundness: proved claims hold at random points; counterexamples are violations ----------


def _symbols(claim):
    return claim.lhs.free_symbols | claim.rhs.free_symbols


def _lhs_exceeds(claim, values, digits=30):
    with mp.workdps(digits):
        lhs = mp.mpf(sp.N(claim.lhs.xreplace(values), digits))
        rhs = mp.mpf(sp.N(claim.rhs.xreplace(values), digits))
        return lhs > rhs + mp.mpf(10) ** (-digits + 10) * (1 + abs(rhs))


_LEAVES = st.sampled_from([a, b, c, sp.Integer(1), sp.Integer(2), sp.Rational(1, 2), -a])


def _terms(depth):
    if depth == 0:
        return _LEAVES
    sub = _terms(depth - 1)
    return st.one_of(
        _LEAVES,
        st.builds(lambda u, v: u + v, sub, sub),
        st.builds(lambda u, v: u * v, sub, _LEAVES),
        st.builds(sp.Abs, sub),
        st.builds(lambda u, v: sp.Max(u, v), sub, sub),
        st.builds(lambda q: sp.exp(q * c), st.sampled_from([-1, 1, sp.Rational(1, 2)])),
    )


@settings(max_examples=60, deadline=None, derandomize=True)
@given(_terms(2), _terms(2), st.integers(0, 2**32))
def test_verdicts_agree_with_random_points(lhs, rhs, seed):
    claim = Inequality(lhs, rhs)
    r = check(claim)
    symbols = sorted(_symbols(claim), key=str)
    if r.verdict is Verdict.REFUTED:
        values = {s: sp.Rational(r.counterexample.parameters[s.name]) for s in symbols}
        assert _lhs_exceeds(claim, values, digits=50), r.summary()
    elif r.verdict in (Verdict.PROVED, Verdict.CERTIFIED):
        rng = random.Random(seed)
        for _ in range(200):
            values = {
                s: sp.Rational(rng.randint(1 if s.is_positive else -400, 400), 100) for s in symbols
            }
            assert not _lhs_exceeds(claim, values), (claim.statement(), values)


# -- false claims a review found proved (forced log expansion, log of a non-positive) --------

x_ = sp.Symbol("x", real=True)
p_ = sp.Symbol("p", positive=True)


@pytest.mark.parametrize(
    "claim",
    [
        # log(x^2) - 2 log(x) is 2 pi i at x = -1, not 0: forced expansion made the sides equal
        Inequality(sp.cos(sp.log(x_**2) - 2 * sp.log(x_)), 1),
        Inequality(0, (sp.log(x_**2) - 2 * sp.log(x_)) ** 2),
        Inequality(sp.Abs(sp.log(x_ * y) - sp.log(x_) - sp.log(y)), 0),
        # log(A) <= R as A <= exp(R) only where A > 0
        Inequality(sp.log(x_), x_),
        Inequality(sp.log(-p_), 0),
        Inequality(sp.log(x_), 0, (x_ <= -1,)),
        Inequality(sp.Max(sp.log(x_), 0), 5),  # (undefined at x = 0: an internal error)
    ],
)
def test_logs_of_values_that_may_be_negative_are_never_proved(claim):
    r = check(claim)
    assert r.verdict in (Verdict.REFUTED, Verdict.UNKNOWN), r.summary()


def test_logs_of_positive_values_are_still_proved():
    assert check(Inequality(sp.log(p_), p_)).verdict is Verdict.PROVED
    assert check(Inequality(sp.log(p_**2), 2 * sp.log(p_))).verdict is Verdict.PROVED


def test_symbols_that_are_not_real_or_ambiguous_are_refused():
    with pytest.raises(InputError, match="not real"):
        Inequality(0, sp.Symbol("z", imaginary=True) ** 2)  # z^2 = -1 at z = i
    with pytest.raises(InputError, match="one name"):  # which x wins was up to set order
        Inequality(sp.Symbol("x", positive=True) - x_, 0)


def test_sides_that_differ_at_a_point_skip_simplification():
    """log(2) x <= 6931471/10^7 x took four minutes in SymPy's simplify before z3 refuted it."""
    import time

    start = time.perf_counter()
    found = check(Inequality(sp.log(2) * x_, sp.Rational(6931471, 10**7) * x_, (x_ > 0,)))
    assert found.verdict is Verdict.REFUTED
    assert time.perf_counter() - start < 30
    assert differs_somewhere(sp.log(2) * x_ - sp.Rational(6931471, 10**7) * x_)
    assert not differs_somewhere(sp.log(p_**2) - 2 * sp.log(p_))
    assert not differs_somewhere(sp.Abs(x_) - x_)  # (zero where x > 0 only)


def test_probing_a_huge_power_is_quick():
    """The probe substituted exact rationals: (7/13)**(10**8) was computed exactly."""
    import time

    start = time.perf_counter()
    for n in (10**7, 10**8):
        assert check(Inequality(x_**n, 2 * x_**n, (x_ > 0,))).verdict is Verdict.PROVED
    assert time.perf_counter() - start < 20
    odd = sp.Symbol("n", integer=True, positive=True, odd=True)
    assert not differs_somewhere(sp.sin(sp.pi * (odd + 1) / 2))  # (zero at every odd n)


_EPS = sp.Symbol("epsilon", positive=True)


@pytest.mark.parametrize(
    "lhs, rhs, region",
    [
        # e - 1 = 1.718281...: 1.7182 eps fails only on (0.99992, 1), no small value shows it
        (sp.exp(_EPS) - 1, sp.Rational("1.7182") * _EPS, (sp.Rational("0.99992"), 1)),
        (
            sp.Symbol("k", integer=True, positive=True) * _EPS * (sp.exp(_EPS) - 1),
            sp.Rational("1.7") * sp.Symbol("k", integer=True, positive=True) * _EPS**2,
            (sp.Rational("0.98"), 1),
        ),
    ],
)
def test_a_bound_failing_just_inside_an_open_end_is_refuted_by_the_float_search(lhs, rhs, region):
    found = check(Inequality(lhs, rhs, domain=[_EPS < 1]))
    assert found.verdict is Verdict.REFUTED, found.summary()
    at = sp.Rational(found.counterexample.parameters["epsilon"])
    assert region[0] < at < region[1]


@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.fractions(min_value=Fraction(-1, 1000), max_value=Fraction(1, 1000)))
def test_the_float_search_refutes_only_false_bounds(offset):
    """e^eps - 1 <= (e - 1 + offset) eps on (0, 1) is true exactly when offset >= 0 (the
    chord): never refuted then; refuted below (the floats only choose, exact values decide)."""
    c = sp.E - 1 + sp.Rational(offset)
    found = check(Inequality(sp.exp(_EPS) - 1, c * _EPS, domain=[_EPS < 1]))
    if offset >= 0:
        assert found.verdict is not Verdict.REFUTED, found.summary()
    elif offset < Fraction(-1, 10**6):
        assert found.verdict is Verdict.REFUTED, found.summary()


def test_the_float_search_neither_crashes_nor_crawls():
    """A function NumPy lacks raised NameError out of check (exit 3); two equal sides made half
    the grid look violated by rounding, and re-checking them took 330 s."""
    import time

    p = sp.Symbol("p", positive=True)
    x, y, z = sp.symbols("x y z", positive=True)
    m, n = sp.symbols("m n", integer=True, positive=True)
    for claim in (
        Inequality(sp.LambertW(p), p),
        Inequality(sp.besselj(0, p), 1),
        Inequality(0, sp.zeta(p + 1)),
    ):
        assert check(claim).verdict is not Verdict.REFUTED
    start = time.perf_counter()
    asinh = lambda v: sp.log(v + sp.sqrt(v**2 + 1))
    equal = Inequality(
        m * sp.asinh(x) + n * sp.asinh(y) + sp.asinh(z), m * asinh(x) + n * asinh(y) + asinh(z)
    )
    assert check(equal).verdict is not Verdict.REFUTED
    assert time.perf_counter() - start < 60


@pytest.mark.parametrize("bound", [-eps > -1, 2 * eps < 2, eps**2 < 1])
def test_the_search_box_reads_a_bound_written_any_way(bound):
    found = check(Inequality(sp.exp(eps) - 1, sp.Rational("1.7182") * eps, domain=[bound]))
    assert found.verdict is Verdict.REFUTED


_x = sp.Symbol("x", real=True)
_p = sp.Symbol("p", positive=True)
_n = sp.Symbol("n", integer=True)


@pytest.mark.parametrize(
    "claim, where",
    [
        (Inequality(1 / _x, 1 / _x), "x = 0"),  # exact algebra
        (Inequality(1 / (_x - 1), 1 / (_x - 1) + _x**2), "x = 1"),  # z3's division
        (Inequality(_x**-2, 1 + _x**-2), "x = 0"),
        (Inequality(sp.coth(_x), sp.coth(_x) + sp.cosh(_x) - 1, (_x > -1, _x < 1)), "x = 0"),
        (Inequality(1 / (sp.exp(_x) - 1), 1 / (sp.exp(_x) - 1)), "x = 0"),
        (Inequality(sp.log(_x**2), sp.log(_x**2)), "x = 0"),
        (Inequality(1 / (_p - 1), 1 / (_p - 1)), "p = 1"),
        (Inequality(1 / _n, 1 / _n), "n = 0"),
    ],
)
def test_a_side_undefined_on_the_domain_is_never_proved(claim, where):
    """A claim says nothing where a side is undefined: z3 gives x/0 a value and SymPy
    cancels equal sides, so both once proved these; the point is named."""
    r = check(claim)
    assert r.verdict is Verdict.UNKNOWN, r.summary()
    assert f"is undefined at {where}, a value the domain allows" in r.reason


@pytest.mark.parametrize(
    "claim",
    [
        Inequality(1 / _x, 1 + 1 / _x, (_x > 0,)),
        Inequality(1 / (_x - 1), 1 / (_x - 1) + _x**2, (_x > 2,)),
        Inequality(_x / (_x**2 + 1), 1),  # the denominator is never 0: z3 shows it
        Inequality(1 / _p, 1 / _p),  # SymPy's assumptions show it
        Inequality(sp.exp(_x) / (1 + sp.exp(_x)), 1),
        Inequality(_x**k, _x**k),  # a power with a positive integer symbol
        Inequality((_x**2 + 1) ** -k, (_x**2 + 1) ** -k),
    ],
)
def test_a_quotient_defined_on_the_domain_is_still_proved(claim):
    assert check(claim).verdict is Verdict.PROVED


def test_a_side_outside_z3_and_not_shown_defined_is_unknown():
    r = check(Inequality(sp.tan(_x), sp.tan(_x)))  # undefined at pi/2
    assert r.verdict is Verdict.UNKNOWN
    assert "outside the SMT fragment" in r.reason
    assert check(Inequality(sp.gamma(_p), sp.gamma(_p))).verdict is Verdict.UNKNOWN
    assert check(Inequality(_x**-k, _x**-k)).verdict is Verdict.UNKNOWN  # x = 0


def test_a_piecewise_branch_need_be_defined_only_where_it_is_taken():
    guarded = sp.Piecewise((1 / _x, _x > 0), (0, True))
    assert check(Inequality(0, guarded)).verdict is Verdict.PROVED
    assert check(Inequality(guarded, guarded)).verdict is Verdict.PROVED
    cases = sp.Piecewise((0, _x <= 0), (sp.log(_x), _x < 1), (sp.sqrt(_x - 1), True))
    assert check(Inequality(cases, sp.Abs(_x))).verdict is Verdict.PROVED
    # false at x < 0, where sqrt(x - 1)'s definition, held everywhere, had left no point
    assert check(Inequality(cases, _x)).verdict is Verdict.REFUTED
    # the root's own definition r^2 = x, held where its branch is not taken, would leave out
    # every x < 0, where this claim fails
    root = sp.Piecewise((sp.sqrt(_x), _x >= 0), (5, True))
    assert check(Inequality(root, 3, (_x > -10, _x < 4))).verdict is Verdict.REFUTED
    # a branch taken at 0 is not defined there; one logarithm outside every branch neither
    wide = sp.Piecewise((1 / _x, _x > -1), (0, True))
    assert "undefined at x = 0" in check(Inequality(wide, wide + 1)).reason
    twice = sp.Piecewise((sp.log(_x), _x > 0), (0, True)) + sp.log(_x)
    assert "undefined at x = 0" in check(Inequality(twice, _x)).reason


@pytest.mark.parametrize(
    "claim, where",
    [
        (Inequality(sp.coth(_x) * sp.tanh(_x), 1), "x = 0"),
        (Inequality(sp.coth(_x) * sp.tanh(_x), 2), "x = 0"),
        (Inequality(0, sp.coth(_x) * sp.tanh(_x)), "x = 0"),
        (Inequality(sp.sinh(_x) * sp.csch(_x), 2, (_x > -1, _x < 1)), "x = 0"),
        (
            Inequality((sp.exp(_x) - sp.exp(-_x)) * sp.coth(_x), sp.exp(_x) + 1 + sp.exp(-_x)),
            "x = 0",
        ),
        (Inequality(sp.tanh(_n) * sp.coth(_n), 1), "n = 0"),
    ],
)
def test_a_hyperbolic_pole_is_not_cancelled_away(claim, where):
    """Written with exp as a whole, coth(x) tanh(x) is 1 and the pole at 0 was lost: z3 and
    the definedness check both took these as proved. Each function is rewritten on its own."""
    r = check(claim)
    assert r.verdict is Verdict.UNKNOWN, r.summary()
    assert f"is undefined at {where}" in r.reason


def test_a_hyperbolic_product_away_from_its_pole_is_proved():
    assert check(Inequality(sp.coth(_x) * sp.tanh(_x), 1, (_x > 0,))).verdict is Verdict.PROVED
    assert check(Inequality(sp.sinh(_x) * sp.csch(_x), 1, (_x < 0,))).verdict is Verdict.PROVED
    assert check(Inequality(sp.tanh(_x), 1)).verdict is Verdict.PROVED


@pytest.mark.parametrize(
    "lhs",
    [
        sp.log(4) / _x - 2 * sp.log(2) / _x,
        sp.log(_x) * (sp.log(8) - 3 * sp.log(2)),
        (sp.log(8) - 3 * sp.log(2)) / _x,
    ],
)
def test_writing_logs_over_their_factors_cancels_no_undefined_term(lhs):
    """Rebuilt as a whole over log 2, these are 0 and the x != 0 (x > 0) they need was lost;
    each log is now factored in place."""
    r = check(Inequality(lhs, _x**2 + 1))
    assert r.verdict is Verdict.UNKNOWN and "undefined at x = 0" in r.reason


def test_the_log_of_a_huge_perfect_power_is_kept_whole():
    """SymPy's factorint took floats of (2^89 - 1)^30's powers and overflowed: an internal
    error. A number past 256 bits keeps its log whole."""
    big = sp.Integer((2**89 - 1) ** 30)
    assert check(Inequality(_x * sp.log(big), _x * sp.log(big) + _x**2)).verdict is (Verdict.PROVED)


def test_a_constraint_holds_only_where_it_is_defined():
    """z3 gives 1/0 a value, so x = 0 met 1/x > 1 and no claim over it was shown defined:
    a constraint's own denominators, roots and logarithms now narrow the domain."""
    assert check(Inequality(_x, _x + 1, (1 / _x > 1,))).verdict is Verdict.PROVED
    assert check(Inequality(_x**2, _x, (1 / _x >= 1,))).verdict is Verdict.PROVED
    assert check(Inequality(_x**2, _x / 2, (1 / _x >= 1,))).verdict is Verdict.REFUTED


def test_erf_far_out_is_compared_as_erfc():
    """1 - erf(10^4) is a ball around 0 at any precision arb reaches, and SymPy's sign test
    of it evaluated at ever more digits (one claim hung past 300 s): erf is written as
    1 - erfc first, which arb encloses to its own relative precision."""
    r = sp.Integer(10**4) + sp.Rational(1, 10**7)
    assert check(Inequality(sp.erfc(r), 1 - sp.erf(r))).verdict is Verdict.PROVED
    assert check(Inequality(1 - sp.erf(r), 2 * sp.erfc(r))).verdict is Verdict.CERTIFIED
    assert check(Inequality(2 * sp.erfc(r), 1 - sp.erf(r))).verdict is Verdict.REFUTED
    assert check(Inequality(sp.erf(r), 1)).verdict is Verdict.CERTIFIED


def test_a_constraint_inside_or_keeps_the_points_where_its_other_side_holds():
    """The definedness of 1/x or log x in Or(x < 0, log x > 0), added beside the constraint as
    x > 0, took every x < 0 out of the domain: 1 <= x was proved over it."""
    assert check(Inequality(1, _x, (sp.Or(_x < 0, sp.log(_x) > 0),))).verdict is Verdict.REFUTED
    either = sp.Or(sp.Eq(_x, 0), sp.And(_x > 0, 1 / _x < 1))
    assert check(Inequality(1, _x, (either,))).verdict is Verdict.REFUTED
    shared = check(Inequality(1 / _x, 2, (sp.Or(sp.Eq(_x, 0), 1 / _x < 1),)))
    assert shared.verdict is Verdict.UNKNOWN and "undefined at x = 0" in shared.reason
    assert check(Inequality(_x, _x + 1, (sp.And(1 / _x > 1, _x < 5),))).verdict is Verdict.PROVED


@pytest.mark.parametrize(
    "lhs, rhs, where",
    [
        ("(x-1)/(x-1)", "1", "the term 1/(x - 1) (as written) is undefined at x = 1"),
        ("sqrt(x-2)^2", "x", "the term sqrt(x - 2) (as written) is undefined at x = 1"),
        ("exp(log(x-2))", "x", "the term log(x - 2) (as written) is undefined at x = 1"),
        ("y*(x-1)/(x-1)", "y", "the term 1/(x - 1) (as written) is undefined at x = 1, y = 1"),
    ],
)
def test_what_text_wrote_must_be_defined_though_sympy_folded_it(lhs, rhs, where):
    """SymPy folds (x - 1)/(x - 1) to 1 while reading it, so 1 <= 1 was proved over x = 1,
    where the claim as written says nothing; the parser keeps what it read as guards."""
    r = check(Inequality(lhs, rhs))
    assert r.verdict is Verdict.UNKNOWN, r.summary()
    assert where in r.reason


def test_a_guard_defined_on_the_domain_is_proved_and_never_refuted_where_undefined():
    x = sp.Symbol("x", positive=True)
    assert check(Inequality("(x-1)/(x-1)", "1", (x > 2,))).verdict is Verdict.PROVED
    assert check(Inequality("sqrt(x-2)^2", "x", (x >= 2,))).verdict is Verdict.PROVED
    # false only at x = 1, the one point of the domain, where it is undefined
    only = check(Inequality("2*(x-1)/(x-1)", "1", (x >= 1, x <= 1)))
    assert only.verdict is Verdict.UNKNOWN, only.summary()
    refuted = check(Inequality("(x-1)/(x-1)", "1/2"))
    assert refuted.verdict is Verdict.REFUTED
    assert refuted.counterexample.parameters["x"] != "1"


def test_guards_given_as_terms_and_numbers_that_are_not_real_in_text():
    r = check(Inequality(1, 1, guards=(1 / _x,)))
    assert r.verdict is Verdict.UNKNOWN and "the term 1/x" in r.reason
    assert check(Inequality(1, 1, guards=(1 / _p,))).verdict is Verdict.PROVED
    for text, shown in [("sqrt(-1)*sqrt(-1)", "I"), ("log(-1)-log(-1)", "I*pi"), ("0^(-1)", "zoo")]:
        with pytest.raises(InputError, match=f"is {re.escape(shown)}, not a real number"):
            Inequality(text, "1")
