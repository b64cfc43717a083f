"""Approximate (eps, delta)-DP: exact privacy profiles, the Gaussian mechanism and its calibration.

The privacy profile of a mechanism M on a neighbouring pair (x, x') is

    delta(eps) = sup_S P[M(x) in S] - e^eps P[M(x') in S] = integral of (p - e^eps q)_+ ,

attained at S* = {y : p(y) > e^eps q(y)} (Balle, Barthe, Gaboardi 2018, Thm 1;
Balle and Wang 2018, Thm 5). M is (eps, delta)-DP iff delta(eps) <= delta on every ordered pair.

- Gaussian N(f(x), sigma^2) with |f(x) - f(x')| <= Delta: the log-ratio is increasing in y, so
  S* is a half-line y > c*, and SymPy derives from the integral the analytic formula of Balle and
  Wang (2018, Thm 8):
      delta(eps) = Phi(Delta/(2 sigma) - eps sigma/Delta)
                   - e^eps Phi(-Delta/(2 sigma) - eps sigma/Delta).
  The derivation is checked symbolically (:func:`gaussian_profile_derivation`); values are then
  enclosed with arb (python-flint) balls, including over whole intervals of eps, which turns a
  branch-and-bound over eps into a proof for every eps in the interval.
- Laplace Lap(f(x), b): delta(eps) = max(0, 1 - exp((eps - Delta/b)/2)), derived the same way.
- Finite mechanisms: delta(eps) = max over ordered pairs of sum_y (p_y - e^eps q_y)_+, exact.

The classical calibration sigma >= sqrt(2 ln(1.25/delta)) Delta/eps (Dwork and Roth 2014,
Thm A.1) is checked over whole ranges of eps by :class:`GaussianCalibration`;
:func:`calibrate_gaussian` returns the smallest sigma for (eps, delta) with a certificate.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

import sympy as sp
from flint import arb, ctx

from proofs.errors import InputError
from proofs.decide import compare
from proofs.expr import by_name, rationalize
from proofs.numeric import (
    PRECISION, as_fraction, ball_of, compile_ball, precision, show_ball, to_ball,
)
from proofs.finite import finite_delta
from proofs.mechanisms import FiniteMechanism, Gaussian, Laplace, as_expr, sym
from proofs.results import Counterexample, ProofResult, Verdict

__all__ = [
    "ApproxDP", "CalibrationMinimal", "GaussianCalibration", "GaussianCalibrationRegion",
    "PrivacyProfile",
    "balle_wang_formula", "laplace_formula", "notes_sigma", "GaussianCalibrationResult",
    "ProfileDerivation",
    "calibrate_gaussian", "gaussian_delta", "gaussian_epsilon", "gaussian_profile_derivation",
    "laplace_delta", "laplace_profile_derivation", "finite_delta", "classical_sigma",
]

EPSILON, DELTA, SENSITIVITY = sym("epsilon"), sym("delta"), sym("Delta")
_y = sp.Symbol("y", real=True)
_c = sp.Symbol("c", real=True)
_PREC = PRECISION


_MAX_BOXES = 4000


# --- shared helpers (also used by composition, group, postprocessing, estimators) ----------------


def make_result(meta: dict, default_statement: str, verdict: Verdict, method: str,
                start: float, **extra) -> ProofResult:
    """A ProofResult carrying the theorem's id/source/expect/statement."""
    return ProofResult(id=meta.get("id") or "claim",
                       statement=meta.get("statement") or default_statement,
                       source=meta.get("source", ""), expect=meta.get("expect", "holds"),
                       verdict=verdict, method=method, seconds=time.perf_counter() - start,
                       **extra)


def _expr(v: Any, name: str) -> sp.Expr:
    if isinstance(v, Fraction):
        return sp.Rational(v.numerator, v.denominator)
    return as_expr(v, name)


def exact(v: Any, name: str = "value") -> sp.Expr:
    """A SymPy number without float noise: Rationals pass through (fast), floats become the
    rational they print as, other expressions are kept."""
    if isinstance(v, sp.Rational):
        return v
    e = _expr(v, name)
    if e.is_Rational:
        return e
    return rationalize(e)


def check_delta(delta: Any, name: str = "delta") -> sp.Expr:
    """A numeric delta in [0, 1), as an exact SymPy number."""
    d = _expr(delta, name)
    if d.free_symbols or not d.is_real or not (0 <= float(d) < 1):
        raise InputError(f"{name}={delta!r} must be a number in [0, 1); use {name}=0 for pure DP.")
    return d


def check_eps_value(eps: Any, name: str = "epsilon") -> sp.Expr:
    """A numeric epsilon >= 0, as an exact SymPy number."""
    e = _expr(eps, name)
    if e.free_symbols or not e.is_real or float(e) < 0:
        raise InputError(f"{name}={eps!r} must be a non-negative number; e.g. {name}=1.")
    return e


def phi(x: sp.Expr) -> sp.Expr:
    """Standard normal CDF, Phi(x) = erfc(-x/sqrt(2))/2."""
    return sp.erfc(-x / sp.sqrt(2)) / 2


# --- derivations ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ProfileDerivation:
    """A privacy profile derived with SymPy: `delta` (an expression in epsilon and the
    mechanism's parameters), whether it matched the published formula, and the steps."""

    mechanism: str
    delta: sp.Expr | None
    matches_published: bool
    steps: tuple[str, ...]
    reason: str = ""


def _gauss_pdf(center, y) -> sp.Expr:
    return Gaussian(sym("sigma"), SENSITIVITY).pdf(center, y)


@lru_cache(maxsize=1)
def gaussian_profile_derivation() -> ProfileDerivation:
    """Derive delta(eps) of the Gaussian mechanism from the integral of (p - e^eps q)_+.

    p = N(Delta, sigma^2) density (x), q = N(0, sigma^2) density (x'). Steps: the log-ratio
    L(y) = Delta (2y - Delta)/(2 sigma^2) has dL/dy = Delta/sigma^2 > 0, so {p > e^eps q} is the
    half-line y > c* with L(c*) = eps; P_p[Y > c] = P_q[Y > c - Delta] (p(y) = q(y - Delta));
    delta = P_p[Y > c*] - e^eps P_q[Y > c*]; compare with Balle and Wang (2018, Thm 8).
    The reverse pair (x', x) has the same profile: p(Delta - y) = q(y).
    """
    s, D, e = sym("sigma"), SENSITIVITY, EPSILON
    steps = []
    try:
        p, q = _gauss_pdf(D, _y), _gauss_pdf(0, _y)
        loss = sp.simplify(sp.expand_log(sp.log(p / q), force=True))
        steps.append(f"log-ratio L(y) = {loss}")
        slope = sp.simplify(sp.diff(loss, _y))
        if slope.is_positive is not True:
            return ProfileDerivation("Gaussian", None, False, tuple(steps), f"dL/dy = {slope}")
        steps.append(f"dL/dy = {slope} > 0: the optimal event is a half-line y > c*")
        roots = sp.solve(sp.Eq(loss, e), _y)
        if len(roots) != 1:
            return ProfileDerivation("Gaussian", None, False, tuple(steps), f"roots {roots}")
        cstar = roots[0]
        steps.append(f"c* = {cstar}")
        if sp.simplify(p - q.subs(_y, _y - D)) != 0 or sp.simplify(
                p.subs(_y, D - _y) - q) != 0:
            return ProfileDerivation("Gaussian", None, False, tuple(steps), "shift/symmetry")
        tail_q = sp.integrate(q, (_y, _c, sp.oo), conds="none")
        steps.append(f"P_q[Y > c] = integral_c^oo q = {tail_q}")
        delta = tail_q.subs(_c, cstar - D) - sp.exp(e) * tail_q.subs(_c, cstar)
        published = phi(D / (2 * s) - e * s / D) - sp.exp(e) * phi(-D / (2 * s) - e * s / D)
        same = sp.simplify(sp.expand(delta - published)) == 0
        steps.append("equals Balle-Wang Thm 8: " + ("yes (SymPy simplifies the difference "
                                                    "to 0)" if same else "not shown"))
        return ProfileDerivation("Gaussian", sp.simplify(delta), bool(same), tuple(steps))
    except (NotImplementedError, ValueError, TypeError) as exc:  # pragma: no cover
        return ProfileDerivation("Gaussian", None, False, tuple(steps), f"SymPy: {exc}")


@lru_cache(maxsize=1)
def laplace_profile_derivation() -> ProfileDerivation:
    """Derive delta(eps) of Lap(Delta, b) versus Lap(0, b) for 0 <= eps < Delta/b.

    L(y) = (|y| - |y - Delta|)/b is -Delta/b for y <= 0, (2y - Delta)/b on [0, Delta] and
    Delta/b for y >= Delta; for eps < Delta/b the optimal event is y > c* = (Delta + eps b)/2.
    The integral over (c*, Delta) and (Delta, oo) simplifies to 1 - exp((eps - Delta/b)/2);
    for eps >= Delta/b, p <= e^eps q everywhere and delta = 0.
    """
    b, D, e = sym("b"), SENSITIVITY, EPSILON
    lap = Laplace(b, D)
    steps = []
    try:
        middle = sp.simplify(sp.expand_log(sp.log(
            lap.pdf(D, _y).subs(sp.Abs(_y - D), D - _y).subs(sp.Abs(_y), _y)
            / lap.pdf(0, _y).subs(sp.Abs(_y), _y)), force=True))
        steps.append(f"on 0 <= y <= Delta: L(y) = {middle}")
        cstar = sp.solve(sp.Eq(middle, e), _y)[0]
        steps.append(f"c* = {cstar} (in (0, Delta) when eps < Delta/b)")
        gap = lambda lo, hi, left, right: sp.integrate(  # noqa: E731
            sp.exp(-left / b) / (2 * b) - sp.exp(e) * sp.exp(-right / b) / (2 * b),
            (_y, lo, hi), conds="none")
        delta = gap(cstar, D, D - _y, _y) + gap(D, sp.oo, _y - D, _y)
        published = 1 - sp.exp((e - D / b) / 2)
        same = sp.simplify(sp.expand(sp.powsimp(sp.expand(delta - published)))) == 0
        steps.append("integral of (p - e^eps q) over y > c* simplifies to 1 - exp((eps - "
                     "Delta/b)/2): " + ("yes" if same else "not shown"))
        return ProfileDerivation("Laplace", sp.simplify(delta), bool(same), tuple(steps))
    except (NotImplementedError, ValueError, TypeError, IndexError) as exc:  # pragma: no cover
        return ProfileDerivation("Laplace", None, False, tuple(steps), f"SymPy: {exc}")


def balle_wang_formula() -> sp.Expr:
    """Phi(Delta/(2 sigma) - eps sigma/Delta) - e^eps Phi(-Delta/(2 sigma) - eps sigma/Delta)."""
    s, D, e = sym("sigma"), SENSITIVITY, EPSILON
    return phi(D / (2 * s) - e * s / D) - sp.exp(e) * phi(-D / (2 * s) - e * s / D)


def laplace_formula() -> sp.Expr:
    """1 - exp((eps - Delta/b)/2), valid for 0 <= eps < Delta/b."""
    return 1 - sp.exp((EPSILON - SENSITIVITY / sym("b")) / 2)


_PROFILE_POINTS = {
    "gaussian": [{sym("sigma"): s, SENSITIVITY: d, EPSILON: e}
                 for s in (sp.Rational(1, 2), 1, 3) for d in (1, 2)
                 for e in (sp.Rational(1, 10), sp.Rational(1, 2), 1, 2)],
    "laplace": [{sym("b"): b, SENSITIVITY: d, EPSILON: e}
                for b in (sp.Rational(1, 2), 1) for d in (1, 2)
                for e in (0, sp.Rational(1, 10), sp.Rational(1, 2), 1) if e < d / b],
}


@dataclass(frozen=True, slots=True)
class PrivacyProfile:
    """Claim: the exact privacy profile delta(eps) = integral of (p - e^eps q)_+ of the named
    mechanism ('gaussian': N(Delta, sigma^2) vs N(0, sigma^2); 'laplace': Lap(Delta, b) vs
    Lap(0, b), for eps < Delta/b) equals `formula`, an expression in epsilon, sigma or b, Delta.
    Default formulas: Balle and Wang (2018, Thm 8); 1 - exp((eps - Delta/b)/2)."""

    mechanism: str = "gaussian"
    formula: Any = None

    def __post_init__(self):
        if self.mechanism not in _PROFILE_POINTS:
            raise InputError(f"mechanism={self.mechanism!r}; use 'gaussian' or 'laplace'.")

    def _formula(self) -> sp.Expr:
        if self.formula is not None:
            names = {"epsilon": EPSILON, "sigma": sym("sigma"), "Delta": SENSITIVITY,
                     "b": sym("b")}
            return by_name(as_expr(self.formula, "formula", names), names)
        return balle_wang_formula() if self.mechanism == "gaussian" else laplace_formula()

    def statement(self) -> str:
        return f"the {self.mechanism} privacy profile is delta(eps) = {self._formula()}"

    def check(self, *, id: str = "", source: str = "", expect: str = "holds",
              statement: str | None = None) -> ProofResult:
        start = time.perf_counter()
        meta = dict(id=id, source=source, expect=expect, statement=statement)
        deriv = (gaussian_profile_derivation() if self.mechanism == "gaussian"
                 else laplace_profile_derivation())
        if deriv.delta is None:
            return make_result(meta, self.statement(), Verdict.UNKNOWN, "SymPy derivation",
                               start, reason=deriv.reason, steps=deriv.steps)
        formula = self._formula()
        method = "SymPy: integral of (p - e^eps q)_+ derived, difference simplified"
        if sp.simplify(sp.expand(deriv.delta - formula)) == 0:
            return make_result(meta, self.statement(), Verdict.PROVED, method, start,
                               steps=deriv.steps)
        old = ctx.prec
        ctx.prec = _PREC
        try:
            for values in _PROFILE_POINTS[self.mechanism]:
                try:
                    diff = to_ball(deriv.delta.subs(values)) - to_ball(formula.subs(values))
                except (ValueError, ZeroDivisionError):
                    continue
                if diff > 0 or diff < 0:
                    cex = Counterexample(
                        {str(k): str(v) for k, v in values.items()}, ("f(x) = Delta", "f(x') = 0"),
                        "S* = {p > e^eps q}",
                        f"|derived - claimed| in {show_ball(abs(diff))}", "0",
                        "arb interval arithmetic")
                    return make_result(meta, self.statement(), Verdict.REFUTED,
                                       "derived profile compared with arb", start,
                                       counterexample=cex, steps=deriv.steps)
        finally:
            ctx.prec = old
        return make_result(meta, self.statement(), Verdict.UNKNOWN, method, start,
                           reason="difference not simplified to 0, no point separates them",
                           steps=deriv.steps)


# --- certified evaluation ------------------------------------------------------------------------


def _gauss_delta_ball(eps: arb, mu: arb) -> arb:
    """Balle-Wang delta(eps) with mu = Delta/sigma, as an arb ball (valid over balls)."""
    r2 = arb(2).sqrt()
    a, b = mu / 2 - eps / mu, -mu / 2 - eps / mu
    return (-a / r2).erfc() / 2 - eps.exp() * (-b / r2).erfc() / 2


def gaussian_delta(epsilon: Any, sigma: Any, sensitivity: Any = 1, prec: int = _PREC) -> arb:
    """Certified enclosure (arb ball) of the Gaussian mechanism's delta(eps) (Balle-Wang Thm 8)."""
    e, s, d = (check_eps_value(epsilon), _positive(sigma, "sigma"),
               _positive(sensitivity, "sensitivity"))
    with precision(prec):
        return _gauss_delta_ball(to_ball(e), to_ball(d) / to_ball(s))


def gaussian_epsilon(sigma: Any, delta: Any, sensitivity: Any = 1, tol: float = 1e-9) -> tuple:
    """The exact epsilon of N(0, sigma^2) noise at `delta`, enclosed: (lo, hi) floats with
    delta(lo) > delta >= delta(hi) certified by arb (delta(eps) is decreasing in eps)."""
    dl = check_delta(delta)
    if dl == 0:
        raise InputError("delta=0: the Gaussian mechanism has no finite epsilon at delta=0; "
                         "give delta > 0.")
    target = to_ball(dl)
    lo, hi = Fraction(0), Fraction(1)
    while not (gaussian_delta(hi, sigma, sensitivity) <= target):
        lo, hi = hi, hi * 2
        if hi > 10**6:
            raise InputError(f"sigma={sigma!r} is too small for delta={delta!r}; "
                             "give a larger sigma.")
    if gaussian_delta(0, sigma, sensitivity) <= target:
        return 0.0, 0.0
    while hi - lo > Fraction(tol):
        mid = (lo + hi) / 2
        if gaussian_delta(mid, sigma, sensitivity) <= target:
            hi = mid
        elif gaussian_delta(mid, sigma, sensitivity) > target:
            lo = mid
        else:
            break
    return float(lo), float(hi)


def laplace_delta(epsilon: Any, scale: Any, sensitivity: Any = 1) -> sp.Expr:
    """Exact delta(eps) = max(0, 1 - exp((eps - Delta/b)/2)) of the Laplace mechanism."""
    e, b, d = (check_eps_value(epsilon), _positive(scale, "scale"),
               _positive(sensitivity, "sensitivity"))
    if compare(d / b, e)[0] in ("exact", "certified"):
        return sp.Integer(0)
    return 1 - sp.exp((e - d / b) / 2)


def _positive(v: Any, name: str) -> sp.Expr:
    e = _expr(v, name)
    if e.free_symbols or not e.is_real or float(e) <= 0:
        raise InputError(f"{name}={v!r} must be a positive number; give e.g. {name}=1.")
    return e


# --- the ApproxDP claim --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ApproxDP:
    """Claim: `mechanism` is (epsilon, delta)-DP, i.e. its exact privacy profile at epsilon is
    at most delta on every ordered neighbouring pair.

    Supported descriptions with numeric parameters: :class:`proofs.Gaussian` (Balle-Wang
    profile, arb), :class:`proofs.Laplace` (closed form, arb) and :class:`proofs.FiniteMechanism`
    (exact sum). Anything else, or symbolic parameters, gives ``unknown``.
    """

    mechanism: Any
    epsilon: Any
    delta: Any

    def __post_init__(self):
        object.__setattr__(self, "epsilon", check_eps_value(self.epsilon))
        object.__setattr__(self, "delta", check_delta(self.delta))

    def statement(self) -> str:
        return f"{_describe(self.mechanism)} is ({self.epsilon}, {self.delta})-DP"

    def check(self, *, id: str = "", source: str = "", expect: str = "holds",
              statement: str | None = None) -> ProofResult:
        start = time.perf_counter()
        meta = dict(id=id, source=source, expect=expect, statement=statement)
        mech = self.mechanism
        try:
            if isinstance(mech, Gaussian):
                return _approx_gaussian(self, meta, start)
            if isinstance(mech, Laplace):
                return _approx_laplace(self, meta, start)
            if isinstance(mech, FiniteMechanism):
                return _approx_finite(self, meta, start)
        except ValueError as exc:
            if not isinstance(exc, InputError):
                return make_result(meta, self.statement(), Verdict.UNKNOWN, "none", start,
                                   reason=f"cannot decide with arb: {exc}")
            if any(getattr(mech, f).free_symbols for f in getattr(mech, "__dataclass_fields__", ())
                   if isinstance(getattr(mech, f), sp.Basic)):
                return make_result(meta, self.statement(), Verdict.UNKNOWN, "none", start,
                                   reason=f"symbolic parameters are not supported here: {exc}")
            raise
        return make_result(meta, self.statement(), Verdict.UNKNOWN, "none", start,
                           reason=f"no privacy profile for {type(mech).__name__}; use Gaussian, "
                                  "Laplace or FiniteMechanism")


def _interval_verdict(claim: ApproxDP, ball: arb, meta: dict, start: float, method: str,
                      event: str, inputs: tuple, params: dict, steps=(),
                      value: sp.Expr | None = None) -> ProofResult:
    """Compare the exact delta (`value`, when known in closed form, and its enclosure `ball`)
    with the claim: ``proved`` when exact algebra decides it (equality cases included),
    ``certified`` by arb, ``refuted`` with the optimal event."""
    target = to_ball(claim.delta)
    text = f"delta({claim.epsilon}) in {show_ball(ball)}"
    status = "certified" if ball <= target else "violated" if ball > target else "unknown"
    if value is not None and status != "violated":
        status, how = compare(value, claim.delta)  # exact algebra, or arb up to 1024 bits
        if status == "exact":
            return make_result(meta, claim.statement(), Verdict.PROVED, f"{method}; {how}",
                               start, reason=f"delta({claim.epsilon}) = {value} <= "
                                             f"{claim.delta}", steps=tuple(steps))
    if status == "certified":
        return make_result(meta, claim.statement(), Verdict.CERTIFIED, method, start,
                           reason=text, steps=tuple(steps))
    if status == "violated":
        cex = Counterexample(params, inputs, event,
                             f"P[M(x) in S] - e^eps P[M(x') in S] in {show_ball(ball)}",
                             f"delta = {claim.delta}", "arb interval arithmetic")
        return make_result(meta, claim.statement(), Verdict.REFUTED, method, start,
                           reason=text, counterexample=cex, steps=tuple(steps))
    return make_result(meta, claim.statement(), Verdict.UNKNOWN, method, start,
                       reason=f"{text} cannot be separated from delta={claim.delta}")


def _approx_gaussian(claim: ApproxDP, meta: dict, start: float) -> ProofResult:
    g = claim.mechanism
    deriv = gaussian_profile_derivation()
    if not deriv.matches_published:
        return make_result(meta, claim.statement(), Verdict.UNKNOWN, "SymPy derivation", start,
                           reason=f"profile not derived: {deriv.reason}", steps=deriv.steps)
    ball = gaussian_delta(claim.epsilon, g.sigma, g.sensitivity)
    cstar = g.sensitivity / 2 + claim.epsilon * g.sigma**2 / g.sensitivity
    value = deriv.delta.subs({sym("sigma"): g.sigma, SENSITIVITY: g.sensitivity,
                              EPSILON: claim.epsilon})
    return _interval_verdict(
        claim, ball, meta, start, "Balle-Wang profile derived with SymPy, enclosed with arb",
        f"S = {{y > {_fmt(cstar)}}}", ("f(x) = Delta", "f(x') = 0"),
        {"sigma": str(g.sigma), "Delta": str(g.sensitivity), "epsilon": str(claim.epsilon)},
        deriv.steps, value)


def _approx_laplace(claim: ApproxDP, meta: dict, start: float) -> ProofResult:
    lap = claim.mechanism
    deriv = laplace_profile_derivation()
    if not deriv.matches_published:
        return make_result(meta, claim.statement(), Verdict.UNKNOWN, "SymPy derivation", start,
                           reason=f"profile not derived: {deriv.reason}", steps=deriv.steps)
    value = laplace_delta(claim.epsilon, lap.scale, lap.sensitivity)
    with precision():
        ball = to_ball(value)
    cstar = (lap.sensitivity + claim.epsilon * lap.scale) / 2
    return _interval_verdict(
        claim, ball, meta, start, "Laplace profile derived with SymPy, enclosed with arb",
        f"S = {{y > {_fmt(cstar)}}}", ("f(x) = Delta", "f(x') = 0"),
        {"b": str(lap.scale), "Delta": str(lap.sensitivity), "epsilon": str(claim.epsilon)},
        deriv.steps, value)


def _approx_finite(claim: ApproxDP, meta: dict, start: float) -> ProofResult:
    value, (x, xp, event) = finite_delta(claim.mechanism, claim.epsilon)
    if value.is_Rational and claim.delta.is_Rational:
        if value <= claim.delta:
            return make_result(meta, claim.statement(), Verdict.PROVED, "exact rational sum",
                               start, reason=f"max delta({claim.epsilon}) = {value}")
        cex = Counterexample({"epsilon": str(claim.epsilon)}, (x, xp), set(event),
                             f"P[M(x) in S] - e^eps P[M(x') in S] = {value}",
                             f"delta = {claim.delta}", "exact rational arithmetic")
        return make_result(meta, claim.statement(), Verdict.REFUTED, "exact rational sum", start,
                           counterexample=cex)
    with precision():
        ball = to_ball(value)
    return _interval_verdict(claim, ball, meta, start, "exact sum enclosed with arb",
                             str(set(event)), (x, xp), {"epsilon": str(claim.epsilon)},
                             value=value)


def _describe(mech) -> str:
    if isinstance(mech, FiniteMechanism):
        return f"FiniteMechanism({mech.name!r})"
    fields = getattr(mech, "__dataclass_fields__", {})
    return f"{type(mech).__name__}(" + ", ".join(f"{k}={getattr(mech, k)}" for k in fields) + ")"


def _fmt(v: sp.Expr) -> str:
    v = rationalize(v)
    return str(v) if v.is_Rational else f"{float(v):.6g}"


# --- calibration -------------------------------------------------------------------------------


def _sigma_expr(sigma) -> sp.Expr:
    """A calibration sigma in epsilon, delta and Delta (matched by name; default: classical)."""
    if sigma is None:
        return classical_sigma()
    names = {"epsilon": EPSILON, "delta": DELTA, "Delta": SENSITIVITY}
    return by_name(as_expr(sigma, "sigma", names), names)


def classical_sigma(epsilon=EPSILON, delta=DELTA, sensitivity=SENSITIVITY) -> sp.Expr:
    """sigma = sqrt(2 ln(1.25/delta)) Delta/eps (Dwork and Roth 2014, Thm A.1)."""
    return sp.sqrt(2 * sp.log(sp.Rational(5, 4) / delta)) * sensitivity / epsilon


def notes_sigma(epsilon=EPSILON, delta=DELTA, sensitivity=SENSITIVITY) -> sp.Expr:
    """sigma = (2 Delta/eps) ln(1.25/delta), as written in notes 004 (Def. Gaussian mechanism)."""
    return 2 * sensitivity / epsilon * sp.log(sp.Rational(5, 4) / delta)


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


@dataclass(frozen=True, slots=True)
class GaussianCalibration:
    """Claim: for every eps in [eps_min, eps_max], N(0, sigma(eps, delta)^2) noise on a query of
    L2 sensitivity Delta is (eps, delta)-DP, at the stated numeric `delta`.

    `sigma` is an expression in the symbols EPSILON, DELTA and SENSITIVITY (Delta); the
    Gaussian profile depends on sigma/Delta only, so sigma must be proportional to Delta.
    The check encloses the Balle-Wang delta(eps) over boxes of eps with arb (branch and bound):
    ``certified`` when the boxes cover the range; ``refuted`` with the first failing eps located
    by certified bisection. Default sigma: the classical calibration (Dwork and Roth 2014, Thm A.1).
    """

    delta: Any
    eps_min: Any = 0
    eps_max: Any = 1
    sigma: Any = None

    def __post_init__(self):
        object.__setattr__(self, "delta", check_delta(self.delta))
        if self.delta == 0:
            raise InputError("delta=0: Gaussian noise is never (eps, 0)-DP; give delta > 0.")
        lo, hi = check_eps_value(self.eps_min, "eps_min"), check_eps_value(self.eps_max, "eps_max")
        if not hi > lo:
            raise InputError(f"eps_max={self.eps_max!r} must exceed eps_min={self.eps_min!r}.")
        object.__setattr__(self, "eps_min", lo)
        object.__setattr__(self, "eps_max", hi)
        object.__setattr__(self, "sigma", _sigma_expr(self.sigma))

    def statement(self) -> str:
        return (f"sigma = {self.sigma} gives (eps, {self.delta})-DP for every eps in "
                f"[{self.eps_min}, {self.eps_max}]")

    def _loss_terms(self):
        sig = self.sigma.subs(DELTA, self.delta)
        # cancel, not simplify: simplify's logcombine can raise big rationals to huge powers
        mu = sp.cancel(SENSITIVITY / sig)
        if mu.free_symbols - {EPSILON} or sig.is_positive is not True:
            return None
        return mu / 2 - EPSILON / mu, -mu / 2 - EPSILON / mu

    def check(self, *, id: str = "", source: str = "", expect: str = "holds",
              statement: str | None = None) -> ProofResult:
        start = time.perf_counter()
        meta = dict(id=id, source=source, expect=expect, statement=statement)
        terms = self._loss_terms()
        deriv = gaussian_profile_derivation()
        if terms is None or not deriv.matches_published:
            why = ("sigma must be positive (SymPy must see it) and sigma/Delta must depend on "
                   "epsilon only" if terms is None
                   else f"profile not derived: {deriv.reason}")
            return make_result(meta, self.statement(), Verdict.UNKNOWN, "none", start, reason=why)
        a, b = terms
        r2 = sp.sqrt(2)
        expr = sp.erfc(-a / r2) / 2 - sp.exp(EPSILON) * sp.erfc(-b / r2) / 2
        with precision():
            return self._decide(expr, meta, start, deriv)

    def _decide(self, expr, meta, start, deriv) -> ProofResult:
        try:
            g = compile_ball(expr, (EPSILON,))
        except ValueError as exc:
            return make_result(meta, self.statement(), Verdict.UNKNOWN, "none", start,
                               reason=str(exc))

        def f(ball):
            try:
                return g(ball)
            except (ValueError, ZeroDivisionError):
                return arb(0, 10**9)
        bound = to_ball(self.delta)
        lo, hi = as_fraction(self.eps_min), as_fraction(self.eps_max, "up")
        cover = _cover(f, lo, hi, bound)
        method = "branch and bound over eps with arb balls (Balle-Wang profile derived with SymPy)"
        steps = (*deriv.steps, f"{cover.boxes} boxes")
        if cover.status == "ok":
            return make_result(meta, self.statement(), Verdict.CERTIFIED, method, start,
                               reason=f"delta(eps) <= {self.delta} on every box covering "
                                      f"[{self.eps_min}, {self.eps_max}]", steps=steps)
        if cover.status == "unknown":
            return make_result(meta, self.statement(), Verdict.UNKNOWN, method, start,
                               reason=f"cover incomplete: certified up to eps = "
                                      f"{float(cover.certified_up_to):.6g}", steps=steps)
        done, bad = _first_failure(f, cover.certified_up_to, cover.point, bound,
                                   Fraction(1, 10**6))
        value = f(ball_of(bad))
        sig = self.sigma.subs({DELTA: self.delta, EPSILON: sp.Rational(bad.numerator,
                                                                        bad.denominator)})
        cex = Counterexample(
            {"epsilon": f"{bad} (~{float(bad):.7g})", "delta": str(self.delta),
             "sigma/Delta": f"{float(sig.subs(SENSITIVITY, 1)):.7g}"},
            ("f(x) = Delta", "f(x') = 0"), "S = {y > c*}",
            f"delta(eps) in {show_ball(value)}", f"delta = {self.delta}",
            "arb interval arithmetic",
            note=f"first failing eps is in ({float(done):.7g}, {float(bad):.7g}]"
                 + (f": certified for every eps in [{self.eps_min}, {float(done):.7g}]"
                    if done > lo else ""))
        return make_result(meta, self.statement(), Verdict.REFUTED, method, start,
                           counterexample=cex, steps=steps,
                           reason=f"first failing eps in ({float(done):.7g}, {float(bad):.7g}]")


_V = sp.Symbol("v", positive=True)  # delta = exp(-v)


@dataclass(frozen=True, slots=True)
class GaussianCalibrationRegion:
    """Claim: for every eps in [eps_min, eps_max] and every delta in [delta_min, delta_max],
    N(0, sigma(eps, delta)^2) noise is (eps, delta)-DP (default sigma: the classical
    calibration of Dwork and Roth 2014, Thm A.1).

    Checked by a two-dimensional branch and bound with arb balls over boxes of eps and
    v = ln(1/delta): on each box the enclosure of delta(eps; sigma) - delta must be <= 0.
    ``certified`` when the boxes cover the region; ``refuted`` when the centre of a box
    certainly violates it; ``unknown`` when the box budget runs out."""

    delta_min: Any
    delta_max: Any
    eps_min: Any = 0
    eps_max: Any = 1
    sigma: Any = None
    max_boxes: int = 20000

    def __post_init__(self):
        lo, hi = check_delta(self.delta_min, "delta_min"), check_delta(self.delta_max, "delta_max")
        if not 0 < lo < hi:
            raise InputError(f"delta_min={self.delta_min!r}, delta_max={self.delta_max!r}: need "
                             "0 < delta_min < delta_max < 1.")
        object.__setattr__(self, "delta_min", lo)
        object.__setattr__(self, "delta_max", hi)
        object.__setattr__(self, "eps_min", check_eps_value(self.eps_min, "eps_min"))
        object.__setattr__(self, "eps_max", check_eps_value(self.eps_max, "eps_max"))
        object.__setattr__(self, "sigma", _sigma_expr(self.sigma))

    def statement(self) -> str:
        return (f"sigma = {self.sigma} gives (eps, delta)-DP for every eps in [{self.eps_min}, "
                f"{self.eps_max}] and delta in [{self.delta_min}, {self.delta_max}]")

    def _gap(self):
        sig = sp.expand_log(self.sigma.subs(DELTA, sp.exp(-_V)), force=True)
        mu = sp.cancel(SENSITIVITY / sig)
        positive = sig.is_positive or sp.logcombine(sig, force=True).is_positive
        if mu.free_symbols - {EPSILON, _V} or positive is not True:
            return None
        a, b = mu / 2 - EPSILON / mu, -mu / 2 - EPSILON / mu
        r2 = sp.sqrt(2)
        return sp.erfc(-a / r2) / 2 - sp.exp(EPSILON) * sp.erfc(-b / r2) / 2 - sp.exp(-_V)

    def check(self, *, id: str = "", source: str = "", expect: str = "holds",
              statement: str | None = None) -> ProofResult:
        start = time.perf_counter()
        meta = dict(id=id, source=source, expect=expect, statement=statement)
        gap, deriv = self._gap(), gaussian_profile_derivation()
        if gap is None or not deriv.matches_published:
            return make_result(meta, self.statement(), Verdict.UNKNOWN, "none", start,
                               reason="sigma must be positive (SymPy must see it) and "
                                      "sigma/Delta must depend on epsilon and delta only"
                               if gap is None else f"profile not derived: {deriv.reason}")
        with precision():
            return self._search(gap, meta, start, deriv)

    def _search(self, gap, meta, start, deriv) -> ProofResult:
        try:
            g = compile_ball(gap, (EPSILON, _V))
        except ValueError as exc:
            return make_result(meta, self.statement(), Verdict.UNKNOWN, "none", start,
                               reason=str(exc))

        def f(e_ball, v_ball):
            try:
                return g(e_ball, v_ball)
            except (ValueError, ZeroDivisionError):
                return arb(0, 10**9)
        e0, e1 = as_fraction(self.eps_min), as_fraction(self.eps_max, "up")
        # dyadic bounds, widened by one unit so float rounding of the logs cannot shrink the region
        v_lo = max(Fraction(math.floor(-math.log(float(self.delta_max)) * 2**20) - 1, 2**20),
                   Fraction(0))
        v_hi = Fraction(math.ceil(-math.log(float(self.delta_min)) * 2**20) + 1, 2**20)
        stack, boxes = [(e0, e1, v_lo, v_hi)], 0
        method = "2-D branch and bound over (eps, ln 1/delta) with arb balls (Balle-Wang profile)"
        while stack:
            a, b, c, d = stack.pop()
            boxes += 1
            if boxes > self.max_boxes:
                return make_result(meta, self.statement(), Verdict.UNKNOWN, method, start,
                                   reason=f"box budget {self.max_boxes} exhausted")
            if f(ball_of(a, b), ball_of(c, d)) <= 0:
                continue
            em, vm = (a + b) / 2, (c + d) / 2
            centre = f(ball_of(em), ball_of(vm))
            if centre > 0:
                delta_text = f"exp(-{vm}) ~ {math.exp(-float(vm)):.6g}"
                cex = Counterexample({"epsilon": f"{em} (~{float(em):.6g})", "delta": delta_text},
                                     ("f(x) = Delta", "f(x') = 0"), "S = {y > c*}",
                                     f"delta(eps) - delta in {show_ball(centre)}", "0",
                                     "arb interval arithmetic")
                return make_result(meta, self.statement(), Verdict.REFUTED, method, start,
                                   counterexample=cex, steps=(*deriv.steps, f"{boxes} boxes"))
            if (b - a) / (e1 - e0 or 1) >= (d - c) / (v_hi - v_lo):
                stack += [(em, b, c, d), (a, em, c, d)]
            else:
                stack += [(a, b, vm, d), (a, b, c, vm)]
        return make_result(meta, self.statement(), Verdict.CERTIFIED, method, start,
                           reason=f"{boxes} boxes cover eps in [{self.eps_min}, {self.eps_max}], "
                                  f"ln(1/delta) in [{float(v_lo):.6g}, {float(v_hi):.6g}]",
                           steps=(*deriv.steps, f"{boxes} boxes"))


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
        text = (f"smallest sigma for ({self.epsilon}, {self.delta})-DP at Delta={self.sensitivity}:"
                f" {self.sigma:.9g} (within {self.step:.1g}); delta(sigma) in "
                f"[{self.delta_at_sigma[0]:.6g}, {self.delta_at_sigma[1]:.6g}], delta(sigma - "
                f"step) in [{self.delta_below[0]:.6g}, {self.delta_below[1]:.6g}]")
        if self.classical_sigma is not None:
            text += f"; classical calibration: {self.classical_sigma:.6g}"
        return text

    def to_dict(self) -> dict:
        from proofs.results import SCHEMA_VERSION

        return {"schema_version": SCHEMA_VERSION, "epsilon": self.epsilon, "delta": self.delta,
                "sensitivity": self.sensitivity, "sigma": self.sigma, "step": self.step,
                "delta_at_sigma": list(self.delta_at_sigma),
                "delta_below": list(self.delta_below), "classical_sigma": self.classical_sigma}


def calibrate_gaussian(epsilon: Any, delta: Any, sensitivity: Any = 1,
                       rel_step: float = 1e-9) -> GaussianCalibrationResult:
    """Smallest sigma with delta(epsilon; sigma) <= delta, by bisection with arb enclosures."""
    e = check_eps_value(epsilon)
    d = check_delta(delta)
    s = _positive(sensitivity, "sensitivity")
    if e == 0 or d == 0:
        raise InputError(f"epsilon={epsilon!r}, delta={delta!r}: both must be > 0 to calibrate "
                         "Gaussian noise.")
    target = to_ball(d)
    ok = lambda sig: gaussian_delta(e, sig, s) <= target  # noqa: E731
    bad = lambda sig: gaussian_delta(e, sig, s) > target  # noqa: E731
    hi = Fraction(1)
    while not ok(hi):
        hi *= 2
    lo = hi / 2
    while not bad(lo):
        lo /= 2
    step = Fraction(str(rel_step)) * hi
    while hi - lo > step:
        mid = (lo + hi) / 2
        if ok(mid):
            hi = mid
        elif bad(mid):
            lo = mid
        else:
            break
    at, below = gaussian_delta(e, hi, s), gaussian_delta(e, lo, s)
    classical = (float(classical_sigma(e, d, s)) if float(e) < 1 else None)
    return GaussianCalibrationResult(
        float(e), float(d), float(s), float(hi), float(hi - lo),
        (float(at.lower()), float(at.upper())), (float(below.lower()), float(below.upper())),
        classical)


@dataclass(frozen=True, slots=True)
class CalibrationMinimal:
    """Claim: `sigma` (a number) is within `tolerance` of the smallest sigma giving
    (epsilon, delta)-DP with sensitivity Delta: delta(eps; sigma) <= delta and
    delta(eps; sigma - tolerance) > delta, both certified with arb."""

    epsilon: Any
    delta: Any
    sigma: Any
    tolerance: Any = sp.Rational(1, 10**6)
    sensitivity: Any = 1

    def __post_init__(self):
        object.__setattr__(self, "epsilon", check_eps_value(self.epsilon))
        object.__setattr__(self, "delta", check_delta(self.delta))
        for name in ("sigma", "tolerance", "sensitivity"):
            object.__setattr__(self, name, _positive(getattr(self, name), name))

    def statement(self) -> str:
        return (f"sigma = {self.sigma} is the smallest (to {self.tolerance}) giving "
                f"({self.epsilon}, {self.delta})-DP at Delta = {self.sensitivity}")

    def check(self, *, id: str = "", source: str = "", expect: str = "holds",
              statement: str | None = None) -> ProofResult:
        start = time.perf_counter()
        meta = dict(id=id, source=source, expect=expect, statement=statement)
        d = to_ball(check_delta(self.delta))
        sig, tol = as_expr(self.sigma, "sigma"), as_expr(self.tolerance, "tolerance")
        at = gaussian_delta(self.epsilon, sig, self.sensitivity)
        if sp.sympify(sig - tol).is_positive:
            below = gaussian_delta(self.epsilon, sig - tol, self.sensitivity)
        else:  # no positive sigma below: sigma is within tol of the smallest if it is valid
            below = arb(1)
        text = f"delta(sigma) in {show_ball(at)}, delta(sigma - tol) in {show_ball(below)}"
        method = "arb enclosures of the Balle-Wang profile at sigma and sigma - tolerance"
        if at <= d and below > d:
            return make_result(meta, self.statement(), Verdict.CERTIFIED, method, start,
                               reason=text)
        if at > d or below <= d:
            which = "sigma is not private enough" if at > d else "a smaller sigma also works"
            cex = Counterexample({"epsilon": str(self.epsilon), "delta": str(self.delta)},
                                 (f"sigma = {sig}", f"sigma - tol = {sig - tol}"), "S = {y > c*}",
                                 text, f"delta = {self.delta}", "arb interval arithmetic",
                                 note=which)
            return make_result(meta, self.statement(), Verdict.REFUTED, method, start,
                               reason=text, counterexample=cex)
        return make_result(meta, self.statement(), Verdict.UNKNOWN, method, start, reason=text)
