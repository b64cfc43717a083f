"""Group privacy: what (eps, delta)-DP says about inputs at distance k.

If x = z_0 ~ z_1 ~ ... ~ z_k = y (neighbours), chaining P[M(z_i) in S] <= e^eps P[M(z_{i+1}) in S]
+ delta gives (Dwork and Roth 2014, Thm 2.2 for delta = 0; notes 001 "Group privacy")

    P[M(x) in S] <= e^{k eps} P[M(y) in S] + delta sum_{i<k} e^{i eps}     (the chain bound)
                 <= e^{k eps} P[M(y) in S] + k e^{(k-1) eps} delta          (the standard form).

A claim :class:`GroupPrivacy` (eps_k, delta_k) is proved for every k >= 1 by induction on k:
base eps_k(1) >= eps, delta_k(1) >= delta; step eps + eps_k(k) <= eps_k(k+1) and
e^{eps_k(k)} delta + delta_k(k) <= delta_k(k+1) (the chain argument). Each inequality is
discharged by exact algebra or z3, with e^eps and e^{(k-1) eps} as independent variables >= 1
(a relaxation, so proofs stay sound). Otherwise a counterexample is sought on the chain
mechanism that attains the chain bound: z_j reports S with probability
a e^{(k-j) eps} + delta sum_{i<k-j} e^{i eps}; every neighbouring pair is re-checked to be
(eps, delta)-DP and the pair (z_0, z_k) to violate the claim, in exact rational arithmetic.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import sympy as sp

from proofs.claims import GroupPrivacy
from proofs.decide import at, known, show, undecided_gives
from proofs.decide import compare as _compare
from proofs.finite import finite_delta
from proofs.formulas import chain_delta
from proofs.mechanisms import FiniteMechanism
from proofs.results import Counterexample, Finding, Verdict
from proofs.smt import prove_forall
from proofs.symbols import DEL, EPS, K
from proofs.validate import MAX_GROUP

__all__ = ["MAX_CHAIN", "chain_mechanism", "check", "supports"]

MAX_CHAIN = MAX_GROUP  # every group size a claim may name has its chain mechanism


_F = sp.Dummy("F", positive=True)  # e^{(k-1) eps}


_X = sp.Dummy("X", positive=True)  # e^{eps}


class _Outside(Exception):
    pass


def _exp_vars(expr: sp.Expr) -> sp.Expr:
    """Replace e^{(m k + n) eps} by F^m X^(m+n) (F = e^{(k-1) eps}, X = e^eps), m >= 0."""

    def sub(arg):
        poly = sp.Poly(sp.expand(arg), K, EPS)
        m = n = 0
        for (pk, pe), c in poly.terms():
            if (pk, pe) == (1, 1):
                m = c
            elif (pk, pe) == (0, 1):
                n = c
            elif c != 0:
                raise _Outside(f"exp({arg})")
        if not (sp.sympify(m).is_Integer and sp.sympify(n).is_Integer and m >= 0):
            raise _Outside(f"exp({arg})")
        return _F**m * _X ** (m + n)

    return expr.replace(lambda e: isinstance(e, sp.exp), lambda e: sub(e.args[0]))


def _branches(expr: sp.Expr) -> list[tuple[sp.Expr, list]]:
    """Evaluate sums; split Piecewise results on exp(eps) = 1 (eps = 0) versus eps > 0."""
    expr = sp.sympify(expr).doit()
    pw = [p for p in sp.preorder_traversal(expr) if isinstance(p, sp.Piecewise)]
    if not pw:
        return [(expr, [])]
    zero = expr.subs(EPS, 0).doit()
    positive = expr
    for p in pw:
        conds = [c for _v, c in p.args]
        if not all(c is sp.true or c in (sp.Eq(sp.exp(EPS), 1), sp.Eq(EPS, 0)) for c in conds):
            raise _Outside(f"condition in {p}")
        positive = positive.subs(p, p.args[-1][0])
    return [(sp.simplify(zero), [sp.Eq(EPS, 0)]), (positive, [EPS > 0])]


def _prove_le(lhs: sp.Expr, rhs: sp.Expr, extra=()) -> tuple[str, str]:
    """For all k >= 1, eps >= 0, 0 <= delta <= 1: lhs <= rhs? ('proved' | 'open', how)."""
    try:
        hows = []
        for branch, cons in _branches(sp.sympify(rhs) - sp.sympify(lhs)):
            if cons and cons[0] == sp.Eq(EPS, 0):
                branch = sp.simplify(branch.subs(EPS, 0))
            gap = sp.simplify(_exp_vars(sp.sympify(branch)))
            if gap == 0 or known(gap, "nonnegative"):
                hows.append("exact algebra")
                continue
            domain = [K >= 1, DEL <= 1, _X >= 1, _F >= 1, *extra]
            if cons and cons[0] != sp.Eq(EPS, 0):
                domain.append(_X > 1)
            out = prove_forall(sp.Integer(0), gap, domain)
            if out.status != "proved":
                return "open", out.reason or "z3 found a model of the relaxation"
            hows.append("z3")
        return "proved", "/".join(hows)
    except (_Outside, sp.PolynomialError, TypeError, ValueError) as exc:
        return "open", f"outside the prover's fragment: {exc}"


def chain_mechanism(
    k: int, e_eps: sp.Rational, delta: sp.Rational, a: sp.Rational
) -> FiniteMechanism:
    """Inputs z_0..z_k on a path; z_j reports 'S' with probability
    a E^(k-j) + delta sum_{i<k-j} E^i (E = e^eps) and 'T' otherwise. Tight for the chain bound."""
    probs = [
        _rational(p) for p in _chain_probs(k, _fraction(e_eps), _fraction(delta), _fraction(a))
    ]
    pmf = {f"z{j}": {"S": p, "T": 1 - p} for j, p in enumerate(probs)}
    pairs = tuple((f"z{j}", f"z{j + 1}") for j in range(k))
    return FiniteMechanism(pmf, pairs, name=f"chain of {k + 1} inputs")


def _fraction(x) -> Fraction:
    x = sp.Rational(x)
    return Fraction(int(x.p), int(x.q))


def _rational(x: Fraction) -> sp.Rational:
    return sp.Rational(x.numerator, x.denominator)


def _chain_probs(k: int, E: Fraction, delta: Fraction, a: Fraction) -> list[Fraction]:
    """P[z_j reports S] for j = 0..k: a at z_k, then P_j = E P_{j+1} + delta (the closed form
    a E^(k-j) + delta sum_{i<k-j} E^i, in k steps instead of k^2)."""
    probs = [a]
    for _ in range(k):
        probs.append(E * probs[-1] + delta)
    return probs[::-1]


def _chain_delta(probs: list[Fraction], E: Fraction) -> Fraction:
    """The exact delta at e^eps = E of the chain's neighbouring pairs, both orders: the largest
    sum of the positive parts of P[M(x) = y] - E P[M(x') = y] over the outputs y in {S, T}
    (the worst event), in exact rationals (the chain of a large group is too big for SymPy)."""
    worst = Fraction(0)
    for p, q in itertools.pairwise(probs):
        for x, xp in ((p, q), (q, p)):
            gap = max(x - E * xp, Fraction(0)) + max((1 - x) - E * (1 - xp), Fraction(0))
            worst = max(worst, gap)
    return worst


_E_CANDIDATES = [sp.Integer(2), sp.Rational(3, 2), sp.Integer(3), sp.Rational(11, 10)]


_D_CANDIDATES = [sp.Rational(1, 10), sp.Rational(1, 100), sp.Integer(0)]
# group sizes tried for a claim on every k (false only for large groups: 8, 16, 64)
_K_CANDIDATES = (1, 2, 3, 4, 8, 16, 64)


def _check_group_privacy(claim) -> Finding:
    ek, dk = claim.eps_k, claim.delta_k
    if claim.pure:
        ek, dk = ek.subs(DEL, 0), dk.subs(DEL, 0)
    steps: list[str] = []
    if claim.k is None:
        ok = _every_k(ek, dk, claim.pure, steps)
        how = "induction on k (chain argument)"
    else:
        ok, how = _one_k(claim.k, ek, dk, claim.pure, steps)
    if ok:
        how = f"{how}, steps by exact algebra and z3{_limit_note(ek, dk)}"
        return Finding(Verdict.PROVED, how, steps=tuple(steps))
    cex = _group_privacy_counterexample(claim, ek, dk)
    if cex is not None:
        return Finding(
            Verdict.REFUTED,
            "counterexample on a chain mechanism, re-checked exactly",
            counterexample=cex,
            steps=tuple(steps),
        )
    return Finding(
        Verdict.UNKNOWN,
        "induction on k",
        reason="no proof and no counterexample found",
        steps=tuple(steps),
    )


def _limit_note(ek, dk) -> str:
    """Say where a proved formula divides by zero at eps = 0 (delta (e^{k eps} - 1)/(e^eps - 1)
    is 0/0 there): the algebra cancelled the vanishing factor, so what is proved at eps = 0 is
    the formula's limit as eps -> 0+ (the inequality holds for every eps > 0, hence in the
    limit)."""
    undefined = []
    for name, expr in (("eps_k", ek), ("delta_k", dk)):
        den = sp.fraction(sp.together(sp.sympify(expr)))[1]
        if EPS in den.free_symbols and sp.simplify(den.subs(EPS, 0)) == 0:
            undefined.append(name)
    if not undefined:
        return ""
    return (
        f"; at eps = 0 {' and '.join(undefined)} divides by zero and is read as its limit as"
        " eps -> 0+"
        " (proved for every eps > 0, so the limit holds too)"
    )


def _every_k(ek, dk, pure: bool, steps: list) -> bool:
    """The claim for every k >= 1, by induction on k (its steps noted in ``steps``)."""
    obligations = [
        ("base eps_k(1) >= eps", EPS, ek.subs(K, 1)),
        ("base delta_k(1) >= delta", DEL, dk.subs(K, 1)),
        ("step eps + eps_k(k) <= eps_k(k+1)", EPS + ek, ek.subs(K, K + 1)),
        (
            "step e^eps_k(k) delta + delta_k(k) <= delta_k(k+1)",
            sp.exp(ek) * DEL + dk,
            dk.subs(K, K + 1),
        ),
    ]
    if _discharge(obligations, pure, steps):
        return True
    # the claim's own eps_k in the step asks too much where eps_k exceeds k eps (k eps + 1
    # with the chain's delta): the induction at eps = k eps, then eps_k >= k eps
    steps.append("again, by induction at k eps (then weakened to eps_k):")
    return _discharge(
        [
            ("eps_k >= k eps, every k", K * EPS, ek),
            ("base delta_k(1) >= delta", DEL, dk.subs(K, 1)),
            (
                "step e^(k eps) delta + delta_k(k) <= delta_k(k+1)",
                sp.exp(K * EPS) * DEL + dk,
                dk.subs(K, K + 1),
            ),
        ],
        pure,
        steps,
    )


def _one_k(k: int, ek, dk, pure: bool, steps: list) -> tuple[bool, str]:
    """The claim at the one group size ``k``: from the chain bound, proved for every k, at
    that k. A claim whose formulas hold for every k holds at this one too, and the induction
    proves that without expanding the chain's sum of k powers of e^eps (at k = 1000 the
    expanded sum took z3 40 s and ended unknown), so it is tried first."""
    if K in (ek.free_symbols | dk.free_symbols):
        tried: list[str] = []
        if _every_k(ek, dk, pure, tried):
            steps.extend(tried)
            return True, f"k = {k}: the claim holds for every k >= 1, by induction on k"
        steps.append("not proved for every k (so judged at k alone):")
    obligations = [
        ("eps_k >= k eps", k * EPS, ek.subs(K, k)),
        ("delta_k >= delta sum_{i<k} e^{i eps}", chain_delta().doit().subs(K, k), dk.subs(K, k)),
    ]
    return _discharge(obligations, pure, steps), f"k = {k} from the chain bound"


def _discharge(obligations, pure: bool, steps: list) -> bool:
    """Prove each (label, lhs, rhs): lhs <= rhs for every k >= 1, eps >= 0, delta in [0, 1]
    (delta 0 when ``pure``), noting each in ``steps``; True when all are proved."""
    ok = True
    for label, lhs, rhs in obligations:
        if pure:
            lhs, rhs = sp.sympify(lhs).subs(DEL, 0), sp.sympify(rhs).subs(DEL, 0)
        status, how = _prove_le(lhs, rhs)
        steps.append(f"{label}: {status} ({how})")
        ok &= status == "proved"
    return ok


def _group_privacy_counterexample(claim, ek, dk) -> Counterexample | None:
    if claim.k and claim.k > MAX_CHAIN:
        return None  # the chain of so large a group is too big to check exactly in time
    ks = [claim.k] if claim.k else list(_K_CANDIDATES)
    # and e^eps = 1 + 1/k^2, where sum_{i<k} e^{i eps} still exceeds (k-1) e^{(k-1) eps}, and
    # 1 + 10^-6 and 1 + 10^-12, where c k e^{(k-1) eps} delta, c < 1, falls below the chain's
    # delta (at k = 1000, c = 0.9999 only below eps = 2 10^-7)
    near = [1 + sp.Rational(1, k * k) for k in ks]
    tiny = [1 + sp.Rational(1, 10**6), 1 + sp.Rational(1, 10**12)]
    pairs = [(k, E) for k, n in zip(ks, near) for E in dict.fromkeys([*_E_CANDIDATES, n, *tiny])]
    for k, E in pairs:
        E = _fraction(E)
        geo = sum(E**i for i in range(k))
        # the fixed deltas, and one the chain can carry at this k (the fixed ones are too
        # large for a long chain: delta sum_{i<k} E^i must stay below 1)
        fixed = [_fraction(d) for d in _D_CANDIDATES]
        deltas = [Fraction(0)] if claim.pure else [*fixed, Fraction(1, 2 * math.ceil(geo))]
        for d in dict.fromkeys(deltas):
            top = d * geo
            for a in (Fraction(0), (1 - top) / (2 * E**k), (1 - top) / E**k):
                if a < 0 or top + a * E**k > 1:
                    continue
                cex = _group_privacy_recheck(k, E, d, a, ek, dk)
                if cex is not None:
                    return cex
    return None


@undecided_gives(None)
def _group_privacy_recheck(k, E, d, a, ek, dk) -> Counterexample | None:
    probs = _chain_probs(k, E, d, a)
    chain_d = _chain_delta(probs, E)
    if chain_d > d:
        return None  # the chain is not (eps, delta)-DP: not a valid instance
    eps, E, d = sp.log(_rational(E)), _rational(E), _rational(d)
    vals = {K: k, EPS: eps, DEL: d}
    e_k, d_k = at(sp.sympify(ek), vals).doit(), at(sp.sympify(dk), vals).doit()
    ends = {
        z: {"S": _rational(p), "T": 1 - _rational(p)}
        for z, p in (("z0", probs[0]), (f"z{k}", probs[-1]))
    }
    group = FiniteMechanism(ends, (("z0", f"z{k}"),), name="group pair")
    value, (x, xp, event) = finite_delta(group, e_k)
    status, how = _compare(value, d_k)
    if status != "violated":
        return None
    shown = list(enumerate(probs))
    if len(shown) > 8:  # a long chain's pmf is its closed form and a few of its values
        shown = [*shown[:3], *shown[-3:]]
    return Counterexample(
        {"k": k, "e^eps": show(E), "delta": show(d), "a": show(_rational(a))},
        (x, xp),
        set(event),
        f"P[M(x) in S] - e^eps_k P[M(y) in S] = {show(value)}",
        f"delta_k = {show(d_k)}",
        how,
        note=f"chain z0..z{k}: every neighbouring pair is ({eps}, {show(d)})-DP (exact delta "
        f"{show(_rational(chain_d))}); z_j reports S with probability a e^((k-j) eps) + delta "
        "sum_{i<k-j} e^(i eps), T otherwise; {z_j: P[S]} = "
        + ", ".join(f"z{j}: {show(_rational(p))}" for j, p in shown),
    )


def supports(claim) -> bool:
    return isinstance(claim, GroupPrivacy)


def check(claim: GroupPrivacy) -> Finding:
    return _check_group_privacy(claim)
