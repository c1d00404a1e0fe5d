"""The subdecks a student sees in Anki's deck list: numbered once each, in the course's order, and
every cell's cards under a name that says what they are."""

from __future__ import annotations

import pytest

from quizgen.export.anki import deck_name
from quizgen.generator import CELLS
from quizgen.recipes import load_deck_recipe
from quizgen.render.phrases import labels
from quizgen.languages import LANGS


@pytest.mark.parametrize("lang", LANGS)
def test_every_subdeck_has_its_own_number(lang):
    recipe = load_deck_recipe()
    groups = {deck_name(recipe, cell, lang).rsplit("::", 1)[1] for cell in CELLS}
    groups |= {deck_name(recipe, None, lang).rsplit("::", 1)[1], labels(lang, "deck-group")["skills"]}
    numbers = [g.split(" ", 1)[0] for g in groups]
    assert len(set(numbers)) == len(numbers), sorted(groups)
    assert all(n.isdigit() for n in numbers)


@pytest.mark.parametrize("lang", LANGS)
def test_real_kernel_cards_are_named_as_such(lang):
    name = deck_name(load_deck_recipe(), "K-1", lang).rsplit("::", 1)[1]
    assert "K-1" in name and name != labels(lang, "deck-group")["other"]
