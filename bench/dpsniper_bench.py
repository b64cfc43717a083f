"""DP-Sniper's whole evaluation table against ours at 1e6 and 1e7 samples per dataset.

`python -m bench dpsniper` prints one table from one run: DP-Sniper's published certified lower
bound and its running time, then for each of our two budgets the certified bound, its ratio to
DP-Sniper's value and to the oracle bound (the best any audit with the same certification
sample and interval split could certify, :mod:`bench.oracle`), wall time and the peak RSS of
the auditing process (its VmHWM; workers hold their chunks only). Each audit runs in a child
process of its own so that its peak RSS is its own; workers are every core (2 here).

DP-Sniper's figures: Bichsel, Steffen, Bogunovic and Vechev (2021), DP-Sniper: black-box
discovery of differential privacy violations using classifiers, IEEE S&P, Table 2 and the
logistic-regression reference results in its repository (eval_sp2021/reference-results,
`lower_bound` and `time_dd_search`; confidence 0.9; 10.7M training samples per input pair and
2e8 for the final estimate; a machine with many more cores than this one).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np

from bench.oracle import oracle_bound

CONFIDENCE = 0.95
SEED = 2026

# (catalogue entry, DP-Sniper's certified lower bound, DP-Sniper's time in seconds)
ROWS = [
    ("laplace.scalar", 0.0968, 19.6),
    ("truncated_geometric.balcer_vadhan", 0.1085, 17.9),
    ("noisy_hist1", 0.0955, 34.8),
    ("noisy_hist2", 4.602, 37.8),
    ("report_noisy_max.laplace", 0.0853, 58.8),
    ("rnm2", 0.0914, 55.7),
    ("rnm3", 0.248, 59.4),
    ("rnm4", 0.346, 59.8),
    ("svt1", 0.0858, 118.0),
    ("svt2", 0.0859, 148.1),
    ("svt3", 0.1716, 149.8),
    ("svt4", 0.1687, 122.7),
    ("svt5", 1.761, 56.3),
    ("svt6", 0.2720, 90.7),
    ("svt34_parallel", 0.2610, 341.3),
    ("numerical_svt", 0.0343, 142.2),
    ("prefix_sum", 0.5040, 92.1),
    ("laplace_parallel20", 0.0350, 96.5),
    ("rappor.dpsniper", 0.2930, 130.6),
    ("one_time_rappor.dpsniper", 0.597, 79.9),
]

_CHILD = """
import json, resource, sys
from auditor import audit
from auditor.catalogue import CATALOGUE
e = CATALOGUE[sys.argv[1]]
r = audit(e.sampler(), e.pairs, epsilon=e.claimed_epsilon, delta=e.delta,
          samples=int(sys.argv[2]), confidence=float(sys.argv[3]), seed=int(sys.argv[4]),
          name=sys.argv[1], early_stop=False, progress=False)
# VmHWM: this process's own peak (ru_maxrss would include the parent's size at fork)
hwm = [l for l in open("/proc/self/status") if l.startswith("VmHWM")]
own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
rss = (int(hwm[0].split()[1]) if hwm else own) / 1024
print(json.dumps({"lb": r.epsilon_lower_bound, "unbounded": r.unbounded_witness,
                  "n": r.certification_samples, "seconds": r.seconds, "rss": rss}))
"""


SPREAD_SEEDS = (SEED, SEED + 1, SEED + 2, SEED + 3, SEED + 4)


def run_one(name: str, samples: int, seed: int = SEED) -> dict:
    """One audit in a child process (the tightest bound: every sample, one look at the end)."""
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, name, str(samples), str(CONFIDENCE), str(seed)],
        check=True,
        capture_output=True,
        text=True,
        env=os.environ | {"PYTHONWARNINGS": "ignore"},
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def _cells(name: str, res: dict) -> list[str]:
    from auditor.catalogue import CATALOGUE

    eps = CATALOGUE[name].claimed_epsilon
    oracle = oracle_bound(name, eps, res["n"], (1 - CONFIDENCE) / 2)
    lb = f"{res['lb']:.4f}" + ("*" if res["unbounded"] else "")
    return [
        lb,
        "-" if oracle is None else f"{oracle:.4f}",
        "-" if not oracle else f"{res['lb'] / oracle:.2f}",
        f"{res['seconds']:.1f}",
        f"{res['rss']:.0f}",
    ]


def run(sizes: tuple[int, ...] = (1_000_000, 10_000_000)) -> tuple[list[list[str]], dict]:
    """The table's rows, and the first size's results by mechanism (for :func:`spread`)."""
    rows, first = [], {}
    for name, theirs, their_time in ROWS:
        row = [name, f"{theirs:.4f}", f"{their_time:.0f}"]
        for n in sizes:
            res = run_one(name, n)
            first.setdefault(name, res)
            row += _cells(name, res)
            row.insert(len(row) - 4, f"{res['lb'] / theirs:.2f}")
        rows.append(row)
        print("  " + " | ".join(row), file=sys.stderr, flush=True)
    return rows, first


def spread(n: int, first: dict, seeds: tuple[int, ...] = SPREAD_SEEDS) -> list[list[str]]:
    """The bound at ``n`` over several seeds (the first from :func:`run`): on weak signals one
    seed's certified bound varies by tens of percent around its expectation (the counts'
    own noise), so the median says more than any one seed about where a method stands."""
    from auditor.catalogue import CATALOGUE

    rows = []
    for name, theirs, _ in ROWS:
        runs = [first[name]] + [run_one(name, n, s) for s in seeds[1:]]
        lbs = np.array([r["lb"] for r in runs])
        med = float(np.median(lbs))
        eps = CATALOGUE[name].claimed_epsilon
        oracle = oracle_bound(name, eps, runs[0]["n"], (1 - CONFIDENCE) / 2)
        rows.append(
            [
                name,
                f"{theirs:.4f}",
                " ".join(f"{x:.4f}" + ("*" if r["unbounded"] else "") for x, r in zip(lbs, runs)),
                f"{med:.4f}",
                f"{med / theirs:.2f}",
                "-" if oracle is None else f"{oracle:.4f}",
                "-" if not oracle else f"{med / oracle:.2f}",
            ]
        )
        print("  " + " | ".join(rows[-1]), file=sys.stderr, flush=True)
    return rows


def spread_head(n: int, seeds: tuple[int, ...] = SPREAD_SEEDS) -> list[str]:
    tag = f"{n:.0e}".replace("+0", "")
    return [
        "mechanism",
        "DP-Sniper",
        f"ours {tag}, seeds {seeds[0]}-{seeds[-1]}",
        "median",
        "x DP-Sniper",
        f"oracle {tag}",
        "x oracle",
    ]


def head(sizes: tuple[int, ...]) -> list[str]:
    cols = ["mechanism", "DP-Sniper", "DP-Sniper s"]
    for n in sizes:
        tag = f"{n:.0e}".replace("+0", "")
        cols += [f"ours {tag}", "x DP-Sniper", f"oracle {tag}", "x oracle", "wall s", "RSS MiB"]
    return cols
