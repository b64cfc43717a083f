"""Replay an audit's witness: evaluate its event on fresh samples and certify the bound again.

``replay(result, mechanism)`` takes an :class:`~auditor.engine.result.AuditResult`, its JSON
dict or the path of its JSON file, draws ``samples`` fresh outputs on each dataset of the
witness pair (default: as many as the audit certified on) and certifies
``ln((lower(P[M(numerator) in E]) - delta) / upper(P[M(other) in E]))`` with exact one-sided
Clopper-Pearson bounds, each at level ``(1 - confidence)/2``: one event, chosen before these
samples were drawn, so no union bound is needed. A pure point claim (delta 0) is certified as
the audit certifies it: also by the exact joint bound on the ratio of the event's probabilities,
from its counts on Poisson prefixes of the samples (:func:`auditor.engine.stats.ratio_lower`),
which gets ``JOINT_SHARE`` of the level and the split bounds the rest; a witness whose joint
bound pooled its event with a partner of the other direction is replayed pooled too. The seed
defaults to the audit's seed + 1, so the samples are not the audit's own.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from auditor.engine.config import MAX_SAMPLES, MAX_SEED
from proofs.errors import InputError
from proofs.io import brief

__all__ = ["ReplayResult", "replay"]

CHUNK = 200_000


@dataclass(frozen=True, slots=True)
class ReplayResult:
    """The witness event of an audit, certified again on fresh samples."""

    mechanism: str
    claimed_epsilon: float
    delta: float
    confidence: float
    pair: dict
    event: str
    numerator: str
    count_numerator: int
    count_denominator: int
    samples: int
    seed: int
    epsilon_lower_bound: float
    audited_bound: float
    # a profile claim (its KIND:PARAMS) is judged by its own statistic against its threshold
    # (GDP mu against the claimed mu, a margin below the claimed curve against 0); a point
    # claim by the epsilon bound against the claimed epsilon
    profile: str | None = None
    statistic: str = "epsilon"
    certified: float = math.nan
    threshold: float = math.nan
    # a pure claim's joint ratio bound (as the audit's witness reports it), or None
    ratio: dict | None = None

    @property
    def violation(self) -> bool:
        if self.profile is not None:
            return self.certified > self.threshold
        return self.epsilon_lower_bound > self.claimed_epsilon

    def summary(self) -> str:
        from auditor.engine.result import dataset_words, ratio_words

        verdict = "VIOLATION" if self.violation else "no violation found"
        other = "b" if self.numerator == "a" else "a"
        claim = (
            f"the profile {self.profile}"
            if self.profile is not None
            else f"the claim epsilon={self.claimed_epsilon:g}, delta={self.delta:g}"
        )
        value = (
            f"{self.statistic} >= {self.certified:.4f} (claimed: {self.threshold:g}; the audit "
            f"certified {self.audited_bound:.4f})"
            if self.profile is not None
            else f"epsilon >= {self.epsilon_lower_bound:.4f} (the audit certified "
            f"{self.audited_bound:.4f})"
        )
        lines = [
            f"{self.mechanism}: replayed witness: {verdict} "
            + ("of" if self.violation else "for")
            + f" {claim}",
            f"  certified at confidence {self.confidence:g} on {self.samples} fresh samples "
            f"each (seed {self.seed}): {value}",
            f"  event {self.event} on pair {dataset_words(self.pair.get('a'))} vs "
            f"{dataset_words(self.pair.get('b'))}:"
            f" {self.count_numerator} under {self.numerator}, {self.count_denominator} under "
            f"{other}",
        ]
        if self.ratio is not None:
            lines.append(f"  ratio bound: {ratio_words(self.ratio)}")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        from proofs.io import SCHEMA_VERSION, finite_or_none

        out = {"schema_version": SCHEMA_VERSION, "kind": "replay"}  # (auditor/schemas)
        out.update({f: getattr(self, f) for f in self.__dataclass_fields__})
        out["epsilon_lower_bound"] = finite_or_none(self.epsilon_lower_bound)
        out["certified"] = finite_or_none(self.certified)
        out["threshold"] = finite_or_none(self.threshold)
        out["violation"] = self.violation
        return out


def _as_dict(result: Any) -> dict:
    if hasattr(result, "to_dict"):
        return result.to_dict()
    if isinstance(result, dict):
        return result
    if not isinstance(result, (str, Path)):
        raise InputError(
            f"result={result!r} is not an audit result; pass an AuditResult, its to_dict() or "
            "the path of its JSON."
        )
    path = Path(result)
    try:
        from proofs.io import read_json

        d = read_json(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise InputError(f"result file {str(path)!r} cannot be read ({e.strerror}){_FIX}") from None
    except json.JSONDecodeError as e:
        raise InputError(
            f"result file {str(path)!r} is not JSON ({e.msg}, line {e.lineno}){_FIX}"
        ) from None
    except UnicodeDecodeError:
        raise InputError(f"result file {str(path)!r} is not UTF-8 text (JSON){_FIX}") from None
    if not isinstance(d, dict):
        raise InputError(f"result file {str(path)!r} holds no audit result (a JSON object){_FIX}")
    return d


_FIX = "; pass the JSON file `dpaudit audit --json` wrote."
_UNEDITED = "; replay an unedited file written by `dpaudit audit --json`."

SPEC_FIELDS = ("type", "lo", "hi", "k", "negate", "coordinate", "columns", "bin_edges")
# (and every other field the spec holds: the description and a score's, with its weights, the
# values of a set, the parts of a difference; an edited weight was replayed under the old text)


def _spec_differs(event, spec) -> str:
    """The first field where the event rebuilt from ``event_state`` and the readable
    ``event_spec`` saved beside it disagree ('' when they agree, or no spec was saved): an
    edited state replayed another event under the saved description."""
    from auditor.engine.events import event_to_dict

    if not isinstance(spec, dict):
        return ""
    try:
        rebuilt = event_to_dict(event)
    except (TypeError, ValueError, AttributeError, OverflowError):
        return ""  # (a malformed state: evaluating it says what is wrong)
    for key in (*SPEC_FIELDS, *sorted(set(spec) - set(SPEC_FIELDS), key=str)):
        if key in spec and json.dumps(spec[key]) != json.dumps(rebuilt.get(key)):
            return f"{key}: {brief(spec[key], 120)} against {brief(rebuilt.get(key), 120)}"
    return ""


def _finite(v: Any) -> bool:
    """No NaN or infinity anywhere in a JSON value (data a pair was audited on)."""
    if isinstance(v, float):
        return math.isfinite(v)
    if isinstance(v, list):
        return all(_finite(x) for x in v)
    if isinstance(v, dict):
        return all(_finite(x) for x in v.values())
    return True


def _event(state: Any, spec: Any, what: str):
    """The event rebuilt from its saved state, checked against its readable spec."""
    from auditor.engine.events import event_from_state

    try:
        event = event_from_state(state)
    except (TypeError, ValueError) as e:
        raise InputError(f"the witness {what} is malformed ({e}){_UNEDITED}") from None
    if not hasattr(event, "contains"):
        raise InputError(f"the witness {what} {brief(state, 80)} is not an event{_UNEDITED}")
    differs = _spec_differs(event, spec)
    if differs:
        raise InputError(
            f"the witness {what} and its spec disagree ({differs}): the result was "
            "edited; replay an unedited file written by `dpaudit audit --json`."
        )
    return event


def _partner(witness: dict):
    """The event a pure claim's joint bound pooled with the witness's (None if not pooled)."""
    pooled = (witness.get("ratio_bound") or {}).get("pooled")
    if pooled is None:
        return None
    if not isinstance(pooled, dict) or "partner_event_state" not in pooled:
        raise InputError("the witness's pooled ratio bound names no partner_event_state.")
    return _event(
        pooled["partner_event_state"], pooled.get("partner_event_spec"), "partner_event_state"
    )


def _witness_event(d: dict):
    witness = d.get("witness")
    if not isinstance(witness, dict):
        raise InputError("the result has no witness event to replay (no event was certified).")
    state = witness.get("event_state")
    if state is None:
        raise InputError(
            "the result's witness has no event_state (written by an older dpaudit); rerun the "
            "audit to get a replayable witness."
        )
    event = _event(state, witness.get("event_spec"), "event_state")
    text = witness.get("event")
    if text is not None and text != event.describe():
        raise InputError(
            f"the witness event {brief(text, 120)} is not the event its event_state holds "
            f"({brief(event.describe(), 120)}): the result was edited{_UNEDITED}"
        )
    for key in ("pair", "counts", "ratio_bound"):
        if not isinstance(witness.get(key) or {}, dict):  # (null: no ratio bound)
            raise InputError(
                f"the witness {key} {witness[key]!r} is malformed (not an object){_UNEDITED}"
            )
    if witness.get("numerator") not in ("a", "b"):
        raise InputError(
            f"the witness numerator {witness.get('numerator')!r} is not 'a' or 'b'{_UNEDITED}"
        )
    pair = witness.get("pair") or {}
    for side in ("a", "b"):
        if side in pair and not _finite(pair[side]):
            raise InputError(
                f"the witness pair's {side} {brief(pair[side], 120)} holds a NaN or infinity, "
                f"which no audit's data has{_UNEDITED}"
            )
    return witness, event


def _count(count_events: Callable, events: list, y: np.ndarray) -> np.ndarray:
    """How many rows of ``y`` each witness event holds; a one-line error when it cannot say (a
    malformed event_state, or outputs of another shape than the audited mechanism's)."""
    try:
        return np.asarray(count_events(events, y), dtype=np.int64)
    except (TypeError, ValueError, ArithmeticError, AttributeError, IndexError, KeyError) as e:
        raise InputError(
            f"the witness event cannot be evaluated on these outputs ({type(e).__name__}: {e}); "
            "replay the result on the mechanism it audited, with its JSON unedited."
        ) from None


def _number(d: dict, key: str, lo: float, hi: float) -> float:
    v = d.get(key)
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not lo <= v < hi:
        raise InputError(f"the result's {key}={v!r} is not a number in [{lo}, {hi}){_UNEDITED}")
    return float(v)


def replay(
    result: Any,
    mechanism: Callable[..., Any] | None = None,
    *,
    samples: int | None = None,
    seed: int | None = None,
    confidence: float | None = None,
    target: str | None = None,
    profile: Any = None,
) -> ReplayResult:
    """Certify the witness of ``result`` again on fresh samples of ``mechanism``, or of
    ``target`` (a catalogue name, built as the audit built it, or ``module:callable``); by
    default the target recorded in the result. The claim is the result's: its point claim,
    or its profile (rebuilt from its ``KIND:PARAMS``; ``profile`` gives it when the audit was
    handed a profile object, such as a dp_accounting privacy loss distribution)."""
    from auditor.engine.adapter import as_mechanism, draw
    from auditor.engine.events import Difference
    from auditor.engine.executors import count_events
    from auditor.engine.stats import (
        JOINT_SHARE,
        cp_lower,
        cp_upper,
        epsilon_bound,
        prefix_mean,
        ratio_lower,
    )
    from proofs.io import SCHEMA_VERSION, same_schema

    d = _as_dict(result)
    if d.get("kind") == "replay":
        raise InputError(
            "the result given is the output of a replay, not an audit result; replay the "
            "audit's own JSON (its --json) again."
        )
    version = d.get("schema_version")
    if not same_schema(version):
        raise InputError(
            f"the result's schema_version={version!r} is not {SCHEMA_VERSION!r} (a result of "
            "another dpaudit, or not an audit result); rerun the audit with this one."
        )
    if "witness" not in d:  # (an audit result has one, null when nothing was certified)
        raise InputError(
            "the file holds no audit result (it has no witness field: the output of "
            f"`dpaudit prove` or `closeness`?){_FIX}"
        )
    witness, event = _witness_event(d)
    eps = _number(d, "claimed_epsilon", 0, math.inf)
    delta = _number(d, "delta", 0, 1)
    conf = _number(d, "confidence", 0, 1) if confidence is None else confidence
    numeric = (int, float, np.integer, np.floating)
    if isinstance(conf, bool) or not isinstance(conf, numeric) or not 0.5 <= conf < 1:
        raise InputError(f"confidence={conf!r} must be in [0.5, 1), e.g. 0.95.")
    conf = float(conf)
    n = samples if samples is not None else witness.get("counts", {}).get("samples_each")
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 1 <= n <= MAX_SAMPLES:
        raise InputError(
            f"samples={brief(n, 120)} must be an integer in [1, {MAX_SAMPLES:.0e}]; use e.g. "
            "samples=1000000."
        )
    recorded = d.get("seed")
    whole = isinstance(recorded, int) and not isinstance(recorded, bool) and recorded >= 0
    if seed is None and recorded is not None and not whole:
        raise InputError(
            f"the result's seed {recorded!r} is not an integer >= 0 (an edited file?); give the "
            "seed to replay with (--seed)."
        )
    if seed is None and whole and recorded + 1 >= MAX_SEED:
        raise InputError(
            f"the result's seed {brief(recorded, 60)} is not below 2^512 - 1 (an edited "
            "file?); give the seed to replay with (--seed)."
        )
    s = (recorded + 1 if whole else 0) if seed is None else seed
    if isinstance(s, bool) or not isinstance(s, int) or not 0 <= s < MAX_SEED:
        raise InputError(f"seed={brief(s, 120)} must be an integer in [0, 2^512).")
    claim = _profile(d, profile)
    if not target and not d.get("mechanism"):
        raise InputError(
            "the result names no mechanism; give the TARGET to replay it on "
            "(dpaudit replay RESULT.json TARGET)."
        )
    name = target or str(d["mechanism"])
    if mechanism is None:
        mechanism = _resolve(name, eps if claim is None else None)
    mech = as_mechanism(mechanism, name)
    pair = witness.get("pair") or {}
    if "a" not in pair or "b" not in pair:
        raise InputError("the witness has no pair {'a': ..., 'b': ...} to replay.")
    rngs = np.random.default_rng(np.random.SeedSequence(s)).spawn(2)  # spawn keys (0,), (1,)
    joint = claim is None and delta == 0
    # the Poisson prefix sizes come from a stream of their own (the seed's third child)
    prefix_rng = np.random.default_rng(np.random.SeedSequence(s, spawn_key=(2,)))
    cut = prefix_rng.poisson(prefix_mean(int(n)), 2) if joint else None
    other = _partner(witness) if joint else None
    # on the prefixes: the event, and when pooled its part outside the partner's and back
    ahead = [event]
    if other is not None:
        ahead += [Difference(event, other), Difference(other, event)]
    counts, heads = [0, 0], np.zeros((2, len(ahead)), dtype=np.int64)
    for side, data in enumerate((pair["a"], pair["b"])):
        done = 0
        while done < n:
            size = min(CHUNK, int(n) - done)
            y = draw(mech, data, size, rngs[side])
            split = 0 if cut is None else int(min(max(cut[side] - done, 0), size))
            if split:  # the rows inside the Poisson prefix, counted once for both bounds
                head = _count(count_events, ahead, y[:split])
                heads[side] += head
                counts[side] += int(head[0])
            if split < size:
                counts[side] += int(_count(count_events, [event], y[split:])[0])
            done += size
    num = 0 if witness["numerator"] == "a" else 1
    a = (1 - conf) / 2 * ((1 - JOINT_SHARE) if joint else 1.0)
    lo, hi = cp_lower(counts[num], n, a), cp_upper(counts[1 - num], n, a)
    bound = float(epsilon_bound(lo, hi, delta))
    ratio = None
    if cut is not None:
        fits = bool(np.all(cut <= n))  # else (probability ~1e-9) the joint bound claims nothing
        x, y = int(heads[num, 0]), int(heads[1 - num, 0])
        if other is not None:  # (stats: pooled; the partner's numerator is the other dataset)
            x = int(heads[num, 1] + heads[1 - num, 2])
            y = int(heads[1 - num, 1] + heads[num, 2])
        value = float(ratio_lower(x, y, (1 - conf) * JOINT_SHARE))
        value = value if fits else -math.inf
        bound = max(bound, value)
        ratio = {
            "count_numerator": x,
            "count_denominator": y,
            "samples_numerator": int(cut[num]),
            "samples_denominator": int(cut[1 - num]),
            "epsilon_lower_bound": value if math.isfinite(value) else None,
        }
        if other is not None:
            ratio["pooled"] = {
                "partner_event": other.describe(),
                "counts_event_only": [int(heads[num, 1]), int(heads[1 - num, 1])],
                "counts_partner_only": [int(heads[1 - num, 2]), int(heads[num, 2])],
            }
    judged = {}
    if claim is not None:
        judged = dict(
            profile=claim.describe(),
            statistic=claim.unit,
            certified=float(np.max(claim.statistic(lo, hi))),
            threshold=float(claim.threshold),
        )
    audited = d.get("epsilon_lower_bound")
    if claim is not None:
        audited = (d.get("profile") or {}).get("certified")
    if audited is not None and (
        isinstance(audited, bool)
        or not isinstance(audited, numeric)
        or not math.isfinite(audited)  # (an audit's certified bound is always finite)
    ):
        raise InputError(
            f"the result's certified bound {audited!r} is not a finite number; replay the "
            "result with its JSON unedited."
        )
    return ReplayResult(
        mechanism=name,
        claimed_epsilon=eps,
        delta=delta,
        confidence=conf,
        pair=pair,
        event=str(witness.get("event", event.describe())),
        numerator="a" if num == 0 else "b",
        count_numerator=counts[num],
        count_denominator=counts[1 - num],
        samples=int(n),
        seed=s,
        epsilon_lower_bound=max(bound, 0.0),
        audited_bound=float(audited or 0.0),
        ratio=ratio,
        **judged,
    )


def _profile(d: dict, given: Any):
    """The result's profile claim, or None for a point claim. A profile file named by a
    relative path is read from this folder, else from the absolute path the audit recorded
    (``source``): a replay from another folder finds it."""
    from auditor.engine.claims import as_profile, parse_profile

    saved = d.get("profile")
    if not isinstance(saved, dict):
        return None if given is None else as_profile(given)
    ref = saved.get("reference_delta")
    if given is not None:
        return as_profile(given, ref)
    spec = saved.get("claim")
    try:
        return parse_profile(spec, ref)
    except InputError as e:
        kind, source = str(spec).partition(":")[0], saved.get("source")
        if kind in ("rdp", "pld") and isinstance(source, str) and Path(source).is_file():
            return _with_spec(parse_profile(f"{kind}:{source}", ref), spec)
        raise InputError(
            f"the result's profile {spec!r} cannot be rebuilt ({e}); pass it again: "
            "auditor.replay(result, mechanism, profile=...)."
        ) from None


def _with_spec(profile: Any, spec: str) -> Any:
    """``profile`` shown as the audit wrote it (the relative path)."""
    from dataclasses import replace

    return replace(profile, spec=spec)


def _resolve(name: str, epsilon: float | None) -> Callable[..., Any]:
    """The recorded target: a catalogue entry built as the audit built it (at the claimed
    epsilon; for a profile claim, at the entry's own claim), or module:callable."""
    from auditor.cli.audit import resolve_target

    func, _name, entry = resolve_target(name)
    if entry is None:
        return func
    return entry.sampler(entry.claimed_epsilon if epsilon is None else epsilon)
