"""`python -m bench`: the auditor's benchmark table, overhead, memory and false-alarm checks.

Everything is measured in this one run (2 cores assumed). Sections:
1. scale: 1 vs 2 workers and a Dask LocalCluster (OpenDP and a pure-Python callable) with the
   audit's overhead against a bare loop of the mechanism, peak RSS at 1e6-1e8 samples, the
   stopping point of early-stopped violations, and false alarms of 1,000 early-stopping audits
   at confidence 0.9 (bench/scale_bench.py);
2. the table: catalogue mechanisms at the literature's claimed epsilon (0.1 unless the
   mechanism's parameters fix it), our certified bound vs the oracle bound and DP-Sniper;
3. false alarms: every correct catalogue mechanism, 20 seeds each;
4.-6. longitudinal audits, third-party libraries, local protocols;
7. the proof checker: catalogue timing, mutation testing of every true theorem, a fuzz of
   random claims (bench/proofs_bench.py);
8. DP-Sniper's whole evaluation table against ours at 1e6 and 1e7 (bench/dpsniper_bench.py);
9. whole privacy-profile claims (bench/profiles_bench.py);
10. certification noise alone: the oracle's event certified on fresh samples, how often one
    seed and the median of five reach 0.95x the oracle (bench/cert_noise.py);
11. the bound of scalar entries over 100 seeds at 1e5-1e6 samples, at the default split and
    with selection on a tenth (bench/spread_bench.py).
`python -m bench SECTION ...` runs only the named sections (e.g. `python -m bench proofs`).
Set BENCH_QUICK=1 for a smoke run with small sample sizes.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
import time

from auditor import audit
from auditor.catalogue import CATALOGUE
from bench.oracle import oracle_bound

QUICK = os.environ.get("BENCH_QUICK") == "1"
SCALE = 100 if QUICK else 1

# DP-Sniper (Bichsel et al. 2021, Table 2) certified lower bounds at claimed eps = 0.1
DPSNIPER = {
    ("laplace.scalar", 0.1): 0.0968,
    ("noisy_hist2", 0.1): 4.602,
    ("rnm3", 0.1): 0.248,
    ("rnm4", 0.1): 0.346,
    ("svt3", 0.1): 0.172,
    ("svt4", 0.1): 0.169,
    ("svt5", 0.1): 1.761,
}

# rows: (catalogue name, epsilon (None: the entry's claim), samples per dataset)
SPECIAL = [
    ("laplace.scalar", 1.0, 1_000_000),
    ("laplace.scalar", 0.1, 2_000_000),
    ("laplace.scalar", 0.1, 20_000_000),
]
SIZES = {"rnm3": 300_000_000, "svt4": 100_000_000, "svt3": 10_000_000, "rnm4": 10_000_000}
CONFIDENCE = 0.95


def _fmt(x, spec=".4f") -> str:
    if x is None:
        return "-"
    if isinstance(x, float) and math.isinf(x):
        return "inf"
    return format(x, spec)


def _row(name: str, eps: float | None, samples: int) -> list[str]:
    e = CATALOGUE[name]
    eps = e.claimed_epsilon if eps is None else eps
    samples = max(samples // SCALE, 20_000)
    r = audit(
        e.sampler(eps),
        e.pairs,
        epsilon=eps,
        delta=e.delta,
        samples=samples,
        confidence=CONFIDENCE,
        seed=2026,
        name=name,
        early_stop=False,  # the tightest bound: every sample, one look at the end
    )
    a = (1 - CONFIDENCE) / 2
    oracle = oracle_bound(name, eps, r.certification_samples, a, e.delta)
    ratio = r.epsilon_lower_bound / oracle if oracle else None
    drawn = 2 * (r.certification_samples + r.selection_samples * r.pairs_searched)
    lb = f"{r.epsilon_lower_bound:.4f}" + ("*" if r.unbounded_witness else "")
    return [
        name,
        _fmt(eps, ".3g"),
        _fmt(e.true_epsilon_of(eps)),
        lb,
        _fmt(oracle),
        _fmt(ratio, ".3f"),
        f"{samples:.0e}",
        f"{r.seconds:.1f}",
        f"{drawn / r.seconds:.2e}",
        _fmt(DPSNIPER.get((name, eps))),
        "VIOLATION" if r.violation else "ok",
    ]


def _print_table(rows: list[list[str]], head: list[str]) -> None:
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(head)]
    line = lambda cells: "| " + " | ".join(c.ljust(w) for c, w in zip(cells, widths)) + " |"
    print(line(head))
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for r in rows:
        print(line(r))
    sys.stdout.flush()


def table() -> None:
    print(f"## 2. Certified epsilon lower bounds (confidence {CONFIDENCE}, seed 2026)\n")
    head = [
        "mechanism",
        "claimed eps",
        "true eps",
        "our eps_lb",
        "oracle",
        "lb/oracle",
        "samples/side",
        "wall s",
        "samples/s",
        "DP-Sniper",
        "verdict",
    ]
    rows = [_row(n, e, s) for n, e, s in SPECIAL]
    for name in CATALOGUE:
        if name != "laplace.scalar":
            rows.append(_row(name, None, SIZES.get(name, 1_000_000)))
            print(f"  done {name}", file=sys.stderr, flush=True)
    _print_table(rows, head)
    print(
        "\n`*`: zero-probability witness (event never seen under one dataset). oracle: best bound"
        " any sampling audit could certify with the same certification samples and statistics"
        " (exact distributions, expected counts); '-' where no closed form is implemented."
        " samples/s counts every output drawn (selection over all candidate pairs +"
        " certification, both datasets).\n"
    )


def false_alarms() -> None:
    seeds = range(20)
    print("## 3. False alarms: correct catalogue mechanisms, 20 seeds each, confidence 0.95\n")
    total = bad = vague = 0
    for name, e in CATALOGUE.items():
        if not e.correct:
            continue
        verdicts = [
            audit(
                e.sampler(),
                e.pairs,
                epsilon=e.claimed_epsilon,
                delta=e.delta,
                samples=20_000,
                seed=s,
            ).verdict
            for s in seeds
        ]
        hits, unsure = verdicts.count("violation"), verdicts.count("inconclusive")
        total += len(seeds)
        bad += hits
        vague += unsure
        print(f"{name}: {hits}/{len(seeds)} violations, {unsure} inconclusive")
    print(
        f"total: {bad} violations in {total} audits of correct mechanisms ({vague} inconclusive)\n"
    )


def longitudinal() -> None:
    from bench import longitudinal as lon

    print("## 4. Longitudinal audits: T reports of one client as one output\n")
    rows = lon.run(samples=max(200_000 // SCALE, 20_000))
    print(lon.table(rows) + "\n")
    if not QUICK:
        lon.plot(rows, "docs/bench/longitudinal.svg")


def third_party() -> None:
    from bench import thirdparty_bench as tp

    print("## 5. Third-party libraries (diffprivlib, OpenDP, python-dp)\n")
    print(tp.table(tp.run(scale=0.05 if QUICK else 1.0)) + "\n")


def local_protocols() -> None:
    from bench import ldp_bench

    print("## 6. Closeness of a 1e6-row table; local-DP estimators and the RAPPOR decoder\n")
    # in a child of its own: peak RSS of children is a maximum over every child this process
    # has had, and the memory section above already ran a 1e8-sample one
    rows = 10_000 if QUICK else 1_000_000
    subprocess.run(
        [
            sys.executable,
            "-c",
            f"from bench import closeness_bench; closeness_bench.run(rows={rows})",
        ],
        check=True,
    )
    ldp_bench.run()  # prints its own lines
    print()


def proofs() -> None:
    from bench import proofs_bench

    proofs_bench.run()


def dpsniper() -> None:
    from bench import dpsniper_bench as ds

    sizes = (20_000, 100_000) if QUICK else (1_000_000, 10_000_000)
    print(
        "## 8. DP-Sniper's evaluation table: its certified bound and time against ours at "
        f"{sizes[0]:.0e} and {sizes[1]:.0e} samples per dataset (confidence {ds.CONFIDENCE}, "
        f"seed {ds.SEED}, every core; * marks a zero-probability witness)\n"
    )
    rows, first = ds.run(sizes)
    _print_table(rows, ds.head(sizes))
    print()
    print(
        f"### The bound at {sizes[0]:.0e} over {len(ds.SPREAD_SEEDS)} seeds (the first is the "
        "table's): one seed's bound on a weak signal is noisy, the median is the expectation\n"
    )
    _print_table(ds.spread(sizes[0], first), ds.spread_head(sizes[0]))
    print()


def noise() -> None:
    from bench import cert_noise, dpsniper_bench

    samples = 20_000 if QUICK else 1_000_000
    print(
        "## 10. Certification noise alone: a perfect auditor certifies the oracle's event on "
        f"fresh samples (DP-Sniper's table at {samples:.0e} per dataset, confidence "
        f"{cert_noise.CONFIDENCE}, one event or a pooled pair)\n"
    )
    rows, every = cert_noise.run([(n, v) for n, v, _ in dpsniper_bench.ROWS], samples)
    _print_table(rows, cert_noise.HEAD)
    print(
        f"\nA perfect auditor's median of {cert_noise.SEEDS} seeds meets every row's target "
        f"with probability {every:.2f}.\n"
    )


def spread() -> None:
    from bench import spread_bench as sb

    print(
        f"## 11. The bound over {10 if QUICK else len(sb.SEEDS)} seeds: scalar entries at small "
        f"budgets (confidence {sb.CONFIDENCE}, seeds from {sb.SEEDS[0]}; mean, median and "
        "smallest bound at the default split, and the mean with selection on a tenth)\n"
    )
    rows, seconds = sb.run(quick=QUICK)
    _print_table(rows, sb.HEAD)
    print(f"\n({seconds:.0f} s)\n")


def scale() -> None:
    from bench import scale_bench

    scale_bench.run()


def profiles() -> None:
    from bench import profiles_bench

    profiles_bench.run(quick=QUICK)


SECTIONS = {
    "scale": scale,
    "table": table,
    "false_alarms": false_alarms,
    "longitudinal": longitudinal,
    "third_party": third_party,
    "local_protocols": local_protocols,
    "proofs": proofs,
    "dpsniper": dpsniper,
    "profiles": profiles,
    "noise": noise,
    "spread": spread,
}


def main(argv: list[str] | None = None) -> int:
    names = sys.argv[1:] if argv is None else argv
    unknown = [n for n in names if n not in SECTIONS]
    if unknown:
        print(
            f"unknown bench section {unknown[0]!r}; choose from {', '.join(SECTIONS)}",
            file=sys.stderr,
        )
        return 2
    t0 = time.perf_counter()
    print("# dpaudit benchmark" + (" (QUICK)" if QUICK else "") + "\n")
    for name in names or SECTIONS:
        SECTIONS[name]()
    print(f"total bench time {time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
