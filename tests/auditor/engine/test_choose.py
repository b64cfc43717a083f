"""Which judged candidates are certified (K <= 2, decided on selection data only)."""

from __future__ import annotations

from auditor.engine.events import Identity, ScoreInterval
from auditor.engine.select import Candidate
from auditor.engine.session import choose


def _cand(pair: int, rank: float, plain: float, cut: float = 0.0) -> Candidate:
    ev = ScoreInterval(Identity(), cut, float("inf"))
    return Candidate(ev, True, rank, pair_index=pair, rank=rank, plain=plain)


def test_a_close_runner_up_on_another_pair_is_certified_too():
    # figures of a sparse vector audit: a lucky high-mass event on a worse pair ranks first
    lucky, best = _cand(3, 0.0859, 0.0963), _cand(4, 0.0819, 0.0969, cut=1.0)
    assert choose([lucky, best], 2) == [lucky, best]
    assert choose([lucky, best], 1) == [lucky]


def test_a_clearly_worse_runner_up_is_not_worth_a_wider_union_bound():
    first, far = _cand(0, 0.20, 0.21), _cand(1, 0.05, 0.07)
    assert choose([first, far], 2) == [first]


def test_a_runner_up_on_the_same_pair_is_not_added_by_the_pair_rule():
    first, same = _cand(0, 0.10, 0.11), _cand(0, 0.099, 0.109, cut=2.0)
    assert choose([first, same], 2) == [first]


def test_a_clearly_better_bold_event_is_certified_too():
    safe, bold = _cand(0, 0.10, 0.11), _cand(0, 0.05, 0.20, cut=3.0)
    assert choose([safe, bold], 2) == [safe, bold]
