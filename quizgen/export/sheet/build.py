"""An exam build: the plan (`plan`), laid out (`layout`), written (`write`).

`plan_exam` does it all in memory (small classes, tests); `build_exam` streams the same pieces
chunk by chunk into a staged folder and publishes it whole.
"""

from __future__ import annotations

import os
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from quizgen.errors import QuizgenError, require_int
from quizgen.export.sheet.fonts import FontWarning
from quizgen.export.sheet.layout import PAPERS, answer_sheet_csv, ExamLayout, overview_row
from quizgen.export.sheet.balance import Weighing
from quizgen.export.sheet.plan import Generate, sheet_columns, Versions
from quizgen.export.sheet.write import SHEET_FILES, Progress, built_earlier, write_sheets
from quizgen.files import check_folder, publish_folder, staged_folder
from quizgen.manifest import Manifest, StudentPaper, drawn_paper, manifest_json
from quizgen.recipes.exam import ExamRecipe
from quizgen.recipes.roster import Student

#: Students per compiled chunk: Typst lays out one document of a chunk (its exam, or its key) at
#: a time, in a process of its own, so memory stays flat in the size of the class; the chunks'
#: PDFs are joined at the end.
CHUNK = 16
#: Questions per compiled chunk (16 students of a 6-question exam): a long exam is compiled fewer
#: students at a time (one at least), so memory stays flat in the length of the exam too.
CHUNK_QUESTIONS = 96


@dataclass(slots=True)
class SheetPlan:
    """Everything an exam build writes, before any PDF is compiled, in memory (small classes;
    `build_exam` streams the same pieces chunk by chunk)."""

    manifest: Manifest
    exam_source: str
    exam_data: str
    key_source: str
    key_data: str
    answers_csv: str
    font_paths: tuple[str, ...] = ()
    warnings: list[str] = field(default_factory=list)

    def manifest_text(self) -> str:
        """``manifest.json`` as `build_exam` writes it."""
        return manifest_json(self.manifest)


@dataclass(slots=True)
class SheetResult:
    """What `build_exam` wrote, and the warnings a user should see (fonts)."""

    out_dir: Path
    exam_pdf: Path
    key_pdf: Path
    manifest: Path
    answers_csv: Path
    students: int
    warnings: list[str] = field(default_factory=list)
    exam_pages: int = 0
    key_pages: int = 0


class _Exam(Versions):
    """One exam build's fixed inputs: who sits it, their version codes, the shared layout."""

    def __init__(self, recipe: ExamRecipe, roster: list[Student] | None, versions: int | None,
                 *, generate: Generate, paper: str, practice: bool,
                 font_paths: Iterable[str | os.PathLike[str]], bubbles: bool = False,
                 solutions: str = "end", weighing: Weighing | None = None) -> None:
        if paper not in PAPERS:
            raise QuizgenError(f"got {paper!r}; expected one of: {', '.join(PAPERS)}", field="paper")
        super().__init__(recipe, roster, versions, generate=generate, weighing=weighing)
        self.paper, self.practice, self.bubbles = paper, practice, bubbles
        self.layout = ExamLayout(recipe, self.students, paper=paper, practice=practice,
                                 font_paths=font_paths, bubbles=bubbles, solutions=solutions)
        self.labels, self.fonts, self.common = self.layout.labels, self.layout.fonts, self.layout.common
        self.font_dirs, self.warnings = self.layout.font_dirs, self.layout.warnings
        self.scan = self.layout.scan
        self.exam_source, self.key_source = self.layout.exam_source, self.layout.key_source

    def exam_data(self, entries) -> str:
        return self.layout.exam_data(entries)

    def key_data(self, entries, overview: list[dict[str, Any]] | None) -> str:
        return self.layout.key_data(entries, overview,
                                    [self.predicted(questions) for _, _, questions in entries])

    def drawn(self, entry) -> StudentPaper:
        """One drawn version as the manifest records it, with its predicted difficulty."""
        return drawn_paper(*entry, predicted=self.predicted(entry[2]))

    def head(self, scan: dict[str, Any] | None = None) -> Manifest:
        """The manifest without its students: the recipe, the paper, how versions were drawn."""
        return Manifest(self.recipe.to_dict(), [], self.paper, self.practice, scan=scan,
                        balance=self.weighing.describe() if self.weighing.balancing else None)


def plan_exam(recipe: ExamRecipe, roster: list[Student] | None, versions: int | None, *,
              generate: Generate, paper: str = "a4", practice: bool = False,
              font_paths: Iterable[str | os.PathLike[str]] = (), solutions: str = "end",
              weighing: Weighing | None = None) -> SheetPlan:
    """Draw every version's problems and prepare the Typst sources, data, manifest and CSV,
    all in memory (one document each for the exam and the key). `weighing` (a calibration and
    a tolerance: `quizgen.export.sheet.balance`) draws the versions to an even difficulty."""
    exam = _Exam(recipe, roster, versions, generate=generate, paper=paper, practice=practice,
                 font_paths=font_paths, solutions=solutions, weighing=weighing)
    entries = exam.entries(range(len(exam)))
    columns = sheet_columns(recipe, entries)
    manifest = exam.head()
    manifest.students = [exam.drawn(entry) for entry in entries]
    return SheetPlan(
        manifest=manifest,
        exam_source=exam.exam_source,
        exam_data=exam.exam_data(entries),
        key_source=exam.key_source,
        key_data=exam.key_data(entries, [overview_row(*e) for e in entries]),
        answers_csv=answer_sheet_csv(entries, columns),
        font_paths=exam.font_dirs,
        warnings=list(exam.warnings),
    )


def build_exam(recipe: ExamRecipe, roster: list[Student] | None, versions: int | None,
               out_dir: str | os.PathLike[str], *, generate: Generate, paper: str = "a4",
               practice: bool = False, font_paths: Iterable[str | os.PathLike[str]] = (),
               force: bool = False, progress: Progress | None = None, jobs: int | None = None,
               chunk: int = CHUNK, bubbles: bool = False, solutions: str = "end",
               weighing: Weighing | None = None) -> SheetResult:
    """Write exam.pdf, key.pdf, manifest.json and answers.csv into `out_dir`.

    `roster` gives one version per student; without it, `versions` anonymous versions (default 1).
    `generate(cell, level=, seed=, lang=, gpu=)` draws one `Problem` (normally
    ``quizgen.generator.generate_one``). `paper` is ``"a4"`` or ``"us-letter"``; `practice` prints
    each problem's answers and worked solution on the student's paper: after a page break at the
    end of the paper (`solutions` ``"end"``, so the student tries first), or right under the
    problem's answer boxes (``"under"``). `font_paths` adds folders of fonts (for
    example a Devanagari font for the roster's names). `bubbles` prints a bubble grid under every
    answer box, corner marks and a QR code on every page, and records every bubble's place in the
    manifest, for `quizgen scan` (see `quizgen.export.bubbles`). `weighing` draws the versions
    to an even predicted difficulty (`quizgen.export.sheet.balance`; default: as always, each
    paper's difficulty predicted by the prior).

    Students are drawn and compiled `chunk` at a time (each chunk's exam and key compiled by
    Typst in processes of their own, one document each, at most `jobs` at once; default: up to
    2), the manifest and answer sheet are written as they come, and the chunks' PDFs are joined
    at the end: memory stays flat in the size of the class. `progress(done, total)` is called
    as chunks finish.

    The folder appears complete or not at all: everything is written into a temporary folder
    beside `out_dir` and moved into place at the end. In an existing `out_dir` only the files an
    earlier build wrote (and nobody changed since) are replaced; a folder holding anything else
    (a filled answers.csv, graded results) is refused, unless `force`: then those files stay, and
    one in the way is kept as NAME.kept (a warning says so).
    """
    out = Path(out_dir)
    check_folder(out, force=force, own=built_earlier)
    chunk = require_int("chunk", chunk, minimum=1)
    chunk = max(1, min(chunk, CHUNK_QUESTIONS // len(recipe.questions)))
    if bubbles and practice:
        raise QuizgenError("a practice sheet is not scanned; leave out --bubbles or --practice",
                           field="bubbles")
    exam = _Exam(recipe, roster, versions, generate=generate, paper=paper, practice=practice,
                 font_paths=font_paths, bubbles=bubbles, solutions=solutions, weighing=weighing)
    for message in exam.warnings:
        warnings.warn(message, FontWarning, stacklevel=2)
    # Every answer column of the sheet, known before any problem is drawn: the first version
    # fixes them (`_asked` checks the recipe against each problem as it is drawn).
    columns = sheet_columns(recipe, exam.entries([0]))
    with staged_folder(out) as tmp:
        exam_pages, key_pages = write_sheets(exam, tmp, columns, chunk=chunk, jobs=jobs,
                                             progress=progress)
        kept = publish_folder(tmp, out, SHEET_FILES, own=built_earlier)
    for message in kept:
        warnings.warn(message, stacklevel=2)
    return SheetResult(out_dir=out, exam_pdf=out / "exam.pdf", key_pdf=out / "key.pdf",
                       manifest=out / "manifest.json", answers_csv=out / "answers.csv",
                       students=len(exam), warnings=list(exam.warnings), exam_pages=exam_pages,
                       key_pages=key_pages)
