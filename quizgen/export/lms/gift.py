"""GIFT question banks (Moodle's plain-text format), for teachers who paste questions.

Written to what Moodle's GIFT importer (``question/format/gift/format.php``) reads:

* questions are separated by blank lines, so a question is written on one line (a newline in
  its text would be ``\\n``); ``$CATEGORY: $course$/quizgen/OCC-2`` starts each category;
* ``::name::[html]question{…}``: the answer block is found at the first unescaped ``{`` and the
  first unescaped ``}``, so ``\\ ~ = # { } :`` are escaped with a backslash everywhere else (a
  MathJax ``\\(`` is written ``\\\\(``);
* numerical ``{#=v:tol#feedback =%g%w:tol#feedback ~#anything else####general feedback}``, the
  percent forms of the answers among them where the prompt offers a percentage (a GIFT question
  has no units: Moodle reads "37.5%" as 37.5 with a unit it does not know, and grades 37.5); the
  importer reads a grade only as ``%`` + one or two digits (``%50%``, ``%-33.33333%``), so the
  right answer is written with a bare ``=`` (100%);
* multiple choice ``{=right#feedback ~%g%wrong#feedback}``; several right ones (tick every
  binding limit) have no ``=`` and share 100% among them.

GIFT has no embedded answers and no files: a problem asked with several boxes becomes one
question per box (in a sub-category per box, so a quiz draws each box's question at random),
and figures stay in the Moodle XML and QTI banks.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any, Iterator

from quizgen.xmltext import xml_text
from quizgen.export.lms.bank import COPY_BYTES, SPOOL_BYTES, Bank, BankQuestion, Box
from quizgen.export.lms.grades import number_text
from quizgen.recipes.lms import grade_text
from quizgen.export.lms.layout import (box_prompt_html, category_path, category_runs,
                                       question_html, solution_html)
from quizgen.export.lms.words import lms_words

__all__ = ["gift_text", "write_gift", "gift_escape"]

_RESERVED = {"\\": "\\\\", "#": "\\#", "=": "\\=", "~": "\\~", "{": "\\{", "}": "\\}",
             ":": "\\:", "\n": "\\n", "\r": ""}


def gift_escape(text: str) -> str:
    """Text that GIFT's importer reads back unchanged (its own export's escaping)."""
    return "".join(_RESERVED.get(ch, ch) for ch in xml_text(text))


def _html(text: str) -> str:
    from quizgen.render.cards import esc

    return gift_escape(esc(text))


def _answers(box: Box) -> str:
    parts = []
    for a in box.answers:
        feedback = "#" + _html(a.feedback)
        if box.kind == "numerical":
            weight = "=" if a.grade == 100 else f"=%{grade_text(a.grade)}%"
            parts.append(f"{weight}{a.text}:{number_text(a.tolerance)}{feedback}")
        elif box.kind == "choice" and a.grade == 100:
            parts.append(f"={_html(a.text)}{feedback}")
        else:
            parts.append(f"~%{grade_text(a.grade)}%{_html(a.text)}{feedback}")
    if box.kind == "numerical":
        return "#" + " ".join(parts)
    return " ".join(parts)


def _question(question: BankQuestion, index: int, name: str) -> str:
    box = question.boxes[index]
    text = question_html(question) + f"<p>{box_prompt_html(question, index)}</p>"
    answers = _answers(box)
    if box.kind == "numerical":
        answers += " ~#" + _html(lms_words(question.problem.lang)["not_this"])
    general = gift_escape(solution_html(question, None))
    return f"::{gift_escape(name)}::[html]{gift_escape(text)}{{{answers} ####{general}}}"


def _category(parts: tuple[str, ...]) -> str:
    return "$CATEGORY: " + xml_text(category_path(parts)).replace("\n", " ")


def iter_gift(source) -> Iterator[str]:
    """The bank as GIFT text in pieces, a category at a time: a question per box, each box in
    its own sub-category when a problem has several (those wait in temporary files, spilled
    to disk past a few MB, until their category is done)."""
    first = True
    for _, run in category_runs(source.questions if isinstance(source, Bank) else source):
        spools: dict[tuple[str, ...], Any] = {}
        try:
            for q in run:
                for i, box in enumerate(q.boxes):
                    category = q.category if len(q.boxes) == 1 else q.category + (box.key,)
                    name = q.name if len(q.boxes) == 1 else f"{q.name} ({box.key})"
                    spool = spools.get(category)
                    if spool is None:
                        spool = spools[category] = tempfile.SpooledTemporaryFile(
                            max_size=SPOOL_BYTES, mode="w+", encoding="utf-8")
                        spool.write(_category(category))
                    spool.write("\n\n" + _question(q, i, name))
            for spool in spools.values():
                if not first:
                    yield "\n\n"
                first = False
                spool.seek(0)
                while chunk := spool.read(COPY_BYTES):
                    yield chunk
        finally:
            for spool in spools.values():
                spool.close()
    yield "\n"




def gift_text(bank) -> str:
    """The bank as GIFT text (a question per box; each box in its own sub-category when a
    problem has several)."""
    return "".join(iter_gift(bank))


def write_gift(bank, out: str | Path) -> int:
    from quizgen.files import write_pieces

    return write_pieces(out, iter_gift(bank))
