"""Render a worked solution as terminal text, Markdown or HTML from the jinja2 templates.

Templates live in ``templates/solution.{txt,md,html}.j2`` and are rendered strictly (undefined
values are errors) by the one environment, `quizgen.render.jinja` (HTML escaped). Math comes from
the formula registry: Unicode on the terminal, LaTeX in Markdown (MathJax/KaTeX ``\\( \\)``),
MathML in HTML (typeset by the browser itself, with no script and no network).
"""

from __future__ import annotations

from functools import cache
from typing import Any

from quizgen.problems.model import Solution
from quizgen.render import math as qmath
from quizgen.render.fastjinja import file_template
from quizgen.render.phrases import book
from quizgen.render.numbers import in_math
from quizgen.render.solution import format_value

FORMATS = {"txt": "unicode", "md": "latex", "html": "mathml"}


def labels(lang: str) -> dict[str, str]:
    return dict(book(lang)["label"])


def math_steps(solution: Solution, target: str) -> list[dict[str, Any]]:
    """Each step with its formula printed in `target` (symbolic and substituted)."""
    out = []
    for step in solution.steps:
        symbolic = substituted = ""
        if step.formula:
            symbolic = qmath.symbolic(step.formula, target)
            substituted = qmath.substituted(step.formula, step.values, target)
        result = format_value(step.result)
        if substituted == result:
            substituted = ""
        if target == "latex" and symbolic:
            result = r"\infty" if result == "∞" else in_math(result, target).replace("%", r"\%")
        elif target == "mathml" and symbolic:
            result = qmath.format_number(step.result, target) if _plain_number(step.result) \
                else qmath.mathml_text(result)
        out.append({"title": step.title, "symbolic": symbolic, "substituted": substituted,
                    "result": result, "unit": step.unit, "why": step.why, "note": step.note})
    return out


def _plain_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def render_solution(solution: Solution, lang: str, fmt: str = "txt", *, title: str = "",
                    question: str = "") -> str:
    if fmt not in FORMATS:
        from quizgen.errors import QuizgenError

        raise QuizgenError(f"got {fmt!r}; expected one of: {', '.join(FORMATS)}", field="format")
    return _template(fmt)(title=title, question=question, solution=solution,
                          steps=math_steps(solution, FORMATS[fmt]), labels=labels(lang), lang=lang)


@cache
def _template(fmt: str):
    """The solution template of `fmt` as a render function: compiled to Python for the plain
    formats (much quicker to start and to run), the Jinja environment's for HTML (escaped)."""
    return file_template(f"solution.{fmt}.j2")
