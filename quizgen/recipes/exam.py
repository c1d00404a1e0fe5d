"""Exam recipes (``decks/exams/*.toml``): the cover text, the questions (cells, level, points,
boxes asked, GPU, working space), how problems are drawn, and the grade bands.

Read with `load_exam_recipe` (a file or a packaged name, through `quizgen.recipes.read`), or
validated from a dict with `parse_exam_recipe` (a manifest's copy, command-line cover fields).
Every mistake is one `QuizgenError` line naming the field.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from quizgen.errors import QuizgenError, finite_number, require_int
from quizgen.gpus import get_gpu
from quizgen.problems import LEVELS
from quizgen.recipes.deck import known_cells
from quizgen.recipes.lms import lms_options
from quizgen.recipes.read import find_recipe, in_file, read_recipe
from quizgen.languages import DEFAULT_LANG, LANGS


@dataclass(frozen=True, slots=True)
class ExamQuestion:
    """One question of an exam: which cells, how hard, worth what, which answers are asked.

    `cell` is one scenario cell, or several: each student's version draws one of them, so that a
    limiter or a yes/no outcome differs across the class (the cells must share the boxes asked).
    `gpu` likewise names one GPU preset or several. `points` is the question's total, split
    evenly across its boxes, or a table of points per box (``{blocks_per_sm = 2, occupancy = 4}``).
    """

    cell: str | tuple[str, ...]
    level: int = 1
    points: float | dict[str, float] = 1
    answers: tuple[str, ...] | None = None   # answer keys to ask; None = every answer
    gpu: str | tuple[str, ...] | None = None  # overrides the recipe's GPU for this question
    space: float = 4.0                       # working space under the answer boxes, in cm

    @property
    def cells(self) -> tuple[str, ...]:
        return (self.cell,) if isinstance(self.cell, str) else tuple(self.cell)

    @property
    def gpus(self) -> tuple[str | None, ...]:
        return (self.gpu,) if self.gpu is None or isinstance(self.gpu, str) else tuple(self.gpu)

    @property
    def total(self) -> float:
        if isinstance(self.points, dict):
            total = sum(self.points.values())
            return int(total) if float(total).is_integer() else total
        return self.points

    def box_points(self, key: str, boxes: int) -> float:
        """The points of one box (an even share when the recipe gives one number)."""
        if isinstance(self.points, dict):
            return self.points[key]
        return self.points / boxes

    def to_dict(self) -> dict[str, Any]:
        return {"cell": self.cell if isinstance(self.cell, str) else list(self.cell),
                "level": self.level,
                "points": dict(self.points) if isinstance(self.points, dict) else self.points,
                "answers": list(self.answers) if self.answers is not None else None,
                "gpu": self.gpu if self.gpu is None or isinstance(self.gpu, str) else list(self.gpu),
                "space": self.space}


@dataclass(frozen=True, slots=True)
class ExamRecipe:
    """An exam: its cover text, its questions and how problems are drawn (GPU, language, seed).

    `shuffle` prints each student's questions in an order of their own (recorded in the
    manifest); questions keep their numbers, so the answer sheet's columns stay the same.
    """

    title: str
    questions: tuple[ExamQuestion, ...]
    course: str = ""
    date: str = ""
    duration: str = ""
    instructions: str = ""
    gpu: str | None = None
    lang: str = DEFAULT_LANG
    seed: int = 0
    shuffle: bool = False
    grades: tuple[tuple[str, float], ...] = ()   # [grades] A = 85 …: label, least percent

    @property
    def total_points(self) -> float:
        return sum(q.total for q in self.questions)

    def to_dict(self) -> dict[str, Any]:
        return {
            "title": self.title, "course": self.course, "date": self.date,
            "duration": self.duration, "instructions": self.instructions, "gpu": self.gpu,
            "lang": self.lang, "seed": self.seed, "shuffle": self.shuffle,
            "questions": [q.to_dict() for q in self.questions],
            **({"grades": dict(self.grades)} if self.grades else {}),
        }


_RECIPE_KEYS = {"title", "course", "date", "duration", "instructions", "gpu", "lang", "seed",
                "shuffle", "questions", "lms", "grades"}
_QUESTION_KEYS = {"cell", "level", "points", "answers", "gpu", "space"}


def load_exam_recipe(path: str | os.PathLike[str] | None = None) -> ExamRecipe:
    """Read an exam recipe (TOML); any mistake is one `QuizgenError` line naming the field.

    None loads the packaged ``midterm``; a bare name that is not a file is looked up among the
    packaged exam recipes.
    """
    file = find_recipe(path, "exam")
    raw = read_recipe(file, "exam")
    with in_file(file):
        return parse_exam_recipe(raw)


def parse_exam_recipe(raw: dict[str, Any]) -> ExamRecipe:
    """Validate a recipe already read into a dict (from TOML or a manifest)."""
    if not isinstance(raw, dict):
        raise QuizgenError("expected a table of recipe fields", field="recipe")
    unknown = sorted(set(raw) - _RECIPE_KEYS)
    if unknown:
        raise QuizgenError(f"unknown field {unknown[0]!r}; fields are: {', '.join(sorted(_RECIPE_KEYS))}",
                           field="recipe")
    if "lms" in raw:        # grades of the LMS banks (quizgen export): checked here, used there
        lms_options(raw["lms"])
    title = _text(raw, "title", required=True)
    lang = _text(raw, "lang") or DEFAULT_LANG
    if lang not in LANGS:
        raise QuizgenError(f"got {lang!r}; expected one of: {', '.join(LANGS)}", field="lang")
    gpu = _gpu_name(raw.get("gpu"), "gpu")
    seed = require_int("seed", raw.get("seed", 0), minimum=0)
    items = raw.get("questions")
    if not isinstance(items, list) or not items:
        raise QuizgenError("an exam needs at least one [[questions]] entry", field="questions")
    questions = tuple(_question(i + 1, item) for i, item in enumerate(items))
    shuffle = raw.get("shuffle", False)
    if not isinstance(shuffle, bool):
        raise QuizgenError(f"got {shuffle!r}; expected true or false", field="shuffle")
    return ExamRecipe(
        title=title, questions=questions, course=_text(raw, "course"), date=_text(raw, "date"),
        duration=_text(raw, "duration"), instructions=_text(raw, "instructions"), gpu=gpu,
        lang=lang, seed=seed, shuffle=shuffle, grades=grade_bands(raw.get("grades")))


def _text(raw: dict[str, Any], key: str, *, required: bool = False) -> str:
    value = raw.get(key)
    if value is None:
        if required:
            raise QuizgenError("missing; every exam needs one", field=key)
        return ""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and key != "title":
        return str(value)   # duration = 90, a date written as a number
    if hasattr(value, "isoformat") and key == "date":
        return value.isoformat()   # TOML dates are dates
    if not isinstance(value, str):
        raise QuizgenError(f"got {value!r}; expected text", field=key)
    if required and not value.strip():
        raise QuizgenError("is empty", field=key)
    return value.strip()


def _gpu_name(value: Any, where: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise QuizgenError(f"got {value!r}; expected a GPU preset name", field=where)
    get_gpu(value)   # raises QuizgenError(field="gpu") for an unknown preset
    return value.strip().lower()


def _question(number: int, item: Any) -> ExamQuestion:
    where = f"questions[{number}]"
    if not isinstance(item, dict):
        raise QuizgenError(f"got {item!r}; expected a table with cell, level, points", field=where)
    unknown = sorted(set(item) - _QUESTION_KEYS)
    if unknown:
        raise QuizgenError(f"unknown field {unknown[0]!r}; fields are: "
                           f"{', '.join(sorted(_QUESTION_KEYS))}", field=where)
    cells = _question_cells(item.get("cell"), where)
    level = require_int(f"{where}.level", item.get("level", 1), minimum=LEVELS[0],
                        maximum=LEVELS[-1])
    answers = _question_answers(item.get("answers"), where)
    points, answers = _question_points(item.get("points", 1), answers, where)
    gpus = item.get("gpu")
    if isinstance(gpus, list):
        if not gpus:
            raise QuizgenError("an empty list; give a GPU preset or several", field=f"{where}.gpu")
        gpu: Any = tuple(dict.fromkeys(_gpu_name(g, f"{where}.gpu") for g in gpus))
        gpu = gpu[0] if len(gpu) == 1 else gpu
    else:
        gpu = _gpu_name(gpus, f"{where}.gpu")
    space = item.get("space", 4.0)
    if isinstance(space, bool) or not isinstance(space, (int, float)) or not 0 <= space <= 25:
        raise QuizgenError(f"got {space!r}; expected centimetres from 0 to 25", field=f"{where}.space")
    return ExamQuestion(cell=cells[0] if len(cells) == 1 else cells, level=level, points=points,
                        answers=answers, gpu=gpu, space=float(space))


def _question_cells(cells: Any, where: str) -> tuple[str, ...]:
    if isinstance(cells, str):
        cells = [cells]
    if (not isinstance(cells, list) or not cells
            or not all(isinstance(c, str) and c.strip() for c in cells)):
        raise QuizgenError("missing; give a scenario cell such as OCC-2, or a list of cells",
                           field=f"{where}.cell")
    known = known_cells()
    for cell in cells:
        if cell.strip().upper() not in known:
            raise QuizgenError(f"unknown cell {cell!r}; cells are: {', '.join(known)}",
                               field=f"{where}.cell")
    return tuple(dict.fromkeys(c.strip().upper() for c in cells))


def _question_answers(answers: Any, where: str) -> tuple[str, ...] | None:
    if answers is None:
        return None
    if isinstance(answers, str):
        answers = [answers]
    if (not isinstance(answers, list) or not answers
            or not all(isinstance(a, str) and a.strip() for a in answers)):
        raise QuizgenError(f"got {answers!r}; expected a list of answer keys such as "
                           f"[\"blocks_per_sm\", \"occupancy\"]", field=f"{where}.answers")
    return tuple(dict.fromkeys(a.strip() for a in answers))


def _question_points(raw_points: Any, answers: tuple[str, ...] | None,
                     where: str) -> tuple[Any, tuple[str, ...] | None]:
    """The question's points (a number, or a table per box) and the boxes asked (a table of
    points names them when the recipe does not)."""
    if not isinstance(raw_points, dict):
        return _points(raw_points, f"{where}.points"), answers
    if not raw_points:
        raise QuizgenError("an empty table; give points per box, such as {blocks_per_sm = 2, "
                           "occupancy = 4}", field=f"{where}.points")
    points = {str(k).strip(): _points(v, f"{where}.points.{k}") for k, v in raw_points.items()}
    if answers is None:
        return points, tuple(points)
    unpriced = [a for a in answers if a not in points]
    extra = [k for k in points if k not in answers]
    if unpriced or extra:
        raise QuizgenError(
            f"{(unpriced or extra)[0]!r} " + ("has no points; give points for every box "
                                              "asked" if unpriced else "is not a box asked")
            + f" (boxes: {', '.join(answers)})", field=f"{where}.points")
    return points, answers


def _points(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise QuizgenError(f"got {value!r}; expected a number ≥ 0", field=where)
    finite_number(value, where)            # inf, nan and 1e309 (TOML reads it as inf) alike
    if value < 0:
        raise QuizgenError(f"got {value!r}; points cannot be negative", field=where)
    return int(value) if isinstance(value, float) and value.is_integer() else value


def grade_bands(raw: Any) -> tuple[tuple[str, float], ...]:
    """A recipe's ``[grades]`` table (label = least percent), checked; highest band first."""
    if raw is None:
        return ()
    if not isinstance(raw, Mapping) or not raw:
        raise QuizgenError("expected a table of grade = least percent, e.g. A = 85", field="grades")
    bands = []
    for label, value in raw.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)) \
                or not math.isfinite(value) or not 0 <= value <= 100:
            raise QuizgenError(f"{label} = {value!r}; expected a percentage from 0 to 100",
                               field="grades")
        if not str(label).strip():
            raise QuizgenError("a grade needs a label", field="grades")
        bands.append((str(label).strip(), float(value)))
    if len({v for _, v in bands}) != len(bands):
        raise QuizgenError("two grades share one threshold", field="grades")
    return tuple(sorted(bands, key=lambda b: -b[1]))
