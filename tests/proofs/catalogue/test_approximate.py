"""The approximate-DP catalogue (proofs.catalogue.approximate: approximate DP, the Gaussian
mechanism, composition, group privacy, post-processing, estimators): every entry's verdict,
counterexamples for the false ones, the baseline, and a user claims file with approximate-DP and
composition claims (the README example)."""

import json
import textwrap
from pathlib import Path

import pytest

from auditor.cli import main
from proofs import Verdict
from proofs.catalogue.approximate import theorems

THEOREMS = theorems()
ROOT = Path(__file__).resolve().parents[3]  # tests/proofs/catalogue/<this file>

# The verdict each entry must get (proved = for all parameters; certified = arb at the values).
EXPECTED = {
    "gaussian.analytic_balle_wang": "proved",
    "laplace.privacy_profile": "proved",
    "gaussian.classical_calibration.eps_below_1": "certified",
    "gaussian.classical_calibration.eps_below_1.delta_1e-10": "certified",
    "gaussian.classical_calibration.eps_below_1.all_delta": "certified",
    "gaussian.classical_calibration.eps_2": "certified",
    "gaussian.classical_calibration.large_eps": "refuted",
    "gaussian.classical_calibration.delta_half": "refuted",
    "gaussian.vector_l2.classical": "certified",
    "gaussian.vector_l2.notes_sigma": "certified",
    "gaussian.vector_l2.per_coordinate": "refuted",
    "gaussian.vector_l2.l1_calibration": "certified",
    "gaussian.notes_calibration": "certified",
    "gaussian.notes_calibration.all_delta": "certified",
    "gaussian.notes_calibration.minimal": "refuted",
    "gaussian.notes_calibration.actual": "certified",
    "gaussian.notes_calibration.actual.below": "refuted",
    "gaussian.calibrator": "certified",
    "gaussian.approx_dp.sigma_3": "refuted",
    "laplace.approx_dp": "certified",
    "finite.approx_dp.leaky": "proved",
    "composition.basic": "proved",
    "composition.basic_delta": "proved",
    "composition.adaptive": "proved",
    "composition.max": "refuted",
    "composition.advanced_drv": "certified",
    "composition.advanced_drv.k_1000": "certified",
    "composition.advanced_no_drift": "refuted",
    "composition.advanced_drv.symbolic": "proved",
    "composition.advanced_no_drift.symbolic": "refuted",
    "composition.kov_optimal": "certified",
    "composition.kov_optimal.below": "refuted",
    "composition.gaussian_exact": "certified",
    "composition.gaussian_exact.below": "refuted",
    "rdp.gaussian": "proved",
    "rdp.gaussian_conversion": "certified",
    "rdp.improved_conversion": "certified",
    "rdp.mixed_composition": "certified",
    "zcdp.gaussian": "proved",
    "zcdp.conversion": "certified",
    "zcdp.conversion_no_factor_2": "refuted",
    "group.pure": "proved",
    "group.chain_delta": "proved",
    "group.standard_delta": "proved",
    "group.notes_stated": "proved",
    "group.notes_k_delta": "refuted",
    "group.notes_proof_last_line": "refuted",
    "postprocessing.finite": "proved",
    "estimator.rr.unbiased": "proved",
    "estimator.rr.variance_exact": "proved",
    "estimator.rr.variance_quarter": "proved",
    "estimator.rr.variance_notes": "proved",
    "estimator.rr.variance_is_quarter": "refuted",
    "estimator.rr.notes_example": "certified",
    "estimator.rr.share_of_ones": "refuted",
    "estimator.rr.chebyshev": "proved",
    "estimator.forced_response": "proved",
    "estimator.forced_response.variance": "proved",
    "estimator.forced_response.no_offset": "refuted",
    "estimator.one_bit": "proved",
    "estimator.one_bit.product_form": "refuted",
}


@pytest.fixture(scope="module")
def run(catalogue_runs):
    """This section checked by `run_theorems` (once per session: tests/proofs/conftest.py)."""
    return catalogue_runs["approximate"]


def test_approximate_catalogue_ids_sources_and_expectations():
    ids = [t.id for t in THEOREMS]
    assert len(ids) == len(set(ids))
    assert set(ids) == set(EXPECTED)
    for t in THEOREMS:
        assert t.source.strip(), t.id
        assert (t.expect == "refuted") == (EXPECTED[t.id] == "refuted"), t.id


def test_every_approximate_catalogue_verdict(run):
    got = {r.id: r.verdict.value for r in run.results}
    assert got == EXPECTED
    assert run.all_as_expected
    assert run.seconds < 30, run.summary()


def test_refutations_carry_a_rechecked_counterexample(run):
    for r in run.results:
        if r.verdict is Verdict.REFUTED:
            assert r.counterexample is not None, r.id
            assert r.counterexample.check, r.id
            json.dumps(r.to_dict())


def test_classical_calibration_first_failing_epsilon(run):
    """At delta = 1e-5 the classical calibration first fails at eps in (8.41977, 8.41978]
    (scipy: 8.4197719); certified for every smaller eps."""
    r = next(r for r in run.results if r.id == "gaussian.classical_calibration.large_eps")
    lo, hi = (float(v) for v in r.reason.split("(")[1].rstrip("]").split(","))
    assert 8.4197 < lo < hi <= 8.4198 and hi - lo < 2e-6
    assert "certified for every eps in [0," in r.counterexample.note


def test_baseline_has_every_approximate_catalogue_entry_with_its_verdict():
    data = json.loads(ROOT.joinpath("reports/proofs.json").read_text())
    saved = {r["id"]: r["verdict"] for r in data["results"]}
    for i, v in EXPECTED.items():
        assert saved.get(i) == v, i


README_CLAIMS = """
import sympy as sp
from proofs import (ApproxDP, ComposedDP, FiniteMechanism, Gaussian, SequentialComposition,
                    Theorem, drv_epsilon)

# My mechanism: a noisy bit that reports the truth with probability 3/4.
noisy_bit = FiniteMechanism({0: {0: sp.Rational(3, 4), 1: sp.Rational(1, 4)},
                             1: {0: sp.Rational(1, 4), 1: sp.Rational(3, 4)}})

CLAIMS = [
    Theorem("my.gaussian", ApproxDP(Gaussian(sigma=4, sensitivity=1), epsilon=1, delta=1e-5),
            source="Balle and Wang (2018), Thm 8"),
    Theorem("my.gaussian_too_small", ApproxDP(Gaussian(sigma=3, sensitivity=1), 1, 1e-5),
            source="my config", expect="refuted"),
    Theorem("my.two_bits", SequentialComposition(((noisy_bit, noisy_bit),)),
            source="basic composition: ln 3 + ln 3"),
    Theorem("my.daily_reports", ComposedDP(epsilon=0.1, k=100,
                                           epsilon_total=drv_epsilon(0.1, 100, 1e-5),
                                           delta_total=1e-5),
            source="Dwork, Rothblum, Vadhan (2010)"),
]
"""


def test_user_claims_file_with_approx_dp_and_composition(tmp_path, capsys):
    path = tmp_path / "my_claims.py"
    path.write_text(textwrap.dedent(README_CLAIMS))
    out = tmp_path / "out.json"
    assert main(["prove", str(path), "--json", str(out)]) == 0
    verdicts = {r["id"]: r["verdict"] for r in json.loads(out.read_text())["results"]}
    assert verdicts == {
        "my.gaussian": "certified",
        "my.gaussian_too_small": "refuted",
        "my.two_bits": "proved",
        "my.daily_reports": "certified",
    }
    text = capsys.readouterr().out
    assert "4 claims: 1 proved, 2 certified, 1 refuted; 0 not as expected" in text


def test_bad_delta_in_a_claims_file_is_exit_2(tmp_path, capsys):
    path = tmp_path / "bad.py"
    path.write_text(
        "from proofs import ApproxDP, Gaussian\nCLAIMS = [ApproxDP(Gaussian(3, 1), 1, 1.5)]\n"
    )
    assert main(["prove", str(path)]) == 2
    err = capsys.readouterr().err
    assert "delta=1.5 must be a number in [0, 1)" in err
