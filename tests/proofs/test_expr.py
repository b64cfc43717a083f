"""No text a user gives is ever evaluated: every field that accepts a string reads it with the
restricted grammar of `proofs.expr`, and anything else is a one-line InputError naming the field.

Each payload tries to run code (create a marker file) or exhaust the machine. The test sends
every payload through every field that accepts a string and asserts that nothing ran and that
no claim built from a payload is proved or certified.
"""

import os
from pathlib import Path

import pytest
import sympy as sp

from auditor.cli import main
from proofs import (
    AlphaCoinRR,
    ApproxDP,
    CalibrationMinimal,
    ChebyshevTail,
    ComposedDP,
    ExponentialMechanism,
    FiniteMechanism,
    ForcedResponse,
    Gaussian,
    GaussianCalibration,
    GroupPrivacy,
    Histogram,
    InputError,
    KAryRR,
    Laplace,
    LaplaceVector,
    LinearEstimator,
    OneBitTelemetry,
    PerReportUnbiased,
    PostProcessing,
    PureDP,
    Rappor,
    RDPComposition,
    RDPConversion,
    RenyiGaussian,
    ReportNoisyMax,
    SequentialComposition,
    TwoSidedGeometric,
    Unbiased,
    Variance,
    Verdict,
    ZCDPConversion,
    parse,
    rr_estimator,
    rr_table,
)
from proofs.dispatch import check_isolated

MARKER = "dpaudit_payload_ran"


def _payloads(marker: str) -> list[str]:
    touch = f"open({marker!r}, 'w').write('x')"
    return [
        f'__import__("os").system("touch {marker}")',
        f"__import__('builtins').exec(\"{touch}\")",
        touch,
        f"exec({touch!r})",
        f"eval({touch!r})",
        "().__class__.__bases__[0].__subclasses__()",
        "(1).__class__.__mro__[-1].__subclasses__()",
        "getattr(getattr(1, '__class__'), '__name__')",
        "x.__globals__",
        "globals()['__builtins__']",
        f"(lambda: {touch})()",
        f"[{touch} for _ in range(1)]",
        f"{{k: {touch} for k in 'a'}}",
        "Symbol('x').__class__.__init__.__globals__['os'].system('true')",
        "sympy.core.sympify.sympify('1')",
        "import os",
        "1; import os",
        "x if True else y",
        "'text'",
        "b'bytes'",
        "1 @ 2",
        "lambda x: x",
        "9" * 1000,
        "(" * 500 + "1" + ")" * 500,
        "1+" * 300 + "1",
        "10^10^10^10",
        "99999^99999",
        "exp(" * 100 + "1" + ")" * 100,
        "x" * 5000,
        "\x00",
        "epsilon; os.system('true')",
        "Integer(1).evalf.__globals__",
    ]


def _fields():
    """Every field that accepts a string, as a function from the text to a claim."""
    eps = "1"
    rr3 = rr_table(3)
    return {
        "AlphaCoinRR.alpha": lambda v: PureDP(AlphaCoinRR(v), 1),
        "ForcedResponse.p_truth": lambda v: PureDP(ForcedResponse(v), 1),
        "ForcedResponse.p_yes": lambda v: PureDP(ForcedResponse(p_yes=v), 1),
        "KAryRR.epsilon": lambda v: PureDP(KAryRR(v, 3), 1),
        "KAryRR.k": lambda v: PureDP(KAryRR(1, v), 1),
        "Laplace.scale": lambda v: PureDP(Laplace(v, 1), 1),
        "Laplace.sensitivity": lambda v: PureDP(Laplace(1, v), 1),
        "Laplace.calibrated": lambda v: PureDP(Laplace.calibrated(v, 1), 1),
        "LaplaceVector.dimension": lambda v: PureDP(LaplaceVector(1, 1, v), 1),
        "TwoSidedGeometric.scale": lambda v: PureDP(TwoSidedGeometric(v, 1), 1),
        "ExponentialMechanism.epsilon": lambda v: PureDP(ExponentialMechanism(v, 1), 1),
        "ReportNoisyMax.scale": lambda v: PureDP(ReportNoisyMax(v), 1),
        "Histogram.scale": lambda v: PureDP(Histogram(v), 1),
        "Histogram.bins": lambda v: PureDP(Histogram(1, bins=v), 1),
        "OneBitTelemetry.m": lambda v: PureDP(OneBitTelemetry(1, v), 1),
        "Gaussian.sigma": lambda v: ApproxDP(Gaussian(v, 1), 1, 0.1),
        "Gaussian.sensitivity": lambda v: ApproxDP(Gaussian(1, v), 1, 0.1),
        "Rappor.f": lambda v: PureDP(Rappor(f=v, p=0.5, q=0.75, h=2), 1),
        "FiniteMechanism.pmf": lambda v: PureDP(
            FiniteMechanism({0: {0: v, 1: "1/2"}, 1: {0: "1/2", 1: "1/2"}}), 1
        ),
        "PureDP.epsilon": lambda v: PureDP(Laplace(1, 1), v),
        "ApproxDP.epsilon": lambda v: ApproxDP(Laplace(1, 1), v, 0.1),
        "ApproxDP.delta": lambda v: ApproxDP(Laplace(1, 1), 0.5, v),
        "ComposedDP.epsilon": lambda v: ComposedDP(v, 3, 3, 0),
        "ComposedDP.k": lambda v: ComposedDP(1, v, 3, 0),
        "ComposedDP.epsilon_total": lambda v: ComposedDP(1, 3, v, 0),
        "ComposedDP.delta_total": lambda v: ComposedDP(1, 3, 3, v),
        "SequentialComposition.rule": lambda v: SequentialComposition(((rr3, rr3),), rule=v),
        "SequentialComposition.delta_rule": lambda v: SequentialComposition(
            ((rr3, rr3),), at=((1, 1),), delta_rule=v
        ),
        "SequentialComposition.at": lambda v: SequentialComposition(((rr3, rr3),), at=((v, 1),)),
        "PostProcessing.rule": lambda v: PostProcessing(((rr3, {0: 0, 1: 1}),), rule=v),
        "PostProcessing.map": lambda v: PostProcessing(((rr3, {0: {0: v, 1: "1/2"}, 1: 1}),)),
        "GroupPrivacy.eps_k": lambda v: GroupPrivacy(v, 0),
        "GroupPrivacy.delta_k": lambda v: GroupPrivacy("k*epsilon", v),
        "GroupPrivacy.k": lambda v: GroupPrivacy("k*epsilon", 0, k=v),
        "RenyiGaussian.bound": lambda v: RenyiGaussian(v),
        "RDPConversion.formula": lambda v: RDPConversion(3, 10, 1e-5, formula=v),
        "RDPConversion.sigma": lambda v: RDPConversion(v, 10, 1e-5),
        "ZCDPConversion.formula": lambda v: ZCDPConversion(3, 10, 1e-5, formula=v),
        "RDPComposition.epsilon": lambda v: RDPComposition(((Gaussian(3, 1), 1),), v, 1e-5),
        "GaussianCalibration.sigma": lambda v: GaussianCalibration(1e-5, 0, 1, sigma=v),
        "GaussianCalibration.delta": lambda v: GaussianCalibration(v, 0, 1),
        "CalibrationMinimal.sigma": lambda v: CalibrationMinimal(1, 1e-5, v),
        "LinearEstimator.slope": lambda v: Unbiased(LinearEstimator(AlphaCoinRR(0.5), v, 0, "n_1")),
        "LinearEstimator.target": lambda v: Unbiased(LinearEstimator(AlphaCoinRR(0.5), 1, 0, v)),
        "Variance.bound": lambda v: Variance(rr_estimator(), v),
        "ChebyshevTail.bound": lambda v: ChebyshevTail(rr_estimator(), v),
        "PerReportUnbiased.term": lambda v: PerReportUnbiased(OneBitTelemetry(), v),
        "rr_table.ratio": lambda v: SequentialComposition(((rr_table(v), rr3),)),
        "eps_field": lambda v: PureDP(Laplace(eps, 1), v),
    }


@pytest.fixture
def in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_payloads_never_run_and_never_pass(in_tmp):
    payloads = _payloads(MARKER)
    assert len(payloads) >= 20
    fields = _fields()
    for field, build in fields.items():
        for payload in payloads:
            try:
                claim = build(payload)
            except InputError as exc:
                assert "\n" not in str(exc)
                continue
            result = check_isolated(claim)
            assert result.verdict not in (Verdict.PROVED, Verdict.CERTIFIED), (field, payload)
            assert not result.internal, (field, payload, result.reason)
    assert not (in_tmp / MARKER).exists()
    assert not list(in_tmp.iterdir())


def test_the_parser_refuses_every_payload_and_names_the_field():
    for payload in _payloads(MARKER):
        with pytest.raises(InputError) as info:
            parse(payload, "my_field")
        message = str(info.value)
        assert message.startswith("my_field") and "\n" not in message


def test_formulas_read_as_users_write_them():
    eps, k = sp.Symbol("epsilon", positive=True), sp.Symbol("k", integer=True, positive=True)
    assert parse("2*epsilon") == 2 * eps
    assert parse("k*epsilon") == k * eps
    assert parse("1e-5") == sp.Rational(1, 10**5)
    assert parse("0.1") == sp.Rational(1, 10)
    assert parse("ln((1+epsilon)/(1-epsilon))") == sp.log((1 + eps) / (1 - eps))
    assert parse("exp(-x^2/2)/sqrt(2*pi)") == sp.exp(
        -(sp.Symbol("x", positive=True) ** 2) / 2
    ) / sp.sqrt(2 * sp.pi)
    assert parse("-2^2") == -4 and parse("2^-1") == sp.Rational(1, 2)
    assert parse("max(1, 2, epsilon)") == sp.Max(2, eps)


def test_a_claims_file_with_a_payload_is_bad_input_and_runs_nothing(tmp_path, capsys):
    marker = tmp_path / "ran"
    path = tmp_path / "evil.py"
    payload = f'__import__("os").system("touch {marker}")'
    path.write_text(
        f"from proofs import Laplace, PureDP\nCLAIMS = [PureDP(Laplace({payload!r}, 1), 1)]\n"
    )
    assert main(["prove", str(path)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "scale=" in err and "Traceback" not in err
    assert not marker.exists()
    assert not Path(os.getcwd(), "ran").exists()
