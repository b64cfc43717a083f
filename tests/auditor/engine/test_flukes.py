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
