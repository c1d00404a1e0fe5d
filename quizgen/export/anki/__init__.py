"""Anki decks (.apkg via genanki) that real Anki imports, renders and updates in place.

Rebuilding a deck updates exactly what changed:

* a note's GUID is its problem (cell, language, GPU, model, parameters, card kind: `problem_guid`),
  never its slot, seed or text: a text or figure fix keeps the note, a different problem is a new
  note, and a problem that does not depend on its GPU names its cell's own GPU
  (`quizgen.problems.identity`), so a deck built for another GPU shares those notes; formula
  cards are one note per formula and language (`formula_guid`), whatever the seed;
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

The rooms: `plan` (which problems and notes, the build's time, the lock read), `layout` (a
problem's card fields as HTML) with `typed` (what a type-in card expects) and `skills` (notes of
many solved variants), `notes` (the deck's notes and decks, in memory) and `write` (the only I/O).
`shared` holds the note types, deck names and the note store every note uses; `types` the built
deck the rooms hand each other; `intro` the deck's first card, which sets up the picture of the
lids.
"""

from __future__ import annotations

from pathlib import Path

from quizgen.export.anki import skills
from quizgen.export.anki.intro import add_introduction
from quizgen.export.anki.notes import (build_package, count_cards, formula_guid, note_tags,
                                       problem_fields, problem_guid)
from quizgen.export.anki.plan import (LOCK_FORMAT, REDRAWS, RELEASE_DATES, Changes, DeckItem,
                                      ProblemSource, Progress, Stamps, build_timestamp,
                                      deck_items, default_lock_path, default_problem_source,
                                      formula_examples, git_timestamp, iter_deck_items,
                                      plan_stamps, read_lock, release_timestamp,
                                      seed_free_examples)
from quizgen.export.anki.shared import (MODEL_FIELDS, MODEL_IDS, MODEL_NAMES, READER_MARK,
                                        DeckSummary, StoredNotes, card_css, card_template,
                                        deck_id, deck_name, group_deck_name, model_digest,
                                        new_card_position, note_digest, note_model, tag_part)
from quizgen.export.anki.types import DeckPackage
from quizgen.export.anki.write import write_lock, write_package
from quizgen.recipes import DeckRecipe

__all__ = [
    "Changes", "DeckItem", "DeckPackage", "DeckSummary", "LOCK_FORMAT", "MODEL_FIELDS",
    "MODEL_IDS", "MODEL_NAMES", "ProblemSource", "Progress", "READER_MARK", "REDRAWS",
    "RELEASE_DATES", "Stamps", "StoredNotes", "add_introduction", "build_deck", "build_package",
    "build_timestamp", "card_css", "card_template", "count_cards", "deck_id", "deck_items",
    "deck_name", "default_lock_path", "default_problem_source", "formula_examples", "formula_guid",
    "git_timestamp", "group_deck_name", "iter_deck_items", "model_digest", "new_card_position",
    "note_digest", "note_model", "note_tags", "plan_stamps", "problem_fields", "problem_guid",
    "read_lock", "release_timestamp", "seed_free_examples", "skills", "tag_part", "write_lock",
    "write_package"
]


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
    stamp = build_timestamp() if timestamp is None else int(timestamp)
    progress, skill_progress = skills.split_progress(recipe, progress)
    items = iter_deck_items(recipe, problems_for=problems_for, progress=progress) \
        if skills.has_problem_kinds(recipe) else ()
    package = build_package(recipe, items)
    add_introduction(package, recipe)
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
