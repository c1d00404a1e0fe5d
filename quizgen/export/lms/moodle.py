"""Moodle XML question banks: one category per cell, N variants each, graded per misconception.

Written to what Moodle's importer demands (``question/format/xml/format.php`` and the cloze
parser ``qtype_multianswer_extract_question`` in ``question/type/multianswer/questiontype.php``):

* a ``category`` pseudo-question before each category's questions (``$course$/quizgen/OCC-2``:
  Moodle ≥ 3.5 files it under the course's "top" category, "/" in a name is written "//");
* ``numerical``: the record's value with its tolerance at 100%, each misconception's value with
  its grade and feedback, and ``*`` (anything else) at 0% pointing at the worked solution;
  where the prompt offers a percentage, the percent forms too, a ``%`` unit (multiplier 100)
  typed in the box and, listed first at 0%, the window of each answer's "v%" read as v ÷ 100
  (`quizgen.export.lms.units`: the order Moodle tries answers in decides);
* ``multichoice``: the record's options, each trap's text as that option's feedback;
* ``cloze`` (several boxes): ``{1:NUMERICAL:=v:tol#feedback~%g%w:tol#feedback}``,
  ``{1:MULTICHOICE_S:…}``, ``{1:MULTIRESPONSE:…}`` inside the question's HTML. The parser ends an
  answer at ``~``, ``#`` or ``}`` and a feedback at ``~`` or ``}``, and decodes HTML entities in
  both, so answers and feedback are written with those characters (and ``& % = : / " \\``) as
  numeric entities: what Moodle stores is exactly the HTML meant;
* every grade from Moodle's list (`quizgen.export.lms.MOODLE_GRADES`), HTML in CDATA, math as
  MathJax ``\\( … \\)`` (Moodle's MathJax filter renders it), figures as base64 SVG files
  referenced by ``@@PLUGINFILE@@/name.svg`` in the general feedback, a stable ``idnumber`` per
  question (``quizgen-<problem id>-<lang>``). Moodle's import (``qformat_default::importprocess``)
  adds every question of a file, and drops an idnumber that its category already holds, so a
  bank imported twice holds every problem twice; `bank_idnumbers` reads a bank written before,
  for an export of only the problems it lacks (``export --only-new``).
"""

from __future__ import annotations

import base64
import hashlib
import html
import tempfile
from pathlib import Path
from typing import Iterator

from quizgen.xmltext import xml_text
from quizgen.export.lms.bank import (COPY_BYTES, Bank, BankQuestion, BankStream, Box,
                                     figure_bytes)
from quizgen.export.lms.grades import number_text
from quizgen.recipes.lms import grade_text
from quizgen.export.lms.layout import (box_prompt_html, category_path, category_runs,
                                       question_html, solution_html)
from quizgen.export.lms.units import PERCENT, misread_answers, moodle_answer_order, percent_unit
from quizgen.export.lms.words import lms_words

__all__ = ["moodle_xml", "write_moodle", "cloze_markup", "cloze_escape"]

PLUGINFILE = "@@PLUGINFILE@@/"


def cdata(text: str) -> str:
    """Text in a CDATA section (a "]]>" inside is split across two sections), without the
    characters XML forbids."""
    return "<![CDATA[" + xml_text(text).replace("]]>", "]]]]><![CDATA[>") + "]]>"


def _x(text: str) -> str:
    return html.escape(xml_text(str(text)), quote=True)


#: Characters the cloze parser reads as syntax (answer and feedback ends, grades, escapes),
#: plus the quote and slash, written as numeric entities; "&" first, as "&amp;".
_CLOZE_SPECIAL = {ch: f"&#{ord(ch)};" for ch in '{}#~/"\\%=:'}


def cloze_escape(html_text: str) -> str:
    """HTML that survives as one cloze answer or feedback: Moodle's html_entity_decode of the
    result gives back `html_text` exactly, and nothing in it ends the answer early."""
    out = html_text.replace("&", "&amp;")
    return "".join(_CLOZE_SPECIAL.get(ch, ch) for ch in out)


def _feedback_html(text: str) -> str:
    from quizgen.render.cards import esc

    return esc(text)


def cloze_markup(box: Box) -> str:
    """One box as an embedded answer: ``{weight:TYPE:alternative~alternative…}``."""
    from quizgen.render.cards import esc

    parts = []
    for answer in box.answers:
        if box.kind == "numerical":
            grade = "=" if answer.grade == 100 else f"%{grade_text(answer.grade)}%"
            body = f"{answer.text}:{number_text(answer.tolerance)}"
        else:
            grade = ("=" if answer.grade == 100 and box.kind == "choice"
                     else f"%{grade_text(answer.grade)}%")
            body = cloze_escape(esc(answer.text))
        parts.append(f"{grade}{body}#{cloze_escape(_feedback_html(answer.feedback))}")
    kind = {"numerical": "NUMERICAL", "choice": "MULTICHOICE_S", "multi": "MULTIRESPONSE"}[box.kind]
    return "{" + f"{box.weight}:{kind}:" + "~".join(parts) + "}"


def prose_for_cloze(html_text: str) -> str:
    """HTML outside the embedded answers: the parser searches the whole text for
    ``{n:TYPE:``, so every brace of the prose is written as an entity."""
    return html_text.replace("{", "&#123;").replace("}", "&#125;")


def _question_text(question: BankQuestion) -> str:
    text = question_html(question)
    if question.kind != "cloze":
        return text + f"<p>{box_prompt_html(question, 0)}</p>"
    out = prose_for_cloze(text)
    for i, box in enumerate(question.boxes):
        out += f"<p>{prose_for_cloze(box_prompt_html(question, i))}: {cloze_markup(box)}</p>"
    return out


def _file(name: str, data: bytes) -> str:
    return (f'<file name="{_x(name)}" path="/" encoding="base64">'
            f'{base64.b64encode(data).decode("ascii")}</file>')


def _category_xml(parts: tuple[str, ...], count: int, lang: str) -> str:
    from quizgen.render.phrases import phrase

    path = category_path(parts)
    ident = "quizgen-" + hashlib.blake2b(path.encode("utf-8"), digest_size=6).hexdigest()
    info = phrase(lang, "lms", "category_info", {"count": count})
    return (f'  <question type="category">\n    <category><text>{_x(path)}</text></category>\n'
            f'    <info format="html"><text>{_x(info)}</text></info>\n'
            f'    <idnumber>{ident}</idnumber>\n  </question>\n')


def _answers_xml(question: BankQuestion) -> str:
    from quizgen.render.cards import esc

    box = question.boxes[0]
    out = []
    if box.kind == "numerical":
        lang = question.problem.lang
        for a in moodle_answer_order(box, misread_answers(box, _misread_words(lang))):
            out.append(f'    <answer fraction="{grade_text(a.grade)}" format="moodle_auto_format">'
                       f'<text>{_x(a.text)}</text>'
                       f'<feedback format="html"><text>{cdata(_feedback_html(a.feedback))}</text>'
                       f'</feedback><tolerance>{number_text(a.tolerance)}</tolerance></answer>\n')
        out.append(f'    <answer fraction="0" format="moodle_auto_format"><text>*</text>'
                   f'<feedback format="html"><text>{cdata(esc(lms_words(lang)["not_this"]))}</text>'
                   f'</feedback><tolerance>0</tolerance></answer>\n')
        out.append(_units_xml(box))
        return "".join(out)
    single = "true" if box.kind == "choice" else "false"
    out.append(f"    <single>{single}</single>\n    <shuffleanswers>true</shuffleanswers>\n"
               "    <answernumbering>abc</answernumbering>\n"
               "    <showstandardinstruction>0</showstandardinstruction>\n")
    for name in ("correctfeedback", "partiallycorrectfeedback", "incorrectfeedback"):
        out.append(f'    <{name} format="html"><text></text></{name}>\n')
    for a in box.answers:
        out.append(f'    <answer fraction="{grade_text(a.grade)}" format="html">'
                   f'<text>{cdata(esc(a.text))}</text>'
                   f'<feedback format="html"><text>{cdata(_feedback_html(a.feedback))}</text>'
                   f'</feedback></answer>\n')
    return "".join(out)


def _misread_words(lang: str):
    """What a student who typed "0.375%" for a share of 0.375 is told, in `lang`."""
    from quizgen.render.phrases import phrase

    return lambda typed, value: phrase(lang, "lms", "percent_misread",
                                       {"typed": typed, "value": value})


def _units_xml(box: Box) -> str:
    """Units of a numerical question. Where the prompt offers a percentage (and the right
    answer's percent form is an answer, `percent_unit`): one unit ``%`` with multiplier 100
    (100 % make one whole), typed in the answer box (showunits 0, "text input"), optional
    (unitgradingtype 0: no unit costs nothing). Moodle's answer processor then reads "37.5%"
    and "37.5 %" as 0.375 (and tries 37.5 as typed too, which the percent forms match), and
    "0.375" as 0.375; "0.375%" scales to 0.00375, which a misread answer listed before the
    right one catches (see `quizgen.export.lms.units`). Elsewhere: no units, and the box
    accepts a number only (showunits 3)."""
    if not percent_unit(box):
        return ("    <unitgradingtype>0</unitgradingtype>\n    <unitpenalty>0.1</unitpenalty>\n"
                "    <showunits>3</showunits>\n    <unitsleft>0</unitsleft>\n")
    name, multiplier = PERCENT
    return (f"    <units><unit><multiplier>{multiplier}</multiplier><unit_name>{name}</unit_name>"
            "</unit></units>\n"
            "    <unitgradingtype>0</unitgradingtype>\n    <unitpenalty>0</unitpenalty>\n"
            "    <showunits>0</showunits>\n    <unitsleft>0</unitsleft>\n")


def _points(points: float) -> str:
    return str(int(points)) if float(points).is_integer() else f"{points:g}"


def question_xml(question: BankQuestion, source: Bank | BankStream | None = None) -> str:
    qtype = question.kind
    data = figure_bytes(question, source)
    figure = question.figure if data is not None else None
    solution = solution_html(question, PLUGINFILE + figure if figure else None)
    files = _file(figure, data) if figure else ""
    tags = "".join(f"<tag><text>{_x(t)}</text></tag>"
                   for t in ("quizgen", question.problem.cell, f"level-{question.problem.level}"))
    out = [f'  <question type="{qtype}">\n',
           f"    <name><text>{_x(question.name)}</text></name>\n",
           f'    <questiontext format="html"><text>{cdata(_question_text(question))}</text>'
           f"</questiontext>\n",
           f'    <generalfeedback format="html"><text>{cdata(solution)}</text>{files}'
           f"</generalfeedback>\n"]
    if qtype != "cloze":
        out.append(f"    <defaultgrade>{_points(question.points)}</defaultgrade>\n")
    out.append("    <penalty>0.3333333</penalty>\n    <hidden>0</hidden>\n"
               f"    <idnumber>{_x(question.idnumber)}</idnumber>\n")
    if qtype != "cloze":
        out.append(_answers_xml(question))
    out.append(f"    <tags>{tags}</tags>\n  </question>\n")
    return "".join(out)


def iter_moodle_xml(source: Bank | BankStream) -> Iterator[str]:
    """The document in pieces, a category at a time. A category's note counts its questions,
    and it comes before them: each category's questions wait in a temporary file (spilled to
    disk past a few MB), so memory stays flat however many variants a category holds."""
    yield '<?xml version="1.0" encoding="UTF-8"?>\n<quiz>\n'
    for category, run in category_runs(source.questions if isinstance(source, Bank) else source):
        with tempfile.SpooledTemporaryFile(max_size=_SPOOL, mode="w+", encoding="utf-8") as spool:
            count, lang = 0, None
            for q in run:
                spool.write(question_xml(q, source))
                count, lang = count + 1, q.problem.lang
            yield _category_xml(category, count, lang)
            spool.seek(0)
            while chunk := spool.read(COPY_BYTES):
                yield chunk
    yield "</quiz>\n"


#: A category's questions wait in memory up to this size before its head is written (Moodle's
#: categories hold every variant of a cell, so more than the other banks' `SPOOL_BYTES`).
_SPOOL = 4 * 1024 * 1024


def bank_idnumbers(path: str | Path) -> frozenset[str]:
    """The question idnumbers of a Moodle XML bank written before (read piece by piece)."""
    import xml.etree.ElementTree as ET

    from quizgen.errors import QuizgenError
    from quizgen.files import os_error_text

    found: set[str] = set()
    root = None
    try:
        for event, element in ET.iterparse(str(path), events=("start", "end")):
            if root is None:
                root = element.tag
                if root != "quiz":
                    raise QuizgenError(f"{Path(path).name} is not a Moodle XML bank (its root "
                                       f"is <{root}>, not <quiz>)", field="only-new")
            if event == "end" and element.tag == "question":
                if element.get("type") != "category":
                    ident = (element.findtext("idnumber") or "").strip()
                    if ident:
                        found.add(ident)
                element.clear()
    except FileNotFoundError:
        raise QuizgenError(f"no such file: {path}", field="only-new") from None
    except OSError as exc:
        raise QuizgenError(os_error_text(exc, path, action="read"), field="only-new") from None
    except ET.ParseError as exc:
        raise QuizgenError(f"{Path(path).name} is not a Moodle XML bank ({exc})",
                           field="only-new") from None
    return frozenset(found)


def moodle_xml(bank: Bank | BankStream) -> str:
    """The bank as one Moodle XML document."""
    return "".join(iter_moodle_xml(bank))


def write_moodle(bank: Bank | BankStream, out: str | Path) -> int:
    """Write the bank to `out` (atomically, piece by piece); the number of bytes written."""
    from quizgen.files import write_pieces

    return write_pieces(out, iter_moodle_xml(bank))
