"""Which wrong answers may be offered: in range and distinct (the words are the render layer's)."""

from __future__ import annotations

from typing import Any

#: A multiple-choice question offers the right answer and this many wrong ones.
MAX_WRONG = 3


def plausible(value: Any, unit: str) -> bool:
    """An option a student cannot rule out without understanding: a fraction within [0, 1], no
    negative count or size (the families keep coordinates inside the block and counts within the
    hardware caps)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return True
    if unit == "fraction":
        return 0 <= value <= 1
    return value >= 0
