"""Symbolic and certified checks of differential-privacy claims.

Names are loaded lazily (PEP 562): `import proofs` stays cheap for the auditor and the command
line, and SymPy is imported only when a proof name is first used.
"""

from __future__ import annotations

import importlib

from proofs._errors import DPAuditError, InputError

_EXPORTS = {
    "proofs.mechanisms": (
        "AlphaCoinRR", "ExponentialMechanism", "FiniteMechanism", "ForcedResponse", "Gaussian",
        "Histogram", "KAryRR", "Laplace", "LaplaceVector", "OneBitTelemetry", "Rappor",
        "RepeatedOneBit", "ReportNoisyMax", "TwoSidedGeometric", "sym",
    ),
    "proofs.claims": ("ProofRun", "Theorem", "check", "run_theorems"),
    "proofs.pure": ("PureDP", "check_pure", "tight_epsilon"),
    "proofs.results": ("Counterexample", "ProofResult", "Verdict"),
    # Proofs II: approximate DP, composition, group privacy, post-processing, estimators.
    "proofs.approx": (
        "ApproxDP", "CalibrationMinimal", "GaussianCalibration", "GaussianCalibrationRegion",
        "GaussianCalibrationResult", "PrivacyProfile", "calibrate_gaussian",
        "gaussian_delta", "gaussian_epsilon", "laplace_delta",
    ),
    "proofs.finite": ("compose", "compose_adaptive", "finite_delta", "finite_ratio",
                      "post_process"),
    "proofs.composition": (
        "ComposedDP", "RDPConversion", "RenyiGaussian", "SequentialComposition", "ZCDPConversion",
        "drv_epsilon", "kov_delta", "kov_epsilon",
    ),
    "proofs.group": ("GroupPrivacy", "chain_delta", "standard_delta"),
    "proofs.postprocessing": ("PostProcessing",),
    "proofs.estimators": (
        "ChebyshevTail", "LinearEstimator", "PerReportUnbiased", "Unbiased", "Variance",
        "forced_response_estimator", "rr_estimator",
    ),
}
_MODULE_OF = {name: module for module, names in _EXPORTS.items() for name in names}

__all__ = ["DPAuditError", "InputError", *_MODULE_OF]


def __getattr__(name: str):
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module 'proofs' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(__all__)
