"""Samplers of catalogue entries whose implementation is not one of the :mod:`proofs`
descriptions as such: a post-processing of one (clamping, the maximum value), an encoding of the
input (one number copied to every coordinate), or a mechanism the proof checker cannot describe
yet (floating-point artefacts, exponential noise, the sparse vector technique).

Each factory takes the entry's epsilon and returns ``sample(data, size, rng) -> ndarray``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from auditor.catalogue.samplers import Sampler, sampler_for, snap

__all__ = [
    "clamped",
    "cumulative",
    "float_laplace",
    "noisy_max_value",
    "numerical_sparse_vector",
    "report_noisy_max_exponential",
    "same_input_everywhere",
    "side_by_side",
    "sparse_vector",
]


def float_laplace(scale: float) -> Sampler:
    """f(x) + Lap(scale) as raw doubles: the textbook sampler whose low-order bits leak."""

    def sample(data, size, rng):
        return float(data) + rng.laplace(scale=scale, size=size)

    return sample


def same_input_everywhere(vector_sampler: Sampler, k: int) -> Sampler:
    """A vector mechanism fed one number in each of its k coordinates (k mechanisms run on the
    same input)."""

    def sample(data, size, rng):
        return vector_sampler(np.full(k, float(data)), size, rng)

    return sample


def clamped(base: Sampler, lo: int, hi: int) -> Sampler:
    """The output of `base` clamped to [lo, hi] (post-processing)."""

    def sample(data, size, rng):
        return np.clip(base(data, size, rng), lo, hi)

    return sample


def cumulative(vector_sampler: Sampler) -> Sampler:
    """The prefix sums of a vector mechanism's output (PrefixSum of Wang et al. 2019 on noisy
    answers: an invertible post-processing)."""

    def sample(data, size, rng):
        return np.cumsum(vector_sampler(data, size, rng), axis=1)

    return sample


def side_by_side(*samplers: Sampler) -> Sampler:
    """Several mechanisms run on the same input, their outputs concatenated (DP-Sniper's
    parallel compositions, Bichsel et al. 2021)."""

    def sample(data, size, rng):
        return np.hstack([np.asarray(s(data, size, rng), dtype=float) for s in samplers])

    return sample


def _noisy(noise: str, scale: float) -> Callable:
    def draw(x, size, rng):
        if noise == "laplace":
            return x + rng.laplace(scale=scale, size=(size, x.size))
        return x + rng.exponential(scale=scale, size=(size, x.size))

    return draw


def report_noisy_max_exponential(scale: float) -> Sampler:
    """The index of the largest answer plus Exp(scale) noise (Ding et al. 2018, Alg. 6)."""
    draw = _noisy("exponential", scale)

    def sample(data, size, rng):
        return np.argmax(draw(np.asarray(data, dtype=float), size, rng), axis=1)

    return sample


def noisy_max_value(noise: str, scale: float) -> Sampler:
    """The largest noisy answer itself, not its index (Ding et al. 2018, Alg. 7 and 8)."""
    draw = _noisy(noise, scale)

    def sample(data, size, rng):
        return snap(np.max(draw(np.asarray(data, dtype=float), size, rng), axis=1))

    return sample


def sparse_vector(variant: int, c: int = 1, t: float = 1.0) -> Callable[[float], Sampler]:
    """Algorithms 1-6 of Lyu, Su and Li (2017), Figure 1, with cutoff c and threshold T: the
    answers are 1 (above), 0 (below) and -1 (not answered after the cutoff); Alg. 3 also
    outputs the noisy answers of the positive queries."""

    def make(eps: float) -> Sampler:
        e1 = eps / 4 if variant == 4 else eps / 2
        e2 = eps - e1
        rho_scale = c / e1 if variant == 2 else 1 / e1
        nu_scale = {1: 2 * c / e2, 2: 2 * c / e2, 3: c / e2, 4: 1 / e2, 5: 0.0, 6: 1 / e2}[variant]

        def sample(data, size, rng):
            q = np.asarray(data, dtype=float)
            rho = rng.laplace(scale=rho_scale, size=size)
            nu = (
                rng.laplace(scale=nu_scale, size=(size, q.size))
                if nu_scale
                else np.zeros((size, q.size))
            )
            noisy = q + nu
            if variant == 2:
                flags = _redrawn_threshold_flags(noisy, rho, rho_scale, c, t, rng)
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


def numerical_sparse_vector(c: int = 2, t: float = 1.0) -> Callable[[float], Sampler]:
    """Numerical sparse vector (Wang, Ding, Wang, Kifer and Zhang 2019, ShadowDP, Fig. 1 as
    run by DP-Sniper): threshold noise Lap(3/eps), comparison noise Lap(6c/eps); a query above
    the noisy threshold is answered with fresh noise Lap(3c/eps), one below with 0; after c
    answers the rest are not answered. Outputs the flags (1, 0, -1) then the values."""

    def make(eps: float) -> Sampler:
        def sample(data, size, rng):
            q = np.asarray(data, dtype=float)
            rho = rng.laplace(scale=3 / eps, size=size)
            above = q + rng.laplace(scale=6 * c / eps, size=(size, q.size)) >= (t + rho)[:, None]
            values = q + rng.laplace(scale=3 * c / eps, size=(size, q.size))
            flags = above.astype(np.int8)
            before = np.cumsum(above, axis=1, dtype=np.int16) - above
            flags[before >= c] = -1
            answered = np.where(flags == 1, snap(values), 0.0)
            return np.hstack([flags.astype(float), answered])

        return sample

    return make


def _redrawn_threshold_flags(noisy, rho, rho_scale, c, t, rng):
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


def described(make_description: Callable) -> Callable[[float], Sampler]:
    """The sampler of the description built at epsilon."""
    return lambda eps: sampler_for(make_description(eps))
