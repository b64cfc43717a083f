"""Audits of real mechanisms of diffprivlib, OpenDP and python-dp (needs `pip install .[libs]`).

Each mechanism is audited as a black box on the pair in `auditor.thirdparty.libraries.THIRD_PARTY`
against the (epsilon, delta) its library states, at confidence 0.95, seed 0.
"""

from __future__ import annotations

import time
import warnings

from auditor.thirdparty.libraries import THIRD_PARTY, available


def run(scale: float = 1.0) -> list[dict]:
    from auditor import audit

    rows = []
    for m in THIRD_PARTY:
        if not available(m.library):
            rows.append(dict(library=m.library, name=m.name, skipped="not installed"))
            continue
        samples = max(20_000, int(m.samples * scale))
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = audit(
                m.function,
                [m.pair],
                epsilon=m.epsilon,
                delta=m.delta,
                samples=samples,
                seed=0,
                name=f"{m.library} {m.name}",
            )
        witness = r.witness.event if r.witness is not None else "none"
        rows.append(
            dict(
                library=m.library,
                name=m.name,
                epsilon=m.epsilon,
                delta=m.delta,
                pair=m.pair,
                samples=samples,
                eps_lb=r.epsilon_lower_bound,
                violation=r.violation,
                unbounded=r.unbounded_witness,
                event=witness,
                seconds=time.perf_counter() - start,
                note=m.note,
            )
        )
    return rows


def table(rows: list[dict]) -> str:
    head = (
        "| library | mechanism | claim (eps, delta) | pair | samples/side | eps_lb (95%) | "
        "verdict | witness event | seconds |"
    )
    lines = [head, "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if "skipped" in r:
            lines.append(f"| {r['library']} | {r['name']} | | | | | skipped: {r['skipped']} | | |")
            continue
        verdict = "**violation**" if r["violation"] else "no violation found"
        if r["unbounded"]:
            verdict += " (unbounded witness)"
        a, b = r["pair"]
        lines.append(
            f"| {r['library']} | {r['name']} | ({r['epsilon']:.4g}, {r['delta']:g}) | "
            f"{a} vs {b} | {r['samples']} | {r['eps_lb']:.4f} | {verdict} | "
            f"{r['event']} | {r['seconds']:.1f} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    print(table(run()))
