"""`dpaudit demo` writes its whole folder at once: an interrupted demo leaves OUT as it was."""

from __future__ import annotations

import pytest

import auditor.catalogue as catalogue_module
import auditor.reports.demo_audit as demo_audit
import proofs.catalogue as proofs_catalogue
from auditor.cli.main import EXIT_INTERRUPTED, main

ENTRIES = ("rr.alpha_coin", "rr.forced_response")


@pytest.fixture
def small_demo(monkeypatch):
    """The demo over two cheap audits and three theorems."""
    full = catalogue_module.CATALOGUE
    monkeypatch.setattr(catalogue_module, "CATALOGUE", {k: full[k] for k in ENTRIES})
    theorems = proofs_catalogue.catalogue()[:3]
    monkeypatch.setattr(proofs_catalogue, "catalogue", lambda: theorems)


def _tree(folder):
    return {
        p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()
    }


def test_an_interrupted_demo_leaves_the_folder_as_it_was(small_demo, tmp_path, monkeypatch, capsys):
    out = tmp_path / "reports"
    (out / "audits").mkdir(parents=True)
    (out / "index.html").write_text("the user's old index\n")
    (out / "audits" / "rr.alpha_coin.json").write_text("{}\n")
    (out / "notes.txt").write_text("not the demo's\n")
    before = _tree(out)
    real = demo_audit.audit_with_plots
    calls = []

    def interrupted_on_the_second(entry, **kw):
        calls.append(entry)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(entry, **kw)

    monkeypatch.setattr(demo_audit, "audit_with_plots", interrupted_on_the_second)
    assert main(["demo", "--quick", "--out", str(out)]) == EXIT_INTERRUPTED
    assert len(calls) == 2  # the first audit finished and would have been written
    assert _tree(out) == before  # nothing new, nothing half-written, no temporary file left


def test_a_finished_demo_writes_every_file_and_keeps_the_users_own(small_demo, tmp_path, capsys):
    out = tmp_path / "reports"
    out.mkdir()
    (out / "index.html").write_text("old\n")
    (out / "notes.txt").write_text("not the demo's\n")
    main(["demo", "--quick", "--out", str(out)])
    written = set(_tree(out))
    expected = {"index.html", "catalogue.md", "proofs.html", "proofs.md", "notes.txt"}
    expected |= {f"audits/{k}.{ext}" for k in ENTRIES for ext in ("json", "html")}
    assert written == expected
    assert (out / "notes.txt").read_text() == "not the demo's\n"
    assert "rr.forced_response" in (out / "index.html").read_text()


def test_the_audit_lines_keep_one_column_however_long_a_name(tmp_path, monkeypatch, capsys):
    """A name longer than the others (gaussian.vector_per_coordinate is 30 characters) used
    to push its line's columns right of every other line's."""
    full = catalogue_module.CATALOGUE
    long_name = "rr.alpha_coin.a_name_longer_than_any_column_width"
    entries = {"rr.forced_response": full["rr.forced_response"], long_name: full["rr.alpha_coin"]}
    monkeypatch.setattr(catalogue_module, "CATALOGUE", entries)
    theorems = proofs_catalogue.catalogue()[:1]
    monkeypatch.setattr(proofs_catalogue, "catalogue", lambda: theorems)
    main(["demo", "--quick", "--out", str(tmp_path / "reports")])
    lines = [s for s in capsys.readouterr().out.splitlines() if s.startswith("audit ")]
    assert [s.split()[1] for s in lines] == list(entries)
    assert len({s.index(" claimed ") for s in lines}) == 1
    assert len({s.index("  eps_lb ") for s in lines}) == 1
