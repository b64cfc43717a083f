"""The `dpaudit` command line: `main(argv) -> int` is testable; `entry()` is the console script.

Argument parsing only: each subcommand calls a public function (`auditor.audit`,
`proofs.prove.prove`, `auditor.reports`, `auditor.closeness`). Exit codes (`proofs.errors`):
0 nothing wrong found; 1 a violation (audit, replay) or a refuted/regressed claim (prove); 2 bad
input (one-line message, no traceback); 3 internal error; 4 an inconclusive audit; 130
interrupted (Ctrl-C); 143 terminated (SIGTERM, handled as Ctrl-C is). Heavy libraries are
imported by the subcommand that runs, so `dpaudit --help` starts fast.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import faulthandler
import os
import re
import signal
import sys
import traceback

from proofs.errors import (
    EXIT_BAD_INPUT,
    EXIT_FOUND,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_TERMINATED,
    InputError,
    Terminated,
    raise_terminated,
)
from proofs.io import MechanismExit, exits_guarded, long_integers

__all__ = [
    "EXIT_BAD_INPUT",
    "EXIT_FOUND",
    "EXIT_INTERNAL",
    "EXIT_OK",
    "build_parser",
    "entry",
    "main",
]


_NEGATIVE_NUMBER = re.compile(
    r"^-(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$|^-(inf|infinity|nan)$", re.IGNORECASE
)


class _Parser(argparse.ArgumentParser):
    """argparse that reports bad arguments as an InputError instead of exiting itself, takes
    options only as spelled (``--sample 1000`` silently overrode ``--samples``), and reads
    every negative number as a value (argparse's own pattern misses ``-1e-3`` and ``-inf``,
    which it took for options: "expected one argument", naming no value)."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)
        self._negative_number_matcher = _NEGATIVE_NUMBER

    def error(self, message: str):  # type: ignore[override]
        command = self.prog.split()[-1]
        where = "dpaudit" if command == "dpaudit" else f"dpaudit {command}"
        raise InputError(f"{message}; see `{where} --help`.")


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("dpaudit")
    except PackageNotFoundError:  # running from a source tree that is not installed
        return "unknown"


def build_parser() -> argparse.ArgumentParser:
    from auditor.cli import audit as _audit_cli
    from auditor.cli import prove as _prove_cli

    parser = _Parser(prog="dpaudit", description="Verify and audit differential privacy.")
    parser.add_argument("--version", action="version", version=f"dpaudit {_version()}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    _prove_cli.add_arguments(sub.add_parser("prove", help="check DP claims symbolically"))
    _audit_cli.add_arguments(sub.add_parser("audit", help="audit a black-box mechanism"))
    from auditor.cli import closeness as _closeness_cli

    _closeness_cli.add_arguments(
        sub.add_parser("closeness", help="epsilon-closeness of a released table (CSV)")
    )
    report = sub.add_parser("report", help="re-render a saved `audit --json` result as a report")
    report.add_argument(
        "result", metavar="RESULT.json", help="a file written by `dpaudit audit --json`"
    )
    report.add_argument(
        "--report",
        "-o",
        dest="out",
        required=True,
        metavar="OUT.html|OUT.md",
        help="where to write the report",
    )
    from auditor.cli import replay as _replay_cli

    _replay_cli.add_arguments(
        sub.add_parser(
            "replay", help="certify a saved result's witness event again on fresh samples"
        )
    )
    from auditor.cli import listing as _list_cli

    _list_cli.add_arguments(
        sub.add_parser(
            "list", help="the built-in catalogue: claims, true epsilons and covering theorems"
        )
    )
    demo = sub.add_parser("demo", help="prove and audit the built-in catalogue, write reports/")
    demo.add_argument("--out", default="reports", help="folder for the reports (default reports)")
    demo.add_argument("--quick", action="store_true", help="fewer samples per audit")
    return parser


def _run(args: argparse.Namespace) -> int:
    from auditor.cli import audit as _audit_cli
    from auditor.cli import prove as _prove_cli

    if args.command == "prove":
        return _prove_cli.run(args)
    if args.command == "audit":
        return _audit_cli.run(args)
    if args.command == "closeness":
        from auditor.cli import closeness as _closeness_cli

        return _closeness_cli.run(args)
    if args.command == "list":
        from auditor.cli import listing as _list_cli

        return _list_cli.run(args)
    if args.command == "replay":
        from auditor.cli import replay as _replay_cli

        return _replay_cli.run(args)
    if args.command == "report":
        from auditor.reports.audit import load_result, report_outputs, write_audit_report
        from proofs.io import check_outputs

        check_outputs({"the result": args.result}, **report_outputs(args.out))
        result = load_result(args.result)
        try:
            write_audit_report(result, args.out)
        except (AttributeError, IndexError, KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, InputError):
                raise
            # load_result checks the headline numbers; a hand-edited field deeper down
            raise InputError(
                f"result {args.result!r} has a malformed field ({type(exc).__name__}: {exc}); "
                "give an unedited file written by `dpaudit audit --json`."
            ) from None
        print(f"wrote {args.out}")
        return EXIT_OK
    from auditor.reports import demo as _demo

    return _demo.run(args)


def _unknown_option(parser: argparse.ArgumentParser, words: list[str]) -> None:
    """Name an option no parser knows before anything else is judged: argparse reported a
    missing required argument first ("one of --epsilon --profile is required" for --eps 1,
    "command is required" for --nosuch) and never named the misspelt word."""
    import difflib

    commands = next(a.choices for a in parser._actions if a.dest == "command")
    known, where, command = parser._option_string_actions, "dpaudit", None
    if "-h" in words or "--help" in words:
        return  # (argparse prints the help first)
    for word in words:
        if word == "--":
            return
        if command is None and not word.startswith("-"):
            if word not in commands:
                raise InputError(_not_a_command(word, sorted(commands)))
            command = word
            known, where = commands[word]._option_string_actions, f"dpaudit {word}"
            continue
        # as argparse reads them: a word with a space is a value, and -t0.2 is -t with 0.2
        if " " in word or not re.match(r"^--?[A-Za-z]", word) or _NEGATIVE_NUMBER.match(word):
            continue
        name = word.split("=", 1)[0] if word.startswith("--") else word[:2]
        if name not in known:
            longs = sorted(o for o in known if o.startswith("--"))
            close = [o for o in longs if o.startswith(name)][:3] or difflib.get_close_matches(
                name, longs, 1
            )
            hint = f" (did you mean {' or '.join(close)}?)" if close else ""
            raise InputError(f"unknown option {name}{hint}; see `{where} --help`.")


def _not_a_command(word: str, commands: list[str]) -> str:
    """The message for a first word that is no subcommand: a misspelt one is named with the
    nearest, and a TARGET given without `audit` (a catalogue name, module:callable, a .py
    file) is shown the command that audits it."""
    import difflib

    close = difflib.get_close_matches(word, commands, 1)
    said = f"unknown command {word!r}"
    if close:
        return f"{said} (did you mean {close[0]}?); see `dpaudit --help`."
    if ":" in word or word.endswith(".py") or _catalogue_name(word):
        return f"{said}; to audit it, run `dpaudit audit {word} --epsilon E ...`."
    return f"{said}; choose one of {', '.join(commands)} (see `dpaudit --help`)."


def _catalogue_name(word: str) -> bool:
    from auditor.catalogue import ALIASES, CATALOGUE

    return word in CATALOGUE or word in ALIASES


def _parse(argv: list[str] | None) -> argparse.Namespace:
    """The arguments; an option no subcommand knows sends the user to that subcommand's help
    (the top-level parser reports it, and said `dpaudit --help`)."""
    parser = build_parser()
    _unknown_option(parser, sys.argv[1:] if argv is None else list(argv))
    try:
        return parser.parse_args(argv)
    except InputError as exc:
        words = sys.argv[1:] if argv is None else argv
        commands = next(a.choices for a in parser._actions if a.dest == "command")
        command = next((w for w in words if w in commands), None)
        if command is None or "see `dpaudit --help`" not in str(exc):
            raise
        raise InputError(
            str(exc).replace("see `dpaudit --help`", f"see `dpaudit {command} --help`")
        ) from None


EXIT_BROKEN_PIPE = 128 + 13  # as a shell reports a command ended by SIGPIPE


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the exit code instead of exiting."""
    try:
        # (a claim's exact rationals may have thousands of digits; a target, a claims file or
        # a mechanism that calls os._exit must not end dpaudit with its code: 0 reads "ok")
        with long_integers(), exits_guarded(threads=True):
            return _run(_parse(argv))
    except InputError as exc:
        print(f"dpaudit: error: {one_line(str(exc))}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except Terminated:
        print("dpaudit: terminated", file=sys.stderr)
        return EXIT_TERMINATED
    except KeyboardInterrupt:
        print("dpaudit: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # the reader went away (`| head`): stop quietly, as Unix tools do
        with contextlib.suppress(OSError, ValueError, AttributeError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    except MechanismExit as exc:
        print(
            f"dpaudit: error: {exc} while running the target or claims file; a mechanism "
            "must return its output and a claims file define CLAIMS, not end the process.",
            file=sys.stderr,
        )
        return EXIT_BAD_INPUT
    except SystemExit as exc:  # --help and --version (argparse: an int code)
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    except OSError as exc:
        said = _os_error(exc)
        if said is None:
            traceback.print_exc()
            print("dpaudit: internal error (a bug in dpaudit); please report it.", file=sys.stderr)
            return EXIT_INTERNAL
        with contextlib.suppress(OSError, ValueError):
            print(f"dpaudit: error: {said}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except RecursionError:
        # (JSON nested hundreds deep: a dataset, pairs, a profile, a result or a checkpoint)
        print(
            "dpaudit: error: an input is nested too deeply to read (Python's recursion limit "
            "was reached); flatten it: JSON datasets, pairs and files nested at most a few "
            "hundred levels.",
            file=sys.stderr,
        )
        return EXIT_BAD_INPUT
    except Exception:
        traceback.print_exc()
        print("dpaudit: internal error (a bug in dpaudit); please report it.", file=sys.stderr)
        return EXIT_INTERNAL


def one_line(text: str) -> str:
    """A message on one line: a mechanism's own error text may span several."""
    return " / ".join(part.strip() for part in text.splitlines() if part.strip())


def _os_error(exc: OSError) -> str | None:
    """An error of the system the user pointed us at, in one line: a path the system refuses
    (a name too long, a loop of links) or a full or failing stdout. None for anything else."""
    if exc.filename is not None:
        return f"{str(exc.filename)!r}: {exc.strerror or exc}; choose another path."
    if exc.errno in (errno.ENOSPC, errno.EIO, errno.EDQUOT, errno.EFBIG):
        return f"cannot write the output ({exc.strerror}); free some space or redirect it."
    return None


def _stop_workers() -> None:
    """Shut the worker pool down before the interpreter exits, deaf to Ctrl-C and SIGTERM: a
    signal during the pool's own exit handler printed a traceback and could leave the process
    waiting on a worker for ever."""
    pools = sys.modules.get("auditor.engine.executors")
    if pools is None or not pools._POOLS:
        return
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, signal.SIG_IGN)
    pools.stop_pools()


def entry() -> None:
    # `dpaudit ... | head` should end quietly like other Unix tools, not with a traceback.
    if hasattr(signal, "SIGPIPE"):
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    # SIGTERM (kill, docker stop, a CI timeout) unwinds like Ctrl-C: checkpoint, workers, outputs
    signal.signal(signal.SIGTERM, raise_terminated)
    # a mechanism that crashes the interpreter (a segfault in its C code, abort()) cannot be
    # caught; Python's stack at the crash at least names the line, as pytest shows it
    faulthandler.enable()
    try:
        code = main()
    except KeyboardInterrupt:  # (a signal between main's own handlers and here)
        code = EXIT_TERMINATED if sys.exc_info()[0] is Terminated else EXIT_INTERRUPTED
    _stop_workers()
    _leave_lingering_threads(code)
    sys.exit(code)


_THREAD_GRACE = 2.0  # seconds a thread left running is waited for at exit


def _leave_lingering_threads(code: int) -> None:
    """Exit without waiting for threads a mechanism left running: Python joins every
    non-daemon thread at exit, so one that never ends kept dpaudit alive after its result,
    deaf to Ctrl-C and SIGTERM (ignored while the workers stop)."""
    import threading
    import time

    end = time.monotonic() + _THREAD_GRACE
    left = [t for t in threading.enumerate() if t is not threading.main_thread() and not t.daemon]
    for t in left:
        t.join(max(0.0, end - time.monotonic()))
    left = [t for t in left if t.is_alive()]
    if not left:
        return
    names = ", ".join(t.name for t in left[:3])
    with contextlib.suppress(OSError, ValueError):
        print(f"dpaudit: not waiting for threads still running ({names}).", file=sys.stderr)
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError, AttributeError):
            stream.flush()
    os._exit(code)


if __name__ == "__main__":
    entry()
