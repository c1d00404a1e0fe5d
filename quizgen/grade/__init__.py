"""The grader: read a student's answer safely, compare it by kind, grade a class, explain traps.

    from quizgen.grade import check_answer, grade_class
    check_answer(problem, "occupancy", "25%").status          # "correct"
    summary = grade_class("exam/manifest.json", "filled.csv", "graded")   # results.csv, …
    summary.graded          # the GradedClass: manifest, results and analysis, as one value
"""

from __future__ import annotations

from typing import Any

from quizgen.grade.compare import Verdict, compare
from quizgen.grade.parse import Parsed, parse_answer

#: Names imported when first asked for (reading or comparing one answer needs none of them),
#: by the module that owns each.
_LATER = {"CheckResult": "results", "GradeSummary": "graded", "GradedClass": "graded",
          "check_answer": "grader", "grade_class": "grader"}


def __getattr__(name: str) -> Any:
    if name in _LATER:
        from importlib import import_module

        return getattr(import_module(f"quizgen.grade.{_LATER[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["parse_answer", "Parsed", "compare", "Verdict", "grade_class",
           "check_answer", "CheckResult", "GradeSummary", "GradedClass"]
