"""Bad input fails before any sampling, in one line, exit 2; outputs are written together."""

from __future__ import annotations

import json
import math
import os

import numpy as np
import pytest
from scipy import stats

import auditor
from auditor.cli import main
from auditor.engine.events import FloatMultiple
from auditor.reports.html import md_cell, md_code
from proofs import InputError
from proofs.io import write_files_atomic


def _never_called(data, size, rng):
    raise AssertionError("the mechanism ran before the input was checked")


@pytest.fixture()
def target(tmp_path):
    path = tmp_path / "mech.py"
    path.write_text(
        "def never(data, size, rng):\n    raise AssertionError('sampled before checking')\n"
    )
    return f"{path}:never"


@pytest.mark.parametrize(
    "extra, needle",
    [
        (["--pair", "NaN", "1"], "NaN or infinity"),
        (["--pair", "[1, Infinity]", "[1, 1]"], "NaN or infinity"),
        (["--pair", "0", "1", "--seed", "-1"], "seed=-1"),
        (["--pair", "0", "1", "--confidence", "1e-9"], "confidence=1e-09"),
        (["--relation", "sensitivity", "--sensitivity", "-1"], "sensitivity=-1.0"),
        (["--pair", "0", "1", "--json", "/nonexistent-folder/r.json"], "does not exist"),
        (["--pair", "0", "1", "--report", "/nonexistent-folder/r.html"], "does not exist"),
        (["--pair", "0", "1", "--json", "."], "is a folder"),
        (["--pair", "0", "1", "--report", "new.md/"], "a folder's mark"),
        # no file can be made there (root passed the mode check, and found out after the run)
        (["--pair", "0", "1", "--report", "/proc/r.md"], "'/proc/r.md'"),
        (["--pair", "0", "1", "--semantics", "exact"], "--semantics"),
        # argparse took these for options ("expected one argument", naming no value)
        (["--pair", "0", "1", "--delta", "-1e-5"], "delta=-1e-05"),
        (["--pair", "0", "1", "--delta", "-2E+0"], "delta=-2.0"),
        (["--pair", "0", "1", "--max-time", "-inf"], "-inf"),
        (["--pair", "0", "1", "--max-time", "1e10"], "1e+09"),  # (the alarm timer overflows)
        # Python reads full-width and grouped digits; a typo or a paste could give them
        (["--pair", "0", "1", "--seed", "\uff11"], "ASCII characters"),
        (["--pair", "0", "1", "--confidence", "0.9_5"], "ASCII characters"),
        # misspelt options were reported as a missing required one, never named
        (["--pair", "0", "1", "--confidance", "0.9"], "--confidance (did you mean --confidence?)"),
        ([], "give --pair A B"),
        (["--pair", "0", "1", "--search", "hypothesis"], "--search hypothesis"),
        (["--pair", "0", "1", "--scheduler", "tcp://127.0.0.1:1"], "--executor dask"),
    ],
)
def test_bad_cli_input_is_one_line_before_sampling(target, extra, needle, capsys):
    assert main(["audit", target, "--epsilon", "1", "--samples", "1000", *extra]) == 2
    err = capsys.readouterr().err
    assert needle in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_api_errors_name_parameters_not_flags():
    for kw in (dict(epsilon=-1), dict(samples=10), dict(seed=-3), dict(semantics="x")):
        args = dict(epsilon=1.0, samples=1000) | kw
        with pytest.raises(InputError) as err:
            auditor.audit(_never_called, [(0, 1)], **args)
        assert "--" not in str(err.value), str(err.value)


def test_infinite_outputs_are_rejected_like_nan():
    def inf_out(data, size, rng):
        return np.where(rng.random(size) < 0.5, np.inf, 0.0)

    with pytest.raises(InputError, match="infinity is not an output"):
        auditor.audit(inf_out, [(0, 1)], epsilon=1.0, samples=1000)


def test_events_and_markdown_print_safely():
    assert "2^3" in FloatMultiple(-3).describe() and "2^--" not in FloatMultiple(-3).describe()
    assert md_cell("<script>x</script>|y") == "&lt;script&gt;x&lt;/script&gt;\\|y"
    # what would be emphasis, code, a link or strikethrough shows as written
    assert md_cell("**b** `c` [l](u) ~~s~~ _e_ a_b") == (
        "\\*\\*b\\*\\* \\`c\\` \\[l\\](u) \\~\\~s\\~\\~ \\_e\\_ a_b"
    )
    # a code span: no entities (they show as typed there), a fence longer than any backtick run
    assert md_code("a<b&c") == "`a<b&c`" and md_code("x``y") == "```x``y```"
    assert md_code("`q|r`") == "`` `q\\|r` ``" and md_code("q|r", table=False) == "`q|r`"


def test_markdown_reports_keep_their_figures_out_of_the_table(tmp_path):
    """The figure links followed the last table row (GFM reads them as rows), a path with
    spaces made no link, and the file ended without a newline."""
    from auditor.reports.audit import write_audit_report

    def words(data, size, rng):
        return np.where(rng.random(size) < 0.7 if data else rng.random(size) < 0.3, "**a**", "b")

    r = auditor.audit(words, [(0, 1)], epsilon=0.1, samples=2000, workers=1)
    from auditor.reports.demo_audit import with_plots

    path = tmp_path / "my report (1).md"
    write_audit_report(with_plots(r, words), str(path))
    text = path.read_text()
    assert text.endswith("\n") and "\\*\\*a\\*\\*" in text
    lines = text.splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("!["))
    assert lines[first - 1] == "" and lines[first - 2].startswith("| ")
    assert "](<my report (1).outputs.svg>)" in text


def test_report_checks_field_types(tmp_path, capsys):
    good = auditor.audit(lambda d, size, rng: rng.random(size) < 0.5, [(0, 1)], epsilon=1.0)
    d = good.to_dict()
    d["epsilon_lower_bound"] = "big"
    path = tmp_path / "r.json"
    path.write_text(json.dumps(d))
    assert main(["report", str(path), "-o", str(tmp_path / "r.html")]) == 2
    assert "epsilon_lower_bound='big'" in capsys.readouterr().err
    # a result of another major schema version is refused, as replay refuses it
    for version in ("99.0", None, 3):
        d = good.to_dict()
        d["schema_version"] = version
        path.write_text(json.dumps(d))
        assert main(["report", str(path), "-o", str(tmp_path / "r.html")]) == 2
        err = capsys.readouterr().err
        assert f"has schema_version={version!r}, not " in err and len(err.splitlines()) == 1
        assert main(["replay", str(path)]) == 2
        assert f"schema_version={version!r}" in capsys.readouterr().err
    assert not (tmp_path / "r.html").exists()


def test_an_interrupt_while_writing_leaves_every_old_file(tmp_path, monkeypatch):
    a, b = tmp_path / "r.json", tmp_path / "r.html"
    a.write_text("old json")
    b.write_text("old html")

    import proofs.io as pio

    real = pio._temp_copy
    calls = []

    def flaky(target, text):
        calls.append(target)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(target, text)

    monkeypatch.setattr(pio, "_temp_copy", flaky)
    with pytest.raises(KeyboardInterrupt):
        write_files_atomic({a: "new json", b: "new html"})
    assert a.read_text() == "old json" and b.read_text() == "old html"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.html", "r.json"]  # no temp left


def test_an_empty_vector_output_is_a_one_line_error(capsys):
    """Found by the CLI fuzz: an empty dataset made a histogram with no bins."""
    with pytest.raises(InputError, match="empty output"):
        auditor.audit(lambda d, size, rng: np.zeros((size, 0)), [(0, 1)], epsilon=1.0)
    args = ["audit", "noisy_hist2", "--epsilon", "0.5", "--pair", "[]", "[1, 2]"]
    assert main([*args, "--samples", "300"]) == 2
    assert "empty output" in capsys.readouterr().err


@pytest.mark.parametrize(
    "profile, needle",
    [
        ("gauss:1", "profile kind 'gauss' is unknown"),
        ("gaussian:0", "sigma='0' must be a number > 0"),
        ("gaussian:-1:1", "sigma='-1'"),
        ("gdp:x", "mu='x'"),
        ("zcdp:0", "rho='0'"),
        ("rdp:/nonexistent-folder/p.json", "does not exist"),
        ("pld", "must be KIND:PARAMS"),
    ],
)
def test_bad_profiles_are_one_line_before_sampling(target, profile, needle, capsys):
    argv = ["audit", target, "--profile", profile, "--pair", "0", "1", "--samples", "1000"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert needle in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_malformed_profile_file_is_one_line(target, tmp_path, capsys):
    path = tmp_path / "pld.json"
    path.write_text('{"epsilons": [0, 1], "deltas": [0.1]}')
    argv = ["audit", target, "--profile", f"pld:{path}", "--pair", "0", "1"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "have 2 and 1 entries" in err and len(err.strip().splitlines()) == 1


def test_profile_and_epsilon_exclude_each_other(target, capsys):
    argv = ["audit", target, "--profile", "gdp:1", "--epsilon", "1", "--pair", "0", "1"]
    assert main(argv) == 2
    assert "not allowed with" in capsys.readouterr().err


def _rr(data, size, rng):
    return np.where(rng.random(size) < 0.5, int(data), rng.integers(0, 2, size))


@pytest.mark.parametrize(
    "kwargs, needle",
    [
        (dict(pairs=5), "pairs=5 is not a list"),
        (dict(pairs="01"), "is not a list"),
        (dict(selection_samples=100.5), "selection_samples=100.5 must be an integer"),
        (dict(max_certified=2.5), "max_certified=2.5 must be an integer"),
        (dict(pairs=None, relation="add-remove", size=10**9), "size=1000000000 must be"),
        (dict(pairs=None, relation="add-remove", size=2.5), "size=2.5 must be"),
    ],
)
def test_api_arguments_are_checked_before_sampling(kwargs, needle):
    args = dict(pairs=[(0, 1)], epsilon=1.0, samples=5_000, progress=False) | kwargs
    with pytest.raises(InputError, match=needle) as err:
        auditor.audit(_never_called, **args)
    assert "\n" not in str(err.value)


def test_odd_outputs_and_pairs_are_one_line_errors_or_audited():
    with pytest.raises(InputError, match="ragged nested output") as err:
        auditor.audit(lambda data: [[1, 2], [3]], [(0, 1)], epsilon=1, samples=5_000)
    assert "\n" not in str(err.value)
    # a vector on some calls and a number on others: the first output of another shape named
    batch = lambda data, size: [[1] if i % 3 == 2 else 1 for i in range(size)]
    with pytest.raises(InputError, match=r"returned \[1\] at sample index 2: its shape") as err:
        auditor.audit(batch, [(0, 1)], epsilon=1, samples=5_000)
    assert "\n" not in str(err.value)
    # a pair too far apart for a float is not within the sensitivity: a one-line error
    with pytest.raises(InputError, match="sensitivity"):
        auditor.audit(_rr, [(10**400, 0)], epsilon=1, relation="sensitivity", samples=5_000)
    # long doubles are read as doubles (rounding is post-processing); _rr is ln 3-DP
    r = auditor.audit(
        lambda d, size, rng: _rr(d, size, rng).astype(np.longdouble),
        [(0, 1)],
        epsilon=2,
        samples=5_000,
        seed=1,
        progress=False,
    )
    assert not r.violation and r.to_dict()["witness"]["event_state"]


def test_a_pairs_file_that_is_not_text_is_one_line(tmp_path, capsys):
    path = tmp_path / "pairs.json"
    path.write_bytes(b"\xff\xfe")
    mech = tmp_path / "m.py"
    mech.write_text("def f(data):\n    return 0\n")
    assert main(["audit", f"{mech}:f", "--epsilon", "1", "--pairs", str(path)]) == 2
    assert "not UTF-8" in capsys.readouterr().err


def test_more_files_and_folders_that_are_one_line_errors(tmp_path, capsys):
    binary = tmp_path / "bin.json"
    binary.write_bytes(b"\xff")
    assert main(["report", str(binary), "-o", str(tmp_path / "r.html")]) == 2
    blocked = tmp_path / "a_file"
    blocked.write_text("x")
    assert main(["demo", "--quick", "--out", str(blocked)]) == 2
    assert main(["demo", "--quick", "--out", str(blocked / "sub")]) == 2
    assert blocked.read_text() == "x"
    exits = tmp_path / "exits.py"
    exits.write_text("import sys\nsys.exit('bye')\n")
    assert main(["prove", str(exits)]) == 2
    assert main(["audit", f"{exits}:f", "--epsilon", "1", "--pair", "0", "1"]) == 2
    err = capsys.readouterr().err
    assert "SystemExit" in err and "Traceback" not in err


def test_a_replayed_event_whose_numbers_overflow_is_one_line(tmp_path):
    r = auditor.audit(_rr, [(0, 1)], epsilon=2, samples=5_000, seed=1, progress=False)
    d = r.to_dict()
    d["witness"]["event_state"] = {
        "type": "FloatMultiple",
        "k": 10**30,
        "negate": True,
        "coord": None,
    }
    with pytest.raises(InputError) as err:
        auditor.replay(d, _rr, samples=1_000)
    assert "\n" not in str(err.value)


def _one_line(capsys) -> str:
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    return err


def test_an_output_never_overwrites_an_input(tmp_path, capsys, monkeypatch):
    """Each output is refused, before any work, when it names a file the run reads."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pairs.json").write_text("[[0, 1]]")
    (tmp_path / "mech.py").write_text("def f(data, size, rng):\n    return rng.random(size)\n")
    (tmp_path / "claims.py").write_text("CLAIMS = []\n")
    (tmp_path / "base.json").write_text("{}")
    (tmp_path / "result.json").write_text("{}")
    runs = [
        (
            ["audit", "laplace", "--epsilon", "1", "--pairs", "pairs.json", "--json", "pairs.json"],
            "pairs.json",
            "the --pairs file",
        ),
        (
            ["audit", "mech.py:f", "--epsilon", "1", "--pair", "0", "1", "--json", "mech.py"],
            "mech.py",
            "the TARGET's source",
        ),
        (["prove", "claims.py", "--json", "claims.py"], "claims.py", "the claims file"),
        (
            ["prove", "claims.py", "--baseline", "base.json", "--json", "base.json"],
            "base.json",
            "the --baseline",
        ),
        (["replay", "result.json", "--json", "result.json"], "result.json", "the result replayed"),
    ]
    for argv, name, what in runs:
        before = (tmp_path / name).read_bytes()
        assert main(argv) == 2, argv
        err = _one_line(capsys)
        assert what in err, err
        assert (tmp_path / name).read_bytes() == before
    os.link(tmp_path / "pairs.json", tmp_path / "hard.json")  # a hard link is the same file
    argv = ["audit", "laplace", "--epsilon", "1", "--pairs", "pairs.json", "--json", "hard.json"]
    assert main(argv) == 2 and "the --pairs file" in _one_line(capsys)
    argv = ["audit", "laplace", "--epsilon", "1", "--json", "c.json", "--checkpoint", "c.json"]
    assert main(argv) == 2 and "both name 'c.json'" in _one_line(capsys)
    assert main(["audit", "laplace", "--epsilon", "1", "--json", ""]) == 2
    assert "--json '' is empty" in _one_line(capsys)
    (tmp_path / "afile").write_text("x")
    assert main(["audit", "laplace", "--epsilon", "1", "--json", "afile/r.json"]) == 2
    assert "is a file, not a folder" in _one_line(capsys)


def test_outputs_through_links_pipes_and_devices(tmp_path):
    """A symlinked output replaces the file it points to (the link stays); a pipe or device
    is written in place, never replaced by a regular file; a full device is a one-line error."""
    import os
    import stat
    import threading

    target, link = tmp_path / "target.json", tmp_path / "link.json"
    target.write_text("old")
    link.symlink_to(target)
    write_files_atomic({link: "new"})
    assert link.is_symlink() and target.read_text() == "new"
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_text()))
    reader.start()
    write_files_atomic({fifo: "through the pipe"})
    reader.join(10)
    assert got == ["through the pipe"] and stat.S_ISFIFO(fifo.stat().st_mode)
    if os.path.exists("/dev/full"):
        with pytest.raises(InputError, match="No space left") as info:
            write_files_atomic({"/dev/full": "x"})
        assert "\n" not in str(info.value)
        assert stat.S_ISCHR(os.stat("/dev/full").st_mode)


def test_values_beyond_a_double_are_one_line_errors(tmp_path, capsys):
    path = tmp_path / "big.py"
    path.write_text("def f(data):\n    return 10**400\n")
    args = ["--epsilon", "1", "--pair", "0", "1", "--samples", "2000", "--quiet"]
    assert main(["audit", f"{path}:f", *args]) == 2
    assert "beyond a double's range" in _one_line(capsys)
    assert main(["audit", "laplace", "--epsilon", "1", "--samples", "1e20"]) == 2
    assert "samples=100000000000000000000 must be an integer in [200, 1e+15]" in _one_line(capsys)
    for profile in ("gdp:1e300", "gaussian:1:1e300"):
        assert main(["audit", f"{path}:f", "--profile", profile, "--pair", "0", "1"]) == 2
        assert "protects nothing" in _one_line(capsys)
    assert main(["audit", "laplace", "--epsilon", "1e-320", "--samples", "2000"]) == 2
    assert "built at this epsilon" in _one_line(capsys)


def test_large_gaussian_profiles_are_read_without_overflow():
    from auditor.engine.claims import parse_profile

    for mu in (28.0, 29.0, 30.0, 100.0):
        prof = parse_profile(f"gdp:{mu}", 1e-5)
        assert math.isfinite(prof.epsilon) and prof.epsilon > 0
        assert 0 <= prof.delta_at(prof.epsilon) <= 1e-5 * (1 + 1e-6)
        assert prof.delta_at(1e4) == 0.0
    # the stable form agrees with the textbook one where that one is finite
    prof = parse_profile("gdp:2", 1e-5)
    eps = 3.0
    textbook = stats.norm.cdf(-eps / 2 + 1) - math.exp(eps) * stats.norm.cdf(-eps / 2 - 1)
    assert prof.delta_at(eps) == pytest.approx(textbook, rel=1e-12)


def test_a_closed_pipe_ends_quietly(capsys, monkeypatch):
    def broken(*args, **kwargs):
        raise BrokenPipeError

    monkeypatch.setattr("auditor.cli.listing.run", broken)
    assert main(["list"]) == 141
    assert "Traceback" not in capsys.readouterr().err


def test_replayed_results_are_checked_and_carry_the_schema_version(tmp_path, capsys):
    mech = tmp_path / "coin.py"
    mech.write_text("def f(data, size, rng):\n    return rng.random(size) < 0.5 + 0.2 * data\n")
    target = f"{mech}:f"
    assert main(
        [
            "audit",
            target,
            "--epsilon",
            "1",
            "--pair",
            "0",
            "1",
            "--samples",
            "2000",
            "--json",
            str(tmp_path / "r.json"),
            "--quiet",
        ]
    ) in (0, 4)
    d = json.loads((tmp_path / "r.json").read_text())
    bad = dict(d, epsilon_lower_bound="x")
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad))
    assert main(["replay", str(path)]) == 2
    assert "certified bound 'x' is not a finite number" in _one_line(capsys)
    del bad["mechanism"]
    path.write_text(json.dumps(bad))
    assert main(["replay", str(path)]) == 2
    assert "names no mechanism" in _one_line(capsys)
    assert main(["replay", str(tmp_path / "r.json"), "--json", str(tmp_path / "out.json")]) == 0
    out = json.loads((tmp_path / "out.json").read_text())
    assert out["schema_version"] == auditor.SCHEMA_VERSION and out["kind"] == "replay"
    # a replay's own output is no audit result: it said "no event was certified"
    assert main(["replay", str(tmp_path / "out.json"), target]) == 2
    assert "the output of a replay, not an audit result" in _one_line(capsys)


def test_an_output_to_stdout_redirected_to_a_file_appends_to_it(tmp_path):
    """`--json /dev/stdout >> log`: written through the descriptor, after what was printed,
    so the log keeps its old lines (replacing the file /dev/stdout resolves to lost them)."""
    import subprocess
    import sys

    log = tmp_path / "log"
    log.write_text("old\n")
    code = (
        "from proofs.io import check_outputs, write_text_atomic\n"
        "print('before', flush=True)\n"
        "check_outputs(json='/dev/stdout')\n"
        "write_text_atomic('/dev/stdout', '{}\\n')\n"
        "print('after')\n"
    )
    with open(log, "a") as out:
        subprocess.run([sys.executable, "-c", code], stdout=out, check=True)
    assert log.read_text() == "old\nbefore\n{}\nafter\n"
    with pytest.raises(InputError, match="descriptor 97 is not open"):
        write_files_atomic({"/dev/fd/97": "x"})


def test_errors_about_big_datasets_and_multi_line_texts_stay_one_short_line(tmp_path, capsys):
    """A mechanism raising on a 1e6-record pair printed the whole dataset (20 MB on one
    line), as did a pair not neighbouring under its relation (40 MB); a mechanism's error of
    three lines made a message of three."""
    mech = tmp_path / "m.py"
    mech.write_text(
        "def big(data, size, rng):\n    raise KeyError('nope')\n"
        "def lines(data, rng):\n    raise ValueError('first line\\nsecond line\\nthird line')\n"
        "def mean(data, size, rng):\n    return rng.laplace(0, 1, size)\n"
    )
    a = list(range(100_000))
    pairs = tmp_path / "p.json"
    pairs.write_text(json.dumps([[a, a[:-1]]]))
    far = tmp_path / "far.json"
    far.write_text(json.dumps([[a, a[:-1] + [-1]]]))
    common = ["--epsilon", "1", "--samples", "2000", "--workers", "1"]
    runs = [
        ([f"{mech}:big", "--pairs", str(pairs)], "raised KeyError"),
        ([f"{mech}:lines", "--pair", "0", "1"], "first line / second line / third line"),
        ([f"{mech}:mean", "--pairs", str(far), "--relation", "add-remove"], "not neighbouring"),
    ]
    for args, needle in runs:
        assert main(["audit", *args, *common]) == 2
        err = _one_line(capsys)
        assert needle in err and len(err) < 1_000, err[:300]


def test_a_batch_mixing_strings_and_numbers_names_the_odd_output():
    """One string row in 500 among rows of numbers was reported as the first row of numbers."""
    calls = iter(range(10**6))

    def mech(data):
        return ["a", "b"] if next(calls) % 500 == 499 else [1.0, 2.0]

    with pytest.raises(InputError, match=r"returned \['a', 'b'\] at sample index"):
        auditor.audit(mech, [([1], [0])], epsilon=1.0, samples=20_000, seed=0, workers=1)
    # a label beside a number is one category (test_adapter), but not where the first row
    # had a number
    flip = iter(range(10**6))
    with pytest.raises(InputError, match=r"returned \[1.0, 'a'\] at sample index"):
        auditor.audit(
            lambda data: ["a", 1.0] if next(flip) % 300 != 299 else [1.0, "a"],
            [([1], [0])],
            epsilon=1.0,
            samples=2_000,
            seed=0,
        )


def test_a_long_dataset_without_a_length_is_cut_too():
    from auditor.engine.result import dataset_words

    long = np.array("x" * 500)  # a 0-d array: len() raises
    assert dataset_words(long).endswith("...") and len(dataset_words(long)) < 200


@pytest.mark.parametrize("depth", [350, 30_000])
def test_json_nested_too_deeply_is_one_line(target, tmp_path, depth, capsys):
    """A dataset 350 lists deep overflowed the recursion of the data checks, and 30,000 that of
    json.loads itself: a traceback and exit 3 (internal error) for bad input. Files too."""
    deep = "[" * depth + "1" + "]" * depth
    assert main(["audit", target, "--epsilon", "1", "--pair", deep, "[1]"]) == 2
    assert "nested too deeply" in _one_line(capsys)
    result = tmp_path / "deep.json"
    result.write_text("[" * 30_000 + "]" * 30_000)
    assert main(["replay", str(result)]) == 2
    assert "nested too deeply" in _one_line(capsys)


def test_files_of_the_wrong_kind_are_named_as_such(tmp_path, capsys):
    """replay on a `prove --json` output said "no event was certified"; a folder given as a
    file target or a profile file was said not to exist."""
    claims = tmp_path / "claims.py"
    claims.write_text("from proofs import GroupPrivacy\nCLAIMS = [GroupPrivacy(pure=True)]\n")
    proved = tmp_path / "proved.json"
    assert main(["prove", str(claims), "--json", str(proved), "--quiet"]) == 0
    assert main(["replay", str(proved)]) == 2
    assert "holds no audit result" in _one_line(capsys)
    pair = ["--pair", "0", "1"]
    assert main(["audit", f"{tmp_path}:f", "--epsilon", "1", *pair]) == 2
    assert "is a folder" in _one_line(capsys)
    (tmp_path / "adir.json").mkdir()
    profile = f"rdp:{tmp_path / 'adir.json'}"
    assert main(["audit", "laplace", "--profile", profile, *pair]) == 2
    assert "is a folder" in _one_line(capsys)


@pytest.mark.parametrize(
    "kwargs, needle",
    [
        ({"confidence": math.nan}, "confidence=nan must be a number, e.g. 0.95."),
        ({"max_time": math.nan}, "max_time=nan must be a number, e.g. 600."),
        ({"inconclusive_factor": "x"}, "inconclusive_factor='x' must be a number, e.g. 2."),
    ],
)
def test_a_value_that_is_not_a_number_gets_an_example(kwargs, needle):
    with pytest.raises(InputError) as info:
        auditor.audit(_never_called, [(0, 1)], epsilon=1.0, **kwargs)
    assert str(info.value) == needle


@pytest.mark.parametrize(
    "extra, needle",
    [
        (["--pair", "0", "1", "--size", "7"], "--size 7 sets the size of generated datasets"),
        (["--relation", "any", "--pair", "0", "1", "--size", "7"], "--size 7"),
        (["--pair", "0", "1", "--sensitivity", "2"], "--sensitivity 2 is for --relation"),
        (["--relation", "add-remove", "--sensitivity", "2"], "--sensitivity 2 is for"),
    ],
)
def test_options_that_would_change_nothing_are_refused(target, extra, needle, capsys):
    """--size and --sensitivity beside pairs of one's own (or another relation) were ignored
    without a word, while --records there is refused."""
    assert main(["audit", target, "--epsilon", "1", *extra]) == 2
    assert needle in _one_line(capsys)


def test_an_output_onto_python_source_is_refused(tmp_path, capsys):
    """A module the target imports is no input dpaudit can list: no output replaces a .py."""
    module = tmp_path / "helper.py"
    module.write_text("SCALE = 1\n")
    args = ["audit", "laplace", "--epsilon", "1", "--samples", "1000", "--json", str(module)]
    assert main(args) == 2
    assert module.read_text() == "SCALE = 1\n"
    assert "is a Python source file" in capsys.readouterr().err


def test_a_catalogue_entry_fed_a_relations_datasets_says_what_it_takes(capsys):
    """The entry is not the user's to fix: the message names the data it takes instead."""
    args = ["audit", "laplace", "--epsilon", "1", "--relation", "replace-one", "--samples", "1000"]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "the catalogue entry 'laplace' takes data such as 0.0 and 1.0" in err
    assert "drop --relation" in err and "fix the mechanism" not in err
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    "extra, needle",
    [
        (["--profile", "pld:"], "profile 'pld:' names no file"),
        (["--epsilon", "1", "--pairs", ""], "--pairs '' names no file"),
    ],
)
def test_an_empty_file_name_is_named_as_such(extra, needle, capsys):
    assert main(["audit", "laplace", "--samples", "1000", *extra]) == 2
    err = capsys.readouterr().err
    assert needle in err and len(err.strip().splitlines()) == 1


def test_ctrl_c_during_the_output_probe_leaves_no_file(tmp_path, monkeypatch):
    """The probe file that shows an output folder takes files is removed before Ctrl-C, which
    is held back and delivered just after."""
    import signal

    from proofs import io as proofs_io

    real_close = os.close

    def interrupted_close(fd):
        signal.raise_signal(signal.SIGINT)
        real_close(fd)

    monkeypatch.setattr(proofs_io.os, "close", interrupted_close)
    with pytest.raises(KeyboardInterrupt):
        proofs_io.check_writable(tmp_path / "out.json")
    monkeypatch.undo()
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "argv, needle",
    [
        (["--nosuch"], "unknown option --nosuch; see `dpaudit --help`"),
        (["audit", "laplace", "--eps", "1"], "unknown option --eps (did you mean --epsilon?)"),
        (["prove", "--jsn", "x.json"], "unknown option --jsn (did you mean --json?)"),
    ],
)
def test_an_unknown_option_is_named_first(argv, needle, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert needle in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    "name, relation",
    [("rr.k_ary", "replace-one"), ("svt3", "add-remove"), ("noisy_hist2", "add-remove")],
)
def test_a_catalogue_entry_fed_a_relations_data_names_the_relation(name, relation, capsys):
    argv = ["audit", name, "--epsilon", "1", "--samples", "2000", "--relation", relation]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert f"--relation {relation}: the catalogue entry {name!r} takes data such as" in err
    assert "drop --relation" in err and len(err.strip().splitlines()) == 1


def test_a_catalogue_entry_given_pairs_of_two_shapes_is_not_told_to_raise_epsilon(capsys):
    argv = ["audit", "noisy_hist2", "--epsilon", "1", "--samples", "2000"]
    assert main([*argv, "--pair", "[1, 1]", "[1, 1, 1]"]) == 2
    err = capsys.readouterr().err
    assert "outputs must have one type" in err and "--epsilon" not in err


@pytest.mark.parametrize(
    "argv",
    [
        ["closeness", "t.csv", "--qi", "a", "--sensitive", "s", "-t0.2"],  # -t with 0.2
        ["report", "r.json", "-or.md"],
        ["closeness", "t.csv", "--qi", "-b c", "--sensitive", "s"],  # a value with a space
        ["audit", "m.py:f", "--epsilon", "1", "--pair", "-1", "-2e-3", "--json=-r x.json"],
        ["audit", "m.py:f", "--epsilon", "1", "--", "--not-an-option"],
    ],
)
def test_the_option_scan_passes_what_argparse_reads_as_values(argv):
    from auditor.cli.main import _unknown_option, build_parser

    _unknown_option(build_parser(), argv)  # (raises InputError on an unknown option)


def test_a_misspelt_subcommand_is_named_with_the_nearest_and_help_left_to_argparse(capsys):
    assert main(["adit", "laplace", "--epsilon", "1"]) == 2
    assert "unknown command 'adit' (did you mean audit?)" in capsys.readouterr().err
    assert main(["frobnicate"]) == 2
    assert "choose one of audit, closeness, demo," in capsys.readouterr().err
    assert main(["audit", "--help", "--bogus"]) == 0
    assert main(["audit", "laplace", "--se", "1"]) == 2
    assert "did you mean --search or --seed or --semantics?" in capsys.readouterr().err


@pytest.mark.parametrize("target", ["laplace", "m.py:f", "pkg.mod:mech", "mech.py"])
def test_a_target_given_without_audit_is_shown_the_audit_command(capsys, target):
    assert main([target, "--epsilon", "1"]) == 2
    err = capsys.readouterr().err
    assert f"to audit it, run `dpaudit audit {target} --epsilon E ...`" in err
    assert err.count("\n") == 1


def test_a_catalogue_entry_whose_noise_overflows_is_told_to_raise_epsilon(capsys):
    for extra in (["--pair", "0", "1"], []):
        argv = ["audit", "laplace", "--epsilon", "1e-310", "--samples", "2000", *extra]
        assert main(argv) == 2
        assert "give a larger --epsilon" in capsys.readouterr().err


def test_a_mechanisms_own_input_error_reaches_the_caller_as_it_is():
    class Refused(InputError):
        pass

    def mech(data, size, rng):
        raise Refused(f"data={data!r} is not mine")

    with pytest.raises(Refused, match="is not mine"):
        auditor.audit(mech, [(0, 1)], epsilon=1.0, samples=2_000, seed=0)


MISBEHAVING = """
import asyncio, os
import numpy as np

_buf = np.zeros(1)


def reused_buffer(data, rng):
    _buf[0] = round(float(data) + rng.laplace(0, 4))  # 0.25-DP, returned in one buffer
    return _buf


_batch = np.zeros(100_000)


def reused_batch(data, size, rng):
    out = _batch[:size]  # (a view of one buffer, refilled on every call)
    out[:] = float(data) + rng.laplace(0, 4, size=size)
    return out


def moves_away(data, rng):
    os.chdir(os.environ["ELSEWHERE"])
    return round(float(data) + rng.laplace(0, 4))


def cancelled(data):
    raise asyncio.CancelledError()


class NoArray:
    def __array__(self, *args, **kwargs):
        raise RuntimeError("no array")


def no_array(data):
    return NoArray()


class NoRepr:
    def __repr__(self):
        raise RuntimeError("no repr")


def no_repr(data):
    return NoRepr()
"""


@pytest.fixture
def misbehaving(tmp_path):
    f = tmp_path / "misbehaving.py"
    f.write_text(MISBEHAVING)
    return f


@pytest.mark.parametrize("name", ["reused_buffer", "reused_batch"])
def test_a_mechanism_that_refills_one_output_buffer_is_audited_as_it_is(
    misbehaving, tmp_path, name
):
    out = tmp_path / "r.json"
    argv = ["audit", f"{misbehaving}:{name}", "--epsilon", "1", "--pair", "0", "1"]
    argv += ["--samples", "20000", "--workers", "1", "--seed", "7", "--json", str(out)]
    argv += ["--semantics", "ideal"]
    assert main(argv) == 0  # (every sample of a chunk was its last one: a false violation)
    assert json.loads(out.read_text())["epsilon_lower_bound"] < 0.5


def test_a_mechanism_that_changes_directory_does_not_move_the_outputs(
    misbehaving, tmp_path, monkeypatch
):
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "out").mkdir(parents=True)
    (tmp_path / "out").mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ELSEWHERE", str(elsewhere))
    argv = ["audit", f"{misbehaving}:moves_away", "--epsilon", "1", "--pair", "0", "1"]
    argv += ["--samples", "20000", "--workers", "1", "--json", "out/r.json"]
    assert main(argv) == 0
    assert (tmp_path / "out" / "r.json").exists()
    assert not (elsewhere / "out" / "r.json").exists()
    assert os.getcwd() == str(tmp_path)


@pytest.mark.parametrize(
    "name, said",
    [
        ("cancelled", "raised CancelledError"),
        ("no_array", "raised RuntimeError: no array"),
        ("no_repr", "returned a NoRepr at sample index 0"),
    ],
)
def test_odd_failures_of_a_mechanism_are_bad_input(misbehaving, capsys, name, said):
    argv = ["audit", f"{misbehaving}:{name}", "--epsilon", "1", "--pair", "0", "1"]
    assert main([*argv, "--samples", "2000", "--workers", "1"]) == 2
    err = capsys.readouterr().err
    assert said in err and "Traceback" not in err
