"""A `Problem` as flashcard content: HTML fields for Anki, with MathJax math.

Every piece of prose is escaped with `html.escape` (a field is HTML, and ``<`` in "T < 32" must
stay text). Math comes from the engine's formula registry through `quizgen.render.math` and is
written as MathJax ``\\( … \\)`` / ``\\[ … \\]``, never ``$``. Nothing here recomputes a number:
cards show what the problem record holds.

What a type-in card expects (its answer, hint and check) is in `quizgen.export.anki.typed`.
The Obsidian exporter reuses `step_math` and `labels`; only the markup differs.
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
from quizgen.render.phrases import labels as phrase_labels
from quizgen.xmltext import xml_text


def labels(lang: str) -> dict[str, str]:
    """The fixed words of a card (section labels, hints) in `lang`: the phrasebook's
    ``[card-label]``."""
    return phrase_labels(lang, "card-label")


_HTML_SPECIAL = re.compile("[&<>\"'\n]")


def esc(text: Any) -> str:
    """Prose as HTML: escaped, line breaks kept, without the characters XML forbids."""
    text = xml_text(str(text))
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
# Numbers


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


# ---------------------------------------------------------------------------------------------
# HTML fields


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
        # each side of the chain is its own piece: one line on a desktop, wrapped at an "="
        # on a phone instead of scrolling sideways
        pieces = [inline_math(("= " if i else "") + part) for i, part in enumerate(chain)]
        if math.result_text:
            pieces.append(f"= {esc(math.result_text)}")
        if step.unit and (math.result is not None or math.result_text):
            pieces[-1] += f' <span class="qz-unit">{esc(step.unit)}</span>'
        line = " ".join(f'<span class="qz-eq">{piece}</span>' for piece in pieces)
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
    out = _worked_parts(problem, words)
    if sol.answer:
        out.append(f'<div class="qz-answer">{_label(words["answer"])}{esc(sol.answer)}</div>')
    if sol.trap:
        out.append(f'<div class="qz-trap">{_label(words["trap"])}{esc(sol.trap)}</div>')
    return "".join(out)


def _worked_parts(problem: Problem, words: dict[str, str]) -> list[str]:
    """The Forecast, the numbered steps and the Verify lines, each as one HTML block."""
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
    return out


def back_solution_html(problem: Problem) -> str:
    """The worked solution as a phone reads it: Answer and Trap first, then the Forecast, steps
    and Verify folded in a ``<details>`` (opens with a tap, no script). A problem in parts (one
    kernel on several GPUs) gives the answer GPU by GPU and folds each
    part's steps on their own (`back_parts_html`)."""
    words = labels(problem.lang)
    sol = problem.solution
    parts = solution_parts(sol)
    if parts is not None:
        return back_parts_html(problem, parts, "qz-details")
    out = []
    if sol.answer:
        out.append(f'<div class="qz-answer">{_label(words["answer"])}{esc(sol.answer)}</div>')
    if sol.trap:
        out.append(trap_html(sol.trap, problem.lang))
    inner = _worked_parts(problem, words)
    if inner:
        summary = words["worked"].format(n=len(sol.steps))
        out.append(f'<details class="qz-details"><summary>{esc(summary)}</summary>'
                   + "".join(inner) + "</details>")
    return "".join(out)


#: A part's label at the start of a step title or Verify line: ``[T4] Occupancy``, ``[32×8] …``.
_PART_LABEL = re.compile(r"\[([^\[\]]{1,40})\] ")


@dataclass(slots=True)
class SolutionPart:
    """One part of a solution in parts: its label ("T4"; "" for the steps every part shares),
    its answer line (or ""), its steps (titles without the label) and Verify lines."""

    label: str
    answer: str = ""
    steps: list[SolutionStep] = field(default_factory=list)
    verify: list[str] = field(default_factory=list)


@cache
def _gpu_names() -> frozenset[str]:
    from quizgen.gpus import preset_names

    return frozenset(name.lower() for name in preset_names())


def solution_parts(sol) -> list[SolutionPart] | None:
    """The parts of a solution that compares GPUs, by the GPU each step is labelled with
    (``[T4] …``, ``[A100] …``, as the families that compare GPUs write them), in order; None
    for a solution with fewer than two GPUs. The answer is split where it reads ``T4: …
    A100: …``, one line per GPU."""
    parts: dict[str, SolutionPart] = {}
    steps_by_part = []
    for step in sol.steps:
        found = _PART_LABEL.match(step.title)
        label = found.group(1) if found else ""
        part = parts.setdefault(label, SolutionPart(label))
        if found:
            step = SolutionStep(step.title[found.end():], step.formula, step.values, step.result,
                                step.unit, step.why, step.note)
        part.steps.append(step)
        steps_by_part.append(label)
    labelled = [label for label in parts if label]
    if len(labelled) < 2 or not all(label.lower() in _gpu_names() for label in labelled):
        return None
    for line in sol.verify:
        found = _PART_LABEL.match(line)
        label = found.group(1) if found and found.group(1) in parts else ""
        parts.setdefault(label, SolutionPart(label)).verify.append(
            line[found.end():] if label else line)
    starts = []
    for label in labelled:
        at = sol.answer.find(f"{label}: ", starts[-1] if starts else 0)
        if at < 0 or (at > 0 and sol.answer[at - 1] != " "):
            break
        starts.append(at)
    if len(starts) == len(labelled) and starts[0] == 0:
        for label, at, end in zip(labelled, starts, starts[1:] + [len(sol.answer)]):
            parts[label].answer = sol.answer[at + len(label) + 2:end].strip()
    order = [label for label in parts if label] + ([""] if "" in parts else [])
    return [parts[label] for label in order]


def back_parts_html(problem: Problem, parts: list[SolutionPart], fold_class: str) -> str:
    """The back of a problem in parts: the answer part by part (each on its own line, so a
    phone reads every GPU's result before any step), the trap, the Forecast, then each part's
    steps and Verify lines folded on their own (numbered from 1 within the part)."""
    from quizgen.render.phrases import phrase

    words = labels(problem.lang)
    sol = problem.solution
    out = []
    if any(part.answer for part in parts):
        rows = "".join(f'<li><span class="qz-part">{esc(part.label)}</span> {esc(part.answer)}</li>'
                       for part in parts if part.label)
        out.append(f'<div class="qz-answer">{_label(words["answer"])}'
                   f'<ul class="qz-per-part">{rows}</ul></div>')
    elif sol.answer:
        out.append(f'<div class="qz-answer">{_label(words["answer"])}{esc(sol.answer)}</div>')
    if sol.trap:
        out.append(trap_html(sol.trap, problem.lang))
    if sol.forecast:
        out.append(f'<div class="qz-forecast">{_label(words["forecast"])}{esc(sol.forecast)}</div>')
    html_words = _label_html(problem.lang)
    for part in parts:
        inner = []
        if part.steps:
            inner.append('<ol class="qz-steps">' + "".join(step_html(s, html_words) for s in part.steps)
                         + "</ol>")
        if part.verify:
            items = "".join(f"<li>{esc(line)}</li>" for line in part.verify)
            inner.append(f'<div class="qz-verify">{_label(words["verify"])}<ul>{items}</ul></div>')
        if not inner:
            continue
        key = "part_steps" if part.label else "shared_steps"
        summary = phrase(problem.lang, "skill", key, {"part": part.label, "n": len(part.steps)})
        out.append(f'<details class="{fold_class} qz-part-fold"><summary>{esc(summary)}</summary>'
                   + "".join(inner) + "</details>")
    return "".join(out)


def trap_text_html(trap: str, lang: str) -> str:
    """The misconception to avoid with its "Trap" label (so it never reads as a fact)."""
    return _label(labels(lang)["trap"]) + esc(trap)


def trap_html(trap: str, lang: str) -> str:
    return f'<div class="qz-trap">{trap_text_html(trap, lang)}</div>'


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
        return self._add(figures, figures.figure_spec(problem))

    def add_spec(self, spec) -> str | None:
        """The media file name of the figure of a spec (``{"kind": "occupancy_lids", "gpu": …}``,
        completed as `figure_spec` completes one), drawn on first sight; None without figures."""
        figures = _figures_module()
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
