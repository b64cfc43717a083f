"""The edges of the proof checker: general rules, tight cases, isolation of bad claims, names.

A general rule (composition, post-processing) is `proved` only by a symbolic argument, `refuted`
by an instance, and otherwise `checked` (never counted as a proof). Exactly tight claims are
decided. A claim that cannot be checked gets an `error` result and the run goes on.
"""

import ast
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import sympy as sp

from auditor.cli import main
from proofs import (
    D1,
    DEL,
    E0,
    E1,
    E2,
    EPS,
    ApproxDP,
    ComposedDP,
    FiniteMechanism,
    Gaussian,
    GroupPrivacy,
    K,
    Laplace,
    PostProcessing,
    ProofRun,
    PureDP,
    Rappor,
    RenyiGaussian,
    SequentialComposition,
    Theorem,
    Verdict,
    check,
    rr_table,
    run_theorems,
    sym,
)

R = sp.Rational
RR3 = rr_table(3)
CONSTANT = FiniteMechanism({0: {"a": 1}, 1: {"a": 1}}, name="constant")


@pytest.mark.parametrize(
    "claim",
    [
        SequentialComposition(((RR3, CONSTANT),), rule=sp.Max(E1, E2)),
        SequentialComposition(((RR3, CONSTANT),), rule=E1),
        SequentialComposition(((CONSTANT, CONSTANT),), rule=E1 + E2 - R(1, 100) * E1),
        SequentialComposition(
            ((CONSTANT, CONSTANT),), at=((0, 0),), delta_rule=D1 / 2, rule=(E1 + E2) / 2
        ),
        PostProcessing(((RR3, {0: "x", 1: "x"}),), rule=E0 / 2),
        PostProcessing(((RR3, {0: "x", 1: "x"}),), rule=E0 - sp.exp(-60) * E0),
    ],
)
def test_false_general_rules_are_refuted_by_a_generated_instance(claim):
    """Each listed instance satisfies the rule; the general theorem is still false."""
    result = check(claim)
    assert result.verdict is Verdict.REFUTED, result.summary()
    assert "generated instance" in result.counterexample.note


def test_a_listed_instance_that_violates_the_rule_is_the_counterexample():
    result = check(SequentialComposition(((RR3, RR3),), rule=E1 + E2 - R(1, 100)))
    assert result.verdict is Verdict.REFUTED
    assert result.counterexample.parameters["instance"] == 0


@pytest.mark.parametrize(
    "claim",
    [
        SequentialComposition(((RR3, RR3),)),
        SequentialComposition(((RR3, CONSTANT),), rule=2 * E1 + E2),
        SequentialComposition(((RR3, {0: RR3, 1: CONSTANT}),), rule=sp.Max(E1 + E2, 2 * E1)),
        SequentialComposition(((RR3, RR3),), at=((sp.log(3), sp.log(3)),)),
        PostProcessing(((RR3, {0: 1, 1: 0}),), at=(0, sp.log(2))),
        PostProcessing(((RR3, {0: "x", 1: "x"}),), rule=E0 + 1),
    ],
)
def test_true_general_rules_are_proved_symbolically(claim):
    result = check(claim)
    assert result.verdict is Verdict.PROVED, result.summary()
    assert any(step.startswith("dominance") and ": proved" in step for step in result.steps)


def test_a_rule_neither_proved_nor_refuted_is_checked_and_never_a_pass(tmp_path, capsys):
    # sin is outside the prover's fragment, and sin^2 >= 0 keeps every instance true
    claim = SequentialComposition(((RR3, RR3),), rule=E1 + E2 + sp.sin(E1) ** 2)
    result = check(claim)
    assert result.verdict is Verdict.CHECKED, result.summary()
    assert "listed instances only" in result.reason
    assert not result.verdict.holds and not result.as_expected
    run = run_theorems([Theorem("t", claim, source="test")])
    assert run.counts()["checked"] == 1 and run.counts()["proved"] == 0
    assert not run.all_as_expected
    path = tmp_path / "claims.py"
    path.write_text(
        "import sympy as sp\nfrom proofs import E1, E2, SequentialComposition, "
        "rr_table\nCLAIMS = [SequentialComposition(((rr_table(3), rr_table(3)),), "
        "rule=E1 + E2 + sp.sin(E1)**2)]\n"
    )
    out = tmp_path / "out.json"
    assert main(["prove", str(path), "--json", str(out)]) == 1
    data = json.loads(out.read_text())
    assert data["counts"]["checked"] == 1 and data["results"][0]["as_expected"] is False


def test_one_statement_written_two_ways_gets_one_verdict():
    pairs = [
        (
            SequentialComposition(((RR3, CONSTANT),), rule=sp.Max(E1, E2)),
            SequentialComposition(((RR3, RR3),), rule="max(epsilon_1, epsilon_2)"),
        ),
        (
            SequentialComposition(((RR3, RR3),)),
            SequentialComposition(
                ((RR3, CONSTANT),), rule=sp.Symbol("epsilon_1") + sp.Symbol("epsilon_2")
            ),
        ),
        (
            PostProcessing(((RR3, {0: "x", 1: "x"}),), rule=E0 / 2),
            PostProcessing(((RR3, {0: 1, 1: 0}),), rule="epsilon_0/2"),
        ),
        (
            ComposedDP(1, 3, 3, 0),
            ComposedDP(sym("epsilon"), sym("k"), sym("k") * sym("epsilon"), 0),
        ),
        (GroupPrivacy(K * EPS, 0, pure=True), GroupPrivacy("k*epsilon", "0", pure=True)),
        (
            GroupPrivacy(K * EPS, K * DEL),
            GroupPrivacy(sym("k") * sym("epsilon"), sym("k") * sym("delta")),
        ),
        (
            PureDP(Laplace.calibrated(sym("epsilon"), 1), sym("epsilon")),
            PureDP(Laplace(scale="1/epsilon", sensitivity=1), "epsilon"),
        ),
    ]
    for first, second in pairs:
        a, b = check(first).verdict, check(second).verdict
        assert a is b or {a, b} <= {Verdict.PROVED, Verdict.CERTIFIED}, (first, a, second, b)


# --- tight cases -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "claim",
    [
        ComposedDP(sym("epsilon"), sym("k"), sym("k") * sym("epsilon"), 0),
        ComposedDP(sym("epsilon"), 1, sym("epsilon"), 0),
        ComposedDP(R(1, 10), 10, 1, 0),
        ComposedDP(0.1, 100, 10, 0),
        ComposedDP(1, 1, 1, 0),
        ComposedDP(R(1, 2), 3, R(3, 2), R(3, 100), R(1, 100)),
    ],
)
def test_basic_composition_at_its_exact_total_is_proved(claim):
    assert check(claim).verdict is Verdict.PROVED, check(claim).summary()


@pytest.mark.parametrize(
    "claim",
    [
        ComposedDP(sym("epsilon"), sym("k"), sym("k") * sym("epsilon") / 2, 0),
        ComposedDP(sym("epsilon"), sym("k"), sym("k") * sym("epsilon") - sp.exp(-60), 0),
        ComposedDP(R(1, 10), 10, R(1) - sp.exp(-60), 0),
    ],
)
def test_basic_composition_below_its_total_is_refuted(claim):
    assert check(claim).verdict is Verdict.REFUTED, check(claim).summary()


@pytest.mark.parametrize(
    "claim",
    [
        ApproxDP(Laplace(10, 1), R(1, 20), 1 - sp.exp(-R(1, 40))),
        ApproxDP(Gaussian(1, 1), 0, sp.erf(sp.sqrt(2) / 4)),
        ApproxDP(Gaussian(2, 1), 0, 1 - sp.erfc(sp.sqrt(2) / 8)),
    ],
)
def test_privacy_profile_equality_cases_hold(claim):
    assert check(claim).verdict in (Verdict.PROVED, Verdict.CERTIFIED), check(claim).summary()


@pytest.mark.parametrize(
    "claim",
    [
        ApproxDP(Laplace(10, 1), R(1, 20), 1 - sp.exp(-R(1, 40)) - sp.exp(-80)),
        ApproxDP(Gaussian(1, 1), 0, sp.erf(sp.sqrt(2) / 4) - sp.exp(-70)),
    ],
)
def test_just_below_the_profile_is_refuted(claim):
    assert check(claim).verdict is Verdict.REFUTED, check(claim).summary()


@pytest.mark.parametrize("eps", [1, 100, 10**4])
def test_gaussian_under_a_pure_claim_is_refuted_with_a_rechecked_counterexample(eps):
    result = check(PureDP(Gaussian(1, 1), eps))
    assert result.verdict is Verdict.REFUTED, result.summary()
    cex = result.counterexample
    loss = sp.Rational(cex.ratio.split("= ")[-1])
    assert loss > eps  # the loss at the reported point exceeds the claim
    y, x, xp = (sp.Rational(v) for v in (cex.output, *cex.inputs))
    assert loss == ((y - xp) ** 2 - (y - x) ** 2) / 2  # and is the Gaussian's own log-ratio


@pytest.mark.parametrize("margin", [sp.exp(-60), sp.exp(-200), R(1, 10**40)])
def test_claims_a_hair_below_the_truth_are_never_proved(margin):
    """Exact values must never be replaced by nearby simple numbers (sympy.nsimplify does)."""
    alpha = R(1, 2)
    claims = [
        PureDP(rr_table(3), sp.log(3) - margin),
        PureDP(Laplace(1, 1), 1 - margin),
        ApproxDP(Laplace(10, 1), R(1, 20), 1 - sp.exp(-R(1, 40)) - margin),
        SequentialComposition(((RR3, RR3),), rule=E1 + E2 - margin),
        ComposedDP(1, 3, 3 - margin, 0),
    ]
    for claim in claims:
        assert check(claim).verdict not in (Verdict.PROVED, Verdict.CERTIFIED), claim
    assert check(PureDP(rr_table(3), sp.log(3))).verdict is Verdict.PROVED
    del alpha


def test_rappor_notes_two_dp_is_an_upper_bound_and_its_exact_value_a_separate_claim():
    from proofs.catalogue import catalogue

    entries = {t.id: t for t in catalogue()}
    upper = check(entries["rappor.notes_each_two_dp"])
    assert upper.verdict.holds and upper.as_expected
    exact_value = check(entries["rappor.notes_each_two_dp.exact_value"])
    assert exact_value.verdict is Verdict.PROVED
    assert check(entries["rappor.notes_each_two_dp.as_exact"]).verdict is Verdict.REFUTED
    chrome = Rappor(f=R(1, 2), p=R(1, 2), q=R(3, 4), h=2, reports="one")
    assert check(PureDP(chrome, 2 * sp.log(R(77, 45)) * R(99, 100))).verdict is Verdict.REFUTED


# --- natural input never crashes --------------------------------------------------------------


def test_group_privacy_with_user_symbols_matches_by_name():
    eps, k, delta = sym("epsilon"), sym("k"), sym("delta")
    assert check(GroupPrivacy(k * eps, 0, pure=True)).verdict is Verdict.PROVED
    assert check(GroupPrivacy(k * eps, k * delta)).verdict is Verdict.REFUTED
    plain = sp.Symbol("k") * sp.Symbol("epsilon")
    assert (
        check(
            GroupPrivacy(plain, plain * sp.Symbol("delta") / sp.Symbol("epsilon") * sp.exp(plain))
        ).verdict
        is Verdict.PROVED
    )


def test_renyi_bounds_with_plain_symbols():
    a, s, d = sp.symbols("alpha sigma Delta")
    assert check(RenyiGaussian(a * d**2 / (2 * s**2))).verdict is Verdict.PROVED
    assert check(RenyiGaussian(d**2 / (2 * s**2), per_alpha=True)).verdict is Verdict.PROVED
    assert check(RenyiGaussian(d**2 / (3 * s**2), per_alpha=True)).verdict is Verdict.REFUTED


# --- one bad claim is isolated ---------------------------------------------------------------


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return str(path)


def test_a_bad_claim_gets_an_error_result_and_the_others_still_run(tmp_path, capsys):
    path = _write(
        tmp_path,
        "mixed.py",
        """
        from proofs import Laplace, PureDP, Theorem
        CLAIMS = [
            Theorem("first", PureDP(Laplace(1, 1), 1), source="DR14"),
            Theorem("broken", PureDP(Laplace(-1, 1), 1), source="a typo"),
            42,
            Theorem("last", PureDP(Laplace(1, 1), 0.5), source="DR14", expect="refuted"),
        ]
    """,
    )
    out = tmp_path / "out.json"
    assert main(["prove", path, "--json", str(out)]) == 2
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err + captured.out
    err_lines = captured.err.strip().splitlines()
    assert len(err_lines) == 2
    assert "broken" in err_lines[0] and "scale=-1" in err_lines[0] and path in err_lines[0]
    assert "mixed.py:CLAIMS[2]" in err_lines[1] and "not a claim" in err_lines[1]
    results = {r["id"]: r for r in json.loads(out.read_text())["results"]}
    assert results["first"]["verdict"] == "proved"
    assert results["last"]["verdict"] == "refuted"
    assert results["broken"]["verdict"] == "error" and results["broken"]["file"] == path
    assert "scale=-1" in results["broken"]["reason"]


def test_a_file_that_does_not_load_is_an_error_and_other_files_still_run(tmp_path, capsys):
    good = _write(
        tmp_path,
        "good.py",
        """
        from proofs import Laplace, PureDP
        CLAIMS = [PureDP(Laplace(1, 1), 1)]
    """,
    )
    bad = _write(tmp_path, "bad.py", "CLAIMS = [\n")
    out = tmp_path / "out.json"
    assert main(["prove", bad, good, "--json", str(out)]) == 2
    results = json.loads(out.read_text())["results"]
    assert [r["verdict"] for r in results] == ["error", "proved"]
    assert results[0]["id"] == bad and "does not import" in results[0]["reason"]
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


def test_repeated_ids_are_errors_not_an_abort(tmp_path, capsys):
    path = _write(
        tmp_path,
        "twice.py",
        """
        from proofs import Laplace, PureDP, Theorem
        CLAIMS = [Theorem("same", PureDP(Laplace(1, 1), 1), source="a"),
                  Theorem("same", PureDP(Laplace(2, 1), 1), source="b")]
    """,
    )
    assert main(["prove", path, "--quiet"]) == 2
    assert "appears twice" in capsys.readouterr().err


def test_an_error_never_counts_as_a_pass():
    run = run_theorems(
        [
            Theorem("bad", PureDP(Laplace(-1, 1), 1), source="x"),
            Theorem("ok", PureDP(Laplace(1, 1), 1), source="x"),
        ]
    )
    assert isinstance(run, ProofRun)
    assert [r.verdict for r in run.results] == [Verdict.ERROR, Verdict.PROVED]
    assert not run.results[0].as_expected and not run.all_as_expected
    assert run.counts()["error"] == 1 and run.errors[0].id == "bad"


# --- names -------------------------------------------------------------------------------------


def test_check_is_the_function_whatever_was_imported_first():
    """`check` is exported from proofs.dispatch: no submodule of that name can shadow it."""
    code = "from proofs import run_theorems\nfrom proofs import check\nprint(callable(check))\n"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "True", "`from proofs import check` is not the function"


def test_the_catalogue_is_written_in_exported_names_only():
    """Every name the catalogue modules use from the package is part of `proofs.__all__`, so a
    user can state each catalogue claim in a claims file."""
    import proofs

    folder = Path(proofs.__file__).parent / "catalogue"
    for module in sorted(p.name for p in folder.glob("*.py") if p.name != "__init__.py"):
        tree = ast.parse((folder / module).read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("proofs"):
                assert node.module == "proofs", f"{module} imports from {node.module}"
                for alias in node.names:
                    if alias.name.startswith("_"):
                        continue  # a catalogue module, not a name
                    assert alias.name in proofs.__all__, alias.name
                    getattr(proofs, alias.name)
    for name in ("K", "EPS", "DEL", "N", "N1", "E0", "E1", "E2", "notes_sigma", "classical_sigma"):
        assert name in proofs.__all__


def test_fraction_and_rational_are_accepted_wherever_a_number_is():
    from fractions import Fraction as F

    import numpy as np

    from proofs import (
        calibrate_gaussian,
        drv_epsilon,
        gaussian_delta,
        kov_epsilon,
        laplace_delta,
        rdp_epsilon,
    )

    for tenth in (F(1, 10), sp.Rational(1, 10), 0.1, np.float64(0.1)):
        assert (
            sp.simplify(
                drv_epsilon(tenth, 100, F(1, 10**5))
                - drv_epsilon(sp.Rational(1, 10), 100, sp.Rational(1, 10**5))
            )
            == 0
        )
        assert kov_epsilon(tenth, 100, F(1, 10**5))[0] == sp.Rational(22, 5)
        assert check(ComposedDP(tenth, F(10), 1, 0)).verdict is Verdict.PROVED
    assert float(gaussian_delta(F(1), F(3), F(1)).mid()) == pytest.approx(2.075122e-4, rel=1e-6)
    assert calibrate_gaussian(F(1), F(1, 10**5)).sigma == pytest.approx(3.7306316, rel=1e-7)
    assert laplace_delta(F(1, 20), F(10), F(1)) == 1 - sp.exp(-R(1, 40))
    assert rdp_epsilon([(Gaussian(F(3), 1), F(10))], F(1, 10**5)).epsilon == pytest.approx(
        5.0239498, rel=1e-7
    )
    assert check(GroupPrivacy("2*epsilon", 0, k=F(2), pure=True)).verdict is Verdict.PROVED
    assert (
        check(PureDP(Laplace(np.float64(1), np.int64(1)), np.float32(1))).verdict is Verdict.PROVED
    )
