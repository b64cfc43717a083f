"""The numeric oracle's judges of estimator claims and of facts about distributions (moments,
normalisation, distances), by the same direct mpmath evaluation as :mod:`proofs.mutation.oracle`.
"""

from __future__ import annotations

import itertools
import math

import mpmath as mp
import sympy as sp

from proofs import mechanisms as m
from proofs.mutation.oracle import beats, differ, free, num, samples, samples_pool
from proofs.validate import allowed

__all__ = [
    "distance_sides",
    "distances",
    "distribution_pairs",
    "estimator_moments",
    "estimator_points",
    "exact_tail",
    "table",
]


def estimator_moments(e, values):
    from proofs.symbols import N1, N

    p1, p0 = (num(e.mechanism.pmf(x, 1), values) for x in (1, 0))
    n, n1 = int(values[N]), int(values[N1])
    a, b = num(e.slope, values), num(e.intercept, values)
    mean = a * (n1 * p1 + (n - n1) * p0) + b
    var = a**2 * (n1 * p1 * (1 - p1) + (n - n1) * p0 * (1 - p0))
    return mean, var, p1, p0, n, n1, a, b


def estimator_points(e, *exprs):
    from proofs.symbols import N1, N

    syms = free(
        e.slope,
        e.intercept,
        e.target,
        *exprs,
        *(
            getattr(e.mechanism, f)
            for f in e.mechanism.__dataclass_fields__
            if isinstance(getattr(e.mechanism, f), sp.Basic)
        ),
    ) | {N, N1}
    yield from samples(syms, [*e.mechanism.domain(), N1 <= N])


def _oracle_unbiased(c) -> bool | None:
    e = c.estimator
    for v in estimator_points(e):
        mean = estimator_moments(e, v)[0]
        if differ(mean, num(e.target, v)):
            return False
    return True


def _oracle_estimate_at(c) -> bool | None:
    """The estimator on the reports, summed one report at a time in mpmath."""
    e, values = c.estimator, c.values()
    a, b = num(e.slope, values), num(e.intercept, values)
    estimate = b + mp.fsum(a * bit for bit in c.reports)
    return not differ(estimate, num(c.value))


def _oracle_variance(c) -> bool | None:
    e = c.estimator
    for v in estimator_points(e, c.bound):
        var, bound = estimator_moments(e, v)[1], num(c.bound, v)
        if c.relation == "==" and differ(var, bound):
            return False
        if c.relation == "<=" and beats(var, bound):
            return False
    return True


def exact_tail(c, v) -> mp.mpf:
    """P[|estimate - target| >= t] by brute force over the reports' binomial counts."""
    e = c.estimator
    _mean, _var, p1, p0, n, n1, a, b = estimator_moments(e, v)
    target = num(e.target, v)
    t = next((num(s, v) for s in c.bound.free_symbols if s.name == "t"), mp.mpf(1))
    return sum(
        math.comb(n1, s1)
        * p1**s1
        * (1 - p1) ** (n1 - s1)
        * math.comb(n - n1, s0)
        * p0**s0
        * (1 - p0) ** (n - n1 - s0)
        for s1 in range(n1 + 1)
        for s0 in range(n - n1 + 1)
        if abs(a * (s1 + s0) + b - target) >= t
    )


def _oracle_chebyshev(c) -> bool | None:
    for v in estimator_points(c.estimator, c.bound):
        if beats(exact_tail(c, v), num(c.bound, v)):
            return False
    return True


def _oracle_per_report(c) -> bool | None:
    mech = c.mechanism
    xs = sp.Symbol("x", nonnegative=True)
    b = next((s for s in free(c.term) if s.name == "b"), sp.Symbol("b"))
    params = free(
        *(
            getattr(mech, f)
            for f in mech.__dataclass_fields__
            if isinstance(getattr(mech, f), sp.Basic)
        ),
        c.term,
        c.target,
    ) - {b, xs}
    for v in samples(params, mech.domain()):
        for frac in (0, sp.Rational(1, 3), 1):
            x = frac * (mech.m.subs(v) if hasattr(mech, "m") else 1)
            p = num(mech.p_one(x) if hasattr(mech, "p_one") else mech.pmf(x, 1), v)
            g1, g0 = num(c.term.subs(b, 1), v), num(c.term.subs(b, 0), v)
            target = num(c.target.subs({s: x for s in free(c.target) if s.name == "x"}), v)
            if differ(g1 * p + g0 * (1 - p), target):
                return False
    return True


def _oracle_moment(c) -> bool | None:
    from proofs.claims.distributions import noise_law

    law = noise_law(c.law)
    var = law.variable
    for v in samples(free(law.expr, c.value) - {var}, law.domain):
        dens = sp.lambdify(var, law.expr.subs(v), "mpmath")
        if law.support == "reals":
            mom = lambda j: mp.quad(lambda y: y**j * dens(y), [-mp.inf, 0, mp.inf])  # noqa
        else:
            mom = lambda j: mp.nsum(lambda z: z**j * dens(z), [-mp.inf, mp.inf])  # noqa
        mean = mom(1)
        value = mean if c.kind == "mean" else mom(2) - mean**2
        if differ(value, num(c.value, v)):
            return False
    return True


def _oracle_noisy_mean(c) -> bool | None:
    for v in samples(free(c.value, c.n, c.epsilon, c.sigma)):
        n = num(c.n, v)
        var = 2 / (num(c.epsilon, v) * n) ** 2 if c.noise == "laplace" else num(c.sigma, v) ** 2
        if differ(var, num(c.value, v)):
            return False
    return True


def distances(p, q) -> dict:
    diff = [a - b for a, b in zip(p, q)]
    cum, emd = mp.mpf(0), mp.mpf(0)
    for x in diff:
        cum += x
        emd += abs(cum)
    tv = sum(abs(x) for x in diff) / 2
    kl = (
        sum(a * mp.log(a / b) for a, b in zip(p, q) if a > 0)
        if all(b > 0 for a, b in zip(p, q) if a > 0)
        else mp.inf
    )
    return {
        "TV": tv,
        "L1": 2 * tv,
        "L2": mp.sqrt(sum(x * x for x in diff)),
        "KL": kl,
        "EMD": emd / (len(p) - 1),
        "EMD_cat": tv,
        "m": mp.mpf(len(p)),
    }


def distribution_pairs():
    """Pairs (P, Q) of distributions on 2 to 4 points: a grid of P against four kinds of Q."""
    for size in (2, 3, 4):
        grid = [mp.mpf(i) / 20 for i in range(21)]
        for p_head in itertools.product(grid, repeat=size - 1):
            if sum(p_head) > 1:
                continue
            p = (*p_head, 1 - sum(p_head))
            for q in (
                tuple(mp.mpf(1) / size for _ in range(size)),
                tuple(reversed(p)),
                tuple((a + mp.mpf(1) / size) / 2 for a in p),
                tuple(a * mp.mpf("0.98") + mp.mpf("0.02") / size for a in p),
            ):
                yield p, q


def distance_sides(c):
    """(lhs, rhs) of a DistanceBound claim at every test pair of distributions where the
    distances it names are finite."""
    names = {s.name: s for s in free(c.lhs, c.rhs)}
    for p, q in distribution_pairs():
        dist = distances(p, q)
        if any(dist[n] == mp.inf for n in names):
            continue
        values = {names[n]: sp.Float(str(dist[n]), 40) for n in names}
        yield num(c.lhs, values), num(c.rhs, values)


def _oracle_distance(c) -> bool | None:
    for lhs, rhs in distance_sides(c):
        if c.relation == "<=" and beats(lhs, rhs):
            return False
        if c.relation == "==" and differ(lhs, rhs):
            return False
    return True


_SIGNED_POOL = (-2, -1, 0, sp.Rational(1, 2), 1, 2, 3)


def _oracle_inequality(c) -> bool | None:
    """lhs <= rhs at every point of small pools (signed for real symbols), in mpmath."""
    symbols = sorted(free(c.lhs, c.rhs, *c.domain), key=str)
    pools = [samples_pool(s) if s.is_positive or s.is_integer else _SIGNED_POOL for s in symbols]
    for combo in itertools.islice(itertools.product(*pools), 4096):
        values = dict(zip(symbols, map(sp.sympify, combo)))
        if not all(allowed(s, v) for s, v in values.items()):
            continue
        if not all(sp.sympify(d).subs(values) is sp.true for d in c.domain):
            continue
        lhs, rhs = num(c.lhs, values), num(c.rhs, values)
        if mp.isnan(lhs) or mp.isnan(rhs):
            continue
        if beats(lhs, rhs):
            return False
    return True


def table(law) -> tuple[dict, tuple] | None:
    """A pmf table {x: {y: P}} of a small finite description, with its assumptions."""
    if isinstance(law, (m.AlphaCoinRR, m.ForcedResponse)):
        return {x: {y: sp.sympify(law.pmf(x, y)) for y in (0, 1)} for x in (0, 1)}, law.domain()
    if isinstance(law, m.KAryRR):
        k = law.k if law.k.is_Integer else sp.Integer(3)
        return (
            {x: {y: law.pmf(x, y).subs(law.k, k) for y in range(int(k))} for x in range(int(k))},
            tuple(c.subs(law.k, k) for c in law.domain()),
        )
    if isinstance(law, m.OneBitTelemetry):
        return {x: {y: law.pmf(x, y) for y in (0, 1)} for x in (0, law.m)}, law.domain()
    if isinstance(law, m.FiniteMechanism):
        return {x: dict(row) for x, row in law.pmf.items()}, law.domain()
    if isinstance(law, m.ExponentialMechanism):
        us = sp.symbols("u_1:4", real=True)
        return {0: {r: law.pmf(list(us), r) for r in range(3)}}, law.domain()
    return None


def _oracle_normalised(c) -> bool | None:
    from proofs.claims.distributions import NoiseDensity, noise_law

    if isinstance(c.law, (m.Laplace, m.Gaussian, m.TwoSidedGeometric, NoiseDensity)):
        law = noise_law(c.law)
        var = law.variable
        for v in samples(free(law.expr) - {var}, law.domain):
            dens = sp.lambdify(var, law.expr.subs(v), "mpmath")
            total = (
                mp.quad(dens, [-mp.inf, 0, mp.inf])
                if law.support == "reals"
                else mp.nsum(dens, [-mp.inf, mp.inf])
            )
            if differ(total, 1):
                return False
        return True
    found = table(c.law)
    if found is None:
        return None
    rows, domain = found
    for v in samples(free(*(p for row in rows.values() for p in row.values())), domain):
        for row in rows.values():
            values = [num(p, v) for p in row.values()]
            if differ(sum(values), 1) or min(values) < 0:
                return False
    return True
