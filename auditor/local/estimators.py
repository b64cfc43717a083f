"""Collector-side estimators for the local protocols, with standard errors and intervals.

Every estimator here is a known increasing affine map of the mean ``pi`` of independent reported
bits, ``theta = (pi - b) / a``, so its default interval is the Clopper-Pearson (exact) interval for
``pi`` mapped through it and clipped to the parameter's range. When the reports are i.i.d. (a
random sample from a super-population) that interval is exact. For a fixed population the bits are
independent with unequal means (a Poisson-binomial sum), whose tails are no heavier than the
binomial's with the same mean beyond one unit from it (Hoeffding 1956, Theorem 4), so the interval
stays valid in practice; the coverage checks in the tests and bench measure it. ``method="normal"``
gives the Wald interval instead (not the default: Clopper-Pearson is exact, Wald is not).

* Randomized response with an alpha-coin (notes 003): ``y_i = x_i`` w.p. alpha, else a fair random
  bit; ``p_hat = sum(y) / (alpha n) - (1 - alpha) / (2 alpha)``. For a fixed population each
  ``y_i`` has variance ``(1 - alpha^2) / 4`` whatever ``x_i`` is, so ``Var(p_hat) = (1 - alpha^2) /
  (4 alpha^2 n)`` exactly, with no unknown in it; for i.i.d. ``x_i ~ Bernoulli(p)`` add the sampling
  variance: ``Var = p (1 - p) / n + (1 - alpha^2) / (4 alpha^2 n)``.
* Forced response (Boruch 1971; notes 002), with the coins of :class:`proofs.ForcedResponse`:
  answer truthfully w.p. ``p_truth``; otherwise say "yes" w.p. ``p_yes`` (the second coin), else
  "no". A report is a forced "yes" w.p. ``f = (1 - p_truth) p_yes``, so ``n_true_hat = (n_obs -
  f N) / p_truth``; with two fair coins (p_truth = p_yes = 1/2, f = 1/4) ``n_true_hat = 2 n_obs -
  N/2``.
* One-bit telemetry (Ding, Kulkarni and Yekhanin, "Collecting Telemetry Data Privately", NeurIPS
  2017, 1BitMean): ``x_i`` in [0, m] is sent as one bit, 1 w.p. ``1/(e^eps + 1) + (x_i/m)(e^eps -
  1)/(e^eps + 1)``; the mean estimate is ``(m/n) sum_i (b_i (e^eps + 1) - 1) / (e^eps - 1)``. (The
  probability is a sum of the two terms; the notes' product form is not a distribution of this
  kind, and the proofs catalogue refutes it.)
* RAPPOR: :func:`rappor_frequency`, from :func:`auditor.local.rappor.decode` (normal approximation).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from proofs.errors import InputError
from proofs.io import SCHEMA_VERSION

if TYPE_CHECKING:
    from auditor.local.rappor import RapporEstimate

__all__ = [
    "SCHEMA_VERSION",
    "Estimate",
    "forced_response_count",
    "one_bit_mean",
    "randomize_forced_response",
    "randomize_one_bit",
    "randomize_rr",
    "rappor_frequency",
    "rr_proportion",
]


@dataclass(frozen=True, slots=True)
class Estimate:
    """An estimate with its standard error and a ``confidence`` interval ``[ci_low, ci_high]``.

    ``standard_error`` is the exact standard error of the estimator under the stated model when
    one is known without unknowns (``se_kind="exact"``), else a plug-in estimate
    (``se_kind="plug-in"``). ``ci_method`` names the interval. ``parameters`` and ``counts`` copy
    the inputs.
    """

    estimator: str
    estimate: float
    standard_error: float
    ci_low: float
    ci_high: float
    confidence: float
    ci_method: str
    se_kind: str
    n: int
    parameters: dict[str, Any] = field(default_factory=dict)
    counts: dict[str, Any] = field(default_factory=dict)

    def covers(self, truth: float) -> bool:
        return self.ci_low <= truth <= self.ci_high

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema_version": SCHEMA_VERSION,
            "estimator": self.estimator,
            "estimate": self.estimate,
            "standard_error": self.standard_error,
            "se_kind": self.se_kind,
            "ci": [self.ci_low, self.ci_high],
            "confidence": self.confidence,
            "ci_method": self.ci_method,
            "n": self.n,
            "parameters": dict(self.parameters),
            "counts": dict(self.counts),
        }

    def summary(self) -> str:
        return (
            f"{self.estimator}: {self.estimate:.6g} +- {self.standard_error:.3g} "
            f"({self.se_kind} s.e.), {self.confidence:.0%} {self.ci_method} interval "
            f"[{self.ci_low:.6g}, {self.ci_high:.6g}] from n = {self.n}"
        )


# ----------------------------------------------------------------------------------------------
# Validation and the shared interval
# ----------------------------------------------------------------------------------------------


def _bits(reports: Any, name: str) -> np.ndarray:
    try:
        arr = np.asarray(reports)
    except ValueError:  # (a ragged nested list)
        raise InputError(f"{name} must be a flat list of 0/1 reports, not nested rows.") from None
    if arr.ndim != 1 or arr.size == 0:
        raise InputError(
            f"{name} must be a non-empty 1-D array of 0/1 reports; got shape {arr.shape}."
        )
    if not np.isin(arr, (0, 1)).all():
        bad = arr[~np.isin(arr, (0, 1))][0]
        raise InputError(f"{name} must hold only 0/1 (or booleans); found {bad!r}.")
    return arr.astype(np.int64)


def _real(name: str, value: Any) -> float:
    """A parameter that must be a real number (a str, None or bool is refused in one line)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise InputError(f"{name}={value!r} must be a number.")
    return float(value)


def _check_alpha(alpha: Any) -> None:
    if not 0 < _real("alpha", alpha) <= 1:
        raise InputError(f"alpha={alpha!r} must be in (0, 1]; alpha = 0 carries no signal.")


def _forced_yes(p_truth: Any, p_yes: Any) -> float:
    """The probability of a forced "yes", (1 - p_truth) p_yes, after checking both coins."""
    t, y = _real("p_truth", p_truth), _real("p_yes", p_yes)
    if not (0 < t <= 1 and 0 <= y <= 1):
        raise InputError(
            f"p_truth={p_truth!r}, p_yes={p_yes!r} must satisfy 0 < p_truth <= 1 and "
            "0 <= p_yes <= 1 (p_yes is the second coin: P[yes | not truthful]); fair coins are "
            "0.5 and 0.5."
        )
    return (1 - t) * y


def _check_confidence(confidence: float, method: str) -> None:
    if not 0 < _real("confidence", confidence) < 1:
        raise InputError(f"confidence={confidence!r} must be in (0, 1), e.g. 0.95.")
    if method not in ("clopper-pearson", "normal"):
        raise InputError(f"method={method!r} must be 'clopper-pearson' or 'normal'.")


def _affine_interval(
    ones: int,
    n: int,
    a: float,
    b: float,
    se: float,
    confidence: float,
    method: str,
    bounds: tuple[float, float],
) -> tuple[float, float]:
    """Interval for theta = (pi - b) / a (a > 0) from ``ones`` of ``n`` bits with mean pi."""
    from auditor.engine.stats import cp_interval, normal_quantile

    if method == "clopper-pearson":
        pi_low, pi_high = cp_interval(ones, n, confidence)
        low, high = (pi_low - b) / a, (pi_high - b) / a
    else:
        z = normal_quantile((1 - confidence) / 2)
        centre = (ones / n - b) / a
        low, high = centre - z * se, centre + z * se
    # clamped into the parameter's range, both ends: an interval lying wholly outside it (all
    # ones from 13 clients) did not cover, so its nearest end is as good as any (low <= high)
    lo_b, hi_b = bounds
    return min(max(low, lo_b), hi_b), max(min(high, hi_b), lo_b)


# ----------------------------------------------------------------------------------------------
# Estimators
# ----------------------------------------------------------------------------------------------


def rr_proportion(
    reports: Sequence[int],
    alpha: float,
    confidence: float = 0.95,
    method: str = "clopper-pearson",
    population: str = "fixed",
) -> Estimate:
    """Proportion of 1s among the respondents' true bits, from alpha-coin randomized response.

    ``population="fixed"``: the estimand is the proportion among these n people; the standard error
    ``sqrt((1 - alpha^2) / (4 alpha^2 n))`` is exact. ``"bernoulli"``: the x_i are i.i.d.
    Bernoulli(p) and the estimand is p; the standard error adds ``p (1 - p) / n`` (plug-in).
    """
    y = _bits(reports, "reports")
    _check_alpha(alpha)
    if population not in ("fixed", "bernoulli"):
        raise InputError(f"population={population!r} must be 'fixed' or 'bernoulli'.")
    _check_confidence(confidence, method)
    n, ones = y.size, int(y.sum())
    estimate = ones / (alpha * n) - (1 - alpha) / (2 * alpha)
    var = (1 - alpha) * (1 + alpha) / (4 * n) / alpha / alpha  # (alpha**2 underflows first)
    if population == "bernoulli":
        p = min(1.0, max(0.0, estimate))
        var += p * (1 - p) / n
    se = math.sqrt(var)
    _check_finite(estimate, se, "alpha", alpha)
    low, high = _affine_interval(
        ones, n, alpha, (1 - alpha) / 2, se, confidence, method, (0.0, 1.0)
    )
    return Estimate(
        "randomized response (alpha-coin) proportion",
        estimate,
        se,
        low,
        high,
        confidence,
        method,
        "exact" if population == "fixed" else "plug-in",
        n,
        {"alpha": alpha, "population": population},
        {"ones": ones},
    )


def forced_response_count(
    reports: Sequence[int],
    p_truth: float = 0.5,
    p_yes: float = 0.5,
    confidence: float = 0.95,
    method: str = "clopper-pearson",
) -> Estimate:
    """Number of true "yes" among N respondents under forced response.

    The coins are those of :class:`proofs.ForcedResponse`: truthful w.p. ``p_truth``, else "yes"
    w.p. ``p_yes``. With ``f = (1 - p_truth) p_yes`` the forced-"yes" probability,
    ``n_true_hat = (n_obs - f N) / p_truth`` (``2 n_obs - N/2`` for fair coins). For a fixed
    population the reported bit has mean ``f + p_truth x_i`` and its variance depends on x_i,
    so the standard error is plug-in: ``sqrt(n1 v1 + n0 v0) / p_truth`` with ``n1 = n_true_hat``.
    """
    y = _bits(reports, "reports")
    forced = _forced_yes(p_truth, p_yes)
    _check_confidence(confidence, method)
    big_n, ones = y.size, int(y.sum())
    estimate = (ones - forced * big_n) / p_truth
    n1 = min(float(big_n), max(0.0, estimate))
    v1 = (forced + p_truth) * (1 - forced - p_truth)
    v0 = forced * (1 - forced)
    se = math.sqrt(n1 * v1 + (big_n - n1) * v0) / p_truth
    low, high = _affine_interval(
        ones, big_n, p_truth / big_n, forced, se, confidence, method, (0.0, float(big_n))
    )
    return Estimate(
        "forced response count",
        estimate,
        se,
        low,
        high,
        confidence,
        method,
        "plug-in",
        big_n,
        {"p_truth": p_truth, "p_yes": p_yes},
        {"yes": ones},
    )


def one_bit_mean(
    reports: Sequence[int],
    epsilon: float,
    m: float,
    confidence: float = 0.95,
    method: str = "clopper-pearson",
) -> Estimate:
    """Mean of x_i in [0, m] from one-bit reports (Ding, Kulkarni, Yekhanin 2017, 1BitMean).

    ``mean_hat = (m/n) sum_i (b_i (e^eps + 1) - 1) / (e^eps - 1)``; its standard error is the
    plug-in ``m (e^eps + 1) / (e^eps - 1) sqrt(pi_hat (1 - pi_hat) / n)`` (an upper bound on the
    fixed-population one, since Poisson-binomial variance is at most the binomial's).
    """
    b = _bits(reports, "reports")
    _check_one_bit(epsilon, m)
    _check_confidence(confidence, method)
    n, ones = b.size, int(b.sum())
    b0, slope = _one_bit_law(epsilon)  # P[bit] = b0 + slope x / m
    pi_hat = ones / n
    estimate = m * ((pi_hat - 0.5) + slope / 2) / slope  # (pi - b0, b0 = 1/2 - slope/2)
    se = m / slope * math.sqrt(pi_hat * (1 - pi_hat) / n)
    _check_finite(estimate, se, "epsilon", epsilon)
    low, high = _affine_interval(ones, n, slope / m, b0, se, confidence, method, (0.0, m))
    return Estimate(
        "one-bit telemetry mean",
        estimate,
        se,
        low,
        high,
        confidence,
        method,
        "plug-in",
        n,
        {"epsilon": epsilon, "m": m},
        {"ones": ones},
    )


def rappor_frequency(estimate: RapporEstimate, value: str) -> Estimate:
    """One candidate's frequency (fraction of reports) from a RAPPOR decode, as an Estimate."""
    try:
        v = estimate.candidates.index(str(value))
    except ValueError:
        raise InputError(
            f"value {value!r} is not among the decoded candidates; decode with it "
            "in the candidate list."
        ) from None
    total = estimate.total
    return Estimate(
        "RAPPOR frequency",
        float(estimate.frequencies[v]),
        float(estimate.frequency_standard_errors[v]),
        float(estimate.ci_low[v]) / total,
        float(estimate.ci_high[v]) / total,
        estimate.confidence,
        "normal",
        "plug-in",
        total,
        {**estimate.params.to_dict(), "decoder": estimate.method, "value": str(value)},
        {"reports": total},
    )


# ----------------------------------------------------------------------------------------------
# Client-side randomizers (vectorised), for simulation
# ----------------------------------------------------------------------------------------------


def randomize_rr(x: Sequence[int], alpha: float, rng: np.random.Generator) -> np.ndarray:
    """y_i = x_i w.p. alpha, else a fair random bit."""
    _check_alpha(alpha)
    x = _bits(x, "x")
    keep = rng.random(x.size) < alpha
    return np.where(keep, x, rng.integers(0, 2, x.size))


def randomize_forced_response(
    x: Sequence[int], rng: np.random.Generator, p_truth: float = 0.5, p_yes: float = 0.5
) -> np.ndarray:
    """Truth w.p. p_truth; otherwise 1 w.p. p_yes (the second coin), else 0."""
    forced = _forced_yes(p_truth, p_yes)
    x = _bits(x, "x")
    u = rng.random(x.size)
    return np.where(u < p_truth, x, (u < p_truth + forced).astype(np.int64))


def randomize_one_bit(
    x: Sequence[float], epsilon: float, m: float, rng: np.random.Generator
) -> np.ndarray:
    """b_i = 1 w.p. 1/(e^eps + 1) + (x_i / m)(e^eps - 1)/(e^eps + 1)."""
    _check_one_bit(epsilon, m)
    try:
        x = np.asarray(x, dtype=float)
    except (TypeError, ValueError):
        raise InputError("x must be numbers in [0, m]; give one value per client.") from None
    if not np.all((x >= 0) & (x <= m)):  # (NaN included: it would send the bit of x = 0)
        raise InputError(f"x must lie in [0, m={m}]; clip the values first (NaN is no value).")
    b0, slope = _one_bit_law(epsilon)
    return (rng.random(x.size) < b0 + (x / m) * slope).astype(np.int64)


def _one_bit_law(epsilon: float) -> tuple[float, float]:
    """(1/(e^eps + 1), (e^eps - 1)/(e^eps + 1)) without overflow or cancellation: the bit's
    probability at x = 0 and its slope in x / m (the second is tanh(eps/2))."""
    slope = math.tanh(epsilon / 2)
    return 0.5 - slope / 2, slope


def _check_finite(estimate: float, se: float, name: str, value: Any) -> None:
    """A parameter inside its range can still be too small for a double: the estimate divides
    by it (alpha = 1e-200 gave ZeroDivisionError; epsilon = 1e-310 an infinite mean)."""
    if not (math.isfinite(estimate) and math.isfinite(se)):
        raise InputError(
            f"{name}={value!r} is too small to estimate from: the estimate or its standard error "
            "overflows a double; such reports carry next to no signal."
        )


def _check_one_bit(epsilon: Any, m: Any) -> None:
    for name, v in (("epsilon", epsilon), ("m", m)):
        if not (math.isfinite(_real(name, v)) and v > 0):
            raise InputError(f"{name}={v!r} must be a finite number > 0.")
    if math.tanh(epsilon / 2) == 0:
        raise InputError(f"epsilon={epsilon!r} is too small for the bit to carry any signal.")
