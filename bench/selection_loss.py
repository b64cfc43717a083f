"""How much of its best candidate's bound the judge gives up when it picks among the events an
audit built: the selection loss, apart from the quality of the candidates themselves.

`python -m bench.selection_loss NAME [NAME ...] [--samples 1e6] [--seed 2031] [--truth 2e6]`

One audit of each catalogue entry runs as usual, except that the successive-halving screens
drop nothing, so that every candidate of the last selection round is judged. Those candidates
are then counted on ``truth`` fresh outputs per dataset of their input pair, in chunks of
CHUNK. Judging is replayed on these counts: each replicate sums as many random chunks as the
audit judged on, ranks the candidates with :func:`auditor.engine.select.judge` (the tail models
included), and values its pick by the certified bound expected from its probabilities on the
other chunks (:func:`auditor.engine.stats.expected_certified`, certification size and level of
the audit, one certified event). Reported per entry: the mean of those values, the best
candidate's value (the judge's pick on half the chunks, valued on the other half: the
largest of many noisy estimates would flatter it), and the oracle bound where
:mod:`bench.oracle` has one.

A developer's diagnostic, slow (counting a thousand candidates on 2e6 outputs per dataset of 8
pairs takes minutes), and not part of ``make bench``.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from unittest import mock

import numpy as np

from auditor import audit
from auditor.catalogue import CATALOGUE
from auditor.engine import session as session_module
from auditor.engine.events import KeySet, ScoreInterval
from auditor.engine.select import Candidate, Scorer, judge
from auditor.engine.stats import expected_certified
from bench.oracle import oracle_bound

CHUNK = 25_000
CONFIDENCE = 0.95


@dataclass(frozen=True)
class Collected:
    """The last round's candidates, their counts per chunk (chunks, candidates, 2: under the
    pair's first and second dataset) and what the audit judged and certified with."""

    cands: list[Candidate]
    counts: np.ndarray
    judged: int  # judging samples per dataset
    scorer: Scorer
    certified: float  # the audit's own certified bound


def _count(cands: list[Candidate], y: np.ndarray) -> np.ndarray:
    """How many of the outputs ``y`` each candidate's event holds; key values and scores are
    computed once per key function or score."""
    cache: dict = {}
    out = np.zeros(len(cands), dtype=np.int64)
    for j, c in enumerate(cands):
        ev = c.event
        if isinstance(ev, KeySet):
            k = cache.get(ev.key)
            if k is None:
                k = cache.setdefault(ev.key, ev.key(y))
            out[j] = np.isin(k, np.asarray(ev.keys, dtype=k.dtype)).sum()
        elif isinstance(ev, ScoreInterval):
            s = cache.get(ev.score)
            if s is None:
                s = cache.setdefault(ev.score, ev.score(y))
            out[j] = np.count_nonzero((s > ev.lo) & (s <= ev.hi))
        else:
            out[j] = ev.contains(y).sum()
    return out


def audit_entry(name: str, samples: int, seed: int, **kw):
    """The audit of a catalogue entry as the bench runs it: every sample, one look at the end
    (``kw``: further settings of :func:`auditor.audit`)."""
    entry = CATALOGUE[name]
    return audit(
        entry.sampler(),
        entry.pairs,
        epsilon=entry.claimed_epsilon,
        delta=entry.delta,
        samples=samples,
        confidence=CONFIDENCE,
        seed=seed,
        name=name,
        early_stop=False,
        progress=False,
        **kw,
    )


def collect(name: str, samples: int, seed: int, truth: int) -> Collected:
    entry = CATALOGUE[name]
    sampler = entry.sampler()
    seen: dict = {}

    def keep_all(cands, counts, m2, scorer):
        return np.ones(len(cands), dtype=bool)

    def record_judge(cands, counts, m2, scorer, rivals=0):
        seen["m2"], seen["scorer"] = max(m2, seen.get("m2", 0)), scorer
        return judge(cands, counts, m2, scorer, rivals)

    choose = session_module.choose

    def record_choose(cands, k_max, power=None):
        seen["cands"] = list(cands)
        return choose(cands, k_max, power)

    with (
        mock.patch.object(session_module, "survivors", keep_all),
        mock.patch.object(session_module, "judge", record_judge),
        mock.patch.object(session_module, "choose", record_choose),
    ):
        result = audit_entry(name, samples, seed)
    cands = seen["cands"]
    chunks = truth // CHUNK
    counts = np.zeros((chunks, len(cands), 2), dtype=np.int64)
    rng = np.random.default_rng([seed, 0x5E1])
    for i in sorted({c.pair_index for c in cands}):
        idx = [j for j, c in enumerate(cands) if c.pair_index == i]
        mine = [cands[j] for j in idx]
        pair = entry.pairs[i]
        for t in range(chunks):
            for side, data in enumerate((pair.a, pair.b)):
                counts[t, idx, side] = _count(mine, sampler(data, CHUNK, rng))
    return Collected(cands, counts, seen["m2"], seen["scorer"], result.epsilon_lower_bound)


def replay(col: Collected, replicates: int = 100, seed: int = 0) -> tuple[np.ndarray, float]:
    """(the judge's pick's expected bound per replicate, the best candidate's): the best is
    the judge's pick on half the chunks (a judging sample several times the audit's), valued on
    the other half, both ways, and averaged. The largest of many noisy estimates would flatter
    it, and the largest raw estimate is a rare event's lucky count."""
    sc = col.scorer
    chunks = col.counts.shape[0]
    k = max(1, round(col.judged / CHUNK))
    fwd = np.array([c.forward for c in col.cands])
    where = {(c.pair_index, c.forward, repr(c.event)): j for j, c in enumerate(col.cands)}

    def value(counts: np.ndarray, m: int) -> np.ndarray:
        num = np.where(fwd, counts[:, 0], counts[:, 1]) / m
        den = np.where(fwd, counts[:, 1], counts[:, 0]) / m
        return np.asarray(expected_certified(num, den, sc.n, sc.a, sc.claim.statistic), float)

    total = col.counts.sum(axis=0)
    rng = np.random.default_rng(seed)
    picks = []
    for _ in range(replicates):
        part = rng.permutation(chunks)[:k]
        judged = col.counts[part].sum(axis=0)
        best = judge(col.cands, judged, k * CHUNK, sc)[0]
        j = where[(best.pair_index, best.forward, repr(best.event))]
        picks.append(value(total - judged, (chunks - k) * CHUNK)[j])
    half = chunks // 2
    first, second = col.counts[:half].sum(axis=0), col.counts[half : 2 * half].sum(axis=0)
    best = 0.0
    for chosen_on, valued_on in ((first, second), (second, first)):
        c = judge(col.cands, chosen_on, half * CHUNK, sc)[0]
        j = where[(c.pair_index, c.forward, repr(c.event))]
        best += value(valued_on, half * CHUNK)[j] / 2
    return np.array(picks), float(best)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.selection_loss")
    ap.add_argument("names", nargs="+", choices=sorted(CATALOGUE), metavar="NAME")
    ap.add_argument("--samples", type=float, default=1e6)
    ap.add_argument("--seed", type=int, default=2031)
    ap.add_argument("--truth", type=float, default=2e6)
    ap.add_argument("--replicates", type=int, default=100)
    args = ap.parse_args(argv)
    if not args.samples >= 1e4:
        ap.error(f"--samples {args.samples:g} is too few: use at least 1e4 per dataset")
    if not args.truth >= max(args.samples, 4 * CHUNK):
        ap.error(
            f"--truth {args.truth:g} is too few: use at least --samples and {4 * CHUNK} "
            "(the judging replays need fresh chunks beyond the audit's judging sample)"
        )
    if args.replicates < 1:
        ap.error(f"--replicates {args.replicates} must be at least 1")
    print(
        "| entry | seed | candidates | audit's bound | judge's pick (mean, sd) "
        "| best candidate | oracle | pick / best |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for name in args.names:
        col = collect(name, int(args.samples), args.seed, int(args.truth))
        picks, best = replay(col, args.replicates)
        oracle = oracle_bound(name, CATALOGUE[name].claimed_epsilon, col.scorer.n, col.scorer.a)
        share = picks.mean() / best if best > 0 else float("nan")
        print(
            f"| {name} | {args.seed} | {len(col.cands)} | {col.certified:.4f} "
            f"| {picks.mean():.4f} ({picks.std():.4f}) | {best:.4f} "
            f"| {'-' if oracle is None else f'{oracle:.4f}'} | {share:.2f} |",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
