"""Symbolic and certified checks of differential-privacy claims.

Names are loaded lazily (PEP 562): `import proofs` stays cheap for the auditor and the command
line, and SymPy is imported only when a proof name is first used.
"""

from __future__ import annotations

import importlib

from proofs.errors import DPAuditError, InputError

_EXPORTS = {
    "proofs.mechanisms": (
        "AlphaCoinRR", "ExponentialMechanism", "FiniteMechanism", "ForcedResponse", "Gaussian",
        "Histogram", "KAryRR", "Laplace", "LaplaceVector", "OneBitTelemetry", "Rappor",
        "RepeatedOneBit", "ReportNoisyMax", "TwoSidedGeometric", "sym",
    ),
    "proofs.claims": ("ProofRun", "Theorem", "check", "run_theorems"),
    "proofs.pure": ("PureDP", "check_pure", "tight_epsilon"),
    "proofs.results": ("Counterexample", "ProofResult", "Verdict"),
    "proofs.approx": (
        "ApproxDP", "CalibrationMinimal", "GaussianCalibration", "GaussianCalibrationRegion",
        "GaussianCalibrationResult", "PrivacyProfile", "calibrate_gaussian",
        "gaussian_delta", "gaussian_epsilon", "laplace_delta", "classical_sigma", "notes_sigma",
    ),
    "proofs.finite": ("canonical_mechanism", "compose", "compose_adaptive", "finite_delta",
                      "finite_ratio", "post_process", "rr_table"),
    "proofs.rules": ("D1", "D2", "E0", "E1", "E2"),
    "proofs.expr": ("parse",),
    "proofs.composition": (
        "ComposedDP", "RDPConversion", "RenyiGaussian", "SequentialComposition", "ZCDPConversion",
        "drv_epsilon", "kov_delta", "kov_epsilon",
    ),
    "proofs.rdp": (
        "RDPComposition", "RDPDelta", "RDPEpsilon", "composition_rdp", "rdp_curve", "rdp_delta",
        "rdp_epsilon",
    ),
    "proofs.distributions": (
        "DistanceBound", "Moment", "NoiseDensity", "NoisyMeanVariance", "Normalised",
        "distance_facts", "geometric_ratio", "noise_law",
    ),
    "proofs.group": ("DEL", "EPS", "K", "GroupPrivacy", "chain_delta", "standard_delta"),
    "proofs.postprocessing": ("PostProcessing",),
    "proofs.estimators": (
        "ChebyshevTail", "LinearEstimator", "N", "N1", "PerReportUnbiased", "T", "Unbiased",
        "Variance", "forced_response_estimator", "one_bit_term", "rr_estimator",
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
