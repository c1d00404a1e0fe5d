"""The deck's introduction card: the first new card Anki's own scheduler shows, in each language,
setting up the lids picture with a worked example whose numbers and figure are the engine's."""

from __future__ import annotations

import html
import re

import pytest

from quizgen.export import anki as A
from quizgen.export.anki import intro
from quizgen.render.cards import FigureMedia
from quizgen.recipes import apply_overrides, load_deck_recipe, plan_slots, recipe_from_dict
from quizgen.render import figures
from quizgen.render.phrases import labels
from quizgen.languages import language_name

from test_anki_export import T0, import_apkg, new_collection


def test_the_example_shows_a_lowest_lid_below_the_others_and_a_floor():
    gpu, result = intro.example()
    finite = [n for n in result.limits.values() if n is not None]
    assert len(result.limiter) == 1 and sorted(finite).count(result.blocks_per_sm) == 1
    cfg = result.config
    assert gpu.regs_per_sm % (cfg.threads_per_block * cfg.regs_per_thread) != 0   # the floor cuts
    assert result.limiter == ["registers"] and result.model == "textbook"


@pytest.mark.parametrize("lang", ["hinglish", "en"])
def test_the_card_says_the_engines_numbers(lang):
    gpu, result = intro.example()
    media = FigureMedia()
    image = intro.intro_figure(media, lang)
    question, answer, reason, trap, source = [html.unescape(f) for f in
                                              intro.intro_fields(lang, image)]
    # the figure is the engine's own lids figure of this result
    (svg,) = media.files.values()
    assert svg.decode("utf-8") == figures.occupancy_lids(result, lang)
    assert figures.media_name(svg.decode("utf-8")) in reason
    names = labels(lang, "figure-label")
    for name, blocks in result.limits.items():
        if blocks is not None:
            assert f"{names['lid.' + name]} = {blocks}" in reason, name
    occupancy = f"{round(result.occupancy * 100)}%"
    assert (f"{result.blocks_per_sm} blocks × {result.warps_per_block} warps = "
            f"{result.active_warps}") in reason and occupancy in reason
    assert f"{result.max_warps_per_sm}" in reason
    # every step of the engine's derivation, its result among the card's math
    assert reason.count("<li>") == len(result.steps)
    assert "lid" in question and "B_max" in question and trap and source
    assert "min(" in answer


def _first_new_card(path, tmp_path, deck: str):
    col = new_collection(tmp_path, deck.replace(":", "_"))
    try:
        log = import_apkg(col, path)
        col.decks.select(col.decks.id_for_name(deck))
        queued = col.sched.get_queued_cards(fetch_limit=1)
        card = col.get_card(queued.cards[0].card.id)
        note = card.note()
        return len(log.new), note.guid, list(note.fields), col.decks.name(card.did), col.note_count()
    finally:
        col.close()


@pytest.mark.slow
@pytest.mark.parametrize("lang", ["hinglish", "en"])
def test_the_default_decks_first_new_card_is_the_introduction(tmp_path, lang):
    recipe = apply_overrides(load_deck_recipe(None), lang=lang)
    out = tmp_path / f"default-{lang}.apkg"
    summary = A.build_deck(recipe, out, timestamp=T0)
    new, guid, fields, deck, notes = _first_new_card(out, tmp_path, recipe.deck)
    assert guid == intro.intro_guid(lang)
    (image,) = re.findall(r"<img [^>]*>", fields[2])
    assert fields == intro.intro_fields(lang, image)
    assert deck == A.deck_name(recipe, "OCC-1", lang)
    assert new == notes == summary.notes


def test_one_introduction_per_language_of_a_deck_with_occupancy_cells(tmp_path):
    both = recipe_from_dict({"name": "intro", "deck": "quizgen::Intro", "cells": ["OCC-1", "W-A"],
                             "per_cell": 1, "levels": [1], "seed": 3, "lang": "both",
                             "kinds": ["numeric", "mcq"]})
    package = A.build_package(both, A.deck_items(both))
    before = A.count_cards(package)[0]
    intro.add_introduction(package, both)
    assert A.count_cards(package)[0] == before + len(both.langs) == len(plan_slots(both)) + 2
    guids = {note.guid for deck in package.decks for note in deck.notes}
    assert {intro.intro_guid(lang) for lang in both.langs} <= guids
    out = tmp_path / "both.apkg"
    A.build_deck(both, out, timestamp=T0)
    for lang in both.langs:       # each language's deck starts with its own introduction
        new, guid, *_ = _first_new_card(out, tmp_path, f"{both.deck}::{language_name(lang)}")
        assert guid == intro.intro_guid(lang)
    warps_only = recipe_from_dict({"name": "w", "deck": "quizgen::W", "cells": ["W-A"],
                                   "per_cell": 1, "levels": [1], "seed": 3})
    skills_only = recipe_from_dict({"name": "s", "deck": "quizgen::S", "cells": ["OCC-1"],
                                    "levels": [1], "seed": 3, "kind": "skill", "variants": 2})
    assert not intro.wants_introduction(warps_only) and not intro.wants_introduction(skills_only)
