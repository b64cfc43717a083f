"""Longitudinal audits: T reports of one client audited as one output (a T-tuple).

One-bit telemetry (Ding, Kulkarni, Yekhanin 2017) with epsilon per report, values x in [0, m],
pair x = m vs x' = 0. Without memoization every report draws a fresh bit (proved epsilon
T eps, catalogue `one_bit.repeated_composes`); with memoization the client draws one bit per
value and repeats it (proved epsilon eps for every T, `one_bit.memoized`).
RAPPOR (Erlingsson, Pihur, Korolova 2014), k = 8 Bloom bits, h = 2, f = 1/2, p = 1/2, q = 3/4:
with the permanent response memoized and a fresh instantaneous response per report, T
reports never exceed eps_inf = 4 ln 3 (`rappor.eps_inf`); drawing the permanent response
afresh for every report composes to T eps_1 (eps_1 = 2 ln(77/45), `rappor.eps_one`).
"""

from __future__ import annotations

import time

import numpy as np

EPS = 0.5
TS = (1, 2, 4, 8, 16, 32, 64)
RAPPOR = dict(k=8, h=2, f=0.5, p=0.5, q=0.75)


def one_bit_reports(T: int, memoized: bool, eps: float = EPS, m: float = 1.0):
    from auditor.catalogue import sampler_for
    from proofs.mechanisms import RepeatedOneBit

    return sampler_for(RepeatedOneBit(eps, m, T, memoized=memoized))


def rappor_reports(T: int, memoized: bool):
    from auditor.catalogue import bloom_bits
    from auditor.local.rappor import instantaneous_response, permanent_response

    k, h, f, p, q = (RAPPOR[name] for name in ("k", "h", "f", "p", "q"))

    def mech(data, size, rng):
        bits = bloom_bits(int(data), k, h).astype(bool)
        perm = permanent_response(np.broadcast_to(bits, (size, 1 if memoized else T, k)), f, rng)
        irr = instantaneous_response(np.broadcast_to(perm, (size, T, k)), p, q, rng)
        return irr.reshape(size, T * k).astype(np.int8)

    return mech


def proved_bounds(kind: str, T: int, memoized: bool) -> float:
    """The proved epsilon of T reports: one-bit T eps, or eps when memoized; RAPPOR T eps_1, or
    min(eps_inf, T eps_1) when the permanent response is memoized."""
    if kind == "one-bit":
        return EPS if memoized else T * EPS
    from auditor.local.rappor import epsilon_infinity, epsilon_one

    h, f, p, q = RAPPOR["h"], RAPPOR["f"], RAPPOR["p"], RAPPOR["q"]
    eps_1 = epsilon_one(h, f, p, q)
    return min(epsilon_infinity(h, f), T * eps_1) if memoized else T * eps_1


def run(samples: int = 200_000, ts=TS, rappor_ts=(1, 2, 4, 8, 16)) -> list[dict]:
    from auditor import audit

    rows = []
    cases = [("one-bit", t, mem) for t in ts for mem in (False, True)]
    cases += [("rappor", t, mem) for t in rappor_ts for mem in (False, True)]
    for kind, T, memoized in cases:
        make = one_bit_reports if kind == "one-bit" else rappor_reports
        pair = (1.0, 0.0) if kind == "one-bit" else (1, 2)
        claimed = EPS if kind == "one-bit" else proved_bounds("rappor", 1, True)
        start = time.perf_counter()
        result = audit(
            make(T, memoized),
            [pair],
            epsilon=claimed,
            samples=samples,
            seed=7,
            name=f"{kind} T={T}",
            early_stop=False,  # the growth of the bound with T, not only the verdict
        )
        rows.append(
            dict(
                kind=kind,
                T=T,
                memoized=memoized,
                claimed=claimed,
                proved=proved_bounds(kind, T, memoized),
                eps_lb=result.epsilon_lower_bound,
                violation=result.violation,
                seconds=time.perf_counter() - start,
            )
        )
    return rows


def table(rows: list[dict]) -> str:
    head = (
        f"{'protocol':<8} {'T':>3} {'memoized':>8} {'claimed/report':>14} {'proved eps':>10} "
        f"{'audited eps_lb':>14} {'violation':>9} {'seconds':>8}"
    )
    lines = [head, "-" * len(head)]
    for r in rows:
        lines.append(
            f"{r['kind']:<8} {r['T']:>3} {r['memoized']!s:>8} {r['claimed']:>14.4f} "
            f"{r['proved']:>10.4f} {r['eps_lb']:>14.4f} {r['violation']!s:>9} "
            f"{r['seconds']:>8.2f}"
        )
    return "\n".join(lines)


def plot(rows: list[dict], path: str) -> None:
    """eps_lb against T, with and without memoization, against the proved epsilon (SVG)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from proofs.io import write_text_atomic

    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
    for ax, kind in zip(axes, ("one-bit", "rappor")):
        for memoized, colour in ((False, "#c2410c"), (True, "#1f5fa8")):
            sel = [r for r in rows if r["kind"] == kind and r["memoized"] == memoized]
            if not sel:
                continue
            ts = [r["T"] for r in sel]
            label = "memoized" if memoized else "fresh each report"
            ax.plot(
                ts, [r["eps_lb"] for r in sel], "o-", color=colour, label=f"audited eps_lb, {label}"
            )
            ax.plot(
                ts,
                [r["proved"] for r in sel],
                "--",
                color=colour,
                alpha=0.6,
                label=f"proved eps, {label}",
            )
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("reports per client T")
        ax.set_ylabel("epsilon")
        ax.set_title(f"{kind}: T reports of one value")
        ax.legend(fontsize=7)
    fig.tight_layout()
    import io

    buf = io.StringIO()
    fig.savefig(buf, format="svg")
    plt.close(fig)
    write_text_atomic(path, buf.getvalue())


if __name__ == "__main__":
    measured = run()
    print(table(measured))
    plot(measured, "docs/bench/longitudinal.svg")
