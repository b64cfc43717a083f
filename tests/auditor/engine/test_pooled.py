"""A pure claim's pooled joint bound (auditor.engine.stats, "Pooled"): an event and a partner
of the other direction counted on their disjoint differences. The partner is chosen on
selection data, the pooled counts are the recounted differences, a correct mechanism is
flagged no more often than the level allows, and a pooled witness replays and resumes."""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import replace
from pathlib import Path

import jsonschema
import numpy as np
import pytest

from auditor import audit, replay
from auditor.engine.choice import partner, pooled_pair
from auditor.engine.events import (
    Difference,
    Identity,
    KeyFn,
    KeySet,
    ScoreInterval,
    Vote,
    event_from_state,
    event_state,
    event_to_dict,
)
from auditor.engine.executors import count_events
from auditor.engine.select import Candidate
from auditor.engine.stats import prefix_mean, ratio_lower

ROOT = Path(__file__).resolve().parents[3]


def _rr(eps: float):
    """Randomized response on one bit: the truth with probability e^eps / (1 + e^eps)."""
    keep = math.exp(eps) / (1 + math.exp(eps))

    def mech(data, size, rng):
        flip = rng.random(size) >= keep
        return np.where(flip, 1 - int(data), int(data))

    return mech


def _laplace(scale: float):
    def mech(data, size, rng):
        return float(data) + rng.laplace(0.0, scale, size)

    return mech


def test_a_difference_counts_its_part_and_round_trips():
    y = np.arange(-5.0, 6.0)
    keep = ScoreInterval(Identity(), -math.inf, 2.0)
    drop = KeySet(KeyFn(), (-1.0, 0.0, 7.0), ("-1", "0", "7"))
    d = Difference(keep, drop)
    assert list(d.contains(y)) == [v <= 2 and v not in (-1, 0) for v in y]
    assert list(count_events([keep, d, drop, Difference(drop, keep)], y)) == [8, 6, 2, 0]
    assert event_from_state(json.loads(json.dumps(event_state(d)))) == d
    spec = event_to_dict(d)
    assert spec["type"] == "Difference" and spec["drop"]["values"] == ["-1", "0", "7"]
    assert "and not" in d.describe()


def _cand(forward, share, rank=0.05, pair=0, t=0.0, fluke=False, plain=0.05):
    event = (
        ScoreInterval(Identity(), t, math.inf)
        if forward
        else ScoreInterval(Identity(), -math.inf, t)
    )
    return Candidate(event, forward, plain, pair, "threshold", rank, plain, fluke, share)


def test_the_partner_is_the_other_directions_best_with_a_real_gain_and_room():
    n, level = 700_000, 0.045
    c = _cand(True, (0.030, 0.027))
    mirror = _cand(False, (0.030, 0.027), t=-1.0)
    weaker = _cand(False, (0.030, 0.0295), rank=0.01, t=-2.0)
    assert partner(c, [c, weaker, mirror], n, level) == mirror
    # the other direction's best by rank, not the best pooled prediction
    assert partner(c, [c, replace_rank(weaker, 0.06), mirror], n, level) is None
    # no shrunk gain (ranked at plain - 1e3), a fluke, another pair, the same direction
    assert partner(c, [c, _cand(False, (0.03, 0.027), rank=-1e3, t=-1)], n, level) is None
    assert partner(c, [c, _cand(False, (0.03, 0.027), t=-1, fluke=True)], n, level) is None
    assert partner(c, [c, _cand(False, (0.03, 0.027), pair=1, t=-1)], n, level) is None
    assert partner(c, [c, _cand(True, (0.03, 0.027), t=1)], n, level) is None
    # probabilities that cannot belong to disjoint events
    wide = _cand(True, (0.6, 0.5))
    assert partner(wide, [wide, _cand(False, (0.55, 0.45), t=-1)], n, level) is None
    # not judged (cross-fitted: NaN shares)
    assert partner(_cand(True, (math.nan, math.nan)), [mirror], n, level) is None


def replace_rank(c, rank):
    from dataclasses import replace

    return replace(c, rank=rank)


def test_a_pooled_bound_is_predicted_better_only_when_it_is():
    lam = prefix_mean(700_000)
    own, pooled = ratio_lower(lam * np.array([0.03, 0.06]), lam * np.array([0.027, 0.054]), 0.045)
    assert pooled > own  # twice the counts at the same ratio
    diluted = ratio_lower(lam * 0.06, lam * (0.027 + 0.03), 0.045)
    assert diluted < own  # a partner with no lean dilutes the ratio


def test_a_symmetric_mechanism_is_mostly_certified_pooled():
    """Laplace at 0 vs 1 is its own mirror image (y -> 1 - y): the witness pools its event
    with the other direction's on most seeds (not all: where the event leads by a clearly
    better judged ratio, its own bound is predicted better), and both parts lean their own
    way."""
    pooled = 0
    for seed in range(1, 6):
        r = audit(
            _laplace(10.0),
            [(0, 1)],
            epsilon=0.05,
            samples=200_000,
            seed=seed,
            progress=False,
            workers=1,
            semantics="ideal",
        )
        ratio = r.witness.ratio
        assert 0.04 < r.epsilon_lower_bound <= 0.1  # the truth: 0.1
        if "pooled" not in ratio:
            continue
        pooled += 1
        both = ratio["pooled"]
        (e_num, e_den), (f_num, f_den) = both["counts_event_only"], both["counts_partner_only"]
        assert ratio["count_numerator"] == e_num + f_num
        assert ratio["count_denominator"] == e_den + f_den
        assert e_num > e_den and f_num > f_den
        assert r.epsilon_lower_bound == pytest.approx(ratio["epsilon_lower_bound"])
    assert pooled >= 3


def test_pooling_keeps_false_alarms_within_the_level():
    """Randomized response at exactly its claim (every event's ratio is e^eps or 1): over 60
    seeds at confidence 0.8 the violation rate stays within the level (expected at most 12;
    P[Binomial(60, 0.2) >= 22] < 0.5%), and the audits did pool (its events are their own
    mirror images)."""
    flags = pooled = 0
    for seed in range(60):
        r = audit(
            _rr(0.5),
            [(0, 1)],
            epsilon=0.5,
            samples=4_000,
            confidence=0.8,
            seed=seed,
            progress=False,
            workers=1,
        )
        flags += r.violation
        pooled += "pooled" in (r.witness.ratio or {})
    assert flags < 22 and pooled >= 50, (flags, pooled)


def _leaky_laplace():
    """Laplace of scale 10 (0.1-DP) audited against a claim of 0.02: a pooled violation."""
    return audit(
        _laplace(10.0),
        [(0, 1)],
        epsilon=0.02,
        samples=200_000,
        seed=4,
        progress=False,
        semantics="ideal",
    )


def test_a_pooled_witness_replays_pooled(tmp_path):
    r = _leaky_laplace()
    assert r.violation and "pooled" in r.witness.ratio
    path = tmp_path / "r.json"
    path.write_text(json.dumps(r.to_dict(), allow_nan=False))
    schema = json.loads((ROOT / "auditor" / "schemas" / "audit.schema.json").read_text())
    jsonschema.Draft202012Validator(schema).validate(json.loads(path.read_text()))
    again = replay(path, _laplace(10.0))
    got = again.ratio["pooled"]
    assert again.ratio["count_numerator"] == sum(
        x[0] for x in (got["counts_event_only"], got["counts_partner_only"])
    )
    assert again.violation and abs(again.epsilon_lower_bound - r.epsilon_lower_bound) < 0.05
    assert "pooled with the other direction" in again.summary()


def test_an_edited_partner_is_refused(tmp_path):
    from proofs.errors import InputError

    r = _leaky_laplace()
    d = r.to_dict()
    d["witness"]["ratio_bound"]["pooled"]["partner_event_state"]["hi"] = 99.0
    with pytest.raises(InputError, match="partner_event_state and its spec disagree"):
        replay(d, _laplace(10.0))


def _pooled_audit(**kw):
    return audit(_rr(0.5), [(0, 1)], epsilon=0.5, samples=400_000, seed=9, workers=1, **kw)


def _without_seconds(r):
    d = r.to_dict()
    d.pop("seconds")
    return d


def test_a_checkpoint_resumes_with_its_partners(tmp_path, monkeypatch):
    """Interrupted during certification, the audit resumes to the uninterrupted result (the
    partner comes back from the checkpoint); a checkpoint written before pooling existed
    (no "partners") resumes without pooling."""
    from auditor.engine import session
    from auditor.engine.progress import Progress

    plain = _pooled_audit()
    assert "pooled" in plain.witness.ratio

    class Interrupted(Progress):  # Ctrl-C after a few certification chunks
        def __init__(self, total, label="certifying", **kw):
            super().__init__(total, label, **kw)
            self.left = 3 if label == "certifying" else None

        def update(self, k):
            if self.left is not None:
                self.left -= 1
                if self.left < 0:
                    raise KeyboardInterrupt
            super().update(k)

    monkeypatch.setattr(session, "Progress", Interrupted)
    ck = tmp_path / "a.ckpt"
    with pytest.raises(KeyboardInterrupt):
        _pooled_audit(checkpoint=ck)
    monkeypatch.setattr(session, "Progress", Progress)
    doc = json.loads(ck.read_text())
    assert doc["state"]["partners"][0] is not None and doc["state"]["certify"]["done"] > 0
    assert _without_seconds(_pooled_audit(checkpoint=ck)) == _without_seconds(plain)
    # before pooling: no partners, and the counts of the chosen events alone
    doc["state"].pop("partners")
    cert = doc["state"]["certify"]
    cert.update(done=0, next_look=0, p=1.0, reported=None, stop=None)
    cert["counts"] = [[0, 0]]
    cert["prefix"] = [[[0, 0]] for _ in doc["state"]["certify"]["prefix"]]
    text = json.dumps([doc["identity"], doc["state"]], sort_keys=True)  # (checkpoint._digest)
    doc["digest"] = hashlib.sha256(text.encode()).hexdigest()
    ck.write_text(json.dumps(doc))
    old = _pooled_audit(checkpoint=ck)
    assert old.witness.ratio is not None and "pooled" not in old.witness.ratio


def _textbook_laplace(data, size, rng):
    """Laplace of scale 10 on doubles: 0.1-DP as a real-number mechanism, but its low bits
    tell 0 + noise from 1 + noise."""
    return float(data) + rng.laplace(0.0, 10.0, size)


def test_a_bit_leak_is_not_pooled_into_a_distributional_violation():
    """The distributional event certified beside float events (choice.choose) says whether the
    mechanism also leaks as a distribution; pooled with a float event of the other direction
    (counts like 199 against 0) it passed the claim on the bit leak and was reported as a
    distributional violation, on 6 seeds in 10. A partner is of its event's kind."""
    for seed in (1, 2, 3):
        r = audit(
            _textbook_laplace,
            [(0, 1)],
            epsilon=0.1,
            samples=100_000,
            seed=seed,
            early_stop=False,
            progress=False,
            workers=1,
        )
        assert r.violation and r.violation_kinds == ("float-representation",), seed


def _count_tails(fitted: dict[int, tuple[float, float]], forward: bool, rank_of) -> list:
    """Tails of one count score (a 20-coordinate vote, weights -1): ``score > -k - 0.5`` in
    the forward direction (at most k coordinates above their cuts), ``score <= -(20 - k) + 0.5``
    in the other, with the given fitted fractions (numerator, denominator) by k."""
    score = Vote(tuple([0.5] * 20), tuple([-1.0] * 20))
    out = []
    for k, f in fitted.items():
        ev = (
            ScoreInterval(score, -k - 0.5, math.inf)
            if forward
            else ScoreInterval(score, -math.inf, -(20 - k) + 0.5)
        )
        r = rank_of(k)
        out.append(
            Candidate(ev, forward, r, family="count tails", rank=r, plain=r, share=f, fitted=f)
        )
    return out


def _binomial_tails(z: float = 0.3, m: int = 150_000) -> dict[int, tuple[float, float]]:
    """P[at most k of 20 coordinates above 0.5] under Laplace(0, 200) and Laplace(1, 200)
    noise (LaplaceParallel, 20 x eps/20 at eps 0.1), each log-ratio shrunk by ``z`` of a
    standard error half that of its own counts on ``m`` outputs (a fitted model's: rarer
    tails shrink most). A symmetric mechanism: the other direction's tails are alike."""
    from scipy import stats

    up0, up1 = 0.5 * math.exp(-0.5 / 200), 1 - 0.5 * math.exp(-0.5 / 200)
    out = {}
    for k in (4, 5, 6, 7):
        p, q = float(stats.binom.cdf(k, 20, up0)), float(stats.binom.cdf(k, 20, up1))
        se = 0.5 * math.sqrt(1 / (m * p) + 1 / (m * q))
        out[k] = (p * math.exp(-z * se / 2), q * math.exp(z * se / 2))
    return out


def test_a_modelled_tail_is_pooled_with_the_pair_of_tails_that_predicts_best():
    # at 700k samples per dataset, "at most 6" has the best single bound (ranked first) but
    # "at most 5" with its mirror image the best pooled one (0.0355 against 0.0341)
    f = _binomial_tails()
    n, level = 700_000, 0.045
    lam = prefix_mean(n)

    def single(k):
        return float(ratio_lower(lam * f[k][0], lam * f[k][1], level))

    assert max(f, key=single) == 6
    fwd = _count_tails(f, True, single)
    bwd = _count_tails(f, False, single)
    cands = fwd + bwd
    c = max(fwd, key=lambda x: x.rank)
    d = partner(c, cands, n, level)
    assert d is not None and d.event.hi == -13.5  # the mirror of "at most 6"
    c2, d2 = pooled_pair(replace(c, weight=0.7), d, cands, n, level)
    assert c2.event.lo == -5.5 and d2 is not None and d2.event.hi == -14.5
    assert c2.weight == 0.7  # (its share of the level is the replaced event's)

    def pooled(x, y):
        return float(ratio_lower(lam * (x[0] + y[0]), lam * (x[1] + y[1]), level))

    assert pooled(f[5], f[5]) > pooled(f[6], f[6]) + 0.001


def test_no_pooled_pair_is_chosen_from_tails_judged_on_their_own_counts_or_overlapping():
    f = _binomial_tails()
    n, level = 700_000, 0.045
    fwd = _count_tails(f, True, lambda k: -k)
    bwd = _count_tails(f, False, lambda k: -k)
    c, d = fwd[2], bwd[2]  # "at most 6" and its mirror
    # c judged on its own counts (no model): kept, with its partner
    own = replace(c, fitted=None)
    assert pooled_pair(own, d, [own] + fwd[:2] + bwd, n, level) == (own, d)
    # a partner judged on its own counts: kept
    loose = replace(d, fitted=None)
    assert pooled_pair(c, loose, fwd + [loose], n, level) == (c, loose)
    # the other direction's tails all overlap c's: c keeps its partner, or stands alone
    wide = [replace(x, event=ScoreInterval(x.event.score, -math.inf, -2.5)) for x in bwd]
    assert pooled_pair(c, None, fwd + wide, n, level) == (c, None)
    # with disjoint tails, one that partner() declined still gets the best pair
    out, mate = pooled_pair(c, None, fwd + bwd, n, level)
    assert (out.event.lo, mate.event.hi) == (-5.5, -14.5)


def test_two_chosen_tails_of_one_score_are_not_both_moved_to_one_pooled_pair():
    """Chosen "at most 6" forward and its mirror backward both lead to the best pair ("at most
    5" with its mirror): the first moves, the second would certify the same sums again on
    another share of the level, so it stays."""
    from auditor.engine.choice import pooled_pairs

    f = _binomial_tails()
    n, level = 700_000, 0.045
    fwd = _count_tails(f, True, lambda k: -k)
    bwd = _count_tails(f, False, lambda k: -k)
    chosen, partners = pooled_pairs([fwd[2], bwd[2]], [bwd[2], fwd[2]], fwd + bwd, n, [level] * 2)
    assert (chosen[0].event.lo, partners[0].event.hi) == (-5.5, -14.5)
    assert (chosen[1], partners[1]) == (bwd[2], fwd[2])


def test_what_a_pooled_audit_could_have_caught_counts_both_parts():
    """A correct Laplace (0.1-DP) at its claim, certified pooled: the detectable epsilon the
    verdict states is that of the pooled counts, below what its event alone could reveal
    even at the most generous levels (0.1143 at 0.05 for both bounds; 0.1153 at the audit's);
    and one part equal to the event's own counts is the event alone."""
    from auditor.engine.claims import PointClaim
    from auditor.engine.stats import detectable

    r = audit(
        _laplace(10.0),
        [(0, 1)],
        epsilon=0.1,
        samples=200_000,
        seed=1,
        progress=False,
        workers=1,
        semantics="ideal",
    )
    assert r.verdict == "no violation found" and "pooled" in r.witness.ratio
    w = r.witness
    kn, kd, n = w.count_numerator, w.count_denominator, w.certification_samples
    judge = PointClaim(0.1, 0.0).detection((kd + 0.5) / n)
    alone = detectable(kd, n, 0.05, judge, k_num=kn, joint_level=0.05)
    assert r.epsilon_lower_bound < r.detectable_epsilon < alone - 0.002
    same = detectable(kd, n, 0.0125, judge, k_num=kn, joint_level=0.04, joint_parts=[(kd, kn)])
    assert same == detectable(kd, n, 0.0125, judge, k_num=kn, joint_level=0.04)
