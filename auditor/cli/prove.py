"""`dpaudit prove [CLAIMS_FILE.py ...] [--json OUT] [--baseline reports/proofs.json]`.

With no file, the built-in catalogue is checked. A claims file is a Python file that defines
a module-level list ``CLAIMS`` of :class:`proofs.Theorem` objects or bare claims
(:class:`proofs.PureDP`, ...). Exit 0 when every verdict is as expected (``expect='holds'``
needs ``proved`` or ``certified``; ``expect='refuted'`` needs ``refuted``), 1 otherwise or when
a verdict regressed against the baseline, 2 on bad input: a claims file that does not load or
a claim that cannot be checked (it gets an `error` result with its id, file and message, and the
other claims still run), 3 when a claim hit an internal error.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import uuid
from dataclasses import replace
from pathlib import Path

from proofs.errors import InputError
from proofs.io import write_json_atomic, write_text_atomic
from proofs.check import error_result, run_theorems
from proofs.claims import Theorem
from proofs.results import ProofRun
from proofs.results import ProofResult

EXIT_OK, EXIT_FOUND, EXIT_BAD_INPUT, EXIT_INTERNAL = 0, 1, 2, 3


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="*", metavar="CLAIMS_FILE.py",
                        help="Python files defining CLAIMS = [...]; default: the built-in catalogue")
    parser.add_argument("--json", metavar="OUT", help="write the results as JSON")
    parser.add_argument("--baseline", metavar="FILE",
                        help="compare verdicts with a saved `--json` output; exit 1 on a change")
    parser.add_argument("--report", metavar="OUT.html|OUT.md",
                        help="write a readable report of the verdicts (HTML or Markdown)")
    parser.add_argument("--quiet", action="store_true", help="print only the final line")


def load_claims_file(path: str) -> list:
    """Import a claims file and return its CLAIMS items as theorems (raises InputError with a
    one-line message when the file cannot be used; see :func:`load_or_error`)."""
    file = Path(path)
    if file.suffix != ".py":
        raise InputError(f"claims file {path!r} is not a .py file; give a Python file that "
                         "defines CLAIMS = [...].")
    if not file.is_file():
        raise InputError(f"claims file {path!r} does not exist; check the path.")
    spec = importlib.util.spec_from_file_location(f"dpaudit_claims_{uuid.uuid4().hex}", file)
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except InputError as exc:
        line = _error_line(exc, file)
        raise InputError(f"claims file {path!r}{line}: {exc}") from None
    except Exception as exc:  # noqa: BLE001 - any import failure is the user's file
        line = _error_line(exc, file)
        raise InputError(f"claims file {path!r} does not import{line}: "
                         f"{type(exc).__name__}: {exc}; fix the file and retry.") from None
    claims = getattr(module, "CLAIMS", None)
    if claims is None:
        raise InputError(f"claims file {path!r} defines no CLAIMS; add a module-level list "
                         "CLAIMS = [Theorem(...) or PureDP(...), ...].")
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


def _print_progress(result) -> None:
    mark = "ok " if result.as_expected else "!! "
    print(f"{mark}{result.summary()}", flush=True)


def _regressions(run: ProofRun, baseline_path: str) -> list[str]:
    try:
        saved = json.loads(Path(baseline_path).read_text(encoding="utf-8"))
        old = {r["id"]: r["verdict"] for r in saved["results"]}
    except FileNotFoundError:
        raise InputError(f"baseline {baseline_path!r} does not exist; create it with "
                         f"`dpaudit prove --json {baseline_path}`.") from None
    except (json.JSONDecodeError, KeyError, TypeError):
        raise InputError(f"baseline {baseline_path!r} is not a `dpaudit prove --json` output; "
                         "regenerate it.") from None
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


def _collect(files: list[str]) -> list:
    """Theorems to check, in order; files that do not load and repeated ids become `error`
    results in their place, so the rest still runs."""
    if not files:
        from proofs.catalogue import catalogue

        return catalogue()
    items, seen = [], set()
    for f in files:
        for t in load_or_error(f):
            if isinstance(t, Theorem) and t.id in seen:
                t = error_result(t.id, f"theorem id {t.id!r} appears twice; give each theorem "
                                       "its own id.", file=t.file)
            elif isinstance(t, Theorem):
                seen.add(t.id)
            items.append(t)
    return items


def _report_kind(path: str | None) -> str | None:
    if path is None:
        return None
    suffix = Path(path).suffix.lower()
    if suffix not in (".html", ".htm", ".md"):
        raise InputError(f"--report {path!r} must end in .html or .md; choose one of them.")
    return "md" if suffix == ".md" else "html"


def write_report(run_result: ProofRun, path: str) -> None:
    from auditor.reports.proofs import proofs_html, proofs_markdown

    render = proofs_markdown if _report_kind(path) == "md" else proofs_html
    write_text_atomic(path, render(run_result))


def run(args: argparse.Namespace) -> int:
    _report_kind(args.report)  # reject a bad suffix before the work
    items = _collect(args.files)
    run_result = run_theorems(items, progress=None if args.quiet else _print_progress)
    print(("" if args.quiet else "\n") + run_result.summary().splitlines()[-1])
    if args.json:
        write_json_atomic(args.json, run_result.to_dict())
    if args.report:
        write_report(run_result, args.report)
    code = EXIT_OK if run_result.all_as_expected else EXIT_FOUND
    if args.baseline:
        changes = _regressions(run_result, args.baseline)
        for change in changes:
            print(f"regression: {change}", file=sys.stderr)
        if changes:
            code = EXIT_FOUND
    return _error_code(run_result.errors, code)


def _error_code(errors: tuple[ProofResult, ...], code: int) -> int:
    """One stderr line per claim that could not be checked; exit 2 (3 on an internal error)."""
    for r in errors:
        where = f" ({r.file})" if r.file and r.file != r.id else ""
        print(f"dpaudit: error: {r.id}{where}: {r.reason}", file=sys.stderr)
    if any(r.internal for r in errors):
        return EXIT_INTERNAL
    return EXIT_BAD_INPUT if errors else code
