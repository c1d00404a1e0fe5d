"""How an export reads its recipe: a deck or an exam recipe, with its ``[lms]`` table."""

from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from quizgen.errors import QuizgenError
from quizgen.export.lms.grades import MOODLE_GRADES, grade_text, is_moodle_grade, moodle_grade

__all__ = ["LmsOptions", "lms_options", "BankRecipe", "load_bank_recipe"]


@dataclass(frozen=True, slots=True)
class LmsOptions:
    """The recipe's ``[lms]`` table."""

    default_partial: float = 0.0
    partial: tuple[tuple[str, float], ...] = ()

    def grade_for(self, misconception: str | None) -> float:
        return dict(self.partial).get(misconception or "", self.default_partial)


def _grade(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise QuizgenError(f"got {value!r}; expected a percentage", field=where)
    if not is_moodle_grade(value) or value >= 100:
        allowed = ", ".join(grade_text(g) for g in MOODLE_GRADES if g < 100)
        raise QuizgenError(f"got {value}; a wrong answer's grade must be one of Moodle's: "
                           f"{allowed}", field=where)
    return moodle_grade(value)


def lms_options(table: Any) -> LmsOptions:
    """Validate a recipe's ``[lms]`` table."""
    if table is None:
        return LmsOptions()
    if not isinstance(table, dict):
        raise QuizgenError(f"got {table!r}; expected a table", field="lms")
    unknown = sorted(set(table) - {"default_partial", "partial"})
    if unknown:
        raise QuizgenError(f"unknown key {unknown[0]!r}; expected default_partial or partial",
                           field="lms")
    default = _grade(table.get("default_partial", 0), "lms.default_partial")
    partial = table.get("partial", {})
    if not isinstance(partial, dict):
        raise QuizgenError(f"got {partial!r}; expected a table such as {{ no_floor = 50 }}",
                           field="lms.partial")
    from quizgen.recipes import check_misconception_keys

    check_misconception_keys(partial, "lms.partial")
    pairs = tuple((str(k), _grade(v, f"lms.partial.{k}")) for k, v in sorted(partial.items()))
    return LmsOptions(default, pairs)


# ---------------------------------------------------------------------------------------------
# Recipes: deck recipes (cells × variants) and exam recipes (questions × variants)


@dataclass(frozen=True, slots=True)
class BankRecipe:
    """A deck or exam recipe as an export reads it."""

    name: str
    title: str
    deck: Any = None            # quizgen.recipes.DeckRecipe, or None
    exam: Any = None            # quizgen.export.sheet.ExamRecipe, or None
    lms: LmsOptions = LmsOptions()


def load_bank_recipe(path: str | Path | None) -> BankRecipe:
    """A deck recipe or an exam recipe (it has ``[[questions]]``), with its ``[lms]`` table.

    None loads the packaged default deck recipe; a bare name looks among the packaged deck
    recipes, then the packaged exam recipes.
    """
    from quizgen.recipes import DEFAULT_RECIPE, packaged_path, recipe_from_dict

    if path is None:
        file = packaged_path("decks", DEFAULT_RECIPE)
    else:
        file = Path(path)
        if not file.is_file() and not file.suffix and file.name == str(path):
            for folder in ((), ("exams",)):
                candidate = packaged_path("decks", *folder, f"{file.name}.toml")
                if candidate.is_file():
                    file = candidate
                    break
    try:
        data = tomllib.loads(file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise QuizgenError(f"no such recipe file: {path}", field="recipe") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise QuizgenError(f"cannot read {path}: {exc}", field="recipe") from None
    except tomllib.TOMLDecodeError as exc:
        raise QuizgenError(f"{file.name} is not valid TOML ({exc})", field="recipe") from None
    try:
        lms = lms_options(data.pop("lms", None))
    except QuizgenError as exc:
        raise QuizgenError(f"{file.name}: {exc}") from None
    if "questions" in data:
        from quizgen.export.sheet import parse_exam_recipe

        try:
            exam = parse_exam_recipe(data)
        except QuizgenError as exc:
            raise QuizgenError(f"{file.name}: {exc}") from None
        return BankRecipe(name=file.stem, title=exam.title, exam=exam, lms=lms)
    data.setdefault("name", file.stem)
    deck = recipe_from_dict(data, source=str(file))
    return BankRecipe(name=deck.name, title=deck.title, deck=deck, lms=lms)
