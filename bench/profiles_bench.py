"""Profile claims: power against the point claim, tightness of the certified mu, false alarms,
and the DP-SGD step (section 9 of ``make bench``; ``python -m bench profiles``)."""

from __future__ import annotations

import time

import numpy as np

from auditor import audit
from auditor.catalogue import get, sampler_for
from auditor.catalogue.dpsgd import STEPS, canary_pair, claimed_event
from auditor.engine.claims import GaussianDP, ProfileTable, parse_profile
from proofs import mechanisms as m

__all__ = ["run"]

SEED = 2026
QUICK_SIZES = (1_000, 10_000)
POWER_SIZES = (1_000, 3_000, 10_000, 30_000, 100_000, 300_000, 1_000_000, 3_000_000, 10_000_000)
CALIBRATION = 1000  # seeded audits at the exact GDP curve, confidence 0.9
CAL_SAMPLES = 5_000


def _gaussian(sigma: float):
    return sampler_for(m.Gaussian(sigma=sigma, sensitivity=1))


def _catalogue_sigma() -> float:
    return float(get("gaussian").description.sigma)


def power(sizes=POWER_SIZES) -> None:
    sigma = _catalogue_sigma()
    claim = GaussianDP(1 / sigma, f"gaussian:{sigma:.6g}")
    eps = claim.epsilon
    half = _gaussian(sigma / 2)
    print(
        f"### Half the noise: the catalogue's Gaussian (sigma {sigma:.4g}, mu {1 / sigma:.4g}) "
        f"run with sigma {sigma / 2:.4g}, audited against its profile `gaussian:{sigma:.4g}` "
        f"and against the tightest point claim of the same profile, ({eps:.4f}, 1e-05) "
        f"(confidence 0.95, seed {SEED}, pair 0 vs 1; early stopping on, so each bound is the "
        "one at the look that ended the audit)\n"
    )
    print(
        "| samples/side | profile verdict | certified mu >= | profile s | point verdict "
        "| certified eps >= (at 1e-5) | point s |"
    )  # bounds at the look that ended each audit (early stopping is on, as by default)
    print("|---|---|---|---|---|---|---|")
    caught = {"profile": None, "point": None}
    for n in sizes:
        t0 = time.perf_counter()
        r = audit(half, [(0.0, 1.0)], profile=claim, samples=n, seed=SEED)
        t1 = time.perf_counter()
        q = audit(half, [(0.0, 1.0)], epsilon=eps, delta=1e-5, samples=n, seed=SEED)
        t2 = time.perf_counter()
        for key, res in (("profile", r), ("point", q)):
            if res.violation and caught[key] is None:
                caught[key] = n
        print(
            f"| {n:.0e} | {r.verdict} | {r.profile['mu_lower_bound']:.4f} | {t1 - t0:.2f} "
            f"| {q.verdict} | {q.epsilon_lower_bound:.4f} | {t2 - t1:.2f} |"
        )
    print(
        f"\nfirst caught: profile claim at {caught['profile'] or 'none'} samples per dataset, "
        f"point claim at {caught['point'] or 'none'} (true mu {2 / sigma:.4g}, claimed "
        f"{1 / sigma:.4g})\n"
    )


def tightness(sizes=(100_000, 1_000_000, 10_000_000)) -> None:
    print(
        "### Certified mu on correct Gaussians (claim = their exact GDP curve, confidence 0.95, "
        f"seed {SEED})\n"
    )
    mus = (1 / _catalogue_sigma(), 0.5, 1.0, 2.0)
    print("| true mu | " + " | ".join(f"mu_lb / mu at {n:.0e}" for n in sizes) + " | verdicts |")
    print("|---" * (len(sizes) + 2) + "|")
    for mu in mus:
        mech = _gaussian(1 / mu)
        cells, verdicts = [], set()
        for n in sizes:
            r = audit(mech, [(0.0, 1.0)], profile=GaussianDP(mu), samples=n, seed=SEED)
            cells.append(f"{r.profile['mu_lower_bound'] / mu:.3f}")
            verdicts.add(r.verdict)
        print(f"| {mu:.4g} | " + " | ".join(cells) + f" | {', '.join(sorted(verdicts))} |")
    print()


def _exact_table(mu: float) -> ProfileTable:
    g = GaussianDP(mu)
    eps = np.linspace(0, 10, 400)
    return ProfileTable(tuple(eps), tuple(g.delta_at(e) for e in eps), f"pld table of {mu}-GDP")


def calibration(count: int = CALIBRATION, samples: int = CAL_SAMPLES) -> None:
    """Correct Gaussians against their exact curves: every threshold event lies on the claimed
    curve, so each flag is a failure of the certified bounds (rate <= 1 - confidence)."""
    print(
        f"### False alarms: correct Gaussians against their exact profiles, confidence 0.9, "
        f"{samples} samples per dataset, seeds 0..n-1\n"
    )
    cases = (
        ("mu = 1 against gdp:1", 1.0, GaussianDP(1.0), count),
        ("mu = 0.5 against gaussian:2", 0.5, parse_profile("gaussian:2"), count // 4),
        ("mu = 1 against its privacy profile table", 1.0, _exact_table(1.0), count // 4),
        ("mu = 1 against zcdp:0.5", 1.0, parse_profile("zcdp:0.5"), count // 4),
    )
    total = flagged = 0
    for label, mu, claim, k in cases:
        mech = _gaussian(1 / mu)
        t0 = time.perf_counter()
        flags = sum(
            audit(
                mech, [(0.0, 1.0)], profile=claim, samples=samples, seed=s, confidence=0.9
            ).violation
            for s in range(k)
        )
        total += k
        flagged += flags
        print(f"- {label}: {flags}/{k} violations ({time.perf_counter() - t0:.0f} s)")
    print(
        f"\ntotal: {flagged} violations in {total} audits ({100 * flagged / total:.1f}%; "
        "acceptance <= 10%)\n"
    )


def dpsgd(sizes=(10_000, 1_000_000)) -> None:
    print(
        "### One DP-SGD step (NumPy, 8 weights, batch 16, clip 1, noise multiplier 1) on the "
        "canary-gradient pair, against dp_accounting's GaussianDpEvent(1) (mu = 1; "
        f"confidence 0.95, seed {SEED}; the ideal mechanism: `semantics='ideal'`)\n"
    )
    print(
        "| step | samples/side | verdict | certified mu >= | certified / claimed mu | true mu | s |"
    )
    print("|---|---|---|---|---|---|---|")
    true_mu = {"correct": 1.0, "no_clip": 10.0, "noise_per_batch": 4.0, "half_noise": 2.0}
    for name, step in STEPS.items():
        for n in sizes:
            _step_row(name, step, n, true_mu[name])
    _opacus(sizes[0])
    r = audit(
        STEPS["correct"], [canary_pair()], profile=claimed_event(1.0), samples=sizes[0], seed=SEED
    )
    print(
        f"\nThe correct step in float semantics (the default) at {sizes[0]:.0e}: {r.verdict} "
        f"({', '.join(r.violation_kinds) or 'no kind'}; GDP mu >= "
        f"{r.profile['mu_lower_bound']:.3f}): the low bits of the noisy sum tell 0 + N from "
        "-1 + N apart, the floating-point attack on Gaussian noise; the audit of the "
        "ideal step turns those events off.\n"
    )


def _opacus(samples: int) -> None:
    """The same audit of Opacus's DPOptimizer step (one optimizer step per sample)."""
    try:
        import opacus  # noqa: F401
    except ImportError:
        print("\n(Opacus not installed: `pip install -e '.[opacus]'` adds its rows)")
        return
    import warnings

    from auditor.catalogue.dpsgd import OPACUS_STEPS

    for name, step in OPACUS_STEPS.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # torch's backward-hook notice, once per step
            _step_row(f"Opacus {name}", step, samples, 1 / step.noise_multiplier)


def _step_row(label: str, step, samples: int, true_mu: float) -> None:
    """Audit one step on the canary pair against its accounted profile; print its row."""
    t0 = time.perf_counter()
    r = audit(
        step,
        [canary_pair()],
        profile=claimed_event(step.claimed_multiplier),
        samples=samples,
        seed=SEED,
        semantics="ideal",
    )
    mu = r.profile["mu_lower_bound"]
    print(
        f"| {label} | {samples:.0e} | {r.verdict} | {mu:.4f} | {mu / step.claimed_mu:.3f} "
        f"| {true_mu:g} | {time.perf_counter() - t0:.2f} |"
    )


def run(quick: bool = False) -> None:
    print("## 9. Profile claims: whole trade-off curves instead of one (eps, delta) point\n")
    power(QUICK_SIZES if quick else POWER_SIZES)
    tightness((10_000, 100_000) if quick else (100_000, 1_000_000, 10_000_000))
    calibration(40 if quick else CALIBRATION, 2_000 if quick else CAL_SAMPLES)
    dpsgd((10_000,) if quick else (10_000, 1_000_000))
