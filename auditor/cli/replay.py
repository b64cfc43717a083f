"""`dpaudit replay RESULT.json [TARGET] [--samples N] [--seed S] [--confidence C] [--json OUT]`:
argument parsing over :func:`auditor.replay`. Exit 1 when the replayed bound still exceeds the
claim, 0 otherwise, 2 on bad input."""

from __future__ import annotations

import argparse
import sys

from auditor.cli.audit import integer, number, sample_count
from proofs.errors import EXIT_FOUND, EXIT_OK

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "result", metavar="RESULT.json", help="a file written by `dpaudit audit --json`"
    )
    parser.add_argument(
        "target",
        nargs="?",
        metavar="TARGET",
        help="the mechanism (default: the target recorded in the result)",
    )
    parser.add_argument(
        "--samples",
        type=sample_count,
        default=None,
        help="fresh samples per dataset (default: as many as the audit certified on)",
    )
    parser.add_argument("--seed", type=integer, default=None, help="default: the audit's seed + 1")
    parser.add_argument("--confidence", type=number, default=None, help="default: the audit's")
    parser.add_argument("--json", metavar="OUT", help="write the replayed result as JSON")


def run(args: argparse.Namespace) -> int:
    from auditor.cli.audit import mechanism_stdout_to_stderr, profile_file, target_source
    from auditor.engine.replay import replay
    from proofs.io import check_outputs, names_stdout, write_json_atomic

    recorded = _recorded(args.result)
    target = args.target or recorded.get("mechanism")
    inputs = {
        "the result replayed": args.result,
        "the TARGET's source": target_source(target if isinstance(target, str) else None),
        "the --profile file": profile_file(_claim_of(recorded.get("profile"))),
    }
    check_outputs(inputs, json=args.json)
    with mechanism_stdout_to_stderr():
        out = replay(
            args.result,
            samples=args.samples,
            seed=args.seed,
            confidence=args.confidence,
            target=args.target,
        )
    if args.json:
        write_json_atomic(args.json, out.to_dict())
    print(out.summary(), file=sys.stderr if names_stdout(args.json) else sys.stdout)
    return EXIT_FOUND if out.violation else EXIT_OK


def _recorded(path: str) -> dict:
    """The result as saved, best effort (replay itself reports a file it cannot read)."""
    import os

    from proofs.io import read_json

    if not os.path.isfile(path):  # (a pipe such as /dev/stdin can be read once only: by replay)
        return {}
    try:
        with open(path, encoding="utf-8") as fh:
            d = read_json(fh.read())
    except (OSError, ValueError):
        return {}
    return d if isinstance(d, dict) else {}


def _claim_of(profile) -> str | None:
    """The ``KIND:PARAMS`` a profile result was audited against (None if it has none)."""
    return profile.get("claim") if isinstance(profile, dict) else None
