"""Render a worked solution as terminal text, Markdown or HTML from the jinja2 templates.

Templates live in ``templates/solution.{txt,md,html}.j2`` and are rendered strictly (undefined
values are errors) by the one sandboxed environment, `quizgen.render.jinja` (HTML escaped). Math
comes from the formula registry: Unicode on the terminal, LaTeX in Markdown (MathJax/KaTeX
``\\( \\)``), MathML in HTML (typeset by the browser itself, with no script and no network).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from quizgen.problems.model import Solution
from quizgen.render import math as qmath
from quizgen.render.jinja import template
from quizgen.render.phrases import book
from quizgen.render.numbers import in_math
from quizgen.render.solution import format_value

FORMATS = {"txt": "unicode", "md": "latex", "html": "mathml"}
SOLUTION_FIELDS = tuple(f.name for f in dataclasses.fields(Solution))


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


def question_blocks(text: str) -> list[dict[str, Any]]:
    """A question's paragraphs in order; a fenced one (```cuda … ```: a kernel's source, its
    ptxas lines) is code, kept line by line without its fence marks."""
    blocks = []
    for paragraph in text.replace("\r\n", "\n").split("\n\n"):
        part = paragraph.strip("\n")
        if not part.strip():
            continue
        if part.startswith("```") and part.rstrip().endswith("```") and "\n" in part:
            lines = part.rstrip().split("\n")
            blocks.append({"code": True, "lang": lines[0][3:].strip(),
                           "text": "\n".join(lines[1:-1])})
        else:
            blocks.append({"code": False, "lang": "", "text": part})
    return blocks


def _plain_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def render_solution(solution: Solution, lang: str, fmt: str = "txt", *, title: str = "",
                    question: str = "") -> str:
    if fmt not in FORMATS:
        from quizgen.errors import QuizgenError

        raise QuizgenError(f"got {fmt!r}; expected one of: {', '.join(FORMATS)}", field="format")
    # The solution as a plain dict of its fields: a template reads them as it would the
    # object's attributes (``solution.answer``), without the sandbox's checks of an object's.
    fields = {name: getattr(solution, name) for name in SOLUTION_FIELDS}
    return template(f"solution.{fmt}.j2").render(
        title=title, question=question, question_blocks=question_blocks(question),
        solution=fields,
        steps=math_steps(solution, FORMATS[fmt]), labels=labels(lang), lang=lang)
