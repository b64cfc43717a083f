"""Would another ranking rule have certified better events? The engine's choice replayed on an
audit's own judged candidates, with every rule's picks valued on fresh outputs.

`python -m bench.choice_replay NAME [NAME ...] [--seeds 2026 ...] [--samples 1e6] [--truth 4e6]`

The audit runs as the bench runs it. The candidates its last selection round judged (the
cross-fitted ones included, as :func:`auditor.engine.choice.choose` saw them) are recorded with
what certification ended with. Each rule then ranks them its own way, and ``choose`` (the same
function, so the same rules for a second and third event) picks from that ranking:

- ``engine``: the judge's rank as it is (each count shrunk 1.6 sigmas; the engine's choice);
- ``plain``: the milder 1-sigma prediction as the rank;
- ``unshrunk``: the judged value with no shrink, extrapolated from the two predictions (the
  shrink moves the prediction about linearly in z);
- ``family EB``: the unshrunk value pulled toward the mean of its family over every pair, by
  the share of its variance that noise explains (an empirical-Bayes prior per family, its
  spread by the method of moments).

The best TOP candidates of each rule, and those the audit certified, are counted on ``truth``
fresh outputs per dataset (:func:`bench.expected.true_probabilities`); each rule's events are
valued by the mean of simulated certifications at the audit's size, their level split over the
K events it picked (:func:`bench.expected.simulate`). ``best single`` is the largest value of
one counted candidate alone: an optimistic reference, being the largest of many estimates
that carry the truth sample's noise.

Everything a rule sees is selection data, so a better rule here would keep certification
valid. A developer's diagnostic, not part of ``make bench``.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, replace
from unittest import mock

import numpy as np

from auditor.catalogue import CATALOGUE
from auditor.engine import run as run_module
from auditor.engine import session as session_module
from auditor.engine.choice import Outcome, Power, choose
from auditor.engine.select import JUDGE_SHRINK, PLAIN_SHRINK, Candidate
from auditor.engine.stats import normal_quantile
from bench.expected import audit_arguments, check_sizes, simulate, true_probabilities
from bench.selection_loss import audit_entry

TOP = 40  # candidates valued per rule (its best by its own rank)
PER_PAIR = 5  # and each pair's best by the milder prediction (choose's other-pair event)
SIMS = 2000
_Z_RANK, _Z_PLAIN = normal_quantile(JUDGE_SHRINK), normal_quantile(PLAIN_SHRINK)


@dataclass(frozen=True)
class Recorded:
    """An audit's bound, the candidates its choice ranked and what its certification ended with."""

    bound: float
    cands: list[Candidate]
    out: Outcome
    k_max: int  # the most events the audit could certify
    power: Power | None = None  # what the audit's choice valued events by when none gained


def record(name: str, samples: int, seed: int) -> Recorded:
    seen: dict = {}

    def ranked(cands, k_max, power=None):
        seen["cands"], seen["power"] = list(cands), power
        return choose(cands, k_max, power)

    conclude = run_module._conclude

    def concluded(mech, pairs, out, cfg, *rest):
        seen["out"], seen["k_max"] = out, cfg.max_certified
        return conclude(mech, pairs, out, cfg, *rest)

    with (
        mock.patch.object(session_module, "choose", ranked),
        mock.patch.object(run_module, "_conclude", concluded),
    ):
        result = audit_entry(name, samples, seed)
    return Recorded(
        result.epsilon_lower_bound, seen["cands"], seen["out"], seen["k_max"], seen["power"]
    )


def _gained(c: Candidate) -> bool:
    """Has the candidate a shrunk gain (no fluke)? The others rank at plain - 1e3 (judge)."""
    return c.rank > c.plain - 1e2


def unshrunk(c: Candidate) -> tuple[float, float]:
    """(the judged value with no shrink, its standard error), extrapolated from the rank (z =
    1.645) and plain (z = 0.994) predictions."""
    sd = (c.plain - c.rank) / (_Z_RANK - _Z_PLAIN)
    return c.plain + _Z_PLAIN * sd, sd


def family_prior(cands: list[Candidate]) -> dict[str, tuple[float, float]]:
    """Per family, (mean, spread variance) of the unshrunk values of its gaining candidates:
    the variance of the values less the mean of their noise variances (at least 1e-10)."""
    groups: dict[str, list[tuple[float, float]]] = {}
    for c in cands:
        if _gained(c) and not c.fluke:
            groups.setdefault(c.family, []).append(unshrunk(c))
    out = {}
    for family, v in groups.items():
        x, sd = np.array(v).T
        out[family] = (float(x.mean()), max(float(x.var() - np.mean(sd**2)), 1e-10))
    return out


def rules(cands: list[Candidate]) -> dict[str, list[Candidate]]:
    """Every rule's ranking: the candidates with its rank in place of the judge's (those with
    no shrunk gain, or flukes, keep theirs)."""
    prior = family_prior(cands)

    def eb(c: Candidate) -> float:
        x, sd = unshrunk(c)
        mean, spread = prior.get(c.family, (x, 1.0))
        return mean + spread / (spread + sd * sd) * (x - mean)

    moved = {
        "engine": lambda c: c.rank,
        "plain": lambda c: c.plain,
        "unshrunk": lambda c: unshrunk(c)[0],
        "family EB": eb,
    }
    return {
        name: [replace(c, rank=f(c)) if _gained(c) and not c.fluke else c for c in cands]
        for name, f in moved.items()
    }


def _key(c: Candidate) -> tuple:
    return c.pair_index, c.forward, repr(c.event)


def valued(ranked: dict[str, list[Candidate]], chosen: list[Candidate]) -> list[Candidate]:
    """The candidates to count on fresh outputs: each rule's TOP best, each pair's PER_PAIR
    best by the milder prediction, and the events the audit certified."""
    out: dict[tuple, Candidate] = {_key(c): c for c in chosen}
    base = next(iter(ranked.values()))
    by_pair: dict[int, list[Candidate]] = {}
    for c in sorted((c for c in base if not c.fluke), key=lambda c: -c.plain):
        by_pair.setdefault(c.pair_index, []).append(c)
    picks = [c for cs in by_pair.values() for c in cs[:PER_PAIR]]
    for cs in ranked.values():
        picks += sorted(cs, key=lambda c: -c.rank)[:TOP]
    for c in picks:
        out.setdefault(_key(c), c)
    return list(out.values())


def replay(name: str, rec: Recorded, seed: int, truth: int) -> dict[str, tuple[float, int]]:
    """Per rule (and ``best single``): (expected certified bound, events certified)."""
    ranked = rules(rec.cands)
    pool = valued(ranked, rec.out.chosen)
    probs = true_probabilities(name, pool, seed, truth)
    at = dict(zip((_key(c) for c in pool), probs))
    n, k0, delta = rec.out.samples, max(len(rec.out.chosen), 1), CATALOGUE[name].delta
    level = rec.out.level * k0  # the level of one certified event; K events split it
    joint = None if rec.out.joint is None else float(rec.out.joint["level"]) * k0
    out = {}
    for rule, cs in ranked.items():
        picked = choose([c for c in cs if _key(c) in at], rec.k_max, rec.power)
        p = np.array([at[_key(c)] for c in picked]).reshape(-1, 2)
        k = max(len(picked), 1)
        b = simulate(p, n, level / k, delta, SIMS, joint_level=None if joint is None else joint / k)
        out[rule] = (float(b.mean()) if b.size else 0.0, len(picked))
    single = [float(simulate(p, n, level, delta, SIMS, joint_level=joint).mean()) for p in probs]
    out["best single"] = (max(single, default=0.0), 1)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.choice_replay")
    audit_arguments(ap, [2026, 2027, 2028, 2029])
    args = ap.parse_args(argv)
    check_sizes(ap, args)
    names = ["engine", "plain", "unshrunk", "family EB", "best single"]
    print("expected certified bound of the events each rule picks (K: events certified)")
    print("| entry | seed | audit's bound | " + " | ".join(names) + " |")
    print("|---|---|---|" + "---|" * len(names))
    for name in args.names:
        sums = dict.fromkeys(names, 0.0)
        for seed in args.seeds:
            rec = record(name, int(args.samples), seed)
            got = replay(name, rec, seed, int(args.truth))
            cells = " | ".join(f"{got[r][0]:.4f} (K={got[r][1]})" for r in names)
            print(f"| {name} | {seed} | {rec.bound:.4f} | {cells} |", flush=True)
            for r in names:
                sums[r] += got[r][0] / len(args.seeds)
        print(f"| {name} | mean | | " + " | ".join(f"{sums[r]:.4f}" for r in names) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
