"""The one catalogue: each entry ties a :mod:`proofs` description to a sampler.

An entry holds the description (built at any epsilon), the ids of the catalogue theorems that
cover it, the sampler (the description's own, :func:`auditor.catalogue.sampler_for`, unless the
entry implements it otherwise), default neighbouring pairs (the StatDP / DP-Sniper input
patterns) and the claimed (eps, delta): 0.1 unless said otherwise, as in those tools'
benchmarks. Its true epsilon is computed by :func:`proofs.true_epsilon` from the description,
never written here; a broken entry names the catalogue theorem that refutes its claim.

A mechanism the proof checker cannot describe would carry a :class:`proofs.Published`
description, whose epsilon is cited; no entry needs one.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import sympy as sp

from auditor.catalogue import implementations as impl
from auditor.catalogue.samplers import Sampler, sampler_for
from auditor.engine.pairs import Pair
from proofs import mechanisms as m
from proofs.errors import InputError
from proofs.expr import as_expr

__all__ = ["ALIASES", "CATALOGUE", "CatalogueEntry", "get", "names", "sampler"]


@dataclass(frozen=True, slots=True)
class CatalogueEntry:
    """A reference mechanism: its description, the theorems about it, its sampler and claim."""

    name: str
    describe: Callable[[float], Any]
    claimed_epsilon: float
    pairs: tuple[Pair, ...]
    source: str
    theorems: tuple[str, ...] = ()
    refuted_by: str | None = None
    make: Callable[[float], Sampler] | None = None
    implementation: str = ""
    relation: str = "sensitivity"
    delta: float = 0.0
    note: str = ""
    aliases: tuple[str, ...] = field(default=())

    @property
    def description(self) -> Any:
        """The :mod:`proofs` description at the claimed epsilon."""
        return self.describe(self.claimed_epsilon)

    @property
    def published(self) -> bool:
        return isinstance(self.description, m.Published)

    @property
    def correct(self) -> bool:
        """Does the sampler meet its claim? No when a theorem refutes it or the published
        epsilon exceeds the claim."""
        if self.published:
            return self.description.epsilon <= self.claimed_epsilon
        return self.refuted_by is None

    def true(self, epsilon: float | None = None):
        """:class:`proofs.TrueEpsilon` of the description built at `epsilon` (default: the
        claimed one), or None when the proof checker does not know it."""
        eps = self.claimed_epsilon if epsilon is None else epsilon
        return _true(self.name, float(eps))

    def true_epsilon_of(self, epsilon: float) -> float | None:
        """The true epsilon of the sampler built at `epsilon` (inf: unbounded)."""
        t = self.true(epsilon)
        return None if t is None else t.value

    @property
    def true_epsilon(self) -> float | None:
        """The true epsilon of the sampler built at the claimed epsilon (inf: unbounded)."""
        return self.true_epsilon_of(self.claimed_epsilon)

    def sampler(self, epsilon: float | None = None) -> Sampler:
        eps = self.claimed_epsilon if epsilon is None else epsilon
        if self.make is not None:
            return self.make(eps)
        return sampler_for(self.describe(eps))


@lru_cache(maxsize=256)
def _true(name: str, epsilon: float):
    from proofs.epsilon import true_epsilon

    entry = CATALOGUE[name]
    return true_epsilon(entry.describe(epsilon), entry.delta)


# ---------------------------------------------------------------- neighbouring inputs
def _pairs(*items: tuple[Any, Any, str]) -> tuple[Pair, ...]:
    return tuple(Pair(a, b, label) for a, b, label in items)


def _patterns(n: int, componentwise: bool = True) -> tuple[Pair, ...]:
    """StatDP input patterns (Ding et al. 2018, Sec. 5.1) on the all-ones database of length n."""
    h = n // 2
    one = [1] * n
    items = [(one, [0] + [1] * (n - 1), "one below"), (one, [2] + [1] * (n - 1), "one above")]
    if componentwise:
        items += [
            (one, [2] + [0] * (n - 1), "one above rest below"),
            (one, [0] + [2] * (n - 1), "one below rest above"),
            (one, [2] * h + [0] * (n - h), "half half"),
            (one, [2] * n, "all above"),
            (one, [0] * n, "all below"),
            ([1] * h + [0] * (n - h), [0] * h + [1] * (n - h), "X shape"),
        ]
    return tuple(Pair(a, b, label) for a, b, label in items)


# ---------------------------------------------------------------- descriptions
def _exact(eps: float) -> sp.Expr:
    return as_expr(eps, "epsilon")


def _gaussian(delta: float) -> Callable[[float], m.Gaussian]:
    from proofs.formulas import classical_sigma

    return lambda eps: m.Gaussian(
        sigma=classical_sigma(_exact(eps), as_expr(delta, "delta"), 1), sensitivity=1
    )


def _gaussian_vector(delta: float, move: float) -> Callable[[float], m.GaussianVector]:
    """16 coordinates, an L2 sensitivity of 1, sigma calibrated (classically) on ``move``: the
    L2 sensitivity itself (correct), or how far each coordinate moves (1/4: a slip)."""
    from proofs.formulas import classical_sigma

    return lambda eps: m.GaussianVector(
        sigma=classical_sigma(_exact(eps), as_expr(delta, "delta"), as_expr(move, "move")),
        sensitivity=1,
        dimension=16,
    )


_SPREAD = ([0.0] * 16, [0.25] * 16, "every coordinate moves by 1/4 (L2 1)")
_CHROME = dict(f=0.5, p=0.5, q=0.75, h=2)
_DPSNIPER_RAPPOR = dict(f=0.75, p=0.45, q=0.55, h=4)
_QUERIES = 10  # the sparse vector entries answer 10 queries (DP-Sniper's setting)
_SVT_PAIRS = _patterns(_QUERIES)
_RNM_PAIRS = _patterns(5)
_HIST_PAIRS = _patterns(5, componentwise=False)
_LSL = "Lyu, Su and Li (2017), Understanding the Sparse Vector Technique for DP, VLDB, Fig. 1"
_DING18 = "Ding, Wang, Wang, Zhang and Kifer (2018), Detecting Violations of DP (StatDP), CCS"
_DR14 = "Dwork and Roth (2014)"
_EXP_PAIRS = _pairs(
    ([1, 0, 0, 0], [0, 1, 1, 1], "one down rest up"), ([0, 0, 0, 0], [1, 0, 0, 0], "one up")
)


def _svt(variant: int, source: str, threshold: float = 1, **kw) -> dict:
    """Alg. `variant` of Lyu, Su and Li (2017) on the catalogue's 10 queries, cutoff 1."""
    return dict(
        describe=lambda e: m.SparseVector.lyu_su_li(
            variant, _exact(e), queries=_QUERIES, threshold=as_expr(threshold, "threshold")
        ),
        pairs=_SVT_PAIRS,
        source=source,
        **kw,
    )


def _rappor(params: dict, reports: str, bits: int | None = None) -> dict:
    """Description, claim (its own epsilon), covering theorem and relation of a RAPPOR entry;
    ``bits``: the Bloom filter size, when not the catalogue's default."""
    mech = m.Rappor(**params, reports=reports)
    out: dict[str, Any] = dict(
        describe=lambda e: mech,
        claimed_epsilon=float(mech.epsilon),
        theorems=("rappor.eps_one" if reports == "one" else "rappor.eps_inf",),
        relation="replace-one",
    )
    if bits is not None:
        out["make"] = lambda e: sampler_for(mech, bits)
    return out


def _entries() -> list[CatalogueEntry]:
    E = CatalogueEntry
    return [
        E(
            "rr.alpha_coin",
            lambda e: m.AlphaCoinRR(sp.tanh(_exact(e) / 2)),
            0.1,
            _pairs((0, 1, "bit 0 vs 1")),
            "Warner (1965); keep w.p. alpha else fair coin: eps = ln((1+alpha)/(1-alpha))",
            theorems=("rr.alpha_coin.exact",),
            relation="replace-one",
        ),
        E(
            "rr.alpha_coin.two_alpha",
            lambda e: m.AlphaCoinRR(_exact(e) / 2),
            1.5,
            _pairs((0, 1, "bit 0 vs 1")),
            "notes 000: 'randomised response is approximately 2*alpha-differentially private'; "
            "alpha = 3/4 claimed 1.5-DP is ln 7 ~ 1.95-DP (ln((1+a)/(1-a)) > 2a)",
            refuted_by="rr.alpha_coin.two_alpha",
            relation="replace-one",
        ),
        E(
            "rr.forced_response",
            lambda e: m.ForcedResponse(),
            math.log(3),
            _pairs((0, 1, "bit 0 vs 1")),
            "Warner (1965) forced response: truth w.p. 3/4, eps = ln 3",
            theorems=("rr.forced_response.ln3",),
            relation="replace-one",
        ),
        E(
            "rr.k_ary",
            lambda e: m.KAryRR(e, 4),
            0.1,
            _pairs((0, 1, "category 0 vs 1")),
            "k-ary randomized response (Kairouz, Oh, Viswanath 2014), k=4: eps-LDP",
            theorems=("rr.k_ary.exact",),
            relation="replace-one",
        ),
        E(
            "laplace.scalar",
            lambda e: m.Laplace.calibrated(e, 1),
            0.1,
            _pairs((0.0, 1.0, "0 vs 1")),
            f"Laplace mechanism, Dwork, McSherry, Nissim, Smith (2006); {_DR14} Thm 3.6",
            theorems=("laplace.scalar",),
            aliases=("laplace",),
        ),
        E(
            "laplace.float_textbook",
            lambda e: m.FloatLaplace(1 / e, 1.0),
            0.1,
            _pairs((0.0, 1.0, "0 vs 1")),
            "Mironov (2012), On significance of the least significant bits for DP: textbook float "
            "Laplace leaks through its low-order bits",
            refuted_by="laplace.float_textbook",
            implementation="Laplace(1/eps) returned as a raw double (NumPy's sampler): some "
            "doubles near 0 come from f(x) = 0 only",
        ),
        E(
            "laplace.signed_zero",
            lambda e: m.SignedZeroLaplace(1 / e, 1 / e, 1.0),
            0.1,
            _pairs((-0.5, 0.5, "-0.5 vs 0.5")),
            "IEEE 754-2019 Sec. 6.3: a product's zero carries the exclusive or of its operands' "
            "signs, so answers suppressed as 0.0 * f(x) are -0.0 exactly when f(x) < 0",
            refuted_by="laplace.signed_zero",
            implementation="Laplace(1/eps) as a raw double; answers within 1/eps of 0 suppressed "
            "as 0.0 * f(x) (fixed by 0.0, or by adding 0.0 to the product)",
        ),
        E(
            "laplace.vector_l1",
            lambda e: m.LaplaceVector.calibrated(e, 1, 5),
            0.1,
            _pairs(
                ([0.0] * 5, [1.0, 0, 0, 0, 0], "one coordinate"),
                ([0.0] * 5, [0.5, -0.5, 0, 0, 0], "split L1 mass"),
            ),
            f"Laplace mechanism with L1 sensitivity 1, {_DR14} Thm 3.6",
            theorems=("laplace.vector_l1",),
            relation="any",
        ),
        E(
            "laplace_parallel20",
            lambda e: m.LaplaceVector(20 / _exact(e), 20, 20),
            0.1,
            _pairs((0.0, 1.0, "0 vs 1")),
            "20 Laplace mechanisms with eps/20 each on one input (DP-Sniper's LaplaceParallel, "
            f"Bichsel et al. 2021); composition, {_DR14} Thm 3.14",
            theorems=("laplace.vector_l1",),
            make=lambda e: impl.same_input_everywhere(
                sampler_for(m.LaplaceVector(20 / _exact(e), 20, 20)), 20
            ),
            implementation="one number copied to the 20 coordinates: L1 sensitivity 20",
        ),
        E(
            "gaussian",
            _gaussian(1e-5),
            0.5,
            _pairs((0.0, 1.0, "0 vs 1")),
            f"Gaussian mechanism sigma = sqrt(2 ln(1.25/delta))/eps, {_DR14} Thm A.1; true eps at "
            "delta from the analytic Gaussian, Balle and Wang (2018) Thm 8",
            theorems=("gaussian.classical_calibration.eps_below_1",),
            delta=1e-5,
        ),
        E(
            "gaussian.vector_l2",
            _gaussian_vector(1e-5, 1.0),
            0.5,
            _pairs(_SPREAD, ([0.0] * 16, [1.0] + [0.0] * 15, "one coordinate moves by 1")),
            "Gaussian mechanism on R^16, sigma = sqrt(2 ln(1.25/delta)) Delta_2/eps on the L2 "
            f"sensitivity Delta_2 = 1 (notes 004, Def. Gaussian mechanism; {_DR14} Thm A.1); "
            "true eps at delta: the one-dimensional mechanism's (same privacy losses)",
            theorems=("gaussian.vector_l2.classical",),
            delta=1e-5,
        ),
        E(
            "gaussian.vector_per_coordinate",
            _gaussian_vector(1e-5, 0.25),
            0.5,
            _pairs(_SPREAD),
            "the same Gaussian mechanism on R^16 with sigma calibrated on how far each "
            "coordinate moves (1/4) instead of the L2 move (1): a quarter of the noise",
            refuted_by="gaussian.vector_l2.per_coordinate",
            delta=1e-5,
        ),
        E(
            "geometric.two_sided",
            lambda e: m.TwoSidedGeometric.calibrated(e, 1),
            0.1,
            _pairs((0, 1, "0 vs 1")),
            "Two-sided geometric mechanism, Ghosh, Roughgarden, Sundararajan (2009)",
            theorems=("geometric.two_sided",),
            aliases=("geometric",),
        ),
        E(
            "truncated_geometric",
            lambda e: m.TwoSidedGeometric.calibrated(e, 1),
            0.1,
            _pairs((1, 0, "one below"), (1, 2, "one above")),
            "Truncated geometric on {0..5}, Ghosh, Roughgarden, Sundararajan (2009); clamping is "
            "post-processing",
            theorems=("geometric.two_sided",),
            make=lambda e: impl.clamped(sampler_for(m.TwoSidedGeometric.calibrated(e, 1)), 0, 5),
            implementation="the two-sided geometric output clamped to {0..5} (post-processing: "
            "the description's epsilon is an upper bound, attained inside the range)",
        ),
        E(
            "exponential.half_factor",
            lambda e: m.ExponentialMechanism(e, 1),
            0.1,
            _EXP_PAIRS,
            "Exponential mechanism exp(eps u / 2), McSherry and Talwar (2007) Thm 6",
            theorems=("exponential.half_factor",),
        ),
        E(
            "exponential.no_half_factor",
            lambda e: m.ExponentialMechanism(e, 1, half_factor=False),
            0.1,
            _EXP_PAIRS,
            "Exponential mechanism without the 1/2: 2 eps-DP in general (McSherry and Talwar 2007)",
            refuted_by="exponential.no_half_non_monotone",
        ),
        E(
            "report_noisy_max.laplace",
            lambda e: m.ReportNoisyMax(2 / _exact(e), monotone=False),
            0.1,
            _RNM_PAIRS,
            "Report noisy max, argmax with Lap(2/eps): Alg. 5 of " + _DING18,
            theorems=("report_noisy_max.laplace.any_queries",),
            aliases=("rnm1",),
        ),
        E(
            "rnm2",
            lambda e: m.ReportNoisyMax(2 / _exact(e), monotone=False, noise="exponential"),
            0.1,
            _RNM_PAIRS,
            "Report noisy max, argmax with Exp(2/eps): Alg. 6 of " + _DING18,
            theorems=("report_noisy_max.exponential",),
        ),
        E(
            "rnm3",
            lambda e: m.NoisyMaxValue(2 / _exact(e), 5),
            0.1,
            _RNM_PAIRS,
            "Max value with Lap(2/eps) (Alg. 7 of " + _DING18 + "): post-processing of 5 Laplace "
            "answers, (5 eps/2)-DP, attained in the lower tail on 'all above'",
            theorems=("noisy_max_value.laplace",),
            refuted_by="noisy_max_value.laplace.eps",
        ),
        E(
            "rnm4",
            lambda e: m.NoisyMaxValue(2 / _exact(e), 5, noise="exponential"),
            0.1,
            _RNM_PAIRS,
            "Max value with Exp(2/eps) (Alg. 8 of " + _DING18 + "): supports shift, unbounded",
            refuted_by="noisy_max_value.exponential",
        ),
        E(
            "noisy_hist1",
            lambda e: m.LaplaceVector.calibrated(e, 1, 5),
            0.1,
            _HIST_PAIRS,
            f"Noisy histogram Lap(1/eps), {_DR14} Sec. 3.3; DP-Sniper NoisyHist1",
            theorems=("laplace.vector_l1",),
        ),
        E(
            "noisy_hist2",
            lambda e: m.LaplaceVector(e, 1, 5),
            0.1,
            _HIST_PAIRS,
            "Noisy histogram with Lap(eps) instead of Lap(1/eps): (1/eps)-DP; DP-Sniper NoisyHist2 "
            "(Bichsel et al. 2021), StatDP (Ding et al. 2018)",
            theorems=("laplace.vector_l1",),
            refuted_by="laplace.vector_l1.scale_eps",
        ),
        E(
            "histogram.add_remove",
            lambda e: m.Histogram(1 / _exact(e), bins=5),
            0.1,
            _pairs(([0, 1, 2, 3, 4], [0, 1, 2, 3, 4, 0], "add a record in bin 0")),
            f"Histogram Lap(1/eps) under add/remove: one count moves by 1, {_DR14} Sec. 3.3",
            theorems=("histogram.add_remove",),
            relation="add-remove",
        ),
        E(
            "histogram.replace_one",
            lambda e: m.Histogram(1 / _exact(e), "replace_one", bins=5),
            0.1,
            _pairs(([0, 1, 2, 3, 4], [1, 1, 2, 3, 4], "move a record from bin 0 to bin 1")),
            "Histogram Lap(1/eps) under replace-one: two counts move, L1 sensitivity 2, so 2 "
            "eps-DP",
            theorems=("histogram.replace_one",),
            refuted_by="histogram.replace_one.sensitivity_one",
            relation="replace-one",
        ),
        E(
            "svt1",
            claimed_epsilon=0.1,
            **_svt(
                1,
                "Alg. 1 of " + _LSL + " (c=1, T=0.5): eps-DP (their Thm 2)",
                threshold=0.5,
                theorems=("sparse_vector.alg1",),
            ),
        ),
        E(
            "svt2",
            claimed_epsilon=0.1,
            **_svt(
                2,
                "Alg. 2 of " + _LSL + " (Dwork and Roth 2014; c=1): eps-DP",
                theorems=("sparse_vector.alg2",),
            ),
        ),
        E(
            "svt3",
            claimed_epsilon=0.1,
            **_svt(
                3,
                "Alg. 3 of " + _LSL + " (Roth 2011), c=1: it outputs the compared noisy "
                "answers and has no finite epsilon on an unbounded query stream; on 10 queries "
                "it is a post-processing of the threshold noise (data-independent) and 10 "
                "answers with Lap(c/eps2), so at most 10 eps2/c = 5 eps",
                theorems=("sparse_vector.alg3.ten_queries",),
                refuted_by="sparse_vector.alg3.eps",
            ),
        ),
        E(
            "svt4",
            claimed_epsilon=0.1,
            **_svt(
                4,
                "Alg. 4 of " + _LSL + " (Lee and Clifton 2014): ((1+6c)/4) eps-DP, c=1",
                theorems=("sparse_vector.alg4",),
                refuted_by="sparse_vector.alg4.eps",
            ),
        ),
        E(
            "svt5",
            claimed_epsilon=0.1,
            **_svt(
                5,
                "Alg. 5 of " + _LSL + " (Stoddard et al. 2014): no query noise, infinite",
                refuted_by="sparse_vector.alg5",
            ),
        ),
        E(
            "svt6",
            claimed_epsilon=0.1,
            **_svt(
                6,
                "Alg. 6 of " + _LSL + " (Chen et al. 2015): no cutoff, so no finite epsilon on "
                "an unbounded query stream; on 10 queries at most 10 eps2 = 5 eps (a "
                "post-processing of 10 Laplace answers and the threshold noise)",
                theorems=("sparse_vector.alg6.ten_queries",),
                refuted_by="sparse_vector.alg6.eps",
            ),
        ),
        E(
            "rappor",
            pairs=_pairs((0, 1, "value 0 vs 1")),
            source="RAPPOR, Erlingsson, Pihur, Korolova (2014) Sec. 3.2: eps_1 = h "
            "ln(q*(1-p*)/(p*(1-q*))), h=2, f=0.5, p=0.5, q=0.75",
            **_rappor(_CHROME, "one"),
        ),
        E(
            "one_time_rappor",
            pairs=_pairs((0, 1, "value 0 vs 1")),
            source="One-time RAPPOR (permanent RR only), Erlingsson et al. (2014): "
            "eps_inf = 2h ln((1-f/2)/(f/2))",
            **_rappor(_CHROME, "unlimited"),
        ),
        E(
            "rappor.dpsniper",
            pairs=_pairs((0, 1, "value 0 vs 1 (6 of 20 Bloom bits differ)")),
            source="RAPPOR one report with DP-Sniper's parameters (Bichsel et al. 2021): 20 Bloom "
            "bits, h=4, f=0.75, p=0.45, q=0.55; eps_1 = h ln(q*(1-p*)/(p*(1-q*))) (Erlingsson "
            "et al. 2014, Sec. 3.2), attained when 2h bits differ",
            implementation="a 20-bit Bloom filter; the pair's values differ in 6 bits, as in "
            "DP-Sniper's best pair, so its own epsilon is 3/4 of the worst case",
            **_rappor(_DPSNIPER_RAPPOR, "one", bits=20),
        ),
        E(
            "one_time_rappor.dpsniper",
            pairs=_pairs((0, 1, "value 0 vs 1 (6 of 20 Bloom bits differ)")),
            source="One-time RAPPOR (permanent response only) with DP-Sniper's parameters: 20 "
            "Bloom bits, h=4, f=0.95; eps_inf = 2h ln((1-f/2)/(f/2)) (Erlingsson et al. 2014, "
            "Thm 1)",
            implementation="a 20-bit Bloom filter; the pair's values differ in 6 bits",
            **_rappor(_DPSNIPER_RAPPOR | {"f": 0.95}, "unlimited", bits=20),
        ),
        E(
            "truncated_geometric.balcer_vadhan",
            lambda e: m.geo_sample(e, 5),
            0.1,
            _pairs(*((c, c + 1, f"count {c} vs {c + 1}") for c in range(5))),
            "GeoSample(eps, n=5), Alg. 4.8 of Balcer and Vadhan (2018), Differential privacy on "
            "finite computers (DP-Sniper's TruncatedGeometric): ln(1 + 2^-ceil(ln(2/eps)))-DP, "
            "more than eps at eps = 0.1",
            theorems=("truncated_geometric.balcer_vadhan",),
            refuted_by="truncated_geometric.balcer_vadhan.eps",
        ),
        E(
            "prefix_sum",
            lambda e: m.LaplaceVector(1 / _exact(e), 10, 10),
            0.1,
            _SVT_PAIRS,
            "PrefixSum of Wang, Ding, Wang, Kifer and Zhang (2019), ShadowDP, as run by DP-Sniper: "
            "prefix sums of 10 answers with Lap(1/eps) each; answers of sensitivity 1 each move "
            "by 10 in L1, so 10 eps-DP",
            theorems=("laplace.vector_l1",),
            refuted_by="laplace.vector_l1.per_query_sensitivity",
            make=lambda e: impl.cumulative(sampler_for(m.LaplaceVector(1 / _exact(e), 10, 10))),
            implementation="the running sums of the noisy answers (invertible post-processing)",
        ),
        E(
            "numerical_svt",
            lambda e: m.SparseVector.numerical(_exact(e), queries=_QUERIES, cutoff=2),
            0.1,
            _SVT_PAIRS,
            "Numerical sparse vector, c=2, T=1 (Wang, Ding, Wang, Kifer and Zhang 2019, "
            "ShadowDP; DP-Sniper's NumericalSVT): positive queries answered with fresh "
            "Lap(3c/eps) noise; eps-DP",
            theorems=("sparse_vector.numerical",),
        ),
        E(
            "svt34_parallel",
            lambda e: m.Composition(
                tuple(
                    m.SparseVector.lyu_su_li(v, _exact(e), queries=_QUERIES, cutoff=2)
                    for v in (3, 4)
                )
            ),
            0.1,
            _SVT_PAIRS,
            "Alg. 3 and Alg. 4 of " + _LSL + " on the same input, c=2, T=1 (DP-Sniper's "
            "SVT34Parallel, Bichsel et al. 2021): at most 5.75 eps by composition",
            theorems=("sparse_vector.alg3_alg4.composed",),
            refuted_by="sparse_vector.alg3_alg4.composed.eps",
            implementation="the two outputs side by side: 20 columns of Alg. 3, 10 of Alg. 4",
        ),
        E(
            "one_bit.telemetry",
            lambda e: m.OneBitTelemetry(e, 100),
            0.1,
            _pairs((0.0, 100.0, "x=0 vs x=m")),
            "1-bit telemetry, Ding, Kulkarni, Yekhanin (2017) Sec. 2: eps-LDP",
            theorems=("one_bit.telemetry",),
            relation="replace-one",
        ),
        E(
            "one_bit.product_form",
            lambda e: m.OneBitTelemetry(e, 100, form="product"),
            0.1,
            _pairs((0.0, 100.0, "x=0 vs x=m")),
            "notes 001 'Solution to 3': P[1] = 1/(e^eps+1) * (x/m) * (e^eps-1)/(e^eps+1), a "
            "product where Ding, Kulkarni, Yekhanin (2017) have a sum: x = 0 never reports 1",
            refuted_by="one_bit.product_form",
            relation="replace-one",
        ),
        *_oracles(),
    ]


_ORACLE_K = 8  # values of the frequency-oracle entries (samplers.ORACLE_VALUES)
_WBLJ17 = "Wang, Blocki, Li, Jha (2017) USENIX Security"


def _oracles() -> list[CatalogueEntry]:
    """The local-DP frequency oracles at eps = 1 over 8 values (LDP-Auditor's protocols)."""
    k = _ORACLE_K
    table = (
        ("grr", lambda e: m.KAryRR(e, k), f"generalized randomized response, {_WBLJ17} Sec. 4.1"),
        (
            "sue",
            lambda e: m.UnaryEncoding(e, k, "symmetric"),
            f"symmetric unary encoding (basic one-time RAPPOR), {_WBLJ17} Sec. 4.3",
        ),
        ("oue", lambda e: m.UnaryEncoding(e, k), f"optimized unary encoding, {_WBLJ17} Sec. 4.3"),
        ("blh", lambda e: m.LocalHashing(e, 2), f"binary local hashing, {_WBLJ17} Sec. 4.4"),
        (
            "olh",
            lambda e: m.LocalHashing(e, m.optimal_hash_range(e)),
            f"optimized local hashing (g = e^eps + 1, rounded), {_WBLJ17} Sec. 4.4",
        ),
        (
            "hadamard",
            lambda e: m.HadamardResponse.for_values(e, k),
            "Hadamard response, Acharya, Sun, Zhang (2019) AISTATS (K = 16 for 8 values)",
        ),
        (
            "subset_selection",
            lambda e: m.SubsetSelection(e, k, m.optimal_subset_size(e, k)),
            "subset selection, d = k/(e^eps + 1) rounded, Ye and Barg (2018)",
        ),
    )
    return [
        CatalogueEntry(
            f"ldp.{key}",
            describe,
            1.0,
            _pairs((0, 1, "value 0 vs 1")),
            f"{source}: eps-LDP, exactly",
            theorems=(f"ldp.{key}.exact",),
            relation="replace-one",
            implementation="local hashing is audited through its support bits over the 8 "
            "values (post-processing)"
            if key in ("blh", "olh")
            else "",
        )
        for key, describe, source in table
    ]


CATALOGUE: dict[str, CatalogueEntry] = {e.name: e for e in _entries()}
ALIASES: dict[str, str] = {a: e.name for e in CATALOGUE.values() for a in e.aliases}


def names() -> list[str]:
    """Catalogue ids, then aliases."""
    return list(CATALOGUE) + list(ALIASES)


def get(name: str) -> CatalogueEntry:
    """The entry for a catalogue id or alias (``rnm1``, ``laplace``, ...)."""
    key = ALIASES.get(name, name)
    if key not in CATALOGUE:
        raise InputError(
            f"catalogue mechanism {name!r} is unknown; use one of {', '.join(names())}."
        )
    return CATALOGUE[key]


def sampler(name: str, epsilon: float | None = None) -> Sampler:
    """The sampler of a catalogue entry, built at ``epsilon`` (default: its claimed epsilon)."""
    return get(name).sampler(epsilon)
