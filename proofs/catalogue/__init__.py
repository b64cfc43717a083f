"""The built-in catalogue of theorems, checked by `dpaudit prove` with no argument.

Every entry names its source. Deliberately false statements (mistakes found in lecture notes
and folklore) carry ``expect='refuted'``: the catalogue run exits 0 when every verdict is as
expected and 1 when any differs. The catalogue is built on first use (building it parses
formulas and constructs every claim), and each section is a module of this package written in
the names :mod:`proofs` exports only.
"""

from __future__ import annotations

import importlib
from functools import lru_cache

__all__ = ["SECTIONS", "catalogue", "theorem"]

SECTIONS = ("pure", "sparse", "local", "approximate", "facts")


@lru_cache(maxsize=1)
def _build() -> tuple:
    out = []
    for section in SECTIONS:
        out += importlib.import_module(f"proofs.catalogue.{section}").theorems()
    return tuple(out)


def catalogue() -> list:
    """All built-in theorems, in a stable order."""
    return list(_build())


def theorem(id: str):
    """The catalogue theorem with this id (KeyError when there is none)."""
    for t in _build():
        if t.id == id:
            return t
    raise KeyError(id)


def __getattr__(name: str):
    if name == "CATALOGUE":  # the tuple of every theorem, built on first access
        return _build()
    raise AttributeError(f"module 'proofs.catalogue' has no attribute {name!r}")
