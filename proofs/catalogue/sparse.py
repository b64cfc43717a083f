"""Catalogue: noisy max with exponential noise or a reported value, and the sparse vector
technique (Lyu, Su and Li 2017, Figure 1; Wang et al. 2019), with the variants that are not as
private as published."""

from __future__ import annotations

import sympy as sp

from proofs import Composition, NoisyMaxValue, PureDP, ReportNoisyMax, SparseVector, Theorem, sym

__all__ = ["theorems"]

eps = sym("epsilon")
m = sp.Symbol("m", integer=True, positive=True)
T = sym("T", real=True)
R = sp.Rational
TENTH = R(1, 10)

_DING18 = (
    "Ding, Wang, Wang, Zhang and Kifer (2018), Detecting violations of differential privacy "
    "(StatDP), CCS"
)
_LSL = (
    "Lyu, Su and Li (2017), Understanding the sparse vector technique for differential "
    "privacy, VLDB"
)
_SNIPER = "Bichsel, Steffen, Bogunovic and Vechev (2021), DP-Sniper, S&P"


def _svt(variant: int, epsilon=eps, cutoff: int = 1, threshold=T) -> SparseVector:
    return SparseVector.lyu_su_li(variant, epsilon, queries=10, cutoff=cutoff, threshold=threshold)


def theorems() -> list[Theorem]:
    return [
        Theorem(
            "report_noisy_max.exponential",
            PureDP(
                ReportNoisyMax(scale=2 / eps, monotone=False, noise="exponential"), eps, exact=True
            ),
            f"{_DING18}, Alg. 6; McKenna and Sheldon (2020), permute-and-flip",
            "report noisy max with Exp(2/eps) noise on any sensitivity-1 queries has epsilon "
            "exactly eps",
        ),
        Theorem(
            "noisy_max_value.laplace",
            PureDP(NoisyMaxValue(scale=2 / eps, queries=m), m * eps / 2, exact=True),
            f"{_DING18}, Alg. 7: the maximum value is a post-processing of m Laplace answers",
            "reporting the largest of m answers with Lap(2/eps) has epsilon exactly m eps/2",
        ),
        Theorem(
            "noisy_max_value.laplace.eps",
            PureDP(NoisyMaxValue(scale=2 / eps, queries=5), eps),
            f"{_DING18}, Alg. 7, which they show is not eps-DP (true epsilon 5 eps/2 on 5 queries)",
            "reporting the largest of 5 answers with Lap(2/eps) is eps-DP",
            expect="refuted",
        ),
        Theorem(
            "noisy_max_value.exponential",
            PureDP(NoisyMaxValue(scale=2 / eps, queries=5, noise="exponential"), eps),
            f"{_DING18}, Alg. 8: the support of the maximum moves with the answers",
            "reporting the largest of 5 answers with Exp(2/eps) is eps-DP",
            expect="refuted",
        ),
        Theorem(
            "sparse_vector.alg1",
            PureDP(_svt(1), eps),
            f"{_LSL}, Alg. 1 and Thm 2 (c = 1, eps1 = eps2 = eps/2)",
            "sparse vector Alg. 1 with cutoff 1 is eps-DP on 10 queries, any threshold",
        ),
        Theorem(
            "sparse_vector.alg2",
            PureDP(_svt(2), eps),
            f"{_LSL}, Alg. 2 (Dwork and Roth 2014, Alg. 2; the threshold redrawn)",
            "sparse vector Alg. 2 with cutoff 1 is eps-DP on 10 queries, any threshold",
        ),
        Theorem(
            "sparse_vector.alg3.ten_queries",
            PureDP(_svt(3), 5 * eps),
            f"{_LSL}, Alg. 3 (Roth 2011): on 10 queries a post-processing of 10 Laplace answers "
            "with Lap(2/eps)",
            "sparse vector Alg. 3 with cutoff 1 is 5 eps-DP on 10 queries",
        ),
        Theorem(
            "sparse_vector.alg3.eps",
            PureDP(_svt(3, TENTH, threshold=1), TENTH),
            f"{_LSL}, Alg. 3: published as eps-DP; it outputs the compared noisy answers",
            "sparse vector Alg. 3 (cutoff 1, 10 queries, T = 1) is 0.1-DP at eps = 0.1",
            expect="refuted",
        ),
        Theorem(
            "sparse_vector.alg4",
            PureDP(_svt(4), R(7, 4) * eps),
            f"{_LSL}, Alg. 4 (Lee and Clifton 2014) and Sec. 4: ((1 + 6c)/4) eps-DP",
            "sparse vector Alg. 4 with cutoff 1 is (7/4) eps-DP on 10 queries",
        ),
        Theorem(
            "sparse_vector.alg4.eps",
            PureDP(_svt(4, TENTH, threshold=1), TENTH),
            f"{_LSL}, Alg. 4: published as eps-DP",
            "sparse vector Alg. 4 (cutoff 1, 10 queries, T = 1) is 0.1-DP at eps = 0.1",
            expect="refuted",
        ),
        Theorem(
            "sparse_vector.alg5",
            PureDP(_svt(5), eps),
            f"{_LSL}, Alg. 5 (Stoddard et al. 2014): no noise on the queries",
            "sparse vector Alg. 5 is eps-DP",
            expect="refuted",
        ),
        Theorem(
            "sparse_vector.alg6.ten_queries",
            PureDP(_svt(6), 5 * eps),
            f"{_LSL}, Alg. 6 (Chen et al. 2015): no cutoff; on 10 queries a post-processing of "
            "10 Laplace answers with Lap(2/eps)",
            "sparse vector Alg. 6 is 5 eps-DP on 10 queries",
        ),
        Theorem(
            "sparse_vector.alg6.eps",
            PureDP(_svt(6, TENTH, threshold=1), TENTH),
            f"{_LSL}, Alg. 6: published as eps-DP; it never stops",
            "sparse vector Alg. 6 (10 queries, T = 1) is 0.1-DP at eps = 0.1",
            expect="refuted",
        ),
        Theorem(
            "sparse_vector.numerical",
            PureDP(SparseVector.numerical(eps, threshold=T), eps),
            "Wang, Ding, Wang, Kifer and Zhang (2019), Proving differential privacy with shadow "
            "execution (ShadowDP), PLDI: NumSVT",
            "numerical sparse vector with cutoff 2 is eps-DP on 10 queries, any threshold",
        ),
        Theorem(
            "sparse_vector.alg3_alg4.composed",
            PureDP(Composition((_svt(3, cutoff=2), _svt(4, cutoff=2))), R(23, 4) * eps),
            f"{_SNIPER}, SVT34Parallel; basic composition (Dwork and Roth 2014, Thm 3.14)",
            "Alg. 3 and Alg. 4 with cutoff 2 run on the same 10 queries are (23/4) eps-DP",
        ),
        Theorem(
            "sparse_vector.alg3_alg4.composed.eps",
            PureDP(Composition((_svt(3, TENTH, 2, 1), _svt(4, TENTH, 2, 1))), TENTH),
            f"{_SNIPER}, SVT34Parallel, audited against eps = 0.1",
            "Alg. 3 and Alg. 4 with cutoff 2 run side by side (10 queries, T = 1) are 0.1-DP at "
            "eps = 0.1",
            expect="refuted",
        ),
    ]
