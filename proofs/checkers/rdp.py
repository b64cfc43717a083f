"""A Renyi-DP accountant with certified arithmetic: curves, composition, conversion to (eps, delta).

The Renyi divergence of order alpha > 1 is
D_alpha(P || Q) = ln(integral p^alpha q^(1-alpha))/(alpha - 1). A mechanism is (alpha, r)-RDP
when D_alpha(M(x) || M(x')) <= r on every ordered neighbouring pair (Mironov 2017, "Renyi
differential privacy", Def. 4). Here, at numeric parameters:

- RDP curves (exact, worst neighbouring pair): Gaussian alpha Delta^2/(2 sigma^2) (Mironov 2017,
  Prop. 7); Laplace with eps = Delta/b (Prop. 6)
      eps + ln(1 + (alpha - 1)(exp((1 - 2 alpha) eps) - 1)/(2 alpha - 1))/(alpha - 1);
  k-ary randomized response (derived below, :func:`_krr_curve`); numeric finite mechanisms
  (:class:`FiniteMechanism`, :class:`AlphaCoinRR`, :class:`ForcedResponse`: the max over ordered
  neighbour pairs of the finite sum); the Laplace histogram (one or two Laplace bins).
- Composition: RDP adds, also adaptively: (alpha, r1) and (alpha, r2) give (alpha, r1 + r2)
  (Mironov 2017, Prop. 1). A composition is a sequence of (mechanism, count) pairs, of any kinds.
- Conversion to (eps, delta)-DP at each order, minimised over a grid of orders:
  ``improved`` (default): eps = r + ln((alpha - 1)/alpha) - (ln delta + ln alpha)/(alpha - 1)
  (Canonne, Kamath, Steinke 2020, "The discrete Gaussian for differential privacy", Prop. 12;
  Balle, Barthe, Gaboardi, Hsu, Sato 2020, "Hypothesis testing interpretations and Renyi
  differential privacy", Thm 21), together with eps = 0 when sqrt(1 - exp(-r)) <= delta
  (delta(0) is the total variation distance, at most sqrt(1 - exp(-KL)) by the
  Bretagnolle-Huber inequality, and KL <= D_alpha for alpha > 1), as dp_accounting does;
  ``mironov``: eps = r + ln(1/delta)/(alpha - 1) (Mironov 2017, Prop. 3).

What is certified: every value is an arb (python-flint) ball that encloses the exact real number
for the exact parameters (floats are read as the decimal they print as, like the rest of
:mod:`proofs`), orders are exact rationals, and the stable forms (log1p/expm1, see the curve
functions) keep the balls tight for orders close to 1. The reported epsilon (or delta) is the
upper end of the ball at the best order, rounded up to a float: the minimum over orders of valid
upper bounds is a valid upper bound, so the composition is (epsilon, delta)-DP. It is only an
upper bound: an RDP accountant can certify a claim but never refute one. For compositions of
Gaussians only, :class:`RDPComposition` also decides claims exactly against the Gaussian privacy
profile (Balle and Wang 2018, Thm 8; mu^2 = sum of count (Delta/sigma)^2 adds, Dong, Roth, Su
2022, Cor. 3.3), which can refute; and it refutes a claim that a composition's responses on a
bit alone exceed, from their exact privacy-loss distribution (:func:`_responses_delta`).
"""

from __future__ import annotations

import decimal
import math
from collections.abc import Callable
from dataclasses import dataclass, fields, replace
from typing import Any

import sympy as sp
from flint import arb

from proofs.checkers.profiles import gaussian_delta
from proofs.claims import RDPComposition
from proofs.claims.accounting import (
    CONVERSION_NAMES,
    composition_of,
    conversion_of,
    describe_composition,
    number,
    orders_of,
    positive_delta,
)
from proofs.expr import as_expr, rationalize
from proofs.mechanisms import (
    AlphaCoinRR,
    FiniteMechanism,
    ForcedResponse,
    Gaussian,
    Histogram,
    KAryRR,
    Laplace,
)
from proofs.numeric import precision, show_ball, to_ball
from proofs.results import SCHEMA_VERSION, Counterexample, Finding, Verdict
from proofs.validate import check_eps_value

__all__ = [
    "RDPDelta",
    "RDPEpsilon",
    "check",
    "composition_rdp",
    "rdp_curve",
    "rdp_delta",
    "rdp_epsilon",
    "supports",
]


_BASE_BITS = 128


_Curve = Callable[[arb, arb], arb]  # (alpha, alpha - 1) -> enclosure of the RDP at alpha


def _gaussian_curve(g: Gaussian) -> _Curve:
    """Mironov 2017, Prop. 7: D_alpha(N(Delta, s^2) || N(0, s^2)) = alpha Delta^2/(2 s^2)."""
    half_mu2 = to_ball(g.sensitivity**2 / (2 * g.sigma**2))
    return lambda a, m: a * half_mu2


def _laplace_eps_curve(eps: arb) -> _Curve:
    """Mironov 2017, Prop. 6, for Lap(b) with eps = Delta/b, the larger of the two orders:

        1/(alpha-1) ln(alpha/(2alpha-1) e^{(alpha-1)eps} + (alpha-1)/(2alpha-1) e^{-alpha eps})
        = eps + log1p((alpha-1) expm1(-(2alpha-1) eps)/(2alpha-1))/(alpha-1),

    the second form (alpha/(2alpha-1) = 1 - (alpha-1)/(2alpha-1)) stays tight as alpha -> 1."""

    def curve(a: arb, m: arb) -> arb:
        two_a_m1 = 2 * a - 1
        return eps + (m * (-two_a_m1 * eps).expm1() / two_a_m1).log1p() / m

    return curve


def _krr_curve(eps: arb, k: int) -> _Curve:
    """k-ary randomized response, P[Y = x] = e^eps/Z, P[Y = y] = 1/Z (y != x), Z = e^eps + k - 1.

    Rows x and x' differ in two outputs only, so with lambda = alpha
        sum_y p^lambda q^(1-lambda) = (e^{eps alpha} + e^{eps(1-alpha)} + (k - 2))/Z = S,
    the same for (x', x) (swap the two outputs), and D_alpha = ln(S)/(alpha - 1). Stable form:
        S - 1 = (e^eps expm1(eps (alpha-1)) + expm1(-eps (alpha-1)))/Z,
    since e^{eps alpha} - e^eps = e^eps expm1(eps(alpha-1)) and e^{-eps(alpha-1)} - 1."""
    e = eps.exp()
    z = e + (k - 1)

    def curve(a: arb, m: arb) -> arb:
        s_minus_1 = (e * (eps * m).expm1() + (-eps * m).expm1()) / z
        return s_minus_1.log1p() / m

    return curve


def _finite_curve(rows: dict, pairs: list[tuple], name: str) -> _Curve:
    """max over ordered pairs (x, x') of ln(sum_y p_y^alpha q_y^(1-alpha))/(alpha - 1).

    With sum_y p_y = 1 the sum is 1 + sum_{p_y > 0} p_y expm1((alpha-1) ln(p_y/q_y)), which stays
    tight as alpha -> 1; outputs with p_y = 0 add nothing, p_y > 0 = q_y makes it infinite."""
    terms = []
    for x, xp in pairs:
        row, infinite = [], False
        for y, p in rows[x].items():
            q = rows[xp][y]
            if p == 0:
                continue
            if q == 0:
                infinite = True
                break
            row.append((to_ball(p), (to_ball(p) / to_ball(q)).log()))
        terms.append(None if infinite else row)

    def curve(a: arb, m: arb) -> arb:
        best = None
        for row in terms:
            if row is None:
                return arb.pos_inf()
            total = sum((p * (m * lr).expm1() for p, lr in row), arb(0))
            value = total.log1p() / m
            best = value if best is None else best.max(value)
        return best

    return curve


def _table(mech: Any) -> tuple[dict, list[tuple], str]:
    if isinstance(mech, AlphaCoinRR):
        hi, lo = (1 + mech.alpha) / 2, (1 - mech.alpha) / 2
        return {1: {1: hi, 0: lo}, 0: {1: lo, 0: hi}}, [(1, 0), (0, 1)], "AlphaCoinRR"
    if isinstance(mech, ForcedResponse):
        rows = {x: {1: mech.pmf(x, 1), 0: mech.pmf(x, 0)} for x in (1, 0)}
        return rows, [(1, 0), (0, 1)], "ForcedResponse"
    rows = {
        x: {y: rationalize(as_expr(v, "pmf")) for y, v in row.items()}
        for x, row in mech.pmf.items()
    }
    return rows, mech.neighbour_pairs(), mech.name


def _curve(mech: Any) -> _Curve:
    if isinstance(mech, Gaussian):
        return _gaussian_curve(mech)
    if isinstance(mech, Laplace):
        return _laplace_eps_curve(to_ball(mech.sensitivity / mech.scale))
    if isinstance(mech, Histogram):
        # Independent Lap(b) bins: add/remove moves one count by 1, replace-one moves two (one
        # up, one down); Renyi divergence adds over independent coordinates.
        one = _laplace_eps_curve(to_ball(1 / mech.scale))
        bins = mech.l1_sensitivity
        return lambda a, m: bins * one(a, m)
    if isinstance(mech, KAryRR):
        return _krr_curve(to_ball(mech.epsilon), int(mech.k))
    return _finite_curve(*_table(mech))


def _bits(orders: tuple[sp.Rational, ...]) -> int:
    """Working precision: 128 bits plus what dividing by the smallest alpha - 1 costs."""
    m = min(a - 1 for a in orders)
    return _BASE_BITS + max(0, int(m.q).bit_length() - int(m.p).bit_length() + 1)


def _order_balls(a: sp.Rational) -> tuple[arb, arb]:
    m = a - 1
    return arb(int(a.p)) / int(a.q), arb(int(m.p)) / int(m.q)


def _rdp_values(comp, orders) -> list[arb]:
    """Enclosures of sum_i count_i r_i(alpha) at each order (call inside a precision context)."""
    curves = [(_curve(mech), count) for mech, count in comp]
    out = []
    for a in orders:
        ab, mb = _order_balls(a)
        total = arb(0)
        for curve, count in curves:
            value = curve(ab, mb)
            if not value.is_finite():
                total = arb.pos_inf()
                break
            total += count * value
        out.append(total)
    return out


def rdp_curve(mechanism: Any, order: Any) -> arb:
    """Enclosure (arb ball) of the RDP of one mechanism at `order`: max over ordered neighbour
    pairs of D_alpha(M(x) || M(x')); +inf when some output has p > 0 = q."""
    return composition_rdp([(mechanism, 1)], [order])[0]


def composition_rdp(composition: Any, orders: Any = None) -> tuple[arb, ...]:
    """Enclosures of the RDP of a composition at each order: sum of count * curve(order)
    (Mironov 2017, Prop. 1). `composition` is a sequence of (mechanism, count) pairs."""
    comp, grid = composition_of(composition), orders_of(orders)
    with precision(_bits(grid)):
        return tuple(_rdp_values(comp, grid))


def _eps_ball(r: arb, a: arb, m: arb, log_delta: arb, conversion: str) -> arb:
    if conversion == "mironov":
        return r - log_delta / m
    return r + (m / a).log() - (log_delta + a.log()) / m


def _log_delta_ball(r: arb, a: arb, m: arb, eps: arb, conversion: str) -> arb:
    if conversion == "mironov":
        return m * (r - eps)
    return m * (r - eps + (m / a).log()) - a.log()


def _tv_bound(r: arb) -> arb:
    """sqrt(1 - exp(-r)) >= sqrt(1 - exp(-KL)) >= TV = delta(0) (Bretagnolle-Huber)."""
    return (-(-r).expm1()).sqrt()


def _float_up(x: arb) -> float:
    """The upper end of a ball as a float rounded up (so it is still an upper bound)."""
    up = x.upper()
    f = float(up)
    if math.isfinite(f) and arb(f) < up:
        f = math.nextafter(f, math.inf)
    return f


def _order_text(a: sp.Rational | None) -> str:
    return "none" if a is None else str(a)


@dataclass(frozen=True, slots=True)
class _Account:
    """What the RDP accountant reports: the (epsilon, delta) pair, the arb ball `interval` of the
    value it solved for at the best `order` (`order_exact` as text), the composed RDP `rdp` at
    that order, the conversion, the number of orders tried, the composition and the method."""

    epsilon: float
    delta: float
    interval: str
    order: float | None
    order_exact: str
    rdp: str
    conversion: str
    orders: int
    composition: str
    method: str

    def _summary(self, eps: str, delta: str, solved: str) -> str:
        return (
            f"{self.composition}: ({eps}, {delta})-DP by the RDP accountant, {self.method} "
            f"at order {self.order_exact} (best of {self.orders} orders); composed RDP in "
            f"{self.rdp}, {solved} in {self.interval}"
        )

    @classmethod
    def found(cls, epsilon, delta, ball, order, rdp, conversion, grid, comp, method):
        """The account from the accountant's best order: `ball` encloses the solved value,
        `rdp` the composed RDP at `order` (None: no finite order)."""
        return cls(
            epsilon,
            delta,
            show_ball(ball),
            None if order is None else float(order),
            _order_text(order),
            show_ball(rdp),
            conversion,
            len(grid),
            describe_composition(comp),
            method,
        )

    def to_dict(self) -> dict:
        return {
            "schema_version": SCHEMA_VERSION,
            **{f.name: getattr(self, f.name) for f in fields(self)},
        }


@dataclass(frozen=True, slots=True)
class RDPEpsilon(_Account):
    """An RDP accountant's epsilon: the composition is (epsilon, delta)-DP.

    `epsilon` is a certified upper bound (the upper end of the arb ball `interval` of the
    conversion at the best `order`, clamped at 0 and rounded up to a float)."""

    def summary(self) -> str:
        return self._summary(_up(self.epsilon), f"{self.delta:g}", "conversion")


@dataclass(frozen=True, slots=True)
class RDPDelta(_Account):
    """An RDP accountant's delta at `epsilon`: the composition is (epsilon, delta)-DP with
    `delta` a certified upper bound (at most 1), enclosed by `interval` at the best `order`."""

    def summary(self) -> str:
        return self._summary(f"{self.epsilon:g}", _up(self.delta), "delta")


def _up(bound: float) -> str:
    """A certified upper bound to 8 significant digits, rounded up (rounded to nearest, the
    figure shown could lie below the bound): in decimal arithmetic, exact for every double, the
    subnormal ones too, so the figure read as a decimal is never below the bound."""
    if bound == 0 or not math.isfinite(bound):
        return f"{bound:g}"
    exact = decimal.Decimal(bound)
    step = decimal.Decimal(1).scaleb(exact.adjusted() - 7)
    with decimal.localcontext() as ctx:
        ctx.prec = 50  # (enough for 8 digits of any double's exponent)
        up = exact.quantize(step, rounding=decimal.ROUND_CEILING)
    text = f"{float(up):.8g}"
    # the short form of the double nearest the figure, unless that reads below the bound (a
    # subnormal's nearest double can be the bound itself, and .8g then rounds it down)
    return text if math.isfinite(float(up)) and decimal.Decimal(text) >= exact else f"{up:E}"


def _best_epsilon(comp, d: sp.Expr, grid, conversion: str) -> tuple:
    """(upper bound ball, order, rdp ball, method) minimising the upper end over the grid."""
    rdps = _rdp_values(comp, grid)
    log_delta, delta2 = to_ball(d).log(), to_ball(d) ** 2
    best = (arb.pos_inf(), None, arb.pos_inf(), CONVERSION_NAMES[conversion])
    for a, r in zip(grid, rdps):
        if not r.is_finite():
            continue
        if conversion == "improved" and -(-r).expm1() <= delta2:
            return arb(0), a, r, "total-variation bound sqrt(1 - exp(-rdp)) <= delta"
        ab, mb = _order_balls(a)
        ball = _eps_ball(r, ab, mb, log_delta, conversion)
        if ball.upper() < best[0].upper():
            best = (ball, a, r, best[3])
    return best


def rdp_epsilon(
    composition: Any, delta: Any, orders: Any = None, conversion: str = "improved"
) -> RDPEpsilon:
    """Certified epsilon of a composition at `delta` by the RDP accountant.

    eps = min over orders alpha of conv(r(alpha), alpha, delta), r = sum of count * curve
    (Mironov 2017, Prop. 1); conv is the improved conversion r + ln((alpha-1)/alpha) -
    (ln delta + ln alpha)/(alpha-1) (Canonne, Kamath, Steinke 2020, Prop. 12; Balle et al. 2020,
    Thm 21) or Mironov's r + ln(1/delta)/(alpha-1) (Mironov 2017, Prop. 3). `orders` defaults to
    :data:`DEFAULT_ORDERS`; infinite when every order has infinite RDP."""
    comp, grid = composition_of(composition), orders_of(orders)
    d, conversion = positive_delta(delta), conversion_of(conversion)
    with precision(_bits(grid)):
        ball, a, r, method = _best_epsilon(comp, d, grid, conversion)
        upper = max(0.0, _float_up(ball)) if ball.is_finite() else math.inf
        return RDPEpsilon.found(upper, float(d), ball, a, r, conversion, grid, comp, method)


def rdp_delta(
    composition: Any, epsilon: Any, orders: Any = None, conversion: str = "improved"
) -> RDPDelta:
    """Certified delta of a composition at `epsilon` by the RDP accountant (the analogue of
    dp_accounting's compute_delta): min over orders of
    exp((alpha-1)(r - eps + ln(1 - 1/alpha)) - ln alpha) (Canonne, Kamath, Steinke 2020,
    Prop. 12) and sqrt(1 - exp(-r)) (Bretagnolle-Huber), or exp((alpha-1)(r - eps)) (Mironov
    2017, Prop. 3), capped at 1."""
    comp, grid = composition_of(composition), orders_of(orders)
    e, conversion = check_eps_value(number(epsilon, "epsilon")), conversion_of(conversion)
    with precision(_bits(grid)):
        rdps = _rdp_values(comp, grid)
        eb = to_ball(e)
        best = (arb(1), None, arb.pos_inf(), "trivial bound delta <= 1")
        for a, r in zip(grid, rdps):
            if not r.is_finite():
                continue
            ab, mb = _order_balls(a)
            candidates = [
                (_log_delta_ball(r, ab, mb, eb, conversion).exp(), CONVERSION_NAMES[conversion])
            ]
            if conversion == "improved":
                candidates.append((_tv_bound(r), "total-variation bound sqrt(1 - exp(-rdp))"))
            for ball, method in candidates:
                if ball.upper() < best[0].upper():
                    best = (ball, a, r, method)
        ball, a, r, method = best
        delta = min(1.0, _float_up(ball))
        return RDPDelta.found(float(e), delta, ball, a, r, conversion, grid, comp, method)


def _check_rdp_composition(claim) -> Finding:
    grid = claim.orders
    with precision(_bits(grid)):
        ball, a, r, how = _best_epsilon(claim.composition, claim.delta, grid, claim.conversion)
        bound = ball.upper() if ball.is_finite() else None
        claimed = to_ball(claim.epsilon)
        steps = (
            f"{len(grid)} orders; best order {_order_text(a)}",
            f"composed RDP at that order in {show_ball(r)}",
            f"{how}: eps in {show_ball(ball)}",
        )
        method = f"RDP accountant with arb balls, {how}"
        text = (
            f"certified RDP bound eps <= {_float_up(ball) if bound is not None else 'inf'}"
            f" (order {_order_text(a)}) vs claimed eps = {claim.epsilon}"
        )
        if bound is not None and (bound <= claimed or bound <= 0):
            return Finding(Verdict.CERTIFIED, method, reason=text, steps=steps)
    if all(isinstance(m, Gaussian) for m, _ in claim.composition):
        return _rdp_composition_gaussian(claim, text, steps)
    gaussians = tuple((m, c) for m, c in claim.composition if isinstance(m, Gaussian))
    if gaussians:
        # releasing fewer outputs is a post-processing (a projection) of the composition,
        # so the Gaussian releases' exact delta is a lower bound on the composition's
        part = _rdp_composition_gaussian(
            RDPComposition(gaussians, claim.epsilon, claim.delta), text, steps
        )
        if part.verdict is Verdict.REFUTED:
            return replace(
                part,
                method=part.method
                + (
                    "; the Gaussian releases alone (a projection: post-processing) already "
                    "exceed the claim"
                ),
            )
    responses = _responses(claim.composition)
    if responses:
        found = _responses_refute(claim, responses, steps)
        if found is not None:
            return found
    return Finding(
        Verdict.UNKNOWN,
        method,
        steps=steps,
        reason=f"{text}: the RDP conversion is only an upper bound, so a "
        "bound above the claim neither proves nor refutes it",
    )


_MAX_CONVOLUTION = 5_000_000  # (loss value, output class) products in the exact profile


def _responses(composition) -> tuple:
    """The composition's responses on a bit (randomized response, its alpha-coin and forced
    forms, tables with the inputs 0 and 1 as neighbours), with their counts."""
    out = []
    for mech, count in composition:
        if isinstance(mech, (KAryRR, AlphaCoinRR, ForcedResponse)):
            out.append((mech, count))
        elif isinstance(mech, FiniteMechanism) and (0, 1) in mech.neighbour_pairs():
            out.append((mech, count))
    return tuple(out)


def _classes(mech, x, xp) -> list:
    """The outputs y of ``mech`` that x gives, merged where (P[y | x], P[y | x']) agree, as
    (privacy loss as a float, P under x, P under x' as arb balls)."""
    merged: dict = {}
    for p, q, n in _rows(mech, x, xp):
        p, q = sp.sympify(p), sp.sympify(q)
        if p != 0 and n > 0:
            merged[(p, q)] = merged.get((p, q), 0) + n
    return [(_loss(p, q), n * to_ball(p), n * to_ball(q)) for (p, q), n in merged.items()]


def _rows(mech, x, xp) -> list:
    """(P[y | x], P[y | x'], how many outputs y share them) for the response's outputs;
    k-ary randomized response by its three kinds (y = x, y = x', another value), not its k
    outputs one by one (a million of them took half a minute)."""
    if isinstance(mech, FiniteMechanism):
        return [(mech.pmf[x][y], mech.pmf[xp].get(y, 0), 1) for y in mech.pmf[x]]
    if isinstance(mech, KAryRR):
        k = int(mech.k)
        hit, miss = mech.pmf(0, 0), mech.pmf(0, 1)
        return [(hit, miss, 1), (miss, hit, 1), (miss, miss, k - 2)]
    return [(mech.pmf(x, y), mech.pmf(xp, y), 1) for y in (0, 1)]


def _loss(p: sp.Expr, q: sp.Expr) -> float:
    """ln(p/q) as a float, only to choose the event (a probability below a double's range,
    such as e^-800, made math.log fail)."""
    if q == 0:
        return math.inf
    with precision(64):
        return float((to_ball(p).log() - to_ball(q).log()).mid())


def _responses_delta(parts, eps) -> tuple[arb, tuple] | None:
    """A lower bound on the composition's delta(eps) from its responses alone, every part on
    the one pair (0, 1) (or (1, 0)): the exact privacy-loss distribution, outputs of equal loss
    merged, and the event S = {loss > eps} summed in arb. Any S bounds delta from below, so
    the float losses that choose S need not be exact. None when too large to enumerate."""
    e, threshold, work = to_ball(sp.exp(eps)), float(eps), 0
    best = None
    for x, xp in ((0, 1), (1, 0)):
        dist = {0.0: (arb(1), arb(1))}
        for mech, count in parts:
            classes = _classes(mech, x, xp)
            for _ in range(count):
                work += len(dist) * len(classes)
                if work > _MAX_CONVOLUTION:
                    return None
                dist = _convolve(dist, classes)
        inside = [(p, q) for loss, (p, q) in dist.items() if loss > threshold]
        if not inside:
            continue
        lower = sum((p for p, _ in inside), arb(0)) - e * sum((q for _, q in inside), arb(0))
        if best is None or lower.lower() > best[0].lower():
            best = (lower, (x, xp))
    return best


def _convolve(dist: dict, classes: list) -> dict:
    out: dict = {}
    for loss, (p, q) in dist.items():
        for l, pc, qc in classes:
            key = loss + l if math.isinf(l) or math.isinf(loss) else round(loss + l, 9)
            if key in out:
                a, b = out[key]
                out[key] = (a + p * pc, b + q * qc)
            else:
                out[key] = (p * pc, q * qc)
    return out


def _responses_refute(claim, parts, steps) -> Finding | None:
    """``refuted`` when the responses alone (a projection of the composition, which never
    increases delta) exceed the claimed delta at its epsilon, certainly."""
    found = _responses_delta(parts, claim.epsilon)
    if found is None:
        return None
    lower, (x, xp) = found
    target = to_ball(claim.delta)
    if not lower > target:
        return None
    whole = len(parts) == len(claim.composition)
    cex = Counterexample(
        {"epsilon": str(claim.epsilon)},
        (f"{x} on every response", f"{xp} on every response"),
        "S = {privacy loss > eps} (each response's outputs merged where their ratios agree)",
        f"P[M(x) in S] - e^eps P[M(x') in S] in {show_ball(lower)}",
        f"delta = {claim.delta}",
        "arb interval arithmetic",
        note=""
        if whole
        else "the randomized responses alone (a projection: post-processing) "
        "already exceed the claim",
    )
    return Finding(
        Verdict.REFUTED,
        "exact privacy-loss distribution of the randomized responses, arb balls",
        counterexample=cex,
        steps=(*steps, f"responses' delta at eps = {claim.epsilon} in {show_ball(lower)}"),
    )


def _rdp_composition_gaussian(claim, text, steps) -> Finding:
    mu2 = sum((c * g.sensitivity**2 / g.sigma**2 for g, c in claim.composition), sp.Integer(0))
    sigma = 1 / sp.sqrt(mu2)
    enc = gaussian_delta(claim.epsilon, sigma, 1)
    target = to_ball(claim.delta)
    method = "composed Gaussian (mu^2 adds) checked against the exact Balle-Wang profile, arb balls"
    exact_text = f"{text}; exact delta({claim.epsilon}) with mu^2 = {mu2} in {show_ball(enc)}"
    steps = (*steps, f"mu^2 = sum count (Delta/sigma)^2 = {mu2}")
    if enc <= target:
        return Finding(Verdict.CERTIFIED, method, reason=exact_text, steps=steps)
    if enc > target:
        cex = Counterexample(
            {"mu^2": str(mu2), "epsilon": str(claim.epsilon)},
            ("x: every query moves by its full sensitivity", "x'"),
            "S = {privacy loss > eps}",
            f"delta(eps) in {show_ball(enc)}, above delta by {show_ball(enc - target)}",
            f"delta = {claim.delta}",
            "arb interval arithmetic",
            note="the non-adaptive composition already attains the exact profile",
        )
        return Finding(Verdict.REFUTED, method, reason=exact_text, counterexample=cex, steps=steps)
    return Finding(
        Verdict.UNKNOWN,
        method,
        reason=f"{exact_text} cannot be separated from delta = {claim.delta}",
        steps=steps,
    )


def supports(claim) -> bool:
    return isinstance(claim, RDPComposition)


def check(claim: RDPComposition) -> Finding:
    return _check_rdp_composition(claim)
