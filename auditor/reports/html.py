"""Self-contained report pages: escaped text, inline SVG, no network fetches."""

from __future__ import annotations

import html
import importlib.metadata
import platform
import re
from pathlib import Path

from proofs.errors import InputError

__all__ = ["CSS", "esc", "md_cell", "md_code", "page", "report_kind", "versions"]

_PACKAGES = ("dpaudit", "numpy", "scipy", "sympy", "z3-solver", "python-flint", "matplotlib")

CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2rem auto;
max-width:1100px;padding:0 1rem;color:#1d1d1f;line-height:1.45}
h1{font-size:1.6rem;margin-bottom:.2rem}
h2{font-size:1.2rem;margin-top:2rem;border-bottom:1px solid #ddd}
table{border-collapse:collapse;width:100%;font-size:.9rem}
th,td{border:1px solid #ddd;padding:.35rem .5rem;text-align:left;vertical-align:top}
th{background:#f5f5f7}code{font-size:.85rem}
.verdict{font-weight:600;padding:.1rem .45rem;border-radius:.3rem;white-space:nowrap}
.proved,.certified,.pass{background:#e3f6e8;color:#11632b}.refuted,.violation{background:#fde8e8;color:#9b1c1c}
.unknown,.checked,.inconclusive{background:#fff4d6;color:#7a5200}.error{background:#eee;color:#333}
.missed{background:#b91c1c;color:#fff}
td.id{max-width:13rem;overflow-wrap:anywhere}
.unexpected{outline:2px solid #9b1c1c}
.lead{font-size:1.1rem;margin:1rem 0;padding:.8rem 1rem;border-left:4px solid #888;
background:#fafafa}
.violation-lead{border-left-color:#b91c1c;background:#fdf2f2}.pass-lead{border-left-color:#15803d}
.small{font-size:.8rem;color:#555}figure{margin:1rem 0}svg{max-width:100%;height:auto}
"""


def esc(value) -> str:
    """HTML-escape any value (user text: mechanism names, statements, counterexamples)."""
    return html.escape(str(value), quote=True)


# (an underscore inside a word starts no emphasis, so noisy_hist2 stays as it is)
_MD_SPECIALS = re.compile(r"([\\`*\[\]~|]|(?<![0-9A-Za-z])_|_(?![0-9A-Za-z]))")


def report_kind(path: str) -> str:
    """'html' or 'md' from the suffix of a report path (an InputError for anything else; a
    report needs a name that says which, so not `-`: a FIFO so named works)."""
    suffix = Path(path).suffix.lower()
    if suffix not in (".html", ".htm", ".md"):
        raise InputError(f"--report {path!r} must end in .html or .md; choose one of them.")
    return "md" if suffix == ".md" else "html"


def md_cell(value) -> str:
    """Markdown text shown as written, in a table cell or a line: the characters that would
    start emphasis, code, a link or strikethrough, and the table's pipes, backslash-escaped;
    HTML escaped (Markdown passes raw HTML through); newlines flattened."""
    text = _MD_SPECIALS.sub(r"\\\1", str(value).replace("\n", " "))
    return html.escape(text, quote=False)


def md_code(value, table: bool = True) -> str:
    """A Markdown code span shown as written: fenced by more backticks than any run inside
    it; no entity escaping (a code span shows `&lt;` as is); in a table cell (``table``)
    pipes escaped (GFM removes that backslash there, and shows it anywhere else)."""
    text = str(value).replace("\n", " ")
    if table:
        text = text.replace("|", "\\|")
    fence = "`" * (max((len(r) for r in re.findall("`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for name in _PACKAGES:
        try:
            out[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out


def page(title: str, body: str) -> str:
    """A complete HTML document around `body` (already escaped HTML), nothing fetched from the
    network: the template page.html with an inline body."""
    from markupsafe import Markup

    from auditor.reports.templating import render

    return render("inline.html", title=title, body=Markup(body))
