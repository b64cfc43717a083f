"""Bad input fails before any sampling, in one line, exit 2; outputs are written together."""

from __future__ import annotations

import json

import numpy as np
import pytest

import auditor
from auditor.cli import main
from auditor.engine.events import FloatMultiple
from auditor.reports.html import md_cell
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
        (["--pair", "0", "1", "--semantics", "exact"], "--semantics"),
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


def test_report_checks_field_types(tmp_path, capsys):
    good = auditor.audit(lambda d, size, rng: rng.random(size) < 0.5, [(0, 1)], epsilon=1.0)
    d = good.to_dict()
    d["epsilon_lower_bound"] = "big"
    path = tmp_path / "r.json"
    path.write_text(json.dumps(d))
    assert main(["report", str(path), "-o", str(tmp_path / "r.html")]) == 2
    assert "epsilon_lower_bound='big'" in capsys.readouterr().err


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
