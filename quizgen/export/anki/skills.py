"""Skill notes: one Anki note per cell and level that holds K pre-solved variants of its problem.

A problem card shows the same numbers at every review, so the scheduler ends up timing a memory of
one answer. A skill note holds K variants (question, answer, worked solution, figure, all made by
the same code as the problem cards), and the card's script shows one of them:

* the variant is a function of the note's key (a stable number from its GUID) and the review day
  (Anki's default day, which starts at 4 am local time); the back shows the front's variant
  even when 4 am falls between the two sides (the front's note of it survives in the page or
  its session storage; else the typed answer decides);
* day ``d`` shows variant ``order[d mod K]``, where ``order`` is a shuffle of the K variants seeded
  by the key: consecutive days differ, and every K consecutive days show every variant once;
* without scripts, CSS shows variant 1 alone, whole and usable.

A skill note's GUID comes from the recipe name, cell, level and language only (never the seed,
K or the GPUs), so a rebuild with new variants updates the note students already review: the note
is the skill. (A problem note's identity is its problem; a skill note's variants are the recipe's
choice, so the recipe's name is part of it.) Skill notes stand in ``<deck>::<language>::6 Skills``
and are stamped through the same lock as problem notes: unchanged, they keep their time.

The front offers Anki's own type-in box (``{{type:Words}}``: every client shows it, AnkiDroid as
its native box); the back reads what was typed from Anki's comparison and checks it against the
shown variant's answer with the grader's accepted forms (``25%``, ``16/64``, ``8 blocks``,
``48 KB``, ``ceil(100/32)``), mirrored in ``templates/cards/answer.js`` (the same reader as the
type-in cards' back), with the kind, unit and tolerance of the answer's spec. The Words field
holds, besides the verdict's words, variant 1's answer: what Anki itself compares with, right
where no script runs (variant 1 is what such a viewer shows). The back shows the variant the
front showed, 4 am or not (see ``templates/cards/skill.js``).
"""

from __future__ import annotations

import hashlib
import html
from functools import cache
from typing import Any, Callable

from quizgen.export.anki.layout import (back_parts_html, concept_answer_html, solution_parts,
                                        source_html)
from quizgen.export.anki.meaning import checked_kinds
from quizgen.export.anki.plan import fresh_problem
from quizgen.export.anki.shared import (StoredNotes, cell_exists, note_class, card_file, card_css,
                                        card_template, deck_id, group_deck_name,
                                        new_card_position, tag_part)
from quizgen.export.anki.typed import answer_format, answer_value
from quizgen.problems.model import Problem
from quizgen.recipes import SEED_WINDOW, DeckRecipe, Slot, problem_seed
from quizgen.render.cards import (FigureMedia, esc, figure_html, label_html, label_span, labels,
                                  question_html, step_html)


#: Fixed note type ID and name of skill notes (never change; new fields mean a new name and ID).
SKILL_MODEL_ID = 1839252001


SKILL_MODEL_NAME = "quizgen skill v1"


SKILL_FIELDS = ["Skill", "Key", "Questions", "Answers", "Words"]


def skill_guid(recipe: DeckRecipe, cell: str, level: int, lang: str) -> str:
    """The note's identity: the skill (recipe, cell, level, language), not any of its variants."""
    import genanki

    return genanki.guid_for("quizgen", recipe.name, "skill", cell, level, lang)


def skill_key(guid: str) -> int:
    """A stable non-negative 31-bit number from the GUID: it seeds the card's order of variants."""
    digest = hashlib.blake2b(guid.encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big") % (1 << 31)


def variant_slots(recipe: DeckRecipe, cell: str, level: int, lang: str) -> list[Slot]:
    """The K variants' slots: seeds past the problem cards' window, so a skill note does not
    repeat the numbers of the deck's problem cards."""
    slots = []
    for j in range(recipe.variants):
        gpu = recipe.gpus[j % len(recipe.gpus)] if recipe.gpus else None
        seed = problem_seed(recipe.seed, cell, level, SEED_WINDOW + j)
        slots.append(Slot(cell, level, SEED_WINDOW + j, lang, gpu, seed))
    return [slot for slot in slots if cell_exists(cell, level, slot.gpu)]


def skill_count(recipe: DeckRecipe) -> int:
    """How many variants the recipe's skill notes hold in all (0 without the skill kind)."""
    if "skill" not in recipe.kinds:
        return 0
    return len(recipe.langs) * len(recipe.cells) * len(recipe.levels) * recipe.variants


# ---------------------------------------------------------------------------------------------
# One variant as HTML


def _word(lang: str, key: str, **context: Any) -> str:
    from quizgen.render.phrases import phrase

    return phrase(lang, "skill", key, context)


def typed_check(problem: Problem) -> dict[str, str] | None:
    """What the card's script needs to check a typed main answer, from the answer's spec (the
    same kind, unit and tolerance the grader uses), or None when it is not a number to type."""
    key = problem.main_answer
    spec = problem.answer_specs.get(key or "")
    if spec is None or key not in problem.answers:
        return None
    value = problem.answers[key]
    if spec["kind"] == "coords":
        shown = answer_value(problem)
        return None if shown is None else {"answer": shown, "kind": "list", "tol": "", "unit": ""}
    if spec["kind"] not in checked_kinds() or isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    tol = spec.get("tolerance") or 0
    return {"answer": repr(value) if isinstance(value, float) else str(value), "kind": spec["kind"],
            "tol": repr(float(tol)) if tol else "", "unit": spec.get("unit") or ""}


def question_block(problem: Problem, number: int) -> str:
    """Variant `number` (1-based) as the front shows it; the typed-answer data rides along. A
    variant whose answer is typed asks only that answer (the family's one-answer stem, where it
    writes one): the card asks what its box takes."""
    attrs = f'class="qz-v" data-v="{number}"'
    check = typed_check(problem)
    fmt = ""
    if check is not None:
        attrs += "".join(f' data-{name}="{html.escape(value, quote=True)}"'
                         for name, value in check.items())
        fmt = f'<div class="qz-format">{esc(answer_format(problem, problem.lang))}</div>'
    return f"<div {attrs}>{question_html(problem, stem=check is not None)}{fmt}</div>"


def answer_block(problem: Problem, number: int, total: int, figure: str) -> str:
    """Variant `number` as the back shows it: answer, trap, figure, then the steps folded."""
    words = labels(problem.lang)
    sol = problem.solution
    where = esc(_word(problem.lang, "variant", number=number, total=total))
    source = f'<div class="qz-source">{where} · {source_html(problem)}</div>'
    parts = solution_parts(sol)
    # what the back's script calls this variant when it folds it under another day's
    other = html.escape(_word(problem.lang, "other"), quote=True)
    attrs = f'class="qz-v" data-v="{number}" data-other="{other}"'
    if parts is not None:           # one kernel on several GPUs: each GPU's answer, then folds
        shown = back_parts_html(problem, parts, "qz-fold")
        figure_div = f'<div class="qz-figure">{figure}</div>' if figure else ""
        return f'<div {attrs}>{shown}{figure_div}{source}</div>'
    answer = sol.answer or concept_answer_html(problem)
    out = [f'<div class="qz-answer">{label_span(words["answer"])}{esc(answer)}</div>']
    if sol.trap:
        out.append(f'<div class="qz-trap">{label_span(words["trap"])}{esc(sol.trap)}</div>')
    if figure:
        out.append(f'<div class="qz-figure">{figure}</div>')
    inner = []
    if sol.forecast:
        inner.append(f'<div class="qz-forecast">{label_span(words["forecast"])}{esc(sol.forecast)}</div>')
    if sol.steps:
        steps_html = "".join(step_html(step, label_html(problem.lang)) for step in sol.steps)
        inner.append(f'<ol class="qz-steps">{steps_html}</ol>')
    if sol.verify:
        items = "".join(f"<li>{esc(line)}</li>" for line in sol.verify)
        inner.append(f'<div class="qz-verify">{label_span(words["verify"])}<ul>{items}</ul></div>')
    if inner:
        summary = esc(_word(problem.lang, "steps"))
        out.append(f'<details class="qz-fold"><summary>{summary}</summary>{"".join(inner)}</details>')
    out.append(source)
    return f'<div {attrs}>{"".join(out)}</div>'


def skill_name(problem: Problem, level: int) -> str:
    """The note's first field (what the browser lists): the cell and the level, true of every
    variant (a family's title can differ from one variant to the next)."""
    return esc(f"{problem.cell} · {_word(problem.lang, 'level')} {level}")


@cache
def _words_span(lang: str) -> str:
    attrs = "".join(f' data-{key}="{html.escape(_word(lang, key), quote=True)}"'
                    for key in ("typed", "right", "wrong", "unread"))
    return f"<span{attrs}></span>"


def words_html(variants: list[Problem]) -> str:
    """The Words field, which the card's type-in box is for (``{{type:Words}}``): what the script
    says about a typed answer, in the note's language, and as text variant 1's answer, what Anki
    itself compares a typed answer with (a viewer without scripts shows variant 1). Empty, so
    that no client offers a box, when a variant's answer is not a number to type."""
    if not variants or any(typed_check(p) is None for p in variants):
        return ""
    return _words_span(variants[0].lang) + esc(answer_value(variants[0]) or "")


# ---------------------------------------------------------------------------------------------
# The note type


@cache
def skill_script() -> str:
    """The card script: the variant picker (skill.js) with the answer reader (answer.js) inline."""
    return card_template("skill.js")


@cache
def skill_model():
    """The genanki note type of skill notes (fixed ID; templates carry the variant picker)."""
    import genanki

    script = "<script>\n" + skill_script() + "</script>"
    front = card_file("skill.front.html").replace("<!-- skill.js -->", script)
    back = card_file("skill.back.html").replace("<!-- skill.js -->", script)
    return genanki.Model(
        SKILL_MODEL_ID, SKILL_MODEL_NAME, fields=[{"name": f} for f in SKILL_FIELDS],
        templates=[{"name": "quizgen skill", "qfmt": front, "afmt": back}],
        css=card_css() + "\n" + card_file("skill.css"), sort_field_index=0)


# ---------------------------------------------------------------------------------------------
# Building the notes


def skill_notes(recipe: DeckRecipe, *, problems_for=None, figures: FigureMedia | None = None,
                progress: Callable[[int], None] | None = None):
    """Yield (deck name, genanki note, cell) for every skill of the recipe (language, cell, level).

    `progress` is called with the number of variants made so far.
    """
    from quizgen.generator import generate_worked

    source = problems_for or generate_worked     # a variant is never asked as a multiple choice
    figures = figures if figures is not None else FigureMedia()
    Note = note_class()
    model = skill_model()
    done = 0
    for lang in recipe.langs:
        deck = skill_deck_name(recipe, lang)
        for cell in recipe.cells:
            for level in recipe.levels:
                seen: set[tuple[str, ...]] = set()
                questions, answers, variants = [], [], []
                first = None
                slots = variant_slots(recipe, cell, level, lang)
                if not slots:
                    continue        # no problem of this cell on the deck's GPU
                for number, slot in enumerate(slots, 1):
                    problem = fresh_problem(source, slot, seen)
                    first = first or problem
                    variants.append(problem)
                    name = figures.add(problem)
                    figure = figure_html(name) if name is not None else ""
                    questions.append(question_block(problem, number))
                    answers.append(answer_block(problem, number, len(slots), figure))
                    done += 1
                    if progress is not None:
                        progress(done)
                guid = skill_guid(recipe, cell, level, lang)
                fields = [skill_name(first, level), str(skill_key(guid)),
                          "".join(questions), "".join(answers), words_html(variants)]
                tags = [f"quizgen::cell::{tag_part(cell)}", f"quizgen::level::{level}",
                        f"quizgen::lang::{tag_part(lang)}", "quizgen::kind::skill"]
                tags += [f"quizgen::topic::{tag_part(t)}" for t in first.topics]
                yield deck, Note(model=model, fields=fields, tags=list(dict.fromkeys(tags)),
                                 guid=guid, due=new_card_position(cell, level)), cell


def skill_deck_name(recipe: DeckRecipe, lang: str) -> str:
    """``<recipe deck>::<language>::6 Skills``: named like the problem decks, so each language's
    skills stand in that language's deck."""
    from quizgen.render.phrases import labels

    return group_deck_name(recipe, lang, labels(lang, "deck-group")["skills"])


def add_skills(package, recipe: DeckRecipe, *, problems_for=None,
               progress: Callable[[int], None] | None = None) -> None:
    """Add the recipe's skill notes (and their figures) to a built `DeckPackage`, in place."""
    import genanki

    if "skill" not in recipe.kinds:
        return
    decks = {deck.name: deck for deck in package.decks}
    description = esc(recipe.description or recipe.title)
    # one figure table for the deck: a figure a problem note already drew is not drawn again
    figures = package.figures if package.figures is not None else FigureMedia()
    cells = set()
    for name, note, cell in skill_notes(recipe, problems_for=problems_for, figures=figures,
                                        progress=progress):
        deck = decks.get(name)
        if deck is None:
            deck = decks[name] = genanki.Deck(deck_id(name), name, description=description)
            deck.notes = StoredNotes()
        deck.add_note(note)
        cells.add(cell)
    package.decks = [decks[name] for name in sorted(decks)]
    media = dict(package.media)
    media.update(figures.files)
    package.media = {name: media[name] for name in sorted(media)}
    package.cells = max(package.cells, len(cells))


def has_problem_kinds(recipe: DeckRecipe) -> bool:
    """Whether the recipe asks for any note made from a single problem."""
    return any(kind != "skill" for kind in recipe.kinds)


def split_progress(recipe: DeckRecipe, progress: Callable[[int, int], None] | None):
    """(progress for the problem notes, progress for the skill variants): one count over both."""
    if progress is None:
        return None, None
    from quizgen.recipes import plan_slots

    problems = len(plan_slots(recipe)) if has_problem_kinds(recipe) else 0
    total = problems + skill_count(recipe)
    return (lambda done, _total: progress(done, total)), (lambda done: progress(problems + done, total))
