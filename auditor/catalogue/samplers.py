"""Reference catalogue of vectorised numpy samplers, correct and deliberately broken.

Every sampler has the signature ``sample(data, size, rng) -> ndarray`` (``size`` outputs) and is
built by ``entry.make(epsilon)``. Each :class:`CatalogueEntry` records the claimed epsilon used in
the literature's benchmarks (0.1 unless said otherwise), the true epsilon of the sampler built at
that claim (``math.inf`` when unbounded, ``None`` when unknown), default neighbouring pairs (the
StatDP / DP-Sniper input patterns), and the theorem or paper it comes from.

Real-valued correct samplers *snap* their output to a grid of 2^-24 (rounding is
post-processing, and on a grid the float artefacts of textbook samplers vanish: Mironov 2012);
``laplace.float_textbook`` keeps the raw double and is caught by floating-point events.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
from scipy import optimize, stats

from auditor.engine.pairs import Pair
from proofs.errors import InputError

__all__ = ["CatalogueEntry", "CATALOGUE", "ALIASES", "get", "names", "sampler", "snap"]

Sampler = Callable[[Any, int, np.random.Generator], np.ndarray]
GRID = 2.0**-24


def snap(y: np.ndarray) -> np.ndarray:
    """Round to the 2^-24 grid (post-processing; removes low-order float leakage)."""
    return np.round(y / GRID) * GRID


@dataclass(frozen=True, slots=True)
class CatalogueEntry:
    """A reference mechanism: how to sample it, what it claims, what is true, who says so."""

    name: str
    make: Callable[[float], Sampler]
    claimed_epsilon: float
    true_epsilon_of: Callable[[float], float | None]
    pairs: tuple[Pair, ...]
    source: str
    correct: bool
    relation: str = "sensitivity"
    delta: float = 0.0
    note: str = ""
    aliases: tuple[str, ...] = field(default=())

    @property
    def true_epsilon(self) -> float | None:
        """True epsilon of the sampler built at ``claimed_epsilon`` (inf: unbounded)."""
        return self.true_epsilon_of(self.claimed_epsilon)

    def sampler(self, epsilon: float | None = None) -> Sampler:
        return self.make(self.claimed_epsilon if epsilon is None else epsilon)


def _pairs(*items: tuple[Any, Any, str]) -> tuple[Pair, ...]:
    return tuple(Pair(a, b, label) for a, b, label in items)


def _patterns(n: int, componentwise: bool = True) -> tuple[Pair, ...]:
    """StatDP input patterns (Ding et al. 2018, Sec. 5.1) on the all-ones database of length n."""
    h = n // 2
    one = [1] * n
    items = [(one, [0] + [1] * (n - 1), "one above"), (one, [2] + [1] * (n - 1), "one below")]
    if componentwise:
        items += [
            (one, [2] + [0] * (n - 1), "one above rest below"),
            (one, [0] + [2] * (n - 1), "one below rest above"),
            (one, [2] * h + [0] * (n - h), "half half"),
            (one, [2] * n, "all above"),
            (one, [0] * n, "all below"),
            ([1] * h + [0] * (n - h), [0] * h + [1] * (n - h), "X shape"),
        ]
    return tuple(Pair(a, b, label) for a, b, label in items)


def _arr(data: Any) -> np.ndarray:
    return np.asarray(data, dtype=float)


# ---------------------------------------------------------------- randomized response
def _alpha_coin(eps: float) -> Sampler:
    alpha = math.tanh(eps / 2)  # (e^eps - 1) / (e^eps + 1)

    def sample(data, size, rng):
        keep = rng.random(size) < alpha
        return np.where(keep, int(data), rng.integers(0, 2, size))

    return sample


def _forced_response(eps: float) -> Sampler:
    def sample(data, size, rng):
        truthful = rng.random(size) < 0.5
        return np.where(truthful, int(data), rng.integers(0, 2, size))

    return sample


def _k_ary(eps: float, k: int = 4) -> Sampler:
    keep = math.exp(eps) / (math.exp(eps) + k - 1)
    labels = np.array([f"c{j}" for j in range(k)])

    def sample(data, size, rng):
        x = int(data)
        other = (x + rng.integers(1, k, size)) % k
        return labels[np.where(rng.random(size) < keep, x, other)]

    return sample


# ---------------------------------------------------------------- Laplace family
def _laplace(eps: float) -> Sampler:
    def sample(data, size, rng):
        return snap(float(data) + rng.laplace(scale=1 / eps, size=size))

    return sample


def _laplace_textbook(eps: float) -> Sampler:
    def sample(data, size, rng):
        return float(data) + rng.laplace(scale=1 / eps, size=size)

    return sample


def _laplace_vector(eps: float) -> Sampler:
    def sample(data, size, rng):
        x = _arr(data)
        return snap(x + rng.laplace(scale=1 / eps, size=(size, x.size)))

    return sample


def _laplace_parallel(eps: float, k: int = 20) -> Sampler:
    def sample(data, size, rng):
        return snap(float(data) + rng.laplace(scale=k / eps, size=(size, k)))

    return sample


def _noisy_hist(scale_of: Callable[[float], float]) -> Callable[[float], Sampler]:
    def make(eps: float) -> Sampler:
        b = scale_of(eps)

        def sample(data, size, rng):
            x = _arr(data)
            return snap(x + rng.laplace(scale=b, size=(size, x.size)))

        return sample

    return make


def _histogram(bins: int = 5) -> Callable[[float], Sampler]:
    def make(eps: float) -> Sampler:
        def sample(data, size, rng):
            counts = np.bincount(np.asarray(data, dtype=int), minlength=bins)[:bins].astype(float)
            return snap(counts + rng.laplace(scale=1 / eps, size=(size, bins)))

        return sample

    return make


def _gaussian_sigma(eps: float, delta: float) -> float:
    return math.sqrt(2 * math.log(1.25 / delta)) / eps


def _gaussian(eps: float, delta: float = 1e-5) -> Sampler:
    sigma = _gaussian_sigma(eps, delta)

    def sample(data, size, rng):
        return snap(float(data) + rng.normal(scale=sigma, size=size))

    return sample


def _gaussian_true_eps(eps: float, delta: float = 1e-5) -> float:
    """Exact epsilon at delta of N(0, sigma^2) with sensitivity 1 (Balle and Wang 2018, Thm 8)."""
    s = _gaussian_sigma(eps, delta)

    def gap(e: float) -> float:
        return stats.norm.cdf(0.5 / s - e * s) - math.exp(e) * stats.norm.cdf(-0.5 / s - e * s) - delta

    return float(optimize.brentq(gap, 0.0, 50.0))


# ---------------------------------------------------------------- geometric
def _two_sided_geometric(eps: float) -> Sampler:
    p = -math.expm1(-eps)

    def sample(data, size, rng):
        return int(data) + rng.geometric(p, size) - rng.geometric(p, size)

    return sample


def _truncated_geometric(eps: float, n: int = 5) -> Sampler:
    base = _two_sided_geometric(eps)

    def sample(data, size, rng):
        return np.clip(base(data, size, rng), 0, n)

    return sample


# ---------------------------------------------------------------- exponential mechanism / RNM
def _exponential(factor: float) -> Callable[[float], Sampler]:
    def make(eps: float) -> Sampler:
        def sample(data, size, rng):
            u = _arr(data)
            # Gumbel-max: argmax(eps*factor*u + Gumbel) ~ softmax(eps*factor*u).
            return np.argmax(factor * eps * u + rng.gumbel(size=(size, u.size)), axis=1)

        return sample

    return make


def _rnm(noise: str, report: str) -> Callable[[float], Sampler]:
    def make(eps: float) -> Sampler:
        def sample(data, size, rng):
            x = _arr(data)
            if noise == "laplace":
                z = rng.laplace(scale=2 / eps, size=(size, x.size))
            else:
                z = rng.exponential(scale=2 / eps, size=(size, x.size))
            v = x + z
            return np.argmax(v, axis=1) if report == "index" else snap(np.max(v, axis=1))

        return sample

    return make


# ---------------------------------------------------------------- sparse vector technique
def _svt(variant: int, c: int = 1, t: float = 1.0) -> Callable[[float], Sampler]:
    """Algorithms 1-6 of Lyu, Su and Li (2017), Figure 1, with cutoff c and threshold T."""

    def make(eps: float) -> Sampler:
        e1 = eps / 4 if variant == 4 else eps / 2
        e2 = eps - e1
        rho_scale = {1: 1 / e1, 2: c / e1, 3: 1 / e1, 4: 1 / e1, 5: 1 / e1, 6: 1 / e1}[variant]
        nu_scale = {1: 2 * c / e2, 2: 2 * c / e2, 3: c / e2, 4: 1 / e2, 5: 0.0, 6: 1 / e2}[variant]

        def sample(data, size, rng):
            q = _arr(data)
            rho = rng.laplace(scale=rho_scale, size=size)
            nu = rng.laplace(scale=nu_scale, size=(size, q.size)) if nu_scale else np.zeros((size, q.size))
            noisy = q + nu
            if variant == 2:
                flags = _svt2_flags(noisy, rho, rho_scale, c, t, rng)
            else:
                above = noisy >= (t + rho)[:, None]
                flags = above.astype(np.int8)
                if variant not in (5, 6):
                    before = np.cumsum(above, axis=1, dtype=np.int16) - above
                    flags[before >= c] = -1
            if variant != 3:
                return flags
            values = np.where(flags == 1, snap(noisy), 0.0)
            return np.hstack([flags.astype(float), values])

        return sample

    return make


def _svt2_flags(noisy, rho, rho_scale, c, t, rng):
    """Alg. 2 redraws the threshold noise after every positive answer."""
    size, m = noisy.shape
    flags = np.empty((size, m), dtype=np.int8)
    count = np.zeros(size, dtype=np.int64)
    for j in range(m):
        stopped = count >= c
        above = (noisy[:, j] >= t + rho) & ~stopped
        flags[:, j] = np.where(stopped, -1, above.astype(np.int64))
        count += above
        rho = np.where(above, rng.laplace(scale=rho_scale, size=size), rho)
    return flags


# ---------------------------------------------------------------- RAPPOR and telemetry
_RAPPOR_K, _RAPPOR_H, _F, _P, _Q = 32, 2, 0.5, 0.5, 0.75


def _bloom(value: int) -> np.ndarray:
    bits = np.zeros(_RAPPOR_K, dtype=np.int64)
    seq = np.random.default_rng([0x5AB1, int(value) & 0xFFFFFFFF])
    bits[seq.choice(_RAPPOR_K, size=_RAPPOR_H, replace=False)] = 1
    return bits


def _rappor(one_time: bool) -> Callable[[float], Sampler]:
    """RAPPOR (Erlingsson, Pihur, Korolova 2014): Bloom filter, permanent then instantaneous RR."""

    def make(eps: float) -> Sampler:
        def sample(data, size, rng):
            b = _bloom(int(data))
            u = rng.random((size, _RAPPOR_K))
            perm = np.where(u < _F / 2, 1, np.where(u < _F, 0, b))
            if one_time:
                return perm
            p_one = np.where(perm == 1, _Q, _P)
            return (rng.random((size, _RAPPOR_K)) < p_one).astype(np.int64)

        return sample

    return make


def _rappor_eps(one_time: bool) -> float:
    if one_time:
        return 2 * _RAPPOR_H * math.log((1 - _F / 2) / (_F / 2))
    qs = 0.5 * _F * (_P + _Q) + (1 - _F) * _Q
    ps = 0.5 * _F * (_P + _Q) + (1 - _F) * _P
    return _RAPPOR_H * math.log(qs * (1 - ps) / (ps * (1 - qs)))


def _one_bit(eps: float, m: float = 100.0) -> Sampler:
    e = math.exp(eps)

    def sample(data, size, rng):
        p = 1 / (e + 1) + (float(data) / m) * (e - 1) / (e + 1)
        return (rng.random(size) < p).astype(np.int64)

    return sample


# ---------------------------------------------------------------- the catalogue
_inf = lambda eps: math.inf  # noqa: E731
_same = lambda eps: eps  # noqa: E731
_SVT_PAIRS = _patterns(10)
_RNM_PAIRS = _patterns(5)
_HIST_PAIRS = _patterns(5, componentwise=False)
_LSL = "Lyu, Su and Li (2017), Understanding the Sparse Vector Technique for DP, VLDB, Fig. 1"
_DING18 = "Ding, Wang, Wang, Zhang and Kifer (2018), Detecting Violations of DP (StatDP), CCS"


def _entries() -> list[CatalogueEntry]:
    E = CatalogueEntry
    return [
        E("rr.alpha_coin", _alpha_coin, 0.1, _same, _pairs((0, 1, "bit 0 vs 1")),
          "Warner (1965); keep w.p. alpha else fair coin: eps = ln((1+alpha)/(1-alpha))", True,
          relation="replace-one"),
        E("rr.forced_response", _forced_response, math.log(3), lambda e: math.log(3),
          _pairs((0, 1, "bit 0 vs 1")), "Warner (1965) forced response: truth w.p. 3/4, eps = ln 3",
          True, relation="replace-one"),
        E("rr.k_ary", _k_ary, 0.1, _same, _pairs((0, 1, "category 0 vs 1")),
          "k-ary randomized response (Kairouz, Oh, Viswanath 2014), k=4: eps-LDP", True,
          relation="replace-one"),
        E("laplace.scalar", _laplace, 0.1, _same, _pairs((0.0, 1.0, "0 vs 1")),
          "Laplace mechanism, Dwork, McSherry, Nissim, Smith (2006); Dwork and Roth (2014) Thm 3.6",
          True, aliases=("laplace",)),
        E("laplace.float_textbook", _laplace_textbook, 0.1, _inf, _pairs((0.0, 1.0, "0 vs 1")),
          "Mironov (2012), On significance of the least significant bits for DP: textbook float "
          "Laplace leaks through its low-order bits", False),
        E("laplace.vector_l1", _laplace_vector, 0.1, _same,
          _pairs(([0.0] * 5, [1.0, 0, 0, 0, 0], "one coordinate"),
                 ([0.0] * 5, [0.5, -0.5, 0, 0, 0], "split L1 mass")),
          "Laplace mechanism with L1 sensitivity 1, Dwork and Roth (2014) Thm 3.6", True,
          relation="any"),
        E("laplace_parallel20", _laplace_parallel, 0.1, _same, _pairs((0.0, 1.0, "0 vs 1")),
          "20 Laplace mechanisms with eps/20 each on one input (DP-Sniper's LaplaceParallel, "
          "Bichsel et al. 2021); composition, Dwork and Roth (2014) Thm 3.14", True),
        E("gaussian", _gaussian, 0.5, _gaussian_true_eps, _pairs((0.0, 1.0, "0 vs 1")),
          "Gaussian mechanism sigma = sqrt(2 ln(1.25/delta))/eps, Dwork and Roth (2014) Thm A.1; "
          "true eps at delta from the analytic Gaussian, Balle and Wang (2018) Thm 8", True,
          delta=1e-5),
        E("geometric.two_sided", _two_sided_geometric, 0.1, _same, _pairs((0, 1, "0 vs 1")),
          "Two-sided geometric mechanism, Ghosh, Roughgarden, Sundararajan (2009)", True,
          aliases=("geometric",)),
        E("truncated_geometric", _truncated_geometric, 0.1, _same,
          _pairs((1, 0, "one below"), (1, 2, "one above")),
          "Truncated geometric on {0..5}, Ghosh, Roughgarden, Sundararajan (2009); clamping is "
          "post-processing", True),
        E("exponential.half_factor", _exponential(0.5), 0.1, _same,
          _pairs(([1, 0, 0, 0], [0, 1, 1, 1], "one down rest up"), ([0, 0, 0, 0], [1, 0, 0, 0], "one up")),
          "Exponential mechanism exp(eps u / 2), McSherry and Talwar (2007) Thm 6", True),
        E("exponential.no_half_factor", _exponential(1.0), 0.1, lambda e: 2 * e,
          _pairs(([1, 0, 0, 0], [0, 1, 1, 1], "one down rest up"), ([0, 0, 0, 0], [1, 0, 0, 0], "one up")),
          "Exponential mechanism without the 1/2: 2 eps-DP in general (McSherry and Talwar 2007)",
          False),
        E("report_noisy_max.laplace", _rnm("laplace", "index"), 0.1, _same, _RNM_PAIRS,
          "Report noisy max, argmax with Lap(2/eps): Alg. 5 of " + _DING18, True, aliases=("rnm1",)),
        E("rnm2", _rnm("exponential", "index"), 0.1, _same, _RNM_PAIRS,
          "Report noisy max, argmax with Exp(2/eps): Alg. 6 of " + _DING18, True),
        E("rnm3", _rnm("laplace", "value"), 0.1, lambda e: 5 * e / 2, _RNM_PAIRS,
          "Max value with Lap(2/eps) (Alg. 7 of " + _DING18 + "): post-processing of 5 Laplace "
          "answers, (5 eps/2)-DP, attained in the lower tail on 'all above'", False),
        E("rnm4", _rnm("exponential", "value"), 0.1, _inf, _RNM_PAIRS,
          "Max value with Exp(2/eps) (Alg. 8 of " + _DING18 + "): supports shift, unbounded", False),
        E("noisy_hist1", _noisy_hist(lambda e: 1 / e), 0.1, _same, _HIST_PAIRS,
          "Noisy histogram Lap(1/eps), Dwork and Roth (2014) Sec. 3.3; DP-Sniper NoisyHist1", True),
        E("noisy_hist2", _noisy_hist(lambda e: e), 0.1, lambda e: 1 / e, _HIST_PAIRS,
          "Noisy histogram with Lap(eps) instead of Lap(1/eps): (1/eps)-DP; DP-Sniper NoisyHist2 "
          "(Bichsel et al. 2021), StatDP (Ding et al. 2018)", False),
        E("histogram.add_remove", _histogram(), 0.1, _same,
          _pairs(([0, 1, 2, 3, 4], [0, 1, 2, 3, 4, 0], "add a record in bin 0")),
          "Histogram Lap(1/eps) under add/remove: one count moves by 1, Dwork and Roth (2014) "
          "Sec. 3.3", True, relation="add-remove"),
        E("histogram.replace_one", _histogram(), 0.1, lambda e: 2 * e,
          _pairs(([0, 1, 2, 3, 4], [1, 1, 2, 3, 4], "move a record from bin 0 to bin 1")),
          "Histogram Lap(1/eps) under replace-one: two counts move, L1 sensitivity 2, so 2 eps-DP",
          False, relation="replace-one"),
        E("svt1", _svt(1, t=0.5), 0.1, _same, _SVT_PAIRS, "Alg. 1 of " + _LSL + " (c=1, T=0.5)", True),
        E("svt2", _svt(2), 0.1, _same, _SVT_PAIRS, "Alg. 2 of " + _LSL + " (Dwork and Roth 2014; c=1)", True),
        E("svt3", _svt(3), 0.1, _inf, _SVT_PAIRS, "Alg. 3 of " + _LSL + " (Roth 2011): outputs noisy "
          "answers, not eps'-DP for any eps'", False),
        E("svt4", _svt(4), 0.1, lambda e: (1 + 6 * 1) / 4 * e, _SVT_PAIRS,
          "Alg. 4 of " + _LSL + " (Lee and Clifton 2014): ((1+6c)/4) eps-DP, c=1", False),
        E("svt5", _svt(5), 0.1, _inf, _SVT_PAIRS, "Alg. 5 of " + _LSL + " (Stoddard et al. 2014): "
          "no query noise, infinite", False),
        E("svt6", _svt(6), 0.1, _inf, _SVT_PAIRS, "Alg. 6 of " + _LSL + " (Chen et al. 2015): no "
          "cutoff, infinite", False),
        E("rappor", _rappor(False), _rappor_eps(False), lambda e: _rappor_eps(False),
          _pairs((0, 1, "value 0 vs 1")), "RAPPOR, Erlingsson, Pihur, Korolova (2014) Sec. 3.2: "
          f"eps_1 = h ln(q*(1-p*)/(p*(1-q*))), h={_RAPPOR_H}, f={_F}, p={_P}, q={_Q}", True,
          relation="replace-one"),
        E("one_time_rappor", _rappor(True), _rappor_eps(True), lambda e: _rappor_eps(True),
          _pairs((0, 1, "value 0 vs 1")), "One-time RAPPOR (permanent RR only), Erlingsson et al. "
          "(2014): eps_inf = 2h ln((1-f/2)/(f/2))", True, relation="replace-one"),
        E("one_bit.telemetry", _one_bit, 0.1, _same, _pairs((0.0, 100.0, "x=0 vs x=m")),
          "1-bit telemetry, Ding, Kulkarni, Yekhanin (2017) Sec. 2: eps-LDP", True,
          relation="replace-one"),
    ]


CATALOGUE: dict[str, CatalogueEntry] = {e.name: e for e in _entries()}
ALIASES: dict[str, str] = {a: e.name for e in CATALOGUE.values() for a in e.aliases}


def names() -> list[str]:
    """Catalogue ids, then aliases."""
    return list(CATALOGUE) + list(ALIASES)


def get(name: str) -> CatalogueEntry:
    """The entry for a catalogue id or alias (``rnm1``, ``laplace``, ...)."""
    key = ALIASES.get(name, name)
    if key not in CATALOGUE:
        raise InputError(f"catalogue mechanism {name!r} is unknown; use one of {', '.join(names())}.")
    return CATALOGUE[key]


def sampler(name: str, epsilon: float | None = None) -> Sampler:
    """The sampler of a catalogue entry, built at ``epsilon`` (default: its claimed epsilon)."""
    return get(name).sampler(epsilon)
