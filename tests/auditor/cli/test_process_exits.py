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
