"""The numeric oracle of mutation testing: judge a claim by direct numerical evaluation,
independent of the checker's symbolic path (no SymPy simplification, no z3, no formulations).

Densities and mass functions of the descriptions are evaluated with mpmath at 40 digits on grids
of inputs and outputs, integrals by quadrature, sums by brute force, at a grid of parameter values
inside the claim's domain. :func:`oracle` answers ``False`` only with a numeric witness that beats
the claim by a relative margin of 1e-6 (far below the 1% mutations, far above the 40-digit
arithmetic), ``True`` when no sampled point violates the claim (evidence, not proof), and ``None``
when it cannot evaluate the claim.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable

import mpmath as mp
import sympy as sp

from proofs import mechanisms as m
from proofs.errors import InputError
from proofs.validate import allowed

__all__ = [
    "DIGITS",
    "approx_delta",
    "beats",
    "differ",
    "free",
    "gauss_delta",
    "kov_delta",
    "num",
    "oracle",
    "pure_loss",
    "samples",
    "smallest_sigma",
]

DIGITS = 40
_MARGIN, _TINY = mp.mpf("1e-6"), mp.mpf("1e-30")


_POOLS = {
    "epsilon": (sp.Rational(1, 2), 1, 2),
    "alpha": (sp.Rational(1, 4), sp.Rational(3, 4)),
    "b": (sp.Rational(1, 2), 2),
    "Delta": (1, 2),
    "Delta_u": (1, 3),
    "sigma": (sp.Rational(1, 2), 2),
    "k": (2, 3, 5),
    "n": (1, 3),
    "n_1": (0, 1, 2),
    "m": (1, 3),
    "T": (1, 2, 3),
    "h": (1, 2),
    "f": (sp.Rational(1, 4), sp.Rational(1, 2)),
    "p": (sp.Rational(1, 4), sp.Rational(1, 2)),
    "q": (sp.Rational(3, 4), sp.Rational(7, 8)),
    "delta": (sp.Rational(1, 100), sp.Rational(1, 10)),
    "t": (sp.Rational(1, 10), sp.Rational(1, 2), 1),
    "p_truth": (sp.Rational(1, 2),),
    "p_yes": (sp.Rational(1, 2),),
    "x": (0, 1),
}


def samples_pool(s: sp.Symbol) -> tuple:
    """The small pool of values tried for a parameter, by its name (a delta's, with 1e-5,
    for delta_prime and other names that start with delta: 1/2 and 2 made advanced
    composition's log(1/delta') negative or its claims easy)."""
    if s.name not in _POOLS and s.name.startswith("delta"):
        return (sp.Rational(1, 10**5), *_POOLS["delta"])
    return _POOLS.get(s.name, (sp.Rational(1, 2), 2))


def samples(symbols, domain=(), limit: int = 64):
    """Parameter values (a dict per point) inside `domain`, from small pools per name."""
    symbols = sorted(symbols, key=str)
    pools = [samples_pool(s) for s in symbols]
    count = 0
    for combo in itertools.product(*pools):
        values = dict(zip(symbols, map(sp.sympify, combo)))
        if not all(allowed(s, v) for s, v in values.items()):
            continue
        try:
            ok = all(bool(sp.sympify(c).subs(values)) for c in domain)
        except TypeError:
            ok = False
        if ok:
            yield values
            count += 1
            if count >= limit:
                return


def num(expr, values=None) -> mp.mpf:
    e = sp.sympify(expr)
    if values:
        e = e.subs(values)
    return mp.mpf(sp.N(e, 45)) if e.is_real is not False else mp.nan


def beats(value, bound) -> bool:
    """value > bound by the oracle's relative margin (plus 1e-30 for bounds near 0)."""
    return value > bound + _MARGIN * abs(bound) + _TINY


def differ(a, b) -> bool:
    """a != b by the oracle's relative margin."""
    return abs(a - b) > _MARGIN * max(abs(a), abs(b)) + _TINY


def free(*exprs) -> set:
    out: set = set()
    for e in exprs:
        out |= sp.sympify(e).free_symbols
    return out


def _log_ratio_grid(logp: Callable, logq: Callable, ys) -> mp.mpf:
    return max(logp(y) - logq(y) for y in ys)


def pure_loss(mech, v: dict) -> mp.mpf | None:
    """sup of ln P[M(x)=y]/P[M(x')=y] found on a grid, at parameter values v (a lower bound on
    the true supremum: a witness)."""
    sub = lambda e: num(e, v)
    if isinstance(mech, m.GaussianVector):
        mech = mech.reduced()  # (see approx_delta)
    if isinstance(mech, (m.Laplace, m.Gaussian, m.TwoSidedGeometric)):
        d = sub(mech.sensitivity)
        scale = sub(mech.sigma if isinstance(mech, m.Gaussian) else mech.scale)
        ys = [d * t / 4 for t in range(-40, 41)] + [d * 200, -d * 200]
        if isinstance(mech, m.TwoSidedGeometric):
            ys = [mp.mpf(int(y)) for y in ys]
        if isinstance(mech, m.Gaussian):
            return _log_ratio_grid(
                lambda y: -((y - d) ** 2) / (2 * scale**2), lambda y: -(y**2) / (2 * scale**2), ys
            )
        return _log_ratio_grid(lambda y: -abs(y - d) / scale, lambda y: -abs(y) / scale, ys)
    if isinstance(mech, (m.LaplaceVector, m.Histogram)):
        scale = sub(mech.scale)
        shifts = (
            (sub(mech.sensitivity),)
            if isinstance(mech, m.LaplaceVector)
            else (1,)
            if mech.neighbours == "add_remove"
            else (1, -1)
        )
        grid = [mp.mpf(t) / 2 for t in range(-8, 9)]
        best = -mp.inf
        for ys in itertools.product(grid, repeat=len(shifts)):
            best = max(best, sum((abs(y - s) - abs(y)) / scale for y, s in zip(ys, shifts)))
        return best
    if isinstance(mech, (m.AlphaCoinRR, m.ForcedResponse, m.KAryRR, m.OneBitTelemetry)):
        if isinstance(mech, m.KAryRR):
            k = int(sub(mech.k))
            xs, ys = range(min(k, 3)), range(min(k, 3))
        elif isinstance(mech, m.OneBitTelemetry):
            mm = sub(mech.m)
            xs, ys = (0, mm / 2, mm), (0, 1)
        else:
            xs, ys = (0, 1), (0, 1)
        best = -mp.inf
        for x, xp, y in itertools.product(xs, xs, ys):
            if x == xp:
                continue
            p, q = num(mech.pmf(sp.nsimplify(x), y), v), num(mech.pmf(sp.nsimplify(xp), y), v)
            if q <= 0:
                return mp.inf if p > 0 else best
            best = max(best, mp.log(p) - mp.log(q))
        return best
    if isinstance(mech, m.ExponentialMechanism):
        c, du = sub(mech.rate), sub(mech.sensitivity)
        others = mp.mpf(10) ** 9
        if mech.monotone:  # r's utility rises by Delta_u, the others' stay
            return c * du + mp.log((1 + others) / (mp.exp(c * du) + others))
        # r's utility rises, the others' fall: exp(2 c Delta_u) in the limit
        return c * du + mp.log((1 + others * mp.exp(c * du)) / (mp.exp(c * du) + others))
    from proofs.mutation.thresholds import threshold_loss

    special = threshold_loss(mech, sub, lambda part: pure_loss(part, v))
    if special is not None:
        return special
    if isinstance(mech, m.ReportNoisyMax):
        b = sub(mech.scale)

        def win2(gap):  # P[query 2 wins] when count1 - count2 = gap, two Laplace noises
            def integrand(z):  # noise of query 2 is z; query 1 must stay below
                t = z - gap
                surv = 1 - mp.exp(t / b) / 2 if t < 0 else mp.exp(-t / b) / 2
                return mp.exp(-abs(z) / b) / (2 * b) * (1 - surv)

            return mp.quad(integrand, [-mp.inf, 0, gap - 1, gap, mp.inf])

        # neighbours move the gap by 1 (monotone) or 2 (each answer its own way); the loss
        # shift/b is approached as the gap grows: within 0.1% here
        shift = 1 if mech.monotone else 2
        g = 1000 * b
        return mp.log(win2(g - shift)) - mp.log(win2(g))
    if isinstance(mech, m.Rappor):
        s1, s0 = (sub(e) for e in mech.bit_probabilities())
        h = int(sub(mech.h))
        return h * (mp.log(s1) - mp.log(s0) + mp.log(1 - s0) - mp.log(1 - s1))
    if isinstance(mech, m.RepeatedOneBit):
        one = mech.single
        t = 1 if mech.memoized else int(sub(mech.reports))
        p1, p0 = num(one.p_one(one.m), v), num(one.p_one(0), v)
        return t * (mp.log(p1) - mp.log(p0))
    if isinstance(mech, m.FiniteMechanism):
        best = -mp.inf
        for x, xp in mech.neighbour_pairs():
            for y in mech.pmf[x]:
                p, q = num(mech.pmf[x][y], v), num(mech.pmf[xp][y], v)
                if q <= 0:
                    if p > 0:
                        return mp.inf
                    continue
                best = max(best, mp.log(p) - mp.log(q))
        return best
    return None


def _oracle_pure(c) -> bool | None:
    mech = c.mechanism
    fields = [
        getattr(mech, f)
        for f in getattr(mech, "__dataclass_fields__", {})
        if isinstance(getattr(mech, f), sp.Basic)
    ]
    domain = list(mech.domain()) if hasattr(mech, "domain") else []
    verdict = True
    for v in samples(free(c.epsilon, *fields, *domain), domain):
        loss = pure_loss(mech, v)
        if loss is None:
            return None
        if beats(loss, num(c.epsilon, v)):
            return False
    from proofs.mutation.thresholds import witness_only

    return None if isinstance(mech, witness_only) else verdict


def approx_delta(mech, eps) -> mp.mpf | None:
    e = mp.exp(eps)
    if isinstance(mech, m.GaussianVector):
        # its loss <z, v>/s^2 + |v|^2/(2 s^2) has the law of the 1-D loss with d = |v|
        mech = mech.reduced()
    if isinstance(mech, m.Gaussian):
        # the log-ratio d (2y - d)/(2 s^2) increases: the optimal event is y > y*
        d, s = num(mech.sensitivity), num(mech.sigma)
        y = s**2 * eps / d + d / 2
        tail = lambda c: mp.erfc((y - c) / (s * mp.sqrt(2))) / 2
        return max(tail(d) - e * tail(0), 0)
    if isinstance(mech, m.Laplace):
        # the log-ratio (|y| - |y - d|)/b increases on [0, d] and is flat outside
        d, b = num(mech.sensitivity), num(mech.scale)
        if eps >= d / b:
            return mp.mpf(0)
        y = (d + eps * b) / 2
        dens = lambda t, c: mp.exp(-abs(t - c) / b) / (2 * b)
        return mp.quad(lambda t: dens(t, d) - e * dens(t, 0), [y, d, mp.inf])
    if isinstance(mech, m.FiniteMechanism):
        best = mp.mpf(0)
        for x, xp in mech.neighbour_pairs():
            best = max(
                best,
                sum(max(num(mech.pmf[x][y]) - e * num(mech.pmf[xp][y]), 0) for y in mech.pmf[x]),
            )
        return best
    return None


def gauss_delta(eps, mu) -> mp.mpf:
    return mp.ncdf(mu / 2 - eps / mu) - mp.exp(eps) * mp.ncdf(-mu / 2 - eps / mu)


def kov_delta(eps, k: int, total, delta) -> mp.mpf:
    e = mp.exp(eps)
    s = sum(
        math.comb(k, i) * max(mp.exp((k - i) * eps) - mp.exp(total + i * eps), 0)
        for i in range(k + 1)
    )
    return 1 - (1 - delta) ** k * (1 - s / (1 + e) ** k)


def _oracle_composed(c) -> bool | None:
    exprs = [c.epsilon, c.k, c.epsilon_total, c.delta_total, c.delta]
    for v in samples(free(*exprs)):
        eps, k, total, dt, d = (num(x, v) for x in exprs)
        if not all(mp.isfinite(x) for x in (eps, k, total, dt, d)):
            return None  # (not real there: nothing is known)
        if k > 2000 or total < 0 or not 0 <= d < 1:
            return None
        if beats(kov_delta(eps, int(k), total, d), dt):
            return False
    return True


def _oracle_sequential(c) -> bool | None:
    e1, e2 = (
        next((s for s in free(c.rule) if s.name == n), sp.Symbol(n))
        for n in ("epsilon_1", "epsilon_2")
    )
    d1, d2 = (
        next((s for s in free(c.delta_rule) if s.name == n), sp.Symbol(n))
        for n in ("delta_1", "delta_2")
    )
    deltas = (0,) if c.at is None else (0, mp.mpf("0.1"))
    for r1, r2 in itertools.product((2, 3, 1.5, 1), repeat=2):
        for a, b in itertools.product(deltas, repeat=2):
            # canonical (ln r, delta) mechanisms: the composition's exact loss is known only
            # numerically here; evaluate the composed table directly
            p = _canonical_product(r1, a, r2, b)
            total = num(c.rule, {e1: sp.log(sp.nsimplify(r1)), e2: sp.log(sp.nsimplify(r2))})
            if c.at is None:
                loss = max(mp.log(x) - mp.log(y) for x, y in p if y > 0)
                if beats(loss, total):
                    return False
            else:
                dd = num(c.delta_rule, {d1: sp.nsimplify(a), d2: sp.nsimplify(b)})
                if beats(sum(max(x - mp.exp(total) * y, 0) for x, y in p), dd):
                    return False
    return True


def _canonical_row(r, d):
    r = mp.mpf(r)
    hi, lo = (1 - d) * r / (1 + r), (1 - d) / (1 + r)
    return (d, hi, lo, mp.mpf(0)), (mp.mpf(0), lo, hi, d)


def _canonical_product(r1, d1, r2, d2) -> list[tuple]:
    (p1, q1), (p2, q2) = _canonical_row(r1, d1), _canonical_row(r2, d2)
    return [(a * b, x * y) for (a, x), (b, y) in itertools.product(zip(p1, q1), zip(p2, q2))]


def _oracle_post(c) -> bool | None:
    e0 = next((s for s in free(c.rule) if s.name == "epsilon_0"), sp.Symbol("epsilon_0"))
    for r in (2, 3, 1.5):
        if beats(mp.log(r), num(c.rule, {e0: sp.log(sp.nsimplify(r))})):
            return False
    return True


def _chain(k: int, big_e, d, a) -> list | None:
    """P[z_j in S] of the chain z_0 ~ ... ~ z_k: a E^(k-j) + d sum_{i<k-j} E^i, or None when
    some neighbouring pair is not (ln E, d)-DP (checked numerically on S and its complement)."""
    ps = [a * big_e ** (k - j) + d * sum(big_e**i for i in range(k - j)) for j in range(k + 1)]
    if any(not 0 <= p <= 1 for p in ps):
        return None
    for u, w in itertools.pairwise(ps):
        for x, y in ((u, w), (w, u), (1 - u, 1 - w), (1 - w, 1 - u)):
            if beats(x - big_e * y, d):
                return None
    return ps


def _oracle_group(c) -> bool | None:
    names = {s.name: s for s in free(c.eps_k, c.delta_k)}
    ks = [c.k] if c.k else [1, 2, 3, 4]
    deltas = [0] if c.pure else [0, mp.mpf("0.1"), mp.mpf("0.01")]
    for k, big_e, d in itertools.product(ks, (2, 1.5, 3), deltas):
        big_e = mp.mpf(big_e)
        top = d * sum(big_e**i for i in range(k))
        values = {
            names[n]: val
            for n, val in (
                ("k", k),
                ("epsilon", sp.log(sp.nsimplify(big_e))),
                ("delta", sp.nsimplify(d)),
            )
            if n in names
        }
        ek, dk = num(c.eps_k, values), num(c.delta_k, values)
        for a in (0, (1 - top) / big_e**k / 2, (1 - top) / big_e**k):
            ps = _chain(k, big_e, d, a)
            if ps is not None and beats(ps[0] - mp.exp(ek) * ps[-1], dk):
                return False
    return True


def _oracle_calibration(c) -> bool | None:
    from proofs.symbols import DELTA, EPSILON, SENSITIVITY

    deltas = (
        [c.delta]
        if hasattr(c, "delta")
        else [c.delta_min, c.delta_max, sp.sqrt(c.delta_min * c.delta_max)]
    )
    lo, hi = float(c.eps_min), float(c.eps_max)
    for d in deltas:
        for i in range(1, 201):
            eps = lo + (hi - lo) * i / 200
            sigma = num(c.sigma, {EPSILON: sp.nsimplify(eps), DELTA: d, SENSITIVITY: 1})
            if beats(gauss_delta(mp.mpf(eps), 1 / sigma), num(d)):
                return False
    return True


def smallest_sigma(eps, delta) -> mp.mpf:
    return mp.findroot(
        lambda s: gauss_delta(eps, 1 / s) - delta,
        (mp.mpf("0.01"), 1000),
        solver="bisect",
        tol=mp.mpf(10) ** -30,
    )


def _oracle_minimal(c) -> bool | None:
    eps, delta = num(c.epsilon), num(c.delta)
    smallest = smallest_sigma(eps, delta) * num(c.sensitivity)
    sigma, tol = num(c.sigma), num(c.tolerance)
    return not (beats(smallest, sigma) or beats(sigma - tol, smallest))


def _oracle_profile(c) -> bool | None:
    formula = c._formula()
    for eps, d, s in itertools.product((mp.mpf("0.1"), mp.mpf(1)), (1, 2), (mp.mpf("0.5"), 1)):
        mech = (
            m.Gaussian(sp.nsimplify(s), d)
            if c.mechanism == "gaussian"
            else m.Laplace(sp.nsimplify(s), d)
        )
        if c.mechanism == "laplace" and eps >= d / s:
            continue
        true = approx_delta(mech, eps)
        names = {sym.name: sym for sym in free(formula)}
        values = {
            names[n]: val
            for n, val in (
                ("epsilon", sp.nsimplify(eps)),
                ("Delta", d),
                ("sigma", sp.nsimplify(s)),
                ("b", sp.nsimplify(s)),
            )
            if n in names
        }
        if differ(true, num(formula, values)):
            return False
    return True


def _oracle_renyi(c) -> bool | None:
    names = {s.name: s for s in free(c.bound)}
    for a, s, d in itertools.product((1.5, 2, 5), (0.5, 1, 3), (1, 2)):
        a, s = mp.mpf(a), mp.mpf(s)
        integrand = lambda y, a=a, s=s, d=d: mp.npdf(y, d, s) ** a * mp.npdf(y, 0, s) ** (1 - a)
        div = mp.log(mp.quad(integrand, [-mp.inf, 0, d, mp.inf])) / (a - 1)
        values = {
            names[n]: sp.nsimplify(val)
            for n, val in (("alpha", a), ("sigma", s), ("Delta", d))
            if n in names
        }
        bound = num(c.bound, values) * (a if c.per_alpha else 1)
        if beats(div, bound):
            return False
    return True


def _oracle_gaussian_eps(mu2, eps, delta) -> bool:
    return not beats(gauss_delta(eps, mp.sqrt(mu2)), delta)


def _oracle_conversion(c) -> bool | None:
    mu2 = c.k * num(c.sensitivity) ** 2 / num(c.sigma) ** 2
    return _oracle_gaussian_eps(mu2, num(c.epsilon()), num(c.delta))


def _oracle_rdp(c) -> bool | None:
    gaussians = [(g, n) for g, n in c.composition if isinstance(g, m.Gaussian)]
    if not gaussians:
        return None
    mu2 = sum(n * num(g.sensitivity) ** 2 / num(g.sigma) ** 2 for g, n in gaussians)
    holds = _oracle_gaussian_eps(mu2, num(c.epsilon), num(c.delta))
    if len(gaussians) == len(c.composition) or not holds:
        return holds
    return None  # the other releases could make it false; the oracle cannot tell


def oracle(claim) -> bool | None:
    """Does `claim` hold, judged numerically (see the module docstring)?"""
    with mp.workdps(DIGITS):
        return _judge(claim)


def _judge(claim) -> bool | None:
    from proofs import claims as c
    from proofs.mutation.facts import (  # estimators and facts about distributions
        _oracle_chebyshev,
        _oracle_distance,
        _oracle_estimate_at,
        _oracle_inequality,
        _oracle_moment,
        _oracle_noisy_mean,
        _oracle_normalised,
        _oracle_per_report,
        _oracle_unbiased,
        _oracle_variance,
    )

    judges = [
        (c.PureDP, _oracle_pure),
        (c.ComposedDP, _oracle_composed),
        (c.SequentialComposition, _oracle_sequential),
        (c.PostProcessing, _oracle_post),
        (c.GroupPrivacy, _oracle_group),
        (c.GaussianCalibration, _oracle_calibration),
        (c.GaussianCalibrationRegion, _oracle_calibration),
        (c.CalibrationMinimal, _oracle_minimal),
        (c.PrivacyProfile, _oracle_profile),
        (c.RenyiGaussian, _oracle_renyi),
        (c.RDPConversion, _oracle_conversion),
        (c.ZCDPConversion, _oracle_conversion),
        (c.RDPComposition, _oracle_rdp),
        (c.Unbiased, _oracle_unbiased),
        (c.EstimateAt, _oracle_estimate_at),
        (c.Variance, _oracle_variance),
        (c.ChebyshevTail, _oracle_chebyshev),
        (c.PerReportUnbiased, _oracle_per_report),
        (c.Moment, _oracle_moment),
        (c.NoisyMeanVariance, _oracle_noisy_mean),
        (c.DistanceBound, _oracle_distance),
        (c.Inequality, _oracle_inequality),
    ]
    if isinstance(claim, c.ApproxDP):
        value = approx_delta(claim.mechanism, num(claim.epsilon))
        return None if value is None else not beats(value, num(claim.delta))
    if isinstance(claim, c.Normalised):
        return _oracle_normalised(claim)
    for kind, judge in judges:
        if isinstance(claim, kind):
            try:
                return judge(claim)
            except (ValueError, TypeError, ZeroDivisionError, OverflowError, InputError):
                return None
    return None
