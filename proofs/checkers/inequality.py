"""For-all inequalities (:class:`proofs.claims.Inequality`): ``lhs <= rhs`` over a domain.

- ``proved``: exact algebra (the sides are equal), or z3 over the domain and the symbols'
  assumptions (:func:`proofs.smt.prove_forall`; integer symbols range over the reals there, a
  superset, with a positive integer >= 1). Exponentials and logarithms outside the SMT
  fragment are taken off both sides where that gives an equivalent inequality (exp and log
  are increasing): exp(A) <= exp(B) as A <= B, log(A) <= R as A <= exp(R), and one
  exponential against a number, k exp(A) + c >= 0, as A against log(-c/k).
- ``certified``: no symbols, and arb balls separate the two sides; or one symbol on a bounded
  interval covered by a certified branch and bound (:mod:`proofs.checkers.cover`).
- ``refuted``: a point meeting every assumption and constraint where lhs > rhs, re-checked
  exactly or with arb balls: z3's model first, then a search over small values
  (:func:`proofs.checkers.laws.points`), then a floating-point search.
- ``unknown`` otherwise. A domain that no value satisfies is refused as an input error; one
  that z3's relaxation of exp and log lets through (exp(x) <= 1 + x with x > 0) is not proved
  over unless some value is shown to satisfy it (:func:`_inhabited`): a proof over no value
  says nothing.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import sympy as sp

from proofs.checkers.cover import cover, interval_of
from proofs.checkers.laws import params, points
from proofs.claims.inequality import Inequality
from proofs.decide import (
    algebraically_equal,
    at,
    closed_compare,
    greater,
    holds_at,
    show,
    simplifies_to_zero,
)
from proofs.decide import known as shown
from proofs.errors import Undecided
from proofs.numeric import NotNumeric, certainly_greater, certainly_less, precision, to_ball
from proofs.results import Counterexample, Finding, Verdict
from proofs.smt import ForAllResult, defined_on, prove_forall
from proofs.validate import allowed, check_satisfiable

__all__ = ["check", "supports"]


def supports(claim) -> bool:
    return isinstance(claim, Inequality)


def _monotone(lhs: sp.Expr, rhs: sp.Expr) -> list[tuple[sp.Expr, sp.Expr, str]]:
    """Equivalent forms outside exp and log, which are increasing: exp(A) <= exp(B) as A <= B
    (products of exponentials combined first), log(A) <= R as A <= exp(R), and L <= log(B) as
    exp(L) <= B (where the logarithms are real)."""
    a, b = (sp.powsimp(sp.sympify(e), combine="exp") for e in (lhs, rhs))
    out = []
    if isinstance(a, sp.exp) and isinstance(b, sp.exp):
        if a.args[0].is_extended_real and b.args[0].is_extended_real:
            out.append((a.args[0], b.args[0], "z3 on the exponents (exp is increasing)"))
    if isinstance(a, sp.log) and shown(a.args[0], "positive") and b.is_extended_real:
        out.append((a.args[0], sp.exp(b), "z3 on exp of both sides (exp is increasing)"))
    if isinstance(b, sp.log) and a.is_extended_real:
        out.append((sp.exp(a), b.args[0], "z3 on exp of both sides (exp is increasing)"))
    out.extend(_one_exponential(sp.sympify(lhs), sp.sympify(rhs)))
    return out


def _one_exponential(lhs: sp.Expr, rhs: sp.Expr) -> list[tuple[sp.Expr, sp.Expr, str]]:
    """rhs - lhs = k exp(A) + c >= 0, with k and c closed numbers of opposite signs: as
    exp(A) <= c/(-k) (k < 0) or exp(A) >= -c/k (k > 0), both sides positive, so as A against
    the logarithm of the number (0 <= 1 - exp((eps - Delta/b)/2) as eps - Delta/b <= 0). Each
    side's terms are read before they are subtracted: a term on both sides that SymPy would
    cancel (log(x - 5), not real on the domain) leaves the claim to the other routes."""
    terms = [*sp.Add.make_args(lhs), *sp.Add.make_args(rhs)]
    if any(t.free_symbols and not isinstance(t.as_coeff_Mul()[1], sp.exp) for t in terms):
        return []
    d = rhs - lhs
    exps = [t for t in sp.Add.make_args(d) if t.has(sp.exp)]
    if len(exps) != 1:
        return []
    k, e = exps[0].as_coeff_Mul()
    c = d - exps[0]
    if not isinstance(e, sp.exp) or not e.args[0].is_extended_real or c.free_symbols:
        return []
    how = "z3 on the exponent against a logarithm (exp is increasing)"
    if k < 0 and certainly_greater(c, 0):
        return [(e.args[0], _log(c / -k), how)]
    if k > 0 and certainly_less(c, 0):
        return [(_log(-c / k), e.args[0], how)]
    return []


def _log(q: sp.Expr) -> sp.Expr:
    """log q, as -log(1/q) for a rational below 1: z3 encloses each closed constant as its own
    variable, so log(2/3) and a domain's log(3/2) would not be known to be opposite."""
    return -sp.log(1 / q) if q.is_Rational and q < 1 else sp.log(q)


def _relaxed(symbols) -> tuple[dict, list]:
    """Integer symbols as real ones for z3 (a superset of values: proofs stay sound), with the
    true bound a positive integer has (>= 1; SymPy would fold ``k >= 1`` to True on an
    integer symbol, so the bound is stated on the real stand-in)."""
    swap, bounds = {}, []
    for s in sorted(symbols, key=str):
        if s.is_integer and s.is_positive:
            swap[s] = sp.Dummy(s.name, positive=True)
            bounds.append(swap[s] >= 1)
    return swap, bounds


def _violation(claim: Inequality, values: dict) -> tuple[bool, str, sp.Expr, sp.Expr]:
    """lhs > rhs, certainly, at a point meeting every assumption and constraint, where every
    guard is defined?"""
    if set(values) != _symbols(claim) or any(v is None for v in values.values()):
        return False, "", sp.nan, sp.nan
    if not all(allowed(s, v) for s, v in values.items()):
        return False, "", sp.nan, sp.nan
    if not all(holds_at(c, values) for c in claim.domain):
        return False, "", sp.nan, sp.nan
    if any(_undefined(g, values) is not False for g in claim.guards):
        return False, "", sp.nan, sp.nan
    try:  # (Max(0, log(x)) at x = 0: SymPy refuses an undefined argument)
        lhs, rhs = at(claim.lhs, values), at(claim.rhs, values)
    except (ValueError, TypeError, Undecided):
        return False, "", sp.nan, sp.nan
    bad, how = greater(lhs, rhs)
    return bad, how, lhs, rhs


def _symbols(claim: Inequality) -> set:
    """Every symbol the claim quantifies over: its sides', its guards' and its domain's."""
    parts = (claim.lhs, claim.rhs, *claim.guards, *claim.domain)
    return set().union(*(p.free_symbols for p in parts))


def _undefined(term: sp.Expr, values: dict) -> bool | None:
    """Is `term` undefined (not a finite real) at `values`: True, False, or None when SymPy
    cannot tell."""
    try:
        v = at(term, values)
    except (ValueError, TypeError, ZeroDivisionError, Undecided):  # (not re-checked)
        return None
    if v.has(sp.zoo, sp.nan, sp.oo, -sp.oo):
        return True
    if v.is_Rational:
        return False
    if not v.free_symbols:  # defined only where an arb ball shows a finite real (SymPy
        try:  # called sqrt of -9e-36 real, taking the radicand for positive)
            with precision(128):
                if to_ball(v).is_finite():
                    return False
        except (NotNumeric, ZeroDivisionError, ValueError, OverflowError):
            pass
    return True if v.is_extended_real is False else None


def _refuted(claim: Inequality, values: dict, how: str, lhs, rhs, method: str, steps) -> Finding:
    cex = Counterexample(
        params(values), ("-", "-"), "-", f"lhs = {show(lhs)}", f"rhs = {show(rhs)}", how
    )
    return Finding(Verdict.REFUTED, method, counterexample=cex, steps=tuple(steps))


def _inhabited(symbols, domain: list, known: list, back: dict) -> bool:
    """Does some value satisfy the domain, shown at a point re-checked exactly: a small value,
    else z3's model of the domain (a model of its relaxation need not be one of the domain)?"""
    if not domain:
        return True
    found = next(iter(points(symbols, domain, limit=1)), None)
    if found is None:
        res = prove_forall(sp.Integer(1), sp.Integer(0), known)
        if res.status != "model":
            return False
        found = {back.get(k, k): v for k, v in res.model["symbols"].items()}
    return all(allowed(s, v) for s, v in found.items()) and all(
        set(c.free_symbols) <= set(found) and holds_at(c, found) for c in domain
    )


def _proved(claim: Inequality, how: str, steps: list, known: list, swap: dict) -> Finding:
    """``proved`` by ``how``, once both sides are shown defined on the whole domain (a claim
    says nothing where a side is undefined: 1/x <= 1/x at x = 0); else ``unknown``, naming a
    point of the domain where a side is undefined when one is found and re-checked."""
    res = _definedness(claim, known, swap)
    if res.status == "proved":
        return Finding(Verdict.PROVED, how, steps=tuple(steps))
    steps = [*steps, f"both sides defined on the domain: {res.status}"]
    reason = res.reason if res.status == "model" else f"{how} holds, but {res.reason}"
    return Finding(Verdict.UNKNOWN, how, reason=reason, steps=tuple(steps))


def _definedness(
    claim: Inequality, known: list, swap: dict, timeout_ms: int = 10_000
) -> ForAllResult:
    """Are both sides and every guard defined on the whole domain: 'proved' (by SymPy's
    assumptions or by z3), 'model' with a point of the domain where one is undefined,
    re-checked exactly and named in the reason, or 'unknown'."""
    sides = (claim.lhs, claim.rhs, *claim.guards)
    if all(map(_defined_everywhere, sides)):
        return ForAllResult("proved")
    res = defined_on([e.xreplace(swap) for e in sides], known, timeout_ms=timeout_ms)
    if res.status != "model":
        return res
    back = {v: k for k, v in swap.items()}
    where = _undefined_at(claim, {back.get(k, k): v for k, v in res.model["symbols"].items()})
    if where is None:
        return ForAllResult("unknown", reason=res.reason)
    return ForAllResult(
        "model",
        reason=f"{where}, a value the domain allows: the claim says nothing there; add a "
        "constraint that leaves it out",
    )


# defined at every real argument (with their arguments defined)
_EVERYWHERE = (sp.exp, sp.sin, sp.cos, sp.atan, sp.sinh, sp.cosh, sp.tanh, sp.asinh)
_EVERYWHERE += (sp.erf, sp.erfc, sp.Abs, sp.Max, sp.Min, sp.sign, sp.floor, sp.ceiling)


def _defined_everywhere(e: sp.Expr) -> bool:
    """Defined (real) for every value of its real symbols, by SymPy's assumptions alone:
    sums, products, functions defined on the whole line, a quotient whose denominator is
    never 0, a root of a nonnegative and a logarithm of a positive. False means not shown."""
    if e.has(sp.zoo, sp.nan, sp.oo, -sp.oo):
        return False
    for node in sp.preorder_traversal(e):
        if node.is_Atom or node.is_Add or node.is_Mul or isinstance(node, _EVERYWHERE):
            continue
        if node.is_Pow:
            b, n = node.args
            if n.is_integer:  # (x^k, k an integer symbol, too)
                if not shown(n, "nonnegative") and not shown(b, "nonzero"):
                    return False
            elif not (
                shown(b, "positive") or (n.is_Rational and n > 0 and shown(b, "nonnegative"))
            ):
                return False
            continue
        if not (isinstance(node, sp.log) and shown(node.args[0], "positive")):
            return False
    return True


def _undefined_at(claim: Inequality, values: dict) -> str | None:
    """ "lhs is undefined at x = 0" when a point meeting every assumption and constraint
    makes a side undefined (not a finite real number), re-checked exactly; else None."""
    if not _symbols(claim) <= set(values) or any(v is None for v in values.values()):
        return None
    if not all(allowed(s, v) for s, v in values.items()):
        return None
    if not all(holds_at(c, values) for c in claim.domain):
        return None
    named = [("lhs", claim.lhs), ("rhs", claim.rhs)]
    named += [(f"the term {g} (as written)", g) for g in claim.guards]
    for name, term in named:
        if _undefined(term, values):
            at = ", ".join(f"{k} = {v}" for k, v in sorted(params(values).items()))
            return f"{name} is undefined at {at}"
    return None


def check(claim: Inequality) -> Finding:
    lhs, rhs, domain = claim.lhs, claim.rhs, list(claim.domain)
    symbols = _symbols(claim)
    check_satisfiable(domain, "Inequality")
    # forced log expansion is only valid where every logarithm's argument is positive
    logs_positive = all(shown(g.args[0], "positive") for g in (lhs - rhs).atoms(sp.log))
    steps = []
    swap, bounds = _relaxed(symbols)
    back = {v: k for k, v in swap.items()}
    known = [c.xreplace(swap) for c in domain] + bounds
    if (
        algebraically_equal(lhs, rhs, thorough=True)
        if logs_positive
        else simplifies_to_zero(lhs - rhs)
    ):
        return _proved(claim, "exact algebra (the two sides are equal)", steps, known, swap)
    if not symbols:
        out = closed_compare(lhs, rhs)
        verdict = {"proved": Verdict.PROVED, "certified": Verdict.CERTIFIED}.get(out.status)
        if verdict is not None:
            return Finding(verdict, out.detail)
        if out.status == "violated":
            return _refuted(claim, {}, out.detail, lhs, rhs, "closed values compared", ())
        return Finding(Verdict.UNKNOWN, "closed values", reason=out.detail)
    for a, b, how in [(lhs, rhs, "z3"), *_monotone(lhs, rhs)]:
        res = prove_forall(a.xreplace(swap), b.xreplace(swap), known)
        steps.append(f"{a} <= {b}: {res.status}{f' ({res.reason})' if res.reason else ''}")
        if res.status == "proved":
            if _inhabited(symbols, domain, known, back):
                return _proved(claim, how, steps, known, swap)
            return Finding(
                Verdict.UNKNOWN,
                how,
                reason="proved over the domain, but no value satisfying it was found: the "
                "proof may hold vacuously",
                steps=tuple(steps),
            )
        if res.status == "model":
            values = {back.get(k, k): v for k, v in res.model["symbols"].items()}
            bad, check_how, l, r = _violation(claim, values)
            if bad:
                return _refuted(claim, values, check_how, l, r, "z3 model, re-checked", steps)
    for values in points(symbols, domain):
        bad, check_how, l, r = _violation(claim, values)
        if bad:
            return _refuted(
                claim, values, check_how, l, r, "counterexample search, re-checked", steps
            )
    for values in itertools.islice(_numeric_points(lhs, rhs, symbols, domain), _RECHECKS):
        bad, check_how, l, r = _violation(claim, values)
        if bad:
            return _refuted(
                claim, values, check_how, l, r, "floating-point search, re-checked", steps
            )
    covered = _covered(lhs, rhs, symbols, domain)
    if (
        covered is not None
        and _inhabited(symbols, domain, known, back)
        and (not claim.guards or _definedness(claim, known, swap).status == "proved")
    ):
        return Finding(Verdict.CERTIFIED, covered, steps=tuple(steps))
    undefined = _definedness(claim, known, swap, timeout_ms=_REASON_MS)
    return Finding(
        Verdict.UNKNOWN,
        "z3 and a search over small values",
        reason=undefined.reason
        if undefined.status == "model"
        else "neither proved by z3 nor violated at a value tried",
        steps=tuple(steps),
    )


def _covered(lhs, rhs, symbols, domain) -> str | None:
    """The method's text when a certified cover shows rhs - lhs >= 0 over a bounded interval
    containing the domain of the one symbol (:mod:`proofs.checkers.cover`); else None."""
    if len(symbols) != 1:
        return None
    (x,) = symbols
    ends = interval_of(x, domain)
    if ends is None:
        return None
    out = cover(rhs - lhs, x, *ends, parts=(lhs, rhs))
    if not out.ok:
        return None
    short = all(e.denominator <= 10**6 and abs(e.numerator) < 10**15 for e in ends)
    a, b = (show(sp.Rational(e)) if short else f"{sp.N(sp.Rational(e), 10)}" for e in ends)
    return (
        f"certified for every {x} in [{a}, {b}]{'' if short else ' (rounded outward)'} (arb "
        f"branch and bound, {out.detail}; Taylor's theorem at the ends where the bound is tight)"
    )


_REASON_MS = 2_000  # z3's time for a point that names why an unknown claim is ill-posed
_GRID = 4001  # points of a one-variable search (random ones for two or three variables)
_EDGE = 13  # points approaching each end of an open interval, 10^-1 .. 10^-13 away
_INTEGER_VALUES = (1, 2, 3, 5, 10, 100)
_CANDIDATES = 20  # the points of least rhs - lhs re-checked exactly, per integer values
_RECHECKS = 80  # exact re-checks of the search's points in all


def _box(s: sp.Symbol, domain: list) -> tuple[float, float]:
    """Bounds for a real symbol's search: the constraints on it alone (2 s < 2, -s > -1 and
    s^2 < 1 too, solved by SymPy) and its sign; else 100 past the lower end."""
    lo, hi = (0.0 if s.is_nonnegative else -100.0), math.inf
    for c in domain:
        if not isinstance(c, sp.core.relational.Relational) or c.free_symbols != {s}:
            continue
        try:
            region = sp.solve_univariate_inequality(c, s, relational=False)
        except (NotImplementedError, ValueError, TypeError):
            continue
        if isinstance(region, sp.Interval):
            lo, hi = max(lo, float(region.inf)), min(hi, float(region.sup))
    if not math.isfinite(hi):
        hi = lo + 100.0 if lo < 100 else lo * 10
    return lo, hi


def _numeric_points(lhs, rhs, symbols, domain):
    """Points where rhs - lhs is smallest in floating point, for one to three real symbols
    (integer ones at small values): a grid (random points in two or three variables) and points
    approaching each end of the box, where a bound tight at an open end fails just inside
    (e^eps - 1 <= 1.7182 eps for eps < 1 fails only above 0.99992). Exact values near each
    candidate are yielded for :func:`_violation` to re-check: the floats only choose."""
    import numpy as np

    reals = sorted((s for s in symbols if not s.is_integer), key=str)
    ints = sorted((s for s in symbols if s.is_integer), key=str)
    if not 1 <= len(reals) <= 3 or len(ints) > 2:
        return
    try:
        gap = sp.lambdify([*reals, *ints], rhs - lhs, "numpy")
        size = sp.lambdify([*reals, *ints], sp.Abs(lhs) + sp.Abs(rhs), "numpy")
        conds = [sp.lambdify([*reals, *ints], c, "numpy") for c in domain]
    except Exception:  # (an expression NumPy cannot take: no search)
        return
    boxes = [_box(s, domain) for s in reals]
    if any(not lo < hi for lo, hi in boxes):
        return
    grid = _search_grid(boxes, np.random.default_rng(0))
    for fixed in itertools.product(*([v for v in _INTEGER_VALUES if v >= 1] for _ in ints)):
        with np.errstate(all="ignore"):
            try:
                g = np.broadcast_to(np.asarray(gap(*grid.T, *fixed), dtype=float), len(grid))
                scale = np.broadcast_to(np.asarray(size(*grid.T, *fixed), dtype=float), len(grid))
                ok = np.isfinite(g) & np.isfinite(scale)
                for cond in conds:
                    ok &= np.broadcast_to(np.asarray(cond(*grid.T, *fixed), dtype=bool), len(grid))
            except Exception:  # (a function NumPy lacks: LambertW, zeta, ...)
                return  # the search only chooses points: without it, nothing is lost
        # a gap within rounding of the two sides' size is no candidate: where they are equal
        # (asinh x and log(x + sqrt(x^2 + 1))) half the grid looked violated, and re-checking
        # it exactly took minutes
        noise = 1e-9 * (1 + scale)
        best = np.argsort(np.where(ok, g, np.inf))[:_CANDIDATES]
        order = [i for i in best if ok[i] and g[i] < -noise[i]]
        # short rationals near every candidate before long ones (a point 10^-13 inside an open
        # end rounds to the end itself at a short denominator)
        for denominator in (10**3, 10**6, 10**12, None):
            for i in order:
                exact = _near(grid[i], denominator)
                yield {**dict(zip(reals, exact)), **dict(zip(ints, map(sp.Integer, fixed)))}


def _search_grid(boxes, rng):
    import numpy as np

    edges = 10.0 ** -np.arange(1, _EDGE + 1)
    if len(boxes) == 1:
        ((lo, hi),) = boxes
        pts = np.concatenate(
            [np.linspace(lo, hi, _GRID), lo + edges * (hi - lo), hi - edges * (hi - lo)]
        )
        return pts[:, None]
    lows, highs = np.array(boxes).T
    inner = rng.uniform(lows, highs, (20_000, len(boxes)))
    near = np.concatenate(
        [lows + np.outer(edges, highs - lows), highs - np.outer(edges, highs - lows)]
    )
    return np.concatenate([inner, near])


def _near(point, denominator: int | None) -> list:
    """Exact rationals at a float point: the nearest with at most ``denominator`` (None: the
    float's own value)."""
    return [
        sp.Rational(x)
        if denominator is None
        else sp.Rational(Fraction(x).limit_denominator(denominator))
        for x in map(float, point)
    ]
