"""Claims that would hold only vacuously, or whose obligations do not cover the claim, are
never proved: an empty domain, a table without rows, and a composition whose parts' cases
(events on one part's output) were once discharged against the total epsilon as if complete."""

from __future__ import annotations

import itertools

import pytest
import sympy as sp

from proofs import (
    Composition,
    FiniteMechanism,
    FloatLaplace,
    ForcedResponse,
    GaussianCalibrationRegion,
    InputError,
    Laplace,
    Normalised,
    PureDP,
    SignedZeroLaplace,
    Verdict,
    check,
    sym,
)
from proofs.dispatch import check_isolated

R = sp.Rational
TABLE = FiniteMechanism(  # an output of probability 0 under both inputs: no exact epsilon known
    {0: {0: R(3, 4), 1: R(1, 4), 2: 0}, 1: {0: R(1, 4), 1: R(3, 4), 2: 0}}
)


def _joint_ratio(pmf: dict, parts: int) -> sp.Expr:
    """The largest P[(y_1..y_k) | x] / P[(y_1..y_k) | x'] of k independent copies, brute force."""
    best = sp.Integer(0)
    for x, xp in itertools.permutations(pmf, 2):
        for ys in itertools.product(pmf[x], repeat=parts):
            p = sp.Mul(*(pmf[x][y] for y in ys))
            q = sp.Mul(*(pmf[xp][y] for y in ys))
            if q != 0:
                best = max(best, p / q)
    return best


def test_a_composition_with_a_part_of_unknown_epsilon_is_not_proved_below_its_truth():
    assert _joint_ratio(TABLE.pmf, 2) == 9  # so ln 3 is false, 2 ln 3 true
    for eps in (sp.log(3), sp.log(8)):
        result = check(PureDP(Composition((TABLE, TABLE)), eps))
        assert result.verdict not in (Verdict.PROVED, Verdict.CERTIFIED)
    p = sym("p")  # at p = 1/2 two forced responses have ratio 9 > (1 + p) / (1 - p) = 3
    claim = PureDP(Composition((ForcedResponse(p), ForcedResponse(p))), sp.log((1 + p) / (1 - p)))
    result = check(claim)
    # (unknown before joint outputs: each part alone has ratio (1 + p) / (1 - p), the claim)
    assert result.verdict is Verdict.REFUTED, result.summary()
    assert result.counterexample.output in ("(0, 0)", "(1, 1)")  # one output from each part


def test_a_composition_with_a_part_of_no_found_witness_is_not_proved():
    # the float part's witness search finds nothing at these values, so it contributes no case
    claim = PureDP(Composition((SignedZeroLaplace(1.0, 1e-20, 1.0), Laplace(1, 1))), 1)
    assert check(claim).verdict is Verdict.UNKNOWN
    unbounded = PureDP(Composition((FloatLaplace(10.0, 1.0), Laplace(1, 1))), 1000)
    assert check(unbounded).verdict is Verdict.REFUTED


def test_parts_with_proved_epsilons_still_compose():
    claim = PureDP(Composition((Laplace(1, 1), Laplace(2, 1))), R(3, 2))
    assert check(claim).verdict is Verdict.PROVED
    assert check(PureDP(Composition((Laplace(1, 1), Laplace(2, 1))), R(7, 5))).verdict in (
        Verdict.REFUTED,
        Verdict.UNKNOWN,
    )


@pytest.mark.parametrize(
    "law",
    [
        ForcedResponse(sym("x"), sym("x") - 1),  # x < 1 and x - 1 > 0
        FiniteMechanism(
            {0: {0: sym("a"), 1: 1 - sym("a")}, 1: {0: 1 - sym("a"), 1: sym("a")}},
            assumptions=(sym("a") > 1, sym("a") < R(1, 2)),
        ),
    ],
)
def test_a_description_no_value_satisfies_is_bad_input(law):
    for claim in (PureDP(law, 0), Normalised(law)):
        result = check_isolated(claim)
        assert result.verdict is Verdict.ERROR and not result.internal
        assert "no parameter value satisfies" in result.reason


def test_a_satisfiable_symbolic_table_is_still_proved():
    a = sym("a")
    law = FiniteMechanism({0: {0: a, 1: 1 - a}, 1: {0: 1 - a, 1: a}}, assumptions=(a < R(1, 2),))
    assert check(Normalised(law)).verdict is Verdict.PROVED


def test_a_table_without_rows_is_not_normalised_vacuously():
    result = check_isolated(Normalised(FiniteMechanism({})))
    assert result.verdict is Verdict.ERROR and "no rows" in result.reason


def test_output_labels_of_different_types_are_different_outputs():
    table = FiniteMechanism({0: {0: R(1, 2), 1: R(1, 2)}, 1: {"0": R(1, 2), "1": R(1, 2)}})
    result = check_isolated(PureDP(table, 0))
    assert result.verdict is Verdict.ERROR and not result.internal
    assert "different outputs" in result.reason


def test_an_empty_calibration_range_is_bad_input():
    with pytest.raises(InputError, match=r"eps_max=0\.5 must exceed eps_min=1"):
        GaussianCalibrationRegion(1e-6, 1e-3, eps_min=1, eps_max=0.5)


def test_a_table_output_neither_input_gives_does_not_hide_its_epsilon():
    """An output of probability 0 under both inputs bounds nothing: the table's exact epsilon
    is its largest ratio elsewhere, so its compositions are proved again (soundly, by lemmas)."""
    from proofs.epsilon import true_epsilon

    assert true_epsilon(TABLE).exact == sp.log(3)
    assert check(PureDP(Composition((TABLE, TABLE)), 2 * sp.log(3))).verdict is Verdict.PROVED
    assert check(PureDP(TABLE, sp.log(3) * R(99, 100))).verdict is Verdict.REFUTED
    moved = FiniteMechanism(  # output 2 only from input 1: unbounded
        {0: {0: R(3, 4), 1: R(1, 4), 2: 0}, 1: {0: R(1, 4), 1: R(1, 2), 2: R(1, 4)}}
    )
    assert true_epsilon(moved).value == float("inf")
    assert check(PureDP(Composition((moved, TABLE)), 5)).verdict is Verdict.REFUTED


def _random_table(rng, inputs: int, outputs: int) -> dict:
    rows = {}
    for x in range(inputs):
        weights = [int(w) * (rng.random() > 0.04) for w in rng.integers(1, 7, size=outputs)]
        weights[int(rng.integers(outputs))] += 1  # no empty row
        rows[x] = {y: R(w, sum(weights)) for y, w in enumerate(weights)}
    return rows


def test_compositions_of_tables_get_the_joint_tables_exact_epsilon():
    """Numeric tables on the same inputs multiply into their joint table: its epsilon is exact
    (brute force over the joint outputs), below the parts' sum when their worst pairs differ."""
    import numpy as np

    from proofs.epsilon import true_epsilon

    rng = np.random.default_rng(7)
    below_sum = finite = 0
    for trial in range(30):
        inputs, parts = int(rng.integers(2, 4)), int(rng.integers(2, 4))
        pmfs = [_random_table(rng, inputs, int(rng.integers(2, 4))) for _ in range(parts)]
        comp = Composition(tuple(FiniteMechanism(p) for p in pmfs))
        best = R(0)
        for x, xp in itertools.permutations(range(inputs), 2):
            for ys in itertools.product(*(list(p[0]) for p in pmfs)):
                num = sp.Mul(*(p[x][y] for p, y in zip(pmfs, ys)))
                den = sp.Mul(*(p[xp][y] for p, y in zip(pmfs, ys)))
                best = (
                    sp.oo if den == 0 and num != 0 else best if den == 0 else max(best, num / den)
                )
        if best == sp.oo:
            assert check(PureDP(comp, 50)).verdict is Verdict.REFUTED
            continue
        truth, finite = sp.log(best), finite + 1
        assert true_epsilon(comp).exact == truth, trial
        assert check(PureDP(comp, truth)).verdict is Verdict.PROVED
        assert check(PureDP(comp, truth - R(1, 10**9))).verdict is Verdict.REFUTED
        parts_sum = sum(float(true_epsilon(FiniteMechanism(p)).value) for p in pmfs)
        below_sum += float(truth) < parts_sum - 1e-9
    assert finite >= 15 and below_sum >= 3, (finite, below_sum)  # the sum: only an upper bound


def test_tables_compose_on_one_neighbour_relation_only():
    chain = FiniteMechanism(TABLE.pmf, neighbours=((0, 1),))
    other = FiniteMechanism({0: {0: R(1, 2), 1: R(1, 2)}, 1: {0: R(1, 4), 1: R(3, 4)}})
    comp = Composition((chain, other))  # same pairs, both orders: joint table, exact
    assert check(PureDP(comp, sp.log(6))).verdict is Verdict.PROVED  # (3/4)(1/2) / (1/4)(1/4)
    assert check(PureDP(comp, sp.log(6) - R(1, 10**6))).verdict is Verdict.REFUTED
    # the parts run on one input: each part's epsilon on its own pairs says nothing of the
    # others' (they were summed, and a false claim proved), so other neighbours are bad input
    three = FiniteMechanism({**other.pmf, 2: {0: R(1, 4), 1: R(3, 4)}}, neighbours=((0, 2),))
    with pytest.raises(InputError, match="different inputs"):
        check(PureDP(Composition((chain, three)), sp.log(3) + sp.log(2)))
    moved = FiniteMechanism(three.pmf, neighbours=((1, 2),))
    with pytest.raises(InputError, match="different neighbours"):
        check(PureDP(Composition((three, moved)), 1))


def test_a_domain_empty_beyond_z3s_relaxation_is_not_proved_over():
    # exp(x) <= 1 + x holds for no x > 0, but z3's relaxation of exp (X >= 1 + x) has models:
    # the domain passes the emptiness check, and a proof over it would say nothing
    from proofs import Inequality

    x = sym("x")
    got = check(Inequality("exp(x)", "1 + x", (x > 0, sp.exp(x) <= 1 + x)))
    assert got.verdict is Verdict.UNKNOWN and "vacuously" in got.reason
    # a domain with a value, even a single one, is proved over as before
    one = check(Inequality("exp(x)", "exp(2*x)", (x >= 3, x <= 3)))
    assert one.verdict is Verdict.PROVED
