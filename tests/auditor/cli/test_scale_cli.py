"""`dpaudit audit` at scale, as a user runs it: subprocesses that are killed, interrupted,
resumed, and a Dask cluster started with Dask's own commands."""

from __future__ import annotations

import json
import os
import random
import signal
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from auditor.cli import main

ROOT = Path(__file__).resolve().parents[3]
BIN = Path(sys.executable).parent
MECH = textwrap.dedent("""
    def rr(data, rng):
        # randomized response at eps = ln(0.62 / 0.38) = 0.49: correct for a 0.5 claim
        return int(data) if rng.random() < 0.62 else 1 - int(data)
""")


@pytest.fixture()
def mechfile(tmp_path):
    path = tmp_path / "mechs.py"
    path.write_text(MECH)
    return path


def _env():
    return dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))


def _default_sigint() -> None:
    # an ignored SIGINT is inherited across exec, and Python then keeps ignoring it (as it
    # should for a job started with Ctrl-C ignored); an earlier test may leave it ignored here
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _cli(*args: str, **kw) -> subprocess.Popen:
    return subprocess.Popen(
        [str(BIN / "dpaudit"), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(),
        preexec_fn=_default_sigint,
        **kw,
    )


def _json(path: Path) -> dict:
    doc = json.loads(path.read_text())
    doc.pop("seconds")
    return doc


def _wait_for(path: Path, proc: subprocess.Popen, limit: float = 60) -> None:
    t0 = time.time()
    while not path.exists():
        assert proc.poll() is None, proc.communicate()
        assert time.time() - t0 < limit
        time.sleep(0.05)


def _audit_args(mechfile: Path, samples: str) -> list[str]:
    return [
        "audit",
        f"{mechfile}:rr",
        "--epsilon",
        "0.5",
        "--pair",
        "0",
        "1",
        "--samples",
        samples,
        "--seed",
        "5",
        "--quiet",
    ]


KILLABLE = textwrap.dedent("""
    import json, sys
    from auditor import audit

    def rr(data, rng):
        return int(data) if rng.random() < 0.62 else 1 - int(data)

    out, ckpt, workers = sys.argv[1], sys.argv[2] or None, int(sys.argv[3])
    r = audit(rr, [(0, 1)], epsilon=0.5, samples=3_000_000, seed=5, workers=workers,
              checkpoint=ckpt, checkpoint_every=0.1, progress=False)
    json.dump(r.to_dict(), open(out, "w"))
""")


def _script(*args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", KILLABLE, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(),
    )


class _Reference:
    """The uninterrupted run every killed one must reproduce: started once, when first needed
    (beside a resume, on the other core), and shared by every kill point."""

    def __init__(self, out: Path) -> None:
        self.out, self.proc = out, None

    def start(self) -> None:
        if self.proc is None:
            self.proc = _script(str(self.out), "", "1")

    def result(self) -> dict:
        self.start()
        assert self.proc.wait(timeout=300) == 0, self.proc.communicate()
        return _json(self.out)


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    ref = _Reference(tmp_path_factory.mktemp("reference") / "plain.json")
    yield ref
    if ref.proc is not None and ref.proc.poll() is None:
        ref.proc.kill()


def _certifying(ck: Path) -> bool:
    try:
        cert = json.loads(ck.read_text())["state"]["certify"]
    except (OSError, ValueError, KeyError, TypeError):
        return False
    return bool(cert and cert["done"] > 0)


@pytest.mark.parametrize("kill_seed", [1, 2])
def test_sigkill_at_a_random_point_then_resume_gives_the_uninterrupted_result(
    tmp_path, kill_seed, reference
):
    """Killed with SIGKILL mid-certification (2 workers), resumed (1 worker): the result of an
    uninterrupted run."""
    ck = tmp_path / "run.ckpt"
    killed = _script(str(tmp_path / "x.json"), str(ck), "2")
    t0 = time.time()
    while not _certifying(ck):
        assert killed.poll() is None, killed.communicate()
        assert time.time() - t0 < 120
        time.sleep(0.02)
    time.sleep(random.Random(kill_seed).uniform(0.0, 0.6))
    killed.send_signal(signal.SIGKILL)
    killed.wait()
    assert killed.returncode == -signal.SIGKILL, "finished before the kill: make the run longer"
    assert not (tmp_path / "x.json").exists()
    resumed = _script(str(tmp_path / "r.json"), str(ck), "1")
    reference.start()
    assert resumed.wait(timeout=300) == 0, resumed.communicate()
    assert _json(tmp_path / "r.json") == reference.result()


def test_sigint_exits_130_with_a_valid_checkpoint_and_no_half_outputs(mechfile, tmp_path):
    # the first checkpoint is written when selection ends; certifying 1.5e6 on one worker then
    # takes seconds (3.9 s on a loaded 2-core machine, 7.4 s at 3e6), and the interrupt comes
    # 0.2 s in
    args = _audit_args(mechfile, "1.5e6")
    ck, out = tmp_path / "run.ckpt", tmp_path / "out.json"
    proc = _cli(*args, "--workers", "1", "--checkpoint", str(ck), "--json", str(out))
    _wait_for(ck, proc)
    time.sleep(0.2)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, f"exit {proc.returncode}: {err}"
    assert "Traceback" not in err and "interrupted" in err
    assert not out.exists() and not list(tmp_path.glob("*.tmp*"))
    plain = _cli(*args, "--json", str(tmp_path / "plain.json"), "--workers", "1")  # other core
    assert main([*args, "--checkpoint", str(ck), "--json", str(out), "--workers", "1"]) == 0
    assert plain.wait(timeout=300) == 0, plain.communicate()
    assert _json(out) == _json(tmp_path / "plain.json")


def _group_gone(pgid: int, limit: float = 10) -> bool:
    """Has every process of the group exited (the command and its workers)?"""
    t0 = time.time()
    while time.time() - t0 < limit:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.1)
    return False


def test_sigterm_saves_the_checkpoint_stops_the_workers_and_exits_143(mechfile, tmp_path):
    """kill, docker stop and CI timeouts send SIGTERM: it ended the process at once, with no
    checkpoint written since the last save and the pool's workers left running."""
    args = _audit_args(mechfile, "3e6")
    ck, out = tmp_path / "run.ckpt", tmp_path / "out.json"
    proc = _cli(*args, "--workers", "2", "--checkpoint", str(ck), "--json", str(out),
                start_new_session=True)  # fmt: skip
    _wait_for(ck, proc)
    saved = ck.read_text()
    time.sleep(0.3)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 143, f"exit {proc.returncode}: {err}"
    assert "Traceback" not in err and "terminated" in err
    assert _group_gone(proc.pid), "the pool's workers outlived the command"
    assert not out.exists() and not list(tmp_path.glob("*.tmp*"))
    assert ck.read_text() != saved  # saved again at the signal, and resumable
    assert main([*args, "--checkpoint", str(ck), "--json", str(out), "--workers", "1"]) == 0


def test_the_cli_stops_its_pool_deaf_to_signals_before_it_exits():
    """A Ctrl-C during the pool's own exit handler printed a traceback and could leave the
    process waiting on a worker for ever: the command line stops the pool first, with
    SIGINT and SIGTERM ignored (the result is written by then)."""
    from auditor.cli.main import _stop_workers
    from auditor.engine import executors

    runner = executors.open_runner("local", 2, None, 1e9)
    assert executors._POOLS
    old = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        _stop_workers()
        assert not executors._POOLS
        assert all(signal.getsignal(s) is signal.SIG_IGN for s in old)
    finally:
        for s, h in old.items():
            signal.signal(s, h)
        runner.close()


def _one_line(capsys) -> str:
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


@pytest.mark.parametrize(
    "extra, needle",
    [
        (["--workers", "0"], "workers=0"),
        (["--max-time", "-5"], "max_time=-5"),
        (["--executor", "dask", "--scheduler", "tcp://127.0.0.1:9"], "unreachable"),
        (["--executor", "dask", "--scheduler", "notanaddress"], "is not an address"),
        (["--samples", "1.5e3x"], "--samples"),
    ],
)
def test_bad_scale_flags_are_one_line_exit_2(mechfile, extra, needle, capsys):
    t0 = time.perf_counter()
    assert main([*_audit_args(mechfile, "5000"), *extra]) == 2
    assert needle in _one_line(capsys)
    assert time.perf_counter() - t0 < 15  # an unreachable scheduler fails within seconds


def test_checkpoint_of_another_command_or_corrupt_is_exit_2(mechfile, tmp_path, capsys):
    ck = tmp_path / "c.ckpt"
    assert main([*_audit_args(mechfile, "5000"), "--checkpoint", str(ck)]) == 0
    capsys.readouterr()
    other = _audit_args(mechfile, "5000")
    other[other.index("0.5")] = "0.7"
    assert main([*other, "--checkpoint", str(ck)]) == 2
    assert "belongs to another audit (epsilon=" in _one_line(capsys)
    assert main(["audit", "laplace", "--epsilon", "1", "--checkpoint", str(ck)]) == 2
    assert "belongs to another audit" in _one_line(capsys)
    ck.write_text('{"format": "dpaudit-checkpoint/1", "identity": 3}')
    assert main([*_audit_args(mechfile, "5000"), "--checkpoint", str(ck)]) == 2
    assert "another version of dpaudit (dpaudit-checkpoint/1; this one" in _one_line(capsys)
    ck.write_text('{"format": "a spreadsheet", "identity": {}}')
    assert main([*_audit_args(mechfile, "5000"), "--checkpoint", str(ck)]) == 2
    assert "not a dpaudit checkpoint" in _one_line(capsys)


def test_huge_sample_count_warns_with_the_projected_time(mechfile, capsys, tmp_path):
    args = [a for a in _audit_args(mechfile, "1e12") if a != "--quiet"]  # quiet: no warnings
    # (a checkpoint: the limit ends a slice; without one the audit is sized to the limit)
    ck = str(tmp_path / "slice.ckpt")
    code = main([*args, "--max-time", "0.5", "--workers", "1", "--checkpoint", ck])
    assert code in (0, 4)  # half a second of samples: nothing found, perhaps inconclusive
    err = capsys.readouterr().err
    assert "warning" in err and "projected" in err and ("days" in err or " h " in err)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_scaling_out_with_dask_commands(tmp_path):
    """The README's recipe: `dask scheduler`, two `dask worker ADDRESS`, one dpaudit audit."""
    pytest.importorskip("distributed")
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    quiet = dict(stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=_env())
    procs = [
        subprocess.Popen(
            [
                str(BIN / "dask"),
                "scheduler",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--no-dashboard",
            ],
            **quiet,
        )
    ]
    try:
        time.sleep(1.0)
        for _ in range(2):
            procs.append(
                subprocess.Popen(
                    [str(BIN / "dask"), "worker", address, "--nthreads", "1", "--no-dashboard"],
                    **quiet,
                )
            )
        args = ["audit", "laplace", "--epsilon", "1", "--samples", "200000", "--quiet"]
        dask_run = _cli(
            *args,
            "--executor",
            "dask",
            "--scheduler",
            address,
            "--json",
            str(tmp_path / "dask.json"),
        )
        assert dask_run.wait(timeout=120) == 0, dask_run.communicate()
    finally:
        for p in reversed(procs):
            p.kill()  # a graceful shutdown takes seconds and nothing here needs it
        for p in procs:
            p.wait(timeout=30)
    assert main([*args, "--workers", "1", "--json", str(tmp_path / "local.json")]) == 0
    assert _json(tmp_path / "dask.json") == _json(tmp_path / "local.json")
