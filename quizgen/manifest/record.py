"""The exam's record as one value: `Manifest` (what ``quizgen sheet`` writes into
``manifest.json``, and what ``quizgen scan`` and ``quizgen grade`` read) and its `StudentPaper`s.

A question of a paper stays the saved problem record it was written as (a plain JSON-safe dict:
`Problem.to_dict()` plus the exam's ``number``, ``points``, ``asked`` and ``tolerances``), so that
a problem saved today is graded next week from exactly what was printed.

The lookups everything after the sheet needs are here, once: the answer columns of the sheet
(``Q<number>.<key>``), every box, a question by version and number, a problem by its id, a paper
by roll or version code, and the language to write in.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from quizgen.errors import QuizgenError

#: What `quizgen sheet` writes in the manifest's ``format``.
MANIFEST_FORMAT = "quizgen-exam-manifest"
#: The newest exam manifest format the grader reads (1: no answer specs, taken from the families;
#: 2: each question carries ``answer_specs``).
MANIFEST_VERSION = 2


#: The answer sheet's prefilled problem-id columns (``Q3.id``, what ``quizgen check ID ANSWER``
#: takes): printed beside the answers, never an answer.
ID_COLUMN = re.compile(r"Q\d+\.id", re.IGNORECASE)


def column(number: int, key: str) -> str:
    """The answer sheet's column of one box: ``Q3.occupancy``."""
    return f"Q{number}.{key}"


def answer_columns(boxes: Iterable[tuple[int, Iterable[str]]]) -> list[str]:
    """The answer sheet's columns of (question number, answer keys asked) pairs: each box once,
    in question-number order (a shuffled paper prints its questions in an order of its own, the
    sheet's columns stay in one)."""
    by_number: dict[int, dict[str, None]] = {}
    for number, keys in boxes:
        for key in keys:
            by_number.setdefault(int(number), {})[column(int(number), key)] = None
    return [name for number in sorted(by_number) for name in by_number[number]]


def asked_keys(question: Mapping[str, Any]) -> list[str]:
    """The answer keys a question asks: its ``asked`` list, else every answer it has (a problem
    saved without one)."""
    asked = question.get("asked")
    if isinstance(asked, list):
        return list(asked)
    answers = question.get("answers")
    return list(answers) if isinstance(answers, Mapping) else []


@dataclass(slots=True)
class StudentPaper:
    """One student's version of the exam, as printed.

    `name` and `roll` are the roster's ('' on an anonymous version); `version` is the code printed
    beside the QR code; `questions` are the saved problem records in the order printed; `order`
    is their numbers when a shuffled paper printed them out of number order (else None); `sheet` is
    where the answer grids lie on the pages (``quizgen sheet --bubbles``: ``pages`` and
    ``boxes``), None otherwise."""

    name: str
    roll: str
    version: str
    questions: list[dict[str, Any]]
    order: list[int] | None = None
    sheet: dict[str, Any] | None = None

    @property
    def label(self) -> str:
        """Who wrote this paper, as a teacher names them: name, else roll, else the version."""
        return self.name or self.roll or self.version

    def numbered(self) -> list[tuple[int, dict[str, Any]]]:
        """(question number, record) of every question; a record without a number is numbered
        by its place."""
        return [(int(q.get("number", j)), q) for j, q in enumerate(self.questions, start=1)]

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "roll": self.roll, "version": self.version,
                               "questions": self.questions}
        if self.order is not None:
            out["order"] = list(self.order)
        if self.sheet is not None:
            out["sheet"] = self.sheet
        return out

    @classmethod
    def from_dict(cls, data: Any, where: str = "students[1]") -> StudentPaper:
        if not isinstance(data, Mapping) or not isinstance(data.get("questions"), list):
            raise QuizgenError("expected name, roll, version and questions", field=where)
        for j, item in enumerate(data["questions"], start=1):
            if not isinstance(item, Mapping):
                raise QuizgenError("expected a problem object", field=f"{where}.questions[{j}]")
        order = data.get("order")
        sheet = data.get("sheet")
        return cls(str(data.get("name") or ""), str(data.get("roll") or ""),
                   str(data.get("version") or ""), data["questions"],
                   list(order) if isinstance(order, list) else None,
                   sheet if isinstance(sheet, dict) else None)


@dataclass(slots=True)
class Manifest:
    """An exam's record: the recipe it was drawn from, every student's paper, and how the papers
    were printed.

    `recipe` is the exam recipe as a table (`ExamRecipe.to_dict()`); `paper` the paper size
    (``a4``, ``us-letter``); `practice` whether the worked solutions were printed with the
    problems; `scan` the pages' layout for the scanner (corner marks, QR code, bubble radius, in
    mm: ``quizgen sheet --bubbles``), None otherwise. `source` names where it was read from, for
    messages; it is not part of the record.

    `load_manifest` reads one from a file, validated; `Manifest.of` takes a manifest or its JSON
    table (what a Python user may hold)."""

    recipe: dict[str, Any]
    students: list[StudentPaper]
    paper: str | None = None
    practice: bool = False
    scan: dict[str, Any] | None = None
    format_version: int = MANIFEST_VERSION
    source: str = field(default="manifest", compare=False)
    _problems: dict[str, dict[str, Any]] | None = field(default=None, init=False, repr=False,
                                                        compare=False)
    _versions: dict[str, StudentPaper] | None = field(default=None, init=False, repr=False,
                                                      compare=False)

    # -- reading and writing

    def to_dict(self) -> dict[str, Any]:
        """The record as ``manifest.json`` holds it."""
        out: dict[str, Any] = {"format": MANIFEST_FORMAT, "format_version": self.format_version,
                               "recipe": self.recipe, "paper": self.paper,
                               "practice": self.practice}
        if self.scan is not None:
            out["scan"] = self.scan
        out["students"] = [paper.to_dict() for paper in self.students]
        return out

    @classmethod
    def from_dict(cls, data: Any, source: str = "manifest") -> Manifest:
        """The manifest of a JSON table (`check_manifest` validates one first, as `load_manifest`
        does); a table that is not one at all is a `QuizgenError`."""
        if not isinstance(data, Mapping) or not isinstance(data.get("students"), list):
            raise QuizgenError(f"{source} is not an exam manifest (no students)", field="manifest")
        recipe = data.get("recipe")
        scan = data.get("scan")
        version = data.get("format_version", 1)
        return cls(recipe=recipe if isinstance(recipe, dict) else {},
                   students=[StudentPaper.from_dict(s, f"students[{i}]")
                             for i, s in enumerate(data["students"], start=1)],
                   paper=data.get("paper") if isinstance(data.get("paper"), str) else None,
                   practice=data.get("practice") is True,
                   scan=scan if isinstance(scan, dict) else None,
                   format_version=version if isinstance(version, int) else 1, source=source)

    @classmethod
    def of(cls, value: Manifest | Mapping[str, Any]) -> Manifest:
        """`value` if it is a `Manifest`, else the manifest of its JSON table."""
        return value if isinstance(value, Manifest) else cls.from_dict(value)

    # -- the exam

    @property
    def title(self) -> str:
        return str(self.recipe.get("title") or "")

    @property
    def lang(self) -> str:
        """The exam's language (the phrasebook's default when the recipe names none it has)."""
        from quizgen.languages import DEFAULT_LANG, LANGS

        chosen = self.recipe.get("lang")
        return chosen if chosen in LANGS else DEFAULT_LANG

    def language(self, chosen: str | None = None) -> str:
        """The language to write about this exam in: `chosen` (one of quizgen's), else the
        exam's."""
        from quizgen.languages import LANGS

        if chosen is None:
            return self.lang
        if chosen not in LANGS:
            raise QuizgenError(f"got {chosen!r}; expected one of: {', '.join(LANGS)}",
                               field="lang")
        return chosen

    # -- lookups

    def answer_columns(self) -> list[str]:
        """The answer sheet's columns: every box of every paper, Q<number>.<key>, in
        question-number order."""
        return answer_columns((number, asked_keys(question)) for paper in self.students
                              for number, question in paper.numbered())

    def boxes(self) -> Iterator[tuple[StudentPaper, int, str, dict[str, Any]]]:
        """(paper, question number, answer key, question) of every box of every paper."""
        for paper in self.students:
            for number, question in paper.numbered():
                answers = question.get("answers") or {}
                for key in asked_keys(question):
                    if key in answers:
                        yield paper, number, key, question

    def by_version(self, version: str) -> StudentPaper | None:
        """The paper with version code `version` (None: no such)."""
        if self._versions is None:
            self._versions = {paper.version: paper for paper in self.students}
        return self._versions.get(version)

    def question(self, version: str, number: int) -> dict[str, Any] | None:
        """Question `number` of the paper with version code `version` (None: no such)."""
        paper = self.by_version(version)
        if paper is None:
            return None
        return next((q for n, q in paper.numbered() if n == number), None)

    def problems(self) -> dict[str, dict[str, Any]]:
        """Every problem of the exam by its id (the first paper that has it)."""
        if self._problems is None:
            found: dict[str, dict[str, Any]] = {}
            for paper in self.students:
                for question in paper.questions:
                    found.setdefault(str(question.get("id", "")), question)
            self._problems = found
        return self._problems

    def papers_of(self, *, roll: str | None = None,
                  version: str | None = None) -> list[StudentPaper]:
        """The papers of roll number `roll`, or of version code `version` (case and spaces at the
        ends aside)."""
        if roll is not None:
            wanted, attribute = roll.strip().upper(), "roll"
        else:
            wanted, attribute = (version or "").strip().upper(), "version"
        return [p for p in self.students if getattr(p, attribute).strip().upper() == wanted]
