"""The pure-DP checker: is sup ln P[M(x)=y]/P[M(x')=y] over neighbours and outputs <= epsilon?

Order of evidence, strongest first:

1. every direct case (or, for unbounded families, every lemma of the structured proof) is
   discharged for all parameters: closed numeric cases by exact rational arithmetic, the rest
   by z3 over the reals -> ``proved`` (or ``certified`` when a closed case needed arb balls);
2. a violating point from z3 or from a search over parameter and output grids, re-checked
   with exact rational or arb interval arithmetic against the mechanism's own pmf/pdf ->
   ``refuted`` with the counterexample;
3. otherwise ``unknown`` with the reason.

An ``exact`` claim also asserts tightness: the loss attains the claimed epsilon somewhere.
"""

from __future__ import annotations

import itertools
import math
import time
from dataclasses import dataclass
from typing import Any

import sympy as sp

from proofs._errors import InputError
from proofs._formulations import Case, Formulation, formulate
from proofs._numeric import certainly_greater
from proofs._smt import prove_forall
from proofs.mechanisms import as_expr, check_epsilon
from proofs.results import Counterexample, ProofResult, Verdict

__all__ = ["PureDP", "check_pure", "tight_epsilon"]

# Simple values first; the search walks parameter combinations in order of total rank.
_PARAM_CANDIDATES = [1, sp.Rational(1, 2), 2, sp.Rational(1, 10), sp.Rational(3, 4), 3,
                     sp.Rational(1, 4), sp.Rational(9, 10), 5, 10]
_INT_CANDIDATES = [2, 1, 3, 4, 5, 10]
_MAX_PARAM_POINTS = 60


@dataclass(frozen=True, slots=True)
class PureDP:
    """Claim: `mechanism` is `epsilon`-DP (and, if `exact`, no smaller epsilon works)."""

    mechanism: Any
    epsilon: Any
    exact: bool = False

    def __post_init__(self):
        object.__setattr__(self, "epsilon", as_expr(self.epsilon, "epsilon"))

    def statement(self) -> str:
        word = "exactly" if self.exact else "at most"
        return f"{_describe(self.mechanism)} has pure-DP epsilon {word} {self.epsilon}"


def _describe(mech) -> str:
    fields = getattr(mech, "__dataclass_fields__", {})
    args = ", ".join(f"{k}={getattr(mech, k)}" for k in fields if k not in ("pmf",))
    return f"{type(mech).__name__}({args})"


# --- helpers ----------------------------------------------------------------------------


def _domain(mech, claim_eps: sp.Expr) -> list:
    cons = list(mech.domain())
    return cons


def _free(expr_list) -> set:
    out: set = set()
    for e in expr_list:
        out |= sp.sympify(e).free_symbols
    return out


def _is_true(relation, values: dict) -> bool:
    """Does a constraint hold at exact rational values? (Undecidable counts as no.)"""
    try:
        rel = sp.sympify(relation).subs(values)
        if rel in (sp.true, True):
            return True
        if rel in (sp.false, False):
            return False
        lhs_minus_rhs = rel.lhs - rel.rhs
        if isinstance(rel, (sp.StrictGreaterThan, sp.StrictLessThan)):
            sign = 1 if isinstance(rel, sp.StrictGreaterThan) else -1
            return bool(certainly_greater(sign * lhs_minus_rhs, 0))
        return bool(sp.simplify(rel)) is True
    except (TypeError, AttributeError):
        return False


@dataclass(frozen=True, slots=True)
class _Outcome:
    status: str  # "proved" | "certified" | "violated" | "unknown"
    detail: str = ""
    model: dict | None = None


def _closed_compare(lhs: sp.Expr, rhs: sp.Expr) -> _Outcome:
    """Decide lhs <= rhs for closed expressions: exact if rational, else with arb balls."""
    lhs, rhs = sp.nsimplify(lhs), sp.nsimplify(rhs)
    if lhs.is_Rational and rhs.is_Rational:
        return _Outcome("proved" if lhs <= rhs else "violated", "exact rational arithmetic")
    if sp.simplify(lhs - rhs) == 0:
        return _Outcome("proved", "exact algebra (equality)")
    greater = certainly_greater(lhs, rhs)
    if greater is True:
        return _Outcome("violated", "arb interval arithmetic")
    if greater is False:
        return _Outcome("certified", "arb interval arithmetic")
    return _Outcome("unknown", f"cannot separate {lhs} and {rhs} with arb")


def _algebraically_equal(a: sp.Expr, b: sp.Expr, thorough: bool = False) -> bool:
    """a == b identically, by SymPy simplification.

    Logarithms are expanded with force=True. That is valid here because privacy losses and
    claimed epsilons are real (logarithms of positive probabilities on the domain): forced
    expansion can only be off by an imaginary multiple of 2 pi i, so a real difference that
    simplifies to 0 is 0.
    """
    diff = a - b
    if diff == 0 or sp.expand(diff) == 0:
        return True
    if diff.has(sp.log):
        logs = sp.expand_log(sp.expand(diff, deep=False), force=True)
        if sp.expand(logs) == 0 or (thorough and sp.simplify(logs) == 0):
            return True
    return thorough and sp.simplify(diff) == 0


def _discharge(lhs, rhs, constraints) -> _Outcome:
    """Prove lhs <= rhs for all values satisfying constraints (and symbol assumptions)."""
    lhs, rhs = sp.sympify(lhs), sp.sympify(rhs)
    if _algebraically_equal(lhs, rhs):
        return _Outcome("proved", "exact algebra (equality)")
    if not _free([lhs, rhs, *constraints]):
        if not all(_is_true(c, {}) for c in constraints):
            return _Outcome("proved", "vacuous: constraints never hold")
        return _closed_compare(lhs, rhs)
    result = prove_forall(lhs, rhs, constraints)
    if result.status == "proved":
        return _Outcome("proved", "z3")
    if result.status == "model":
        return _Outcome("violated", "z3 model", result.model)
    return _Outcome("unknown", result.reason)


def _case_obligation(case: Case, eps: sp.Expr) -> tuple[sp.Expr, sp.Expr]:
    if case.log_ratio is not None:
        return case.log_ratio, eps
    return case.p, sp.exp(eps) * case.q


# --- counterexamples ------------------------------------------------------------------------


def _numerically_violated(case: Case, eps: sp.Expr, values: dict) -> bool:
    """A cheap floating-point screen before the exact re-check (never decides on its own)."""
    try:
        p = complex(case.p.subs(values).evalf(30))
        q = complex(case.q.subs(values).evalf(30))
        e = complex(sp.sympify(eps).subs(values).evalf(30))
    except (TypeError, ValueError, ZeroDivisionError):
        return True  # let the exact re-check decide
    if any(abs(v.imag) > 1e-12 for v in (p, q, e)):
        return True
    return p.real > math.exp(min(e.real, 700)) * q.real * (1 - 1e-12) - 1e-300


def _recheck(case: Case, eps: sp.Expr, values: dict, domain: list) -> Counterexample | None:
    """Re-check a candidate violation against the mechanism's own p and q, exactly."""
    if any(v is None for v in values.values()):
        return None
    if not _numerically_violated(case, eps, values):
        return None
    needed = _free([case.p, case.q, eps, *case.constraints])
    if not needed <= set(values):
        return None
    if not all(_is_true(c, values) for c in (*domain, *case.constraints)):
        return None
    for s, v in values.items():
        if s.is_integer and not sp.sympify(v).is_integer:
            return None
    p, q = sp.nsimplify(case.p.subs(values)), sp.nsimplify(case.q.subs(values))
    e = sp.sympify(eps).subs(values)
    if q == 0:
        if certainly_greater(p, 0) is not True:
            return None
        ratio, check = "infinite (P under x' is 0)", "exact: q = 0 and p > 0"
    else:
        verdict = _closed_compare(p, sp.exp(e) * q)
        if verdict.status != "violated":
            return None
        ratio, check = _show(sp.simplify(p / q)), verdict.detail
    relevant = _free([case.p, case.q, eps, *domain, *case.constraints]) - _case_vars(case)
    params = {str(s): _show(v) for s, v in sorted(values.items(), key=lambda kv: str(kv[0]))
              if s in relevant}
    point = tuple(_show(sp.sympify(c).subs(values)) if isinstance(c, sp.Basic) else str(c)
                  for c in _flatten_point(case.point))
    return Counterexample(
        parameters=params,
        inputs=(point[0], point[1]),
        output=point[2],
        ratio=f"P[M(x)=y]/P[M(x')=y] = {ratio}",
        bound=f"e^epsilon = exp({_show(e)}) = {float(sp.exp(e)):.6g}",
        check=check,
        note=case.note,
    )


def _case_vars(case: Case) -> set:
    return set(case.grid) | _free(
        [c for c in _flatten_point(case.point) if isinstance(c, sp.Basic)])


def _flatten_point(point) -> tuple:
    out = []
    for c in point:
        out.append(sp.Tuple(*c) if isinstance(c, tuple) else c)
    return tuple(out)


def _show(v) -> str:
    v = sp.sympify(v)
    if v.is_Rational or not v.free_symbols and v.is_number is False:
        return str(v)
    if not v.free_symbols:
        try:
            return f"{v} (~{float(v):.6g})" if not v.is_Rational else str(v)
        except TypeError:
            return str(v)
    return str(v)


def _param_points(params: list, domain: list):
    """Candidate parameter assignments inside the domain, small and simple values first."""
    pools = [_INT_CANDIDATES if s.is_integer else _PARAM_CANDIDATES for s in params]
    ranks = sorted(itertools.product(*(range(len(p)) for p in pools)), key=lambda r: (sum(r), r))
    count = 0
    for rank in ranks:
        combo = [pool[i] for pool, i in zip(pools, rank)]
        values = dict(zip(params, map(sp.sympify, combo)))
        if all(_is_true(c, values) for c in domain):
            yield values
            count += 1
            if count >= _MAX_PARAM_POINTS:
                return


def _search(cases, eps, domain, models) -> Counterexample | None:
    """Re-check z3's models, then search parameter and output grids."""
    for case, model in models:
        values = dict(model["symbols"])
        cex = _recheck(case, eps, values, domain)
        if cex is not None:
            return cex
    params = sorted(_free([eps, *domain, *(c.p for c in cases), *(c.q for c in cases)])
                    - set().union(*(_case_vars(c) for c in cases)), key=str)
    for pvals in _param_points(params, domain):
        for case in cases:
            grid_vars = list(case.grid)
            pools = [[sp.sympify(v).subs(pvals) for v in case.grid[g]] for g in grid_vars]
            for combo in itertools.product(*pools) if grid_vars else [()]:
                values = {**pvals, **dict(zip(grid_vars, combo))}
                cex = _recheck(case, eps, values, domain)
                if cex is not None:
                    return cex
    return None


# --- the checker ------------------------------------------------------------------------------


def _prove_upper(form: Formulation, eps: sp.Expr, domain: list):
    """Try to prove the upper bound; returns (status, method, steps, models)."""
    steps, models, statuses = [], [], []
    if form.lemmas is not None:
        for lemma in form.lemmas(eps):
            out = _discharge(lemma.lhs, lemma.rhs, [*domain, *lemma.constraints])
            steps.append(f"lemma {lemma.label}: {out.status} ({out.detail})")
            statuses.append(out.status)
        method = "structured proof, lemmas discharged by z3"
    else:
        for case in form.cases:
            lhs, rhs = _case_obligation(case, eps)
            out = _discharge(lhs, rhs, [*domain, *case.constraints])
            steps.append(f"case {case.label}: {out.status} ({out.detail})")
            statuses.append(out.status)
            if out.model is not None:
                models.append((case, out.model))
        method = "SMT (z3) over all parameters and outputs"
    if form.lemmas is not None:
        for case in form.cases:  # small instances: a source of counterexamples
            lhs, rhs = _case_obligation(case, eps)
            out = _discharge(lhs, rhs, [*domain, *case.constraints])
            if out.model is not None:
                models.append((case, out.model))
    if all(s == "proved" for s in statuses):
        if all("rational" in st or "z3" in st or "algebra" in st or "vacuous" in st
               for st in steps):
            return "proved", method, steps, models
    if all(s in ("proved", "certified") for s in statuses):
        return "certified", "arb interval arithmetic at the stated values", steps, models
    return "open", method, steps, models


def tight_epsilon(mech, domain: list | None = None) -> tuple[sp.Expr | None, str]:
    """The exact epsilon of `mech` when theory gives one and the checker verifies it.

    Verified means: the upper bound is proved (or certified) and the loss attains the value at
    the stated point. Returns (epsilon or None, explanation).
    """
    form = formulate(mech)
    domain = list(mech.domain()) if domain is None else domain
    if form.tight is None:
        return None, form.tight_note or "not computed"
    value, index, point = form.tight
    status, _method, _steps, _m = _prove_upper(form, value, domain)
    if status not in ("proved", "certified"):
        return None, f"candidate {value} not verified as an upper bound"
    case = form.cases[index]
    p, q = case.p.subs(point), case.q.subs(point)
    attained = (sp.simplify(p - sp.exp(value) * q) == 0
                or _algebraically_equal(sp.log(p) - sp.log(q), value, thorough=True))
    if not attained:
        return None, f"candidate {value} not shown to be attained"
    where = ", ".join(f"{k}={v}" for k, v in point.items()) or case.label
    return value, f"upper bound {status}, attained at {where}"


def check_pure(claim: PureDP, id: str = "", source: str = "", expect: str = "holds",
               statement: str | None = None) -> ProofResult:
    """Check a pure-DP claim; never raises on inconclusive input (that is `unknown`)."""
    start = time.perf_counter()
    mech, eps = claim.mechanism, claim.epsilon
    check_epsilon(eps)
    if hasattr(mech, "validate"):
        mech.validate()
    try:
        form = formulate(mech)
    except NotImplementedError:
        raise InputError(
            f"mechanism {type(mech).__name__} has no pure-DP formulation; describe it with "
            "proofs.FiniteMechanism or a built-in description."
        ) from None
    domain = _domain(mech, eps)
    status, method, steps, models = _prove_upper(form, eps, domain)
    tight, tight_note = tight_epsilon(mech, domain)
    tight_text = f"{tight} ({tight_note})" if tight is not None else None
    result = dict(id=id or "claim", statement=statement or claim.statement(), source=source,
                  expect=expect, tight_epsilon=tight_text, steps=tuple(steps))
    if status in ("proved", "certified"):
        verdict, reason, cex = Verdict(status), "", None
        if claim.exact:
            verdict, method, reason, cex = _check_exact(claim, tight, verdict, method, domain)
        return ProofResult(verdict=verdict, method=method, reason=reason, counterexample=cex,
                           seconds=time.perf_counter() - start, **result)
    cex = _search(form.cases, eps, domain, models)
    if cex is not None:
        reason = _refuted_reason(eps, tight)
        return ProofResult(verdict=Verdict.REFUTED, method="counterexample, re-checked",
                           counterexample=cex, reason=reason,
                           seconds=time.perf_counter() - start, **result)
    if claim.exact and tight is not None:
        _v, method2, reason, cex = _check_exact(claim, tight, Verdict.UNKNOWN, method, domain)
        if cex is not None:
            return ProofResult(verdict=Verdict.REFUTED, method=method2, reason=reason,
                               counterexample=cex, seconds=time.perf_counter() - start, **result)
    open_steps = "; ".join(s for s in steps if "proved" not in s)
    return ProofResult(verdict=Verdict.UNKNOWN, method=method,
                       reason=f"no proof and no counterexample found: {open_steps}",
                       seconds=time.perf_counter() - start, **result)


def _check_exact(claim: PureDP, tight, verdict: Verdict, method: str, domain: list):
    """An exact claim also needs the loss to reach the claimed epsilon."""
    if tight is not None and _algebraically_equal(tight, claim.epsilon, thorough=True):
        return verdict, method + "; tightness: attained", "", None
    if tight is not None:
        cex = _loose_witness(claim.epsilon, tight, domain)
        if cex is not None:
            return (Verdict.REFUTED, "verified tight epsilon below the claim", 
                    f"not tight: the true epsilon {tight} is below the claimed {claim.epsilon}",
                    cex)
    return (Verdict.UNKNOWN, method,
            "the upper bound holds but tightness (attainment of the claimed epsilon) was not shown",
            None)


def _loose_witness(claimed, tight, domain) -> Counterexample | None:
    """Parameter values at which the verified tight epsilon is certainly below the claim."""
    params = sorted(_free([claimed, tight, *domain]), key=str)
    for values in _param_points(params, domain):
        t, c = sp.sympify(tight).subs(values), sp.sympify(claimed).subs(values)
        if certainly_greater(c, t) is True:
            return Counterexample(
                parameters={str(k): _show(v) for k, v in values.items()},
                inputs=("any", "neighbour"), output="any",
                ratio=f"claimed epsilon {_show(c)}", bound=f"sup privacy loss {_show(t)}",
                check="arb interval arithmetic", note="the supremum is below the claim, so the "
                "claimed epsilon is not exact")
    return None


def _refuted_reason(eps, tight) -> str:
    if tight is None:
        return ""
    return f"the claimed epsilon {eps} is below the true epsilon {tight}"
