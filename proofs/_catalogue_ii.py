"""Catalogue section: approximate DP, composition, group privacy, estimators (filled in by Proofs II)."""

from __future__ import annotations


def theorems() -> list:
    return []
