"""Which judged candidates are certified (K <= 3, decided on selection data only)."""

from __future__ import annotations

from auditor.engine.choice import choose
from auditor.engine.events import Identity, ScoreInterval
from auditor.engine.select import Candidate


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


def test_another_pairs_rare_event_is_picked_by_its_milder_prediction():
    # figures of an SVT1 audit at 1e6: the conservative rank shrinks the best pair's rare
    # pattern (expected bound 0.059) below a third pair's common event (expected 0.024)
    first, common, rare = (
        _cand(3, 0.0306, 0.0371),
        _cand(2, 0.0156, 0.0201),
        _cand(7, 0.0127, 0.0295),
    )
    assert choose([first, common, rare], 3) == [first, rare]
    assert choose([first, common], 3) == [first]  # the common one cannot reach the first
    assert choose([first, common, rare], 1) == [first]


def test_a_bold_event_and_another_pairs_event_are_both_certified_up_to_k_max():
    first, bold = _cand(0, 0.10, 0.11), _cand(0, 0.05, 0.20, cut=3.0)
    other = _cand(1, 0.09, 0.105, cut=4.0)
    assert choose([first, bold, other], 3) == [first, bold, other]
    assert choose([first, bold, other], 2) == [first, bold]


def test_the_pair_rule_never_certifies_the_bold_event_twice():
    first, bold = _cand(0, 0.10, 0.11), _cand(1, 0.08, 0.20, cut=3.0)
    assert choose([first, bold], 3) == [first, bold]


def test_a_learned_witness_gets_a_simple_event_within_five_percent():
    from dataclasses import replace

    from auditor.engine.choice import simplest

    learned = replace(_cand(0, 0.10, 0.20), family="classifier")
    near = replace(_cand(0, 0.09, 0.192, cut=1.0), family="coordinate")
    far = replace(_cand(0, 0.09, 0.18, cut=2.0), family="coordinate")
    other_pair = replace(_cand(1, 0.09, 0.199, cut=3.0), family="atoms")
    assert simplest([learned, near, far, other_pair], learned) is near
    assert simplest([learned, far], learned) is None
    assert simplest([near], replace(near, family="threshold")) is None  # already simple


def test_the_audit_reports_the_simple_event_in_words():
    from auditor import audit
    from auditor.catalogue import get

    entry = get("noisy_hist2")
    # a learned witness and simple coordinate events beside it (with every family, a
    # histogram's cells may win instead)
    fams = ("classifier", "coordinate")
    r = audit(entry.sampler(), entry.pairs, epsilon=0.1, samples=200_000, seed=1, families=fams)
    assert "logistic" in r.witness.event and r.witness.simple_event.startswith("y[0] >")
    assert "in words: y[0] >" in r.summary() and "not certified" in r.witness.simple_event
