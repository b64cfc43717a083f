"""The `dpaudit` command line: argument parsing over the public functions (`main(argv) -> int`
is testable; `entry()` is the console script)."""

from auditor.cli.main import build_parser, entry, main

__all__ = ["build_parser", "entry", "main"]
