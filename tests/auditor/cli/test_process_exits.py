"""A target, a claims file or a mechanism's thread that calls os._exit(0) must not end dpaudit
with exit code 0, "nothing wrong found", and no word said: each is bad input (exit 2) with a
line naming the call. Run in a subprocess: a broken guard would end this one."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

MAIN = "import sys; from auditor.cli.main import main; sys.exit(main(sys.argv[1:]))"
AUDIT = ["--epsilon", "1", "--pair", "0", "1", "--samples", "2000", "--workers", "1"]


def _run(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    return subprocess.run(
        [sys.executable, "-c", MAIN, *args], env=env, capture_output=True, text=True, timeout=120
    )


@pytest.mark.parametrize(
    ("source", "where"),
    [
        ("import os\nos._exit(0)\ndef mech(data):\n    return 0\n", "importing"),
        (
            "import os, threading, time\n"
            "def mech(data):\n"
            "    threading.Thread(target=os._exit, args=(0,)).start()\n"
            "    time.sleep(5)\n"
            "    return 0\n",
            "a thread other than dpaudit's own called os._exit(0)",
        ),
    ],
    ids=["at-import", "in-a-thread"],
)
def test_an_os_exit_in_a_target_is_bad_input(tmp_path, source, where):
    f = tmp_path / "quits.py"
    f.write_text(source)
    done = _run("audit", f"{f}:mech", *AUDIT)
    assert done.returncode == 2, (done.returncode, done.stderr[-500:])
    assert where in done.stderr and "os._exit(0)" in done.stderr


def test_an_os_exit_in_a_claims_file_is_bad_input(tmp_path):
    f = tmp_path / "claims.py"
    f.write_text("import os\nos._exit(0)\nCLAIMS = []\n")
    out = tmp_path / "out.json"
    done = _run("prove", str(f), "--json", str(out))
    assert done.returncode == 2, (done.returncode, done.stderr[-500:])
    assert "os._exit(0) was called" in done.stderr


ENTRY = "from auditor.cli.main import entry; entry()"


def test_a_thread_the_mechanism_leaves_running_does_not_keep_dpaudit_alive(tmp_path):
    f = tmp_path / "lingers.py"
    f.write_text(
        "import threading, time\n"
        "def mech(data, rng):\n"
        "    if threading.active_count() == 1:\n"
        "        threading.Thread(target=time.sleep, args=(600,)).start()  # not a daemon\n"
        "    return round(float(data) + rng.laplace(0, 2))\n"
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    done = subprocess.run(
        [sys.executable, "-c", ENTRY, "audit", f"{f}:mech", *AUDIT, "--json", "o.json"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=90,
    )
    assert done.returncode == 0, (done.returncode, done.stderr[-500:])
    assert "not waiting for threads still running" in done.stderr
    assert (tmp_path / "o.json").exists()


def test_a_crash_of_the_interpreter_shows_where_it_happened(tmp_path):
    f = tmp_path / "crashes.py"
    f.write_text("import os\ndef mech(data):\n    os.abort()\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    done = subprocess.run(
        [sys.executable, "-c", ENTRY, "audit", f"{f}:mech", *AUDIT],
        env=env,
        capture_output=True,
        text=True,
        timeout=90,
    )
    assert done.returncode != 0
    assert 'crashes.py", line 3 in mech' in done.stderr
