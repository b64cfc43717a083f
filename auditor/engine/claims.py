"""What an audit tests: a point claim "(eps, delta)-DP" or a whole privacy profile.

Every claim is judged through one *certified statistic* ``s(lo, hi)`` of an output event S:
``lo`` is a lower bound on ``P_num(S)`` and ``hi`` an upper bound on ``P_den(S)``, the two
one-sided Clopper-Pearson bounds the engine certifies (``num``, ``den``: the two datasets of a
neighbouring pair, in either order). Each statistic is non-decreasing in ``lo`` and
non-increasing in ``hi``, and the claim forbids ``s(P_num(S), P_den(S)) > threshold`` for every
event and ordered pair. So whenever both bounds hold, ``s(lo, hi) <= s(P_num(S), P_den(S))``, and
``s(lo, hi) > threshold`` certifies a violation; the engine's union bound over every certified
bound (auditor.engine.run) is the whole soundness argument, whatever the claim.

Trade-off view (f-DP, Dong, Roth and Su 2022). The test that rejects "the data is ``den``" on S
has type I error ``alpha = P_den(S)`` and type II error ``beta = 1 - P_num(S)``. A mechanism is
f-DP when ``beta >= f(alpha)`` for every test and ordered neighbouring pair. A certified event
gives the certified point ``(alpha, beta) <= (hi, 1 - lo)``; since f is non-increasing, the
claim is violated when ``1 - lo < f(hi)``. Its mirror ``(1 - lo, hi)`` (the complement event,
the datasets swapped) rests on the same two bounds, so it costs nothing in the union bound.

The statistics:

- :class:`PointClaim`, (eps, delta)-DP: ``s = ln((lo - delta) / hi)``, threshold eps.
- :class:`GaussianDP`, mu-GDP (``gdp:MU``; ``gaussian:SIGMA[:SENS]`` is mu = SENS / SIGMA, the
  exact trade-off curve of the Gaussian mechanism): ``f = G_mu(alpha) = Phi(Phi^-1(1 - alpha) -
  mu)``, and ``1 - q >= G_mu(p)`` is ``Phi^-1(q) - Phi^-1(p) <= mu``. So ``s = Phi^-1(lo) -
  Phi^-1(hi)`` with threshold mu, and the certified statistic itself is a lower bound on the
  mechanism's mu: the best mu-GDP claim the data still allow exceeds it.
- :class:`RenyiProfile`, ``(a, r_a)``-RDP at listed orders (``rdp:FILE``; ``zcdp:RHO`` is
  r_a = rho a). Post-processing to the indicator of S keeps the Renyi divergence below r_a, in
  both directions (neighbouring is symmetric), so ``s = max_a max(d_a(lo || hi), d_a(hi || lo))
  - r_a`` over binary (Bernoulli) divergences, with threshold 0. For ``lo > hi`` each ``d_a``
  is convex in each argument with its minimum on the diagonal, so the smallest value over the
  certified box ``[lo, 1] x [0, hi]`` is at its corner ``(lo, hi)``; for ``lo <= hi`` the box
  meets the diagonal and ``s = -inf``.
- :class:`ProfileTable`, delta(eps) at listed eps (``pld:FILE``, a dp_accounting privacy loss
  distribution or DpEvent): each point gives ``f >= max(0, 1 - delta - e^eps alpha,
  e^-eps (1 - delta - alpha))`` (the event and its complement), so ``s = f_table(hi) - (1 - lo)``
  with threshold 0. A finite table only weakens the claim (its f is below the claim's), so a
  violation of it is a violation of the claim.

Every profile also reports the (eps, delta) reading at a reference delta (``epsilon_at``):
the audit's ``epsilon_lower_bound`` is then the certified eps at that delta, next to the claim's.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from scipy import optimize, special

from proofs.errors import InputError

__all__ = [
    "PROFILE_KINDS",
    "GaussianDP",
    "PointClaim",
    "ProfileTable",
    "RenyiProfile",
    "as_profile",
    "parse_profile",
]

PROFILE_KINDS = ("gaussian", "gdp", "zcdp", "rdp", "pld")
PROFILE_HELP = "gaussian:SIGMA[:SENSITIVITY], gdp:MU, zcdp:RHO, rdp:FILE.json or pld:FILE.json"
REFERENCE_DELTA = 1e-5  # the delta at which a profile audit reads off epsilon, unless given
# Renyi orders a zCDP claim is checked at (its r_a = rho a holds at every order > 1)
ZCDP_ORDERS = tuple(
    sorted({1 + x / 8 for x in range(1, 16)} | {float(a) for a in range(3, 65)} | {128.0, 256.0})
)
# the largest ln(1 / delta) a zCDP claim is read at tightly: its best order is about
# 1 + sqrt(ln(1 / delta) / rho), past 256 for a small rho (at rho = 1e-6 and delta = 1e-5, the
# orders up to 256 read epsilon as 0.0198 where the claim says 0.0035)
ZCDP_LOG_DELTA = 60.0


def zcdp_orders(rho: float) -> tuple[float, ...]:
    """The orders a zCDP claim of ``rho`` is read at: ZCDP_ORDERS, and geometric grids (ratio
    2^(1/8)) on to about the best order at ln(1 / delta) = ZCDP_LOG_DELTA (at most 1e12) and,
    for a large rho, down towards 1 (a - 1 = sqrt(ln(1 / delta) / rho) at ln(1 / delta) =
    1/4). Every order is valid (zCDP bounds every Renyi divergence), so more only tighten."""
    top = min(2.0 * (1.0 + math.sqrt(ZCDP_LOG_DELTA / rho)), 1e12)
    up = max(math.ceil(8 * math.log2(top / 256.0)), 0)
    low = max(math.sqrt(0.25 / rho), 1e-9)  # the smallest a - 1
    down = max(math.ceil(8 * math.log2(0.125 / low)), 0)
    return tuple(
        sorted(
            {*ZCDP_ORDERS}
            | {256.0 * 2 ** (j / 8) for j in range(1, up + 1)}
            | {1.0 + 0.125 * 2 ** (-j / 8) for j in range(1, down + 1)}
        )
    )


TRADEOFF_ITER = 60  # bisection steps of a numerically inverted trade-off curve


def _arrays(lo, hi) -> tuple[np.ndarray, np.ndarray]:
    return np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)


@dataclass(frozen=True, slots=True)
class PointClaim:
    """(epsilon, delta)-DP: the statistic is the certified epsilon ``ln((lo - delta) / hi)``."""

    epsilon: float
    delta: float = 0.0
    unit = "epsilon"
    kind = "point"

    @property
    def threshold(self) -> float:
        return self.epsilon

    def statistic(self, lo, hi) -> np.ndarray:
        lo, hi = _arrays(lo, hi)
        num = lo - self.delta
        with np.errstate(divide="ignore", invalid="ignore"):
            out = np.log(num) - np.log(hi)
        return np.where(num > 0, out, -np.inf)

    def numerator(self, q: float, strength: float) -> float:
        """The most ``P_num(S)`` a mechanism of the claim's kind at ``strength`` allows when
        ``P_den(S) = q`` (for the detectable-strength search): on S and on its complement,
        ``p <= e^s q + delta`` and ``1 - q <= e^s (1 - p) + delta``."""
        e = math.exp(min(strength, 700.0))
        return min(e * q + self.delta, 1 - (1 - q - self.delta) / e, 1.0)

    def denominator(self, p: float, strength: float) -> float:
        """The least ``P_den(S)`` a mechanism at ``strength`` allows when ``P_num(S) = p``:
        ``p <= e^s q + delta`` and ``1 - q <= e^s (1 - p) + delta``."""
        e = math.exp(min(strength, 700.0))
        return max((p - self.delta) / e, 1 - e * (1 - p) - self.delta, 0.0)

    def tradeoff(self, alpha) -> np.ndarray:
        a = np.asarray(alpha, dtype=float)
        e = math.exp(min(self.epsilon, 700.0))
        return np.maximum.reduce(
            [np.zeros_like(a), 1 - self.delta - e * a, (1 - self.delta - a) / e]
        )

    def describe(self) -> str:
        return f"({self.epsilon:g}, {self.delta:g})-DP"

    def detection(self, q: float) -> PointClaim:
        """What the detectable-strength search uses (auditor.engine.stats.detectable): this
        claim, with mechanisms ranked by their epsilon."""
        return self

    @property
    def scale(self) -> float:
        """The claim's own strength, in the detectable search's unit."""
        return self.epsilon


@dataclass(frozen=True, slots=True)
class GaussianDP:
    """mu-GDP: the trade-off curve of N(0, 1) against N(mu, 1)."""

    mu: float
    spec: str = ""
    delta: float = REFERENCE_DELTA
    unit = "mu"
    kind = "gdp"

    @property
    def threshold(self) -> float:
        return self.mu

    def statistic(self, lo, hi) -> np.ndarray:
        lo, hi = _arrays(lo, hi)
        with np.errstate(invalid="ignore"):
            out = special.ndtri(lo) - special.ndtri(hi)
        return np.where((lo > 0) & ~np.isnan(out), out, -np.inf)

    def tradeoff(self, alpha) -> np.ndarray:
        a = np.asarray(alpha, dtype=float)
        return special.ndtr(special.ndtri(1 - a) - self.mu)

    def delta_at(self, epsilon: float) -> float:
        """The exact privacy profile of mu-GDP (Dong, Roth and Su 2022, Cor. 2.13)."""
        mu = self.mu
        if mu <= 0:
            return 0.0
        # e^eps Phi(b) as exp(eps + log Phi(b)): finite where e^eps alone overflows
        subtracted = math.exp(min(epsilon + special.log_ndtr(-epsilon / mu - mu / 2), 700.0))
        return float(max(special.ndtr(-epsilon / mu + mu / 2) - subtracted, 0.0))

    @property
    def epsilon(self) -> float:
        if self.mu <= 0 or self.delta_at(0.0) <= self.delta:
            return 0.0
        hi = 1.0
        while self.delta_at(hi) > self.delta:
            hi *= 2
        return float(optimize.brentq(lambda e: self.delta_at(e) - self.delta, 0.0, hi, xtol=1e-12))

    def describe(self) -> str:
        return self.spec or f"{self.mu:g}-GDP"

    def detection(self, q: float) -> GdpDetection:
        return GdpDetection(self, q)


def _binary_renyi(x: np.ndarray, y: np.ndarray, a: float) -> np.ndarray:
    """Renyi divergence of order ``a > 1`` of Bernoulli(x) from Bernoulli(y), in logs."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # (orders up to 1e308)
        t1 = a * np.log(x) + (1 - a) * np.log(y)
        t2 = a * np.log1p(-x) + (1 - a) * np.log1p(-y)
        t1 = np.where(x > 0, t1, -np.inf)
        t2 = np.where(x < 1, t2, -np.inf)
        return np.logaddexp(t1, t2) / (a - 1)


class _MarginClaim:
    """A profile judged by a statistic with threshold 0 (a margin below the claimed curve),
    whose detectability is read in GDP mu."""

    __slots__ = ()
    threshold = 0.0

    def detection(self, q: float) -> GdpDetection:
        return GdpDetection(self, q)  # type: ignore[arg-type]


@dataclass(frozen=True, slots=True)
class RenyiProfile(_MarginClaim):
    """(a, r_a)-RDP at each listed order a > 1 (zCDP: r_a = rho a)."""

    orders: tuple[float, ...]
    values: tuple[float, ...]
    spec: str = ""
    delta: float = REFERENCE_DELTA
    unit = "Renyi excess"
    kind = "rdp"

    def statistic(self, lo, hi) -> np.ndarray:
        lo, hi = _arrays(lo, hi)
        x, y = np.broadcast_arrays(lo, hi)
        a, r = np.asarray(self.orders), np.asarray(self.values)
        xs, ys = x[..., None], y[..., None]
        d = np.maximum(_binary_renyi(xs, ys, a), _binary_renyi(ys, xs, a)) - r
        best = np.max(np.nan_to_num(d, nan=-np.inf, posinf=np.inf), axis=-1)
        return np.where(x > y, best, -np.inf)

    def tradeoff(self, alpha) -> np.ndarray:
        """The claim's f: for each alpha the smallest beta whose point passes every order,
        by bisection, returned from below (a lower bound on f, as a claim must be read)."""
        a = np.atleast_1d(np.asarray(alpha, dtype=float))
        lo_b, hi_b = np.zeros_like(a), np.clip(1 - a, 0, 1)
        ok = lambda beta: self.statistic(1 - beta, a) <= 0
        for _ in range(TRADEOFF_ITER):
            mid = (lo_b + hi_b) / 2
            good = ok(mid)
            hi_b, lo_b = np.where(good, mid, hi_b), np.where(good, lo_b, mid)
        return np.where(ok(np.zeros_like(a)), 0.0, lo_b)

    @property
    def epsilon(self) -> float:
        """The eps at ``delta`` by the conversion of Canonne, Kamath and Steinke (2020):
        min over orders of r_a + ln((a - 1) / a) - (ln delta + ln a) / (a - 1)."""
        ld = math.log(self.delta)
        eps = [
            r + math.log((a - 1) / a) - (ld + math.log(a)) / (a - 1)
            for a, r in zip(self.orders, self.values)
        ]
        return max(0.0, min(eps))

    def describe(self) -> str:
        return self.spec or "RDP curve"


@dataclass(frozen=True, slots=True)
class ProfileTable(_MarginClaim):
    """A privacy profile given as delta(eps) at listed eps (a privacy loss distribution's)."""

    epsilons: tuple[float, ...]
    deltas: tuple[float, ...]
    spec: str = ""
    delta: float = REFERENCE_DELTA
    unit = "probit margin"
    kind = "pld"
    _e: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_e", np.exp(np.minimum(np.asarray(self.epsilons), 700.0)))

    def tradeoff(self, alpha) -> np.ndarray:
        a = np.asarray(alpha, dtype=float)[..., None]
        d = np.asarray(self.deltas)
        f = np.maximum(1 - d - self._e * a, (1 - d - a) / self._e)
        return np.maximum(np.max(f, axis=-1), 0.0)

    def statistic(self, lo, hi) -> np.ndarray:
        """``Phi^-1(f(alpha)) - Phi^-1(beta)`` at the certified point (alpha = hi, beta =
        1 - lo): positive exactly when beta < f(alpha), as the plain margin ``f(alpha) - beta``
        is, but on the probit scale, where an event near-empty or near-whole under both
        datasets is not near 0. On the plain scale such an event (margin about 0) outranked
        every informative one of a correct mechanism (whose margins are negative), and an
        audit of randomized response at its exact profile certified an empty event,
        inconclusive, on 8 of 10 seeds."""
        lo, hi = _arrays(lo, hi)
        with np.errstate(divide="ignore", invalid="ignore"):
            out = special.ndtri(self.tradeoff(hi)) + special.ndtri(lo)
        return np.nan_to_num(out, nan=-np.inf, posinf=np.inf, neginf=-np.inf)

    @property
    def epsilon(self) -> float:
        """The smallest listed eps whose delta is at most the reference delta (a table
        only bounds delta(eps) at its points)."""
        ok = [e for e, d in zip(self.epsilons, self.deltas) if d <= self.delta]
        return max(0.0, min(ok)) if ok else math.inf

    def describe(self) -> str:
        return self.spec or "privacy profile table"


Profile = GaussianDP | RenyiProfile | ProfileTable


@dataclass(frozen=True, slots=True)
class GdpDetection:
    """A profile's detectability, read in GDP mu: which mu-GDP mechanism (one whose events
    trace the Gaussian curve) this audit's event, of probability ``alpha`` under the
    denominator dataset, would catch violating the profile. Its ``scale`` is the profile's
    GDP reading at that alpha, the mu whose curve crosses the claimed one there (mu itself for
    a GDP claim)."""

    profile: Profile
    alpha: float
    unit = "mu"

    @property
    def threshold(self) -> float:
        return self.profile.threshold

    def statistic(self, lo, hi) -> np.ndarray:
        return self.profile.statistic(lo, hi)

    def numerator(self, q: float, strength: float) -> float:
        return float(special.ndtr(special.ndtri(q) + strength))

    def denominator(self, p: float, strength: float) -> float:
        return float(special.ndtr(special.ndtri(p) - strength))

    @property
    def scale(self) -> float:
        p = self.profile
        if isinstance(p, GaussianDP):
            return p.mu
        a = min(max(self.alpha, 1e-12), 1 - 1e-12)
        f = float(p.tradeoff(np.array([a]))[0])
        with np.errstate(divide="ignore"):
            gap = float(special.ndtri(1 - a) - special.ndtri(f))
        return max(gap, 0.0) if not math.isnan(gap) else 0.0


def _positive(text: str, what: str, spec: str, example: str) -> float:
    try:
        v = float(text)
    except ValueError:
        v = math.nan
    if not (math.isfinite(v) and v > 0):
        raise InputError(f"profile {spec!r}: {what}={text!r} must be a number > 0, e.g. {example}.")
    return v


def _load(path: str, spec: str) -> dict:
    if not path:
        raise InputError(f"profile {spec!r} names no file; give one, as in {spec}curve.json.")
    p = Path(path)
    if not p.is_file():
        what = "is a folder" if p.is_dir() else "does not exist"
        raise InputError(f"profile {spec!r}: {path!r} {what}; give a JSON file.")
    try:
        data = json.loads(p.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(
            f"profile {spec!r}: {path!r} is not valid JSON ({exc}); give a JSON file as the "
            "help shows (`dpaudit audit --help`, --profile)."
        ) from None
    if not isinstance(data, dict):
        raise InputError(f"profile {spec!r}: {path!r} must hold a JSON object.")
    return data


def _columns(data: dict, keys: tuple[str, str], spec: str, example: str) -> tuple[tuple, tuple]:
    cols = []
    for key in keys:
        v = data.get(key)
        if not isinstance(v, list) or not v:
            raise InputError(
                f"profile {spec!r}: key {key!r} must be a non-empty list of numbers, "
                f"e.g. {example}."
            )
        if not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in v):
            # (true was read as 1.0, "0.5" as 0.5)
            raise InputError(
                f"profile {spec!r}: {key}={v!r} must be a list of numbers, e.g. {example}."
            )
        cols.append(tuple(float(x) for x in v))
    if len(cols[0]) != len(cols[1]):
        raise InputError(
            f"profile {spec!r}: {keys[0]} and {keys[1]} have {len(cols[0])} and "
            f"{len(cols[1])} entries; give one value of {keys[1]} per entry of {keys[0]}."
        )
    return cols[0], cols[1]


def _rdp(data: dict, spec: str, delta: float) -> RenyiProfile:
    example = '{"orders": [2, 4, 8], "rdp": [0.1, 0.2, 0.4]}'
    orders, values = _columns(data, ("orders", "rdp"), spec, example)
    for a in orders:
        if not (math.isfinite(a) and a > 1):
            raise InputError(f"profile {spec!r}: order {a!r} must be > 1, e.g. {example}.")
    for r in values:
        if not (r >= 0 and not math.isnan(r)):
            raise InputError(f"profile {spec!r}: rdp value {r!r} must be >= 0, e.g. {example}.")
    return RenyiProfile(orders, values, spec, delta)


def _table(data: dict, spec: str, delta: float) -> ProfileTable:
    example = '{"epsilons": [0, 0.5, 1], "deltas": [0.3, 0.1, 0.01]}'
    eps, deltas = _columns(data, ("epsilons", "deltas"), spec, example)
    for e in eps:
        if not (math.isfinite(e) and e >= 0):
            raise InputError(f"profile {spec!r}: epsilon {e!r} must be finite and >= 0.")
    for d in deltas:
        if not 0 <= d <= 1:
            raise InputError(f"profile {spec!r}: delta {d!r} must be in [0, 1].")
    return _readable(ProfileTable(eps, deltas, spec, delta))


def _readable(table: ProfileTable) -> ProfileTable:
    if math.isinf(table.epsilon):
        raise InputError(
            f"profile {table.describe()!r} has no epsilon with delta <= {table.delta:g} (its "
            f"smallest delta is {min(table.deltas):g}); read it at a larger delta (--delta)."
        )
    return table


MAX_MU = 100.0  # mu-GDP beyond this is delta(eps) ~ 1 at every epsilon an audit could reach


def _gdp(mu: float, spec: str, delta: float) -> GaussianDP:
    if not mu <= MAX_MU:
        raise InputError(
            f"profile {spec!r} has mu = {mu:g} > {MAX_MU:g}: that Gaussian protects nothing "
            "(delta ~ 1 at every epsilon an audit can reach); check sigma (e.g. gaussian:2)."
        )
    return GaussianDP(mu, spec, delta)


def parse_profile(spec: str, delta: float | None = None) -> Profile:
    """``KIND:PARAMS`` (the CLI's ``--profile``) as a profile; bad input is an InputError
    naming the value and the fix."""
    ref = REFERENCE_DELTA if delta is None else delta
    if not isinstance(spec, str) or ":" not in spec:
        raise InputError(f"profile {spec!r} must be KIND:PARAMS, one of {PROFILE_HELP}.")
    kind, _, rest = spec.partition(":")
    kind = kind.strip().lower()
    if kind not in PROFILE_KINDS:
        raise InputError(
            f"profile kind {kind!r} is unknown; use one of {PROFILE_HELP} (e.g. gdp:1)."
        )
    if kind == "gaussian":
        parts = rest.split(":")
        if len(parts) > 2:
            raise InputError(f"profile {spec!r} must be gaussian:SIGMA[:SENSITIVITY].")
        sigma = _positive(parts[0], "sigma", spec, "gaussian:2")
        sens = _positive(parts[1], "sensitivity", spec, "gaussian:2:1") if len(parts) > 1 else 1.0
        return _gdp(sens / sigma, spec, ref)
    if kind == "gdp":
        return _gdp(_positive(rest, "mu", spec, "gdp:1"), spec, ref)
    if kind == "zcdp":
        rho = _positive(rest, "rho", spec, "zcdp:0.5")
        orders = zcdp_orders(rho)
        return RenyiProfile(orders, tuple(rho * a for a in orders), spec, ref)
    data = _load(rest, spec)
    return _rdp(data, spec, ref) if kind == "rdp" else _table(data, spec, ref)


# the eps at which a privacy loss distribution's delta(eps) is read
PLD_GRID = tuple(
    float(x) for x in np.concatenate([np.linspace(0, 2, 81), np.linspace(2.05, 20, 360)])
)


def _from_pld(pld: Any, spec: str, delta: float) -> ProfileTable:
    deltas = pld.get_delta_for_epsilon(np.asarray(PLD_GRID))
    clipped = tuple(float(min(max(d, 0.0), 1.0)) for d in deltas)
    return _readable(ProfileTable(PLD_GRID, clipped, spec, delta))


def _from_event(event: Any, delta: float) -> Profile:
    name = type(event).__name__
    if name == "GaussianDpEvent":
        nm = float(event.noise_multiplier)
        if not nm > 0:
            raise InputError(f"GaussianDpEvent noise_multiplier={nm!r} must be > 0.")
        return _gdp(1 / nm, f"dp_accounting {event!r}", delta)
    from dp_accounting.pld import pld_privacy_accountant

    acc = pld_privacy_accountant.PLDAccountant()
    if not acc.supports(event):
        raise InputError(
            f"profile {name} is not supported by dp_accounting's PLD accountant; "
            "give a gdp:, zcdp:, rdp: or pld: profile instead."
        )
    acc.compose(event)
    deltas = [min(max(float(acc.get_delta(e)), 0.0), 1.0) for e in PLD_GRID]
    return _readable(ProfileTable(PLD_GRID, tuple(deltas), f"dp_accounting {event!r}", delta))


def as_profile(profile: Any, delta: float | None = None) -> Profile:
    """A profile from a ``KIND:PARAMS`` string, a profile object, a dp_accounting
    ``PrivacyLossDistribution`` or a dp_accounting ``DpEvent``."""
    ref = REFERENCE_DELTA if delta is None else delta
    if isinstance(profile, str):
        return parse_profile(profile, ref)
    if isinstance(profile, (GaussianDP, RenyiProfile, ProfileTable)):
        out = profile if delta is None else _with_delta(profile, ref)
        return _readable(out) if isinstance(out, ProfileTable) else out
    if hasattr(profile, "get_delta_for_epsilon"):
        return _from_pld(profile, "dp_accounting privacy loss distribution", ref)
    if type(profile).__module__.startswith("dp_accounting"):
        return _from_event(profile, ref)
    raise InputError(
        f"profile={profile!r} is not a profile; give {PROFILE_HELP}, a dp_accounting "
        "PrivacyLossDistribution or a DpEvent."
    )


def _with_delta(p: Profile, delta: float) -> Profile:
    from dataclasses import replace

    return replace(p, delta=delta)


def profile_source(spec: str) -> str | None:
    """The absolute path of the file an ``rdp:`` or ``pld:`` claim reads (None otherwise): a
    replay run from another folder finds it."""
    kind, _, rest = str(spec).partition(":")
    if kind not in ("rdp", "pld") or not rest or not Path(rest).is_file():
        return None
    return str(Path(rest).resolve())


def profile_report(
    profile: Profile,
    chosen: list,
    lo: np.ndarray,
    hi: np.ndarray,
    stat: np.ndarray,
    best: int,
    pairs: list,
) -> dict[str, Any]:
    """The profile part of an audit result: one certified trade-off point per certified event
    (alpha <= hi, beta <= 1 - lo), the claimed curve, the most violated point, and the
    certified lower bound on the mechanism's GDP mu (for any profile: a GDP reading of the
    same bounds)."""
    from proofs.io import finite_or_none

    points = []
    for k, c in enumerate(chosen):
        alpha, beta = float(hi[k]), float(1 - lo[k])
        points.append(
            {
                "alpha": alpha,
                "beta": beta,
                "claimed_beta": float(profile.tradeoff(np.array([alpha]))[0]),
                "statistic": finite_or_none(float(stat[k])),
                "violates": bool(stat[k] > profile.threshold),
                "event": c.event.describe(),
                "pair": pairs[c.pair_index].label,
            }
        )
    mus = GaussianDP(0.0).statistic(lo, hi) if len(points) else np.zeros(1)
    grid = np.unique(np.concatenate([np.geomspace(1e-6, 0.05, 32), np.linspace(0.05, 1, 65)]))
    return {
        "kind": profile.kind,
        "claim": profile.describe(),
        "source": profile_source(profile.describe()),
        "statistic": profile.unit,
        "threshold": profile.threshold,
        "certified": finite_or_none(float(stat[best])) if best >= 0 else None,
        "claimed_mu": profile.mu if isinstance(profile, GaussianDP) else None,
        "mu_lower_bound": finite_or_none(max(0.0, float(np.max(mus)))),
        "reference_delta": profile.delta,
        "claimed_epsilon_at_delta": finite_or_none(profile.epsilon),
        "points": points,
        "most_violated": best if best >= 0 else None,
        "curve": [[float(a), float(b)] for a, b in zip(grid, profile.tradeoff(grid))],
    }
