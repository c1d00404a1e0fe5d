"""What an answer means to a card, read from the answer specs (the grader reads the same, and
an answer's spec is `quizgen.problems.records.answer_spec`): the count units, and the kinds of
quantity a card's check compares."""

from __future__ import annotations

from quizgen.problems.specs import COMPARE_KINDS, COUNT_UNITS, canonical_unit


def count_unit(unit: str) -> str:
    """`unit` as the count unit a typed answer may carry (``blocks``), or '' when it is none."""
    counted = canonical_unit(unit) if unit else None
    return counted if counted in COUNT_UNITS else ""


def checked_kinds():
    """The kinds of quantity the grader compares (a skill card's script checks these)."""
    return COMPARE_KINDS
