"""What grading decides: one box's verdict, a student's points, the issues of an answer sheet.

Plain dataclasses, shared by every stage of the grader and by the reports it writes, and the
few ways a value is shown back to people.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal

from quizgen.grade.memo import SHARED
from quizgen.grade.notes import Note
from quizgen.languages import DEFAULT_LANG

Status = Literal["correct", "carried", "wrong", "invalid", "blank", "missing"]

#: Statuses that earn the box's points.
EARNS = frozenset({"correct", "carried"})

#: Statuses that `invalid="flag"` leaves out of the score (the teacher looks at them).
FLAGGABLE = frozenset({"invalid", "missing"})

#: Longest piece of a student's answer shown back in feedback and reports.
SHOW_CHARS = 60


@dataclass(frozen=True, slots=True)
class CheckResult:
    """The verdict on one answer box, with what the student should read about it."""

    key: str
    answer: str                         # as typed (may be long; see `shown`)
    status: Status
    expected: Any                       # the manifest's value (JSON-safe)
    expected_text: str                  # how the expected answer is shown ("25%", "2 blocks")
    value: Fraction | None = None       # the answer as read, in the expected's units
    note: str | None = None             # how it was read, why it is wrong, or the read error
    misconceptions: tuple[str, ...] = ()   # misconception keys whose answer it equals
    explanation: str | None = None      # the first misconception, explained (student's language)
    carried: str | None = None          # why a carried answer earns its points
    step: int | None = None             # 1-based step of the worked solution where it parts
    step_title: str | None = None
    step_result: str | None = None      # that step's value in the solution
    reading: str | None = None          # how an answer was interpreted ("read 2 as 2%")

    @property
    def earns(self) -> bool:
        return self.status in EARNS

    @property
    def shown(self) -> str:
        """The answer as shown back: one line, at most `SHOW_CHARS` characters."""
        return shorten(self.answer)

    def to_dict(self) -> dict[str, Any]:
        return {"key": self.key, "answer": self.shown, "status": self.status,
                "expected": self.expected, "expected_text": self.expected_text,
                "value": None if self.value is None else fraction_text(self.value), "note": self.note,
                "misconceptions": list(self.misconceptions), "explanation": self.explanation,
                "carried": self.carried, "step": self.step, "step_title": self.step_title,
                "step_result": self.step_result}


@dataclass(frozen=True, slots=True)
class BoxResult:
    """One answer box of one student: the verdict and the points it earned."""

    question: int
    column: str                          # Q<number>.<key>
    check: CheckResult
    max_points: Fraction
    points: Fraction | None              # None: flagged, left out of the score

    @property
    def counted(self) -> bool:
        return self.points is not None


@dataclass(slots=True)
class QuestionResult:
    number: int
    cell: str
    problem_id: str
    title: str
    boxes: list[BoxResult]
    solution_md: str = ""                # filled by the report, when feedback needs it

    @property
    def score(self) -> Fraction:
        return sum((b.points for b in self.boxes if b.points is not None), Fraction(0))

    @property
    def max_score(self) -> Fraction:
        return sum((b.max_points for b in self.boxes if b.points is not None), Fraction(0))


@dataclass(slots=True)
class StudentResult:
    name: str
    roll: str
    version: str
    line: int                             # line of the answer sheet graded
    questions: list[QuestionResult]
    lang: str = DEFAULT_LANG

    @property
    def boxes(self) -> list[BoxResult]:
        return [b for q in self.questions for b in q.boxes]

    @property
    def score(self) -> Fraction:
        return sum((q.score for q in self.questions), Fraction(0))

    @property
    def max_score(self) -> Fraction:
        return sum((q.max_score for q in self.questions), Fraction(0))

    @property
    def label(self) -> str:
        """Who this is, for people: the name, else the roll, else the version code."""
        return self.name or self.roll or self.version


@dataclass(frozen=True, slots=True)
class FileIssue:
    """Something about the answer sheet a teacher should know, with its line (1 = header)."""

    line: int
    message: Note | str           # phrase [grade_sheet] (written in the report's language)
    severity: Literal["error", "note"] = "error"   # error: something was not graded as given

    def __str__(self) -> str:
        from quizgen.files import visible      # a quoted cell never prints an invisible character

        return visible(f"line {self.line}: {self.message}")


def as_fraction(value: Any) -> Fraction | None:
    """A saved number as an exact fraction (a float by its shortest repr); None otherwise."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, float):
        return Fraction(repr(value)) if math.isfinite(value) else None
    return None


def fraction_text(value: Fraction) -> str:
    """A read value as shown back: whole, else up to four places."""
    if value.denominator == 1:
        return str(value.numerator)
    text = f"{float(value):.4f}".rstrip("0").rstrip(".")
    return text


def humanize(key: str) -> str:
    """A key as words, for a teacher's tables (``ignore_smem`` → ``ignore smem``); answers are
    named from the phrasebook (`quizgen.render.answers.answer_name`)."""
    return " ".join({"sm": "SM", "sms": "SMs"}.get(w, w) for w in key.split("_"))


def shorten(text: str, limit: int = SHOW_CHARS) -> str:
    one = " ".join(str(text).split())
    return one if len(one) <= limit else one[: limit - 1] + "…"


def quote(text: str) -> str:
    return f"'{text}'"


def number_text(value: int | float, unit: str, fmt: str, lang: str) -> str:
    """A saved number as a student reads it, by its spec's unit and format (remembered)."""
    return SHARED(("number_text", value, unit, fmt, lang), _number_text, value, unit, fmt, lang)


def _number_text(value: int | float, unit: str, fmt: str, lang: str) -> str:
    from quizgen.render.answers import answer_text as format_answer
    from quizgen.render.solution import format_value

    if fmt == "percent":
        shown = format_answer(value, "fraction", lang)
        plain = f"{float(value):.6f}".rstrip("0").rstrip(".")
        return shown if plain in ("0", "1") else f"{plain} ({shown})"
    try:
        return format_answer(value, unit, lang)
    except Exception:   # an unknown unit word: the number alone
        return format_value(value)
