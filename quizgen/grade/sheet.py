"""Reading a filled answer sheet: any encoding and separator a spreadsheet saves, kept by line.

Nothing is graded here; what was odd about the file (a byte-order mark, semicolons, a bad byte)
is kept as `FileIssue` notes with their line for the report.
"""

from __future__ import annotations

import csv
import io
import os
import re
from dataclasses import dataclass
from pathlib import Path

from quizgen.errors import QuizgenError
from quizgen.files import plain_cell
from quizgen.grade.notes import sheet_note as _said
from quizgen.grade.results import FileIssue

@dataclass(frozen=True, slots=True)
class SheetRow:
    line: int                             # line where the row starts (1 = header)
    cells: tuple[str, ...]


@dataclass(slots=True)
class AnswerSheet:
    """The answer sheet as read: header, rows with their lines, and what was odd about it."""

    header: list[str]
    rows: list[SheetRow]
    issues: list[FileIssue]
    delimiter: str = ","
    encoding: str = "utf-8"


def _decode(data: bytes, issues: list[FileIssue]) -> tuple[str, str]:
    if data.startswith(b"\xef\xbb\xbf"):
        issues.append(FileIssue(1, _said("utf8_bom"), "note"))
        return data[3:].decode("utf-8", errors="replace"), "utf-8-sig"
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        issues.append(FileIssue(1, _said("utf16"), "note"))
        return data.decode("utf-16"), "utf-16"
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        issues.append(FileIssue(line, _said("not_utf8"), "note"))
        return data.decode("cp1252", errors="replace"), "cp1252"


def _sniff(first_line: str) -> str:
    from quizgen.files import sniff_delimiter

    return sniff_delimiter(first_line)


def _records(body: io.StringIO, delimiter: str, skip: int,
             issues: list[FileIssue]) -> tuple[list[str] | None, int, list[SheetRow], int]:
    from quizgen.files import csv_rows

    reader = csv_rows(body, delimiter)
    header: list[str] | None = None
    header_line = 0
    rows: list[SheetRow] = []
    line = skip
    # A class writes the same few answers again and again ("8", "25%"): each text is kept once,
    # shared by the rows that hold it, so a sheet of thousands holds little more than its lists.
    texts: dict[str, str] = {}
    try:
        for record in reader:
            start = line + 1
            line = skip + reader.line_num
            if header is None:
                header = [cell.strip() for cell in record]
                header_line = start
                continue
            if not any(cell.strip() for cell in record):
                continue
            rows.append(SheetRow(start, tuple(texts.setdefault(text, text) for text in
                                              map(plain_cell, record))))
    except csv.Error as exc:
        issues.append(FileIssue(line + 1, _said("bad_csv", error=str(exc))))
    return header, header_line, rows, line


def read_answer_sheet(path: str | os.PathLike[str]) -> AnswerSheet:
    """Read a filled answer sheet: UTF-8 (with or without BOM), UTF-16, or Windows-1252;
    commas, semicolons (Excel in many locales) or tabs; quoted fields; any line endings.
    """
    path = Path(path)
    from quizgen.files import read_limited

    data = read_limited(path, "answers")
    issues: list[FileIssue] = []
    text, encoding = _decode(data, issues)
    if "\x00" in text:
        raise QuizgenError(f"{path} is not a text file", field="answers")
    lines = text.splitlines()
    skip = 0
    delimiter = None
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is None:
        raise QuizgenError(f"{path} is empty", field="answers")
    match = re.fullmatch(r"\s*sep=(.)\s*", lines[first])
    if match:
        delimiter = match.group(1)
        skip = first + 1
        issues.append(FileIssue(first + 1, _said("sep_line", delimiter=delimiter), "note"))
    else:
        skip = first
        delimiter = _sniff(lines[first])
    if delimiter == ";":
        issues.append(FileIssue(skip + 1, _said("semicolons"), "note"))
    elif delimiter == "\t":
        issues.append(FileIssue(skip + 1, _said("tabs"), "note"))
    body = io.StringIO(text, newline="")
    for _ in range(skip):
        body.readline()
    # A pasted essay must not stop the file: allow long fields (each answer is capped later).
    limit = csv.field_size_limit()
    csv.field_size_limit(max(limit, len(text) + 1))
    try:
        header, header_line, rows, line = _records(body, delimiter, skip, issues)
    finally:
        csv.field_size_limit(limit)
    if header is None:
        raise QuizgenError(f"{path} has no header line", field="answers")
    if header_line != 1 and not match:
        issues.append(FileIssue(header_line, _said("header_late"), "note"))
    return AnswerSheet(header, rows, issues, delimiter, encoding)
