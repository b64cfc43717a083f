"""Random claims built from the names `proofs` exports never crash the checker.

Hypothesis builds claims from the exported constructors with arbitrary arguments: numbers of
every kind (negative, zero, huge, tiny, Fraction, float, SymPy), symbols with and without
assumptions, formulas as text, None, bools, wrong types. A constructor may refuse its input
only with an InputError (a one-line message, exit 2); a constructed claim is checked in
isolation and may come out with any verdict except an internal error. So `dpaudit prove` on
any such claims file exits 0, 1 or 2, never 3 (the second test runs the command itself).
"""

import json
from fractions import Fraction

import pytest
import sympy as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import proofs
import proofs.catalogue
from auditor.cli import main
from proofs import InputError
from proofs.dispatch import check_isolated

# the strategies' reprs are long; Hypothesis warns about it when it prints an example
pytestmark = pytest.mark.filterwarnings("ignore::hypothesis.errors.HypothesisWarning")

_NAMES = ["epsilon", "delta", "k", "alpha", "sigma", "Delta", "b", "n", "epsilon_1", "x"]

symbols = st.builds(
    lambda name, kind: {
        "positive": sp.Symbol(name, positive=True),
        "plain": sp.Symbol(name),
        "integer": sp.Symbol(name, integer=True, positive=True),
        "nonneg": sp.Symbol(name, nonnegative=True),
    }[kind],
    st.sampled_from(_NAMES),
    st.sampled_from(["positive", "plain", "integer", "nonneg"]),
)

numbers = st.one_of(
    st.integers(-3, 12),
    st.sampled_from([0, 1, 2, 10**6, -1]),
    st.floats(allow_nan=True, allow_infinity=True, width=64),
    st.fractions(min_value=Fraction(-2), max_value=Fraction(5), max_denominator=50),
    st.sampled_from(
        [
            sp.Rational(1, 2),
            sp.Rational(3, 4),
            sp.log(3),
            sp.exp(-60),
            sp.oo,
            sp.nan,
            sp.zoo,
            sp.I,
            sp.pi,
            sp.Rational(1, 10**5),
        ]
    ),
)

formulas = st.sampled_from(
    [
        "2*epsilon",
        "k*epsilon",
        "epsilon_1 + epsilon_2",
        "1/2",
        "1e-5",
        "log(3)",
        "exp(-1)",
        "max(epsilon_1, epsilon_2)",
        "alpha/2",
        "",
        "x^2",
        "sqrt(2)",
        "-1",
        "k",
        "delta",
        "epsilon_0/2",
    ]
)

scalars = st.one_of(
    numbers,
    symbols,
    formulas,
    st.builds(lambda a, b: a * b, symbols, st.integers(1, 3)),
    st.builds(lambda a, b: a + b, symbols, numbers.filter(lambda v: not isinstance(v, float))),
    st.none(),
    st.booleans(),
    st.just([1, 2]),
    st.just({"a": 1}),
)


def _finite(values):
    a, b = values
    return proofs.FiniteMechanism({0: {0: a, 1: b}, 1: {0: b, 1: a}})


mechanisms = st.one_of(
    st.builds(proofs.AlphaCoinRR, scalars),
    st.builds(proofs.ForcedResponse, scalars, scalars),
    st.builds(proofs.KAryRR, scalars, scalars),
    st.builds(proofs.Laplace, scalars, scalars),
    st.builds(proofs.Laplace.calibrated, scalars, scalars),
    st.builds(proofs.LaplaceVector, scalars, scalars, scalars),
    st.builds(proofs.TwoSidedGeometric, scalars, scalars),
    st.builds(proofs.ExponentialMechanism, scalars, scalars, st.booleans(), st.booleans()),
    st.builds(proofs.ReportNoisyMax, scalars, st.booleans(), st.sampled_from(["laplace", "x"])),
    st.builds(proofs.NoisyMaxValue, scalars, scalars, st.sampled_from(["exponential", "x"])),
    st.builds(
        proofs.SparseVector,
        scalars,
        scalars,
        st.integers(-1, 5),
        st.one_of(st.none(), st.integers(-1, 3)),
        st.booleans(),
        st.sampled_from(["flags", "compared", "fresh", "x"]),
        scalars,
        scalars,
    ),
    st.builds(proofs.SparseVector.lyu_su_li, st.integers(0, 7), scalars, st.integers(1, 4)),
    st.builds(
        lambda a, b: proofs.Composition((proofs.Laplace(a), proofs.SparseVector(b, a, 3))),
        scalars,
        scalars,
    ),
    st.builds(proofs.Histogram, scalars, st.sampled_from(["add_remove", "replace_one", "x"])),
    st.builds(proofs.OneBitTelemetry, scalars, scalars, st.sampled_from(["sum", "product"])),
    st.builds(proofs.Gaussian, scalars, scalars),
    st.builds(proofs.GaussianVector, scalars, scalars, scalars),
    st.builds(proofs.FloatLaplace, scalars, scalars),
    st.builds(proofs.SignedZeroLaplace, scalars, scalars, scalars),
    st.builds(
        proofs.Rappor, scalars, scalars, scalars, scalars, st.sampled_from(["one", "unlimited"])
    ),
    st.builds(proofs.RepeatedOneBit, scalars, scalars, scalars, st.booleans()),
    st.builds(_finite, st.tuples(scalars, scalars)),
    st.builds(proofs.rr_table, scalars),
    st.builds(proofs.canonical_mechanism, scalars, scalars),
    st.just(42),
)

finite = st.one_of(
    st.builds(proofs.rr_table, st.sampled_from([2, 3, "3/2"])),
    st.builds(_finite, st.tuples(scalars, scalars)),
)
maps = st.one_of(
    st.just({0: 0, 1: 1}),
    st.just({0: "x", 1: "x"}),
    st.builds(lambda p: {0: {0: p, 1: "1/2"}, 1: 1}, scalars),
    st.just([1]),
)

claims = st.one_of(
    st.builds(proofs.PureDP, mechanisms, scalars, st.booleans()),
    st.builds(proofs.ApproxDP, mechanisms, scalars, scalars),
    st.builds(proofs.ComposedDP, scalars, scalars, scalars, scalars, scalars),
    st.builds(proofs.SequentialComposition, st.tuples(st.tuples(finite, finite)), scalars),
    st.builds(
        lambda m1, m2, e, d, r: proofs.SequentialComposition(
            ((m1, m2),), at=((e, d),), delta_rule=r
        ),
        finite,
        finite,
        scalars,
        scalars,
        scalars,
    ),
    st.builds(proofs.PostProcessing, st.tuples(st.tuples(finite, maps)), scalars),
    st.builds(proofs.GroupPrivacy, scalars, scalars, scalars, st.booleans()),
    st.builds(proofs.RenyiGaussian, scalars, st.booleans()),
    st.builds(proofs.RDPConversion, scalars, scalars, scalars),
    st.builds(proofs.ZCDPConversion, scalars, scalars, scalars, scalars),
    st.builds(
        lambda m, c, e, d: proofs.RDPComposition(((m, c),), e, d),
        mechanisms,
        scalars,
        scalars,
        scalars,
    ),
    st.builds(proofs.GaussianCalibration, scalars, scalars, scalars, scalars),
    st.builds(proofs.CalibrationMinimal, scalars, scalars, scalars),
    st.builds(proofs.PrivacyProfile, st.sampled_from(["gaussian", "laplace", "x"]), scalars),
    st.builds(
        lambda s, i, t: proofs.Unbiased(
            proofs.LinearEstimator(proofs.AlphaCoinRR(sp.Rational(1, 2)), s, i, t)
        ),
        scalars,
        scalars,
        scalars,
    ),
    st.builds(lambda a, b: proofs.Variance(proofs.rr_estimator(a), b), scalars, scalars),
    st.builds(lambda a, b: proofs.ChebyshevTail(proofs.rr_estimator(a), b), scalars, scalars),
    st.builds(proofs.PerReportUnbiased, mechanisms, scalars),
    st.builds(
        lambda e, r, v, at: proofs.EstimateAt(e, r, v, at),
        st.sampled_from([proofs.rr_estimator(), proofs.forced_response_estimator()]),
        st.one_of(st.lists(st.sampled_from([0, 1, 2, True, 0.5, "1"]), max_size=5), scalars),
        scalars,
        st.one_of(st.dictionaries(st.sampled_from(["alpha", "n", "x"]), scalars), scalars),
    ),
    st.builds(proofs.Theorem, st.sampled_from(["id", ""]), st.just(42), st.just("src")),
    st.builds(proofs.Normalised, mechanisms),
    st.builds(proofs.Moment, mechanisms, st.sampled_from(["mean", "variance", "x"]), scalars),
    st.builds(proofs.NoisyMeanVariance, scalars, st.sampled_from(["laplace", "gaussian", "x"])),
    st.builds(
        proofs.DistanceBound,
        st.sampled_from(["TV", "L1", "KL", "x", "", "2*TV"]),
        st.one_of(formulas, st.sampled_from(["sqrt(KL/2)", "L2", "1", "EMD"])),
        st.sampled_from(["<=", "==", "<"]),
    ),
    st.builds(
        proofs.Inequality,
        scalars,
        scalars,
        st.one_of(st.just(()), st.just("x > 0"), st.builds(lambda s: (s > 0,), symbols)),
    ),
    st.builds(
        lambda e, d: proofs.Normalised(proofs.NoiseDensity(e, d)),
        st.one_of(formulas, st.sampled_from(["exp(-abs(y))/2", "exp(-y^2)", "y"])),
        st.sampled_from(["reals", "integers", "x"]),
    ),
)


@settings(
    max_examples=300, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck)
)
@given(st.data())
def test_random_claims_are_refused_cleanly_or_checked_without_internal_errors(data):
    try:
        claim = data.draw(claims)
    except InputError as exc:
        assert "\n" not in str(exc)
        return
    result = check_isolated(claim)
    assert not result.internal, result.reason


@settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_dpaudit_prove_exits_0_1_or_2_on_random_claims(monkeypatch_module, capsys, tmp_path, data):
    try:
        items = [data.draw(claims) for _ in range(2)]
    except InputError:
        return
    # with no file `dpaudit prove` checks the built-in catalogue: make these claims the catalogue
    monkeypatch_module.setattr(proofs.catalogue, "catalogue", lambda: list(items))
    out = tmp_path / "out.json"
    out.unlink(missing_ok=True)  # (one tmp_path for every example)
    code = main(["prove", "--quiet", "--json", str(out)])
    assert code in (0, 1, 2)
    assert "Traceback" not in capsys.readouterr().err
    if out.exists():
        assert len(json.loads(out.read_text())["results"]) == len(items)  # all were checked
    else:  # nothing was checked (every claim bad input): no output replaces the user's
        assert code == 2


@pytest.fixture(scope="module")
def monkeypatch_module():
    with pytest.MonkeyPatch.context() as mp:
        yield mp
