"""What an answer means, read from the answer specs (the grader reads the same): the answer's
spec (kind, unit, format, tolerance), the count units, and the kinds of quantity a card's check
compares. The cards learn it here and nowhere else."""

from __future__ import annotations

from quizgen.problems.model import Problem
from quizgen.problems.records import record_specs
from quizgen.problems.specs import COMPARE_KINDS, COUNT_UNITS, canonical_unit


def answer_spec(problem: Problem, key: str):
    """The answer's spec (kind, unit, format, tolerance) as the grader reads it: the record's
    own, else the family's declaration."""
    record = {"cell": problem.cell, "answers": {key: problem.answers.get(key)},
              "answer_specs": getattr(problem, "answer_specs", None) or {}}
    return record_specs(record)[key]


def count_unit(unit: str) -> str:
    """`unit` as the count unit a typed answer may carry (``blocks``), or '' when it is none."""
    counted = canonical_unit(unit) if unit else None
    return counted if counted in COUNT_UNITS else ""


def checked_kinds():
    """The kinds of quantity the grader compares (a skill card's script checks these)."""
    return COMPARE_KINDS
