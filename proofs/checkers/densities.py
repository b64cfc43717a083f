"""Facts about distributions the notes use: normalisation, moments of the noise, and the
variance of a noisy mean, each proved for every parameter value by symbolic integration or
summation (SymPy) with every remaining step discharged by exact algebra or z3.

- ``Normalised``: a pmf or density is non-negative and sums (integrates) to 1. Densities on the
  reals are integrated on the two half-lines (y = s and y = -s, s > 0); two-sided geometric
  sums are split into z >= 0 and z < 0 and summed as geometric series in a = exp(-1/b).
- ``Moment``: the mean or variance of the noise, E[X] = integral of x g(x), Var[X] = E[X^2] -
  E[X]^2; the law must also be shown normalised before ``proved``.
- ``NoisyMeanVariance``: the mean of n values in [0, 1] has sensitivity 1/n (z3), and
  Var[f(x) + noise | x] = Var[noise] (linearity of expectation).

A SymPy call that returns an unevaluated Integral or Sum, raises NotImplementedError or leaves a
Piecewise that cannot be discharged gives ``unknown``, never ``proved``. Counterexamples are
concrete parameter values, re-checked with exact rationals or arb balls.
"""

from __future__ import annotations

import sympy as sp

from proofs.checkers.laws import (
    INTEGER_POINTS,
    REAL_POOL,
    C,
    Undecided,
    continuous,
    moment,
    nonneg,
    params,
    points,
    raw_moment,
)
from proofs.claims import Moment, NoisyMeanVariance, Normalised
from proofs.claims.distributions import (
    NoiseDensity,
    check_domain,
    finite_rows,
    holds_everywhere,
    noise_law,
)
from proofs.decide import at, differ, greater, is_zero, known, show
from proofs.errors import InputError
from proofs.mechanisms import Gaussian, Laplace, TwoSidedGeometric
from proofs.results import Counterexample, Finding, Verdict
from proofs.validate import check_satisfiable

__all__ = ["check", "supports"]


# Dummies cannot capture a user's symbol of the same name.


def _refuted(values, inputs, output, ratio, how, note, method, steps) -> Finding:
    """`refuted` with the counterexample at `values`, re-checked as `how` says."""
    cex = Counterexample(params(values), inputs, output, ratio, "0", how, note=note)
    return Finding(Verdict.REFUTED, method, counterexample=cex, steps=tuple(steps))


def _check_normalised(claim) -> Finding:
    if isinstance(claim.law, (NoiseDensity, Laplace, Gaussian, TwoSidedGeometric)):
        return _normalised_check_density(claim)
    return _normalised_check_rows(claim)


def _normalised_check_density(claim) -> Finding:
    law = noise_law(claim.law)
    v, dom = law.variable, list(law.domain)
    kind = "integral over the reals" if law.support == "reals" else "sum over the integers"
    steps = [
        f"noise law g({v}) = {law.expr} (translation y = f(x) + t)"
        if not isinstance(claim.law, NoiseDensity)
        else f"g({v}) = {law.expr}"
    ]
    sign = nonneg(law.expr, dom)
    steps.append(f"g >= 0: {sign or 'not shown'}")
    try:
        mass = raw_moment(law, 0)
    except Undecided as exc:
        steps.append(f"{kind}: {exc}")
        return _normalised_search_density(
            claim, law, steps, None, sign, reason=f"the {kind} was not evaluated: {exc}"
        )
    steps.append(f"{kind} of g (both half-lines) = {mass}")
    if is_zero(mass - 1) and sign:
        return Finding(
            Verdict.PROVED, f"{kind} by SymPy (exactly 1), g >= 0 by {sign}", steps=tuple(steps)
        )
    return _normalised_search_density(
        claim, law, steps, mass, sign, reason="mass 1 and g >= 0 not both shown"
    )


def _normalised_search_density(claim, law, steps, mass, nonneg, reason) -> Finding:
    v = law.variable
    # A density is only defined up to null sets: a negative value at one point refutes it
    # only where the expression is continuous (then it is negative on a neighbourhood).
    # A pmf on the integers is checked pointwise.
    if law.support == "integers":
        where = INTEGER_POINTS
    else:
        where = REAL_POOL if continuous(law.expr) else ()
    for values in points(law.parameters, law.domain, limit=8):
        if not nonneg:
            for y in where:
                g = law.expr.xreplace({**values, v: y})
                bad, how = greater(0, g)
                if bad:
                    return _refuted(
                        values,
                        ("-", "-"),
                        f"g({v} = {y})",
                        f"-g({y}) = {show(-g)}",
                        how,
                        note="a density/pmf must be >= 0",
                        method="negative value, re-checked",
                        steps=steps,
                    )
        if mass is None and nonneg:
            found = _window_mass_above_one(law, values)
            if found is not None:
                window, part, how = found
                return _refuted(
                    values,
                    ("-", "-"),
                    f"mass of g on {window}",
                    f"{show(part)} - 1",
                    how,
                    note="g >= 0, so the total mass is at least this part of it",
                    method="mass on a window at concrete values, re-checked",
                    steps=steps,
                )
        if mass is None or is_zero(mass - 1):
            continue
        try:
            total = raw_moment(law, 0, values)  # recomputed at the concrete values
        except Undecided:
            continue
        bad, how = differ(total, 1)
        if bad:
            return _refuted(
                values,
                ("-", "-"),
                "total mass",
                f"|total - 1| = |{show(total)} - 1|",
                how,
                note="mass recomputed at these values by SymPy",
                method="total mass at concrete values, re-checked",
                steps=steps,
            )
    return Finding(
        Verdict.UNKNOWN,
        "symbolic integration",
        reason=reason + "; no counterexample found",
        steps=tuple(steps),
    )


WINDOWS = (4, 40)  # half-widths of the windows whose mass may already exceed 1


def _window_mass_above_one(law, values) -> tuple[str, sp.Expr, str] | None:
    """A window of the support on which g (non-negative, at the concrete ``values``) already
    has mass above 1, certainly: (the window, its mass, how it was compared). Where SymPy
    cannot sum or integrate the whole support (it diverges: c e^(-c y) on the reals, a^z on
    the integers), a finite part of it is exact and refutes the claim."""
    v = law.variable
    g = law.expr.xreplace(values)
    for w in WINDOWS:
        if law.support == "integers":
            part = sp.Add(*(g.xreplace({v: z}) for z in range(-w, w + 1)))
            window = f"the integers in [{-w}, {w}]"
        else:
            try:
                part = sp.integrate(g, (v, -w, w))
            except (ValueError, TypeError, NotImplementedError, sp.PolynomialError):
                return None
            if part.has(sp.Integral) or not part.is_finite:
                return None
            window = f"[{-w}, {w}]"
        bad, how = greater(part, 1)
        if bad:
            return window, part, how
    return None


def _normalised_check_rows(claim) -> Finding:
    rows = finite_rows(claim.law, claim.utilities)
    domain = tuple(claim.law.domain())
    check_domain(domain, type(claim.law).__name__)
    if not rows:  # (all() over no rows would prove it)
        raise InputError(f"{type(claim.law).__name__} has no rows; give its probabilities.")
    check_satisfiable([c for c in domain if sp.sympify(c).free_symbols], type(claim.law).__name__)
    steps, ok = [], True
    for label, entries, extra in rows:
        dom = [*domain, *extra]
        total = sum(mult * p for mult, p in entries)
        one = is_zero(total - 1)
        signs = [nonneg(p, dom) for _m, p in entries]
        steps.append(
            f"row {label}: sum = {sp.simplify(total)} "
            f"({'exactly 1' if one else 'not shown to be 1'}); entries >= 0: "
            f"{'yes' if all(signs) else 'not shown'}"
        )
        ok &= one and all(signs)
    if ok:
        return Finding(
            Verdict.PROVED, "exact algebra (SymPy) and z3 for the signs", steps=tuple(steps)
        )
    for label, entries, extra in rows:
        free = set().union(
            *(sp.sympify(p).free_symbols for _m, p in entries),
            *(sp.sympify(m).free_symbols for m, _p in entries),
            *(sp.sympify(c).free_symbols for c in domain),
        )
        for values in points(free, [*domain, *extra]):
            probs = [
                (sp.sympify(m).xreplace(values), sp.sympify(p).xreplace(values)) for m, p in entries
            ]
            total = sum(m * p for m, p in probs)
            bad, how = differ(total, 1)
            if bad:
                return _refuted(
                    values,
                    (label, "-"),
                    "sum of the row",
                    f"|sum - 1| = |{show(total)} - 1|",
                    how,
                    note="",
                    method="row sum at concrete values, re-checked",
                    steps=steps,
                )
            for i, (_m, p) in enumerate(probs):
                neg, how = greater(0, p)
                if neg:
                    return _refuted(
                        values,
                        (label, "-"),
                        f"entry {i}",
                        f"-P = {show(-p)}",
                        how,
                        note="",
                        method="negative probability, re-checked",
                        steps=steps,
                    )
    return Finding(
        Verdict.UNKNOWN,
        "exact algebra",
        reason="rows not shown to be distributions; no counterexample",
        steps=tuple(steps),
    )


def _check_moment(claim) -> Finding:
    law = noise_law(claim.law)
    steps = [f"g({law.variable}) = {law.expr}"]
    try:
        mass = raw_moment(law, 0)
        got = moment(law, claim.kind)
    except Undecided as exc:
        return Finding(Verdict.UNKNOWN, "symbolic integration", reason=str(exc), steps=tuple(steps))
    normalised = is_zero(mass - 1) and nonneg(law.expr, law.domain) is not None
    steps += [f"total mass = {mass}", f"{claim.kind} = {got}"]
    if is_zero(got - claim.value):
        if normalised:
            return Finding(
                Verdict.PROVED,
                "symbolic integration/summation (SymPy), difference exactly 0",
                steps=tuple(steps),
            )
        return Finding(
            Verdict.UNKNOWN,
            "symbolic integration",
            reason="the law is not shown to be a distribution (non-negative, total mass 1)",
            steps=tuple(steps),
        )
    symbols = law.parameters | claim.value.free_symbols
    for values in points(symbols, law.domain, limit=12):
        try:
            closed, claimed = at(got, values), at(claim.value, values)
        except Undecided:
            continue
        bad, _how = differ(closed, claimed)
        if not bad:
            continue
        try:  # re-check: the moment recomputed from the density at these values
            recomputed = moment(law, claim.kind, values)
        except Undecided:
            continue
        bad, how = differ(recomputed, claimed)
        if bad:
            return _refuted(
                values,
                ("-", "-"),
                claim.kind,
                f"|{claim.kind} - claimed| = |{show(recomputed)} - {show(claimed)}|",
                how,
                note=f"{claim.kind} recomputed at these values by SymPy",
                method=f"{claim.kind} at concrete values, re-checked",
                steps=steps,
            )
    return Finding(
        Verdict.UNKNOWN,
        "symbolic integration",
        reason=f"{claim.kind} - claimed = {sp.simplify(got - claim.value)}"
        " not shown to be 0 or non-zero",
        steps=tuple(steps),
    )


def _noisy_mean_variance_law(claim, sigma=None) -> NoiseDensity:
    delta = 1 / claim.n
    if claim.noise == "laplace":
        return noise_law(Laplace.calibrated(claim.epsilon, delta))
    return noise_law(Gaussian(claim.sigma if sigma is None else sigma, delta))


def _noisy_mean_variance_domain(claim) -> list:
    return [claim.n >= 1, claim.epsilon > 0]


def _check_noisy_mean_variance(claim) -> Finding:
    xj, xpj = sp.symbols("x_j xp_j", cls=sp.Dummy, real=True)
    n = claim.n
    box = [xj >= 0, xj <= 1, xpj >= 0, xpj <= 1, n >= 1]
    sens = holds_everywhere(sp.Abs(xj - xpj) / n, 1 / n, box)
    attained = is_zero((sp.Abs(xj - xpj) / n).subs({xj: 1, xpj: 0}) - 1 / n)
    steps = [
        (
            f"sensitivity: |x_j - x'_j|/n <= 1/n for x_j, x'_j in [0, 1]: "
            f"{'z3' if sens else 'not shown'}; attained at (1, 0): {attained}"
        )
    ]
    # Gaussian: moments for a positive symbol s, then s := sigma (needs sigma > 0)
    s = sp.Dummy("sigma", positive=True)
    law = _noisy_mean_variance_law(claim, s)
    positive = (
        claim.noise == "laplace"
        or known(claim.sigma, "positive")
        or holds_everywhere(0, claim.sigma, _noisy_mean_variance_domain(claim), True)
    )
    try:
        mass, m1, m2 = (raw_moment(law, j).xreplace({s: claim.sigma}) for j in (0, 1, 2))
    except Undecided as exc:
        return Finding(Verdict.UNKNOWN, "symbolic integration", reason=str(exc), steps=tuple(steps))
    law = _noisy_mean_variance_law(claim)
    sign = nonneg(law.expr, law.domain)
    var = sp.simplify(sp.expand((C**2 + 2 * C * m1 + m2) - (C + m1) ** 2))
    steps += [
        f"noise {law.expr}: mass {mass}, E[N] = {m1}, E[N^2] = {m2}",
        f"Var[c + N] = (c^2 + 2c E[N] + E[N^2]) - (c + E[N])^2 = {var}",
    ]
    if not positive:
        steps.append(f"sigma = {claim.sigma} not shown to be > 0")
    if (
        sens
        and attained
        and positive
        and sign
        and is_zero(mass - 1)
        and C not in var.free_symbols
        and is_zero(var - claim.value)
    ):
        return Finding(
            Verdict.PROVED,
            "sensitivity by z3; variance by symbolic integration (SymPy)",
            steps=tuple(steps),
        )
    symbols = (var.free_symbols | claim.value.free_symbols | law.parameters) - {C}
    for values in points(symbols, _noisy_mean_variance_domain(claim), limit=12):
        try:
            claimed, closed = at(claim.value, values), at(var, values)
        except Undecided:
            continue
        bad, _how = differ(closed, claimed)
        if not bad:
            continue
        try:
            recomputed = moment(law, "variance", values)
        except Undecided:
            continue
        bad, how = differ(recomputed, claimed)
        if bad:
            return _refuted(
                values,
                ("data mean c", "-"),
                "Var[c + N]",
                f"|Var - claimed| = |{show(recomputed)} - {show(claimed)}|",
                how,
                note="noise variance recomputed at these values by SymPy",
                method="variance at concrete values, re-checked",
                steps=steps,
            )
    return Finding(
        Verdict.UNKNOWN,
        "symbolic integration",
        reason="no proof and no counterexample",
        steps=tuple(steps),
    )


_CHECKS = {
    Normalised: _check_normalised,
    Moment: _check_moment,
    NoisyMeanVariance: _check_noisy_mean_variance,
}


def supports(claim) -> bool:
    return type(claim) in _CHECKS


def check(claim) -> Finding:
    return _CHECKS[type(claim)](claim)
