"""Catalogue: local protocols (RAPPOR and one-bit telemetry), their memoization, what the
lecture notes say about them, and the local-DP frequency oracles with their estimators."""

from __future__ import annotations

import sympy as sp

from proofs import (
    HadamardResponse,
    KAryRR,
    LocalHashing,
    PureDP,
    Rappor,
    RepeatedOneBit,
    SubsetSelection,
    Theorem,
    UnaryEncoding,
    Unbiased,
    Variance,
    frequency_estimator,
    frequency_variance,
    sym,
)

__all__ = ["CHROME", "rappor_eps_one", "theorems"]

eps = sym("epsilon")

_EPK14 = "Erlingsson, Pihur, Korolova (2014), RAPPOR, CCS"
_DKY17 = "Ding, Kulkarni, Yekhanin (2017), Collecting telemetry data privately, NeurIPS"
CHROME = dict(f=sp.Rational(1, 2), p=sp.Rational(1, 2), q=sp.Rational(3, 4), h=2)


def rappor_eps_one() -> sp.Expr:
    f, p, q, h = sym("f"), sym("p"), sym("q"), sp.Symbol("h", integer=True, positive=True)
    q_star = (1 - f / 2) * q + f / 2 * p
    p_star = f / 2 * q + (1 - f / 2) * p
    return h * sp.log(q_star * (1 - p_star) / (p_star * (1 - q_star)))


def theorems() -> list[Theorem]:
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
            PureDP(Rappor(reports="one"), rappor_eps_one(), exact=True),
            f"{_EPK14}, Sec. 3.2 (one report: PRR then IRR)",
            "one RAPPOR report has epsilon exactly h ln(q*(1-p*)/(p*(1-q*)))",
        ),
        Theorem(
            "rappor.notes_budget_4_4",
            PureDP(Rappor(**CHROME, reports="unlimited"), 4 * sp.log(3), exact=True),
            f"notes 001 ('budget of ~4.4'); {_EPK14}, Chrome parameters h=2, f=1/2",
            "the notes' budget ~4.4 is eps_inf = 4 ln 3 = ln 81 ~ 4.394 at h=2, f=1/2",
        ),
        Theorem(
            "rappor.notes_each_two_dp",
            PureDP(Rappor(**CHROME, reports="one"), 2),
            "notes 001 ('100 metrics, each is 2-DP'), read as the per-report epsilon at the "
            "Chrome parameters h=2, f=1/2, p=1/2, q=3/4: true as an upper bound",
            "one RAPPOR report at the Chrome parameters is 2-DP",
        ),
        Theorem(
            "rappor.notes_each_two_dp.exact_value",
            PureDP(Rappor(**CHROME, reports="one"), 2 * sp.log(sp.Rational(77, 45)), exact=True),
            f"{_EPK14}, Sec. 3.2 at the Chrome parameters h=2, f=1/2, p=1/2, q=3/4",
            "one RAPPOR report at the Chrome parameters has epsilon exactly 2 ln(77/45) ~ 1.074",
        ),
        Theorem(
            "rappor.notes_each_two_dp.as_exact",
            PureDP(Rappor(**CHROME, reports="one"), 2, exact=True),
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
    ] + oracle_theorems()


_WBLJ17 = (
    "Wang, Blocki, Li, Jha (2017), Locally differentially private protocols for frequency "
    "estimation, USENIX Security"
)
_ORACLES = {
    "grr": (KAryRR(), "generalized randomized response (direct encoding)", f"{_WBLJ17}, Sec. 4.1"),
    "sue": (
        UnaryEncoding(variant="symmetric"),
        "symmetric unary encoding (SUE, basic one-time RAPPOR)",
        f"{_WBLJ17}, Sec. 4.3",
    ),
    "oue": (UnaryEncoding(), "optimized unary encoding (OUE)", f"{_WBLJ17}, Sec. 4.3"),
    "blh": (LocalHashing(g=2), "binary local hashing (BLH)", f"{_WBLJ17}, Sec. 4.4"),
    "olh": (
        LocalHashing(),
        "local hashing onto g values (OLH: g = e^eps + 1)",
        f"{_WBLJ17}, Sec. 4.4",
    ),
    "hadamard": (
        HadamardResponse(),
        "Hadamard response",
        "Acharya, Sun, Zhang (2019), Hadamard response, AISTATS",
    ),
    "subset_selection": (
        SubsetSelection(),
        "subset selection (d of k values)",
        "Ye, Barg (2018), Optimal schemes for discrete distribution estimation under LDP, "
        "IEEE Trans. Inf. Theory; Wang et al. (2016)",
    ),
}


def oracle_theorems() -> list[Theorem]:
    """For each frequency oracle: its exact epsilon, and the frequency estimator
    (S - n q*) / (p* - q*) unbiased with Wang et al.'s variance, for every parameter value."""
    out = []
    for key, (mech, name, source) in _ORACLES.items():
        est = frequency_estimator(mech)
        out += [
            Theorem(
                f"ldp.{key}.exact",
                PureDP(mech, mech.epsilon, exact=True),
                source,
                f"{name} has epsilon exactly eps",
            ),
            Theorem(
                f"ldp.{key}.unbiased",
                Unbiased(est),
                f"{_WBLJ17}, Sec. 3 (pure protocols)",
                f"{name}: c_hat = (S - n q*)/(p* - q*) is unbiased for the count n_1 of value v",
            ),
            Theorem(
                f"ldp.{key}.variance",
                Variance(est, frequency_variance(mech), "=="),
                f"{_WBLJ17}, Thm 2",
                f"{name}: Var[c_hat] = n q*(1-q*)/(p*-q*)^2 + n_1 (1-p*-q*)/(p*-q*)",
            ),
        ]
    out.append(
        Theorem(
            "ldp.sue.full_epsilon_per_bit",
            PureDP(UnaryEncoding(2 * eps, variant="symmetric"), eps),
            "a common slip: keeping each unary bit with e^eps/(e^eps+1) spends eps per bit, and "
            f"two bits change between neighbours ({_WBLJ17}, Sec. 4.3: SUE uses eps/2)",
            "unary encoding that keeps each bit with probability e^eps/(e^eps + 1) is eps-LDP",
            expect="refuted",
        )
    )
    return out
