"""Checkpoints: what an audit has done so far, saved atomically, so a rerun resumes it.

A checkpoint holds the audit's *identity* (target, pairs, claim, samples, confidence, seed and
every setting that changes the result), the selected candidate events, the chosen events and the
counts of the chunks done so far, in chunk order. Chunks are seeded by position, so a resumed
run draws exactly the samples the interrupted one would have drawn next: the result is the
same as an uninterrupted run. Workers and executor are not part of the identity (they never
change a result), nor is the time limit, except that with early stopping off a time limit makes
certification look at its counts several times (so a stopped run has a look to report): the
number of looks is part of the identity. The file is JSON, written to a temporary file and
renamed, so a kill at any moment leaves the previous checkpoint or the new one, never half of one.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from pathlib import Path
from typing import Any

import numpy as np

from auditor.engine.events import event_from_state, event_state
from auditor.engine.select import Candidate
from proofs.errors import InputError
from proofs.io import read_json, write_json_atomic

__all__ = [
    "FORMAT",
    "Checkpoint",
    "candidate_from_state",
    "candidate_state",
    "counts_from_state",
    "counts_state",
]

# 2: certification counts Poisson prefixes too; 3: a threshold tail keeps its building counts;
# 4: an atom offered as a zero-probability witness says so, with its value if unseen.
# A checkpoint of another format holds what another engine chose and counted: never resumed
FORMAT = "dpaudit-checkpoint/4"


def candidate_state(c: Candidate) -> dict[str, Any]:
    return {
        "event": event_state(c.event),
        "forward": c.forward,
        "pair_index": c.pair_index,
        "family": c.family,
        "scores": event_state([c.predicted, c.rank, c.plain]),
        "built": None if c.built is None else [int(k) for k in c.built],
        "weight": event_state(c.weight),
        "unseen": c.unseen,
        "zero": event_state(c.zero),
    }


def candidate_from_state(d: dict[str, Any]) -> Candidate:
    predicted, rank, plain = event_from_state(d["scores"])
    return Candidate(
        event_from_state(d["event"]),
        bool(d["forward"]),
        float(predicted),
        pair_index=int(d["pair_index"]),
        family=str(d["family"]),
        rank=float(rank),
        plain=float(plain),
        built=None if d.get("built") is None else tuple(int(k) for k in d["built"]),
        weight=_weight(d.get("weight", 1.0)),
        unseen=bool(d["unseen"]),
        zero=float(event_from_state(d["zero"])),
    )


def _weight(w: Any) -> float:
    """A chosen event's weight (a checkpoint from before weights: 1, an even share)."""
    w = float(event_from_state(w))
    if not (0 < w < math.inf):
        raise ValueError(f"weight={w} must be a positive number")
    return w


def _describe(identity: dict[str, Any], other: dict[str, Any], key: str) -> str:
    """``identity[key]`` in at most 60 characters, around where it differs from ``other``'s."""
    text = json.dumps(identity.get(key), sort_keys=True)
    if len(text) <= 60:
        return text
    theirs = json.dumps(other.get(key), sort_keys=True)
    at = next(
        (i for i, (a, b) in enumerate(zip(text, theirs)) if a != b), min(len(text), len(theirs))
    )
    start = max(0, min(at - 20, len(text) - 54))
    end = "..." if start + 54 < len(text) else ""
    return ("..." if start else "") + text[start : start + 54] + end


class Checkpoint:
    """One checkpoint file bound to one audit identity; ``state`` is the saved progress."""

    def __init__(self, path: str | os.PathLike, identity: dict[str, Any]):
        self.path = Path(path)
        self.identity = json.loads(json.dumps(identity, sort_keys=True, default=repr))
        self._order = list(identity)  # as given: the settings a user chooses come first
        self.state: dict[str, Any] = {}
        if self.path.is_dir():
            raise InputError(f"checkpoint {str(self.path)!r} is a folder; give a file path.")
        if str(self.path) == "-" or (self.path.exists() and not self.path.is_file()):
            # (reading a pipe or a terminal would wait forever; a device cannot be resumed)
            raise InputError(
                f"checkpoint {str(self.path)!r} is not a regular file (a pipe, device or "
                "descriptor); give a file path."
            )
        if self.path.exists():
            self._load()
        elif not self.path.parent.exists():
            raise InputError(
                f"checkpoint {str(self.path)!r}: folder {str(self.path.parent)!r} does not exist; "
                "create it or give another checkpoint path."
            )

    def _load(self) -> None:
        where = str(self.path)
        try:
            doc = read_json(self.path.read_text())
            ok = isinstance(doc, dict) and doc.get("format") == FORMAT
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise InputError(
                f"checkpoint {where!r} is not a readable dpaudit checkpoint ({type(exc).__name__});"
                " delete it to start over."
            ) from None
        found = doc.get("format") if isinstance(doc, dict) else None
        if isinstance(found, str) and found.startswith("dpaudit-checkpoint/") and not ok:
            raise InputError(
                f"checkpoint {where!r} was written by another version of dpaudit ({found}; this "
                f"one reads {FORMAT}); finish it with that version, or delete it to start over."
            )
        if not ok or not isinstance(doc.get("identity"), dict):
            raise InputError(
                f"checkpoint {where!r} is not a dpaudit checkpoint (corrupt or another file); "
                "delete it to start over."
            )
        saved = doc["identity"]
        # the first difference in the identity's own order (target, pairs, claim, ...; derived
        # settings such as the chunk plan last), then keys only the saved one has
        keys = [*self._order, *sorted(set(saved) - set(self._order))]
        text = lambda d, k: json.dumps(d.get(k), sort_keys=True)
        for key in keys:
            # as JSON text, as the digest reads them: a pair (0, 1) is not (0.0, 1.0) nor
            # (false, true), which compare equal in Python (and the valid checkpoint was called
            # corrupt, the user told to delete it)
            if text(saved, key) != text(self.identity, key):
                hint = {
                    "looks": " (a time limit, or none, sets when the audit looks at its counts: "
                    "give the --max-time the saved run had, or leave it out if it had none)",
                    "families": " (--semantics ideal leaves out the float family: give the "
                    "--semantics the saved run had)",
                }.get(key, "")
                raise InputError(
                    f"checkpoint {where!r} belongs to another audit ({key}="
                    f"{_describe(saved, self.identity, key)}, this one has {key}="
                    f"{_describe(self.identity, saved, key)}){hint}; rerun that audit, or give "
                    "a new checkpoint path."
                )
        state = doc.get("state")
        if not isinstance(state, dict) or doc.get("digest") != self._digest(state):
            raise InputError(
                f"checkpoint {where!r} is corrupt (its digest does not match its contents); "
                "delete it to start over."
            )
        self.state = state

    def _digest(self, state: dict[str, Any]) -> str:
        """SHA-256 of identity and state: an edited or damaged file is refused, not resumed."""
        text = json.dumps([self.identity, state], sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()

    def save(self, state: dict[str, Any]) -> None:
        state = json.loads(json.dumps(state))  # exactly what a reload will see
        self.state = state
        doc = {
            "format": FORMAT,
            "identity": self.identity,
            "digest": self._digest(state),
            "state": state,
        }
        write_json_atomic(self.path, doc, strict=True)


def counts_state(a: np.ndarray) -> list:
    return np.asarray(a, dtype=np.int64).tolist()


def counts_from_state(x: Any, shape: tuple[int, ...]) -> np.ndarray:
    try:
        a = np.asarray(x, dtype=np.int64)
    except OverflowError:  # (no ValueError: it escaped the checks of a checkpoint's state)
        raise ValueError("counts beyond a 64-bit integer") from None
    if a.shape != shape:
        raise ValueError(f"counts of shape {a.shape}, expected {shape}")
    if (a < 0).any():
        raise ValueError("negative counts")
    return a
