"""Printable exams through Typst: one version per student, an answer key, and the grader's inputs.

    recipe = load_exam_recipe("decks/exams/midterm.toml")     # quizgen.recipes
    roster = read_roster("roster.csv")                        # quizgen.recipes
    result = build_exam(recipe, roster, None, "out/midterm", generate=generate_one)

writes ``out/midterm/exam.pdf`` (every student's version, each from a new page), ``key.pdf`` (the
answers and worked solutions of every version), ``manifest.json`` (the recipe and every student's
problems, for the grader) and ``answers.csv`` (the blank answer sheet).

The rooms: `plan` (which problems each student gets, drawn: pure), `layout` (the Typst
documents and the answer sheet's text: pure), `write` (the staged folder, the Typst compiles,
the PDF joins: the only I/O) and `build` (`plan_exam`, `build_exam`). Recipes and rosters are
read by `quizgen.recipes`; the manifest is `quizgen.manifest`'s.

Safety of user text: names, titles and instructions never pass through Typst's parser (see
`quizgen.export.sheet.layout`).

Determinism: each student's problems are drawn from seeds derived from the recipe's seed and the
student's roll number (or name), so adding a student to the roster changes nobody else's version,
and the manifest is written with sorted keys and no timestamps.
"""

from __future__ import annotations

from quizgen.export.sheet import build, fonts, layout, plan, write  # noqa: F401  (the rooms)
from quizgen.export.sheet.build import CHUNK, SheetPlan, SheetResult, build_exam, plan_exam
from quizgen.export.sheet.fonts import FontWarning
from quizgen.export.sheet.layout import PAPERS
from quizgen.export.sheet.plan import Generate, version_code
from quizgen.export.sheet.write import SHEET_FILES, Progress, compile_typst

__all__ = [
    "PAPERS", "SheetResult", "SheetPlan", "FontWarning", "plan_exam", "build_exam",
    "compile_typst", "version_code", "CHUNK", "Generate", "Progress", "SHEET_FILES",
]
