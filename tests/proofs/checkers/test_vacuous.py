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
    assert result.verdict is Verdict.UNKNOWN and "no proof obligation" in result.reason


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
