"""The grader: read a student's answer safely, compare it by kind, grade a class, explain traps.

    from quizgen.grade import check_answer, grade_class
    check_answer(problem, "occupancy", "25%").status          # "correct"
    grade_class("exam/manifest.json", "filled.csv", "graded")  # results.csv, feedback/, report.md
"""

from __future__ import annotations

from quizgen.grade.compare import Verdict, compare
from quizgen.grade.grader import CheckResult, GradeSummary, check_answer, grade_class
from quizgen.grade.parse import Parsed, parse_answer

__all__ = ["parse_answer", "Parsed", "compare", "Verdict", "grade_class",
           "check_answer", "CheckResult", "GradeSummary"]
