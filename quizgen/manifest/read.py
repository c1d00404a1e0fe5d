"""Reading an exam manifest from its file: size-limited, UTF-8, JSON whose every number is
finite, then validated (`quizgen.manifest.check`) before anything uses it. One loader for
grade, scan and check.

The file is read as a stream, one part at a time (each field of its head, then each student's
paper), so that memory does not grow with the class: a manifest of 2,000 students (140 MB of
JSON) never sits in memory whole. Each paper is validated as it passes; what the lookups need is
kept compactly, and a paper is read again from the file when it is asked for
(`quizgen.manifest.record.PaperSource`). A file that is not a regular file (a pipe) keeps its
papers in memory instead. Whatever is not a manifest is refused at its first wrong byte
(``/dev/zero`` at once), a file larger than `LIMITS["manifest"]` before it is read, and a single
part larger than `PART_LIMIT` before it is parsed.
"""

from __future__ import annotations

import codecs
import json
import math
import os
import re
import stat
from pathlib import Path
from typing import IO, Any, Callable

from quizgen.errors import QuizgenError
from quizgen.manifest.check import (check_count, check_head, check_scan_layout, check_scan_paper,
                                    check_student)
from quizgen.manifest.record import Manifest, PaperSource, StudentPaper, asked_keys

# A float literal whose exponent has three digits may overflow to infinity when parsed.
_BIG_EXPONENT = re.compile(rb"[0-9][eE]\+?0*[0-9]{3,}")
_BIG_EXPONENT_TEXT = re.compile(r"[0-9][eE]\+?0*[0-9]{3,}")

#: The largest single part of a manifest (one student's paper, or one field of its head): a
#: paper of a thousand questions is about 10 MB.
PART_LIMIT = 32 << 20
#: How much of the file is read at a time.
_CHUNK = 1 << 20
_SPACE = " \t\n\r"


def load_manifest(path: str | os.PathLike[str], *, scan: bool = False,
                  each: Callable[[StudentPaper], None] | None = None) -> Manifest:
    """The manifest at `path`, validated (see `check_manifest`); `scan` also validates the
    answer grids' layout (``scan`` and every student's ``sheet``), which only `quizgen scan`
    reads. Its papers stay in the file until asked for (see the module's note); `each` is
    given every paper, in order, as it passes validated (what a class of thousands needs from
    its papers is taken in the one reading)."""
    from quizgen.files import LIMITS, opened, too_large

    path = Path(path)
    limit = LIMITS["manifest"]
    with opened(path, "manifest") as fh:
        info = os.fstat(fh.fileno())
        if stat.S_ISDIR(info.st_mode):
            raise QuizgenError(f"{path} is a folder; give a file", field="manifest")
        regular = stat.S_ISREG(info.st_mode)
        if regular and info.st_size > limit:
            raise too_large(path, "manifest", limit)
        reader = _Reader(fh, path, limit, scan=scan, each=each)
        head, papers = reader.manifest(keep=not regular)
    check_head(head, str(path))
    check_count(len(papers), str(path))
    students: list[StudentPaper] | PaperSource = papers
    if regular:
        students = _FilePapers(path, *papers.parts())
    manifest = Manifest.from_dict({**head, "students": []}, str(path))
    manifest.students = students
    if scan and reader.scan_size is None:      # the layout came after the papers: a second pass
        size = check_scan_layout(head.get("scan"), str(path))
        seen: set[str] = set()
        for i, paper in enumerate(students, start=1):
            check_scan_paper(paper.to_dict(), i, str(path), size, seen)
            if each is not None:
                each(paper)
    return manifest


class _Found:
    """What one pass over the papers keeps: where each is in the file, and the lookups."""

    def __init__(self, keep: bool) -> None:
        self.keep = keep
        self.papers: list[StudentPaper] = []
        self.spans: list[tuple[int, int]] = []
        self.identities: list[tuple[str, str, str]] = []
        self.boxes: dict[int, dict[str, None]] = {}
        self.locations: dict[str, tuple[int, int]] = {}

    def add(self, paper: StudentPaper, span: tuple[int, int]) -> None:
        index = len(self.identities)
        self.identities.append((paper.name, paper.roll, paper.version))
        self.spans.append(span)
        for j, (number, question) in enumerate(paper.numbered()):
            keys = self.boxes.setdefault(number, {})
            for key in asked_keys(question):
                keys[key] = None
            self.locations.setdefault(str(question.get("id", "")), (index, j))
        if self.keep:
            self.papers.append(paper)

    def __len__(self) -> int:
        return len(self.identities)

    def __iter__(self):
        return iter(self.papers)

    def __getitem__(self, index: int) -> StudentPaper:
        return self.papers[index]

    def parts(self):
        return self.spans, self.identities, self.boxes, self.locations


class _FilePapers(PaperSource):
    """The papers of a manifest file, each read from its place when asked for."""

    def __init__(self, path: Path, spans: list[tuple[int, int]], *lookups) -> None:
        super().__init__(*lookups)
        self.path = path
        self.spans = spans

    def read(self, index: int) -> StudentPaper:
        start, size = self.spans[index]
        try:
            with open(self.path, "rb") as fh:
                fh.seek(start)
                raw = fh.read(size)
        except OSError as exc:
            from quizgen.files import os_error_text

            raise QuizgenError(os_error_text(exc, self.path, action="read"),
                               field="manifest") from None
        return self._paper(raw, index)

    def __iter__(self):
        try:
            fh = open(self.path, "rb")
        except OSError as exc:
            from quizgen.files import os_error_text

            raise QuizgenError(os_error_text(exc, self.path, action="read"),
                               field="manifest") from None
        with fh:
            for index, (start, size) in enumerate(self.spans):
                fh.seek(start)
                yield self._paper(fh.read(size), index)

    def _paper(self, raw: bytes, index: int) -> StudentPaper:
        where = f"students[{index + 1}]"
        try:
            data = load_json(raw.decode("utf-8"), str(self.path), "manifest",
                             noun="a JSON manifest")
        except (UnicodeDecodeError, QuizgenError):
            data = None
        if not isinstance(data, dict):
            raise QuizgenError(f"{self.path} changed while it was read; run again",
                               field="manifest")
        check_student(data, where, str(self.path))
        paper = StudentPaper.from_dict(data, where)
        if (paper.name, paper.roll, paper.version) != self.identities[index]:
            raise QuizgenError(f"{self.path} changed while it was read; run again",
                               field="manifest")
        return paper


class _Reader:
    """A manifest's JSON read part by part from an open file: the head's fields whole, the
    students one paper at a time (`PART_LIMIT` each), `limit` bytes in all."""

    def __init__(self, fh: IO[bytes], path: Path, limit: int, *, scan: bool = False,
                 each: Callable[[StudentPaper], None] | None = None) -> None:
        self.fh, self.path, self.limit = fh, path, limit
        self.scan, self.each = scan, each
        self.scan_size: tuple[float, float] | None = None   # the page's, once `scan` is read
        self.versions: set[str] = set()
        self.decode = codecs.getincrementaldecoder("utf-8")().decode
        self.buf = ""            # text read and not yet consumed, from `pos`
        self.pos = 0
        self.offset = 0          # the file's byte offset of buf[pos]
        self.lines = 1           # the line of buf[pos]
        self.read_bytes = 0
        self.eof = False
        self.started = False

    # -- the whole manifest

    def manifest(self, *, keep: bool) -> tuple[dict[str, Any], _Found]:
        head: dict[str, Any] = {}
        found = _Found(keep)
        if self._peek() in ('"', "[", "-", "t", "f", "n", *"0123456789"):
            raise QuizgenError(f"{self.path} is not an exam manifest (expected a JSON object)",
                               field="manifest")
        self._expect("{")
        first = True
        while True:
            if self._peek() == "}" and first:
                self._step(1)
                break
            key = self._value(str, "a field name")
            self._expect(":")
            if key == "students" and self._peek() == "[":
                check_head(head, str(self.path))
                if self.scan and "scan" in head:
                    self.scan_size = check_scan_layout(head["scan"], str(self.path))
                self._papers(found)
                head["students"] = True
            else:
                head[key] = self._value(object, key)
            first = False
            if self._peek() == ",":
                self._step(1)
                continue
            self._expect("}")
            break
        if self._peek() != "":
            self._fail("extra data after the manifest")
        if head.pop("students", None) is None:
            raise QuizgenError(f"{self.path} lists no students", field="manifest")
        return head, found

    def _papers(self, found: _Found) -> None:
        from quizgen.manifest.check import MAX_STUDENTS

        self._expect("[")
        if self._peek() == "]":
            self._step(1)
            return
        while True:
            index = len(found) + 1
            if index > MAX_STUDENTS:
                check_count(index, str(self.path))
            start = self.offset
            data = self._value(object, f"students[{index}]")
            check_student(data, f"students[{index}]", str(self.path))
            if self.scan_size is not None:
                check_scan_paper(data, index, str(self.path), self.scan_size, self.versions)
            paper = StudentPaper.from_dict(data, f"students[{index}]")
            found.add(paper, (start, self.offset - start))
            if self.each is not None and (self.scan_size is not None or not self.scan):
                self.each(paper)         # validated whole (else after the second pass)
            if self._peek() == ",":
                self._step(1)
                continue
            self._expect("]")
            return

    # -- one part

    def _value(self, kind: type, what: str) -> Any:
        """The JSON value at the reading place (read whole, at most `PART_LIMIT`)."""
        decoder = _DECODER
        if kind is str and self._peek() != '"':
            self._fail(f"expected {what}")
        while True:
            self._peek()
            try:
                value, end = decoder.raw_decode(self.buf, self.pos)
            except json.JSONDecodeError as exc:
                # cut short by the end of what was read, or wrong where it stands
                if self.eof or not (exc.pos >= len(self.buf) - 6
                                    or exc.msg.startswith("Unterminated string")):
                    self._fail(exc.msg, exc.pos)
                value, end = None, None
            except _NotFinite as exc:
                self._not_finite(exc)
            except RecursionError:
                raise QuizgenError(f"{self.path} is not a JSON manifest (nested too deeply)",
                                   field="manifest") from None
            if end is not None and (end < len(self.buf) or self.eof):
                if decoder is _DECODER and _BIG_EXPONENT_TEXT.search(self.buf, self.pos, end):
                    decoder = _FINITE
                    continue
                break
            if len(self.buf) - self.pos > PART_LIMIT:
                from quizgen.files import size_text

                raise QuizgenError(f"{self.path}: {what} is larger than "
                                   f"{size_text(PART_LIMIT)}, far more than any exam's; give "
                                   "the right file", field="manifest")
            self._more(max(_CHUNK, len(self.buf) - self.pos))
        if kind is str and not isinstance(value, str):
            self._fail(f"expected {what}")
        self._step(end - self.pos)
        return value

    def _not_finite(self, exc: Exception):
        raise QuizgenError(f"{self.path} holds {exc.args[0]}, which is not a finite number; "
                           "numbers quizgen reads must be finite", field="manifest") from None

    # -- the reading place

    def _peek(self) -> str:
        """The next character that is not white space ('' at the end), moved to."""
        while True:
            end = len(self.buf)
            pos = self.pos
            while pos < end and self.buf[pos] in _SPACE:
                pos += 1
            self._step(pos - self.pos)
            if self.pos < end:
                return self.buf[self.pos]
            if not self._more(_CHUNK):
                return ""

    def _expect(self, char: str) -> None:
        if self._peek() != char:
            self._fail(f"expected '{char}'")
        self._step(1)

    def _step(self, count: int) -> None:
        if count <= 0:
            return
        passed = self.buf[self.pos:self.pos + count]
        self.offset += len(passed) if passed.isascii() else len(passed.encode("utf-8"))
        self.lines += passed.count("\n")
        self.pos += count

    def _more(self, size: int) -> bool:
        """Read about `size` more bytes; False at the end of the file."""
        from quizgen.files import NOUNS, size_text

        if self.eof:
            return False
        try:
            chunk = self.fh.read(size)
        except OSError as exc:
            from quizgen.files import os_error_text

            raise QuizgenError(os_error_text(exc, self.path, action="read"),
                               field="manifest") from None
        self.read_bytes += len(chunk)
        if self.read_bytes > self.limit:
            raise QuizgenError(f"{self.path} is larger than {size_text(self.limit)}, far more "
                               f"than any {NOUNS['manifest']}; give the right file",
                               field="manifest")
        try:
            text = self.decode(chunk, final=not chunk)
        except UnicodeDecodeError as exc:
            raise QuizgenError(f"{self.path} is not a JSON manifest ({exc})",
                               field="manifest") from None
        if not self.started and (text or not chunk):
            self.started = True
            if text.startswith("\ufeff"):            # a byte-order mark: not part of the JSON
                text = text[1:]
                self.offset += 3
        if self.pos > _CHUNK:                         # drop what was read
            self.buf, self.pos = self.buf[self.pos:], 0
        self.buf += text
        if not chunk:
            self.eof = True
        return bool(chunk) or self.pos < len(self.buf)

    def _fail(self, message: str, at: int | None = None) -> None:
        at = self.pos if at is None else at
        line = self.lines + self.buf.count("\n", self.pos, at) if at >= self.pos else self.lines
        start = self.buf.rfind("\n", 0, at) + 1
        raise QuizgenError(f"{self.path} is not a JSON manifest ({message}: line {line} column "
                           f"{at - start + 1})", field="manifest")


def load_json(text: str, where: str, field: str, *, noun: str = "JSON") -> Any:
    """JSON a teacher gives (a manifest, a problem), refusing in one line what is not JSON,
    what is nested too deeply, and any number that is not finite (``NaN``, ``Infinity``,
    ``1e400``): one rule for every number quizgen reads."""
    kwargs: dict[str, Any] = {"parse_constant": _no_constant}
    if _BIG_EXPONENT.search(text.encode("utf-8", "surrogatepass")):
        kwargs["parse_float"] = _finite_float
    try:
        return json.loads(text, **kwargs)
    except _NotFinite as exc:
        raise QuizgenError(f"{where} holds {exc.args[0]}, which is not a finite number; "
                           "numbers quizgen reads must be finite", field=field) from None
    except ValueError as exc:
        raise QuizgenError(f"{where} is not {noun} ({exc})", field=field) from None
    except RecursionError:
        raise QuizgenError(f"{where} is not {noun} (nested too deeply)", field=field) from None


class _NotFinite(ValueError):
    pass


def _no_constant(name: str) -> Any:
    raise _NotFinite(name)


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _NotFinite(text)
    return value


_DECODER = json.JSONDecoder(parse_constant=_no_constant)
_FINITE = json.JSONDecoder(parse_constant=_no_constant, parse_float=_finite_float)
