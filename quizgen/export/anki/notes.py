"""The deck's notes: each problem as a note of its card kind (fields, tags, a GUID from the
problem itself), each formula as a cloze note, gathered with their figures into one deck per
language and group. Everything is built in memory; `quizgen.export.anki.write` writes it."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from quizgen.export.anki.layout import (back_solution_html, concept_answer_html,
                                        concept_reason_html, correct_html, explanations_html,
                                        formula_cloze_html, options_html, source_html,
                                        trap_text_html)
from quizgen.export.anki.plan import (DeckItem, note_formulas, same_problem_key,
                                      seed_free_examples)
from quizgen.export.anki.shared import (StoredNotes, note_class, deck_id, deck_name,
                                        new_card_position, note_model, tag_part)
from quizgen.export.anki.typed import answer_format, answer_value, check_html
from quizgen.export.anki.types import DeckPackage
from quizgen.problems.model import Problem
from quizgen.recipes import DeckRecipe
from quizgen.render.cards import FigureMedia, esc, figure_html, question_html


def problem_guid(problem: Problem, kind: str) -> str:
    """A note's identity is its problem: cell, language, GPU, model and parameters (and the card
    kind, since a note keeps its note type). A text or figure fix keeps the GUID; a different
    problem (another seed, another GPU) is another note, except that a problem which does not
    depend on the GPU is the same on every GPU that agrees on what it reads (`same_problem_key`).
    Recipe, slot and seed play no part."""
    import genanki

    return genanki.guid_for("quizgen", "problem", *same_problem_key(problem), kind)


def formula_guid(formula: str, lang: str) -> str:
    """A formula card's identity: the formula and the language, whatever the recipe or seed."""
    import genanki

    return genanki.guid_for("quizgen", "formula", formula, lang)


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


def problem_fields(problem: Problem, kind: str, figure: str = "") -> list[str]:
    """The note fields of `problem` as card kind `kind`, in the note type's field order."""
    source = source_html(problem)
    if kind == "numeric":
        value = answer_value(problem)
        if value is None:
            raise ValueError(f"{problem.id}: no typeable main answer")
        # the card asks what its box takes: the family's one-answer stem where it writes one
        return [question_html(problem, stem=True), value,
                esc(answer_format(problem, problem.lang)) + check_html(problem),
                back_solution_html(problem), figure, source]
    if kind == "mcq":
        return [question_html(problem, stem=True), options_html(problem), correct_html(problem),
                explanations_html(problem), back_solution_html(problem), figure, source]
    if kind == "concept":
        trap = problem.solution.trap
        return [question_html(problem), concept_answer_html(problem),
                concept_reason_html(problem), trap_text_html(trap, problem.lang) if trap else "",
                source]
    raise ValueError(f"unknown card kind {kind!r}")


# ---------------------------------------------------------------------------------------------
# Building the package


def build_package(recipe: DeckRecipe, items: Iterable[DeckItem]) -> DeckPackage:
    """The deck's notes, decks and media from `items` (a list, or the stream of `iter_deck_items`:
    each problem is let go once its note is made)."""
    import genanki

    decks: dict[str, Any] = {}
    description = esc(recipe.description or recipe.title)

    def deck_for(name: str):
        deck = decks.get(name)
        if deck is None:
            deck = decks[name] = genanki.Deck(deck_id(name), name, description=description)
            deck.notes = StoredNotes()
        return deck

    Note = note_class()
    figures = FigureMedia()
    formulas: dict[tuple[str, str], FormulaExample] = {}
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
        figure = figure_html(name) if name is not None else ""
        note = Note(model=note_model(item.kind),
                            fields=problem_fields(problem, item.kind, figure),
                            tags=note_tags(problem, item.kind), guid=guid,
                            due=new_card_position(problem.cell, problem.level))
        deck_for(deck_name(recipe, problem.cell, problem.lang)).add_note(note)
        if "cloze" in recipe.kinds:
            note_formulas(formulas, item)

    for example in seed_free_examples(formulas.values(), recipe):
        text, extra = formula_cloze_html(example)
        tags = ["quizgen::kind::cloze", f"quizgen::lang::{tag_part(example.lang)}",
                f"quizgen::formula::{tag_part(example.name)}"]
        tags += [f"quizgen::cell::{tag_part(cell)}" for cell in example.cells]
        note = Note(model=note_model("cloze"),
                            fields=[text, extra, esc(example.name)], tags=tags,
                            guid=formula_guid(example.name, example.lang),
                            due=new_card_position(None, 0))
        deck_for(deck_name(recipe, None, example.lang)).add_note(note)

    media = {name: figures.files[name] for name in sorted(figures.files)}
    return DeckPackage([decks[name] for name in sorted(decks)], media, len(cells), skipped, figures)


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
