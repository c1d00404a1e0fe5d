"""Reading a filled answer sheet: any encoding and separator a spreadsheet saves, kept by line.

Nothing is graded here; what was odd about the file (a byte-order mark, semicolons, a bad byte)
is kept as `FileIssue` notes with their line for the report.

The sheet is read as a stream, so that a class of thousands never sits in memory whole: once
when it is opened (its encoding, separator and header found, its rows counted, whatever is odd
about it noted), then again row by row each time its rows are gone through (`SheetRows`). A
sheet that is not a regular file (a pipe) is read into memory instead, and its rows kept.
"""

from __future__ import annotations

import codecs
import csv
import io
import os
import re
import stat
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import IO, Sequence

from quizgen.errors import QuizgenError
from quizgen.files import opened, plain_cell, too_large
from quizgen.grade.notes import sheet_note as _said
from quizgen.grade.results import FileIssue

#: How much of the file is read at a time while it is looked over.
_BLOCK = 1 << 16


@dataclass(frozen=True, slots=True)
class SheetRow:
    line: int                             # line where the row starts (1 = header)
    cells: tuple[str, ...]


@dataclass(slots=True)
class AnswerSheet:
    """The answer sheet as read: header, rows with their lines, and what was odd about it.

    `rows` is a list, or the `SheetRows` of a file (read from it each time they are gone
    through)."""

    header: list[str]
    rows: Sequence[SheetRow]
    issues: list[FileIssue]
    delimiter: str = ","
    encoding: str = "utf-8"


@dataclass(frozen=True, slots=True)
class _Layout:
    """How a sheet's text is read: its codec (and what becomes of a bad byte), the lines before
    the header, and the separator."""

    codec: str
    errors: str
    skip: int
    delimiter: str


class SheetRows:
    """The rows of an answer sheet's file, read from it row by row each time they are gone
    through: as many as the first reading found (a file changed since is refused)."""

    def __init__(self, path: Path, layout: _Layout, count: int, stamp: tuple[int, int]) -> None:
        self.path, self.layout, self.count, self.stamp = path, layout, count, stamp

    def __len__(self) -> int:
        return self.count

    def __iter__(self) -> Iterator[SheetRow]:
        done = 0
        with _body(self.path, self.layout, self.stamp) as body, _long_fields(self.stamp[0]):
            rows = _row_stream(body, self.layout.delimiter, self.layout.skip, [])
            for done, row in enumerate(islice(rows, self.count), start=1):
                yield row
        if done != self.count:
            _changed(self.path)


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


def _records(body: Iterable[str], delimiter: str, skip: int, issues: list[FileIssue],
             header: list[tuple[list[str], int]] | None = None) -> list[SheetRow]:
    """The rows of the CSV text `body` (the `skip` lines before the header already read), kept
    (see `_row_stream`)."""
    return list(_row_stream(body, delimiter, skip, issues, header))


def _row_stream(body: Iterable[str], delimiter: str, skip: int, issues: list[FileIssue],
                header: list[tuple[list[str], int]] | None = None) -> Iterator[SheetRow]:
    """The rows of the CSV text `body` (the `skip` lines before the header already read), one
    by one; the header's cells and line go into `header`. A row the CSV reader cannot split
    ends the rows, with an issue."""
    from quizgen.files import csv_rows

    reader = csv_rows(body, delimiter)
    seen = False
    line = skip
    try:
        for record in reader:
            start = line + 1
            line = skip + reader.line_num
            if not seen:
                seen = True
                if header is not None:
                    header.append(([cell.strip() for cell in record], start))
                continue
            if not any(cell.strip() for cell in record):
                continue
            yield SheetRow(start, tuple(map(plain_cell, record)))
    except csv.Error as exc:
        issues.append(FileIssue(line + 1, _said("bad_csv", error=str(exc))))


def read_answer_sheet(path: str | os.PathLike[str]) -> AnswerSheet:
    """Read a filled answer sheet: UTF-8 (with or without BOM), UTF-16, or Windows-1252;
    commas, semicolons (Excel in many locales) or tabs; quoted fields; any line endings.
    """
    path = Path(path)
    with opened(path, "answers") as fh:
        if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
            return _read_whole(path, fh)
        stamp = _stamp(fh)
        from quizgen.files import LIMITS

        if stamp[0] > LIMITS["answers"]:
            raise too_large(path, "answers")
        issues: list[FileIssue] = []
        codec, errors, encoding = _encoding(fh, path, issues)
    with _body(path, _Layout(codec, errors, 0, ","), stamp) as body:
        first, sep = _first_line(body, path)
    layout = _layout(first, sep, codec, errors, issues)
    header: list[tuple[list[str], int]] = []
    with _body(path, layout, stamp) as body, _long_fields(stamp[0]):
        count = sum(1 for _ in _row_stream(body, layout.delimiter, layout.skip, issues, header))
    return _sheet(path, header, SheetRows(path, layout, count, stamp), issues, layout,
                  encoding, sep)


def _read_whole(path: Path, fh: IO[bytes]) -> AnswerSheet:
    """A sheet that cannot be read twice (a pipe): read once, into memory, its rows kept."""
    from quizgen.files import LIMITS

    try:
        data = fh.read(LIMITS["answers"] + 1)
    except OSError as exc:
        from quizgen.files import os_error_text

        raise QuizgenError(os_error_text(exc, path, action="read"), field="answers") from None
    if len(data) > LIMITS["answers"]:
        raise too_large(path, "answers")
    issues: list[FileIssue] = []
    text, encoding = _decode(data, issues)
    if "\x00" in text:
        raise QuizgenError(f"{path} is not a text file", field="answers")
    first, sep = _first_line(io.StringIO(text, newline=""), path)
    layout = _layout(first, sep, "", "", issues)
    body = io.StringIO(text, newline="")
    for _ in range(layout.skip):
        body.readline()
    header: list[tuple[list[str], int]] = []
    with _long_fields(len(text)):
        rows = _records(body, layout.delimiter, layout.skip, issues, header)
    return _sheet(path, header, rows, issues, layout, encoding, sep)


def _sheet(path: Path, header: list[tuple[list[str], int]], rows: Sequence[SheetRow],
           issues: list[FileIssue], layout: _Layout, encoding: str,
           sep: re.Match | None) -> AnswerSheet:
    if not header:
        raise QuizgenError(f"{path} has no header line", field="answers")
    cells, header_line = header[0]
    if header_line != 1 and not sep:
        issues.append(FileIssue(header_line, _said("header_late"), "note"))
    return AnswerSheet(cells, rows, issues, layout.delimiter, encoding)


def _changed(path: Path) -> None:
    raise QuizgenError(f"{path} changed while it was read; run again", field="answers")


def _layout(first: tuple[int, str], sep: re.Match | None, codec: str, errors: str,
            issues: list[FileIssue]) -> _Layout:
    """The lines before the header and the separator, from the first line that is not blank
    (`first`: its index among the text's lines, and the line): a ``sep=;`` line names it,
    else the header's fields tell."""
    index, line = first
    if sep:
        delimiter = sep.group(1)
        skip = index + 1
        issues.append(FileIssue(index + 1, _said("sep_line", delimiter=delimiter), "note"))
    else:
        skip = index
        delimiter = _sniff(line)
    if delimiter == ";":
        issues.append(FileIssue(skip + 1, _said("semicolons"), "note"))
    elif delimiter == "\t":
        issues.append(FileIssue(skip + 1, _said("tabs"), "note"))
    return _Layout(codec, errors, skip, delimiter)


_SEP_LINE = re.compile(r"\s*sep=(.)\s*")


def _first_line(body: Iterable[str], path: Path) -> tuple[tuple[int, str], re.Match | None]:
    """The first line of the text that is not blank, with its index among the text's lines
    (as `str.splitlines` counts them), and its match if it is a ``sep=`` line."""
    index = 0
    for physical in body:
        for line in physical.splitlines():
            if line.strip():
                return (index, line), _SEP_LINE.fullmatch(line)
            index += 1
    raise QuizgenError(f"{path} is empty", field="answers")


def _encoding(fh: IO[bytes], path: Path, issues: list[FileIssue]) -> tuple[str, str, str]:
    """(codec, what a bad byte becomes, the encoding's name) of the sheet, its bytes looked
    over in turn: a byte-order mark names UTF-8 or UTF-16; else UTF-8 if every byte is, else
    Windows-1252 (the line of the first byte that is not UTF-8 noted). A NUL refuses the file."""
    head = fh.read(3)
    fh.seek(0)
    if head.startswith(b"\xef\xbb\xbf"):
        issues.append(FileIssue(1, _said("utf8_bom"), "note"))
        _no_nul(fh, path)
        return "utf-8-sig", "replace", "utf-8-sig"
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        issues.append(FileIssue(1, _said("utf16"), "note"))
        reader = codecs.getreader("utf-16")(fh)
        while chunk := reader.read(_BLOCK):
            if "\x00" in chunk:
                raise QuizgenError(f"{path} is not a text file", field="answers")
        return "utf-16", "strict", "utf-16"
    bad = _not_utf8(fh)
    fh.seek(0)
    if bad is not None:
        issues.append(FileIssue(bad, _said("not_utf8"), "note"))
    _no_nul(fh, path)
    return ("utf-8", "strict", "utf-8") if bad is None else ("cp1252", "replace", "cp1252")


def _not_utf8(fh: IO[bytes]) -> int | None:
    """The line of the first byte of the file that is not UTF-8 (None: every byte is)."""
    pending, newlines = b"", 0
    while True:
        chunk = fh.read(_BLOCK)
        data = pending + chunk
        try:
            _, used = codecs.utf_8_decode(data, "strict", not chunk)
        except UnicodeDecodeError as exc:
            return newlines + data[: exc.start].count(b"\n") + 1
        newlines += data.count(b"\n", 0, used)
        pending = data[used:]
        if not chunk:
            return None


def _no_nul(fh: IO[bytes], path: Path) -> None:
    while chunk := fh.read(_BLOCK):
        if b"\x00" in chunk:
            raise QuizgenError(f"{path} is not a text file", field="answers")


@contextmanager
def _body(path: Path, layout: _Layout, stamp: tuple[int, int]):
    """The sheet's text (newlines as written), after the lines before its header; the file
    must be the one first read."""
    with opened(path, "answers") as fh:
        if _stamp(fh) != stamp:
            _changed(path)
        body = io.TextIOWrapper(fh, encoding=layout.codec, errors=layout.errors, newline="")
        for _ in range(layout.skip):
            body.readline()
        yield body


def _stamp(fh: IO[bytes]) -> tuple[int, int]:
    info = os.fstat(fh.fileno())
    return info.st_size, info.st_mtime_ns


@contextmanager
def _long_fields(size: int):
    """A pasted essay must not stop the file: fields as long as the file are allowed while it
    is read (each answer is capped later)."""
    limit = csv.field_size_limit()
    csv.field_size_limit(max(limit, size + 1))
    try:
        yield
    finally:
        csv.field_size_limit(limit)
