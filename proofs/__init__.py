"""Symbolic and certified checks of differential-privacy claims."""

from proofs._errors import DPAuditError, InputError
from proofs.mechanisms import (
    AlphaCoinRR, ExponentialMechanism, FiniteMechanism, ForcedResponse, Gaussian, Histogram,
    KAryRR, Laplace, LaplaceVector, OneBitTelemetry, ReportNoisyMax, TwoSidedGeometric, sym,
)
from proofs.claims import ProofRun, Theorem, check, run_theorems
from proofs.pure import PureDP, check_pure, tight_epsilon
from proofs.results import Counterexample, ProofResult, Verdict

__all__ = [
    "DPAuditError", "InputError",
    "AlphaCoinRR", "ExponentialMechanism", "FiniteMechanism", "ForcedResponse", "Gaussian",
    "Histogram", "KAryRR", "Laplace", "LaplaceVector", "OneBitTelemetry", "ReportNoisyMax",
    "TwoSidedGeometric", "sym",
    "PureDP", "check_pure", "tight_epsilon", "Theorem", "check", "run_theorems", "ProofRun",
    "Counterexample", "ProofResult", "Verdict",
]
