"""Composition theorems, checked exactly on concrete mechanisms or with certified arithmetic.

- Basic sequential composition (Dwork, McSherry, Nissim, Smith 2006; notes 001 "Sequential
  composition", including the adaptive form where M2 sees x and M1's output; Dwork and Roth 2014,
  Thm 3.16): M1 eps1-DP and M2 eps2-DP give eps1 + eps2 (and delta1 + delta2). Checked on concrete
  finite mechanisms by building the composed :class:`FiniteMechanism` and computing its exact
  epsilon, max over neighbours and outputs of P[M(x)=y]/P[M(x')=y] (a rational number).
- Advanced composition (Dwork, Rothblum, Vadhan 2010, Thm III.3; Dwork and Roth 2014, Thm 3.20):
  k-fold adaptive composition of (eps, delta)-DP mechanisms is (eps', k delta + delta')-DP with
  eps' = sqrt(2 k ln(1/delta')) eps + k eps (e^eps - 1).
- Optimal composition (Kairouz, Oh, Viswanath 2015, Thm 3.3): the k-fold composition of
  (eps, delta)-DP mechanisms is (eps', delta_total)-DP iff
  delta_total >= 1 - (1 - delta)^k (1 - delta_k(eps')), with the exact finite sum
      delta_k(eps') = (1 + e^eps)^-k sum_{l=0}^{k} C(k, l) (e^{(k-l) eps} - e^{eps'} e^{l eps})_+ ,
  the privacy profile of k-fold randomized response, which dominates every eps-DP mechanism.
  Every :class:`ComposedDP` claim is decided by this sum with arb balls.
- Renyi DP of the Gaussian (Mironov 2017, Prop. 7): D_alpha(N(Delta, s^2) || N(0, s^2)) =
  alpha Delta^2/(2 s^2), derived with SymPy; conversion eps = rdp + ln(1/delta)/(alpha - 1)
  (Mironov 2017, Prop. 3).
- zCDP (Bun and Steinke 2016, Prop. 1.6 and Lemma 2.4): the Gaussian is rho-zCDP with
  rho = Delta^2/(2 sigma^2); conversion eps = rho + 2 sqrt(rho ln(1/delta)) (Prop. 1.3).
"""

from __future__ import annotations

import itertools
import math
import time
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Mapping

import sympy as sp
from flint import arb, ctx

from proofs._errors import InputError
from proofs._smt import prove_forall
from proofs.approx import (
    check_delta, check_eps_value, exact, gaussian_delta, make_result, show_ball, to_ball,
)
from proofs.mechanisms import FiniteMechanism, Gaussian, as_expr, sym
from proofs.results import Counterexample, ProofResult, Verdict

__all__ = [
    "compose", "compose_adaptive", "finite_ratio", "SequentialComposition", "ComposedDP",
    "drv_epsilon", "kov_delta", "kov_epsilon", "RenyiGaussian", "RDPConversion",
    "ZCDPConversion", "gaussian_renyi_divergence", "E1", "E2", "D1", "D2",
]

E1, E2 = sym("epsilon_1"), sym("epsilon_2")
D1, D2 = sp.Symbol("delta_1", nonnegative=True), sp.Symbol("delta_2", nonnegative=True)
_ALPHA = sym("alpha")
_PREC = 128


# --- finite mechanisms ---------------------------------------------------------------------------


def _p(mech: FiniteMechanism, x, y) -> sp.Expr:
    return exact(mech.pmf[x][y], "pmf")


def finite_ratio(mech: FiniteMechanism) -> tuple[sp.Expr, tuple | None]:
    """Exact e^epsilon of a numeric finite mechanism: max over ordered neighbour pairs (x, x')
    and outputs y of P[M(x)=y]/P[M(x')=y] (oo when some P[M(x')=y] = 0 < P[M(x)=y]), and where.
    Outputs with probability 0 under both inputs do not count."""
    mech.validate()
    best, where = sp.Integer(1), None
    for x, xp in mech.neighbour_pairs():
        for y in mech.pmf[x]:
            p, q = _p(mech, x, y), _p(mech, xp, y)
            if not (p.is_Rational and q.is_Rational):
                raise InputError(f"pmf[{x!r}][{y!r}] = {p} is not a rational number; give exact "
                                 "fractions (sympy.Rational) for composition checks.")
            ratio = sp.oo if (q == 0 and p > 0) else (p / q if q != 0 else sp.Integer(0))
            if where is None or ratio > best:
                best, where = ratio, (x, xp, y)
    return best, where


def _inputs(mechs) -> list:
    keys = list(mechs[0].pmf)
    for m in mechs[1:]:
        if set(m.pmf) != set(keys):
            raise InputError(f"mechanisms have different inputs {sorted(map(str, m.pmf))} vs "
                             f"{sorted(map(str, keys))}; describe all on the same inputs.")
    return keys


def compose(*mechs: FiniteMechanism) -> FiniteMechanism:
    """The non-adaptive composition x -> (M1(x), ..., Mk(x)) with independent randomness."""
    if not mechs:
        raise InputError("compose() needs at least one mechanism.")
    keys = _inputs(mechs)
    pmf = {}
    for x in keys:
        rows = [m.pmf[x] for m in mechs]
        pmf[x] = {ys: sp.Mul(*(exact(r[y], "pmf") for r, y in zip(rows, ys)))
                  for ys in itertools.product(*rows)}
    return FiniteMechanism(pmf, mechs[0].neighbours, name="composition")


def compose_adaptive(first: FiniteMechanism,
                     second: Mapping[Any, FiniteMechanism]) -> FiniteMechanism:
    """The adaptive composition of notes 001: x -> (y, z) with y ~ M1(x), z ~ M2(x, y).

    `second[y]` is the mechanism M2(., y) that runs once M1 returned y."""
    keys = _inputs([first, *second.values()])
    pmf = {}
    for x in keys:
        row = {}
        for y in first.pmf[x]:
            if y not in second:
                raise InputError(f"second has no mechanism for M1's output {y!r}; "
                                 f"add second[{y!r}].")
            for z in second[y].pmf[x]:
                row[(y, z)] = _p(first, x, y) * _p(second[y], x, z)
        pmf[x] = row
    return FiniteMechanism(pmf, first.neighbours, name="adaptive composition")


@dataclass(frozen=True, slots=True)
class SequentialComposition:
    """Claim: for each (M1, M2) in `instances`, the composition is rule(eps1, eps2)-DP, where
    eps_i is the exact epsilon of M_i (for an adaptive M2, given as a dict y -> mechanism, the
    max over y). `rule` is an expression in E1, E2; the basic theorem is E1 + E2.

    With `at` = ((eps1, eps2), ...) (one pair per instance) the claim is the approximate form:
    the composition is (rule(eps1, eps2), delta_rule(delta1, delta2))-DP with delta_i the exact
    profile of M_i at eps_i; `delta_rule` is an expression in D1, D2 (basic: D1 + D2).
    Decided exactly (rational arithmetic) or with arb for irrational bounds."""

    instances: tuple
    rule: Any = E1 + E2
    at: tuple | None = None
    delta_rule: Any = D1 + D2

    def statement(self) -> str:
        kind = "adaptive " if any(isinstance(m2, Mapping) for _m1, m2 in self.instances) else ""
        if self.at is None:
            return (f"{kind}composition of eps1-DP and eps2-DP mechanisms is ({self.rule})-DP "
                f"(on {_count(self.instances, 'concrete finite pair')})")
        return (f"{kind}composition is ({self.rule}, {self.delta_rule})-DP "
                f"(on {_count(self.instances, 'concrete finite pair')})")

    def check(self, *, id: str = "", source: str = "", expect: str = "holds",
              statement: str | None = None) -> ProofResult:
        start = time.perf_counter()
        meta = dict(id=id, source=source, expect=expect, statement=statement)
        steps, exact = [], True
        for i, (m1, m2) in enumerate(self.instances):
            comp = (compose_adaptive(m1, m2) if isinstance(m2, Mapping) else compose(m1, m2))
            seconds = list(m2.values()) if isinstance(m2, Mapping) else [m2]
            out = (self._pure(i, m1, seconds, comp) if self.at is None
                   else self._approx(i, m1, seconds, comp))
            status, text, cex = out
            steps.append(f"instance {i}: {status} ({text})")
            if status == "violated":
                return make_result(meta, self.statement(), Verdict.REFUTED,
                                   "composed mechanism built, exact epsilon computed", start,
                                   counterexample=cex, steps=tuple(steps))
            if status == "unknown":
                return make_result(meta, self.statement(), Verdict.UNKNOWN, "composed mechanism",
                                   start, reason=text, steps=tuple(steps))
            exact &= status == "exact"
        verdict = Verdict.PROVED if exact else Verdict.CERTIFIED
        method = ("composed mechanism built, exact epsilon computed with rational arithmetic"
                  if exact else "composed mechanism built, bound compared with arb")
        return make_result(meta, self.statement(), verdict, method, start, steps=tuple(steps),
                           reason=f"holds on all {len(self.instances)} instances")

    def _pure(self, i, m1, seconds, comp):
        r1, _ = finite_ratio(m1)
        r2 = max(finite_ratio(m)[0] for m in seconds)
        rc, where = finite_ratio(comp)
        bound = sp.simplify(sp.exp(sp.sympify(self.rule).subs({E1: sp.log(r1), E2: sp.log(r2)})))
        status, how = _compare(rc, bound)
        text = f"e^eps1={r1}, e^eps2={r2}, composed e^eps={rc}, bound {bound}"
        if status != "violated":
            return status, text, None
        x, xp, y = where
        cex = Counterexample({"instance": i, "eps1": f"ln {r1}", "eps2": f"ln {r2}"}, (x, xp), y,
                             f"P[M(x)=y]/P[M(x')=y] = {rc}", f"e^rule = {bound}", how)
        return status, text, cex

    def _approx(self, i, m1, seconds, comp):
        from proofs.approx import finite_delta

        e1, e2 = (as_expr(v, "epsilon") for v in self.at[i])
        d1 = finite_delta(m1, e1)[0]
        d2 = max((finite_delta(m, e2)[0] for m in seconds), key=lambda v: float(v))
        e_tot = sp.sympify(self.rule).subs({E1: e1, E2: e2})
        d_bound = sp.sympify(self.delta_rule).subs({D1: d1, D2: d2})
        dc, (x, xp, event) = finite_delta(comp, e_tot)
        status, how = _compare(dc, d_bound)
        text = f"delta1={d1}, delta2={d2}, composed delta at {e_tot} = {dc}, bound {d_bound}"
        if status != "violated":
            return status, text, None
        cex = Counterexample({"instance": i, "eps": str(e_tot)}, (x, xp), set(event),
                             f"P[M(x) in S] - e^eps P[M(x') in S] = {dc}", f"delta = {d_bound}",
                             how)
        return status, text, cex


def _count(items, noun: str) -> str:
    return f"{len(items)} {noun}{'' if len(items) == 1 else 's'}"


def _compare(value: sp.Expr, bound: sp.Expr) -> tuple[str, str]:
    """value <= bound? 'exact' / 'certified' / 'violated' / 'unknown' and how it was decided."""
    value, bound = exact(value), exact(bound)
    if bound is sp.oo:
        return "exact", "the bound is infinite"
    if value is sp.oo:
        return ("exact", "both infinite") if bound is sp.oo else ("violated", "exact: infinite")
    if value.is_Rational and bound.is_Rational:
        return ("exact" if value <= bound else "violated"), "exact rational arithmetic"
    old = ctx.prec
    try:
        for prec in (128, 512):
            ctx.prec = prec
            diff = to_ball(value) - to_ball(bound)
            if diff <= 0:
                return "certified", "arb interval arithmetic"
            if diff > 0:
                return "violated", "arb interval arithmetic"
    except (ValueError, ZeroDivisionError):
        pass
    finally:
        ctx.prec = old
    return "unknown", f"cannot compare {value} with {bound}"


# --- k-fold composition: DRV and KOV ------------------------------------------------------------


def drv_epsilon(epsilon, k, delta_prime) -> sp.Expr:
    """eps' = sqrt(2 k ln(1/delta')) eps + k eps (e^eps - 1) (Dwork, Rothblum, Vadhan 2010)."""
    e, kk, dp = as_expr(epsilon, "epsilon"), as_expr(k, "k"), as_expr(delta_prime, "delta_prime")
    return sp.sqrt(2 * kk * sp.log(1 / dp)) * e + kk * e * (sp.exp(e) - 1)


def _check_k(k) -> int:
    if isinstance(k, bool) or int(k) != k or int(k) < 1:
        raise InputError(f"k={k!r} must be an integer >= 1 (the number of mechanisms composed).")
    return int(k)


def kov_delta(epsilon, k, epsilon_total, delta=0, prec: int = _PREC) -> arb:
    """Arb enclosure of the exact delta of k-fold composition of (eps, delta)-DP mechanisms at
    eps_total: 1 - (1 - delta)^k (1 - delta_k(eps_total)) (Kairouz, Oh, Viswanath 2015)."""
    k = _check_k(k)
    e, et = check_eps_value(epsilon), check_eps_value(epsilon_total, "epsilon_total")
    d = check_delta(delta)
    old = ctx.prec
    try:
        ctx.prec = prec
        eb, etb = to_ball(e), to_ball(et)
        total = arb(0)
        for l in range(k + 1):
            term = ((k - l) * eb).exp() - (etb + l * eb).exp()
            if term > 0:
                total += math.comb(k, l) * term
            elif not term <= 0:
                total += math.comb(k, l) * arb(0).union(term)
        rr = total / (1 + eb.exp()) ** k
        return 1 - (1 - to_ball(d)) ** k * (1 - rr)
    finally:
        ctx.prec = old


def kov_epsilon(epsilon, k, delta_total, delta=0) -> tuple[sp.Expr, arb]:
    """KOV Thm 3.3: the smallest eps_i = (k - 2i) eps, i = floor(k/2) ... 0, whose exact delta is
    certainly <= delta_total, with that delta's enclosure (as dp-accounting's
    `advanced_composition`). Raises when no grid value is certified."""
    k = _check_k(k)
    target = to_ball(check_delta(delta_total, "delta_total"))
    e = check_eps_value(epsilon)
    for i in range(k // 2, -1, -1):
        value = (k - 2 * i) * e
        enc = kov_delta(e, k, value, delta)
        if enc <= target:
            return value, enc
    raise InputError(f"delta_total={delta_total!r} is below 1 - (1 - delta)^k; no epsilon works.")


@dataclass(frozen=True, slots=True)
class ComposedDP:
    """Claim: every k-fold (adaptive) composition of (epsilon, delta)-DP mechanisms is
    (epsilon_total, delta_total)-DP. Decided by the optimal composition theorem (KOV 2015,
    Thm 3.3, exact: the k-fold composition of the canonical randomized response attains it),
    with arb balls: ``certified`` or ``refuted`` with the event on k-fold randomized response."""

    epsilon: Any
    k: int
    epsilon_total: Any
    delta_total: Any
    delta: Any = 0

    def __post_init__(self):
        object.__setattr__(self, "k", _check_k(self.k))
        object.__setattr__(self, "epsilon", check_eps_value(self.epsilon))
        object.__setattr__(self, "epsilon_total",
                           check_eps_value(self.epsilon_total, "epsilon_total"))
        object.__setattr__(self, "delta", check_delta(self.delta))
        object.__setattr__(self, "delta_total", check_delta(self.delta_total, "delta_total"))

    def statement(self) -> str:
        return (f"{self.k}-fold composition of ({self.epsilon}, {self.delta})-DP mechanisms is "
                f"({_short(self.epsilon_total)}, {self.delta_total})-DP")

    def check(self, *, id: str = "", source: str = "", expect: str = "holds",
              statement: str | None = None) -> ProofResult:
        start = time.perf_counter()
        meta = dict(id=id, source=source, expect=expect, statement=statement)
        enc = kov_delta(self.epsilon, self.k, self.epsilon_total, self.delta)
        target = to_ball(self.delta_total)
        method = "optimal composition (KOV 2015 Thm 3.3) as an exact finite sum, arb balls"
        text = f"exact delta at eps_total={_short(self.epsilon_total)}: {show_ball(enc)}"
        if enc <= target:
            return make_result(meta, self.statement(), Verdict.CERTIFIED, method, start,
                               reason=text)
        if enc > target:
            thresholds = [l for l in range(self.k + 1)
                          if float((self.k - 2 * l) * self.epsilon) > float(self.epsilon_total)]
            cex = Counterexample(
                {"epsilon": str(self.epsilon), "k": self.k, "delta": str(self.delta)},
                ("x: each of the k mechanisms is randomized response on bit 1",
                 "x': on bit 0"),
                f"S = {{at most {max(thresholds, default=-1)} of the k reports differ from x}}",
                f"P[M(x) in S] - e^eps_total P[M(x') in S] in {show_ball(enc)}",
                f"delta_total = {self.delta_total}", "arb interval arithmetic (exact sum)")
            return make_result(meta, self.statement(), Verdict.REFUTED, method, start,
                               reason=text, counterexample=cex)
        return make_result(meta, self.statement(), Verdict.UNKNOWN, method, start, reason=text)


def _short(v: sp.Expr) -> str:
    v = sp.sympify(v)
    return str(v) if v.is_Rational or len(str(v)) < 24 else f"{str(v)} (~{float(v):.6g})"


# --- Renyi DP and zCDP of the Gaussian ----------------------------------------------------------


@lru_cache(maxsize=1)
def gaussian_renyi_divergence() -> tuple[sp.Expr | None, tuple[str, ...]]:
    """D_alpha(N(Delta, sigma^2) || N(0, sigma^2)) = ln(integral p^alpha q^(1-alpha))/(alpha-1),
    derived with SymPy for alpha > 1 (Mironov 2017, Prop. 7 states alpha Delta^2/(2 sigma^2))."""
    s, D = sym("sigma"), sym("Delta")
    y = sp.Symbol("y", real=True)
    g = Gaussian(s, D)
    steps = []
    try:
        log_p = sp.expand_log(sp.log(g.pdf(D, y)), force=True)
        log_q = sp.expand_log(sp.log(g.pdf(0, y)), force=True)
        integrand = sp.exp(sp.expand(_ALPHA * log_p + (1 - _ALPHA) * log_q))
        integral = sp.integrate(integrand, (y, -sp.oo, sp.oo), conds="none")
        if integral.has(sp.Integral):
            return None, ("SymPy left the integral unevaluated",)
        steps.append(f"integral of p^alpha q^(1-alpha) = {sp.simplify(integral)}")
        div = sp.simplify(sp.expand_log(sp.log(sp.simplify(integral)), force=True) / (_ALPHA - 1))
        steps.append(f"D_alpha = {div}")
        return div, tuple(steps)
    except (NotImplementedError, ValueError, TypeError) as exc:  # pragma: no cover
        return None, (f"SymPy: {exc}",)


@dataclass(frozen=True, slots=True)
class RenyiGaussian:
    """Claim: the Gaussian mechanism has Renyi divergence of order alpha > 1 at most `bound`
    (an expression in alpha, sigma, Delta), for all alpha > 1, sigma, Delta > 0. With
    `per_alpha=True` the claim is zCDP: D_alpha <= bound * alpha (bound = rho)."""

    bound: Any
    per_alpha: bool = False

    def statement(self) -> str:
        if self.per_alpha:
            return f"the Gaussian mechanism is rho-zCDP with rho = {self.bound}"
        return f"the Gaussian mechanism has D_alpha <= {self.bound} for every alpha > 1"

    def check(self, *, id: str = "", source: str = "", expect: str = "holds",
              statement: str | None = None) -> ProofResult:
        start = time.perf_counter()
        meta = dict(id=id, source=source, expect=expect, statement=statement)
        div, steps = gaussian_renyi_divergence()
        if div is None:
            return make_result(meta, self.statement(), Verdict.UNKNOWN, "SymPy", start,
                               reason=steps[-1], steps=steps)
        rhs = as_expr(self.bound, "bound") * (_ALPHA if self.per_alpha else 1)
        method = "SymPy integral, then exact algebra / z3 over alpha > 1, sigma, Delta > 0"
        if sp.simplify(div - rhs) == 0:
            return make_result(meta, self.statement(), Verdict.PROVED, method, start,
                               reason="equality", steps=steps)
        domain = [_ALPHA > 1]
        out = prove_forall(div, rhs, domain)
        if out.status == "proved":
            return make_result(meta, self.statement(), Verdict.PROVED, method, start, steps=steps)
        cex = _renyi_counterexample(div, rhs, out.model)
        if cex is not None:
            return make_result(meta, self.statement(), Verdict.REFUTED, method, start,
                               counterexample=cex, steps=steps)
        return make_result(meta, self.statement(), Verdict.UNKNOWN, method, start,
                           reason=out.reason or "no proof, no re-checked counterexample",
                           steps=steps)


def _renyi_counterexample(div, rhs, model) -> Counterexample | None:
    candidates = []
    if model:
        candidates.append({k: v for k, v in model["symbols"].items() if v is not None})
    grid = [sp.Rational(3, 2), 2, 5]
    for a, s, d in itertools.product(grid, [sp.Rational(1, 2), 1, 3], [1, 2]):
        candidates.append({_ALPHA: a, sym("sigma"): s, sym("Delta"): d})
    for values in candidates:
        if not {_ALPHA, sym("sigma"), sym("Delta")} >= (div.free_symbols | rhs.free_symbols):
            continue
        if not all(k in values for k in div.free_symbols | rhs.free_symbols):
            continue
        if values.get(_ALPHA, 2) <= 1 or any(v <= 0 for v in values.values()):
            continue
        lhs_v, rhs_v = sp.nsimplify(div.subs(values)), sp.nsimplify(rhs.subs(values))
        status, how = _compare(lhs_v, rhs_v)
        if status == "violated":
            return Counterexample({str(k): str(v) for k, v in values.items()},
                                  ("f(x) = Delta", "f(x') = 0"), "Renyi divergence",
                                  f"D_alpha = {lhs_v}", f"claimed {rhs_v}", how)
    return None


@dataclass(frozen=True, slots=True)
class RDPConversion:
    """Claim: k-fold composition of N(0, sigma^2) noise (sensitivity Delta) is
    (eps, delta)-DP with eps = min over `alphas` of
    k alpha Delta^2/(2 sigma^2) + ln(1/delta)/(alpha - 1)
    (Mironov 2017, Prop. 1 (composition) and Prop. 3 (conversion)); checked against the exact
    profile: k Gaussians compose to one with sigma/sqrt(k) (the privacy loss of each is
    N(mu^2/2, mu^2), mu = Delta/sigma, and these add)."""

    sigma: Any
    k: int
    delta: Any
    alphas: tuple = tuple(sp.Rational(i, 4) for i in range(5, 400))
    sensitivity: Any = 1
    formula: Any = None

    def epsilon(self) -> sp.Expr:
        """min over alphas of formula(rdp, alpha, delta); default rdp + ln(1/delta)/(alpha - 1)."""
        s, D = as_expr(self.sigma, "sigma"), as_expr(self.sensitivity, "sensitivity")
        d = check_delta(self.delta)
        rdp, dl = sp.Symbol("rdp", positive=True), sp.Symbol("delta", positive=True)
        f = (sp.sympify(self.formula) if self.formula is not None
             else rdp + sp.log(1 / dl) / (_ALPHA - 1))
        vals = [f.subs({rdp: self.k * a * D**2 / (2 * s**2), _ALPHA: a, dl: d})
                for a in self.alphas]
        return min(vals, key=lambda v: float(v))

    def statement(self) -> str:
        return (f"{self.k}-fold Gaussian(sigma={self.sigma}) is ({float(self.epsilon()):.6g}, "
                f"{self.delta})-DP by the RDP conversion")

    def check(self, *, id: str = "", source: str = "", expect: str = "holds",
              statement: str | None = None) -> ProofResult:
        start = time.perf_counter()
        meta = dict(id=id, source=source, expect=expect, statement=statement)
        k = _check_k(self.k)
        eps = self.epsilon()
        sig = as_expr(self.sigma, "sigma") / sp.sqrt(k)
        return _gaussian_verdict(meta, self.statement(), start, eps, sig, self.sensitivity,
                                 self.delta, "RDP conversion")


@dataclass(frozen=True, slots=True)
class ZCDPConversion:
    """Claim: k-fold composition of N(0, sigma^2) noise is (eps, delta)-DP with
    eps = formula(rho, delta), rho = k Delta^2/(2 sigma^2) (zCDP composes additively; Bun and
    Steinke 2016, Lemma 2.3). Default formula: rho + 2 sqrt(rho ln(1/delta)) (Prop. 1.3).
    Checked against the exact Gaussian profile with arb."""

    sigma: Any
    k: int
    delta: Any
    formula: Any = None
    sensitivity: Any = 1

    def epsilon(self) -> sp.Expr:
        rho, dl = sp.Symbol("rho", positive=True), sp.Symbol("delta", positive=True)
        f = self.formula if self.formula is not None else rho + 2 * sp.sqrt(rho * sp.log(1 / dl))
        s, D = as_expr(self.sigma, "sigma"), as_expr(self.sensitivity, "sensitivity")
        return sp.sympify(f).subs({rho: self.k * D**2 / (2 * s**2), dl: check_delta(self.delta)})

    def statement(self) -> str:
        return (f"{self.k}-fold Gaussian(sigma={self.sigma}) is ({float(self.epsilon()):.6g}, "
                f"{self.delta})-DP by the zCDP conversion")

    def check(self, *, id: str = "", source: str = "", expect: str = "holds",
              statement: str | None = None) -> ProofResult:
        start = time.perf_counter()
        meta = dict(id=id, source=source, expect=expect, statement=statement)
        k = _check_k(self.k)
        sig = as_expr(self.sigma, "sigma") / sp.sqrt(k)
        return _gaussian_verdict(meta, self.statement(), start, self.epsilon(), sig,
                                 self.sensitivity, self.delta, "zCDP conversion")


def _gaussian_verdict(meta, statement, start, eps, sigma, sensitivity, delta, what):
    enc = gaussian_delta(eps, sigma, sensitivity)
    target = to_ball(check_delta(delta))
    method = f"{what} checked against the exact Gaussian profile (Balle-Wang), arb balls"
    text = f"eps = {float(eps):.6g}; exact delta(eps) in {show_ball(enc)}"
    if enc <= target:
        return make_result(meta, statement, Verdict.CERTIFIED, method, start, reason=text)
    if enc > target:
        cex = Counterexample({"sigma_composed": str(sigma), "epsilon": f"{float(eps):.8g}"},
                             ("f(x) = Delta", "f(x') = 0"), "S = {y > c*}",
                             f"delta(eps) in {show_ball(enc)}", f"delta = {delta}",
                             "arb interval arithmetic")
        return make_result(meta, statement, Verdict.REFUTED, method, start, reason=text,
                           counterexample=cex)
    return make_result(meta, statement, Verdict.UNKNOWN, method, start, reason=text)
