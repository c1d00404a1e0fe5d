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
    return [b for b in blocks if "?" in b or any("::" in line for line in b)]


def test_one_note_per_cell_with_deck_tags(tmp_path):
    r = recipe()
    summary = write_obsidian(r, tmp_path, problems_for=engine_problem)
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["Formulas.hinglish.md", "L-6.hinglish.md", "OCC-1.hinglish.md",
                     "OCC-3.hinglish.md"]
    assert summary.notes == 4 and summary.cells == 3
    for cell in ("OCC-1", "OCC-3", "L-6"):
        text = (tmp_path / f"{cell}.hinglish.md").read_text()
        assert f"#flashcards/quizgen/hinglish/{cell}\n" in text
        assert len(cards_of(text)) == r.per_cell * len(r.levels)
    total = sum(len(cards_of(p.read_text())) for p in tmp_path.iterdir())
    assert total == summary.cards > len(plan_slots(r))


def test_card_syntax_and_math(tmp_path):
    write_obsidian(recipe(), tmp_path, problems_for=engine_problem)
    occ = (tmp_path / "OCC-1.hinglish.md").read_text()
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
    concept = (tmp_path / "L-6.hinglish.md").read_text()
    assert ":::" not in concept                          # never the reversed form
    for card in cards_of(concept):                       # answer, labelled trap, reasons
        assert card[1] == "?" and card[2].startswith("Answer: ") and card[3].startswith("Trap: ")
    assert not re.search(r"\d (fraction|text|ratio|limiter)\b", occ)   # no internal words
    formulas = (tmp_path / "Formulas.hinglish.md").read_text()
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
    occ, concept = tmp_path / "OCC-1.hinglish.md", tmp_path / "L-6.hinglish.md"
    # What the plugin writes after a review: a comment after the card (same line for one-liners).
    first = occ.read_text()
    marker = re.findall(r"%%qz:[0-9a-f]{12}%%", first)[1]
    occ.write_text(first.replace(marker, marker + "\n<!--SR:!2027-01-05,4,270-->", 1))
    cmark = re.findall(r"%%qz:[0-9a-f]{12}%%", concept.read_text())[0]
    concept.write_text(concept.read_text().replace(cmark, cmark + "\n<!--SR:!2027-02-01,9,250-->"))

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


def test_round_trip_keeps_every_schedule_and_languages_apart(tmp_path):
    """Export, review every card (the plugin's comments), export again: every schedule kept;
    an English export beside it has its own files and leaves the Hinglish schedules alone."""
    r = recipe(cells=["OCC-1", "L-6"], levels=[1, 2])
    write_obsidian(r, tmp_path, problems_for=engine_problem)
    given = {}
    for n, path in enumerate(sorted(tmp_path.glob("*.md"))):
        text = path.read_text()
        for k, marker in enumerate(re.findall(r"%%qz:[0-9a-f]{12}%%", text)):
            comment = f"<!--SR:!2027-0{1 + n}-{10 + k},{k + 1},250-->"
            given[marker] = comment
            text = text.replace(marker, marker + "\n" + comment)
        path.write_text(text)
    assert len(given) >= 8
    write_obsidian(r, tmp_path, problems_for=engine_problem)
    write_obsidian(recipe(cells=["OCC-1", "L-6"], levels=[1, 2], lang="en"), tmp_path,
                   problems_for=engine_problem)
    names = sorted(p.name for p in tmp_path.iterdir())
    assert "OCC-1.en.md" in names and "OCC-1.hinglish.md" in names
    kept = "".join((tmp_path / n).read_text() for n in names if ".hinglish." in n)
    for marker, comment in given.items():
        assert kept.count(marker + "\n" + comment) == 1, marker
    assert kept.count("<!--SR:") == len(given)
    assert "<!--SR:" not in "".join((tmp_path / n).read_text() for n in names if ".en." in n)


def test_old_file_names_and_ids_hand_their_schedules_over(tmp_path):
    """A vault written by the earlier layout (OCC-1.md, ids from the deck's slots) keeps its
    schedules in the new files."""
    import genanki

    from quizgen.export import anki as A
    from quizgen.export.obsidian import card_id

    r = recipe(cells=["OCC-1"], levels=[1])
    items = [i for i in A.deck_items(r, problems_for=engine_problem) if i.kind]
    old = card_id(genanki.guid_for(*items[0].slot.key(r), items[0].kind))
    (tmp_path / "OCC-1.md").write_text("---\nquizgen-recipe: obs\nquizgen-seed: 3\n---\n"
                                       f"Q\n?\nA\n%%qz:{old}%%\n<!--SR:!2027-03-03,5,230-->\n")
    write_obsidian(r, tmp_path, problems_for=engine_problem)
    assert "<!--SR:!2027-03-03,5,230-->" in (tmp_path / "OCC-1.hinglish.md").read_text()


def test_earlier_file_names_are_migrated_not_doubled(tmp_path):
    """A vault of the earlier layout (L-6.md, no language in the name) re-exported: each old
    note's schedules move into L-6.hinglish.md and the old note goes, so no card stands twice;
    the user's own notes and a quizgen note of another language (an English OCC-1.md) stay."""
    import shutil

    r = recipe(cells=["OCC-1", "L-6"], levels=[1])
    write_obsidian(r, tmp_path / "hi", problems_for=engine_problem)
    write_obsidian(recipe(cells=["OCC-1"], levels=[1], lang="en"), tmp_path / "en",
                   problems_for=engine_problem)
    given = {}
    for path in [tmp_path / "hi" / "L-6.hinglish.md", tmp_path / "hi" / "Formulas.hinglish.md",
                 tmp_path / "en" / "OCC-1.en.md"]:
        text = path.read_text()
        for k, marker in enumerate(re.findall(r"%%qz:[0-9a-f]{12}%%", text)):
            given[marker] = f"<!--SR:!2027-04-{10 + k},{k + 2},250-->"
            text = text.replace(marker, marker + "\n" + given[marker])
        # the earlier layout: no language in the file name or the deck tag
        old = tmp_path / path.name.replace(".hinglish", "").replace(".en", "")
        old.write_text(text.replace("/hinglish/", "/").replace("/en/", "/"))
    shutil.rmtree(tmp_path / "hi")
    shutil.rmtree(tmp_path / "en")
    english = (tmp_path / "OCC-1.md").read_text()
    mine = "# My notes on OCC-1\n" + next(iter(given)) + "\n"
    (tmp_path / "mine.md").write_text(mine)
    (tmp_path / "OCC-9.md").write_text("---\ntitle: my own\n---\nnot quizgen's\n")

    summary = write_obsidian(r, tmp_path, problems_for=engine_problem, force=True)
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["Formulas.hinglish.md", "L-6.hinglish.md", "OCC-1.hinglish.md",
                     "OCC-1.md", "OCC-9.md", "mine.md"]
    assert sorted(summary.replaced) == ["Formulas.md", "L-6.md"]
    kept = "".join((tmp_path / n).read_text() for n in names if ".hinglish." in n)
    hinglish = {m: c for m, c in given.items() if m not in english}
    assert len(hinglish) >= 4
    for marker, comment in hinglish.items():
        assert kept.count(marker) == 1 and kept.count(marker + "\n" + comment) == 1, marker
    assert (tmp_path / "OCC-1.md").read_text() == english
    assert (tmp_path / "mine.md").read_text() == mine
    assert (tmp_path / "OCC-9.md").read_text().endswith("not quizgen's\n")

    # the English export takes its own earlier note over the same way
    summary = write_obsidian(recipe(cells=["OCC-1"], levels=[1], lang="en"), tmp_path,
                             problems_for=engine_problem, force=True)
    assert summary.replaced == ("OCC-1.md",)
    assert not (tmp_path / "OCC-1.md").exists()
    moved = (tmp_path / "OCC-1.en.md").read_text()
    for marker, comment in given.items():
        if marker in english:
            assert moved.count(marker + "\n" + comment) == 1, marker


def test_a_note_in_both_layouts_keeps_the_new_notes_schedule(tmp_path):
    """A vault already doubled (OCC-1.md beside OCC-1.hinglish.md, both reviewed): the note
    named with its language wins, the old one goes."""
    r = recipe(cells=["OCC-1"], levels=[1])
    write_obsidian(r, tmp_path, problems_for=engine_problem)
    new = tmp_path / "OCC-1.hinglish.md"
    marker = re.findall(r"%%qz:[0-9a-f]{12}%%", new.read_text())[0]
    text = new.read_text()
    new.write_text(text.replace(marker, marker + "\n<!--SR:!2027-05-05,9,270-->"))
    (tmp_path / "OCC-1.md").write_text(text.replace(marker, marker + "\n<!--SR:!2027-01-01,1,230-->"))
    write_obsidian(r, tmp_path, problems_for=engine_problem)
    assert not (tmp_path / "OCC-1.md").exists()
    assert marker + "\n<!--SR:!2027-05-05,9,270-->" in new.read_text()
    assert "2027-01-01" not in new.read_text()


def test_rebuild_keeps_callout_and_same_line_schedules_when_the_text_changes(tmp_path):
    """The plugin's other two forms (see test_obsidian_plugin.py for the model they come from):
    the metadata callout (first review: header with a trailing space, ``>  `` before the comment;
    later reviews of a multi-line card: no trailing space, ``> ``) and the same-line comment;
    each card keeps its own through a rebuild whose text changed."""
    r = recipe()
    write_obsidian(r, tmp_path, problems_for=engine_problem)
    occ = tmp_path / "OCC-1.hinglish.md"
    text = occ.read_text()
    m1, m2, m3 = re.findall(r"%%qz:[0-9a-f]{12}%%", text)[:3]
    forms = {m1: "\n> [!sr|card-metadata] \n>  <!--SR:!2027-01-05,4,270-->",
             m2: "\n> [!sr|card-metadata]\n> <!--SR:!2027-02-06,9,250-->",
             m3: " <!--SR:!2027-03-07,2,230-->"}
    for marker, form in forms.items():
        text = text.replace(marker, marker + form)
    occ.write_text(text)

    def changed(cell, **kwargs):
        problem = engine_problem(cell, **kwargs)
        problem.solution.trap = "Revised trap."
        return problem

    write_obsidian(r, tmp_path, problems_for=changed)
    again = occ.read_text()
    assert "Revised trap." in again and again.count("<!--SR:") == 3
    for marker, form in forms.items():
        assert again.count(marker + form) == 1, marker
    assert again.count("[!sr|card-metadata]") == 2
