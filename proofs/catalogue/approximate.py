"""Catalogue: approximate DP, the Gaussian mechanism, composition, group privacy,
post-processing and the estimators of the local protocols.

Deliberately false statements (from the lecture notes and folklore) carry expect='refuted'.
Numbers quoted in sources were cross-checked against dp-accounting and scipy in
tests/proofs/checkers/test_dp_accounting_crosscheck.py.
"""

from __future__ import annotations

import sympy as sp

from proofs import (
    DEL,
    E1,
    E2,
    EPS,
    ApproxDP,
    CalibrationMinimal,
    ChebyshevTail,
    ComposedDP,
    EstimateAt,
    FiniteMechanism,
    Gaussian,
    GaussianCalibration,
    GaussianCalibrationRegion,
    GaussianVector,
    GroupPrivacy,
    K,
    KAryRR,
    Laplace,
    N,
    OneBitTelemetry,
    PerReportUnbiased,
    PostProcessing,
    PrivacyProfile,
    RDPComposition,
    RDPConversion,
    RenyiGaussian,
    SequentialComposition,
    T,
    Theorem,
    Unbiased,
    Variance,
    ZCDPConversion,
    chain_delta,
    classical_sigma,
    drv_epsilon,
    forced_response_estimator,
    notes_sigma,
    one_bit_term,
    rr_estimator,
    rr_table,
    standard_delta,
    sym,
)

__all__ = ["EXAMPLE_MECHANISMS", "theorems"]

R = sp.Rational
_DR14 = "Dwork and Roth (2014), The Algorithmic Foundations of Differential Privacy"
_BW18 = "Balle and Wang (2018), Improving the Gaussian mechanism for DP, Thm 8"
_KOV15 = "Kairouz, Oh, Viswanath (2015), The composition theorem for DP, Thm 3.3"
_DRV10 = "Dwork, Rothblum, Vadhan (2010), Boosting and differential privacy, Thm III.3"
_M17 = "Mironov (2017), Renyi differential privacy"
_BS16 = "Bun and Steinke (2016), Concentrated differential privacy"
_RHO, _DL = sp.Symbol("rho", positive=True), sp.Symbol("delta", positive=True)
_DP = sp.Symbol("delta_prime", positive=True)  # advanced composition's extra delta
_DKY17 = "Ding, Kulkarni, Yekhanin (2017), Collecting telemetry data privately, Sec. 2.1"


def _three_rr() -> FiniteMechanism:
    return FiniteMechanism(
        {x: {y: R(1, 2) if x == y else R(1, 4) for y in "abc"} for x in "abc"}, name="3-RR(2)"
    )


def _asymmetric() -> FiniteMechanism:
    return FiniteMechanism(
        {
            0: {"a": R(1, 2), "b": R(1, 3), "c": R(1, 6)},
            1: {"a": R(1, 4), "b": R(1, 4), "c": R(1, 2)},
        },
        name="asymmetric",
    )


def _leaky() -> FiniteMechanism:
    """Approximate-DP only: output 2 never happens on input 0 (delta > 0 at any eps)."""
    return FiniteMechanism(
        {0: {0: R(1, 2), 1: R(1, 2), 2: R(0)}, 1: {0: R(9, 20), 1: R(9, 20), 2: R(1, 10)}},
        name="leaky",
    )


EXAMPLE_MECHANISMS = {
    "rr3": rr_table(3),
    "rr2": rr_table(2),
    "rr3/2": rr_table(R(3, 2)),
    "three_rr": _three_rr(),
    "asymmetric": _asymmetric(),
    "leaky": _leaky(),
}


def _gaussian() -> list[Theorem]:
    sigma_min = R(37306317, 10**7)  # calibrate_gaussian(1, 1e-5).sigma = 3.73063164 (rounded up)
    d5 = R(1, 10**5)
    return [
        Theorem(
            "gaussian.analytic_balle_wang",
            PrivacyProfile("gaussian"),
            _BW18,
            "the Gaussian mechanism's exact delta(eps), derived from the integral of "
            "(p - e^eps q)_+, is Phi(D/(2s) - eps s/D) - e^eps Phi(-D/(2s) - eps s/D)",
        ),
        Theorem(
            "laplace.privacy_profile",
            PrivacyProfile("laplace"),
            "Balle, Barthe, Gaboardi (2018), privacy profiles; derived here",
            "the Laplace mechanism's exact delta(eps) is 1 - exp((eps - Delta/b)/2) for "
            "eps < Delta/b",
        ),
        Theorem(
            "gaussian.classical_calibration.eps_below_1",
            GaussianCalibration(d5, 0, 1),
            f"{_DR14}, Thm A.1 (eps < 1); notes 004 Def. Gaussian mechanism (corrected)",
            "sigma = sqrt(2 ln(1.25/delta)) Delta/eps gives (eps, delta)-DP for every eps in "
            "[0, 1] at delta = 1e-5",
        ),
        Theorem(
            "gaussian.classical_calibration.eps_below_1.delta_1e-10",
            GaussianCalibration(R(1, 10**10), 0, 1),
            f"{_DR14}, Thm A.1",
            "the classical calibration gives (eps, 1e-10)-DP for every eps in [0, 1]",
        ),
        Theorem(
            "gaussian.classical_calibration.eps_below_1.all_delta",
            GaussianCalibrationRegion(R(1, 10**12), R(1, 2)),
            f"{_DR14}, Thm A.1",
            "the classical calibration gives (eps, delta)-DP for every eps in [0, 1] and "
            "every delta in [1e-12, 1/2] (2-D interval cover)",
        ),
        Theorem(
            "gaussian.classical_calibration.eps_2",
            GaussianCalibration(d5, 0, 2),
            f"{_DR14}, Thm A.1 is stated for eps < 1 only; {_BW18} (Sec. 3) on large eps",
            "the classical calibration still gives (eps, 1e-5)-DP for every eps in [0, 2] "
            "(outside the theorem's range, but true)",
        ),
        Theorem(
            "gaussian.classical_calibration.large_eps",
            GaussianCalibration(d5, 0, 20),
            f"{_BW18}, Sec. 3 (the classical calibration fails for large eps)",
            "the classical calibration gives (eps, 1e-5)-DP for every eps in [0, 20]",
            expect="refuted",
        ),
        Theorem(
            "gaussian.classical_calibration.delta_half",
            GaussianCalibration(R(1, 2), 0, 10),
            f"{_BW18}, Sec. 3",
            "the classical calibration gives (eps, 1/2)-DP for every eps in [0, 10]",
            expect="refuted",
        ),
        Theorem(
            "gaussian.notes_calibration",
            GaussianCalibration(d5, 0, 1, sigma=notes_sigma()),
            "notes 004, Def. Gaussian mechanism: sigma >= (2 Delta/eps) ln(1.25/delta)",
            "the notes' sigma = (2 Delta/eps) ln(1.25/delta) gives (eps, 1e-5)-DP for every "
            "eps in [0, 1] (true, since it exceeds the classical sigma when delta < 0.758)",
        ),
        Theorem(
            "gaussian.notes_calibration.all_delta",
            GaussianCalibrationRegion(R(1, 10**12), R(99, 100), sigma=notes_sigma()),
            "notes 004, Thm 'Gaussian Mechanism satisfies DP' (stated for every delta > 0 and "
            "eps in (0, 1))",
            "the notes' sigma = (2 Delta/eps) ln(1.25/delta) gives (eps, delta)-DP for every eps "
            "in [0, 1] and every delta in [1e-12, 0.99]",
        ),
        Theorem(
            "gaussian.notes_calibration.minimal",
            CalibrationMinimal(R(1, 2), d5, notes_sigma(R(1, 2), d5, 1)),
            "notes 004 (sigma about 46.9 at eps = 0.5, delta = 1e-5; smallest is about 7.03)",
            "the notes' sigma is the smallest giving (0.5, 1e-5)-DP",
            expect="refuted",
        ),
        Theorem(
            "gaussian.notes_calibration.actual",
            ApproxDP(Gaussian(notes_sigma(R(1, 2), d5, 1), 1), R(629, 10**4), d5),
            "notes 004 calibration at eps = 0.5, delta = 1e-5 (sigma = 46.94): what it gives",
            "the notes' sigma for (0.5, 1e-5) in fact gives (0.0629, 1e-5)-DP (and "
            "(0.5, 4.6e-125)-DP): eight times less epsilon than asked",
        ),
        Theorem(
            "gaussian.notes_calibration.actual.below",
            ApproxDP(Gaussian(notes_sigma(R(1, 2), d5, 1), 1), R(628, 10**4), d5),
            "notes 004 calibration: the actual epsilon is in (0.0628, 0.0629)",
            "the notes' sigma for (0.5, 1e-5) gives (0.0628, 1e-5)-DP",
            expect="refuted",
        ),
        Theorem(
            "gaussian.calibrator",
            CalibrationMinimal(1, d5, sigma_min),
            _BW18 + " (analytic calibration, Alg. 1); value from proofs.calibrate_gaussian",
            "sigma = 3.7306317 is the smallest (to 1e-6) giving (1, 1e-5)-DP at Delta = 1",
        ),
        Theorem(
            "gaussian.approx_dp.sigma_3",
            ApproxDP(Gaussian(3, 1), 1, d5),
            _BW18,
            "N(0, 9) noise on a sensitivity-1 query is (1, 1e-5)-DP (needs sigma >= 3.73)",
            expect="refuted",
        ),
        *_gaussian_vector(d5),
        Theorem(
            "laplace.approx_dp",
            ApproxDP(Laplace(10, 1), R(1, 20), R(3, 100)),
            "derived profile 1 - exp((eps - Delta/b)/2) = 0.0247 at b = 10, eps = 0.05",
            "Lap(10) on a sensitivity-1 query is (0.05, 0.03)-DP",
        ),
        Theorem(
            "finite.approx_dp.leaky",
            ApproxDP(_leaky(), sp.log(R(10, 9)), R(1, 10)),
            "exact sum of (p - e^eps q)_+",
            "the leaky mechanism is (ln(10/9), 1/10)-DP",
        ),
    ]


_N004_VECTOR = (
    "notes 004, Def. Gaussian mechanism (f: N^|X| -> R^d, l2-sensitivity; the noise N(0, "
    "sigma^2) on each coordinate)"
)


def _gaussian_vector(d5) -> list[Theorem]:
    """The notes' Gaussian mechanism on R^d: the same noise on every coordinate, calibrated on
    the L2 sensitivity, is the one-dimensional mechanism whatever d
    (proofs.mechanisms.noise.gaussian_vector_reduction)."""
    d = sp.Symbol("d", integer=True, positive=True)
    half = R(1, 2)
    return [
        Theorem(
            "gaussian.vector_l2.classical",
            ApproxDP(GaussianVector(classical_sigma(half, d5, 1), 1, d), half, d5),
            f"{_N004_VECTOR}; {_DR14}, Thm A.1",
            "N(0, sigma^2 I_d) noise, sigma = sqrt(2 ln(1.25/delta)) Delta_2/eps on the L2 "
            "sensitivity Delta_2 = 1, is (0.5, 1e-5)-DP in every dimension d",
        ),
        Theorem(
            "gaussian.vector_l2.notes_sigma",
            ApproxDP(GaussianVector(notes_sigma(half, d5, 1), 1, d), half, d5),
            f"{_N004_VECTOR}: sigma >= (2 Delta/eps) ln(1.25/delta)",
            "the notes' sigma on the L2 sensitivity is (0.5, 1e-5)-DP in every dimension d",
        ),
        Theorem(
            "gaussian.vector_l2.per_coordinate",
            ApproxDP(GaussianVector(classical_sigma(half, d5, R(1, 4)), 1, 16), half, d5),
            "a common slip: the noise of each coordinate calibrated on how far that coordinate "
            "moves (1/4 on each of 16), not on the L2 move (1)",
            "16 coordinates each moving by 1/4, sigma = sqrt(2 ln(1.25/delta)) (1/4)/eps: "
            "(0.5, 1e-5)-DP (it is (1.61, 1e-5)-DP only)",
            expect="refuted",
        ),
        Theorem(
            "gaussian.vector_l2.l1_calibration",
            ApproxDP(GaussianVector(classical_sigma(half, d5, 4), 1, 16), half, d5),
            f"{_N004_VECTOR}: the L1 sensitivity bounds the L2 one (|v|_2 <= |v|_1)",
            "16 coordinates each moving by 1/4 (L1 move 4, L2 move 1), sigma calibrated on the "
            "L1 move: (0.5, 1e-5)-DP (true, with 4 times the noise needed)",
        ),
    ]


def _composition() -> list[Theorem]:
    rr3, rr2, rr32 = rr_table(3), rr_table(2), rr_table(R(3, 2))
    d5 = R(1, 10**5)
    basic = (
        (rr3, rr2),
        (rr2, rr32),
        (_three_rr(), _three_rr()),
        (_asymmetric(), _asymmetric()),
        (_asymmetric(), rr3),
    )
    return [
        Theorem(
            "composition.basic",
            SequentialComposition(basic),
            f"{_DR14}, Thm 3.16; notes 001 'Sequential composition'; notes 004 Thm "
            "'Standard composition' (proof TBA there)",
            "composing eps1-DP and eps2-DP mechanisms gives (eps1 + eps2)-DP (5 finite pairs)",
        ),
        Theorem(
            "composition.basic_delta",
            SequentialComposition(
                ((_leaky(), rr2), (_leaky(), _leaky())),
                at=((sp.log(R(10, 9)), sp.log(2)), (sp.log(R(10, 9)), 0)),
            ),
            f"{_DR14}, Thm 3.16; notes 004 Thm 'Standard composition'",
            "composing (eps1, delta1)- and (eps2, delta2)-DP mechanisms gives "
            "(eps1 + eps2, delta1 + delta2)-DP (exact profiles, 2 finite pairs)",
        ),
        Theorem(
            "composition.adaptive",
            SequentialComposition(
                ((rr3, {0: rr2, 1: rr32}), (_asymmetric(), {"a": rr2, "b": rr3, "c": rr32}))
            ),
            f"notes 001 'Sequential composition' (M2 sees x and M1's output); {_DR14}, Thm 3.16",
            "adaptive composition, M2(x, M1(x)), of eps1- and eps2-DP mechanisms is "
            "(eps1 + eps2)-DP (2 finite instances)",
        ),
        Theorem(
            "composition.max",
            SequentialComposition(((rr3, rr2),), rule=sp.Max(E1, E2)),
            "folklore mistake: 'composition costs the larger epsilon'",
            "composing eps1-DP and eps2-DP mechanisms gives max(eps1, eps2)-DP",
            expect="refuted",
        ),
        Theorem(
            "composition.advanced_drv",
            ComposedDP(R(1, 10), 100, drv_epsilon(R(1, 10), 100, d5), d5),
            f"{_DRV10}; {_DR14}, Thm 3.20",
            "100-fold composition of 0.1-DP mechanisms is (sqrt(2k ln(1/delta')) eps + "
            "k eps (e^eps - 1) = 5.850, 1e-5)-DP",
        ),
        Theorem(
            "composition.advanced_drv.k_1000",
            ComposedDP(R(1, 10), 1000, drv_epsilon(R(1, 10), 1000, R(1, 10**6)), R(1, 10**6)),
            _DRV10,
            "1000-fold composition of 0.1-DP mechanisms is (DRV eps' = "
            f"{float(drv_epsilon(R(1, 10), 1000, R(1, 10**6))):.4f}, 1e-6)-DP",
        ),
        Theorem(
            "composition.advanced_no_drift",
            ComposedDP(R(1, 2), 100, sp.sqrt(2 * 100 * sp.log(1000)) / 2, R(1, 1000)),
            f"a common misquote of {_DRV10} (the k eps (e^eps - 1) term dropped)",
            "100-fold composition of 0.5-DP mechanisms is (sqrt(2k ln(1/delta')) eps, 1e-3)-DP",
            expect="refuted",
        ),
        Theorem(
            "composition.advanced_drv.symbolic",
            ComposedDP(EPS, K, drv_epsilon(EPS, K, _DP), K * DEL + _DP, DEL),
            f"{_DRV10}; {_DR14}, Thm 3.20",
            "k-fold composition of (eps, delta)-DP mechanisms is (sqrt(2k ln(1/delta')) eps + "
            "k eps (e^eps - 1), k delta + delta')-DP, for every k, eps, delta and delta' > 0",
        ),
        Theorem(
            "composition.advanced_no_drift.symbolic",
            ComposedDP(EPS, K, sp.sqrt(2 * K * sp.log(1 / _DP)) * EPS, _DP),
            f"a common misquote of {_DRV10} (the k eps (e^eps - 1) term dropped)",
            "k-fold composition of eps-DP mechanisms is (sqrt(2k ln(1/delta')) eps, delta')-DP, "
            "for every k, eps and delta' > 0",
            expect="refuted",
        ),
        Theorem(
            "composition.kov_optimal",
            ComposedDP(R(1, 10), 100, R(22, 5), d5),
            f"{_KOV15} (dp-accounting's advanced_composition gives 4.4)",
            "100-fold composition of 0.1-DP mechanisms is (4.4, 1e-5)-DP",
        ),
        Theorem(
            "composition.kov_optimal.below",
            ComposedDP(R(1, 10), 100, R(21, 5), d5),
            f"{_KOV15} (optimality: k-fold randomized response attains the bound)",
            "100-fold composition of 0.1-DP mechanisms is (4.2, 1e-5)-DP",
            expect="refuted",
        ),
        Theorem(
            "composition.gaussian_exact",
            ApproxDP(Gaussian(3 / sp.sqrt(10), 1), R(46530, 10**4), d5),
            "k Gaussians N(0, s^2) compose to N(0, s^2/k) (Dong, Roth, Su 2019, Cor. 3.3); "
            f"{_BW18}; dp-accounting PLD accountant gives 4.6530",
            "10-fold composition of N(0, 9) noise (sensitivity 1) is (4.6530, 1e-5)-DP",
        ),
        Theorem(
            "composition.gaussian_exact.below",
            ApproxDP(Gaussian(3 / sp.sqrt(10), 1), R(46529, 10**4), d5),
            _BW18,
            "10-fold composition of N(0, 9) noise is (4.6529, 1e-5)-DP",
            expect="refuted",
        ),
        Theorem(
            "rdp.gaussian",
            RenyiGaussian(sym("alpha") * sym("Delta") ** 2 / (2 * sym("sigma") ** 2)),
            f"{_M17}, Prop. 7 (Table II)",
            "the Gaussian mechanism has Renyi divergence alpha Delta^2/(2 sigma^2) of order alpha",
        ),
        Theorem(
            "rdp.gaussian_conversion",
            RDPConversion(3, 10, d5),
            f"{_M17}, Prop. 1 and 3",
            "10-fold N(0, 9) noise is (min_alpha 10 alpha/18 + ln(1/delta)/(alpha-1), 1e-5)-DP",
        ),
        Theorem(
            "rdp.improved_conversion",
            RDPComposition(((Gaussian(3, 1), 10),), R(50240, 10**4), d5),
            "Canonne, Kamath, Steinke (2020), Prop. 12; Balle et al. (2020), Thm 21 (the "
            "RDP accountant's default; Mironov's conversion gives 5.614 on the same orders)",
            "10-fold N(0, 9) noise is (5.0240, 1e-5)-DP by the improved RDP conversion",
        ),
        Theorem(
            "rdp.mixed_composition",
            RDPComposition(
                ((Laplace(10, 1), 5), (KAryRR(1, 4), 3), (Gaussian(5, 1), 10)), 6, R(1, 10**6)
            ),
            f"{_M17}, Prop. 1 and 6; the k-RR curve derived in proofs.rdp",
            "5 Laplace(10), 3 4-ary randomized responses at eps = 1 and 10 N(0, 25) "
            "releases compose to (6, 1e-6)-DP by RDP",
        ),
        Theorem(
            "zcdp.gaussian",
            RenyiGaussian(sym("Delta") ** 2 / (2 * sym("sigma") ** 2), per_alpha=True),
            f"{_BS16}, Prop. 1.6",
            "the Gaussian mechanism is Delta^2/(2 sigma^2)-zCDP",
        ),
        Theorem(
            "zcdp.conversion",
            ZCDPConversion(3, 10, d5),
            f"{_BS16}, Lemma 2.3, Prop. 1.3",
            "10-fold N(0, 9) noise is (rho + 2 sqrt(rho ln(1/delta)), 1e-5)-DP, rho = 10/18",
        ),
        Theorem(
            "zcdp.conversion_no_factor_2",
            ZCDPConversion(3, 10, d5, formula=_RHO + sp.sqrt(_RHO * sp.log(1 / _DL))),
            f"a misquote of {_BS16}, Prop. 1.3 (factor 2 dropped)",
            "10-fold N(0, 9) noise is (rho + sqrt(rho ln(1/delta)), 1e-5)-DP",
            expect="refuted",
        ),
    ]


def _group() -> list[Theorem]:
    return [
        Theorem(
            "group.pure",
            GroupPrivacy(pure=True),
            f"{_DR14}, Thm 2.2; notes 001 'Group privacy'",
            "an eps-DP mechanism is k eps-DP for inputs at distance k, every k >= 1",
        ),
        Theorem(
            "group.chain_delta",
            GroupPrivacy(K * EPS, chain_delta()),
            "the chain argument of notes 004 'Group privacy', carried out exactly",
            "(eps, delta)-DP gives (k eps, delta sum_{i<k} e^{i eps}) for groups of size k",
        ),
        Theorem(
            "group.standard_delta",
            GroupPrivacy(K * EPS, standard_delta()),
            "Vadhan (2017), The complexity of DP, Lemma 2.2; Steinke's lecture notes",
            "(eps, delta)-DP gives (k eps, k e^{(k-1) eps} delta) for groups of size k",
        ),
        Theorem(
            "group.notes_stated",
            GroupPrivacy(K * EPS, K * sp.exp(K * EPS) * DEL),
            "notes 004 Thm 'Group privacy' (its headline (k eps, k e^{k eps} delta): true, loose)",
            "(eps, delta)-DP gives (k eps, k e^{k eps} delta) for groups of size k",
        ),
        Theorem(
            "group.notes_k_delta",
            GroupPrivacy(K * EPS, K * DEL),
            "notes 004 Thm 'Group privacy', displayed inequality with + k delta",
            "(eps, delta)-DP gives P[M(x) in S] <= e^{k eps} P[M(y) in S] + k delta",
            expect="refuted",
        ),
        Theorem(
            "group.notes_proof_last_line",
            GroupPrivacy(sp.log(K) + EPS, K * sp.exp(K * EPS) * DEL),
            "notes 004, last line of the group-privacy proof: k e^eps P + k e^{k eps} delta",
            "(eps, delta)-DP gives P[M(x) in S] <= k e^eps P[M(y) in S] + k e^{k eps} delta",
            expect="refuted",
        ),
    ]


def _postprocessing() -> list[Theorem]:
    merge = {"a": "ab", "b": "ab", "c": "c"}
    noisy = {
        "a": {"u": R(1, 2), "v": R(1, 2)},
        "b": {"u": R(1, 3), "v": R(2, 3)},
        "c": {"u": R(1, 10), "v": R(9, 10)},
    }
    instances = (
        (_asymmetric(), merge),
        (_asymmetric(), noisy),
        (_three_rr(), merge),
        (rr_table(3), {0: 1, 1: 0}),
        (_leaky(), {0: "x", 1: "x", 2: "y"}),
        (_leaky(), {0: {"s": R(1, 4), "t": R(3, 4)}, 1: "t", 2: "s"}),
    )
    return [
        Theorem(
            "postprocessing.finite",
            PostProcessing(instances, at=(0, sp.log(R(10, 9)), sp.log(2))),
            f"{_DR14}, Prop. 2.1; notes 001 a); notes 004 Thm 'Post-processing'",
            "post-processing (deterministic or randomised) never increases the exact epsilon "
            "or the exact delta(eps) (6 finite mechanisms and maps, eps in "
            "{0, ln 10/9, ln 2})",
        )
    ]


def _estimators() -> list[Theorem]:
    a = sym("alpha")
    rr = rr_estimator()
    return [
        Theorem(
            "estimator.rr.unbiased",
            Unbiased(rr),
            "notes 003 'Estimator'; Warner (1965)",
            "p_hat = sum(y)/(alpha n) - (1 - alpha)/(2 alpha) is unbiased for p",
        ),
        Theorem(
            "estimator.rr.variance_exact",
            Variance(rr, (1 - a**2) / (4 * a**2 * N), "=="),
            "derived: Var(y_i) = (1 - alpha^2)/4 for both values of x_i",
            "Var[p_hat] = (1 - alpha^2)/(4 alpha^2 n) exactly, the inputs fixed (with inputs "
            "drawn i.i.d. Bernoulli(p), as notes 003 model them, add p(1 - p)/n)",
        ),
        Theorem(
            "estimator.rr.variance_quarter",
            Variance(rr, 1 / (4 * a**2 * N)),
            "Var of a Bernoulli is at most 1/4",
            "Var[p_hat] <= 1/(4 alpha^2 n)",
        ),
        Theorem(
            "estimator.rr.variance_notes",
            Variance(rr, 1 / (a**2 * N)),
            "notes 003 'Accuracy of this estimator' (Var(y_i) <= 1: true but loose)",
            "Var[p_hat] <= 1/(alpha^2 n)",
        ),
        Theorem(
            "estimator.rr.variance_is_quarter",
            Variance(rr, 1 / (4 * a**2 * N), "=="),
            "a common slip: the bound 1/(4 alpha^2 n) taken as the variance",
            "Var[p_hat] = 1/(4 alpha^2 n) exactly",
            expect="refuted",
        ),
        Theorem(
            "estimator.rr.notes_example",
            EstimateAt(rr_estimator(R(1, 2)), [0] * 9 + [1] * 9, R(1, 2)),
            "notes 003 'Experiment with alpha = 1/2' (n = 18)",
            "alpha = 1/2, 18 reports, 9 of them 1: p_hat = 9/9 - 1/2 = 1/2",
        ),
        Theorem(
            "estimator.rr.share_of_ones",
            EstimateAt(rr_estimator(R(1, 2)), [0] * 6 + [1] * 12, R(2, 3)),
            "a slip: the share of ones taken as the estimate (true only at 1/2, as in the notes)",
            "alpha = 1/2, 18 reports, 12 of them 1: p_hat = 12/18 = 2/3",
            expect="refuted",
        ),
        Theorem(
            "estimator.rr.chebyshev",
            ChebyshevTail(rr, 1 / (4 * a**2 * N * T**2)),
            "notes 003 'Using Chebyshev'",
            "P[|p_hat - p| >= t] <= 1/(4 alpha^2 n t^2) for every t > 0",
        ),
        Theorem(
            "estimator.forced_response",
            Unbiased(forced_response_estimator()),
            "notes 004 Example 'Randomised response': n_true_hat = 2 n_obs - N/2",
            "n_true_hat = 2 n_obs - N/2 is unbiased for n_true (fair coins)",
        ),
        Theorem(
            "estimator.forced_response.variance",
            Variance(forced_response_estimator(), 3 * N / 4, "=="),
            "derived: each report has P(1 - P) = 3/16",
            "Var[n_true_hat] = 3N/4 exactly",
        ),
        Theorem(
            "estimator.forced_response.no_offset",
            Unbiased(forced_response_estimator(2, 0)),
            "a slip: forgetting the -N/2 offset",
            "2 n_obs is unbiased for n_true",
            expect="refuted",
        ),
        Theorem(
            "estimator.one_bit",
            PerReportUnbiased(OneBitTelemetry(), one_bit_term()),
            _DKY17,
            "the DKY term m (b (e^eps + 1) - 1)/(e^eps - 1) is unbiased for x, so the mean "
            "estimator is unbiased",
        ),
        Theorem(
            "estimator.one_bit.product_form",
            PerReportUnbiased(OneBitTelemetry(form="product"), one_bit_term()),
            "notes 001 'Solution to 3' (product instead of sum)",
            "the DKY estimator is unbiased under the notes' product-form probability",
            expect="refuted",
        ),
    ]


def theorems() -> list[Theorem]:
    return _gaussian() + _composition() + _group() + _postprocessing() + _estimators()
