"""A Hypothesis fuzz of `dpaudit audit` arguments and pairs files: every run exits with one of
the contract's codes (0, 1, 2, 4) and never prints a traceback."""

from __future__ import annotations

import contextlib
import io
import json
import tempfile
import warnings
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from auditor.cli import main

GOOD = ["0.5", "1", "0.9", "2"]  # listed often: most runs get past argument checking
BAD = ["nan", "inf", "-inf", "-1", "0", "1e-9", "x", "1e400", ""]
numbers = st.one_of(st.sampled_from(GOOD * 6 + BAD), st.floats(-3, 3, allow_nan=False).map(repr))
json_values = st.one_of(
    st.sampled_from(["NaN", "Infinity", "[1, 2]", "{", "null", '"a"', "[]", "[[1]]", "1e999"]),
    st.integers(-3, 3).map(str),
    st.floats(-2, 2, allow_nan=False).map(repr),
)
pairs_files = st.one_of(
    st.just("[[0, 1]]"),
    st.just("[]"),
    st.just("{not json"),
    st.just('[{"a": 0, "b": NaN}]'),
    st.lists(st.tuples(json_values, json_values), max_size=3).map(
        lambda ps: "[" + ", ".join(f"[{a}, {b}]" for a, b in ps) + "]"
    ),
)


@st.composite
def arguments(draw, folder: Path) -> list[str]:
    targets = ["laplace", "rr.k_ary", "noisy_hist2"] * 4 + ["laplac", "no.module:f"]
    args = ["audit", draw(st.sampled_from(targets))]
    args += ["--epsilon", draw(numbers)]
    for flag, values in (  # each flag in one run of three
        ("--delta", numbers),
        ("--confidence", numbers),
        ("--sensitivity", numbers),
        ("--seed", st.sampled_from(["0", "7"] * 4 + ["-1", "x"])),
        ("--relation", st.sampled_from(["any", "add_remove", "sensitivity"] * 3 + ["nope"])),
        ("--inconclusive-factor", numbers),
    ):
        if draw(st.integers(0, 2)) == 0:
            args += [flag, draw(values)]
    args += ["--samples", draw(st.sampled_from(["300", "1000", "2e3"] * 4 + ["10", "1.5", "x"]))]
    choice = draw(st.sampled_from(["pair", "file", "none"]))
    if choice == "pair":
        args += ["--pair", draw(json_values), draw(json_values)]
    elif choice == "file":
        path = folder / "pairs.json"
        path.write_text(draw(pairs_files))
        args += ["--pairs", str(path)]
    if draw(st.booleans()):
        args += ["--json", str(folder / draw(st.sampled_from(["r.json", "missing/r.json"])))]
    if draw(st.booleans()):
        args += ["--report", str(folder / draw(st.sampled_from(["r.html", "r.md", "r.txt"])))]
    return [*args, "--quiet", "--workers", "1"]


FOLDER = Path(tempfile.mkdtemp(prefix="dpaudit-fuzz-"))


@settings(max_examples=80, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(args=arguments(FOLDER))
def test_random_cli_arguments_exit_with_a_contract_code_and_no_traceback(args):
    err = io.StringIO()
    with (
        warnings.catch_warnings(record=True) as caught,
        contextlib.redirect_stderr(err),
        contextlib.redirect_stdout(io.StringIO()),
    ):
        warnings.simplefilter("always")
        code = main(args)
    assert code in (0, 1, 2, 4), (args, code, err.getvalue())
    assert "Traceback" not in err.getvalue(), (args, err.getvalue())
    leaked = [w for w in caught if issubclass(w.category, RuntimeWarning)]
    assert not leaked, (args, [str(w.message) for w in leaked])  # no numpy warnings leak
    if code == 2:
        assert len([ln for ln in err.getvalue().splitlines() if ln.strip()]) == 1, err.getvalue()
    result = FOLDER / "r.json"
    if code != 2 and result.exists():
        json.loads(result.read_text())  # whatever was written is valid JSON
