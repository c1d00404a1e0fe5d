"""Grades back into an LMS: the gradebook import CSV of Moodle or Canvas.

* Moodle (*Grades* → *Import* → *CSV file*): an ``ID number`` column holding the roster's roll
  number (map it to the user field "ID number"), the name for the teacher's eye, then one
  column per graded item (each exam question, then the total), points as plain decimals.
* Canvas (*Grades* → *Import*): ``Student, ID, SIS User ID, SIS Login ID, Section``, then one
  column per question and the total, with a ``Points Possible`` row; Canvas matches a row by
  its SIS User ID (the roll number) when the Canvas ID is blank.

A box the grader left out of the score (unreadable, missing) counts as it does in
``results.csv``: not at all.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any, Iterator, Mapping, Sequence

from quizgen.errors import QuizgenError
from quizgen.grade.graded import GradedClass
from quizgen.manifest import Manifest

__all__ = ["LMS_NAMES", "gradebook_rows", "gradebook_csv", "write_gradebook"]

LMS_NAMES = ("moodle", "canvas")


def _points(value: Fraction | float | int) -> str:
    from quizgen.grade.report import points_text

    return points_text(Fraction(value).limit_denominator(10**6))


def _items(manifest: Manifest) -> list[tuple[int, str, Fraction]]:
    """(question number, column title, points possible) of every exam question."""
    recipe = manifest.recipe
    title = manifest.title or "quizgen"
    out = []
    for number, question in enumerate(recipe.get("questions") or [], start=1):
        cell = question.get("cell", "")
        cells = "+".join(map(str, cell)) if isinstance(cell, list) else str(cell)
        out.append((number, f"{title}: Q{number} {cells}".strip(),
                    _question_points(question.get("points", 1), number)))
    return out


def _question_points(points: Any, number: int) -> Fraction:
    """A question's points possible: one number, or the sum of a table of points per box."""
    values = list(points.values()) if isinstance(points, dict) else [points]
    total = Fraction(0)
    for value in values:
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            raise QuizgenError(f"got {points!r}; expected a number or a table of numbers",
                               field=f"manifest.recipe.questions[{number}].points")
        try:
            total += Fraction(str(value))
        except (ValueError, ZeroDivisionError):
            raise QuizgenError(f"got {value!r}; expected a number",
                               field=f"manifest.recipe.questions[{number}].points") from None
    return total


def gradebook_rows(students: Sequence[Any], manifest: Manifest | Mapping[str, Any],
                   lms: str) -> list[list[str]]:
    """The class's grades as the rows of `lms`'s gradebook import CSV (students: grader results)."""
    return list(_gradebook_rows(students, manifest, lms))


def _gradebook_rows(students: Sequence[Any], manifest: Manifest | Mapping[str, Any],
                    lms: str) -> Iterator[list[str]]:
    """`gradebook_rows`, a student at a time."""
    if lms not in LMS_NAMES:
        raise QuizgenError(f"got {lms!r}; expected one of: {', '.join(LMS_NAMES)}", field="lms")
    manifest = Manifest.of(manifest)
    items = _items(manifest)
    title = manifest.title or "quizgen"
    total_name = f"{title}: total"
    if lms == "moodle":
        yield ["ID number", "Full name", *[name for _, name, _ in items], total_name]
    else:
        yield ["Student", "ID", "SIS User ID", "SIS Login ID", "Section",
               *[name for _, name, _ in items], total_name]
        yield ["Points Possible", "", "", "", "", *[_points(p) for _, _, p in items],
               _points(sum((p for _, _, p in items), Fraction(0)))]
    for student in students:
        by_number = {q.number: q.score for q in student.questions}
        scores = [_points(by_number.get(number, 0)) for number, _, _ in items]
        total = _points(student.score)
        if lms == "moodle":
            yield [student.roll, student.name, *scores, total]
        else:
            yield [student.name, "", student.roll, "", "", *scores, total]


def gradebook_csv(students: Sequence[Any], manifest: Manifest | Mapping[str, Any], lms: str) -> str:
    """The rows as CSV text (UTF-8 with a byte-order mark, formula-safe cells)."""
    from quizgen.files import csv_text

    return csv_text(gradebook_rows(students, manifest, lms))


def write_gradebook(graded: GradedClass, out_dir: str | Path, lms: str) -> Path:
    """Write ``<lms>-grades.csv`` of a graded class into the grader's output folder; its path."""
    from quizgen.files import write_csv

    path = Path(out_dir) / f"{lms}-grades.csv"
    write_csv(path, _gradebook_rows(graded.students, graded.manifest, lms))
    return path
