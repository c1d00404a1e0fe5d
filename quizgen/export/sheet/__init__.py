"""Printable exams through Typst: one version per student, an answer key, and the grader's inputs.

    recipe = load_exam_recipe("decks/exams/midterm.toml")
    roster = read_roster("roster.csv")
    result = build_exam(recipe, roster, None, "out/midterm", generate=generate_one)

writes ``out/midterm/exam.pdf`` (every student's version, each from a new page), ``key.pdf`` (the
answers and worked solutions of every version), ``manifest.json`` (the recipe and every student's
problems, for the grader) and ``answers.csv`` (the blank answer sheet).

The rooms: `plan` (which problems each student gets, drawn: pure), `layout` (the Typst
documents, the manifest's and the answer sheet's text: pure), `write` (the staged folder, the
Typst compiles, the PDF joins: the only I/O) and `build` (`plan_exam`, `build_exam`). Recipes
and rosters are read by `quizgen.recipes`.

Safety of user text: names, titles and instructions never pass through Typst's parser (see
`quizgen.export.sheet.layout`).

Determinism: each student's problems are drawn from seeds derived from the recipe's seed and the
student's roll number (or name), so adding a student to the roster changes nobody else's version,
and the manifest is written with sorted keys and no timestamps.
"""

from __future__ import annotations

import os
from typing import Any

from quizgen.export.sheet import build, fonts, layout, plan, write  # noqa: F401  (the rooms)
from quizgen.export.sheet.build import CHUNK, SheetPlan, SheetResult, _Exam, build_exam, plan_exam
from quizgen.export.sheet.fonts import _DEVANAGARI_FONTS, FontWarning, _font_families
from quizgen.export.sheet.layout import (PAPERS, _ManifestWriter, _scan_layout, _solution,
                                         _value_text, answer_columns)
from quizgen.export.sheet.plan import Generate, _canonical, version_code
from quizgen.export.sheet.write import SHEET_FILES, Progress, compile_typst
from quizgen.manifest import MANIFEST_FORMAT, MANIFEST_VERSION
from quizgen.manifest import load_manifest as _load_manifest
from quizgen.recipes import known_cells
from quizgen.recipes.exam import (LEVELS, ExamQuestion, ExamRecipe, load_exam_recipe,
                                  parse_exam_recipe)
from quizgen.recipes.roster import (MAX_STUDENTS, RosterWarning, Student, parse_roster,
                                    read_roster)
from quizgen.render.phrases import DEFAULT_LANG, LANGS

__all__ = [
    "CELLS", "PAPERS", "ExamQuestion", "ExamRecipe", "Student", "SheetResult", "SheetPlan",
    "FontWarning", "load_exam_recipe", "parse_exam_recipe", "read_roster", "plan_exam",
    "build_exam", "compile_typst", "load_manifest", "answer_columns", "version_code",
    "CHUNK", "Generate", "LEVELS", "MANIFEST_FORMAT", "MANIFEST_VERSION", "MAX_STUDENTS",
    "Progress", "RosterWarning", "SHEET_FILES", "parse_roster", "DEFAULT_LANG", "LANGS",
]


def __getattr__(name: str) -> Any:
    if name == "CELLS":                  # the scenario cells an exam may ask for
        return known_cells()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def load_manifest(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Read a manifest written by `build_exam` (see `quizgen.manifest.load_manifest`)."""
    return _load_manifest(path)
