"""Atomic output: write to a temporary file beside the target, then os.replace."""

from __future__ import annotations

import json
import math
import os
import tempfile
from pathlib import Path

from proofs.errors import InputError

__all__ = [
    "SCHEMA_VERSION",
    "finite_or_none",
    "number_or_text",
    "write_json_atomic",
    "write_text_atomic",
]

# The version of every JSON document dpaudit writes (audit, prove, closeness, estimates).
SCHEMA_VERSION = "1.0"


def write_text_atomic(path: str | os.PathLike, text: str) -> None:
    """Write `text` to `path` so that a reader sees the old file or the new one, never half."""
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.is_dir():
        raise InputError(
            f"output folder {str(folder)!r} does not exist; create it or choose another path."
        )
    if target.is_dir():
        raise InputError(f"output {str(target)!r} is a folder; give a file name.")
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; give the usual file mode
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_json_atomic(path: str | os.PathLike, data, strict: bool = False) -> None:
    """JSON, atomically; `strict` rejects NaN and infinities (not valid JSON)."""
    write_text_atomic(path, json.dumps(data, indent=2, allow_nan=not strict) + "\n")


def finite_or_none(x: float) -> float | None:
    """A number for JSON, which has no infinity or NaN: non-finite values become null."""
    return x if math.isfinite(x) else None


def number_or_text(x: float) -> float | str:
    """A number for JSON that keeps infinities readable: ``"inf"`` and ``"-inf"``."""
    return float(x) if math.isfinite(x) else ("inf" if x > 0 else "-inf")
