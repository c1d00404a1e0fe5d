"""Class rosters: the students of an exam, from the CSV a teacher exports (Excel, a school's system).

`read_roster` reads one file (size-limited); `parse_roster` reads its text. The separator, a
byte-order mark, Excel's ``sep=`` line and the header's many spellings are taken as they come;
what cannot be a roster is one `QuizgenError` line naming the file and the row.
"""

from __future__ import annotations

import csv
import io
import os
import re
import warnings
from dataclasses import dataclass
from pathlib import Path

from quizgen.errors import QuizgenError
from quizgen.files import csv_rows, read_limited, sniff_delimiter
from quizgen.manifest import MAX_STUDENTS


@dataclass(frozen=True, slots=True)
class Student:
    name: str
    roll: str = ""




def read_roster(path: str | os.PathLike[str]) -> list[Student]:
    """Students from a CSV with a ``name`` column (any case) and optionally ``roll``.

    UTF-8, with or without a byte-order mark. Blank rows are skipped; a roster with no students,
    or without a name column, is a one-line `QuizgenError`.
    """
    path = Path(path)
    try:
        text = read_limited(path, "roster").decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise QuizgenError(f"{path} is not UTF-8 text (byte {exc.start}); save it as UTF-8 CSV",
                           field="roster") from None
    return parse_roster(text, source=str(path))


class RosterWarning(UserWarning):
    """Something odd in a roster that does not stop the exam (a roll number given twice)."""


# Header names a roster may use (compared without case, dots, underscores or extra spaces).
_NAME_HEADERS = ("name", "student", "student name", "students", "full name", "naam")
_ROLL_HEADERS = ("roll", "roll no", "roll number", "rollno", "roll num", "enrollment",
                 "enrollment no", "enrollment number", "enrolment", "enrolment no",
                 "enrolment number", "registration no", "reg no", "student id", "id")


def _header_name(cell: str) -> str:
    return " ".join(cell.replace("_", " ").replace(".", " ").casefold().split())


def _find_header(header: list[str], names: tuple[str, ...]) -> int | None:
    for name in names:
        if name in header:
            return header.index(name)
    return None


def parse_roster(text: str, *, source: str = "roster") -> list[Student]:
    """Students from CSV text (see `read_roster`).

    The separator is found as `quizgen grade` finds it (comma, semicolon or tab, or Excel's
    ``sep=`` first line). A roll number given twice is a `RosterWarning` (both students keep
    their versions, told apart by their order).
    """
    rows = _rows(text, source)
    header = [_header_name(cell) for cell in rows[0][1]]
    name_at = _find_header(header, _NAME_HEADERS)
    if name_at is None:
        raise QuizgenError(f"{source} has no name column (columns: "
                           f"{', '.join(rows[0][1]) or 'none'}); name one 'name' (or Student)",
                           field="roster")
    roll_at = _find_header(header, _ROLL_HEADERS)
    students = []
    seen: dict[str, int] = {}
    for line, row in rows[1:]:
        name = row[name_at].strip() if name_at < len(row) else ""
        roll = row[roll_at].strip() if roll_at is not None and roll_at < len(row) else ""
        if not name:
            raise QuizgenError(f"{source} line {line} has no name", field="roster")
        if "\n" in name or "\r" in name or "\n" in roll or len(name) > 200 or len(roll) > 100:
            raise QuizgenError(f"{source} line {line}: a name over several lines or longer than "
                               "200 characters (an unclosed quote?); fix that row", field="roster")
        if roll:
            folded = roll.casefold()
            if folded in seen:
                warnings.warn(f"{source} line {line}: roll number {roll!r} is also on line "
                              f"{seen[folded]} ({name}); both get a version, but check the roster",
                              RosterWarning, stacklevel=2)
            else:
                seen[folded] = line
        students.append(Student(name=name, roll=roll))
    if not students:
        raise QuizgenError(f"{source} has a header but no students", field="roster")
    return students


def _rows(text: str, source: str) -> list[tuple[int, list[str]]]:
    """The roster's non-blank rows with their line numbers, the header first."""
    text = text.removeprefix("\ufeff")
    lines = text.splitlines()
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    delimiter, skip = ",", 0
    if first is not None:
        match = re.fullmatch(r"\s*sep=(.)\s*", lines[first])
        if match:
            delimiter, skip = match.group(1), first + 1
        else:
            delimiter = sniff_delimiter(lines[first])
    body = io.StringIO(text)
    for _ in range(skip):
        body.readline()
    reader = csv_rows(body, delimiter, strict=True)
    rows = []
    try:
        for row in reader:
            if any(cell.strip() for cell in row):
                rows.append((reader.line_num + skip, row))
            if len(rows) > MAX_STUDENTS + 1:
                raise QuizgenError(f"{source} has more than {MAX_STUDENTS:,} students; split the "
                                   "class", field="roster")
    except csv.Error as exc:
        raise QuizgenError(f"{source} line {reader.line_num + skip} is not readable CSV ({exc}); "
                           "check its quotes", field="roster") from None
    if not rows:
        raise QuizgenError(f"{source} is empty; expected a header with a 'name' column and one "
                           f"row per student", field="roster")
    return rows
