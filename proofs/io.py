"""Atomic output: write to a temporary file beside the target, then os.replace."""

from __future__ import annotations

import contextlib
import json
import math
import os
import signal
import tempfile
import threading
from pathlib import Path

from proofs.errors import InputError

__all__ = [
    "SCHEMA_VERSION",
    "check_outputs",
    "check_writable",
    "finite_or_none",
    "number_or_text",
    "write_files_atomic",
    "write_json_atomic",
    "write_text_atomic",
]

# The version of every JSON document dpaudit writes (audit, prove, closeness, estimates).
SCHEMA_VERSION = "1.0"


def check_writable(path: str | os.PathLike) -> Path:
    """Fail now, with one line, if `path` cannot be written (before any long work)."""
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.is_dir():
        raise InputError(
            f"output folder {str(folder)!r} does not exist; create it or choose another path."
        )
    if target.is_dir():
        raise InputError(f"output {str(target)!r} is a folder; give a file name.")
    if not os.access(folder, os.W_OK | os.X_OK) or (
        target.exists() and not os.access(target, os.W_OK)
    ):
        raise InputError(f"output {str(target)!r} is not writable; choose another path.")
    return target


def check_outputs(**paths: str | os.PathLike | None) -> None:
    """:func:`check_writable` for each output given (flag name -> path), and no two naming
    one file: the second written would silently replace the first."""
    seen: dict[Path, str] = {}
    for flag, path in paths.items():
        if not path:
            continue
        resolved = check_writable(path).resolve()
        name = "--" + flag.replace("_", "-")
        if resolved in seen:
            raise InputError(
                f"{seen[resolved]} and {name} both name {str(path)!r}; give each its own file."
            )
        seen[resolved] = name


def _temp_copy(target: Path, text: str) -> str:
    folder = target.parent if str(target.parent) else Path(".")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise InputError(
            f"output {str(target)!r} cannot be written ({exc.strerror}); choose another path."
        ) from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; give the usual file mode
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return tmp


def write_text_atomic(path: str | os.PathLike, text: str) -> None:
    """Write `text` to `path` so that a reader sees the old file or the new one, never half."""
    write_files_atomic({path: text})


def write_files_atomic(files: dict) -> None:
    """Write several files so that an interrupt leaves all old or all new: every text goes to
    a temporary file first, then all are renamed with SIGINT held back (where it can be)."""
    targets = [check_writable(p) for p in files]
    temps: list[str] = []
    try:
        for target, text in zip(targets, files.values()):
            temps.append(_temp_copy(target, text))
        with _sigint_held():
            for tmp, target in zip(temps, targets):
                os.replace(tmp, target)
    except BaseException:
        for tmp in temps:
            Path(tmp).unlink(missing_ok=True)
        raise


@contextlib.contextmanager
def _sigint_held():
    """Delay SIGINT until the block ends (main thread on POSIX; elsewhere a no-op)."""
    can = (
        hasattr(signal, "pthread_sigmask") and threading.current_thread() is threading.main_thread()
    )
    if can:
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        if can:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


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
