"""Auditing inside tests: ``assert_dp``, Hypothesis strategies for neighbouring datasets, and the
pytest plugin (an ``assert_dp`` fixture) registered when dpaudit is installed."""

from auditor.testing.assertions import DPViolation, assert_dp

__all__ = ["DPViolation", "assert_dp"]
