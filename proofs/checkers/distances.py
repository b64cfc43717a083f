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
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import sympy as sp
import z3

from proofs.claims import DistanceBound
from proofs.claims.distributions import (
    EMD,
    EMD_CAT,
    KL,
    L1,
    L2,
    TV,
    M,
    holds_everywhere,
)
from proofs.decide import differ, greater, is_zero, show
from proofs.results import Counterexample, Finding, Verdict
from proofs.smt import Translator, Unsupported

__all__ = ["DistanceFact", "check", "distance_facts", "supports"]


_ORDER = (TV, L1, L2, KL, EMD, EMD_CAT, M)


@dataclass(frozen=True, slots=True)
class DistanceFact:
    """A proved (or not) fact about the distances of every pair of distributions P, Q on m
    points: `relations` hold together; `steps` is its structured proof."""

    name: str
    relations: tuple
    statement: str
    proved: bool
    method: str
    steps: tuple[str, ...]
    source: str = ""


class _Proof:
    """Accumulates the steps of a structured proof; `ok` is False once a step is not shown."""

    def __init__(self) -> None:
        self.steps: list[str] = []
        self.ok = True

    def zero(self, label: str, expr: sp.Expr) -> None:
        """Logarithms are expanded with force=True: every proof below uses it only where all
        logarithm arguments are positive on the step's domain, where the expansion is exact."""
        done = is_zero(sp.expand_log(sp.sympify(expr), force=True))
        how = "SymPy simplifies the difference to 0" if done else "NOT SHOWN"
        self.steps.append(f"{label}: {how}")
        self.ok &= done

    def le(self, label: str, lhs, rhs, constraints=(), strict=False) -> None:
        done = holds_everywhere(lhs, rhs, constraints, strict)
        self.steps.append(f"{label}: {'z3 (unsat negation)' if done else 'NOT SHOWN'}")
        self.ok &= done

    def eq(self, label: str, lhs, rhs, constraints=()) -> None:
        done = holds_everywhere(lhs, rhs, constraints) and holds_everywhere(rhs, lhs, constraints)
        self.steps.append(f"{label}: {'z3, both directions' if done else 'NOT SHOWN'}")
        self.ok &= done

    def text(self, label: str) -> None:
        self.steps.append(label)

    def fact(self, name, relations, statement, method, source) -> DistanceFact:
        return DistanceFact(name, tuple(relations), statement, self.ok, method,
                            tuple(self.steps), source)


_LLV07 = ("Li, Li, Venkatasubramanian (2007), t-Closeness: privacy beyond k-anonymity and "
          "l-diversity, ICDE, Sec. 4.2")


_CT06 = "Cover and Thomas (2006), Elements of Information Theory, 2nd ed."


_N003 = 'notes 003, "Epsilon-closeness" (L2, L1, variational distance, KL)'


def _fact_definitions() -> DistanceFact:
    pr = _Proof()
    x = sp.Symbol("x", real=True)
    pr.text("definitions (auditor.closeness.distribution_distance, notes 003): d = P - Q, "
            "TV = (1/2) sum |d_i|, L1 = sum |d_i|, L2 = sqrt(sum d_i^2), EMD = (1/(m-1)) "
            "sum_{i<m} |d_1 + ... + d_i| (0 when m = 1), EMD_cat = min transport cost with "
            "ground distance 1")
    pr.le("|x| >= 0, so TV, L1, EMD >= 0; a square root is >= 0, so L2 >= 0", 0, sp.Abs(x))
    pr.text("TV = L1/2: the same sum, halved (definition)")
    return pr.fact("definitions", [sp.Eq(TV, L1 / 2), L1 >= 0, L2 >= 0, EMD >= 0,
                                   EMD_CAT >= 0],
                   "TV = L1/2; TV, L1, L2, EMD, EMD_cat >= 0", "definitions", _N003)


def _fact_l2_le_l1() -> DistanceFact:
    pr = _Proof()
    A, B, a, u, w = sp.symbols("A B a u w", nonnegative=True)
    x = sp.Symbol("x", real=True)
    pr.text("induction on m with A_m = sum_{i<=m} |d_i| (= L1), B_m = sum_{i<=m} d_i^2 (= L2^2)")
    pr.zero("base m = 1: B_1 = d_1^2 = |d_1|^2 = A_1^2", sp.Abs(x) ** 2 - x**2)
    pr.le("step: B <= A^2, A, a >= 0 imply B + a^2 <= (A + a)^2 (cross term 2 A a >= 0)",
          B + a**2, (A + a) ** 2, [B <= A**2])
    pr.le("L2^2 <= L1^2 with L1, L2 >= 0 gives L2 <= L1", u, w, [u**2 <= w**2])
    return pr.fact("l2_le_l1", [L2 <= L1], "L2 <= L1", "induction on m, steps by z3",
                   "sum of squares <= square of the sum of absolute values")


def _fact_cauchy_schwarz() -> DistanceFact:
    pr = _Proof()
    A, B, a = sp.symbols("A B a", nonnegative=True)
    m = sp.Symbol("m", positive=True)
    x = sp.Symbol("x", real=True)
    pr.text("induction on m with A_m = sum |d_i| (= L1), B_m = sum d_i^2 (= L2^2): "
            "A_m^2 <= m B_m")
    pr.zero("base m = 1: A_1^2 = |d_1|^2 = 1 * B_1", sp.Abs(x) ** 2 - x**2)
    pr.le("step: A^2 <= m B, m >= 1 imply (A + a)^2 <= (m + 1)(B + a^2) "
          "(2 A a <= A^2/m + m a^2)", (A + a) ** 2, (m + 1) * (B + a**2), [A**2 <= m * B, m >= 1])
    pr.text("L1^2 <= m L2^2 with L1, L2 >= 0 is L1 <= sqrt(m) L2")
    return pr.fact("cauchy_schwarz", [L1**2 <= M * L2**2], "L1 <= sqrt(m) L2",
                   "induction on m, steps by z3", "Cauchy-Schwarz inequality")


def _fact_tv_le_1() -> DistanceFact:
    pr = _Proof()
    p, q, l1 = sp.symbols("p q l1", nonnegative=True)
    pr.le("|p_i - q_i| <= p_i + q_i for p_i, q_i >= 0", sp.Abs(p - q), p + q)
    pr.text("summing: L1 <= sum p_i + sum q_i = 2")
    pr.le("L1 <= 2 gives TV = L1/2 <= 1", l1 / 2, 1, [l1 <= 2])
    return pr.fact("tv_le_1", [TV <= 1], "TV <= 1", "termwise bound by z3", _N003)


def _unimodal(pr: _Proof, label: str, f, x, x0, fprime, constraints) -> None:
    """f >= f(x0) = 0 on an interval containing x0: f(x0) = 0 and f' = fprime exactly (SymPy),
    (x - x0) f'(x) >= 0 (z3): by the mean value theorem f decreases left of x0 and increases
    right of it."""
    pr.zero(f"{label}: f({x0}) = 0", sp.sympify(f).subs(x, x0))
    pr.zero(f"{label}: f'({x}) = {fprime}", sp.diff(f, x) - fprime)
    pr.le(f"{label}: ({x} - {x0}) f'({x}) >= 0, so f decreases then increases, minimum "
          f"f({x0}) = 0", 0, (x - x0) * fprime, constraints)


def _fact_gibbs() -> DistanceFact:
    pr = _Proof()
    x = sp.Symbol("x", positive=True)
    p, q = sp.symbols("p q", positive=True)
    qs = sp.Symbol("Q_s", nonnegative=True)
    _unimodal(pr, "ln x <= x - 1 (g = x - 1 - ln x, x0 = 1)", x - 1 - sp.log(x), x, 1,
              1 - 1 / x, [])
    pr.zero("p ln(p/q) = -p ln(q/p)", p * sp.log(p / q) + p * sp.log(q / p))
    pr.zero("-p (q/p - 1) = p - q, so p ln(p/q) >= p - q for p, q > 0", -p * (q / p - 1) - (p - q))
    pr.text("summing over supp P: KL >= sum_{p_i > 0} (p_i - q_i) = 1 - Q(supp P)")
    pr.le("Q(supp P) <= 1 gives 1 - Q(supp P) >= 0", 0, 1 - qs, [qs <= 1])
    return pr.fact("gibbs", [KL >= 0], "KL(P||Q) >= 0", "ln x <= x - 1 (SymPy, z3)",
                   f"Gibbs' inequality; {_CT06}, Thm 2.6.3")


def _kl_bin(s, t):
    return s * sp.log(s / t) + (1 - s) * sp.log((1 - s) / (1 - t))


def _fact_pinsker() -> DistanceFact:
    pr = _Proof()
    p, q = sp.symbols("p q", positive=True)
    p0 = sp.Symbol("p", nonnegative=True)
    fprime = (q - p) * (1 / (q * (1 - q)) - 4)
    pr.text("binary case: f(q) = p ln(p/q) + (1-p) ln((1-p)/(1-q)) - 2 (p - q)^2 >= 0 "
            "for p in [0, 1], q in (0, 1)")
    _unimodal(pr, "0 < p < 1", _kl_bin(p, q) - 2 * (p - q) ** 2, q, p, fprime,
              [p < 1, q < 1])
    pr.le("q (1 - q) <= 1/4, so 1/(q (1 - q)) - 4 >= 0", q * (1 - q), sp.Rational(1, 4))
    pr.le("(q - p) f'(q) = (q - p)^2 (1/(q(1-q)) - 4) >= 0 also for p in {0, 1}", 0,
          (q - p0) * fprime.subs(p, p0), [p0 <= 1, q < 1])
    f0, f1 = -sp.log(1 - q) - 2 * q**2, -sp.log(q) - 2 * (1 - q) ** 2
    pr.zero("p = 0 (0 ln 0 = 0): f = -ln(1-q) - 2q^2 has f' = (q - 0)(1/(q(1-q)) - 4)",
            sp.diff(f0, q) - fprime.subs(p, 0))
    pr.zero("p = 1: f = -ln q - 2(1-q)^2 has f' = (q - 1)(1/(q(1-q)) - 4)",
            sp.diff(f1, q) - fprime.subs(p, 1))
    pr.zero("p = 0: f -> f(0) = 0 as q -> 0; p = 1: f(1) = 0 as q -> 1 (f monotone on (0, 1))",
            f0.subs(q, 0) + f1.subs(q, 1))
    pr.text("q in {0, 1} with KL finite forces p = q: both sides are 0")
    a, b, c, d = sp.symbols("a b c d", positive=True)
    s, t = a / (a + c), b / (b + d)
    pr.zero("grouping two points: a ln(a/b) + c ln(c/d) = (a+c) ln((a+c)/(b+d)) + "
            "(a+c) KLbin(a/(a+c), b/(b+d))",
            a * sp.log(a / b) + c * sp.log(c / d) - (a + c) * sp.log((a + c) / (b + d))
            - (a + c) * _kl_bin(s, t))
    pr.zero("grouping with a = 0 (0 ln 0 = 0): KLbin(0, t) = ln(1/(1-t))",
            c * sp.log(c / d) - c * sp.log(c / (b + d)) - c * sp.log(1 / (1 - t)))
    pr.zero("grouping with c = 0: KLbin(1, t) = ln(1/t)",
            a * sp.log(a / b) - a * sp.log(a / (b + d)) - a * sp.log(1 / t))
    pr.text("KLbin >= 2 (s - t)^2 >= 0 (binary case), so merging two points never increases KL; "
            "merging point by point (induction on the group size; points with q_i = 0 have "
            "p_i = 0 and add nothing), the partition A = {p_i > q_i}, A^c gives "
            "KL(P||Q) >= KLbin(P(A), Q(A)) (data processing for KL; log-sum inequality, "
            f"{_CT06}, Thm 2.7.1)")
    sa, sc, pa, qa = sp.symbols("S_A S_c P_A Q_A", real=True)
    pr.eq("TV is preserved: S_A = sum_A d_i >= 0, S_c = sum_{A^c} d_i <= 0, S_A + S_c = 0, "
          "L1 = S_A - S_c give TV = L1/2 = S_A = P(A) - Q(A)",
          (sa - sc) / 2, sa, [sa >= 0, sc <= 0, sp.Eq(sa + sc, 0)])
    pr.eq("the binary pair (P(A), 1 - P(A)), (Q(A), 1 - Q(A)) has TV = P(A) - Q(A)",
          (sp.Abs(pa - qa) + sp.Abs((1 - pa) - (1 - qa))) / 2, pa - qa, [pa >= qa])
    pr.text("so KL(P||Q) >= KLbin(P(A), Q(A)) >= 2 (P(A) - Q(A))^2 = 2 TV^2, i.e. "
            "TV <= sqrt(KL/2)")
    return pr.fact("pinsker", [2 * TV**2 <= KL], "TV <= sqrt(KL/2) (Pinsker)",
                   "reduction to two points (grouping identity by SymPy) and the binary "
                   "inequality (f(p) = 0, f' by SymPy, sign of (q - p) f' by z3)",
                   f"Pinsker's inequality; {_CT06}, Lemma 11.6.1")


def _fact_emd_ordered() -> DistanceFact:
    pr = _Proof()
    u, v, t, pos, neg = sp.symbols("U V T Pos Neg", nonnegative=True)
    pr.text("d = P - Q sums to 0; Pos = sum d_i^+, Neg = sum d_i^-")
    pr.eq("Pos - Neg = 0 and TV = (Pos + Neg)/2 give Pos = Neg = TV", pos, (pos + neg) / 2,
          [sp.Eq(pos - neg, 0)])
    pr.le("a partial sum S_i = U_i - V_i with 0 <= U_i <= Pos = TV, 0 <= V_i <= Neg = TV has "
          "|S_i| <= TV", sp.Abs(u - v), t, [u <= t, v <= t])
    pr.text("EMD = (1/(m-1)) sum_{i<m} |S_i|: a mean of m - 1 terms, each <= TV, so EMD <= TV; "
            "m = 1: EMD = 0 <= TV (definition)")
    return pr.fact("emd_ordered_le_tv", [EMD <= TV], "ordered EMD <= TV",
                   "partial sums bounded by the positive mass (z3)", _LLV07)


def _fact_emd_categorical() -> DistanceFact:
    pr = _Proof()
    p, q = sp.symbols("p q", nonnegative=True)
    x = sp.Symbol("x", real=True)
    pr.text("a transport plan F (F_ij >= 0, rows sum to p_i, columns to q_j) costs "
            "sum_{i != j} F_ij = 1 - sum_i F_ii with ground distance 1; F_ii <= min(p_i, q_i)")
    pr.eq("min(p, q) = p - (p - q)^+", sp.Min(p, q), p - sp.Max(p - q, 0))
    pr.eq("(x)^+ = (|x| + x)/2", sp.Max(x, 0), (sp.Abs(x) + x) / 2)
    pr.text("so every plan costs >= 1 - sum min(p_i, q_i) = sum (p_i - q_i)^+ = (L1 + 0)/2 = TV; "
            "the plan that keeps min(p_i, q_i) in place and moves each surplus (p_i - q_i)^+ to "
            "the deficits costs exactly TV (Li et al. 2007, Sec. 4.2); the closeness tool "
            "computes the categorical EMD as TV")
    return pr.fact("emd_categorical_eq_tv", [sp.Eq(EMD_CAT, TV)], "categorical EMD = TV",
                   "transport argument, identities by z3", _LLV07)


@lru_cache(maxsize=1)
def distance_facts() -> tuple[DistanceFact, ...]:
    """The distance facts with their structured proofs (computed once)."""
    return (_fact_definitions(), _fact_l2_le_l1(), _fact_cauchy_schwarz(), _fact_tv_le_1(),
            _fact_gibbs(), _fact_pinsker(), _fact_emd_ordered(), _fact_emd_categorical())


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
            self.by_name[s.name] = z3.Real(s.name)
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
            if e.exp.is_Integer and e.exp < 0:
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
    """Pairs of rational distributions on 2 to 5 points (small m first), with float distances."""
    F = Fraction
    grid = [F(0), F(1, 100), F(1, 10), F(1, 4), F(1, 3), F(1, 2), F(2, 3), F(3, 4), F(9, 10),
            F(99, 100), F(1)]
    pairs = []
    for m, den in ((2, None), (3, 4), (4, 3), (5, 2)):
        if den is None:
            vs = [(p, 1 - p) for p in grid]
        else:
            vs = [tuple(F(c, den) for c in comp) for comp in _compositions(den, m)]
        if m == 3:
            vs += [(F(1, 3),) * 3, (F(1, 2), F(1, 3), F(1, 6)), (F(1, 10), F(1, 10), F(4, 5))]
        pairs += [(P, Q, _float_values(P, Q)) for P in vs for Q in vs]
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
    return {TV: R(l1) / 2, L1: R(l1), L2: sp.sqrt(R(sum(x * x for x in d))), KL: kl,
            EMD: R(emd), EMD_CAT: R(l1) / 2, M: sp.Integer(m)}


def _distance_counterexample(lhs, rhs, relation) -> Counterexample | None:
    """A pair P, Q violating the claim: floats find candidates, exact/arb arithmetic decides."""
    f_lhs = sp.lambdify(_ORDER, lhs, modules="math")
    f_rhs = sp.lambdify(_ORDER, rhs, modules="math")
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
        return Counterexample({"m": len(P), "P": as_tuple(P), "Q": as_tuple(Q)}, (as_tuple(P), as_tuple(Q)),
                              values, ratio, bound, how)
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
        return Finding(Verdict.PROVED, f"structured proof: z3 from the proved facts {names}", steps=tuple(steps))
    cex = _distance_counterexample(claim.lhs, claim.rhs, claim.relation)
    if cex is not None:
        return Finding(Verdict.REFUTED, "concrete distributions, re-checked", counterexample=cex, steps=(why,))
    unproved = [f.name for f in facts if not f.proved]
    reason = why + f"; no counterexample among {len(_candidate_pairs())} pairs"
    if unproved:
        reason += f"; facts not proved: {', '.join(unproved)}"
    return Finding(Verdict.UNKNOWN, "z3 and search", reason=reason, steps=(why,))


def supports(claim) -> bool:
    return isinstance(claim, DistanceBound)


def check(claim: DistanceBound) -> Finding:
    return _check_distance_bound(claim)
