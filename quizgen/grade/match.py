"""Matching the rows of an answer sheet to the students of an exam manifest.

A row is matched by its version code (checked against the roll number and name written beside
it), else by roll number, else by name; a row that matches nobody, several students or a
student already graded is kept whole for ``unmatched.csv``. Each answer column is named
``Q<number>.<key>``, matched without regard to case or spaces.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from quizgen.errors import QuizgenError, require_int
from quizgen.grade.notes import sheet_note as _said
from quizgen.grade.prepared import Prepared
from quizgen.grade.results import FileIssue, quote, shorten
from quizgen.grade.sheet import SheetRow
from quizgen.manifest import ID_COLUMN, Manifest, answer_columns

#: Header names of the columns that say who wrote a row (matched without regard to case).
NAME_COLUMNS = ("name", "student", "student name", "naam")
ROLL_COLUMNS = ("roll", "roll number", "roll no", "roll_no", "rollno", "roll_number", "id",
                "student id", "student_id")
VERSION_COLUMNS = ("version", "version code", "code", "version_code")


def find_column(header: list[str], names: Sequence[str]) -> int | None:
    lowered = [h.strip().casefold() for h in header]
    for name in names:
        if name in lowered:
            return lowered.index(name)
    return None


def person(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


@dataclass(slots=True)
class Entry:
    """One student of the manifest, with their prepared questions."""

    name: str
    roll: str
    version: str
    questions: list[Prepared]
    graded_line: int | None = None


def manifest_entries(manifest: Manifest | Mapping[str, Any]) -> list[Entry]:
    """The manifest's students, each question prepared for grading."""
    out = []
    # Versions share problems: a question equal to one already prepared (same number, same
    # content) shares its `Prepared`, and with it everything remembered while grading.
    shared: dict[tuple[str, Any], list[tuple[Mapping[str, Any], Prepared]]] = {}
    for i, student in enumerate(Manifest.of(manifest).students, start=1):
        where = f"students[{i}]"
        questions = []
        for j, item in enumerate(student.questions, start=1):
            number = item.get("number", j)
            try:
                number = require_int("number", number, minimum=0, maximum=10**6)
                same = shared.setdefault((str(item.get("id", "")), int(number)), [])
                prepared = next((p for seen, p in same if seen is item or seen == item), None)
                if prepared is None:
                    prepared = Prepared(item, number=int(number), asked=item.get("asked"),
                                        tolerances=item.get("tolerances"),
                                        points=item.get("points"))
                    same.append((item, prepared))
                questions.append(prepared)
            except QuizgenError as exc:
                raise QuizgenError(str(exc), field=f"{where}.questions[{j}]") from None
        out.append(Entry(student.name, student.roll, student.version, questions))
    return out


@dataclass(slots=True)
class Columns:
    """Where the sheet's header puts who wrote a row and each answer (`Q1.occupancy` → 5)."""

    name: int | None
    roll: int | None
    version: int | None
    answers: dict[str, int]




def require_answer_columns(header: Sequence[str], manifest: Manifest, where: str) -> None:
    """Refuse, in one line, an answer sheet that holds none of the exam's answer columns (a
    roster, or another exam's sheet): grading it would give every student 0."""
    wanted = manifest.answer_columns()
    given = {re.sub(r"\s+", "", title).casefold() for title in header}
    if not wanted or any(c.casefold() in given for c in wanted):
        return
    looks = ("it looks like a roster" if find_column(list(header), NAME_COLUMNS + ROLL_COLUMNS)
             is not None else "it is not this exam's answer sheet")
    raise QuizgenError(f"{where} has none of the exam's answer columns ({wanted[0]}, …): {looks}; "
                       "grade the answers.csv that quizgen sheet wrote, with the answers filled "
                       "in", field="answers")


def read_columns(header: list[str], entries: Sequence[Entry], invalid: str,
                 issues: list[FileIssue]) -> Columns:
    """The sheet's columns; what is missing, doubled or unknown goes into `issues`."""
    name_col = find_column(header, NAME_COLUMNS)
    roll_col = find_column(header, ROLL_COLUMNS)
    version_col = find_column(header, VERSION_COLUMNS)
    if version_col is None:
        issues.append(FileIssue(1, _said("no_version_column")))
    if name_col is None and roll_col is None and version_col is None:
        issues.append(FileIssue(1, _said("no_who_column")))
    columns: dict[str, int] = {}
    wanted = answer_columns((q.number, q.asked) for entry in entries for q in entry.questions)
    folded = {c.casefold(): c for c in wanted}
    known_meta = {i for i in (name_col, roll_col, version_col) if i is not None}
    for index, title in enumerate(header):
        if not title or index in known_meta or ID_COLUMN.fullmatch(re.sub(r"\s+", "", title)):
            continue              # a problem id the sheet prints beside the answers: no answer
        canon = folded.get(re.sub(r"\s+", "", title).casefold())
        if canon is None:
            issues.append(FileIssue(1, _said("unknown_column", column=quote(shorten(title, 40))),
                                    "note"))
        elif canon in columns:
            issues.append(FileIssue(1, _said("column_twice", column=canon)))
        else:
            columns[canon] = index
    for column in wanted:
        if column not in columns:
            issues.append(FileIssue(1, _said("column_missing_flag" if invalid == "flag"
                                             else "column_missing_zero", column=column)))
    return Columns(name_col, roll_col, version_col, columns)


class Matcher:
    """Finds the student of each row of a sheet, each student at most once."""

    def __init__(self, entries: Sequence[Entry], columns: Columns, width: int) -> None:
        self.columns = columns
        self.width = width                    # the header's number of fields
        self.by_version = {e.version.strip().upper(): e for e in entries if e.version.strip()}
        self.by_roll: dict[str, list[Entry]] = {}
        self.by_name: dict[str, list[Entry]] = {}
        for e in entries:
            if e.roll.strip():
                self.by_roll.setdefault(e.roll.strip().casefold(), []).append(e)
            if e.name.strip():
                self.by_name.setdefault(person(e.name), []).append(e)

    def match(self, row: SheetRow, issues: list[FileIssue]) -> tuple[Entry | None, str, str]:
        """The row's student (None: not graded, keep the row) and the name and roll it gives."""
        width = self.width
        if len(row.cells) < width:
            issues.append(FileIssue(row.line, _said("fields_short", fields=str(len(row.cells)),
                                                    width=width), "note"))
        elif len(row.cells) > width and any(c.strip() for c in row.cells[width:]):
            issues.append(FileIssue(row.line, _said("fields_long", fields=str(len(row.cells)),
                                                    width=width)))
        name, roll, version = (_cell(row, self.columns.name), _cell(row, self.columns.roll),
                               _cell(row, self.columns.version))
        who = quote(shorten(name or roll or version, 40)) if (name or roll or version) \
            else _said("this_row")
        entry: Entry | None = None
        if version:
            entry = self.by_version.get(version.upper())
            if entry is None:
                issues.append(FileIssue(row.line, _said("unknown_version", who=who,
                                                        version=quote(shorten(version, 20)))))
                return None, name, roll
            mismatch = ((roll and entry.roll and roll.casefold() != entry.roll.strip().casefold())
                        or (not roll and name and entry.name
                            and person(name) != person(entry.name)))
            if mismatch:
                issues.append(FileIssue(row.line, _said(
                    "other_student", who=who, version=entry.version,
                    student=entry.name or entry.roll or _said("anonymous"))))
        else:
            found = self.by_roll.get(roll.casefold(), []) if roll else []
            if not found and name and not roll:
                found = self.by_name.get(person(name), [])
            if len(found) == 1:
                entry = found[0]
            elif len(found) > 1:
                issues.append(FileIssue(row.line, _said("several_students", who=who,
                                                        count=len(found))))
                return None, name, roll
            else:
                issues.append(FileIssue(row.line, _said("unknown_student", who=who)))
                return None, name, roll
        if entry.graded_line is not None:
            issues.append(FileIssue(row.line, _said("duplicate", first=str(entry.graded_line),
                                                    version=entry.version)))
            return None, name, roll
        entry.graded_line = row.line
        return entry, name, roll


def _cell(row: SheetRow, index: int | None) -> str:
    if index is None or index >= len(row.cells):
        return ""
    return row.cells[index].strip()
