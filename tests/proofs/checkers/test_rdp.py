"""The Renyi-DP accountant of proofs.checkers.rdp: curves, composition, conversion, the
RDPComposition claim.

Known answers come from dp-accounting's RdpAccountant (given the same orders, so both minimise
over the same grid), its private curve helpers, and numeric integrals (scipy.integrate.quad).

Relation semantics in dp-accounting (rdp_privacy_accountant.py): GaussianDpEvent and
LaplaceDpEvent are composed the same way under every neighbouring relation, with the noise
multiplier read as sigma/sensitivity (b/sensitivity), i.e. our Gaussian(nm, 1) and Laplace(nm, 1);
RandomizedResponseDpEvent(p, k) needs REPLACE_ONE to be k-ary RR between two arbitrary inputs,
P[Y = x] = 1 - p + p/k, so e^eps = k/p - k + 1, i.e. our KAryRR(eps, k).
"""

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
import sympy as sp
from scipy import integrate

from proofs import (
    AlphaCoinRR,
    FiniteMechanism,
    ForcedResponse,
    Gaussian,
    Histogram,
    InputError,
    KAryRR,
    Laplace,
    RDPComposition,
    RDPConversion,
    RenyiGaussian,
    TwoSidedGeometric,
    Verdict,
    check,
    composition_rdp,
    gaussian_epsilon,
    rdp_curve,
    rdp_delta,
    rdp_epsilon,
    sym,
)
from proofs.claims.accounting import DEFAULT_ORDERS

R = sp.Rational
MIRONOV_ORDERS = [Fraction(i, 4) for i in range(5, 400)]  # [5/4, 99.75], as RDPConversion


@pytest.fixture(scope="module")
def rdp_acc():
    pytest.importorskip("dp_accounting")
    from dp_accounting import dp_event
    from dp_accounting.rdp import rdp_privacy_accountant

    return dp_event, rdp_privacy_accountant


def _rr_p(eps: float, k: int) -> float:
    """dp-accounting's noise parameter p of k-RR with e^eps = k/p - k + 1."""
    return k / (math.exp(eps) + k - 1)


def _event(ev, mech, count):
    if isinstance(mech, Gaussian):
        base = ev.GaussianDpEvent(float(mech.sigma / mech.sensitivity))
    elif isinstance(mech, Laplace):
        base = ev.LaplaceDpEvent(float(mech.scale / mech.sensitivity))
    else:
        base = ev.RandomizedResponseDpEvent(_rr_p(float(mech.epsilon), int(mech.k)), int(mech.k))
    return base if count == 1 else ev.SelfComposedDpEvent(base, count)


def _accountant(rdp_acc, composition):
    ev, mod = rdp_acc
    acc = mod.RdpAccountant(neighboring_relation=mod.NeighborRel.REPLACE_ONE)
    acc.compose(ev.ComposedDpEvent([_event(ev, m, c) for m, c in composition]))
    return acc


# At least ten settings, five of them mixing kinds.
SETTINGS = [
    [(Gaussian(1, 1), 1)],
    [(Gaussian(0.8, 1), 100)],
    [(Gaussian(3, 2), 40)],
    [(Laplace(2, 1), 5)],
    [(Laplace(0.5, 1), 1)],
    [(KAryRR(1, 4), 3)],
    [(KAryRR(2, 2), 1)],
    [(Gaussian(2, 1), 10), (Laplace(5, 1), 3), (KAryRR(0.5, 3), 2)],
    [(Gaussian(10, 1), 1000), (Laplace(20, 1), 50)],
    [(Laplace(1, 1), 2), (KAryRR(1.5, 10), 4)],
    [(Gaussian(1.5, 1), 5), (KAryRR(0.25, 2), 20)],
    [(Gaussian(4, 1), 3), (Laplace(3, 1), 2), (KAryRR(3, 5), 1), (Gaussian(1, 1), 1)],
]


@pytest.mark.parametrize("delta", [1e-5, 1e-9])
@pytest.mark.parametrize("composition", SETTINGS)
def test_epsilon_matches_dp_accounting(rdp_acc, composition, delta):
    acc = _accountant(rdp_acc, composition)
    ref, ref_order = acc.get_epsilon_and_optimal_order(delta)
    ours = rdp_epsilon(composition, delta, orders=list(acc.orders))
    assert ours.epsilon == pytest.approx(ref, rel=1e-6)
    assert ours.epsilon >= ref * (1 - 1e-12)  # an upper bound, rounded up
    assert ours.order == pytest.approx(float(ref_order))
    # The composed RDP itself, at every order.
    rdp = composition_rdp(composition, list(acc.orders))
    assert [float(v.mid()) for v in rdp] == pytest.approx(list(acc.rdp), rel=1e-9)


@pytest.mark.parametrize("epsilon", [1.0, 5.0])
@pytest.mark.parametrize("composition", SETTINGS[:3] + SETTINGS[7:9])
def test_delta_matches_dp_accounting(rdp_acc, composition, epsilon):
    acc = _accountant(rdp_acc, composition)
    ref = acc.get_delta(epsilon)
    ours = rdp_delta(composition, epsilon, orders=list(acc.orders))
    assert ours.delta == pytest.approx(ref, rel=1e-6)


def test_mironov_conversion_matches_formula():
    g = [(Gaussian(2, 1), 10)]
    orders = [1.5, 2, 4, 8]
    ours = rdp_epsilon(g, 1e-5, orders=orders, conversion="mironov")
    best = min(10 * a / 8 + math.log(1e5) / (a - 1) for a in orders)
    assert ours.epsilon == pytest.approx(best, rel=1e-12)
    assert ours.conversion == "mironov"


# --- the curves themselves ----------------------------------------------------------------------


@pytest.mark.parametrize("order", [1.05, 1.5, 2, 7.5, 64])
def test_curves_match_dp_accounting_helpers(rdp_acc, order):
    _, mod = rdp_acc
    assert float(rdp_curve(Gaussian(1.3, 1), order).mid()) == pytest.approx(
        float(mod._compute_rdp_poisson_subsampled_gaussian(1.0, 1.3, [order])[0]), rel=1e-12
    )
    assert float(rdp_curve(Laplace(2, 1), order).mid()) == pytest.approx(
        mod._laplace_rdp(0.5, order), rel=1e-9
    )
    p = _rr_p(1.2, 5)
    assert float(rdp_curve(KAryRR(1.2, 5), order).mid()) == pytest.approx(
        mod._randomized_response_rdp_replace_one(p, 5, order), rel=1e-9
    )


def _renyi_quad(log_p, log_q, order, cuts=()):
    """ln(integral of p^alpha q^(1-alpha))/(alpha - 1) by quad, in log space (no underflow)."""
    f = lambda y: math.exp(order * log_p(y) + (1 - order) * log_q(y))
    edges = [-np.inf, *cuts, np.inf]
    total = sum(
        integrate.quad(f, a, b, epsabs=0, epsrel=1e-12, limit=200)[0]
        for a, b in itertools.pairwise(edges)
    )
    return math.log(total) / (order - 1)


@pytest.mark.parametrize("order", [1.05, 2.0, 7.5])
def test_curves_match_numeric_integrals(order):
    s, d = 1.5, 1.0
    norm = math.log(s * math.sqrt(2 * math.pi))
    gauss = lambda c: lambda y: -((y - c) ** 2) / (2 * s**2) - norm
    assert float(rdp_curve(Gaussian(s, d), order).mid()) == pytest.approx(
        _renyi_quad(gauss(d), gauss(0), order, cuts=(0.0, d)), rel=1e-7
    )
    b = 0.7
    lap = lambda c: lambda y: -abs(y - c) / b - math.log(2 * b)
    assert float(rdp_curve(Laplace(b, d), order).mid()) == pytest.approx(
        _renyi_quad(lap(d), lap(0), order, cuts=(0.0, d)), rel=1e-7
    )


@pytest.mark.parametrize("order", [R(21, 20), R(3, 2), 4, R(77, 4)])
def test_krr_closed_form_equals_finite_sum(order):
    """KAryRR's closed form against the exact table (max over ordered pairs) and by hand."""
    eps, k = R(3, 2), 4
    mech = KAryRR(eps, k)
    table = FiniteMechanism({x: {y: mech.pmf(x, y) for y in range(k)} for x in range(k)})
    closed, finite = rdp_curve(mech, order), rdp_curve(table, order)
    assert closed.overlaps(finite)
    a, e = float(order), float(eps)
    by_hand = math.log(
        (math.exp(e * a) + math.exp(e * (1 - a)) + k - 2) / (math.exp(e) + k - 1)
    ) / (a - 1)
    assert float(closed.mid()) == pytest.approx(by_hand, rel=1e-12)


def test_binary_mechanisms_and_histogram():
    order = 3
    # AlphaCoinRR(alpha) is binary RR with e^eps = (1 + alpha)/(1 - alpha).
    assert rdp_curve(AlphaCoinRR(R(1, 2)), order).overlaps(rdp_curve(KAryRR(sp.log(3), 2), order))
    # ForcedResponse: (3/4, 1/4) versus (1/4, 3/4) is the same binary RR.
    assert rdp_curve(ForcedResponse(), order).overlaps(rdp_curve(KAryRR(sp.log(3), 2), order))
    # An asymmetric one: the max of the two ordered divergences.
    fr = ForcedResponse(R(1, 2), R(1, 5))
    a1, b1 = 0.5 + 0.5 * 0.2, 0.5 * 0.2
    div = lambda p, q: math.log(p**3 * q**-2 + (1 - p) ** 3 * (1 - q) ** -2) / 2
    assert float(rdp_curve(fr, order).mid()) == pytest.approx(max(div(a1, b1), div(b1, a1)))
    # Replace-one histogram: two Laplace bins move.
    two = rdp_curve(Histogram(2, "replace_one"), order)
    assert two.overlaps(2 * rdp_curve(Laplace(2, 1), order))
    assert rdp_curve(Histogram(2), order).overlaps(rdp_curve(Laplace(2, 1), order))


def test_orders_near_one_are_stable():
    """Fractional orders close to 1 give tight balls; the limit is the KL divergence."""
    g = rdp_curve(Gaussian(1, 1), 1.05)
    assert float(g.mid()) == pytest.approx(0.525, rel=1e-15) and float(g.rad()) < 1e-30
    near = 1 + Fraction(1, 10**12)
    lap = rdp_curve(Laplace(1, 1), near)
    assert float(lap.rad()) < 1e-20
    assert float(lap.mid()) == pytest.approx(1 + math.expm1(-1), rel=1e-9)  # KL of Laplace
    krr = rdp_curve(KAryRR(1, 3), near)
    kl = (math.e * 1 + 1 * -1) / (math.e + 2)  # sum p ln(p/q): the two outputs that differ
    assert float(krr.rad()) < 1e-20
    assert float(krr.mid()) == pytest.approx(kl, rel=1e-9)
    res = rdp_epsilon([(Gaussian(0.2, 1), 50)], 1e-5, orders=[1.001, near, 1.01])
    assert math.isfinite(res.epsilon) and res.order == pytest.approx(1.01)


# --- conversions ---------------------------------------------------------------------------------


@pytest.mark.parametrize("composition", SETTINGS)
def test_improved_never_looser_than_mironov(composition):
    for orders in (MIRONOV_ORDERS, None, [1.5], [2, 32]):
        imp = rdp_epsilon(composition, 1e-6, orders=orders)
        mir = rdp_epsilon(composition, 1e-6, orders=orders, conversion="mironov")
        assert imp.epsilon <= mir.epsilon


def test_default_grid_beats_mironov_on_the_old_orders():
    # sigma = 1, one Gaussian, delta = 1e-5: Mironov on [5/4, 99.75] gives 5.2988, the improved
    # conversion on the default grid 4.7284: 10.76% smaller. (sigma = 2, k = 10: 8.59% smaller;
    # sigma = 3, k = 10: 10.5%; sigma = 5: 18.9%; sigma = 10, k = 1000: 5.6%; sigma = 0.8,
    # k = 100: 3.0%.)
    g = [(Gaussian(1, 1), 1)]
    old = rdp_epsilon(g, 1e-5, orders=MIRONOV_ORDERS, conversion="mironov")
    new = rdp_epsilon(g, 1e-5)
    gain = (old.epsilon - new.epsilon) / old.epsilon
    assert old.epsilon == pytest.approx(5.29877378, rel=1e-8)
    assert new.epsilon == pytest.approx(4.72842553, rel=1e-8)
    assert gain > 0.10


def test_default_grid_contains_dp_accountings(rdp_acc):
    """The default grid contains dp-accounting's default orders, so it is never looser, and is
    finer near order 1 and beyond 1024 (here 8.2% tighter for rho = 1e8, 42% for rho = 5e-7)."""
    _, mod = rdp_acc
    grid = set(DEFAULT_ORDERS)
    assert all(R(str(float(a))) in grid for a in mod.DEFAULT_RDP_ORDERS)
    assert len(DEFAULT_ORDERS) == 664 and min(DEFAULT_ORDERS) == R(101, 100)
    for comp in (
        [(Gaussian(0.8, 1), 100)],
        [(Gaussian(R(1, 100), 1), 20000)],
        [(Gaussian(1000, 1), 1)],
        *SETTINGS[7:],
    ):
        ref = _accountant(rdp_acc, comp).get_epsilon(1e-5)
        assert rdp_epsilon(comp, 1e-5).epsilon <= ref * (1 + 1e-12)
    big, tiny = [(Gaussian(R(1, 100), 1), 20000)], [(Gaussian(1000, 1), 1)]
    assert rdp_epsilon(big, 1e-5).epsilon < 0.95 * _accountant(rdp_acc, big).get_epsilon(1e-5)
    assert rdp_epsilon(tiny, 1e-5).epsilon < 0.6 * _accountant(rdp_acc, tiny).get_epsilon(1e-5)


@pytest.mark.parametrize(
    "sigma,count,delta",
    [(1, 1, 1e-5), (2, 10, 1e-5), (R(1, 2), 3, 1e-6), (5, 100, 1e-8), (Fraction(3, 2), 7, 1e-3)],
)
def test_rdp_epsilon_is_sound_for_gaussians(sigma, count, delta):
    """The RDP bound is never below the exact epsilon of the composed Gaussian."""
    comp_sigma = sp.nsimplify(sigma) / sp.sqrt(count)
    _lo, hi = gaussian_epsilon(comp_sigma, delta)
    bound = rdp_epsilon([(Gaussian(sigma, 1), count)], delta)
    assert bound.epsilon >= hi


def test_tv_bound_gives_zero():
    tiny = [(Gaussian(1000, 1), 1)]
    res = rdp_epsilon(tiny, 0.1)
    assert res.epsilon == 0.0 and "total-variation" in res.method
    assert rdp_delta(tiny, 0).delta <= math.sqrt(1 - math.exp(-1.01 / 2e6)) * (1 + 1e-9)


def test_infinite_rdp():
    leaky = FiniteMechanism({0: {"a": R(1, 2), "b": R(1, 2)}, 1: {"a": 1, "b": 0}})
    assert not rdp_curve(leaky, 2).is_finite()
    res = rdp_epsilon([leaky, (Gaussian(1, 1), 2)], 1e-5)
    assert res.epsilon == math.inf and res.order is None
    # no RDP bound, but the output b (1/2 under 0, never under 1) gives delta(10) = 1/2 exactly
    assert RDPComposition([leaky], 10, 0.4).check().verdict is Verdict.REFUTED
    assert RDPComposition([leaky], 10, 0.6).check().verdict is Verdict.UNKNOWN


def test_result_objects():
    res = rdp_epsilon([(Gaussian(2, 1), 10), (Laplace(5, 1), 3)], Fraction(1, 10**5))
    d = res.to_dict()
    assert d["epsilon"] == res.epsilon and d["conversion"] == "improved"
    assert d["schema_version"] == "1.0" and d["orders"] == 664
    assert "Gaussian(sigma=2, sensitivity=1) x 10" in res.summary()
    assert res.interval.startswith("[")
    with pytest.raises(AttributeError):
        res.epsilon = 0  # frozen
    delta = rdp_delta([(Gaussian(2, 1), 10)], 5)
    assert 0 < delta.delta < 1 and delta.to_dict()["delta"] == delta.delta
    assert "delta in" in delta.summary()


# --- the claim -----------------------------------------------------------------------------------


MIXED = [(Gaussian(2, 1), 10), (Laplace(5, 1), 3), (KAryRR(R(1, 2), 3), 2)]


def test_claim_certified_when_rdp_bound_is_below():
    bound = rdp_epsilon(MIXED, 1e-5).epsilon  # 8.8320
    res = RDPComposition(MIXED, 9, 1e-5).check(id="mixed", source="test")
    assert res.verdict is Verdict.CERTIFIED and res.as_expected
    assert "RDP accountant" in res.method and res.id == "mixed"
    assert f"{bound}" in res.reason
    # The claim at the bound itself is certified too (the bound is rounded up).
    assert RDPComposition(MIXED, bound, 1e-5).check().verdict is Verdict.CERTIFIED


def test_claim_unknown_below_rdp_bound():
    imp = rdp_epsilon(MIXED, 1e-5).epsilon  # 8.8320
    mir = rdp_epsilon(MIXED, 1e-5, conversion="mironov").epsilon  # 9.6203
    res = RDPComposition(MIXED, imp - 0.01, 1e-5).check()
    assert res.verdict is Verdict.UNKNOWN and not res.verdict.holds
    assert "only an upper bound" in res.reason
    # Mironov's conversion is looser: a claim between the two is unknown with it.
    between = (imp + mir) / 2
    assert RDPComposition(MIXED, between, 1e-5).check().verdict is Verdict.CERTIFIED
    assert RDPComposition(MIXED, between, 1e-5, conversion="mironov").check().verdict is (
        Verdict.UNKNOWN
    )


def test_claim_all_gaussian_exact_decisions():
    comp = [(Gaussian(2, 1), 6), (Gaussian(4, 2), 4)]  # mu^2 = 6/4 + 4/4 = 5/2
    lo, hi = gaussian_epsilon(1 / sp.sqrt(R(5, 2)), R(1, 10**5))
    rdp = rdp_epsilon(comp, R(1, 10**5)).epsilon
    assert hi < rdp
    # Between the exact epsilon and the RDP bound: certified by the exact profile.
    res = RDPComposition(comp, (hi + rdp) / 2, R(1, 10**5)).check()
    assert res.verdict is Verdict.CERTIFIED and "exact" in res.method
    # Below the exact epsilon: refuted, with a counterexample.
    res = RDPComposition(comp, lo - 0.05, R(1, 10**5)).check(expect="refuted")
    assert res.verdict is Verdict.REFUTED and res.as_expected
    assert res.counterexample is not None and "mu^2" in res.counterexample.parameters
    assert "5/2" in res.counterexample.parameters["mu^2"]


def test_claim_never_refutes_without_an_exact_profile():
    comp = [(Laplace(1, 1), 10)]  # 10-DP, far below the claim 1: yet only unknown
    res = RDPComposition(comp, 1, 1e-5).check()
    assert res.verdict is Verdict.UNKNOWN


def test_exact_number_types_accepted():
    frac = RDPComposition(
        [(Gaussian(Fraction(3, 2), 1), 5)],
        Fraction(12),
        Fraction(1, 10**5),
        orders=[Fraction(3, 2), R(5, 2), 4, 8.0, np.float64(16), np.int64(32)],
    )
    rat = RDPComposition([(Gaussian(R(3, 2), 1), sp.Integer(5))], R(12), R(1, 10**5))
    floats = RDPComposition([(Gaussian(1.5, 1.0), 5)], 12.0, 1e-5)
    for claim in (frac, rat, floats):
        assert claim.check().verdict is Verdict.CERTIFIED
    assert frac.orders[3] == 8 and frac.delta == R(1, 10**5)
    assert "Gaussian(sigma=3/2, sensitivity=1) x 5" in rat.statement()
    single = rdp_epsilon(Gaussian(R(3, 2), 1), R(1, 10**5), orders=np.array([2.0, 4.0]))
    assert single.order in (2.0, 4.0)


@pytest.mark.parametrize(
    "kwargs,match",
    [
        (dict(composition=[(Gaussian(sym("sigma"), 1), 2)]), "Gaussian.sigma=sigma is symbolic"),
        (dict(composition=[(Laplace(), 1)]), "symbolic"),
        (dict(composition=[(Gaussian(2, 1), 0)]), "count=0 must be a positive integer"),
        (dict(composition=[(Gaussian(2, 1), 1.5)]), "positive integer"),
        (dict(composition=[(Gaussian(2, 1), True)]), "positive integer"),
        (dict(composition=[]), "empty"),
        (dict(composition=[(TwoSidedGeometric(1, 1), 1)]), "no RDP curve for TwoSidedGeometric"),
        (dict(composition=[(Gaussian(-1, 1), 1)]), "sigma=-1"),
        (dict(composition=[(KAryRR(1, R(5, 2)), 1)]), "integer"),
        (dict(delta=0), "delta=0 must be in \\(0, 1\\)"),
        (dict(delta=1), "delta=1 must be in"),
        (dict(delta=sym("delta")), "symbolic"),
        (dict(epsilon=-1), "epsilon=-1 must be a non-negative"),
        (dict(orders=[2, 1]), "orders\\[1\\]=1 must be a rational number > 1"),
        (dict(orders=[0.5]), "> 1"),
        (dict(orders=[]), "empty"),
        (dict(orders=[float("inf")]), "finite"),
        (dict(conversion="basic"), "conversion='basic' is not known"),
    ],
)
def test_bad_inputs(kwargs, match):
    args = dict(composition=[(Gaussian(2, 1), 3)], epsilon=1, delta=1e-5)
    args.update(kwargs)
    with pytest.raises(InputError, match=match) as info:
        RDPComposition(**args)
    assert isinstance(info.value, ValueError) and "\n" not in str(info.value)


def test_bad_inputs_of_the_functions():
    with pytest.raises(InputError, match="delta"):
        rdp_epsilon([(Gaussian(2, 1), 3)], 0)
    with pytest.raises(InputError, match="epsilon"):
        rdp_delta([(Gaussian(2, 1), 3)], -0.5)
    with pytest.raises(InputError, match="order"):
        rdp_curve(Gaussian(2, 1), 1)
    with pytest.raises(InputError, match="sequence"):
        rdp_epsilon(3, 1e-5)


def test_a_false_renyi_bound_with_a_tiny_rational_is_refuted_not_simplified_for_minutes():
    """simplify ran for minutes on log(alpha) - alpha^2/10^30 against the divergence."""
    for bound in ("log(alpha) - alpha**2/10**30", "log(alpha) - 10**-10*(alpha-1)**2"):
        assert check(RenyiGaussian(bound)).verdict is Verdict.REFUTED


@pytest.mark.parametrize("alphas", [(3, 2), (2, 3)])
def test_a_conversion_formula_undefined_at_an_order_is_bad_input_whatever_the_order(alphas):
    """0 log 0 at alpha = 2 is nan, which min() skipped unless it came first: the claim's
    epsilon depended on the order of the orders, and a false claim was certified."""
    formula = "rdp + log(1/delta)/(alpha - 1) + (alpha - 2)*log(alpha - 2)"
    with pytest.raises(InputError, match="epsilon = nan at alpha = 2"):
        check(RDPConversion(3, 10, 1e-5, alphas=alphas, formula=formula))


def test_a_conversion_formula_beyond_a_double_is_refuted():
    claim = RDPConversion(3, 10, 1e-5, formula="rdp - 10**400", alphas=(2, 3))
    assert check(claim).verdict is Verdict.REFUTED
