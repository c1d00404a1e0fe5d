"""Moodle's grade list, and grades and numbers as the bank files write them."""

from __future__ import annotations

__all__ = ["MOODLE_GRADES", "is_moodle_grade", "moodle_grade", "grade_text", "number_text"]

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


def number_text(value: float | int) -> str:
    """A number exactly as the record holds it (repr round-trips every float)."""
    if isinstance(value, bool):
        raise TypeError("a yes/no answer is not a number")
    if isinstance(value, int):
        return str(value)
    if float(value).is_integer() and abs(value) < 1e15:
        return str(int(value))
    return repr(float(value))
