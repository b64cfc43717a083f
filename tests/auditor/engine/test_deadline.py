"""The time limit counts from the audit's start and cuts a slow or hanging mechanism.

Before, the limit was compared with the clock between chunks only, counted from the first
chunk: a mechanism taking 0.5 s per call ran 47 s under a 5 s limit (the probe and the checks
before sampling drew 80 calls), and a call that never returned was never stopped.
"""

from __future__ import annotations

import os
import signal
import time

import numpy as np
import pytest

from auditor import audit
from auditor.cli.main import main
from auditor.engine import deadline, executors
from auditor.engine import run as run_module
from auditor.engine.adapter import as_mechanism
from auditor.engine.checkpoint import Checkpoint
from auditor.engine.deadline import Deadline, OutOfTime, cut_at
from proofs.errors import InputError


def _spin(seconds: float) -> None:
    """Python-level work (signals are handled between bytecodes, not in a C sleep's middle)."""
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


def test_work_is_cut_when_the_time_passes_and_refused_after_it():
    when = time.perf_counter() + 0.2
    with pytest.raises(OutOfTime):
        cut_at(when, _spin, 5.0)
    assert time.perf_counter() - when < 1.5
    with pytest.raises(OutOfTime):  # passed: refused at the start, nothing runs
        cut_at(when, pytest.fail, "ran after the deadline")
    assert signal.getsignal(signal.SIGALRM) == signal.SIG_DFL  # the handler is given back
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    assert cut_at(None, sum, [1, 2]) == 3  # no time: nothing is cut
    # work that ends in time gives its value and leaves no timer behind
    assert cut_at(time.perf_counter() + 5.0, max, 1, 2, key=lambda v: -v) == 1
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    _spin(0.1)


def test_a_timer_of_someone_else_is_left_alone():
    """Where another handler owns SIGALRM (a test runner's timeout, the caller's own alarm),
    the limit is only checked between chunks: neither its handler nor its timer is changed."""
    rang = []
    old = signal.signal(signal.SIGALRM, lambda *_: rang.append(1))
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.3)
        cut_at(time.perf_counter() + 0.05, _spin, 0.5)  # not cut: the timer is theirs
        assert rang == [1]
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def test_a_handler_set_in_c_is_not_taken_for_a_free_timer(monkeypatch):
    """signal.getsignal gives None for a handler not set from Python: not ours to replace."""
    monkeypatch.setattr(deadline.signal, "getsignal", lambda sig: None)
    assert not deadline._timer_free()


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
    # a check the limit cut decides nothing: not that the seed repeats the draws
    assert not r.reproducible and any("before sampling" in n for n in r.notes)


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
    assert "did not return its first 8 outputs in 1.5 s (max_time=1.5" in err
    assert "raise --max-time" in err and len(err.splitlines()) == 1
    with pytest.raises(InputError, match=r"first 8 outputs in 1 s \(max_time=0,"):
        audit(_slow_after(0, 600.0), [(0, 1)], epsilon=1.0, max_time=0, workers=1)


def test_a_checkpoint_save_past_the_limit_runs_whole(tmp_path, monkeypatch):
    """Only waits for the mechanism are cut, never the audit's own steps: a save running when
    the limit passes finishes (a save cut midway left temp files, umask 0 and signal handlers
    behind), and the next wait is refused instead."""
    real = Checkpoint.save
    began, ended = [], []

    def slow_save(self, state):
        began.append(1)
        _spin(0.3)  # the limit passes in here
        real(self, state)
        ended.append(1)

    monkeypatch.setattr(Checkpoint, "save", slow_save)
    mask = os.umask(0o022)
    os.umask(mask)
    handlers = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    r = audit(
        _slow_after(10**9, 0.0), [([1], [0])], epsilon=1.0, samples=10**6, max_time=0.5,
        checkpoint=str(tmp_path / "c.ckpt"), checkpoint_every=1e-9, seed=0, workers=1,
        progress=False,
    )  # fmt: skip
    assert r.stop == "max-time" and len(began) >= 2 and began == ended
    assert (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)) == handlers
    assert os.umask(mask) == mask
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.ckpt"]


def _series(path, max_time: float, runs: int, **kw):
    """An audit run in slices of ``max_time`` on one checkpoint, at most ``runs`` of them."""
    for i in range(1, runs + 1):
        r = audit(checkpoint=str(path), max_time=max_time, **kw)
        if r.stop != "max-time":
            return i, r
    return runs, r


def test_a_checkpointed_audit_in_slices_of_no_time_finishes_as_one_run(tmp_path):
    """A slice's limit counts from its first chunk, and a slice runs until its saved state
    has moved (a selection round's outputs are held, not saved) unless it hangs: slices of
    max_time=0 progress to the result of the audit run in one go, and a completed series run
    again reports itself complete, not stopped by the limit."""
    kw = dict(
        mechanism=lambda data, rng: float(sum(data)) + float(rng.laplace()),
        pairs=[([1], [0])], epsilon=1.0, samples=100_000, seed=5, workers=1, progress=False,
    )  # fmt: skip
    whole = audit(checkpoint=str(tmp_path / "whole.ckpt"), max_time=600.0, **kw)
    runs, sliced = _series(tmp_path / "sliced.ckpt", 0.0, 200, **kw)
    assert sliced.stop == whole.stop != "max-time" and runs > 2
    a, b = whole.to_dict(), sliced.to_dict()
    for d in (a, b):
        d.pop("seconds")
    assert a == b
    again = audit(checkpoint=str(tmp_path / "sliced.ckpt"), max_time=0.0, **kw)
    assert again.stop == whole.stop and again.epsilon_lower_bound == whole.epsilon_lower_bound


def test_the_checks_keep_their_least_budget_under_a_tight_limit(monkeypatch):
    """The check for draws that depend on more than the stream gets its 1 s whatever the
    limit leaves (less let a pool reuse the noise of a mechanism with hidden state)."""
    budgets = []
    real = run_module.moves_beyond_stream

    def spy(mech, data, seed, budget, other):
        budgets.append(budget)
        return real(mech, data, seed, budget, other=other)

    monkeypatch.setattr(run_module, "moves_beyond_stream", spy)
    audit(
        _slow_after(10**9, 0.0), [([1], [0])], epsilon=1.0, samples=10**6, max_time=0.5,
        seed=0, workers=1, progress=False,
    )  # fmt: skip
    assert budgets == [run_module.CHECK_FLOOR / 4]


def test_a_slice_s_probe_is_cut_only_when_it_hangs():
    """With a checkpoint a slice's limit counts from its first chunk: a probe slower than the
    limit is not refused (it was as bad input, and a series of short slices never started);
    without one the limit counts from the start and the probe has PROBE_FLOOR seconds."""
    mech = as_mechanism(_slow_after(0, 0.15), "slow")  # 8 calls: 1.2 s
    pr = run_module._probe(mech, [1], 0, Deadline(0.1, time.perf_counter()), sliced=True)
    assert pr.rate < 10
    with pytest.raises(InputError, match=r"first 8 outputs in 1 s \(max_time=0.1,"):
        run_module._probe(mech, [1], 0, Deadline(0.1, time.perf_counter()), sliced=False)


def test_a_ring_the_work_swallows_comes_again():
    """A mechanism's bare ``except:`` caught the one ring there was, and the work went on
    past the limit; the timer now rings every REPEAT_SECONDS until the work ends."""
    swallowed = []

    def stubborn():
        try:
            _spin(5.0)
        except BaseException:  # (the mechanism's, as written)
            swallowed.append(1)
        _spin(5.0)

    t = time.perf_counter()
    with pytest.raises(OutOfTime):
        cut_at(t + 0.1, stubborn)
    assert swallowed == [1] and time.perf_counter() - t < 0.1 + 4 * deadline.REPEAT_SECONDS
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    _spin(2 * deadline.REPEAT_SECONDS)  # (and no ring comes after the cut)


def test_a_ctrl_c_during_set_up_or_restore_leaves_no_handler_or_timer_behind():
    """One KeyboardInterrupt at a random moment of a cut (raised from a CPU-time timer every
    0.1 ms of CPU) must never leave SIGALRM's handler, a timer or the arming behind: it left
    the handler in about one interrupt in six, and no later audit could set its timer."""
    active = [False]

    def interrupt(*_):
        if active[0]:
            active[0] = False  # (one per cut, as one Ctrl-C)
            raise KeyboardInterrupt

    old = signal.signal(signal.SIGPROF, interrupt)
    signal.setitimer(signal.ITIMER_PROF, 1e-4, 1e-4)
    interrupted, left = 0, []
    try:
        end = time.perf_counter() + 3.0
        while time.perf_counter() < end:
            try:
                active[0] = True
                cut_at(time.perf_counter() + 30.0, int)
                active[0] = False
            except KeyboardInterrupt:
                active[0] = False
                interrupted += 1
                left += _left_armed()  # (while the exception is alive, and after)
            left += _left_armed()
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, old)
    assert interrupted >= 50, interrupted  # (the interrupts did land, in cuts)
    assert left == []


def _left_armed() -> list:
    """SIGALRM's handler, timer and arming, when any is left behind (then cleared)."""
    state = (
        signal.getsignal(signal.SIGALRM),
        signal.getitimer(signal.ITIMER_REAL),
        getattr(deadline._armed, "on", False),
    )
    if state == (signal.SIG_DFL, (0.0, 0.0), False):
        return []
    signal.setitimer(signal.ITIMER_REAL, 0)
    signal.signal(signal.SIGALRM, signal.SIG_DFL)
    deadline._armed.on = False
    return [state]


def test_a_ring_in_the_work_s_last_c_call_leaves_nothing_armed():
    """A ring that lands in a C call at the end of the work is raised when the call returns.
    With a ``with`` block that was in its exit call, before the disarming: the timer went on
    ringing every 0.5 s while the exception lived, and the next cut took itself for nested."""
    big = np.ones(20_000_000)
    with pytest.raises(OutOfTime):
        try:
            cut_at(time.perf_counter() + 0.01, np.power, big, 1.5)
        except OutOfTime:
            assert _left_armed() == []
            _spin(2 * deadline.REPEAT_SECONDS)  # (no ring comes while the exception lives)
            raise
    with pytest.raises(OutOfTime):  # the next cut is one of its own, not taken as nested
        cut_at(time.perf_counter() + 0.1, _spin, 3.0)


def test_a_handler_left_by_an_interrupted_cut_is_taken_back():
    """Our own handler, left installed (a restore broken off before this fix, or by a signal
    we cannot see), does not stop later audits from setting their timer."""
    signal.signal(signal.SIGALRM, deadline._ring)
    try:
        assert deadline._timer_free()
        with pytest.raises(OutOfTime):
            cut_at(time.perf_counter() + 0.1, _spin, 3.0)
        assert signal.getsignal(signal.SIGALRM) == signal.SIG_DFL
    finally:
        signal.signal(signal.SIGALRM, signal.SIG_DFL)


def test_the_probe_s_own_steps_after_its_draws_are_not_cut(monkeypatch):
    """A ring after the probe's draws (here: its look at their kind, made slow) was taken for
    a first draw that never returned, and the audit refused as bad input (exit 2)."""
    from auditor.engine import plan

    real = plan.kind_of

    def slow_kind_of(y):
        _spin(1.5)  # (past the limit and the probe's floor of 1 s)
        return real(y)

    monkeypatch.setattr(plan, "kind_of", slow_kind_of)
    r = audit(
        _slow_after(10**9, 0.0), [([1], [0])], epsilon=1.0, samples=10**6, max_time=0.5,
        seed=0, workers=1, progress=False,
    )  # fmt: skip
    assert r.stop == "max-time" and r.certification_samples == 0 and not r.violation


def _slow_sum(data, rng):
    """0.002 s per call, one call per output: a search's two draws of 1,000 take 4 s."""
    time.sleep(0.002)
    return float(sum(data)) + float(rng.laplace())


def test_a_pair_search_counts_against_the_limit_and_is_cut_at_its_share():
    """The Hypothesis pair search ran before the clock started, uncut: 200 pairs of 4 s each
    under a limit of 4 s. It now takes SEARCH_SHARE of the limit and ends with what it found
    (here nothing yet: the pattern pairs are audited), and the audit says so."""
    t = time.perf_counter()
    r = audit(
        _slow_sum, relation="replace-one", pair_search="hypothesis", epsilon=1.0,
        samples=10**6, max_time=4.0, seed=0, workers=1, progress=False,
    )  # fmt: skip
    took = time.perf_counter() - t
    assert took < 4.0 + 5.0, took  # (the rest of the audit was sized to the time left)
    assert r.seconds >= run_module.SEARCH_SHARE * 4.0 and not r.reproducible
    assert any("ended the pair search after 0 of its 200 pairs" in n for n in r.notes)


def test_a_pair_search_that_ends_in_time_is_whole_and_reproducible():
    kw = dict(
        relation="replace-one", pair_search="hypothesis", epsilon=1.0, samples=20_000,
        seed=3, workers=1, progress=False,
    )  # fmt: skip
    fast = lambda data, rng, size: np.sum(data) + rng.laplace(size=size)
    timed, untimed = audit(fast, max_time=600.0, **kw), audit(fast, **kw)
    assert not any("pair search" in n for n in timed.notes)
    assert timed.witness.pair == untimed.witness.pair
    assert timed.epsilon_lower_bound == untimed.epsilon_lower_bound


def test_with_a_checkpoint_a_pair_search_is_never_cut_short(tmp_path, monkeypatch):
    """Every slice must find the same pairs: a search past its floor is refused, not cut."""
    monkeypatch.setattr(run_module, "SLICE_SEARCH_FLOOR", 0.5)
    with pytest.raises(InputError, match=r"pair search did not end in 0\.5 s: with --checkpoint"):
        audit(
            _slow_sum, relation="replace-one", pair_search="hypothesis", epsilon=1.0,
            max_time=0.1, checkpoint=str(tmp_path / "c.ckpt"), workers=1, progress=False,
        )  # fmt: skip
    assert not (tmp_path / "c.ckpt").exists()


def test_the_probe_times_a_cost_per_call_as_chunks_pay_it():
    """5 ms per call, then NumPy's speed: chunks of 2^20 outputs run at millions per second.
    Counted over all the probe's draws (seven calls, at least 35 ms, for 21,848 outputs), the
    rate was at most 6.2e5 per second, and a time limit sized such audits far too small; the
    largest draw (16,384 outputs in one call) times it."""
    from auditor.engine.plan import probe

    def per_call(data, rng, size):
        time.sleep(0.005)
        return float(sum(data)) + rng.laplace(size=size)

    assert probe(as_mechanism(per_call, "per_call"), [1], 0).rate >= 16_384 / 0.02


def test_a_search_cut_mid_hypothesis_ends_with_what_it_found():
    """The whole Hypothesis run was under the timer: a ring in Hypothesis's own steps was
    taken for a failing example, replayed, and ended the audit with FlakyStrategyDefinition
    (5 runs in 13 at a 1.3 s limit). Only the mechanism's draws are cut now: every run here
    ends cut, with pairs."""
    from auditor.testing.strategies import searched

    def fast(data, rng, size):
        return float(sum(data)) + rng.laplace(size=size)

    for seed in range(8):
        # (a loaded machine could spend the whole 0.3 s on the first example: tried 0, no pairs,
        # which says nothing about the cut; the budget doubles until one example is done)
        budget = 0.3
        while True:
            found = searched(
                fast, "replace-one", None, min_size=1, max_size=3, sensitivity=1.0, samples=200,
                max_examples=2000, seed=seed, until=time.perf_counter() + budget,
            )  # fmt: skip
            if found.tried > 0 or budget > 2:
                break
            budget *= 2
        assert found.cut and found.pairs and 0 < found.tried < 2000
        assert _left_armed() == []
