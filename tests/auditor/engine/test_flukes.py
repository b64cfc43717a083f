"""Lucky rare tails: among many candidate events, one judged on a few outputs can win the
ranking by chance; :func:`select.flukes` asks it to keep a gain at the Bonferroni shrink."""

from __future__ import annotations

import numpy as np

from auditor.engine.choice import choose
from auditor.engine.claims import PointClaim
from auditor.engine.events import FloatMultiple
from auditor.engine.select import Candidate, Scorer, flukes, judge

M2 = 150_000  # judging outputs per dataset
SCORER = Scorer(M2, 700_000, 0.025, PointClaim(0.1))


def _cands(k: int) -> list[Candidate]:
    return [Candidate(FloatMultiple(i), True, 0.0, family="f") for i in range(k)]


def _counts(rows: list[tuple[int, int]], fill: int) -> np.ndarray:
    """``rows`` first, then ``fill`` candidates of mass 5% and ratio 1.1 (a clear gain)."""
    rest = [(8250, 7500)] * fill
    return np.array(rows + rest, dtype=float)


def test_a_lucky_rare_tail_is_a_fluke_among_many_rivals_but_not_among_few():
    lucky = (55, 21)  # ln-ratio 0.96 at 3.75 standard errors
    many = _counts([lucky], 999)
    assert flukes(many[:, 0], many[:, 1], M2, SCORER)[0]
    few = _counts([lucky], 1)
    assert not flukes(few[:, 0], few[:, 1], M2, SCORER)[0]


def test_strong_rare_events_zero_probability_witnesses_and_common_events_are_not_flukes():
    rows = [(226, 40), (30, 0), (7725, 7500), (499, 400), (600, 400)]
    c = _counts(rows, 995)
    f = flukes(c[:, 0], c[:, 1], M2, SCORER)
    # strong (7.7 sigma); never seen under the other dataset; common; rare and weak;
    # as weak but seen often enough that its own shrink is trusted
    assert f[:5].tolist() == [False, False, False, True, False]


def test_judge_ranks_a_fluke_below_the_leader_and_choose_never_certifies_it():
    counts = _counts([(55, 21)], 999)
    judged = judge(_cands(1000), counts, M2, SCORER)
    fluke = next(c for c in judged if c.event == FloatMultiple(0))
    assert fluke.fluke and judged[0].event != fluke.event
    assert fluke.plain > max(c.plain for c in judged if not c.fluke)  # it would be the bold one
    chosen = choose(judged, 3)
    assert chosen and all(not c.fluke for c in chosen)
    # without rivals it is judged on its own shrink, and chosen
    alone = judge(_cands(2), _counts([(55, 21)], 1), M2, SCORER)
    assert not alone[0].fluke and alone[0].event == FloatMultiple(0)


def test_an_event_seen_under_the_other_dataset_when_built_is_no_zero_probability_witness():
    """A threshold tail judged 14 against 0 among many rivals is exempt as a possible
    zero-probability witness, unless its building sample had an output of the other dataset
    beyond its cut: that output proves the event's probability there above 0, and the
    Bonferroni test applies (the catalogue's Gaussian at 1e6 with 2e5 selection samples, seed
    2026: such a tail certified 0, the pick of the rule 0.237)."""
    c = _counts([(14, 0)], 99)
    seen = np.zeros(100, dtype=bool)
    assert not flukes(c[:, 0], c[:, 1], M2, SCORER, seen=seen)[0]
    seen[0] = True
    assert flukes(c[:, 0], c[:, 1], M2, SCORER, seen=seen)[0]
    # through judge: the counts it carries from the building sample decide
    from auditor.engine.events import Identity, ScoreInterval

    ev = ScoreInterval(Identity(), 38.5, np.inf)
    for built in ((3, 0, 50_000), (2, 1, 50_000)):  # under the pair's first, second dataset
        for forward in (True, False):  # the denominator: the second dataset, or the first
            tail = Candidate(ev, forward, 0.0, family="threshold tails", built=built)
            row = [(14, 0) if forward else (0, 14)]  # (counts under the first, the second)
            judged = judge([tail, *_cands(99)], _counts(row, 99), M2, SCORER)
            seen_there = built[1 if forward else 0] > 0
            assert next(j for j in judged if j.event == ev).fluke == seen_there


def test_the_fluke_rule_counts_the_rivals_of_every_pair(monkeypatch):
    """The choice takes the best candidate over every input pair, so a rare one is tested for
    luck among all of them, not its own pair's only (NumericalSVT at 1e7: a tail judged 61
    against 25 among its pair's 122 candidates passed, its true ratio 1.05; among the
    round's 1,097 it is a fluke). Each pair's judge gets the round's total of candidates
    that are no value tails, plus its own value tails (which judge leaves out itself)."""
    from auditor import audit
    from auditor.catalogue import CATALOGUE
    from auditor.engine import session
    from auditor.engine.select import value_tails

    calls: list[list[tuple[int, int, int, int]]] = []
    judged, real_judge = session.Session._judged, session.judge

    def rounds(self, r):
        calls.append([])
        return judged(self, r)

    def spy(cands, counts, m2, scorer, rivals=0):
        if cands:
            tails = int(value_tails(cands).sum())
            calls[-1].append((cands[0].pair_index, len(cands), tails, rivals))
        return real_judge(cands, counts, m2, scorer, rivals)

    monkeypatch.setattr(session.Session, "_judged", rounds)
    monkeypatch.setattr(session, "judge", spy)
    e = CATALOGUE["svt1"]
    audit(e.sampler(), e.pairs, epsilon=e.claimed_epsilon, samples=40_000, seed=3, workers=1)
    full = [c for c in calls if len({p for p, *_ in c}) > 1]
    assert full, calls
    for c in full:
        everyone = sum(k - tails for _, k, tails, _ in c)
        assert all(rivals == everyone + tails for _, _, tails, rivals in c), c
        # (the candidates of each pair: some of its own and its cross-fitted ones)
        assert everyone > max(k for _, k, _, _ in c)
