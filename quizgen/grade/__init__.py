"""The grader: read a student's answer safely, compare it by kind, grade a class, explain traps.

    from quizgen.grade import check_answer, grade_class
    check_answer(problem, "occupancy", "25%").status          # "correct"
    grade_class("exam/manifest.json", "filled.csv", "graded")  # results.csv, feedback/, report.md
"""

from __future__ import annotations

from typing import Any

from quizgen.grade.compare import Verdict, compare
from quizgen.grade.parse import Parsed, parse_answer

_GRADER = ("CheckResult", "GradeSummary", "check_answer", "grade_class")


def __getattr__(name: str) -> Any:
    # The grader is imported when first asked for: reading or comparing one answer needs
    # none of it.
    if name in _GRADER:
        from quizgen.grade import grader

        return getattr(grader, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["parse_answer", "Parsed", "compare", "Verdict", "grade_class",
           "check_answer", "CheckResult", "GradeSummary"]
