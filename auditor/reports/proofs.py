"""Proof reports: the verdict table with statements, methods, counterexamples and timings."""

from __future__ import annotations

from auditor.reports.html import report_kind
from proofs.io import write_text_atomic
from proofs.results import ProofRun

__all__ = ["proofs_html", "proofs_markdown", "report_kind", "write_proof_report"]


def _cex_text(r) -> str:
    return r.counterexample.summary() if r.counterexample is not None else ""


def _lead(run: ProofRun) -> str:
    counts = ", ".join(f"{n} {v}" for v, n in run.counts().items() if n)
    bad = [r.id for r in run.results if not r.as_expected]
    if not bad:
        return (
            f"All {len(run.results)} claims came out as expected ({counts}) in {run.seconds:.1f} s."
        )
    return (
        f"{len(bad)} of {len(run.results)} claims did not come out as expected: "
        f"{', '.join(bad)} ({counts})."
    )


def proofs_html(run: ProofRun, title: str = "dpaudit proof report") -> str:
    from auditor.reports.templating import render

    return render("proofs.html", title=title, run=run, lead=_lead(run))


def proofs_markdown(run: ProofRun, title: str = "dpaudit proof report") -> str:
    from auditor.reports.templating import render

    notes = [r for r in run.results if r.counterexample is not None or r.reason]
    return render(
        "proofs.md",
        title=title,
        run=run,
        lead=_lead(run),
        notes=notes,
        note_text=lambda r: "; ".join(t for t in (r.reason, _cex_text(r)) if t),
    )


def write_proof_report(run: ProofRun, path: str) -> None:
    """Write the verdict table as HTML or Markdown (by the path's suffix), atomically."""
    render = proofs_markdown if report_kind(path) == "md" else proofs_html
    write_text_atomic(path, render(run))
