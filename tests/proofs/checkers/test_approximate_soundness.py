"""Soundness of the approximate-DP, composition, group-privacy, post-processing and estimator
checkers: mutants of every true entry of proofs.catalogue.approximate are never proved or certified
(each is refuted with a counterexample), and property tests (Hypothesis) on random finite
mechanisms."""

from fractions import Fraction

import numpy as np
import pytest
import sympy as sp
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from proofs import (
    D1,
    D2,
    DEL,
    E0,
    E1,
    E2,
    EPS,
    N1,
    AlphaCoinRR,
    ApproxDP,
    CalibrationMinimal,
    ChebyshevTail,
    ComposedDP,
    EstimateAt,
    FiniteMechanism,
    Gaussian,
    GaussianCalibration,
    GaussianCalibrationRegion,
    GaussianVector,
    GroupPrivacy,
    Inequality,
    InputError,
    K,
    KAryRR,
    Laplace,
    LinearEstimator,
    N,
    OneBitTelemetry,
    PerReportUnbiased,
    PostProcessing,
    PrivacyProfile,
    RDPComposition,
    RDPConversion,
    RenyiGaussian,
    SequentialComposition,
    T,
    Unbiased,
    Variance,
    Verdict,
    ZCDPConversion,
    chain_delta,
    check,
    classical_sigma,
    compose,
    compose_adaptive,
    drv_epsilon,
    finite_delta,
    finite_ratio,
    forced_response_estimator,
    notes_sigma,
    one_bit_term,
    post_process,
    rr_estimator,
    sym,
)
from proofs.catalogue.approximate import EXAMPLE_MECHANISMS as M
from proofs.catalogue.approximate import theorems
from proofs.formulas import phi
from proofs.symbols import DELTA, EPSILON, SENSITIVITY

R = sp.Rational
a, s_, D_ = sym("alpha"), sym("sigma"), sym("Delta")
b_ = sym("b")
d5 = R(1, 10**5)
DP = sp.Symbol("delta_prime", positive=True)  # advanced composition's extra delta
_D = sp.Symbol("d", integer=True, positive=True)  # a dimension: every d
rho, dl = sp.Symbol("rho", positive=True), sp.Symbol("delta", positive=True)
rdp = sp.Symbol("rdp", positive=True)
i_ = sp.Symbol("i", integer=True, nonnegative=True)
rr3, rr2, rr32 = M["rr3"], M["rr2"], M["rr3/2"]
asym, three, leaky = M["asymmetric"], M["three_rr"], M["leaky"]
BASIC = ((rr3, rr2), (rr2, rr32), (three, three), (asym, asym), (asym, rr3))
ADAPTIVE = ((rr3, {0: rr2, 1: rr32}), (asym, {"a": rr2, "b": rr3, "c": rr32}))
DELTA_PAIRS = ((leaky, rr2), (leaky, leaky))
DELTA_AT = ((sp.log(R(10, 9)), sp.log(2)), (sp.log(R(10, 9)), 0))
c5 = sp.sqrt(2 * sp.log(R(5, 4) / DELTA))

# At least two mutations per true entry of the approximate catalogue: a constant nudged the wrong
# way, a factor dropped, a bound tightened past the truth.
APPROXIMATE_MUTANTS = {
    "gaussian.analytic_balle_wang": [
        PrivacyProfile(
            formula=phi(D_ / s_ - EPSILON * s_ / D_)
            - sp.exp(EPSILON) * phi(-D_ / (2 * s_) - EPSILON * s_ / D_)
        ),
        PrivacyProfile(
            formula=phi(D_ / (2 * s_) - EPSILON * s_ / D_)
            - sp.exp(EPSILON / 2) * phi(-D_ / (2 * s_) - EPSILON * s_ / D_)
        ),
    ],
    "laplace.privacy_profile": [
        PrivacyProfile("laplace", 1 - sp.exp(EPSILON - D_ / b_)),
        PrivacyProfile("laplace", 1 - sp.exp((EPSILON - D_ / b_) / 3)),
    ],
    "gaussian.classical_calibration.eps_below_1": [
        GaussianCalibration(d5, 0, 1, sigma=c5 * SENSITIVITY / (4 * EPSILON)),
        GaussianCalibration(
            d5, 0, 1, sigma=sp.sqrt(sp.log(R(5, 4) / DELTA)) * SENSITIVITY / (2 * EPSILON)
        ),
    ],
    "gaussian.classical_calibration.eps_below_1.delta_1e-10": [
        GaussianCalibration(R(1, 10**10), 0, 1, sigma=c5 * SENSITIVITY / (4 * EPSILON)),
        GaussianCalibration(
            R(1, 10**10), 0, 1, sigma=sp.sqrt(sp.log(R(5, 4) / DELTA)) * SENSITIVITY / (2 * EPSILON)
        ),
    ],
    "gaussian.classical_calibration.eps_below_1.all_delta": [
        GaussianCalibrationRegion(R(1, 10**12), R(1, 2), sigma=classical_sigma() / 2),
        GaussianCalibrationRegion(
            R(1, 10**12),
            R(1, 2),
            sigma=sp.sqrt(sp.log(R(5, 4) / DELTA)) * SENSITIVITY / (2 * EPSILON),
        ),
    ],
    "gaussian.classical_calibration.eps_2": [
        GaussianCalibration(d5, 0, 2, sigma=c5 * SENSITIVITY / (2 * EPSILON)),
        GaussianCalibration(d5, 0, 9),
    ],
    # the vector Gaussian (any dimension d): half the noise, or twice the L2 move
    "gaussian.vector_l2.classical": [
        ApproxDP(GaussianVector(classical_sigma(R(1, 2), d5, 1) / 2, 1, _D), R(1, 2), d5),
        ApproxDP(GaussianVector(classical_sigma(R(1, 2), d5, 1), 2, 16), R(1, 2), d5),
    ],
    "gaussian.vector_l2.notes_sigma": [
        ApproxDP(GaussianVector(notes_sigma(R(1, 2), d5, 1) / 10, 1, _D), R(1, 2), d5),
        ApproxDP(GaussianVector(notes_sigma(R(1, 2), d5, 1), 10, 3), R(1, 2), d5),
    ],
    "gaussian.vector_l2.l1_calibration": [
        ApproxDP(GaussianVector(classical_sigma(R(1, 2), d5, 4) / 8, 1, 16), R(1, 2), d5),
        ApproxDP(GaussianVector(classical_sigma(R(1, 2), d5, 4), 8, 16), R(1, 2), d5),
    ],
    "gaussian.notes_calibration": [
        GaussianCalibration(d5, 0, 1, sigma=notes_sigma() / 10),
        GaussianCalibration(d5, 0, 1, sigma=notes_sigma() / (5 * sp.log(R(5, 4) / DELTA))),
    ],
    "gaussian.notes_calibration.all_delta": [
        GaussianCalibrationRegion(R(1, 10**12), R(99, 100), sigma=notes_sigma() / 10),
        GaussianCalibrationRegion(
            R(1, 10**12), R(99, 100), sigma=notes_sigma() / (5 * sp.log(R(5, 4) / DELTA))
        ),
    ],
    "gaussian.notes_calibration.actual": [
        ApproxDP(Gaussian(notes_sigma(R(1, 2), d5, 1), 1), R(628, 10**4), d5),
        ApproxDP(Gaussian(notes_sigma(R(1, 2), d5, 1), 1), R(629, 10**4), R(1, 10**6)),
    ],
    "gaussian.calibrator": [
        CalibrationMinimal(1, d5, R(373063, 10**5)),  # below the smallest sigma
        CalibrationMinimal(1, d5, R(37307, 10**4)),  # valid but not the smallest
    ],
    "laplace.approx_dp": [
        ApproxDP(Laplace(10, 1), R(1, 20), R(1, 50)),
        ApproxDP(Laplace(9, 1), R(1, 20), R(247, 10**4)),
    ],
    "finite.approx_dp.leaky": [
        ApproxDP(leaky, sp.log(R(10, 9)), R(9, 100)),
        ApproxDP(leaky, 0, R(1, 20)),
    ],
    "composition.basic": [
        SequentialComposition(BASIC, rule=E1 + E2 / 2),
        SequentialComposition(BASIC, rule=sp.Max(E1, E2)),
    ],
    "composition.basic_delta": [
        SequentialComposition(DELTA_PAIRS, at=DELTA_AT, delta_rule=(D1 + D2) / 2),
        SequentialComposition(DELTA_PAIRS, at=DELTA_AT, delta_rule=D1),
    ],
    "composition.adaptive": [
        SequentialComposition(ADAPTIVE, rule=E1 + E2 / 2),
        SequentialComposition(ADAPTIVE, rule=sp.Max(E1, E2)),
    ],
    "composition.advanced_drv": [
        ComposedDP(R(1, 10), 100, R(7, 10) * drv_epsilon(R(1, 10), 100, d5), d5),
        ComposedDP(R(1, 10), 100, drv_epsilon(R(1, 10), 100, d5), R(1, 10**9)),
    ],
    "composition.advanced_drv.k_1000": [
        ComposedDP(
            R(1, 10), 1000, R(7, 10) * drv_epsilon(R(1, 10), 1000, R(1, 10**6)), R(1, 10**6)
        ),
        ComposedDP(R(1, 10), 1000, drv_epsilon(R(1, 10), 1000, R(1, 10**6)), R(1, 10**13)),
    ],
    "composition.advanced_drv.symbolic": [
        ComposedDP(EPS, K, R(7, 10) * drv_epsilon(EPS, K, DP), K * DEL + DP, DEL),
        ComposedDP(EPS, K, drv_epsilon(EPS, K, DP), DP, DEL),
    ],
    "composition.kov_optimal": [
        ComposedDP(R(1, 10), 100, R(21, 5), d5),
        ComposedDP(R(1, 10), 100, R(22, 5), R(5, 10**6)),
    ],
    "composition.gaussian_exact": [
        ApproxDP(Gaussian(3 / sp.sqrt(10), 1), R(46529, 10**4), d5),
        ApproxDP(Gaussian(3 / sp.sqrt(11), 1), R(46530, 10**4), d5),
    ],
    "rdp.gaussian": [RenyiGaussian(a * D_**2 / (3 * s_**2)), RenyiGaussian(D_**2 / (2 * s_**2))],
    "rdp.gaussian_conversion": [
        RDPConversion(3, 10, d5, formula=rdp + sp.log(1 / dl) / (4 * (a - 1))),
        RDPConversion(3, 10, d5, formula=rdp / 2 + sp.log(1 / dl) / (a - 1)),
    ],
    "rdp.improved_conversion": [
        RDPComposition(((Gaussian(3, 1), 10),), R(46, 10), d5),
        RDPComposition(((Gaussian(R(27, 10), 1), 10),), R(50240, 10**4), d5),
    ],
    "rdp.mixed_composition": [
        RDPComposition(
            ((Laplace(10, 1), 5), (KAryRR(1, 4), 3), (Gaussian(5, 1), 10)), 2, R(1, 10**6)
        ),
        RDPComposition(
            ((Laplace(10, 1), 5), (KAryRR(1, 4), 3), (Gaussian(1, 1), 10)), 6, R(1, 10**6)
        ),
    ],
    "zcdp.gaussian": [
        RenyiGaussian(D_**2 / (4 * s_**2), per_alpha=True),
        RenyiGaussian(D_**2 / (3 * s_**2), per_alpha=True),
    ],
    "zcdp.conversion": [
        ZCDPConversion(3, 10, d5, formula=rho + R(3, 2) * sp.sqrt(rho * sp.log(1 / dl))),
        ZCDPConversion(3, 10, d5, formula=2 * sp.sqrt(rho * sp.log(1 / dl)) - rho),
    ],
    "group.pure": [
        GroupPrivacy((K - R(1, 2)) * EPS, pure=True),
        GroupPrivacy(K * EPS / 2, pure=True),
    ],
    "group.chain_delta": [
        GroupPrivacy(K * EPS, DEL * sp.Sum(sp.exp(i_ * EPS), (i_, 0, K - 2))),
        GroupPrivacy(K * EPS, chain_delta() / 2),
    ],
    "group.standard_delta": [
        GroupPrivacy(K * EPS, K * sp.exp((K - 2) * EPS) * DEL),
        GroupPrivacy(K * EPS, (K - 1) * sp.exp((K - 1) * EPS) * DEL),
    ],
    "group.notes_stated": [
        GroupPrivacy(K * EPS, K * sp.exp(K * EPS) * DEL / 4),
        GroupPrivacy((K - R(1, 2)) * EPS, K * sp.exp(K * EPS) * DEL),
    ],
    "postprocessing.finite": [
        PostProcessing(
            ((rr3, {0: 1, 1: 0}), (asym, {"a": "ab", "b": "ab", "c": "c"})), rule=E0 / 2
        ),
        PostProcessing(((three, {"a": "a", "b": "bc", "c": "bc"}),), rule=E0 - R(1, 10)),
    ],
    "estimator.rr.unbiased": [
        Unbiased(LinearEstimator(AlphaCoinRR(a), 1 / (a * N), -(1 - a) / a, N1 / N)),
        Unbiased(LinearEstimator(AlphaCoinRR(a), 1 / (2 * a * N), -(1 - a) / (2 * a), N1 / N)),
    ],
    "estimator.rr.variance_exact": [
        Variance(rr_estimator(), (1 - a**2) / (2 * a**2 * N), "=="),
        Variance(rr_estimator(), (1 - a) / (4 * a**2 * N), "=="),
    ],
    "estimator.rr.variance_quarter": [
        Variance(rr_estimator(), 1 / (8 * a**2 * N)),
        Variance(rr_estimator(), 1 / (4 * a * N)),
    ],
    "estimator.rr.variance_notes": [
        Variance(rr_estimator(), 1 / (5 * a**2 * N)),
        Variance(rr_estimator(), 1 / (a * N)),
    ],
    "estimator.rr.notes_example": [
        EstimateAt(rr_estimator(sp.Rational(1, 2)), [0] * 9 + [1] * 9, sp.Rational(5, 9)),
        EstimateAt(rr_estimator(sp.Rational(1, 2)), [0] * 8 + [1] * 10, sp.Rational(1, 2)),
    ],
    "estimator.rr.chebyshev": [
        ChebyshevTail(rr_estimator(), 1 / (40 * a**2 * N * T**2)),
        ChebyshevTail(rr_estimator(), 1 / (4 * a**2 * N * T**2) / 20),
    ],
    "estimator.forced_response": [
        Unbiased(forced_response_estimator(2, -N / 4)),
        Unbiased(forced_response_estimator(3, -N / 2)),
    ],
    "estimator.forced_response.variance": [
        Variance(forced_response_estimator(), N / 4, "=="),
        Variance(forced_response_estimator(), 3 * N / 8, "=="),
    ],
    "estimator.one_bit": [
        PerReportUnbiased(
            OneBitTelemetry(),
            sym("m")
            * (sp.Symbol("b", integer=True, nonnegative=True) * (sp.exp(EPSILON) + 1) - 1)
            / sp.exp(EPSILON),
        ),
        PerReportUnbiased(OneBitTelemetry(), one_bit_term(), sp.Symbol("x", nonnegative=True) / 2),
    ],
}
CASES = [
    (entry, i, claim)
    for entry, claims in APPROXIMATE_MUTANTS.items()
    for i, claim in enumerate(claims)
]


@pytest.mark.parametrize("entry,index,claim", CASES, ids=[f"{e}[{i}]" for e, i, _ in CASES])
def test_approximate_catalogue_mutants_are_refuted(entry, index, claim):
    result = check(claim)
    assert not result.verdict.holds, result.summary()
    assert result.verdict is Verdict.REFUTED, result.summary()
    assert result.counterexample is not None


def test_every_true_approximate_catalogue_entry_has_mutants():
    true_ids = {t.id for t in theorems() if t.expect == "holds"}
    assert true_ids <= set(APPROXIMATE_MUTANTS), sorted(true_ids - set(APPROXIMATE_MUTANTS))
    assert all(len(APPROXIMATE_MUTANTS[i]) >= 2 for i in true_ids)


# --- Hypothesis: post-processing and composition on random finite mechanisms ---------------

SETTINGS = settings(
    max_examples=40, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)


@st.composite
def finite_mechanisms(draw, inputs=(0, 1), max_outputs=4):
    """Random rational pmfs with full support (so every exact epsilon is finite)."""
    k = draw(st.integers(2, max_outputs))
    pmf = {}
    for x in inputs:
        weights = draw(st.lists(st.integers(1, 9), min_size=k, max_size=k))
        total = sum(weights)
        pmf[x] = {y: R(w, total) for y, w in enumerate(weights)}
    return FiniteMechanism(pmf)


@st.composite
def maps(draw, outputs):
    """A deterministic or randomised post-processing map on `outputs`."""
    targets = ["u", "v", "w"]
    if draw(st.booleans()):
        return {y: draw(st.sampled_from(targets)) for y in outputs}
    out = {}
    for y in outputs:
        weights = draw(st.lists(st.integers(0, 5), min_size=3, max_size=3).filter(any))
        out[y] = {t: R(w, sum(weights)) for t, w in zip(targets, weights)}
    return out


@SETTINGS
@given(data=st.data())
def test_post_processing_never_increases_epsilon_or_delta(data):
    mech = data.draw(finite_mechanisms())
    f = data.draw(maps(list(mech.pmf[0])))
    post = post_process(mech, f)
    assert finite_ratio(post)[0] <= finite_ratio(mech)[0]
    for e in (0, sp.log(R(3, 2)), sp.log(3)):
        assert finite_delta(post, e)[0] <= finite_delta(mech, e)[0]
    assert check(PostProcessing(((mech, f),), at=(sp.log(2),))).verdict is Verdict.PROVED


@SETTINGS
@given(
    m1=finite_mechanisms(), m2=finite_mechanisms(max_outputs=3), m3=finite_mechanisms(max_outputs=3)
)
def test_composition_epsilon_is_at_most_the_sum_and_at_least_the_max(m1, m2, m3):
    r1, r2, r3 = (finite_ratio(m)[0] for m in (m1, m2, m3))
    rc = finite_ratio(compose(m1, m2))[0]
    assert max(r1, r2) <= rc <= r1 * r2
    ra = finite_ratio(compose_adaptive(m1, {y: (m2 if y % 2 else m3) for y in m1.pmf[0]}))[0]
    assert ra <= r1 * max(r2, r3)
    # composition is monotone: adding a third mechanism never lowers the epsilon
    assert finite_ratio(compose(m1, m2, m3))[0] >= rc


@SETTINGS
@given(mech=finite_mechanisms(), e=st.fractions(min_value=1, max_value=4, max_denominator=10))
def test_approx_dp_on_finite_mechanisms_matches_brute_force_over_events(mech, e):
    import itertools

    factor = R(e.numerator, e.denominator)
    outputs = list(mech.pmf[0])
    brute = max(
        sum(mech.pmf[x][y] for y in S) - factor * sum(mech.pmf[xp][y] for y in S)
        for x, xp in ((0, 1), (1, 0))
        for r in range(len(outputs) + 1)
        for S in itertools.combinations(outputs, r)
    )
    assert finite_delta(mech, sp.log(factor))[0] == brute
    claim = ApproxDP(mech, sp.log(factor), brute)
    assert check(claim).verdict is Verdict.PROVED
    if brute > 0:
        assert check(ApproxDP(mech, sp.log(factor), brute * R(99, 100))).verdict is Verdict.REFUTED


def test_single_group_size_follows_from_the_chain_bound():
    assert (
        check(GroupPrivacy(K * EPS, K * sp.exp((K - 1) * EPS) * DEL, k=3)).verdict is Verdict.PROVED
    )
    wrong = check(GroupPrivacy(K * EPS, K * DEL, k=3))
    assert wrong.verdict is Verdict.REFUTED and "z0" in wrong.counterexample.inputs


def test_a_large_single_group_size_is_proved_through_the_claim_for_every_k():
    """At k = 1000 the chain bound's sum of 1000 powers of e^eps took z3 40 s and ended
    unknown; the same formulas hold for every k, and the induction proves that at once."""
    found = check(GroupPrivacy(K * EPS, K * sp.exp((K - 1) * EPS) * DEL, k=1000))
    assert found.verdict is Verdict.PROVED and "every k" in found.method


def test_a_claim_true_at_its_own_group_size_only_falls_back_to_the_chain_bound():
    """k e^(2 eps) delta is the standard delta at k = 3 only (too small from k = 4): not
    proved for every k, so judged at k alone, and refuted one size up."""
    at_3 = check(GroupPrivacy(K * EPS, K * sp.exp(2 * EPS) * DEL, k=3))
    assert at_3.verdict is Verdict.PROVED and "chain bound" in at_3.method
    assert any("not proved for every k" in s for s in at_3.steps)
    assert check(GroupPrivacy(K * EPS, K * sp.exp(2 * EPS) * DEL, k=4)).verdict is Verdict.REFUTED


@pytest.mark.parametrize(
    "target, verdict, at",
    [
        ("x**2", Verdict.PROVED, None),  # x^2 = x on bits: a true claim, not refuted at x = 1/2
        ("x*(2 - x)", Verdict.PROVED, None),
        ("x", Verdict.PROVED, None),
        ("x*(1 - x)", Verdict.REFUTED, "1"),  # E = 1 at x = 1, the target 0
        ("1 - x", Verdict.REFUTED, "0"),
    ],
)
def test_forced_response_terms_are_judged_on_its_bit_inputs(target, verdict, at):
    from proofs import ForcedResponse
    from proofs.symbols import REPORT_BIT

    # fair coins: P[b = 1 | x] = x/2 + 1/4, so E[2b - 1/2] = x, which is x^2 on {0, 1}
    result = check(PerReportUnbiased(ForcedResponse(), 2 * REPORT_BIT - R(1, 2), target=target))
    assert result.verdict is verdict
    if at is not None:
        assert result.counterexample.parameters == {"x": at}
    assert "{0, 1}" in result.statement


@pytest.mark.parametrize("formula", ["sqrt(rdp - 100)", "log(rdp - 100)"])
def test_an_rdp_conversion_formula_that_is_not_real_is_bad_input(formula):
    from proofs import InputError

    with pytest.raises(InputError, match="not a real number") as info:
        check(RDPConversion(3, 10, R(1, 10**5), formula=formula))
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(
    "sigma, delta_min, eps_min", [(10, 0.01, 0), (3, 0.05, 0), (10, 0.045, 0), (3, 0.2, 0.1)]
)
def test_a_constant_sigma_region_is_refuted_exactly_where_it_fails(sigma, delta_min, eps_min):
    """A fixed sigma over a region of (eps, delta): false when delta(eps_min; sigma) exceeds
    delta_min (delta(eps) falls with eps), as SciPy computes it; a false one was `unknown`
    (the depth-first search spent its boxes on the boundary). A witness must lie inside."""
    from scipy.stats import norm

    from proofs.results import Verdict

    mu = 1 / sigma
    true_delta = lambda e: norm.cdf(mu / 2 - e / mu) - np.exp(e) * norm.cdf(-mu / 2 - e / mu)
    claim = GaussianCalibrationRegion(delta_min, 0.9, eps_min, 1, sigma=sigma * SENSITIVITY)
    found = check(claim)
    if true_delta(eps_min) <= delta_min:
        assert found.verdict is Verdict.CERTIFIED, found.reason
        return
    assert found.verdict is Verdict.REFUTED, found.reason
    e = float(sp.Rational(found.counterexample.parameters["epsilon"].split()[0]))
    d = float(found.counterexample.parameters["delta"].split("[")[1].split(",")[0])  # (lower)
    assert eps_min <= e <= 1 and delta_min <= d <= 0.9
    assert true_delta(e) > d


def _rows(*rows, neighbours=None):
    return FiniteMechanism(
        {x: {"a": R(p), "b": 1 - R(p)} for x, p in enumerate(rows)}, neighbours=neighbours
    )


def test_an_instance_on_two_neighbour_relations_is_bad_input_not_a_refutation():
    """M1 on every pair, M2 on (0, 1) only: M2's epsilon on its own pair is 0, the joint
    table's on M1's pairs is M2's leak on (0, 2) too, and basic composition (true) was
    refuted by that mismatch. One relation for every part, or bad input."""
    m1 = _rows("1/2", "1/2", "1/2")
    m2 = _rows("1/2", "1/2", "9/10", neighbours=((0, 1),))
    for instance in ((m1, m2), (m1, {"a": m2, "b": m1})):
        with pytest.raises(InputError, match="different neighbours"):
            check(SequentialComposition((instance,)))
    with pytest.raises(InputError, match="different neighbours"):
        RDPComposition([m1, m2], 1, R(1, 10**6))
    with pytest.raises(InputError, match="different neighbours"):
        compose(m2, m1)


@pytest.mark.parametrize("second", ["nope", {"a": {0: {"a": 1}}, "b": "m"}])
def test_an_instance_that_is_not_a_table_is_bad_input(second):
    with pytest.raises(InputError, match=r"instances\[0\]: M2=.* is not a FiniteMechanism"):
        SequentialComposition(((_rows("1/2", "1/4"), second),))


def test_a_gaussian_profile_beyond_a_doubles_range_is_shown_and_decided_without_error():
    """delta(800) of N(0, 1) is about 1.7e-138807: it was shown as [0, 0] (doubles), and at
    epsilon = 1e300 printing the undecided comparison evaluated erfc(1e300) and crashed."""
    found = check(ApproxDP(Gaussian(1, 1), 800, 0))
    assert found.verdict is Verdict.REFUTED
    assert "e-138807" in found.reason and "[0, 0]" not in found.reason
    huge = check(ApproxDP(Gaussian(1, 1), 1e300, 0))
    assert huge.verdict in (Verdict.REFUTED, Verdict.UNKNOWN)


@pytest.mark.parametrize("epsilon", [1e4, 1e6, 3e7])
def test_a_gaussian_is_not_pure_dp_at_any_large_epsilon(epsilon):
    """delta(1e6) of N(0, 1) is about 1e-217147023817 > 0: arb's erfc of a ball around 7e5
    came out as [+/- 3.6e-217147022368] (its own error propagation) and the claim stayed
    unknown; monotone functions are now evaluated at the ball's two endpoints."""
    found = check(ApproxDP(Gaussian(1, 1), epsilon, 0))
    assert found.verdict is Verdict.REFUTED, found.reason
    assert "+/-" not in found.reason.splitlines()[0]


@pytest.mark.parametrize(
    "make, needle",
    [
        # the term read the private input: "E[x] = x" was proved
        (lambda fr: PerReportUnbiased(fr(), sp.Symbol("x", nonnegative=True)), "uses x"),
        (lambda fr: PerReportUnbiased(OneBitTelemetry(), "x"), "uses x"),
        # names of parameters that are numbers here: fresh symbols, refuted at other values
        (lambda fr: PerReportUnbiased(fr(), "(b - (1-p_truth)*p_yes)/p_truth"), "uses p_truth"),
        # coefficients that use the unknown count: proved unbiased with variance 0
        (lambda fr: LinearEstimator(AlphaCoinRR(), 0, "n_1/n", "n_1/n"), "intercept=n_1/n"),
        (lambda fr: LinearEstimator(AlphaCoinRR(), "n_1", 0, "n_1"), "slope=n_1 uses n_1"),
    ],
)
def test_an_estimator_that_reads_what_it_estimates_is_bad_input(make, needle):
    from proofs import ForcedResponse

    with pytest.raises(InputError, match=needle):
        make(ForcedResponse)
    # the same in terms of the report alone is welcome
    assert PerReportUnbiased(ForcedResponse(), "2*b - 1/2").target is not None


@pytest.mark.parametrize(
    "args",
    [
        dict(eps_k="99.99*epsilon", pure=True, k=100),  # beyond the chains built (64)
        dict(eps_k="100*epsilon", delta_k="99*delta", k=100),  # delta 1/100 is too large there
        dict(eps_k="Min(k, 50)*epsilon", pure=True),  # false only from k = 51
        dict(eps_k="k*epsilon", delta_k="Min(k, 6)*exp((k-1)*epsilon)*delta"),  # from k = 7
    ],
)
def test_group_privacy_false_only_for_large_groups_is_refuted(args):
    """Each was unknown: no chain mechanism longer than 64 was built, the fixed deltas do not
    fit a long chain (delta sum_{i<k} e^{i eps} <= 1), and every-k claims were tried at
    k <= 4 only."""
    found = check(GroupPrivacy(**args))
    assert found.verdict is Verdict.REFUTED, found.summary()
    assert "re-checked" in found.method
    true = GroupPrivacy("k*epsilon", "k*exp((k-1)*epsilon)*delta")
    assert check(true).verdict is Verdict.PROVED


def test_group_privacy_with_room_in_epsilon_is_proved_at_k_epsilon_then_weakened():
    """(k eps + 1, the chain's delta) is true (more epsilon than the chain bound needs) but was
    unknown: its induction step multiplied delta by e^(k eps + 1). The induction at k eps, then
    eps_k >= k eps, proves it; the same with eps_k below k eps stays refuted."""
    assert check(GroupPrivacy("k*epsilon + 1", chain_delta())).verdict is Verdict.PROVED
    assert check(GroupPrivacy("k*epsilon + 1", "k*exp((k-1)*epsilon)*delta")).verdict is (
        Verdict.PROVED
    )
    for false in (
        GroupPrivacy("k*epsilon - 1/100", chain_delta()),
        GroupPrivacy("k*epsilon + 1", "(k-1)*delta"),
        GroupPrivacy("k*epsilon - 1/100", pure=True),
    ):
        assert check(false).verdict is Verdict.REFUTED, false


def test_the_rdp_conversions_minimum_is_exact_when_orders_tie_as_doubles():
    """40 and 40 + 1e-15 are one double: the minimum was picked by floats, the larger value
    when listed first, and a claim false at the true minimum (delta just below delta(40)) was
    certified at 40 + 1e-15; listed the other way it was refuted."""
    import mpmath as mp

    from proofs import RDPConversion

    mp.mp.dps = 80
    phi = lambda x: mp.erfc(-x / mp.sqrt(2)) / 2
    e = mp.mpf(40) + mp.mpf("0.5e-15")  # between the two values: delta(40) > this > delta(40+)
    between = phi(0.5 - e) - mp.e**e * phi(-0.5 - e)
    mant, exp2 = mp.frexp(between)
    delta = Fraction(int(mp.nint(mant * 2**200))) * Fraction(2) ** (int(exp2) - 200)
    for alphas in ((3, 2), (2, 3)):
        claim = RDPConversion(1, 1, delta, alphas=alphas, formula="40 + (alpha - 2)/10^15")
        assert check(claim).verdict is Verdict.REFUTED, alphas
    # a true claim at that delta (the minimum 40 + 1e-15 at both orders) stays certified
    true = RDPConversion(1, 1, delta, alphas=(3, 2), formula="40 + 1/10^15")
    assert check(true).verdict in (Verdict.PROVED, Verdict.CERTIFIED)


def test_exact_values_too_long_to_print_are_shown_as_certified_decimals():
    """1 - (1 - 1e-10)^500 is a rational of about 5,000 digits: printing it raised Python's
    limit on digits and the true claim was an internal error."""
    found = check(ComposedDP(0.1, 500, 50, "1e-3", "1e-10"))
    assert found.verdict is Verdict.PROVED
    assert "about 5001 digits" in found.reason and len(found.reason) < 2_000
    assert check(ComposedDP(0.1, 2000, 200, "1e-3", "1e-10")).verdict is Verdict.PROVED


def test_a_calibration_region_reaching_below_a_doubles_range_is_decided():
    """ln(1/delta) of delta_min = 1e-400 was taken from a double (0: math domain error)."""
    found = check(GaussianCalibrationRegion("1e-400", "1e-300", 0.5, 1))
    assert found.verdict is Verdict.CERTIFIED, found.reason
    assert "921.03" in found.reason


@pytest.mark.parametrize("k", ["k/2", "k - 1", "k**2 - 1", "k/3 + 1", "1 - k"])
def test_a_composition_count_must_be_a_count_for_every_k(k):
    """ "k/2" (not a count at odd k) and "k - 1" (0 at k = 1) were accepted and proved."""
    with pytest.raises(InputError, match="a count in it"):
        ComposedDP("epsilon", k, "k*epsilon", "k*delta", "delta")


@pytest.mark.parametrize("k", ["k", "2*k", "k + 1", "k**2"])
def test_counts_in_k_are_composed(k):
    claim = ComposedDP("epsilon", k, f"({k})*epsilon", f"({k})*delta", "delta")
    assert check(claim).verdict is Verdict.PROVED
    below = ComposedDP("epsilon", k, f"({k})*epsilon*99/100", f"({k})*delta", "delta")
    assert check(below).verdict is Verdict.REFUTED


def test_an_estimator_written_with_fixed_or_foreign_names_is_bad_input():
    """ForcedResponse() fixes p_truth and p_yes: those names became free symbols, and the
    estimator was refuted "at p_truth=1/2, p_yes=1/4"."""
    from proofs import ForcedResponse

    with pytest.raises(InputError, match="uses p_truth"):
        LinearEstimator(ForcedResponse(), "1/p_truth", "-n*(1-p_truth)*p_yes/p_truth", "n_1")
    with pytest.raises(InputError, match=r"target=.* uses t"):
        LinearEstimator(AlphaCoinRR(), 1, 0, "n_1 + t")


_t = sp.Symbol("t", real=True)
_u = sp.Symbol("u", negative=True)


@pytest.mark.parametrize(
    "claim",
    [
        # "every 1-DP mechanism is (1 + t)-DP for every real t": false at t = -1/2
        ComposedDP(1, 1, 1 + _t, 0, 0),
        # a negative slack: the checker's own t >= 0 made the domain empty and the proof vacuous
        ComposedDP("epsilon", "k", sp.Symbol("k") * sp.Symbol("epsilon") + _u, "k*delta", "delta"),
        ComposedDP("epsilon", 1, "epsilon", sp.Symbol("delta") + _u, "delta"),
    ],
)
def test_a_composition_symbol_ranges_as_its_assumptions_allow(claim):
    """Every free symbol was taken to be >= 0, whatever its assumptions: these were proved."""
    found = check(claim)
    assert found.verdict is Verdict.REFUTED, found.summary()


def test_one_name_is_one_quantity_in_a_composition():
    """``Symbol("epsilon")`` and the text "epsilon" stayed two variables: k-fold composition
    of (eps, delta) being (k eps, k delta) was refuted at a point printed with one epsilon."""
    e = sp.Symbol("epsilon")
    assert check(ComposedDP(e, "k", "k*epsilon", "k*delta", "delta")).verdict is Verdict.PROVED
    k = sp.Symbol("k")
    assert check(ComposedDP("epsilon", "k", k * e, "k*delta", "delta")).verdict is Verdict.PROVED
    below = ComposedDP(e, "k", "k*epsilon*99/100", "k*delta", "delta")
    assert check(below).verdict is Verdict.REFUTED


@pytest.mark.parametrize("x", [sp.Symbol("x"), sp.Symbol("x", real=True)])
def test_a_range_outside_z3_does_not_fail_every_obligation(x):
    """sqrt(x) >= 0, the range of epsilon = sqrt(x), is outside z3's fragment: it made the
    delta obligation, which has no x, unknown too, and a true claim was no longer proved."""
    b = sp.Symbol("b", positive=True)
    for e in (sp.sqrt(x), sp.log(1 + x)):
        total = sp.Symbol("k") * sp.Symbol("delta") + b
        found = check(ComposedDP(e, "k", sp.Symbol("k") * e, total, "delta"))
        assert found.verdict is Verdict.PROVED, found.summary()


IMPROVED = "rdp + log((alpha - 1)/alpha) - (log(delta) + log(alpha))/(alpha - 1)"


@pytest.mark.parametrize(
    "shift, verdict",
    [(0, Verdict.CERTIFIED), (-1, Verdict.REFUTED), (R(-1, 10**3), Verdict.REFUTED)],
)
def test_a_conversion_to_a_negative_epsilon_is_judged_at_it(shift, verdict):
    """sigma = 100 at delta = 1/2: the improved conversion gives eps = 1/10^4 - ln 2 < 0, a
    claim stronger than eps = 0 (P[S] <= e^eps P'[S] + delta for every S, the whole space
    too: delta >= 1 - e^eps). It was an input error; it is judged against the exact
    Gaussian delta(eps), which the hockey-stick formula gives for every real eps: 0.49995
    (scipy), just under 1/2, so the claim holds; at eps - 1 and eps - 1/1000 the exact delta
    exceeds 1/2, and the claim is refuted."""
    import math

    from scipy import stats

    claim = RDPConversion(100, 1, R(1, 2), formula=f"{IMPROVED} + ({shift})")
    eps, mu = float(claim.epsilon()), 0.01
    exact = stats.norm.cdf(mu / 2 - eps / mu) - math.exp(eps) * stats.norm.cdf(-mu / 2 - eps / mu)
    assert eps < 0 and (exact <= 0.5) == (verdict is Verdict.CERTIFIED)
    assert check(claim).verdict is verdict


def test_the_optimal_delta_of_two_compositions_is_proved_and_nothing_below_it():
    """delta1 + delta2 - delta1 delta2 (1 - (1 - delta1)(1 - delta2)) is the optimal
    composition's delta at eps1 + eps2; it used to be only "checked" (dominance was against
    delta1 + delta2). Rules a little below it are refuted by a canonical instance."""
    product = SequentialComposition(DELTA_PAIRS, at=DELTA_AT, delta_rule=D1 + D2 - D1 * D2)
    assert check(product).verdict is Verdict.PROVED
    for below in (
        D1 + D2 - 2 * D1 * D2,
        D1 + D2 - D1 * D2 * R(101, 100),
        D1 + D2 - D1 * D2 - D1 / 1000,
        (D1 + D2 - D1 * D2) * R(999, 1000),
    ):
        found = check(SequentialComposition(DELTA_PAIRS, at=DELTA_AT, delta_rule=below))
        assert found.verdict is Verdict.REFUTED, (below, found.summary())


def _delta(p: list, q: list, ratio: Fraction) -> Fraction:
    return sum((max(Fraction(0), a - ratio * b) for a, b in zip(p, q)), Fraction(0))


_pmf = st.lists(st.integers(0, 6), min_size=3, max_size=3).filter(any)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    m1=st.tuples(_pmf, _pmf),
    m2=st.lists(st.tuples(_pmf, _pmf), min_size=3, max_size=3),
    r1=st.sampled_from([Fraction(1), Fraction(3, 2), Fraction(2)]),
    r2=st.sampled_from([Fraction(1), Fraction(5, 4), Fraction(3)]),
)
def test_adaptive_composition_stays_within_the_optimal_delta(m1, m2, r1, r2):
    """The theorem itself, by brute force in exact fractions (independent of the checker):
    M1 on inputs 0, 1 and, for each of its outputs y, a mechanism M2(., y); delta_i is the
    worst delta of M_i at e^eps_i = r_i (over y for M2), and the adaptive composition's delta
    at e^(eps1 + eps2) = r1 r2 is at most 1 - (1 - delta1)(1 - delta2)."""
    norm = lambda w: [Fraction(v, sum(w)) for v in w]
    a1 = [norm(w) for w in m1]
    a2 = [[norm(w) for w in rows] for rows in m2]
    d1 = max(_delta(a1[x], a1[1 - x], r1) for x in (0, 1))
    d2 = max(_delta(rows[x], rows[1 - x], r2) for rows in a2 for x in (0, 1))
    joint = [[a1[x][y] * a2[y][x][z] for y in range(3) for z in range(3)] for x in (0, 1)]
    composed = max(_delta(joint[x], joint[1 - x], r1 * r2) for x in (0, 1))
    assert composed <= d1 + d2 - d1 * d2


def test_a_logarithm_under_a_kink_is_not_expanded_by_force():
    """|log(y^2) - 2 log(y)| is 2 pi at y < 0 (real everywhere), and forced log expansion made
    it 0: k eps - |...| was 'proved' an epsilon_total by basic composition, equal to k eps.
    Forced expansion moves a logarithm by 2 pi i, which only a linear combination keeps
    imaginary; the claim is now refuted at y = -1."""
    from proofs.decide import algebraically_equal

    y = sp.Symbol("y", real=True)
    kink = sp.Abs(sp.log(y**2) - 2 * sp.log(y))
    assert not algebraically_equal(kink, 0)
    found = check(ComposedDP(EPS, K, K * EPS - kink, K * DEL, DEL))
    assert found.verdict is Verdict.REFUTED, found.summary()


def test_a_claimed_sigma_is_not_changed_by_forced_log_expansion():
    """sigma = Delta (1 + 2 pi - |log((eps-2)^2) - 2 log(eps-2)|) is Delta for eps < 2 (its
    delta at eps 1/2 is 0.238), and forced expansion read it as Delta (1 + 2 pi): the claim
    that it gives delta <= 1/10 on eps in [1/2, 1] was certified."""
    from proofs.symbols import EPSILON as e
    from proofs.symbols import SENSITIVITY

    sigma = SENSITIVITY * (1 + 2 * sp.pi - sp.Abs(sp.log((e - 2) ** 2) - 2 * sp.log(e - 2)))
    claim = GaussianCalibrationRegion(
        delta_min=R(1, 100), delta_max=R(1, 10), eps_min=R(1, 2), eps_max=1, sigma=sigma
    )
    assert not check(claim).verdict.holds


def test_a_group_delta_that_divides_by_zero_at_epsilon_zero_says_it_is_read_as_a_limit():
    """delta (e^{k eps} - 1)/(e^eps - 1) is the chain's delta for eps > 0 and 0/0 at eps = 0:
    proved, and the method says that at eps = 0 it stands for its limit (k delta)."""
    geometric = "delta*(exp(k*epsilon) - 1)/(exp(epsilon) - 1)"
    found = check(GroupPrivacy("k*epsilon", geometric))
    assert found.verdict is Verdict.PROVED
    assert "at eps = 0 delta_k divides by zero" in found.method
    standard = check(GroupPrivacy("k*epsilon", "k*exp((k-1)*epsilon)*delta"))
    assert standard.verdict is Verdict.PROVED and "divides by zero" not in standard.method
    smaller = check(GroupPrivacy("k*epsilon", f"{geometric} - delta/1000"))
    assert smaller.verdict is Verdict.REFUTED


@pytest.mark.parametrize(
    "args",
    [
        dict(eps_k="999.9*epsilon", pure=True, k=1000),
        dict(eps_k="k*epsilon", delta_k="(k-1)*exp((k-1)*epsilon)*delta", k=300),
    ],
)
def test_group_privacy_false_at_a_group_size_beyond_256_is_refuted_in_short_text(args):
    """Chains longer than 256 were not built (unknown). They are now checked in exact
    rationals in k steps; (k-1) e^((k-1) eps) delta needs e^eps = 1 + 1/k^2 to fail, and the
    chain's rationals of thousands of digits are shown as certified decimals."""
    found = check(GroupPrivacy(**args))
    assert found.verdict is Verdict.REFUTED, found.summary()
    assert len(found.summary()) < 6000
    fine = dict(args, eps_k="k*epsilon", delta_k="k*exp((k-1)*epsilon)*delta")
    assert check(GroupPrivacy(**fine)).verdict is Verdict.PROVED


def test_the_chain_delta_in_rationals_matches_the_general_finite_delta():
    """The chain's own exact delta (two outputs, both orders) against finite_delta's."""
    from fractions import Fraction

    from proofs.checkers.group import _chain_delta, _chain_probs, chain_mechanism
    from proofs.finite import finite_delta

    for k, E, d, a in [
        (3, R(3, 2), R(1, 100), R(1, 10)),
        (5, R(11, 10), R(0), R(1, 7)),
        (4, R(2), R(1, 50), R(1, 40)),
        (6, R(2), R(1, 200), R(0)),
    ]:
        exact = finite_delta(chain_mechanism(k, E, d, a), sp.log(E))[0]
        probs = _chain_probs(
            k,
            Fraction(int(E.p), int(E.q)),
            Fraction(int(d.p), int(d.q)),
            Fraction(int(a.p), int(a.q)),
        )
        assert sp.Rational(_chain_delta(probs, Fraction(int(E.p), int(E.q)))) == max(exact, 0)


def test_a_tiny_epsilon_composition_names_the_leak_event_and_its_exact_delta_is_proved():
    """At eps = 1e-20 the KOV boundary c = (k - eps_total/eps)/2 is about -5e19: the event was
    named as if every term were positive ("or ... at most 8 of them differ", worth -1.7),
    and the exactly true claim was unknown."""
    false = check(ComposedDP("1e-20", 10, 1, "1e-6", "1e-6"))
    assert false.verdict is Verdict.REFUTED
    assert "differ" not in str(false.counterexample.output)
    exact = check(ComposedDP("1e-20", 10, 1, "1-(1-1e-6)**10", "1e-6"))
    assert exact.verdict is Verdict.PROVED


def test_symbolic_composition_claims_near_the_edges_of_the_grid():
    """(k eps, 1 - (1 - delta)^k) is KOV's exact delta at eps_total = k eps (was unknown);
    advanced composition without its sqrt(2) fails only at a small delta' (10^-10), and a
    total of (k - 1) eps on 10^4 parts only at a large eps (10): both were unknown."""
    kov = ComposedDP("epsilon", "k", "k*epsilon", "1-(1-delta)**k", "delta")
    assert check(kov).verdict is Verdict.PROVED
    less = ComposedDP("epsilon", "k", "k*epsilon", "1-(1-delta)**k - delta**2/1000", "delta")
    assert check(less).verdict is Verdict.REFUTED
    drv = "sqrt({c}k*log(1/delta_p))*epsilon + k*epsilon*(exp(epsilon)-1)"
    assert (
        check(ComposedDP("epsilon", "k", drv.format(c="2*"), "k*delta + delta_p", "delta")).verdict
        is Verdict.PROVED
    )
    assert (
        check(ComposedDP("epsilon", "k", drv.format(c=""), "k*delta + delta_p", "delta")).verdict
        is Verdict.REFUTED
    )
    found = check(ComposedDP("epsilon", 10000, "9999*epsilon", "10000*delta", "delta"))
    assert found.verdict is Verdict.REFUTED


def test_a_symbol_named_like_a_field_keeps_its_own_entry_in_the_counterexample():
    """k = "k + 1" at the symbol k = 1 composes 2 mechanisms: the count was overwritten by the
    symbol's value."""
    found = check(ComposedDP("epsilon", "k + 1", "k*epsilon", "(k+1)*delta", "delta"))
    assert found.verdict is Verdict.REFUTED
    params = found.counterexample.parameters
    assert int(params["k"]) == int(params["k (in the claim)"]) + 1


def test_a_conversion_counterexample_names_the_claims_epsilon_exactly():
    """Rounded to 8 digits, 199.284568805 printed as 199.28457, past the threshold, where the
    exact delta is below 1e-6: not a counterexample. The excess over delta is shown too."""
    found = check(ZCDPConversion(2, 1000, "1e-6", formula="199.284568805"))
    assert found.verdict is Verdict.REFUTED
    assert sp.Rational(found.counterexample.parameters["epsilon"]) == sp.Rational("199.284568805")
    assert "above delta by" in found.counterexample.ratio


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.floats(min_value=1e-300, max_value=1e300))
def test_an_accountants_upper_bound_is_shown_rounded_up(bound):
    from proofs.checkers.rdp import _up

    shown = float(_up(bound))
    assert bound <= shown <= bound * (1 + 2e-7)


@pytest.mark.parametrize("k", [2, 3, None, 200])
def test_the_standard_group_delta_scaled_down_is_refuted_near_epsilon_zero(k):
    """0.9999 k e^((k-1) eps) delta is below the chain's delta only for eps < about 2e-4
    (k = 2), 2e-6 (k = 200): e^eps = 1 + 10^-6 and 1 + 10^-12 are tried, with a short delta
    the chain can carry."""
    claim = GroupPrivacy("k*epsilon", "0.9999*k*exp((k-1)*epsilon)*delta", k=k)
    result = check(claim)
    assert result.verdict is Verdict.REFUTED
    assert len(result.counterexample.parameters["delta"]) < 12


@pytest.mark.parametrize("k, e, total", [(10, R(1, 2), 2), (300, R(1, 10), 3)])
def test_k_fold_randomized_response_is_decided_by_its_exact_profile(k, e, total):
    """An RDP bound can only certify; the responses' exact privacy-loss distribution refutes
    a delta just below KOV's (randomized response attains it), never one just above."""
    from proofs.checkers.composition import kov_delta

    true = kov_delta(e, k, total)
    below = check(RDPComposition(((KAryRR(e, 2), k),), total, float(true.mid()) * 0.99))
    assert below.verdict is Verdict.REFUTED, below.summary()
    above = check(RDPComposition(((KAryRR(e, 2), k),), total, float(true.mid()) * 1.001))
    assert above.verdict is not Verdict.REFUTED


_weights = st.lists(st.integers(1, 9), min_size=2, max_size=3)


@settings(max_examples=30, deadline=None, derandomize=True)
@given(
    tables=st.lists(st.tuples(_weights, _weights, st.integers(1, 2)), min_size=1, max_size=2),
    eps=st.sampled_from([R(1, 10), R(1, 2), R(1)]),
)
def test_the_responses_profile_never_refutes_a_delta_at_the_brute_force_truth(tables, eps):
    from proofs.finite import compose, finite_delta

    parts, composed = [], []
    for a, b, count in tables:
        n = min(len(a), len(b))
        rows = {0: {y: R(a[y], sum(a[:n])) for y in range(n)}}
        rows[1] = {y: R(b[y], sum(b[:n])) for y in range(n)}
        mech = FiniteMechanism(rows)
        parts.append((mech, count))
        composed += [mech] * count
    truth = finite_delta(compose(*composed) if len(composed) > 1 else composed[0], eps)[0]
    assume(0 < truth < R(9, 10))
    at_truth = check(RDPComposition(tuple(parts), eps, truth))
    assert at_truth.verdict is not Verdict.REFUTED, at_truth.summary()
    below = check(RDPComposition(tuple(parts), eps, truth * R(99, 100)))
    assert below.verdict is Verdict.REFUTED, below.summary()


def test_responses_below_a_doubles_range_and_many_values_are_decided_quickly():
    """KAryRR(800, 2) has a probability of e^-800, below a double (math.log failed: exit 3);
    KAryRR(1, 10^6) listed its million outputs one by one (27 s)."""
    import time

    assert check(RDPComposition([(KAryRR(800, 2), 1)], 1, 1e-6)).verdict is Verdict.REFUTED
    start = time.perf_counter()
    # delta(0.5) of one 10^6-ary response at eps 1 is about 1.07e-6
    assert check(RDPComposition([(KAryRR(1, 10**6), 1)], 0.5, 1e-6)).verdict is Verdict.REFUTED
    assert check(RDPComposition([(KAryRR(1, 10**6), 1)], 0.5, 2e-6)).verdict is not (
        Verdict.REFUTED
    )
    assert time.perf_counter() - start < 10


def test_an_accountants_subnormal_bound_is_shown_rounded_up():
    import decimal

    from proofs.checkers.rdp import _up

    # read as decimals: 1e-323's nearest double is the bound itself, and .8g rounded it down
    for bound in (5e-324, 1e-323, 1.5e-323, 2.2e-310, 1.0000000123e-305, 3.3e-300, 0.1):
        assert decimal.Decimal(_up(bound)) >= decimal.Decimal(bound)
    from proofs import rdp_delta

    assert rdp_delta([(Gaussian(1, 1), 1)], 37.75).summary()


@pytest.mark.parametrize(
    "formula, verdict",
    [
        # the clipped form of the Laplace profile: the max is decided on eps < Delta/b, by z3
        ("max(0, 1 - exp((epsilon - Delta/b)/2))", "proved"),
        ("max(0, 1 - exp((epsilon - Delta/b)/2)) + max(0, epsilon - 2*Delta/b)", "proved"),
        ("max(0, 1 - exp((epsilon - Delta/b)/3))", "refuted"),
        ("max(1 - exp((epsilon - Delta/b)/2), 1/2)", "refuted"),  # not the max that holds
        ("max(0, 1 - exp((epsilon - Delta/b)/2)) + max(0, epsilon - Delta/(2*b))", "refuted"),
    ],
)
def test_a_profile_written_with_max_is_decided_where_the_order_is_proved(formula, verdict):
    found = check(PrivacyProfile("laplace", formula))
    assert found.verdict.value == verdict, found.summary()


@pytest.mark.parametrize(
    "lhs, rhs, domain, verdict",
    [
        (0, 1 - sp.exp((EPSILON - SENSITIVITY / b_) / 2), (EPSILON < SENSITIVITY / b_,), "proved"),
        (
            0,
            1 - sp.exp((EPSILON - SENSITIVITY / b_) / 2),
            (EPSILON < 2 * SENSITIVITY / b_,),
            "refuted",
        ),
        (sp.exp(EPSILON - 1), 1, (EPSILON < 1,), "proved"),
        (sp.exp(EPSILON - 1), 1, (EPSILON < 1 + R(1, 10**9),), "refuted"),
        (2, 3 * sp.exp(-EPSILON), (EPSILON < sp.log(R(3, 2)),), "proved"),
        (2, 3 * sp.exp(-EPSILON), (EPSILON < sp.log(R(3, 2)) + R(1, 10**6),), "refuted"),
    ],
)
def test_one_exponential_against_a_number_is_decided_by_its_exponent(lhs, rhs, domain, verdict):
    found = check(Inequality(lhs, rhs, domain))
    assert found.verdict.value == verdict, found.summary()


@pytest.mark.parametrize(
    "formula",
    [
        "(1 - exp((epsilon - Delta/b)/4))**2000",
        "1 - exp((epsilon - Delta/b)/2) * (1 + epsilon/10**6)**1000",
    ],
)
def test_a_wrong_profile_with_a_large_power_is_refuted_before_any_simplify(formula):
    """arb separates these at the Laplace points at once; simplify on the expanded
    difference ran past a minute."""
    result = check(PrivacyProfile("laplace", formula))
    assert result.verdict is Verdict.REFUTED, result.summary()
    assert result.seconds < 10


def test_a_profile_with_a_max_of_three_terms_is_proved_when_one_term_is_proved_largest():
    true = "max(0, 1 - exp((epsilon - Delta/b)/2), (1 - exp((epsilon - Delta/b)/2))/2)"
    result = check(PrivacyProfile("laplace", true))
    assert result.verdict is Verdict.PROVED, result.summary()
    assert any(" = 1 - exp(" in step for step in result.steps)
    wrong = "max(0, 1 - exp((epsilon - Delta/b)/2), 2*(1 - exp((epsilon - Delta/b)/2)))"
    assert check(PrivacyProfile("laplace", wrong)).verdict is Verdict.REFUTED


def test_a_composed_delta_far_below_the_precision_is_still_separated_from_0():
    """1000-fold composition at eps 0.01 has delta 2.1206e-120 at eps_total 7 (mpmath at 60
    digits, KOV's sum); 1 - (1 - rr) lost it in the 1 at 128 bits, so delta_total 0 was
    undecided. The sum is now added to 1 - (1 - delta)^k as it is."""
    result = check(ComposedDP(0.01, 1000, 7, 0))
    assert result.verdict is Verdict.REFUTED, result.summary()
    assert "2.12059836e-120" in result.reason
    assert check(ComposedDP(0.01, 1000, 7, sp.Rational(22, 10**121))).verdict is Verdict.CERTIFIED


@pytest.mark.parametrize("k, j, delta", [(3, 1, R(2, 9)), (5, 0, R(47, 81)), (4, 2, R(4, 27))])
def test_a_composition_at_logs_of_rationals_is_decided_exactly_at_its_tie(k, j, delta):
    """eps = ln 2, eps_total = j ln 2: the KOV sum is rational (3-fold randomized response with
    p = 2/3 at ln 2: P - 2Q is 8/27 - 2/27 at three ones, 0 at two, so 2/9), and the tie and a
    claim 10^-40 below it were both undecided with arb."""
    eps = sp.log(2)
    assert check(ComposedDP(eps, k, j * eps, delta)).verdict is Verdict.PROVED
    below = check(ComposedDP(eps, k, j * eps, delta - R(1, 10**40)))
    assert below.verdict is Verdict.REFUTED and below.counterexample is not None


def test_a_composition_at_a_long_rational_e_eps_is_enclosed_not_summed_exactly():
    """The rational sum at e^eps = 1 + 10^-100 and k = 2000 ran for ten minutes; past a budget
    of bits it is left to arb."""
    result = check(ComposedDP(sp.log(1 + R(1, 10**100)), 2000, 0, R(1, 2)))
    assert result.verdict is Verdict.CERTIFIED and result.seconds < 10
