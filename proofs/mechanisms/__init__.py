"""Mechanism descriptions: what a mechanism is, never how to check it.

Each description is a frozen dataclass whose parameters are SymPy symbols (with assumptions)
or numbers. It states its pmf/pdf, its neighbouring relation and the paper it comes from. The
checkers in :mod:`proofs.checkers` take descriptions as input. ``domain()`` lists the
constraints on the parameters that the proofs may assume (besides the symbols' own
assumptions); ``validate()`` rejects numeric parameters outside that domain with an error that
names the value and the fix.

One module per family: :mod:`~proofs.mechanisms.response` (randomized response),
:mod:`~proofs.mechanisms.noise` (additive noise), :mod:`~proofs.mechanisms.selection`,
:mod:`~proofs.mechanisms.local` (local protocols), :mod:`~proofs.mechanisms.oracles` (local-DP
frequency oracles) and :mod:`~proofs.mechanisms.tables`.
"""

from __future__ import annotations

from proofs import exports_of
from proofs.mechanisms.base import sym
from proofs.mechanisms.floats import FloatLaplace, SignedZeroLaplace
from proofs.mechanisms.local import OneBitTelemetry, Rappor, RepeatedOneBit
from proofs.mechanisms.noise import (
    Gaussian,
    GaussianVector,
    Histogram,
    Laplace,
    LaplaceVector,
    TwoSidedGeometric,
)
from proofs.mechanisms.oracles import (
    HadamardResponse,
    LocalHashing,
    SubsetSelection,
    SupportReport,
    UnaryEncoding,
    optimal_hash_range,
    optimal_subset_size,
)
from proofs.mechanisms.response import AlphaCoinRR, ForcedResponse, KAryRR
from proofs.mechanisms.selection import ExponentialMechanism, NoisyMaxValue, ReportNoisyMax
from proofs.mechanisms.tables import FiniteMechanism, Published, geo_sample
from proofs.mechanisms.threshold import Composition, SparseVector

__all__ = [*exports_of(__name__), "describe"]


def describe(mech) -> str:
    """A one-line description: the class and its fields (a finite table by its name)."""
    if isinstance(mech, FiniteMechanism):
        return f"FiniteMechanism({mech.name!r})"
    fields = getattr(mech, "__dataclass_fields__", {})
    return f"{type(mech).__name__}(" + ", ".join(f"{k}={getattr(mech, k)}" for k in fields) + ")"
