"""Samplers built from :mod:`proofs` descriptions: what the proof checker reasons about is what
the auditor samples.

``sampler_for(description)`` returns a vectorised ``sample(data, size, rng) -> ndarray``
(``size`` outputs) for a description with numeric parameters. The input ``data`` is what the
description's neighbours relate:

==========================  ===============================================================
description                 data -> one output
==========================  ===============================================================
AlphaCoinRR, ForcedResponse a bit -> a bit
KAryRR                      a category 0..k-1 -> a label ``c0``..``c{k-1}``
Laplace, Gaussian           f(x), a number -> f(x) + noise, on the 2^-24 grid
FloatLaplace                f(x), a number -> f(x) + Lap(b) as a raw double (NumPy's sampler)
SignedZeroLaplace           f(x), a number -> the same, answers within the threshold as 0.0 * f(x)
LaplaceVector               f(x), a vector -> f(x) + noise per coordinate, on the grid
TwoSidedGeometric           f(x), an integer -> an integer
Histogram                   records (bin indices) -> noisy counts of the ``bins`` bins
ExponentialMechanism        the utilities u(x, r) of the outcomes -> the chosen outcome
ReportNoisyMax              the query answers -> the index of the noisy maximum
NoisyMaxValue               the query answers -> the largest noisy answer, on the grid
SparseVector                the query answers -> a flag per query (then values, if revealed)
Composition                 the input of every part -> the parts' outputs side by side
OneBitTelemetry             a value in [0, m] -> a bit
RepeatedOneBit              a value in [0, m] -> T bits (one bit repeated when memoized)
Rappor                      a client value (int) -> the k reported bits of one report
UnaryEncoding               a client value (int) -> the k reported bits
LocalHashing                a client value (int) -> the k-bit support of the report (H, y)
HadamardResponse            a client value (int) -> an index in 0..K-1
SubsetSelection             a client value (int) -> the k-bit indicator of the reported set
FiniteMechanism             an input of the table -> an output of the table
==========================  ===============================================================

A local-hashing report (H, y) is audited through its support over the k values, the bits
[H(v) = y]: a deterministic function of the report, so a lower bound on its epsilon is one on
the report's (post-processing), and the bits at x and x' already attain the exact epsilon. The
hash is a uniformly random function of the k values (a universal family: collisions have
probability exactly 1/g, as the estimator assumes). Oracles over k values take ``k`` from the
catalogue entry (``ORACLE_VALUES``).

Real-valued outputs are *snapped* to a grid of 2^-24: rounding is post-processing, and on a grid
the float artefacts of textbook samplers vanish (Mironov 2012).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import singledispatch
from typing import Any

import numpy as np

from auditor.engine.pairs import integer_input
from proofs import mechanisms as m
from proofs.errors import InputError

__all__ = ["GRID", "Sampler", "bloom_bits", "sampler_for", "snap", "supported_descriptions"]

Sampler = Callable[[Any, int, np.random.Generator], np.ndarray]
GRID = 2.0**-24
RAPPOR_BITS = 32  # Bloom filter size of the catalogue's RAPPOR samplers (epsilon depends on h only)


def snap(y: np.ndarray) -> np.ndarray:
    """Round to the 2^-24 grid (post-processing; removes low-order float leakage)."""
    return np.round(y / GRID) * GRID


def _num(mech: Any, name: str) -> float:
    value = getattr(mech, name)
    if getattr(value, "free_symbols", None):
        raise InputError(
            f"{type(mech).__name__}.{name}={value} is symbolic; give numbers to "
            "sample a description, e.g. Laplace(scale=10, sensitivity=1)."
        )
    return float(value)


def _arr(data: Any) -> np.ndarray:
    return np.asarray(data, dtype=float)


@singledispatch
def sampler_for(mech: Any, **options: Any) -> Sampler:
    """A vectorised sampler of the mechanism `mech` describes (numeric parameters only)."""
    raise InputError(
        f"no sampler for {type(mech).__name__}; describe the mechanism with one of "
        f"{', '.join(supported_descriptions())}, or audit your own callable."
    )


def supported_descriptions() -> list[str]:
    """Names of the description types :func:`sampler_for` can sample."""
    return sorted(t.__name__ for t in sampler_for.registry if t is not object)


# ---------------------------------------------------------------- randomized response
@sampler_for.register
def _(mech: m.AlphaCoinRR) -> Sampler:
    alpha = _num(mech, "alpha")

    def sample(data, size, rng):
        keep = rng.random(size) < alpha
        return np.where(keep, integer_input(data, 2), rng.integers(0, 2, size))

    return sample


@sampler_for.register
def _(mech: m.ForcedResponse) -> Sampler:
    p_truth, p_yes = _num(mech, "p_truth"), _num(mech, "p_yes")

    def sample(data, size, rng):
        truthful = rng.random(size) < p_truth
        coin = rng.integers(0, 2, size) if p_yes == 0.5 else (rng.random(size) < p_yes)
        return np.where(truthful, integer_input(data, 2), coin)

    return sample


@sampler_for.register
def _(mech: m.KAryRR) -> Sampler:
    k = int(_num(mech, "k"))
    e = math.exp(_num(mech, "epsilon"))
    keep = e / (e + k - 1)
    labels = np.array([f"c{j}" for j in range(k)])

    def sample(data, size, rng):
        x = integer_input(data, k)
        other = (x + rng.integers(1, k, size)) % k
        return labels[np.where(rng.random(size) < keep, x, other)]

    return sample


ORACLE_VALUES = 8  # the domain size of the local-hashing sampler's support bits


@sampler_for.register
def _(mech: m.UnaryEncoding) -> Sampler:
    k = int(_num(mech, "k"))
    p, q = (float(v) for v in mech.bit_probabilities)

    def sample(data, size, rng):
        probs = np.full(k, q)
        probs[integer_input(data, k)] = p
        return (rng.random((size, k)) < probs).astype(np.int64)

    return sample


@sampler_for.register
def _(mech: m.LocalHashing, k: int = ORACLE_VALUES) -> Sampler:
    g = int(_num(mech, "g"))
    e = math.exp(_num(mech, "epsilon"))
    keep = e / (e + g - 1)

    def sample(data, size, rng):
        x = integer_input(data, k)
        hashes = rng.integers(0, g, (size, k))  # H: a uniformly random function of the k values
        other = (hashes[:, x] + rng.integers(1, g, size)) % g
        y = np.where(rng.random(size) < keep, hashes[:, x], other)
        return (hashes == y[:, None]).astype(np.int64)

    return sample


def hadamard_sets(K: int) -> np.ndarray:
    """(K, K) booleans: row v + 1 of the Sylvester Hadamard matrix is +1 (the set C_v)."""
    rows = np.arange(K)[:, None] & np.arange(K)[None, :]
    parity = np.zeros((K, K), dtype=np.int64)
    while rows.any():
        parity ^= rows & 1
        rows >>= 1
    return parity == 0


@sampler_for.register
def _(mech: m.HadamardResponse) -> Sampler:
    K = int(_num(mech, "K"))
    e = math.exp(_num(mech, "epsilon"))
    sets = hadamard_sets(K)

    def sample(data, size, rng):
        row = sets[integer_input(data, K - 1) + 1]
        members, others = np.flatnonzero(row), np.flatnonzero(~row)
        inside = rng.random(size) < e / (1 + e)  # the K/2 members share e/(1+e)
        return np.where(inside, rng.choice(members, size), rng.choice(others, size)).astype(
            np.int64
        )

    return sample


@sampler_for.register
def _(mech: m.SubsetSelection) -> Sampler:
    k, d = int(_num(mech, "k")), int(_num(mech, "d"))
    p_in = float(mech.support_probabilities()[0])  # P[x in S]

    def sample(data, size, rng):
        x = integer_input(data, k)
        keys = rng.random((size, k))
        inside = rng.random(size) < p_in
        # x in S: x and d-1 of the others; else d of the others (uniformly, given either)
        keys[:, x] = np.where(inside, -1.0, 2.0)
        order = np.argsort(keys, axis=1)[:, :d]
        out = np.zeros((size, k), dtype=np.int64)
        np.put_along_axis(out, order, 1, axis=1)
        return out

    return sample


# ---------------------------------------------------------------- additive noise
def _scalar_noise(draw: Callable) -> Sampler:
    """f(x) + noise for a scalar f(x), on the grid; `draw(rng, size)` draws the noise."""

    def sample(data, size, rng):
        return snap(float(data) + draw(rng, size))

    return sample


@sampler_for.register
def _(mech: m.Laplace) -> Sampler:
    b = _num(mech, "scale")
    return _scalar_noise(lambda rng, size: rng.laplace(scale=b, size=size))


@sampler_for.register
def _(mech: m.LaplaceVector) -> Sampler:
    b = _num(mech, "scale")

    def sample(data, size, rng):
        x = _arr(data)
        return snap(x + rng.laplace(scale=b, size=(size, x.size)))

    return sample


@sampler_for.register
def _(mech: m.FloatLaplace) -> Sampler:
    """Raw doubles, not on the grid: the float artefacts are what this description is about."""
    mech.validate()
    b = float(mech.scale)

    def sample(data, size, rng):
        return float(data) + rng.laplace(scale=b, size=size)

    return sample


@sampler_for.register
def _(mech: m.SignedZeroLaplace) -> Sampler:
    """Raw doubles; suppressed answers are ``0.0 * f(x)``, signed as f(x) is."""
    mech.validate()
    b, t = float(mech.scale), float(mech.threshold)

    def sample(data, size, rng):
        noisy = float(data) + rng.laplace(scale=b, size=size)
        return np.where(np.abs(noisy) > t, noisy, 0.0 * float(data))

    return sample


@sampler_for.register
def _(mech: m.Gaussian) -> Sampler:
    sigma = _num(mech, "sigma")
    return _scalar_noise(lambda rng, size: rng.normal(scale=sigma, size=size))


@sampler_for.register
def _(mech: m.GaussianVector) -> Sampler:
    """f(x) + N(0, sigma^2 I_d): the input is the vector f(x), of the description's dimension."""
    from proofs.validate import check_description

    sigma, d = _num(mech, "sigma"), _num(mech, "dimension")
    check_description(mech)  # (a whole number of coordinates, sigma > 0)
    d = int(d)

    def sample(data, size, rng):
        x = _arr(data)
        if x.shape != (d,):
            raise InputError(
                f"input of shape {x.shape} for a {d}-dimensional Gaussian mechanism; give the "
                f"vector f(x) of its {d} coordinates."
            )
        return snap(x + rng.normal(scale=sigma, size=(size, d)))

    return sample


@sampler_for.register
def _(mech: m.TwoSidedGeometric) -> Sampler:
    # the difference of two geometric variables with success probability 1 - e^(-1/b)
    p = -math.expm1(-1 / _num(mech, "scale"))

    def sample(data, size, rng):
        return integer_input(data) + rng.geometric(p, size) - rng.geometric(p, size)

    return sample


@sampler_for.register
def _(mech: m.Histogram) -> Sampler:
    b, bins = _num(mech, "scale"), int(_num(mech, "bins"))

    def sample(data, size, rng):
        counts = np.bincount(np.asarray(data, dtype=int), minlength=bins)[:bins].astype(float)
        return snap(counts + rng.laplace(scale=b, size=(size, bins)))

    return sample


# ---------------------------------------------------------------- selection
@sampler_for.register
def _(mech: m.ExponentialMechanism) -> Sampler:
    _num(mech, "epsilon"), _num(mech, "sensitivity")  # numbers, or a one-line error
    rate = float(mech.rate)

    def sample(data, size, rng):
        u = _arr(data)
        # Gumbel-max: argmax(c u + Gumbel) is distributed as softmax(c u)
        return np.argmax(rate * u + rng.gumbel(size=(size, u.size)), axis=1)

    return sample


def _noisy_answers(noise: str, scale: float) -> Callable:
    """`draw(x, size, rng)`: the answers x plus independent Lap(scale) or Exp(scale) noise."""
    fn = "laplace" if noise == "laplace" else "exponential"

    def draw(x, size, rng):
        return x + getattr(rng, fn)(scale=scale, size=(size, x.size))

    return draw


@sampler_for.register
def _(mech: m.ReportNoisyMax) -> Sampler:
    draw = _noisy_answers(mech.noise, _num(mech, "scale"))

    def sample(data, size, rng):
        return np.argmax(draw(_arr(data), size, rng), axis=1)

    return sample


@sampler_for.register
def _(mech: m.NoisyMaxValue) -> Sampler:
    draw, m_ = _noisy_answers(mech.noise, _num(mech, "scale")), int(_num(mech, "queries"))

    def sample(data, size, rng):
        x = _arr(data)
        if x.size != m_:
            raise InputError(f"data has {x.size} answers; this NoisyMaxValue takes {m_}.")
        return snap(np.max(draw(x, size, rng), axis=1))

    return sample


# ---------------------------------------------------------------- sparse vector, composition
@sampler_for.register
def _(mech: m.SparseVector) -> Sampler:
    """Flags 1 (above), 0 (below), -1 (not answered after the cutoff) per query; with a
    revealed answer, then one value per query (0 where not positive)."""
    mech.validate()
    b_rho, b_nu = _num(mech, "threshold_scale"), _num(mech, "query_scale")
    b_ans, t, c = _num(mech, "answer_scale"), _num(mech, "threshold"), mech.cutoff

    def sample(data, size, rng):
        q = _arr(data)
        if q.size != mech.queries:
            raise InputError(f"data has {q.size} answers; this SparseVector takes {mech.queries}.")
        rho = rng.laplace(scale=b_rho, size=size)
        nu = rng.laplace(scale=b_nu, size=(size, q.size)) if b_nu else np.zeros((size, q.size))
        noisy = q + nu
        if mech.refresh:
            flags = _redrawn_threshold_flags(noisy, rho, b_rho, c, t, rng)
        else:
            above = noisy >= (t + rho)[:, None]
            flags = above.astype(np.int8)
            if c is not None:
                before = np.cumsum(above, axis=1, dtype=np.int16) - above
                flags[before >= c] = -1
        if mech.reveal == "flags":
            return flags
        if mech.reveal == "fresh":
            noisy = q + rng.laplace(scale=b_ans, size=(size, q.size))
        values = np.where(flags == 1, snap(noisy), 0.0)
        return np.hstack([flags.astype(float), values])

    return sample


def _redrawn_threshold_flags(noisy, rho, rho_scale, c, t, rng):
    """Alg. 2 of Lyu, Su and Li redraws the threshold noise after every positive answer."""
    size, m_ = noisy.shape
    flags = np.empty((size, m_), dtype=np.int8)
    count = np.zeros(size, dtype=np.int64)
    for j in range(m_):
        stopped = count >= (c if c is not None else m_ + 1)
        above = (noisy[:, j] >= t + rho) & ~stopped
        flags[:, j] = np.where(stopped, -1, above.astype(np.int64))
        count += above
        rho = np.where(above, rng.laplace(scale=rho_scale, size=size), rho)
    return flags


@sampler_for.register
def _(mech: m.Composition) -> Sampler:
    """The parts run on the same input, their outputs side by side (as floats)."""
    parts = [sampler_for(part) for part in mech.mechanisms]

    def sample(data, size, rng):
        return np.hstack(
            [np.asarray(s(data, size, rng), dtype=float).reshape(size, -1) for s in parts]
        )

    return sample


# ---------------------------------------------------------------- local protocols
def _one_bit_probability(mech: m.OneBitTelemetry | m.RepeatedOneBit) -> Callable[[float], float]:
    e, span = math.exp(_num(mech, "epsilon")), _num(mech, "m")
    product = getattr(mech, "form", "sum") == "product"
    if product:
        return lambda x: 1 / (e + 1) * (x / span) * (e - 1) / (e + 1)
    return lambda x: 1 / (e + 1) + (x / span) * (e - 1) / (e + 1)


@sampler_for.register
def _(mech: m.OneBitTelemetry) -> Sampler:
    p_one = _one_bit_probability(mech)

    def sample(data, size, rng):
        return (rng.random(size) < p_one(float(data))).astype(np.int64)

    return sample


@sampler_for.register
def _(mech: m.RepeatedOneBit) -> Sampler:
    p_one, reports = _one_bit_probability(mech), int(_num(mech, "reports"))

    def sample(data, size, rng):
        if mech.memoized:
            bit = rng.random(size) < p_one(float(data))
            return np.repeat(bit[:, None], reports, axis=1).astype(np.int8)
        return (rng.random((size, reports)) < p_one(float(data))).astype(np.int8)

    return sample


def bloom_bits(value: int, k: int, h: int) -> np.ndarray:
    """The catalogue's Bloom encoding of an integer value: h distinct bits of k, chosen by a
    generator seeded with the value (the same on every call)."""
    bits = np.zeros(k, dtype=np.int64)
    seq = np.random.default_rng([0x5AB1, int(value) & 0xFFFFFFFF])
    bits[seq.choice(k, size=h, replace=False)] = 1
    return bits


@sampler_for.register
def _(mech: m.Rappor, bits: int = RAPPOR_BITS) -> Sampler:
    from auditor.local.rappor import instantaneous_response, permanent_response

    f, p, q, h = (_num(mech, name) for name in ("f", "p", "q", "h"))

    def sample(data, size, rng):
        bloom = np.broadcast_to(bloom_bits(integer_input(data), bits, int(h)), (size, bits))
        perm = permanent_response(bloom, f, rng)
        if mech.reports == "unlimited":  # what many reports reveal: the memoized PRR
            return perm.astype(np.int64)
        return instantaneous_response(perm, p, q, rng).astype(np.int64)

    return sample


@sampler_for.register
def _(mech: m.FiniteMechanism) -> Sampler:
    rows = {}
    for x, row in mech.pmf.items():
        outputs = list(row)
        probs = np.array([float(row[y]) for y in outputs])
        rows[x] = (np.array(outputs, dtype=object), probs / probs.sum())

    def sample(data, size, rng):
        if data not in rows:
            raise InputError(f"input {data!r} is not in the table; use one of {list(rows)}.")
        outputs, probs = rows[data]
        return outputs[rng.choice(len(outputs), size=size, p=probs)]

    return sample
