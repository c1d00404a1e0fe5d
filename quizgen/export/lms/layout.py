"""HTML and names every format shows: the category path, the question, each box's prompt
and the worked solution."""

from __future__ import annotations

import itertools
import re
from typing import Iterable, Iterator

from quizgen.export.lms.bank import BankQuestion
from quizgen.export.lms.words import lms_words


def _escape_category(name: str) -> str:
    return name.replace("/", "//")    # Moodle's category paths escape "/" as "//"


def category_path(parts: Iterable[str]) -> str:
    """``$course$/quizgen/OCC-2`` from the parts (each part's "/" escaped, and without the
    characters XML forbids: the path is a name in every format)."""
    from quizgen.xmltext import xml_text

    return xml_text("$course$/" + "/".join(_escape_category(p) for p in parts))


def category_runs(questions: Iterable[BankQuestion]) -> Iterator[tuple[tuple[str, ...], Iterator]]:
    """The questions in runs of one category each (a bank's categories are contiguous)."""
    return itertools.groupby(questions, key=lambda q: q.category)


def question_html(question: BankQuestion) -> str:
    """The problem's question as HTML (no answer boxes)."""
    from quizgen.render.cards import question_html as card_question

    return card_question(question.problem)


def box_prompt_html(question: BankQuestion, index: int) -> str:
    """"(a) occupancy (between 0 and 1, like 0.375):" for box `index`."""
    from quizgen.render.cards import esc

    box = question.boxes[index]
    letter = chr(ord("a") + index) if index < 26 else str(index + 1)
    lead = f"({letter}) " if len(question.boxes) > 1 else ""
    return f"{lead}{esc(box.label)} <small>({esc(box.hint)})</small>"


_LABEL = re.compile(r'<span class="qz-label">([^<]*)</span>')


def lms_labels(card_html: str) -> str:
    """Card HTML with its label spans as ``<strong>``."""
    return _LABEL.sub(r'<strong class="qz-label">\1</strong>', card_html)


def solution_html(question: BankQuestion, figure_src: str | None) -> str:
    """The worked solution (HTML, math as MathJax ``\\( … \\)``), with the figure when given."""
    from quizgen.render.cards import esc, solution_html as card_solution

    # An LMS has no card stylesheet: the section labels ("Forecast", "Why this step?") are made
    # bold in the markup itself, so they do not run into the sentence they introduce.
    out = lms_labels(card_solution(question.problem))
    if figure_src:
        alt = esc(lms_words(question.problem.lang)["figure"])
        out += (f'<p><img src="{esc(figure_src)}" alt="{alt}" '
                f'style="max-width:100%;height:auto"></p>')
    return out
