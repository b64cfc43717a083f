"""Symbolic and certified checks of differential-privacy claims.

Names are loaded lazily (PEP 562): `import proofs` stays cheap for the auditor and the command
line, and SymPy is imported only when a proof name is first used.
"""

from __future__ import annotations

from proofs.errors import DPAuditError, InputError
from proofs.lazy import lazy_exports

_EXPORTS = {
    "proofs.mechanisms": (
        "AlphaCoinRR",
        "Composition",
        "ExponentialMechanism",
        "FiniteMechanism",
        "FloatLaplace",
        "ForcedResponse",
        "Gaussian",
        "GaussianVector",
        "HadamardResponse",
        "Histogram",
        "KAryRR",
        "Laplace",
        "LaplaceVector",
        "LocalHashing",
        "NoisyMaxValue",
        "OneBitTelemetry",
        "Rappor",
        "Published",
        "RepeatedOneBit",
        "ReportNoisyMax",
        "SignedZeroLaplace",
        "SparseVector",
        "SubsetSelection",
        "SupportReport",
        "TwoSidedGeometric",
        "UnaryEncoding",
        "geo_sample",
        "optimal_hash_range",
        "optimal_subset_size",
        "sym",
    ),
    "proofs.claims": (
        "ApproxDP",
        "CalibrationMinimal",
        "ChebyshevTail",
        "ComposedDP",
        "DistanceBound",
        "EstimateAt",
        "GaussianCalibration",
        "GaussianCalibrationRegion",
        "GroupPrivacy",
        "Inequality",
        "LinearEstimator",
        "Moment",
        "NoiseDensity",
        "NoisyMeanVariance",
        "Normalised",
        "PerReportUnbiased",
        "PostProcessing",
        "PrivacyProfile",
        "PureDP",
        "RDPComposition",
        "RDPConversion",
        "RenyiGaussian",
        "SequentialComposition",
        "Theorem",
        "Unbiased",
        "Variance",
        "ZCDPConversion",
    ),
    "proofs.claims.estimation": (
        "forced_response_estimator",
        "frequency_estimator",
        "frequency_variance",
        "rr_estimator",
    ),
    "proofs.dispatch": ("check", "run_theorems"),
    "proofs.results": ("Counterexample", "ProofResult", "ProofRun", "Verdict"),
    "proofs.symbols": ("D1", "D2", "DEL", "E0", "E1", "E2", "EPS", "K", "N", "N1", "T"),
    "proofs.formulas": (
        "chain_delta",
        "classical_sigma",
        "drv_epsilon",
        "geometric_ratio",
        "notes_sigma",
        "one_bit_term",
        "standard_delta",
    ),
    "proofs.expr": ("parse",),
    "proofs.epsilon": ("TrueEpsilon", "true_epsilon"),
    "proofs.finite": (
        "canonical_mechanism",
        "compose",
        "compose_adaptive",
        "finite_delta",
        "finite_ratio",
        "post_process",
        "rr_table",
    ),
    "proofs.checkers.pure": ("tight_epsilon",),
    "proofs.checkers.profiles": ("gaussian_delta", "gaussian_epsilon", "laplace_delta"),
    "proofs.checkers.calibration": ("GaussianCalibrationResult", "calibrate_gaussian"),
    "proofs.checkers.composition": ("kov_delta", "kov_epsilon"),
    "proofs.checkers.rdp": (
        "RDPDelta",
        "RDPEpsilon",
        "composition_rdp",
        "rdp_curve",
        "rdp_delta",
        "rdp_epsilon",
    ),
    "proofs.checkers.distances": ("distance_facts",),
    "proofs.claims.distributions": ("noise_law",),
}
__all__, __getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
__all__ += ["DPAuditError", "InputError"]


def exports_of(module: str) -> list[str]:
    """The names `module` contributes to the package: its ``__all__`` is this list, written
    once, here."""
    return list(_EXPORTS[module])
