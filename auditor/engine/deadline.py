"""The time limit of an audit (``max_time``) and the cuts that enforce it.

Between chunks the session compares the clock with the limit. That alone lets a slow
mechanism run far past it: a chunk, the probe or the checks before the first chunk may call
the mechanism for minutes, and a call that never returns is never stopped. So each wait for the
mechanism (a call of it here, or a wait for a worker running it) runs under :func:`cut_at`: in
the main thread, where POSIX delivers signals to Python, a one-shot interval timer rings at the
given time and raises :class:`OutOfTime` there.

Only those waits are cut, never the audit's own steps between them (adding a chunk's counts,
saving a checkpoint, building events): the work cut is the chunk's, which is then discarded
whole. A call running C code that does not return to Python (a long NumPy call, a C
extension's loop) is cut when it returns; a sleep or a wait on a lock is cut at once.

The timer is set only where no one else uses SIGALRM (the default handler, set from Python,
and no timer pending): elsewhere, and outside the main thread, the clock between chunks is the
only check.
"""

from __future__ import annotations

import contextlib
import signal
import threading
import time
from collections.abc import Iterator

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


@contextlib.contextmanager
def cut_at(when: float | None) -> Iterator[None]:
    """Work that is cut at ``when`` (a :func:`time.perf_counter` reading; None: never):
    OutOfTime is raised at once when it has passed, and inside the work when it passes, where
    the timer can be set. Not nested: an inner cut leaves the outer one in charge."""
    if when is None:
        yield
        return
    wait = when - time.perf_counter()
    if wait <= 0:
        raise OutOfTime
    if getattr(_armed, "on", False) or not _timer_free():
        yield
        return

    def ring(signum, frame):
        if _armed.on:  # (a ring handled after the work ended is dropped)
            raise OutOfTime

    old = signal.signal(signal.SIGALRM, ring)
    _armed.on = True
    try:
        signal.setitimer(signal.ITIMER_REAL, wait)
        yield
    finally:
        _armed.on = False
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _timer_free() -> bool:
    """Can this audit use SIGALRM: main thread, the default handler (not a C-level one, which
    :func:`signal.getsignal` shows as None), no timer pending?"""
    if not hasattr(signal, "setitimer"):
        return False
    if threading.current_thread() is not threading.main_thread():
        return False
    free = signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    return free and signal.getsignal(signal.SIGALRM) is signal.SIG_DFL
