"""The built-in catalogue, checked once per session: three modules read its verdicts (the whole
catalogue, the approximate section, the distribution facts), and each check of it costs seconds."""

from __future__ import annotations

import importlib

import pytest

from proofs.catalogue import SECTIONS
from proofs.dispatch import run_theorems


@pytest.fixture(scope="session")
def catalogue_runs():
    """Each catalogue section's theorems checked by `run_theorems`, section by section (the
    sections of `proofs.catalogue.catalogue()`, in its order), each run with its own time."""
    return {
        section: run_theorems(importlib.import_module(f"proofs.catalogue.{section}").theorems())
        for section in SECTIONS
    }
