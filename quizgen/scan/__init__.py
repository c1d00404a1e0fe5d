"""Paper exams read back from a scanner (``quizgen scan``).

    result = scan_class(["class.pdf"], "midterm/manifest.json", "scanned/")

reads every page (PDFs or images, any order, upside down or turned, 150–600 dpi, or phone photos
of the pages on a desk), finds each by its QR code, straightens it by its corner marks (found
anywhere in the image, by their shape), reads the bubble grids the sheet printed
under each answer box (``quizgen sheet --bubbles``), and writes into ``scanned/``:

* ``answers.csv``: the answer sheet `quizgen grade` reads, one row per student of the manifest;
  a box that could not be read with certainty (no bubble filled, two in a row, a faint mark, a
  page not scanned) holds ``needs_review``, never a guess;
* ``review.csv``: one row per doubtful box (and per box of a missing page), with an empty
  ``answer`` column for the teacher; `apply_fixes` (``quizgen scan --fix review.csv``) writes
  those readings into answers.csv;
* ``scan-report.html``: every page with each answer's crop and what was read, the doubtful
  boxes first.

The report and the reasons in review.csv are written in the exam's language (the manifest's, or
the one asked for), from the phrasebook's ``[scan-label]``, ``[scan]`` and ``[scan_reason]``; the
command's own summary and warnings are quizgen's interface messages, in English.
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from quizgen.errors import QuizgenError
from quizgen.grade.notes import Note
from quizgen.manifest import Manifest
from quizgen.scan.reasons import reason, scan_note

__all__ = ["ScanResult", "scan_class", "apply_fixes", "reason", "ANSWERS", "REVIEW", "REPORT"]

ANSWERS = "answers.csv"
REVIEW = "review.csv"
REPORT = "scan-report.html"
REVIEW_HEADER = ["version", "name", "roll", "box", "page", "reason", "answer"]


@dataclass(slots=True)
class ScanResult:
    """What a scan found: counts for the command's summary line, and the paths written.

    `unreadable`, `missing_pages` and `absent` are the command's warning lines (English); the
    report writes the same in the exam's language. `lang` is the language of the report and of
    review.csv's reasons."""

    pages: int = 0
    recognised: int = 0
    boxes: int = 0
    read: int = 0
    review: int = 0
    unreadable: list[str] = field(default_factory=list)
    missing_pages: list[str] = field(default_factory=list)
    absent: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)          # a user's files moved out of the way
    unplaced: int = 0       # pages not recognised that could belong to any paper (no code read)
    unread_pages: list[str] = field(default_factory=list)   # known pages scanned, not recognised
    named: list[str] = field(default_factory=list)   # first pages named by their cover's code
    out_dir: Path = Path(".")
    answers: dict[str, dict[str, str]] = field(default_factory=dict)   # version → column → text
    lang: str = ""


def scan_class(scans: list[str | os.PathLike[str]], manifest_path: str | os.PathLike[str],
               out_dir: str | os.PathLike[str], *, dpi: int | None = None, report: bool = True,
               force: bool = False, lang: str | None = None,
               progress: Callable[[int, int], None] | None = None,
               debug: str | os.PathLike[str] | None = None, jobs: int | None = None) -> ScanResult:
    """Read a class's scanned papers and write answers.csv, review.csv and scan-report.html.

    The report and review.csv's reasons are in `lang` (default: the exam's language, as the
    manifest records it; else the phrasebook's default).

    As `quizgen sheet` and `grade` do, only quizgen's own files in `out_dir` are replaced: a folder
    holding anything else (the sheet's folder, a hand-edited answers.csv) is refused unless
    `force`, and then such a file in the way is kept as NAME.kept.

    Every page is bounded before it is decoded (`pages.Limits`, from the exam's paper); a page too
    large is reported, not read. Pages are read by `jobs` processes (default: one per core), and
    what is written does not depend on how many. `progress(done, total)` is called before each
    page. With `debug`, each recognised page is written there as a PNG with its bubbles drawn as
    read on that page."""
    from quizgen.scan.pages import RENDER_DPI, Limits, load_scans
    from quizgen.scan.papers import _fresh
    from quizgen.scan.report import ReportSpool

    manifest, layout, lang, columns, out, papers = _open_class(scans, manifest_path, out_dir,
                                                               lang, force)
    exam = {"recipe": {"title": _fresh(manifest.title)}, "students": papers.students}
    del manifest                            # its questions and solutions: not needed here
    students = {s["version"]: s for s in exam["students"]}
    paper_pages = sum(s["pages"] for s in exam["students"])
    pages_in = load_scans(list(scans), dpi or RENDER_DPI, Limits.for_exam(layout, paper_pages))
    result = ScanResult(out_dir=out, lang=lang)
    seen = _Sightings(spool=ReportSpool(lang) if report else None, store=_Store(),
                      papers=papers)
    try:
        with _debug_folder(debug, out, force) as staged_debug:
            _read_pages(pages_in.tasks(), layout, students, result, seen, progress=progress,
                        debug=None if staged_debug is None else str(staged_debug), jobs=jobs)
            tally = _reconcile(students, columns, seen, result, lang)
            result.answers = tally.answers
            result.missing_pages = [str(n) for n in tally.missing]
            result.unread_pages = [str(n) for n in tally.unread]
            result.absent = [str(n) for n in tally.absent]
            result.unplaced = seen.anyone
            _write_outputs(out, exam, columns, result, seen, tally)
            if staged_debug is not None:      # the pictures after the answers, in a folder of theirs
                from quizgen.files import publish_folder

                names = sorted(p.name for p in staged_debug.iterdir())
                result.kept += publish_folder(staged_debug, debug, names, field="debug")
    finally:
        seen.store.close()
        papers.close()
        if seen.spool is not None:
            seen.spool.close()
    return result


@contextmanager
def _debug_folder(debug: str | os.PathLike[str] | None, out: Path,
                  force: bool) -> Iterator[Path | None]:
    """The staged folder the debug pictures are written into (published over `debug` at the
    end, as every output folder: only quizgen's own pictures replaced), or None without one."""
    if debug is None:
        yield None
        return
    from quizgen.files import check_folder, staged_folder

    if Path(debug).resolve() == Path(out).resolve():
        raise QuizgenError("the debug pictures need a folder of their own, not the --out "
                           "folder", field="debug")
    check_folder(debug, force=force, field="debug")
    with staged_folder(debug) as staged:
        yield staged


class _Store:
    """What the pages showed, kept in a temporary file rather than in memory, so that a pile of
    thousands of pages takes no more memory than a few: `put` gives a reference, `get` the object
    back (pickled here, read back here)."""

    def __init__(self) -> None:
        import tempfile

        self.file = tempfile.TemporaryFile()

    def put(self, value: Any) -> tuple[int, int]:
        import pickle

        data = pickle.dumps(value, pickle.HIGHEST_PROTOCOL)
        self.file.seek(0, 2)
        offset = self.file.tell()
        self.file.write(data)
        return offset, len(data)

    def get(self, ref: tuple[int, int]) -> Any:
        import pickle

        self.file.seek(ref[0])
        return pickle.loads(self.file.read(ref[1]))

    def close(self) -> None:
        self.file.close()


@dataclass(slots=True)
class _Sightings:
    """What the scanned pages showed, before it is matched against the class."""

    spool: Any = None          # the report, written as the papers are judged (`ReportSpool`)
    store: Any = None          # where pages and readings wait, out of memory (`_Store`)
    papers: Any = None         # the class's answer grids (`papers.Papers`)
    # (version, page) → its boxes' readings, in the store
    readings: dict[tuple[str, int], tuple[int, int]] = field(default_factory=dict)
    # (version, page) → source, why: pages whose code was read, but not the page
    known_unread: dict[tuple[str, int], tuple[str, Note]] = field(default_factory=dict)
    anyone: int = 0            # pages not recognised that could be any student's
    # a paper's pages measured, until every page of it is in: version → page → PageSeen (stored)
    waiting: dict[str, dict[int, tuple[int, int]]] = field(default_factory=dict)
    # what each box's bubbles looked like (a hash), to find a page scanned twice and read otherwise
    looks: dict[tuple[str, int], tuple[int, ...]] = field(default_factory=dict)
    twice: set[tuple[str, int, int]] = field(default_factory=set)   # version, page, box
    by_cover: list[Any] = field(default_factory=list)    # `PageUnseen`s with a page `named`


@dataclass(slots=True)
class _Tally:
    """Every student's row of answers.csv, the rows of review.csv, and the notes of what is missing."""

    answers: dict[str, dict[str, str]] = field(default_factory=dict)   # version → column → text
    review_rows: list[list[str]] = field(default_factory=list)
    missing: list[Note] = field(default_factory=list)
    unread: list[Note] = field(default_factory=list)      # pages whose code was read, but not the page
    absent: list[Note] = field(default_factory=list)


def _open_class(scans: list[Any], manifest_path: str | os.PathLike[str],
                out_dir: str | os.PathLike[str], lang: str | None, force: bool
                ) -> tuple[Manifest, dict[str, Any], str, list[str], Path, Any]:
    """The manifest (its answer grids' layout validated by the one loader), that layout, the
    report's language, the answer columns, the output folder, each checked before a page is
    read, and the class's grids on disk (`papers.Papers`, taken in the same reading)."""
    from quizgen.scan.papers import Papers

    papers = Papers()
    try:
        found = _check_class(scans, manifest_path, out_dir, lang, force, papers)
    except BaseException:
        papers.close()
        raise
    papers.ready()
    return (*found, papers)


def _check_class(scans: list[Any], manifest_path: str | os.PathLike[str],
                 out_dir: str | os.PathLike[str], lang: str | None, force: bool, papers: Any
                 ) -> tuple[Manifest, dict[str, Any], str, list[str], Path]:
    from quizgen.files import check_folder, read_ledger
    from quizgen.manifest import load_manifest

    manifest = load_manifest(manifest_path, scan=True, each=papers.add)
    layout = manifest.scan
    lang = manifest.language(lang)
    if not scans:
        raise QuizgenError("give the scanned pages (PDFs or images)", field="scans")
    columns = manifest.answer_columns()
    out = Path(out_dir)
    others = sorted(set(read_ledger(out)) - {ANSWERS, REVIEW, REPORT}) if out.is_dir() else []
    if others:      # another command's folder (the sheet's: its answers.csv is the blank sheet)
        raise QuizgenError(f"{out} holds another quizgen command's files ({', '.join(others[:3])}"
                           f"); scan into a folder of its own, such as {out / 'scanned'}",
                           field="out")
    check_folder(out, force=force)
    return manifest, layout, lang, columns, out


def _read_pages(tasks: list[Any], layout: dict[str, Any], students: dict[str, Any],
                result: ScanResult, seen: _Sightings, *,
                progress: Callable[[int, int], None] | None, debug: str | None,
                jobs: int | None) -> None:
    """Find every page by its code and measure its boxes (`pool.read_scans`); each paper is read
    whole as soon as all its pages are in, and the rest at the end. A page scanned twice keeps its
    first scan, and a box the two scans show differently goes to review."""
    from quizgen.scan.pool import PageSeen, read_scans

    for got in read_scans(tasks, layout, seen.papers.where, report=seen.spool is not None,
                          debug=debug, jobs=jobs):
        if progress:
            progress(result.pages, len(tasks))
        result.pages += 1
        if isinstance(got, PageSeen):
            _recognised(got, students, result, seen)
        elif got.named is not None:
            seen.by_cover.append(got)           # decided once every page is in
        else:
            _unrecognised(got, students, result, seen)
    _named_by_cover(students, result, seen)
    for version in sorted(seen.waiting):
        _judge_paper(students[version], seen)


def _recognised(got: Any, students: dict[str, Any], result: ScanResult, seen: _Sightings) -> None:
    """A page found and measured: kept (its paper read when all its pages are in), or, when it
    was seen before, compared with the first scan."""
    result.recognised += 1
    key = (got.version, got.page)
    looks = tuple(hash(tuple(m.states)) if m is not None else 0 for m in got.measured)
    if key in seen.looks:
        _scanned_again(got, looks, result, seen)
        return
    seen.looks[key] = looks
    waiting = seen.waiting.setdefault(got.version, {})
    waiting[got.page] = seen.store.put(got)
    if len(waiting) == students[got.version]["pages"]:
        _judge_paper(students[got.version], seen)


def _named_by_cover(students: dict[str, Any], result: ScanResult, seen: _Sightings) -> None:
    """A first page whose page code was not read, but whose cover's code (the version alone) was:
    taken as that paper's first page when the pile agrees (no first page of that paper
    recognised or named otherwise, another of its pages recognised, no other page naming it);
    else reported as not recognised, as any page without a code."""
    claims: dict[str, int] = {}
    for got in seen.by_cover:
        claims[got.named.version] = claims.get(got.named.version, 0) + 1
    for got in seen.by_cover:
        named = got.named
        version = named.version
        others = (any(v == version for v, _ in seen.looks)
                  or students[version]["pages"] == 1)
        if (claims[version] > 1 or (version, 1) in seen.looks
                or (version, 1) in seen.known_unread or not others):
            _unrecognised(got, students, result, seen)
            continue
        result.named.append(f"{named.source}: its page code was not read; named version "
                            f"{version} page 1 by the cover's code")
        if seen.spool is not None:
            named.source = seen.spool.say("by_cover", source=named.source, version=version)
        _recognised(named, students, result, seen)


def _judge_paper(student: dict[str, Any], seen: _Sightings) -> None:
    """A student's pages read together (`read.read_paper`), into the readings and the report."""
    from quizgen.export.bubbles import NEEDS_REVIEW
    from quizgen.scan.read import read_paper

    version = student["version"]
    pages = sorted((seen.store.get(ref) for ref in seen.waiting.pop(version).values()),
                   key=lambda p: p.page)
    grids = seen.papers.grids(version)
    boxes = [grids.get(p.page, []) for p in pages]
    for page, page_boxes, readings in zip(pages, boxes, read_paper(
            [(b, p.measured) for b, p in zip(boxes, pages)])):
        for i, reading in enumerate(readings):
            if (version, page.page, i) in seen.twice and reading.status == "read":
                reading.text, reading.status = NEEDS_REVIEW, "review"
                reading.reason = reason("scanned_twice")
        if seen.spool is not None:
            seen.spool.add_page({"source": page.source, "version": version, "page": page.page,
                                 "marks": page.marks}, student, readings, page.shots)
        for reading in readings:                 # what the report needed, no longer kept
            reading.states, reading.scores, reading.centres = [], [], []
        seen.readings[(version, page.page)] = seen.store.put(readings)


def _scanned_again(got: Any, looks: tuple[int, ...], result: ScanResult,
                   seen: _Sightings) -> None:
    """A page seen before: the first scan is used; a box the two show differently goes to review
    (when its paper is read, or, if it has been, when the class is reconciled)."""
    key = (got.version, got.page)
    for i, (old, new) in enumerate(zip(seen.looks[key], looks)):
        if old != new:
            seen.twice.add((*key, i))
    result.unreadable.append(f"{got.source}: version {got.version} page {got.page} "
                             "scanned again (the first scan is used)")


def _unrecognised(got: Any, students: dict[str, Any], result: ScanResult,
                  seen: _Sightings) -> None:
    """A page that is not one of this class's papers, or whose page could not be read: a warning,
    and, when its code named a student's page, that page's boxes go to review with the reason."""
    result.unreadable.append(f"{got.source}: {got.reason}")
    if got.anyone:
        seen.anyone += 1
    elif got.version in students and got.page is not None and got.reason.key not in (
            "other_exam", "unknown_version"):
        seen.known_unread.setdefault((got.version, got.page), (got.source, got.reason))
    if seen.spool is not None:
        seen.spool.add_unreadable(got.source, got.reason, got.thumb)


def _reconcile(students: dict[str, Any], columns: list[str], seen: _Sightings,
               result: ScanResult, lang: str) -> _Tally:
    """Every student's row: the boxes read, and needs_review (with why) for every box of a page
    that was not read."""
    tally = _Tally()
    for version, student in students.items():
        row = {column: "" for column in columns}
        numbers = range(1, student["pages"] + 1)
        pages_found = {p for p in numbers if (version, p) in seen.readings}
        unread = {p for p in numbers if (version, p) in seen.known_unread}
        if not pages_found and not unread:
            tally.absent.append(_who(student))
        for page in numbers:
            if page not in pages_found:
                _page_not_read(student, page, row, bool(pages_found or unread), seen, tally,
                               result, lang)
        for page in sorted(pages_found):
            _page_read(student, page, _stored_readings(seen, version, page), row, tally,
                       result, lang)
        tally.answers[version] = row
    return tally


def _stored_readings(seen: _Sightings, version: str, page: int) -> list[Any]:
    """A read page's boxes, with those a second scan showed otherwise sent to review."""
    from quizgen.export.bubbles import NEEDS_REVIEW

    readings = seen.store.get(seen.readings[(version, page)])
    for i, reading in enumerate(readings):
        if (version, page, i) in seen.twice and reading.text != NEEDS_REVIEW:
            reading.text, reading.status = NEEDS_REVIEW, "review"
            reading.reason = reason("scanned_twice")
    return readings


def _page_not_read(student: dict[str, Any], page: int, row: dict[str, str], any_page: bool,
                   seen: _Sightings, tally: _Tally, result: ScanResult, lang: str) -> None:
    """Every box of a page not read goes to review: scanned but not recognised, not found among
    the pages (`any_page`: others of the paper were), or the whole paper not found."""
    from quizgen.export.bubbles import NEEDS_REVIEW

    version = student["version"]
    boxes = [column for column, on in student["boxes"] if on == page]
    anyone = seen.anyone
    if (version, page) in seen.known_unread:
        source, cause = seen.known_unread[(version, page)]
        tally.unread.append(scan_note("who_page_unread", who=_who(student), page=page,
                                      source=source, why=cause))
        why = reason("page_unrecognised", page=page, source=source, why=cause)
    elif any_page:
        if boxes:
            tally.missing.append(scan_note("who_page", who=_who(student), page=page))
        why = (reason("page_not_found", page=page, n=anyone) if anyone
               else reason("page_not_scanned", page=page))
    else:
        why = (reason("paper_not_found", n=anyone) if anyone
               else reason("paper_not_scanned"))
    for column in boxes:
        row[column] = NEEDS_REVIEW
        result.boxes += 1
        result.review += 1
        tally.review_rows.append([version, student["name"], student["roll"], column,
                                  str(page), why.text(lang), ""])


def _page_read(student: dict[str, Any], page: int, readings: list[Any], row: dict[str, str],
               tally: _Tally, result: ScanResult, lang: str) -> None:
    """A read page's boxes into the student's row; a doubtful one also into review.csv."""
    from quizgen.grade.notes import note_text

    for reading in readings:
        row[reading.column] = reading.text
        result.boxes += 1
        if reading.status == "review":
            result.review += 1
            tally.review_rows.append([student["version"], student["name"], student["roll"],
                                      reading.column, str(page),
                                      note_text(reading.reason, lang) or "", ""])
        else:
            result.read += 1


def _write_outputs(out: Path, manifest: dict[str, Any], columns: list[str], result: ScanResult,
                   seen: _Sightings, tally: _Tally) -> None:
    """answers.csv, review.csv and the report, staged and published together."""
    from quizgen.files import publish_folder, staged_folder, write_csv

    with staged_folder(out) as staged:
        _write_answers(staged / ANSWERS, manifest, columns, tally.answers)
        write_csv(staged / REVIEW, [REVIEW_HEADER, *tally.review_rows])
        if seen.spool is not None:
            seen.spool.write(staged / REPORT, manifest, result, missing=tally.missing,
                             absent=tally.absent, unplaced=seen.anyone, unread=tally.unread)
        result.kept = publish_folder(staged, out, [ANSWERS, REVIEW]
                                     + ([REPORT] if seen.spool is not None else []))


def _who(student: dict[str, Any]) -> Note:
    """A student as the warnings and the report name them: name · roll · version."""
    return scan_note("who", name=str(student.get("name") or ""),
                      roll=str(student.get("roll") or ""), version=str(student["version"]))


def _write_answers(path: Path, manifest: dict[str, Any], columns: list[str],
                   answers: dict[str, dict[str, str]]) -> None:
    from quizgen.files import write_csv

    rows: list[list[str]] = [["name", "roll", "version", *columns]]
    for student in manifest["students"]:
        row = answers.get(student["version"], {})
        rows.append([student["name"], student["roll"], student["version"],
                     *(row.get(column, "") for column in columns)])
    write_csv(path, rows)


# ---------------------------------------------------------------------------------------------
# The teacher's readings of doubtful boxes


def apply_fixes(fixes_path: str | os.PathLike[str], out_dir: str | os.PathLike[str]) -> tuple[int, int]:
    """Write the teacher's readings (a CSV with version or roll, box and answer; `review.csv`
    with its answer column filled) into ``out_dir/answers.csv``. ``blank`` writes an empty box
    (no answer: it scores 0 without being listed again).
    Returns (boxes fixed, boxes still needs_review). Any row naming an unknown student or box is
    a `QuizgenError` naming its line, and nothing is written."""
    from quizgen.export.bubbles import NEEDS_REVIEW
    from quizgen.files import plain_cell, read_limited, write_csv

    answers_path = Path(out_dir) / ANSWERS
    if not answers_path.is_file():
        raise QuizgenError(f"no {ANSWERS} in {out_dir}; run quizgen scan first", field="out")
    sheet = _read_csv(read_limited(answers_path, "answers"), str(answers_path))
    header, rows = sheet[0], sheet[1:]
    if header[:3] != ["name", "roll", "version"]:
        raise QuizgenError(f"{answers_path} is not an answer sheet written by quizgen scan",
                           field="out")
    by_version = {row[2]: row for row in rows}
    by_roll = {row[1].casefold(): row for row in rows if row[1]}
    fixes = _read_csv(read_limited(Path(fixes_path), "answers"), str(fixes_path))
    if not fixes:
        raise QuizgenError(f"{fixes_path} is empty", field="fix")
    names = [h.strip().casefold() for h in fixes[0]]
    for needed in ("box", "answer"):
        if needed not in names:
            raise QuizgenError(f"{fixes_path} has no {needed!r} column (columns: "
                               f"{', '.join(fixes[0])})", field="fix")
    if "version" not in names and "roll" not in names:
        raise QuizgenError(f"{fixes_path} needs a 'version' or a 'roll' column", field="fix")
    at = {name: i for i, name in enumerate(names)}
    fixed = 0
    for line, fix in enumerate(fixes[1:], start=2):
        def cell(name: str) -> str:
            i = at.get(name)
            return plain_cell(fix[i].strip()) if i is not None and i < len(fix) else ""

        answer = cell("answer")
        if not answer:
            continue                       # not decided yet: the box stays needs_review
        version, roll = cell("version"), cell("roll")
        row = by_version.get(version) if version else by_roll.get(roll.casefold())
        if row is None:
            raise QuizgenError(f"{fixes_path} line {line}: no student with "
                               + (f"version {version!r}" if version else f"roll {roll!r}")
                               + f" in {answers_path}", field="fix")
        box = cell("box")
        if box not in header[3:]:
            raise QuizgenError(f"{fixes_path} line {line}: no box {box!r} (boxes: "
                               f"{', '.join(header[3:6])}, …)", field="fix")
        row[header.index(box)] = "" if answer.casefold() == "blank" else answer
        fixed += 1
    left = sum(cell == NEEDS_REVIEW for row in rows for cell in row[3:])
    write_csv(answers_path, [header, *rows])
    from quizgen.files import add_to_ledger

    add_to_ledger(answers_path.parent, answers_path)      # still quizgen's: a new scan replaces it
    return fixed, left


def _read_csv(data: bytes, where: str) -> list[list[str]]:
    from quizgen.files import csv_rows, sniff_delimiter

    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise QuizgenError(f"{where} is not UTF-8 text", field="fix") from None
    first = text.split("\n", 1)[0]
    try:
        return [row for row in csv_rows(io.StringIO(text), delimiter=sniff_delimiter(first))
                if any(c.strip() for c in row)]
    except csv.Error as exc:
        raise QuizgenError(f"{where} is not readable CSV ({exc})", field="fix") from None
