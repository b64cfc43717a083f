"""The choice replay diagnostic (bench/choice_replay.py): its rules on known predictions, and
its replay of a small audit's own choice."""

from __future__ import annotations

from dataclasses import replace

import pytest

from auditor.engine.choice import choose
from auditor.engine.events import KeyFn, KeySet
from auditor.engine.select import Candidate
from bench.choice_replay import record, replay, rules, unshrunk, valued

Z_RANK, Z_PLAIN = 1.6448536, 0.9944579


def _cand(x: float, sd: float, family: str = "atoms", pair: int = 0, key: int = 1) -> Candidate:
    """A candidate whose judged value is x, its standard error sd."""
    return Candidate(
        KeySet(KeyFn(), (key,), (str(key),)),
        True,
        x - Z_RANK * sd,
        pair_index=pair,
        family=family,
        rank=x - Z_RANK * sd,
        plain=x - Z_PLAIN * sd,
    )


def test_unshrunk_undoes_the_judges_shrink():
    x, sd = unshrunk(_cand(0.05, 0.01))
    assert x == pytest.approx(0.05, abs=1e-6) and sd == pytest.approx(0.01, abs=1e-6)


def test_the_rules_rank_a_noisy_and_a_precise_candidate_differently():
    """Judged at 0.07 with sd 0.02 against 0.045 with sd 0.002: the judge's shrink and the
    family's prior (its twelve other members near 0.02) prefer the precise one, the milder and the
    unshrunk rules the noisy one. A candidate with no shrunk gain keeps its rank."""
    noisy, precise = _cand(0.07, 0.02, key=1), _cand(0.045, 0.002, key=2)
    others = [_cand(0.02 + 0.001 * (k % 6), 0.002, key=10 + k) for k in range(12)]
    lost = replace(_cand(0.01, 0.002, key=3), rank=-1000.0)
    ranked = rules([noisy, precise, *others, lost])
    best = {name: max(cs, key=lambda c: c.rank) for name, cs in ranked.items()}
    assert best["engine"].event == precise.event
    assert best["family EB"].event == precise.event
    assert best["plain"].event == noisy.event and best["unshrunk"].event == noisy.event
    assert all(cs[-1].rank == -1000.0 for cs in ranked.values())


def test_the_engine_rule_replays_the_audits_own_choice():
    """On a small sparse-vector audit, choose over the engine rule's ranking of the recorded
    candidates picks the events certified; they are among those valued, and the replay values
    every rule with as many events as choose may certify."""
    rec = record("svt1", 50_000, 2026)
    key = lambda c: (c.pair_index, c.forward, repr(c.event))
    ranked = rules(rec.cands)
    picked = choose(ranked["engine"], rec.k_max, rec.power)
    assert [key(c) for c in picked] == [key(c) for c in rec.out.chosen]
    pool = {key(c) for c in valued(ranked, rec.out.chosen)}
    assert {key(c) for c in rec.out.chosen} <= pool
    got = replay("svt1", rec, 2026, 200_000)
    assert set(got) == {"engine", "plain", "unshrunk", "family EB", "best single"}
    assert got["engine"][1] == len(rec.out.chosen)
    assert all(v >= 0 and 1 <= k <= rec.k_max for v, k in got.values())
