"""Third-party DP libraries (diffprivlib, OpenDP, python-dp) wrapped as black-box mechanisms:
``dpaudit audit auditor.thirdparty:diffprivlib_laplace --epsilon 1 --pair 0 1``."""

from auditor.thirdparty.libraries import (
    THIRD_PARTY,
    ThirdPartyMechanism,
    available,
    diffprivlib_exponential,
    diffprivlib_gaussian,
    diffprivlib_gaussian_analytic,
    diffprivlib_geometric,
    diffprivlib_laplace,
    diffprivlib_snapping,
    opendp_count_laplace,
    opendp_gaussian,
    opendp_geometric,
    opendp_laplace,
    opendp_randomized_response,
    pydp_count,
    pydp_gaussian,
    pydp_laplace,
)

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
