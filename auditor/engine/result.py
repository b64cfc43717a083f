"""The audit result: copies its inputs, says what holds with what probability."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from proofs.io import SCHEMA_VERSION, finite_or_none

__all__ = [
    "SCHEMA_VERSION",
    "VERDICTS",
    "AuditResult",
    "Witness",
    "dataset_words",
    "float_note",
    "ratio_words",
]

VERDICTS = ("violation", "no violation found", "inconclusive")
FLOAT_NOTE = (
    "  float-representation violation: the witness is an event on the bits of the output "
    "doubles (Mironov 2012, On significance of the least significant bits for DP): the "
    "real-number mechanism may be private, its floating-point implementation is not. Fix: "
    "snap outputs to a coarse grid or use a discrete sampler (e.g. OpenDP's); audit the "
    "ideal mechanism with --semantics ideal (semantics='ideal'). But an output the mechanism "
    "returns with positive probability (a sentinel such as 1000.0, an exact answer) is a "
    "multiple of 2^-k too, and a bit event may stand in for it: if --semantics ideal also "
    "finds a violation, the leak is in the distribution and a grid does not fix it."
)
ZERO_NOTE = (
    "  float-representation violation: the witness is the negative zero, a double that "
    "compares equal to 0.0 but whose sign bit depends on the input (0.0 * x, rounding a "
    "negative value): the real-number mechanism may be private, its floating-point "
    "implementation is not. Fix: normalise zeros before release (y + 0.0 turns -0.0 into "
    "0.0); audit the ideal mechanism with --semantics ideal (semantics='ideal')."
)


_SHOWN = 120  # characters of a dataset shown in a summary, a message or a report


SIZED_NOTE = "sized to the time limit"  # how an audit fitted to --max-time says so


def dataset_words(data: Any, width: int = _SHOWN, render: Callable[[Any], str] = repr) -> str:
    """A dataset as people read it (its ``render``: repr, or json.dumps in a report), cut to
    about ``width`` characters with its length said: a witness pair of 20,000 records made
    a summary of half a megabyte. The result's JSON keeps it whole."""
    text = render(data)
    if len(text) <= width:
        return text
    try:
        size = f" ({len(data):,} items)"
    except TypeError:  # (no length, or a 0-d array's)
        size = ""
    return f"{text[: width - 4]} ...{size}"


def float_note(event_types) -> str:
    """The explanation of the float-representation violations certified by events of these
    types (``AuditResult.float_events``): the negative zero's, the low bits', or both."""
    types = set(event_types or ())
    notes = [ZERO_NOTE] if "NegativeZero" in types else []
    if not notes or types - {"NegativeZero"}:
        notes.insert(0, FLOAT_NOTE)
    return "\n".join(notes)


def ratio_words(r: dict[str, Any]) -> str:
    """A witness's joint ratio bound in words (a pure claim's: auditor.engine.stats)."""
    value = r.get("epsilon_lower_bound")
    pooled = r.get("pooled")
    counts = (
        f"{r['count_numerator']} of the first {r['samples_numerator']} vs "
        f"{r['count_denominator']} of the first {r['samples_denominator']} (Poisson prefixes)"
        if not pooled
        else f"{r['count_numerator']} vs {r['count_denominator']} on Poisson prefixes of "
        f"{r['samples_numerator']} and {r['samples_denominator']}, pooled with the other "
        f"direction's event {pooled['partner_event']} (the event without it under the "
        "numerator plus it without the event under the denominator, against the reverse)"
    )
    return counts + ": " + ("no bound" if value is None else f"epsilon >= {max(value, 0.0):.4f}")


@dataclass(frozen=True, slots=True)
class Witness:
    """The replayable evidence: pair, event, direction and certification counts.

    ``numerator`` names the dataset ("a" or "b") whose probability of the event is bounded below.
    """

    pair: dict[str, Any]
    event: str
    event_spec: dict[str, Any]
    numerator: str
    count_numerator: int
    count_denominator: int
    certification_samples: int
    p_lower: float
    p_upper: float
    selection_prediction: float
    event_state: Any = None  # the lossless form of the event (:func:`events.event_state`)
    simple_event: str = ""  # a simpler event within 5% of a learned one, in words (not certified)
    # a pure claim's joint bound: counts on the Poisson prefixes, their sizes, ln of the ratio's
    # certified lower bound (auditor.engine.stats.ratio_lower)
    ratio: dict[str, Any] | None = None

    @property
    def other(self) -> str:
        """The denominator dataset, 'a' or 'b'."""
        return "b" if self.numerator == "a" else "a"

    def to_dict(self) -> dict[str, Any]:
        return {
            "pair": self.pair,
            "event": self.event,
            "event_spec": self.event_spec,
            "direction": f"P[M({self.numerator}) in E] vs P[M({self.other}) in E]",
            "numerator": self.numerator,
            "counts": {
                "numerator": self.count_numerator,
                "denominator": self.count_denominator,
                "samples_each": self.certification_samples,
            },
            "p_lower_numerator": self.p_lower,
            "p_upper_denominator": self.p_upper,
            "selection_prediction": finite_or_none(self.selection_prediction),
            "event_state": self.event_state,
            "simple_event": self.simple_event,
            **({} if self.ratio is None else {"ratio_bound": self.ratio}),
        }


@dataclass(frozen=True, slots=True)
class AuditResult:
    """Outcome of :func:`auditor.audit`.

    With probability at least ``confidence`` (over the audit's own sampling), the mechanism's
    true epsilon on the witness pair is at least ``epsilon_lower_bound`` (at the given delta), and
    any claim (epsilon, delta') at ``claimed_epsilon`` needs ``delta' >= delta_lower_bound``.
    ``violation`` is True iff the certified bound exceeds the claim; when False, nothing was
    found at this sample size - which is not evidence that the mechanism is private.
    """

    mechanism: str
    claimed_epsilon: float
    delta: float
    confidence: float
    epsilon_lower_bound: float
    unbounded_witness: bool
    delta_lower_bound: float
    violation: bool
    p_value: float
    witness: Witness | None
    samples: int
    selection_samples: int
    certification_samples: int
    seed: int | None
    seconds: float
    pairs_searched: int
    events_certified: int
    reproducible: bool = True
    stop: str = "complete"
    look: int = 1
    looks: int = 1
    method: str = (
        "select-then-certify; one-sided Clopper-Pearson; Bonferroni over certified bounds and looks"
    )
    notes: tuple[str, ...] = field(default=())
    verdict: str = ""  # "violation", "no violation found" or "inconclusive" (see VERDICTS)
    detectable_epsilon: float = float("inf")
    hint: str = ""
    violation_kind: str = ""  # the witness's: "float-representation" or "distributional"
    violation_kinds: tuple[str, ...] = ()  # every kind some certified event shows
    # the event types of the certified float-representation events (FloatMultiple, NegativeZero)
    float_events: tuple[str, ...] = ()
    event: Any = field(
        default=None, repr=False, compare=False
    )  # the witness event object (replay, plots)
    # a profile audit's certified trade-off points (auditor.engine.claims.profile_report)
    profile: dict[str, Any] | None = None
    claim: Any = field(default=None, repr=False, compare=False)  # what was tested (claims.py)

    def summary(self) -> str:
        verdict = "VIOLATION" if self.violation else self.verdict or "no violation found"
        lines = [
            f"{self.mechanism}: {verdict}"
            + (" of" if self.violation else " for")
            + (
                f" the claim epsilon={self.claimed_epsilon:g}, delta={self.delta:g}"
                if self.profile is None
                else f" the profile {self.profile['claim']}"
            )
        ]
        lines += self._claim_lines() if self.profile is None else self._profile_lines()
        if self.witness is not None:
            w = self.witness
            lines.append(
                f"  witness: pair {dataset_words(w.pair['a'])} vs {dataset_words(w.pair['b'])} "
                f"({w.pair.get('label', '')}),"
                f" event {w.event}"
            )
            if w.simple_event:
                lines.append(f"  in words: {w.simple_event}")
            lines.append(
                f"  counts: {w.count_numerator} vs {w.count_denominator} of "
                f"{w.certification_samples} fresh samples each (numerator dataset {w.numerator})"
            )
            if w.ratio is not None:
                lines.append(f"  ratio bound: {ratio_words(w.ratio)}")
        used = self.selection_samples + self.certification_samples
        sized = any(n.startswith(SIZED_NOTE) for n in self.notes)
        asked = " planned" if sized else " asked"
        asked, drawn = ("", "") if used == self.samples else (asked, " used")
        lines.append(
            f"  samples per dataset {self.samples}{asked} ({self.selection_samples} selection + "
            f"{self.certification_samples} certification{drawn}), seed {self.seed}, "
            f"{self.seconds:.2f} s"
        )
        if "float-representation" in self.violation_kinds:
            lines.append(float_note(self.float_events))
        if len(self.violation_kinds) > 1:
            lines.append(
                "  the mechanism also violates the claim as a distribution (not only in its bits)"
            )
        if self.stop != "complete" or self.looks > 1:
            lines.append(f"  certified at look {self.look} of {self.looks} ({self.stop})")
        lines += [f"  {n}" for n in self.notes if n.startswith(SIZED_NOTE)]
        if not self.reproducible:
            why = [n for n in self.notes if n.startswith("not reproducible")]
            lines.append(f"  {why[0] if why else 'not reproducible'}")
        if not self.violation:
            unit = "epsilon" if self.profile is None else "GDP mu"
            lines.append(
                f"  detectable {unit}: {self.detectable_epsilon:.4g} (the smallest true {unit} "
                "the certified events and sample size certify above the claim with probability "
                "1/2; a leak confined to outputs these events do not cover, rarer ones above "
                "all, can go unseen)"
            )
            if self.hint:
                lines.append(f"  {self.hint}")
            lines += [f"  {n}" for n in self.notes if n.startswith("pairs: ")]
            lines.append(f"  '{self.verdict or 'no violation found'}' is not a proof of privacy.")
        return "\n".join(lines)

    def claim_words(self) -> str:
        """What was claimed: "(1, 1e-05)-DP" or "the profile gaussian:2"."""
        if self.profile is None:
            return f"({self.claimed_epsilon:g}, {self.delta:g})-DP"
        return f"the profile {self.profile['claim']}"

    def bound_words(self) -> str:
        """What was certified against the claim: "epsilon >= 0.6892 > claimed 0.5" or, for a
        profile, "GDP mu >= 0.9098 > claimed mu 0.5" (a bound only when none exceeds it)."""
        if self.profile is None:
            top = f" > claimed {self.claimed_epsilon:g}" if self.violation else ""
            return f"epsilon >= {self.epsilon_lower_bound:.4g}{top}"
        mu, claimed = self.profile.get("mu_lower_bound"), self.profile.get("claimed_mu")
        words = f"GDP mu >= {mu:.4g}"
        if claimed is not None:
            words += f" {'>' if mu > claimed else 'against'} claimed mu {claimed:g}"
        if self.violation:
            words += "; a certified trade-off point lies below the profile"
        return words

    def _claim_lines(self) -> list[str]:
        return [
            f"  certified at confidence {self.confidence:g}: epsilon >= "
            f"{self.epsilon_lower_bound:.4f}"
            + (
                " (event never seen under one dataset: consistent with unbounded privacy loss,"
                " or with an output rare under it; the bound is what is certified)"
                if self.unbounded_witness
                else ""
            ),
            f"  delta needed at epsilon={self.claimed_epsilon:g}: {self.delta_needed()};"
            f" p-value of the claim: {self.p_value:.3g}",
        ]

    def delta_needed(self) -> str:
        """The delta the evidence needs at the claimed epsilon, in words. A pure claim refuted
        by the joint ratio bound needs some delta > 0 although the two probabilities' separate
        bounds give none (">= 0" read as a contradiction of the verdict)."""
        if self.violation and self.delta == 0 and self.delta_lower_bound <= 0:
            return "> 0 (shown by the ratio bound; the separate bounds give no figure)"
        return f">= {self.delta_lower_bound:.3g}"

    def _profile_lines(self) -> list[str]:
        p = self.profile or {}
        mu = p.get("mu_lower_bound")
        claimed = p.get("claimed_mu")
        out = [
            f"  certified at confidence {self.confidence:g}: GDP mu >= {mu:.4f}"
            + (
                # (a zCDP claim weaker than the GDP mu shown read as a missed violation)
                " (a summary: the claim's own curve, not a Gaussian one, decides the verdict)"
                if claimed is None
                else f" (claimed mu {claimed:g})"
            )
            + f"; p-value of the claim: {self.p_value:.3g}"
        ]
        best = p.get("most_violated")
        if best is not None:
            pt = p["points"][best]
            word = "violating" if pt["violates"] else "closest"
            out.append(
                f"  {word} certified trade-off point: alpha <= {pt['alpha']:.4g}, beta <= "
                f"{pt['beta']:.4g}; the profile needs beta >= {pt['claimed_beta']:.4g}"
            )
        out.append(
            f"  read at delta={self.delta:g}: epsilon >= {self.epsilon_lower_bound:.4f} "
            f"(the profile gives epsilon {self.claimed_epsilon:.4g})"
        )
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema_version": SCHEMA_VERSION,
            "mechanism": self.mechanism,
            "claimed_epsilon": self.claimed_epsilon,
            "delta": self.delta,
            "confidence": self.confidence,
            "epsilon_lower_bound": self.epsilon_lower_bound,
            "unbounded_witness": self.unbounded_witness,
            "delta_lower_bound": self.delta_lower_bound,
            "violation": self.violation,
            "verdict": self.verdict,
            "violation_kind": self.violation_kind,
            "violation_kinds": list(self.violation_kinds),
            "float_events": list(self.float_events),
            "detectable_epsilon": finite_or_none(self.detectable_epsilon),
            "hint": self.hint,
            "p_value": self.p_value,
            "witness": None if self.witness is None else self.witness.to_dict(),
            "samples": self.samples,
            "selection_samples": self.selection_samples,
            "certification_samples": self.certification_samples,
            "seed": self.seed,
            "seconds": self.seconds,
            "pairs_searched": self.pairs_searched,
            "events_certified": self.events_certified,
            "reproducible": self.reproducible,
            "stop": self.stop,
            "look": self.look,
            "looks": self.looks,
            "method": self.method,
            "notes": list(self.notes),
            "profile": self.profile,
        }
