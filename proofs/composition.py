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

from proofs.errors import InputError
from proofs._smt import prove_forall
from proofs.approx import (
    check_delta, check_eps_value, gaussian_delta, make_result, show_ball, to_ball,
)
from proofs.decide import compare, discharge
from proofs.expr import rationalize
from proofs.finite import compose, compose_adaptive, finite_delta, finite_ratio
from proofs.mechanisms import Gaussian, as_expr, sym
from proofs.results import Counterexample, ProofResult, Verdict
from proofs.rules import D1, D2, E1, E2, composition_rule, rule_expr

__all__ = [
    "compose", "compose_adaptive", "finite_ratio", "SequentialComposition", "ComposedDP",
    "drv_epsilon", "kov_delta", "kov_epsilon", "RenyiGaussian", "RDPConversion",
    "ZCDPConversion", "gaussian_renyi_divergence", "E1", "E2", "D1", "D2",
]

_ALPHA = sym("alpha")
_PREC = 128


# --- sequential composition of two mechanisms --------------------------------------------------


@dataclass(frozen=True, slots=True)
class SequentialComposition:
    """Claim: composing an eps1-DP mechanism M1 with an eps2-DP mechanism M2 (which may see M1's
    output: adaptive composition) gives a rule(eps1, eps2)-DP mechanism, for *every* such pair.
    `rule` is an expression in E1, E2 (the names epsilon_1, epsilon_2); the basic theorem is
    E1 + E2 (Dwork and Roth 2014, Thm 3.16).

    With `at` = ((eps1, eps2), ...) (one pair per instance) the claim is the approximate form:
    (eps1, delta1)- and (eps2, delta2)-DP compose to (rule(eps1, eps2), delta_rule(delta1,
    delta2))-DP; `delta_rule` is an expression in D1, D2 (delta_1, delta_2; basic: D1 + D2).

    `instances` are concrete finite pairs (M1, M2), an adaptive M2 given as a dict y -> mechanism;
    each is checked exactly (its eps_i is M_i's exact epsilon, or with `at` its delta_i the exact
    profile at eps_i). The verdict is about the general rule (:mod:`proofs.rules`): ``proved``
    by the symbolic argument, ``refuted`` by a listed or generated instance, and otherwise
    ``checked``: it holds on the listed instances only, which is never counted as a proof."""

    instances: tuple
    rule: Any = E1 + E2
    at: tuple | None = None
    delta_rule: Any = D1 + D2

    def __post_init__(self):
        object.__setattr__(self, "rule", rule_expr(self.rule, "rule",
                                                   {"epsilon_1": E1, "epsilon_2": E2}))
        object.__setattr__(self, "delta_rule", rule_expr(self.delta_rule, "delta_rule",
                                                         {"delta_1": D1, "delta_2": D2}))
        if not isinstance(self.instances, (tuple, list)) or not all(
                isinstance(i, (tuple, list)) and len(i) == 2 for i in self.instances):
            raise InputError("instances must be a tuple of (M1, M2) pairs of FiniteMechanism "
                             "(M2 may be a dict: M1's output -> mechanism).")
        if self.at is not None:
            if len(self.at) != len(self.instances) or not all(
                    isinstance(a, (tuple, list)) and len(a) == 2 for a in self.at):
                raise InputError(f"at must give one (eps1, eps2) pair per instance "
                                 f"({len(self.instances)} instances).")
            object.__setattr__(self, "at", tuple(
                (check_eps_value(e1, "at eps1"), check_eps_value(e2, "at eps2"))
                for e1, e2 in self.at))

    def statement(self) -> str:
        kind = "adaptive " if any(isinstance(m2, Mapping) for _m1, m2 in self.instances) else ""
        if self.at is None:
            return f"{kind}composition of eps1-DP and eps2-DP mechanisms is ({self.rule})-DP"
        return f"{kind}composition is ({self.rule}, {self.delta_rule})-DP"

    def check(self, *, id: str = "", source: str = "", expect: str = "holds",
              statement: str | None = None) -> ProofResult:
        start = time.perf_counter()
        meta = dict(id=id, source=source, expect=expect, statement=statement)
        steps = []
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
        general = composition_rule(self.rule, None if self.at is None else self.delta_rule)
        return general_verdict(meta, self.statement(), start, general, steps,
                               len(self.instances), "basic composition")

    def _pure(self, i, m1, seconds, comp):
        r1, _ = finite_ratio(m1)
        r2 = _exact_max([finite_ratio(m)[0] for m in seconds])
        rc, where = finite_ratio(comp)
        if r2 is None:
            return "unknown", "cannot order the second mechanisms' epsilons", None
        bound = sp.exp(self.rule.subs({E1: sp.log(r1), E2: sp.log(r2)}))
        status, how = compare(rc, bound)
        text = f"e^eps1={r1}, e^eps2={r2}, composed e^eps={rc}, bound {bound}"
        if status != "violated":
            return status, text, None
        x, xp, y = where
        cex = Counterexample({"instance": i, "eps1": f"ln {r1}", "eps2": f"ln {r2}"}, (x, xp), y,
                             f"P[M(x)=y]/P[M(x')=y] = {rc}", f"e^rule = {bound}", how)
        return status, text, cex

    def _approx(self, i, m1, seconds, comp):
        e1, e2 = self.at[i]
        d1 = finite_delta(m1, e1)[0]
        d2 = _exact_max([finite_delta(m, e2)[0] for m in seconds])
        if d2 is None:
            return "unknown", "cannot order the second mechanisms' deltas", None
        e_tot = self.rule.subs({E1: e1, E2: e2})
        d_bound = self.delta_rule.subs({D1: d1, D2: d2})
        dc, (x, xp, event) = finite_delta(comp, e_tot)
        status, how = compare(dc, d_bound)
        text = f"delta1={d1}, delta2={d2}, composed delta at {e_tot} = {dc}, bound {d_bound}"
        if status != "violated":
            return status, text, None
        cex = Counterexample({"instance": i, "eps": str(e_tot)}, (x, xp), set(event),
                             f"P[M(x) in S] - e^eps P[M(x') in S] = {dc}", f"delta = {d_bound}",
                             how)
        return status, text, cex


def _exact_max(values: list[sp.Expr]) -> sp.Expr | None:
    """The largest value, decided exactly or with arb (None when two cannot be ordered)."""
    best = values[0]
    for v in values[1:]:
        status, _how = compare(v, best)
        if status == "unknown":
            return None
        if status == "violated":
            best = v
    return best


def general_verdict(meta: dict, statement: str, start: float, general, steps: list,
                    count: int, theorem: str) -> ProofResult:
    """The verdict of a claim with a general rule: proved by the symbolic argument, refuted by
    a generated instance, otherwise `checked` on the listed instances only."""
    steps = [*steps, *general.steps]
    if general.status == "proved":
        return make_result(meta, statement, Verdict.PROVED,
                           f"{theorem} as pointwise lemmas and dominance of the rule, by exact "
                           "algebra and z3", start, steps=tuple(steps),
                           reason=f"general rule proved; also holds on the {count} listed "
                                  "instances")
    if general.status == "refuted":
        return make_result(meta, statement, Verdict.REFUTED,
                           "generated instance (canonical mechanisms), re-checked exactly",
                           start, counterexample=general.counterexample, steps=tuple(steps))
    return make_result(meta, statement, Verdict.CHECKED,
                       "listed instances built, exact epsilon computed", start,
                       steps=tuple(steps), reason=f"holds on the {count} listed instances only; "
                       f"{general.reason}")


# --- k-fold composition: DRV and KOV ------------------------------------------------------------


def drv_epsilon(epsilon, k, delta_prime) -> sp.Expr:
    """eps' = sqrt(2 k ln(1/delta')) eps + k eps (e^eps - 1) (Dwork, Rothblum, Vadhan 2010)."""
    e, kk, dp = as_expr(epsilon, "epsilon"), as_expr(k, "k"), as_expr(delta_prime, "delta_prime")
    return sp.sqrt(2 * kk * sp.log(1 / dp)) * e + kk * e * (sp.exp(e) - 1)


def _check_k(k) -> int:
    value = None if isinstance(k, bool) else as_expr(k, "k")
    if value is None or not (value.is_Integer and 1 <= value <= _MAX_K):
        raise InputError(f"k={k!r} must be an integer in [1, {_MAX_K}] (the number of mechanisms "
                         "composed).")
    return int(value)


_MAX_K = 10**5


def _positive_terms(e: sp.Expr, k: int, et: sp.Expr) -> range | None:
    """The l in 0..k whose KOV term e^{(k-l) eps} - e^{eps_total + l eps} is positive, i.e.
    (k - 2l) eps > eps_total: l < c = (k - eps_total/eps)/2, decided exactly at the boundary
    (rational arithmetic or arb); None when the boundary cannot be decided."""
    if e == 0:
        return range(0, k + 1) if compare(0, et)[0] == "violated" else range(0)
    c = (k - et / e) / 2
    guess = max(0, min(k + 1, math.ceil(float(c)) if abs(float(c)) < 1e15 else k + 1))
    # the first non-positive term is at l = ceil(c): check the neighbours of the float guess
    for l in range(max(0, guess - 2), min(k, guess + 2) + 1):
        status, _how = compare((k - 2 * l) * e, et)
        if status == "unknown":
            return None
        if status != "violated":
            return range(0, l)
    first = min(k, guess + 2) + 1
    return range(0, first) if first > k else None


def kov_exact(epsilon, k, epsilon_total, delta=0) -> sp.Expr | None:
    """The exact delta of k-fold composition (KOV 2015, Thm 3.3) as a SymPy expression when
    every term of the sum is zero (eps_total >= k eps): 1 - (1 - delta)^k. None otherwise."""
    k = _check_k(k)
    e, et = check_eps_value(epsilon), check_eps_value(epsilon_total, "epsilon_total")
    d = check_delta(delta)
    if _positive_terms(e, k, et) != range(0) or (d != 0 and k > _EXACT_K):
        return None
    return 1 - (1 - d) ** k


_EXACT_K = 2000  # beyond this, (1 - delta)^k is enclosed with arb instead of a huge rational


def kov_delta(epsilon, k, epsilon_total, delta=0, prec: int = _PREC) -> arb:
    """Arb enclosure of the exact delta of k-fold composition of (eps, delta)-DP mechanisms at
    eps_total: 1 - (1 - delta)^k (1 - delta_k(eps_total)) (Kairouz, Oh, Viswanath 2015)."""
    k = _check_k(k)
    e, et = check_eps_value(epsilon), check_eps_value(epsilon_total, "epsilon_total")
    d = check_delta(delta)
    positive = _positive_terms(e, k, et)
    old = ctx.prec
    try:
        ctx.prec = prec
        eb, etb = to_ball(e), to_ball(et)
        # each term C(k, l) (e^{(k-l) eps} - e^{eps_total + l eps}) / (1 + e^eps)^k in log space,
        # so that large k neither overflows nor builds huge binomial integers
        norm = k * eb.exp().log1p()
        rr = arb(0)
        for l in (positive if positive is not None else range(k + 1)):
            # decided terms outside `positive` are <= 0 and contribute nothing
            log_c = arb(k + 1).lgamma() - arb(l + 1).lgamma() - arb(k - l + 1).lgamma()
            term = (log_c + (k - l) * eb - norm).exp() - (log_c + etb + l * eb - norm).exp()
            if term > 0:
                rr += term
            elif not term <= 0:
                rr += arb(0).union(term)
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


_K = sp.Symbol("k", integer=True, positive=True)
_POINTS = {"k": (1, 2, 3, 5, 10), "epsilon": (sp.Rational(1, 10), sp.Rational(1, 2), 1, 2),
           "delta": (0, sp.Rational(1, 100), sp.Rational(1, 10))}


@dataclass(frozen=True, slots=True)
class ComposedDP:
    """Claim: every k-fold (adaptive) composition of (epsilon, delta)-DP mechanisms is
    (epsilon_total, delta_total)-DP.

    Numeric parameters are decided by the optimal composition theorem (KOV 2015, Thm 3.3, exact:
    the k-fold composition of the canonical randomized response attains it): exactly when every
    term of its sum is decided to vanish (eps_total >= k eps, where delta_total is compared with
    1 - (1 - delta)^k in rational arithmetic: ``proved``), otherwise with arb balls
    (``certified``, or ``refuted`` with the event on k-fold randomized response).

    Symbolic parameters (any of epsilon, k, delta, the totals; k a positive integer symbol) are
    ``proved`` by basic composition (Dwork and Roth 2014, Thm 3.16, by induction on k: k eps and
    k delta) when k eps <= epsilon_total and k delta <= delta_total for every value (exact
    algebra or z3), and ``refuted`` at concrete values where the exact KOV delta exceeds
    delta_total."""

    epsilon: Any
    k: Any
    epsilon_total: Any
    delta_total: Any
    delta: Any = 0

    def __post_init__(self):
        fields = ("epsilon", "k", "epsilon_total", "delta_total", "delta")
        values = {f: as_expr(getattr(self, f), f) for f in fields}
        # a symbolic k is a positive integer, whatever assumptions its symbol carried
        ks = {s for s in values["k"].free_symbols if s.name == "k"}
        values = {f: v.xreplace({s: _K for s in ks}) for f, v in values.items()}
        if values["k"].free_symbols - {_K} or (values["k"].is_number and _bad_k(values["k"])):
            raise InputError(f"k={self.k!r} must be an integer in [1, {_MAX_K}] (the number of "
                             "mechanisms composed), or the symbol k.")
        for f in fields:
            if not values[f].free_symbols:
                values[f] = (int(values[f]) if f == "k" else
                             check_delta(values[f], f) if f.startswith("delta")
                             else check_eps_value(values[f], f))
        for f, v in values.items():
            object.__setattr__(self, f, v)

    @property
    def symbolic(self) -> bool:
        return any(sp.sympify(getattr(self, f)).free_symbols
                   for f in ("epsilon", "k", "epsilon_total", "delta_total", "delta"))

    def statement(self) -> str:
        return (f"{self.k}-fold composition of ({self.epsilon}, {self.delta})-DP mechanisms is "
                f"({_short(self.epsilon_total)}, {self.delta_total})-DP")

    def check(self, *, id: str = "", source: str = "", expect: str = "holds",
              statement: str | None = None) -> ProofResult:
        start = time.perf_counter()
        meta = dict(id=id, source=source, expect=expect, statement=statement)
        if self.symbolic:
            return self._check_symbolic(meta, start)
        return self._check_numeric(meta, start)

    def _check_numeric(self, meta, start, values: dict | None = None) -> ProofResult:
        exact_delta = kov_exact(self.epsilon, self.k, self.epsilon_total, self.delta)
        method = "optimal composition (KOV 2015 Thm 3.3) as an exact finite sum"
        if exact_delta is not None:
            status, how = compare(exact_delta, self.delta_total)
            text = (f"eps_total >= k eps: every term of the sum vanishes; exact delta = "
                    f"1 - (1 - delta)^k = {exact_delta} ({how})")
            if status == "exact":
                return make_result(meta, self.statement(), Verdict.PROVED, method + ", exact",
                                   start, reason=text)
            if status == "certified":
                return make_result(meta, self.statement(), Verdict.CERTIFIED, method + ", arb",
                                   start, reason=text)
            if status == "violated":
                cex = Counterexample(
                    {"epsilon": str(self.epsilon), "k": self.k, "delta": str(self.delta)},
                    ("x: each mechanism is the canonical (eps, delta) mechanism on input 0",
                     "x': on input 1"),
                    "S = {some report is the outcome that has probability delta under x and 0 "
                    "under x'}", f"P[M(x) in S] - e^eps_total P[M(x') in S] = 1 - (1 - delta)^k "
                    f"= {exact_delta}", f"delta_total = {self.delta_total}", how)
                return make_result(meta, self.statement(), Verdict.REFUTED, method + ", exact",
                                   start, reason=text, counterexample=cex)
        enc = kov_delta(self.epsilon, self.k, self.epsilon_total, self.delta)
        target = to_ball(self.delta_total)
        method += ", arb balls"
        text = f"exact delta at eps_total={_short(self.epsilon_total)}: {show_ball(enc)}"
        if enc <= target:
            return make_result(meta, self.statement(), Verdict.CERTIFIED, method, start,
                               reason=text)
        if enc > target:
            return make_result(meta, self.statement(), Verdict.REFUTED, method, start,
                               reason=text, counterexample=self._counterexample(enc))
        return make_result(meta, self.statement(), Verdict.UNKNOWN, method, start, reason=text)

    def _counterexample(self, enc, values: dict | None = None) -> Counterexample:
        thresholds = [l for l in range(self.k + 1)
                      if float((self.k - 2 * l) * self.epsilon) > float(self.epsilon_total)]
        params = {"epsilon": str(self.epsilon), "k": self.k, "delta": str(self.delta)}
        return Counterexample(
            params | {str(s): str(v) for s, v in (values or {}).items()},
            ("x: each of the k mechanisms is randomized response on bit 1", "x': on bit 0"),
            f"S = {{at most {max(thresholds, default=-1)} of the k reports differ from x}}",
            f"P[M(x) in S] - e^eps_total P[M(x') in S] in {show_ball(enc)}",
            f"delta_total = {self.delta_total}", "arb interval arithmetic (exact sum)")

    def _check_symbolic(self, meta, start) -> ProofResult:
        e, k, et, dt, d = (sp.sympify(getattr(self, f)) for f in
                           ("epsilon", "k", "epsilon_total", "delta_total", "delta"))
        free = e.free_symbols | k.free_symbols | et.free_symbols | dt.free_symbols | d.free_symbols
        domain = [s >= 0 for s in free] + ([d < 1] if d.free_symbols else [])
        steps = []
        for label, lhs, rhs in (("k eps <= epsilon_total", k * e, et),
                                ("k delta <= delta_total", k * d, dt)):
            out = discharge(lhs, rhs, domain)
            steps.append(f"{label}: {out.status} ({out.detail})")
        method = "basic composition (induction on k), dominance by exact algebra and z3"
        if all(": proved" in s for s in steps):
            return make_result(meta, self.statement(), Verdict.PROVED, method, start,
                               steps=tuple(steps))
        for values in self._points(free):
            try:
                concrete = ComposedDP(*(sp.sympify(getattr(self, f)).subs(values) for f in
                                        ("epsilon", "k", "epsilon_total", "delta_total",
                                         "delta")))
            except InputError:
                continue  # outside the claim's range at these values (e.g. a negative total)
            result = concrete._check_numeric({}, start)
            if result.verdict is Verdict.REFUTED:
                cex = result.counterexample
                cex = Counterexample({**cex.parameters, **{str(s): str(v) for s, v in
                                                           values.items()}},
                                     cex.inputs, cex.output, cex.ratio, cex.bound, cex.check)
                return make_result(meta, self.statement(), Verdict.REFUTED,
                                   "optimal composition (KOV 2015) at concrete values, arb balls",
                                   start, counterexample=cex, steps=tuple(steps))
        return make_result(meta, self.statement(), Verdict.UNKNOWN, method, start,
                           reason="no proof and no counterexample found", steps=tuple(steps))

    @staticmethod
    def _points(free: set):
        symbols = sorted(free, key=str)
        pools = [_POINTS.get(s.name, _POINTS["epsilon"]) for s in symbols]
        for combo in itertools.islice(itertools.product(*pools), 200):
            values = dict(zip(symbols, map(sp.sympify, combo)))
            if all(not (s.is_integer and not v.is_integer) for s, v in values.items()):
                yield values


def _bad_k(k: sp.Expr) -> bool:
    return not (k.is_Integer and 1 <= k <= _MAX_K)


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

    def __post_init__(self):
        object.__setattr__(self, "bound", rule_expr(self.bound, "bound", {
            "alpha": _ALPHA, "sigma": sym("sigma"), "Delta": sym("Delta")}))

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
        rhs = self.bound * (_ALPHA if self.per_alpha else 1)
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
        lhs_v, rhs_v = rationalize(div.subs(values)), rationalize(rhs.subs(values))
        status, how = compare(lhs_v, rhs_v)
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

    def __post_init__(self):
        _gaussian_setting(self)
        alphas = tuple(as_expr(a, "alphas") for a in self.alphas)
        if not alphas or any(not (a.is_number and a > 1) for a in alphas):
            raise InputError(f"alphas={self.alphas!r} must be numbers > 1 (Renyi orders).")
        object.__setattr__(self, "alphas", alphas)
        if self.formula is not None:
            object.__setattr__(self, "formula", rule_expr(self.formula, "formula", {
                "rdp": _RDP, "alpha": _ALPHA, "delta": _DL}))

    def epsilon(self) -> sp.Expr:
        """min over alphas of formula(rdp, alpha, delta); default rdp + ln(1/delta)/(alpha - 1)."""
        s, D = self.sigma, self.sensitivity
        f = self.formula if self.formula is not None else _RDP + sp.log(1 / _DL) / (_ALPHA - 1)
        vals = [f.subs({_RDP: self.k * a * D**2 / (2 * s**2), _ALPHA: a, _DL: self.delta})
                for a in self.alphas]
        return min(vals, key=lambda v: float(v))

    def statement(self) -> str:
        return (f"{self.k}-fold Gaussian(sigma={self.sigma}) is ({float(self.epsilon()):.6g}, "
                f"{self.delta})-DP by the RDP conversion")

    def check(self, *, id: str = "", source: str = "", expect: str = "holds",
              statement: str | None = None) -> ProofResult:
        start = time.perf_counter()
        meta = dict(id=id, source=source, expect=expect, statement=statement)
        eps = self.epsilon()
        sig = self.sigma / sp.sqrt(self.k)
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

    def __post_init__(self):
        _gaussian_setting(self)
        if self.formula is not None:
            object.__setattr__(self, "formula", rule_expr(self.formula, "formula", {
                "rho": _RHO, "delta": _DL}))

    def epsilon(self) -> sp.Expr:
        f = (self.formula if self.formula is not None
             else _RHO + 2 * sp.sqrt(_RHO * sp.log(1 / _DL)))
        s, D = self.sigma, self.sensitivity
        return f.subs({_RHO: self.k * D**2 / (2 * s**2), _DL: self.delta})

    def statement(self) -> str:
        return (f"{self.k}-fold Gaussian(sigma={self.sigma}) is ({float(self.epsilon()):.6g}, "
                f"{self.delta})-DP by the zCDP conversion")

    def check(self, *, id: str = "", source: str = "", expect: str = "holds",
              statement: str | None = None) -> ProofResult:
        start = time.perf_counter()
        meta = dict(id=id, source=source, expect=expect, statement=statement)
        sig = self.sigma / sp.sqrt(self.k)
        return _gaussian_verdict(meta, self.statement(), start, self.epsilon(), sig,
                                 self.sensitivity, self.delta, "zCDP conversion")


_RDP, _RHO, _DL = (sp.Symbol(n, positive=True) for n in ("rdp", "rho", "delta"))


def _gaussian_setting(claim) -> None:
    """Validate and convert the numeric sigma, k, delta and sensitivity of a conversion claim."""
    object.__setattr__(claim, "sigma", _positive_number(claim.sigma, "sigma"))
    object.__setattr__(claim, "sensitivity", _positive_number(claim.sensitivity, "sensitivity"))
    object.__setattr__(claim, "k", _check_k(claim.k))
    delta = check_delta(claim.delta)
    if delta == 0:
        raise InputError("delta=0: Gaussian noise is never (eps, 0)-DP; give delta > 0.")
    object.__setattr__(claim, "delta", delta)


def _positive_number(value, name: str) -> sp.Expr:
    v = as_expr(value, name)
    if v.free_symbols or not v.is_positive:
        raise InputError(f"{name}={value!r} must be a positive number; give e.g. {name}=1.")
    return v


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
