"""`dpaudit closeness TABLE.csv --qi col1,col2 --sensitive col [...]`.

Prints the summary (table closeness, verdict, worst classes); ``--json OUT`` writes
:meth:`auditor.closeness.ClosenessResult.to_dict` atomically. Exit 0 when no ``--epsilon`` was
given or the table is within it, 1 when some class exceeds it, 2 on bad input, 4 when the (n, t)
verdict is undetermined (every class above t ran out of search time with a lower bound <= t).
"""

from __future__ import annotations

import argparse
import csv
import sys

from auditor.cli.audit import integer, number
from auditor.closeness.names import DISTANCES
from proofs.errors import EXIT_FOUND, EXIT_INCONCLUSIVE, EXIT_OK, InputError
from proofs.io import check_outputs, names_stdout, write_json_atomic


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("table", metavar="TABLE.csv", help="CSV file with a header row")
    parser.add_argument(
        "--qi",
        required=True,
        metavar="COL1,COL2",
        help="comma-separated quasi-identifier columns (CSV quoting for a name with a comma: "
        "--qi '\"city, state\",age')",
    )
    parser.add_argument(
        "--sensitive", required=True, metavar="COL", help="the sensitive attribute column"
    )
    parser.add_argument(
        "--distance", default="tv", choices=DISTANCES, help="tv (default), kl, l1, l2 or emd"
    )
    parser.add_argument(
        "--epsilon",
        "-t",
        type=number,
        default=None,
        metavar="T",
        help="closeness threshold t; gives a verdict (exit 1 when exceeded)",
    )
    parser.add_argument(
        "--ordered",
        action="store_true",
        help="the sensitive attribute is numeric and ordered (EMD uses ranks)",
    )
    parser.add_argument(
        "--n",
        type=integer,
        default=None,
        metavar="N",
        help="(n, t) variant: compare each class with its best reference set of "
        "at least N records (tv, l1, emd)",
    )
    parser.add_argument(
        "--time-limit",
        type=number,
        default=120.0,
        metavar="SECONDS",
        help="with --n: total time for the exact searches (default 120); classes "
        "left over get a lower and an upper bound",
    )
    parser.add_argument(
        "--shared",
        action="store_true",
        help="with --n: one reference set for every class (the notes' partition-level "
        "(n, t)-closeness) instead of the best one per class",
    )
    parser.add_argument("--json", metavar="OUT", help="write the result as JSON")
    parser.add_argument(
        "--top",
        type=integer,
        default=10,
        metavar="K",
        help="how many of the worst classes to list (default 10)",
    )


def _columns(text: str) -> list[str]:
    """The column names of ``--qi``, read as one CSV row (a quoted name may hold commas)."""
    try:
        rows = list(csv.reader([text], skipinitialspace=True, strict=True))
    except csv.Error as exc:
        raise InputError(
            f"--qi {text!r} is not a CSV list of column names ({exc}); quote a name that "
            "holds a comma, e.g. --qi '\"city, state\",age'."
        ) from None
    names = [name.strip() for name in rows[0]] if rows else []
    if not names or not all(names):
        raise InputError(
            f"--qi {text!r} has an empty column name; give names separated by "
            "commas, e.g. --qi age,zip."
        )
    return names


def run(args: argparse.Namespace) -> int:
    from auditor.closeness import closeness, load_table

    check_outputs({"the table": args.table}, json=args.json)  # before the work
    table = load_table(args.table, _columns(args.qi), args.sensitive.strip(), args.ordered)
    if not args.time_limit > 0:
        raise InputError(f"--time-limit {args.time_limit} must be > 0 seconds, e.g. 120.")
    result = closeness(
        table,
        args.distance,
        t=args.epsilon,
        n=args.n,
        top=args.top,
        time_limit=args.time_limit,
        shared=args.shared,
    )
    if args.json:
        write_json_atomic(args.json, result.to_dict())
    print(result.summary(), file=sys.stderr if names_stdout(args.json) else sys.stdout)
    if result.violation:
        return EXIT_FOUND
    return EXIT_INCONCLUSIVE if result.verdict == "undetermined" else EXIT_OK
