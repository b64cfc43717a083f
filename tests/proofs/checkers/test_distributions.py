"""Distribution facts (claims in proofs.claims.distributions, decided by proofs.checkers.densities
and proofs.checkers.distances; catalogue proofs.catalogue.facts): every true catalogue entry is
proved, every false variant refuted with a re-checked counterexample, mutants of the true facts
are never proved or certified, and what SymPy or z3 cannot decide is unknown, never proved."""

import math
from fractions import Fraction

import pytest
import sympy as sp

from auditor.closeness import distribution_distance
from proofs import (
    DistanceBound,
    FiniteMechanism,
    Moment,
    N,
    NoiseDensity,
    NoisyMeanVariance,
    Normalised,
    Verdict,
    check,
    distance_facts,
    geometric_ratio,
    noise_law,
    sym,
)
from proofs.checkers.distances import _exact_values
from proofs.checkers.laws import Undecided, discharge
from proofs.claims.distributions import EMD, EMD_CAT, KL, L1, L2, TV
from proofs.errors import InputError
from proofs.mechanisms import (
    AlphaCoinRR,
    ExponentialMechanism,
    ForcedResponse,
    Gaussian,
    KAryRR,
    Laplace,
    OneBitTelemetry,
    Rappor,
    TwoSidedGeometric,
)
from proofs.symbols import Y, Z

R = sp.Rational
b, sigma, eps = sym("b"), sym("sigma"), sym("epsilon")
GEO = TwoSidedGeometric()
A = geometric_ratio(GEO)


@pytest.fixture(scope="module")
def run(catalogue_runs):
    """The facts section checked by `run_theorems` (once per session: tests/proofs/conftest.py),
    with the time it took."""
    out = catalogue_runs["facts"]
    return out, out.seconds


# --- the catalogue --------------------------------------------------------------------------------


def test_catalogue_is_as_expected_and_fast(run):
    result, seconds = run
    assert result.all_as_expected, result.summary()
    ids = [r.id for r in result.results]
    assert len(ids) == len(set(ids)) and all(i.startswith("facts.") for i in ids)
    assert seconds < 10, f"theorems() took {seconds:.1f} s (target ~5 s)"


def test_every_true_theorem_is_proved(run):
    result, _ = run
    holds = [r for r in result.results if r.expect == "holds"]
    assert len(holds) >= 20
    for r in holds:
        assert r.verdict is Verdict.PROVED, r.summary()
        assert r.source and r.steps


def test_every_false_variant_is_refuted_with_a_rechecked_counterexample(run):
    result, _ = run
    false = [r for r in result.results if r.expect == "refuted"]
    assert len(false) >= 8
    for r in false:
        assert r.verdict is Verdict.REFUTED, r.summary()
        cex = r.counterexample
        assert cex is not None
        assert cex.check in ("exact rational arithmetic", "arb interval arithmetic")


def test_catalogue_covers_the_facts_of_the_brief(run):
    result, _ = run
    ids = {r.id for r in result.results}
    for needed in (
        "facts.laplace.normalised",
        "facts.laplace.variance",
        "facts.gaussian.variance",
        "facts.geometric.variance",
        "facts.noisy_mean.variance",
        "facts.distance.pinsker",
        "facts.distance.tv_half_l1",
        "facts.distance.l2_le_l1",
        "facts.distance.l1_le_sqrt_m_l2",
        "facts.distance.tv_le_1",
        "facts.distance.kl_nonnegative",
        "facts.distance.emd_ordered_le_tv",
        "facts.distance.emd_categorical_eq_tv",
    ):
        assert needed in ids


# --- structured proofs of the distance facts --------------------------------------------------


def test_every_distance_fact_has_a_complete_structured_proof():
    facts = {f.name: f for f in distance_facts()}
    assert set(facts) >= {
        "definitions",
        "l2_le_l1",
        "cauchy_schwarz",
        "tv_le_1",
        "gibbs",
        "pinsker",
        "emd_ordered_le_tv",
        "emd_categorical_eq_tv",
    }
    for f in facts.values():
        assert f.proved, (f.name, f.steps)
        assert not any("NOT SHOWN" in s for s in f.steps)
    pinsker = "\n".join(facts["pinsker"].steps)
    assert "f'(q) = " in pinsker and "q (1 - q) <= 1/4" in pinsker
    assert "grouping two points" in pinsker and "TV is preserved" in pinsker
    assert "ln x <= x - 1" in "\n".join(facts["gibbs"].steps)


def test_pinsker_proof_names_the_facts_it_uses():
    r = DistanceBound("TV", "sqrt(KL/2)").check()
    assert r.verdict is Verdict.PROVED
    assert "pinsker" in r.method
    assert any("SymPy simplifies the difference to 0" in s for s in r.steps)


# --- mutants of the true facts are never proved or certified -------------------------------------

MUTANTS = [
    # constant changed
    Moment(Laplace(), "variance", 3 * b**2),
    Moment(Laplace(), "variance", b**2),
    Moment(Laplace(), "mean", b / 10),
    Moment(Gaussian(), "variance", 2 * sigma**2),
    Moment(GEO, "variance", A / (1 - A) ** 2),
    Moment(GEO, "variance", 3 * A / (1 - A) ** 2),
    NoisyMeanVariance(1 / (eps * N) ** 2),
    NoisyMeanVariance(2 / eps**2),
    NoisyMeanVariance(2 * sigma**2, "gaussian"),
    Normalised(NoiseDensity(sp.exp(-sp.Abs(Y) / b) / (4 * b), domain=(b > 0,))),
    Normalised(
        NoiseDensity(sp.exp(-(Y**2) / sigma**2) / (sigma * sp.sqrt(2 * sp.pi)), domain=(sigma > 0,))
    ),
    Normalised(NoiseDensity((1 - A) * sp.exp(-sp.Abs(Z) / b), "integers", domain=(b > 0,))),
    DistanceBound("TV", "sqrt(KL)/2"),
    DistanceBound("TV", "sqrt(KL/3)"),
    DistanceBound("L2", "L1/2"),
    DistanceBound("L1", "sqrt(m - 1)*L2"),
    DistanceBound("TV", "1/2"),
    DistanceBound("1/10", "KL"),
    DistanceBound("EMD", "TV/2"),
    DistanceBound("EMD_cat", "TV/2", "=="),
    DistanceBound("TV", "L1/3", "=="),
    # exponent changed
    Moment(Laplace(), "variance", 2 * b**3),
    Moment(Laplace(), "variance", 2 * b),
    Moment(Gaussian(), "variance", sigma),
    Moment(GEO, "variance", 2 * A / (1 - A) ** 3),
    Moment(GEO, "variance", 2 * A**2 / (1 - A) ** 2),
    NoisyMeanVariance(2 / (eps * N) ** 3),
    NoisyMeanVariance(2 / (eps * N)),
    NoisyMeanVariance(sigma, "gaussian"),
    Normalised(NoiseDensity(sp.exp(-sp.Abs(Y) / b) / (2 * b**2), domain=(b > 0,))),
    DistanceBound("TV", "KL/2"),
    DistanceBound("TV", "(KL/2)**(3/4)"),
    DistanceBound("L1", "L2"),
    DistanceBound("L1**2", "L2**2"),
    DistanceBound("KL", "L1**2/2"),
    DistanceBound("TV", "EMD"),
    # mass beyond every bound: SymPy cannot integrate or sum the whole support
    Normalised(NoiseDensity(sp.exp(-Y / b) / b, domain=(b > 0,))),
    Normalised(NoiseDensity((1 - sp.Rational(1, 2)) * sp.Rational(1, 2) ** (Z / b), "integers")),
    # false only where the difference is spread over five points or more
    DistanceBound("TV", "L2"),
    DistanceBound("L1", "2*L2"),
    DistanceBound("L1", "sqrt(5)*L2"),
]


@pytest.mark.parametrize("claim", MUTANTS, ids=lambda c: c.statement()[:70])
def test_mutants_are_refuted_never_proved(claim):
    r = check(claim)
    assert not r.verdict.holds, r.summary()
    assert r.verdict is Verdict.REFUTED, r.summary()
    assert r.counterexample is not None


def test_finite_slips_are_refuted():
    e = sp.exp(eps)
    slip = FiniteMechanism(
        {x: {y: (e if x == y else 1) / (e + 3) for y in range(3)} for x in range(3)},
        assumptions=(eps > 0,),
    )
    r = Normalised(slip).check()
    assert r.verdict is Verdict.REFUTED and r.counterexample.check == "arb interval arithmetic"
    negative = FiniteMechanism({0: {0: R(1, 2), 1: R(1, 2)}, 1: {0: R(3, 2), 1: R(-1, 2)}})
    r = Normalised(negative).check()
    assert r.verdict is Verdict.REFUTED and "-P = 1/2" in r.counterexample.ratio
    short = FiniteMechanism({0: {0: R(1, 2), 1: R(1, 3)}, 1: {0: R(1, 2), 1: R(1, 2)}})
    assert Normalised(short).check().verdict is Verdict.REFUTED


def test_negative_density_is_refuted():
    r = Normalised(NoiseDensity(2 * (1 - Y**2) * sp.exp(-(Y**2)) / sp.sqrt(sp.pi))).check()
    assert r.verdict is Verdict.REFUTED and r.counterexample.output.startswith("g(")


@pytest.mark.parametrize("bound", [sp.Integer(2), sp.Rational(5, 4)])
def test_negative_only_between_the_pool_values_is_refuted(bound):
    """(1 - r)/(1 + r) r^|z| is a pmf for r in (0, 1) and negative at z = 0 for r in (1, bound):
    the fixed pool (1/10, 1/2, 1, 2, 3, 10) has no value there, so the search also tries values
    between the pool and the domain's bounds."""
    r = sp.Symbol("r", positive=True)
    law = NoiseDensity((1 - r) / (1 + r) * r ** sp.Abs(Z), support="integers", domain=(r < bound,))
    res = Normalised(law).check()
    assert res.verdict is Verdict.REFUTED
    value = sp.Rational(res.counterexample.parameters["r"])
    assert 1 < value < bound and res.counterexample.output == "g(z = 0)"
    # the same law on r < 1 is a pmf
    law = NoiseDensity((1 - r) / (1 + r) * r ** sp.Abs(Z), support="integers", domain=(r < 1,))
    assert Normalised(law).check().verdict is Verdict.PROVED


# --- what cannot be decided is unknown, never proved ----------------------------------------


def test_integral_sympy_cannot_evaluate_is_unknown():
    C = sp.Symbol("C", positive=True)
    r = Normalised(NoiseDensity(sp.exp(-(Y**4) - sp.sin(Y) ** 2) / C, domain=(C > 0,))).check()
    assert r.verdict is Verdict.UNKNOWN and "could not close the integral" in r.reason
    # true by symmetry, but SymPy cannot integrate it: unknown, not proved
    r = Moment(NoiseDensity(sp.exp(-(Y**4) - sp.sin(Y) ** 2)), "mean", 0).check()
    assert r.verdict is Verdict.UNKNOWN


def test_undecidable_piecewise_is_unknown_or_refuted_by_a_window():
    c = sp.Symbol("c", real=True)  # mass 1 only for c > 0: the claim is false for c <= 0
    law = NoiseDensity(sp.Abs(c) * sp.exp(-c * sp.Abs(Y)) / 2)
    r = Normalised(law).check()
    # SymPy cannot decide its integral's condition; at a negative c a window's mass exceeds 1
    assert "cannot decide the condition" in " ".join(r.steps)
    assert r.verdict is Verdict.REFUTED, r.summary()
    assert str(r.counterexample.parameters["c"]).startswith("-"), r.counterexample
    assert Moment(law, "variance", 2 / c**2).check().verdict is Verdict.UNKNOWN
    # with c > 0 in the domain the same density is proved normalised
    ok = NoiseDensity(c * sp.exp(-c * sp.Abs(Y)) / 2, domain=(c > 0,))
    assert Normalised(ok).check().verdict is Verdict.PROVED


def test_discharge_takes_a_branch_only_when_z3_decides_it():
    a, c = sp.Symbol("a", positive=True), sp.Symbol("c", real=True)
    z = sp.Symbol("z", integer=True, nonnegative=True)
    pw = sp.Piecewise((1 / (1 - a), a < 1), (sp.Sum(a**z, (z, 0, sp.oo)), True))
    assert discharge(pw, [a < 1]) == 1 / (1 - a)
    with pytest.raises(Undecided):
        discharge(pw, [])  # a < 1 is not implied
    first_false = sp.Piecewise((0, sp.Eq(a, 2)), (a, True))
    assert discharge(first_false, [a < 1]) == a
    with pytest.raises(Undecided):
        discharge(sp.Piecewise((1, sp.Abs(sp.arg(c)) < sp.pi / 2), (2, True)), [c > 0])


def test_sympy_failures_give_unknown(monkeypatch):
    def raises(*args, **kwargs):
        raise NotImplementedError("not today")

    monkeypatch.setattr(sp, "integrate", raises)
    assert Normalised(Laplace()).check().verdict is Verdict.UNKNOWN
    assert Moment(Laplace(), "variance", 2 * b**2).check().verdict is Verdict.UNKNOWN
    assert NoisyMeanVariance(2 / (eps * N) ** 2).check().verdict is Verdict.UNKNOWN
    monkeypatch.setattr(sp, "integrate", lambda e, lim, **kw: sp.Integral(e, lim))
    assert Normalised(Gaussian()).check().verdict is Verdict.UNKNOWN
    monkeypatch.undo()
    a = sp.Symbol("a")
    monkeypatch.setattr(
        sp,
        "summation",
        lambda e, lim, **kw: sp.Piecewise(
            (sp.Integer(1), sp.Abs(sp.arg(a)) < 1), (sp.Sum(e, lim), True)
        ),
    )
    assert Normalised(GEO).check().verdict is Verdict.UNKNOWN
    assert Moment(GEO, "variance", 2 * A / (1 - A) ** 2).check().verdict is Verdict.UNKNOWN


def test_distance_claims_neither_proved_nor_refuted_are_unknown():
    # true (sum d_i^2 <= (sum d^+)^2 + (sum d^-)^2 = 2 TV^2) but not implied by the facts
    r = DistanceBound("L2", "sqrt(2)*TV").check()
    assert r.verdict is Verdict.UNKNOWN
    # Bretagnolle-Huber: true, outside the z3 fragment (exp)
    r = DistanceBound("TV", "sqrt(1 - exp(-KL))").check()
    assert r.verdict is Verdict.UNKNOWN and "outside the z3 fragment" in r.reason
    # undefined where TV = 0 or TV < 1: never proved
    assert DistanceBound("1/TV", "2/L1", "==").check().verdict is Verdict.UNKNOWN
    assert DistanceBound("sqrt(TV - 1)", "5").check().verdict is Verdict.UNKNOWN


def test_consequences_of_the_facts_are_proved():
    for lhs, rhs, rel in (
        ("TV", "sqrt(KL)", "<="),
        ("L2", "2*TV", "<="),
        ("TV**2", "KL/2", "<="),
        ("EMD", "1", "<="),
        ("TV", "L1", "<="),
        ("EMD_cat", "L1/2", "=="),
    ):
        r = DistanceBound(lhs, rhs, rel).check()
        assert r.verdict is Verdict.PROVED, r.summary()


# --- the counterexamples are real ---------------------------------------------------------------


def _parse_dist(text):
    return [Fraction(x) for x in text.strip("()").split(", ")]


@pytest.mark.parametrize(
    "lhs, rhs",
    [
        ("TV", "KL/2"),
        ("TV", "sqrt(KL)/2"),
        ("L1", "L2"),
        ("TV", "EMD"),
        ("L2", "L1/2"),
        ("KL", "L1**2/2"),
    ],
)
def test_distance_counterexamples_agree_with_the_closeness_tool(lhs, rhs):
    claim = DistanceBound(lhs, rhs)
    r = claim.check()
    assert r.verdict is Verdict.REFUTED
    P = _parse_dist(r.counterexample.parameters["P"])
    Q = _parse_dist(r.counterexample.parameters["Q"])
    assert sum(P) == 1 and sum(Q) == 1 and min(P + Q) >= 0
    p, q = [float(x) for x in P], [float(x) for x in Q]
    value = {
        TV: distribution_distance(p, q, "tv"),
        L1: distribution_distance(p, q, "l1"),
        L2: distribution_distance(p, q, "l2"),
        KL: distribution_distance(p, q, "kl"),
        EMD: distribution_distance(p, q, "emd", ordered=True),
    }
    assert float(claim.lhs.subs(value)) > float(claim.rhs.subs(value))


def test_exact_distances_match_the_closeness_tool():
    pairs = [
        ((R(1, 2), R(1, 2)), (R(1, 4), R(3, 4))),
        ((R(1, 6), R(1, 2), R(1, 3)), (R(1, 3), R(1, 3), R(1, 3))),
        ((R(1, 10), R(0), R(2, 5), R(1, 2)), (R(1, 4), R(1, 4), R(1, 4), R(1, 4))),
    ]
    for P, Q in pairs:
        exact = _exact_values(
            [Fraction(int(x.p), int(x.q)) for x in P], [Fraction(int(x.p), int(x.q)) for x in Q]
        )
        p, q = [float(x) for x in P], [float(x) for x in Q]
        for sym_, name, ordered in (
            (TV, "tv", False),
            (L1, "l1", False),
            (L2, "l2", False),
            (KL, "kl", False),
            (EMD, "emd", True),
            (EMD_CAT, "emd", False),
        ):
            assert float(exact[sym_]) == pytest.approx(
                distribution_distance(p, q, name, ordered=ordered), rel=1e-12, abs=1e-15
            )


def test_moment_counterexamples_are_recomputed_at_the_point():
    r = Moment(Laplace(), "variance", b**2).check()
    assert r.verdict is Verdict.REFUTED
    assert r.counterexample.parameters == {"b": "1/2"}
    assert r.counterexample.check == "exact rational arithmetic"
    assert "|1/2 - 1/4|" in r.counterexample.ratio
    r = Moment(GEO, "variance", A / (1 - A) ** 2).check()
    assert r.verdict is Verdict.REFUTED and r.counterexample.check == "arb interval arithmetic"


# --- the closed forms, numerically ---------------------------------------------------------


def test_geometric_variance_closed_form_numerically():
    for scale in (0.3, 1.0, 2.5):
        a = math.exp(-1 / scale)
        pmf = [(z, (1 - a) / (1 + a) * a ** abs(z)) for z in range(-400, 401)]
        assert sum(p for _z, p in pmf) == pytest.approx(1, rel=1e-12)
        assert sum(z * z * p for z, p in pmf) == pytest.approx(2 * a / (1 - a) ** 2, rel=1e-10)


def test_normalised_finite_mechanisms():
    for law in (
        AlphaCoinRR(),
        ForcedResponse(sym("p_truth"), sym("p_yes")),
        KAryRR(),
        KAryRR(k=4),
        OneBitTelemetry(),
        OneBitTelemetry(form="product"),
        ExponentialMechanism(),
        ExponentialMechanism(half_factor=False),
    ):
        assert Normalised(law).check().verdict is Verdict.PROVED, law
    assert Normalised(ExponentialMechanism(), utilities=(0, 1, 5)).check().verdict is Verdict.PROVED


def test_numeric_parameters():
    assert Moment(Laplace(2), "variance", 8).check().verdict is Verdict.PROVED
    r = Moment(Laplace(2), "variance", 4).check()
    assert r.verdict is Verdict.REFUTED and r.counterexample.parameters == {}
    assert NoisyMeanVariance(R(1, 50) / eps**2, n=10).check().verdict is Verdict.PROVED
    assert NoisyMeanVariance(R(2, 25) / eps**2, n=10).check().verdict is Verdict.REFUTED
    assert Normalised(TwoSidedGeometric(R(1, 2))).check().verdict is Verdict.PROVED


def test_noise_law_is_translation_invariant():
    law = noise_law(Laplace())
    assert law.expr == sp.exp(-sp.Abs(Y) / b) / (2 * b) and law.support == "reals"
    assert noise_law(GEO).support == "integers"


# --- input errors --------------------------------------------------------------------------


def test_bad_inputs_raise_input_error():
    with pytest.raises(InputError):
        Moment(Laplace(), "median", 0)
    with pytest.raises(InputError):
        Moment(AlphaCoinRR(), "mean", 0)
    with pytest.raises(InputError):
        Normalised(Rappor())
    with pytest.raises(InputError):
        DistanceBound("TV", "foo")
    with pytest.raises(InputError):
        DistanceBound("TV", '__import__("os")')
    with pytest.raises(InputError):
        DistanceBound("TV", "KL", "<")
    with pytest.raises(InputError):
        NoiseDensity(sp.exp(-(Y**2)), domain=(b > 1, b < 0))
    with pytest.raises(InputError):
        NoiseDensity(sp.exp(-(Z**2)), support="reals")
    with pytest.raises(InputError):
        Normalised(Laplace(-1))
    with pytest.raises(InputError):
        NoisyMeanVariance(1, noise="cauchy")
    with pytest.raises(InputError):
        NoisyMeanVariance(1, n=0)
    with pytest.raises(InputError):
        NoisyMeanVariance(1, epsilon=-1)
