"""Proof reports: the verdict table with statements, methods, counterexamples and timings."""

from __future__ import annotations

from pathlib import Path

from auditor.reports.html import esc, md_cell, page, versions
from proofs.errors import InputError
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
    rows = []
    for r in run.results:
        cls = r.verdict.value + ("" if r.as_expected else " unexpected")
        detail = "".join(
            f"<div>{esc(label)}: {esc(text)}</div>"
            for label, text in (
                ("tight epsilon", r.tight_epsilon),
                ("note", r.reason),
                ("counterexample", _cex_text(r)),
            )
            if text
        )
        rows.append(
            f"<tr><td class='id'><code>{esc(r.id)}</code></td>"
            f"<td><span class='verdict {esc(cls)}'>{esc(r.verdict.value)}</span>"
            f"<div class='small'>expected: {esc(r.expect)}</div></td>"
            f"<td>{esc(r.statement)}<div class='small'>{esc(r.source)}</div>{detail}</td>"
            f"<td>{esc(r.method)}</td><td>{r.seconds:.3f}</td></tr>"
        )
    body = (
        f"<h1>{esc(title)}</h1><p class='lead'>{esc(_lead(run))}</p>"
        "<p class='small'>proved: for every parameter value allowed by the assumptions; "
        "certified: at the stated numbers, by interval arithmetic; checked: a general rule that "
        "holds on the listed instances only (never a pass); refuted: a counterexample "
        "re-checked exactly; unknown: no conclusion (never a pass); error: the claim could not "
        "be checked (id, file, message).</p>"
        "<table><tr><th>id</th><th>verdict</th><th>statement and source</th><th>method</th>"
        f"<th>seconds</th></tr>{''.join(rows)}</table>"
    )
    return page(title, body)


def proofs_markdown(run: ProofRun, title: str = "dpaudit proof report") -> str:
    lines = [
        f"# {title}",
        "",
        _lead(run),
        "",
        "| id | verdict | expected | statement | method | seconds |",
        "|---|---|---|---|---|---|",
    ]
    lines[4:4] = [
        "proved: every parameter value; certified: at the stated numbers; checked: the "
        "listed instances only (never a pass); unknown: no conclusion; error: not "
        "checked.",
        "",
    ]
    for r in run.results:
        lines.append(
            f"| `{md_cell(r.id)}` | **{r.verdict.value}** | {r.expect} | "
            f"{md_cell(r.statement)} | {md_cell(r.method)} | {r.seconds:.3f} |"
        )
    notes = [r for r in run.results if r.counterexample is not None or r.reason]
    if notes:
        lines += ["", "## Counterexamples and notes", ""]
        for r in notes:
            text = "; ".join(t for t in (r.reason, _cex_text(r)) if t)
            lines.append(f"- `{md_cell(r.id)}`: {md_cell(text)}")
    lines += ["", "Versions: " + ", ".join(f"{k} {v}" for k, v in versions().items()), ""]
    return "\n".join(lines)


def report_kind(path: str) -> str:
    """'html' or 'md' from the suffix of a report path (an InputError for anything else)."""
    suffix = Path(path).suffix.lower()
    if suffix not in (".html", ".htm", ".md"):
        raise InputError(f"--report {path!r} must end in .html or .md; choose one of them.")
    return "md" if suffix == ".md" else "html"


def write_proof_report(run: ProofRun, path: str) -> None:
    """Write the verdict table as HTML or Markdown (by the path's suffix), atomically."""
    render = proofs_markdown if report_kind(path) == "md" else proofs_html
    write_text_atomic(path, render(run))
