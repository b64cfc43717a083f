"""Composition: the general rules of sequential composition, and k-fold composition.

- Sequential composition of two mechanisms (basic and adaptive, pure and approximate; notes
  001 "Sequential composition"; Dwork and Roth 2014, Thm 3.16): a claim states a general rule
  R(eps1, eps2); the listed finite instances are built exactly (:mod:`proofs.finite`) and the
  rule is proved or refuted symbolically by :mod:`proofs.checkers.rules`, else ``checked``.
- k-fold composition of (eps, delta)-DP mechanisms: the optimal composition theorem (Kairouz,
  Oh, Viswanath 2015, Thm 3.3) is exact,
      delta_total = 1 - (1 - delta)^k (1 - delta_k(eps_total)),
      delta_k(eps') = (1 + e^eps)^-k sum_{l=0}^{k} C(k, l) (e^{(k-l) eps} - e^{eps'} e^{l eps})_+,
  the privacy profile of k-fold randomized response, which dominates every eps-DP mechanism.
  It is evaluated with arb balls in log space; a term whose sign is decided to be <= 0 is
  dropped exactly, so eps_total >= k eps gives delta_total exactly (``proved``). Symbolic
  parameters are proved by basic composition (induction on k) and refuted at concrete values.
- Advanced composition (Dwork, Rothblum, Vadhan 2010, Thm III.3) enters as the formula
  :func:`proofs.formulas.drv_epsilon` for eps_total; symbolic claims that basic composition
  does not prove are proved by it where they dominate it.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from fractions import Fraction

import sympy as sp
from flint import arb, ctx

from proofs.checkers.rules import composition_rule
from proofs.claims import ComposedDP, SequentialComposition
from proofs.claims.composition import short
from proofs.decide import at, compare, discharge, show
from proofs.errors import InputError
from proofs.expr import rationalize
from proofs.finite import compose, compose_adaptive, finite_delta, finite_ratio
from proofs.formulas import drv_epsilon
from proofs.numeric import PRECISION, show_ball, to_ball
from proofs.results import Counterexample, Finding, Verdict
from proofs.smt import prove_forall
from proofs.symbols import D1, D2, E1, E2
from proofs.validate import allowed, check_delta, check_eps_value, check_k

__all__ = ["check", "general_verdict", "kov_delta", "kov_epsilon", "kov_exact", "supports"]


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


def general_verdict(general, steps: list, count: int, theorem: str) -> Finding:
    """The verdict of a claim with a general rule: proved by the symbolic argument, refuted by
    a generated instance, otherwise `checked` on the listed instances only."""
    steps = [*steps, *general.steps]
    if general.status == "proved":
        return Finding(
            Verdict.PROVED,
            f"{theorem} as pointwise lemmas and dominance of the rule, by exact algebra and z3",
            steps=tuple(steps),
            reason=f"general rule proved; also holds on the {count} listed instances",
        )
    if general.status == "refuted":
        return Finding(
            Verdict.REFUTED,
            "generated instance (canonical mechanisms), re-checked exactly",
            counterexample=general.counterexample,
            steps=tuple(steps),
        )
    return Finding(
        Verdict.CHECKED,
        "listed instances built, exact epsilon computed",
        steps=tuple(steps),
        reason=f"holds on the {count} listed instances only; {general.reason}",
    )


def _positive_terms(e: sp.Expr, k: int, et: sp.Expr) -> range | None:
    """The l in 0..k whose KOV term e^{(k-l) eps} - e^{eps_total + l eps} is positive, i.e.
    (k - 2l) eps > eps_total: l < c = (k - eps_total/eps)/2, decided exactly at the boundary
    (rational arithmetic or arb); None when the boundary cannot be decided."""
    if e == 0:
        return range(k + 1) if compare(0, et)[0] == "violated" else range(0)
    c = (k - et / e) / 2
    rough = float(c)
    if not math.isfinite(rough) or abs(rough) >= 1e15:  # (ceil of a huge double is no guide)
        guess = 0 if rough < 0 else k + 1
    else:
        guess = max(0, min(k + 1, math.ceil(rough)))
    # the first non-positive term is at l = ceil(c): check the neighbours of the float guess
    for l in range(max(0, guess - 2), min(k, guess + 2) + 1):
        status, _how = compare((k - 2 * l) * e, et)
        if status == "unknown":
            return None
        if status != "violated":
            return range(l)
    first = min(k, guess + 2) + 1
    return range(first) if first > k else None


def kov_exact(epsilon, k, epsilon_total, delta=0) -> sp.Expr | None:
    """The exact delta of k-fold composition (KOV 2015, Thm 3.3) as a SymPy expression: when
    every term of the sum is zero (eps_total >= k eps), 1 - (1 - delta)^k; when e^eps and
    e^eps_total are rational (eps = ln 2, eps_total = 3 ln 2), the whole sum in rational
    arithmetic (k up to 2000). None otherwise."""
    k = check_k(k)
    e, et = check_eps_value(epsilon), check_eps_value(epsilon_total, "epsilon_total")
    d = check_delta(delta)
    positive = _positive_terms(e, k, et)
    if positive is None or (d != 0 and k > _EXACT_K):
        return None
    if positive == range(0):
        return 1 - (1 - d) ** k
    r, rt = rationalize(sp.exp(e)), rationalize(sp.exp(et))
    if k > _EXACT_K or not (r.is_Rational and rt.is_Rational and d.is_Rational):
        return None
    if k * sum(int(v).bit_length() for v in (r.p, r.q, rt.p, rt.q)) > _EXACT_BITS:
        return None  # (e^eps = 1 + 10^-100 at k = 2000: ten minutes of huge fractions)
    r, rt = Fraction(int(r.p), int(r.q)), Fraction(int(rt.p), int(rt.q))
    terms = sum(math.comb(k, l) * (r ** (k - l) - rt * r**l) for l in positive)
    rr = terms / (1 + r) ** k
    keep = (1 - Fraction(int(d.p), int(d.q))) ** k
    return sp.Rational(1 - keep * (1 - rr))


_EXACT_K = 2000  # beyond this, (1 - delta)^k is enclosed with arb instead of a huge rational
_EXACT_BITS = 20_000  # k times the bits of e^eps and e^eps_total: the rational sum's budget


def kov_delta(epsilon, k, epsilon_total, delta=0, prec: int = PRECISION) -> arb:
    """Arb enclosure of the exact delta of k-fold composition of (eps, delta)-DP mechanisms at
    eps_total: 1 - (1 - delta)^k (1 - delta_k(eps_total)) (Kairouz, Oh, Viswanath 2015)."""
    k = check_k(k)
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
        for l in positive if positive is not None else range(k + 1):
            # decided terms outside `positive` are <= 0 and contribute nothing
            log_c = arb(k + 1).lgamma() - arb(l + 1).lgamma() - arb(k - l + 1).lgamma()
            term = (log_c + (k - l) * eb - norm).exp() - (log_c + etb + l * eb - norm).exp()
            if term > 0:
                rr += term
            elif not term <= 0:
                rr += arb(0).union(term)
        # 1 - (1 - delta)^k (1 - rr) as (1 - (1 - delta)^k) + (1 - delta)^k rr: written as
        # it stands, a sum rr below 2^-prec was lost in the 1 (delta 0 and rr 1e-47 gave a
        # ball around 0, so a claim of delta_total 0 was undecided)
        log_keep = k * (-to_ball(d)).log1p()
        return -log_keep.expm1() + log_keep.exp() * rr
    finally:
        ctx.prec = old


def kov_epsilon(epsilon, k, delta_total, delta=0) -> tuple[sp.Expr, arb]:
    """KOV Thm 3.3: the smallest eps_i = (k - 2i) eps, i = floor(k/2) ... 0, whose exact delta is
    certainly <= delta_total, with that delta's enclosure (as dp-accounting's
    `advanced_composition`). Raises when no grid value is certified."""
    k = check_k(k)
    target = to_ball(check_delta(delta_total, "delta_total"))
    e = check_eps_value(epsilon)
    for i in range(k // 2, -1, -1):
        value = (k - 2 * i) * e
        enc = kov_delta(e, k, value, delta)
        if enc <= target:
            return value, enc
    raise InputError(f"delta_total={delta_total!r} is below 1 - (1 - delta)^k; no epsilon works.")


_POINTS = {
    # (k = 100 with a small delta: where advanced composition beats basic, and a misquote of
    # it shows; none of the smaller values tells them apart)
    "k": (1, 2, 3, 5, 10, 100),
    # (eps 10: a total of (k - 1) eps on k = 10^4 parts is false only at large eps; delta
    # 10^-10: a formula off by a constant under the log shows only at small delta')
    "epsilon": (sp.Rational(1, 10), sp.Rational(1, 2), 1, 2, 10),
    "delta": (
        0,
        sp.Rational(1, 10**10),
        sp.Rational(1, 10**5),
        sp.Rational(1, 100),
        sp.Rational(1, 10),
    ),
}


def _check_sequential_composition(claim) -> Finding:
    steps = []
    for i, (m1, m2) in enumerate(claim.instances):
        comp = compose_adaptive(m1, m2) if isinstance(m2, Mapping) else compose(m1, m2)
        seconds = list(m2.values()) if isinstance(m2, Mapping) else [m2]
        out = (
            _sequential_composition_pure(claim, i, m1, seconds, comp)
            if claim.at is None
            else _sequential_composition_approx(claim, i, m1, seconds, comp)
        )
        status, text, cex = out
        steps.append(f"instance {i}: {status} ({text})")
        if status == "violated":
            return Finding(
                Verdict.REFUTED,
                "composed mechanism built, exact epsilon computed",
                counterexample=cex,
                steps=tuple(steps),
            )
    general = composition_rule(claim.rule, None if claim.at is None else claim.delta_rule)
    return general_verdict(general, steps, len(claim.instances), "basic composition")


def _sequential_composition_pure(claim, i, m1, seconds, comp):
    r1, _ = finite_ratio(m1)
    r2 = _exact_max([finite_ratio(m)[0] for m in seconds])
    rc, where = finite_ratio(comp)
    if r2 is None:
        return "unknown", "cannot order the second mechanisms' epsilons", None
    bound = sp.exp(at(claim.rule, {E1: sp.log(r1), E2: sp.log(r2)}))
    status, how = compare(rc, bound)
    text = f"e^eps1={r1}, e^eps2={r2}, composed e^eps={rc}, bound {bound}"
    if status != "violated":
        return status, text, None
    x, xp, y = where
    cex = Counterexample(
        {"instance": i, "eps1": f"ln {r1}", "eps2": f"ln {r2}"},
        (x, xp),
        y,
        f"P[M(x)=y]/P[M(x')=y] = {rc}",
        f"e^rule = {bound}",
        how,
    )
    return status, text, cex


def _sequential_composition_approx(claim, i, m1, seconds, comp):
    e1, e2 = claim.at[i]
    d1 = finite_delta(m1, e1)[0]
    d2 = _exact_max([finite_delta(m, e2)[0] for m in seconds])
    if d2 is None:
        return "unknown", "cannot order the second mechanisms' deltas", None
    e_tot = at(claim.rule, {E1: e1, E2: e2})
    d_bound = at(claim.delta_rule, {D1: d1, D2: d2})
    dc, (x, xp, event) = finite_delta(comp, e_tot)
    status, how = compare(dc, d_bound)
    text = f"delta1={d1}, delta2={d2}, composed delta at {e_tot} = {dc}, bound {d_bound}"
    if status != "violated":
        return status, text, None
    cex = Counterexample(
        {"instance": i, "eps": str(e_tot)},
        (x, xp),
        set(event),
        f"P[M(x) in S] - e^eps P[M(x') in S] = {dc}",
        f"delta = {d_bound}",
        how,
    )
    return status, text, cex


def _check_composed_dp(claim) -> Finding:
    if claim.symbolic:
        return _composed_dp_check_symbolic(claim)
    return _composed_dp_check_numeric(claim)


def _composed_dp_check_numeric(claim, values: dict | None = None) -> Finding:
    exact_delta = kov_exact(claim.epsilon, claim.k, claim.epsilon_total, claim.delta)
    method = "optimal composition (KOV 2015 Thm 3.3) as an exact finite sum"
    if exact_delta is not None:
        status, how = compare(exact_delta, claim.delta_total)
        vanish = compare(claim.k * claim.epsilon, claim.epsilon_total)[0] in ("exact", "certified")
        text = (
            "eps_total >= k eps: every term of the sum vanishes; exact delta = "
            f"1 - (1 - delta)^k = {show(exact_delta)} ({how})"
            if vanish
            else "e^eps and e^eps_total are rational: the sum in rational arithmetic; exact "
            f"delta = {show(exact_delta)} ({how})"
        )
        if status == "exact":
            return Finding(Verdict.PROVED, method + ", exact", reason=text)
        if status == "certified":
            return Finding(Verdict.CERTIFIED, method + ", arb", reason=text)
        if status == "violated" and not vanish:
            cex = _composed_dp_counterexample(claim, to_ball(exact_delta))
            return Finding(Verdict.REFUTED, method + ", exact", reason=text, counterexample=cex)
        if status == "violated":
            cex = Counterexample(
                {"epsilon": str(claim.epsilon), "k": claim.k, "delta": str(claim.delta)},
                (
                    "x: each mechanism is the canonical (eps, delta) mechanism on input 0",
                    "x': on input 1",
                ),
                "S = {some report is the outcome that has probability delta under x and 0 "
                "under x'}",
                f"P[M(x) in S] - e^eps_total P[M(x') in S] = 1 - (1 - delta)^k = {exact_delta}",
                f"delta_total = {claim.delta_total}",
                how,
            )
            return Finding(Verdict.REFUTED, method + ", exact", reason=text, counterexample=cex)
    enc = kov_delta(claim.epsilon, claim.k, claim.epsilon_total, claim.delta)
    target = to_ball(claim.delta_total)
    method += ", arb balls"
    text = f"exact delta at eps_total={short(claim.epsilon_total)}: {show_ball(enc)}"
    if enc <= target:
        return Finding(Verdict.CERTIFIED, method, reason=text)
    if enc > target:
        return Finding(
            Verdict.REFUTED,
            method,
            reason=text,
            counterexample=_composed_dp_counterexample(claim, enc),
        )
    return Finding(Verdict.UNKNOWN, method, reason=text)


def _composed_dp_counterexample(claim, enc, values: dict | None = None) -> Counterexample:
    """KOV's worst case: each mechanism randomized response on bit 1 (x) or 0 (x'), with, for
    delta > 0, a report "leak" of probability delta under x only ("leak'" under x'). S holds
    the outputs whose composed ratio exceeds e^eps_total: those with at most l - 1 reports
    differing from x's for l = :func:`_positive_terms`, decided exactly (a float comparison
    dropped l = 0 at eps_total just below k eps and named an empty S), and any "leak"."""
    e, et, d = sp.sympify(claim.epsilon), sp.sympify(claim.epsilon_total), claim.delta
    positive = _positive_terms(e, claim.k, et)
    parts = ['some report is "leak"'] if d != 0 else []
    which = "every report is a bit and at most {} of them" if d != 0 else "at most {} reports"
    if positive is None:
        parts.append(which.format("l") + f" differ from x's, l < (k - {et}/{e})/2")
    elif len(positive):
        parts.append(which.format(len(positive) - 1) + " differ from x's")
    inputs = ("x: each of the k mechanisms is randomized response on bit 1", "x': on bit 0")
    if d != 0:
        inputs = (
            f'x: each of the k mechanisms reports "leak" with probability {d}, else '
            "randomized response on bit 1 (KOV's canonical (eps, delta) mechanism)",
            f'x\': reports "leak\'" (never "leak") with probability {d}, else randomized '
            "response on bit 0",
        )
    params = {"epsilon": str(claim.epsilon), "k": claim.k, "delta": str(d)}
    return Counterexample(
        params | {str(s): str(v) for s, v in (values or {}).items()},
        inputs,
        "S = {" + (" or ".join(parts) or "nothing") + "}",
        f"P[M(x) in S] - e^eps_total P[M(x') in S] in {show_ball(enc)}",
        f"delta_total = {claim.delta_total}",
        "arb interval arithmetic (exact sum)",
    )


def _composed_dp_check_symbolic(claim) -> Finding:
    e, k, et, dt, d = (
        sp.sympify(getattr(claim, f))
        for f in ("epsilon", "k", "epsilon_total", "delta_total", "delta")
    )
    free = e.free_symbols | k.free_symbols | et.free_symbols | dt.free_symbols | d.free_symbols
    # the values the claim speaks of: each field in its range (outside it the claim is not
    # one, and its constructor refuses it), every symbol as its assumptions allow (z3 adds
    # those); never a range of the checker's own
    ranges = [e >= 0, k >= 1, et >= 0, dt >= 0, dt <= 1, d >= 0, d < 1]
    domain = [c for c in ranges if c.free_symbols]
    steps, models, proved = [], [], []
    for label, lhs, rhs in (
        ("k eps <= epsilon_total", k * e, et),
        ("k delta <= delta_total", k * d, dt),
    ):
        out = _discharge_widening(lhs, rhs, domain)
        steps.append(f"{label}: {out.status} ({out.detail})")
        proved.append(out.status == "proved")
        if out.model is not None:
            models.append(out.model["symbols"])
    method = "basic composition (induction on k), dominance by exact algebra and z3"
    if all(proved):
        return Finding(Verdict.PROVED, method, steps=tuple(steps))
    if proved[0]:
        # at eps_total >= k eps every term of KOV's sum vanishes: delta is 1 - (1 - delta)^k
        out = _discharge_widening(1 - (1 - d) ** k, dt, domain)
        steps.append(f"1 - (1 - delta)^k <= delta_total: {out.status} ({out.detail})")
        if out.status == "proved":
            how = "optimal composition (KOV 2015, Thm 3.3) at epsilon_total >= k eps, where its "
            return Finding(
                Verdict.PROVED,
                how + "delta is 1 - (1 - delta)^k; dominance by exact algebra and z3",
                steps=tuple(steps),
            )
    advanced, models = _advanced(e, k, et, dt, d, domain, steps, models)
    if advanced is not None:
        return advanced
    for values in _composed_dp_points(free, models):
        try:
            concrete = ComposedDP(
                *(
                    at(getattr(claim, f), values)
                    for f in ("epsilon", "k", "epsilon_total", "delta_total", "delta")
                )
            )
        except InputError:
            continue  # outside the claim's range at these values (e.g. a negative total)
        result = _composed_dp_check_numeric(concrete)
        if result.verdict is Verdict.REFUTED:
            cex = result.counterexample
            # (a symbol named like a field, such as k in k = "k + 1", keeps its own entry)
            named = {
                (f"{s} (in the claim)" if str(s) in cex.parameters else str(s)): str(v)
                for s, v in values.items()
                if str(cex.parameters.get(str(s))) != str(v)
            }
            cex = Counterexample(
                {**cex.parameters, **named}, cex.inputs, cex.output, cex.ratio, cex.bound, cex.check
            )
            return Finding(
                Verdict.REFUTED,
                "optimal composition (KOV 2015) at concrete values, arb balls",
                counterexample=cex,
                steps=tuple(steps),
            )
    return Finding(
        Verdict.UNKNOWN, method, reason="no proof and no counterexample found", steps=tuple(steps)
    )


def _advanced(e, k, et, dt, d, domain: list, steps: list, models: list):
    """The claim by advanced composition (Dwork, Rothblum, Vadhan 2010, Thm III.3; Dwork and
    Roth 2014, Thm 3.20): k-fold adaptive composition of (eps, delta)-DP mechanisms is
    (sqrt(2k ln(1/delta')) eps + k eps (e^eps - 1), k delta + delta')-DP for every delta' > 0.
    With delta' = delta_total - k delta (the most the claim leaves), proved when that is > 0
    and the formula's eps' <= epsilon_total at every value. None (the steps and z3's models
    grown) when not proved."""
    slack = sp.simplify(dt - k * d)
    positive = prove_forall(0, slack, domain, strict=True)
    steps.append(f"delta' = {slack} > 0: {positive.status} {positive.reason or ''}".rstrip())
    if positive.status != "proved":
        return None, models
    out = _discharge_widening(drv_epsilon(e, k, slack), et, [*domain, slack > 0])
    steps.append(f"DRV eps' at delta' <= epsilon_total: {out.status} ({out.detail})")
    if out.status != "proved":
        return None, models + ([out.model["symbols"]] if out.model is not None else [])
    method = (
        f"advanced composition ({_DRV10}) at delta' = delta_total - k delta, dominance by "
        "exact algebra and z3"
    )
    return Finding(Verdict.PROVED, method, steps=tuple(steps)), models


_DRV10 = "Dwork, Rothblum, Vadhan 2010, Thm III.3; Dwork and Roth 2014, Thm 3.20"


def _discharge_widening(lhs, rhs, domain: list):
    """lhs <= rhs over the fields' ranges; where that is not proved (a range outside z3's
    fragment, such as sqrt(x) >= 0, fails every obligation), over the ranges that share a
    symbol with it, then over the symbols' assumptions alone: each a wider set of values, so a
    proof over it holds on the claim's. The first outcome is kept when none proves."""
    first = discharge(lhs, rhs, domain)
    if first.status != "unknown" or "outside the SMT fragment" not in first.detail:
        return first  # (a timeout is not retried: a wider question is no easier)
    own = (lhs - rhs).free_symbols
    related = [c for c in domain if c.free_symbols & own]
    for wider in [related] * (related != domain) + [[]] * bool(related):
        out = discharge(lhs, rhs, wider)
        if out.status == "proved":
            return out
    return first


_MAX_POINTS = 1000  # grid points tried (four symbols at 6 x 5 x 5 x 5 values: 750)


def _composed_dp_points(free: set, models: list[dict] = ()):
    """Values to look for a counterexample at: z3's models of the failed obligations first
    (where a slack may be negative: none of the small values below finds it), then a grid."""
    symbols = sorted(free, key=str)
    for model in models:
        values = {s: model.get(s) for s in symbols}
        if all(v is not None and allowed(s, v) for s, v in values.items()):
            yield values
    pools = [
        _POINTS.get(s.name, _POINTS["delta" if s.name.startswith("delta") else "epsilon"])
        for s in symbols
    ]
    # a symbol that may be negative (a slack) is tried at negative values too
    pools = [p if s.is_nonnegative else (*p, *(-v for v in p if v)) for s, p in zip(symbols, pools)]
    for combo in itertools.islice(itertools.product(*pools), _MAX_POINTS):
        values = dict(zip(symbols, map(sp.sympify, combo)))
        if all(allowed(s, v) for s, v in values.items()):
            yield values


_CHECKS = {SequentialComposition: _check_sequential_composition, ComposedDP: _check_composed_dp}


def supports(claim) -> bool:
    return type(claim) in _CHECKS


def check(claim) -> Finding:
    return _CHECKS[type(claim)](claim)
