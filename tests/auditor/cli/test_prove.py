"""`dpaudit prove`: exit codes, JSON contract, claims files and bad input."""

import json
import textwrap

import pytest

from auditor.cli import main

TWO_TRUE_CLAIMS = """
    import sympy as sp
    from proofs import AlphaCoinRR, Laplace, PureDP, Theorem, sym
    eps = sym("epsilon")
    CLAIMS = [PureDP(AlphaCoinRR(0.5), sp.log(3), exact=True),
              Theorem("my.laplace", PureDP(Laplace.calibrated(eps, 2), eps), source="DR14")]
"""


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return str(path)


def test_catalogue_json_has_the_contract_fields_and_exits_zero(tmp_path, capsys, monkeypatch):
    # a slice of the catalogue with expected proofs and refutations (`make test` runs all of it
    # against reports/proofs.json, where an entry missing from the run is a regression)
    import proofs.catalogue

    full = proofs.catalogue.catalogue()
    keep = {"rr.alpha_coin.exact", "gaussian.as_pure"}
    part = [t for t in full if t.id in keep] + full[:6]
    monkeypatch.setattr(proofs.catalogue, "catalogue", lambda: part)
    out = tmp_path / "out.json"
    assert main(["prove", "--quiet", "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    assert data["schema_version"] == "1.0"
    assert [r["id"] for r in data["results"]] == [t.id for t in part]
    verdicts = {r["id"]: r["verdict"] for r in data["results"]}
    assert verdicts["rr.alpha_coin.exact"] == "proved"
    assert verdicts["gaussian.as_pure"] == "refuted"
    for r in data["results"]:
        assert set(r) >= {"id", "statement", "verdict", "method", "counterexample", "seconds"}
        assert (r["counterexample"] is None) == (r["verdict"] != "refuted")


def test_user_claims_file_true_and_false(tmp_path, capsys):
    ok = _write(tmp_path, "ok.py", TWO_TRUE_CLAIMS)
    assert main(["prove", ok]) == 0
    bad = _write(
        tmp_path,
        "bad.py",
        """
        from proofs import AlphaCoinRR, PureDP
        CLAIMS = [PureDP(AlphaCoinRR(0.5), 1.0)]
    """,
    )
    out = tmp_path / "bad.json"
    assert main(["prove", bad, "--json", str(out)]) == 1
    result = json.loads(out.read_text())["results"][0]
    assert result["verdict"] == "refuted"
    assert result["id"] == "bad.py:CLAIMS[0]"
    assert result["counterexample"]["ratio"].endswith("= 3")


def test_expected_refutation_in_a_claims_file_exits_zero(tmp_path):
    f = _write(
        tmp_path,
        "known_false.py",
        """
        from proofs import Gaussian, PureDP, Theorem
        CLAIMS = [Theorem("g", PureDP(Gaussian(1, 1), 3), source="folklore", expect="refuted")]
    """,
    )
    assert main(["prove", f, "--quiet"]) == 0


BAD_FILES = {
    "negative_epsilon.py": (
        "from proofs import Laplace, PureDP\nCLAIMS = [PureDP(Laplace.calibrated(1, 1), -1)]\n",
        "epsilon=-1",
    ),
    "alpha_out_of_range.py": (
        "from proofs import AlphaCoinRR, PureDP\nCLAIMS = [PureDP(AlphaCoinRR(1.5), 1)]\n",
        "alpha=3/2",
    ),
    "does_not_import.py": ("import no_such_package_here\n", "does not import"),
    "syntax_error.py": ("CLAIMS = [\n", "does not import"),
    "no_claims.py": ("X = 1\n", "defines no CLAIMS"),
    "empty_claims.py": ("CLAIMS = []\n", "non-empty list"),
    "not_a_claim.py": ("CLAIMS = [42]\n", "not a claim"),
}


@pytest.mark.parametrize("name", sorted(BAD_FILES))
def test_bad_claims_files_give_one_line_and_exit_2(tmp_path, capsys, name):
    text, fragment = BAD_FILES[name]
    path = _write(tmp_path, name, text)
    assert main(["prove", path]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    assert "Traceback" not in err
    assert fragment in err


def test_missing_file_and_wrong_suffix(tmp_path, capsys):
    assert main(["prove", str(tmp_path / "nope.py")]) == 2
    assert main(["prove", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "does not exist" in err and "not a .py file" in err


def test_json_into_missing_folder_is_bad_input_and_leaves_nothing(tmp_path, capsys):
    assert main(["prove", "--quiet", "--json", str(tmp_path / "no" / "out.json")]) == 2
    assert not (tmp_path / "no").exists()


def test_baseline_detects_a_changed_verdict(tmp_path, capsys):
    # (`make test` compares the whole catalogue with reports/proofs.json; here, two claims)
    claims = _write(tmp_path, "claims.py", TWO_TRUE_CLAIMS)
    base = tmp_path / "base.json"
    assert main(["prove", claims, "--quiet", "--json", str(base)]) == 0
    assert main(["prove", claims, "--quiet", "--baseline", str(base)]) == 0
    data = json.loads(base.read_text())
    assert [r["verdict"] for r in data["results"]] == ["proved", "proved"]
    data["results"][0]["verdict"] = "unknown"
    base.write_text(json.dumps(data))
    capsys.readouterr()
    assert main(["prove", claims, "--quiet", "--baseline", str(base)]) == 1
    err = capsys.readouterr().err
    assert "regression" in err and data["results"][0]["id"] in err


def test_unknown_option_is_bad_input(capsys):
    assert main(["prove", "--no-such-flag"]) == 2
    assert "Traceback" not in capsys.readouterr().err


@pytest.mark.parametrize("make", ["missing", "directory", "corrupt", "results not a list"])
def test_a_bad_baseline_is_refused_before_any_claim_runs(make, tmp_path, capsys, monkeypatch):
    import proofs.prove

    base = tmp_path / "base"
    if make == "directory":
        base.mkdir()
    elif make == "corrupt":
        base.write_text("{not json")
    elif make == "results not a list":  # (its keys were read as no results: all "new")
        base.write_text('{"schema_version": "1", "results": {}}')
    ran = []
    monkeypatch.setattr(proofs.prove, "run_theorems", lambda *a, **k: ran.append(1))
    assert main(["prove", "--quiet", "--baseline", str(base)]) == 2
    err = capsys.readouterr().err
    assert not ran and "Traceback" not in err and str(base) in err and err.count("\n") == 1


def test_a_run_that_checked_nothing_leaves_the_outputs_alone(tmp_path, capsys):
    """Every claims file bad input: exit 2, and the --json and --report a user had are kept
    (they would only have been replaced by a list of the errors)."""
    bad = tmp_path / "bad.py"
    bad.write_text("CLAIMS = [\n")
    out, report = tmp_path / "out.json", tmp_path / "out.md"
    out.write_text("kept")
    report.write_text("kept too")
    assert main(["prove", str(bad), "--json", str(out), "--report", str(report)]) == 2
    assert out.read_text() == "kept" and report.read_text() == "kept too"
    assert "bad.py" in capsys.readouterr().err


def test_a_claims_file_given_twice_is_named_once(tmp_path, capsys):
    f = tmp_path / "c.py"
    f.write_text("from proofs import KAryRR, PureDP\nCLAIMS = [PureDP(KAryRR(1, 2), 1)]\n")
    assert main(["prove", str(f), str(f)]) == 2
    err = capsys.readouterr().err
    assert "is given twice; give it once" in err and "appears twice" not in err


def test_a_folder_given_as_claims_file_is_named_a_folder(tmp_path, capsys):
    folder = tmp_path / "claims.py"
    folder.mkdir()
    assert main(["prove", str(folder), "--quiet"]) == 2
    assert "is a folder" in capsys.readouterr().err
