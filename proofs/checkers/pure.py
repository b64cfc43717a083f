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

import sympy as sp

from proofs.checkers.formulations import Case, Formulation, formulate
from proofs.checkers.laws import points
from proofs.claims import PureDP
from proofs.decide import algebraically_equal as _algebraically_equal
from proofs.decide import (
    at,
    known,
    long_numbers,
    long_rationals,
    show,
    simplifies_to_zero,
    undecided_gives,
)
from proofs.decide import closed_compare as _closed_compare
from proofs.decide import discharge as _discharge
from proofs.decide import free_symbols as _free
from proofs.decide import holds_at as _is_true
from proofs.decide import too_long as _too_long
from proofs.errors import InputError, Undecided
from proofs.expr import rationalize
from proofs.numeric import certainly_greater
from proofs.results import Counterexample, Finding, Verdict
from proofs.validate import allowed, check_description, check_epsilon, check_satisfiable, domain_of

__all__ = ["check", "supports", "supremum_epsilon", "tight_epsilon", "upper_bound"]

# Simple values first; the search walks parameter combinations in order of total rank.
_PARAM_CANDIDATES = [
    1,
    sp.Rational(1, 2),
    2,
    sp.Rational(1, 10),
    sp.Rational(3, 4),
    3,
    sp.Rational(1, 4),
    sp.Rational(9, 10),
    5,
    10,
]
_INT_CANDIDATES = [2, 1, 3, 4, 5, 10]
_MAX_PARAM_POINTS = 60


# --- helpers ----------------------------------------------------------------------------


def _case_obligation(case: Case, eps: sp.Expr) -> tuple[sp.Expr, sp.Expr]:
    if case.log_ratio is not None:
        return case.log_ratio, eps
    return _obligation(case.p, case.q, eps)


def _obligation(p: sp.Expr, q: sp.Expr, eps: sp.Expr) -> tuple[sp.Expr, sp.Expr]:
    """p <= e^eps q as two sides to compare. Closed p, q > 0 and an epsilon with a long
    rational in it (c log r, c = 1 - 10^-12) are compared as log(p/q) <= eps: SymPy writes
    e^(c log r) as r^c and looks for an exact root of r, which with r of 300 digits did not
    end, and an unevaluated exponential is evaluated again by the product with q."""
    if (
        long_rationals(eps)
        and not (p.free_symbols or q.free_symbols)
        and certainly_greater(p, 0) is True
        and certainly_greater(q, 0) is True
    ):
        return sp.log(p / q), eps
    return p, sp.exp(eps) * q


# --- counterexamples ------------------------------------------------------------------------


def _numerically_violated(case: Case, eps: sp.Expr, values: dict) -> bool:
    """A cheap floating-point screen before the exact re-check (never decides on its own)."""
    try:
        e = complex(sp.sympify(eps).subs(values).evalf(30))
        if case.log_ratio is not None:
            loss = complex(case.log_ratio.subs(values).evalf(30))
            return abs(loss.imag) > 1e-12 or loss.real > e.real - 1e-9 * (1 + abs(e.real))
        p = complex(case.p.subs(values).evalf(30))
        q = complex(case.q.subs(values).evalf(30))
    except (TypeError, ValueError, ZeroDivisionError, OverflowError):
        return True  # let the exact re-check decide
    if any(abs(v.imag) > 1e-12 for v in (p, q, e)):
        return True
    return p.real > math.exp(min(e.real, 700)) * q.real * (1 - 1e-12) - 1e-300


def _violation(case: Case, e: sp.Expr, values: dict) -> tuple[str, str] | None:
    """(ratio text, how) when the case certainly violates p <= e^eps q at `values`, else None.

    Densities with a closed log-ratio are compared in log space (exact or arb): their values
    under- and overflow far from the centre, where the privacy loss is largest."""
    if case.log_ratio is not None and _log_ratio_matches(case, values):
        loss = rationalize(at(case.log_ratio, values))
        verdict = _closed_compare(loss, e)
        if verdict.status != "violated":
            return None
        return f"ln(P[M(x)=y]/P[M(x')=y]) = {_show(loss)}", verdict.detail
    p, q = rationalize(at(case.p, values)), rationalize(at(case.q, values))
    if q == 0:
        if certainly_greater(p, 0) is not True:
            return None
        return "P[M(x)=y]/P[M(x')=y] = infinite (P under x' is 0)", "exact: q = 0 and p > 0"
    verdict = _closed_compare(*_obligation(p, q, e))
    if verdict.status != "violated":
        return None
    ratio = p / q
    if sp.count_ops(ratio) <= _SIMPLIFY_OPS and not long_numbers(ratio):
        ratio = sp.simplify(ratio)  # (for the text only: the verdict is decided)
    return f"P[M(x)=y]/P[M(x')=y] = {_show(ratio)}", verdict.detail


# a ratio larger than this is shown as it is (or as its enclosure): simplifying sparse vector's
# with 100 queries ran for minutes after the violation was decided
_SIMPLIFY_OPS = 200


def _log_ratio_matches(case: Case, values: dict) -> bool:
    """Is the case's closed log-ratio exactly ln p - ln q of its own densities at `values`?
    (False when that is not shown: the densities are then compared as they are.)"""
    try:
        lp = sp.expand_log(sp.log(sp.factor_terms(case.p.subs(values))), force=True)
        lq = sp.expand_log(sp.log(sp.factor_terms(case.q.subs(values))), force=True)
        diff = sp.expand(lp - lq - case.log_ratio.subs(values))
        if diff == 0:
            return True
        # simplify writes c log(r) as log(r^c), and SymPy looks for an exact root of r: with
        # c's denominator 2^40 (a z3 model near the claim) that ran for minutes
        return simplifies_to_zero(diff)
    except (TypeError, ValueError):
        return False


@undecided_gives(None)
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
    if not all(allowed(s, v) for s, v in values.items()):
        return None
    e = at(sp.sympify(eps), values)
    if e.is_finite is False or e.has(sp.oo, -sp.oo, sp.zoo, sp.nan):
        return None  # an infinite claimed epsilon bounds nothing (log 0 at an end)
    found = _violation(case, e, values)
    if found is None:
        return None
    ratio, check = found
    relevant = _free([case.p, case.q, eps, *domain, *case.constraints]) - _case_vars(case)
    params = {
        str(s): _show(v)
        for s, v in sorted(values.items(), key=lambda kv: str(kv[0]))
        if s in relevant
    }
    point = tuple(
        _show(sp.sympify(c).subs(values)) if isinstance(c, sp.Basic) else str(c)
        for c in _flatten_point(case.point)
    )
    return Counterexample(
        parameters=params,
        inputs=(point[0], point[1]),
        output=point[2],
        ratio=ratio,
        bound=f"epsilon = {_show(e)}"
        if case.log_ratio is not None
        else f"e^epsilon = exp({_show(e)}) = {_exp_text(e)}",
        check=check,
        note=case.note,
    )


def _exp_text(e: sp.Expr) -> str:
    """e^e to six digits, from a float of e (SymPy's exp(c log r) is r^c, which did not end
    for a long r and c)."""
    v = float(e)
    return f"{math.exp(v):.6g}" if v < 709 else f"about 10^{v / math.log(10):.6g}"


def _case_vars(case: Case) -> set:
    return set(case.grid) | _free(
        [c for c in _flatten_point(case.point) if isinstance(c, sp.Basic)]
    )


def _flatten_point(point) -> tuple:
    out = []
    for c in point:
        out.append(sp.Tuple(*c) if isinstance(c, tuple) else c)
    return tuple(out)


def _domain(mech) -> list:
    """The mechanism's parameter domain, for a table with symbolic entries only where they
    form a distribution (:meth:`FiniteMechanism.pmf_constraints`). A table that is a
    distribution for no value is bad input: every claim over it would hold vacuously."""
    valid = list(getattr(mech, "pmf_constraints", tuple)())
    if valid:
        check_satisfiable(
            [*domain_of(mech), *valid], f"{type(mech).__name__} (where its rows are distributions)"
        )
    return [*domain_of(mech), *valid]


def _normalises_somewhere(mech, domain: list) -> bool:
    """Is a table whose rows sum to 1 only under an equation on its symbols (exp(p) - p = 1)
    a distribution at some value, shown at a point re-checked exactly? z3's check of the
    domain relaxes exp and log, so it let such tables through."""
    equations = [c for c in getattr(mech, "pmf_constraints", tuple)() if isinstance(c, sp.Eq)]
    if not equations:
        return True
    symbols = set().union(*(c.free_symbols for c in domain))
    return next(iter(points(symbols, domain, limit=1)), None) is not None


def _show(v) -> str:
    v = sp.sympify(v)
    if _too_long(v):
        return show(v)
    if v.is_Rational or (not v.free_symbols and v.is_number is False):
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
        if all(allowed(s, v) for s, v in values.items()) and all(
            _is_true(c, values) for c in domain
        ):
            yield values
            count += 1
            if count >= _MAX_PARAM_POINTS:
                return


def _search(cases, eps, domain, models, grid: bool = True) -> Counterexample | None:
    """Re-check z3's models, then (with `grid`) search parameter and output grids."""
    for case, model in models:
        values = dict(model["symbols"])
        cex = _recheck(case, eps, values, domain)
        if cex is not None:
            return cex
    if not grid:
        return None
    params = sorted(
        _free([eps, *domain, *(c.p for c in cases), *(c.q for c in cases)])
        - set().union(*(_case_vars(c) for c in cases)),
        key=str,
    )
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
    """Try to prove the upper bound; returns (status, method, steps, models): z3's models of
    the cases it discharged directly (a formulation with lemmas leaves its cases to
    :func:`_case_models`)."""
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
    if not statuses:  # no obligation discharged: nothing was shown, so nothing is proved
        note = form.tight_note or "the formulation has none"
        return "open", method, [f"no proof obligation ({note})"], models
    # each step's status is set by its decision (exact/z3: proved; arb: certified)
    if all(s == "proved" for s in statuses):
        return "proved", method, steps, models
    if all(s in ("proved", "certified") for s in statuses):
        return "certified", "arb interval arithmetic at the stated values", steps, models
    return "open", method, steps, models


def _case_models(form: Formulation, eps: sp.Expr, domain: list) -> list:
    """z3's models of the cases' direct obligations, a source of counterexamples when a lemma
    failed and the grids found none. Asked for only then: the direct obligation can be far
    harder than the lemmas (T one-bit reports give a polynomial of degree T)."""
    models = []
    for case in form.cases:
        lhs, rhs = _case_obligation(case, eps)
        out = _discharge(lhs, rhs, [*domain, *case.constraints])
        if out.model is not None:
            models.append((case, out.model))
    return models


def tight_epsilon(mech, domain: list | None = None) -> tuple[sp.Expr | None, str]:
    """The exact epsilon of `mech` when theory gives one and the checker verifies it.

    Verified means: the upper bound is proved (or certified) and the loss attains the value at
    the stated point. Returns (epsilon or None, explanation).
    """
    form = formulate(mech)
    domain = _domain(mech) if domain is None else domain
    if form.unbounded is not None:
        return _unbounded(form)
    if form.tight is None:
        return None, form.tight_note or "not computed"
    value, index, point = form.tight
    status, _method, _steps, _m = _prove_upper(form, value, domain)
    if status not in ("proved", "certified"):
        return None, f"candidate {value} not verified as an upper bound"
    case = form.cases[index]
    try:
        p, q = at(case.p, point), at(case.q, point)
    except Undecided as exc:
        return None, f"candidate {value}: {exc}"
    attained = simplifies_to_zero(p - sp.exp(value) * q) or _algebraically_equal(
        sp.log(p) - sp.log(q), value, thorough=True
    )
    if not attained:
        return None, f"candidate {value} not shown to be attained"
    where = ", ".join(f"{getattr(k, 'name', k)}={v}" for k, v in point.items()) or case.label
    return value, f"upper bound {status}, attained at {where}"


def _unbounded(form: Formulation) -> tuple[sp.Expr | None, str]:
    """No finite epsilon: an output with probability 0 under x' and positive under x, both
    decided exactly (or the positive one with arb)."""
    index, point = form.unbounded
    case = form.cases[index]
    try:
        p, q = rationalize(at(case.p, point)), rationalize(at(case.q, point))
    except Undecided as exc:
        return None, f"the zero-probability output: {exc}"
    positive = certainly_greater(p, 0) if not _free([p]) else known(sp.simplify(p), "positive")
    if not simplifies_to_zero(q) or positive is not True:  # symbols: by their assumptions
        return None, "the zero-probability output was not verified"
    where = ", ".join(f"{getattr(k, 'name', k)}={v}" for k, v in point.items())
    return sp.oo, "P[M(x')=y] = 0 < P[M(x)=y] at " + (
        f"{where} ({case.label})" if where else case.label
    )


def upper_bound(mech, domain: list | None = None) -> tuple[sp.Expr | None, str]:
    """A proved (or certified) upper bound on the epsilon of `mech` that is not known to be
    attained (the formulation's ``bound``). Returns (bound or None, explanation)."""
    form = formulate(mech)
    if form.bound is None:
        return None, "no upper bound known"
    domain = _domain(mech) if domain is None else domain
    status, method, _steps, _m = _prove_upper(form, form.bound, domain)
    if status not in ("proved", "certified"):
        return None, f"candidate {form.bound} not verified as an upper bound"
    return form.bound, f"{status} by {method}; not shown to be attained"


def supremum_epsilon(mech, domain: list | None = None) -> tuple[sp.Expr | None, str]:
    """The least epsilon of `mech` when the loss approaches it without attaining it: the upper
    bound is proved (or certified) and the loss along the formulation's family of inputs tends
    to it (a SymPy limit; Piecewise branches are decided for large values of the variable).
    Returns (epsilon or None, explanation)."""
    form = formulate(mech)
    if form.supremum is None:
        return None, "no supremum known"
    value, index, point, var = form.supremum
    domain = _domain(mech) if domain is None else domain
    status, _method, _steps, _m = _prove_upper(form, value, domain)
    if status not in ("proved", "certified"):
        return None, f"candidate {value} not verified as an upper bound"
    case = form.cases[index]
    far = sp.Dummy("w", positive=True)
    loss = sp.log(case.p.subs(point) / case.q.subs(point)).subs(var, 2 + far)
    try:
        limit = sp.limit(loss, far, sp.oo)
    except (NotImplementedError, ValueError, TypeError):
        return None, f"the limit of the loss as {var} grows was not found"
    if not _algebraically_equal(limit, value, thorough=True):
        return None, f"the loss tends to {limit}, not {value}"
    return value, f"upper bound {status}, approached as {var} grows"


def supports(claim) -> bool:
    return isinstance(claim, PureDP)


def check(claim: PureDP) -> Finding:
    """Check a pure-DP claim; never raises on inconclusive input (that is `unknown`)."""
    mech, eps = claim.mechanism, claim.epsilon
    check_epsilon(eps)
    check_description(mech)
    try:
        form = formulate(mech)
    except NotImplementedError:
        raise InputError(
            f"mechanism {type(mech).__name__} has no pure-DP formulation; describe it with "
            "proofs.FiniteMechanism or a built-in description."
        ) from None
    domain = _domain(mech)
    status, method, steps, models = _prove_upper(form, eps, domain)
    tight, tight_note = tight_epsilon(mech, domain)
    common = dict(
        tight_epsilon=f"{tight} ({tight_note})" if tight is not None else None, steps=tuple(steps)
    )
    if status in ("proved", "certified") and not _normalises_somewhere(mech, domain):
        return Finding(
            Verdict.UNKNOWN,
            method,
            reason="proved over the parameter values where every row sums to 1, but no such "
            "value was found: the proof may hold vacuously",
            **common,
        )
    if status in ("proved", "certified"):
        verdict, reason, cex = Verdict(status), "", None
        if claim.exact:
            if tight is None:
                tight = _attained_in_table(mech, form, eps, domain)
                if tight is not None:
                    common["tight_epsilon"] = (
                        f"{tight} (upper bound {status}; one case's ratio is e^eps identically)"
                    )
            verdict, method, reason, cex = _check_exact(claim, tight, verdict, method, domain)
        return Finding(verdict, method, reason=reason, counterexample=cex, **common)
    cex = _search(form.cases, eps, domain, models)
    if cex is None and form.lemmas is not None:
        cex = _search(form.cases, eps, domain, _case_models(form, eps, domain), grid=False)
    if cex is not None:
        return Finding(
            Verdict.REFUTED,
            "counterexample, re-checked",
            counterexample=cex,
            reason=_refuted_reason(eps, tight),
            **common,
        )
    if claim.exact and tight is not None:
        _v, method2, reason, cex = _check_exact(claim, tight, Verdict.UNKNOWN, method, domain)
        if cex is not None:
            return Finding(Verdict.REFUTED, method2, reason=reason, counterexample=cex, **common)
    open_steps = "; ".join(s for s in steps if ": proved (" not in s)
    return Finding(
        Verdict.UNKNOWN,
        method,
        reason=f"no proof and no counterexample found: {open_steps}",
        **common,
    )


def _attained_in_table(mech, form: Formulation, eps: sp.Expr, domain: list) -> sp.Expr | None:
    """``eps`` when a symbolic table attains it: some pair and output have P[M(x)=y] =
    e^eps P[M(x')=y] identically and P[M(x)=y] > 0 on the whole domain (z3). A numeric table's
    largest ratio is its tight epsilon (:func:`tight_epsilon`); a symbolic one's maximum over
    cases is not computed, but an exact claim only needs its own value attained once the
    upper bound is proved (randomized response as a table of e^eps/(1+e^eps))."""
    from proofs.mechanisms import FiniteMechanism
    from proofs.smt import prove_forall

    if not isinstance(mech, FiniteMechanism):
        return None
    for case in form.cases:
        if known(case.p, "zero") or not simplifies_to_zero(case.p - sp.exp(eps) * case.q):
            continue
        if prove_forall(sp.Integer(0), case.p, domain, strict=True).status == "proved":
            return eps
    return None


def _check_exact(claim: PureDP, tight, verdict: Verdict, method: str, domain: list):
    """An exact claim also needs the loss to reach the claimed epsilon."""
    if tight is not None and _algebraically_equal(tight, claim.epsilon, thorough=True):
        return verdict, method + "; tightness: attained", "", None
    if tight is not None:
        cex = _loose_witness(claim.epsilon, tight, domain)
        if cex is not None:
            return (
                Verdict.REFUTED,
                "verified tight epsilon below the claim",
                f"not tight: the true epsilon {tight} is below the claimed {claim.epsilon}",
                cex,
            )
    return (
        Verdict.UNKNOWN,
        method,
        "the upper bound holds but tightness (attainment of the claimed epsilon) was not shown",
        None,
    )


def _loose_witness(claimed, tight, domain) -> Counterexample | None:
    """Parameter values at which the verified tight epsilon is certainly below the claim."""
    params = sorted(_free([claimed, tight, *domain]), key=str)
    for values in _param_points(params, domain):
        try:
            t, c = at(sp.sympify(tight), values), at(sp.sympify(claimed), values)
        except Undecided:
            continue
        if certainly_greater(c, t) is True:
            return Counterexample(
                parameters={str(k): _show(v) for k, v in values.items()},
                inputs=("any", "neighbour"),
                output="any",
                ratio=f"claimed epsilon {_show(c)}",
                bound=f"sup privacy loss {_show(t)}",
                check="arb interval arithmetic",
                note="the supremum is below the claim, so the claimed epsilon is not exact",
            )
    return None


def _refuted_reason(eps, tight) -> str:
    if tight is None:
        return ""
    return f"the claimed epsilon {eps} is below the true epsilon {tight}"
