"""The Dinkelbach search shared by both (n, t) searches (auditor.closeness.reference.refine):
time slices, the gap stop, and what it calls proved."""

from __future__ import annotations

import time
from fractions import Fraction

import numpy as np
import pytest

from auditor.closeness.reference import GAP, refine
from auditor.closeness.shared import shared_reference_set

SOLVED, STOPPED, FAILED = 0, 1, 4


def _value(x: np.ndarray) -> Fraction:
    return Fraction(int(x[0]), 1000)


def _scripted(*replies):
    """A step that answers from a script and records the seconds it was given."""
    given = []

    def step(lam: float, seconds: float):
        given.append(seconds)
        return replies[min(len(given), len(replies)) - 1]

    return step, given


def _run(step, start=500, lower=0.1, limit=60.0):
    return refine(
        np.array([start]),
        _value(np.array([start])),
        lower,
        _value,
        step,
        1.0,
        time.monotonic() + limit,
    )


def test_a_solved_step_with_no_better_set_proves_the_incumbent():
    step, _ = _scripted((np.array([700]), -1e-7, SOLVED))
    x, steps, lower = _run(step)
    assert x[0] == 500 and steps == 1 and lower is None


def test_a_failed_step_leaves_the_incumbent_unproved_with_its_bound():
    step, _ = _scripted((None, -0.3, FAILED))
    x, _steps, lower = _run(step)
    assert x[0] == 500 and lower == pytest.approx(0.2)  # lam 0.5 + dual -0.3 (scale 1)


def test_a_stopped_step_within_the_gap_ends_the_search_unproved():
    # the step's set (0.100004) is within GAP of the lower bound 0.1: proving it is not worth it
    step, _ = _scripted((np.array([100]), -0.4, STOPPED))
    x, steps, lower = refine(
        np.array([500]),
        Fraction(1, 2),
        0.1,
        lambda x: Fraction(100004, 10**6) if x[0] == 100 else Fraction(1, 2),
        step,
        1.0,
        time.monotonic() + 60,
    )
    assert x[0] == 100 and steps == 1 and lower == pytest.approx(0.1)
    assert float(Fraction(100004, 10**6)) - lower < GAP


def test_a_solved_step_within_the_gap_goes_on_to_a_proof():
    # the same set from a step that finished: one more step, which proves it
    step, _ = _scripted((np.array([100]), -0.45, SOLVED), (np.array([100]), 0.0, SOLVED))
    x, steps, lower = _run(step, lower=0.0999999)
    assert x[0] == 100 and steps == 2 and lower is None


def test_time_slices_double_while_steps_end_on_them_without_a_better_set():
    step, given = _scripted((None, -1.0, STOPPED))
    _, _steps, lower = _run(step, limit=0.5)
    assert given[0] == pytest.approx(min(1.0, 0.5), abs=0.05) and lower == pytest.approx(0.1)
    step, given = _scripted(*([(None, -1.0, STOPPED)] * 3), (np.array([700]), 0.0, SOLVED))
    _, steps, lower = _run(step)
    assert [round(s) for s in given] == [1, 2, 4, 8] and steps == 4 and lower is None


@pytest.mark.parametrize(("seed", "n"), [(1, 4999), (2, 7001)])
def test_a_mid_size_partition_search_stops_within_the_gap_not_at_its_time_limit(seed, n, capfd):
    """200 distinct class distributions over 10 values: HiGHS finds a set within 1e-5 of the LP
    bound in a second, and could not prove it optimal in the whole minute it used to spend. On
    the second table HiGHS printed internal messages on the C stdout; they stay out of ours."""
    rng = np.random.default_rng(seed)
    base = rng.dirichlet(np.full(10, 2.0))
    rows = np.array([rng.multinomial(500, rng.dirichlet(base * 30)) for _ in range(200)])
    started = time.monotonic()
    ref = shared_reference_set(rows, rows.sum(0), n, "tv", time_limit=60)
    assert time.monotonic() - started < 30
    assert not ref.optimal and 0 <= ref.distance - ref.bound <= GAP
    print("after the search")
    assert capfd.readouterr().out == "after the search\n"


def test_an_undetermined_run_states_its_closeness_as_an_upper_bound():
    """Out of search time, '(1500, t)-closeness = 0.796' and '161 of 201 classes exceed t'
    were upper bounds read as results (the true values 0.592 and 121)."""
    from auditor.closeness.reference import ReferenceSet
    from auditor.closeness.result import ClassDistance, ClosenessResult

    ref = ReferenceSet(1500, (("a", 900), ("b", 600)), 0.8, "lp-rounding", 3, False, 0.25)
    worst = ClassDistance(("1",), 20, 0, 0.8, 0.9, (("a", 20),), ref)
    result = ClosenessResult(
        "t.csv", ("q",), "s", "tv", False, 0.3, 1500, 3000, 2, 2, 0.8, 1, 0, (worst,), 2, 0.1,
        unproved_classes=1, violating_unproved=1,
    )  # fmt: skip
    text = result.summary()
    assert "(1500, t)-closeness <= 0.8" in text and "an upper bound" in text
    assert result.verdict == "undetermined" and "1 of them by an upper bound only" in text
