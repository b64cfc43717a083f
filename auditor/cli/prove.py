"""`dpaudit prove [CLAIMS_FILE.py ...] [--json OUT] [--report OUT] [--baseline FILE]`: argument
parsing and printing over :func:`proofs.prove.prove`.

Exit 0 when every verdict is as expected (``expect='holds'`` needs ``proved`` or
``certified``; ``expect='refuted'`` needs ``refuted``), 1 otherwise or when a verdict regressed
against the baseline, 2 when a claims file does not load or a claim cannot be checked (it gets
an `error` result with its id, file and message, and the other claims still run), 3 when a
claim hit an internal error.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys

from proofs.errors import EXIT_BAD_INPUT, EXIT_FOUND, EXIT_INTERNAL, EXIT_OK

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "files",
        nargs="*",
        metavar="CLAIMS_FILE.py",
        help="Python files defining CLAIMS = [...]; default: the built-in catalogue",
    )
    parser.add_argument("--json", metavar="OUT", help="write the results as JSON")
    parser.add_argument(
        "--baseline",
        metavar="FILE",
        help="compare verdicts with a saved `--json` output; exit 1 on a change",
    )
    parser.add_argument(
        "--report",
        metavar="OUT.html|OUT.md",
        help="write a readable report of the verdicts (HTML or Markdown)",
    )
    parser.add_argument(
        "--no-timings",
        action="store_true",
        help="write seconds as null in --json (for a baseline kept in git)",
    )
    parser.add_argument(
        "--junit-xml", metavar="OUT", help="write JUnit XML: one test case per claim, for CI"
    )
    parser.add_argument("--quiet", action="store_true", help="print only the final line")


def _printer(out):
    def progress(result) -> None:
        mark = "ok " if result.as_expected else "!! "
        print(f"{mark}{result.summary()}", file=out, flush=True)

    return progress


@contextlib.contextmanager
def _own_stdout():
    """A stream on this process's stdout that a redirect of descriptor 1 does not move."""
    try:
        sys.stdout.flush()
        fd = os.dup(sys.stdout.fileno())
    except (AttributeError, OSError, ValueError):  # (no descriptor: a captured stream)
        yield sys.stdout
        return
    stream = os.fdopen(fd, "w", encoding=getattr(sys.stdout, "encoding", None) or "utf-8")
    try:
        yield stream
    finally:
        with contextlib.suppress(OSError, ValueError):
            stream.close()


def run(args: argparse.Namespace) -> int:
    from auditor.cli.audit import mechanism_stdout_to_stderr
    from auditor.reports.proofs import report_kind, write_proof_report
    from proofs.io import check_outputs, names_stdout, write_json_atomic, write_text_atomic
    from proofs.prove import load_baseline, prove, regressions

    if args.report:
        report_kind(args.report)  # reject a bad suffix before the work
    inputs = {f"the claims file {f!r}": f for f in args.files or ()}
    inputs["the --baseline"] = args.baseline
    check_outputs(inputs, json=args.json, report=args.report, junit_xml=args.junit_xml)
    baseline = load_baseline(args.baseline) if args.baseline else None  # before the work
    # beside JSON on stdout our text goes to stderr; what a claims file prints always does,
    # while ours goes to the stdout we were given (the redirect moves file descriptor 1)
    with contextlib.ExitStack() as stack:
        out = sys.stderr if names_stdout(args.json) else stack.enter_context(_own_stdout())
        with mechanism_stdout_to_stderr():
            run_result = prove(args.files, progress=None if args.quiet else _printer(out))
        print(("" if args.quiet else "\n") + run_result.summary().splitlines()[-1], file=out)
    # outputs of a run that checked nothing (every claim bad input: a claims file that does
    # not load, say) would only replace the user's files with a list of the errors
    checked = len(run_result.errors) < len(run_result.results)
    if args.json and checked:
        write_json_atomic(args.json, run_result.to_dict(timings=not args.no_timings))
    if args.report and checked:
        write_proof_report(run_result, args.report)
    if args.junit_xml and checked:
        from auditor.reports.junit import proofs_junit

        write_text_atomic(args.junit_xml, proofs_junit(run_result))
    code = EXIT_OK if run_result.all_as_expected else EXIT_FOUND
    if baseline is not None:
        changes = regressions(run_result, baseline)
        for change in changes:
            print(f"regression: {change}", file=sys.stderr)
        if changes:
            code = EXIT_FOUND
    return _error_code(run_result.errors, code)


def _error_code(errors, code: int) -> int:
    """One stderr line per claim that could not be checked; exit 2 (3 on an internal error)."""
    for r in errors:
        where = f" ({r.file})" if r.file and r.file != r.id else ""
        print(f"dpaudit: error: {r.id}{where}: {r.reason}", file=sys.stderr)
    if any(r.internal for r in errors):
        return EXIT_INTERNAL
    return EXIT_BAD_INPUT if errors else code
