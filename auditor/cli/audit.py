"""`dpaudit audit TARGET (--epsilon E | --profile KIND:PARAMS) ...`: argument parsing over
:func:`auditor.audit`.

TARGET is a catalogue name (``laplace``, ``svt3``, ...), ``package.module:callable`` or
``path/to/file.py:callable``. Exit codes: 0 no violation found, 1 violation, 2 bad input, 3
internal, 4 inconclusive (nothing found, and the audit could not have found a violation of
``--inconclusive-factor`` times the claim), 130 interrupted (a checkpoint, if asked for, is
saved and valid).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import importlib.util
import math
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from auditor.engine.relations import RELATIONS
from proofs.errors import EXIT_FOUND, EXIT_INCONCLUSIVE, EXIT_OK, InputError

__all__ = ["add_arguments", "resolve_target", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "target", help="catalogue name, package.module:callable or path/file.py:callable"
    )
    claim = parser.add_mutually_exclusive_group(required=True)
    claim.add_argument("--epsilon", type=finite_number, help="claimed epsilon")
    claim.add_argument(
        "--profile",
        metavar="KIND:PARAMS",
        help="claimed privacy profile instead: gaussian:SIGMA[:SENSITIVITY], gdp:MU, zcdp:RHO, "
        'rdp:FILE.json ({"orders": [...], "rdp": [...]}) or pld:FILE.json '
        '({"epsilons": [...], "deltas": [...]}); certified trade-off points are tested against '
        "the whole curve",
    )
    parser.add_argument(
        "--delta",
        type=finite_number,
        default=None,
        help="claimed delta (default 0; a catalogue entry's own delta); with --profile, the "
        "delta at which the profile is read as an epsilon (default 1e-5)",
    )
    parser.add_argument(
        "--pair",
        nargs=2,
        action="append",
        metavar=("A", "B"),
        help="a neighbouring pair of JSON values (repeatable)",
    )
    parser.add_argument("--pairs", metavar="FILE.json", help="JSON file with [[A, B], ...]")
    parser.add_argument(
        "--relation",
        type=lambda s: s.replace("_", "-"),  # add_remove is accepted as add-remove
        choices=RELATIONS,
        help="neighbouring relation: checks given pairs, or generates candidates",
    )
    parser.add_argument("--sensitivity", type=number, help="for --relation sensitivity (default 1)")
    parser.add_argument(
        "--size", type=integer, help="records/answers in generated datasets (default 5)"
    )
    parser.add_argument(
        "--search",
        choices=("patterns", "hypothesis"),
        default=None,
        help="with --relation and no pairs: classic input patterns (default) or a "
        "Hypothesis search steered by the estimated privacy loss",
    )
    parser.add_argument(
        "--records",
        type=number,
        nargs=2,
        metavar=("LO", "HI"),
        help="with --relation add-remove or replace-one and no pairs: the range of one "
        "record's value in generated datasets (default: patterns 0 and 1, --search "
        "hypothesis [-2, 2]); e.g. --records -1 1 for records clipped to [-1, 1]",
    )
    parser.add_argument(
        "--samples",
        type=sample_count,
        default=1_000_000,
        help="samples per dataset (total; 1e8 notation accepted)",
    )
    parser.add_argument(
        "--confidence", type=number, default=0.95, help="confidence level (default 0.95)"
    )
    parser.add_argument(
        "--inconclusive-factor",
        type=number,
        default=2.0,
        metavar="F",
        help="inconclusive (exit 4) when no violation is found and the audit could not have "
        "certified one of a mechanism F times leakier than claimed (default 2)",
    )
    parser.add_argument(
        "--semantics",
        choices=("float", "ideal"),
        default="float",
        help="ideal: audit the real-number mechanism, without events on the bits of doubles "
        "(default float: the implementation as it runs, and say which kind a violation is)",
    )
    parser.add_argument("--seed", type=integer, default=0, help="seed of the audit (default 0)")
    scale = parser.add_argument_group("scale: where samples are drawn, resuming, stopping")
    scale.add_argument(
        "--workers", type=integer, default=None, help="worker processes (default: every core)"
    )
    scale.add_argument(
        "--executor",
        choices=("local", "dask"),
        default="local",
        help="local process pool (default) or a Dask cluster (with --scheduler)",
    )
    scale.add_argument(
        "--scheduler", metavar="ADDRESS", help="Dask scheduler, e.g. tcp://host:8786"
    )
    scale.add_argument(
        "--checkpoint",
        metavar="FILE",
        help="save progress to FILE (atomically, every 10 s and at exit); rerun to resume",
    )
    scale.add_argument(
        "--max-time",
        type=number,
        metavar="SECONDS",
        help="end the audit SECONDS after its start, with a valid result on the samples so far",
    )
    scale.add_argument(
        "--no-early-stop",
        action="store_true",
        help="draw every certification sample even once a violation is certified "
        "(the tightest bound: the last look's)",
    )
    parser.add_argument("--json", metavar="OUT", help="write the result as JSON (atomically)")
    parser.add_argument(
        "--junit-xml", metavar="OUT", help="write JUnit XML (one test case: this audit), for CI"
    )
    parser.add_argument(
        "--report", metavar="OUT.html|OUT.md", help="write an HTML or Markdown report"
    )
    parser.add_argument(
        "--quiet", action="store_true", help="print nothing on success (and no progress bar)"
    )


def _as_written(text: str, what: str) -> None:
    """Numbers in ASCII digits, without "_": Python also reads full-width digits (U+FF11 as 1) and
    grouped ones ("1_0" is 10), which a typo or a paste could give."""
    if not text.isascii() or "_" in text:
        raise argparse.ArgumentTypeError(
            f"invalid {what} {text!r}: write it in ASCII characters, without '_'"
        )


def _read(text: str, kind: type, what: str):
    _as_written(text, what)
    try:
        return kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid {what} {text!r}") from None


def number(text: str) -> float:
    """A number option (validated further where it is used)."""
    return _read(text, float, "number")


def integer(text: str) -> int:
    """An integer option (validated further where it is used)."""
    return _read(text, int, "integer")


def finite_number(text: str) -> float:
    """A finite number, kept as written in the message when it is not one (float() reads
    1e400 as inf, and -0 as -0.0)."""
    value = number(text)
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number; e.g. 1") from None
    return value + 0.0  # (-0.0 is 0)


def sample_count(text: str) -> int:
    """A sample count: an integer, or float notation that is one (1e8, 2.5e6)."""
    _as_written(text, "count")
    try:
        value = int(text)
    except ValueError:
        try:
            f = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"invalid count {text!r}") from None
        if not f.is_integer():
            raise argparse.ArgumentTypeError(f"invalid count {text!r}") from None
        value = int(f)
    return value


def _import_file(path: str, target: str) -> Any:
    p = Path(path)
    if not p.is_file():
        what = "is a folder" if p.is_dir() else "does not exist"
        raise InputError(f"TARGET {target!r}: {path!r} {what}; pass path/to/file.py:callable.")
    spec = importlib.util.spec_from_file_location(f"_dpaudit_target_{p.stem}", p)
    if spec is None or spec.loader is None:
        raise InputError(f"TARGET {target!r}: {path!r} is not importable Python; pass a .py file.")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
    except (Exception, SystemExit) as exc:  # (a sys.exit() at import too)
        raise InputError(
            f"TARGET {target!r}: importing {path!r} raised {type(exc).__name__}: "
            f"{exc}; fix that file."
        ) from None
    from auditor.engine.shipping import register_file_module

    register_file_module(module)  # workers cannot import it by name
    return module


def _import_module(name: str, target: str) -> Any:
    try:
        return importlib.import_module(name)
    except (Exception, SystemExit) as exc:  # (a sys.exit() at import too: not exit code 0)
        raise InputError(
            f"TARGET {target!r}: module {name!r} cannot be imported ({type(exc).__name__}: {exc}); "
            "check the name and that it is on PYTHONPATH."
        ) from None


def target_file(target: str | None) -> str | None:
    """The source file of a ``path/to/file.py:callable`` TARGET (None for other targets)."""
    if not target or ":" not in target:
        return None
    where = target.rpartition(":")[0]
    return where if where.endswith(".py") or os.sep in where else None


def target_source(target: str | None) -> str | None:
    """The source file of a TARGET: its path/to/file.py, or the file of a module:callable
    (found without running the module where it is top-level; None when there is none)."""
    path = target_file(target)
    if path is not None or not target or ":" not in target:
        return path
    try:
        spec = importlib.util.find_spec(target.rpartition(":")[0])
    except (Exception, SystemExit):
        return None  # (reported, with its reason, when the TARGET is resolved)
    origin = getattr(spec, "origin", None)
    return origin if origin and os.path.isfile(origin) else None


def profile_file(profile: Any) -> str | None:
    """The file an ``rdp:FILE`` or ``pld:FILE`` profile reads (None for other profiles)."""
    if not isinstance(profile, str):
        return None
    kind, _, rest = profile.partition(":")
    return rest if kind.strip().lower() in ("rdp", "pld") and rest else None


def audit_inputs(args: argparse.Namespace) -> dict[str, str | None]:
    """What an audit reads, by description: no output may overwrite one of them."""
    return {
        "the TARGET's source": target_source(args.target),
        "the --pairs file": getattr(args, "pairs", None),
        "the --profile file": profile_file(getattr(args, "profile", None)),
    }


def resolve_target(target: str) -> tuple[Callable[..., Any], str, Any]:
    """(callable, display name, catalogue entry or None) for a TARGET string.

    For a catalogue entry the callable is its ``sampler(epsilon)`` factory, to be built at the
    claimed epsilon (the mechanism as calibrated for the claim).
    """
    if ":" not in target:
        from auditor.catalogue import ALIASES, CATALOGUE, get

        if target in CATALOGUE or target in ALIASES:
            entry = get(target)
            return entry.sampler, entry.name, entry
        import difflib

        close = difflib.get_close_matches(target, [*CATALOGUE, *ALIASES], n=1, cutoff=0.6)
        if close:
            raise InputError(
                f"TARGET {target!r} is not in the catalogue; did you mean {close[0]!r}? "
                "(`dpaudit list` shows every name)"
            )
        raise InputError(
            f"TARGET {target!r} is neither a catalogue name nor module:callable; use e.g. "
            "'laplace', 'mypkg.mech:release' or 'path/to/file.py:release' (`dpaudit list` "
            "shows the catalogue)."
        )
    where, _, attr = target.rpartition(":")
    local = where.endswith(".py") or os.sep in where
    module = _import_file(where, target) if local else _import_module(where, target)
    obj: Any = module
    for part in attr.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            raise InputError(
                f"TARGET {target!r}: {where!r} has no attribute {attr!r}; check the "
                "callable's name."
            )
    if not callable(obj):
        raise InputError(
            f"TARGET {target!r}: {attr!r} is not callable; point TARGET at a function."
        )
    return obj, target, None


def _given_pairs(args: argparse.Namespace) -> list | None:
    """The pairs given on the command line (--pair or --pairs), or None."""
    from auditor.engine.pairs import Pair, load_pairs_file, parse_json_value

    if args.pair and args.pairs:
        raise InputError("--pair and --pairs were both given; use one of them.")
    if args.pairs == "":
        raise InputError("--pairs '' names no file; give a JSON file of pairs, e.g. pairs.json.")
    if args.pair:
        return [Pair(parse_json_value(a), parse_json_value(b)) for a, b in args.pair]
    if args.pairs:
        return load_pairs_file(args.pairs)
    return None


def _used_options(args: argparse.Namespace, pairs: list | None) -> None:
    """--size shapes generated datasets and --sensitivity the pairs of --relation sensitivity:
    given where neither happens, they were ignored without a word (as --records is not)."""
    if args.size is not None and (pairs is not None or args.relation is None):
        raise InputError(
            f"--size {args.size} sets the size of generated datasets: it needs --relation and "
            "no pairs of your own; drop it."
        )
    if args.search == "hypothesis" and (pairs is not None or args.relation is None):
        raise InputError(
            f"--search {args.search} steers the search for pairs under --relation: it needs "
            "--relation and no pairs of your own; drop it."
        )
    if args.scheduler is not None and args.executor != "dask":
        raise InputError(
            f"--scheduler {args.scheduler!r} is the address of a Dask cluster; add "
            "--executor dask, or drop --scheduler for the local pool."
        )
    if args.sensitivity is not None and args.relation != "sensitivity":
        raise InputError(
            f"--sensitivity {args.sensitivity:g} is for --relation sensitivity; add that or "
            "drop it."
        )


def run(args: argparse.Namespace) -> int:
    """Run one audit from parsed arguments; return the exit code (0 no violation found, 1
    violation, 4 inconclusive)."""
    started = time.perf_counter()  # (--max-time counts from here: the report's plots too)
    from auditor.reports.audit import report_outputs
    from proofs.io import check_outputs, names_stdout

    # an unwritable output, two outputs on one file, or an output on an input, fails before
    # the audit runs (a bad --report suffix too)
    check_outputs(
        audit_inputs(args),
        json=args.json,
        **report_outputs(args.report),
        junit_xml=args.junit_xml,
        checkpoint=args.checkpoint,
    )
    with mechanism_stdout_to_stderr():  # (what a module prints when imported, too)
        func, name, entry = resolve_target(args.target)
    delta = args.delta
    if delta is None and args.profile is None:
        delta = entry.delta if entry else 0.0
    pairs = _given_pairs(args)
    _used_options(args, pairs)
    if entry is not None:
        # the catalogue mechanism as calibrated for the claim (for a profile: its own claim)
        built_at = args.epsilon if args.profile is None else entry.claimed_epsilon
        try:
            func = entry.sampler(built_at)
        except InputError as e:
            why = "" if built_at == 0 else f" ({e})"  # (at 0 its noise scale is 1/0)
            raise InputError(
                f"--epsilon {built_at:g}: the catalogue entry {args.target!r} is built at the "
                f"claimed epsilon and cannot be at this one{why}; give --epsilon > 0."
            ) from None
        if pairs is None and args.relation is None:
            pairs = list(entry.pairs)
    if pairs is None and args.relation is None:
        raise InputError(
            f"no neighbouring pair given for {args.target!r}; give --pair A B (JSON values, "
            "repeatable), --pairs FILE.json, or --relation to generate pairs."
        )
    from auditor.engine.adapter import BadOutput, ChangingOutputs, MechanismRaised

    try:
        with mechanism_stdout_to_stderr():
            result = _audit(args, func, pairs, delta, name)
    except InputError as e:
        if entry is None:
            raise
        of_data = isinstance(e, (MechanismRaised, ChangingOutputs)) or getattr(
            e, "from_mechanism", False
        )
        if of_data and pairs is None:
            # a catalogue entry fed the datasets a relation generates: the entry is not the
            # user's to fix, its data is (a relation's records, where it takes a number)
            own = entry.pairs[0]
            what = e.what if isinstance(e, MechanismRaised) else str(e).split("; make it")[0]
            raise InputError(
                f"--relation {args.relation}: the catalogue entry {args.target!r} takes data "
                f"such as {own.a!r} and {own.b!r} (its own pairs), not the datasets the "
                f"relation generates ({what}); drop --relation, or give --pair with data of "
                "its kind."
            ) from None
        if not isinstance(e, BadOutput) or isinstance(e, ChangingOutputs):
            raise
        # (a built-in mechanism at an epsilon so small its noise overflows)
        raise InputError(
            f"--epsilon {built_at:g}: the catalogue entry {args.target!r}, built at this "
            f"epsilon, gives outputs that cannot be audited ({e}); give a larger --epsilon."
        ) from None
    _write_outputs(args, result, func, started)
    if not args.quiet:  # (beside JSON on stdout, on stderr: `--json - | jq` reads JSON alone)
        to_stdout = any(names_stdout(o) for o in (args.json, args.junit_xml, args.report))
        print(result.summary(), file=sys.stderr if to_stdout else sys.stdout)
    return {"violation": EXIT_FOUND, "inconclusive": EXIT_INCONCLUSIVE}.get(result.verdict, EXIT_OK)


@contextlib.contextmanager
def mechanism_stdout_to_stderr():
    """What a mechanism prints (here or in a worker started meanwhile) goes to stderr: stdout
    carries dpaudit's own output only (`--json /dev/stdout | jq` stays valid JSON)."""
    if sys.stdout is None or sys.stderr is None or _read_only(2):
        yield  # (stdout or stderr closed at start, fd 2 reused by a file open for reading)
        return
    with contextlib.suppress(OSError, ValueError):
        sys.stdout.flush()
    saved = None
    try:
        saved = os.dup(1)
        os.dup2(2, 1)
    except OSError:  # no descriptors (an embedded interpreter): Python-level only
        if saved is not None:
            os.close(saved)
        saved = None
    try:
        with contextlib.redirect_stdout(sys.stderr):
            yield
    finally:
        if saved is not None:
            with contextlib.suppress(OSError, ValueError):
                sys.stdout.flush()
            os.dup2(saved, 1)
            os.close(saved)


def _read_only(fd: int) -> bool:
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        return False
    try:
        return fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE == os.O_RDONLY
    except OSError:
        return False  # (no such descriptor: dup2 below finds out)


def _audit(args: argparse.Namespace, func, pairs, delta, name):
    from auditor.engine.run import audit

    return audit(
        func,
        pairs,
        epsilon=args.epsilon,
        delta=delta,
        profile=args.profile,
        samples=args.samples,
        confidence=args.confidence,
        seed=args.seed,
        relation=args.relation,
        sensitivity=1.0 if args.sensitivity is None else args.sensitivity,
        size=5 if args.size is None else args.size,
        name=name,
        pair_search=args.search or "patterns",
        records=None if args.records is None else tuple(args.records),
        progress=False if args.quiet else None,
        early_stop=not args.no_early_stop,
        workers=args.workers,
        executor=args.executor,
        scheduler=args.scheduler,
        checkpoint=args.checkpoint,
        max_time=args.max_time,
        inconclusive_factor=args.inconclusive_factor,
        semantics=args.semantics,
    )


def _write_outputs(args: argparse.Namespace, result, func, started: float) -> None:
    """The JSON and the report together: an interrupt leaves both old or both new."""
    import json

    from proofs.io import write_files_atomic

    files: dict = {}
    if args.json:
        files[args.json] = json.dumps(result.to_dict(), indent=2, allow_nan=False) + "\n"
    if args.junit_xml:
        from auditor.reports.junit import audit_junit

        files[args.junit_xml] = audit_junit(result)
    if args.report:
        from auditor.reports.audit import audit_report_files
        from auditor.reports.demo_audit import with_plots

        plotted = _plotted(args, result, func, with_plots, started)
        try:
            report = audit_report_files(plotted, args.report)
        except Exception:  # (an interrupt is no Exception: it leaves every output as it was)
            write_files_atomic(files)  # the audit's result is not lost to a failed report
            raise
        files.update(report)
    write_files_atomic(files)


def _plotted(args: argparse.Namespace, result, func, with_plots, started: float) -> dict:
    """The result with its plots' data, drawn from the mechanism again; without them, and a
    warning, when the mechanism fails or hangs there (past the time left of --max-time, and
    at least GUARD_SECONDS): the audit is done, and its verdict decides the exit code."""
    from auditor.engine.deadline import GUARD_SECONDS, OutOfTime, cut_at

    when = None
    if args.max_time is not None:
        left = args.max_time - (time.perf_counter() - started)
        when = time.perf_counter() + max(left, GUARD_SECONDS)
    try:
        with mechanism_stdout_to_stderr():  # (the plots sample the mechanism again)
            return cut_at(when, with_plots, result, func)
    except (Exception, OutOfTime) as exc:
        why = "the time limit passed" if isinstance(exc, OutOfTime) else " ".join(str(exc).split())
        print(
            f"dpaudit: warning: the report has no plots: drawing them failed ({why})",
            file=sys.stderr,
        )
        return result.to_dict()
