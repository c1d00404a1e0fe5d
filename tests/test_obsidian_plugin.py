"""The Obsidian export read and reviewed by a model of the Spaced Repetition plugin (1.15.x).

The model follows the plugin's own code (st3v3nmw/obsidian-spaced-repetition):
- `parse` is ``parse()`` of src/parser.ts: a blank line ends a card; a line holding ``::``
  (outside inline code) is a single-line card that takes the next line when it starts with
  ``<!--SR:``, or the ``> [!sr|card-metadata]`` callout through its line holding ``<!--SR:``;
  a line that is only ``?`` makes the paragraph a multi-line card (its front not empty); a fenced
  code block is read whole; a line starting ``<!--`` (not ``<!--SR:``) is skipped through ``-->``;
  a multi-line card with nothing after its ``?`` is dropped. The note's front matter is not
  parsed (the plugin parses the text after it; here its lines are blanked so line numbers hold).
- `schedule_of` is NotesDataStore.createSchedule's ``/<!--SR:(.+?)-->/m`` over the card's text.
- `format_for_note` is Question.formatForNote (src/data/data-structures/card/questions/
  question.ts) for a card without a block id: the question text without its schedule
  (NotesDataStore.removeScheduleInfo, ``/<!--SR:.+-->/gm`` → ""), trimmed at the end; with
  "use callouts for scheduling comments" on and no callout yet, ``\\n> [!sr|card-metadata] \\n> ``
  is added; then the separator (a space on the same line, or with a callout; else a newline;
  a newline when the question ends with a code fence) and the schedule comment.
- `review` writes that text in place of the card's original text (Question.
  updateQuestionWithinNoteText through MultiLineTextFinder.findAndReplace: the first run of
  note lines equal to the card's lines, whitespace at their ends aside; the parser keeps a
  multi-line card's lines trimmed at the end, so the callout header's trailing space goes).
- `migrate_to_callouts` is NoteDataFileModifier.migrateCommentsToCalloutsInFile
  (src/data/data-store/notes-data-store/note-data-file-modifier.ts): every line holding
  ``<!--SR:!`` that does not start ``> <!--SR:`` becomes ``> [!sr|card-metadata]`` and ``> `` + the
  whole line.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

import pytest

from quizgen.export.obsidian import FIGURE_DIR, write_obsidian
from quizgen.recipes import recipe_from_dict

SR_METADATA_CALLOUT = "> [!sr|card-metadata]"
CLOZE = [re.compile(r"==.+?=="), re.compile(r"\*\*.+?\*\*")]     # the default cloze patterns on


@dataclass
class Card:
    kind: str          # "single", "single-reversed", "multi", "multi-reversed", "cloze"
    text: str          # as the plugin holds it (its schedule included)
    first: int
    last: int


def _inside_code(text: str, marker: str, at: int) -> bool:
    return text[:at].count("`") % 2 == 1 and text[at + len(marker):].count("`") % 2 == 1


def _has_inline_marker(text: str, marker: str) -> bool:
    at = text.find(marker)
    return at != -1 and not _inside_code(text, marker, at)


def _empty_answer(kind: str, text: str) -> bool:
    if kind not in ("multi", "multi-reversed"):
        return False
    sep = "?" if kind == "multi" else "??"
    lines = text.split("\n")
    at = next(i for i, line in enumerate(lines) if line.strip() == sep)
    return all(not line.strip() for line in lines[at + 1:])


def _blank_front_matter(text: str) -> str:
    lines = text.split("\n")
    if lines and lines[0] == "---":
        end = lines.index("---", 1)
        lines[:end + 1] = [""] * (end + 1)
    return "\n".join(lines)


def parse(note: str) -> list[Card]:
    lines = _blank_front_matter(note.replace("\r\n", "\n")).split("\n")
    inline = [(":::", "single-reversed"), ("::", "single")]       # longest separator first
    cards: list[Card] = []
    text, kind, first = "", None, 0
    i = 0
    while i < len(lines):
        line, trimmed = lines[i], lines[i].strip()
        if line.startswith("<!--") and not line.startswith("<!--SR:"):
            while i < len(lines) and "-->" not in lines[i]:
                i += 1
            if not text:
                first = i + 1
            i += 1
            continue
        if not trimmed:
            if kind is not None and not _empty_answer(kind, text):
                cards.append(Card(kind, text.rstrip(), first, i - 1))
            kind, text, first = None, "", i + 1
            i += 1
            continue
        text = text + "\n" + line.rstrip() if text else line.rstrip()
        if kind is None:
            kind = next((k for sep, k in inline if _has_inline_marker(line, sep)), None)
        if kind in ("single", "single-reversed"):
            text, first = line, i
            if i + 1 < len(lines) and lines[i + 1].startswith("<!--SR:"):
                text += "\n" + lines[i + 1]
                i += 1
            elif i + 1 < len(lines) and lines[i + 1].startswith(SR_METADATA_CALLOUT):
                for j in range(i + 1, len(lines)):
                    text += "\n" + lines[j]
                    i += 1
                    if "<!--SR:" in lines[j]:
                        break
            cards.append(Card(kind, text, first, i))
            kind, text = None, ""
        elif trimmed == "?":
            if len(text) > 1:
                kind = "multi"
        elif trimmed == "??":
            if len(text) > 1:
                kind = "multi-reversed"
        elif line.startswith(("```", "~~~")):
            close = re.match(r"`+|~+", line).group(0)
            while i + 1 < len(lines) and not lines[i + 1].startswith(close):
                i += 1
                text += "\n" + lines[i]
            text += "\n" + close
            i += 1
        elif kind is None and any(p.search(line) for p in CLOZE):
            kind = "cloze"
        i += 1
    if kind is not None and text and not _empty_answer(kind, text):
        cards.append(Card(kind, text.rstrip(), first, len(lines) - 1))
    return cards


def schedule_of(card: Card) -> str | None:
    m = re.search(r"<!--SR:(.+?)-->", card.text)
    return m.group(1) if m else None


def remove_schedule_info(text: str) -> str:
    return re.sub(r"<!--SR:.+-->", "", text)


def format_for_note(card: Card, schedule_html: str, *, same_line: bool, callouts: bool) -> str:
    result = remove_schedule_info(card.text).rstrip()
    in_callout = SR_METADATA_CALLOUT in result
    if callouts and not in_callout:
        result += ("" if result.endswith("\n") else "\n") + SR_METADATA_CALLOUT + " \n> "
    on_same_line = same_line and not result.endswith("```")
    sep = " " if (on_same_line or in_callout or callouts) else "\n"
    return result + sep + schedule_html


def find_and_replace(note: str, original: str, replacement: str) -> str | None:
    lines, search = note.split("\n"), original.split("\n")
    for i in range(len(lines) - len(search) + 1):
        if all(lines[i + k].strip() == s.strip() for k, s in enumerate(search)):
            return "\n".join(lines[:i] + replacement.split("\n") + lines[i + len(search):])
    return None


def review(note: str, card: Card, schedule: str, **settings: bool) -> str:
    replacement = format_for_note(card, f"<!--SR:!{schedule}-->", **settings)
    new = find_and_replace(note, card.text, replacement)
    assert new is not None, card.text
    return new


def migrate_to_callouts(data: str) -> str:
    out, index = "", 0
    for m in re.finditer(r".*<!--SR:!.*-->", data):
        if m.group(0).startswith("> <!--SR:"):
            continue
        prefix = "" if m.start() != 0 and data[m.start() - 1] == "\n" else "\n"
        out += data[index:m.start()] + prefix + SR_METADATA_CALLOUT + "\n> " + m.group(0)
        index = m.start() + len(m.group(0))
    return out + data[index:]


# ---------------------------------------------------------------------------------------------

RECIPE = {"name": "obs", "cells": ["OCC-1", "OCC-3", "L-6", "W-A", "L-2"], "per_cell": 2,
          "levels": [1, 2], "seed": 5}


def recipe(**changes):
    return recipe_from_dict({**RECIPE, **changes})


def notes(folder: Path) -> dict[str, str]:
    return {p.name: p.read_text(encoding="utf-8") for p in sorted(folder.glob("*.md"))}


def marker(card: Card) -> str:
    found = re.findall(r"%%qz:([0-9a-f]{12})%%", card.text)
    assert len(found) == 1, card.text
    return found[0]


def review_all(folder: Path, rounds: int, **settings: bool) -> dict[str, str]:
    """Review every card `rounds` times the way the plugin writes it; card id → its schedule."""
    given: dict[str, str] = {}
    for name, _ in notes(folder).items():
        path = folder / name
        for r in range(rounds):
            text = path.read_text(encoding="utf-8")
            for k, card in enumerate(parse(text)):
                schedule = f"2027-{1 + r:02d}-{1 + k % 28:02d},{k + r + 1},{230 + 10 * r}"
                text = review(text, card, schedule, **settings)
                given[marker(card)] = schedule
            path.write_text(text, encoding="utf-8")
    return given


def schedules_found(folder: Path) -> dict[str, str | None]:
    return {marker(card): schedule_of(card)
            for text in notes(folder).values() for card in parse(text)}


def without_schedules(folder: Path) -> list[str]:
    """Every card's text as the plugin finds it, its schedule (and callout) taken out."""
    out = []
    for text in notes(folder).values():
        for card in parse(text):
            body = [line for line in remove_schedule_info(card.text).split("\n")
                    if line.strip() not in (">", SR_METADATA_CALLOUT)]
            out.append("\n".join(body).rstrip())
    return out


SETTINGS = {
    "next line (default)": {"same_line": False, "callouts": False},
    "same line": {"same_line": True, "callouts": False},
    "callouts": {"same_line": False, "callouts": True},
    "callouts and same line": {"same_line": True, "callouts": True},
}


def test_the_model_reads_the_plugins_own_examples():
    """The plugin's formatForNote examples (its question.test.ts) and card shapes."""
    card = parse("Q1::A1")[0]
    assert format_for_note(card, "<!--SR:!2023-09-06,1,250-->", same_line=True, callouts=True) \
        == "Q1::A1\n> [!sr|card-metadata] \n>  <!--SR:!2023-09-06,1,250-->"
    assert format_for_note(card, "<!--SR:!2023-09-06,1,250-->", same_line=True, callouts=False) \
        == "Q1::A1 <!--SR:!2023-09-06,1,250-->"
    assert format_for_note(card, "<!--SR:!2023-09-06,1,250-->", same_line=False, callouts=False) \
        == "Q1::A1\n<!--SR:!2023-09-06,1,250-->"
    cards = parse("Q::A\n> [!sr|card-metadata] \n>  <!--SR:!2023-09-06,1,250-->\nQ2\n?\nA2\n"
                  "> [!sr|card-metadata] \n> <!--SR:!2023-09-07,2,270-->\n\nQ3\n?\n\nx")
    assert [(c.kind, schedule_of(c)) for c in cards] == [
        ("single", "!2023-09-06,1,250"), ("multi", "!2023-09-07,2,270")]
    # a second review keeps the callout and writes the comment into it
    again = format_for_note(cards[1], "<!--SR:!2023-10-01,5,270-->", same_line=False, callouts=True)
    assert again == "Q2\n?\nA2\n> [!sr|card-metadata]\n> <!--SR:!2023-10-01,5,270-->"


@pytest.mark.parametrize("setting", list(SETTINGS))
def test_every_schedule_survives_a_re_export(tmp_path, setting):
    """Review every card (twice: the plugin's first and later writes differ), change the deck's
    text, export again: the plugin finds every card with its schedule, none cut or merged."""
    r = recipe()
    write_obsidian(r, tmp_path)
    fresh = without_schedules(tmp_path)
    given = review_all(tmp_path, 2, **SETTINGS[setting])
    assert len(given) == len(fresh) >= 40
    reviewed = notes(tmp_path)
    write_obsidian(r, tmp_path)
    found = schedules_found(tmp_path)
    assert found == {ident: "!" + schedule for ident, schedule in given.items()}
    assert without_schedules(tmp_path) == fresh
    # what the plugin wrote stands as it wrote it
    assert notes(tmp_path) == reviewed
    # and the plugin keeps reviewing the re-exported notes in place
    review_all(tmp_path, 1, **SETTINGS[setting])
    assert len(schedules_found(tmp_path)) == len(given)
    assert all(schedules_found(tmp_path).values())


@pytest.mark.parametrize("setting", ["next line (default)", "same line"])
def test_schedules_moved_into_callouts_by_the_plugin_survive(tmp_path, setting):
    """The plugin's "migrate scheduling comments to callouts" button over a reviewed vault,
    then a re-export: every schedule is kept and the plugin still finds it."""
    r = recipe()
    write_obsidian(r, tmp_path)
    given = review_all(tmp_path, 1, **SETTINGS[setting])
    for path in tmp_path.glob("*.md"):
        path.write_text(migrate_to_callouts(path.read_text(encoding="utf-8")), encoding="utf-8")
    assert all(SR_METADATA_CALLOUT in t for t in notes(tmp_path).values())
    write_obsidian(r, tmp_path)
    assert schedules_found(tmp_path) == {i: "!" + s for i, s in given.items()}
    text = "".join(notes(tmp_path).values())
    assert text.count("<!--SR:") == len(given) == text.count(SR_METADATA_CALLOUT)


def test_another_language_beside_keeps_the_callout_schedules(tmp_path):
    """An English export into the same folder, then the Hinglish one again: every callout
    schedule of the Hinglish cards stands."""
    write_obsidian(recipe(), tmp_path)
    given = review_all(tmp_path, 1, same_line=False, callouts=True)
    write_obsidian(recipe(lang="en"), tmp_path)
    write_obsidian(recipe(), tmp_path)
    found = schedules_found(tmp_path)
    for ident, schedule in given.items():
        assert found[ident] == "!" + schedule
    assert sum(v is not None for v in found.values()) == len(given)


# --------------------------------------------------------------------------------- figures


def figure_names(text: str) -> list[str]:
    return re.findall(r"!\[\[(quizgen-[0-9a-f]{16}\.svg)\]\]", text)


def test_figures_are_svg_files_beside_the_notes_and_embedded_on_card_backs(tmp_path):
    from quizgen.render.figures import media_name

    write_obsidian(recipe(), tmp_path)
    folder = tmp_path / FIGURE_DIR
    files = sorted(p.name for p in folder.iterdir())
    used = sorted({n for t in notes(tmp_path).values() for n in figure_names(t)})
    assert files == used and len(files) >= 8
    for name in files:
        data = (folder / name).read_bytes()
        assert media_name(data.decode("utf-8")) == name          # named by content
        root = ET.fromstring(data)
        assert root.tag == "{http://www.w3.org/2000/svg}svg" and root.get("viewBox")
        paper = root[0]                                         # readable in a dark theme
        assert paper.tag.endswith("rect") and paper.get("fill") == "#ffffff"
        assert len(root) > 1
    # every numeric and MCQ card of a cell with figures has one, on its back, inside the card
    with_figure = 0
    for name, text in notes(tmp_path).items():
        for card in parse(text):
            embeds = figure_names(card.text)
            assert len(embeds) <= 1
            if embeds:
                lines = card.text.split("\n")
                at = next(i for i, line in enumerate(lines) if figure_names(line))
                assert lines[at] == f"![[{embeds[0]}]]"
                assert lines.index("?") < at             # on the back
                with_figure += 1
        if name.startswith(("OCC-", "W-A")):
            assert figure_names(text)
    assert with_figure >= 16
    assert sum(len(figure_names(t)) for t in notes(tmp_path).values()) == with_figure
    # the same figures as the Anki deck of the recipe: on as many cards, as many drawings
    from quizgen.export import anki

    package = anki.build_package(recipe(), anki.deck_items(recipe()))
    in_anki = sum('<img class="qz-img"' in "".join(note.fields)
                  for deck in package.decks for note in deck.notes)
    assert (in_anki, len(package.media)) == (with_figure, len(files))


def test_figures_do_not_change_the_cards_the_plugin_finds(tmp_path):
    write_obsidian(recipe(), tmp_path)
    for text in notes(tmp_path).values():
        plain = "\n".join(line for line in text.split("\n") if not figure_names(line))
        with_fig, without = parse(text), parse(plain)
        assert [(c.kind, marker(c)) for c in with_fig] == [(c.kind, marker(c)) for c in without]
        assert [re.sub(r"\n!\[\[[^\]]+\]\]", "", c.text) for c in with_fig] == \
               [c.text for c in without]


def test_re_export_removes_its_stale_figures_and_nothing_else(tmp_path):
    write_obsidian(recipe(), tmp_path)
    folder = tmp_path / FIGURE_DIR
    first = {p.name for p in folder.iterdir()}
    again = write_obsidian(recipe(), tmp_path)
    assert {p.name for p in folder.iterdir()} == first and again.bytes > 0   # stable names
    english = write_obsidian(recipe(lang="en"), tmp_path)
    assert english.notes == 6
    both = {p.name for p in folder.iterdir()}
    assert first < both                  # the other language's notes still use theirs

    # a user's file in the figure folder, and a quizgen-named figure the user edited
    mine = folder / "my-drawing.svg"
    mine.write_text("<svg xmlns='http://www.w3.org/2000/svg'/>")
    edited = folder / sorted(first)[0]
    edited.write_text(edited.read_text() + "<!-- mine now -->")

    write_obsidian(recipe(seed=6), tmp_path, force=True)
    now = {p.name for p in folder.iterdir()}
    hinglish = {n for name, t in notes(tmp_path).items() if ".hinglish." in name
                for n in figure_names(t)}
    english_used = {n for name, t in notes(tmp_path).items() if ".en." in name
                    for n in figure_names(t)}
    assert hinglish and hinglish != first
    assert hinglish | english_used <= now
    stale = first - hinglish - english_used - {edited.name}
    assert stale and not stale & now                  # gone
    assert mine.exists() and mine.read_text().startswith("<svg")
    kept = [p for p in folder.iterdir() if p.name.startswith(edited.name)]
    assert kept and any("mine now" in p.read_text() for p in kept)


def test_a_folder_of_only_quizgen_files_needs_no_force(tmp_path):
    """The export's own figure files do not make its folder 'foreign' on the next export."""
    write_obsidian(recipe(), tmp_path)
    assert any((tmp_path / FIGURE_DIR).iterdir())
    write_obsidian(recipe(seed=7), tmp_path)          # no --force needed
    for path in tmp_path.glob("*.md"):                # the user deletes the notes
        path.unlink()
    write_obsidian(recipe(cells=["L-6"]), tmp_path)   # no figures: the folder goes
    assert not (tmp_path / FIGURE_DIR).exists()
