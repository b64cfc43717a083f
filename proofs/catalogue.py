"""The built-in catalogue of theorems, checked by `dpaudit prove` with no argument.

Every entry names its source. Deliberately false statements (mistakes found in lecture notes
and folklore) carry `expect='refuted'`: the catalogue run exits 0 when every verdict is as
expected and 1 when any differs.
"""

from __future__ import annotations

import sympy as sp

from proofs import (
    AlphaCoinRR, ExponentialMechanism, ForcedResponse, Gaussian, Histogram, KAryRR, Laplace,
    LaplaceVector, OneBitTelemetry, PureDP, Rappor, RepeatedOneBit, ReportNoisyMax, Theorem,
    TwoSidedGeometric, sym,
)

__all__ = ["CATALOGUE", "catalogue"]

a = sym("alpha")
eps = sym("epsilon")
n = sp.Symbol("n", integer=True, positive=True)

_DR14 = "Dwork and Roth (2014), The Algorithmic Foundations of Differential Privacy"


def _pure() -> list[Theorem]:
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
            "the exponential mechanism with exp(eps u/(2 Delta_u)) is eps-DP, any number of outcomes",
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
            "one-bit telemetry with P[1] = 1/(e^eps+1) + (x/m)(e^eps-1)/(e^eps+1) is exactly eps-LDP",
        ),
        Theorem(
            "one_bit.product_form",
            PureDP(OneBitTelemetry(form="product"), eps),
            "notes 001 'Solution to 3' (writes the probability as a product instead of a sum)",
            "one-bit telemetry with P[1] = 1/(e^eps+1) * (x/m) * (e^eps-1)/(e^eps+1) is eps-LDP",
            expect="refuted",
        ),
    ]


_EPK14 = "Erlingsson, Pihur, Korolova (2014), RAPPOR, CCS"
_DKY17 = "Ding, Kulkarni, Yekhanin (2017), Collecting telemetry data privately, NeurIPS"
_CHROME = dict(f=sp.Rational(1, 2), p=sp.Rational(1, 2), q=sp.Rational(3, 4), h=2)


def _rappor_eps_one() -> sp.Expr:
    f, p, q, h = sym("f"), sym("p"), sym("q"), sp.Symbol("h", integer=True, positive=True)
    q_star = (1 - f / 2) * q + f / 2 * p
    p_star = f / 2 * q + (1 - f / 2) * p
    return h * sp.log(q_star * (1 - p_star) / (p_star * (1 - q_star)))


def _local() -> list[Theorem]:
    f, h = sym("f"), sp.Symbol("h", integer=True, positive=True)
    T = sp.Symbol("T", integer=True, positive=True)
    return [
        Theorem(
            "rappor.eps_inf",
            PureDP(Rappor(reports="unlimited"), 2 * h * sp.log((1 - f / 2) / (f / 2)), exact=True),
            f"{_EPK14}, Thm 1 (memoized permanent randomized response)",
            "unlimited RAPPOR reports of one value have epsilon exactly 2h ln((1-f/2)/(f/2))",
        ),
        Theorem(
            "rappor.eps_one",
            PureDP(Rappor(reports="one"), _rappor_eps_one(), exact=True),
            f"{_EPK14}, Sec. 3.2 (one report: PRR then IRR)",
            "one RAPPOR report has epsilon exactly h ln(q*(1-p*)/(p*(1-q*)))",
        ),
        Theorem(
            "rappor.notes_budget_4_4",
            PureDP(Rappor(**_CHROME, reports="unlimited"), 4 * sp.log(3), exact=True),
            f"notes 001 ('budget of ~4.4'); {_EPK14}, Chrome parameters h=2, f=1/2",
            "the notes' budget ~4.4 is eps_inf = 4 ln 3 = ln 81 ~ 4.394 at h=2, f=1/2",
        ),
        Theorem(
            "rappor.notes_each_two_dp",
            PureDP(Rappor(**_CHROME, reports="one"), 2),
            "notes 001 ('100 metrics, each is 2-DP'), read as the per-report epsilon at the "
            "Chrome parameters h=2, f=1/2, p=1/2, q=3/4: true as an upper bound",
            "one RAPPOR report at the Chrome parameters is 2-DP",
        ),
        Theorem(
            "rappor.notes_each_two_dp.exact_value",
            PureDP(Rappor(**_CHROME, reports="one"), 2 * sp.log(sp.Rational(77, 45)), exact=True),
            f"{_EPK14}, Sec. 3.2 at the Chrome parameters h=2, f=1/2, p=1/2, q=3/4",
            "one RAPPOR report at the Chrome parameters has epsilon exactly 2 ln(77/45) ~ 1.074",
        ),
        Theorem(
            "rappor.notes_each_two_dp.as_exact",
            PureDP(Rappor(**_CHROME, reports="one"), 2, exact=True),
            "notes 001 ('each is 2-DP') read as the exact per-report epsilon: it is 1.074",
            "one RAPPOR report at the Chrome parameters has epsilon exactly 2",
            expect="refuted",
        ),
        Theorem(
            "one_bit.memoized",
            PureDP(RepeatedOneBit(memoized=True), eps, exact=True),
            f"{_DKY17}, Sec. 3 (memoization); post-processing",
            "T memoized one-bit reports of one value have epsilon exactly eps, for every T",
        ),
        Theorem(
            "one_bit.repeated_composes",
            PureDP(RepeatedOneBit(memoized=False), T * eps, exact=True),
            f"{_DKY17}, Sec. 3 (why memoize); sequential composition",
            "T fresh one-bit reports of one value have epsilon exactly T eps",
        ),
        Theorem(
            "one_bit.repeated_without_memoization",
            PureDP(RepeatedOneBit(memoized=False), eps),
            "notes 001 ('values change little over time => simple DP collection would reveal too "
            "much'): repeated collection without memoization is not eps-DP",
            "T fresh one-bit reports of one value are eps-DP for every T",
            expect="refuted",
        ),
    ]


def catalogue() -> list[Theorem]:
    """All built-in theorems, in a stable order."""
    from proofs import _catalogue_facts, _catalogue_ii

    return _pure() + _local() + list(_catalogue_ii.theorems()) + _catalogue_facts.theorems()


CATALOGUE: tuple[Theorem, ...] = tuple(catalogue())
