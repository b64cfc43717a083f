"""Inequalities between the distances of the closeness tool (:mod:`auditor.closeness`) for
distributions P, Q on m points: TV = L1/2 (definition), L2 <= L1, L1 <= sqrt(m) L2
(Cauchy-Schwarz), TV <= 1, KL >= 0 (Gibbs), Pinsker TV <= sqrt(KL/2) (Cover and Thomas 2006,
Lemma 11.6.1), the ordered EMD <= TV and the categorical EMD = TV (Li, Li and
Venkatasubramanian 2007, Sec. 4.2).

Each base fact is a structured proof whose steps are discharged by exact algebra or z3 (with
the argument for what is not mechanised, e.g. the reduction of Pinsker to two points, stated in
its steps). A :class:`proofs.DistanceBound` claim is ``proved`` when z3 derives it from the
proved facts (the facts used are listed); otherwise ``refuted`` by concrete rational
distributions re-checked exactly or with arb, or ``unknown``.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from functools import lru_cache

import sympy as sp
import z3

from proofs.checkers.distance_facts import ORDER, DistanceFact, distance_facts
from proofs.claims import DistanceBound
from proofs.claims.distributions import EMD, EMD_CAT, KL, L1, L2, TV, M
from proofs.decide import differ, greater, show
from proofs.results import Counterexample, Finding, Verdict
from proofs.smt import Translator, Unsupported

__all__ = ["DistanceFact", "check", "distance_facts", "supports"]


class _DistanceZ3(Translator):
    """Polynomials and square roots of the distance symbols as z3 terms. A square root is a
    fresh r >= 0 with r^2 = base when base >= 0; `defined` collects base >= 0 and non-zero
    denominators, which the proof must also establish."""

    def __init__(self) -> None:
        super().__init__()
        self.defined: list = []
        self.by_name: dict = {}

    def var(self, s: sp.Symbol):
        # a distance is one quantity whatever assumptions its symbol carries in a claim or a
        # fact: symbols are matched by name (the facts state the signs themselves)
        if s.name not in self.by_name:
            self.by_name[s.name] = z3.Real(self.fresh(s.name))  # (a name no other var has)
        return self.by_name[s.name]

    def term(self, e):
        e = sp.sympify(e)
        if e.is_Pow:  # before constants: sqrt(2) is r >= 0 with r^2 = 2, exactly
            return self._pow(e)
        if not (e.is_Rational or isinstance(e, sp.Symbol) or e.is_Add or e.is_Mul):
            raise Unsupported(f"{type(e).__name__} in {e}")
        return super().term(e)

    def _pow(self, e: sp.Pow):
        if not (e.exp.is_Rational and e.exp.q == 2):
            if not e.exp.is_Integer:  # (square roots only, with their definedness above)
                raise Unsupported(f"non-integer power {e}")
            if e.exp < 0:
                self.defined.append(self.term(e.base) != 0)
            return super()._pow(e)
        base = self.term(e.base)
        r = z3.FreshReal("sqrt")
        self.side += [r >= 0, z3.Implies(base >= 0, r * r == base)]
        self.defined.append(base >= 0)
        k = int(e.exp.p)
        if k < 0:
            self.defined.append(r != 0)
            return 1 / r ** (-k)
        return r**k


def _derive(lhs, rhs, relation, facts) -> tuple[list | None, str]:
    """The proved facts z3 needs to derive lhs <= rhs (or ==), or None and the reason."""
    tr = _DistanceZ3()
    try:
        left, right = tr.term(lhs), tr.term(rhs)
        formulas = [(f, z3.And([tr.boolean(r) for r in f.relations])) for f in facts if f.proved]
        m = tr.var(M)
    except Unsupported as exc:
        return None, f"outside the z3 fragment (polynomials and square roots): {exc}"
    goal = left <= right if relation == "<=" else left == right
    solver = z3.Solver()
    solver.set("timeout", 5000)
    solver.add(*tr.side, m >= 1)
    flags = []
    for i, (fact, formula) in enumerate(formulas):
        flag = z3.Bool(f"fact_{i}_{fact.name}")
        flags.append((flag, fact))
        solver.add(z3.Implies(flag, formula))
    undefined = z3.Not(z3.And(tr.defined)) if tr.defined else z3.BoolVal(False)
    solver.add(z3.Or(z3.Not(goal), undefined))
    answer = solver.check(*[flag for flag, _f in flags])
    if answer == z3.unsat:
        core = {str(c) for c in solver.unsat_core()}
        needed = [(flag, f) for flag, f in flags if str(flag) in core]
        for item in list(needed):  # drop facts the derivation does not need
            trial = [other for other in needed if other is not item]
            if solver.check(*[flag for flag, _f in trial]) == z3.unsat:
                needed = trial
        return [f for _flag, f in needed], ""
    if answer == z3.sat:
        return None, "z3: the proved facts do not imply it"
    return None, f"z3 returned unknown ({solver.reason_unknown()})"


def _compositions(total: int, parts: int):
    if parts == 1:
        yield (total,)
        return
    for first in range(total + 1):
        for rest in _compositions(total - first, parts - 1):
            yield (first, *rest)


def _float_values(P, Q) -> tuple:
    d = [float(p - q) for p, q in zip(P, Q)]
    l1 = sum(abs(x) for x in d)
    cums = list(itertools.accumulate(d))
    m = len(P)
    emd = sum(abs(c) for c in cums[:-1]) / (m - 1) if m > 1 else 0.0
    if any(p > 0 and q == 0 for p, q in zip(P, Q)):
        kl = math.inf
    else:
        kl = sum(float(p) * math.log(p / q) for p, q in zip(P, Q) if p > 0)
    return (l1 / 2, l1, math.sqrt(sum(x * x for x in d)), kl, emd, l1 / 2, float(m))


@lru_cache(maxsize=1)
def _candidate_pairs() -> tuple:
    """Pairs of rational distributions on 2 to 5 points (small m first), and a few on up to 20,
    with float distances."""
    F = Fraction
    grid = [
        F(0),
        F(1, 100),
        F(1, 10),
        F(1, 4),
        F(1, 3),
        F(1, 2),
        F(2, 3),
        F(3, 4),
        F(9, 10),
        F(99, 100),
        F(1),
    ]
    pairs = []
    for m, den in ((2, None), (3, 4), (4, 3), (5, 2)):
        if den is None:
            vs = [(p, 1 - p) for p in grid]
        else:
            vs = [tuple(F(c, den) for c in comp) for comp in _compositions(den, m)]
        if m == 3:
            vs += [(F(1, 3),) * 3, (F(1, 2), F(1, 3), F(1, 6)), (F(1, 10), F(1, 10), F(4, 5))]
        pairs += [(P, Q, _float_values(P, Q)) for P in vs for Q in vs]
    # a difference spread over many points: uniform against uniform on half of them (TV is
    # then sqrt(m) / 2 times L2; TV <= L2 fails from m = 5, which no grid above reaches)
    for m in (6, 8, 12, 20):
        uniform = (F(1, m),) * m
        half = (F(2, m),) * (m // 2) + (F(0),) * (m // 2)
        pairs += [(P, Q, _float_values(P, Q)) for P, Q in ((uniform, half), (half, uniform))]
    return tuple(pairs)


def _exact_values(P, Q) -> dict:
    def R(f: Fraction) -> sp.Rational:
        return sp.Rational(f.numerator, f.denominator)

    d = [p - q for p, q in zip(P, Q)]
    m = len(P)
    l1 = sum(abs(x) for x in d)
    cums = list(itertools.accumulate(d))
    emd = sum(abs(c) for c in cums[:-1]) / (m - 1) if m > 1 else Fraction(0)
    kl = sum((R(p) * sp.log(R(p) / R(q)) for p, q in zip(P, Q) if p > 0), sp.Integer(0))
    return {
        TV: R(l1) / 2,
        L1: R(l1),
        L2: sp.sqrt(R(sum(x * x for x in d))),
        KL: kl,
        EMD: R(emd),
        EMD_CAT: R(l1) / 2,
        M: sp.Integer(m),
    }


def _distance_counterexample(lhs, rhs, relation) -> Counterexample | None:
    """A pair P, Q violating the claim: floats find candidates, exact/arb arithmetic decides."""
    f_lhs = sp.lambdify(ORDER, lhs, modules="math")
    f_rhs = sp.lambdify(ORDER, rhs, modules="math")
    uses_kl = KL in (lhs.free_symbols | rhs.free_symbols)
    for P, Q, fv in _candidate_pairs():
        if uses_kl and math.isinf(fv[3]):
            continue
        try:
            a, b = f_lhs(*fv), f_rhs(*fv)
        except (ValueError, ZeroDivisionError, OverflowError, TypeError):
            continue
        if not all(isinstance(v, (int, float)) and math.isfinite(v) for v in (a, b)):
            continue
        tol = 1e-9 * max(1.0, abs(a), abs(b))
        if not (a - b > tol if relation == "<=" else abs(a - b) > tol):
            continue
        exact = _exact_values(P, Q)
        lv, rv = lhs.xreplace(exact), rhs.xreplace(exact)
        bad, how = greater(lv, rv) if relation == "<=" else differ(lv, rv)
        if not bad:
            continue

        def as_tuple(v) -> str:
            return "(" + ", ".join(str(x) for x in v) + ")"

        used = sorted(lhs.free_symbols | rhs.free_symbols, key=str)
        values = ", ".join(f"{s} = {show(exact[s])}" for s in used)

        def side(expr, value) -> str:
            return show(value) if not expr.free_symbols else f"{expr} = {show(value)}"

        if relation == "<=":
            ratio, bound = side(lhs, lv), side(rhs, rv)
        else:
            ratio, bound = f"|{lhs} - ({rhs})| = |{show(lv)} - {show(rv)}|", "0"
        return Counterexample(
            {"m": len(P), "P": as_tuple(P), "Q": as_tuple(Q)},
            (as_tuple(P), as_tuple(Q)),
            values,
            ratio,
            bound,
            how,
        )
    return None


def _check_distance_bound(claim) -> Finding:
    facts = distance_facts()
    used, why = _derive(claim.lhs, claim.rhs, claim.relation, facts)
    if used is not None:
        steps = []
        for f in used:
            steps.append(f"{f.name}: {f.statement} [{f.method}; {f.source}]")
            steps += [f"  {s}" for s in f.steps]
        names = ", ".join(f.name for f in used) or "no facts (m >= 1 only)"
        steps.append(f"z3: the claim follows from {names}")
        return Finding(
            Verdict.PROVED,
            f"structured proof: z3 from the proved facts {names}",
            steps=tuple(steps),
        )
    cex = _distance_counterexample(claim.lhs, claim.rhs, claim.relation)
    if cex is not None:
        return Finding(
            Verdict.REFUTED, "concrete distributions, re-checked", counterexample=cex, steps=(why,)
        )
    unproved = [f.name for f in facts if not f.proved]
    reason = why + f"; no counterexample among {len(_candidate_pairs())} pairs"
    if unproved:
        reason += f"; facts not proved: {', '.join(unproved)}"
    return Finding(Verdict.UNKNOWN, "z3 and search", reason=reason, steps=(why,))


def supports(claim) -> bool:
    return isinstance(claim, DistanceBound)


def check(claim: DistanceBound) -> Finding:
    return _check_distance_bound(claim)
