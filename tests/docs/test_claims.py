"""docs/claims.md: every ```python block runs, and every claim class is documented.

- Each ```python block is executed on its own, in a fresh namespace, and ends with assertions on
  the verdicts, so the page shows what the current code returns.
- A block that defines ``CLAIMS`` is a claims file: it is also run through `dpaudit prove`
  (exit 0 expected), and the ```text block of sample output that follows it, if any, must list
  the same ids and verdicts.
- Every claim class exported by `proofs` (a class with a ``check`` method, or one the dispatcher
  `proofs.claims.check_claim` knows, such as `PureDP`) has a heading containing its name in
  backticks, and an example block in its section that constructs it.
- Every exported name of `proofs` is mentioned in backticks somewhere on the page.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

import proofs
from auditor.cli import main

DOC = Path(__file__).resolve().parents[2] / "docs" / "claims.md"  # tests/docs/<this file>
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*$")
_OUTPUT_LINE = re.compile(r"^(?:ok|!!) (\S+): (\w+)\b")


@dataclass(frozen=True)
class Block:
    index: int
    lang: str
    code: str
    line: int  # 1-based line of the opening fence
    heading: str  # the nearest heading above the block


@dataclass(frozen=True)
class Heading:
    level: int
    text: str
    line: int  # 0-based index into the page's lines


def _parse(text: str) -> tuple[list[Block], list[Heading]]:
    """Fenced blocks and headings of the page; '#' lines inside a fence are not headings."""
    blocks, headings = [], []
    lines = text.splitlines()
    heading, i = "", 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("```"):
            lang, start, body = line[3:].strip(), i, []
            i += 1
            while i < len(lines) and lines[i].strip() != "```":
                body.append(lines[i])
                i += 1
            if i == len(lines):
                raise AssertionError(f"docs/claims.md:{start + 1}: unclosed code fence")
            blocks.append(Block(len(blocks), lang, "\n".join(body) + "\n", start + 1, heading))
        else:
            m = _HEADING.match(line)
            if m:
                heading = m.group(2)
                headings.append(Heading(len(m.group(1)), m.group(2), i))
        i += 1
    return blocks, headings


_BLOCKS, _HEADINGS = _parse(DOC.read_text(encoding="utf-8"))
_PYTHON = [b for b in _BLOCKS if b.lang == "python"]


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "top"


def _block_id(block: Block) -> str:
    return f"{_PYTHON.index(block):02d}-{_slug(block.heading)}"


def _claim_classes() -> list[str]:
    """The exported claim classes (descriptions of claims; Theorem, LinearEstimator and
    NoiseDensity describe parts of claims)."""
    from proofs import claims

    parts = ("Theorem", "LinearEstimator", "NoiseDensity")
    return [name for name in claims.__all__ if name not in parts and name in proofs.__all__]


def test_the_page_has_examples():
    assert len(_PYTHON) >= 20
    assert "PureDP" in _claim_classes() and "Theorem" not in _claim_classes()


@pytest.mark.parametrize("block", _PYTHON, ids=_block_id)
def test_python_block_runs(block: Block, tmp_path):
    code, where = block.code, f"docs/claims.md:block{_PYTHON.index(block)}"
    namespace: dict = {}
    # the page is part of this repository: running its examples is the point of the test
    exec(compile(code, where, "exec"), namespace)
    if "CLAIMS" not in namespace:
        # an example checks its own verdicts: without an assert it would pass whatever it printed
        assert any(isinstance(node, ast.Assert) for node in ast.walk(ast.parse(code))), (
            f"docs/claims.md:{block.line}: the example asserts nothing about its verdicts"
        )
        return
    # a claims file: run it through the command line as a user would
    first = code.splitlines()[0]
    name = (
        first[1:].strip()
        if first.startswith("#") and first.strip().endswith(".py")
        else "claims.py"
    )
    path, out = tmp_path / name, tmp_path / "out.json"
    path.write_text(code, encoding="utf-8")
    assert main(["prove", "--quiet", "--json", str(out), str(path)]) == 0
    got = [(r["id"], r["verdict"]) for r in json.loads(out.read_text())["results"]]
    shown = _BLOCKS[block.index + 1] if block.index + 1 < len(_BLOCKS) else None
    if shown is not None and shown.lang == "text" and shown.code.startswith("$ dpaudit prove"):
        listed = [m.groups() for m in map(_OUTPUT_LINE.match, shown.code.splitlines()) if m]
        assert listed == got, "the sample output after the claims file is out of date"


def _section(name: str) -> tuple[Heading, list[Block]]:
    marker = f"`{name}`"
    matches = [h for h in _HEADINGS if marker in h.text]
    assert matches, f"no heading with {marker} in docs/claims.md"
    head = matches[0]
    later = [h.line for h in _HEADINGS if h.line > head.line and h.level <= head.level]
    end = later[0] if later else float("inf")
    blocks = [b for b in _PYTHON if head.line < b.line - 1 < end]
    return head, blocks


@pytest.mark.parametrize("name", _claim_classes())
def test_claim_class_has_a_section_with_an_example(name: str):
    head, blocks = _section(name)
    uses = re.compile(rf"\b{re.escape(name)}\s*\(")
    assert any(uses.search(b.code) for b in blocks), (
        f"the section '{head.text}' of docs/claims.md has no python example that builds {name}"
    )


def test_every_exported_name_is_mentioned():
    text = DOC.read_text(encoding="utf-8")
    missing = [n for n in proofs.__all__ if not re.search(rf"`{re.escape(n)}\b", text)]
    assert not missing, f"exported by proofs but not on docs/claims.md: {missing}"
