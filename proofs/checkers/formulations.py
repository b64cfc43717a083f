"""Privacy-loss formulations of the mechanism descriptions (the checker's view of them).

For each description, `formulate(mech)` returns a :class:`Formulation`:

- ``cases``: direct cases. Each is the DP inequality itself at a family of points:
  ``p <= e^eps q`` where ``p = P[M(x) = y]`` (or a density) and ``q`` the same under the
  neighbour x'. Its free variables (inputs, outputs) range over ``constraints``. A failure
  of a direct case *is* a counterexample to the claim (after an exact re-check).
- ``lemmas``: for families of unbounded size (any dimension, any number of outcomes), a
  structured proof: for-all inequalities that together imply the claim for every size; each
  carries the argument that makes the reduction complete. When lemmas are present the claim
  is proved by the lemmas, and the direct cases are small instances used to refute.
- ``tight``: the exact epsilon from theory and the direct case and point where the privacy
  loss attains it; the checker verifies both before it reports the value.
- ``grid``: candidate values of each case variable for the counterexample search.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import singledispatch
from typing import Any

import sympy as sp

from proofs import mechanisms as m
from proofs.decide import known
from proofs.expr import as_expr

_real = dict(real=True)


@dataclass(frozen=True)
class Case:
    """The DP inequality p <= e^eps q over the free variables satisfying `constraints`."""

    label: str
    p: sp.Expr
    q: sp.Expr
    point: tuple  # (x, x', y) as expressions of the case variables, for counterexamples
    constraints: tuple = ()
    log_ratio: sp.Expr | None = None  # ln(p/q) when simpler (densities with exponentials)
    grid: dict = field(default_factory=dict)  # variable -> candidate values for the search
    note: str = ""


@dataclass(frozen=True)
class Lemma:
    """A for-all inequality lhs <= rhs under constraints, one step of a structured proof."""

    label: str
    lhs: sp.Expr
    rhs: sp.Expr
    constraints: tuple = ()


@dataclass(frozen=True)
class Formulation:
    cases: tuple[Case, ...]
    lemmas: Callable[[sp.Expr], tuple[Lemma, ...]] | None = None
    lemma_argument: str = ""
    tight: tuple[sp.Expr, int, dict] | None = None  # (epsilon, case index, point values)
    tight_note: str = ""
    # (epsilon, case index, point values, variable): the loss tends to epsilon as the variable
    # grows, for a supremum that is approached but not attained
    supremum: tuple[sp.Expr, int, dict, sp.Symbol] | None = None
    # (case index, point values) where P[M(x')=y] = 0 < P[M(x)=y]: no finite epsilon
    unbounded: tuple[int, dict] | None = None
    # a proved upper bound that is not known to be attained (the lemmas prove it)
    bound: sp.Expr | None = None


@singledispatch
def formulate(mech: Any) -> Formulation:
    raise NotImplementedError(type(mech).__name__)


def _binary_cases(pmf: Callable[[int, int], sp.Expr]) -> tuple[Case, ...]:
    """All (x, x', y) for a mechanism on one bit: x != x', y in {0, 1}."""
    return tuple(
        Case(f"x={x}, x'={1 - x}, y={y}", pmf(x, y), pmf(1 - x, y), (x, 1 - x, y))
        for x in (1, 0)
        for y in (1, 0)
    )


@formulate.register
def _(mech: m.AlphaCoinRR) -> Formulation:
    a = mech.alpha
    return Formulation(_binary_cases(mech.pmf), tight=(sp.log((1 + a) / (1 - a)), 0, {}))


@formulate.register
def _(mech: m.ForcedResponse) -> Formulation:
    cases = _binary_cases(mech.pmf)
    return Formulation(cases, tight=_finite_tight(cases))


def _finite_tight(cases: tuple[Case, ...]):
    """Tight epsilon of a variable-free finite mechanism with numeric parameters."""
    ratios = []
    for i, c in enumerate(cases):
        if (c.p.free_symbols | c.q.free_symbols) or (known(c.q, "zero") and not known(c.p, "zero")):
            return None  # (symbolic, or unbounded: :func:`_finite_unbounded`)
        if not known(c.p, "zero"):  # an output x never gives bounds nothing
            ratios.append((c.p / c.q, i))
    if not ratios:
        return None
    best, index = max(ratios, key=lambda r: float(r[0]))
    return (sp.log(best), index, {})


def _finite_unbounded(cases: tuple[Case, ...]):
    """The first case of a numeric table with P[M(x')=y] = 0 < P[M(x)=y], as (index, {})."""
    for i, c in enumerate(cases):
        if (
            not (c.p.free_symbols | c.q.free_symbols)
            and known(c.q, "zero")
            and known(c.p, "positive")
        ):
            return (i, {})
    return None


@formulate.register
def _(mech: m.KAryRR) -> Formulation:
    cases = (
        Case("x=0, x'=1, y=0", mech.pmf(0, 0), mech.pmf(1, 0), (0, 1, 0)),
        Case("x=0, x'=1, y=1", mech.pmf(0, 1), mech.pmf(1, 1), (0, 1, 1)),
        Case(
            "x=0, x'=1, y=2 (k >= 3)",
            mech.pmf(0, 2),
            mech.pmf(1, 2),
            (0, 1, 2),
            constraints=(mech.k >= 3,),
        ),
    )
    return Formulation(cases, tight=(mech.epsilon, 0, {}))


def _two_level(high: sp.Expr, low: sp.Expr, tight: sp.Expr, what: str, where: str) -> Formulation:
    """A report whose probability is ``high`` when it supports the client's value and ``low``
    otherwise, with a normaliser common to every value: the four cases (supports x only, x'
    only, both, neither) are every output, so proving them proves the claim; ``where`` says
    why an output supporting x but not x' exists (the tight case)."""
    cases = (
        Case(f"{what} supports x, not x'", high, low, ("x", "x'", where)),
        Case(f"{what} supports x', not x", low, high, ("x", "x'", f"{what} for x' only")),
        Case(f"{what} supports both", high, high, ("x", "x'", f"{what} for both")),
        Case(f"{what} supports neither", low, low, ("x", "x'", f"{what} for neither")),
    )
    return Formulation(cases, tight=(tight, 0, {}))


@formulate.register
def _(mech: m.UnaryEncoding) -> Formulation:
    p, q = mech.bit_probabilities
    # the bits other than x's and x''s have the same law under both values and cancel
    cases = tuple(
        Case(
            f"bit x = {a}, bit x' = {b}",
            (p if a else 1 - p) * (q if b else 1 - q),
            (q if a else 1 - q) * (p if b else 1 - p),
            ("x", "x'", f"bit x = {a}, bit x' = {b}, any other bits"),
        )
        for a, b in ((1, 0), (0, 1), (1, 1), (0, 0))
    )
    return Formulation(cases, tight=(mech.tight_epsilon, 0, {}))


@formulate.register
def _(mech: m.LocalHashing) -> Formulation:
    high, low = mech.levels  # times P[H], the same under x and x'
    return _two_level(high, low, mech.tight_epsilon, "(H, y)", "H(x) != H(x'), y = H(x)")


@formulate.register
def _(mech: m.HadamardResponse) -> Formulation:
    high, low = mech.levels
    return _two_level(high, low, mech.tight_epsilon, "y", "y in C_x minus C_x' (K/4 columns)")


@formulate.register
def _(mech: m.SubsetSelection) -> Formulation:
    z = sp.Dummy("Z", positive=True)  # C(k-1, d-1) e^eps + C(k-1, d), the same for every value
    e = sp.exp(mech.epsilon)
    return _two_level(e / z, 1 / z, mech.tight_epsilon, "S", "x in S, x' not in S (1 <= d < k)")


def _shift_case(mech, density: Callable, integer: bool, loss: Callable):
    """Scalar additive noise: f(x), f(x') within `sensitivity`, output y anywhere; `loss(fx,
    fxp, y)` is the closed log-ratio."""
    kind = dict(integer=True) if integer else _real
    fx, fxp, y = sp.Dummy("fx", **kind), sp.Dummy("fxp", **kind), sp.Dummy("y", **kind)
    log_ratio = loss(fx, fxp, y)
    d = mech.sensitivity
    case = Case(
        "f(x), f(x') within the sensitivity, any output y",
        density(fx, y),
        density(fxp, y),
        (fx, fxp, y),
        constraints=(sp.Abs(fx - fxp) <= d,),
        log_ratio=log_ratio,
        grid={fx: [0], fxp: [d, -d, d / 2], y: [0, d, -d, 2 * d, 10 * d, -10 * d, 100 * d]},
    )
    return case, (fx, fxp, y)


def _absolute_loss(mech, density: Callable, integer: bool) -> Formulation:
    """Laplace-shaped noise exp(-|y - f|/b): loss (|y - f(x')| - |y - f(x)|)/b, attained at
    y = f(x) = Delta, f(x') = 0."""
    b, d = mech.scale, mech.sensitivity
    case, (fx, fxp, y) = _shift_case(
        mech, density, integer, lambda fx, fxp, y: (sp.Abs(y - fxp) - sp.Abs(y - fx)) / b
    )
    return Formulation((case,), tight=(d / b, 0, {fx: d, fxp: 0, y: d}))


@formulate.register
def _(mech: m.Laplace) -> Formulation:
    return _absolute_loss(mech, mech.pdf, integer=False)


@formulate.register
def _(mech: m.TwoSidedGeometric) -> Formulation:
    return _absolute_loss(mech, mech.pmf, integer=True)


@formulate.register
def _(mech: m.Gaussian) -> Formulation:
    s = mech.sigma
    case, _ = _shift_case(
        mech, mech.pdf, False, lambda fx, fxp, y: ((y - fxp) ** 2 - (y - fx) ** 2) / (2 * s**2)
    )
    return Formulation((case,), tight_note="unbounded: the loss grows linearly in y")


@formulate.register
def _(mech: m.GaussianVector) -> Formulation:
    from proofs.mechanisms.noise import gaussian_vector_reduction

    gaussian_vector_reduction(mech)  # (its algebra checked: a ValueError if it fails)
    base = formulate(mech.reduced())
    return replace(
        base,
        tight_note="unbounded: the loss grows linearly along f(x) - f(x') (reduced to the "
        "one-dimensional Gaussian: same privacy losses)",
    )


def coordinate_lemmas(scale: sp.Expr, l1: sp.Expr, eps: sp.Expr) -> tuple[Lemma, ...]:
    """Per-coordinate Laplace loss is at most |f_j(x) - f_j(x')|/b; summed, at most l1/b."""
    x, xp, y = sp.symbols("x_j xp_j y_j", cls=sp.Dummy, real=True)
    return (
        Lemma(
            "coordinate: (|y-f(x')| - |y-f(x)|)/b <= |f(x)-f(x')|/b",
            (sp.Abs(y - xp) - sp.Abs(y - x)) / scale,
            sp.Abs(x - xp) / scale,
        ),
        Lemma("sum over coordinates: L1 sensitivity / b <= epsilon", l1 / scale, eps),
    )


_SEPARABLE = (
    "Independent noise makes the log-density ratio a sum over coordinates; each term is at "
    "most |f_j(x) - f_j(x')|/b (first lemma), so the sum is at most the L1 distance over b, "
    "at most Delta_1/b (second lemma). This holds for every dimension."
)


def _laplace_pair_case(scale, shifts: tuple, label: str) -> tuple[Case, dict]:
    """A 1- or 2-coordinate instance: f(x) = 0, f(x') = shifts, output y."""
    ys = sp.symbols(f"y1:{len(shifts) + 1}", cls=sp.Dummy, real=True)
    base = tuple(1 for _ in shifts)  # f(x) = (1, ..., 1): counts stay non-negative
    moved = tuple(c + s for c, s in zip(base, shifts))
    loss = sum(sp.Abs(yj - c) - sp.Abs(yj - b) for yj, b, c in zip(ys, base, moved)) / scale
    dens = lambda cs: sp.Mul(
        *[sp.exp(-sp.Abs(yj - cj) / scale) / (2 * scale) for yj, cj in zip(ys, cs)]
    )
    case = Case(
        label,
        dens(base),
        dens(moved),
        (base, moved, ys),
        log_ratio=loss,
        grid={yj: [b, b - s, b + 2 * s, c] for yj, b, c, s in zip(ys, base, moved, shifts)},
    )
    worst = {yj: b - s for yj, b, s in zip(ys, base, shifts)}
    return case, worst


@formulate.register
def _(mech: m.LaplaceVector) -> Formulation:
    case, worst = _laplace_pair_case(
        mech.scale, (mech.sensitivity,), "all of the L1 sensitivity in one coordinate"
    )
    return Formulation(
        (case,),
        lemmas=lambda eps: coordinate_lemmas(mech.scale, mech.sensitivity, eps),
        lemma_argument=_SEPARABLE,
        tight=(mech.sensitivity / mech.scale, 0, worst),
    )


@formulate.register
def _(mech: m.Histogram) -> Formulation:
    shifts = (1,) if mech.neighbours == "add_remove" else (1, -1)
    label = "one bin gains a record" if len(shifts) == 1 else "one record moves from bin 2 to bin 1"
    case, worst = _laplace_pair_case(mech.scale, shifts, label)
    return Formulation(
        (case,),
        lemmas=lambda eps: coordinate_lemmas(mech.scale, sp.Integer(mech.l1_sensitivity), eps),
        lemma_argument=_SEPARABLE + " Histogram neighbours change the counts by an L1 distance of "
        f"exactly {mech.l1_sensitivity} ({mech.neighbours.replace('_', '/')}).",
        tight=(sp.Integer(mech.l1_sensitivity) / mech.scale, 0, worst),
    )


@formulate.register
def _(mech: m.OneBitTelemetry) -> Formulation:
    x, xp = sp.symbols("x xp", cls=sp.Dummy, real=True)
    cons = (x >= 0, x <= mech.m, xp >= 0, xp <= mech.m)
    grid = {x: [0, mech.m, mech.m / 2], xp: [0, mech.m, mech.m / 2]}
    cases = tuple(
        Case(
            f"values x, x' in [0, m], y={y}",
            mech.pmf(x, y),
            mech.pmf(xp, y),
            (x, xp, y),
            constraints=cons,
            grid=grid,
        )
        for y in (1, 0)
    )
    if mech.form == "product":  # the notes' transcription: x = 0 never reports 1
        return Formulation(
            cases,
            tight_note="unbounded: P[1 | x = 0] = 0 < P[1 | x = m]",
            unbounded=(0, {x: mech.m, xp: 0}),
        )
    return Formulation(cases, tight=(mech.epsilon, 0, {x: mech.m, xp: 0}))


@formulate.register
def _(mech: m.ExponentialMechanism) -> Formulation:
    # Aggregation: fix the reported outcome r. Under x its weight is A = exp(c u(x, r)) and the
    # others' total is B. Under x' each weight is multiplied by exp(c (u(x', .) - u(x, .))),
    # a factor in [1/T, T] with T = exp(c Delta_u); r's factor is tA, the others' total becomes
    # B tB with tB a weighted mean of their factors, hence also in [1/T, T] (and >= 1 or <= 1
    # together with tA for monotone neighbours). Conversely every such (A, B, tA, tB) is
    # realised with two outcomes, so this one case is exact for any number of outcomes >= 2.
    A, B = sp.Dummy("A", positive=True), sp.Dummy("B", nonnegative=True)
    tA, tB = sp.Dummy("t_A", positive=True), sp.Dummy("t_B", positive=True)
    T = sp.exp(mech.rate * mech.sensitivity)
    cons = [tA >= 1 / T, tA <= T, tB >= 1 / T, tB <= T]
    if mech.monotone:
        cons.append(sp.Or(sp.And(tA >= 1, tB >= 1), sp.And(tA <= 1, tB <= 1)))
    ratios = [1 / T, sp.Integer(1), T]
    case = Case(
        "reported outcome r (weight A under x), other outcomes (total weight B)",
        A / (A + B),
        A * tA / (A * tA + B * tB),
        (sp.Tuple(A, B), sp.Tuple(A * tA, B * tB), "outcome r"),
        constraints=tuple(cons),
        grid={A: [1], B: [0, 1, 2, 10, 100, 1000], tA: ratios, tB: ratios},
        note="inputs are (weight of r, total weight of the other outcomes), weight = "
        "exp(c * utility); realised by k = B + 1 outcomes of utility 0 under x, whose "
        "utilities move by ln(weight ratio)/c under x', within Delta_u",
    )
    # the supremum: r's weight falls by T while the others' rise by T (or, for monotone
    # neighbours, stay), as the others' total weight B grows
    sup = (
        mech.rate * mech.sensitivity * (1 if mech.monotone else 2),
        0,
        {A: 1, tA: 1 if mech.monotone else 1 / T, tB: T},
        B,
    )
    return Formulation(
        (case,), tight_note="a supremum approached as B/A grows, not attained", supremum=sup
    )


@formulate.register
def _(mech: m.ReportNoisyMax) -> Formulation:
    g = sp.Dummy("g", positive=True)
    win1 = mech.win_probability_two
    shift = 1 if mech.monotone else 2  # how far the winning threshold can move
    moved = "x adds a record to query 2" if mech.monotone else "query 2 gains 1 and query 1 loses 1"
    case = Case(
        f"two queries; {moved}; report query 2",
        1 - win1(g + 1 - shift),
        1 - win1(g + 1),
        (sp.Tuple(g + 2 - shift, 1), sp.Tuple(g + 1, 0), "argmax = query 2"),
        grid={g: [1, 2, 5, 10, 20, 50, 100, 200]},
    )
    b = mech.scale
    noise = "Exp" if mech.noise == "exponential" else "Laplace"

    def lemmas(eps):
        z, E = sp.Dummy("z", positive=True), sp.Dummy("E", positive=True)
        if mech.noise == "exponential":
            survival = lambda w: sp.Piecewise((1 / w, w >= 1), (1, True))
        else:
            survival = lambda w: sp.Piecewise((1 / (2 * w), w >= 1), (1 - w / 2, True))
        c_i, r_i, c_j, d_i, d_j, M = sp.symbols("c_i r_i c_j d_i d_j M", cls=sp.Dummy, real=True)
        lo = 0 if mech.monotone else -1
        box = (M >= c_i + r_i, d_i >= lo, d_i <= 1, d_j >= lo, d_j <= 1)
        shifts = (
            Lemma(
                f"threshold shift, answers up: (c_i+d_i+r_i) - (c_j+d_j) <= M - c_j + {shift}",
                (c_i + d_i + r_i) - (c_j + d_j),
                M - c_j + shift,
                box,
            ),
            Lemma(
                f"threshold shift, answers down: (c_i-d_i+r_i) - (c_j-d_j) <= M - c_j + {shift}",
                (c_i - d_i + r_i) - (c_j - d_j),
                M - c_j + shift,
                box,
            ),
        )
        return (
            *shifts,
            Lemma(
                f"{noise} tail: S(t)/e^({shift}/b) <= S(t+{shift}), z = e^(t/b), E = e^(1/b)",
                survival(z) / E**shift,
                survival(z * E**shift),
                (E > 1,),
            ),
            Lemma(f"{shift}/b <= epsilon", shift / b, eps),
        )

    return Formulation(
        (case,),
        lemmas=lemmas,
        lemma_argument=(
            "Fix the other noises r_{-j}. Query j wins iff r_j > r* = max_{i != j}(c_i + r_i) - "
            "c_j. "
            f"Every term of the new threshold is at most the old threshold + {shift} (lemmas "
            "1-2: answers move by at most 1, "
            f"{'all the same way' if mech.monotone else 'each its own way'}), "
            f"so r*' <= r* + {shift} for any number of queries, and P[j wins on x'] >= "
            f"P[r_j > r* + {shift}] >= e^(-{shift}/b) P[r_j > r*] (lemma 3, with the Laplace "
            f"survival S of the {noise} noise written in z = exp(t/b), a bijection of the "
            "reals onto z > 0). "
            f"Integrating over r_{{-j}} gives the ratio bound e^({shift}/b) <= e^eps (lemma 4)."
        ),
        **(
            dict(tight=(shift / b, 0, {g: 1}))  # N2 - N1 is Lap(b): the ratio is exact for g >= 1
            if mech.noise == "exponential"
            else dict(
                tight_note="a supremum approached as the gap grows, not attained",
                supremum=(shift / b, 0, {}, g),
            )
        ),
    )


@formulate.register
def _(mech: m.NoisyMaxValue) -> Formulation:
    y = sp.Dummy("y", real=True)
    moved = "every answer moves up by 1 (from 0 to 1)"
    case = Case(
        f"{moved}; the maximum is y",
        mech.density(0, y),
        mech.density(1, y),
        (f"{mech.queries} answers, all 0", f"{mech.queries} answers, all 1", y),
        grid={y: [sp.Rational(1, 2), -1, 0, 1, 2, -10]},
        note=f"all {mech.queries} answers equal",
    )
    if mech.noise == "exponential":
        return Formulation(
            (case,),
            tight_note="unbounded: below the moved support the density is 0",
            unbounded=(0, {y: sp.Rational(1, 2)}),
        )
    return Formulation(
        (case,),
        lemmas=lambda eps: coordinate_lemmas(mech.scale, mech.queries, eps),
        lemma_argument="The maximum is a post-processing of the m noisy answers (Dwork and Roth "
        "2014, Prop. 2.1), which move by at most m in L1 norm. "
        + _SEPARABLE.replace("Delta_1", "m"),
        tight=(mech.queries / mech.scale, 0, {y: -1}),
    )


@formulate.register
def _(mech: m.FiniteMechanism) -> Formulation:
    outputs = list(next(iter(mech.pmf.values())))
    cases = tuple(
        Case(
            f"x={x!r}, x'={xp!r}, y={y!r}",
            as_expr(mech.pmf[x][y], "pmf"),
            as_expr(mech.pmf[xp][y], "pmf"),
            (x, xp, y),
        )
        for x, xp in mech.neighbour_pairs()
        for y in outputs
    )
    return Formulation(cases, tight=_finite_tight(cases), unbounded=_finite_unbounded(cases))


@formulate.register
def _(mech: m.Rappor) -> Formulation:
    s1, s0 = mech.bit_probabilities()
    h = mech.h
    bound = h * (sp.log(s1 / s0) + sp.log((1 - s0) / (1 - s1)))
    # Direct case: x sets bits 1..h, x' sets bits h+1..2h (disjoint filters), the report shows
    # ones exactly on 1..h. Every other bit has the same law under x and x' and cancels.
    case = Case(
        "disjoint Bloom filters of h bits each; report = x's filter",
        s1**h * (1 - s0) ** h,
        s0**h * (1 - s1) ** h,
        ("h ones on bits 1..h", "h ones on bits h+1..2h", "ones on bits 1..h only"),
    )

    def lemmas(eps):
        return (
            Lemma("a set bit reports 1 more often: P[1 | bit 1] >= P[1 | bit 0]", s0, s1),
            Lemma("bit 1 -> 0: the report 0 has the smaller ratio", (1 - s1) * s0, s1 * (1 - s0)),
            Lemma("total: h ln(s1/s0) + h ln((1-s0)/(1-s1)) <= epsilon", bound, eps),
        )

    return Formulation(
        (case,),
        lemmas=lemmas,
        lemma_argument=(
            "Reported bits are independent given the Bloom filters, so the log-ratio is a sum over "
            "the bits where the two filters differ. A bit set only under x contributes at most "
            "ln(s1/s0) (lemmas 1-2), a bit set only under x' at most ln((1-s0)/(1-s1)); each "
            "filter "
            "has at most h set bits, so each kind occurs at most h times (lemma 3)."
        ),
        tight=(bound, 0, {}),
    )


@formulate.register
def _(mech: m.RepeatedOneBit) -> Formulation:
    one = formulate(mech.single)
    T = sp.Integer(1) if mech.memoized else mech.reports
    x, xp = sp.symbols("x xp", cls=sp.Dummy, real=True)
    p1, p1p = mech.single.p_one(x), mech.single.p_one(xp)
    cons = (x >= 0, x <= mech.m, xp >= 0, xp <= mech.m)
    # Direct case: all T reports are 1 (memoized: the only other output is all 0).
    case = Case(
        f"x, x' in [0, m], all {'(memoized) ' if mech.memoized else ''}reports 1",
        p1**T,
        p1p**T,
        (x, xp, "(1, ..., 1)"),
        constraints=cons,
        grid={x: [mech.m, mech.m / 2], xp: [0, mech.m / 2]},
    )

    def lemmas(eps):
        per_report = tuple(
            Lemma(
                f"one report, {c.label}: P[y | x] <= e^eps1 P[y | x']",
                c.p,
                sp.exp(mech.epsilon) * c.q,
                c.constraints,
            )
            for c in one.cases
        )
        return per_report + (
            Lemma(
                f"{'memoized: one draw' if mech.memoized else 'T reports'}: {T} * eps1 <= epsilon",
                T * mech.epsilon,
                eps,
            ),
        )

    argument = (
        "The memoized reports repeat one eps-LDP bit: a post-processing of it."
        if mech.memoized
        else "T independent reports: the log-ratio is the sum of T one-report log-ratios."
    )
    return Formulation(
        (case,),
        lemmas=lemmas,
        lemma_argument=argument,
        tight=(T * mech.epsilon, 0, {x: mech.m, xp: 0}),
    )


# formulations of doubles, of the sparse vector technique and of compositions register
# themselves
from proofs.checkers import floats as _floats  # noqa: E402, F401
from proofs.checkers import sparse_vector as _sparse_vector  # noqa: E402, F401
