"""What a claim says: frozen descriptions of DP claims and the named theorems that carry them.

A claim is a frozen dataclass that only describes (its fields, the checks of its input, its
statement); :func:`proofs.check` decides it with the checker that supports it
(:mod:`proofs.checkers`). A claims file (``dpaudit prove my_claims.py``) defines a module-level
list ``CLAIMS`` of :class:`Theorem` objects or bare claims.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from proofs import exports_of
from proofs.claims.accounting import RDPComposition, RDPConversion, RenyiGaussian, ZCDPConversion
from proofs.claims.composition import (
    ComposedDP,
    GroupPrivacy,
    PostProcessing,
    SequentialComposition,
)
from proofs.claims.distributions import (
    DistanceBound,
    Moment,
    NoiseDensity,
    NoisyMeanVariance,
    Normalised,
)
from proofs.claims.estimation import (
    ChebyshevTail,
    EstimateAt,
    LinearEstimator,
    PerReportUnbiased,
    Unbiased,
    Variance,
)
from proofs.claims.inequality import Inequality
from proofs.claims.privacy import (
    ApproxDP,
    CalibrationMinimal,
    GaussianCalibration,
    GaussianCalibrationRegion,
    PrivacyProfile,
    PureDP,
)
from proofs.errors import InputError

__all__ = [*exports_of(__name__)]

EXPECTATIONS = ("holds", "refuted")


@dataclass(frozen=True, slots=True)
class Theorem:
    """A named claim with its source. `expect='refuted'` marks a deliberately false statement:
    the run counts it as expected when it comes out refuted. `file` is the claims file it came
    from (set by ``dpaudit prove``)."""

    id: str
    claim: Any
    source: str
    statement: str | None = None
    expect: str = "holds"
    file: str = ""

    def __post_init__(self):
        if self.expect not in EXPECTATIONS:
            raise InputError(f"expect={self.expect!r} for {self.id!r}; use 'holds' or 'refuted'.")
        if not self.id or not isinstance(self.id, str):
            raise InputError(f"id={self.id!r} must be a non-empty string naming the theorem.")
