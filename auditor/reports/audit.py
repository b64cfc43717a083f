"""Readable audit reports: self-contained HTML (plots inlined as SVG) and Markdown.

Reports render from the audit's JSON (`AuditResult.to_dict()`, optionally with a ``plots``
entry from :func:`auditor.reports.plots.collect_plot_data`), so `dpaudit report result.json`
re-renders a saved result without running the mechanism again.
"""

from __future__ import annotations

import io
import itertools
import json
import math
from pathlib import Path
from typing import Any

from auditor.engine.result import dataset_words, float_note, ratio_words
from auditor.reports.html import report_kind
from proofs.errors import InputError
from proofs.io import SCHEMA_VERSION, brief, read_json, same_schema, write_files_atomic

__all__ = [
    "audit_html",
    "audit_markdown",
    "load_result",
    "report_kind",
    "verdict_sentence",
    "write_audit_report",
]


def verdict_sentence(d: dict[str, Any]) -> str:
    """The verdict in one sentence, worded so that 'no violation' never reads as 'private'."""
    conf = f"{100 * d['confidence']:g}%"
    if d.get("profile"):
        return _profile_sentence(d, conf)
    claim = f"({d['claimed_epsilon']:g}, {d['delta']:g})-DP"
    lb = d["epsilon_lower_bound"]
    unbounded = (
        " The witness event never occurred under the other dataset: the evidence is "
        "consistent with unbounded privacy loss, or with an output rare under it; the bound "
        "is what is certified."
        if d.get("unbounded_witness")
        else ""
    )
    if d["violation"]:
        kinds = d.get("violation_kinds") or []
        why = ""
        if "float-representation" in kinds:
            notes = float_note(d.get("float_events")).splitlines()
            why = " " + " ".join(note.strip() for note in notes)
            if "distributional" in kinds:
                why += " It also violates the claim as a distribution, not only in its bits."
        return (
            f"Violation: with confidence {conf}, the mechanism's privacy loss on the witness "
            f"pair is at least epsilon = {lb:.4g}, above the claimed {claim}.{unbounded}{why}"
        )
    if d.get("verdict") == "inconclusive":
        detect = d.get("detectable_epsilon")
        return (
            f"Inconclusive: with confidence {conf}, epsilon is at least {lb:.4g}, which does not "
            f"exceed the claimed {claim}; but this audit would only have caught a mechanism with "
            f"epsilon >= {'infinity' if detect is None else format(detect, '.4g')} (with "
            f"probability 1/2). {d.get('hint', '')}"
        )
    return (
        f"No violation found: with confidence {conf}, epsilon is at least {lb:.4g}, which "
        f"does not exceed the claimed {claim}. This is not a proof that the claim holds."
    )


def _profile_sentence(d: dict[str, Any], conf: str) -> str:
    p = d["profile"]
    mu = p.get("mu_lower_bound") or 0.0
    if d["violation"]:
        pt = p["points"][p["most_violated"]]
        return (
            f"Violation of the profile {p['claim']}: with confidence {conf}, a test of the "
            f"witness pair has type I error at most {pt['alpha']:.4g} and type II error at most "
            f"{pt['beta']:.4g}, where the profile allows no less than {pt['claimed_beta']:.4g}. "
            f"The mechanism's GDP mu is at least {mu:.4g}."
        )
    detect = d.get("detectable_epsilon")
    shown = "infinity" if detect is None else format(detect, ".4g")
    if d.get("verdict") == "inconclusive":
        return (
            f"Inconclusive: with confidence {conf}, no certified trade-off point falls below "
            f"the profile {p['claim']}; but this audit would only have caught a mechanism with "
            f"GDP mu >= {shown} (with probability 1/2). {d.get('hint', '')}"
        )
    return (
        f"No violation found: with confidence {conf}, no certified trade-off point falls below "
        f"the profile {p['claim']} (GDP mu is at least {mu:.4g}). This is not a proof that the "
        "claim holds."
    )


def _short(text: str, width: int = 48) -> str:
    """Axis labels stay inside the figure; the full text is in the table above the plots."""
    return text if len(text) <= width else text[: width - 3] + "..."


def _figure():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.2, 3.6), dpi=100)
    return plt, fig, ax


def _legend(ax) -> None:
    """Below the axes, never over a curve or the claim line."""
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2, frameon=False)


def _svg(plt, fig) -> str:
    buf = io.StringIO()
    fig.tight_layout()
    fig.savefig(buf, format="svg", bbox_inches="tight")
    plt.close(fig)
    text = buf.getvalue()
    return text[text.index("<svg") :]


def _plot_outputs(p: dict[str, Any]) -> str:
    plt, fig, ax = _figure()
    if p["kind"] == "score":
        edges = p["edges"]
        centres = [(x + y) / 2 for x, y in itertools.pairwise(edges)]
        width = (edges[1] - edges[0]) if len(edges) > 1 else 1.0
        n = p["samples"]
        ax.step(
            centres, [c / n for c in p["counts_a"]], where="mid", label="dataset A", color="#1f5fa8"
        )
        ax.step(
            centres, [c / n for c in p["counts_b"]], where="mid", label="dataset B", color="#c2410c"
        )
        lo, hi = (float(v) for v in p["event"])
        lo = max(lo, edges[0]) if math.isfinite(lo) else edges[0]
        hi = min(hi, edges[-1]) if math.isfinite(hi) else edges[-1]
        ax.axvspan(lo, hi, color="#999", alpha=0.2, label="witness event")
        ax.set_xlabel(f"score: {_short(p['score'])}  (bin width {width:.3g})")
        ax.set_ylabel("fraction of samples")
    else:
        labels = p["labels"]
        xs = range(len(labels))
        n = p["samples"]
        ax.bar(
            [x - 0.2 for x in xs],
            [c / n for c in p["counts_a"]],
            0.4,
            label="dataset A",
            color="#1f5fa8",
        )
        ax.bar(
            [x + 0.2 for x in xs],
            [c / n for c in p["counts_b"]],
            0.4,
            label="dataset B",
            color="#c2410c",
        )
        for x, marked in zip(xs, p["in_event"]):
            if marked:
                ax.axvspan(x - 0.45, x + 0.45, color="#999", alpha=0.25)
        ax.set_xticks(list(xs), [lab[:14] for lab in labels], rotation=45, ha="right", fontsize=7)
        ax.set_ylabel("fraction of samples")
        ax.set_xlabel("output (witness event shaded)")
    ax.set_title("Output distributions on the witness pair")
    _legend(ax)
    return _svg(plt, fig)


def _plot_loss(p: dict[str, Any]) -> str:
    plt, fig, ax = _figure()
    if p["kind"] == "score":
        ax.plot(
            p["loss_x"],
            p["loss_y"],
            color="#1f5fa8",
            label="eps_lb of {score > t} or {score <= t} (per threshold)",
        )
        ax.set_xlabel(f"threshold t on {_short(p['score'])}")
    else:
        xs = range(len(p["loss_x"]))
        ax.bar(list(xs), p["loss_y"], color="#1f5fa8", label="eps_lb of each output (per output)")
        ax.set_xticks(
            list(xs), [lab[:14] for lab in p["loss_x"]], rotation=45, ha="right", fontsize=7
        )
    ax.axhline(
        p["claimed_epsilon"],
        color="#b91c1c",
        linestyle="--",
        label=f"claimed eps = {p['claimed_epsilon']:g}",
    )
    ax.set_ylabel("epsilon lower bound")
    ax.set_title(f"Empirical privacy loss ({p['samples']} illustration samples per dataset)")
    _legend(ax)
    return _svg(plt, fig)


def _plot_tradeoff(p: dict[str, Any], profile: dict[str, Any] | None = None) -> str:
    plt, fig, ax = _figure()
    t = p["tradeoff"]
    ax.plot(
        t["claimed_alpha"],
        t["claimed_beta"],
        color="#b91c1c",
        linestyle="--",
        label="limit allowed by the claim",
    )
    ax.plot(
        t["alpha"],
        t["beta"],
        color="#1f5fa8",
        marker=".",
        markersize=4,
        linewidth=2,
        zorder=3,
        label="empirical test (type I vs type II)",
    )
    ax.fill_betweenx(t["beta"], t["alpha"], t["alpha_hi"], color="#1f5fa8", alpha=0.15)
    ax.plot(
        t["alpha"], t["beta_lo"], color="#1f5fa8", alpha=0.4, linewidth=0.8, label="confidence band"
    )
    worst = t.get("worst")
    if worst is not None:  # the test that most undercuts the claim: the violation, visibly
        ax.plot(
            [worst["alpha"]],
            [worst["beta"]],
            marker="o",
            markersize=9,
            color="#b91c1c",
            zorder=5,
            linestyle="none",
            label=f"most violating test (beta {worst['gap']:.3g} below the claim)",
        )
    if profile:
        _certified_points(ax, profile)
    ax.set_xlim(-0.02, 1.02)  # curves that hug an axis stay visible
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("type I error alpha (reject A when A is true)")
    ax.set_ylabel("type II error beta")
    ax.set_title("Trade-off curve (f-DP view): a curve below the dashed line violates the claim")
    _legend(ax)
    return _svg(plt, fig)


def _certified_points(ax, profile: dict[str, Any]) -> None:
    """The certified points (alpha, beta) <= (hi, 1 - lo) of a profile audit and their
    mirrors (1 - lo, hi): red where they violate the claim, the most violated one larger."""
    best = profile.get("most_violated")
    labelled: set[bool] = set()
    for k, pt in enumerate(profile.get("points") or []):
        bad = bool(pt["violates"])
        ax.plot(
            [pt["alpha"], pt["beta"]],
            [pt["beta"], pt["alpha"]],
            marker="D",
            markersize=9 if k == best else 6,
            color="#b91c1c" if bad else "#15803d",
            zorder=6,
            linestyle="none",
            label=None
            if bad in labelled
            else "certified point violating the profile (and its mirror)"
            if bad
            else "certified point (and its mirror)",
        )
        labelled.add(bad)


def _plots(d: dict[str, Any]) -> list[tuple[str, str]]:
    """The three figures. Their labels are the mechanism's outputs, drawn as plain text: with
    matplotlib's default a `$` starts maths, and an output such as "$\\alpha_{x$" failed to
    parse (a crash after the audit); a glyph the fonts lack is drawn as a box, not warned of."""
    p = d.get("plots")
    if not p:
        return []
    import warnings

    import matplotlib

    with (
        matplotlib.rc_context({"text.parse_math": False, "text.usetex": False}),
        warnings.catch_warnings(),
    ):
        warnings.filterwarnings("ignore", message=r"Glyph \d+ .*missing from font")
        return [
            ("outputs", _plot_outputs(p)),
            ("loss", _plot_loss(p)),
            ("tradeoff", _plot_tradeoff(p, d.get("profile"))),
        ]


def _facts(d: dict[str, Any]) -> list[tuple[str, str]]:
    w = d.get("witness") or {}
    counts = w.get("counts", {})
    pair = w.get("pair", {})
    return [
        ("mechanism", d.get("mechanism", "")),
        *_claim_facts(d),
        (
            "verdict",
            str(d.get("verdict") or ("violation" if d["violation"] else "no violation found"))
            + (f" ({', '.join(d['violation_kinds'])})" if d.get("violation_kinds") else ""),
        ),
        (
            "detectable epsilon" if not d.get("profile") else "detectable GDP mu",
            "infinity"
            if d.get("detectable_epsilon") is None
            else f"{d['detectable_epsilon']:.4g} (certified above the claim with probability "
            "1/2 at this sample size)",
        ),
        (
            "certified epsilon lower bound",
            f"{d['epsilon_lower_bound']:.6g} at confidence {d['confidence']:g}"
            + (f" (at delta = {d['delta']:g})" if d.get("profile") else ""),
        ),
        *([] if d.get("profile") else [("delta needed at the claimed epsilon", _delta_needed(d))]),
        ("p-value of the claim", f"{d['p_value']:.4g}"),
        (
            "witness pair",
            f"A = {dataset_words(pair.get('a'), render=json.dumps)}, "
            f"B = {dataset_words(pair.get('b'), render=json.dumps)}"
            f" ({pair.get('label', '')})",
        ),
        ("witness event", str(w.get("event", "none"))),
        ("direction", str(w.get("direction", ""))),
        (
            "certification counts",
            f"{counts.get('numerator')} vs {counts.get('denominator')} "
            f"of {counts.get('samples_each')} fresh samples each",
        ),
        *([("joint ratio bound", ratio_words(w["ratio_bound"]))] if w.get("ratio_bound") else []),
        (
            "samples per dataset",
            f"{d['samples']} ({d.get('selection_samples')} selection + "
            f"{d.get('certification_samples')} certification)",
        ),
        (
            "pairs searched / events certified",
            f"{d.get('pairs_searched')} / {d.get('events_certified')}",
        ),
        ("seed", str(d.get("seed"))),
        (
            "reproducible",
            "yes: the mechanism draws from the audit's seeded generators"
            if d.get("reproducible", True)
            else "no: the mechanism takes no rng, so a rerun with the same seed may differ",
        ),
        (
            "stopped",
            f"look {d.get('look', 1)} of {d.get('looks', 1)} ({d.get('stop', 'complete')})",
        ),
        ("method", d.get("method", "")),
        ("seconds", f"{d.get('seconds', 0):.2f}"),
    ]


def _claim_facts(d: dict[str, Any]) -> list[tuple[str, str]]:
    p = d.get("profile")
    if not p:
        return [("claim", f"epsilon = {d['claimed_epsilon']:g}, delta = {d['delta']:g}")]
    out = [
        (
            "claim",
            f"profile {p['claim']}"
            + ("" if p.get("claimed_mu") is None else f" (GDP mu = {p['claimed_mu']:.4g})")
            + f"; epsilon = {d['claimed_epsilon']:.4g} at delta = {d['delta']:g}",
        ),
        (
            "certified GDP mu lower bound",
            f"{p.get('mu_lower_bound') or 0:.6g} at confidence {d['confidence']:g}",
        ),
    ]
    if p.get("most_violated") is not None:
        pt = p["points"][p["most_violated"]]
        out.append(
            (
                "most violated certified point" if pt["violates"] else "closest certified point",
                f"alpha <= {pt['alpha']:.4g}, beta <= {pt['beta']:.4g}; the profile needs "
                f"beta >= {pt['claimed_beta']:.4g} ({pt['event']})",
            )
        )
    return out


def audit_html(d: dict[str, Any], title: str | None = None) -> str:
    from markupsafe import Markup

    from auditor.reports.templating import render

    return render(
        "audit.html",
        title=title or f"dpaudit audit: {d.get('mechanism', '')}",
        d=d,
        verdict=verdict_sentence(d),
        facts=_facts(d),
        figures=[Markup(svg) for _name, svg in _plots(d)],  # matplotlib's own SVG
    )


def audit_markdown(
    d: dict[str, Any], title: str | None = None, figure_links: list[str] | None = None
) -> str:
    from auditor.reports.templating import render

    return render(
        "audit.md",
        title=title or f"dpaudit audit: {d.get('mechanism', '')}",
        verdict=verdict_sentence(d),
        facts=_facts(d),
        figure_links=figure_links or [],
    )


def audit_report_files(d: dict[str, Any], path: str) -> dict[Path, str]:
    """The files of an HTML or Markdown report, by path (Markdown gets its SVG plots as files
    beside it)."""
    target = Path(path)
    if report_kind(path) == "html":
        return {target: audit_html(d)}
    files = {target.with_name(f"{target.stem}.{name}.svg"): svg for name, svg in _plots(d)}
    files[target] = audit_markdown(d, figure_links=[p.name for p in files])
    return files


PLOT_NAMES = ("outputs", "loss", "tradeoff")


def report_outputs(path: str | None) -> dict[str, Any]:
    """Every file a report at ``path`` may write, by flag (a Markdown report's plots are SVG
    files beside it), for :func:`proofs.io.check_outputs`."""
    if not path:
        return {"report": path}
    target = Path(path)
    plots = (
        {}
        if report_kind(path) == "html"
        else {
            f"the --report's {name} plot": target.with_name(f"{target.stem}.{name}.svg")
            for name in PLOT_NAMES
        }
    )
    return {"report": path, **plots}


def write_audit_report(d: dict[str, Any], path: str) -> None:
    """Write an HTML or Markdown report, all its files at once (atomically)."""
    write_files_atomic(audit_report_files(d, path))


def load_result(path: str) -> dict[str, Any]:
    """Read a saved `dpaudit audit --json` output, with one-line errors."""
    try:
        d = read_json(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(
            f"result {path!r} does not exist; give a file written by `dpaudit audit --json`."
        ) from None
    except (OSError, ValueError) as exc:  # (JSONDecodeError and UnicodeDecodeError included)
        raise InputError(
            f"result {path!r} is not readable JSON ({exc}); give a file written "
            "by `dpaudit audit --json`."
        ) from None
    needed = (
        "claimed_epsilon",
        "delta",
        "confidence",
        "epsilon_lower_bound",
        "violation",
        "p_value",
        "samples",
        "delta_lower_bound",
    )
    missing = [k for k in needed if not isinstance(d, dict) or k not in d]
    version = d.get("schema_version") if isinstance(d, dict) else None
    if not missing and not same_schema(version):  # (replay refuses it too)
        raise InputError(
            f"result {path!r} has schema_version={version!r}, not {SCHEMA_VERSION!r} (written by "
            "another dpaudit); rerun the audit with this one, or render it with that one."
        )
    if missing:
        raise InputError(
            f"result {path!r} lacks {', '.join(missing)}; it is not a "
            "`dpaudit audit --json` output."
        )
    for key in needed:
        value = d[key]
        ok = (
            isinstance(value, bool)
            if key == "violation"
            else (isinstance(value, (int, float)) and not isinstance(value, bool))
        )
        if not ok:
            raise InputError(
                f"result {path!r} has {key}={value!r}, which is not a "
                f"{'boolean' if key == 'violation' else 'number'}; it is not a `dpaudit audit "
                "--json` output."
            )
    if not isinstance(d.get("witness"), (dict, type(None))):
        raise InputError(f"result {path!r} has a witness that is not an object or null.")
    _check_ranges(d, path)
    _check_schema(d, path)
    return d


def _check_schema(d: dict[str, Any], path: str) -> None:
    """The whole file against the schema an audit's output follows: a hand-edited field
    (delta 1, a negative seed, an unknown event) is refused here as replay refuses it."""
    import json
    from importlib import resources

    import jsonschema

    text = resources.files("auditor").joinpath("schemas/audit.schema.json").read_text("utf-8")
    error = jsonschema.exceptions.best_match(
        jsonschema.Draft202012Validator(json.loads(text)).iter_errors(d)
    )
    if error is not None:
        where = "/".join(str(p) for p in error.absolute_path) or "the top level"
        raise InputError(
            f"result {path!r} does not follow the audit output's schema at {where} "
            f"({brief(error.message, 160)}); give an unedited file written by `dpaudit audit "
            "--json`."
        )


# what an audit writes (auditor/schemas/audit.schema.json): a hand-edited value outside is
# refused, not rendered ("with confidence 200%")
_RANGES = {
    "claimed_epsilon": (0.0, math.inf),
    "delta": (0.0, 1.0),
    "confidence": (0.5, 1.0),
    "epsilon_lower_bound": (0.0, math.inf),
    "p_value": (0.0, 1.0),
    "samples": (1, math.inf),
    "delta_lower_bound": (0.0, 1.0),
}


def _delta_needed(d: dict[str, Any]) -> str:
    """As :meth:`AuditResult.delta_needed`: a pure claim refuted by the ratio bound needs a
    delta > 0 even where the separate bounds give none."""
    if d.get("violation") and d.get("delta") == 0 and d["delta_lower_bound"] <= 0:
        return "> 0 (shown by the ratio bound; the separate bounds give no figure)"
    return f">= {d['delta_lower_bound']:.4g}"


def _check_ranges(d: dict[str, Any], path: str) -> None:
    for key, (lo, hi) in _RANGES.items():
        value = d[key]
        if not (math.isfinite(value) or (key == "claimed_epsilon" and value == math.inf)):
            raise InputError(f"result {path!r} has {key}={value!r}, which is not finite.")
        if not lo <= value <= hi or (key == "confidence" and value == 1):
            raise InputError(
                f"result {path!r} has {key}={value!r}, outside [{lo:g}, {hi:g}]; no audit writes "
                "that."
            )
    verdict = d.get("verdict")
    if verdict is not None and (verdict == "violation") != d["violation"]:
        raise InputError(
            f"result {path!r} has verdict={verdict!r} but violation={d['violation']!r}; no "
            "audit writes that."
        )
