"""Privacy-loss formulations of the sparse vector technique and of composed mechanisms.

Sparse vector. Two upper bounds are proved, and the smaller one is the formulation's ``bound``:

- the threshold argument (Lyu, Su and Li 2017, Thm 2, for any noise scales): substitute
  rho -> rho + 1 in the integral over the threshold noise (a factor at most e^(1/b_rho));
  each negative answer's probability can only grow, and each positive one shrinks by at most
  e^(2/b_nu) (its answer and the threshold move by 1 each). With at most K positive answers
  the loss is at most 1/b_rho + 2K/b_nu, K/b_rho when the threshold is redrawn after every
  positive answer, plus K/b_answer for fresh noisy answers. It does not apply when the
  compared noisy answer itself is output (Alg. 3): that is why Alg. 3 has no finite epsilon
  on an unbounded stream;
- post-processing: the output is a function of the data-independent threshold noise and of
  the m noisy answers (and the m fresh ones), so it is at most m/b_nu (+ m/b_answer).

Lower bounds, used to refute claims: the exact probability of an output pattern (flags only,
a post-processing of any output) on a pair of neighbouring inputs, as a closed form. With
Laplace noise the integrand over the threshold noise is, between its kinks, a sum of
exponentials, integrated term by term in exact rational arithmetic (:func:`pattern_probability`).

Without query noise (Alg. 5), two queries with the same answer under x can never get flags
(0, 1) in that order, while under a neighbour they can: no finite epsilon.

Composition: the parts' epsilons add up (Dwork and Roth 2014, Thm 3.14); each part's own proof
is a step of the composed one, and each part's cases are cases of the whole (an event on one
part's output has the same probability under the composition). Numeric tables on the same inputs
and neighbours get their exact epsilon instead: a joint output's ratio is the product of the
parts' ratios, so each pair's worst joint output is made of the parts' worst outputs (the sum is
only an upper bound: the parts' worst outputs may come from different pairs).
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from fractions import Fraction

import sympy as sp

from proofs import mechanisms as m
from proofs.checkers.formulations import Case, Formulation, Lemma, coordinate_lemmas, formulate
from proofs.decide import known
from proofs.expr import as_expr, to_fraction

__all__ = ["pattern_probability"]

_DOWN, _UP = 0, 2  # answers of x on negative / positive queries; x' answers 1 everywhere


# ---------------------------------------------------------------- exact pattern probabilities
def _laplace_cdf_terms(shift: Fraction, scale: Fraction, below: bool, upper: bool):
    """F(z + shift) of Lap(scale) (or 1 - F when `upper`), on the side of its kink given by
    `below` (z + shift < 0), as {(rate, constant): coefficient} for coefficient e^constant
    e^(rate z)."""
    r = 1 / scale
    if below:  # F(t) = e^(t/b)/2
        terms = {(r, shift * r): Fraction(1, 2)}
        return _sub_from_one(terms) if upper else terms
    terms = {(-r, -shift * r): Fraction(-1, 2)}  # F(t) = 1 - e^(-t/b)/2
    terms[(Fraction(0), Fraction(0))] = Fraction(1)
    return _sub_from_one(terms) if upper else terms


def _sub_from_one(terms: dict) -> dict:
    out = defaultdict(Fraction, {k: -v for k, v in terms.items()})
    out[(Fraction(0), Fraction(0))] += 1
    return {k: v for k, v in out.items() if v}


def _times(a: dict, b: dict) -> dict:
    out = defaultdict(Fraction)
    for (ra, ca), va in a.items():
        for (rb, cb), vb in b.items():
            out[(ra + rb, ca + cb)] += va * vb
    return {k: v for k, v in out.items() if v}


def _integral(terms: dict, lo, hi) -> dict:
    """Integral of the sum over z in (lo, hi) (None: infinite), as {constant: coefficient}."""
    out = defaultdict(Fraction)
    for (rate, const), coef in terms.items():
        if rate == 0:
            if lo is None or hi is None:
                raise ValueError("a constant term over an infinite interval")
            out[const] += coef * (hi - lo)
            continue
        if hi is not None:
            out[const + rate * hi] += coef / rate
        elif rate > 0:
            raise ValueError("a growing term towards +infinity")
        if lo is not None:
            out[const + rate * lo] -= coef / rate
        elif rate < 0:
            raise ValueError("a growing term towards -infinity")
    return dict(out)


def _segment_probability(sv: m.SparseVector, answers, flags) -> dict:
    """P[these flags] for one threshold draw, as {constant: coefficient} of e^constant."""
    b_rho = to_fraction(sv.threshold_scale, "threshold_scale")
    b_nu = to_fraction(sv.query_scale, "query_scale")
    t = to_fraction(sv.threshold, "threshold")
    kinks = sorted({Fraction(0), *(Fraction(a) - t for a in answers)})
    edges = [None, *kinks, None]
    total = defaultdict(Fraction)
    for lo, hi in itertools.pairwise(edges):
        mid = (
            (lo + hi) / 2
            if lo is not None and hi is not None
            else (hi - 1 if lo is None else lo + 1)
        )
        rho = {(-1 / b_rho if mid > 0 else 1 / b_rho, Fraction(0)): 1 / (2 * b_rho)}
        for a, flag in zip(answers, flags):
            shift = t - Fraction(a)  # the noisy answer a + nu is compared with t + z
            rho = _times(rho, _laplace_cdf_terms(shift, b_nu, mid + shift < 0, flag == 1))
        for const, coef in _integral(rho, lo, hi).items():
            total[const] += coef
    return dict(total)


def pattern_probability(sv: m.SparseVector, answers, flags) -> sp.Expr:
    """The exact probability that `sv` gives `flags` (1 positive, 0 negative) on the first
    len(flags) queries when their answers are `answers` (numbers; Laplace query noise)."""
    segments, start = [], 0
    for i, flag in enumerate(flags):
        if sv.refresh and flag == 1:
            segments.append((start, i + 1))
            start = i + 1
    if start < len(flags):
        segments.append((start, len(flags)))
    out: dict = {Fraction(0): Fraction(1)}
    for lo, hi in segments:
        seg = _segment_probability(sv, answers[lo:hi], flags[lo:hi])
        prod = defaultdict(Fraction)
        for c1, v1 in out.items():
            for c2, v2 in seg.items():
                prod[c1 + c2] += v1 * v2
        out = dict(prod)
    return sp.Add(*(sp.Rational(v) * sp.exp(sp.Rational(c)) for c, v in out.items() if v))


def _numeric(*values) -> bool:
    return all(sp.sympify(v).is_Rational for v in values)


def _pattern_cases(sv: m.SparseVector) -> tuple[Case, ...]:
    """Output patterns with K positive answers last, the rest negative: under x the negative
    queries answer 0 and the positive ones 2, under x' every answer is 1."""
    if not _numeric(sv.threshold_scale, sv.query_scale, sv.threshold):
        return ()
    cases = []
    for k in sorted({sv.positives if sv.cutoff is not None else sv.queries // 2, 1}):
        flags = (0,) * (sv.queries - k) + (1,) * k
        x = tuple(_UP if f else _DOWN for f in flags)
        xp = (1,) * sv.queries
        cases.append(
            Case(
                f"flags {''.join(map(str, flags))}: negative answers 0 and positive ones 2 "
                "under x, all 1 under x'",
                pattern_probability(sv, x, flags),
                pattern_probability(sv, xp, flags),
                (x, xp, "flags " + "".join(map(str, flags))),
                note="the flags alone: a post-processing of the output",
            )
        )
    return tuple(cases)


def _unbounded_case(sv: m.SparseVector) -> Case:
    """No query noise: flags (0, 1) need q_1 < T + rho <= q_2."""
    b, t = sv.threshold_scale, sv.threshold
    cdf = lambda v: sp.Piecewise((1 - sp.exp(-v / b) / 2, v >= 0), (sp.exp(v / b) / 2, True))
    return Case(
        "no query noise; flags 0 then 1: x' answers (0, 1), x answers (1, 1)",
        cdf(1 - t) - cdf(-t),  # P[0 < T + rho <= 1]
        sp.Integer(0),  # P[1 < T + rho <= 1]
        ((0, 1), (1, 1), "flags 01"),
    )


def _threshold_lemmas(sv: m.SparseVector, eps) -> tuple[Lemma, ...]:
    z, q, qp, y = sp.symbols("z q_i qp_i y", cls=sp.Dummy, real=True)
    w1, w2, E = sp.symbols("w1 w2 E", cls=sp.Dummy, positive=True)
    b_rho = sv.threshold_scale
    moved = (sp.Abs(q - qp) <= 1,)
    cdf = lambda w: sp.Piecewise((w / 2, w < 1), (1 - 1 / (2 * w), True))
    survival = lambda w: sp.Piecewise((1 / (2 * w), w >= 1), (1 - w / 2, True))
    lemmas = [
        Lemma(
            "threshold noise: (|z+1| - |z|)/b_rho <= 1/b_rho",
            (sp.Abs(z + 1) - sp.Abs(z)) / b_rho,
            1 / b_rho,
        ),
        Lemma("negative answers: T+z-q_i <= T+(z+1)-q_i'", z - q, z + 1 - qp, moved),
        Lemma("Laplace CDF increasing in w = e^(t/b)", cdf(w1), cdf(w2), (w1 <= w2,)),
        Lemma("positive answers: T+(z+1)-q_i' <= T+z-q_i + 2", z + 1 - qp, z - q + 2, moved),
        Lemma(
            "Laplace tail: S(t)/e^(2/b) <= S(t+2), w = e^(t/b), E = e^(1/b)",
            survival(w1) / E**2,
            survival(w1 * E**2),
            (E > 1,),
        ),
    ]
    if sv.reveal == "fresh":
        a = sv.answer_scale
        lemmas.append(
            Lemma(
                "fresh answers: (|y-q_i'| - |y-q_i|)/b_answer <= 1/b_answer",
                (sp.Abs(y - qp) - sp.Abs(y - q)) / a,
                1 / a,
                moved,
            )
        )
    lemmas.append(Lemma("total loss <= epsilon", _threshold_bound(sv), eps))
    return tuple(lemmas)


def _threshold_bound(sv: m.SparseVector) -> sp.Expr:
    k = sv.positives
    out = (k if sv.refresh else 1) / sv.threshold_scale + 2 * k / sv.query_scale
    return out + (k / sv.answer_scale if sv.reveal == "fresh" else 0)


def _postprocessing_bound(sv: m.SparseVector) -> sp.Expr:
    fresh = sv.queries / sv.answer_scale if sv.reveal == "fresh" else 0
    return sv.queries / sv.query_scale + fresh


def _postprocessing_lemmas(sv: m.SparseVector, eps) -> tuple[Lemma, ...]:
    if sv.reveal != "fresh":
        return coordinate_lemmas(sv.query_scale, sp.Integer(sv.queries), eps)
    answers = coordinate_lemmas(sv.answer_scale, sp.Integer(sv.queries), eps)[:1]
    return (
        *coordinate_lemmas(sv.query_scale, sp.Integer(sv.queries), eps)[:1],
        *answers,
        Lemma("m/b_nu + m/b_answer <= epsilon", _postprocessing_bound(sv), eps),
    )


_THRESHOLD_ARGUMENT = (
    "Write P[flags | x] as an integral over the threshold noise z of the Laplace density times "
    "one factor per answered query: F(T+z-q_i) for a negative flag, S(T+z-q_i) for a positive "
    "one. Substitute z -> z+1 in P[flags | x']: the density changes by at most e^(1/b_rho) "
    "(lemma 1); each negative factor does not shrink, as its argument does not decrease and F "
    "increases (lemmas 2-3); each positive factor shrinks by at most e^(2/b_nu) (lemmas 4-5). "
    "With at most {k} positive answers, and the threshold redrawn {refresh}, the ratio is at "
    "most e^(bound){fresh}; the last lemma compares the bound with epsilon."
)
_POSTPROCESSING_ARGUMENT = (
    "The output is a function of the threshold noise, which does not depend on the data, and "
    "of the m noisy answers{fresh}, so it is a post-processing of them (Dwork and Roth 2014, "
    "Prop. 2.1). "
)


@formulate.register
def _(sv: m.SparseVector) -> Formulation:
    if sv.query_scale == 0:
        return Formulation(
            (_unbounded_case(sv),),
            tight_note="unbounded: without query noise some flag patterns are impossible",
            unbounded=(0, {}),
        )
    by_threshold, by_post = _threshold_bound(sv), _postprocessing_bound(sv)
    # the smaller bound (decided under the symbols' assumptions; the threshold one when unsure)
    use_threshold = sv.reveal != "compared" and not known(
        sp.simplify(by_threshold - by_post), "positive"
    )
    fresh_text = " and the fresh ones" if sv.reveal == "fresh" else ""
    if use_threshold:
        argument = _THRESHOLD_ARGUMENT.format(
            k=sv.positives,
            refresh="after every positive answer (one substitution per segment)"
            if sv.refresh
            else "never",
            fresh="; each fresh answer adds at most 1/b_answer (lemma 6)"
            if sv.reveal == "fresh"
            else "",
        )
        lemmas = lambda eps: _threshold_lemmas(sv, eps)
    else:
        argument = _POSTPROCESSING_ARGUMENT.format(fresh=fresh_text)
        lemmas = lambda eps: _postprocessing_lemmas(sv, eps)
    return Formulation(
        _pattern_cases(sv),
        lemmas=lemmas,
        lemma_argument=argument,
        tight_note="an upper bound; the loss is not shown to attain it",
        bound=by_threshold if use_threshold else by_post,
    )


# ---------------------------------------------------------------- composition
def part_bound(form: Formulation):
    """A part's proved epsilon candidate: its exact, supremum or upper-bound value."""
    for value in (form.tight, form.supremum):
        if value is not None:
            return value[0]
    return form.bound


def _as_lemmas(form: Formulation, eps) -> tuple[Lemma, ...]:
    if form.lemmas is not None:
        return form.lemmas(eps)
    out = []
    for case in form.cases:
        if case.log_ratio is not None:
            out.append(Lemma(case.label, case.log_ratio, eps, case.constraints))
        else:
            out.append(Lemma(case.label, case.p, sp.exp(eps) * case.q, case.constraints))
    return tuple(out)


def _same_tables(comp: m.Composition) -> list[dict] | None:
    """The parts' rows as exact numbers when every part is a numeric table on the same inputs
    with the same neighbours (else None)."""
    parts = comp.mechanisms
    if not all(isinstance(t, m.FiniteMechanism) and not t.assumptions for t in parts):
        return None
    inputs = frozenset(parts[0].pmf)
    pairs = frozenset(parts[0].neighbour_pairs())
    if any(frozenset(t.pmf) != inputs or frozenset(t.neighbour_pairs()) != pairs for t in parts):
        return None
    tables = [
        {x: {y: as_expr(v, "pmf") for y, v in t.pmf[x].items()} for x in t.pmf} for t in parts
    ]
    if any(v.free_symbols for t in tables for row in t.values() for v in row.values()):
        return None
    return tables


def _worst_output(p: dict, q: dict):
    """The output of largest ratio p/q among those p gives (one q never gives, if any)."""
    given = [y for y in p if p[y] != 0]
    never = [y for y in given if q[y] == 0]
    return never[0] if never else max(given, key=lambda y: p[y] / q[y])


def joint_of_tables(comp: m.Composition) -> Formulation | None:
    """Numeric tables on the same inputs and neighbours, run independently on one input: the
    joint output's ratio is the product of the parts' ratios, so on each pair the worst joint
    output is made of each part's worst output, and the exact epsilon is the largest sum of the
    parts' worst log-ratios over the pairs (basic composition's sum takes each part's worst
    pair, which may differ). One case per pair, never the product of the output sets."""
    tables = _same_tables(comp)
    if tables is None:
        return None
    try:  # (SymPy orders the ratios exactly, or cannot: then the parts are summed instead)
        return _joint_of_tables(comp, tables)
    except TypeError:
        return None


def _joint_of_tables(comp: m.Composition, tables: list) -> Formulation:
    cases = []
    for x, xp in comp.mechanisms[0].neighbour_pairs():
        ys = tuple(_worst_output(t[x], t[xp]) for t in tables)
        cases.append(
            Case(
                f"x={x!r}, x'={xp!r}, y={ys!r} (each part's worst output)",
                sp.Mul(*(t[x][y] for t, y in zip(tables, ys))),
                sp.Mul(*(t[xp][y] for t, y in zip(tables, ys))),
                (x, xp, ys),
            )
        )
    cases = tuple(cases)
    unbounded = next(((i, {}) for i, c in enumerate(cases) if c.q == 0), None)
    if unbounded is not None:
        return Formulation(
            cases,
            lemmas=lambda eps: (),
            tight_note="unbounded: a part gives an output its neighbour never gives",
            unbounded=unbounded,
        )
    best = max(range(len(cases)), key=lambda i: cases[i].p / cases[i].q)
    return Formulation(
        cases,
        lemmas=lambda eps: tuple(
            Lemma(f"{c.label}: P[y | x] <= e^epsilon P[y | x']", c.p, sp.exp(eps) * c.q)
            for c in cases
        ),
        lemma_argument="The parts use independent randomness on the same input, so P[(y_1, "
        "..., y_k) | x] is the product of the parts' P[y_i | x], and the ratio of a joint "
        "output is the product of the parts' ratios, each at most that of the part's worst "
        "output on the pair (an output the part gives under x, at the largest ratio). One lemma "
        "per neighbouring pair bounds that worst joint output.",
        tight=(sp.log(cases[best].p / cases[best].q), best, {}),
        tight_note="exact: each pair's worst joint output attains the bound",
    )


@formulate.register
def _(comp: m.Composition) -> Formulation:
    joint = joint_of_tables(comp)
    if joint is not None:
        return joint
    forms = [formulate(mech) for mech in comp.mechanisms]
    joint_cases, joint_tight = _joint_cases(forms)
    cases, offsets = list(joint_cases), []
    for i, form in enumerate(forms):
        offsets.append(len(cases))
        cases += [
            Case(
                f"part {i + 1}: {c.label}",
                c.p,
                c.q,
                c.point,
                c.constraints,
                c.log_ratio,
                c.grid,
                c.note,
            )
            for c in form.cases
        ]
    # The parts' cases are events on one part's output: they can refute the composition (a
    # part's loss is the composition's on that part's outputs), never prove it, so without
    # every part's proved epsilon there is nothing to prove from (no lemmas: none to discharge).
    no_lemmas = lambda eps: ()
    for i, form in enumerate(forms):
        if form.unbounded is not None:
            index, point = form.unbounded
            return Formulation(
                tuple(cases),
                lemmas=no_lemmas,
                tight_note=f"unbounded: part {i + 1} is",
                unbounded=(offsets[i] + index, point),
            )
    values = [part_bound(f) for f in forms]
    if any(v is None for v in values):
        return Formulation(
            tuple(cases),
            lemmas=no_lemmas,
            tight_note="a part's epsilon is not known: its cases can refute the composition, "
            "not establish it",
        )

    def lemmas(eps):
        out = []
        for i, (form, value) in enumerate(zip(forms, values)):
            out += [
                Lemma(f"part {i + 1}: {le.label}", le.lhs, le.rhs, le.constraints)
                for le in _as_lemmas(form, value)
            ]
        out.append(Lemma("sum of the parts' epsilons <= epsilon", sp.Add(*values), eps))
        return tuple(out)

    if joint_tight is not None and all(f.tight is not None for f in forms):
        index, point = joint_tight
        tight, note = (sp.Add(*values), index, point), "exact: the parts' worst outputs together"
    else:
        tight, note = None, "an upper bound; composition need not be tight"
    return Formulation(
        tuple(cases),
        lemmas=lemmas,
        lemma_argument="Basic composition (Dwork and Roth 2014, Thm 3.14): the parts use "
        "independent randomness, so the privacy losses add up. Each part's epsilon is proved by "
        "its own lemmas, instantiated at that epsilon; the last lemma sums them.",
        tight=tight,
        tight_note=note,
        bound=sp.Add(*values),
    )


_ABSTRACT = ("x", "x'")  # a case's inputs when it holds for every two distinct values
_MAX_JOINT = 64  # joint cases built on one input pair, at most


def _pair_of(case: Case) -> tuple | None:
    """A case's input pair: numbers, the abstract pair (any two distinct values, as in the
    frequency oracles' cases), or None when its inputs are variables (a query's answers,
    whose joint worst case depends on how the parts' queries relate)."""
    pair = tuple(case.point[:2])
    if pair == _ABSTRACT:
        return _ABSTRACT
    if all(isinstance(v, (int, sp.Integer)) for v in pair):
        return tuple(int(v) for v in pair)
    return None


def _mirror(case: Case) -> Case:
    """The case on the pair taken the other way round: P[y | x'] against P[y | x] (neighbours
    are symmetric, so (x', x) is a pair too)."""
    x, xp, y = case.point
    return Case(
        f"{case.label} (x and x' swapped)",
        case.q,
        case.p,
        (xp, x, y),
        case.constraints,
        None if case.log_ratio is None else -case.log_ratio,
        case.grid,
    )


def _by_pair(form: Formulation) -> dict:
    """A part's cases by input pair, each concrete one also the other way round."""
    out: dict = defaultdict(list)
    for case in form.cases:
        pair = _pair_of(case)
        if pair is None:
            continue
        out[pair].append(case)
        if pair != _ABSTRACT and pair[0] != pair[1]:
            out[pair[::-1]].append(_mirror(case))
    return out


def _joint_cases(forms) -> tuple[list[Case], tuple[int, dict] | None]:
    """Cases of the joint output (y_1, ..., y_k): one case from each part, on one input pair.
    The parts run with independent randomness on the same input, so P[(y_1, ..., y_k) | x] is
    the product of the parts' P[y_i | x]; a joint case refutes a claim below the sum of the
    parts' epsilons, which no single part's case can. Also (index, point) of the joint case of
    the parts' tight cases, when they combine (None otherwise)."""
    if len(forms) < 2:
        return [], None
    out, tight_at = [], None
    tight = _joint_tight(forms)
    if tight is not None:
        case, point = tight
        out.append(case)
        tight_at = (0, point)
    parts = [_by_pair(f) for f in forms]
    pairs = {p for by in parts for p in by if p != _ABSTRACT} or {_ABSTRACT}
    for pair in sorted(pairs, key=str):
        # (the abstract cases hold for two distinct values only: not on a pair (x, x))
        distinct = pair == _ABSTRACT or pair[0] != pair[1]
        options = [
            by.get(pair, []) + (by.get(_ABSTRACT, []) if pair != _ABSTRACT and distinct else [])
            for by in parts
        ]
        for combo in itertools.islice(itertools.product(*options), _MAX_JOINT):
            joint = _joint_case(list(combo), pair)
            if joint is not None:
                out.append(joint)
    return out, tight_at


def _joint_tight(forms) -> tuple[Case, dict] | None:
    """The joint case of the parts' tight cases and its point, when every part has one, on one
    input pair, at points that agree."""
    if any(f.tight is None for f in forms):
        return None
    cases = [f.cases[f.tight[1]] for f in forms]
    pairs = {_pair_of(c) for c in cases}
    if None in pairs or len(pairs - {_ABSTRACT}) > 1:
        return None
    if _ABSTRACT in pairs and any(p != _ABSTRACT and p[0] == p[1] for p in pairs):
        return None  # (an abstract case needs two distinct values)
    points = [f.tight[2] for f in forms]
    merged = {k: v for pt in points for k, v in pt.items()}
    if not all(merged[k] == v for pt in points for k, v in pt.items()):
        return None
    case = _joint_case(cases, next(iter(pairs - {_ABSTRACT}), _ABSTRACT))
    return None if case is None else (case, merged)


def _joint_case(parts: list[Case], pair: tuple) -> Case | None:
    output = _joint_output([c.point[2] for c in parts])
    if output is None:
        return None
    return Case(
        "joint output: " + "; ".join(f"part {j + 1} {c.label}" for j, c in enumerate(parts)),
        sp.Mul(*(c.p for c in parts)),
        sp.Mul(*(c.q for c in parts)),
        (*pair, output),
        tuple(k for c in parts for k in c.constraints),
        _joint_log_ratio(parts),
        {k: v for c in parts for k, v in c.grid.items()},
    )


def _joint_output(ys):
    """The joint output: the parts' outputs as a tuple, or as text when some are described in
    words (the oracles' "y = H(x)"); None when words would hide a variable of another part."""
    if not any(isinstance(y, str) for y in ys):
        return tuple(ys)
    if any(isinstance(y, sp.Basic) and y.free_symbols for y in ys):
        return None
    return "(" + "; ".join(str(y) for y in ys) + ")"


def _joint_log_ratio(parts) -> sp.Expr | None:
    if any(c.log_ratio is None for c in parts):
        return None
    return sp.Add(*(c.log_ratio for c in parts))
