"""What ``quizgen export`` reads: a deck recipe (cells × variants) or an exam recipe (questions ×
variants, it has ``[[questions]]``), with its ``[lms]`` grades."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from quizgen.recipes.deck import recipe_from_dict
from quizgen.recipes.exam import parse_exam_recipe
from quizgen.recipes.lms import LmsOptions, lms_options
from quizgen.recipes.read import find_recipe, in_file, read_recipe


@dataclass(frozen=True, slots=True)
class BankRecipe:
    """A deck or exam recipe as an export reads it."""

    name: str
    title: str
    deck: Any = None            # quizgen.recipes.DeckRecipe, or None
    exam: Any = None            # quizgen.recipes.ExamRecipe, or None
    lms: LmsOptions = LmsOptions()


def load_bank_recipe(path: str | Path | None) -> BankRecipe:
    """A deck recipe or an exam recipe (it has ``[[questions]]``), with its ``[lms]`` table.

    None loads the packaged default deck recipe; a bare name looks among the packaged deck
    recipes, then the packaged exam recipes.
    """
    file = find_recipe(path, "bank")
    data = read_recipe(file, "bank")
    with in_file(file):
        lms = lms_options(data.pop("lms", None))
    if "questions" in data:
        with in_file(file):
            exam = parse_exam_recipe(data)
        return BankRecipe(name=file.stem, title=exam.title, exam=exam, lms=lms)
    data.setdefault("name", file.stem)
    deck = recipe_from_dict(data, source=str(file))
    return BankRecipe(name=deck.name, title=deck.title, deck=deck, lms=lms)
