"""Jinja2 templates for every report (templates/): HTML with autoescape on, Markdown with the
``md`` filter (HTML escaped, pipes escaped, one line per table cell). Inline SVG figures from
matplotlib are marked safe; everything else a user can put in a result is escaped."""

from __future__ import annotations

import math
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

__all__ = ["render"]


def fmt(x: Any) -> str:
    """A number in 4 significant digits; 'inf' and 'n/a' for infinity and None."""
    if x is None:
        return "n/a"
    if isinstance(x, float) and math.isinf(x):
        return "inf"
    return f"{x:.4g}"


@lru_cache(maxsize=1)
def _environment():
    from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape

    from auditor.reports.html import md_cell, md_code

    env = Environment(
        loader=PackageLoader("auditor.reports", "templates"),
        autoescape=select_autoescape(["html"], default_for_string=False, default=False),
        undefined=StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["md"] = md_cell
    env.filters["code"] = md_code
    env.filters["fmt"] = fmt
    return env


def render(name: str, **context: Any) -> str:
    """Render templates/NAME with the page's CSS, package versions and time stamp."""
    from markupsafe import Markup

    from auditor.reports.html import CSS, versions

    context.setdefault("css", Markup(CSS))
    context.setdefault("versions", versions())
    context.setdefault("stamp", datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"))
    return _environment().get_template(name).render(**context)
