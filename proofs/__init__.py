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

# Proofs II: approximate DP, composition, group privacy, post-processing, estimators.
from proofs.approx import (
    ApproxDP, CalibrationMinimal, GaussianCalibration, GaussianCalibrationRegion,
    GaussianCalibrationResult, PrivacyProfile, calibrate_gaussian, finite_delta, gaussian_delta, gaussian_epsilon, laplace_delta,
)
from proofs.composition import (
    ComposedDP, RDPConversion, RenyiGaussian, SequentialComposition, ZCDPConversion, compose,
    compose_adaptive, drv_epsilon, finite_ratio, kov_delta, kov_epsilon,
)
from proofs.group import GroupPrivacy, chain_delta, standard_delta
from proofs.postprocessing import PostProcessing, post_process
from proofs.estimators import (
    ChebyshevTail, LinearEstimator, PerReportUnbiased, Unbiased, Variance,
    forced_response_estimator, rr_estimator,
)

__all__ += [
    "ApproxDP", "CalibrationMinimal", "GaussianCalibration", "GaussianCalibrationRegion",
    "GaussianCalibrationResult",
    "PrivacyProfile", "calibrate_gaussian", "finite_delta", "gaussian_delta", "gaussian_epsilon",
    "laplace_delta",
    "ComposedDP", "RDPConversion", "RenyiGaussian", "SequentialComposition", "ZCDPConversion",
    "compose", "compose_adaptive", "drv_epsilon", "finite_ratio", "kov_delta", "kov_epsilon",
    "GroupPrivacy", "chain_delta", "standard_delta", "PostProcessing", "post_process",
    "ChebyshevTail", "LinearEstimator", "PerReportUnbiased", "Unbiased", "Variance",
    "forced_response_estimator", "rr_estimator",
]
