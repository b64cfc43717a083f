"""`dpaudit audit` through `auditor.cli.main.main`: exit codes, JSON contract, one-line errors."""

from __future__ import annotations

import json
import textwrap

import pytest

from auditor.cli import main
from tests.auditor.contract import AUDIT_JSON_KEYS

REQUIRED = AUDIT_JSON_KEYS


@pytest.fixture()
def mechfile(tmp_path):
    path = tmp_path / "mechs.py"
    path.write_text(
        textwrap.dedent("""
        import random
        import numpy as np

        def lap(data):
            # rounded to 2^-20: raw doubles would leak the input through low bits (Mironov 2012)
            return round((data + random.expovariate(1.0) - random.expovariate(1.0)) * 2**20) / 2**20

        def raw_lap(data):
            return data + random.expovariate(1.0) - random.expovariate(1.0)

        def leaky(data, size, rng):
            return np.full(size, float(data)) + rng.integers(0, 2, size)

        def boom(data):
            raise RuntimeError("kaboom")

        def nan(data):
            return float("nan")

        def mixed(data, size):
            return [1.0] * (size - 1) + ["x"]

        def short(data, size):
            return [1.0] * (size - 1)

        not_callable = 3
    """)
    )
    return path


def _one_line_error(capsys) -> str:
    err = capsys.readouterr().err
    assert "Traceback" not in err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1, err
    return lines[0]


def test_catalogue_target_json(tmp_path, capsys):
    out = tmp_path / "r.json"
    code = main(
        [
            "audit",
            "laplace",
            "--epsilon",
            "1",
            "--samples",
            "20000",
            "--seed",
            "3",
            "--json",
            str(out),
        ]
    )
    assert code == 0
    d = json.loads(out.read_text())
    for key in REQUIRED:
        assert key in d
    assert d["violation"] is False and d["seed"] == 3 and d["samples"] == 20000
    assert {"pair", "event", "counts"} <= set(d["witness"])
    assert "no violation found" in capsys.readouterr().out
    assert not list(tmp_path.glob(".r.json.*"))  # no temp file left behind


def test_violation_exit_code_and_report(tmp_path, capsys):
    out, rep = tmp_path / "r.json", tmp_path / "r.md"
    code = main(
        [
            "audit",
            "noisy_hist2",
            "--epsilon",
            "0.1",
            "--samples",
            "20000",
            "--json",
            str(out),
            "--report",
            str(rep),
            "--quiet",
        ]
    )
    assert code == 1
    d = json.loads(out.read_text())
    assert d["violation"] is True and d["epsilon_lower_bound"] > 3
    assert capsys.readouterr().out == ""
    assert "noisy_hist2" in rep.read_text()


def test_html_report(tmp_path):
    rep = tmp_path / "r.html"
    # a verdict, either way: a correct entry audited at its exact epsilon alarms on up to 5%
    # of seeds (this one does); the report is the subject
    args = ["audit", "laplace", "--epsilon", "1", "--samples", "20000", "--quiet"]
    assert main([*args, "--report", str(rep)]) in (0, 1)
    assert rep.read_text().lstrip().lower().startswith("<!doctype html")


def test_file_target_with_pairs(mechfile, tmp_path):
    pairs = tmp_path / "pairs.json"
    pairs.write_text(json.dumps([[0, 1]]))
    code = main(
        [
            "audit",
            f"{mechfile}:leaky",
            "--epsilon",
            "1",
            "--pairs",
            str(pairs),
            "--samples",
            "5000",
            "--quiet",
        ]
    )
    assert code == 1


def test_scalar_python_mechanism(mechfile):
    code = main(
        [
            "audit",
            f"{mechfile}:lap",
            "--epsilon",
            "1",
            "--pair",
            "0",
            "1",
            "--samples",
            "20000",
            "--quiet",
        ]
    )
    assert code == 0


def test_raw_float_python_laplace_is_caught(mechfile):
    code = main(
        [
            "audit",
            f"{mechfile}:raw_lap",
            "--epsilon",
            "1",
            "--pair",
            "0",
            "1",
            "--samples",
            "20000",
            "--quiet",
        ]
    )
    assert code == 1


def test_generated_pairs_under_relation(mechfile):
    code = main(
        [
            "audit",
            "laplace",
            "--epsilon",
            "0.1",
            "--relation",
            "sensitivity",
            "--size",
            "1",
            "--samples",
            "5000",
            "--quiet",
        ]
    )
    assert code == 0  # nothing found; at 5000 samples a balanced event detects 2 x 0.1


@pytest.mark.parametrize(
    "argv, needle",
    [
        (["audit", "no_such_pkg.mod:f", "--epsilon", "1", "--pair", "0", "1"], "no_such_pkg.mod"),
        (["audit", "missing/file.py:f", "--epsilon", "1", "--pair", "0", "1"], "missing/file.py"),
        (["audit", "not_in_catalogue", "--epsilon", "1"], "not_in_catalogue"),
        (["audit", "laplace", "--epsilon", "1", "--pair", "abc", "1"], "'abc'"),
        (
            [
                "audit",
                "laplace",
                "--epsilon",
                "1",
                "--relation",
                "replace-one",
                "--pair",
                "[1,2]",
                "[3,4]",
            ],
            "not neighbouring",
        ),
        (
            ["audit", "laplace", "--epsilon", "1", "--relation", "sensitivity", "--pair", "0", "5"],
            "not neighbouring",
        ),
        (["audit", "laplace", "--epsilon", "8", "--samples", "1000"], "samples=1000"),
        (["audit", "laplace", "--epsilon", "1000"], "cannot be refuted"),
        (["audit", "laplace", "--epsilon", "1", "--delta", "1.5"], "delta=1.5"),
        (["audit", "laplace", "--epsilon", "-1"], "epsilon=-1"),
        (["audit", "laplace", "--epsilon", "1", "--confidence", "1.5"], "confidence=1.5"),
        (["audit", "laplace"], "--epsilon"),
        (["audit", "laplace", "--epsilon", "1", "--report", "out.txt"], ".html"),
        (["audit", "laplace", "--epsilon", "0", "--samples", "2000"], "--epsilon 0: the catalog"),
        (
            ["audit", "laplace", "--epsilon", "1", "--json", "same.md", "--report", "same.md"],
            "--json and --report both name 'same.md'",
        ),
    ],
)
def test_bad_input_is_one_line_exit_2(argv, needle, capsys):
    assert main(argv) == 2
    line = _one_line_error(capsys)
    assert needle in line


@pytest.mark.parametrize(
    "name, needle",
    [
        ("boom", "kaboom"),
        ("nan", "nan"),
        ("mixed", "sample index 7"),
        ("short", "returned 7 outputs for size=8"),
        ("not_callable", "not callable"),
        ("absent", "no attribute"),
    ],
)
def test_bad_mechanism_is_one_line_exit_2(mechfile, name, needle, capsys):
    code = main(
        ["audit", f"{mechfile}:{name}", "--epsilon", "1", "--pair", "0", "1", "--samples", "5000"]
    )
    assert code == 2
    assert needle in _one_line_error(capsys)


def test_bad_pairs_file(tmp_path, capsys):
    bad = tmp_path / "p.json"
    bad.write_text("[[0, 1]")
    assert main(["audit", "laplace", "--epsilon", "1", "--pairs", str(bad)]) == 2
    assert "not JSON" in _one_line_error(capsys)


def test_list_keeps_its_columns_for_every_name(capsys):
    """A fixed 27-character name column let longer names push their rows aside."""
    from auditor.catalogue import CATALOGUE

    assert main(["list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    rows = [line for line in lines if line.split(" ", 1)[0] in CATALOGUE]
    assert len(rows) == len(CATALOGUE)
    claim_at = {line.index("(") for line in rows}  # the claim column starts alike everywhere
    assert len(claim_at) == 1 and lines[0].index("claim") in claim_at


@pytest.mark.parametrize("how", ["raises", "hangs"])
def test_a_report_whose_plots_fail_keeps_the_verdict(tmp_path, capsys, monkeypatch, how):
    """The plots sample the mechanism again after the audit: a mechanism that raises or hangs
    there gives a report without plots and a warning; the verdict keeps its exit code (1) and
    --max-time holds (a hang was cut nowhere, and a raise was exit 2 hiding the violation)."""
    import time

    import auditor.engine.deadline as deadline
    import auditor.reports.demo_audit as demo

    def broken(result, func, samples=None):
        if how == "raises":
            raise RuntimeError("fails while plotting")
        time.sleep(60)

    monkeypatch.setattr(demo, "with_plots", broken)
    monkeypatch.setattr(deadline, "GUARD_SECONDS", 0.5)
    out, rep = tmp_path / "r.json", tmp_path / "r.html"
    args = ["audit", "noisy_hist2", "--epsilon", "0.1", "--samples", "20000", "--quiet"]
    start = time.perf_counter()
    assert main([*args, "--max-time", "1", "--json", str(out), "--report", str(rep)]) == 1
    assert time.perf_counter() - start < 30
    assert json.loads(out.read_text())["violation"] is True
    assert rep.read_text().lstrip().lower().startswith("<!doctype html")
    err = capsys.readouterr().err
    why = "fails while plotting" if how == "raises" else "the time limit passed"
    assert f"the report has no plots: drawing them failed ({why})" in err
