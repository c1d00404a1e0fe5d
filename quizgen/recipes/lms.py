"""A recipe's ``[lms]`` table: the grades its LMS banks give each modelled wrong answer.

Grades are percentages from Moodle's fixed list (`MOODLE_GRADES`); Moodle refuses a file that
uses any other. The teacher sets a misconception's partial grade in the recipe::

    [lms]
    default_partial = 0                 # every modelled wrong answer (default 0)
    partial = { no_floor = 50 }         # by misconception key

A deck recipe and an exam recipe are both checked against it when read, and ``quizgen export``
(`quizgen.export.lms`) grades by it.
"""

from __future__ import annotations

import difflib
import math
from dataclasses import dataclass
from typing import Any

from quizgen.errors import QuizgenError
from quizgen.render.phrases import book
from quizgen.languages import DEFAULT_LANG

#: Moodle's grade options for an answer, in percent (question_bank::fraction_options_full):
#: 100 and the fractions 9/10 … 1/20, their negatives, and -100. An imported answer whose grade
#: is not within 0.001 % of one of these makes Moodle reject the question.
_POSITIVE = (100.0, 90.0, 83.33333, 80.0, 75.0, 70.0, 66.66667, 60.0, 50.0, 40.0, 33.33333,
             30.0, 25.0, 20.0, 16.66667, 14.28571, 12.5, 11.11111, 10.0, 5.0)
MOODLE_GRADES = _POSITIVE + (0.0,) + tuple(-g for g in reversed(_POSITIVE))



def is_moodle_grade(percent: float) -> bool:
    """Whether Moodle's importer accepts `percent` as an answer's grade (its own 1e-5 test on
    the fraction)."""
    return any(abs(percent / 100 - g / 100) < 0.00001 for g in MOODLE_GRADES)


def moodle_grade(percent: float) -> float:
    """`percent` as written in Moodle's list (33.333333 → 33.33333); ValueError when not in it."""
    for g in MOODLE_GRADES:
        if abs(percent / 100 - g / 100) < 0.00001:
            return g
    raise ValueError(f"{percent} is not one of Moodle's grades")


def grade_text(percent: float) -> str:
    """A grade as the files write it: 100, 50, 33.33333, -25."""
    value = moodle_grade(percent)
    return str(int(value)) if float(value).is_integer() else f"{value:.5f}".rstrip("0")


def misconception_keys() -> tuple[str, ...]:
    """Every misconception (wrong method) the families model, by key: the phrasebook names
    each one (a test keeps every family's misconceptions named)."""
    return tuple(sorted(book(DEFAULT_LANG)["misconception"]))


def check_misconception_keys(keys: Any, field: str) -> None:
    """Refuse (one line, listing the valid keys) a key that names no misconception: a recipe's
    ``[lms] partial`` grade for it would never apply."""
    valid = misconception_keys()
    unknown = [str(k) for k in keys if k not in valid]
    if not unknown:
        return
    close = difflib.get_close_matches(unknown[0], valid, n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    raise QuizgenError(f"{unknown[0]!r} is not a misconception quizgen models{hint}; the keys "
                       f"are: {', '.join(valid)}", field=field)


@dataclass(frozen=True, slots=True)
class LmsOptions:
    """The recipe's ``[lms]`` table."""

    default_partial: float = 0.0
    partial: tuple[tuple[str, float], ...] = ()

    def grade_for(self, misconception: str | None) -> float:
        return dict(self.partial).get(misconception or "", self.default_partial)


def _grade(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise QuizgenError(f"got {value!r}; expected a percentage", field=where)
    if not is_moodle_grade(value) or value >= 100:
        allowed = ", ".join(grade_text(g) for g in MOODLE_GRADES if g < 100)
        raise QuizgenError(f"got {value}; a wrong answer's grade must be one of Moodle's: "
                           f"{allowed}", field=where)
    return moodle_grade(value)


def lms_options(table: Any) -> LmsOptions:
    """Validate a recipe's ``[lms]`` table."""
    if table is None:
        return LmsOptions()
    if not isinstance(table, dict):
        raise QuizgenError(f"got {table!r}; expected a table", field="lms")
    unknown = sorted(set(table) - {"default_partial", "partial"})
    if unknown:
        raise QuizgenError(f"unknown key {unknown[0]!r}; expected default_partial or partial",
                           field="lms")
    default = _grade(table.get("default_partial", 0), "lms.default_partial")
    partial = table.get("partial", {})
    if not isinstance(partial, dict):
        raise QuizgenError(f"got {partial!r}; expected a table such as {{ no_floor = 50 }}",
                           field="lms.partial")
    check_misconception_keys(partial, "lms.partial")
    pairs = tuple((str(k), _grade(v, f"lms.partial.{k}")) for k, v in sorted(partial.items()))
    return LmsOptions(default, pairs)
