"""The one exception hierarchy shared by `proofs` and `auditor`.

Every error the tools raise on purpose derives from :class:`DPAuditError`.
Errors caused by what the user passed in also derive from :class:`ValueError`;
the command line turns them into a one-line message and exit code 2.
"""

from __future__ import annotations

__all__ = ["DPAuditError", "InputError"]


class DPAuditError(Exception):
    """Base class of every error raised on purpose by dpaudit."""


class InputError(DPAuditError, ValueError):
    """Bad input from the user. The message names the value, the constraint and the fix."""
