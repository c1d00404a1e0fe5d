"""Numbers as the bank files write them (Moodle's grades are read with the recipe's ``[lms]``
table, in `quizgen.recipes.lms`)."""

from __future__ import annotations

__all__ = ["number_text"]


def number_text(value: float | int) -> str:
    """A number exactly as the record holds it (repr round-trips every float)."""
    if isinstance(value, bool):
        raise TypeError("a yes/no answer is not a number")
    if isinstance(value, int):
        return str(value)
    if float(value).is_integer() and abs(value) < 1e15:
        return str(int(value))
    return repr(float(value))
