"""`dpaudit closeness` through `auditor.cli.main.main`: verdict, JSON, one-line errors, exit
codes."""

import json

import pytest

from auditor.cli import main


def _csv(tmp_path, text, name="t.csv"):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


SMALL = "age,zip,disease,income\n30,1,flu,3\n30,1,cancer,4\n40,2,flu,5\n\n40,2,flu,6\n50,1,hiv,11\n"


def test_cli_reports_worst_class_verdict_and_json(tmp_path, capsys):
    path, out = _csv(tmp_path, SMALL), tmp_path / "r.json"
    rc = main(
        [
            "closeness",
            path,
            "--qi",
            "age,zip",
            "--sensitive",
            "disease",
            "--epsilon",
            "0.5",
            "--json",
            str(out),
            "--top",
            "2",
        ]
    )
    assert rc == 1
    data = json.loads(out.read_text())
    assert data["schema_version"] == "1.0" and data["verdict"] == "not t-close"
    assert data["closeness"] == pytest.approx(0.8) and data["rows"] == 5
    assert data["worst"][0]["qi_values"] == {"age": "50", "zip": "1"}
    assert len(data["worst"]) == 2
    assert "not t-close" in capsys.readouterr().out
    assert main(["closeness", path, "--qi", "age", "--sensitive", "disease", "-t", "0.9"]) == 0


BAD = {
    "missing column": (
        "age,zip\n1,2\n",
        ["--qi", "age", "--sensitive", "disease"],
        "'disease' is not in the header",
    ),
    "empty file": ("", ["--qi", "a", "--sensitive", "b"], "is empty"),
    "header only": ("a,b\n", ["--qi", "a", "--sensitive", "b"], "no data rows"),
    "non-numeric ordered": (
        "a,b\n1,2\n1,high\n",
        ["--qi", "a", "--sensitive", "b", "--ordered"],
        "'high'",
    ),
    "short row": ("a,b,c\n1,2,3\n1\n", ["--qi", "a", "--sensitive", "c"], "data row 2"),
    "duplicate column": ("a,a,b\n1,2,3\n", ["--qi", "a", "--sensitive", "b"], "appears 2 times"),
    "sensitive is a QI": ("a,b\n1,2\n", ["--qi", "a,b", "--sensitive", "b"], "also a quasi"),
    "n too large": ("a,b\n1,2\n", ["--qi", "a", "--sensitive", "b", "--n", "5"], "n=5"),
    "n with kl": (
        "a,b\n1,2\n",
        ["--qi", "a", "--sensitive", "b", "--n", "1", "--distance", "kl"],
        "tv/l1/emd",
    ),
    "unclosed quote in --qi": ("a,b\n1,2\n", ["--qi", '"a,b', "--sensitive", "b"], "quote a name"),
    "empty --qi": ("a,b\n1,2\n", ["--qi", "", "--sensitive", "b"], "empty column name"),
    "negative t": ("a,b\n1,2\n", ["--qi", "a", "--sensitive", "b", "--epsilon", "-1"], "t=-1"),
    "not utf-8": (None, ["--qi", "a", "--sensitive", "b"], "not UTF-8"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_input_is_one_line_and_exit_2(case, tmp_path, capsys):
    text, args, needle = BAD[case]
    path = tmp_path / "bad.csv"
    if text is None:
        path.write_bytes(b"a,b\n1,\xff\xfe\n")
    else:
        path.write_text(text)
    assert main(["closeness", str(path), *args]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("dpaudit: error:") and "\n" not in err and "Traceback" not in err
    assert needle in err


def test_a_json_output_that_cannot_be_written_fails_before_the_work(tmp_path, capsys):
    table = tmp_path / "t.csv"
    table.write_text("a,b\n1,2\n")
    args = ["closeness", str(table), "--qi", "a", "--sensitive", "b", "--json", str(tmp_path)]
    assert main(args) == 2
    out, err = capsys.readouterr()
    assert not out and "is a folder" in err  # nothing computed and printed first


def test_unreadable_paths_exit_2(tmp_path, capsys):
    for path in (tmp_path / "missing.csv", tmp_path):
        assert main(["closeness", str(path), "--qi", "a", "--sensitive", "b"]) == 2
        err = capsys.readouterr().err.strip()
        assert "cannot be read" in err and "\n" not in err


def test_qi_is_read_as_a_csv_row_so_a_quoted_name_may_hold_commas(tmp_path, capsys):
    path = _csv(tmp_path, '"city, state",age,disease\n"a, b",1,flu\n"a, b",1,hiv\n"c, d",1,flu\n')
    out = tmp_path / "r.json"
    args = ["closeness", path, "--qi", '"city, state", age', "--sensitive", "disease"]
    assert main([*args, "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    assert data["qi"] == ["city, state", "age"] and data["classes"] == 2
    # unquoted, the same text names two columns that are not in the header
    assert main(["closeness", path, "--qi", "city, state", "--sensitive", "disease"]) == 2
    assert "'city' is not in the header" in capsys.readouterr().err


def test_an_undetermined_n_t_verdict_exits_4_not_0(tmp_path, monkeypatch, capsys):
    import auditor.closeness.reference as mod

    # As in the library test: every exact search "runs out of time" with a useless dual bound.
    monkeypatch.setattr(mod, "_continuous_start", lambda spec, n: (0.0, spec.big.copy()))
    monkeypatch.setattr(mod, "solve_step", lambda prog, spec, secs: (None, -1e9, 4))
    rows = "".join(f"{g},{s}\n" for g, s in [("a", "hiv"), ("a", "flu")] + [("b", "flu")] * 8)
    path, out = _csv(tmp_path, "g,s\n" + rows), tmp_path / "r.json"
    args = ["closeness", path, "--qi", "g", "--sensitive", "s", "-t", "0.3", "--n", "5"]
    assert main([*args, "--json", str(out)]) == 4
    assert json.loads(out.read_text())["verdict"] == "undetermined"
    assert "undetermined" in capsys.readouterr().out


OPPOSITE = "g,s\n" + "a,flu\n" * 4 + "b,hiv\n" * 4 + "c,flu\nc,hiv\n" * 2


def test_shared_asks_one_reference_set_for_every_class(tmp_path, capsys):
    """Classes all-flu and all-hiv each have a reference set at distance 0 (n = 2), but one set
    for both is at best 1/2 from each: (n, t)-close class by class, not as a partition."""
    path, out = _csv(tmp_path, OPPOSITE), tmp_path / "r.json"
    args = ["closeness", path, "--qi", "g", "--sensitive", "s", "-t", "0.1", "--n", "2"]
    assert main(args) == 0
    assert "(n,t)-close" in capsys.readouterr().out
    assert main([*args, "--shared", "--json", str(out)]) == 1
    text = capsys.readouterr().out
    assert "partition-level" in text and "not (n,t)-close" in text
    data = json.loads(out.read_text())
    assert data["closeness"] == pytest.approx(0.5) and data["violating_classes"] == 2
    ref = data["shared_reference"]
    assert ref["optimal"] and ref["size"] >= 2 and ref["counts"]["flu"] == ref["counts"]["hiv"]
    assert main([*args, "--shared", "-t", "0.5"]) == 0


def test_shared_without_n_is_bad_input(tmp_path, capsys):
    path = _csv(tmp_path, OPPOSITE)
    assert main(["closeness", path, "--qi", "g", "--sensitive", "s", "--shared"]) == 2
    err = capsys.readouterr().err
    assert "--n" in err and "\n" not in err.strip()


def test_a_shared_search_out_of_time_is_undetermined_unless_its_bound_decides(
    tmp_path, monkeypatch, capsys
):
    import auditor.closeness.shared as mod

    # no help from the continuous start either: the whole table, and the trivial lower bound
    monkeypatch.setattr(mod, "_continuous_start", lambda specs, n: (0.0, specs[0].big.copy()))
    monkeypatch.setattr(mod, "solve_step", lambda prog, spec, secs: (None, -1e9, 4))
    path = _csv(tmp_path, OPPOSITE)
    args = ["closeness", path, "--qi", "g", "--sensitive", "s", "--n", "2", "--shared"]
    assert main([*args, "-t", "0.1"]) == 4  # the whole table (0.5) is above t, the bound 0 not
    assert "undetermined" in capsys.readouterr().out
    monkeypatch.setattr(mod, "solve_step", lambda prog, spec, secs: (None, -0.2, 4))
    assert main([*args, "-t", "0.1"]) == 1  # dual bound 0.5 - 0.1 = 0.4 > t: proved not close


def test_a_row_with_more_fields_than_the_header_is_bad_input(tmp_path, capsys):
    """'1,a,b,flu' under 'age,zip,disease' (an unquoted comma) once shifted 'b' into the disease
    column and gave a closeness for the wrong table."""
    path = _csv(tmp_path, "age,zip,disease\n1,a,b,flu\n1,a,hiv\n2,b,flu\n")
    assert main(["closeness", path, "--qi", "age,zip", "--sensitive", "disease"]) == 2
    err = capsys.readouterr().err
    assert "data row 1" in err and "4 fields but the header has 3" in err


def test_the_json_cannot_overwrite_the_table(tmp_path, capsys):
    path = _csv(tmp_path, "g,s\na,flu\nb,hiv\n")
    before = open(path, encoding="utf-8").read()
    assert main(["closeness", path, "--qi", "g", "--sensitive", "s", "--json", path]) == 2
    assert "is the table, which the output would overwrite" in capsys.readouterr().err
    assert open(path, encoding="utf-8").read() == before
