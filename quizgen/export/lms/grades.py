"""Grades and numbers as the bank files write them (Moodle's grade list is read with the
recipe's ``[lms]`` table, in `quizgen.recipes.lms`)."""

from __future__ import annotations

__all__ = ["MOODLE_GRADES", "is_moodle_grade", "moodle_grade", "grade_text", "number_text"]

from quizgen.recipes.lms import MOODLE_GRADES, grade_text, is_moodle_grade, moodle_grade  # noqa: F401


def number_text(value: float | int) -> str:
    """A number exactly as the record holds it (repr round-trips every float)."""
    if isinstance(value, bool):
        raise TypeError("a yes/no answer is not a number")
    if isinstance(value, int):
        return str(value)
    if float(value).is_integer() and abs(value) < 1e15:
        return str(int(value))
    return repr(float(value))
