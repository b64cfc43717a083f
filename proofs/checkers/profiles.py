"""(eps, delta)-DP at numeric values and exact privacy profiles.

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
  enclosed with arb (python-flint) balls.
- Laplace Lap(f(x), b): delta(eps) = max(0, 1 - exp((eps - Delta/b)/2)), derived the same way.
- Finite mechanisms: delta(eps) = max over ordered pairs of sum_y (p_y - e^eps q_y)_+, exact.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction
from functools import lru_cache
from typing import Any

import sympy as sp
from flint import arb, ctx

from proofs.claims import ApproxDP, PrivacyProfile
from proofs.decide import at, compare, known, simplifies_to_zero
from proofs.errors import InputError, Undecided
from proofs.expr import rationalize
from proofs.finite import finite_delta
from proofs.formulas import phi
from proofs.mechanisms import FiniteMechanism, Gaussian, GaussianVector, Laplace, sym
from proofs.mechanisms.noise import gaussian_vector_reduction
from proofs.numeric import PRECISION, precision, show_ball, tight_ball, to_ball
from proofs.results import Counterexample, Finding, Verdict
from proofs.symbols import EPSILON, SENSITIVITY
from proofs.validate import (
    check_delta,
    check_description,
    check_eps_value,
    positive_number,
    real_value,
)

__all__ = [
    "ProfileDerivation",
    "check",
    "gaussian_delta",
    "gaussian_epsilon",
    "gaussian_profile_derivation",
    "laplace_delta",
    "laplace_profile_derivation",
    "supports",
]


_y = sp.Dummy("y", real=True)


_c = sp.Dummy("c", real=True)


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
        if not known(slope, "positive"):
            return ProfileDerivation("Gaussian", None, False, tuple(steps), f"dL/dy = {slope}")
        steps.append(f"dL/dy = {slope} > 0: the optimal event is a half-line y > c*")
        roots = sp.solve(sp.Eq(loss, e), _y)
        if len(roots) != 1:
            return ProfileDerivation("Gaussian", None, False, tuple(steps), f"roots {roots}")
        cstar = roots[0]
        steps.append(f"c* = {cstar}")
        if sp.simplify(p - q.subs(_y, _y - D)) != 0 or sp.simplify(p.subs(_y, D - _y) - q) != 0:
            return ProfileDerivation("Gaussian", None, False, tuple(steps), "shift/symmetry")
        tail_q = sp.integrate(q, (_y, _c, sp.oo), conds="none")
        steps.append(f"P_q[Y > c] = integral_c^oo q = {tail_q}")
        delta = tail_q.subs(_c, cstar - D) - sp.exp(e) * tail_q.subs(_c, cstar)
        published = phi(D / (2 * s) - e * s / D) - sp.exp(e) * phi(-D / (2 * s) - e * s / D)
        same = simplifies_to_zero(sp.expand(delta - published))
        steps.append(
            "equals Balle-Wang Thm 8: "
            + ("yes (SymPy simplifies the difference to 0)" if same else "not shown")
        )
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
        middle = sp.simplify(
            sp.expand_log(
                sp.log(
                    lap.pdf(D, _y).subs(sp.Abs(_y - D), D - _y).subs(sp.Abs(_y), _y)
                    / lap.pdf(0, _y).subs(sp.Abs(_y), _y)
                ),
                force=True,
            )
        )
        steps.append(f"on 0 <= y <= Delta: L(y) = {middle}")
        cstar = sp.solve(sp.Eq(middle, e), _y)[0]
        steps.append(f"c* = {cstar} (in (0, Delta) when eps < Delta/b)")
        gap = lambda lo, hi, left, right: sp.integrate(
            sp.exp(-left / b) / (2 * b) - sp.exp(e) * sp.exp(-right / b) / (2 * b),
            (_y, lo, hi),
            conds="none",
        )
        delta = gap(cstar, D, D - _y, _y) + gap(D, sp.oo, _y - D, _y)
        published = 1 - sp.exp((e - D / b) / 2)
        same = simplifies_to_zero(sp.expand(sp.powsimp(sp.expand(delta - published))))
        steps.append(
            "integral of (p - e^eps q) over y > c* simplifies to 1 - exp((eps - "
            "Delta/b)/2): " + ("yes" if same else "not shown")
        )
        return ProfileDerivation("Laplace", sp.simplify(delta), bool(same), tuple(steps))
    except (NotImplementedError, ValueError, TypeError, IndexError) as exc:  # pragma: no cover
        return ProfileDerivation("Laplace", None, False, tuple(steps), f"SymPy: {exc}")


_PROFILE_POINTS = {
    "gaussian": [
        {sym("sigma"): s, SENSITIVITY: d, EPSILON: e}
        for s in (sp.Rational(1, 2), 1, 3)
        for d in (1, 2)
        for e in (sp.Rational(1, 10), sp.Rational(1, 2), 1, 2)
    ],
    "laplace": [
        {sym("b"): b, SENSITIVITY: d, EPSILON: e}
        for b in (sp.Rational(1, 2), 1)
        for d in (1, 2)
        for e in (0, sp.Rational(1, 10), sp.Rational(1, 2), 1, sp.Rational(3, 4) * d / b)
        if e < d / b
    ],
}


def _gauss_delta_ball(eps: arb, mu: arb) -> arb:
    """Balle-Wang delta(eps) with mu = Delta/sigma, as an arb ball (valid over balls)."""
    r2 = arb(2).sqrt()
    a, b = mu / 2 - eps / mu, -mu / 2 - eps / mu
    return (-a / r2).erfc() / 2 - eps.exp() * (-b / r2).erfc() / 2


def gaussian_delta(
    epsilon: Any, sigma: Any, sensitivity: Any = 1, prec: int = PRECISION, signed: bool = False
) -> arb:
    """Certified enclosure (arb ball) of the Gaussian mechanism's delta(eps) (Balle-Wang Thm 8).
    ``signed``: any real eps, not only eps >= 0. The formula is the hockey-stick divergence
    sup_S P(S) - e^eps Q(S) of the two Gaussians, attained at {privacy loss > eps} for every
    real eps (a conversion formula may give a negative eps, a stronger claim than eps = 0)."""
    e, s, d = (
        real_value(epsilon, "epsilon") if signed else check_eps_value(epsilon),
        positive_number(sigma, "sigma"),
        positive_number(sensitivity, "sensitivity"),
    )
    with precision(prec):
        return _gauss_delta_ball(to_ball(e), to_ball(d) / to_ball(s))


def gaussian_epsilon(sigma: Any, delta: Any, sensitivity: Any = 1, tol: float = 1e-9) -> tuple:
    """The exact epsilon of N(0, sigma^2) noise at `delta`, enclosed: (lo, hi) floats with
    delta(lo) > delta >= delta(hi) certified by arb (delta(eps) is decreasing in eps)."""
    dl = check_delta(delta)
    if dl == 0:
        raise InputError(
            "delta=0: the Gaussian mechanism has no finite epsilon at delta=0; give delta > 0."
        )
    target = to_ball(dl)
    lo, hi = Fraction(0), Fraction(1)
    while not (gaussian_delta(hi, sigma, sensitivity) <= target):
        lo, hi = hi, hi * 2
        if hi > 10**6:
            raise InputError(
                f"sigma={sigma!r} is too small for delta={delta!r}; give a larger sigma."
            )
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
    e, b, d = (
        check_eps_value(epsilon),
        positive_number(scale, "scale"),
        positive_number(sensitivity, "sensitivity"),
    )
    if compare(d / b, e)[0] in ("exact", "certified"):
        return sp.Integer(0)
    return 1 - sp.exp((e - d / b) / 2)


def _interval_verdict(
    claim: ApproxDP,
    ball: arb,
    method: str,
    event: str,
    inputs: tuple,
    params: dict,
    steps=(),
    value: sp.Expr | None = None,
) -> Finding:
    """Compare the exact delta (`value`, when known in closed form, and its enclosure `ball`)
    with the claim: ``proved`` when exact algebra decides it (equality cases included),
    ``certified`` by arb, ``refuted`` with the optimal event."""
    target = to_ball(claim.delta)
    if value is not None:
        ball = tight_ball(value, ball)
    text = f"delta({claim.epsilon}) in {show_ball(ball)}"
    status = "certified" if ball <= target else "violated" if ball > target else "unknown"
    if value is not None and status != "violated":
        status, how = compare(value, claim.delta)  # exact algebra, or arb up to 1024 bits
        if status == "exact":
            return Finding(
                Verdict.PROVED,
                f"{method}; {how}",
                reason=f"delta({claim.epsilon}) = {value} <= {claim.delta}",
                steps=tuple(steps),
            )
    if status == "certified":
        return Finding(Verdict.CERTIFIED, method, reason=text, steps=tuple(steps))
    if status == "violated":
        cex = Counterexample(
            params,
            inputs,
            event,
            f"P[M(x) in S] - e^eps P[M(x') in S] in {show_ball(ball)}",
            f"delta = {claim.delta}",
            "arb interval arithmetic",
        )
        return Finding(Verdict.REFUTED, method, reason=text, counterexample=cex, steps=tuple(steps))
    return Finding(
        Verdict.UNKNOWN, method, reason=f"{text} cannot be separated from delta={claim.delta}"
    )


def _not_derived(deriv) -> Finding:
    return Finding(
        Verdict.UNKNOWN,
        "SymPy derivation",
        reason=f"profile not derived: {deriv.reason}",
        steps=deriv.steps,
    )


def _approx_gaussian(claim: ApproxDP) -> Finding:
    g = claim.mechanism
    deriv = gaussian_profile_derivation()
    if not deriv.matches_published:
        return _not_derived(deriv)
    ball = gaussian_delta(claim.epsilon, g.sigma, g.sensitivity)
    cstar = g.sensitivity / 2 + claim.epsilon * g.sigma**2 / g.sensitivity
    value = deriv.delta.subs(
        {sym("sigma"): g.sigma, SENSITIVITY: g.sensitivity, EPSILON: claim.epsilon}
    )
    return _interval_verdict(
        claim,
        ball,
        "Balle-Wang profile derived with SymPy, enclosed with arb",
        f"S = {{y > {_fmt(cstar)}}}",
        ("f(x) = Delta", "f(x') = 0"),
        {"sigma": str(g.sigma), "Delta": str(g.sensitivity), "epsilon": str(claim.epsilon)},
        deriv.steps,
        value,
    )


def _approx_gaussian_vector(claim: ApproxDP) -> Finding:
    """The d-dimensional Gaussian, decided as the one-dimensional one it reduces to
    (:func:`proofs.mechanisms.noise.gaussian_vector_reduction`); a counterexample's event is
    then on the projection of the output onto the direction the datasets move f."""
    mech = claim.mechanism
    steps = gaussian_vector_reduction(mech)
    found = _approx_gaussian(replace(claim, mechanism=mech.reduced()))
    cex = found.counterexample
    if cex is not None:
        cex = replace(
            cex,
            inputs=("f(x) = Delta u", "f(x') = 0 (u a unit vector of R^d)"),
            output=str(cex.output).replace("y >", "<y, u> >"),
            parameters={**cex.parameters, "d": str(mech.dimension)},
        )
    return replace(
        found,
        method=f"reduced to the one-dimensional Gaussian (same privacy losses); {found.method}",
        steps=(*steps, *found.steps),
        counterexample=cex,
    )


def _approx_laplace(claim: ApproxDP) -> Finding:
    lap = claim.mechanism
    deriv = laplace_profile_derivation()
    if not deriv.matches_published:
        return _not_derived(deriv)
    value = laplace_delta(claim.epsilon, lap.scale, lap.sensitivity)
    with precision():
        ball = to_ball(value)
    cstar = (lap.sensitivity + claim.epsilon * lap.scale) / 2
    return _interval_verdict(
        claim,
        ball,
        "Laplace profile derived with SymPy, enclosed with arb",
        f"S = {{y > {_fmt(cstar)}}}",
        ("f(x) = Delta", "f(x') = 0"),
        {"b": str(lap.scale), "Delta": str(lap.sensitivity), "epsilon": str(claim.epsilon)},
        deriv.steps,
        value,
    )


def _approx_finite(claim: ApproxDP) -> Finding:
    value, (x, xp, event) = finite_delta(claim.mechanism, claim.epsilon)
    if value.is_Rational and claim.delta.is_Rational:
        if value <= claim.delta:
            return Finding(
                Verdict.PROVED, "exact rational sum", reason=f"max delta({claim.epsilon}) = {value}"
            )
        cex = Counterexample(
            {"epsilon": str(claim.epsilon)},
            (x, xp),
            set(event),
            f"P[M(x) in S] - e^eps P[M(x') in S] = {value}",
            f"delta = {claim.delta}",
            "exact rational arithmetic",
        )
        return Finding(Verdict.REFUTED, "exact rational sum", counterexample=cex)
    with precision():
        ball = to_ball(value)
    return _interval_verdict(
        claim,
        ball,
        "exact sum enclosed with arb",
        str(set(event)),
        (x, xp),
        {"epsilon": str(claim.epsilon)},
        value=value,
    )


def _fmt(v: sp.Expr) -> str:
    v = rationalize(v)
    return str(v) if v.is_Rational else f"{float(v):.6g}"


_MAX_EXTREME_ARGS = 4  # a Max or Min of more is left as it is (each pair may be checked)

_PROFILE_DOMAIN = {  # where each derivation holds (the claim's range of eps)
    "gaussian": lambda: (),
    "laplace": lambda: (EPSILON < SENSITIVITY / sym("b"),),
}


def _extremes_decided(formula: sp.Expr, domain: tuple) -> tuple[sp.Expr, list[str]]:
    """Each Max or Min replaced by the argument it takes everywhere on the domain, when that
    argument's order against every other is proved (:mod:`proofs.checkers.inequality`); with
    the steps."""
    from proofs.checkers.inequality import check as inequality
    from proofs.claims import Inequality

    steps: list[str] = []

    def proved(low: sp.Expr, high: sp.Expr) -> str | None:
        try:
            found = inequality(Inequality(low, high, domain))
        except InputError:
            return None
        return found.method if found.verdict is Verdict.PROVED else None

    def decided(node: sp.Expr) -> sp.Expr:
        if len(node.args) > _MAX_EXTREME_ARGS:
            return node
        for pick in node.args:
            orders = []
            for other in (a for a in node.args if a is not pick):
                low, high = (other, pick) if isinstance(node, sp.Max) else (pick, other)
                how = proved(low, high)
                if how is None:
                    break
                orders.append(f"{low} <= {high}: {how}")
            else:
                steps.append(f"{node} = {pick} on the range ({'; '.join(orders)})")
                return pick
        return node

    plain = formula.replace(lambda n: isinstance(n, (sp.Max, sp.Min)), decided)
    return plain, steps


def _check_privacy_profile(claim) -> Finding:
    deriv = (
        gaussian_profile_derivation()
        if claim.mechanism == "gaussian"
        else laplace_profile_derivation()
    )
    if deriv.delta is None:
        return Finding(Verdict.UNKNOWN, "SymPy derivation", reason=deriv.reason, steps=deriv.steps)
    formula = claim._formula()
    # arb first: a point that separates the two is cheap, and simplify can take minutes on a
    # wrong formula ((1 - exp((eps - Delta/b)/4))^2000 expanded)
    refuted = _separated(claim.mechanism, deriv, formula)
    if refuted is not None:
        return refuted
    method = "SymPy: integral of (p - e^eps q)_+ derived, difference simplified"
    if simplifies_to_zero(sp.expand(deriv.delta - formula)):
        return Finding(Verdict.PROVED, method, steps=deriv.steps)
    plain, picked = _extremes_decided(formula, _PROFILE_DOMAIN[claim.mechanism]())
    if picked and simplifies_to_zero(sp.expand(deriv.delta - plain)):
        return Finding(Verdict.PROVED, method, steps=(*deriv.steps, *picked))
    return Finding(
        Verdict.UNKNOWN,
        method,
        reason="difference not simplified to 0, no point separates them",
        steps=deriv.steps,
    )


def _separated(mechanism: str, deriv, formula: sp.Expr) -> Finding | None:
    """``refuted`` at the first of the mechanism's points where arb balls separate the derived
    profile from the claimed one; else None."""
    old = ctx.prec
    ctx.prec = PRECISION
    try:
        for values in _PROFILE_POINTS[mechanism]:
            try:
                diff = to_ball(at(deriv.delta, values)) - to_ball(at(formula, values))
            except (ValueError, ZeroDivisionError, Undecided):
                continue
            if diff > 0 or diff < 0:
                cex = Counterexample(
                    {str(k): str(v) for k, v in values.items()},
                    ("f(x) = Delta", "f(x') = 0"),
                    "S* = {p > e^eps q}",
                    f"|derived - claimed| in {show_ball(abs(diff))}",
                    "0",
                    "arb interval arithmetic",
                )
                return Finding(
                    Verdict.REFUTED,
                    "derived profile compared with arb",
                    counterexample=cex,
                    steps=deriv.steps,
                )
    finally:
        ctx.prec = old
    return None


def _check_approx_dp(claim) -> Finding:
    mech = claim.mechanism
    if hasattr(mech, "domain"):
        check_description(mech)
    try:
        if isinstance(mech, Gaussian):
            return _approx_gaussian(claim)
        if isinstance(mech, GaussianVector):
            return _approx_gaussian_vector(claim)
        if isinstance(mech, Laplace):
            return _approx_laplace(claim)
        if isinstance(mech, FiniteMechanism):
            return _approx_finite(claim)
    except ValueError as exc:
        if not isinstance(exc, InputError):
            return Finding(Verdict.UNKNOWN, "none", reason=f"cannot decide with arb: {exc}")
        if any(
            getattr(mech, f).free_symbols
            for f in getattr(mech, "__dataclass_fields__", ())
            if isinstance(getattr(mech, f), sp.Basic)
        ):
            return Finding(
                Verdict.UNKNOWN, "none", reason=f"symbolic parameters are not supported here: {exc}"
            )
        raise
    return Finding(
        Verdict.UNKNOWN,
        "none",
        reason=f"no privacy profile for {type(mech).__name__}; use Gaussian, GaussianVector, "
        "Laplace or FiniteMechanism",
    )


_CHECKS = {PrivacyProfile: _check_privacy_profile, ApproxDP: _check_approx_dp}


def supports(claim) -> bool:
    return type(claim) in _CHECKS


def check(claim) -> Finding:
    return _CHECKS[type(claim)](claim)
