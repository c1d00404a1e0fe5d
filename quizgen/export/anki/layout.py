"""A `Problem` as the fields only Anki cards have: the back of a card as a phone reads it (the
answer first, the worked steps folded; a problem in parts, part by part), the options of a
multiple-choice card, a concept card's answer and reason, the source line, formula clozes.

The question, the worked solution, the labels and the figures are `quizgen.render.cards`'s,
which the LMS banks and the Obsidian notes share. What a type-in card expects (its answer, hint
and check) is in `quizgen.export.anki.typed`.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from functools import cache

from quizgen.problems.model import Problem, SolutionStep
from quizgen.render.cards import (esc, inline_math, label_html, label_span, labels, step_html,
                                  step_math, tex_safe, worked_parts)
from quizgen.render.math import symbolic


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
        out.append(f'<div class="qz-answer">{label_span(words["answer"])}{esc(sol.answer)}</div>')
    if sol.trap:
        out.append(trap_html(sol.trap, problem.lang))
    inner = worked_parts(problem, words)
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
        out.append(f'<div class="qz-answer">{label_span(words["answer"])}'
                   f'<ul class="qz-per-part">{rows}</ul></div>')
    elif sol.answer:
        out.append(f'<div class="qz-answer">{label_span(words["answer"])}{esc(sol.answer)}</div>')
    if sol.trap:
        out.append(trap_html(sol.trap, problem.lang))
    if sol.forecast:
        out.append(f'<div class="qz-forecast">{label_span(words["forecast"])}{esc(sol.forecast)}</div>')
    html_words = label_html(problem.lang)
    for part in parts:
        inner = []
        if part.steps:
            inner.append('<ol class="qz-steps">' + "".join(step_html(s, html_words) for s in part.steps)
                         + "</ol>")
        if part.verify:
            items = "".join(f"<li>{esc(line)}</li>" for line in part.verify)
            inner.append(f'<div class="qz-verify">{label_span(words["verify"])}<ul>{items}</ul></div>')
        if not inner:
            continue
        key = "part_steps" if part.label else "shared_steps"
        summary = phrase(problem.lang, "skill", key, {"part": part.label, "n": len(part.steps)})
        out.append(f'<details class="{fold_class} qz-part-fold"><summary>{esc(summary)}</summary>'
                   + "".join(inner) + "</details>")
    return "".join(out)


def trap_text_html(trap: str, lang: str) -> str:
    """The misconception to avoid with its "Trap" label (so it never reads as a fact)."""
    return label_span(labels(lang)["trap"]) + esc(trap)


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
    return f'<div class="qz-wrong">{label_span(words["wrong_why"])}<ul>{items}</ul></div>'


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
    text += f'<div class="qz-legend">{label_span(words["symbols"])}<ul>{legend}</ul></div>'
    math = step_math(example.step)
    extra = ""
    if math.substituted is not None:
        chain = [math.substituted]
        if math.result is not None and math.result != math.substituted:
            chain.append(math.result)
        unit = f' <span class="qz-unit">{esc(example.step.unit)}</span>' if example.step.unit else ""
        extra += (f'<div class="qz-example">{label_span(words["example"])}'
                  f'{inline_math(" = ".join(chain))}{unit}</div>')
    if example.step.why:
        extra += f'<div class="qz-why">{label_span(words["why"])}{esc(example.step.why)}</div>'
    return text, extra
