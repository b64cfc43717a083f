"""The one exception hierarchy shared by `proofs` and `auditor`.

Every error the tools raise on purpose derives from :class:`DPAuditError`.
Errors caused by what the user passed in also derive from :class:`ValueError`;
the command line turns them into a one-line message and exit code 2.
"""

from __future__ import annotations

__all__ = [
    "EXIT_BAD_INPUT",
    "EXIT_FOUND",
    "EXIT_INCONCLUSIVE",
    "EXIT_INTERNAL",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_TERMINATED",
    "DPAuditError",
    "InputError",
    "Terminated",
    "Undecided",
    "raise_terminated",
]


class DPAuditError(Exception):
    """Base class of every error raised on purpose by dpaudit."""


class InputError(DPAuditError, ValueError):
    """Bad input from the user. The message names the value, the constraint and the fix."""


class Undecided(DPAuditError, ValueError):
    """A comparison that exact algebra and arb could not decide: the claim's verdict is
    ``unknown`` with this reason, never an internal error."""


# Exit codes of the command line (the contract every tool and CI job relies on).
EXIT_OK = 0  # nothing wrong found
EXIT_FOUND = 1  # a violation (audit) or a refuted or regressed claim (prove)
EXIT_BAD_INPUT = 2  # bad input: a one-line message naming the value and the fix
EXIT_INTERNAL = 3  # an internal error (a bug in dpaudit)
EXIT_INCONCLUSIVE = 4  # an audit that found nothing and could not have found much (inconclusive)
EXIT_INTERRUPTED = 130  # interrupted (SIGINT)
EXIT_TERMINATED = 143  # terminated (SIGTERM: kill, docker stop, a CI timeout)


class Terminated(KeyboardInterrupt):
    """SIGTERM, as the command line handles it: unwinds like Ctrl-C (a checkpoint is saved,
    workers are stopped, half-written outputs removed), then exit 143."""


def raise_terminated(signum, frame) -> None:
    """The command line's SIGTERM handler (:class:`Terminated`)."""
    raise Terminated
