"""Accuracy of the local-DP estimators at sizes too large for the test suite.

Run: ``.venv/bin/python -m bench.ldp_bench`` or call :func:`run` (returns the printed lines).

* RAPPOR: a 100k-client population over 50 values with a Zipf(1.1) distribution, decoded by least
  squares; z-scores (estimate - truth) / stated s.e. for the top 10 and all 50 values, in several
  configurations; then the spread of z over repeated populations (should be ~1).
* Estimators: unbiasedness (mean error in units of its standard error) and coverage of the
  stated 95% intervals over many seeded repetitions, with the binomial 99.9% band for coverage.
"""

from __future__ import annotations

import math
import sys
import time

import numpy as np
from scipy.stats import binom

from auditor.local.estimators import (
    forced_response_count,
    one_bit_mean,
    randomize_forced_response,
    randomize_one_bit,
    randomize_rr,
    rappor_frequency,
    rr_proportion,
)
from auditor.local.rappor import (
    RapporParams,
    decode,
    epsilon_infinity,
    epsilon_one,
    simulate_aggregate,
)

__all__ = ["run"]

CONFIGS = (
    RapporParams(k=128, h=2, f=0.5, p=0.5, q=0.75, cohorts=1),
    RapporParams(k=32, h=2, f=0.5, p=0.5, q=0.75, cohorts=8),
    RapporParams(k=128, h=2, f=0.5, p=0.5, q=0.75, cohorts=64),
)


def _zipf(clients: int, values: int, rng: np.random.Generator, s: float = 1.1) -> np.ndarray:
    w = 1 / np.arange(1, values + 1) ** s
    return rng.choice(values, clients, p=w / w.sum())


def _rappor_recovery(params: RapporParams, seed: int) -> str:
    rng = np.random.default_rng(seed)
    candidates = [f"value-{i}" for i in range(50)]
    population = _zipf(100_000, 50, rng)
    truth = np.bincount(population, minlength=50)
    started = time.perf_counter()
    est = decode(simulate_aggregate(population, candidates, params, rng), candidates)
    seconds = time.perf_counter() - started
    z = (est.counts - truth) / est.standard_errors
    return (
        f"  k={params.k:<3} h={params.h} cohorts={params.cohorts:<2}  max|z| top10 "
        f"{np.abs(z[:10]).max():4.2f}  max|z| all50 {np.abs(z).max():4.2f}  rms z "
        f"{math.sqrt(np.mean(z**2)):4.2f}  |z|<1.96: {np.mean(np.abs(z) < 1.96):4.0%}  "
        f"s.e.(top freq) {est.frequency_standard_errors[0]:.4f}  ({seconds:.1f} s)"
    )


def _rappor_calibration(repeats: int = 40) -> list[str]:
    rng = np.random.default_rng(99)
    params = CONFIGS[1]
    candidates = [f"value-{i}" for i in range(50)]
    z, covered = [], 0
    for _ in range(repeats):
        population = _zipf(100_000, 50, rng)
        truth = np.bincount(population, minlength=50)
        est = decode(simulate_aggregate(population, candidates, params, rng), candidates)
        z.append((est.counts - truth) / est.standard_errors)
        covered += sum(
            rappor_frequency(est, v).covers(truth[i] / truth.sum())
            for i, v in enumerate(candidates)
        )
    z = np.concatenate(z)
    return [
        f"  {repeats} populations x 50 values (k=32, 8 cohorts): sd(z) {z.std():.3f}, "
        f"mean(z) {z.mean():+.3f}, 95% CI coverage {covered / z.size:.3f}"
    ]


def _estimator_case(name: str, method: str, repeats: int, rng: np.random.Generator):
    n = 1000
    errors, covered, z = [], 0, []
    for _ in range(repeats):
        if name == "rr alpha=0.4":
            x = (rng.random(n) < 0.3).astype(int)
            truth, est = x.mean(), rr_proportion(randomize_rr(x, 0.4, rng), 0.4, method=method)
        elif name == "forced response":
            x = (rng.random(n) < 0.2).astype(int)
            truth = x.sum()
            est = forced_response_count(randomize_forced_response(x, rng), method=method)
        else:
            x = rng.beta(2, 5, n) * 10
            truth = x.mean()
            est = one_bit_mean(randomize_one_bit(x, 1.0, 10.0, rng), 1.0, 10.0, method=method)
        errors.append(est.estimate - truth)
        z.append((est.estimate - truth) / est.standard_error)
        covered += est.covers(truth)
    errors = np.asarray(errors)
    bias_z = errors.mean() / (errors.std() / math.sqrt(repeats))
    return covered / repeats, bias_z, float(np.std(z))


def _estimators(repeats: int = 5000) -> list[str]:
    rng = np.random.default_rng(2017)
    lo, hi = binom.ppf(0.0005, repeats, 0.95) / repeats, binom.ppf(0.9995, repeats, 0.95) / repeats
    lines = [
        f"  {repeats} repetitions, n = 1000 each; a 95% interval's coverage should be >= "
        f"{lo:.3f} (Wald: within [{lo:.3f}, {hi:.3f}]); bias in s.e. units within +-3.3"
    ]
    for name in ("rr alpha=0.4", "forced response", "one-bit eps=1 m=10"):
        for method in ("clopper-pearson", "normal"):
            coverage, bias_z, sd_z = _estimator_case(name, method, repeats, rng)
            lines.append(
                f"  {name:<20} {method:<16} coverage {coverage:.4f}  "
                f"bias {bias_z:+5.2f} s.e.  sd(z) {sd_z:.3f}"
            )
    return lines


def run() -> list[str]:
    lines = [
        "RAPPOR privacy (Erlingsson et al. 2014), h=2 f=0.5 p=0.5 q=0.75: "
        f"eps_inf = {epsilon_infinity(2, 0.5):.4f} (= 4 ln 3), "
        f"eps_1 = {epsilon_one(2, 0.5, 0.5, 0.75):.4f}",
        "RAPPOR decoder, 100k clients, 50 values Zipf(1.1), least squares:",
    ]
    lines += [_rappor_recovery(params, seed) for seed, params in enumerate(CONFIGS)]
    lines += ["RAPPOR standard-error calibration:", *_rappor_calibration()]
    lines += ["Estimator unbiasedness and interval coverage:", *_estimators()]
    for line in lines:
        print(line)
    return lines


if __name__ == "__main__":
    run()
    sys.exit(0)
