"""Running claims: load claims files, check them in isolation, compare with a baseline.

:func:`prove` is what ``dpaudit prove`` does: with no file the built-in catalogue is checked;
a claims file is a Python file that defines a module-level list ``CLAIMS`` of
:class:`proofs.Theorem` objects or bare claims. A file that does not load, a repeated id or a
claim that cannot be checked becomes an ``error`` result in its place, and the rest still runs.
"""

from __future__ import annotations

import importlib.util
import json
import os
import uuid
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from proofs.claims import Theorem
from proofs.dispatch import error_result, run_theorems
from proofs.errors import InputError
from proofs.io import same_schema
from proofs.results import ProofResult, ProofRun, Verdict

__all__ = ["collect", "load_baseline", "load_claims_file", "load_or_error", "prove", "regressions"]


def prove(
    files: Sequence[str] = (), progress: Callable[[ProofResult], None] | None = None
) -> ProofRun:
    """Check the claims of `files` (default: the built-in catalogue), each in isolation."""
    return run_theorems(collect(list(files)), progress=progress)


def load_claims_file(path: str) -> list:
    """Import a claims file and return its CLAIMS items as theorems (raises InputError with a
    one-line message when the file cannot be used; see :func:`load_or_error`)."""
    file = Path(path)
    if file.suffix != ".py":
        raise InputError(
            f"claims file {path!r} is not a .py file; give a Python file that "
            "defines CLAIMS = [...]."
        )
    if file.is_dir():
        raise InputError(
            f"claims file {path!r} is a folder; give the Python file in it that defines "
            "CLAIMS = [...]."
        )
    if not file.is_file():
        raise InputError(f"claims file {path!r} does not exist; check the path.")
    spec = importlib.util.spec_from_file_location(f"dpaudit_claims_{uuid.uuid4().hex}", file)
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except InputError as exc:
        line = _error_line(exc, file)
        raise InputError(f"claims file {path!r}{line}: {exc}") from None
    except (Exception, SystemExit) as exc:  # (a sys.exit() at import too)
        line = _error_line(exc, file)
        raise InputError(
            f"claims file {path!r} does not import{line}: "
            f"{type(exc).__name__}: {exc}; fix the file and retry."
        ) from None
    claims = getattr(module, "CLAIMS", None)
    if claims is None:
        raise InputError(
            f"claims file {path!r} defines no CLAIMS; add a module-level list "
            "CLAIMS = [Theorem(...) or PureDP(...), ...]."
        )
    if not isinstance(claims, (list, tuple)) or not claims:
        raise InputError(f"CLAIMS in {path!r} must be a non-empty list; got {claims!r:.60}.")
    return [_as_theorem(item, i, file.name, path) for i, item in enumerate(claims)]


def load_or_error(path: str) -> list:
    """The file's theorems, or one `error` result (id: the path) when it does not load."""
    try:
        return load_claims_file(path)
    except InputError as exc:
        return [error_result(path, str(exc), file=path)]


def _error_line(exc: BaseException, file: Path) -> str:
    tb = exc.__traceback__
    line = None
    while tb is not None:
        if Path(tb.tb_frame.f_code.co_filename).resolve() == file.resolve():
            line = tb.tb_lineno
        tb = tb.tb_next
    if isinstance(exc, SyntaxError) and exc.lineno:
        line = exc.lineno
    return f" (line {line})" if line else ""


def _as_theorem(item, index: int, filename: str, path: str) -> Theorem:
    if isinstance(item, Theorem):
        return replace(item, file=path)
    return Theorem(id=f"{filename}:CLAIMS[{index}]", claim=item, source=filename, file=path)


def load_baseline(baseline_path: str) -> dict[str, str]:
    """id -> verdict of a `dpaudit prove --json` output; any other file is an InputError."""
    try:
        saved = json.loads(Path(baseline_path).read_text(encoding="utf-8"))
        if not isinstance(saved["results"], list):  # (a dict's keys read as no results)
            raise TypeError("results")
        table = {r["id"]: r["verdict"] for r in saved["results"]}
        known = {v.value for v in Verdict}
        if not same_schema(saved.get("schema_version")) or not all(
            isinstance(i, str) and v in known for i, v in table.items()
        ):
            raise KeyError("schema_version")
        return table
    except FileNotFoundError:
        raise InputError(
            f"baseline {baseline_path!r} does not exist; create it with "
            f"`dpaudit prove --json {baseline_path}`."
        ) from None
    except (IsADirectoryError, PermissionError, UnicodeDecodeError) as e:
        why = "is a directory" if isinstance(e, IsADirectoryError) else "cannot be read"
        raise InputError(
            f"baseline {baseline_path!r} {why}; give the `dpaudit prove --json` file."
        ) from None
    except (json.JSONDecodeError, KeyError, TypeError):
        raise InputError(
            f"baseline {baseline_path!r} is not a `dpaudit prove --json` output; regenerate it."
        ) from None


def regressions(run: ProofRun, baseline: str | dict[str, str]) -> list[str]:
    """What changed against a baseline (its path, or :func:`load_baseline`'s table)."""
    old = load_baseline(baseline) if isinstance(baseline, str) else baseline
    changes = []
    for r in run.results:
        before = old.get(r.id)
        if before is None:
            changes.append(f"{r.id}: new entry ({r.verdict.value}), not in the baseline")
        elif before != r.verdict.value:
            changes.append(f"{r.id}: {before} -> {r.verdict.value}")
    current = {r.id for r in run.results}
    changes += [f"{i}: in the baseline, missing now" for i in old if i not in current]
    return changes


def collect(files) -> list:
    """Theorems to check, in order; files that do not load and repeated ids become `error`
    results in their place, so the rest still runs."""
    if not files:
        from proofs.catalogue import catalogue

        return catalogue()
    items, seen, read = [], set(), set()
    for f in files:
        here = os.path.realpath(f)
        if here in read:
            items.append(
                error_result(f, f"claims file {f!r} is given twice; give it once.", file=f)
            )
            continue
        read.add(here)
        for t in load_or_error(f):
            if isinstance(t, Theorem) and t.id in seen:
                t = error_result(
                    t.id,
                    f"theorem id {t.id!r} appears twice; give each theorem its own id.",
                    file=t.file,
                )
            elif isinstance(t, Theorem):
                seen.add(t.id)
            items.append(t)
    return items
