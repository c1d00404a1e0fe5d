"""What every note of a deck shares, problem notes and skill notes alike: the note types (fixed
IDs, fields, card templates and CSS), deck names and IDs, tags, the new-card order, the compact
store a deck keeps its notes in (with each note's content digest), and whether a cell has any
problem on the GPU a deck asks for."""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any

from quizgen.errors import QuizgenError
from quizgen.recipes import DeckRecipe, packaged_path


#: Fixed note type IDs. Never change one; a note type whose fields change gets a new name and ID.
MODEL_IDS = {
    "numeric": 1839251701,
    "mcq": 1839251702,
    "cloze": 1839251703,
    "concept": 1839251704,
}


MODEL_NAMES = {
    "numeric": "quizgen numeric (type the answer) v1",
    "mcq": "quizgen multiple choice v1",
    "cloze": "quizgen formula cloze v1",
    "concept": "quizgen concept v1",
}


MODEL_FIELDS = {
    "numeric": ["Question", "Answer", "Format", "Solution", "Figure", "Source"],
    "mcq": ["Question", "Options", "Correct", "Explanations", "Solution", "Figure", "Source"],
    "cloze": ["Text", "Extra", "Source"],
    "concept": ["Question", "Answer", "Reason", "Trap", "Source"],
}


@dataclass(frozen=True, slots=True)
class DeckSummary:
    """What a build produced: the numbers the CLI prints in its one-line summary."""

    notes: int
    cards: int
    cells: int
    bytes: int
    path: str = ""
    skipped: int = 0          # problems that fit none of the recipe's card kinds
    changes: "Changes | None" = None   # what a re-import adds, updates, leaves (with a lock)
    lock: str = ""            # the lock file read and written ("" without one)
    replaced: tuple[str, ...] = ()   # Obsidian: earlier notes whose cards moved into new ones


# ---------------------------------------------------------------------------------------------
# Note types and the card templates


@cache
def card_file(name: str) -> str:
    """The text of a card file in ``templates/cards/`` (a template, a script, a style sheet)."""
    return packaged_path("templates", "cards", name).read_text(encoding="utf-8")


#: Where a card template or script takes the answer reader (templates/cards/answer.js) inline.
READER_MARK = "/* quizgen: answer.js */"


@cache
def card_template(name: str) -> str:
    """A card template or script with the answer reader inlined where it says `READER_MARK`:
    one reader for every card, and each side self-contained (AnkiDroid and AnkiMobile load each
    side afresh and keep no script state across the flip)."""
    text = card_file(name)
    if READER_MARK in text:
        text = text.replace(READER_MARK, card_file("answer.js").strip())
    return text


@cache
def card_css() -> str:
    return card_file("cards.css")


@cache
def note_model(kind: str):
    """The genanki note type of a card kind (fixed ID, fields, templates and CSS)."""
    import genanki

    template = {"name": MODEL_NAMES[kind].split(" v")[0],
                "qfmt": card_template(f"{kind}.front.html"),
                "afmt": card_template(f"{kind}.back.html")}
    return genanki.Model(
        MODEL_IDS[kind], MODEL_NAMES[kind], fields=[{"name": f} for f in MODEL_FIELDS[kind]],
        templates=[template], css=card_css(),
        model_type=genanki.Model.CLOZE if kind == "cloze" else genanki.Model.FRONT_BACK)


@cache
def note_class():
    """genanki's Note without its per-field HTML heuristic (a regex over every field, whose
    warnings a build ignores anyway: fields are escaped by construction).

    The heuristic is genanki's private ``Note._check_invalid_html_tags_in_fields``, called by
    ``Note.write_to_db``; its regex backtracks over the rest of a one-line field at every tag and
    costs longer than the whole default deck's build (its warnings filter would still run it).
    pyproject.toml pins genanki to the 0.13 series for it, and a test checks that the method is
    still there and still called."""
    import genanki

    class Note(genanki.Note):
        def _check_invalid_html_tags_in_fields(self) -> None:
            return None

    return Note


# ---------------------------------------------------------------------------------------------
# Decks, tags and the new-card order


def deck_id(name: str) -> int:
    """A stable deck ID from the deck's full name."""
    digest = hashlib.blake2b(name.encode("utf-8"), digest_size=8).digest()
    return (1 << 30) + int.from_bytes(digest, "big") % (1 << 30)


def deck_name(recipe: DeckRecipe, cell: str | None, lang: str) -> str:
    """``<recipe deck>::<language>::<group>``: each language is its own deck (a Hinglish and an
    English build of one recipe never mix); formula cards (cell None) have their own group."""
    from quizgen.render.phrases import labels

    groups = labels(lang, "deck-group")     # sub-decks by cell family, in the course's order
    group = groups["formulas"] if cell is None else groups.get(cell.split("-")[0], groups["other"])
    return group_deck_name(recipe, lang, group)


def group_deck_name(recipe: DeckRecipe, lang: str, group: str) -> str:
    """``<recipe deck>::<language>::<group>``, the one naming scheme of every subdeck."""
    from quizgen.languages import language_name

    return "::".join([recipe.deck, language_name(lang), group])


def tag_part(text: Any) -> str:
    """One component of a hierarchical tag: no spaces, no ``::`` inside."""
    if text.__class__ is str:
        return _tag_part(text)
    return _tag_part(str(text))


@lru_cache(maxsize=4096)   # a deck has few distinct cells, GPUs, topics
def _tag_part(text: str) -> str:
    cleaned = "".join(ch if (ch.isalnum() or ch in "-_.+") else "_" for ch in text.strip())
    return cleaned.strip("_") or "none"


@cache
def _cell_order() -> dict[str, int]:
    from quizgen.problems import CELLS

    return {cell: i for i, cell in enumerate(CELLS)}


def new_card_position(cell: str | None, level: int) -> int:
    """Where a new card stands in Anki's new-card queue: by cell in course order, then level
    (OCC-1's three levels, then OCC-2's, …); formula cards (cell None) after every cell."""
    order = _cell_order()
    index = order.get(cell, len(order)) if cell is not None else len(order) + 1
    return 1 + index * 10 + level


@lru_cache(maxsize=None)
def cell_exists(cell: str, level: int, gpu: str | None) -> bool:
    """Whether the cell has any problem at this level on a GPU the deck asks for by name (X-2 has
    none on the notes' SM, which reserves no shared memory): a deck for that GPU leaves it out."""
    if gpu is None:
        return True
    from quizgen import problems

    try:
        problems.draw(cell, level=level, seed=0, gpu=gpu)
    except QuizgenError as e:
        if e.field == "gpu" and str(e).startswith(f"gpu: no {cell.upper()} problem exists"):
            return False
        raise
    return True


# ---------------------------------------------------------------------------------------------
# The notes a deck holds, and what a re-import would change


def _digest(*parts: Any) -> str:
    h = hashlib.blake2b(digest_size=10)
    for part in parts:
        h.update(part if isinstance(part, bytes) else str(part).encode("utf-8"))
        h.update(b"\x1f")
    return h.hexdigest()


def note_digest(note) -> str:
    """What a re-import would change on a note: its type, fields and tags."""
    return _digest(note.model.model_id, *note.fields, " ".join(sorted(note.tags)))


def model_digest(model) -> str:
    """What a re-import would change on a note type (only what quizgen sets: genanki adds
    bookkeeping keys to fields and templates when it writes them)."""
    fields = [field["name"] for field in model.fields]
    templates = [(t.get("name", ""), t.get("qfmt", ""), t.get("afmt", "")) for t in model.templates]
    return _digest(model.model_id, model.name, json.dumps(fields), json.dumps(templates), model.css)


class StoredNotes:
    """A deck's notes, held compactly until the deck is written: fields as UTF-8 (a str with one
    non-ASCII character costs two or four bytes per character), tags shared between notes.
    Iterating gives genanki notes, so a genanki Deck can hold this as its ``notes``."""

    __slots__ = ("_rows", "cards")

    def __init__(self) -> None:
        self._rows: list[tuple[Any, str, tuple[str, ...], tuple[bytes, ...], int]] = []
        self.cards = 0

    def append(self, note) -> None:
        self.cards += len(note.cards)
        self._rows.append((note.model, note.guid, tuple(sys.intern(tag) for tag in note.tags),
                           tuple(field.encode("utf-8") for field in note.fields),
                           getattr(note, "due", 0)))

    def __len__(self) -> int:
        return len(self._rows)

    def digests(self) -> Iterator[tuple[Any, str, str]]:
        """(note type, GUID, `note_digest`) of each note, from the stored bytes (no notes made)."""
        for model, guid, tags, fields, _ in self._rows:
            yield model, guid, _digest(model.model_id, *fields, " ".join(sorted(tags)))

    def __iter__(self) -> Iterator[Any]:
        Note = note_class()
        for model, guid, tags, fields, due in self._rows:
            yield Note(model=model, fields=[field.decode("utf-8") for field in fields],
                       tags=tags, guid=guid, due=due)
