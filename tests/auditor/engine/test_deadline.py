"""The time limit counts from the audit's start and cuts a slow or hanging mechanism.

Before, the limit was compared with the clock between chunks only, counted from the first
chunk: a mechanism taking 0.5 s per call ran 47 s under a 5 s limit (the probe and the checks
before sampling drew 80 calls), and a call that never returned was never stopped.
"""

from __future__ import annotations

import os
import signal
import time

import pytest

from auditor import audit
from auditor.cli.main import main
from auditor.engine import executors
from auditor.engine.deadline import Deadline, OutOfTime
from proofs.errors import InputError


def _spin(seconds: float) -> None:
    """Python-level work (signals are handled between bytecodes, not in a C sleep's middle)."""
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


def test_a_region_is_cut_when_the_deadline_passes_and_refused_after_it():
    d = Deadline(0.2, time.perf_counter())
    t = time.perf_counter()
    with pytest.raises(OutOfTime):
        with d.region():
            _spin(5.0)
    assert time.perf_counter() - t < 2.0 and d.rang
    with pytest.raises(OutOfTime):  # passed: refused at the start, nothing runs
        with d.region():
            raise AssertionError("ran after the deadline")
    assert signal.getsignal(signal.SIGALRM) == signal.SIG_DFL  # the handler is given back
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_a_held_step_runs_whole_and_the_ring_comes_at_its_end():
    d = Deadline(0.1, time.perf_counter())
    done = []
    with pytest.raises(OutOfTime):
        with d.region():
            with d.hold():
                _spin(0.4)  # the deadline passes in here
                done.append("step")
            done.append("after")  # never: the ring is raised as the step ends
    assert done == ["step"]


def test_no_limit_cuts_nothing_and_a_floor_gives_time_past_a_zero_limit():
    with Deadline(None, time.perf_counter()).region():
        _spin(0.05)
    d = Deadline(0.0, time.perf_counter())
    with d.region(floor=1.0):  # (the probe's least time)
        _spin(0.05)
    with pytest.raises(OutOfTime):
        with d.region(floor=0.2):
            _spin(5.0)


def test_a_timer_of_someone_else_is_left_alone():
    """Where another handler owns SIGALRM (a test runner's timeout, the caller's own alarm),
    the limit is only checked between chunks: neither its handler nor its timer is changed."""
    rang = []
    old = signal.signal(signal.SIGALRM, lambda *_: rang.append(1))
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.3)
        d = Deadline(0.05, time.perf_counter())
        with d.region():
            _spin(0.5)  # not cut: the timer is theirs
        assert rang == [1] and not d.rang
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _slow_after(calls: int, seconds: float):
    """A Laplace mechanism whose every call after the first ``calls`` takes ``seconds``."""
    made = [0]

    def mech(data, rng):
        made[0] += 1
        if made[0] > calls:
            time.sleep(seconds)
        return float(sum(data)) + float(rng.laplace())

    return mech


def test_a_mechanism_that_turns_slow_mid_audit_is_cut_at_the_limit():
    """Fast for the probe and the checks, then 60 s per call: the limit (counted from the
    start) ends the audit in the call, with the valid result of what came before."""
    t = time.perf_counter()
    r = audit(
        _slow_after(100_000, 60.0), [([1], [0])], epsilon=1.0, samples=10**6, max_time=3.0,
        seed=0, workers=1, progress=False,
    )  # fmt: skip
    took = time.perf_counter() - t
    assert took < 20.0, took  # (the old check waited for the call: over 60 s)
    assert r.stop == "max-time" and r.seconds < 20.0
    assert r.epsilon_lower_bound <= 1.0 + 0.05 or r.violation_kind == "float-representation"


def test_slow_calls_before_sampling_count_against_the_limit():
    """0.2 s per call: the probe draws 8 (1.6 s), the checks 32 more; the limit of 2.5 s
    ends it all (it counted from the first chunk, after 8 s of those)."""
    t = time.perf_counter()
    r = audit(
        _slow_after(0, 0.2), [([1], [0])], epsilon=1.0, samples=10**6, max_time=2.5, seed=0,
        workers=1, progress=False,
    )  # fmt: skip
    took = time.perf_counter() - t
    assert took < 7.0, took
    assert r.stop == "max-time" and r.certification_samples == 0 and not r.violation


def test_workers_stuck_in_a_call_are_stopped_at_the_limit_and_the_pool_recovers():
    main_pid = os.getpid()

    def stuck_in_workers(data, rng):
        if os.getpid() != main_pid:
            time.sleep(120.0)
        return float(sum(data)) + float(rng.laplace())

    t = time.perf_counter()
    r = audit(
        stuck_in_workers, [([1], [0])], epsilon=1.0, samples=10**6, max_time=3.0, seed=0,
        workers=2, progress=False,
    )  # fmt: skip
    assert time.perf_counter() - t < 20.0
    assert r.stop == "max-time" and r.certification_samples == 0
    stuck = set(executors._POOLS)
    # the stuck workers were stopped; the next audit runs on a new pool as ever
    again = audit(
        _slow_after(10**9, 0.0), [([1], [0])], epsilon=1.0, samples=10**6, seed=0,
        workers=2, progress=False,
    )  # fmt: skip
    assert again.stop != "max-time" and again.certification_samples > 0
    assert set(executors._POOLS) - stuck


def test_a_first_call_that_never_returns_is_an_input_error_naming_the_limit(tmp_path, capsys):
    f = tmp_path / "hangs.py"
    f.write_text("import time\n\ndef mech(data, rng):\n    time.sleep(600)\n    return 0.0\n")
    t = time.perf_counter()
    code = main(["audit", f"{f}:mech", "--epsilon", "1", "--pair", "0", "1", "--max-time", "1.5"])
    assert code == 2 and time.perf_counter() - t < 15.0
    err = capsys.readouterr().err.strip()
    assert "gave no 8 outputs in 1.5 s (max_time=1.5" in err and "raise --max-time" in err
    assert len(err.splitlines()) == 1
    with pytest.raises(InputError, match=r"gave no 8 outputs in 1 s \(max_time=0,"):
        audit(_slow_after(0, 600.0), [(0, 1)], epsilon=1.0, max_time=0, workers=1)
