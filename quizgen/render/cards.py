"""A `Problem` as HTML with MathJax math: the question, the worked solution, the labels and
the figures, as the Anki cards show them and the LMS banks (Moodle, QTI, GIFT) and the Obsidian
notes borrow them. One HTML transform of a problem, below every exporter that needs one.

Every piece of prose is escaped with `html.escape` (a field is HTML, and ``<`` in "T < 32" must
stay text). Math comes from the engine's formula registry through `quizgen.render.math` and is
written as MathJax ``\\( … \\)`` / ``\\[ … \\]``, never ``$``. Nothing here recomputes a
number: the HTML shows what the problem record holds.
"""

from __future__ import annotations

import hashlib
import html
import re
from dataclasses import dataclass
from functools import cache
from typing import Any

from quizgen.problems.model import Problem, SolutionStep
from quizgen.render.math import format_number, substituted, symbolic
from quizgen.render.phrases import labels as phrase_labels
from quizgen.xmltext import xml_text


def labels(lang: str) -> dict[str, str]:
    """The fixed words of a card (section labels, hints) in `lang`: the phrasebook's
    ``[card-label]``."""
    return phrase_labels(lang, "card-label")


def esc(text: Any) -> str:
    """Prose as HTML: escaped, line breaks kept, without the characters XML forbids."""
    text = xml_text(str(text))
    # most prose has nothing to replace (a character looked for is found faster than a class)
    if not ("&" in text or "<" in text or ">" in text or '"' in text or "'" in text
            or "\n" in text):
        return text
    return html.escape(text, quote=True).replace("\n", "<br>")


def tex_safe(latex: str) -> str:
    """LaTeX that survives inside an Anki field: no ``{{``/``}}`` (cloze and template syntax)."""
    while "{{" in latex or "}}" in latex:
        latex = latex.replace("{{", "{ {").replace("}}", "} }")
    return latex


def inline_math(latex: str) -> str:
    return r"\(" + html.escape(tex_safe(latex), quote=False) + r"\)"


def display_math(latex: str) -> str:
    return r"\[" + html.escape(tex_safe(latex), quote=False) + r"\]"


def result_tex(result: Any) -> str | None:
    """A step's result as LaTeX, or None when it is not a number (text results stay prose)."""
    if isinstance(result, bool) or result is None:
        return None
    if isinstance(result, (int, float)):
        if isinstance(result, float) and result == float("inf"):
            return r"\infty"
        return format_number(result, "latex")
    if result == "∞":
        return r"\infty"
    return None


@dataclass(slots=True)
class StepMath:
    """The math of one solution step, ready to print: LaTeX pieces plus text leftovers."""

    symbolic: str | None       # the formula in symbols
    substituted: str | None    # the formula with the step's numbers
    result: str | None         # the result as LaTeX (None: not a number)
    result_text: str           # the result as text when it is not a number ("" if none)


def step_math(step: SolutionStep) -> StepMath:
    """Symbolic formula, substituted formula and result of `step` (sympy only via cached printers)."""
    sym = sub = None
    if step.formula:
        sym = symbolic(step.formula)
        sub = substituted(step.formula, step.values)
        if sub == sym:
            sub = None
    res = result_tex(step.result)
    text = "" if res is not None or step.result is None else str(step.result)
    return StepMath(sym, sub, res, text)


def question_html(problem: Problem, *, stem: bool = False) -> str:
    """The question as HTML paragraphs (`stem`: the multiple-choice stem, which asks only the
    quantity the options give, when the family writes one)."""
    text = (stem and problem.mcq_stem) or problem.question
    paragraphs = [p.strip("\n") for p in text.split("\n\n") if p.strip()]
    return "".join(_question_paragraph(p) for p in paragraphs) or esc(text)


def _question_paragraph(text: str) -> str:
    """A question paragraph; a fenced one (```cuda … ```: K-1's kernel source and its ptxas
    lines) is a code block that keeps its lines and indentation."""
    if text.startswith("```") and text.endswith("```"):
        code = text.split("\n", 1)[1][:-3].rstrip("\n") if "\n" in text else ""
        return f'<pre class="qz-code">{esc(code)}</pre>'
    return f'<p class="qz-q">{esc(text.strip())}</p>'


def label_span(text: str) -> str:
    """A section label ("Why:", "Trap:") as HTML, before its text."""
    return f'<span class="qz-label">{esc(text)}</span> '


@cache
def label_html(lang: str) -> dict[str, str]:
    """Each label of `lang` as the HTML `label_span` makes of it (the same few, on every step)."""
    return {key: label_span(text) for key, text in labels(lang).items()}


#: What `sum_terms` looks at: braces, \\left and \\right, and a sign with a space either side.
_SUM_MARKS = re.compile(r"[{}]|\\left|\\right|(?<= )[+-](?= )")


def sum_terms(latex: str) -> list[str]:
    """A formula cut before each binary + or − (spaced, as sympy writes them) outside braces and
    \\left…\\right pairs, so that a long sum wraps between its terms on a phone, the sign starting
    the next line as printed maths does; each later term keeps its sign binary (``{} - X Y``).
    One piece when there is none."""
    if " + " not in latex and " - " not in latex:
        return [latex]
    depth, cuts = 0, []
    for found in _SUM_MARKS.finditer(latex):
        mark = found.group()
        if mark == "{" or mark == "\\left":
            depth += 1
        elif mark == "}" or mark == "\\right":
            depth -= 1
        elif depth == 0:
            cuts.append(found.start())
    if not cuts:
        return [latex]
    bounds = [0, *cuts, len(latex)]
    terms = [latex[a:b].strip() for a, b in zip(bounds, bounds[1:])]
    return [terms[0]] + ["{} " + term for term in terms[1:]]


def step_html(step: SolutionStep, labelled: dict[str, str]) -> str:
    """One numbered step; `labelled` is `label_html(lang)`."""
    math = step_math(step)
    parts = [f'<div class="qz-step-title">{esc(step.title)}</div>']
    if math.symbolic is not None:
        chain = [math.symbolic]
        if math.substituted is not None:
            chain.append(math.substituted)
        if math.result is not None and math.result != chain[-1]:
            chain.append(math.result)
        # each side of the chain is its own piece: one line on a desktop, wrapped at an "="
        # on a phone instead of scrolling sideways; a side that is a long sum wraps between terms
        sides = [[inline_math(("= " if i and not j else "") + term)
                  for j, term in enumerate(sum_terms(part))] for i, part in enumerate(chain)]
        if math.result_text:
            sides.append([f"= {esc(math.result_text)}"])
        if step.unit and (math.result is not None or math.result_text):
            sides[-1][-1] += f' <span class="qz-unit">{esc(step.unit)}</span>'
        # a sum's terms touch (TeX spaces their signs); the sides are a word space apart
        line = " ".join("".join(f'<span class="qz-eq">{term}</span>' for term in side)
                        for side in sides)
        parts.append(f'<div class="qz-math">{line}</div>')
    elif math.result is not None or math.result_text:
        value = inline_math(math.result) if math.result is not None else esc(math.result_text)
        unit = f' <span class="qz-unit">{esc(step.unit)}</span>' if step.unit else ""
        parts.append(f'<div class="qz-math">{value}{unit}</div>')
    if step.why:
        parts.append(f'<div class="qz-why">{labelled["why"]}{esc(step.why)}</div>')
    if step.note:
        parts.append(f'<div class="qz-note">{labelled["note"]}{esc(step.note)}</div>')
    return "<li>" + "".join(parts) + "</li>"


def solution_html(problem: Problem) -> str:
    """The worked solution: Forecast → numbered steps (formula, numbers, result, why) → Verify →
    Answer → Trap."""
    words = labels(problem.lang)
    sol = problem.solution
    out = worked_parts(problem, words)
    if sol.answer:
        out.append(f'<div class="qz-answer">{label_span(words["answer"])}{esc(sol.answer)}</div>')
    if sol.trap:
        out.append(f'<div class="qz-trap">{label_span(words["trap"])}{esc(sol.trap)}</div>')
    return "".join(out)


def worked_parts(problem: Problem, words: dict[str, str]) -> list[str]:
    """The Forecast, the numbered steps and the Verify lines, each as one HTML block."""
    sol = problem.solution
    out = []
    if sol.forecast:
        out.append(f'<div class="qz-forecast">{label_span(words["forecast"])}{esc(sol.forecast)}</div>')
    if sol.steps:
        html_words = label_html(problem.lang)
        out.append('<ol class="qz-steps">' + "".join([step_html(s, html_words) for s in sol.steps])
                   + "</ol>")
    if sol.verify:
        items = "".join(f"<li>{esc(line)}</li>" for line in sol.verify)
        out.append(f'<div class="qz-verify">{label_span(words["verify"])}<ul>{items}</ul></div>')
    return out


# ---------------------------------------------------------------------------------------------
# Figures (optional: drawn by quizgen.render.figures when that module is installed)


def figure_svg(problem: Problem) -> tuple[str, str] | None:
    """(media file name, SVG text) for the problem's figure, or None when there is none."""
    if not problem.figure:
        return None
    figures = figures_module()
    if figures is None:
        return None
    # The whole problem: its figure spec is completed by the problem's GPU, model and language.
    svg = figures.figure_for(problem)
    if not svg:
        return None
    return figures.media_name(svg), svg


class FigureMedia:
    """A deck's figure files: each distinct figure spec is drawn once, each distinct SVG kept once.

    Many problems share a figure (the same launch on the same GPU, the same block and warp), so
    a big deck draws far fewer figures than it has notes.
    """

    def __init__(self) -> None:
        self._names: dict[bytes, str | None] = {}  # digest of the figure key → media name
        self.files: dict[str, bytes] = {}          # media name → SVG bytes (UTF-8)

    def add(self, problem: Problem) -> str | None:
        """The media file name of the problem's figure (drawn on first sight), or None."""
        if not problem.figure:
            return None
        figures = figures_module()
        if figures is None:
            return None
        return self._add(figures, figures.figure_spec(problem))

    def add_spec(self, spec) -> str | None:
        """The media file name of the figure of a spec (``{"kind": "occupancy_lids", "gpu": …}``,
        completed as `figure_spec` completes one), drawn on first sight; None without figures."""
        figures = figures_module()
        if figures is None:
            return None
        return self._add(figures, figures.figure_spec(spec))

    def _add(self, figures, spec) -> str | None:
        # a digest keeps the table small: a key holds the whole GPU spec
        key = hashlib.blake2b(figures.figure_key(spec).encode("utf-8"), digest_size=16).digest()
        if key in self._names:
            return self._names[key]
        svg = figures.draw_figure(spec)
        name = None
        if svg:
            name = figures.media_name(svg)
            if name not in self.files:
                self.files[name] = svg.encode("utf-8")
        self._names[key] = name
        return name


@cache
def figures_module():
    """`quizgen.render.figures`, or None in an install without it (then no figures)."""
    import importlib

    try:
        return importlib.import_module("quizgen.render.figures")
    except ModuleNotFoundError as exc:
        if exc.name == "quizgen.render.figures":
            return None
        raise


def figure_html(name: str) -> str:
    return f'<img class="qz-img" src="{html.escape(name, quote=True)}">'
