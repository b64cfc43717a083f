"""The time limit of an audit (``max_time``) and the cuts that enforce it.

Between chunks the session compares the clock with the limit. That alone lets a slow
mechanism run far past it: a chunk, the probe or the checks before the first chunk may call
the mechanism for minutes, and a call that never returns is never stopped. So each wait for the
mechanism (a call of it here, or a wait for a worker running it) is made by :func:`cut_at`: in
the main thread, where POSIX delivers signals to Python, an interval timer rings at the given
time and raises :class:`OutOfTime` there, and rings again every REPEAT_SECONDS until the work
ends: a mechanism that swallows the first ring (a bare ``except:`` in a loop) gets the next.

Only those waits are cut, never the audit's own steps between them (adding a chunk's counts,
saving a checkpoint, building events): the work cut is the chunk's, which is then discarded
whole. A call running C code that does not return to Python (a long NumPy call, a C
extension's loop) is cut when it returns; a sleep or a wait on a lock is cut at once.

The timer is set only where no one else uses SIGALRM (the default handler, set from Python,
and no timer pending): elsewhere, and outside the main thread, the clock between chunks is the
only check. A ring that lands while the work is raising an error of its own replaces the
error (the audit then ends at its time limit, not on the error): the two happened together.
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["Deadline", "OutOfTime", "cut_at", "hung_after"]


class OutOfTime(BaseException):
    """The time limit has passed. A BaseException, as KeyboardInterrupt: a mechanism's own
    ``except Exception`` must not swallow it."""


class Deadline:
    """``limit`` seconds (None: no limit) from ``t0`` (a :func:`time.perf_counter` reading)."""

    def __init__(self, limit: float | None, t0: float):
        self.limit, self.t0 = limit, t0
        self.at = None if limit is None else t0 + float(limit)

    def left(self) -> float:
        """Seconds left (infinite without a limit; negative once passed)."""
        return float("inf") if self.at is None else self.at - time.perf_counter()

    def passed(self) -> bool:
        return self.at is not None and time.perf_counter() >= self.at


# work a time limit may not cut (with a checkpoint: the checks, the first chunk of a slice) is
# taken as hung, and cut, after GUARD_SECONDS plus GUARD_FACTOR times its time at the probed speed
GUARD_SECONDS, GUARD_FACTOR = 10.0, 10.0


def hung_after(seconds: float, outputs: int, rate: float) -> float:
    """When work of ``seconds`` plus ``outputs`` drawn at ``rate`` per second, started now, is
    taken as hung (a :func:`time.perf_counter` reading)."""
    return time.perf_counter() + seconds + GUARD_SECONDS + GUARD_FACTOR * outputs / max(rate, 1e-9)


_armed = threading.local()
T = TypeVar("T")

# a ring the work swallows (a mechanism's bare ``except:``) comes again after REPEAT_SECONDS
REPEAT_SECONDS = 0.5


def _ring(signum, frame):
    if getattr(_armed, "on", False):  # (a ring handled after the work ended is dropped)
        raise OutOfTime


def cut_at(when: float | None, work: Callable[..., T], *args: Any, **kw: Any) -> T:
    """``work(*args, **kw)``, cut at ``when`` (a :func:`time.perf_counter` reading; None:
    never): OutOfTime is raised at once when it has passed, and inside the work when it passes
    (and every REPEAT_SECONDS after, until the work ends), where the timer can be set. Not
    nested: an inner cut leaves the outer one in charge. A call, not a ``with`` block: the
    work returns into the frame whose ``finally`` disarms the timer, with no call between (a
    ``with`` block's exit is a call, where a ring could land after the work and before the
    disarming, and leave the timer running)."""
    if when is None:
        return work(*args, **kw)
    wait = when - time.perf_counter()
    if wait <= 0:
        raise OutOfTime
    if getattr(_armed, "on", False) or not _timer_free():
        return work(*args, **kw)
    try:
        _armed.on = True
        signal.signal(signal.SIGALRM, _ring)
        signal.setitimer(signal.ITIMER_REAL, wait, REPEAT_SECONDS)
        return work(*args, **kw)
    finally:
        # inline, with no call before each step's try: CPython runs signal handlers at calls
        # and loops, so a ring is dropped from here on, and a Ctrl-C (which signal.signal
        # may raise before it sets the handler) cannot leave the restore half done: it is
        # finished, then the KeyboardInterrupt raised
        _armed.on = False
        held = None
        while True:
            try:
                signal.setitimer(signal.ITIMER_REAL, 0)
                signal.signal(signal.SIGALRM, signal.SIG_DFL)
                break
            except BaseException as exc:  # (raised below, once restored)
                held = exc
        if held is not None:
            raise held


def _timer_free() -> bool:
    """Can this audit use SIGALRM: main thread, the default handler (not a C-level one, which
    :func:`signal.getsignal` shows as None), no timer pending? Our own handler, left by a cut
    whose restore a signal broke off (a Ctrl-C caught by the caller), counts as free."""
    if not hasattr(signal, "setitimer"):
        return False
    if threading.current_thread() is not threading.main_thread():
        return False
    handler = signal.getsignal(signal.SIGALRM)
    if handler is _ring:
        return True
    return handler is signal.SIG_DFL and signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
