"""Atomic output: write to a temporary file beside the target, then os.replace."""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import signal
import stat
import sys
import tempfile
import threading
from pathlib import Path

from proofs.errors import EXIT_BAD_INPUT, InputError

__all__ = [
    "SCHEMA_VERSION",
    "MechanismExit",
    "brief",
    "check_outputs",
    "check_writable",
    "exits_guarded",
    "finite_or_none",
    "long_integers",
    "number_or_text",
    "read_json",
    "same_schema",
    "write_files_atomic",
    "write_json_atomic",
    "write_text_atomic",
]

# The version of every JSON document dpaudit writes (audit, prove, closeness, estimates).
SCHEMA_VERSION = "1.0"


def same_schema(version) -> bool:
    """Is ``version`` (a document's ``schema_version``) readable here: the same major version?"""
    return isinstance(version, str) and version.split(".")[0] == SCHEMA_VERSION.split(".")[0]


_DESCRIPTORS = re.compile(r"/dev/(stdout|stderr|fd/(\d+))|/proc/self/fd/(\d+)")


def _descriptor(path: str | os.PathLike) -> int | None:
    """The open file descriptor an output path names (/dev/stdout, /dev/fd/3, and ``-`` for
    stdout, as Unix tools read it), if any: written through it, so output redirected to a file
    (``>> log``) is appended to, not replaced."""
    if str(path) == "-":
        return 1
    found = _DESCRIPTORS.fullmatch(str(path))
    if found is None:
        return None
    name, fd, proc = found.groups()
    return {"stdout": 1, "stderr": 2}.get(name, int(fd or proc or -1))


def names_stdout(path: str | os.PathLike | None) -> bool:
    """Does the output ``path`` write to this process's stdout (``-``, /dev/stdout, /dev/fd/1,
    or the very file or pipe stdout is)? Then the command's text goes to stderr, so that
    ``--json - | jq`` reads JSON alone."""
    if path is None:
        return False
    if _descriptor(path) == 1:
        return True
    try:
        return os.path.samestat(os.stat(path), os.fstat(1))
    except (OSError, ValueError):
        return False


def _is_stream(target: Path) -> bool:
    """An output that is not a regular file (a FIFO, a device, an open descriptor): written in
    place, since renaming a file over it would replace the device or pipe itself."""
    if _descriptor(target) is not None:
        return True
    try:
        mode = target.stat().st_mode
    except OSError:
        return False
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


def _write_stream(target: Path, text: str) -> None:
    fd = _descriptor(target)
    try:
        if fd is None:
            with open(target, "w", encoding="utf-8") as fh:
                fh.write(text)
            return
        for stream in (sys.stdout, sys.stderr):  # what was printed before comes first
            with contextlib.suppress(Exception):
                stream.flush()
        data = text.encode("utf-8")
        while data:
            data = data[os.write(fd, data) :]
    except OSError as exc:
        raise _unwritable(target, exc) from None


def _real(path: str | os.PathLike) -> Path:
    """The file an output path names: a symlink's target (the link itself stays a link)."""
    if str(path) == "":
        raise InputError("an output path is empty ('' given); give a file name.")
    return Path(os.path.realpath(path))


def check_writable(path: str | os.PathLike) -> Path:
    """Fail now, with one line, if `path` cannot be written (before any long work). Returns
    the path to write: a symlink's target, or the pipe or device itself."""
    target = _real(path)
    fd = _descriptor(path)
    if fd is not None:
        try:
            os.fstat(fd)
        except OSError:
            raise InputError(
                f"output {str(path)!r}: descriptor {fd} is not open; choose another path."
            ) from None
        return Path(path)
    if _is_stream(Path(path)):
        if not os.access(path, os.W_OK):
            raise InputError(f"output {str(path)!r} is not writable; choose another path.")
        return Path(path)  # (/dev/stdout resolves to a name that cannot be opened)
    folder = target.parent
    if folder.exists() and not folder.is_dir():
        raise InputError(
            f"output {str(path)!r}: {str(folder)!r} is a file, not a folder; choose another path."
        )
    if not folder.is_dir():
        raise InputError(
            f"output folder {str(folder)!r} does not exist; create it or choose another path."
        )
    if target.is_dir():
        raise InputError(f"output {str(path)!r} is a folder; give a file name.")
    if str(path).endswith((os.sep, "/")):  # (written as the name without its slash)
        raise InputError(f"output {str(path)!r} ends with '/', a folder's mark; give a file name.")
    if not os.access(folder, os.W_OK | os.X_OK) or (
        target.exists() and not os.access(target, os.W_OK)
    ):
        raise InputError(f"output {str(path)!r} is not writable; choose another path.")
    # the folder's mode says yes to root on /proc, where no file can be made: try it (Ctrl-C
    # held back meanwhile, so the probe is never left behind)
    with _sigint_held():
        try:
            fd, probe = tempfile.mkstemp(dir=folder, prefix=".dpaudit-")  # (shorter than a name)
        except OSError as exc:
            raise _unwritable(target, exc) from None
        os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(probe)
    return target


def check_outputs(
    inputs: dict[str, str | os.PathLike | None] | None = None, **paths: str | os.PathLike | None
) -> None:
    """:func:`check_writable` for each output given (flag name -> path), no two naming one
    file (the second written would silently replace the first), and none naming one of the
    run's `inputs` (what it reads -> path: a target's source, a pairs or claims file, a
    baseline, a checkpoint), which the output would overwrite."""
    read = {_file_key(_real(path)): what for what, path in (inputs or {}).items() if path}
    seen: dict[Path | tuple[int, int], str] = {}
    for flag, path in paths.items():
        if path is None:
            continue
        name = flag if " " in flag else "--" + flag.replace("_", "-")  # (a flag, or words)
        if str(path) == "":
            raise InputError(f"{name} '' is empty; give a file name.")
        resolved = check_writable(path)
        if _is_stream(resolved):
            continue  # a pipe or device: nothing in it to lose
        source = resolved.suffix in (".py", ".pyw") and resolved.is_file()
        resolved = _file_key(resolved)
        if resolved in read or source:
            # (a module the target imports is no input we can list, and no output of ours
            # is Python: an existing source file is never overwritten)
            what = read.get(resolved, "a Python source file")
            raise InputError(
                f"{name} {str(path)!r} is {what}, which the output would overwrite; "
                "give the output its own file."
            )
        if resolved in seen:
            raise InputError(
                f"{seen[resolved]} and {name} both name {str(path)!r}; give each its own file."
            )
        seen[resolved] = name


def _file_key(path: Path) -> Path | tuple[int, int]:
    """An existing file by device and inode (a hard link is the same file), else its path."""
    try:
        st = os.stat(path)
    except OSError:
        return path
    return (st.st_dev, st.st_ino)


def _temp_copy(target: Path, text: str) -> str:
    folder = target.parent if str(target.parent) else Path(".")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise _unwritable(target, exc) from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        # mkstemp makes 0600: a file rewritten keeps its mode (one kept private stays so), a
        # new one gets the usual mode
        os.chmod(tmp, _old_mode(target))
    except OSError as exc:  # a full disk: the old file is kept
        Path(tmp).unlink(missing_ok=True)
        raise _unwritable(target, exc) from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return tmp


def _old_mode(target: Path) -> int:
    """The permission bits of the file ``target`` replaces, or the usual new file's."""
    try:
        st = os.stat(target)
    except OSError:
        return 0o666 & ~_umask()
    return stat.S_IMODE(st.st_mode) if stat.S_ISREG(st.st_mode) else 0o666 & ~_umask()


def _unwritable(target: Path, exc: OSError) -> InputError:
    return InputError(
        f"output {str(target)!r} cannot be written ({exc.strerror}); choose another path."
    )


def write_text_atomic(path: str | os.PathLike, text: str) -> None:
    """Write `text` to `path` so that a reader sees the old file or the new one, never half."""
    write_files_atomic({path: text})


def write_files_atomic(files: dict) -> None:
    """Write several files so that an interrupt leaves all old or all new: every text goes to
    a temporary file first, then all are renamed with SIGINT held back (where it can be)."""
    targets = [check_writable(p) for p in files]
    temps: list[tuple[str, Path]] = []
    try:
        for target, text in zip(targets, files.values()):
            if not _is_stream(target):
                temps.append((_temp_copy(target, text), target))
        with _sigint_held():
            for tmp, target in temps:
                os.replace(tmp, target)
    except BaseException:
        for tmp, _ in temps:
            Path(tmp).unlink(missing_ok=True)
        raise
    for target, text in zip(targets, files.values()):
        if _is_stream(target):  # a pipe or device has no old content to keep
            _write_stream(target, text)


class MechanismExit(SystemExit):
    """os._exit, called in this process's main thread while :func:`exits_guarded`."""

    def __str__(self) -> str:
        return f"os._exit({self.code!r}) was called"


@contextlib.contextmanager
def exits_guarded(threads: bool = False):
    """Within, os._exit called in this process's main thread (where a mechanism runs when not
    on a worker, and a target or claims file is imported) raises :class:`MechanismExit`, which
    the caller reports, instead of ending dpaudit at once with that code: os._exit(0) read as
    "nothing wrong found", with no word said. Another thread of this process still ends it;
    with ``threads`` (the command line, which owns the process) a code 0 becomes 2 (bad
    input), with a line on stderr. A process forked meanwhile exits as it asks. (A worker that
    exits is reported by the pool.)"""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    real, pid, main = os._exit, os.getpid(), threading.main_thread()

    def guarded(code: int) -> None:
        if os.getpid() != pid:
            real(code)
        if threading.current_thread() is not main:
            if code == 0 and threads:
                with contextlib.suppress(Exception):
                    sys.stderr.write(
                        "dpaudit: error: a thread other than dpaudit's own called "
                        "os._exit(0) and ended the run; a mechanism must return its output "
                        "and a claims file define CLAIMS.\n"
                    )
                    sys.stderr.flush()
            real(EXIT_BAD_INPUT if code == 0 and threads else code)
        raise MechanismExit(code)

    os._exit = guarded
    try:
        yield
    finally:
        os._exit = real


HELD = ("SIGINT", "SIGTERM", "SIGHUP")  # what the renames hold back


@contextlib.contextmanager
def _sigint_held():
    """Hold SIGINT, SIGTERM and SIGHUP back until the block ends, then deliver them to the
    handlers they had (main thread; elsewhere a no-op): one run's outputs are renamed all or
    none. Held by handlers of our own, not the thread's signal mask: with other threads alive
    (a worker pool's) the kernel delivers a process signal to a thread that does not block
    it, and the mask held nothing back."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    pending: list[int] = []

    def hold(signum, frame) -> None:
        pending.append(signum)

    old = {}
    for name in HELD:
        sig = getattr(signal, name, None)
        if sig is None or signal.getsignal(sig) is None:  # (a handler set outside Python)
            continue
        old[sig] = signal.signal(sig, hold)
    try:
        yield
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler)
        for sig in dict.fromkeys(pending):
            signal.raise_signal(sig)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_json_atomic(path: str | os.PathLike, data, strict: bool = False) -> None:
    """JSON, atomically; `strict` rejects NaN and infinities (not valid JSON)."""
    write_text_atomic(path, json.dumps(data, indent=2, allow_nan=not strict) + "\n")


_LONG = threading.Lock()
_long_state = {"depth": 0, "limit": 0}  # blocks open in any thread; the limit to give back


@contextlib.contextmanager
def long_integers():
    """Python's limit on converting an integer to text (4,300 digits) lifted for the block: a
    claim's exact rational ((1 - 1/10^6)^1000 has 6,000 digits) is printed in its statement,
    counterexample and JSON, and the limit made that an internal error. The limit is one per
    process: it is given back when the last block open, in any thread, ends."""
    with _LONG:
        if _long_state["depth"] == 0:
            _long_state["limit"] = sys.get_int_max_str_digits()
            sys.set_int_max_str_digits(0)
        _long_state["depth"] += 1
    try:
        yield
    finally:
        with _LONG:
            _long_state["depth"] -= 1
            if _long_state["depth"] == 0:
                sys.set_int_max_str_digits(_long_state["limit"])


def finite_or_none(x: float) -> float | None:
    """A number for JSON, which has no infinity or NaN: non-finite values become null."""
    return x if math.isfinite(x) else None


def number_or_text(x: float) -> float | str:
    """A number for JSON that keeps infinities readable: ``"inf"`` and ``"-inf"``."""
    return float(x) if math.isfinite(x) else ("inf" if x > 0 else "-inf")


# a longer integer in a file we read is a float (inf past a double's range); any shorter one
# converts to a float without overflow, and stays an exact int (a seed such as 2^100 too)
_INT_DIGITS = 300


def _int_or_float(text: str) -> int | float:
    return int(text) if len(text.lstrip("-")) <= _INT_DIGITS else float(text)


def read_json(text: str):
    """JSON as written by this tool, with integers longer than any it writes read as floats:
    an edited 401-digit count is infinity to every range check, not an OverflowError where a
    float is taken of it."""
    return json.loads(text, parse_int=_int_or_float)


def brief(value, width: int = 60) -> str:
    """A value for a one-line message: its repr, a huge integer by its size (--samples 1e300
    read as 301 digits), anything else longer than ``width`` cut in the middle."""
    text = repr(value)
    if len(text) <= width:
        return text
    if isinstance(value, int) or type(value).__name__.startswith(("int", "uint")):
        if not isinstance(value, bool):
            return f"{float(value):.3g}" if abs(value) < 10**308 else f"a {len(text)}-digit integer"
    half = (width - 5) // 2
    return f"{text[:half]}...{text[-half:]} ({len(text)} characters)"
