"""The proved base facts about distances between distributions on m points (definitions,
L2 <= L1, Cauchy-Schwarz, TV <= 1, Gibbs, Pinsker, EMD versus TV), each a structured proof whose
steps are discharged by exact algebra or z3; :mod: derives claims
from them."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import sympy as sp

from proofs.claims.distributions import EMD, EMD_CAT, KL, L1, L2, TV, M, holds_everywhere
from proofs.decide import is_zero

__all__ = ["ORDER", "DistanceFact", "distance_facts"]


ORDER = (TV, L1, L2, KL, EMD, EMD_CAT, M)


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
        return DistanceFact(
            name, tuple(relations), statement, self.ok, method, tuple(self.steps), source
        )


_LLV07 = (
    "Li, Li, Venkatasubramanian (2007), t-Closeness: privacy beyond k-anonymity and "
    "l-diversity, ICDE, Sec. 4.2"
)


_CT06 = "Cover and Thomas (2006), Elements of Information Theory, 2nd ed."


_N003 = 'notes 003, "Epsilon-closeness" (L2, L1, variational distance, KL)'


def _fact_definitions() -> DistanceFact:
    pr = _Proof()
    x = sp.Dummy("x", real=True)
    pr.text(
        "definitions (auditor.closeness.distribution_distance, notes 003): d = P - Q, "
        "TV = (1/2) sum |d_i|, L1 = sum |d_i|, L2 = sqrt(sum d_i^2), EMD = (1/(m-1)) "
        "sum_{i<m} |d_1 + ... + d_i| (0 when m = 1), EMD_cat = min transport cost with "
        "ground distance 1"
    )
    pr.le("|x| >= 0, so TV, L1, EMD >= 0; a square root is >= 0, so L2 >= 0", 0, sp.Abs(x))
    pr.text("TV = L1/2: the same sum, halved (definition)")
    return pr.fact(
        "definitions",
        [sp.Eq(TV, L1 / 2), L1 >= 0, L2 >= 0, EMD >= 0, EMD_CAT >= 0],
        "TV = L1/2; TV, L1, L2, EMD, EMD_cat >= 0",
        "definitions",
        _N003,
    )


def _fact_l2_le_l1() -> DistanceFact:
    pr = _Proof()
    A, B, a, u, w = sp.symbols("A B a u w", cls=sp.Dummy, nonnegative=True)
    x = sp.Dummy("x", real=True)
    pr.text("induction on m with A_m = sum_{i<=m} |d_i| (= L1), B_m = sum_{i<=m} d_i^2 (= L2^2)")
    pr.zero("base m = 1: B_1 = d_1^2 = |d_1|^2 = A_1^2", sp.Abs(x) ** 2 - x**2)
    pr.le(
        "step: B <= A^2, A, a >= 0 imply B + a^2 <= (A + a)^2 (cross term 2 A a >= 0)",
        B + a**2,
        (A + a) ** 2,
        [B <= A**2],
    )
    pr.le("L2^2 <= L1^2 with L1, L2 >= 0 gives L2 <= L1", u, w, [u**2 <= w**2])
    return pr.fact(
        "l2_le_l1",
        [L2 <= L1],
        "L2 <= L1",
        "induction on m, steps by z3",
        "sum of squares <= square of the sum of absolute values",
    )


def _fact_cauchy_schwarz() -> DistanceFact:
    pr = _Proof()
    A, B, a = sp.symbols("A B a", cls=sp.Dummy, nonnegative=True)
    m = sp.Dummy("m", positive=True)
    x = sp.Dummy("x", real=True)
    pr.text("induction on m with A_m = sum |d_i| (= L1), B_m = sum d_i^2 (= L2^2): A_m^2 <= m B_m")
    pr.zero("base m = 1: A_1^2 = |d_1|^2 = 1 * B_1", sp.Abs(x) ** 2 - x**2)
    pr.le(
        "step: A^2 <= m B, m >= 1 imply (A + a)^2 <= (m + 1)(B + a^2) (2 A a <= A^2/m + m a^2)",
        (A + a) ** 2,
        (m + 1) * (B + a**2),
        [A**2 <= m * B, m >= 1],
    )
    pr.text("L1^2 <= m L2^2 with L1, L2 >= 0 is L1 <= sqrt(m) L2")
    return pr.fact(
        "cauchy_schwarz",
        [L1**2 <= M * L2**2],
        "L1 <= sqrt(m) L2",
        "induction on m, steps by z3",
        "Cauchy-Schwarz inequality",
    )


def _fact_tv_le_1() -> DistanceFact:
    pr = _Proof()
    p, q, l1 = sp.symbols("p q l1", cls=sp.Dummy, nonnegative=True)
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
    pr.le(
        f"{label}: ({x} - {x0}) f'({x}) >= 0, so f decreases then increases, minimum f({x0}) = 0",
        0,
        (x - x0) * fprime,
        constraints,
    )


def _fact_gibbs() -> DistanceFact:
    pr = _Proof()
    x = sp.Dummy("x", positive=True)
    p, q = sp.symbols("p q", cls=sp.Dummy, positive=True)
    qs = sp.Dummy("Q_s", nonnegative=True)
    _unimodal(
        pr, "ln x <= x - 1 (g = x - 1 - ln x, x0 = 1)", x - 1 - sp.log(x), x, 1, 1 - 1 / x, []
    )
    pr.zero("p ln(p/q) = -p ln(q/p)", p * sp.log(p / q) + p * sp.log(q / p))
    pr.zero("-p (q/p - 1) = p - q, so p ln(p/q) >= p - q for p, q > 0", -p * (q / p - 1) - (p - q))
    pr.text("summing over supp P: KL >= sum_{p_i > 0} (p_i - q_i) = 1 - Q(supp P)")
    pr.le("Q(supp P) <= 1 gives 1 - Q(supp P) >= 0", 0, 1 - qs, [qs <= 1])
    return pr.fact(
        "gibbs",
        [KL >= 0],
        "KL(P||Q) >= 0",
        "ln x <= x - 1 (SymPy, z3)",
        f"Gibbs' inequality; {_CT06}, Thm 2.6.3",
    )


def _kl_bin(s, t):
    return s * sp.log(s / t) + (1 - s) * sp.log((1 - s) / (1 - t))


def _fact_pinsker() -> DistanceFact:
    pr = _Proof()
    p, q = sp.symbols("p q", cls=sp.Dummy, positive=True)
    p0 = sp.Dummy("p", nonnegative=True)
    fprime = (q - p) * (1 / (q * (1 - q)) - 4)
    pr.text(
        "binary case: f(q) = p ln(p/q) + (1-p) ln((1-p)/(1-q)) - 2 (p - q)^2 >= 0 "
        "for p in [0, 1], q in (0, 1)"
    )
    _unimodal(pr, "0 < p < 1", _kl_bin(p, q) - 2 * (p - q) ** 2, q, p, fprime, [p < 1, q < 1])
    pr.le("q (1 - q) <= 1/4, so 1/(q (1 - q)) - 4 >= 0", q * (1 - q), sp.Rational(1, 4))
    pr.le(
        "(q - p) f'(q) = (q - p)^2 (1/(q(1-q)) - 4) >= 0 also for p in {0, 1}",
        0,
        (q - p0) * fprime.subs(p, p0),
        [p0 <= 1, q < 1],
    )
    f0, f1 = -sp.log(1 - q) - 2 * q**2, -sp.log(q) - 2 * (1 - q) ** 2
    pr.zero(
        "p = 0 (0 ln 0 = 0): f = -ln(1-q) - 2q^2 has f' = (q - 0)(1/(q(1-q)) - 4)",
        sp.diff(f0, q) - fprime.subs(p, 0),
    )
    pr.zero(
        "p = 1: f = -ln q - 2(1-q)^2 has f' = (q - 1)(1/(q(1-q)) - 4)",
        sp.diff(f1, q) - fprime.subs(p, 1),
    )
    pr.zero(
        "p = 0: f -> f(0) = 0 as q -> 0; p = 1: f(1) = 0 as q -> 1 (f monotone on (0, 1))",
        f0.subs(q, 0) + f1.subs(q, 1),
    )
    pr.text("q in {0, 1} with KL finite forces p = q: both sides are 0")
    a, b, c, d = sp.symbols("a b c d", cls=sp.Dummy, positive=True)
    s, t = a / (a + c), b / (b + d)
    pr.zero(
        "grouping two points: a ln(a/b) + c ln(c/d) = (a+c) ln((a+c)/(b+d)) + "
        "(a+c) KLbin(a/(a+c), b/(b+d))",
        a * sp.log(a / b)
        + c * sp.log(c / d)
        - (a + c) * sp.log((a + c) / (b + d))
        - (a + c) * _kl_bin(s, t),
    )
    pr.zero(
        "grouping with a = 0 (0 ln 0 = 0): KLbin(0, t) = ln(1/(1-t))",
        c * sp.log(c / d) - c * sp.log(c / (b + d)) - c * sp.log(1 / (1 - t)),
    )
    pr.zero(
        "grouping with c = 0: KLbin(1, t) = ln(1/t)",
        a * sp.log(a / b) - a * sp.log(a / (b + d)) - a * sp.log(1 / t),
    )
    pr.text(
        "KLbin >= 2 (s - t)^2 >= 0 (binary case), so merging two points never increases KL; "
        "merging point by point (induction on the group size; points with q_i = 0 have "
        "p_i = 0 and add nothing), the partition A = {p_i > q_i}, A^c gives "
        "KL(P||Q) >= KLbin(P(A), Q(A)) (data processing for KL; log-sum inequality, "
        f"{_CT06}, Thm 2.7.1)"
    )
    sa, sc, pa, qa = sp.symbols("S_A S_c P_A Q_A", cls=sp.Dummy, real=True)
    pr.eq(
        "TV is preserved: S_A = sum_A d_i >= 0, S_c = sum_{A^c} d_i <= 0, S_A + S_c = 0, "
        "L1 = S_A - S_c give TV = L1/2 = S_A = P(A) - Q(A)",
        (sa - sc) / 2,
        sa,
        [sa >= 0, sc <= 0, sp.Eq(sa + sc, 0)],
    )
    pr.eq(
        "the binary pair (P(A), 1 - P(A)), (Q(A), 1 - Q(A)) has TV = P(A) - Q(A)",
        (sp.Abs(pa - qa) + sp.Abs((1 - pa) - (1 - qa))) / 2,
        pa - qa,
        [pa >= qa],
    )
    pr.text("so KL(P||Q) >= KLbin(P(A), Q(A)) >= 2 (P(A) - Q(A))^2 = 2 TV^2, i.e. TV <= sqrt(KL/2)")
    return pr.fact(
        "pinsker",
        [2 * TV**2 <= KL],
        "TV <= sqrt(KL/2) (Pinsker)",
        "reduction to two points (grouping identity by SymPy) and the binary "
        "inequality (f(p) = 0, f' by SymPy, sign of (q - p) f' by z3)",
        f"Pinsker's inequality; {_CT06}, Lemma 11.6.1",
    )


def _fact_emd_ordered() -> DistanceFact:
    pr = _Proof()
    u, v, t, pos, neg = sp.symbols("U V T Pos Neg", cls=sp.Dummy, nonnegative=True)
    pr.text("d = P - Q sums to 0; Pos = sum d_i^+, Neg = sum d_i^-")
    pr.eq(
        "Pos - Neg = 0 and TV = (Pos + Neg)/2 give Pos = Neg = TV",
        pos,
        (pos + neg) / 2,
        [sp.Eq(pos - neg, 0)],
    )
    pr.le(
        "a partial sum S_i = U_i - V_i with 0 <= U_i <= Pos = TV, 0 <= V_i <= Neg = TV has "
        "|S_i| <= TV",
        sp.Abs(u - v),
        t,
        [u <= t, v <= t],
    )
    pr.text(
        "EMD = (1/(m-1)) sum_{i<m} |S_i|: a mean of m - 1 terms, each <= TV, so EMD <= TV; "
        "m = 1: EMD = 0 <= TV (definition)"
    )
    return pr.fact(
        "emd_ordered_le_tv",
        [EMD <= TV],
        "ordered EMD <= TV",
        "partial sums bounded by the positive mass (z3)",
        _LLV07,
    )


def _fact_emd_categorical() -> DistanceFact:
    pr = _Proof()
    p, q = sp.symbols("p q", cls=sp.Dummy, nonnegative=True)
    x = sp.Dummy("x", real=True)
    pr.text(
        "a transport plan F (F_ij >= 0, rows sum to p_i, columns to q_j) costs "
        "sum_{i != j} F_ij = 1 - sum_i F_ii with ground distance 1; F_ii <= min(p_i, q_i)"
    )
    pr.eq("min(p, q) = p - (p - q)^+", sp.Min(p, q), p - sp.Max(p - q, 0))
    pr.eq("(x)^+ = (|x| + x)/2", sp.Max(x, 0), (sp.Abs(x) + x) / 2)
    pr.text(
        "so every plan costs >= 1 - sum min(p_i, q_i) = sum (p_i - q_i)^+ = (L1 + 0)/2 = TV; "
        "the plan that keeps min(p_i, q_i) in place and moves each surplus (p_i - q_i)^+ to "
        "the deficits costs exactly TV (Li et al. 2007, Sec. 4.2); the closeness tool "
        "computes the categorical EMD as TV"
    )
    return pr.fact(
        "emd_categorical_eq_tv",
        [sp.Eq(EMD_CAT, TV)],
        "categorical EMD = TV",
        "transport argument, identities by z3",
        _LLV07,
    )


@lru_cache(maxsize=1)
def distance_facts() -> tuple[DistanceFact, ...]:
    """The distance facts with their structured proofs (computed once)."""
    return (
        _fact_definitions(),
        _fact_l2_le_l1(),
        _fact_cauchy_schwarz(),
        _fact_tv_le_1(),
        _fact_gibbs(),
        _fact_pinsker(),
        _fact_emd_ordered(),
        _fact_emd_categorical(),
    )
