"""The answer specs of a saved problem record: the record's own, else its family's declaration.

A problem record carries its answer specs (kind, unit, format, tolerance, depends_on). A record
written before specs existed (a version-1 manifest) gets them from its registered family; a record
of a family this install does not know is read by its values alone (a number is compared as a
number, a list of names as a set of limits, …). The grader grades by these specs and the cards
check a typed answer by them.

This module sits beside the package's machinery, not under it: it asks the package for a family,
so nothing the package imports may import it.
"""

from __future__ import annotations

from typing import Any, Mapping

from quizgen.problems.specs import AnswerSpec


def record_specs(problem: Mapping[str, Any]) -> dict[str, AnswerSpec]:
    """The specs of a problem's answers: the record's own, else its family's declaration."""
    answers = problem.get("answers") or {}
    own = problem.get("answer_specs")
    declared = declared_specs(str(problem.get("cell", "")))
    out: dict[str, AnswerSpec] = {}
    for key, value in answers.items():
        spec = None
        if isinstance(own, Mapping) and isinstance(own.get(key), Mapping):
            try:
                spec = AnswerSpec.from_dict(own[key])
            except (ValueError, TypeError):
                spec = None
        if spec is None:
            spec = declared.get(key) or spec_by_value(value)
        out[key] = spec
    return out


def answer_spec(problem: Any, key: str) -> AnswerSpec:
    """The spec of one answer of a `Problem` (kind, unit, format, tolerance), as the grader
    reads it: the record's own, else the family's declaration. Cards, LMS banks and sheets print
    and check an answer by it."""
    record = {"cell": problem.cell, "answers": {key: problem.answers.get(key)},
              "answer_specs": getattr(problem, "answer_specs", None) or {}}
    return record_specs(record)[key]


def declared_specs(cell: str) -> dict[str, AnswerSpec]:
    """The specs the family of `cell` declares; none for a cell this install does not know."""
    from quizgen.errors import QuizgenError
    from quizgen.problems import family

    try:
        return dict(family(cell).answer_specs)
    except QuizgenError:
        return {}


def spec_by_value(value: Any) -> AnswerSpec:
    """A spec for an answer of a family this install does not know: read by the value's type."""
    if isinstance(value, bool):
        return AnswerSpec("yes_no")
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        return AnswerSpec("limits")
    if isinstance(value, list):
        return AnswerSpec("coords")
    if isinstance(value, str):
        return AnswerSpec("choice")
    return AnswerSpec("real")
