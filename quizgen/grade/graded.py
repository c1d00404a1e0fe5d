"""A graded class as one value: the exam's manifest, the answer sheet, every student's results
and the class analysis, made once by `grade_class` and handed whole to what is written from it
(results.csv, the feedback pages, report.md and the class report; the LMS gradebook; the
follow-up decks), so that nothing reads the manifest or analyses the class again.

    summary = grade_class("exam/manifest.json", "filled.csv", "graded")
    graded = summary.graded
    graded.analysis.alpha, graded.columns, graded.manifest.students[0].questions
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from quizgen.grade.analysis import ClassAnalysis, analyse_class
from quizgen.grade.results import BoxResult, FileIssue, StudentResult
from quizgen.grade.sheet import AnswerSheet, SheetRow
from quizgen.manifest import Manifest

__all__ = ["GradedClass", "GradeSummary", "graded_class", "answer_columns", "bands_of"]


@dataclass(slots=True)
class GradedClass:
    """Everything grading a class found, in one place.

    `manifest` is the exam's record as read; `sheet` the filled answer sheet; `students` the
    graded papers in sheet order (the teacher's overrides applied); `issues` what the sheet (and
    the overrides) got wrong, by line; `unmatched` the rows no student could be found for;
    `columns` every answer box, Q<number>.<key>, in question order; `analysis` the item
    analysis and misconception map; `invalid` how unreadable answers were scored (``zero`` or
    ``flag``); `lang` the language the results are written in."""

    manifest: Manifest
    sheet: AnswerSheet
    students: list[StudentResult]
    issues: list[FileIssue]
    unmatched: list[SheetRow]
    columns: list[str]
    analysis: ClassAnalysis
    invalid: str
    lang: str

    @property
    def title(self) -> str:
        return self.manifest.title

    @property
    def bands(self) -> list[tuple[str, float]]:
        """The recipe's grade bands (label, lowest percentage), highest first."""
        return self.analysis.bands


def graded_class(manifest: Manifest, sheet: AnswerSheet, students: list[StudentResult],
                 issues: list[FileIssue], unmatched: list[SheetRow], *, invalid: str,
                 lang: str) -> GradedClass:
    """The graded class, its answer columns and its analysis worked out once."""
    columns = answer_columns(students, manifest)
    analysis = analyse_class(students, columns, manifest, bands_of(manifest))
    return GradedClass(manifest, sheet, students, issues, unmatched, columns, analysis, invalid,
                       lang)


def answer_columns(students: Sequence[StudentResult],
                   manifest: Manifest | Mapping[str, Any]) -> list[str]:
    """Every answer box of the exam, Q<number>.<key>, in question-number order (the manifest's
    columns), then any box graded that the manifest does not list."""
    columns = Manifest.of(manifest).answer_columns()
    for student in students:
        for box in student.boxes:
            if box.column not in columns:
                columns.append(box.column)
    return columns


def bands_of(manifest: Manifest | Mapping[str, Any]) -> list[tuple[str, float]]:
    """The recipe's grade bands from the manifest (``[grades] A = 85 …``), highest first."""
    raw = Manifest.of(manifest).recipe.get("grades")
    if not isinstance(raw, Mapping):
        return []
    return sorted(((str(k), float(v)) for k, v in raw.items()
                   if isinstance(v, (int, float)) and not isinstance(v, bool)),
                  key=lambda b: -b[1])


@dataclass(slots=True)
class GradeSummary:
    """What `grade_class` graded and wrote: the graded class, and where its files are."""

    out_dir: Path
    graded: GradedClass
    results_csv: Path
    report: Path
    feedback: list[Path] = field(default_factory=list)
    unmatched: Path | None = None

    @property
    def students(self) -> list[StudentResult]:
        return self.graded.students

    @property
    def issues(self) -> list[FileIssue]:
        return self.graded.issues

    @property
    def invalid(self) -> str:
        return self.graded.invalid

    @property
    def answers(self) -> int:
        return sum(len(s.boxes) for s in self.students)

    @property
    def flagged(self) -> list[tuple[StudentResult, BoxResult]]:
        return [(s, b) for s in self.students for b in s.boxes if not b.counted]
