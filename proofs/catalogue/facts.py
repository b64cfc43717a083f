"""Catalogue: the facts about distributions that the notes use (normalisation, moments of the
noise, the variance of a noisy mean, the inequalities between distances of the closeness tool),
and common slips as deliberately false entries (``expect='refuted'``)."""

from __future__ import annotations

import sympy as sp

from proofs import (
    AlphaCoinRR,
    DistanceBound,
    ExponentialMechanism,
    FiniteMechanism,
    ForcedResponse,
    Gaussian,
    KAryRR,
    Laplace,
    Moment,
    N,
    NoiseDensity,
    NoisyMeanVariance,
    Normalised,
    OneBitTelemetry,
    Theorem,
    TwoSidedGeometric,
    geometric_ratio,
    sym,
)

__all__ = ["theorems"]

_LLV07 = (
    "Li, Li, Venkatasubramanian (2007), t-Closeness: privacy beyond k-anonymity and "
    "l-diversity, Sec. 4.2"
)
_CT06 = "Cover and Thomas (2006), Elements of Information Theory, 2nd ed."
_N003 = 'notes 003, "Epsilon-closeness" (L2, L1, variational distance, KL)'
_DR14 = "Dwork and Roth (2014), The Algorithmic Foundations of Differential Privacy"
_N000_LAP = 'notes 000, "Def Laplace distribution": p(x) = 1/(2b) e^(-|x|/b), Var[X] = 2b^2'
_N000_MECH = (
    'notes 000, "Def Laplace mechanism", Example: b = 1/(epsilon n), Var[N] = 2/(epsilon^2 n^2)'
)
_N004_SIMPLEX = 'notes 004, "Probability Simplex" (x_i >= 0, sum_i x_i = 1)'
_N004_GAUSS = (
    'notes 004, "Example of DP-mechanism: Gaussian Mechanism" (F(x) = f(x) + N(0, sigma^2))'
)
_GRS09 = (
    "Ghosh, Roughgarden, Sundararajan (2009), Universally utility-maximizing privacy "
    "mechanisms (two-sided geometric noise)"
)


def theorems() -> list[Theorem]:
    """Catalogue entries: the distribution facts the notes use, and false variants."""
    b, sigma, eps = sym("b"), sym("sigma"), sym("epsilon")
    geo = TwoSidedGeometric()
    a = geometric_ratio(geo)
    e = sp.exp(eps)
    three_rr_slip = FiniteMechanism(
        {x: {y: (e if x == y else 1) / (e + 3) for y in range(3)} for x in range(3)},
        assumptions=(eps > 0,),
        name="3-ary RR with e^eps + k",
    )
    T = Theorem
    return [
        # normalisation
        T("facts.laplace.normalised", Normalised(Laplace()), f"{_N000_LAP}; {_DR14}, Def 3.3"),
        T("facts.gaussian.normalised", Normalised(Gaussian()), f"{_N004_GAUSS}; {_DR14}, App. A"),
        T("facts.geometric.normalised", Normalised(geo), _GRS09),
        T(
            "facts.alpha_rr.normalised",
            Normalised(AlphaCoinRR()),
            'Warner (1965); notes 003, "Randomised response"',
        ),
        T(
            "facts.forced_response.normalised",
            Normalised(ForcedResponse(sym("p_truth"), sym("p_yes"))),
            f'notes 002, "Example: Running red lights"; {_DR14}, Sec. 3.2',
        ),
        T(
            "facts.kary_rr.normalised",
            Normalised(KAryRR()),
            "Kairouz, Oh, Viswanath (2016), Extremal mechanisms for local DP: "
            "(e^eps + (k - 1))/(e^eps + k - 1) = 1",
        ),
        T(
            "facts.one_bit.normalised",
            Normalised(OneBitTelemetry()),
            "Ding, Kulkarni, Yekhanin (2017), Collecting telemetry data privately, Sec. 2.1",
        ),
        T(
            "facts.exponential.normalised",
            Normalised(ExponentialMechanism()),
            f"McSherry and Talwar (2007); {_DR14}, Def 3.4 (three symbolic utilities)",
        ),
        T(
            "facts.finite.normalised",
            Normalised(
                FiniteMechanism(
                    {x: {y: (e if x == y else 1) / (e + 2) for y in range(3)} for x in range(3)},
                    assumptions=(eps > 0,),
                    name="3-ary RR",
                )
            ),
            _N004_SIMPLEX,
        ),
        # moments
        T(
            "facts.laplace.mean",
            Moment(Laplace(), "mean", 0),
            'notes 000, "How to pick noise N?" ("Should have mean 0")',
        ),
        T("facts.laplace.variance", Moment(Laplace(), "variance", 2 * b**2), _N000_LAP),
        T("facts.gaussian.mean", Moment(Gaussian(), "mean", 0), _N004_GAUSS),
        T("facts.gaussian.variance", Moment(Gaussian(), "variance", sigma**2), _N004_GAUSS),
        T("facts.geometric.mean", Moment(geo, "mean", 0), _GRS09),
        T(
            "facts.geometric.variance",
            Moment(geo, "variance", 2 * a / (1 - a) ** 2),
            f"{_GRS09}; closed form 2a/(1 - a)^2, a = exp(-1/b), derived here",
        ),
        # noisy mean
        T(
            "facts.noisy_mean.variance",
            NoisyMeanVariance(2 / (eps * N) ** 2),
            f'{_N000_MECH}; notes 000, "L1-sensitivity", Example (Delta = 1/n)',
        ),
        T(
            "facts.noisy_mean.gaussian_variance",
            NoisyMeanVariance(sigma**2, "gaussian"),
            _N004_GAUSS,
        ),
        # distances
        T(
            "facts.distance.tv_half_l1",
            DistanceBound("TV", "L1/2", "=="),
            f'{_N003}: "Variational distance: 1/2 * Sum |P_L(s) - P_Q(s)|"',
        ),
        T("facts.distance.l2_le_l1", DistanceBound("L2", "L1"), _N003),
        T(
            "facts.distance.l1_le_sqrt_m_l2",
            DistanceBound("L1", "sqrt(m)*L2"),
            "Cauchy-Schwarz inequality",
        ),
        T("facts.distance.tv_le_1", DistanceBound("TV", "1"), _N003),
        T(
            "facts.distance.kl_nonnegative",
            DistanceBound("0", "KL"),
            f"Gibbs' inequality; {_CT06}, Thm 2.6.3",
        ),
        T(
            "facts.distance.pinsker",
            DistanceBound("TV", "sqrt(KL/2)"),
            f"Pinsker's inequality; {_CT06}, Lemma 11.6.1",
        ),
        T(
            "facts.distance.emd_ordered_le_tv",
            DistanceBound("EMD", "TV"),
            f"{_LLV07}; auditor.closeness (ordered EMD)",
        ),
        T("facts.distance.emd_categorical_eq_tv", DistanceBound("EMD_cat", "TV", "=="), _LLV07),
        # deliberately false variants
        T(
            "facts.laplace.variance_b_squared",
            Moment(Laplace(), "variance", b**2),
            f"common slip; {_N000_LAP}",
            expect="refuted",
        ),
        T(
            "facts.laplace.density_without_half",
            Normalised(NoiseDensity("exp(-abs(y)/b)/b", domain=(b > 0,), name="(1/b) e^(-|y|/b)")),
            "common slip: the Laplace density without the factor 1/2",
            expect="refuted",
        ),
        T(
            "facts.geometric.variance_one_sided",
            Moment(geo, "variance", a / (1 - a) ** 2),
            "slip: a/(1 - a)^2 is the variance of a one-sided geometric on {0, 1, ...}",
            expect="refuted",
        ),
        T(
            "facts.kary_rr.k_instead_of_k_minus_1",
            Normalised(three_rr_slip),
            "slip: P[Y = x] = e^eps/(e^eps + k) for k = 3",
            expect="refuted",
        ),
        T(
            "facts.noisy_mean.variance_without_n",
            NoisyMeanVariance(2 / eps**2),
            "slip: sensitivity 1 instead of 1/n",
            expect="refuted",
        ),
        T(
            "facts.distance.tv_le_half_kl",
            DistanceBound("TV", "KL/2"),
            "false: TV is of order sqrt(KL), not KL",
            expect="refuted",
        ),
        T(
            "facts.distance.pinsker_wrong_constant",
            DistanceBound("TV", "sqrt(KL)/2"),
            f"Pinsker with 1/4 instead of 1/2 under the root; {_CT06}, Lemma 11.6.1",
            expect="refuted",
        ),
        T(
            "facts.distance.l1_le_l2",
            DistanceBound("L1", "L2"),
            "false: L2 <= L1 reversed",
            expect="refuted",
        ),
        T(
            "facts.distance.tv_le_ordered_emd",
            DistanceBound("TV", "EMD"),
            f"false: the ordered EMD can be smaller than TV; {_LLV07}",
            expect="refuted",
        ),
    ]
