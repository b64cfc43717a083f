"""Closeness on a 1e6-row CSV: generation, wall time and peak memory (RSS).

Run: ``.venv/bin/python -m bench.closeness_bench`` or call :func:`run`. The timing runs in a child
process (the CLI, as a user runs it) so that its peak RSS is its own, not the generator's.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

__all__ = ["run", "write_table"]

ROOT = Path(__file__).resolve().parent.parent


def write_table(path: str | os.PathLike, rows: int = 1_000_000, seed: int = 0) -> None:
    """A synthetic released table: age band, zip3, sex as QIs; disease and income sensitive."""
    rng = np.random.default_rng(seed)
    age = rng.integers(2, 9, rows) * 10
    zip3 = rng.integers(100, 400, rows)
    sex = rng.choice(np.array(["F", "M"]), rows)
    disease = rng.choice(
        np.array(["flu", "cold", "asthma", "diabetes", "cancer", "hiv"]),
        rows,
        p=[0.4, 0.3, 0.12, 0.1, 0.06, 0.02],
    )
    income = np.round(rng.lognormal(10.5, 0.6, rows), -3).astype(np.int64)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("age,zip3,sex,disease,income\n")
        for start in range(0, rows, 100_000):
            stop = min(rows, start + 100_000)
            block = zip(
                age[start:stop].tolist(),
                zip3[start:stop].tolist(),
                sex[start:stop].tolist(),
                disease[start:stop].tolist(),
                income[start:stop].tolist(),
                strict=True,
            )
            fh.write("".join(f"{a},{z},{s},{d},{i}\n" for a, z, s, d, i in block))


_PRINT_RSS = "print('RSS_KB', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)"


def _child(code: str, *args: str) -> tuple[float, float, int, str]:
    """Wall seconds, peak RSS (MiB), exit code and standard output of ``python -c code *args``;
    ``code`` ends by printing its peak RSS (:data:`_PRINT_RSS`) to stderr."""
    started = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    seconds = time.perf_counter() - started
    rss = next(
        (int(line.split()[1]) for line in proc.stderr.splitlines() if line.startswith("RSS_KB")), 0
    )
    return seconds, rss / 1024, proc.returncode, proc.stdout


def _timed_cli(args: list[str]) -> tuple[float, float, int, str]:
    """Wall seconds, child peak RSS (MiB), exit code and output of one `dpaudit closeness`."""
    code = (
        "import resource, sys; from auditor.cli.main import main; rc = main(sys.argv[1:]); "
        f"{_PRINT_RSS}; sys.exit(rc)"
    )
    return _child(code, "closeness", *args)


def _headline(out: str) -> str:
    """The summary's closeness line (and a time-limited search's bracket), shortened."""
    lines = out.splitlines()
    head = next((ln for ln in lines if "(max over classes)" in ln), "?")
    head = head.replace(" (max over classes)", "").replace(
        " (one reference set for every class)", ""
    )
    limit = next((ln.strip() for ln in lines if "not proved optimal" in ln), "")
    return head + (f"; {limit}" if limit else "")


def _baseline() -> tuple[float, float]:
    """Seconds and peak RSS (MiB) of a child that only imports the CLI (start-up cost)."""
    seconds, rss, _, _ = _child(
        f"import resource, sys, auditor.cli.main, auditor.closeness; {_PRINT_RSS}"
    )
    return seconds, rss


def run(rows: int = 1_000_000) -> list[str]:
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    lines = [
        f"closeness bench: {rows} rows (Python {sys.version.split()[0]}, "
        f"{os.cpu_count()} CPUs, load average {load:.1f})"
    ]
    seconds, rss = _baseline()
    lines.append(
        f"  start-up only (import auditor.cli.main): {seconds:6.2f} s, peak RSS {rss:6.0f} MiB"
    )
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "table.csv")
        started = time.perf_counter()
        write_table(path, rows)
        size = os.path.getsize(path) / 2**20
        lines.append(f"  generate CSV: {time.perf_counter() - started:6.2f} s, {size:.1f} MiB")
        cases = [
            ("tv", ["--qi", "age,zip3,sex", "--sensitive", "disease", "--epsilon", "0.2"]),
            ("kl", ["--qi", "age,zip3,sex", "--sensitive", "disease", "--distance", "kl"]),
            (
                "emd ordered",
                ["--qi", "age,zip3", "--sensitive", "income", "--ordered", "--distance", "emd"],
            ),
            ("tv (n=1000)", ["--qi", "age,zip3,sex", "--sensitive", "disease", "--n", "1000"]),
            (
                "tv (n=1000, shared)",
                ["--qi", "age,zip3,sex", "--sensitive", "disease", "--n", "1000", "--shared"],
            ),
        ]
        for name, args in cases:
            seconds, rss, rc, out = _timed_cli([path, *args, "--top", "3"])
            lines.append(
                f"  dpaudit closeness {name:<12} {seconds:6.2f} s wall (incl. start-up),"
                f" peak RSS {rss:6.0f} MiB, exit {rc}; {_headline(out)}"
            )
    for line in lines:
        print(line)
    return lines


if __name__ == "__main__":
    run(int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000)
