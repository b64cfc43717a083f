"""`dpaudit closeness` (placeholder until the closeness module lands)."""

from __future__ import annotations

import argparse

from proofs._errors import InputError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("table")


def run(args: argparse.Namespace) -> int:
    raise InputError("`dpaudit closeness` is not available yet in this build.")
