"""Hypothesis strategies for neighbouring datasets (kept at this path for existing imports;
they live in :mod:`auditor.testing.strategies`)."""

from auditor.testing.strategies import datasets, estimated_loss, neighbouring_pairs, search_pairs

__all__ = ["datasets", "estimated_loss", "neighbouring_pairs", "search_pairs"]
