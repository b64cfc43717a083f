"""The Gaussian mechanism on R^d (notes 004, l2-sensitivity): decided as the one-dimensional
mechanism with the L2 move as its shift. The reduction is checked here independently, by
integrating (p - e^eps q)_+ over the plane on a grid for a two-dimensional move."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp

from proofs import ApproxDP, Gaussian, GaussianVector, PureDP, check, classical_sigma, true_epsilon
from proofs.checkers.profiles import gaussian_delta
from proofs.errors import InputError

HALF, D5 = sp.Rational(1, 2), sp.Rational(1, 10**5)


def _plane_delta(eps: float, sigma: float, move: tuple[float, float], cells: int = 3001) -> float:
    """delta(eps) of N(0, sigma^2 I_2) moved by ``move``, by a Riemann sum over the plane (no
    use of the reduction: the set where p > e^eps q is whatever the grid finds)."""
    reach = 12 * sigma + max(abs(m) for m in move)
    t = np.linspace(-reach, reach, cells)
    h = t[1] - t[0]
    y1, y2 = np.meshgrid(t, t, indexing="ij")
    norm = 1 / (2 * math.pi * sigma**2)
    p = norm * np.exp(-((y1 - move[0]) ** 2 + (y2 - move[1]) ** 2) / (2 * sigma**2))
    q = norm * np.exp(-(y1**2 + y2**2) / (2 * sigma**2))
    return float(np.maximum(p - math.exp(eps) * q, 0).sum() * h * h)


@pytest.mark.parametrize("move", [(0.6, 0.8), (1.0, 0.0), (-0.28, 0.96)])
def test_any_move_of_l2_length_one_has_the_one_dimensional_profile(move):
    for eps, sigma in ((0.5, 1.5), (1.0, 1.0), (0.2, 3.0)):
        plane = _plane_delta(eps, sigma, move)
        line = float(gaussian_delta(eps, sigma, 1).mid())
        assert plane == pytest.approx(line, rel=2e-3, abs=1e-9), (move, eps, sigma)


def test_a_shorter_move_leaks_less():
    assert _plane_delta(0.5, 1.5, (0.3, 0.4)) < float(gaussian_delta(0.5, 1.5, 1).mid()) / 2


def test_verdicts_follow_the_one_dimensional_mechanism_in_every_dimension():
    d = sp.Symbol("d", integer=True, positive=True)
    ok = check(ApproxDP(GaussianVector(classical_sigma(HALF, D5, 1), 1, d), HALF, D5))
    assert ok.verdict.value == "certified"
    assert ok.method.startswith("reduced to the one-dimensional Gaussian")
    assert any("SymPy" in s for s in ok.steps)
    # a quarter of the noise: per-coordinate calibration on 16 coordinates moving by 1/4
    slip = check(
        ApproxDP(GaussianVector(classical_sigma(HALF, D5, sp.Rational(1, 4)), 1, 16), HALF, D5)
    )
    assert slip.verdict.value == "refuted"
    cex = slip.counterexample
    assert "<y, u> >" in cex.output and cex.parameters["d"] == "16"
    # the one-dimensional mechanism's verdicts, at the same sigma and sensitivity
    for sigma, eps in ((3, 1), (4, 1), (2, HALF)):
        vec = check(ApproxDP(GaussianVector(sigma, 1, 7), eps, D5)).verdict
        assert vec == check(ApproxDP(Gaussian(sigma, 1), eps, D5)).verdict


def test_never_pure_dp_and_true_epsilon_at_delta():
    assert check(PureDP(GaussianVector(2, 1, 3), 10)).verdict.value == "refuted"
    vec = true_epsilon(GaussianVector(2, 1, 5), "1e-5").value
    assert vec == true_epsilon(Gaussian(2, 1), "1e-5").value


@pytest.mark.parametrize(
    "fields, message",
    [
        (dict(sigma=0), "sigma"),
        (dict(sensitivity=-1), "sensitivity"),
        (dict(dimension=0), "dimension"),
        (dict(dimension=sp.Rational(5, 2)), "must be an integer"),
    ],
)
def test_bad_parameters_are_one_line_errors(fields, message):
    with pytest.raises(InputError, match=message):
        check(
            ApproxDP(
                GaussianVector(**{"sigma": 2, "sensitivity": 1, "dimension": 3, **fields}), 1, D5
            )
        )
