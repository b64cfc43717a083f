"""`dpaudit demo`: prove the theorem catalogue and audit the sampler catalogue, write reports/.

Writes OUT/proofs.html and proofs.md, one HTML report per audited mechanism under
OUT/audits/, OUT/index.html linking every report, and OUT/catalogue.md: per mechanism the
claimed epsilon, the true epsilon from theory, the proof entry and its verdict, the audited
lower bound and the gap. Every file is written at the end, all at once
(:func:`proofs.io.write_files_atomic`): an interrupted demo leaves OUT as it was.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import sys
import time
from pathlib import Path

from auditor.reports.templating import fmt as _fmt
from proofs.errors import InputError
from proofs.io import write_files_atomic


def _audit_all(out: Path, samples: int, quiet: bool, files: dict) -> list[dict]:
    """Audit every catalogue entry; its JSON result and HTML report go into ``files``."""
    from auditor.catalogue import CATALOGUE
    from auditor.reports.audit import audit_report_files
    from auditor.reports.demo_audit import audit_with_plots

    rows = []
    width = max(map(len, CATALOGUE))  # one column for every name, however long
    for name, entry in CATALOGUE.items():
        start = time.perf_counter()
        d = audit_with_plots(entry, samples=samples, seed=0)
        stem = name.replace("/", "_")
        files[out / "audits" / f"{stem}.json"] = json.dumps(d, indent=2) + "\n"
        files.update(audit_report_files(d, str(out / "audits" / f"{stem}.html")))
        true_eps = entry.true_epsilon
        true = entry.true()
        true_text = ("<=" if true is not None and not true.tight else "") + _fmt(true_eps)
        rows.append(
            {
                "name": name,
                "claimed": entry.claimed_epsilon,
                "delta": entry.delta,
                "true": true_eps,
                "true_text": true_text,
                "correct": entry.correct,
                "lb": d["epsilon_lower_bound"],
                "theorems": ((entry.refuted_by,) if entry.refuted_by else entry.theorems),
                "violation": d["violation"],
                "verdict": d.get("verdict")
                or ("violation" if d["violation"] else "no violation found"),
                "detectable": d.get("detectable_epsilon"),
                "samples": d["samples"],
                "confidence": d["confidence"],
                "unbounded": d["unbounded_witness"],
                "report": f"audits/{stem}.html",
                "source": entry.source,
                "seconds": time.perf_counter() - start,
            }
        )
        rows[-1]["found"] = _found(rows[-1])
        if not quiet:
            flag = "VIOLATION" if d["violation"] else rows[-1]["verdict"]
            print(
                f"audit {name:<{width}} claimed {_fmt(entry.claimed_epsilon):>7}  true "
                f"{true_text:>7}"
                f"  eps_lb {_fmt(d['epsilon_lower_bound']):>7}  {flag}",
                flush=True,
            )
    return rows


def _found(row: dict) -> str:
    """``as expected``; ``missed`` (a broken entry without a violation); ``false alarm`` (a
    correct one with a violation, which the confidence allows 5% of the time); ``inconclusive``
    (a correct entry the audit could not have told from a leakier one)."""
    if row["violation"]:
        return "as expected" if not row["correct"] else "false alarm"
    if not row["correct"]:
        return "missed"
    return "inconclusive" if row["verdict"] == "inconclusive" else "as expected"


def _catalogue_md(rows: list[dict], proofs: dict, samples: int) -> str:
    from auditor.reports.templating import render

    table = []
    for r in rows:
        verdict = "**violation**" if r["violation"] else r["verdict"]
        if r["unbounded"]:
            verdict += " (unbounded witness)"
        found = "" if r["found"] == "as expected" else f" (**{r['found']}**)"
        gap = (r["true"] - r["lb"]) if r["true"] is not None and math.isfinite(r["true"]) else None
        table.append(
            r
            | {
                "proof": "; ".join(f"`{t}`: {proofs.get(t, 'n/a')}" for t in r["theorems"])
                or "n/a",
                "verdict_md": verdict,
                "expected_md": ("violation" if not r["correct"] else "no violation") + found,
                "gap": gap,
            }
        )
    return render("catalogue.md", rows=table, samples=samples)


def _index_html(rows: list[dict], proof_run) -> str:
    from auditor.reports.templating import render

    shown = []
    for r in rows:
        kind = "violation" if r["violation"] else "pass"
        shown.append(r | {"kind": "inconclusive" if r["verdict"] == "inconclusive" else kind})
    return render(
        "index.html",
        title="dpaudit reports",
        rows=shown,
        proofs=len(proof_run.results),
        proof_counts=", ".join(f"{n} {v}" for v, n in proof_run.counts().items() if n),
        proofs_ok=proof_run.all_as_expected,
        violations=sum(r["violation"] for r in rows),
        missed=[r["name"] for r in rows if r["found"] in ("missed", "false alarm")],
    )


def run(args: argparse.Namespace) -> int:
    if not str(args.out).strip():
        raise InputError(f"--out {args.out!r} is empty; give a folder for the reports.")
    out = Path(args.out)
    made = [p for p in (*reversed((out / "audits").parents), out / "audits") if not p.exists()]
    try:
        (out / "audits").mkdir(parents=True, exist_ok=True)
    except OSError as exc:  # (a file in the way, or no permission)
        raise InputError(
            f"--out {args.out!r} cannot be a folder for the reports ({exc.strerror}); give a "
            "folder path."
        ) from None
    try:
        return _run(args, out)
    except BaseException:  # an interrupt or an error leaves the folder as it was
        for folder in reversed(made):
            with contextlib.suppress(OSError):
                folder.rmdir()  # (only while empty)
        raise


def _run(args: argparse.Namespace, out: Path) -> int:
    from auditor.reports.proofs import proofs_html, proofs_markdown
    from proofs.catalogue import catalogue
    from proofs.dispatch import run_theorems

    proof_run = run_theorems(catalogue())
    print(proof_run.summary(), flush=True)
    files = {
        out / "proofs.html": proofs_html(proof_run),
        out / "proofs.md": proofs_markdown(proof_run),
    }
    samples = 50_000 if args.quick else 400_000
    rows = _audit_all(out, samples, quiet=False, files=files)
    proofs = {r.id: r.verdict.value for r in proof_run.results}
    files[out / "catalogue.md"] = _catalogue_md(rows, proofs, samples)
    files[out / "index.html"] = _index_html(rows, proof_run)
    write_files_atomic(files)  # all old or all new, even when interrupted
    wrong = [r["name"] for r in rows if r["found"] in ("missed", "false alarm")]
    print(
        f"\nwrote {out}/index.html, {out}/catalogue.md, {out}/proofs.html and "
        f"{len(rows)} audit reports in {out}/audits/"
    )
    if wrong:
        print(
            f"audits not as expected (a correct mechanism flagged, or a broken one missed at "
            f"this sample size): {', '.join(wrong)}",
            file=sys.stderr,
        )
    return 0 if proof_run.all_as_expected and not wrong else 1
