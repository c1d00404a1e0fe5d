"""What a bank holds: questions made of answer boxes, in categories, held in a list (`Bank`)
or made one at a time as a writer takes them (`BankStream`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable

from quizgen.errors import QuizgenError
from quizgen.problems.model import Problem

__all__ = ["Answer", "Box", "BankQuestion", "Bank", "BankStream", "figure_bytes", "SPOOL_BYTES",
           "COPY_BYTES"]

#: A bank file is written category by category, and a category's questions wait in a temporary
#: file until its head is written: held in memory up to this size (a category asks up to a
#: dozen boxes), spilled to disk past it; and copied out this much at a time.
SPOOL_BYTES = 512 * 1024
COPY_BYTES = 1024 * 1024


@dataclass(frozen=True, slots=True)
class Answer:
    """One answer of a box: a number (numerical) or an option (choice, multi)."""

    text: str                   # the number as written, or the option's label
    value: Any                  # the record's value behind it
    grade: float                # percent, one of MOODLE_GRADES
    feedback: str               # plain text shown when a student gives this answer
    tolerance: float = 0.0      # numerical: absolute tolerance
    misconception: str | None = None
    percent: bool = False       # numerical: the same answer written as a percentage (×100)


@dataclass(frozen=True, slots=True)
class Box:
    """One answer box of a question."""

    key: str                    # answer key of the record ("occupancy")
    label: str                  # its name in the problem's language
    hint: str                   # how to write it ("a whole number; unit: blocks")
    kind: str                   # "numerical" | "choice" | "multi"
    answers: tuple[Answer, ...]
    weight: int = 1
    percent: bool = False       # numerical: its prompt offers a percentage ("or 37.5%")

    @property
    def right(self) -> Answer:
        """The right answer (numerical: the first; choice: the one at 100%)."""
        return max(self.answers, key=lambda a: a.grade)


@dataclass(frozen=True, slots=True)
class BankQuestion:
    problem: Problem
    category: tuple[str, ...]   # path under the course's question bank, one name per level
    name: str
    idnumber: str
    boxes: tuple[Box, ...]
    points: float = 1.0
    figure: str | None = None   # media file name of the figure (shown with the solution)
    figure_data: bytes | None = None   # its SVG bytes

    @property
    def kind(self) -> str:
        """numerical | multichoice | cloze (several boxes)."""
        if len(self.boxes) > 1:
            return "cloze"
        return "numerical" if self.boxes[0].kind == "numerical" else "multichoice"


@dataclass(slots=True)
class Bank:
    title: str
    questions: list[BankQuestion]
    figures: dict[str, bytes] = field(default_factory=dict)   # media name → SVG bytes
    skipped: int = 0            # problems with no answer a box can ask

    def categories(self) -> list[tuple[str, ...]]:
        return list(dict.fromkeys(q.category for q in self.questions))


def figure_bytes(question: BankQuestion, source: Any = None) -> bytes | None:
    """The SVG of `question`'s figure: carried by the question, or in the figure table of the
    bank it comes from (`source`: a Bank, or a stream, which has none)."""
    if question.figure is None:
        return None
    if question.figure_data is not None:
        return question.figure_data
    table = getattr(source, "figures", None)
    return table.get(question.figure) if isinstance(table, dict) else None


class BankStream:
    """A bank made one question at a time, as a writer takes them (see `stream_bank`): memory
    stays flat in the number of variants and cells. Iterate it once; afterwards `questions`,
    `categories`, `figures` and `skipped` count what was made. Iterating to the end raises
    QuizgenError when no problem gave a question (so that an atomic writer writes nothing)."""

    def __init__(self, title: str, made: Iterable[BankQuestion], *, empty_error: str | None,
                 empty_field: str = "recipe"):
        self.title = title
        self._made = made
        self._empty_error = empty_error
        self._empty_field = empty_field
        self.questions = 0
        self.categories = 0
        self.figures: set[str] = set()
        self.skipped = 0
        self.already = 0            # left out: already in the previous bank (only_new)
        self._last: tuple[str, ...] | None = None

    def __iter__(self):
        for question in self._made:
            self.questions += 1
            if question.category != self._last:
                self._last = question.category
                self.categories += 1
            if question.figure:
                self.figures.add(question.figure)
            yield question
        if self.questions == 0 and self._empty_error:
            raise QuizgenError(self._empty_error, field=self._empty_field)
