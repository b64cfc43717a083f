"""Real mechanisms of third-party DP libraries, wrapped as black boxes for `dpaudit audit`.

Optional: `pip install .[libs]` installs diffprivlib, OpenDP and python-dp. Each wrapper is a
scalar callable `f(data)` whose `data` is the true query answer (or the dataset, for the
counting pipelines), built once at the stated parameters. `THIRD_PARTY` lists each with its
claim and the neighbouring pair used in `make bench`. Example:

    dpaudit audit auditor.thirdparty.libraries:diffprivlib_laplace --epsilon 1 --pair 0 1
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

from auditor.engine.pairs import integer_input
from proofs.errors import InputError

__all__ = [
    "THIRD_PARTY",
    "ThirdPartyMechanism",
    "available",
    "diffprivlib_exponential",
    "diffprivlib_gaussian",
    "diffprivlib_gaussian_analytic",
    "diffprivlib_geometric",
    "diffprivlib_laplace",
    "diffprivlib_snapping",
    "opendp_count_laplace",
    "opendp_gaussian",
    "opendp_geometric",
    "opendp_laplace",
    "opendp_randomized_response",
    "pydp_count",
    "pydp_gaussian",
    "pydp_laplace",
]

EPSILON = 1.0
DELTA = 1e-5


_PIP = {"diffprivlib": "diffprivlib", "opendp": "opendp", "pydp": "python-dp"}


def _library(name: str):
    """Import a wrapped library's module, or say how to install it (bad input, not a bug of
    the mechanism: the wrappers are ours)."""
    import importlib

    try:
        return importlib.import_module(name)
    except ImportError as exc:
        root = name.split(".")[0]
        if exc.name is None or exc.name.split(".")[0] != root:
            raise
        raise InputError(
            f"{_PIP[root]} is not installed, and this wrapper runs it; install it with "
            f"pip install 'dpaudit[libs]' (or pip install {_PIP[root]})."
        ) from None


def _diffprivlib():
    return _library("diffprivlib.mechanisms")


@cache
def _dpl(kind: str):
    m = _diffprivlib()
    if kind == "laplace":
        return m.Laplace(epsilon=EPSILON, sensitivity=1.0)
    if kind == "gaussian":  # the classical calibration needs eps < 1
        return m.Gaussian(epsilon=0.5, delta=DELTA, sensitivity=1.0)
    if kind == "gaussian_analytic":
        return m.GaussianAnalytic(epsilon=EPSILON, delta=DELTA, sensitivity=1.0)
    if kind == "geometric":
        return m.Geometric(epsilon=EPSILON, sensitivity=1)
    if kind == "snapping":
        return m.Snapping(epsilon=EPSILON, sensitivity=1.0, lower=-10.0, upper=10.0)
    raise KeyError(kind)


def diffprivlib_laplace(data):
    return _dpl("laplace").randomise(float(data))


def diffprivlib_gaussian(data):
    return _dpl("gaussian").randomise(float(data))


def diffprivlib_gaussian_analytic(data):
    return _dpl("gaussian_analytic").randomise(float(data))


def diffprivlib_geometric(data):
    return _dpl("geometric").randomise(integer_input(data))


def diffprivlib_snapping(data):
    return _dpl("snapping").randomise(float(data))


@cache
def _dpl_exponential(utility: tuple):
    m = _diffprivlib()
    return m.Exponential(
        epsilon=EPSILON,
        sensitivity=1.0,
        utility=list(utility),
        candidates=list(range(len(utility))),
    )


def diffprivlib_exponential(data):
    """data: the utility list of three candidates (sensitivity 1); output: the chosen index."""
    return _dpl_exponential(tuple(float(u) for u in data)).randomise()


@cache
def _opendp(kind: str):
    dp = _library("opendp.prelude")
    dp.enable_features("contrib")
    real = (dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float))
    if kind == "laplace":
        return dp.m.make_laplace(*real, scale=1.0 / EPSILON)
    if kind == "gaussian":
        return dp.m.make_gaussian(*real, scale=1.0)
    if kind == "geometric":
        return dp.m.make_geometric(
            dp.atom_domain(T=int), dp.absolute_distance(T=int), scale=1.0 / EPSILON
        )
    if kind == "rr":
        return dp.m.make_randomized_response_bool(prob=math.exp(EPSILON) / (1 + math.exp(EPSILON)))
    if kind == "count_laplace":
        return dp.t.make_count(
            dp.vector_domain(dp.atom_domain(T=int)), dp.symmetric_distance()
        ) >> dp.m.then_laplace(scale=1.0 / EPSILON)
    raise KeyError(kind)


def opendp_laplace(data):
    return _opendp("laplace")(float(data))


def opendp_gaussian(data):
    return _opendp("gaussian")(float(data))


def opendp_geometric(data):
    return _opendp("geometric")(integer_input(data))


def opendp_randomized_response(data):
    return bool(_opendp("rr")(bool(integer_input(data, 2))))


def opendp_count_laplace(data):
    return _opendp("count_laplace")([int(v) for v in data])


def pydp_laplace(data):
    mechanisms = _library("pydp.algorithms.numerical_mechanisms")
    return _pydp(mechanisms.LaplaceMechanism, EPSILON).add_noise(float(data))


def pydp_gaussian(data):
    mechanisms = _library("pydp.algorithms.numerical_mechanisms")
    return _pydp(mechanisms.GaussianMechanism, EPSILON, DELTA).add_noise(float(data))


@cache
def _pydp(cls, *args):
    return cls(*args, sensitivity=1.0) if len(args) == 1 else cls(args[0], args[1], 1.0)


def pydp_count(data):
    count = _library("pydp.algorithms.laplacian").Count
    return count(epsilon=EPSILON, dtype="int").quick_result([int(v) for v in data])


def _gaussian_zcdp_to_eps(rho: float, delta: float) -> float:
    """Bun and Steinke (2016), Prop 1.3: rho-zCDP implies (rho + 2 sqrt(rho ln(1/delta)), delta)."""
    return rho + 2 * math.sqrt(rho * math.log(1 / delta))


@dataclass(frozen=True, slots=True)
class ThirdPartyMechanism:
    """A library mechanism with the claim its library makes and the pair `make bench` audits."""

    library: str
    name: str
    function: Callable[[Any], Any]
    epsilon: float
    delta: float
    pair: tuple
    samples: int
    note: str = ""

    @property
    def target(self) -> str:
        return f"auditor.thirdparty.libraries:{self.function.__name__}"


THIRD_PARTY: tuple[ThirdPartyMechanism, ...] = (
    ThirdPartyMechanism(
        "diffprivlib", "Laplace", diffprivlib_laplace, EPSILON, 0.0, (0.0, 1.0), 1_000_000
    ),
    ThirdPartyMechanism(
        "diffprivlib", "Gaussian", diffprivlib_gaussian, 0.5, DELTA, (0.0, 1.0), 500_000
    ),
    ThirdPartyMechanism(
        "diffprivlib",
        "GaussianAnalytic",
        diffprivlib_gaussian_analytic,
        EPSILON,
        DELTA,
        (0.0, 1.0),
        500_000,
    ),
    ThirdPartyMechanism(
        "diffprivlib", "Geometric", diffprivlib_geometric, EPSILON, 0.0, (0, 1), 500_000
    ),
    ThirdPartyMechanism(
        "diffprivlib",
        "Exponential",
        diffprivlib_exponential,
        EPSILON,
        0.0,
        ([0.0, 1.0, 2.0], [1.0, 0.0, 1.0]),
        300_000,
        note="utilities of 3 candidates, each moved by at most 1",
    ),
    ThirdPartyMechanism(
        "diffprivlib",
        "Snapping",
        diffprivlib_snapping,
        EPSILON,
        0.0,
        (0.0, 1.0),
        500_000,
        note="bounded to [-10, 10]",
    ),
    ThirdPartyMechanism(
        "OpenDP", "make_laplace", opendp_laplace, EPSILON, 0.0, (0.0, 1.0), 200_000
    ),
    ThirdPartyMechanism(
        "OpenDP",
        "make_gaussian",
        opendp_gaussian,
        _gaussian_zcdp_to_eps(0.5, DELTA),
        DELTA,
        (0.0, 1.0),
        200_000,
        note="scale 1: 0.5-zCDP, converted to (eps, delta)",
    ),
    ThirdPartyMechanism(
        "OpenDP", "make_geometric", opendp_geometric, EPSILON, 0.0, (0, 1), 200_000
    ),
    ThirdPartyMechanism(
        "OpenDP",
        "make_randomized_response_bool",
        opendp_randomized_response,
        EPSILON,
        0.0,
        (True, False),
        200_000,
    ),
    ThirdPartyMechanism(
        "OpenDP",
        "make_count >> then_laplace",
        opendp_count_laplace,
        EPSILON,
        0.0,
        ([1, 2, 3], [1, 2]),
        200_000,
        note="add/remove one record",
    ),
    ThirdPartyMechanism(
        "python-dp", "LaplaceMechanism", pydp_laplace, EPSILON, 0.0, (0.0, 1.0), 1_000_000
    ),
    ThirdPartyMechanism(
        "python-dp", "GaussianMechanism", pydp_gaussian, EPSILON, DELTA, (0.0, 1.0), 500_000
    ),
    ThirdPartyMechanism(
        "python-dp",
        "Count",
        pydp_count,
        EPSILON,
        0.0,
        ([1, 2, 3], [1, 2]),
        500_000,
        note="add/remove one record",
    ),
)


def available(library: str) -> bool:
    """Is the library installed (`pip install .[libs]`)?"""
    module = {"diffprivlib": "diffprivlib", "OpenDP": "opendp", "python-dp": "pydp"}[library]
    try:
        __import__(module)
    except ImportError:
        return False
    return True
