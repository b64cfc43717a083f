"""Mutants of true theorems: systematic perturbations that should make them false.

- ``epsilon x0.99``: the claimed epsilon (or the rule, or eps_k) times 99/100;
- ``delta x0.99``: the claimed delta (or the delta rule, or delta_k) times 99/100;
- ``k+1`` and ``k-1``: the number of compositions, the group size, the number of reports or
  hash functions, moved by one;
- ``constant``: one constant of the claim (a noise scale, a stated value, a bound) times 99/100
  or 101/100;
- ``boundary``: the claimed quantity moved to 99% of its true value, found by the oracle
  (:mod:`proofs.mutation.oracle`), so that loose true claims also get a false mutant.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import mpmath as mp
import sympy as sp

from proofs import mechanisms as m
from proofs.claims import Theorem
from proofs.errors import InputError
from proofs.mutation.facts import (
    distance_sides,
    estimator_moments,
    estimator_points,
    exact_tail,
    table,
)
from proofs.mutation.oracle import (
    DIGITS,
    approx_delta,
    free,
    gauss_delta,
    kov_delta,
    num,
    pure_loss,
    smallest_sigma,
)

__all__ = ["Mutant", "mutants"]


_DOWN, _UP = sp.Rational(99, 100), sp.Rational(101, 100)


@dataclass(frozen=True, slots=True)
class Mutant:
    """A perturbed claim of theorem `theorem_id`; `kind` says which perturbation."""

    theorem_id: str
    kind: str
    claim: Any


def _scaled(value, factor):
    return sp.sympify(value) * factor


def _shift_symbol(expr, name: str, by: int):
    expr = sp.sympify(expr)
    hits = [s for s in expr.free_symbols if s.name == name]
    return expr.xreplace({s: s + by for s in hits}) if hits else None


def _mechanism_constants(mech) -> list:
    """Mechanisms with one noise constant changed (less noise: the unsafe direction)."""
    out = []
    for field, factor in (
        ("scale", _DOWN),
        ("sigma", _DOWN),
        ("alpha", _UP),
        ("f", _DOWN),
        ("p_truth", _UP),
        ("epsilon", _UP),
    ):
        if field in getattr(mech, "__dataclass_fields__", {}):
            try:
                out.append(replace(mech, **{field: _scaled(getattr(mech, field), factor)}))
            except (InputError, TypeError):
                continue
    return out


def _claim_mutants(claim) -> list[tuple[str, Any]]:
    """(kind, mutated claim) pairs for the claim classes of proofs."""
    from proofs import (
        ApproxDP,
        CalibrationMinimal,
        ChebyshevTail,
        ComposedDP,
        DistanceBound,
        EstimateAt,
        GaussianCalibration,
        GaussianCalibrationRegion,
        GroupPrivacy,
        Inequality,
        Moment,
        NoisyMeanVariance,
        PerReportUnbiased,
        PostProcessing,
        PrivacyProfile,
        PureDP,
        RDPComposition,
        RDPConversion,
        RenyiGaussian,
        SequentialComposition,
        Unbiased,
        Variance,
        ZCDPConversion,
    )

    c = claim
    out: list[tuple[str, Any]] = []
    if isinstance(c, PureDP):
        out.append(("epsilon x0.99", replace(c, epsilon=c.epsilon * _DOWN)))
        for name in ("T", "h", "k"):
            shifted = _shift_symbol(c.epsilon, name, -1)
            if shifted is not None:
                out.append(("k-1", replace(c, epsilon=shifted)))
        out += [("constant", replace(c, mechanism=mm)) for mm in _mechanism_constants(c.mechanism)]
    elif isinstance(c, ApproxDP):
        out += [
            ("epsilon x0.99", replace(c, epsilon=c.epsilon * _DOWN)),
            ("delta x0.99", replace(c, delta=c.delta * _DOWN)),
        ]
        out += [("constant", replace(c, mechanism=mm)) for mm in _mechanism_constants(c.mechanism)]
    elif isinstance(c, ComposedDP):
        out += [
            ("epsilon x0.99", replace(c, epsilon_total=c.epsilon_total * _DOWN)),
            ("delta x0.99", replace(c, delta_total=c.delta_total * _DOWN)),
            ("constant", replace(c, epsilon=c.epsilon * _UP)),
        ]
        if isinstance(c.k, int):
            out.append(("k+1", replace(c, k=c.k + 1)))
        else:
            out.append(("k+1", replace(c, k=c.k + 1)))
    elif isinstance(c, SequentialComposition):
        out.append(("epsilon x0.99", replace(c, rule=c.rule * _DOWN)))
        if c.at is not None:
            out.append(("delta x0.99", replace(c, delta_rule=c.delta_rule * _DOWN)))
        e2 = [s for s in sp.sympify(c.rule).free_symbols if s.name == "epsilon_2"]
        if e2:
            out.append(("constant", replace(c, rule=c.rule.xreplace({e2[0]: e2[0] * _DOWN}))))
    elif isinstance(c, PostProcessing):
        out.append(("epsilon x0.99", replace(c, rule=c.rule * _DOWN)))
    elif isinstance(c, GroupPrivacy):
        out.append(("epsilon x0.99", replace(c, eps_k=c.eps_k * _DOWN)))
        if sp.sympify(c.delta_k) != 0:
            out.append(("delta x0.99", replace(c, delta_k=c.delta_k * _DOWN)))
        for field in ("eps_k", "delta_k"):
            shifted = _shift_symbol(getattr(c, field), "k", -1)
            if shifted is not None:
                out.append(("k-1", replace(c, **{field: shifted})))
    elif isinstance(c, (GaussianCalibration, GaussianCalibrationRegion)):
        out.append(("constant", replace(c, sigma=c.sigma * _DOWN)))
        if isinstance(c, GaussianCalibration):
            out.append(("delta x0.99", replace(c, delta=c.delta * _DOWN)))
    elif isinstance(c, CalibrationMinimal):
        out += [
            ("constant", replace(c, sigma=_scaled(c.sigma, _DOWN))),
            ("constant", replace(c, sigma=_scaled(c.sigma, _UP))),
            ("delta x0.99", replace(c, delta=_scaled(c.delta, _DOWN))),
        ]
    elif isinstance(c, PrivacyProfile):
        out.append(("constant", replace(c, formula=c._formula() * _DOWN)))
    elif isinstance(c, RenyiGaussian):
        out.append(("constant", replace(c, bound=c.bound * _DOWN)))
    elif isinstance(c, RDPConversion):
        out += [("k+1", replace(c, k=c.k + 1)), ("constant", replace(c, sigma=c.sigma * _DOWN))]
    elif isinstance(c, ZCDPConversion):
        out += [("k+1", replace(c, k=c.k + 1)), ("constant", replace(c, sigma=c.sigma * _DOWN))]
    elif isinstance(c, RDPComposition):
        out += [
            ("epsilon x0.99", replace(c, epsilon=c.epsilon * _DOWN)),
            ("delta x0.99", replace(c, delta=c.delta * _DOWN)),
        ]
        first, count = c.composition[0]
        out.append(("k+1", replace(c, composition=((first, count + 1), *c.composition[1:]))))
    elif isinstance(c, Unbiased):
        e = c.estimator
        out += [
            ("constant", replace(c, estimator=replace(e, slope=e.slope * _UP))),
            ("constant", replace(c, estimator=replace(e, intercept=e.intercept * _UP))),
        ]
    elif isinstance(c, Variance):
        out.append(("constant", replace(c, bound=c.bound * _DOWN)))
        shifted = _shift_symbol(c.bound, "n", 1)
        if shifted is not None:
            out.append(("k+1", replace(c, bound=shifted)))
    elif isinstance(c, ChebyshevTail):
        out.append(("constant", replace(c, bound=c.bound * _DOWN)))
    elif isinstance(c, EstimateAt):
        nudge = sp.Rational(1, 100) if c.value == 0 else 0
        out += [
            ("constant", replace(c, value=c.value * _DOWN - nudge)),
            ("constant", replace(c, value=c.value * _UP + nudge)),
        ]
    elif isinstance(c, PerReportUnbiased):
        out.append(("constant", replace(c, term=c.term * _UP)))
    elif isinstance(c, Moment):
        out += [
            ("constant", replace(c, value=c.value * _DOWN)),
            (
                "constant",
                replace(c, value=c.value * _UP + (sp.Rational(1, 100) if c.value == 0 else 0)),
            ),
        ]
    elif isinstance(c, NoisyMeanVariance):
        out += [
            ("constant", replace(c, value=c.value * _DOWN)),
            ("k+1", replace(c, value=_shift_symbol(c.value, "n", 1) or c.value * _UP)),
        ]
    elif isinstance(c, Inequality):
        out += [
            ("constant", replace(c, rhs=c.rhs - sp.Abs(c.rhs) / 100)),
            ("constant", replace(c, rhs=c.rhs - sp.Rational(1, 100))),
        ]
    elif isinstance(c, DistanceBound):
        if c.relation == "<=":
            out += [
                ("constant", replace(c, rhs=c.rhs * _DOWN)),
                ("constant", replace(c, rhs=c.rhs - sp.Rational(1, 100))),
            ]
        else:
            out += [
                ("constant", replace(c, rhs=c.rhs * _DOWN)),
                ("constant", replace(c, rhs=c.rhs * _UP)),
            ]
    return out


def _normalised_mutants(c) -> list[tuple[str, Any]]:
    from proofs.claims.distributions import NoiseDensity, noise_law

    if isinstance(c.law, (m.Laplace, m.Gaussian, m.TwoSidedGeometric, NoiseDensity)):
        law = noise_law(c.law)
        return [
            (
                "constant",
                replace(
                    c,
                    law=NoiseDensity(
                        law.expr * _DOWN, law.support, law.domain, law.name + " x 0.99"
                    ),
                ),
            )
        ]
    found = table(c.law)
    if found is None:
        return []
    rows, domain = found
    x0 = next(iter(rows))
    y0 = next(iter(rows[x0]))
    rows[x0] = {**rows[x0], y0: sp.sympify(rows[x0][y0]) * _DOWN}
    return [
        (
            "constant",
            replace(
                c, law=m.FiniteMechanism(rows, assumptions=tuple(domain), name="one entry x 0.99")
            ),
        )
    ]


def mutants(theorem: Theorem) -> list[Mutant]:
    """The mutants of a (true) theorem; mutations its claim class refuses are skipped. Besides
    the fixed perturbations, a ``boundary`` mutant moves the claimed quantity to 99% of its
    true value (found by the oracle), so that loose true claims also get a false mutant."""
    from proofs import Normalised

    out = []
    try:
        with mp.workdps(DIGITS):
            if isinstance(theorem.claim, Normalised):
                pairs = _normalised_mutants(theorem.claim)
            else:
                pairs = _claim_mutants(theorem.claim)
            pairs += _boundary_mutants(theorem.claim)
    except InputError:
        return out
    for kind, claim in pairs:
        out.append(Mutant(theorem.id, kind, claim))
    return out


def _exact(value) -> sp.Rational:
    """A short rational within 1e-12 relative of an mpmath number (mutants need exact inputs)."""
    return sp.Rational(mp.nstr(value, 12))


def _gauss_epsilon(mu, delta) -> mp.mpf:
    return mp.findroot(
        lambda e: gauss_delta(e, mu) - delta,
        (mp.mpf(0), mp.mpf(10**4)),
        solver="bisect",
        tol=mp.mpf(10) ** -30,
    )


def _boundary_mutants(c) -> list[tuple[str, Any]]:
    """Loose claims moved to 99% of their slack: false by the oracle's own evaluation."""
    from proofs import (
        ApproxDP,
        ChebyshevTail,
        ComposedDP,
        DistanceBound,
        GaussianCalibration,
        GaussianCalibrationRegion,
        PureDP,
        RDPComposition,
        RDPConversion,
        Variance,
        ZCDPConversion,
    )

    out = []
    if isinstance(c, PureDP) and not free(
        c.epsilon,
        *(
            getattr(c.mechanism, f)
            for f in getattr(c.mechanism, "__dataclass_fields__", {})
            if isinstance(getattr(c.mechanism, f), sp.Basic)
        ),
    ):
        loss = pure_loss(c.mechanism, {})
        if loss is not None and mp.isfinite(loss) and loss > 0:
            out.append(("boundary", replace(c, epsilon=_exact(loss * mp.mpf("0.99")))))
    elif isinstance(c, ApproxDP):
        value = approx_delta(c.mechanism, num(c.epsilon))
        if value is not None and value > 0:
            out.append(("boundary", replace(c, delta=_exact(value * mp.mpf("0.99")))))
    elif (
        isinstance(c, ComposedDP)
        and isinstance(c.k, int)
        and c.k <= 2000
        and not free(c.epsilon, c.epsilon_total, c.delta, c.delta_total)
    ):
        value = kov_delta(num(c.epsilon), c.k, num(c.epsilon_total), num(c.delta))
        if value > 0:
            out.append(("boundary", replace(c, delta_total=_exact(value * mp.mpf("0.99")))))
    elif isinstance(c, GaussianCalibration):
        out += _calibration_boundary(c)
    elif isinstance(c, (RDPConversion, ZCDPConversion)):
        mu = mp.sqrt(c.k * num(c.sensitivity) ** 2 / num(c.sigma) ** 2)
        ratio = _exact(_gauss_epsilon(mu, num(c.delta)) / num(c.epsilon()) * mp.mpf("0.99"))
        if isinstance(c, RDPConversion):
            default = sp.Symbol("rdp") + sp.log(1 / sp.Symbol("delta")) / (sp.Symbol("alpha") - 1)
        else:
            rho, dl = sp.Symbol("rho"), sp.Symbol("delta")
            default = rho + 2 * sp.sqrt(rho * sp.log(1 / dl))
        formula = c.formula if c.formula is not None else default
        out.append(("boundary", replace(c, formula=formula * ratio)))
    elif isinstance(c, GaussianCalibrationRegion):
        out += _region_boundary(c)
    elif isinstance(c, (Variance, ChebyshevTail, DistanceBound)):
        ratio = _largest_ratio(c)
        if ratio is not None and ratio > 0 and getattr(c, "relation", "<=") == "<=":
            field = "rhs" if isinstance(c, DistanceBound) else "bound"
            scaled = getattr(c, field) * _exact(ratio * mp.mpf("0.99"))
            out.append(("boundary", replace(c, **{field: scaled})))
    elif isinstance(c, RDPComposition):
        gaussians = [(g, n) for g, n in c.composition if isinstance(g, m.Gaussian)]
        if gaussians:
            mu = mp.sqrt(sum(n * num(g.sensitivity) ** 2 / num(g.sigma) ** 2 for g, n in gaussians))
            eps = _gauss_epsilon(mu, num(c.delta))
            out.append(("boundary", replace(c, epsilon=_exact(eps * mp.mpf("0.99")))))
    return out


def _largest_ratio(c) -> mp.mpf | None:
    """max over the oracle's sample points of lhs/bound for a '<=' claim (its slack)."""
    from proofs import ChebyshevTail, DistanceBound, Variance

    best = None
    if isinstance(c, DistanceBound):
        for lhs, rhs in distance_sides(c):
            if rhs > 0:
                best = max(best or lhs / rhs, lhs / rhs)
        return best
    e = c.estimator
    for v in estimator_points(e, c.bound):
        bound = num(c.bound, v)
        if isinstance(c, Variance):
            value = estimator_moments(e, v)[1]
        elif isinstance(c, ChebyshevTail):
            value = exact_tail(c, v)
        if bound > 0:
            best = max(best or value / bound, value / bound)
    return best


def _region_boundary(c) -> list[tuple[str, Any]]:
    """The region's sigma scaled by 99% of the smallest ratio over a grid of (eps, delta)."""
    from proofs.symbols import DELTA, EPSILON, SENSITIVITY

    lo, hi = float(c.eps_min), float(c.eps_max)
    worst = mp.inf
    for d in (c.delta_min, sp.sqrt(c.delta_min * c.delta_max), c.delta_max):
        for i in range(1, 21):
            eps = mp.mpf(lo + (hi - lo) * i / 20)
            sigma = num(c.sigma, {EPSILON: sp.Rational(str(eps)), DELTA: d, SENSITIVITY: 1})
            worst = min(worst, smallest_sigma(eps, num(d)) / sigma)
    return [("boundary", replace(c, sigma=c.sigma * _exact(worst * mp.mpf("0.99"))))]


def _calibration_boundary(c) -> list[tuple[str, Any]]:
    """sigma scaled by 99% of the smallest ratio (smallest valid sigma / claimed sigma)."""
    from proofs.symbols import DELTA, EPSILON, SENSITIVITY

    lo, hi = float(c.eps_min), float(c.eps_max)
    worst = mp.inf
    for i in range(1, 41):
        eps = mp.mpf(lo + (hi - lo) * i / 40)
        sigma = num(c.sigma, {EPSILON: sp.Rational(str(eps)), DELTA: c.delta, SENSITIVITY: 1})
        worst = min(worst, smallest_sigma(eps, num(c.delta)) / sigma)
    return [("boundary", replace(c, sigma=c.sigma * _exact(worst * mp.mpf("0.99"))))]
