"""The command-line contract at its edges: outputs never overwrite what a run reads (a module
TARGET's source, a replayed profile's file, a report's plot files), a TARGET that exits at
import, hand-edited results, stdout kept for dpaudit's own output, checkpoints that are not
files, a worker killed by its mechanism, and baselines of another schema."""

from __future__ import annotations

import contextlib
import json
import os
import time

import pytest

from auditor.cli import main

MECH = """import numpy as np


def lap(data, size, rng):  # 1-DP: Laplace rounded to a grid (no float-representation leak)
    return np.round((data + rng.laplace(size=size)) * 64) / 64


def chatty(data, size, rng):
    print("a line the mechanism prints")
    return lap(data, size, rng)
"""


@pytest.fixture
def module(tmp_path, monkeypatch):
    """A mechanism importable by name (module:callable), and the folder it lives in."""
    name = f"dpaudit_edge_{os.getpid()}"
    (tmp_path / f"{name}.py").write_text(MECH)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    return name


def _audit(target, *extra):
    # (a claim above the mechanisms' true 1: "no violation found" on every seed, not on 95%)
    base = ["audit", target, "--epsilon", "1.25", "--pair", "0", "1", "--samples", "20000"]
    return main([*base, "--workers", "1", "--quiet", *extra])


def _one_line_error(capsys, needle):
    err = capsys.readouterr().err.strip()
    assert needle in err and len(err.splitlines()) == 1, err


def test_outputs_never_overwrite_a_module_targets_source(module, tmp_path, capsys):
    source = tmp_path / f"{module}.py"
    for flag in ("--json", "--checkpoint"):  # (a --report must end in .md or .html)
        assert _audit(f"{module}:lap", flag, str(source)) == 2
        _one_line_error(capsys, "the TARGET's source")
    assert source.read_text() == MECH
    assert _audit(f"{module}:lap", "--json", "r.json") == 0
    assert main(["replay", "r.json", "--samples", "20000", "--json", str(source)]) == 2
    _one_line_error(capsys, "the TARGET's source")
    assert source.read_text() == MECH


def test_replay_never_overwrites_the_profile_file_it_reads(module, tmp_path, capsys):
    profile = tmp_path / "rdp.json"
    profile.write_text(json.dumps({"orders": [2, 4, 8], "rdp": [1.0, 2.0, 3.0]}))
    before = profile.read_text()
    base = ["audit", f"{module}:lap", "--profile", f"rdp:{profile}", "--pair", "0", "1"]
    code = main([*base, "--samples", "20000", "--workers", "1", "--quiet", "--json", "p.json"])
    assert code in (0, 1, 4), capsys.readouterr().err
    capsys.readouterr()
    assert main(["replay", "p.json", "--samples", "20000", "--json", str(profile)]) == 2
    _one_line_error(capsys, "the --profile file")
    assert profile.read_text() == before


def test_report_plots_are_outputs_too(module, tmp_path, capsys):
    pairs = tmp_path / "r.loss.svg"  # a pairs file where a Markdown report puts its loss plot
    pairs.write_text("[[0, 1]]")
    base = ["audit", f"{module}:lap", "--epsilon", "1", "--pairs", str(pairs), "--quiet"]
    assert main([*base, "--samples", "20000", "--workers", "1", "--report", "r.md"]) == 2
    _one_line_error(capsys, "the --report's loss plot")
    assert pairs.read_text() == "[[0, 1]]"
    assert _audit(f"{module}:lap", "--report", "s.md", "--json", "s.outputs.svg") == 2
    _one_line_error(capsys, "both name")


def test_a_target_that_exits_at_import_is_bad_input(tmp_path, monkeypatch, capsys):
    (tmp_path / "dpaudit_exits_at_import.py").write_text("import sys\nsys.exit(0)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert _audit("dpaudit_exits_at_import:f") == 2  # (was exit 0: "nothing found")
    _one_line_error(capsys, "SystemExit")


def test_what_the_mechanism_prints_stays_off_stdout(module, tmp_path, capfd):
    assert _audit(f"{module}:chatty", "--json", "/dev/stdout") == 0
    out, err = capfd.readouterr()
    assert json.loads(out)["verdict"] == "no violation found"
    assert "a line the mechanism prints" in err
    (tmp_path / f"{module}_noisy.py").write_text('print("imported")\n' + MECH)
    assert _audit(f"{module}_noisy:lap", "--json", "/dev/stdout") == 0  # prints at import
    out, err = capfd.readouterr()
    assert json.loads(out)["verdict"] == "no violation found" and "imported" in err
    assert _audit(f"{module}:lap", "--json", "-") == 0  # "-" is stdout, as Unix tools read it
    assert json.loads(capfd.readouterr().out)["verdict"] == "no violation found"
    assert not (tmp_path / "-").exists()


def test_a_checkpoint_that_is_not_a_file_is_refused(module, tmp_path, capsys):
    fifo = tmp_path / "ckpt.fifo"
    os.mkfifo(fifo)  # reading it would wait for a writer forever
    assert _audit(f"{module}:lap", "--checkpoint", str(fifo)) == 2
    _one_line_error(capsys, "not a regular file")
    assert _audit(f"{module}:lap", "--checkpoint", "/dev/null") == 2
    _one_line_error(capsys, "not a regular file")
    assert _audit(f"{module}:lap", "--checkpoint", "-") == 2
    _one_line_error(capsys, "not a regular file")


@pytest.mark.parametrize(
    "path, value",
    [
        (("witness", "counts"), None),
        (("seconds",), None),
        (("profile",), "abc"),
        (("samples",), []),
        # values no audit writes were rendered ("with confidence 200%"), exit 0
        (("confidence",), 2),
        (("p_value",), float("nan")),
        (("epsilon_lower_bound",), float("inf")),
        (("verdict",), "violation"),
        # outside the schema though each headline number is in range (replay refused them)
        (("delta",), 1),
        (("seed",), -3),
        (("witness", "event_state"), {"type": "no-such-event"}),
    ],
)
def test_a_hand_edited_result_is_bad_input_for_report(module, capsys, path, value):
    assert _audit(f"{module}:lap", "--json", "r.json") == 0
    with open("r.json") as fh:
        data = json.load(fh)
    where = data
    for key in path[:-1]:
        where = where[key]
    where[path[-1]] = value
    with open("r.json", "w") as fh:
        json.dump(data, fh)
    capsys.readouterr()
    assert main(["report", "r.json", "--report", "r.md"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err


def test_baselines_of_another_schema_or_with_unknown_verdicts_are_bad_input(tmp_path, capsys):
    claims = tmp_path / "claims.py"
    claims.write_text("from proofs import PureDP, Laplace\nCLAIMS = [PureDP(Laplace(1, 1), 1)]\n")
    for saved in (
        {"schema_version": "9.9", "results": [{"id": "claim", "verdict": "proved"}]},
        {"schema_version": "1.0", "results": [{"id": "claim", "verdict": "bogus"}]},
        {"schema_version": "1.0", "results": [{"id": None, "verdict": "proved"}]},
    ):
        base = tmp_path / "base.json"
        base.write_text(json.dumps(saved))
        assert main(["prove", str(claims), "--quiet", "--baseline", str(base)]) == 2
        assert "baseline" in capsys.readouterr().err


def test_demo_refuses_an_empty_output_folder(capsys):
    assert main(["demo", "--out", ""]) == 2
    _one_line_error(capsys, "--out ''")


def _dies_in_workers(data, size, rng, parent: int = 0):
    import numpy as np

    if os.getpid() != parent:
        os._exit(7)  # a crash in the mechanism, only where a pool runs it
    return np.round((data + rng.laplace(size=size)) * 64) / 64


def test_a_worker_killed_by_its_mechanism_is_bad_input(monkeypatch):
    import functools

    from auditor import audit
    from auditor.engine import executors
    from proofs import InputError

    monkeypatch.setattr(executors, "INLINE_SECONDS", 0.0)  # a pool even for a short audit
    # the parent's pid travels with the mechanism: a pool left by an earlier test (loky keeps
    # its workers for a minute) has no environment variable set after it started
    mech = functools.partial(_dies_in_workers, parent=os.getpid())
    with pytest.raises(InputError, match=r"worker process running mechanism .* died") as err:
        audit(mech, [(0, 1)], epsilon=1.0, samples=20_000, workers=2, seed=1)
    assert "\n" not in str(err.value)


def test_replay_reads_a_result_from_a_pipe(module, tmp_path):
    import threading

    assert _audit(f"{module}:lap", "--json", "r.json") == 0
    fifo = tmp_path / "result.fifo"
    os.mkfifo(fifo)  # read once only: by replay, not first by the check of its outputs
    text = (tmp_path / "r.json").read_text()
    writer = threading.Thread(target=lambda: fifo.write_text(text))
    writer.start()

    def unblock():  # a second read of the pipe would wait for ever: end it, fail the test
        time.sleep(20)
        with contextlib.suppress(OSError):  # (no reader left: nothing to do)
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))

    threading.Thread(target=unblock, daemon=True).start()
    try:
        assert main(["replay", str(fifo), "--samples", "20000"]) == 0
    finally:
        writer.join(timeout=30)


def test_an_audit_with_stdout_closed_still_writes_its_json(module, tmp_path):
    import subprocess
    import sys

    code = "import sys; from auditor.cli.main import main; sys.exit(main(sys.argv[1:]))"
    args = ["audit", f"{module}:chatty", "--epsilon", "1.25", "--pair", "0", "1"]
    args += ["--samples", "20000", "--workers", "1", "--quiet", "--json", "o.json"]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    done = subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=tmp_path,
        env=env,
        preexec_fn=lambda: os.close(1),  # the child starts with its stdout closed
        stderr=subprocess.PIPE,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr.decode()[-500:]
    assert json.loads((tmp_path / "o.json").read_text())["verdict"] == "no violation found"


def test_dask_falls_back_to_sending_a_module_by_name(module, tmp_path):
    """A module holding a lock cannot be pickled by value: sent by name, as before, not run
    in this process."""
    import importlib
    import threading

    from auditor.engine.adapter import as_mechanism
    from auditor.engine.executors import Runner

    (tmp_path / f"{module}_locked.py").write_text(
        "import threading\n"
        + MECH.replace("return lap(", "return _LOCK and lap(")
        + "\n_LOCK = threading.Lock()\n"
    )
    mod = importlib.import_module(f"{module}_locked")
    runner = Runner(object(), 2, "dask")
    payload = runner._payload(as_mechanism(mod.chatty), None, ([0],))
    assert payload is not None and runner.label == "dask"
    assert isinstance(mod._LOCK, type(threading.Lock()))


@pytest.mark.parametrize("flag", ["--epsilon", "--delta"])
@pytest.mark.parametrize("text", ["1e400", "nan", "-inf"])
def test_numbers_that_are_not_finite_are_named_as_written(module, capsys, flag, text):
    base = ["audit", f"{module}:lap", "--pair", "0", "1", "--quiet"]
    base += [] if flag == "--epsilon" else ["--epsilon", "1"]
    assert main([*base, f"{flag}={text}"]) == 2  # (float() made 1e400 "inf")
    _one_line_error(capsys, f"{text!r} is not a finite number")


def test_a_claim_of_minus_zero_is_recorded_as_zero(module):
    code = main(
        ["audit", f"{module}:lap", "--epsilon=-0", "--pair", "0", "1", "--quiet"]
        + ["--samples", "20000", "--workers", "1", "--json", "z.json"]
    )
    assert code == 1
    with open("z.json") as fh:
        assert str(json.load(fh)["claimed_epsilon"]) == "0.0"


def _audit_loud(target, *extra):
    base = ["audit", target, "--epsilon", "1.25", "--pair", "0", "1", "--samples", "20000"]
    return main([*base, "--workers", "1", *extra])


def test_json_on_stdout_is_alone_there_without_quiet(module, tmp_path, capfd):
    """The summary followed the JSON on stdout (`--json - | jq` failed without --quiet), and
    replay and prove did the same; what a claims file prints went to stdout too."""
    assert _audit_loud(f"{module}:lap", "--json", "-", "--report", "r.html") == 0
    out, err = capfd.readouterr()
    assert json.loads(out)["verdict"] == "no violation found"
    assert "no violation found for the claim" in err
    assert _audit_loud(f"{module}:chatty", "--json", "saved.json") == 0
    assert "no violation found for the claim" in capfd.readouterr().out  # (a file: as before)
    assert main(["replay", "saved.json", "--samples", "2000", "--json", "-"]) == 0
    out, err = capfd.readouterr()
    assert json.loads(out)["mechanism"] and "replayed witness" in err
    claims = tmp_path / "loud_claims.py"
    claims.write_text(
        "import os\nfrom proofs import AlphaCoinRR, PureDP\nprint('hello from the claims')\n"
        "os.write(1, b'raw bytes\\n')\nCLAIMS = [PureDP(AlphaCoinRR(0.5), 2)]\n"
    )
    assert main(["prove", str(claims), "--json", "-"]) == 0
    out, err = capfd.readouterr()
    assert json.loads(out)["counts"] and "hello from the claims" in err and "raw bytes" in err


def test_paths_the_system_refuses_are_bad_input_not_internal_errors(module, capsys):
    """A file name longer than the system allows (ENAMETOOLONG) was a traceback and exit 3 for
    --json, --checkpoint, a TARGET's file and a claims file."""
    long = "x" * 300
    for args in (
        ["audit", "laplace", "--epsilon", "1", "--samples", "2000", "--json", f"{long}.json"],
        ["audit", "laplace", "--epsilon", "1", "--samples", "2000", "--checkpoint", long],
        ["audit", f"{long}.py:f", "--epsilon", "1", "--samples", "2000"],
        ["prove", f"{long}.py"],
    ):
        assert main(args) == 2, args
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and "Traceback" not in err, err


def test_a_full_stdout_is_one_line_and_exit_2(module):
    import subprocess
    import sys

    with open(os.devnull, "w") as _, open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "auditor.cli", "audit", "laplace", "--epsilon", "1",
             "--samples", "2000", "--workers", "1"],
            stdout=full, stderr=subprocess.PIPE, text=True, timeout=120,
        )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().startswith("dpaudit: error: cannot write the output")
    assert "Traceback" not in done.stderr


def test_a_checkpoint_of_the_same_numbers_written_otherwise_is_another_audit(module, capsys):
    """Pairs (0, 1) and (0, 1.0) are equal in Python but not as JSON: the identity check let
    the second through and the digest then called the valid checkpoint corrupt ("delete it")."""
    assert _audit(f"{module}:lap", "--checkpoint", "c.ckpt") == 0
    base = ["audit", f"{module}:lap", "--epsilon", "1.25", "--samples", "20000", "--quiet"]
    for b in ("1.0", "true"):
        a = "false" if b == "true" else "0"
        assert main([*base, "--pair", a, b, "--workers", "1", "--checkpoint", "c.ckpt"]) == 2
        err = capsys.readouterr().err
        assert "belongs to another audit (pairs=" in err and "corrupt" not in err, err
    assert _audit(f"{module}:lap", "--checkpoint", "c.ckpt") == 0  # still resumes


def test_a_rewritten_output_keeps_its_permissions(module, tmp_path):
    out = tmp_path / "private.json"
    out.write_text("{}")
    out.chmod(0o600)
    assert _audit(f"{module}:lap", "--json", str(out)) == 0
    assert json.loads(out.read_text())["verdict"] and (out.stat().st_mode & 0o777) == 0o600


def test_an_interrupted_demo_leaves_no_folder_behind(tmp_path, monkeypatch, capsys):
    from auditor.reports import demo

    def interrupted(args, out):
        raise KeyboardInterrupt

    monkeypatch.setattr(demo, "_run", interrupted)
    assert main(["demo", "--out", str(tmp_path / "new" / "reports")]) == 130
    assert not (tmp_path / "new").exists()
    kept = tmp_path / "kept"
    kept.mkdir()
    (kept / "mine.txt").write_text("x")
    assert main(["demo", "--out", str(kept)]) == 130
    assert sorted(p.name for p in kept.iterdir()) == ["mine.txt"]


@pytest.mark.parametrize(
    "argv, needle",
    [
        # an abbreviation was taken silently: `--sample 1000` overrode `--samples 2000`
        (["audit", "laplace", "--epsilon", "1", "--sample", "1000"], "dpaudit audit --help"),
        (["prove", "--quie"], "dpaudit prove --help"),
        # a pair of one dataset twice: "no violation found", detectable 1.06
        (["audit", "laplace", "--epsilon", "1", "--pair", "0", "0"], "the same dataset"),
        # the catalogue's scale at epsilon 0 read "scale=zoo"
        (["audit", "laplace", "--epsilon", "0"], "give --epsilon > 0"),
    ],
)
def test_more_bad_input_is_one_line(argv, needle, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert needle in err and len(err.splitlines()) == 1 and "zoo" not in err, err


def test_prove_prints_its_verdicts_on_the_stdout_it_was_given(tmp_path):
    """What a claims file prints goes to stderr by moving file descriptor 1; the verdict lines
    went along with it (capsys, which swaps sys.stdout, could not see it: a real process)."""
    import subprocess
    import sys

    claims = tmp_path / "chatty_claims.py"
    claims.write_text(
        "from proofs import AlphaCoinRR, PureDP\nprint('from the claims file')\n"
        "CLAIMS = [PureDP(AlphaCoinRR(0.5), 2)]\n"
    )
    done = subprocess.run(
        [sys.executable, "-m", "auditor.cli", "prove", str(claims)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "certified" in done.stdout and "1 claims" in done.stdout
    assert "from the claims file" in done.stderr and "certified" not in done.stderr


def test_a_signal_during_the_renames_waits_for_them_with_threads_alive(tmp_path, monkeypatch):
    """The renames held signals back with the main thread's mask: with a pool's threads alive
    the kernel handed SIGTERM to another thread and it struck between the renames (the JSON
    new, the report old). Now both are renamed, then the signal is delivered."""
    import signal
    import threading

    from proofs import io
    from proofs.errors import Terminated, raise_terminated

    old = signal.signal(signal.SIGTERM, raise_terminated)
    stop = threading.Event()
    alive = threading.Thread(target=stop.wait, daemon=True)
    alive.start()
    real = os.replace
    calls = []

    def replace_then_term(src, dst):
        real(src, dst)
        calls.append(dst)
        if len(calls) == 1:
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(0.05)

    monkeypatch.setattr(io.os, "replace", replace_then_term)
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    try:
        with pytest.raises(Terminated):
            io.write_files_atomic({a: "new a", b: "new b"})
    finally:
        stop.set()
        signal.signal(signal.SIGTERM, old)
    assert a.read_text() == "new a" and b.read_text() == "new b"
    assert not list(tmp_path.glob("*.tmp"))


def test_outputs_with_dollar_signs_are_plain_text_in_the_report_plots(tmp_path, capfd):
    """matplotlib reads `$...$` in a tick label as maths: "$\\alpha_{x$" failed to parse and the
    finished audit ended in an internal error with nothing written."""
    (tmp_path / "dollars.py").write_text(
        "def release(data, rng):\n"
        "    return r'$\\alpha_{x$' if (rng.random() < 0.9) == bool(data) else 'none \\u4e2d'\n"
    )
    target = f"{tmp_path / 'dollars.py'}:release"
    out = [f"--json={tmp_path / 'r.json'}", f"--report={tmp_path / 'r.html'}"]
    argv = ["audit", target, "--epsilon", "1", "--pair", "0", "1", "--samples", "4000"]
    assert main([*argv, "--workers", "1", "--quiet", *out]) == 1
    assert "$\\alpha_{x$" in (tmp_path / "r.html").read_text()
    assert json.loads((tmp_path / "r.json").read_text())["verdict"] == "violation"
    assert capfd.readouterr().err == ""  # (no "Glyph missing" warning either)


def test_a_report_that_fails_to_render_keeps_the_audits_json(module, tmp_path, monkeypatch):
    from auditor.reports import audit as report_module

    def broken(*_args, **_kw):
        raise RuntimeError("a renderer bug")

    monkeypatch.setattr(report_module, "audit_report_files", broken)
    out = tmp_path / "kept.json"
    assert _audit(f"{module}:lap", "--json", str(out), "--report", "r.html") == 3
    assert json.loads(out.read_text())["verdict"] == "no violation found"
    assert not (tmp_path / "r.html").exists()


@pytest.mark.parametrize("wrapper", ["pydp_count", "pydp_laplace"])
def test_a_missing_third_party_library_says_how_to_install_it(wrapper, monkeypatch, capsys):
    """The wrapper's ImportError was reported as the mechanism's fault ('fix the mechanism or
    pass data it accepts')."""
    import sys

    for name in ("pydp", "pydp.algorithms.laplacian", "pydp.algorithms.numerical_mechanisms"):
        monkeypatch.setitem(sys.modules, name, None)  # an import of it fails
    pair = ["[1, 1]", "[1]"] if wrapper == "pydp_count" else ["0", "1"]
    argv = ["audit", f"auditor.thirdparty.libraries:{wrapper}", "--epsilon", "1", "--pair", *pair]
    assert main([*argv, "--samples", "2000", "--workers", "1", "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    assert "python-dp is not installed" in err and "pip install 'dpaudit[libs]'" in err, err
