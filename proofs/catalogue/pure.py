"""Catalogue: pure DP of the mechanisms of the notes and the literature, with the notes'
mistakes as deliberately false entries."""

from __future__ import annotations

import sympy as sp

from proofs import (
    AlphaCoinRR,
    ExponentialMechanism,
    FiniteMechanism,
    FloatLaplace,
    ForcedResponse,
    Gaussian,
    Histogram,
    Inequality,
    KAryRR,
    Laplace,
    LaplaceVector,
    OneBitTelemetry,
    PureDP,
    ReportNoisyMax,
    SignedZeroLaplace,
    Theorem,
    TwoSidedGeometric,
    geo_sample,
    sym,
)

__all__ = ["theorems"]

a = sym("alpha")
eps = sym("epsilon")
R = sp.Rational
n = sp.Symbol("n", integer=True, positive=True)

_DR14 = "Dwork and Roth (2014), The Algorithmic Foundations of Differential Privacy"

_D = sym("Delta")
_FX, _FXP, _Y = sp.symbols("f_x f_xp y", real=True)


def _coordinate_loss() -> sp.Expr:
    """The Laplace ratio on one coordinate, as the notes write it."""
    return sp.exp(-eps / _D * (sp.Abs(_FX - _Y) - sp.Abs(_FXP - _Y)))


def theorems() -> list[Theorem]:
    return [
        Theorem(
            "rr.alpha_coin.exact",
            PureDP(AlphaCoinRR(a), sp.log((1 + a) / (1 - a)), exact=True),
            "Warner (1965); notes 000 'Randomized response is DP' (ratio (1+alpha)/(1-alpha))",
            "alpha-coin randomized response has epsilon exactly ln((1+alpha)/(1-alpha)), 0<alpha<1",
        ),
        Theorem(
            "rr.alpha_coin.two_alpha",
            PureDP(AlphaCoinRR(a), 2 * a),
            "notes 000: 'Randomised response is approximately 2*alpha-differentially private' "
            "(uses (1+a)/(1-a) ~ e^(2a), which is a lower bound: ln((1+a)/(1-a)) > 2a)",
            "alpha-coin randomized response is 2*alpha-DP",
            expect="refuted",
        ),
        Theorem(
            "rr.forced_response.ln3",
            PureDP(ForcedResponse(), sp.log(3), exact=True),
            f"{_DR14}, Sec. 3.2 (randomized response is ln 3-DP); notes 002 (3/4 vs 1/4)",
            "two-coin forced response with fair coins has epsilon exactly ln 3",
        ),
        Theorem(
            "rr.k_ary.exact",
            PureDP(KAryRR(), eps, exact=True),
            "Kairouz, Oh, Viswanath (2016), Extremal mechanisms for local DP, k-RR",
            "k-ary randomized response with e^eps/(e^eps+k-1) on the truth has epsilon exactly eps",
        ),
        Theorem(
            "laplace.scalar",
            PureDP(Laplace.calibrated(), eps),
            f"{_DR14}, Thm 3.6; notes 000 'Laplace mechanism'",
            "f(x) + Lap(Delta/eps) is eps-DP for f of sensitivity Delta",
        ),
        Theorem(
            "laplace.vector_l1",
            PureDP(LaplaceVector.calibrated(), eps),
            f"{_DR14}, Thm 3.6; notes 000 'Theorem' (k-dimensional, L1 sensitivity)",
            "f(x) + Lap(Delta_1/eps)^k is eps-DP for every dimension k, Delta_1 the L1 sensitivity",
        ),
        Theorem(
            "laplace.mean_of_bits",
            PureDP(Laplace.calibrated(eps, 1 / n), eps),
            "notes 000 'Example': mean of n bits has sensitivity 1/n, b = 1/(eps n)",
            "mean of n bits + Lap(1/(eps n)) is eps-DP",
        ),
        Theorem(
            "laplace.counting",
            PureDP(Laplace.calibrated(eps, 1), eps, exact=True),
            "notes 000 'Example: Counting queries': a count has sensitivity 1",
            "a count + Lap(1/eps) has epsilon exactly eps",
        ),
        Theorem(
            "laplace.counting.notes_2dp",
            PureDP(Laplace.calibrated(eps, 1), 2),
            "notes 000 'Example: Counting queries' calls count + Lap(1/eps) the '2-DP version "
            "of counting': its epsilon is eps, above 2 once eps > 2",
            "a count + Lap(1/eps) is 2-DP for every eps > 0",
            expect="refuted",
        ),
        Theorem(
            "laplace.proof_step",
            Inequality(_coordinate_loss(), sp.exp(eps / _D * sp.Abs(_FX - _FXP))),
            f"{_DR14}, proof of Thm 3.6; notes 000 'Laplace mechanism is DP', triangle inequality",
            "one coordinate of the Laplace ratio: exp(-eps/Delta (|f(x) - y| - |f(x') - y|)) <= "
            "exp(eps/Delta |f(x) - f(x')|) for all reals f(x), f(x'), y",
        ),
        Theorem(
            "laplace.notes_proof_step",
            Inequality(_coordinate_loss(), sp.exp(-eps / _D * sp.Abs(_FXP - _FX))),
            "notes 000 'Laplace mechanism is DP', the triangle-inequality line of the proof: its "
            "bound has the sign of the exponent flipped (the next line flips it back)",
            "exp(-eps/Delta (|f(x) - y| - |f(x') - y|)) <= exp(-eps/Delta |f(x') - f(x)|)",
            expect="refuted",
        ),
        Theorem(
            "geometric.two_sided",
            PureDP(TwoSidedGeometric.calibrated(), eps),
            "Ghosh, Roughgarden, Sundararajan (2009), Universally utility-maximizing privacy "
            "mechanisms",
            "integer f + two-sided geometric noise with P[z] ~ e^(-eps|z|/Delta) is eps-DP",
        ),
        Theorem(
            "exponential.half_factor",
            PureDP(ExponentialMechanism(), eps),
            f"McSherry and Talwar (2007); {_DR14}, Thm 3.10",
            "the exponential mechanism with exp(eps u/(2 Delta_u)) is eps-DP, any number of "
            "outcomes",
        ),
        Theorem(
            "exponential.monotone_no_half",
            PureDP(ExponentialMechanism(half_factor=False, monotone=True), eps),
            f"{_DR14}, remark after Thm 3.10 (monotone utilities)",
            "without the factor 1/2 the exponential mechanism is eps-DP for monotone utilities",
        ),
        Theorem(
            "exponential.no_half_non_monotone",
            PureDP(ExponentialMechanism(half_factor=False, monotone=False), eps),
            f"{_DR14}, Thm 3.10 (the 1/2 is needed when utilities may move both ways)",
            "without the factor 1/2 the exponential mechanism is eps-DP for any utility",
            expect="refuted",
        ),
        Theorem(
            "report_noisy_max.laplace",
            PureDP(ReportNoisyMax.calibrated(), eps),
            f"{_DR14}, Claim 3.9",
            "report noisy max with Lap(1/eps) on counting queries is eps-DP, any number of queries",
        ),
        Theorem(
            "report_noisy_max.laplace.any_queries",
            PureDP(ReportNoisyMax(scale=2 / eps, monotone=False), eps),
            "Ding, Wang, Wang, Zhang and Kifer (2018), Detecting violations of DP, Alg. 5; "
            f"{_DR14}, Claim 3.9 with both directions",
            "report noisy max with Lap(2/eps) on any sensitivity-1 queries is eps-DP",
        ),
        Theorem(
            "laplace.vector_l1.scale_eps",
            PureDP(LaplaceVector(scale=eps, sensitivity=1), eps),
            "Bichsel, Steffen, Bogunovic and Vechev (2021), DP-Sniper, NoisyHist2; Ding et al. "
            "(2018): the noise scale eps where 1/eps is due (true eps: 1/eps)",
            "a histogram of counts with Lap(eps) per bin is eps-DP",
            expect="refuted",
        ),
        Theorem(
            "laplace.vector_l1.per_query_sensitivity",
            PureDP(LaplaceVector(scale=1 / eps, sensitivity=10, dimension=10), eps),
            "Bichsel, Steffen, Bogunovic and Vechev (2021), DP-Sniper, PrefixSum (Wang et al. "
            "2019): 10 answers of sensitivity 1 each with Lap(1/eps) move by 10 in L1 (true eps: "
            "10 eps); prefix sums are an invertible post-processing",
            "10 queries of sensitivity 1 each, released with Lap(1/eps) each, are eps-DP",
            expect="refuted",
        ),
        Theorem(
            "laplace.float_textbook",
            PureDP(FloatLaplace(10.0, 1.0), R(1, 10)),
            "Mironov (2012), On significance of the least significant bits for differential "
            "privacy, CCS: f(x) + Lap(b) in doubles gives outputs near 0 that f(x') = 1 never "
            "gives (Sterbenz's lemma)",
            "the textbook floating-point Laplace sampler, Lap(10) on f(x) in {0, 1}, is 0.1-DP",
            expect="refuted",
        ),
        Theorem(
            "laplace.signed_zero",
            PureDP(SignedZeroLaplace(10.0, 10.0, 1.0), R(1, 10)),
            "IEEE 754-2019, Sec. 6.3 (the sign of a product is the exclusive or of the operands' "
            "signs, for zeros too): answers suppressed as 0.0 * f(x) are -0.0 when f(x) < 0 and "
            "+0.0 when f(x) > 0, though -0.0 == 0.0",
            "Lap(10) on f(x) in {-0.5, 0.5}, answers of magnitude at most 10 suppressed as "
            "0.0 * f(x), is 0.1-DP (suppression is post-processing)",
            expect="refuted",
        ),
        Theorem(
            "truncated_geometric.balcer_vadhan",
            PureDP(geo_sample(R(1, 10), 5), sp.log(R(9, 8)), exact=True),
            "Balcer and Vadhan (2018), Differential privacy on finite computers, Alg. 4.8 and "
            "Thm 4.7: GeoSample(eps, n) is ln(1 + 2^-k)-DP, k = ceil(ln(2/eps))",
            "GeoSample(0.1, 5) has epsilon exactly ln(1 + 2^-3) = ln(9/8)",
        ),
        Theorem(
            "truncated_geometric.balcer_vadhan.eps",
            PureDP(geo_sample(R(1, 10), 5), R(1, 10)),
            "DP-Sniper (Bichsel et al. 2021) audits GeoSample(0.1, 5) against eps = 0.1 and "
            "finds 0.1085; ln(1 + 2^-k) > eps here since 2^-k > e^eps - 1",
            "GeoSample(0.1, 5) is 0.1-DP",
            expect="refuted",
        ),
        Theorem(
            "histogram.replace_one",
            PureDP(Histogram(scale=2 / eps, neighbours="replace_one"), eps),
            f"notes 000 'Example: Histogram' (L1 sensitivity 2, Lap(2/eps)); {_DR14}, Sec. 3.3",
            "a histogram with Lap(2/eps) per bin is eps-DP under replace-one neighbours",
        ),
        Theorem(
            "histogram.add_remove",
            PureDP(Histogram(scale=1 / eps, neighbours="add_remove"), eps),
            f"{_DR14}, Sec. 3.3 (add/remove one record: L1 sensitivity 1)",
            "a histogram with Lap(1/eps) per bin is eps-DP under add/remove neighbours",
        ),
        Theorem(
            "histogram.replace_one.sensitivity_one",
            PureDP(Histogram(scale=1 / eps, neighbours="replace_one"), eps),
            "a common mistake: add/remove sensitivity used under replace-one (true eps: 2 eps)",
            "a histogram with Lap(1/eps) per bin is eps-DP under replace-one neighbours",
            expect="refuted",
        ),
        Theorem(
            "deterministic.not_dp",
            PureDP(FiniteMechanism({0: {0: 1, 1: 0}, 1: {0: 0, 1: 1}}, name="bit as it is"), eps),
            "notes 004 Thm 'DP requires randomisation'; notes 000 and 003 ('M must be randomized')",
            "a non-constant deterministic mechanism (a bit released as it is) is eps-DP",
            expect="refuted",
        ),
        Theorem(
            "gaussian.as_pure",
            PureDP(Gaussian(), eps),
            f"{_DR14}, Thm A.1 gives (eps, delta) with delta > 0 only; notes 004",
            "the Gaussian mechanism is pure eps-DP for some finite eps",
            expect="refuted",
        ),
        Theorem(
            "one_bit.telemetry",
            PureDP(OneBitTelemetry(), eps, exact=True),
            "Ding, Kulkarni, Yekhanin (2017), Collecting telemetry data privately, Sec. 2.1",
            "one-bit telemetry with P[1] = 1/(e^eps+1) + (x/m)(e^eps-1)/(e^eps+1) is exactly "
            "eps-LDP",
        ),
        Theorem(
            "one_bit.product_form",
            PureDP(OneBitTelemetry(form="product"), eps),
            "notes 001 'Solution to 3' (writes the probability as a product instead of a sum)",
            "one-bit telemetry with P[1] = 1/(e^eps+1) * (x/m) * (e^eps-1)/(e^eps+1) is eps-LDP",
            expect="refuted",
        ),
    ]
