"""`dpaudit list`: the built-in catalogue, one line per entry: its claim, the true epsilon the
proof checker computes from its description (<= for a proved upper bound not shown to be
attained; a cited value for a published one), and the theorems that
cover it (for a broken entry, the one that refutes its claim)."""

from __future__ import annotations

import argparse

from auditor.reports.templating import fmt as _fmt
from proofs.errors import EXIT_OK

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--names", action="store_true", help="print the catalogue names (and aliases) only"
    )


def run(args: argparse.Namespace) -> int:
    from auditor.catalogue import ALIASES, CATALOGUE

    if args.names:
        print("\n".join([*CATALOGUE, *ALIASES]))
        return EXIT_OK
    width = max(map(len, CATALOGUE))  # (a fixed 27 let long names push their rows aside)
    print(f"{'name':<{width}} {'claim (eps, delta)':<19} {'true eps':>8}  {'':<7} theorems")
    for name, e in CATALOGUE.items():
        true = e.true()
        status = "ok" if e.correct else "broken"
        if e.published:
            cover = f"cited: {e.description.source}"
        elif e.refuted_by:
            cover = f"refuted by {e.refuted_by}"
        else:
            cover = ", ".join(e.theorems)
        claim = f"({_fmt(e.claimed_epsilon)}, {e.delta:g})"
        value = _fmt(None if true is None else true.value)
        if true is not None and not true.tight:
            value = "<=" + value  # a proved upper bound, not shown to be attained
        print(f"{name:<{width}} {claim:<19} {value:>8}  {status:<7} {cover}")
    aliases = ", ".join(f"{a} = {n}" for a, n in ALIASES.items())
    print(f"\naliases: {aliases}")
    return EXIT_OK
