"""The oracle bound of the benchmark table (`python -m bench`, `make bench`).

The *oracle bound* is the best epsilon lower bound any sampling audit could certify with the
same certification sample size and the same statistics, if it knew the optimal event in advance
and observed exactly the expected counts: ``max_E ln((CP_lo(n P_D(E), n, a) - delta) / CP_hi(n
P_D'(E), n, a))``, and for a pure claim the better of that (at its share of the level) and the
joint ratio bound on the Poisson prefix (:func:`certified_at`), or the joint bound pooling an
event with one of the other direction from the same family and pair, taken disjoint
(:func:`_pooled`: the auditor's pooled bound, auditor.engine.stats). It is computed from exact
distributions (closed-form CDFs and pmfs) over a family that contains the optimal event for
these mechanisms: thresholds and intervals for monotone-likelihood-ratio scalars, likelihood-
ordered sets for discrete outputs (report noisy max's index, by quadrature over the winning
answer; the sparse vector variants with cutoff 1 or none, by quadrature over the threshold
noise, and numerical sparse vector's patterns times its fresh answers' likelihood-ratio cells,
SVT34Parallel's Alg. 3 patterns times value cells of its compared answers times Alg. 4's
patterns; RAPPOR's bits; table mechanisms), products of coordinate thresholds for product
distributions, and likelihood-ordered sets of the sufficient statistic of shifted Laplace
vectors (a k-fold convolution on a grid: parallel Laplace, prefix sums).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from scipy import special, stats

from auditor.catalogue import entries as samplers
from auditor.engine.stats import (
    JOINT_SHARE,
    cp_lower,
    cp_upper,
    epsilon_bound,
    prefix_mean,
    ratio_lower,
)

__all__ = ["ORACLES", "oracle_bound", "oracle_event"]


# while oracle_event runs: the best (bound, numerator probability, denominator probability,
# whether it is a pooled pair's)
_witness: list[tuple[float, float, float, bool]] | None = None


def certified_at(px, py, n: int, a: float, delta: float) -> np.ndarray:
    """What one event certifies at its expected counts on ``n`` samples, ``a`` the level of
    each of its bounds when it alone is certified: the split bound and, for a pure claim,
    the joint ratio bound on the Poisson prefix, each at its share of the level (as the
    auditor spends it: auditor.engine.session.Session._look)."""
    if delta != 0:
        return epsilon_bound(cp_lower(n * px, n, a), cp_upper(n * py, n, a), delta)
    split = epsilon_bound(
        cp_lower(n * px, n, a * (1 - JOINT_SHARE)), cp_upper(n * py, n, a * (1 - JOINT_SHARE)), 0.0
    )
    lam = prefix_mean(n)
    return np.maximum(split, ratio_lower(lam * px, lam * py, 2 * a * JOINT_SHARE))


POOL_TOP = 300  # the events of each direction tried in pairs, by their own bound


def _pooled(px: np.ndarray, py: np.ndarray, fwd, bwd, n: int, a: float) -> tuple:
    """The best pooled joint bound (auditor.engine.stats, "Pooled") of an event E of the
    family favouring the first dataset with an event F favouring the second, both among the
    POOL_TOP best of their direction, as if disjoint (where their probabilities allow it:
    they sum to at most 1 under each dataset), at the level one event's joint bound gets;
    with the pooled probabilities (P_D(E) + P_D'(F), P_D'(E) + P_D(F)) it is certified on."""
    px, py = px.ravel(), py.ravel()
    take = lambda v: np.argsort(-np.nan_to_num(np.ravel(v), nan=-np.inf))[:POOL_TOP]
    i, j = take(np.broadcast_to(fwd, px.shape))[:, None], take(np.broadcast_to(bwd, px.shape))
    x, y = px[i] + py[j], py[i] + px[j]
    room = (px[i] + px[j] <= 1) & (py[i] + py[j] <= 1)
    lam = prefix_mean(n)
    v = np.where(room, ratio_lower(lam * x, lam * y, 2 * a * JOINT_SHARE), -np.inf)
    k = np.unravel_index(int(np.argmax(v)), v.shape)
    return float(v[k]), float(x[k]), float(y[k]), True


def _bound(px: np.ndarray, py: np.ndarray, n: int, a: float, delta: float) -> float:
    px, py = np.broadcast_arrays(
        np.clip(np.asarray(px, dtype=float), 0, 1), np.clip(np.asarray(py, dtype=float), 0, 1)
    )
    fwd = certified_at(px, py, n, a, delta)
    bwd = certified_at(py, px, n, a, delta)
    pooled = _pooled(px, py, fwd, bwd, n, a) if delta == 0 and px.size else (-np.inf, 0, 0, True)
    if _witness is not None:
        if pooled[0] > _witness[0][0]:  # (certified like one event of these probabilities)
            _witness[0] = pooled
        for num, den, v in ((px, py, fwd), (py, px, bwd)):
            v = np.broadcast_to(np.asarray(v, dtype=float), num.shape).ravel()
            i = int(np.argmax(np.where(np.isnan(v), -np.inf, v)))
            if v[i] > _witness[0][0]:
                _witness[0] = (float(v[i]), float(num.ravel()[i]), float(den.ravel()[i]), False)
    return float(max(np.max(fwd), np.max(bwd), pooled[0], 0.0))


def _intervals(Fx: np.ndarray, Fy: np.ndarray, coarse: int = 300):
    """Probabilities of {<= t}, {> t} and (t_i, t_j] on a grid, from CDF values on the grid."""
    g = np.unique(np.linspace(0, Fx.size - 1, coarse).astype(int))
    i, j = np.triu_indices(g.size, k=1)
    px = np.concatenate([Fx, 1 - Fx, Fx[g[j]] - Fx[g[i]]])
    py = np.concatenate([Fy, 1 - Fy, Fy[g[j]] - Fy[g[i]]])
    return px, py


def _scalar_oracle(
    cdf_x: Callable, cdf_y: Callable, lo: float, hi: float, n: int, a: float, delta: float
) -> float:
    t = np.linspace(lo, hi, 4001)
    return _bound(*_intervals(cdf_x(t), cdf_y(t)), n, a, delta)


def _discrete_oracle(px: np.ndarray, py: np.ndarray, n: int, a: float, delta: float) -> float:
    """Likelihood-ordered sets of each direction, in one family (pooled with each other)."""
    lr = np.log(px + 1e-300) - np.log(py + 1e-300)
    sets = [np.argsort(-lr), np.argsort(lr)]
    x = np.concatenate([np.cumsum(px[o]) for o in sets])
    y = np.concatenate([np.cumsum(py[o]) for o in sets])
    return _bound(x, y, n, a, delta)


def _best_pair(pmfs: list[tuple[np.ndarray, np.ndarray]]) -> Callable[[int, float, float], float]:
    """The oracle over several input pairs, each given by its two output pmfs: the best pair's."""
    return lambda n, a, d: max(_discrete_oracle(px, py, n, a, d) for px, py in pmfs)


def _laplace_cdf(mu: float, b: float) -> Callable:
    return lambda t: stats.laplace.cdf(t, loc=mu, scale=b)


def _laplace_shift(b: float, shift: float = 1.0) -> Callable[[int, float, float], float]:
    return lambda n, a, d: _scalar_oracle(
        _laplace_cdf(0, b), _laplace_cdf(shift, b), -60 * b, 60 * b, n, a, d
    )


def _two_coordinate_box(b: float) -> Callable[[int, float, float], float]:
    """Replace-one histogram: coordinates 0 and 1 shift by -1 and +1; product events, and
    their mirror images (coordinate 0 low, coordinate 1 high) for the other direction."""

    def oracle(n: int, a: float, d: float) -> float:
        t = np.linspace(-30 * b, 30 * b, 1201)
        up_x, up_y = stats.laplace.sf(t, 1, b), stats.laplace.sf(t, 0, b)  # coordinate 0 > t
        dn_x, dn_y = stats.laplace.cdf(t, 1, b), stats.laplace.cdf(t, 2, b)  # coordinate 1 <= t
        lo_x, lo_y = 1 - up_x, 1 - up_y  # coordinate 0 <= t
        hi_x, hi_y = 1 - dn_x, 1 - dn_y  # coordinate 1 > t
        px = np.concatenate([np.outer(up_x, dn_x).ravel(), np.outer(lo_x, hi_x).ravel()])
        py = np.concatenate([np.outer(up_y, dn_y).ravel(), np.outer(lo_y, hi_y).ravel()])
        return _bound(px, py, n, a, d)

    return oracle


def _rnm3(eps: float, m: int = 5) -> Callable[[int, float, float], float]:
    """Max of m Laplace(2/eps) answers, all shifted by 1 ('all above'): CDF F(t-1)^m vs F(t-2)^m."""
    b = 2 / eps

    def oracle(n: int, a: float, d: float) -> float:
        return _scalar_oracle(
            lambda t: stats.laplace.cdf(t, 1, b) ** m,
            lambda t: stats.laplace.cdf(t, 2, b) ** m,
            -40 * b,
            40 * b,
            n,
            a,
            d,
        )

    return oracle


def _argmax_pmf(q: np.ndarray, noise: str, b: float, step: float = 0.01) -> np.ndarray:
    """P[argmax_i (q_i + N_i) = i] for iid Lap(b) or Exp(b) noise N, by quadrature:
    sum over grid cells of P[q_i + N_i in the cell] times prod_{j != i} F_j(cell midpoint)."""
    dist = stats.laplace if noise == "laplace" else stats.expon
    x = np.arange(q.min() - 40 * b, q.max() + 40 * b + step, step)
    mid = (x[1:] + x[:-1]) / 2
    cdf = np.stack([dist.cdf(mid, loc=qi, scale=b) for qi in q])
    cell = np.stack([np.diff(dist.cdf(x, loc=qi, scale=b)) for qi in q])
    out = np.array(
        [(cell[i] * np.prod(np.delete(cdf, i, axis=0), axis=0)).sum() for i in range(q.size)]
    )
    return out / out.sum()


def _argmax(name: str, noise: str) -> Callable[[float], Callable[[int, float, float], float]]:
    """Report noisy max (the index of the largest noisy answer), every catalogue pair."""

    def at(eps: float) -> Callable[[int, float, float], float]:
        b = 2 / eps
        pmfs = [
            (
                _argmax_pmf(np.asarray(p.a, float), noise, b),
                _argmax_pmf(np.asarray(p.b, float), noise, b),
            )
            for p in samplers.get(name).pairs
        ]
        return _best_pair(pmfs)

    return at


def _geometric_pmf(eps: float, x: int, support: np.ndarray) -> np.ndarray:
    al = math.exp(-eps)
    return (1 - al) / (1 + al) * al ** np.abs(support - x)


def _geometric(eps: float) -> Callable[[int, float, float], float]:
    s = np.arange(-2000, 2001)
    return lambda n, a, d: _discrete_oracle(
        _geometric_pmf(eps, 0, s), _geometric_pmf(eps, 1, s), n, a, d
    )


def _truncated(eps: float, top: int = 5) -> Callable[[int, float, float], float]:
    s = np.arange(-2000, 2001)

    def clamp(p):
        out = np.zeros(top + 1)
        np.add.at(out, np.clip(s, 0, top), p)
        return out

    def oracle(n, a, d):
        best = 0.0
        for x, y in ((1, 0), (1, 2)):
            best = max(
                best,
                _discrete_oracle(
                    clamp(_geometric_pmf(eps, x, s)), clamp(_geometric_pmf(eps, y, s)), n, a, d
                ),
            )
        return best

    return oracle


def _softmax_pairs(factor: float, eps: float) -> Callable[[int, float, float], float]:
    pairs = [([1, 0, 0, 0], [0, 1, 1, 1]), ([0, 0, 0, 0], [1, 0, 0, 0])]

    def oracle(n, a, d):
        sm = lambda u: special.softmax(factor * eps * np.asarray(u, float))
        return max(_discrete_oracle(sm(u), sm(v), n, a, d) for u, v in pairs)

    return oracle


def _bernoulli(p: float, q: float) -> Callable[[int, float, float], float]:
    return lambda n, a, d: _discrete_oracle(np.array([1 - p, p]), np.array([1 - q, q]), n, a, d)


def _k_ary(eps: float, k: int = 4) -> Callable[[int, float, float], float]:
    keep = math.exp(eps) / (math.exp(eps) + k - 1)
    other = (1 - keep) / (k - 1)
    px = np.array([keep] + [other] * (k - 1))
    py = np.array([other, keep] + [other] * (k - 2))
    return lambda n, a, d: _discrete_oracle(px, py, n, a, d)


def _gaussian(eps: float, delta: float, move: float = 1.0) -> Callable[[int, float, float], float]:
    """N(0, s^2) against N(1, s^2), s calibrated classically on ``move``. A Gaussian on R^d
    whose inputs are an L2 distance 1 apart is this one: the likelihood ratio depends on the
    output only through its projection on the move, so the best events are half-spaces across
    it, and the projection is N(0, s^2) against N(1, s^2)."""
    s = math.sqrt(2 * math.log(1.25 / delta)) * move / eps
    return lambda n, a, d: _scalar_oracle(
        lambda t: stats.norm.cdf(t, 0, s),
        lambda t: stats.norm.cdf(t, 1, s),
        -12 * s,
        12 * s,
        n,
        a,
        d,
    )


def _laplace_cdf_grid(x: np.ndarray, b: float) -> np.ndarray:
    return np.where(
        x < 0, 0.5 * np.exp(np.minimum(x, 0) / b), 1 - 0.5 * np.exp(-np.maximum(x, 0) / b)
    )


def _threshold_noise(b: float, grid: int) -> tuple[np.ndarray, np.ndarray]:
    """A grid over +-60 b for a Lap(b) threshold noise, and each point's quadrature weight."""
    r = np.linspace(-60 * b, 60 * b, grid)
    return r, np.exp(-np.abs(r) / b) / (2 * b) * (r[1] - r[0])


def _laplace_cells(edges: np.ndarray, q: float, b: float) -> np.ndarray:
    """Masses of q + Lap(b) in the cells cut by ``edges``, the two open tails included."""
    cdf = _laplace_cdf_grid(edges - q, b)
    return np.concatenate([[cdf[0]], np.diff(cdf), [1 - cdf[-1]]])


def _svt_pmf(variant: int, q: np.ndarray, eps: float, t: float) -> np.ndarray:
    """Exact output pmf (by quadrature over the threshold noise) of the catalogue's sparse
    vector with cutoff c = 1 (Alg. 1, 2, 4: the index of the first positive answer, or none)
    or without cutoff (Alg. 6: the 2^m answer patterns), on query answers q."""
    e1 = eps / 4 if variant == 4 else eps / 2
    e2 = eps - e1
    rho_b, nu_b = 1 / e1, {1: 2 / e2, 2: 2 / e2, 4: 1 / e2, 6: 1 / e2}[variant]
    r, g = _threshold_noise(rho_b, 200_001)
    below = np.stack([_laplace_cdf_grid(t + r - qi, nu_b) for qi in q])
    if variant == 6:
        out = []
        for bits in range(1 << q.size):
            w = g.copy()
            for i in range(q.size):
                w *= 1 - below[i] if bits >> i & 1 else below[i]
            out.append(w.sum())
        return np.array(out)
    out, run = [], np.ones_like(r)
    for j in range(q.size):
        out.append((g * run * (1 - below[j])).sum())
        run = run * below[j]
    out.append((g * run).sum())
    return np.array(out)


def _svt3_pmf(q: np.ndarray, eps: float, t: float, step: float = 0.25) -> np.ndarray:
    """Cell probabilities of Alg. 3 with cutoff 1 (it reveals the compared noisy answer): the
    first query above the threshold, i, with its value v = q_i + nu_i >= t + rho in cells of
    width ``step``, or none above. Density of (i, v): f_nu(v - q_i) times the threshold-noise
    mass of {rho <= v - t} on which every earlier query stayed below (quadrature over rho)."""
    b = 2 / eps  # rho ~ Lap(1/eps1), nu ~ Lap(c/eps2), eps1 = eps2 = eps/2, c = 1
    x = np.arange(-60 * b, 60 * b + step, step)
    g = np.exp(-np.abs(x) / b) / (2 * b) * step
    below = np.stack([_laplace_cdf_grid(t + x - qi, b) for qi in q])  # P[q_j + nu_j < t + r]
    out, run = [], np.ones_like(x)
    for i in range(q.size):
        # C(v) = sum over r <= v - t of g(r) * run(r): on the grid, v - t = x[k] - t
        reach = np.interp(x - t, x, np.cumsum(g * run), left=0.0)
        out.append(np.exp(-np.abs(x - q[i]) / b) / (2 * b) * step * reach)
        run = run * below[i]
    out.append(np.array([(g * run).sum()]))
    pmf = np.concatenate(out)
    return pmf / pmf.sum()  # the quadrature's error in the total mass is about 1e-3


def _svt3(eps: float) -> Callable[[int, float, float], float]:
    pmfs = [
        (_svt3_pmf(np.asarray(p.a, float), eps, 1.0), _svt3_pmf(np.asarray(p.b, float), eps, 1.0))
        for p in samplers.get("svt3").pairs
    ]
    return _best_pair(pmfs)


def _svt(variant: int, t: float = 1.0) -> Callable[[float], Callable[[int, float, float], float]]:
    def at(eps: float) -> Callable[[int, float, float], float]:
        pmfs = [
            (
                _svt_pmf(variant, np.asarray(p.a, float), eps, t),
                _svt_pmf(variant, np.asarray(p.b, float), eps, t),
            )
            for p in samplers.get(f"svt{variant}").pairs
        ]
        return _best_pair(pmfs)

    return at


def _pattern_masses(q: np.ndarray, b_rho: float, b_nu: float, t: float, c: int, grid: int = 40_001):
    """Probabilities of the flag patterns of a sparse vector with cutoff ``c`` and one
    threshold noise Lap(b_rho) (by quadrature over it): {positions of the positives: mass}."""
    r, g = _threshold_noise(b_rho, grid)
    states = {(): g}
    done: dict[tuple, float] = {}
    for k, qk in enumerate(q):
        below = _laplace_cdf_grid(t + r - qk, b_nu)  # P[q_k + nu_k < t + r]
        nxt: dict[tuple, np.ndarray] = {}
        for ones, w in states.items():
            nxt[ones] = nxt.get(ones, 0) + w * below
            up = ones + (k,)
            if len(up) == c:
                done[up] = float((w * (1 - below)).sum())
            else:
                nxt[up] = nxt.get(up, 0) + w * (1 - below)
        states = nxt
    done.update({ones: float(w.sum()) for ones, w in states.items()})
    return done


def _shift_cells(qa: float, qb: float, b: float, cells: int = 100) -> tuple[np.ndarray, np.ndarray]:
    """A value q + Lap(b) under q = qa and q = qb, in cells on which its likelihood ratio is
    (nearly) constant: the two tails beyond the answers and ``cells`` between them."""
    if qa == qb:
        return np.ones(1), np.ones(1)
    edges = np.linspace(min(qa, qb), max(qa, qb), cells + 1)
    return _laplace_cells(edges, qa, b), _laplace_cells(edges, qb, b)


def _numerical_svt(eps: float) -> Callable[[int, float, float], float]:
    """Numerical sparse vector: the flag pattern (pmf by quadrature, cutoff c) and a fresh
    Laplace answer per positive, independent given the pattern; the cells are patterns times
    the answers' likelihood-ratio cells."""
    entry = samplers.get("numerical_svt")
    mech = entry.description
    b_rho, b_nu, b_ans, t = (
        float(getattr(mech, k))
        for k in ("threshold_scale", "query_scale", "answer_scale", "threshold")
    )
    pmfs = []
    for p in entry.pairs:
        qa, qb = np.asarray(p.a, float), np.asarray(p.b, float)
        ma = _pattern_masses(qa, b_rho, b_nu, t, mech.cutoff)
        mb = _pattern_masses(qb, b_rho, b_nu, t, mech.cutoff)
        xs, ys = [], []
        for ones in ma:
            cx, cy = np.array([ma[ones]]), np.array([mb[ones]])
            for i in ones:
                vx, vy = _shift_cells(qa[i], qb[i], b_ans)
                cx, cy = np.outer(cx, vx).ravel(), np.outer(cy, vy).ravel()
            xs.append(cx)
            ys.append(cy)
        pmfs.append(_merged(np.concatenate(xs), np.concatenate(ys)))
    return _best_pair(pmfs)


def _compared_value_cells(
    q: np.ndarray, b_rho: float, b_nu: float, t: float, c: int, cells: int = 200
) -> tuple[dict[tuple, np.ndarray], np.ndarray]:
    """Cell probabilities of a sparse vector that reveals its compared answers (Alg. 3 of Lyu,
    Su and Li) with cutoff ``c`` <= 2: {positions of the positives: masses over their value
    cells (none: a scalar; one: a vector; two: a matrix)}, and the cells' edges.

    Given the threshold noise r, the positives' values v_i = q_i + nu_i are independent with
    v_i >= t + r, so the density of (pattern, values) is prod_i f(v_i - q_i) times
    C(min_i v_i - t), C(u) the mass of {r <= u} weighted by P[every other compared query
    stays below t + r] (quadrature over r). Values lie in ``cells`` cells of width about b_nu/10
    between the answers +- 10 b_nu, and two open tails (their total mass is about 1e-4)."""
    if c > 2:
        raise ValueError(f"cutoff {c}: the value cells are built for at most two positives")
    r, g = _threshold_noise(b_rho, 40_001)
    edges = np.linspace(q.min() - 10 * b_nu, q.max() + 10 * b_nu, cells + 1)
    mid = np.concatenate([[edges[0]], (edges[1:] + edges[:-1]) / 2, [edges[-1]]])

    states: dict[tuple, np.ndarray] = {(): g}
    done: dict[tuple, np.ndarray] = {}
    for k, qk in enumerate(q):
        below = _laplace_cdf_grid(t + r - qk, b_nu)
        nxt: dict[tuple, np.ndarray] = {}
        for ones, w in states.items():
            nxt[ones] = nxt.get(ones, 0) + w * below
            (done if len(ones) + 1 == c else nxt)[ones + (k,)] = w
        states = nxt
    done.update(states)
    out: dict[tuple, np.ndarray] = {}
    for ones, w in done.items():
        reach = np.interp(mid - t, r, np.cumsum(w), left=0.0)  # C(v - t) at the cells
        if not ones:
            out[ones] = np.array(w.sum())
        elif len(ones) == 1:
            out[ones] = _laplace_cells(edges, q[ones[0]], b_nu) * reach
        else:
            low = np.minimum.outer(np.arange(mid.size), np.arange(mid.size))
            out[ones] = (
                np.outer(
                    _laplace_cells(edges, q[ones[0]], b_nu), _laplace_cells(edges, q[ones[1]], b_nu)
                )
                * reach[low]
            )
    return out, edges


def _svt34_parallel(eps: float) -> Callable[[int, float, float], float]:
    """Alg. 3 (compared answers revealed) and Alg. 4 (flags) with cutoff 2 side by side, with
    independent noise: the cells are Alg. 3's patterns times value cells, times Alg. 4's
    patterns; each part's cells are merged by likelihood ratio before the product."""
    entry = samplers.get("svt34_parallel")
    alg3, alg4 = entry.description.mechanisms
    scales = lambda m: (float(m.threshold_scale), float(m.query_scale), float(m.threshold))
    pmfs = []
    for p in entry.pairs:
        qa, qb = np.asarray(p.a, float), np.asarray(p.b, float)
        ca, _ = _compared_value_cells(qa, *scales(alg3), alg3.cutoff)
        cb, _ = _compared_value_cells(qb, *scales(alg3), alg3.cutoff)
        x3, y3 = _merged(
            np.concatenate([np.ravel(ca[k]) for k in ca]),
            np.concatenate([np.ravel(cb[k]) for k in ca]),
            digits=4,
        )
        ma = _pattern_masses(qa, *scales(alg4), alg4.cutoff)
        mb = _pattern_masses(qb, *scales(alg4), alg4.cutoff)
        x4, y4 = np.array(list(ma.values())), np.array([mb[k] for k in ma])
        pmfs.append(_merged(np.outer(x3, x4).ravel(), np.outer(y3, y4).ravel(), digits=4))
    return _best_pair(pmfs)


def _merged(px: np.ndarray, py: np.ndarray, digits: int = 5) -> tuple[np.ndarray, np.ndarray]:
    """Cells with the same log-likelihood ratio (to ``digits`` decimals) merged: the
    likelihood-ordered sets are unchanged up to that rounding, and there are far fewer."""
    keep = (px > 0) | (py > 0)
    px, py = px[keep], py[keep]
    ratio = np.round(np.log(np.maximum(px, 1e-300)) - np.log(np.maximum(py, 1e-300)), digits)
    _, inv = np.unique(ratio, return_inverse=True)
    return np.bincount(inv, px), np.bincount(inv, py)


def _shifted_laplace_sum(k: int, b: float, grid: int = 801) -> Callable[[int, float, float], float]:
    """k coordinates, each Laplace(b) shifted by 1 between the datasets: the likelihood ratio
    is a function of the sum of clip(2y - 1, -1, 1) over the coordinates, whose distribution
    (on a grid) is a k-fold convolution; events are its likelihood-ordered sets."""
    edges = np.linspace(0.0, 1.0, grid - 1)

    coordinate = lambda mu: _laplace_cells(edges, mu, b)

    def total(mu: float) -> np.ndarray:
        one, out = coordinate(mu), np.array([1.0])
        for _ in range(k):
            out = np.convolve(out, one)
        return np.clip(out, 0, None)

    px, py = total(0.0), total(1.0)
    return lambda n, a, d: _discrete_oracle(px, py, n, a, d)


def _bloom_bits_oracle(name: str) -> Callable[[float], Callable[[int, float, float], float]]:
    """RAPPOR reports: independent bits; only the Bloom bits where the pair's values differ
    tell them apart (product pmf over those bits)."""
    from auditor.catalogue.samplers import bloom_bits

    def at(eps: float) -> Callable[[int, float, float], float]:
        entry = samplers.get(name)
        mech, pair = entry.description, entry.pairs[0]
        one, zero = (float(v) for v in mech.bit_probabilities())
        h = int(mech.h)
        ba, bb = bloom_bits(int(pair.a), 20, h), bloom_bits(int(pair.b), 20, h)
        diff = np.flatnonzero(ba != bb)
        pa, pb = np.array([1.0]), np.array([1.0])
        for i in diff:
            qa = one if ba[i] else zero
            qb = one if bb[i] else zero
            pa, pb = np.outer(pa, [1 - qa, qa]).ravel(), np.outer(pb, [1 - qb, qb]).ravel()
        return lambda n, a, d: _discrete_oracle(pa, pb, n, a, d)

    return at


def _finite(name: str) -> Callable[[float], Callable[[int, float, float], float]]:
    """A table mechanism: the best likelihood-ordered set over the entry's pairs."""

    def at(eps: float) -> Callable[[int, float, float], float]:
        entry = samplers.get(name)
        pmf = entry.describe(eps).pmf
        rows = [
            (
                np.array([float(v) for v in pmf[p.a].values()]),
                np.array([float(v) for v in pmf[p.b].values()]),
            )
            for p in entry.pairs
        ]
        return lambda n, a, d: max(_discrete_oracle(px, py, n, a, d) for px, py in rows)

    return at


def _support_classes(mech) -> tuple[np.ndarray, np.ndarray]:
    """A frequency oracle's report on values x = 0 and x' = 1 by which of the two it supports
    (x only, x' only, both, neither): the likelihood ratio depends on the class alone, so its
    likelihood-ordered sets contain the optimal event. Probabilities under x and under x'."""
    from proofs import mechanisms as m

    e = math.exp(float(mech.epsilon))
    if isinstance(mech, m.KAryRR):
        k = int(mech.k)
        hi, lo = e / (e + k - 1), 1 / (e + k - 1)
        return np.array([hi, lo, 0.0, (k - 2) * lo]), np.array([lo, hi, 0.0, (k - 2) * lo])
    if isinstance(mech, m.UnaryEncoding):
        p, q = (float(v) for v in mech.bit_probabilities)
        px = np.array([p * (1 - q), (1 - p) * q, p * q, (1 - p) * (1 - q)])
        return px, px[[1, 0, 2, 3]]
    if isinstance(mech, m.LocalHashing):  # H(x), H(x') independent and uniform over g values
        g = int(mech.g)
        hi, lo = e / (e + g - 1), 1 / (e + g - 1)
        split = 1 - 1 / g
        px = np.array([split * hi, split * lo, hi / g, 0.0])
        px[3] = 1 - px.sum()
        return px, px[[1, 0, 2, 3]]
    if isinstance(mech, m.HadamardResponse):
        hi, lo = (float(v) for v in mech.levels)
        quarter = int(mech.K) / 4
        px = quarter * np.array([hi, lo, hi, lo])
        return px, px[[1, 0, 2, 3]]
    if isinstance(mech, m.SubsetSelection):
        k, d = int(mech.k), int(mech.d)
        z = math.comb(k - 1, d - 1) * e + math.comb(k - 1, d)
        one = math.comb(k - 2, d - 1)
        px = np.array([one * e, one, math.comb(k - 2, d - 2) * e, math.comb(k - 2, d)]) / z
        return px, px[[1, 0, 2, 3]]
    raise TypeError(type(mech).__name__)


def _frequency_oracle(name: str) -> Callable[[float], Callable[[int, float, float], float]]:
    def at(eps: float) -> Callable[[int, float, float], float]:
        px, py = _support_classes(samplers.get(name).describe(eps))
        return lambda n, a, d: _discrete_oracle(px, py, n, a, d)

    return at


def _oracles() -> dict[str, Callable[[float], Callable[[int, float, float], float]]]:
    alpha = lambda e: math.tanh(e / 2)
    tele = lambda e: 1 / (math.exp(e) + 1)
    return {
        "laplace.scalar": lambda e: _laplace_shift(1 / e),
        "laplace.vector_l1": lambda e: _laplace_shift(1 / e),
        "noisy_hist1": lambda e: _laplace_shift(1 / e),
        "noisy_hist2": lambda e: _laplace_shift(e),
        "histogram.add_remove": lambda e: _laplace_shift(1 / e),
        "histogram.replace_one": lambda e: _two_coordinate_box(1 / e),
        "report_noisy_max.laplace": _argmax("report_noisy_max.laplace", "laplace"),
        "rnm2": _argmax("rnm2", "exponential"),
        "rnm3": _rnm3,
        "geometric.two_sided": _geometric,
        "truncated_geometric": _truncated,
        "exponential.half_factor": lambda e: _softmax_pairs(0.5, e),
        "exponential.no_half_factor": lambda e: _softmax_pairs(1.0, e),
        "rr.alpha_coin": lambda e: _bernoulli((1 + alpha(e)) / 2, (1 - alpha(e)) / 2),
        "rr.forced_response": lambda e: _bernoulli(0.75, 0.25),
        "rr.k_ary": _k_ary,
        "one_bit.telemetry": lambda e: _bernoulli(tele(e), 1 - tele(e)),
        "gaussian": lambda e: _gaussian(e, samplers.get("gaussian").delta),
        "gaussian.vector_l2": lambda e: _gaussian(e, samplers.get("gaussian.vector_l2").delta),
        "gaussian.vector_per_coordinate": lambda e: _gaussian(
            e, samplers.get("gaussian.vector_per_coordinate").delta, 0.25
        ),
        "svt1": _svt(1, 0.5),
        "svt2": _svt(2),
        "svt3": _svt3,
        "svt4": _svt(4),
        "svt6": _svt(6),
        "numerical_svt": _numerical_svt,
        "svt34_parallel": _svt34_parallel,
        "laplace_parallel20": lambda e: _shifted_laplace_sum(20, 20 / e),
        "prefix_sum": lambda e: _shifted_laplace_sum(10, 1 / e),
        "rappor.dpsniper": _bloom_bits_oracle("rappor.dpsniper"),
        "one_time_rappor.dpsniper": _bloom_bits_oracle("one_time_rappor.dpsniper"),
        "truncated_geometric.balcer_vadhan": _finite("truncated_geometric.balcer_vadhan"),
        **{
            f"ldp.{key}": _frequency_oracle(f"ldp.{key}")
            for key in ("grr", "sue", "oue", "blh", "olh", "hadamard", "subset_selection")
        },
    }


ORACLES = _oracles()


def oracle_bound(name: str, epsilon: float, n: int, a: float, delta: float = 0.0) -> float | None:
    """Oracle bound for catalogue entry ``name`` built at ``epsilon`` (None if not available)."""
    key = samplers.ALIASES.get(name, name)
    if key not in ORACLES:
        return None
    return ORACLES[key](epsilon)(n, a, delta)


def oracle_event(
    name: str, epsilon: float, n: int, a: float, delta: float = 0.0
) -> tuple[float, float, float, bool] | None:
    """The oracle bound of ``name`` with its event's probabilities: (bound, P_D(E), P_D'(E),
    False), D the dataset in the numerator (None if no oracle is available, or it certifies
    0); for a pooled pair E, F (:func:`_pooled`), (bound, P_D(E) + P_D'(F), P_D'(E) + P_D(F),
    True): its Poisson prefix counts are certified as one event's by the joint bound."""
    global _witness
    _witness = [(0.0, 0.0, 0.0, False)]
    try:
        bound = oracle_bound(name, epsilon, n, a, delta)
        best = _witness[0]
    finally:
        _witness = None
    if bound is None or not best[0] > 0:
        return None
    return best
