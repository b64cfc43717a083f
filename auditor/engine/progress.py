"""A progress bar on stderr for long audits: samples done, rate, ETA.

Shown only when stderr is a terminal and the user did not ask for quiet output; redrawn at
most ten times a second so it costs nothing next to sampling.
"""

from __future__ import annotations

import sys
import time

__all__ = ["Progress"]


def _si(x: float) -> str:
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if abs(x) >= scale:
            return f"{x / scale:.3g}{unit}"
    return f"{x:.0f}"


class Progress:
    """`update(k)` after every batch; `close()` at the end (clears the line)."""

    def __init__(
        self,
        total: int,
        label: str = "certifying",
        enabled: bool | None = None,
        stream=None,
        min_interval: float = 0.1,
    ):
        self.stream = stream if stream is not None else sys.stderr
        if enabled is None:
            enabled = bool(getattr(self.stream, "isatty", lambda: False)())
        self.enabled = enabled and total > 0
        self.total, self.label, self.min_interval = total, label, min_interval
        self.done = 0
        self.start = time.perf_counter()
        self.last = 0.0

    def update(self, k: int) -> None:
        self.done += k
        if not self.enabled:
            return
        now = time.perf_counter()
        if now - self.last < self.min_interval and self.done < self.total:
            return
        self.last = now
        self.stream.write("\r" + self.line(now))
        self.stream.flush()

    def line(self, now: float | None = None) -> str:
        now = time.perf_counter() if now is None else now
        elapsed = max(now - self.start, 1e-9)
        frac = min(self.done / self.total, 1.0)
        rate = self.done / elapsed
        eta = (self.total - self.done) / rate if rate > 0 else float("inf")
        bar = "#" * int(24 * frac) + "-" * (24 - int(24 * frac))
        eta_text = f"{eta:.0f}s" if eta != float("inf") else "?"
        return (
            f"{self.label} [{bar}] {100 * frac:5.1f}% {_si(self.done)}/{_si(self.total)} "
            f"samples, {_si(rate)}/s, ETA {eta_text}  "
        )

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\r" + " " * 90 + "\r")
            self.stream.flush()
