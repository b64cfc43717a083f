"""The parameter symbols of descriptions."""

from __future__ import annotations

import sympy as sp

__all__ = ["sym"]


def sym(name: str, **assumptions: bool) -> sp.Symbol:
    """A parameter symbol; positive unless other assumptions are given."""
    return sp.Symbol(name, **(assumptions or {"positive": True}))
