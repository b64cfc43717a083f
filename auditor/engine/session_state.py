"""A session's checkpoint payload: its candidates, judging counts, chosen events and
certification state as JSON-ready values, and back (with range checks on what is resumed).
The functions take the :class:`~auditor.engine.session.Session` as ``self``."""

from __future__ import annotations

import base64
from typing import Any

import numpy as np

from auditor.engine.checkpoint import (
    candidate_from_state,
    candidate_state,
    counts_from_state,
    counts_state,
)
from auditor.engine.events import KeyFn, event_from_state, event_state
from auditor.engine.select import KeyTally
from proofs.errors import InputError

__all__ = ["restore_session", "session_state"]


def session_state(self) -> dict[str, Any]:
    """The JSON-ready state of a session (a checkpoint's payload)."""
    cert = None
    if self.cert is not None:
        cert = dict(self.cert)
        cert["counts"] = counts_state(cert["counts"])
        cert["prefix"] = counts_state(cert["prefix"])
        if cert["reported"] is not None:
            rep = dict(cert["reported"])
            rep["counts"] = counts_state(rep["counts"])
            rep["prefix"] = counts_state(rep["prefix"])
            cert["reported"] = rep
    return {
        "candidates": [
            [None if cs is None else [candidate_state(c) for c in cs] for cs in rnd]
            for rnd in self.cands
        ],
        "judged": [
            [
                None
                if j is None
                else {
                    "done": j["done"],
                    "counts": counts_state(j["counts"]),
                    "early": j["early"],
                    "alive": [bool(x) for x in j["alive"]],
                }
                for j in rnd
            ]
            for rnd in self.judged
        ],
        "folds": [[None if f is None else _folds_state(f) for f in rnd] for rnd in self.folds],
        "chosen": None if self.chosen is None else [candidate_state(c) for c in self.chosen],
        "partners": [None if d is None else candidate_state(d) for d in self.partners],
        "certify": cert,
    }


def _array_state(a: np.ndarray) -> dict[str, Any]:
    """An array, exactly and compactly: its dtype, shape and bytes (base64)."""
    a = np.ascontiguousarray(a)
    return {"dtype": a.dtype.str, "shape": list(a.shape), "data": base64.b64encode(a).decode()}


def _array_from_state(d: dict[str, Any]) -> np.ndarray:
    dtype = np.dtype(d["dtype"])
    if dtype.kind not in "biuf":
        raise ValueError(f"an array of dtype {dtype} in a tally")
    raw = base64.b64decode(d["data"], validate=True)
    return np.frombuffer(raw, dtype=dtype).reshape(tuple(int(x) for x in d["shape"])).copy()


def _tally_state(t: KeyTally | None) -> dict[str, Any] | None:
    if t is None:
        return None
    return {
        "keys": _array_state(t.keys),
        "counts": _array_state(t.counts),
        "rows": _array_state(t.rows),
        "m": int(t.m),
        "overflow": bool(t.overflow),
    }


def _tally_from_state(d: dict[str, Any] | None) -> KeyTally | None:
    if d is None:
        return None
    keys, counts, rows = (_array_from_state(d[k]) for k in ("keys", "counts", "rows"))
    n = keys.shape[0] if keys.ndim == 1 else -1
    if counts.shape != (n, 2) or rows.shape[:1] != (n,) or (counts < 0).any() or int(d["m"]) < 0:
        raise ValueError("a tally's keys, counts and rows do not match")
    return KeyTally(keys, counts.astype(np.int64), rows, int(d["m"]), bool(d["overflow"]))


def _folds_state(f: dict[str, Any]) -> dict[str, Any]:
    return {
        "keys": [event_state(k) for k in f["keys"]],
        "grids": [g if isinstance(g, bool) else [event_state(k) for k in g] for g in f["grids"]],
        "a": [_tally_state(t) for t in f["a"]],
        "b": [_tally_state(t) for t in f["b"]],
    }


def _folds_from_state(d: dict[str, Any] | None) -> dict[str, Any] | None:
    if d is None:
        return None
    keys = tuple(event_from_state(k) for k in d["keys"])
    grids = tuple(
        g if isinstance(g, bool) else tuple(event_from_state(k) for k in g) for g in d["grids"]
    )
    a = [_tally_from_state(t) for t in d["a"]]
    b = [_tally_from_state(t) for t in d["b"]]
    if not all(isinstance(k, KeyFn) for k in keys) or not len(keys) == len(grids) == len(a) == len(
        b
    ):
        raise ValueError("folds must hold one tally of each key per sample")
    if any(t is None for t in a) or not all(
        isinstance(g, bool) or (g and all(isinstance(k, KeyFn) for k in g)) for g in grids
    ):
        raise ValueError("folds need the building sample's tallies")
    return {"keys": keys, "grids": grids, "a": a, "b": b}


def restore_session(self, st: dict[str, Any]) -> None:
    """Load a checkpoint's payload into a session; a corrupt one is a one-line InputError."""
    try:
        self.cands = [
            [None if cs is None else [candidate_from_state(c) for c in cs] for cs in rnd]
            for rnd in st["candidates"]
        ]
        self.judged = [
            [
                None
                if j is None
                else {
                    "done": int(j["done"]),
                    "counts": counts_from_state(j["counts"], (len(self.cands[r][i] or ()), 2)),
                    "early": bool(j["early"]),
                    "alive": _alive_from_state(j.get("alive"), len(self.cands[r][i] or ())),
                }
                for i, j in enumerate(rnd)
            ]
            for r, rnd in enumerate(st["judged"])
        ]
        folds = st.get("folds")  # a checkpoint from before cross-fitting: none
        self.folds = (
            [[None] * len(self.pairs) for _ in self.plan.rounds]
            if folds is None
            else [[_folds_from_state(f) for f in rnd] for rnd in folds]
        )
        shape = (len(self.plan.rounds), len(self.pairs))
        for name, rows in (
            ("candidates", self.cands),
            ("judged", self.judged),
            ("folds", self.folds),
        ):
            if (len(rows), *{len(row) for row in rows}) != shape:
                raise ValueError(f"{name} must hold {shape[1]} pairs in each of {shape[0]} rounds")
        self.chosen = (
            None if st["chosen"] is None else [candidate_from_state(c) for c in st["chosen"]]
        )
        self.partners = _partners_from_state(st.get("partners"), len(self.chosen or ()))
        for c in [*(self.chosen or ()), *(c for c in self.partners if c is not None)] + [
            c for rnd in self.cands for cs in rnd for c in cs or ()
        ]:
            if not 0 <= c.pair_index < len(self.pairs):
                raise ValueError(f"pair_index={c.pair_index} names no pair of {len(self.pairs)}")
        cert = st["certify"]
        if cert is not None:
            k = len(self._counted())
            cert = dict(cert)
            cert["counts"] = counts_from_state(cert["counts"], (k, 2))
            cert["prefix"] = counts_from_state(cert["prefix"], (len(self.plan.looks), k, 2))
            if cert["reported"] is not None:
                rep = dict(cert["reported"])
                rep["counts"] = counts_from_state(rep["counts"], (k, 2))
                rep["prefix"] = counts_from_state(rep["prefix"], (k, 2))
                cert["reported"] = rep
            cert["done"], cert["next_look"] = int(cert["done"]), int(cert["next_look"])
            cert["p"] = float(cert["p"])
            _check_certify(self, cert)
        for r, rnd in enumerate(self.judged):
            for i, j in enumerate(rnd):
                if j is not None and not 0 <= j["done"] <= 2 * self.plan.rounds[r].judge.count:
                    raise ValueError(f"judged[{r}][{i}].done={j['done']} out of range")
        self.cert = cert
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
        raise InputError(
            f"checkpoint {str(self.checkpoint.path)!r} is corrupt ({exc}); delete it to start "  # type: ignore[union-attr]
            "over."
        ) from None


def _partners_from_state(partners: Any, k: int) -> list:
    """The chosen events' pooling partners (a checkpoint from before pooling: none)."""
    if partners is None:
        return [None] * k
    if not isinstance(partners, list) or len(partners) != k:
        raise ValueError(f"partners must list {k} candidates or nulls")
    return [None if d is None else candidate_from_state(d) for d in partners]


def _alive_from_state(alive: Any, n: int) -> np.ndarray:
    """Which candidates are still counted (a checkpoint from before family halving: all)."""
    if alive is None:
        return np.ones(n, dtype=bool)
    if (
        not isinstance(alive, list)
        or len(alive) != n
        or any(not isinstance(x, bool) for x in alive)
    ):
        raise ValueError(f"alive must list {n} booleans")
    return np.array(alive, dtype=bool)


def _check_certify(self, cert: dict[str, Any]) -> None:
    """Ranges a resumed run relies on (the digest already rules out accidents)."""
    per = 2 * len({c.pair_index for c in self.chosen or ()})
    if not 0 <= cert["done"] <= per * self.plan.certify.count:
        raise ValueError(f"certify.done={cert['done']} out of range")
    if not 0 <= cert["next_look"] <= len(self.plan.looks):
        raise ValueError(f"certify.next_look={cert['next_look']} out of range")
    if cert["stop"] not in (None, "complete", "violation"):
        raise ValueError(f"certify.stop={cert['stop']!r} unknown")
    if cert["stop"] is None and cert["next_look"] == len(self.plan.looks):
        raise ValueError("every look taken but no stop recorded")
    if not 0.0 <= cert["p"] <= 1.0:
        raise ValueError(f"certify.p={cert['p']} is not a probability")
    rep = cert["reported"]
    if rep is not None:
        if not 1 <= int(rep["look"]) <= len(self.plan.looks):
            raise ValueError(f"reported.look={rep['look']} out of range")
        if not 0 < int(rep["samples"]) <= self.plan.certify.n or not 0 < float(rep["level"]) < 1:
            raise ValueError("reported samples or level out of range")
