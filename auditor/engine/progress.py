"""Progress bars on stderr for long audits (tqdm): samples done, rate, ETA.

Shown only when stderr is a terminal (or when asked for), so pipes and logs stay clean.
"""

from __future__ import annotations

import sys

__all__ = ["Progress"]


class Progress:
    """`update(k)` after every chunk; `close()` at the end (clears the line)."""

    def __init__(
        self,
        total: int,
        label: str = "certifying",
        enabled: bool | None = None,
        stream=None,
        min_interval: float = 0.1,
    ):
        stream = stream if stream is not None else sys.stderr
        if enabled is None:
            enabled = bool(getattr(stream, "isatty", lambda: False)())
        self.bar = None
        if enabled and total > 0:
            from tqdm import tqdm

            self.bar = tqdm(
                total=total,
                desc=label,
                unit="samples",
                unit_scale=True,
                file=stream,
                mininterval=min_interval,
                leave=False,
                dynamic_ncols=True,
            )

    def update(self, k: int) -> None:
        if self.bar is not None:
            self.bar.update(k)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None
