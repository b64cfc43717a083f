"""`dpaudit replay RESULT.json [TARGET] [--samples N] [--seed S] [--confidence C] [--json OUT]`:
argument parsing over :func:`auditor.replay`. Exit 1 when the replayed bound still exceeds the
claim, 0 otherwise, 2 on bad input."""

from __future__ import annotations

import argparse

from auditor.cli.audit import sample_count
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
    parser.add_argument("--seed", type=int, default=None, help="default: the audit's seed + 1")
    parser.add_argument("--confidence", type=float, default=None, help="default: the audit's")
    parser.add_argument("--json", metavar="OUT", help="write the replayed result as JSON")


def run(args: argparse.Namespace) -> int:
    from auditor.cli.audit import target_file
    from auditor.engine.replay import replay
    from proofs.io import check_outputs, write_json_atomic

    inputs = {"the result replayed": args.result, "the TARGET's source": target_file(args.target)}
    check_outputs(inputs, json=args.json)
    out = replay(
        args.result,
        samples=args.samples,
        seed=args.seed,
        confidence=args.confidence,
        target=args.target,
    )
    if args.json:
        write_json_atomic(args.json, out.to_dict())
    print(out.summary())
    return EXIT_FOUND if out.violation else EXIT_OK
