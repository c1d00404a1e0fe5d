"""CSV: the one reader of every CSV quizgen reads, and the one writer: UTF-8 with a byte-order
mark (so Excel reads the names right), every cell a spreadsheet would run as a formula prefixed
with an apostrophe (`safe_cell`, undone by `plain_cell`)."""

from __future__ import annotations

import csv
import io
import os
import re
from collections.abc import Iterable, Iterator, Sequence

from quizgen.files.atomic import write_pieces

BOM = "\ufeff"
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_PLAIN_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?%?")


def safe_cell(value: object) -> str:
    """A cell as text that no spreadsheet runs as a formula: a leading = + - @ tab or CR gets an
    apostrophe in front (a plain signed number such as -3 or +2.5 stays as it is)."""
    text = "" if value is None else str(value)
    if text.startswith(_FORMULA_START) and not _PLAIN_NUMBER.fullmatch(text):
        return "'" + text
    return text


def plain_cell(text: str) -> str:
    """Undo `safe_cell` for a cell read back from a CSV quizgen wrote."""
    if len(text) > 1 and text[0] == "'" and text[1] in "=+-@\t\r":
        return text[1:]
    return text


#: Characters that show nothing and that a spreadsheet or a copy from a web page leaves in a
#: cell: byte-order marks (two exports pasted into one file), zero-width space, word joiner,
#: Mongolian vowel separator, and the direction marks and embeddings.
_INVISIBLE = re.compile("[\ufeff\u200b\u2060\u180e\u200e\u200f\u202a-\u202e\u2066-\u2069]"
                        # zero-width (non-)joiners join letters of Devanagari and other scripts:
                        # kept between two such letters, dropped beside ASCII, a space or an edge
                        "|(?<![^\x00-\x7f\\s])[\u200c\u200d]|[\u200c\u200d](?![^\x00-\x7f\\s])")


def clean_cell(text: str) -> str:
    """A cell as read from any CSV a teacher gives: without byte-order marks and zero-width
    characters, which no one typed on purpose and which make a roll or a box unmatchable."""
    return _INVISIBLE.sub("", text) if not text.isascii() else text


class CsvRows:
    """`csv.reader` over `source` whose every cell is `clean_cell`ed; `line_num` as csv's."""

    def __init__(self, source: Iterable[str], delimiter: str = ",", *, strict: bool = False) -> None:
        # A byte-order mark goes before the CSV is split: one at the start of a pasted export
        # would otherwise stand before a quote and keep the quotes in the cell.
        lines = (line.replace(BOM, "") if BOM in line else line for line in source)
        self._reader = csv.reader(lines, delimiter=delimiter, strict=strict)

    @property
    def line_num(self) -> int:
        return self._reader.line_num

    def __iter__(self) -> "CsvRows":
        return self

    def __next__(self) -> list[str]:
        row = next(self._reader)
        if "".join(row).isascii():          # most rows: nothing to clean
            return row
        return [clean_cell(cell) for cell in row]


def csv_rows(source: Iterable[str], delimiter: str = ",", *, strict: bool = False) -> CsvRows:
    """The one reader of every CSV quizgen reads (rosters, answer sheets, overrides, a scan's
    review fixes): rows of cells cleaned of invisible characters (see `clean_cell`)."""
    return CsvRows(source, delimiter, strict=strict)


def visible(text: str) -> str:
    """`text` with every character that prints as nothing (control and format characters,
    such as a byte-order mark) written as its code, ``<U+FEFF>``: for warnings that quote a
    teacher's text."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else f"<U+{ord(ch):04X}>" for ch in text)


def sniff_delimiter(first_line: str) -> str:
    """The separator that splits a CSV header into the most fields: comma, semicolon (Excel in
    many locales) or tab; a comma on a tie. Rosters and answer sheets are read alike."""
    best, width = ",", 1
    for delim in (",", ";", "\t"):
        fields = len(next(csv.reader([first_line], delimiter=delim)))
        if fields > width:
            best, width = delim, fields
    return best


def csv_text(rows: Iterable[Sequence[object]], *, bom: bool = True) -> str:
    """Rows as CSV text (comma-separated, quoted where needed, one row per line)."""
    return "".join(csv_lines(rows, bom=bom))


def csv_lines(rows: Iterable[Sequence[object]], *, bom: bool = True) -> Iterator[str]:
    """`csv_text`, a row at a time (the byte-order mark first): for a file of thousands of
    rows written as they are made, never held whole."""
    if bom:
        yield BOM
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    for row in rows:
        writer.writerow([safe_cell(cell) for cell in row])
        yield buf.getvalue()
        buf.seek(0)
        buf.truncate()


def write_csv(path: str | os.PathLike[str], rows: Iterable[Sequence[object]], *,
              field: str = "out") -> int:
    """Write the rows to `path` atomically, a row at a time; the number of bytes written."""
    return write_pieces(path, csv_lines(rows), field=field)
