"""Anki decks (.apkg via genanki) that real Anki imports, renders and updates in place.

Rebuilding a deck updates exactly what changed:

* a note's GUID is its problem (cell, language, GPU, model, parameters, card kind: `problem_guid`),
  never its slot, seed or text: a text or figure fix keeps the note, a different problem is a new
  note; formula cards are one note per formula and language (`formula_guid`), whatever the seed;
* each language is its own deck (``<deck>::Hinglish::…``, ``<deck>::English::…``);
* note type IDs are fixed numbers written below; a note type whose fields change gets a new name
  and a new ID (never reuse one);
* Anki overwrites a note only when the package's modification time is newer than its copy's. A
  *lock file* (JSON, beside the recipe: ``my-deck.toml`` → ``my-deck.lock.json``; for a shipped
  recipe beside the output, ``<name>.lock.json``) records each note's and note type's content
  digest and time. A rebuild keeps the recorded time of every unchanged note and stamps changed
  and new ones with the build time (`build_timestamp`: ``SOURCE_DATE_EPOCH``, else the last
  commit's date in a checkout, else the release date), so re-importing updates the changed notes,
  adds the new ones and leaves the rest (with students' own tags and edits) alone; `Changes`
  counts them and ``quizgen deck`` prints them. Two consequences of Anki's rule: a note a student
  edited or tagged *after* the build's time keeps the student's copy, and a note Anki does update
  takes the deck's tags (a student's ``marked`` on that note goes). Keep the lock with the recipe;
  without it every note is stamped anew and every re-import updates everything.

The file is written to a temporary name and renamed into place, so a failed build leaves no
partial .apkg; zip entry dates are fixed, so the same recipe, lock and version give the same bytes.
"""

from __future__ import annotations

import calendar
import hashlib
import itertools
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
import warnings
import zipfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path
from typing import Any, Callable, Protocol

import quizgen
from quizgen.export import cards as C
from quizgen.errors import QuizgenError
from quizgen.problems.model import Problem
from quizgen.recipes import DeckRecipe, Slot, packaged_path, plan_slots, problem_seed
from quizgen.render.phrases import DEFAULT_LANG

#: Release dates (UTC) of published versions: an installed wheel stamps its notes with these.
#: Add the new version's date when releasing (a test checks the current version is listed).
RELEASE_DATES = {
    "0.1.0": "2026-11-29",
}

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


_ZIP_DATE = (1980, 1, 1, 0, 0, 0)
#: How often a slot redraws a problem that the deck already holds before accepting a repeat.
REDRAWS = 8


class ProblemSource(Protocol):
    """What the deck builder calls for each slot; `quizgen.generator.generate_one` fits it."""

    def __call__(self, cell: str, *, level: int, seed: int, lang: str = DEFAULT_LANG,
                 gpu: str | None = None) -> Problem: ...


Progress = Callable[[int, int], None]


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
# Build timestamp


def release_timestamp(version: str) -> int | None:
    """Midnight UTC of the recorded release date of `version`, or None if not recorded."""
    date = RELEASE_DATES.get(version)
    if date is None:
        return None
    return calendar.timegm(time.strptime(date, "%Y-%m-%d"))


def git_timestamp(root: Path | None = None) -> int | None:
    """The last commit's time (``git log -1 --format=%ct``) when quizgen runs from a checkout."""
    root = root or Path(quizgen.__file__).resolve().parent.parent
    if not (root / ".git").exists() or not (root / "pyproject.toml").is_file():
        return None
    try:
        out = subprocess.run(["git", "-C", str(root), "log", "-1", "--format=%ct"],
                             capture_output=True, text=True, timeout=10, check=True)
        return int(out.stdout.strip())
    except (OSError, subprocess.SubprocessError, ValueError):
        return None


def build_timestamp() -> int:
    """The time stamped on every note and card: reproducible, and newer with every release."""
    env = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    if env.isdigit():
        return int(env)
    stamp = git_timestamp()
    if stamp is not None:
        return stamp
    stamp = release_timestamp(quizgen.__version__)
    if stamp is not None:
        return stamp
    # A version without a recorded date: at least as new as every recorded release.
    return max(release_timestamp(v) or 0 for v in RELEASE_DATES)


# ---------------------------------------------------------------------------------------------
# Note types and decks


@cache
def _template(name: str) -> str:
    return packaged_path("templates", "cards", name).read_text(encoding="utf-8")


#: Where a card template or script takes the answer reader (templates/cards/answer.js) inline.
READER_MARK = "/* quizgen: answer.js */"


@cache
def card_template(name: str) -> str:
    """A card template or script with the answer reader inlined where it says `READER_MARK`:
    one reader for every card, and each side self-contained (AnkiDroid and AnkiMobile load each
    side afresh and keep no script state across the flip)."""
    text = _template(name)
    if READER_MARK in text:
        text = text.replace(READER_MARK, _template("answer.js").strip())
    return text


@cache
def card_css() -> str:
    return _template("cards.css")


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
def _note_class():
    """genanki's Note without its per-field HTML heuristic (a regex over every field, whose
    warnings a build ignores anyway: fields are escaped by construction)."""
    import genanki

    class Note(genanki.Note):
        def _check_invalid_html_tags_in_fields(self) -> None:
            return None

    return Note


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
    from quizgen.render.phrases import language_name

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


def note_tags(problem: Problem, kind: str) -> list[str]:
    """Hierarchical tags (``quizgen::cell::OCC-3``, ``quizgen::level::2``, …), without spaces."""
    tags = [
        f"quizgen::cell::{tag_part(problem.cell)}",
        f"quizgen::level::{problem.level}",
        f"quizgen::lang::{tag_part(problem.lang)}",
        f"quizgen::kind::{kind}",
    ]
    gpu = problem.gpu.get("name") if isinstance(problem.gpu, dict) else None
    if gpu:
        tags.append(f"quizgen::gpu::{tag_part(gpu)}")
    if problem.model:
        tags.append(f"quizgen::model::{tag_part(problem.model)}")
    tags += [f"quizgen::topic::{tag_part(topic)}" for topic in problem.topics]
    return list(dict.fromkeys(tags))


def problem_guid(problem: Problem, kind: str) -> str:
    """A note's identity is its problem: cell, language, GPU, model and parameters (and the card
    kind, since a note keeps its note type). A text or figure fix keeps the GUID; a different
    problem (another seed, another GPU) is another note. Recipe, slot and seed play no part."""
    import genanki

    return genanki.guid_for("quizgen", "problem", *_same_problem_key(problem), kind)


def formula_guid(formula: str, lang: str) -> str:
    """A formula card's identity: the formula and the language, whatever the recipe or seed."""
    import genanki

    return genanki.guid_for("quizgen", "formula", formula, lang)


def problem_fields(problem: Problem, kind: str, figure: str = "") -> list[str]:
    """The note fields of `problem` as card kind `kind`, in the note type's field order."""
    source = C.source_html(problem)
    if kind == "numeric":
        value = C.answer_value(problem)
        if value is None:
            raise ValueError(f"{problem.id}: no typeable main answer")
        return [C.question_html(problem), value,
                C.esc(C.answer_format(problem, problem.lang)) + C.check_html(problem),
                C.back_solution_html(problem), figure, source]
    if kind == "mcq":
        return [C.question_html(problem, stem=True), C.options_html(problem), C.correct_html(problem),
                C.explanations_html(problem), C.back_solution_html(problem), figure, source]
    if kind == "concept":
        trap = problem.solution.trap
        return [C.question_html(problem), C.concept_answer_html(problem),
                C.concept_reason_html(problem), C.trap_text_html(trap, problem.lang) if trap else "",
                source]
    raise ValueError(f"unknown card kind {kind!r}")


# ---------------------------------------------------------------------------------------------
# Generating the deck's problems (shared with the Obsidian exporter)


@dataclass(slots=True)
class DeckItem:
    """One generated problem and the card kind it becomes (None: fits no enabled kind)."""

    slot: Slot
    problem: Problem
    kind: str | None


def default_problem_source() -> ProblemSource:
    from quizgen.generator import generate_one

    return generate_one


def iter_deck_items(recipe: DeckRecipe, *, problems_for: ProblemSource | None = None,
                    progress: Progress | None = None) -> Iterator[DeckItem]:
    """Generate the recipe's problems one at a time (in deck order), each with its card kind.

    A consumer that turns each item into a note and lets go of the problem keeps a big deck's
    memory small; `progress` is called once the consumer has taken an item.
    """
    source = problems_for or default_problem_source()
    slots = [slot for slot in plan_slots(recipe) if _exists(slot.cell, slot.level, slot.gpu)]
    seen: set[tuple[str, ...]] = set()
    for done, slot in enumerate(slots, 1):
        problem = _fresh_problem(source, slot, seen)
        kind = C.note_kind(problem, recipe.kinds, slot.level + slot.index)
        yield DeckItem(slot, problem, kind)
        if progress is not None:
            progress(done, len(slots))


@lru_cache(maxsize=None)
def _exists(cell: str, level: int, gpu: str | None) -> bool:
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


def deck_items(recipe: DeckRecipe, *, problems_for: ProblemSource | None = None,
               progress: Progress | None = None) -> list[DeckItem]:
    """Generate every problem of the recipe (in deck order) and choose each one's card kind."""
    return list(iter_deck_items(recipe, problems_for=problems_for, progress=progress))


def _same_problem_key(problem: Problem) -> tuple[str, ...]:
    gpu = problem.gpu.get("name", "") if isinstance(problem.gpu, dict) else ""
    return (problem.cell, problem.lang, gpu, problem.model or "", _params_key(problem.params))


def _params_key(params: Any) -> str:
    from quizgen.problems.base import canonical_json

    try:
        return canonical_json(params)
    except TypeError:          # not JSON data (a custom source's parameters)
        return json.dumps(params, sort_keys=True, default=str)


def _fresh_problem(source: ProblemSource, slot: Slot, seen: set[tuple[str, ...]]) -> Problem:
    """The slot's problem, redrawn (a few times, deterministically) if the deck already has the
    same one: small families such as the concept cards would otherwise repeat a card."""
    seed = slot.seed
    cheap = _cheap_key(source)
    for attempt in range(REDRAWS + 1):
        known = None
        if cheap is not None and attempt < REDRAWS:
            # Ask which problem this seed gives before paying for its solution and words.
            known = cheap(slot, seed)
            if known in seen:
                seed = problem_seed(slot.seed, slot.cell, slot.level, slot.index + 7919 * (attempt + 1))
                continue
        problem = source(slot.cell, level=slot.level, seed=seed, lang=slot.lang, gpu=slot.gpu)
        # the cheap key is the problem's own key (a test checks), so it need not be made again
        key = known if known is not None else _same_problem_key(problem)
        if key not in seen:
            break
        seed = problem_seed(slot.seed, slot.cell, slot.level, slot.index + 7919 * (attempt + 1))
    seen.add(key)
    return problem


def _cheap_key(source: ProblemSource):
    """For the real generator: the repeat check's key without generating (same key, same deck)."""
    from quizgen import generator, problems

    if source is not generator.generate_one and source is not generator.generate_worked:
        return None

    def key(slot: Slot, seed: int) -> tuple[str, ...]:
        gpu, params = problems.draw(slot.cell, level=slot.level, seed=seed, gpu=slot.gpu)
        fam = problems.family(slot.cell)
        model = fam.model_for(gpu) if fam.uses_model else None
        return (fam.cell, slot.lang, gpu.name, model or "", _params_key(params))

    return key


def formula_examples(items: Iterable[DeckItem]) -> list[C.FormulaExample]:
    """One example per (language, formula) in deck order: the first step that used the formula."""
    seen: dict[tuple[str, str], C.FormulaExample] = {}
    for item in items:
        _note_formulas(seen, item)
    return list(seen.values())


def _note_formulas(seen: dict[tuple[str, str], C.FormulaExample], item: DeckItem) -> None:
    """Record the formulas `item` uses in `seen` (first use: the example; every use: its cell)."""
    if item.kind is None:
        return
    problem = item.problem
    for step in problem.solution.steps:
        if not step.formula:
            continue
        key = (problem.lang, step.formula)
        example = seen.get(key)
        if example is None:
            example = seen[key] = C.FormulaExample(step.formula, problem.lang, step.title, step)
        if problem.cell not in example.cells:
            example.cells.append(problem.cell)


# ---------------------------------------------------------------------------------------------
# Building the package


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
        Note = _note_class()
        for model, guid, tags, fields, due in self._rows:
            yield Note(model=model, fields=[field.decode("utf-8") for field in fields],
                       tags=tags, guid=guid, due=due)


@dataclass(slots=True)
class DeckPackage:
    """A built deck, ready to write: its genanki decks and its media files' bytes."""

    decks: list[Any]                 # genanki decks, sorted by name (the order they are written)
    media: dict[str, bytes]          # media file name → content, sorted by name
    cells: int = 0                   # cells with at least one note
    skipped: int = 0                 # problems that fit none of the recipe's card kinds
    figures: Any = None              # the `C.FigureMedia` that drew them (skill notes reuse it)


def build_package(recipe: DeckRecipe, items: Iterable[DeckItem]) -> DeckPackage:
    """The deck's notes, decks and media from `items` (a list, or the stream of `iter_deck_items`:
    each problem is let go once its note is made)."""
    import genanki

    decks: dict[str, Any] = {}
    description = C.esc(recipe.description or recipe.title)

    def deck_for(name: str):
        deck = decks.get(name)
        if deck is None:
            deck = decks[name] = genanki.Deck(deck_id(name), name, description=description)
            deck.notes = StoredNotes()
        return deck

    Note = _note_class()
    figures = C.FigureMedia()
    formulas: dict[tuple[str, str], C.FormulaExample] = {}
    cells: set[str] = set()
    guids: set[str] = set()
    skipped = 0
    for item in items:
        if item.kind is None:
            skipped += 1
            continue
        problem = item.problem
        guid = problem_guid(problem, item.kind)
        if guid in guids:           # a repeat the redraws could not avoid: one note is enough
            skipped += 1
            continue
        guids.add(guid)
        cells.add(problem.cell)
        name = figures.add(problem) if item.kind != "concept" else None
        figure = C.figure_html(name) if name is not None else ""
        note = Note(model=note_model(item.kind),
                            fields=problem_fields(problem, item.kind, figure),
                            tags=note_tags(problem, item.kind), guid=guid,
                            due=new_card_position(problem.cell, problem.level))
        deck_for(deck_name(recipe, problem.cell, problem.lang)).add_note(note)
        if "cloze" in recipe.kinds:
            _note_formulas(formulas, item)

    for example in seed_free_examples(formulas.values(), recipe):
        text, extra = C.formula_cloze_html(example)
        tags = ["quizgen::kind::cloze", f"quizgen::lang::{tag_part(example.lang)}",
                f"quizgen::formula::{tag_part(example.name)}"]
        tags += [f"quizgen::cell::{tag_part(cell)}" for cell in example.cells]
        note = Note(model=note_model("cloze"),
                            fields=[text, extra, C.esc(example.name)], tags=tags,
                            guid=formula_guid(example.name, example.lang),
                            due=new_card_position(None, 0))
        deck_for(deck_name(recipe, None, example.lang)).add_note(note)

    media = {name: figures.files[name] for name in sorted(figures.files)}
    return DeckPackage([decks[name] for name in sorted(decks)], media, len(cells), skipped, figures)


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


def seed_free_examples(examples: Iterable[C.FormulaExample],
                       recipe: DeckRecipe) -> list[C.FormulaExample]:
    """The formula cards' examples, the same whatever the recipe's seed: each formula's example
    is its first use in seed 0's problem of the first cell (in course order, lowest level of
    the recipe) that uses it, else the deck's own first use. Cells are listed in course order."""
    from quizgen.generator import CELLS, generate_one

    order = {cell: i for i, cell in enumerate(CELLS)}
    made: dict[tuple[str, int, str], Problem | None] = {}

    def reference(cell: str, level: int, lang: str) -> Problem | None:
        key = (cell, level, lang)
        if key not in made:
            try:
                made[key] = generate_one(cell, level=level, seed=0, lang=lang)
            except Exception:       # a cell that cannot draw at this level: keep the deck's
                made[key] = None
        return made[key]

    out = []
    for example in examples:
        cells = sorted(example.cells, key=lambda c: (order.get(c, len(order)), c))
        chosen = None
        for cell in cells:
            for level in sorted(recipe.levels):
                problem = reference(cell, level, example.lang)
                step = next((s for s in problem.solution.steps if s.formula == example.name),
                            None) if problem is not None else None
                if step is not None:
                    chosen = C.FormulaExample(example.name, example.lang, step.title, step, cells)
                    break
            if chosen is not None:
                break
        if chosen is None:
            chosen = C.FormulaExample(example.name, example.lang, example.title, example.step, cells)
        out.append(chosen)
    return out


def count_cards(package) -> tuple[int, int]:
    """(notes, cards) of a genanki package, counted the way genanki writes them."""
    notes = cards = 0
    for deck in package.decks:
        if isinstance(deck.notes, StoredNotes):
            notes += len(deck.notes)
            cards += deck.notes.cards
            continue
        for note in deck.notes:
            notes += 1
            cards += len(note.cards)
    return notes, cards


# ---------------------------------------------------------------------------------------------
# The lock file: what each note held when it was last built, and since when


LOCK_FORMAT = 1


@dataclass(frozen=True, slots=True)
class Changes:
    """What re-importing the new build into a collection that has the previous one does."""

    added: int          # notes with a GUID the lock has never seen
    updated: int        # notes whose content changed: a newer stamp, Anki updates them
    unchanged: int      # same content, same stamp: Anki leaves them (and students' tags) alone
    first: bool         # no lock before this build


@dataclass(slots=True)
class Stamps:
    """Modification times per note GUID and per note type ID, and the lock's new entries."""

    notes: dict[str, int]
    models: dict[int, int]
    lock_notes: dict[str, list[Any]]
    lock_models: dict[str, list[Any]]
    changes: Changes

    @property
    def latest(self) -> int:
        return max([*self.notes.values(), *self.models.values(), 0])


def default_lock_path(recipe: DeckRecipe, out_path: str | Path) -> Path:
    """Where a build keeps its lock: beside the recipe file (``my-deck.toml`` →
    ``my-deck.lock.json``), or, for a recipe shipped with quizgen, beside the output
    (``<recipe name>.lock.json``)."""
    source = Path(recipe.source) if recipe.source else None
    if source is not None and source.suffix == ".toml" and source.is_file():
        shipped = packaged_path("decks")
        try:
            source.resolve().relative_to(shipped.resolve())
        except ValueError:
            return source.with_name(source.stem + ".lock.json")
    return Path(out_path).parent / f"{recipe.name}.lock.json"


def read_lock(path: str | Path) -> tuple[dict[str, list[Any]], dict[str, list[Any]]]:
    """(notes, note types) of a lock file; empty when there is none. A damaged lock is an
    error (rebuilding without it would re-stamp every note)."""
    from quizgen.errors import QuizgenError

    lock = Path(path)
    if not lock.is_file():
        return {}, {}
    try:
        data = json.loads(lock.read_text(encoding="utf-8"))
        notes, models = data["notes"], data.get("note_types", {})
        if data.get("format") != LOCK_FORMAT or not isinstance(notes, dict) or \
                not isinstance(models, dict):
            raise ValueError("unknown format")
        for entry in [*notes.values(), *models.values()]:
            if not (isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], str)
                    and isinstance(entry[1], int)):
                raise ValueError("bad entry")
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError) as exc:
        raise QuizgenError(f"{lock} is not a quizgen lock file ({exc}); move it away to start "
                           "afresh (every note is then stamped anew)", field="lock") from None
    return notes, models


def write_lock(path: str | Path, recipe: DeckRecipe, stamps: Stamps) -> None:
    """Write the lock atomically: one line per note, sorted, so a diff shows what changed."""
    from quizgen.files import atomic_write

    lines = ["{", f'"format": {LOCK_FORMAT},', f'"recipe": {json.dumps(recipe.name)},',
             '"note_types": {']
    models = sorted(stamps.lock_models.items())
    lines += [f"{json.dumps(k)}: {json.dumps(v)}" + ("," if i < len(models) - 1 else "")
              for i, (k, v) in enumerate(models)]
    lines += ["},", '"notes": {']
    notes = sorted(stamps.lock_notes.items())
    lines += [f"{json.dumps(k)}: {json.dumps(v)}" + ("," if i < len(notes) - 1 else "")
              for i, (k, v) in enumerate(notes)]
    lines += ["}", "}", ""]
    atomic_write(Path(path), "\n".join(lines), field="lock")


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


def plan_stamps(package: DeckPackage, stamp: int,
                lock: tuple[dict[str, list[Any]], dict[str, list[Any]]] | None) -> Stamps:
    """Each note's and note type's modification time: the lock's when its content is the same,
    else `stamp` (at least one second newer than the lock's, so Anki sees it as newer)."""
    old_notes, old_models = lock if lock is not None else ({}, {})
    notes: dict[str, int] = {}
    models: dict[int, int] = {}
    new_notes = dict(old_notes)
    new_models = dict(old_models)
    added = updated = unchanged = 0
    seen_models = {}
    for deck in package.decks:
        notes_of = deck.notes.digests() if isinstance(deck.notes, StoredNotes) else \
            ((note.model, note.guid, note_digest(note)) for note in deck.notes)
        for model, guid, digest in notes_of:
            seen_models[model.model_id] = model
            old = old_notes.get(guid)
            if old is None:
                added += 1
                mod = stamp
            elif old[0] == digest:
                unchanged += 1
                mod = old[1]
            else:
                updated += 1
                mod = max(stamp, old[1] + 1)
            notes[guid] = mod
            new_notes[guid] = [digest, mod]
    for model_id, model in seen_models.items():
        digest = model_digest(model)
        old = old_models.get(str(model_id))
        mod = old[1] if old is not None and old[0] == digest else \
            max(stamp, old[1] + 1) if old is not None else stamp
        models[model_id] = mod
        new_models[str(model_id)] = [digest, mod]
    return Stamps(notes, models, new_notes, new_models,
                  Changes(added, updated, unchanged, first=not old_notes))


def write_package(package: DeckPackage, out_path: str | Path, timestamp: int,
                  stamps: Stamps | None = None) -> int:
    """Write `package` to `out_path` atomically; returns the file's size.

    Every note and note type is stamped `timestamp`, or with its own time from `stamps`.

    The collection is written by genanki; the zip is written here in one pass, with fixed entry
    dates and modes (genanki would stamp them with 'now') and the media straight from memory.
    """
    from quizgen.files import atomic_open, temporary_path

    out = Path(out_path)
    out.parent.mkdir(parents=True, exist_ok=True)
    # both temporaries go whatever happens (an error, Ctrl-C, SIGTERM); the old deck stays
    with temporary_path(prefix="quizgen-", suffix=".anki2") as db_name:
        _write_collection(package, db_name, timestamp, stamps)
        names = list(package.media)
        with atomic_open(out, "wb") as handle, zipfile.ZipFile(handle, "w") as zout:
            info = _zip_entry("collection.anki2")
            info.file_size = os.path.getsize(db_name)
            with open(db_name, "rb") as src, zout.open(info, "w") as dst:
                shutil.copyfileobj(src, dst, 1 << 20)
            # the media index as genanki writes it: {"0": "quizgen-….svg", …}
            zout.writestr(_zip_entry("media"), json.dumps(dict(enumerate(names))))
            for index, name in enumerate(names):
                zout.writestr(_zip_entry(str(index)), package.media[name])
    return out.stat().st_size


def _write_collection(package: DeckPackage, db_path: str, timestamp: int,
                      stamps: Stamps | None = None) -> None:
    """The Anki collection (SQLite) of the package, written the way genanki's Package does;
    with `stamps`, each note, its cards and each note type then get their own time."""
    import genanki

    if stamps is not None:
        timestamp = stamps.latest or timestamp
    conn = sqlite3.connect(db_path)
    try:
        # A scratch file, zipped once written: no journal and no waits for the disk (the
        # .apkg itself is written atomically). The database's bytes are the same.
        conn.execute("PRAGMA journal_mode = OFF")
        conn.execute("PRAGMA synchronous = OFF")
        cursor = conn.cursor()
        with warnings.catch_warnings():
            # Fields are escaped by construction; genanki's HTML heuristic has nothing to add.
            warnings.filterwarnings("ignore", module="genanki")
            genanki.Package(package.decks).write_to_db(cursor, timestamp,
                                                       itertools.count(int(timestamp * 1000)))
        if stamps is not None:
            # by note id (the key; cards are indexed by it), not by guid, which has no index
            ids = dict(cursor.execute("SELECT guid, id FROM notes"))
            rows = [(mod, ids[guid]) for guid, mod in stamps.notes.items()
                    if mod != timestamp and guid in ids]
            cursor.executemany("UPDATE notes SET mod = ? WHERE id = ?", rows)
            cursor.executemany("UPDATE cards SET mod = ? WHERE nid = ?", rows)
            (models_json,) = cursor.execute("SELECT models FROM col").fetchone()
            models = json.loads(models_json)
            for model_id, mod in stamps.models.items():
                if str(model_id) in models:
                    models[str(model_id)]["mod"] = mod
            cursor.execute("UPDATE col SET models = ?", (json.dumps(models),))
        conn.commit()
    finally:
        conn.close()


def _zip_entry(name: str) -> zipfile.ZipInfo:
    """A zip entry with a fixed date and mode, deflated."""
    info = zipfile.ZipInfo(name, date_time=_ZIP_DATE)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = 0o644 << 16
    info.create_system = 3
    return info


def build_deck(recipe: DeckRecipe, out_path: str | Path, *,
               problems_for: ProblemSource | None = None, timestamp: int | None = None,
               progress: Progress | None = None, lock: str | Path | None = None) -> DeckSummary:
    """Build `recipe` into an .apkg at `out_path` and say what it holds.

    problems_for  makes one problem per slot; default `quizgen.generator.generate_one`
    timestamp     note/card modification time (seconds); default `build_timestamp()`
    progress      called as ``progress(done, total)`` after each problem becomes its note
    lock          a lock file (read if present, written after the build): notes whose content
                  is unchanged keep their earlier time, so a re-import leaves them alone; the
                  summary's `changes` says what a re-import adds, updates and leaves

    Raises `QuizgenError` for bad input; on any failure no file (and no partial file) is left
    at `out_path` (an existing file there is left untouched).
    """
    from quizgen.export import skills

    stamp = build_timestamp() if timestamp is None else int(timestamp)
    progress, skill_progress = skills.split_progress(recipe, progress)
    items = iter_deck_items(recipe, problems_for=problems_for, progress=progress) \
        if skills.has_problem_kinds(recipe) else ()
    package = build_package(recipe, items)
    skills.add_skills(package, recipe, problems_for=problems_for, progress=skill_progress)
    notes, cards = count_cards(package)
    stamps = plan_stamps(package, stamp, read_lock(lock)) if lock is not None else None
    size = write_package(package, out_path, stamp, stamps)
    if lock is not None and stamps is not None:
        write_lock(lock, recipe, stamps)
    return DeckSummary(notes=notes, cards=cards, cells=package.cells, bytes=size,
                       path=str(out_path), skipped=package.skipped,
                       changes=stamps.changes if stamps is not None else None,
                       lock=str(lock) if lock is not None else "")
