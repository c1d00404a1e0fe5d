"""A `Problem` as flashcard content (HTML fields with MathJax math), under the name the other
exporters import it by: the layout is `quizgen.export.anki.layout`, what a type-in card expects
is `quizgen.export.anki.typed`, and an answer's spec comes from `quizgen.export.anki.meaning`."""

from __future__ import annotations

from quizgen.export.anki.layout import (FigureMedia, FormulaExample, SolutionPart, StepMath,
                                        back_parts_html, back_solution_html, concept_answer_html,
                                        concept_reason_html, correct_html, display_math, esc,
                                        explanations_html, figure_html, figure_svg,
                                        formula_cloze_html, formula_symbols, inline_math, labels,
                                        options_html, question_html, result_tex, solution_html,
                                        solution_parts, source_html, step_html, step_math,
                                        tex_safe, trap_html, trap_text_html)
from quizgen.export.anki.meaning import answer_spec
from quizgen.export.anki.typed import (CONCEPT_CELLS, EXACT_PLACES, ROUNDED_PLACES, TypedAnswer,
                                       answer_format, answer_value, check_html, note_kind,
                                       typed_answer)

__all__ = [
    "CONCEPT_CELLS", "EXACT_PLACES", "FigureMedia", "FormulaExample", "ROUNDED_PLACES",
    "SolutionPart", "StepMath", "TypedAnswer", "answer_format", "answer_spec", "answer_value",
    "back_parts_html", "back_solution_html", "check_html", "concept_answer_html",
    "concept_reason_html", "correct_html", "display_math", "esc", "explanations_html",
    "figure_html", "figure_svg", "formula_cloze_html", "formula_symbols", "inline_math", "labels",
    "note_kind", "options_html", "question_html", "result_tex", "solution_html", "solution_parts",
    "source_html", "step_html", "step_math", "tex_safe", "trap_html", "trap_text_html",
    "typed_answer",
]
