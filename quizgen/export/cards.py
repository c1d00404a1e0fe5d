"""A `Problem` as flashcard content: HTML fields for Anki, with MathJax math.

Every piece of prose is escaped with `html.escape` (a field is HTML, and ``<`` in "T < 32" must
stay text). Math comes from the engine's formula registry through `quizgen.render.math` and is
written as MathJax ``\\( … \\)`` / ``\\[ … \\]``, never ``$``. Nothing here recomputes a number:
cards show what the problem record holds.

The Obsidian exporter reuses `step_math`, `answer_value`, `note_kind` and `labels`; only the
markup differs.
"""

from __future__ import annotations

import hashlib
import html
import re
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from quizgen.problems.model import Problem, SolutionStep
from quizgen.render.math import format_number, substituted, symbolic

#: Cells whose problems are concept questions (no numbers): question → answer + reason.
CONCEPT_CELLS = frozenset({"L-6"})

_LABELS = {
    "hinglish": {
        "forecast": "Forecast", "steps": "Steps", "why": "Yeh step kyun?", "note": "Dhyaan do",
        "verify": "Verify", "answer": "Answer", "trap": "Trap", "reason": "Kyun?",
        "correct": "Sahi option", "wrong_why": "Baaki options galat kyun hain",
        "type": "Answer likho", "type_int": "poora number", "type_float": "decimal, 4 places tak",
        "type_list": "comma se alag, jaise 1,2,0", "type_text": "ek shabd",
        "in_unit": "unit", "symbols": "Symbols", "example": "Example",
        "formula_prompt": "Formula likho", "choose": "Sahi option chuno",
        "as_fraction": "0 aur 1 ke beech, jaise 0.375",
    },
    "en": {
        "forecast": "Forecast", "steps": "Steps", "why": "Why this step?", "note": "Note",
        "verify": "Verify", "answer": "Answer", "trap": "Trap", "reason": "Why?",
        "correct": "Correct option", "wrong_why": "Why the other options are wrong",
        "type": "Type", "type_int": "a whole number", "type_float": "a decimal, up to 4 places",
        "type_list": "a comma-separated list, like 1,2,0", "type_text": "one word",
        "in_unit": "unit", "symbols": "Symbols", "example": "Example",
        "formula_prompt": "Write the formula", "choose": "Pick the right option",
        "as_fraction": "between 0 and 1, like 0.375",
    },
}


def labels(lang: str) -> dict[str, str]:
    """The fixed words of a card (section labels, hints) in `lang` (English if unknown)."""
    return _LABELS.get(lang, _LABELS["en"])


_HTML_SPECIAL = re.compile("[&<>\"'\n]")


def esc(text: Any) -> str:
    """Prose as HTML: escaped, line breaks kept."""
    text = str(text)
    if _HTML_SPECIAL.search(text) is None:     # most prose: nothing to replace
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


# ---------------------------------------------------------------------------------------------
# Numbers and answers


def result_tex(result: Any) -> str | None:
    """A step's result as LaTeX, or None when it is not a number (text results stay prose)."""
    if isinstance(result, bool) or result is None:
        return None
    if isinstance(result, (int, float)):
        if isinstance(result, float) and result == float("inf"):
            return r"\infty"
        return format_number(result)
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


def answer_value(problem: Problem) -> str | None:
    """The main answer as a plain value Anki's type-in comparison accepts (``4``, ``0.375``, ``3,1,0``).

    None when the problem has no main answer a student can type exactly (booleans, prose, lists of
    words): such a problem becomes a multiple-choice or concept card instead.
    """
    key = problem.main_answer
    if not key or key not in problem.answers:
        return None
    value = problem.answers[key]
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return format_number(value)
    if isinstance(value, (list, tuple)) and value and all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v in value):
        return ",".join(format_number(v) for v in value)
    if isinstance(value, str) and value.strip() and " " not in value.strip() and len(value) <= 40:
        return value.strip()
    return None


def answer_format(problem: Problem, lang: str) -> str:
    """A one-line hint: which quantity to type, in which form and unit."""
    words = labels(lang)
    value = problem.answers.get(problem.main_answer or "")
    if isinstance(value, int):
        hint = words["type_int"]
    elif isinstance(value, float):
        hint = words["type_float"] if not value.is_integer() else words["type_int"]
    elif isinstance(value, (list, tuple)):
        hint = words["type_list"]
    else:
        hint = words["type_text"]
    from quizgen.render.answers import answer_name

    key = problem.main_answer or ""
    unit = problem.units.get(key, "")
    if unit == "fraction":
        hint = words["as_fraction"]
    text = f"{words['type']}: {answer_name(key, lang)} ({hint}"
    if unit in ("", "fraction", "text", "limiter", "ratio"):
        return text + ")"
    return text + f"; {words['in_unit']}: {unit})"


def note_kind(problem: Problem, kinds: tuple[str, ...] | list[str], slot: int) -> str | None:
    """Which card kind a problem becomes: ``numeric``, ``mcq``, ``concept`` or None (skipped).

    Concept cells give concept cards. Other problems give a type-in card, or a multiple-choice
    card when they have options; with both kinds enabled they alternate by slot so a deck has
    both. A problem that fits neither becomes a concept card (question → answer + reason).
    """
    if problem.cell in CONCEPT_CELLS:
        if "concept" in kinds:
            return "concept"
        return "mcq" if "mcq" in kinds and len(problem.choices) >= 2 else None
    numeric = "numeric" in kinds and answer_value(problem) is not None
    mcq = "mcq" in kinds and len(problem.choices) >= 2 and any(c.correct for c in problem.choices)
    if numeric and mcq:
        return "mcq" if slot % 2 else "numeric"
    if numeric:
        return "numeric"
    if mcq:
        return "mcq"
    return "concept" if "concept" in kinds else None


# ---------------------------------------------------------------------------------------------
# HTML fields


def question_html(problem: Problem) -> str:
    """The question as HTML paragraphs."""
    paragraphs = [p.strip() for p in problem.question.split("\n\n") if p.strip()]
    return "".join(f'<p class="qz-q">{esc(p)}</p>' for p in paragraphs) or esc(problem.question)


def _label(text: str) -> str:
    return f'<span class="qz-label">{esc(text)}</span> '


@cache
def _label_html(lang: str) -> dict[str, str]:
    """Each label of `lang` as the HTML `_label` makes of it (the same few, on every step)."""
    return {key: _label(text) for key, text in labels(lang).items()}


def step_html(step: SolutionStep, label_html: dict[str, str]) -> str:
    """One numbered step; `label_html` is `_label_html(lang)`."""
    math = step_math(step)
    parts = [f'<div class="qz-step-title">{esc(step.title)}</div>']
    if math.symbolic is not None:
        chain = [math.symbolic]
        if math.substituted is not None:
            chain.append(math.substituted)
        if math.result is not None and math.result != chain[-1]:
            chain.append(math.result)
        line = inline_math(" = ".join(chain))
        if math.result_text:
            line += f" = {esc(math.result_text)}"
        if step.unit and (math.result is not None or math.result_text):
            line += f' <span class="qz-unit">{esc(step.unit)}</span>'
        parts.append(f'<div class="qz-math">{line}</div>')
    elif math.result is not None or math.result_text:
        value = inline_math(math.result) if math.result is not None else esc(math.result_text)
        unit = f' <span class="qz-unit">{esc(step.unit)}</span>' if step.unit else ""
        parts.append(f'<div class="qz-math">{value}{unit}</div>')
    if step.why:
        parts.append(f'<div class="qz-why">{label_html["why"]}{esc(step.why)}</div>')
    if step.note:
        parts.append(f'<div class="qz-note">{label_html["note"]}{esc(step.note)}</div>')
    return "<li>" + "".join(parts) + "</li>"


def solution_html(problem: Problem) -> str:
    """The worked solution: Forecast → numbered steps (formula, numbers, result, why) → Verify →
    Answer → Trap."""
    words = labels(problem.lang)
    sol = problem.solution
    out = []
    if sol.forecast:
        out.append(f'<div class="qz-forecast">{_label(words["forecast"])}{esc(sol.forecast)}</div>')
    if sol.steps:
        html_words = _label_html(problem.lang)
        out.append('<ol class="qz-steps">' + "".join([step_html(s, html_words) for s in sol.steps])
                   + "</ol>")
    if sol.verify:
        items = "".join(f"<li>{esc(line)}</li>" for line in sol.verify)
        out.append(f'<div class="qz-verify">{_label(words["verify"])}<ul>{items}</ul></div>')
    if sol.answer:
        out.append(f'<div class="qz-answer">{_label(words["answer"])}{esc(sol.answer)}</div>')
    if sol.trap:
        out.append(f'<div class="qz-trap">{_label(words["trap"])}{esc(sol.trap)}</div>')
    return "".join(out)


def _letter(i: int) -> str:
    return chr(ord("A") + i)


def options_html(problem: Problem) -> str:
    """The options of a multiple-choice card, lettered A, B, C, …, under the quantity they answer."""
    from quizgen.render.answers import answer_name

    words = labels(problem.lang)
    items = "".join(f'<li><span class="qz-letter">{_letter(i)}</span> {esc(c.text)}</li>'
                    for i, c in enumerate(problem.choices))
    asked = ""
    if problem.main_answer:
        asked = (f'<div class="qz-format">{esc(words["choose"])}: '
                 f'{esc(answer_name(problem.main_answer, problem.lang))}</div>')
    return f'{asked}<ol class="qz-options">{items}</ol>'


def correct_html(problem: Problem) -> str:
    return "".join(
        f'<div class="qz-correct"><span class="qz-letter">{_letter(i)}</span> {esc(c.text)}'
        + (f'<div class="qz-why">{esc(c.why)}</div>' if c.why else "") + "</div>"
        for i, c in enumerate(problem.choices) if c.correct)


def explanations_html(problem: Problem) -> str:
    """Why each wrong option is wrong (which trap produces it)."""
    words = labels(problem.lang)
    items = "".join(f'<li><span class="qz-letter">{_letter(i)}</span> {esc(c.text)}: '
                    f'{esc(c.why)}</li>'
                    for i, c in enumerate(problem.choices) if not c.correct)
    if not items:
        return ""
    return f'<div class="qz-wrong">{_label(words["wrong_why"])}<ul>{items}</ul></div>'


def concept_reason_html(problem: Problem) -> str:
    """The reason behind a concept answer (the steps' why lines), then the checks (the wrong
    beliefs it rules out)."""
    reasons = [s.why or s.title for s in problem.solution.steps if s.why or s.title]
    out = "".join(f"<p>{esc(r)}</p>" for r in reasons)
    if problem.solution.verify:
        out += '<ul class="qz-verify">' + "".join(
            f"<li>{esc(line)}</li>" for line in problem.solution.verify) + "</ul>"
    return out


def concept_answer_html(problem: Problem) -> str:
    if problem.solution.answer:
        return esc(problem.solution.answer)
    value = problem.answers.get(problem.main_answer or "")
    return esc(value if value is not None else "")


def source_html(problem: Problem) -> str:
    """A small footer that identifies the problem (to report a mistake, or to regenerate it)."""
    gpu = problem.gpu.get("name", "") if isinstance(problem.gpu, dict) else ""
    bits = [problem.cell, f"L{problem.level}", gpu, problem.model or "", f"seed {problem.seed}",
            problem.id]
    return esc(" · ".join(dict.fromkeys(b for b in bits if b)))


# ---------------------------------------------------------------------------------------------
# Figures (optional: drawn by quizgen.render.figures when that module is installed)


def figure_svg(problem: Problem) -> tuple[str, str] | None:
    """(media file name, SVG text) for the problem's figure, or None when there is none."""
    if not problem.figure:
        return None
    figures = _figures_module()
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
        figures = _figures_module()
        if figures is None:
            return None
        spec = figures.figure_spec(problem)
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
def _figures_module():
    import importlib

    try:
        return importlib.import_module("quizgen.render.figures")
    except ModuleNotFoundError as exc:
        if exc.name == "quizgen.render.figures":
            return None
        raise


def figure_html(name: str) -> str:
    return f'<img class="qz-img" src="{html.escape(name, quote=True)}">'


# ---------------------------------------------------------------------------------------------
# Formula cloze cards


@dataclass(slots=True)
class FormulaExample:
    """The first step in a deck that used a formula: it titles the cloze and gives the example."""

    name: str
    lang: str
    title: str
    step: SolutionStep
    cells: list[str] = field(default_factory=list)


@cache
def _symbol_latex(formula: str) -> tuple[tuple[str, str, str], ...]:
    from quizgen.engine import formulas
    from quizgen.render.math import symbol_latex

    meanings = formulas.meaning(formula)
    return tuple((name, tex, meanings[name]) for name, tex in zip(meanings, symbol_latex(formula)))


def formula_symbols(formula: str) -> list[tuple[str, str, str]]:
    """[(symbol name, symbol as LaTeX, meaning)] of a registry formula."""
    return list(_symbol_latex(formula))


def formula_cloze_html(example: FormulaExample) -> tuple[str, str]:
    """(Text, Extra) of a cloze note that hides a formula; the legend of symbols stays visible."""
    words = labels(example.lang)
    latex = tex_safe(symbolic(example.name))
    # Inside a cloze, "}}" would end the deletion early: tex_safe splits every pair, and a space
    # keeps a final "}" of the formula away from the cloze's own closing braces.
    text = (f'<div class="qz-step-title">{esc(example.title)}</div>'
            f'<div class="qz-math">\\[{{{{c1::{html.escape(latex, quote=False)} }}}}\\]</div>')
    legend = "".join(f"<li>{inline_math(tex)}: {esc(meaning)}</li>"
                     for _, tex, meaning in formula_symbols(example.name))
    text += f'<div class="qz-legend">{_label(words["symbols"])}<ul>{legend}</ul></div>'
    math = step_math(example.step)
    extra = ""
    if math.substituted is not None:
        chain = [math.substituted]
        if math.result is not None and math.result != math.substituted:
            chain.append(math.result)
        unit = f' <span class="qz-unit">{esc(example.step.unit)}</span>' if example.step.unit else ""
        extra += (f'<div class="qz-example">{_label(words["example"])}'
                  f'{inline_math(" = ".join(chain))}{unit}</div>')
    if example.step.why:
        extra += f'<div class="qz-why">{_label(words["why"])}{esc(example.step.why)}</div>'
    return text, extra
