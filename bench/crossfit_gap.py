"""How far the cross-fitted judging counts of key-set events lie from the events' true value:
the gap that decides which cross-fitted family the judge prefers.

`python -m bench.crossfit_gap NAME [NAME ...] [--seeds 2026 ...] [--samples 1e6] [--truth 4e6]`

A cross-fitted candidate (:mod:`auditor.engine.crossfit`) is certified as the event built on
both selection folds, but judged by the counts of the same recipe built on one fold and
counted on the other. Those counts value an event built on half the outputs: where its order
of the cells is worse on half the outputs than on all of them, they undervalue the event that
goes on to certification. The counts of the certified event on the very folds it was built on
(in-sample) overvalue it instead, by its overfitting. This diagnostic runs the audit as the
bench does, records every pair's cross-fitted candidates with both kinds of counts, counts
the certified events on ``truth`` fresh outputs per dataset (the streams of
:func:`bench.expected.true_probabilities`), and reports, per family, the mean log-ratio of
each over the candidates whose favoured mass lies in a band (the events certification
picks): cross-fitted, in-sample and true, and the gap cross-fitted minus true. A family whose
gap is more negative than another's loses the judge's comparisons it should win.

A developer's diagnostic, not part of ``make bench``: at 1e7 per dataset an audit of a sparse
vector and the truth counts take several minutes.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, replace
from unittest import mock

import numpy as np

from auditor.engine import session as session_module
from auditor.engine.crossfit import add_tallies, count_keys
from auditor.engine.select import Candidate, oriented
from bench.expected import audit_arguments, check_sizes, true_probabilities
from bench.selection_loss import audit_entry

BAND = (0.002, 0.05)  # favoured masses of the events a vector audit certifies at 1e6-1e7


@dataclass(frozen=True)
class Crossed:
    """One pair's cross-fitted candidates: favoured and other probability of each, as judged
    (cross-fitted), in-sample (the certified event on its own folds) and true."""

    pair: int
    cands: list[Candidate]
    judged: np.ndarray  # (K, 2) favoured, other
    in_sample: np.ndarray  # (K, 2)
    truth: np.ndarray  # (K, 2)


def record(name: str, samples: int, seed: int) -> tuple[float, list[Crossed]]:
    """Run the audit; its bound and each pair's last cross-fitted candidates, with their
    cross-fitted and in-sample probabilities (truth not yet counted: zeros)."""
    seen: dict[int, Crossed] = {}
    original = session_module.Session._crossfit

    def wrapped(self, r, i, scorer):
        found = original(self, r, i, scorer)
        cands, counts, m, _ = found
        if cands:
            folds = self.folds[r][i]
            both = {k: add_tallies(a, b) for k, a, b in zip(folds["keys"], folds["a"], folds["b"])}
            ins = np.array([count_keys(c.event, both[c.event.key]) for c in cands])
            cands = [replace(c, pair_index=i) for c in cands]
            seen[i] = Crossed(
                i,
                cands,
                np.stack(oriented(cands, counts), 1) / m,
                np.stack(oriented(cands, ins.reshape(-1, 2)), 1) / m,
                np.zeros((len(cands), 2)),
            )
        return found

    with mock.patch.object(session_module.Session, "_crossfit", wrapped):
        result = audit_entry(name, samples, seed)
    return result.epsilon_lower_bound, [seen[i] for i in sorted(seen)]


def gaps(crossed: list[Crossed], band: tuple[float, float] = BAND) -> dict[str, tuple]:
    """Per family: (candidates in the band, mean log-ratio cross-fitted, in-sample, true).
    A candidate is in the band when its true favoured probability is; candidates with a zero
    probability in any of the three are left out (no finite log-ratio)."""
    rows: dict[str, list[tuple[float, float, float]]] = {}
    for x in crossed:
        for c, j, s, t in zip(x.cands, x.judged, x.in_sample, x.truth):
            if not band[0] <= t[0] <= band[1] or min(*j, *s, *t) <= 0:
                continue
            ln = [float(np.log(p[0] / p[1])) for p in (j, s, t)]
            rows.setdefault(c.family, []).append((ln[0], ln[1], ln[2]))
    return {f: (len(v), *np.mean(np.array(v), axis=0).tolist()) for f, v in sorted(rows.items())}


def measure(name: str, seed: int, samples: int, truth: int) -> tuple[float, list[Crossed]]:
    bound, crossed = record(name, samples, seed)
    out = []
    for x in crossed:
        t = true_probabilities(name, x.cands, seed, truth)
        out.append(Crossed(x.pair, x.cands, x.judged, x.in_sample, t))
    return bound, out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.crossfit_gap")
    audit_arguments(ap, [2026])
    args = ap.parse_args(argv)
    check_sizes(ap, args)
    print(f"favoured true mass in [{BAND[0]:g}, {BAND[1]:g}]; mean log-ratios")
    print("| entry | seed | bound | family | candidates | cross-fitted | in-sample | true | gap |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name in args.names:
        for seed in args.seeds:
            bound, crossed = measure(name, seed, int(args.samples), int(args.truth))
            for family, (k, cf, ins, tr) in gaps(crossed).items():
                print(
                    f"| {name} | {seed} | {bound:.4f} | {family} | {k} | {cf:.4f} | {ins:.4f} "
                    f"| {tr:.4f} | {cf - tr:+.4f} |",
                    flush=True,
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
