"""The deck's introduction: one note per language, the first new card a student sees, that sets
up the picture every occupancy solution uses (seed 000's bucket): each resource of the SM is a
lid at the number of whole blocks it leaves room for, the water is the resident blocks, and the
lowest lid decides how high the water rises.

Its worked example is one launch solved by the engine on the notes' SM: the steps are the
engine's own derivation in the language's words (the same phrases as every OCC solution), the
figure is the occupancy lids figure of that result, and the card's sentences take their numbers
from the result, never from the text.

The note stands first in the deck's occupancy subdeck with new-card position `INTRO_POSITION`
(below every problem card's); its GUID is the introduction and the language, whatever the recipe.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from quizgen.engine.occupancy import OccupancyResult, launch_config, occupancy
from quizgen.export.anki.shared import (StoredNotes, note_class, deck_id, deck_name, note_model,
                                        tag_part)
from quizgen.gpus import GPU, resolve_gpu
from quizgen.recipes import DeckRecipe
from quizgen.render.cards import FigureMedia, esc, figure_html, label_html, labels, step_html
from quizgen.render.phrases import labels as phrase_labels
from quizgen.render.phrases import phrase, phrase_list
from quizgen.render.solution import solution_steps

#: The worked example: a launch on the notes' SM whose lids stand at different heights, one of
#: them alone lowest and below a fraction that the floor cuts (a test checks both).
EXAMPLE_GPU = "textbook"
EXAMPLE_LAUNCH = {"threads_per_block": 256, "regs_per_thread": 40, "smem_per_block": 12 * 1024}
#: New-card position of the introduction: problem cards start at 2 (`new_card_position`).
INTRO_POSITION = 0
#: The lids in the order the figure draws them.
_LIDS = ("registers", "shared_memory", "warps", "blocks")


@cache
def example() -> tuple[GPU, OccupancyResult]:
    """The notes' SM and the engine's result (with its derivation) for the example launch."""
    gpu = resolve_gpu(EXAMPLE_GPU)
    return gpu, occupancy(gpu, launch_config(**EXAMPLE_LAUNCH), explain=True)


def intro_guid(lang: str) -> str:
    """The note's identity: the introduction in `lang` (no recipe, seed or example in it)."""
    import genanki

    return genanki.guid_for("quizgen", "introduction", "lids", lang)


def wants_introduction(recipe: DeckRecipe) -> bool:
    """Whether the deck gets the introduction: it has occupancy problem cards (the picture is
    theirs); a deck of skill notes only, or without an OCC cell, does not."""
    return any(kind != "skill" for kind in recipe.kinds) and any(
        cell.startswith("OCC-") for cell in recipe.cells)


def intro_context(lang: str) -> dict[str, Any]:
    """The numbers the card's sentences use, all from the engine's result."""
    gpu, result = example()
    cfg = result.config
    names = phrase_labels(lang, "figure-label")
    lids = [(names[f"lid.{name}"], result.limits[name]) for name in _LIDS
            if result.limits.get(name) is not None]
    return {"gpu": gpu.name, "R_SM": gpu.regs_per_sm, "S_SM": gpu.smem_per_sm,
            "T": cfg.threads_per_block, "r": cfg.regs_per_thread,
            "s": cfg.smem_per_block, "lids": lids, "blocks": result.blocks_per_sm,
            "lowest": [names[f"lid.{name}"] for name in result.limiter],
            "w": result.warps_per_block, "warps": result.active_warps,
            "max_warps": result.max_warps_per_sm,
            "occupancy": result.occupancy}


def example_html(lang: str, figure: str) -> str:
    """The worked example: the launch, its figure, then the engine's steps folded."""
    gpu, result = example()
    context = intro_context(lang)
    steps = solution_steps(result.steps, lang, salt=intro_guid(lang), gpu=gpu.to_dict())
    html_words = label_html(lang)
    out = [f'<p class="qz-q">{esc(phrase(lang, "intro", "example", context))}</p>']
    if figure:
        out.append(f'<div class="qz-figure">{figure}</div>')
    out.append(f'<p>{esc(phrase(lang, "intro", "reading", context))}</p>')
    summary = phrase(lang, "intro", "steps", {"n": len(steps)})
    out.append(f'<details class="qz-details"><summary>{esc(summary)}</summary>'
               '<ol class="qz-steps">' + "".join(step_html(s, html_words) for s in steps)
               + "</ol></details>")
    return "".join(out)


def intro_fields(lang: str, figure: str) -> list[str]:
    """The concept note's fields (Question, Answer, Reason, Trap, Source) of the introduction."""
    context = intro_context(lang)
    picture = "".join(f'<p class="qz-q">{esc(line)}</p>'
                      for line in phrase_list(lang, "intro", "picture", context))
    question = picture + f'<p class="qz-q">{esc(phrase(lang, "intro", "question", context))}</p>'
    words = labels(lang)
    trap = f'<span class="qz-label">{esc(words["trap"])}</span> ' + esc(
        phrase(lang, "intro", "trap", context))
    return [question, esc(phrase(lang, "intro", "answer", context)), example_html(lang, figure),
            trap, esc(phrase(lang, "intro", "source", context))]


def intro_figure(figures: FigureMedia, lang: str) -> str:
    """The example's occupancy lids figure as a card's image ('' without the figures module)."""
    gpu, result = example()
    name = figures.add_spec({"kind": "occupancy_lids", "gpu": gpu.name, "model": result.model,
                             **EXAMPLE_LAUNCH, "lang": lang})
    return figure_html(name) if name is not None else ""


def add_introduction(package, recipe: DeckRecipe) -> None:
    """Add one introduction note per language of the recipe to a built `DeckPackage`, in place:
    in the language's occupancy subdeck, first in its new-card order."""
    import genanki

    if not wants_introduction(recipe):
        return
    decks = {deck.name: deck for deck in package.decks}
    figures = package.figures if package.figures is not None else FigureMedia()
    cell = next(cell for cell in recipe.cells if cell.startswith("OCC-"))
    Note = note_class()
    for lang in recipe.langs:
        name = deck_name(recipe, cell, lang)
        deck = decks.get(name)
        if deck is None:
            deck = decks[name] = genanki.Deck(deck_id(name), name,
                                              description=esc(recipe.description or recipe.title))
            deck.notes = StoredNotes()
        tags = ["quizgen::kind::intro", f"quizgen::lang::{tag_part(lang)}",
                "quizgen::topic::occupancy"]
        deck.add_note(Note(model=note_model("concept"), fields=intro_fields(lang, intro_figure(
            figures, lang)), tags=tags, guid=intro_guid(lang), due=INTRO_POSITION))
    package.decks = [decks[name] for name in sorted(decks)]
    media = dict(package.media)
    media.update(figures.files)
    package.media = {name: media[name] for name in sorted(media)}
