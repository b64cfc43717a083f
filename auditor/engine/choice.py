"""Which judged candidate events are certified (:func:`choose`), what certification ended with
(:class:`Outcome`), and a learned witness's simple stand-in in words (:func:`simplest`)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from auditor.engine.events import ScoreInterval
from auditor.engine.select import MEDIAN, Candidate
from auditor.engine.stats import detectable, prefix_mean, ratio_lower

__all__ = [
    "Outcome",
    "Power",
    "choose",
    "conclusive",
    "partner",
    "pooled_pair",
    "pooled_pairs",
    "power_of",
    "shares",
    "simplest",
]

# a candidate's rank and plain predictions shrink each count by 1.645 and 0.994 sigmas (levels
# 0.05 and 0.16, select.py): their gap over this is about one sd of the log-ratio estimate
SHRINK_GAP = (1.645 - 0.994) * math.sqrt(2)


EPSILON_FLOOR = 0.01  # a claim of epsilon 0 is judged as if it were this


def power_of(
    claim: Any,
    k_den: int,
    k_num: int,
    n: int,
    a: float,
    joint_level: float | None = None,
    joint_parts: list[tuple[int, int]] | None = None,
) -> tuple[float, Any]:
    """What an event with these counts on ``n`` samples per dataset would reveal, bounds at
    level ``a``: the smallest true strength it certifies above ``claim`` with probability 1/2
    (:func:`auditor.engine.stats.detectable`), and the claim in whose unit that is.
    ``joint_parts``: a pooled pair's parts, (denominator, numerator) counts each, whose sums
    its joint bound counts."""
    judge = claim.detection((k_den + 0.5) / n)
    got = detectable(
        k_den, n, a, judge, k_num=k_num, joint_level=joint_level, joint_parts=joint_parts
    )
    return got, judge


def conclusive(detect: float, judge: Any, factor: float) -> bool:
    """Would an audit that detects strength ``detect`` (in ``judge``'s unit) have caught a
    mechanism ``factor`` times leakier than claimed?"""
    limit = factor * max(float(judge.scale), EPSILON_FLOOR)
    # (an event where the claimed curve is 0 reads the profile as mu = inf: no finite limit,
    # and an audit that detects nothing has no power whatever the limit)
    return detect <= limit and math.isfinite(detect)


@dataclass(frozen=True, slots=True)
class Power:
    """What an event can promise when it certifies nothing: the smallest true strength it
    would reveal on the ``n`` certification samples at per-bound level ``a``
    (:func:`power_of`, the figure a "no violation found" verdict states), from its judged
    probabilities. ``inf`` when it could reveal nothing. ``factor``: the audit's
    ``inconclusive_factor`` (:meth:`conclusive`). ``joint_level``: a pure claim's joint ratio
    bound's level (None: no joint bound), so an event's power is judged as the verdict judges
    it (:mod:`auditor.engine.run`); judged on the split bounds alone, a pure claim's events
    seemed powerless where the joint bound made them conclusive, and a power event was
    certified beside them, splitting the level for nothing."""

    n: int
    a: float
    claim: Any
    factor: float = 2.0
    joint_level: float | None = None

    def __call__(self, c: Candidate) -> float:
        return self._of(c)[0]

    def _of(self, c: Candidate) -> tuple[float, Any]:
        p, q = c.share
        if not (0 <= p <= 1 and 0 <= q <= 1) or self.n <= 0:
            return math.inf, self.claim.detection(0.5)
        k_den, k_num = round(q * self.n), round(p * self.n)
        return power_of(self.claim, k_den, k_num, self.n, self.a, self.joint_level)

    def among(self, k: int) -> Power:
        """The power of one of ``k`` events certified together: each gets 1/k of every
        bound's level, the joint ratio bound's too."""
        joint = None if self.joint_level is None else self.joint_level / k
        return replace(self, a=self.a / k, joint_level=joint)

    def conclusive(self, c: Candidate) -> bool:
        """Would ``c`` alone, certified at this level, have caught a mechanism ``factor``
        times leakier than claimed (the verdict's test: auditor.engine.run)?"""
        return conclusive(*self._of(c), self.factor)


def _key(c: Candidate) -> tuple:
    """A candidate's identity: its pair, orientation and event."""
    return (c.pair_index, c.forward, repr(c.event))


POWER_BINS = 24  # judged probabilities binned on the logit scale: one contender per bin
FLUKE_SHARE = 0.1  # of the level, what a rare event certified beside a real gain gets


def shares(chosen: list[Candidate]) -> np.ndarray:
    """Each chosen event's share of the level, times K: all ones when the K events split it
    evenly. The weights are fixed on selection data, so the weighted union bound (event j's
    two bounds at level ``a * shares[j]``, with ``a`` the even split's) still sums to the
    audit's level."""
    w = np.array([c.weight for c in chosen], dtype=float)
    return w * (len(w) / w.sum()) if len(w) else w


def choose(cands: list[Candidate], k_max: int, power: Power | None = None) -> list[Candidate]:
    """The best event by the conservative (1.6-sigma shrunk) prediction, and up to two more
    (K <= 3, at most ``k_max``) when they may be better after all:

    - a different event clearly best by the milder 1-sigma prediction (typically a rarer,
      higher-ratio one);
    - the best event of another input pair by the milder prediction, when that prediction,
      two sigmas up, reaches the first one's: among many candidates judged on a finite
      sample, a high-mass event on a worse pair often outranks the best pair's rarer event by
      a lucky draw (sparse vector: 0.09 against 0.135), and certifying both settles it on
      fresh data. The milder prediction picks it because the conservative one shrinks a
      rare event most (SVT1 at 1e6: the best pair's output pattern of mass 4%, expected
      bound 0.059, ranked 0.013, below another pair's event of mass 22%, expected 0.029).

    When the chosen events are all floating-point ones (the bit pattern of the output), the
    best distributional event joins them, so a scale bug in a float sampler is reported as
    both kinds of violation.

    When no event has a real gain and none plausibly exceeds the claim (a correct mechanism,
    or one too close to its claim for this sample), the ranking is noise: the best of many
    noisy predictions is a tail event seen a few times or an event of almost every output,
    and certifying it says nothing (inconclusive). Then, given ``power``, the one event
    chosen is the one that would reveal the smallest violation (:class:`Power`): the verdict
    "no violation found" can then state what it would have caught. A fluke (a rare event
    judged on a few outputs) whose milder prediction alone exceeds the claim is certified
    beside it, or beside a leading median cut: it may be a rare leak.

    When the events chosen could not reveal a mechanism twice as leaky as claimed (a rare
    event, or one of almost every output, leading by a small gain, or a fluke predicted above
    the claim with no gain behind it: the audit would end inconclusive) and no real gain
    predicts a violation, the most powerful event joins them if it could
    (:func:`_power_event`).

    A candidate offered as a zero-probability witness only (``unseen``) takes no part in any
    of this: it joins through :func:`_zero_witness` alone.

    K is decided on selection data only, so the union bound over 2K certified bounds is valid.
    """
    offered = cands
    cands = [c for c in cands if not c.unseen]
    chosen = _choose(cands, k_max, power)
    lucky = max((c for c in cands if c.fluke), key=lambda c: c.plain, default=None)
    if (
        power is not None
        and lucky is not None
        and 0 < len(chosen) < k_max
        and (chosen[0].rank < chosen[0].plain - 1e2 or chosen[0].family == MEDIAN)
        and lucky.plain > power.claim.threshold >= max(c.plain for c in chosen)
    ):
        # the most powerful event is no rare one; but where a rare draw ruled a fluke alone
        # may exceed the claim and what leads is a weak signal's pick, it may be a rare
        # leak: fresh samples settle it
        chosen.append(lucky)
    elif (
        power is not None
        and lucky is not None
        and 0 < len(chosen) < k_max
        and lucky.plain > power.claim.threshold >= max(c.plain for c in chosen)
    ):
        # what leads has a real gain but cannot reach the claim (a mechanism near its claim),
        # while a rare event may exceed it: a rare leak beside a tight mechanism (a sentinel
        # output 4 times likelier under one dataset, 36 against 12 judged outputs, was ruled
        # a fluke among a thousand candidates and the audit said "no violation found" on 8
        # seeds in 40). It is certified on a small share of the level, so the leader keeps
        # most of its own
        total = sum(c.weight for c in chosen)
        chosen.append(replace(lucky, weight=total * FLUKE_SHARE / (1 - FLUKE_SHARE)))
    if power is not None and 0 < len(chosen) < k_max:
        extra = _power_event(cands, chosen, power)
        if extra is not None:
            chosen.append(extra)
    if chosen and all(c.family == "float" for c in chosen):
        real = [c for c in cands if c.family != "float" and c.rank > c.plain - 1e2]
        if real:
            chosen.append(max(real, key=lambda c: c.rank))
    # (after the float rule: an offered atom is no distributional event of the choice)
    if power is not None and 0 < len(chosen) < k_max:
        zero = _zero_witness(offered, chosen, power)
        if zero is not None:
            # certified on a small share of the level, as a fluke beside a real gain
            total = sum(c.weight for c in chosen)
            chosen.append(replace(zero, weight=total * FLUKE_SHARE / (1 - FLUKE_SHARE)))
    return chosen


def _zero_witness(
    cands: list[Candidate], chosen: list[Candidate], power: Power
) -> Candidate | None:
    """The candidate zero-probability witness (never seen under its denominator, on the
    building and the judging sample) that would certify the most if that probability were
    0 (:attr:`Candidate.zero`), when that exceeds the claim and every chosen event's milder
    prediction: a rare leak judged on a few outputs (a sentinel output of probability 1e-4
    under one dataset: 5 judged outputs, a prediction of 0.43 below the noise's 0.5, against
    about 3 certified on 900,000 fresh outputs). None otherwise (where the chosen events
    already predict more, it would only split the level)."""
    bar = max(power.claim.threshold, *(c.plain for c in chosen))
    taken = {_key(c) for c in chosen}
    return max(
        (c for c in cands if c.zero > bar and _key(c) not in taken),
        key=lambda c: c.zero,
        default=None,
    )


def _choose(cands: list[Candidate], k_max: int, power: Power | None) -> list[Candidate]:
    if not cands:
        return []
    first = max(cands, key=lambda c: c.rank)
    if power is not None and first.rank < first.plain - 1e2:  # no real gain anywhere
        quiet = [c.plain for c in cands if not c.fluke]  # (a fluke's is a lucky draw's)
        if max(quiet, default=-math.inf) <= power.claim.threshold:
            return [_most_powerful(_leaning(cands), power) or first]
    bold = max((c for c in cands if not c.fluke), key=lambda c: c.plain, default=first)
    if k_max < 2:
        return [first]
    chosen = [first]
    # another event costs a wider union bound: only worth it when it may well be better
    # (one judged the same counts as the first is the same set of outputs under another
    # name, as a box around a naive-Bayes score's top level: certifying it again would only
    # split the level)
    if (
        _key(bold) != _key(first)
        and not _same_counts(bold, first)
        and bold.plain > first.plain + 0.03 * abs(first.plain)
    ):
        chosen.append(bold)
    # (a candidate with no shrunk gain ranks at its plain prediction - 1e3: see select.judge)
    others = [
        c
        for c in cands
        if c.pair_index != first.pair_index and c.rank > c.plain - 1e2 and not c.fluke
    ]
    if others and len(chosen) < k_max:
        runner = max(others, key=lambda c: c.plain)
        sigma = (runner.plain - runner.rank) / SHRINK_GAP
        new = all(_key(runner) != _key(c) for c in chosen)
        if new and runner.rank > 0 and runner.plain + 2 * sigma >= first.plain:
            chosen.append(runner)
    return chosen


def _same_counts(c: Candidate, d: Candidate) -> bool:
    """Did both count the same outputs of the judging sample (their own counts, a
    cross-fitted event's in-sample ones)? Two sets of one pair that do are almost surely one."""
    a, b = _own(c), _own(d)
    return c.pair_index == d.pair_index and a is not None and a == b


def _own(c: Candidate) -> tuple[float, float] | None:
    if all(math.isfinite(x) for x in c.share):
        return tuple(c.share)
    return None if c.own is None else tuple(c.own)


def partner(c: Candidate, cands: list[Candidate], n: int, level: float) -> Candidate | None:
    """For a pure claim: the event to pool with the chosen ``c`` in its joint ratio bound
    (auditor.engine.stats, "Pooled"), or None. It is the best-ranked candidate of c's pair in
    the other direction and of the same kind (both on the output's floating-point bits, or
    neither), with a real gain (a shrunk prediction above the gain floor, not a fluke), whose
    judged probabilities leave room for it to be disjoint from c's event; and only when the
    pooled bound, predicted from both events' judged probabilities at the level ``level`` on
    ``n`` certification samples (the partner's ratio one sd up), beats c's own joint bound.
    Where the mechanism is symmetric (Laplace noise on a sum, randomized response) the partner
    is c's mirror image and the pooled counts are twice c's: the ratio bound's margin shrinks
    by about sqrt(2). Decided on selection data only."""
    p1, q1 = c.share
    if not (0 <= p1 <= 1 and 0 <= q1 <= 1):
        return None
    rivals = [
        d
        for d in cands
        if d.pair_index == c.pair_index
        and d.forward != c.forward
        # (an event on a double's bits beside one on its value would make the pooled bound's
        # violation a bit leak reported as a distributional one: run._kind)
        and (d.family == "float") == (c.family == "float")
        and d.rank > d.plain - 1e2  # (no shrunk gain: ranked at plain - 1e3, see select.judge)
        and not d.fluke
        and all(0 <= x <= 1 for x in d.share)
        and repr(d.event) != repr(c.event)
    ]
    if not rivals:
        return None
    d = max(rivals, key=lambda x: x.rank)
    p2, q2 = d.share  # (its numerator is c's denominator dataset)
    if p1 + q2 > 1 + 1e-9 or q1 + p2 > 1 + 1e-9:  # they overlap (complements sum to 1)
        return None
    # c leads every candidate of both directions, so its judged ratio is the likelier to be
    # a lucky draw: the partner's is judged one sd up (SHRINK_GAP) against it. A mirror
    # image (the same true ratio) is then pooled unless it judged clearly worse.
    sd = max((d.plain - d.rank) / SHRINK_GAP, 0.0) if math.isfinite(d.plain - d.rank) else 0.0
    p2, q2 = min(p2 * math.exp(sd / 2), 1.0), q2 * math.exp(-sd / 2)
    lam = prefix_mean(n)
    own, pooled = ratio_lower(lam * np.array([p1, p1 + p2]), lam * np.array([q1, q1 + q2]), level)
    return d if pooled > own else None


def pooled_pair(
    c: Candidate, d: Candidate | None, cands: list[Candidate], n: int, level: float
) -> tuple[Candidate, Candidate | None]:
    """For a pure claim whose chosen ``c`` is a modelled tail (:mod:`count_tails`): the tail
    of c's score and direction, and the disjoint tail of that score in the other direction
    to pool with it, whose pooled bound (:func:`partner`'s prediction, both tails' fitted
    fractions) is the largest, where that beats c with its partner ``d`` (or alone); else
    ``(c, d)``. A partner of another score, or judged on its own counts, is kept: its
    prediction is on another scale.

    Ranked alone, c is the tail of the best single bound; pooled, the best tail is rarer,
    for the partner's outputs double its counts where the mechanism is symmetric. On a
    parallel composition (LaplaceParallel, 20 x eps/20, at 1e6 per dataset) the tails
    ``count <= 5`` and ``<= 6`` have single bounds 0.0335 and 0.0329 but pooled with their
    mirror images 0.0394 and 0.0364, and the judge picked the second on most seeds. Every
    prediction here comes from the fitted models, one slope per model, shrunk as the
    candidates' ranks are: no best-of-many draw. Decided on selection data only."""
    if c.fitted is None or not isinstance(c.event, ScoreInterval):
        return c, d

    def tails(forward: bool) -> list[Candidate]:
        return [
            x
            for x in cands
            if x.fitted is not None
            and x.pair_index == c.pair_index
            and x.forward == forward
            and isinstance(x.event, ScoreInterval)
            and x.event.score == c.event.score
            and (x.family == "float") == (c.family == "float")
            and x.rank > x.plain - 1e2
            and not x.fluke
        ]

    mates = tails(not c.forward)
    if d is not None and not any(d is y for y in mates):
        return c, d  # (a partner of another score, or judged on its own counts: no common scale)
    own = [c] + [x for x in tails(c.forward) if repr(x.event) != repr(c.event)]
    # (another tail alone is no candidate: c leads the single tails)
    pairs = [(c, d)] + [(x, y) for x in own for y in mates if _apart(x.event, y.event)]
    p = np.array([x.fitted[0] + (y.fitted[0] if y else 0.0) for x, y in pairs])
    q = np.array([x.fitted[1] + (y.fitted[1] if y else 0.0) for x, y in pairs])
    lam = prefix_mean(n)
    bounds = np.asarray(ratio_lower(lam * p, lam * q, level), dtype=float)
    best = int(np.argmax(bounds))
    if not bounds[best] > bounds[0]:
        return c, d
    x, y = pairs[best]
    return replace(x, weight=c.weight), y


def pooled_pairs(
    chosen: list[Candidate],
    partners: list[Candidate | None],
    cands: list[Candidate],
    n: int,
    levels,
) -> tuple[list[Candidate], list[Candidate | None]]:
    """:func:`pooled_pair` for each chosen event in turn (at its joint level), unless its new
    event is another chosen one, or its new pair is another's pair: two chosen tails of one
    score in opposite directions both lead to the best pair, and certifying the same sums
    twice would spend two shares of the level on one test."""
    chosen, partners = list(chosen), list(partners)

    def keys(c: Candidate, d: Candidate | None) -> set:
        return {_key(c), None if d is None else _key(d)}

    for j, v in enumerate(levels):
        c, d = pooled_pair(chosen[j], partners[j], cands, n, float(v))
        others = [i for i in range(len(chosen)) if i != j]
        if all(
            _key(c) != _key(chosen[i]) and keys(c, d) != keys(chosen[i], partners[i])
            for i in others
        ):
            chosen[j], partners[j] = c, d
    return chosen, partners


def _apart(e: ScoreInterval, f: ScoreInterval) -> bool:
    """Two intervals of one score that share no value."""
    return e.hi <= f.lo or f.hi <= e.lo


def _leaning(cands: list[Candidate]) -> list[Candidate]:
    """The candidates a power choice may pick: oriented as the judging data lean (a leakier
    mechanism would lean further), seen in some outputs but not all (else it tells nothing
    apart: said as such), on the output's values (an event on its bits only stands in for
    them). When none leans (a correct mechanism's judging data may lean the other way on
    every candidate), either orientation."""
    telling = [c for c in cands if 0 < sum(c.share) < 2 and c.family != "float"]
    return [c for c in telling if c.share[0] >= c.share[1]] or telling


def _power_event(cands: list[Candidate], chosen: list[Candidate], power: Power):
    """The most powerful event, to certify beside ``chosen`` when none of them could reveal
    a mechanism ``power.factor`` times leakier than claimed, while it could (each judged at
    the level it gets with it certified too). Else None: where a real gain predicts a
    violation, or the chosen events already tell enough, or their power is not known (judged
    on cross-fitted counts), another bound only widens the union bound. A prediction above
    the claim with no gain behind it (a fluke, a tail judged on a few outputs) does not
    count: numerical sparse vector at its claim, 20,000 samples, certified such a pattern
    alone (judged probabilities 0.0103 against 0.0037; detectable 0.47 against a claim of
    0.1), where a median cut detects 0.15 beside it."""
    gain = lambda c: c.rank > c.plain - 1e2  # (no shrunk gain: ranked at plain - 1e3)
    if any(gain(c) and c.plain > power.claim.threshold for c in chosen):
        return None
    if not all(0 <= x <= 1 for c in chosen for x in c.share):
        return None
    now = power.among(len(chosen))
    if any(now.conclusive(c) for c in chosen):
        return None
    after = power.among(len(chosen) + 1)
    taken = {_key(c) for c in chosen}
    best = _most_powerful([c for c in _leaning(cands) if _key(c) not in taken], after)
    return best if best is not None and after.conclusive(best) else None


def _most_powerful(cands: list[Candidate], power: Power) -> Candidate | None:
    """The candidate revealing the smallest violation (ties: the better plain prediction)
    among one per bin of judged probability under the denominator, what power depends on
    most: the bin's nearest to 1/2 (within a bin, power grows toward 1/2: near 0 with the
    event's mass, near 1 with its complement's), then the best by plain prediction. None
    when none reveals any."""
    logit = lambda x: math.log((x + 1e-9) / (1 + 1e-9 - x))
    bins: dict[int, Candidate] = {}
    near = lambda c: (min(c.share[1], 1 - c.share[1]), c.plain)
    for c in cands:
        p, q = c.share
        if not (0 <= p <= 1 and 0 <= q <= 1):
            continue
        b = round(logit(q) * POWER_BINS / 40)  # logits span about -20..20
        if b not in bins or near(c) > near(bins[b]):
            bins[b] = c
    scored = [(power(c), -c.plain, i) for i, c in enumerate(bins.values())]
    scored = [s for s in scored if math.isfinite(s[0])]
    return list(bins.values())[min(scored)[2]] if scored else None


@dataclass(frozen=True, slots=True)
class Outcome:
    """What certification ended with: the counts at the reported look and why it stopped."""

    chosen: list[Candidate]
    counts: np.ndarray  # (K, 2): counts under the pair's first and second dataset
    samples: int  # certification samples per dataset at the reported look
    level: float  # level of each one-sided bound at that look (times shares[k] for event k)
    p_value: float
    stop: str  # "complete", "violation", "max-time"
    look: int  # 1-based index of the reported look (0: none)
    looks: int
    simple: list = field(default_factory=list)  # per chosen event: a simpler one, or None
    # a pure claim's joint ratio bounds at that look (auditor.engine.session.Session._joint)
    joint: dict | None = None

    def levels(self) -> np.ndarray:
        """Each certified event's one-sided level: ``level`` times its share (:func:`shares`)."""
        return self.level * shares(self.chosen)

    def joint_levels(self) -> np.ndarray | None:
        """Each certified event's level in the joint ratio bound of a pure claim: the joint
        bound's even-split level times the event's share; None without a joint bound."""
        return None if self.joint is None else float(self.joint["level"]) * shares(self.chosen)


SIMPLE_FAMILIES = (
    "coordinate",
    "threshold",
    "threshold tails",
    "value tails (low)",
    "value tails (high)",
    "atoms",
)
LEARNED_FAMILIES = (
    "classifier",
    "projection",
    "vote",
    "score tails",
    "box",
    "histogram",
    "monotone histogram",
    "naive_bayes",
    "naive_bayes tails",
    "naive_bayes cells",
    "blocks cells",
    "blocks",
    "blocks tails",
    "count tails",
)
SIMPLE_SHARE = 0.95  # a simple event stands in for a learned one within 5% of its prediction


def simplest(judged: list[Candidate], c: Candidate) -> Candidate | None:
    """For a learned event (a classifier score, a vote, a box), the best simple one of the
    same pair (a coordinate threshold, an atom, a set of output patterns) whose judged
    prediction is within 5% of the learned one's: the witness in words. It is judged on the
    selection data only and never certified."""
    if c.family not in LEARNED_FAMILIES or not c.plain > 0:
        return None
    near = [
        x
        for x in judged
        if x.pair_index == c.pair_index
        and not x.unseen
        and x.family in SIMPLE_FAMILIES
        and x.plain >= SIMPLE_SHARE * c.plain
    ]
    return max(near, key=lambda x: x.plain) if near else None
