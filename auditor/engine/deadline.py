"""The time limit of an audit (``max_time``): a deadline counted from the audit's start.

Between chunks the session compares the clock with the deadline. That alone lets a slow
mechanism run far past it: a chunk, the probe or the checks before the first chunk may call
the mechanism for minutes, and a call that never returns is never stopped. So the work that
calls the mechanism runs in a :meth:`Deadline.region`: in the main thread (where POSIX delivers
signals to Python) a one-shot interval timer rings at the deadline and raises
:class:`OutOfTime` inside the region, wherever the mechanism or a wait for a worker is. Code
that must not be cut midway (adding a chunk's counts, saving a checkpoint) runs in
:meth:`Deadline.hold`, and the ring is raised when it ends.

The timer is set only where no one else uses SIGALRM (its handler is the default and no timer
is pending): elsewhere, and outside the main thread, the clock between chunks is the only
check, as before.
"""

from __future__ import annotations

import contextlib
import signal
import threading
import time
from collections.abc import Iterator

__all__ = ["Deadline", "OutOfTime"]


class OutOfTime(BaseException):
    """The time limit has passed. A BaseException, as KeyboardInterrupt: a mechanism's own
    ``except Exception`` must not swallow it."""


class Deadline:
    """``limit`` seconds (None: no limit) from ``t0`` (a :func:`time.perf_counter` reading)."""

    def __init__(self, limit: float | None, t0: float):
        self.limit, self.t0 = limit, t0
        self.at = None if limit is None else t0 + float(limit)
        self.rang = False  # the timer cut work midway (a worker may still be running it)
        self._inside = self._held = self._due = False

    def left(self) -> float:
        """Seconds left (infinite without a limit; negative once passed)."""
        return float("inf") if self.at is None else self.at - time.perf_counter()

    def passed(self) -> bool:
        return self.at is not None and time.perf_counter() >= self.at

    @contextlib.contextmanager
    def region(self, floor: float = 0.0) -> Iterator[None]:
        """Work the deadline may cut: OutOfTime is raised at once when it has passed, and inside
        when it passes (where the timer can be set). With a ``floor`` the work has at least
        that many seconds from ``t0``, whatever the limit."""
        if self.at is None:
            yield
            return
        wait = max(self.at, self.t0 + floor) - time.perf_counter()
        if wait <= 0:
            raise OutOfTime
        if self._inside or not _timer_free():
            yield
            return
        old = signal.signal(signal.SIGALRM, self._ring)
        self._inside = True
        try:
            signal.setitimer(signal.ITIMER_REAL, wait)
            yield
        finally:
            self._inside = False  # (a ring that is handled late from here on is dropped)
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)
            self._due = False

    @contextlib.contextmanager
    def hold(self) -> Iterator[None]:
        """A step that must run whole: a ring inside is raised when it ends."""
        if self._held:
            yield
            return
        self._held = True
        try:
            yield
        finally:
            self._held = False
        if self._due:
            self._due = False
            self.rang = True
            raise OutOfTime

    def _ring(self, signum, frame) -> None:
        if not self._inside:
            return
        if self._held:
            self._due = True
            return
        self.rang = True
        raise OutOfTime


def _timer_free() -> bool:
    """Can this audit use SIGALRM: main thread, default handler, no timer pending?"""
    if not hasattr(signal, "setitimer"):
        return False
    if threading.current_thread() is not threading.main_thread():
        return False
    free = signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    return free and signal.getsignal(signal.SIGALRM) in (signal.SIG_DFL, None)
