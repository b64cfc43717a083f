"""Gaussian calibrations over whole ranges, and the smallest sigma for (eps, delta).

A calibration sigma(eps, delta) is (eps, delta)-DP exactly when the Gaussian privacy profile
(Balle and Wang 2018, Thm 8; :mod:`proofs.checkers.profiles`) at sigma/Delta is at most delta.
Arb balls enclose the profile over whole boxes of eps (and of ln 1/delta), so a branch and
bound that covers a range proves the claim for every value in it (``certified``); a box whose
centre certainly fails gives the counterexample, located by certified bisection. The classical
calibration sigma >= sqrt(2 ln(1.25/delta)) Delta/eps (Dwork and Roth 2014, Thm A.1) is the
default; :func:`calibrate_gaussian` returns the smallest sigma for (eps, delta) with a
certificate (the profile decreases in sigma: Balle and Wang 2018, Lemma 7).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy as sp
from flint import arb

from proofs.checkers.profiles import gaussian_delta, gaussian_profile_derivation
from proofs.claims import CalibrationMinimal, GaussianCalibration, GaussianCalibrationRegion
from proofs.decide import at, known
from proofs.errors import InputError
from proofs.formulas import classical_sigma
from proofs.numeric import as_fraction, ball_of, compile_ball, precision, show_ball, to_ball
from proofs.results import Counterexample, Finding, Verdict
from proofs.symbols import DELTA, EPSILON, SENSITIVITY
from proofs.validate import check_delta, check_eps_value, positive_number

__all__ = ["GaussianCalibrationResult", "calibrate_gaussian", "check", "supports"]


_MAX_BOXES = 4000


@dataclass(frozen=True, slots=True)
class _Cover:
    status: str  # "ok" | "violated" | "unknown"
    certified_up_to: Fraction
    point: Fraction | None = None
    value: arb | None = None
    boxes: int = 0


def _cover(f, lo: Fraction, hi: Fraction, bound: arb, max_boxes: int = _MAX_BOXES) -> _Cover:
    """Branch and bound, left to right: is f(eps) <= bound for every eps in [lo, hi]?

    f maps an arb ball to a ball enclosing f over it. Returns the first certified violation at
    a point (with everything left of its box certified) or 'ok' when the cover closes."""
    stack, boxes, done = [(lo, hi)], 0, lo
    while stack:
        a, b = stack.pop()
        boxes += 1
        if boxes > max_boxes:
            return _Cover("unknown", done, boxes=boxes)
        val = f(ball_of(a, b))
        if val <= bound:
            done = b
            continue
        mid = (a + b) / 2
        point_val = f(ball_of(mid))
        if point_val > bound:
            # the first violation is in (done, mid]: keep it for bisection
            return _Cover("violated", done, mid, point_val, boxes)
        stack += [(mid, b), (a, mid)]
    return _Cover("ok", hi, boxes=boxes)


def _first_failure(f, done: Fraction, bad: Fraction, bound: arb, tol: Fraction) -> tuple:
    """Bisect (done, bad] keeping: f <= bound certified on [start, done], f(bad) > bound."""
    while bad - done > tol:
        mid = (done + bad) / 2
        if f(ball_of(mid)) > bound:
            bad = mid
            continue
        sub = _cover(f, done, mid, bound, max_boxes=400)
        if sub.status == "ok":
            done = mid
        elif sub.status == "violated":
            done, bad = sub.certified_up_to, sub.point
        else:
            break
    return done, bad


_V = sp.Dummy("v", positive=True)  # delta = exp(-v)


@dataclass(frozen=True, slots=True)
class GaussianCalibrationResult:
    """The smallest sigma for (epsilon, delta) and its certificate.

    delta(epsilon; sigma) <= delta is certified by `delta_at_sigma` (an arb enclosure) and
    delta(epsilon; sigma - step) > delta by `delta_below`; since delta(eps; sigma) decreases in
    sigma (Balle and Wang 2018, Lemma 7 and Thm 8), the smallest valid sigma is in
    (sigma - step, sigma]. `classical_sigma` is sqrt(2 ln(1.25/delta)) Delta/eps for comparison,
    None when eps >= 1 (outside Dwork and Roth's Thm A.1)."""

    epsilon: float
    delta: float
    sensitivity: float
    sigma: float
    step: float
    delta_at_sigma: tuple[float, float]
    delta_below: tuple[float, float]
    classical_sigma: float | None

    def summary(self) -> str:
        text = (
            f"smallest sigma for ({self.epsilon}, {self.delta})-DP at Delta={self.sensitivity}:"
            f" {self.sigma:.9g} (within {self.step:.1g}); delta(sigma) in "
            f"[{self.delta_at_sigma[0]:.6g}, {self.delta_at_sigma[1]:.6g}], delta(sigma - "
            f"step) in [{self.delta_below[0]:.6g}, {self.delta_below[1]:.6g}]"
        )
        if self.classical_sigma is not None:
            text += f"; classical calibration: {self.classical_sigma:.6g}"
        return text

    def to_dict(self) -> dict:
        from proofs.results import SCHEMA_VERSION

        return {
            "schema_version": SCHEMA_VERSION,
            "epsilon": self.epsilon,
            "delta": self.delta,
            "sensitivity": self.sensitivity,
            "sigma": self.sigma,
            "step": self.step,
            "delta_at_sigma": list(self.delta_at_sigma),
            "delta_below": list(self.delta_below),
            "classical_sigma": self.classical_sigma,
        }


def calibrate_gaussian(
    epsilon: Any, delta: Any, sensitivity: Any = 1, rel_step: float = 1e-9
) -> GaussianCalibrationResult:
    """Smallest sigma with delta(epsilon; sigma) <= delta, by bisection with arb enclosures."""
    e = check_eps_value(epsilon)
    d = check_delta(delta)
    s = positive_number(sensitivity, "sensitivity")
    if e == 0 or d == 0:
        raise InputError(
            f"epsilon={epsilon!r}, delta={delta!r}: both must be > 0 to calibrate Gaussian noise."
        )
    target = to_ball(d)
    ok = lambda sig: gaussian_delta(e, sig, s) <= target
    bad = lambda sig: gaussian_delta(e, sig, s) > target
    hi = Fraction(1)
    while not ok(hi):
        hi *= 2
    lo = hi / 2
    while not bad(lo):
        lo /= 2
    # relative to sigma, and never coarser than a hundredth of CalibrationMinimal's default
    # tolerance (at eps = 1e-3, delta = 1e-5 the relative step alone left sigma 1.5e-6 above
    # the smallest, and the claim that it is minimal to 1e-6 was refuted)
    step = min(Fraction(str(rel_step)) * hi, Fraction(1, 10**8))
    while hi - lo > step:
        mid = (lo + hi) / 2
        if ok(mid):
            hi = mid
        elif bad(mid):
            lo = mid
        else:
            break
    at, below = gaussian_delta(e, hi, s), gaussian_delta(e, lo, s)
    classical = float(classical_sigma(e, d, s)) if float(e) < 1 else None
    return GaussianCalibrationResult(
        float(e),
        float(d),
        float(s),
        _float_up(hi),
        float(hi - lo),
        (float(at.lower()), float(at.upper())),
        (float(below.lower()), float(below.upper())),
        classical,
    )


def _float_up(x: Fraction) -> float:
    """The double nearest ``x`` from above (a sigma rounded down could fall below the smallest
    private one)."""
    f = float(x)
    return f if Fraction(f) >= x else math.nextafter(f, math.inf)


def _gaussian_calibration_loss_terms(claim):
    sig = at(claim.sigma, {DELTA: claim.delta})
    # cancel, not simplify: simplify's logcombine can raise big rationals to huge powers
    mu = sp.cancel(SENSITIVITY / sig)
    if mu.free_symbols - {EPSILON} or not known(sig, "positive"):
        return None
    return mu / 2 - EPSILON / mu, -mu / 2 - EPSILON / mu


def _check_gaussian_calibration(claim) -> Finding:
    terms = _gaussian_calibration_loss_terms(claim)
    deriv = gaussian_profile_derivation()
    if terms is None or not deriv.matches_published:
        why = (
            "sigma must be positive (SymPy must see it) and sigma/Delta must depend on epsilon only"
            if terms is None
            else f"profile not derived: {deriv.reason}"
        )
        return Finding(Verdict.UNKNOWN, "none", reason=why)
    a, b = terms
    r2 = sp.sqrt(2)
    expr = sp.erfc(-a / r2) / 2 - sp.exp(EPSILON) * sp.erfc(-b / r2) / 2
    with precision():
        return _gaussian_calibration_decide(claim, expr, deriv)


def _gaussian_calibration_decide(claim, expr, deriv) -> Finding:
    try:
        g = compile_ball(expr, (EPSILON,))
    except ValueError as exc:
        return Finding(Verdict.UNKNOWN, "none", reason=str(exc))

    def f(ball):
        try:
            return g(ball)
        except (ValueError, ZeroDivisionError):
            return arb(0, 10**9)

    bound = to_ball(claim.delta)
    lo, hi = as_fraction(claim.eps_min), as_fraction(claim.eps_max, "up")
    cover = _cover(f, lo, hi, bound)
    method = "branch and bound over eps with arb balls (Balle-Wang profile derived with SymPy)"
    steps = (*deriv.steps, f"{cover.boxes} boxes")
    if cover.status == "ok":
        return Finding(
            Verdict.CERTIFIED,
            method,
            reason=f"delta(eps) <= {claim.delta} on every box covering "
            f"[{claim.eps_min}, {claim.eps_max}]",
            steps=steps,
        )
    if cover.status == "unknown":
        return Finding(
            Verdict.UNKNOWN,
            method,
            reason=f"cover incomplete: certified up to eps = {float(cover.certified_up_to):.6g}",
            steps=steps,
        )
    done, bad = _first_failure(f, cover.certified_up_to, cover.point, bound, Fraction(1, 10**6))
    value = f(ball_of(bad))
    sig = at(
        claim.sigma, {DELTA: claim.delta, EPSILON: sp.Rational(bad.numerator, bad.denominator)}
    )
    cex = Counterexample(
        {
            "epsilon": f"{bad} (~{float(bad):.7g})",
            "delta": str(claim.delta),
            "sigma/Delta": f"{float(sig.subs(SENSITIVITY, 1)):.7g}",
        },
        ("f(x) = Delta", "f(x') = 0"),
        "S = {y > c*}",
        f"delta(eps) in {show_ball(value)}",
        f"delta = {claim.delta}",
        "arb interval arithmetic",
        note=f"first failing eps is in ({float(done):.7g}, {float(bad):.7g}]"
        + (
            f": certified for every eps in [{claim.eps_min}, {float(done):.7g}]"
            if done > lo
            else ""
        ),
    )
    return Finding(
        Verdict.REFUTED,
        method,
        counterexample=cex,
        steps=steps,
        reason=f"first failing eps in ({float(done):.7g}, {float(bad):.7g}]",
    )


def _neg_log(delta, end: str) -> float:
    """A float below (``end`` 'lower') or above ('upper') ln(1/delta), certified by arb."""
    with precision(128):
        ball = -to_ball(sp.log(delta))
    return float(ball.lower() if end == "lower" else ball.upper())


def _exp_neg(v: Fraction) -> str:
    return show_ball((-ball_of(v)).exp())


def _gaussian_calibration_region_gap(claim):
    # (not force=True: it moved logs of negative arguments, and changed a claimed sigma)
    sig = sp.expand_log(claim.sigma.subs(DELTA, sp.exp(-_V)))
    mu = sp.cancel(SENSITIVITY / sig)
    positive = known(sig, "positive") or known(sp.logcombine(sig, force=True), "positive")
    if mu.free_symbols - {EPSILON, _V} or not positive:
        return None
    a, b = mu / 2 - EPSILON / mu, -mu / 2 - EPSILON / mu
    r2 = sp.sqrt(2)
    return sp.erfc(-a / r2) / 2 - sp.exp(EPSILON) * sp.erfc(-b / r2) / 2 - sp.exp(-_V)


def _check_gaussian_calibration_region(claim) -> Finding:
    gap, deriv = _gaussian_calibration_region_gap(claim), gaussian_profile_derivation()
    if gap is None or not deriv.matches_published:
        return Finding(
            Verdict.UNKNOWN,
            "none",
            reason="sigma must be positive (SymPy must see it) and "
            "sigma/Delta must depend on epsilon and delta only"
            if gap is None
            else f"profile not derived: {deriv.reason}",
        )
    with precision():
        return _gaussian_calibration_region_search(claim, gap, deriv)


_GRID = 16  # intervals per side of the grid tried before the branch and bound


def _gaussian_calibration_region_search(claim, gap, deriv) -> Finding:
    try:
        g = compile_ball(gap, (EPSILON, _V))
    except ValueError as exc:
        return Finding(Verdict.UNKNOWN, "none", reason=str(exc))

    def f(e_ball, v_ball):
        try:
            return g(e_ball, v_ball)
        except (ValueError, ZeroDivisionError):
            return arb(0, 10**9)

    e0, e1 = as_fraction(claim.eps_min), as_fraction(claim.eps_max, "up")
    # dyadic bounds, widened by one unit so float rounding of the logs cannot shrink the region
    # (ln 1/delta with arb: a delta of 1e-400 is 0 as a double)
    v_lo = max(Fraction(math.floor(_neg_log(claim.delta_max, "lower") * 2**20) - 1, 2**20), 0)
    v_hi = Fraction(math.ceil(_neg_log(claim.delta_min, "upper") * 2**20) + 1, 2**20)
    d_lo, d_hi = to_ball(claim.delta_min), to_ball(claim.delta_max)

    def inside(em: Fraction, vm: Fraction) -> bool:
        """Is (em, exp(-vm)) certainly in the claimed region (a witness must be)?"""
        d = (-ball_of(vm)).exp()
        e = sp.Rational(em.numerator, em.denominator)
        return bool(claim.eps_min <= e <= claim.eps_max) and d >= d_lo and d <= d_hi

    method = "2-D branch and bound over (eps, ln 1/delta) with arb balls (Balle-Wang profile)"

    def refuted(em: Fraction, vm: Fraction, boxes: int) -> Finding | None:
        if not inside(em, vm):
            return None
        value = f(ball_of(em), ball_of(vm))
        if not value > 0:
            return None
        cex = Counterexample(
            {"epsilon": f"{em} (~{float(em):.6g})", "delta": f"exp(-{vm}) in {_exp_neg(vm)}"},
            ("f(x) = Delta", "f(x') = 0"),
            "S = {y > c*}",
            f"delta(eps) - delta in {show_ball(value)}",
            "0",
            "arb interval arithmetic",
        )
        steps = (*deriv.steps, f"{boxes} boxes" if boxes else "a grid point")
        return Finding(Verdict.REFUTED, method, counterexample=cex, steps=steps)

    # a grid first (corners included): a violation away from the boundary is found there,
    # where a depth-first search could spend its budget on boxes along the boundary
    for i in range(_GRID + 1):
        for j in range(_GRID + 1):
            em, vm = e0 + (e1 - e0) * Fraction(i, _GRID), v_lo + (v_hi - v_lo) * Fraction(j, _GRID)
            found = refuted(em, _nudge(vm, v_lo, v_hi, j), 0)
            if found is not None:
                return found
    stack, boxes = [(e0, e1, v_lo, v_hi)], 0
    while stack:
        a, b, c, d = stack.pop()
        boxes += 1
        if boxes > claim.max_boxes:
            return Finding(
                Verdict.UNKNOWN, method, reason=f"box budget {claim.max_boxes} exhausted"
            )
        if f(ball_of(a, b), ball_of(c, d)) <= 0:
            continue
        em, vm = (a + b) / 2, (c + d) / 2
        found = refuted(em, vm, boxes)
        if found is not None:
            return found
        if (b - a) / (e1 - e0 or 1) >= (d - c) / (v_hi - v_lo):
            stack += [(em, b, c, d), (a, em, c, d)]
        else:
            stack += [(a, b, vm, d), (a, b, c, vm)]
    return Finding(
        Verdict.CERTIFIED,
        method,
        reason=f"{boxes} boxes cover eps in [{claim.eps_min}, {claim.eps_max}], "
        f"ln(1/delta) in [{float(v_lo):.6g}, {float(v_hi):.6g}]",
        steps=(*deriv.steps, f"{boxes} boxes"),
    )


def _nudge(v: Fraction, lo: Fraction, hi: Fraction, j: int) -> Fraction:
    """The grid's edge values of ln(1/delta) moved two units of 2**-20 inward, into the
    claimed range (the bounds were widened outward by one unit, so the edges themselves lie
    outside it and are never a witness)."""
    if j == 0:
        return min(lo + Fraction(2, 2**20), hi)
    if j == _GRID:
        return max(hi - Fraction(2, 2**20), lo)
    return v


def _check_calibration_minimal(claim) -> Finding:
    d = to_ball(check_delta(claim.delta))
    sig, tol = claim.sigma, claim.tolerance
    at = gaussian_delta(claim.epsilon, sig, claim.sensitivity)
    if known(sp.sympify(sig - tol), "positive"):
        below = gaussian_delta(claim.epsilon, sig - tol, claim.sensitivity)
    else:  # no positive sigma below: sigma is within tol of the smallest if it is valid
        below = arb(1)
    text = f"delta(sigma) in {show_ball(at)}, delta(sigma - tol) in {show_ball(below)}"
    method = "arb enclosures of the Balle-Wang profile at sigma and sigma - tolerance"
    if at <= d and below > d:
        return Finding(Verdict.CERTIFIED, method, reason=text)
    if at > d or below <= d:
        which = "sigma is not private enough" if at > d else "a smaller sigma also works"
        # shown as "larger > smaller": delta(sigma) > delta, or delta >= delta(sigma - tol)
        larger, smaller = (
            (f"delta(sigma) in {show_ball(at)}", f"delta = {claim.delta}")
            if at > d
            else (f"delta = {claim.delta}", f"delta(sigma - tol) in {show_ball(below)}")
        )
        cex = Counterexample(
            {"epsilon": str(claim.epsilon), "delta": str(claim.delta)},
            (f"sigma = {sig}", f"sigma - tol = {sig - tol}"),
            "S = {y > c*}",
            larger,
            smaller,
            "arb interval arithmetic",
            note=which,
        )
        return Finding(Verdict.REFUTED, method, reason=text, counterexample=cex)
    return Finding(Verdict.UNKNOWN, method, reason=text)


_CHECKS = {
    GaussianCalibration: _check_gaussian_calibration,
    GaussianCalibrationRegion: _check_gaussian_calibration_region,
    CalibrationMinimal: _check_calibration_minimal,
}


def supports(claim) -> bool:
    return type(claim) in _CHECKS


def check(claim) -> Finding:
    return _CHECKS[type(claim)](claim)
