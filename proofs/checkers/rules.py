"""General rules: the symbolic arguments behind composition and post-processing claims.

A claim such as ``SequentialComposition(instances, rule=R)`` states a *theorem*: for every
eps1-DP mechanism M1 and eps2-DP mechanism M2 (M2 may see M1's output), the composition is
R(eps1, eps2)-DP. Checking the listed instances cannot prove that. Here it is

- ``proved`` by a structured argument whose steps are for-all inequalities discharged by exact
  algebra or z3 (:func:`proofs.decide.discharge`): the classical theorem (basic composition,
  Dwork and Roth 2014, Thm 3.16 and B.1; post-processing, Prop. 2.1), written as pointwise
  lemmas, and the *dominance* of the rule: eps1 + eps2 <= R(eps1, eps2) for every
  eps1, eps2 >= 0 (and delta1 + delta2 - delta1 delta2 <= D(delta1, delta2) for delta_i in
  [0, 1]: the optimal composition's delta at eps1 + eps2, which the same argument reaches);
- ``refuted`` by a generated instance: the canonical (eps, delta) mechanisms of Kairouz, Oh and
  Viswanath (2015, Sec. 3), binary randomized response when delta = 0, whose exact epsilon and
  delta are known. Composing two of them at rational e^eps_i attains eps1 + eps2 exactly, so a
  rule below it somewhere fails on that instance, re-checked with exact or arb arithmetic;
- otherwise left to the caller, who reports ``checked`` (the listed instances only).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import sympy as sp

from proofs.decide import at, compare, discharge, undecided_gives
from proofs.errors import Undecided
from proofs.finite import canonical_mechanism, compose, finite_delta, finite_ratio, post_process
from proofs.results import Counterexample
from proofs.symbols import D1, D2, E0, E1, E2

__all__ = ["GeneralOutcome", "composition_rule", "postprocessing_rule"]


# the proofs quantify over eps >= 0 (a constant mechanism has eps = 0)
_E0n, _E1n, _E2n = (sp.Dummy(f"e{i}", nonnegative=True) for i in range(3))
_RATIOS = (2, 3, sp.Rational(3, 2), 1, 5, 10, sp.Rational(11, 10))
_DELTAS = (0, sp.Rational(1, 10), sp.Rational(1, 100), sp.Rational(1, 2))


@dataclass(frozen=True, slots=True)
class GeneralOutcome:
    """'proved' (with steps), 'refuted' (with a re-checked counterexample) or 'open'."""

    status: str
    steps: tuple[str, ...] = ()
    counterexample: Counterexample | None = None
    reason: str = ""


def _open(steps) -> GeneralOutcome:
    """Neither proved nor refuted: the steps that stayed open are the reason."""
    open_steps = "; ".join(s for s in steps if "proved" not in s)
    return GeneralOutcome(
        "open",
        tuple(steps),
        reason=f"the general rule was neither proved nor refuted: {open_steps}",
    )


def _lemma(label: str, lhs, rhs, constraints=()) -> tuple[str, bool]:
    out = discharge(lhs, rhs, list(constraints))
    return f"{label}: {out.status} ({out.detail})", out.status == "proved"


def _near_model(floor: sp.Expr, rule: sp.Expr, names: tuple) -> list[tuple]:
    """Integer ratios near e^v for each of ``names``, v its value in z3's model where the
    dominance ``floor <= rule`` fails (floor and rule over ``names``): a rule false only where
    the fixed ratios do not reach (eps0 > 50, say) is refuted by canonical mechanisms at ln r,
    re-checked exactly there. Empty past v = 10,000 (a ratio of 4,300 digits and more)."""
    values = (discharge(floor, rule, []).model or {}).get("symbols", {})
    near = []
    for name in names:
        v = values.get(name)
        if v is None or not 0 <= float(v) <= _MAX_MODEL_EPS:
            return []
        e = sp.exp(sp.Rational(sp.sympify(v))).evalf(int(float(v) / 2.3) + 30)
        low = sp.Integer(int(e))  # (e >= 1: the floor; and the ceiling next)
        near.append([r for r in (low, low + 1) if r >= 1])
    return list(itertools.product(*near))


_MAX_MODEL_EPS = 10_000


def _then(fixed, near):
    """The fixed candidates, then (asked only if none refuted: one more z3 call) the model's."""
    yield from fixed
    yield from near()


def _dominance(rule: sp.Expr, floor: sp.Expr, subs: dict, label: str, cons=()) -> tuple:
    return _lemma(label, floor.xreplace(subs), rule.xreplace(subs), cons)


_PRODUCT_ARGUMENT = (
    "P[(y, z) | x] = P1[y | x] P2[z | x, y]; M1 is eps1-DP and, for every y, M2(., y) is "
    "eps2-DP, so each factor's ratio between neighbours is at most e^eps_i and the product's at "
    "most e^(eps1 + eps2) (lemma 1), for every output; the rule is at least eps1 + eps2 "
    "(dominance)."
)
_APPROX_ARGUMENT = (
    "For any event S, P[S | x] = sum_y p1(y) P2[S_y | x] <= sum_y p1(y) min(1, e^eps2 P2[S_y | x'] "
    "+ delta2). With d = delta2 < 1 and h(y) = min(1, e^eps2 P2[S_y | x'] / (1 - d)) in [0, 1], "
    "min(1, e^eps2 P2[S_y | x'] + d) <= d + (1 - d) h(y) (lemma 1); (eps1, delta1)-DP extends "
    "from events to [0, 1]-valued h by integrating over its level sets {h > t}: sum_y p1 h <= "
    "e^eps1 sum_y q1 h + delta1; and (1 - d) h <= e^eps2 P2[S_y | x'] (lemma 2), so P[S | x] <= "
    "e^(eps1 + eps2) P[S | x'] + delta1 + delta2 - delta1 delta2 (at delta2 = 1 that bound is "
    "1: nothing to show). This is basic composition (Dwork and Roth 2014, Thm 3.16 and B.1) "
    "with the delta of the optimal one at eps1 + eps2, 1 - (1 - delta1)(1 - delta2) (Kairouz, "
    "Oh and Viswanath 2015, Thm 3.3; Murtagh and Vadhan 2016); the rules are at least "
    "eps1 + eps2 and delta1 + delta2 - delta1 delta2 (dominance)."
)


def _composition_proof(rule: sp.Expr, delta_rule: sp.Expr | None) -> tuple[list[str], bool]:
    p1, q1, p2, q2, b, d = sp.symbols("p1 q1 p2 q2 b d", cls=sp.Dummy, nonnegative=True)
    x1, x2 = sp.symbols("X1 X2", cls=sp.Dummy, positive=True)
    steps, ok = [], True
    if delta_rule is None:
        step, good = _lemma(
            "lemma 1, product: p1 p2 <= X1 X2 q1 q2 when p_i <= X_i q_i",
            p1 * p2,
            x1 * x2 * q1 * q2,
            (p1 <= x1 * q1, p2 <= x2 * q2, x1 >= 1, x2 >= 1),
        )
        steps.append(step)
        ok &= good
    else:
        h = sp.Min(1, x2 * b / (1 - d))
        for label, lhs, rhs in (
            ("lemma 1: min(1, X b + d) <= d + (1 - d) h", sp.Min(1, x2 * b + d), d + (1 - d) * h),
            ("lemma 2: (1 - d) h <= X b", (1 - d) * h, x2 * b),
        ):
            step, good = _lemma(f"{label}, h = min(1, X b/(1 - d))", lhs, rhs, (x2 >= 1, d < 1))
            steps.append(step)
            ok &= good
    subs = {E1: _E1n, E2: _E2n}
    step, good = _dominance(rule, E1 + E2, subs, "dominance: eps1 + eps2 <= rule")
    steps.append(step)
    ok &= good
    if delta_rule is not None:
        step, good = _dominance(
            delta_rule,
            D1 + D2 - D1 * D2,
            {},
            "dominance: delta1 + delta2 - delta1 delta2 <= delta rule",
            (D1 <= 1, D2 <= 1),
        )
        steps.append(step)
        ok &= good
    steps.append("argument: " + (_PRODUCT_ARGUMENT if delta_rule is None else _APPROX_ARGUMENT))
    return steps, ok


def composition_rule(rule: sp.Expr, delta_rule: sp.Expr | None) -> GeneralOutcome:
    """Prove or refute "eps1- and eps2-DP compose to rule(eps1, eps2)-DP" (and, with
    `delta_rule`, the (eps, delta) form) for every pair of mechanisms."""
    steps, ok = _composition_proof(rule, delta_rule)
    if ok:
        return GeneralOutcome("proved", tuple(steps))
    deltas = (0,) if delta_rule is None else _DELTAS
    near = lambda: _near_model(_E1n + _E2n, rule.xreplace({E1: _E1n, E2: _E2n}), (_E1n, _E2n))
    for r1, r2 in _then(itertools.product(_RATIOS, repeat=2), near):
        for d1, d2 in itertools.product(deltas, repeat=2):
            cex = _composition_instance(r1, d1, r2, d2, rule, delta_rule)
            if cex is not None:
                return GeneralOutcome("refuted", tuple(steps), cex)
    return _open(steps)


@undecided_gives(None)
def _composition_instance(r1, d1, r2, d2, rule, delta_rule) -> Counterexample | None:
    m1, m2 = canonical_mechanism(r1, d1), canonical_mechanism(r2, d2)
    e1, e2 = sp.log(sp.Rational(r1)), sp.log(sp.Rational(r2))
    comp = compose(m1, m2)
    instance = f"M1 = {m1.name}, M2 = {m2.name}, both on inputs 0 and 1"
    if delta_rule is None:
        bound = sp.exp(at(rule, {E1: e1, E2: e2}))
        ratio, (x, xp, y) = finite_ratio(comp)
        status, how = compare(ratio, bound)
        if status != "violated":
            return None
        return Counterexample(
            {"eps1": str(e1), "eps2": str(e2)},
            (x, xp),
            y,
            f"P[M(x)=y]/P[M(x')=y] = {ratio}",
            f"e^rule = {bound}",
            how,
            note=f"generated instance: {instance} (exact epsilons ln r)",
        )
    e_tot = at(rule, {E1: e1, E2: e2})
    d_bound = at(delta_rule, {D1: d1, D2: d2})
    for m, e, d in ((m1, e1, d1), (m2, e2, d2)):
        if compare(finite_delta(m, e)[0], d)[0] not in ("exact", "certified"):
            return None  # not an (e, d)-DP instance after all
    value, (x, xp, event) = finite_delta(comp, e_tot)
    status, how = compare(value, d_bound)
    if status != "violated":
        return None
    return Counterexample(
        {"eps1": str(e1), "delta1": str(d1), "eps2": str(e2), "delta2": str(d2)},
        (x, xp),
        set(event),
        f"P[M(x) in S] - e^rule P[M(x') in S] = {value}",
        f"delta rule = {d_bound}",
        how,
        note=f"generated instance: {instance} (exact profiles)",
    )


_POST_ARGUMENT = (
    "P[f(M(x)) = z] = sum_y P[M(x) = y] K(y, z) with K(y, z) >= 0 the map's probabilities; "
    "each term's ratio is at most e^eps0 (lemma 1), hence the sum's; the rule is at least eps0 "
    "(dominance). For delta: sum_z (sum_y K(y,z)(p_y - e^eps q_y))_+ <= sum_z sum_y K(y,z) "
    "(p_y - e^eps q_y)_+ (lemmas 2 and 3) = sum_y (p_y - e^eps q_y)_+ since sum_z K(y, z) = 1 "
    "(Dwork and Roth 2014, Prop. 2.1)."
)


def postprocessing_rule(rule: sp.Expr) -> GeneralOutcome:
    """Prove or refute "post-processing an eps0-DP mechanism gives rule(eps0)-DP, and never
    increases delta(eps)" for every mechanism and every (randomised) map."""
    p, q, k = sp.symbols("p q K", cls=sp.Dummy, nonnegative=True)
    a_r, b_r = sp.symbols("a_r b_r", cls=sp.Dummy, real=True)
    x = sp.Dummy("X", positive=True)
    steps, ok = [], True
    for label, lhs, rhs, cons in (
        ("lemma 1: p K <= X q K when p <= X q, K >= 0", p * k, x * q * k, (p <= x * q,)),
        (
            "lemma 2: max(0, a + b) <= max(0, a) + max(0, b)",
            sp.Max(0, a_r + b_r),
            sp.Max(0, a_r) + sp.Max(0, b_r),
            (),
        ),
        (
            "lemma 3: max(0, K a) <= K max(0, a) for K >= 0",
            sp.Max(0, k * a_r),
            k * sp.Max(0, a_r),
            (),
        ),
    ):
        step, good = _lemma(label, lhs, rhs, cons)
        steps.append(step)
        ok &= good
    step, good = _dominance(rule, E0, {E0: _E0n}, "dominance: eps0 <= rule")
    steps.append(step)
    ok &= good
    steps.append("argument: " + _POST_ARGUMENT)
    if ok:
        return GeneralOutcome("proved", tuple(steps))
    near = lambda: [r for (r,) in _near_model(_E0n, rule.xreplace({E0: _E0n}), (_E0n,))]
    for r in _then(_RATIOS, near):
        mech = canonical_mechanism(r)
        e0 = sp.log(sp.Rational(r))
        try:
            bound = sp.exp(at(rule, {E0: e0}))
        except Undecided:
            continue
        post = post_process(mech, {y: y for y in mech.pmf[0]})
        ratio, (x0, xp, z) = finite_ratio(post)
        status, how = compare(ratio, bound)
        if status == "violated":
            cex = Counterexample(
                {"eps_0": str(e0)},
                (x0, xp),
                z,
                f"P[f(M(x))=z]/P[f(M(x'))=z] = {ratio}",
                f"e^rule = {bound}",
                how,
                note=f"generated instance: M = {mech.name} (exact epsilon "
                f"ln {r}), f the identity map",
            )
            return GeneralOutcome("refuted", tuple(steps), cex)
    return _open(steps)
