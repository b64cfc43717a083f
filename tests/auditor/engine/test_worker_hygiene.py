"""Local workers end with dpaudit's process: a kill -9 of it left them drawing their chunks,
at full CPU, for minutes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import psutil

SCRIPT = """
import os, sys, time
from auditor.engine.executors import open_runner

def spin(_):
    end = time.time() + 300
    while time.time() < end:
        pass

runner = open_runner("local", 2, None, 1e9)
jobs = [runner.executor.submit(spin, i) for i in range(2)]
time.sleep(2)
print(" ".join(str(c.pid) for c in __import__("psutil").Process().children(recursive=True)))
sys.stdout.flush()
time.sleep(300)
"""


def test_workers_end_when_the_audit_process_is_killed():
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    parent = subprocess.Popen(
        [sys.executable, "-c", SCRIPT], env=env, stdout=subprocess.PIPE, text=True
    )
    try:
        pids = [int(p) for p in parent.stdout.readline().split()]
        workers = [p for p in pids if "LokyProcess" in " ".join(psutil.Process(p).cmdline())]
        assert len(workers) == 2, pids
    finally:
        parent.send_signal(signal.SIGKILL)
        parent.wait()
    deadline = time.time() + 20
    while time.time() < deadline and any(psutil.pid_exists(p) for p in workers):
        time.sleep(0.2)
    alive = [p for p in workers if psutil.pid_exists(p) and psutil.Process(p).status() != "zombie"]
    for p in alive:  # (left behind: end them, and fail)
        os.kill(p, signal.SIGKILL)
    assert not alive
