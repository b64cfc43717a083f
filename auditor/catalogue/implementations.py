"""Samplers of catalogue entries whose implementation is not one of the :mod:`proofs`
descriptions as such: a post-processing of one (clamping, prefix sums), an encoding of the
input (one number copied to every coordinate).

Each factory takes the entry's epsilon and returns ``sample(data, size, rng) -> ndarray``.
"""

from __future__ import annotations

import numpy as np

from auditor.catalogue.samplers import Sampler

__all__ = ["clamped", "cumulative", "same_input_everywhere"]


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
