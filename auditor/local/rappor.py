"""RAPPOR as a reference protocol: encoding, both randomized responses, simulation and decoding.

Erlingsson, Pihur and Korolova, "RAPPOR: Randomized Aggregatable Privacy-Preserving Ordinal
Response", CCS 2014 (section numbers below refer to it). Notes 001 describe the same scheme.

Client side, for a value v of a client in cohort j (section 2):

1. *Bloom filter*: B is k bits, set at ``H_1(v), ..., H_h(v)`` where the hash functions depend on
   the cohort (here: SHA-256 of cohort, hash index and value, reduced mod k; deterministic).
2. *Permanent randomized response* (PRR): ``B'_i = 1`` w.p. f/2, ``0`` w.p. f/2, ``B_i`` w.p.
   1 - f. It is memoized per (client, value) and reused for every report of that value; here the
   PRR is a pure function of the client's secret and the value (as the reference implementation
   derives it from an HMAC of a client secret), so memoization needs no mutable state.
3. *Instantaneous randomized response* (IRR), fresh on every report: ``S_i = 1`` w.p. q when
   ``B'_i = 1`` and w.p. p when ``B'_i = 0``.

Privacy (section 3.1-3.2; neighbouring = one client's value changes): the PRR alone, i.e. any
number of reports of one value, is ``eps_inf = 2 h ln((1 - f/2) / (f/2))``-DP; one report is
``eps_1 = h ln(q* (1 - p*) / (p* (1 - q*)))``-DP with ``q* = f (p + q)/2 + (1 - f) q`` and
``p* = f (p + q)/2 + (1 - f) p`` (the probabilities that a reported bit is 1 when the true bit is
1 / 0). With h = 2, f = 1/2: eps_inf = 4 ln 3 = 4.39.

Collector side (section 4): with ``c_ij`` the number of reports from cohort j with bit i set and
``N_j`` the number of reports in cohort j, ``t_ij = (c_ij - (p + f q/2 - f p/2) N_j) / ((1 - f)(q -
p))`` is an unbiased estimate of how many of those clients had bit i set in B. Regressing t on the
candidate values' Bloom bits gives the counts (:func:`decode`).
"""

from __future__ import annotations

import hashlib
import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from proofs.errors import InputError
from proofs.io import SCHEMA_VERSION

__all__ = [
    "SCHEMA_VERSION",
    "RapporAggregate",
    "RapporClient",
    "RapporEstimate",
    "RapporParams",
    "bloom_false_positive_rate",
    "bloom_filter",
    "bloom_indices",
    "bloom_member",
    "candidate_matrix",
    "decode",
    "epsilon_infinity",
    "epsilon_one",
    "instantaneous_response",
    "permanent_response",
    "repeated_reports",
    "reported_bit_probabilities",
    "simulate_aggregate",
]

_BLOCK = 1 << 16


@dataclass(frozen=True, slots=True)
class RapporParams:
    """RAPPOR parameters (section 2): k Bloom bits, h hashes, PRR f, IRR p and q, cohorts m.

    Requires ``k >= 1``, ``1 <= h <= k``, ``0 <= f < 1`` and ``0 <= p < q <= 1``. The paper's
    Chrome deployment used k = 128, h = 2, f = 1/2, p = 1/2, q = 3/4, m = 64 cohorts.
    """

    k: int = 32
    h: int = 2
    f: float = 0.5
    p: float = 0.5
    q: float = 0.75
    cohorts: int = 1

    def __post_init__(self) -> None:
        _check_int("k", self.k, 1, "e.g. k=32 bits")
        _check_int("h", self.h, 1, "e.g. h=2 hash functions")
        _check_int("cohorts", self.cohorts, 1, "use cohorts=1 for no cohorts")
        if self.h > self.k:
            raise InputError(f"h={self.h} hash functions exceed k={self.k} Bloom bits; use h <= k.")
        for name in ("f", "p", "q"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
                raise InputError(f"{name}={v!r} must be a number in [0, 1].")
        if not 0 <= self.f < 1:
            raise InputError(f"f={self.f!r} must be in [0, 1); f=1 makes every report pure noise.")
        if not (0 <= self.p < self.q <= 1):
            raise InputError(
                f"p={self.p!r}, q={self.q!r} must satisfy 0 <= p < q <= 1; e.g. p=0.5, q=0.75."
            )

    def to_dict(self) -> dict[str, Any]:
        return {
            "k": self.k,
            "h": self.h,
            "f": self.f,
            "p": self.p,
            "q": self.q,
            "cohorts": self.cohorts,
        }


def _check_int(name: str, value: Any, low: int, fix: str) -> None:
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < low:
        raise InputError(f"{name}={value!r} must be an integer >= {low}; {fix}.")


# ----------------------------------------------------------------------------------------------
# Privacy parameters (section 3)
# ----------------------------------------------------------------------------------------------


def _description(h: int, f: float, p: float, q: float, reports: str = "one"):
    """The proofs description, after the checks RapporParams makes (h an integer >= 1, f in
    [0, 1), 0 <= p < q <= 1): the helpers below would otherwise return a negative or zero
    epsilon for parameters no RAPPOR has."""
    from proofs.mechanisms import Rappor  # the formulas live with the description

    _check_int("h", h, 1, "e.g. h=2 hash functions")
    for name, v in (("f", f), ("p", p), ("q", q)):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Real) or not 0 <= v <= 1:
            raise InputError(f"{name}={v!r} must be a number in [0, 1].")
    f, p, q = float(f), float(p), float(q)  # (NumPy's float32 and integers too)
    if not f < 1:
        raise InputError(f"f={f!r} must be in [0, 1); f=1 makes every report pure noise.")
    if not p < q:
        raise InputError(f"p={p!r}, q={q!r} must satisfy 0 <= p < q <= 1; e.g. p=0.5, q=0.75.")
    return Rappor(f=f, p=p, q=q, h=h, reports=reports)


def _epsilon(h: int, f: float, p: float, q: float, reports: str) -> float:
    return float(_description(h, f, p, q, reports).epsilon)


def epsilon_infinity(h: int, f: float) -> float:
    """``eps_inf = 2 h ln((1 - f/2) / (f/2))``: the PRR's bound, for any number of reports of one
    value (section 3.1). Infinite for f = 0 (no permanent noise)."""
    _description(h, f, 0.25, 0.75)  # (the checks; p and q do not enter eps_inf)
    return math.inf if f == 0 else _epsilon(h, f, 0.25, 0.75, "unlimited")


def reported_bit_probabilities(f: float, p: float, q: float) -> tuple[float, float]:
    """``(q*, p*)``: P(reported bit = 1 | Bloom bit = 1), P(reported bit = 1 | Bloom bit = 0)."""
    q_star, p_star = _description(1, f, p, q).bit_probabilities()
    return float(q_star), float(p_star)


def epsilon_one(h: int, f: float, p: float, q: float) -> float:
    """``eps_1 = h ln(q* (1 - p*) / (p* (1 - q*)))``: one report (PRR then IRR), section 3.2."""
    described = _description(h, f, p, q, "one")
    q_star, p_star = described.bit_probabilities()  # exact: f = 1e-300 is not f = 0
    if p_star == 0 or q_star == 1:
        return math.inf
    return float(described.epsilon)


# ----------------------------------------------------------------------------------------------
# Client side
# ----------------------------------------------------------------------------------------------


def bloom_indices(value: str, params: RapporParams, cohort: int = 0) -> tuple[int, ...]:
    """The h bit positions ``H_1(v), ..., H_h(v)`` in cohort ``cohort`` (SHA-256 based)."""
    whole = isinstance(cohort, (int, np.integer)) and not isinstance(cohort, bool)
    if not (whole and 0 <= cohort < params.cohorts):
        raise InputError(
            f"cohort={cohort!r} must be an integer in [0, {params.cohorts}); it indexes the "
            "cohorts."
        )
    cohort = int(cohort)  # (hashed as text: 1 and np.int64(1) are one cohort)
    out = []
    for i in range(params.h):
        digest = hashlib.sha256(f"{cohort}\x1f{i}\x1f{value}".encode()).digest()
        out.append(int.from_bytes(digest[:8], "big") % params.k)
    return tuple(out)


def bloom_filter(value: str, params: RapporParams, cohort: int = 0) -> np.ndarray:
    """B: k booleans, True at the value's hashed positions (fewer than h on a collision)."""
    bits = np.zeros(params.k, dtype=bool)
    bits[list(bloom_indices(value, params, cohort))] = True
    return bits


def bloom_member(value: str, bits: np.ndarray, params: RapporParams, cohort: int = 0) -> bool:
    """Is ``value`` in the Bloom filter ``bits`` (the OR of its members' filters)? Every one of
    its hashed positions must be set. One-sided (notes 001, "crash course bloom filters"): a
    member is always found (no false negatives), a non-member may be (a false positive, at
    about :func:`bloom_false_positive_rate`)."""
    bits = np.asarray(bits, dtype=bool)
    if bits.shape != (params.k,):
        raise InputError(
            f"bits of shape {bits.shape} for a {params.k}-bit Bloom filter; give the k = "
            f"{params.k} booleans of a filter built with these parameters."
        )
    return bool(bits[list(bloom_indices(value, params, cohort))].all())


def bloom_false_positive_rate(members: int, params: RapporParams) -> float:
    """The chance that a value not among ``members`` inserted values is found in their filter,
    with each of the h positions uniform and independent: ``(1 - (1 - 1/k)^(h n))^h``."""
    _check_int("members", members, 0, "give the number of values inserted")
    empty = (1 - 1 / params.k) ** (params.h * members)
    return float((1 - empty) ** params.h)


def candidate_matrix(candidates: Sequence[str], params: RapporParams) -> np.ndarray:
    """Bloom bits of each candidate in each cohort: shape (cohorts, k, len(candidates)), 0/1."""
    out = np.zeros((params.cohorts, params.k, len(candidates)), dtype=np.int8)
    for j in range(params.cohorts):
        for v, value in enumerate(candidates):
            out[j, list(bloom_indices(str(value), params, j)), v] = 1
    return out


def permanent_response(bloom: np.ndarray, f: float, rng: np.random.Generator) -> np.ndarray:
    """PRR, vectorised over any array of Bloom bits: 1 w.p. f/2, 0 w.p. f/2, else the bit."""
    u = rng.random(bloom.shape)
    return np.where(u < f / 2, True, np.where(u < f, False, bloom.astype(bool)))


def instantaneous_response(
    memo: np.ndarray, p: float, q: float, rng: np.random.Generator
) -> np.ndarray:
    """IRR, vectorised: each bit is 1 w.p. q where the PRR bit is 1 and w.p. p where it is 0."""
    return rng.random(memo.shape) < np.where(memo, q, p)


@dataclass(frozen=True, slots=True)
class RapporClient:
    """One client: its secret seeds the memoized PRR, so ``memo(v)`` is the same on every call.

    ``report(v, rng)`` applies a fresh IRR to that memo, as a client sends repeatedly.
    """

    params: RapporParams
    secret: int

    @property
    def cohort(self) -> int:
        return self.secret % self.params.cohorts

    def memo(self, value: str) -> np.ndarray:
        seed = hashlib.sha256(f"prr\x1f{self.secret}\x1f{value}".encode()).digest()
        rng = np.random.default_rng(int.from_bytes(seed[:16], "big"))
        return permanent_response(bloom_filter(value, self.params, self.cohort), self.params.f, rng)

    def report(self, value: str, rng: np.random.Generator) -> np.ndarray:
        return instantaneous_response(self.memo(value), self.params.p, self.params.q, rng)


# ----------------------------------------------------------------------------------------------
# Simulation of a population (one report per client)
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RapporAggregate:
    """What the collector keeps: ``bit_counts[j, i]`` = reports in cohort j with bit i set, and
    ``reports[j]`` = reports in cohort j."""

    params: RapporParams
    bit_counts: np.ndarray
    reports: np.ndarray

    def __post_init__(self) -> None:
        shape = (self.params.cohorts, self.params.k)
        try:
            given = [np.asarray(v) for v in (self.bit_counts, self.reports)]
            counts, reports = (v.astype(np.int64) for v in given)
        except (TypeError, ValueError, OverflowError):
            raise InputError("bit_counts and reports must be arrays of counts.") from None
        if any(not np.array_equal(g, c) for g, c in zip(given, (counts, reports))):
            raise InputError("bit_counts and reports must be whole numbers (counts of reports).")
        if counts.shape != shape or reports.shape != (self.params.cohorts,):
            raise InputError(
                f"bit_counts has shape {counts.shape} and reports {reports.shape}; the params "
                f"need {shape} and ({self.params.cohorts},) (cohorts x bits, per cohort)."
            )
        if np.any(counts < 0) or np.any(reports < 0) or np.any(counts > reports[:, None]):
            raise InputError("bit counts must lie between 0 and their cohort's number of reports.")
        object.__setattr__(self, "bit_counts", counts)
        object.__setattr__(self, "reports", reports)

    @property
    def total(self) -> int:
        return int(self.reports.sum())


def simulate_aggregate(
    client_values: np.ndarray,
    candidates: Sequence[str],
    params: RapporParams,
    rng: np.random.Generator,
) -> RapporAggregate:
    """One report from each client; ``client_values[c]`` indexes ``candidates``.

    Each client gets a uniform random cohort, then Bloom filter, PRR and IRR (vectorised, in
    blocks, memory O(block * k)).
    """
    values = _client_values(client_values, candidates)
    bloom = candidate_matrix(candidates, params).astype(bool)  # (cohorts, k, values)
    counts = np.zeros((params.cohorts, params.k), dtype=np.int64)
    reports = np.zeros(params.cohorts, dtype=np.int64)
    for start in range(0, values.size, _BLOCK):
        block = values[start : start + _BLOCK]
        cohort = rng.integers(0, params.cohorts, block.size)
        bits = bloom[cohort, :, block]
        sent = instantaneous_response(
            permanent_response(bits, params.f, rng), params.p, params.q, rng
        )
        np.add.at(counts, cohort, sent.astype(np.int64))
        reports += np.bincount(cohort, minlength=params.cohorts)
    return RapporAggregate(params, counts, reports)


def _client_values(client_values: Any, candidates: Sequence[str]) -> np.ndarray:
    values = np.asarray(client_values)
    if values.ndim != 1 or values.size == 0 or not np.issubdtype(values.dtype, np.integer):
        raise InputError(
            "client_values must be a non-empty 1-D integer array of candidate "
            "indices; map each client's value to its index in candidates."
        )
    if values.min() < 0 or values.max() >= len(candidates):
        raise InputError(
            f"client_values must lie in [0, {len(candidates)}); they index the candidates."
        )
    return values


def repeated_reports(
    client_values: np.ndarray,
    candidates: Sequence[str],
    params: RapporParams,
    reports: int,
    rng: np.random.Generator,
    cohorts: np.ndarray | None = None,
) -> np.ndarray:
    """T = ``reports`` reports from each client, shape (clients, T, k), vectorised.

    Each client's PRR is drawn once (memoized: its value does not change) and every report
    applies a fresh IRR to it, so the T reports of one client are dependent through the memo;
    their privacy loss is capped by ``epsilon_infinity`` however large T is. ``cohorts`` (per
    client) defaults to cohort 0.
    """
    values = _client_values(client_values, candidates)
    _check_int("reports", reports, 1, "e.g. reports=30")
    cohort = np.zeros(values.size, dtype=np.int64) if cohorts is None else np.asarray(cohorts)
    if (
        cohort.shape != values.shape
        or not np.issubdtype(cohort.dtype, np.integer)
        or cohort.min() < 0
        or cohort.max() >= params.cohorts
    ):
        raise InputError(
            f"cohorts must be one integer in [0, {params.cohorts}) per client (params.cohorts)."
        )
    bits = candidate_matrix(candidates, params).astype(bool)[cohort, :, values]
    memo = permanent_response(bits, params.f, rng)
    return instantaneous_response(
        np.repeat(memo[:, None, :], reports, axis=1), params.p, params.q, rng
    )


# ----------------------------------------------------------------------------------------------
# Decoder (section 4)
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RapporEstimate:
    """Estimated number of clients (and fraction of reports) holding each candidate value.

    ``standard_errors`` propagate the binomial variance of the bit counts (plug-in) and, with
    several cohorts, the multinomial variance of the random cohort assignment through the linear
    least-squares map; ``ci_low``/``ci_high`` are normal-approximation (Wald) intervals at
    ``confidence``: the regression has no exact interval.
    """

    params: RapporParams
    candidates: tuple[str, ...]
    counts: np.ndarray
    standard_errors: np.ndarray
    total: int
    method: str
    confidence: float
    rank: int

    @property
    def frequencies(self) -> np.ndarray:
        return self.counts / self.total

    @property
    def frequency_standard_errors(self) -> np.ndarray:
        return self.standard_errors / self.total

    @property
    def ci_low(self) -> np.ndarray:
        return self.counts - _z(self.confidence) * self.standard_errors

    @property
    def ci_high(self) -> np.ndarray:
        return self.counts + _z(self.confidence) * self.standard_errors

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema_version": SCHEMA_VERSION,
            "params": self.params.to_dict(),
            "method": self.method,
            "confidence": self.confidence,
            "reports": self.total,
            "values": [
                {
                    "value": v,
                    "count": float(c),
                    "standard_error": float(s),
                    "frequency": float(c) / self.total,
                    "ci": [float(lo), float(hi)],
                }
                for v, c, s, lo, hi in zip(
                    self.candidates, self.counts, self.standard_errors, self.ci_low, self.ci_high
                )
            ],
        }

    def summary(self, top: int = 10) -> str:
        order = np.argsort(-self.counts)[:top]
        lines = [
            f"RAPPOR decode ({self.method}) of {self.total} reports, "
            f"{len(self.candidates)} candidates, k={self.params.k} h={self.params.h} "
            f"f={self.params.f} p={self.params.p} q={self.params.q} "
            f"cohorts={self.params.cohorts}; {self.confidence:.0%} normal-approx. CIs"
        ]
        for v in order:
            lines.append(
                f"  {self.candidates[v]!s:>12}: {self.frequencies[v]:.4f} "
                f"+- {self.frequency_standard_errors[v]:.4f}"
            )
        return "\n".join(lines)


def _z(confidence: float) -> float:
    """The two-sided normal quantile at `confidence`."""
    from auditor.engine.stats import normal_quantile

    return normal_quantile((1 - confidence) / 2)


def decode(
    aggregate: RapporAggregate,
    candidates: Sequence[str],
    method: str = "ls",
    confidence: float = 0.95,
) -> RapporEstimate:
    """Estimate each candidate's count from the bit counts (section 4).

    The unbiased bit estimates t (stacked over cohorts) satisfy ``E[t] = X n / m``, where X stacks
    the cohorts' candidate Bloom matrices and n is the vector of counts (clients fall into each of
    the m cohorts with probability 1/m). ``method="ls"`` is ordinary least squares, unbiased when X
    has full column rank; ``"nnls"`` is non-negative least squares (scipy.optimize.nnls), with the
    standard errors of least squares (a count it sets to 0 keeps its uncertainty).
    """
    params = aggregate.params
    if method not in ("ls", "nnls"):
        raise InputError(f"method={method!r} must be 'ls' or 'nnls'.")
    if not 0 < confidence < 1:
        raise InputError(f"confidence={confidence!r} must be in (0, 1), e.g. 0.95.")
    design = candidate_matrix(candidates, params).reshape(params.cohorts * params.k, -1)
    design = design / params.cohorts
    rank = int(np.linalg.matrix_rank(design))
    if rank < design.shape[1]:
        raise InputError(
            f"the candidates' Bloom matrix has rank {rank} < {design.shape[1]} "
            "candidates, so their counts are not identifiable; use more bits k, more "
            "cohorts, or fewer candidates."
        )
    if aggregate.total == 0:
        raise InputError("the aggregate holds no reports; there is nothing to decode.")
    t, var_t = _unbiased_bits(aggregate)
    counts = _solve(design, t.reshape(-1), method)
    # every candidate gets least squares' standard error, under "nnls" too: a count it sets to
    # 0 is not known to be 0 (conditional on the active set, its interval was [0, 0], and the
    # intervals of rare values covered 77% of the time at 95%)
    pinv = np.linalg.pinv(design)
    var = (pinv**2) @ var_t.reshape(-1) + _cohort_variance(pinv, design, counts, params.cohorts)
    se = np.sqrt(np.maximum(var, 0.0))
    return RapporEstimate(
        params,
        tuple(str(c) for c in candidates),
        counts,
        se,
        aggregate.total,
        method,
        confidence,
        rank,
    )


def _unbiased_bits(aggregate: RapporAggregate) -> tuple[np.ndarray, np.ndarray]:
    """t_ij and the plug-in variance of t_ij (binomial variance of c_ij, true bit count t_ij)."""
    f, p, q = aggregate.params.f, aggregate.params.p, aggregate.params.q
    scale = (1 - f) * (q - p)
    n_j = aggregate.reports[:, None].astype(float)
    t = (aggregate.bit_counts - (p + f * q / 2 - f * p / 2) * n_j) / scale
    q_star, p_star = reported_bit_probabilities(f, p, q)
    ones = np.clip(t, 0, n_j)
    var_c = ones * q_star * (1 - q_star) + (n_j - ones) * p_star * (1 - p_star)
    return t, var_c / scale**2


def _cohort_variance(
    pinv: np.ndarray, design: np.ndarray, counts: np.ndarray, m: int
) -> np.ndarray:
    """diag(A C A^T) for C = Cov(t) from the multinomial(n_v, 1/m) split of value v over cohorts.

    ``C[r, r'] = sum_v X[r, v] X[r', v] n_v (1[same cohort]/m - 1/m^2)`` with X the raw 0/1 Bloom
    bits, so ``A C A^T = (1/m) sum_j (A_j X_j) N (A_j X_j)^T - (1/m^2) (A X) N (A X)^T``.
    """
    if m == 1:
        return np.zeros(pinv.shape[0])
    n = np.clip(counts, 0, None)
    raw = design * m
    rows = raw.shape[0] // m
    within = sum(
        ((pinv[:, j * rows : (j + 1) * rows] @ raw[j * rows : (j + 1) * rows]) ** 2) @ n
        for j in range(m)
    )
    across = ((pinv @ raw) ** 2) @ n
    return within / m - across / m**2


def _solve(design: np.ndarray, t: np.ndarray, method: str) -> np.ndarray:
    if method == "ls":
        return np.linalg.lstsq(design, t, rcond=None)[0]
    from scipy.optimize import nnls

    return nnls(design, t)[0]
