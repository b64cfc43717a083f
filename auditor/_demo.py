"""`dpaudit demo`: prove the catalogue (audits join when the auditor lands)."""

from __future__ import annotations

import argparse


def run(args: argparse.Namespace) -> int:
    from auditor import _prove_cli

    return _prove_cli.run_catalogue_demo(args.out)
