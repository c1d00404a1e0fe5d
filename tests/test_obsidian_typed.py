"""A student's own text in a quizgen note survives a re-export: the export refuses with one line
naming the note and the line (nothing changed), or with --force keeps the note as NAME.kept;
the plugin's schedules alone never stop it. Run as a user runs it."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from quizgen.export.obsidian_typed import typed_line

RECIPE = """name = "typed"
title = "Typed"
deck = "quizgen::Typed"
cells = ["OCC-1", "L-6"]
per_cell = 2
levels = [1]
lang = "en"
seed = 5
kinds = ["numeric", "mcq", "cloze"]
"""


def _export(folder, *extra):
    return subprocess.run([sys.executable, "-m", "quizgen", "deck", "typed.toml", "--format",
                           "obsidian", "--out", "vault", "-q", *extra], cwd=folder,
                          capture_output=True, text=True, timeout=300)


@pytest.fixture
def vault(tmp_path):
    (tmp_path / "typed.toml").write_text(RECIPE, encoding="utf-8")
    done = _export(tmp_path)
    assert done.returncode == 0, done.stderr
    note = tmp_path / "vault" / "OCC-1.en.md"
    text = note.read_text(encoding="utf-8")
    markers = re.findall(r"%%qz:[0-9a-f]+%%", text)
    assert len(markers) >= 2
    # the plugin has reviewed two cards: one schedule on the next line, one in a callout
    text = text.replace(markers[0], markers[0] + "\n<!--SR:!2027-03-03,5,230-->", 1)
    text = text.replace(markers[1], markers[1] + "\n> [!sr|card-metadata]\n> <!--SR:!2027-04-04,6,250-->", 1)
    note.write_text(text, encoding="utf-8")
    assert typed_line(text) is None
    return tmp_path, note, markers


def _typed(text: str, markers: list[str], how: str) -> tuple[str, str]:
    """`text` with a student's edit of kind `how`, and the line they typed."""
    if how == "remark under a card":
        line = "My remark: registers bind first here!"
        return text.replace(markers[0] + "\n<!--SR:!2027-03-03,5,230-->",
                            markers[0] + "\n<!--SR:!2027-03-03,5,230-->\n\n" + line, 1), line
    if how == "text after a schedule":
        line = "<!--SR:!2027-03-03,5,230--> (asked in the quiz)"
        return text.replace("<!--SR:!2027-03-03,5,230-->", line, 1), line
    if how == "broken schedule comment":
        line = "<!--SR:!2027-03-03,5,230"
        return text.replace("<!--SR:!2027-03-03,5,230-->", line, 1), line
    if how == "broken callout":
        line = "> [!sr|card-metadata]"
        return text.replace("> <!--SR:!2027-04-04,6,250-->", "> due in April", 1), line
    raise AssertionError(how)


HOWS = ["remark under a card", "text after a schedule", "broken schedule comment",
        "broken callout"]


@pytest.mark.parametrize("how", HOWS)
def test_typed_text_is_refused_with_one_line_naming_the_note_and_line(vault, how):
    folder, note, markers = vault
    text, line = _typed(note.read_text(encoding="utf-8"), markers, how)
    note.write_text(text, encoding="utf-8")
    before = {p.name: p.read_bytes() for p in note.parent.iterdir() if p.is_file()}
    done = _export(folder)
    assert done.returncode == 2, done.stderr
    said = done.stderr.strip()
    assert len(said.splitlines()) == 1 and "Traceback" not in said
    number = text.split("\n").index(line) + 1
    assert f"OCC-1.en.md line {number}" in said, said
    assert "--force" in said
    assert {p.name: p.read_bytes() for p in note.parent.iterdir() if p.is_file()} == before


@pytest.mark.parametrize("how", HOWS[:2])
def test_with_force_the_typed_note_is_kept_and_the_schedules_carried(vault, how):
    folder, note, markers = vault
    text, line = _typed(note.read_text(encoding="utf-8"), markers, how)
    note.write_text(text, encoding="utf-8")
    done = _export(folder, "--force")
    assert done.returncode == 0, done.stderr
    kept = note.with_name("OCC-1.en.md.kept")
    assert kept.read_text(encoding="utf-8") == text          # nothing the student typed is lost
    assert "kept as OCC-1.en.md.kept" in done.stderr
    again = note.read_text(encoding="utf-8")
    assert "<!--SR:!2027-03-03,5,230-->" in again and "<!--SR:!2027-04-04,6,250-->" in again
    assert line not in again or how == "text after a schedule"


def test_schedules_alone_never_stop_a_re_export(vault):
    folder, note, _ = vault
    before = note.read_text(encoding="utf-8")
    done = _export(folder)
    assert done.returncode == 0, done.stderr
    assert note.read_text(encoding="utf-8") == before       # the same cards, schedules kept
    assert not list(note.parent.glob("*.kept"))
