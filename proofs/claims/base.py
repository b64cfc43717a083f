"""The base of every claim description."""

from __future__ import annotations

__all__ = ["Claim"]


class Claim:
    """A claim describes; :func:`proofs.check` decides. ``claim.check()`` is the same call."""

    __slots__ = ()

    def check(
        self,
        *,
        id: str = "claim",
        source: str = "",
        expect: str = "holds",
        statement: str | None = None,
    ):
        from proofs.claims import Theorem
        from proofs.dispatch import check

        return check(Theorem(id or "claim", self, source, statement, expect))
