"""The Obsidian export: Spaced Repetition plugin syntax, Obsidian math, and schedules kept on rebuild."""

from __future__ import annotations

import re

from deck_helpers import engine_problem
from quizgen.export.obsidian import md, write_obsidian
from quizgen.recipes import plan_slots, recipe_from_dict


def recipe(**changes):
    data = {"name": "obs", "cells": ["OCC-1", "OCC-3", "L-6"], "per_cell": 2, "levels": [1, 2],
            "seed": 3}
    data.update(changes)
    return recipe_from_dict(data)


def cards_of(text: str) -> list[list[str]]:
    """Split a note the way the plugin does: blank lines end cards; keep blocks with a card."""
    blocks = [b.splitlines() for b in text.split("\n\n")]
    return [b for b in blocks if "?" in b or any(":::" in line for line in b)]


def test_one_note_per_cell_with_deck_tags(tmp_path):
    r = recipe()
    summary = write_obsidian(r, tmp_path, problems_for=engine_problem)
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["Formulas.md", "L-6.md", "OCC-1.md", "OCC-3.md"]
    assert summary.notes == 4 and summary.cells == 3
    for cell in ("OCC-1", "OCC-3", "L-6"):
        text = (tmp_path / f"{cell}.md").read_text()
        assert f"#flashcards/quizgen/{cell}\n" in text
        assert len(cards_of(text)) == r.per_cell * len(r.levels)
    total = sum(len(cards_of(p.read_text())) for p in tmp_path.iterdir())
    assert total == summary.cards > len(plan_slots(r))


def test_card_syntax_and_math(tmp_path):
    write_obsidian(recipe(), tmp_path, problems_for=engine_problem)
    occ = (tmp_path / "OCC-1.md").read_text()
    for card in cards_of(occ):
        assert card.count("?") == 1                      # exactly one separator line
        assert all(line.strip() for line in card)        # no blank line inside a card
        assert re.fullmatch(r"%%qz:[0-9a-f]{12}%%", card[-1])
    assert "\\(" not in occ and "\\[" not in occ        # Obsidian math, not Anki's
    assert "$\\left\\lfloor" in occ
    body = re.sub(r"\$\$.*?\$\$", "", occ)
    assert body.count("$") % 2 == 0
    assert "\\<launch\\>" in occ and "<launch>" not in occ
    assert "**" not in occ and "==" not in occ          # would become clozes in the plugin
    concept = (tmp_path / "L-6.md").read_text()
    recall = [line for line in concept.splitlines() if ":::" in line]
    assert len(recall) == 4 and all(line.count(":::") == 1 for line in recall)
    formulas = (tmp_path / "Formulas.md").read_text()
    assert "$$\\left\\lfloor{\\frac{R_{SM}}{T r}}\\right\\rfloor$$" in formulas


def test_both_languages_get_their_own_notes(tmp_path):
    write_obsidian(recipe(lang="both", cells=["OCC-1"], levels=[1]), tmp_path,
                   problems_for=engine_problem)
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "Formulas.en.md", "Formulas.hinglish.md", "OCC-1.en.md", "OCC-1.hinglish.md"]
    assert "Yeh step kyun?" in (tmp_path / "OCC-1.hinglish.md").read_text()
    assert "Why this step?" in (tmp_path / "OCC-1.en.md").read_text()


def test_rebuild_keeps_the_plugins_schedule(tmp_path):
    r = recipe()
    write_obsidian(r, tmp_path, problems_for=engine_problem)
    occ, concept = tmp_path / "OCC-1.md", tmp_path / "L-6.md"
    # What the plugin writes after a review: a comment after the card (same line for one-liners).
    first = occ.read_text()
    marker = re.findall(r"%%qz:[0-9a-f]{12}%%", first)[1]
    occ.write_text(first.replace(marker, marker + "\n<!--SR:!2027-01-05,4,270-->", 1))
    line = next(l for l in concept.read_text().splitlines() if ":::" in l)
    concept.write_text(concept.read_text().replace(line, line + " <!--SR:!2027-02-01,9,250-->"))

    def changed(cell, **kwargs):
        problem = engine_problem(cell, **kwargs)
        problem.solution.trap = "Revised trap."
        return problem

    write_obsidian(r, tmp_path, problems_for=changed)
    again = occ.read_text()
    assert "Revised trap." in again
    assert again.count("<!--SR:") == 1
    assert marker + "\n<!--SR:!2027-01-05,4,270-->" in again
    assert concept.read_text().count("<!--SR:!2027-02-01,9,250-->") == 1


def test_markdown_escaping():
    assert md("a * b_c [x] <y> #tag $5") == r"a \* b\_c \[x\] \<y\> \#tag \$5"
    assert md("x::y == z") == r"x:\:y =\= z"
    assert md("Q\n\n?\nA") == "Q\n\\?\nA"
