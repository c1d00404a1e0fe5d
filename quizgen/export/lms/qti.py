"""IMS QTI 1.2 packages as Canvas Classic Quizzes (and Blackboard) import them.

The zip holds ``imsmanifest.xml`` (an IMS content package: the assessment resource of type
``imsqti_xmlv1p2``, its ``assessment_meta.xml`` and the figures as ``webcontent``), the
assessment ``<id>/<id>.xml`` and the figures under ``web_resources/``, referenced from HTML as
``$IMS-CC-FILEBASE$/…``; this is the layout Canvas exports and existing exporters write.

Each category becomes a question group (``<section>`` with ``selection_number`` 1) holding
its variants, so every student draws one. Items carry Canvas's ``question_type``:
``numerical_question`` (the value and the window value ± tolerance, and the same for its
percentage where the prompt offers one; Canvas grades every listed answer as right, so the
traps go into the feedback text, never as answers),
``multiple_choice_question`` (the traps as per-option feedback) and
``multiple_answers_question`` (tick every binding limit). Canvas has no multi-part numerical
item: a problem asked with several boxes becomes one item per box, each box's variants in
their own group.
"""

from __future__ import annotations

import hashlib
import html
import io
import tempfile
import zipfile
from pathlib import Path
from typing import IO, Iterable, NamedTuple

from quizgen.files import ZIP_DATE
from quizgen.xmltext import xml_text
from quizgen.export.lms.bank import (COPY_BYTES, SPOOL_BYTES, Bank, BankQuestion, BankStream, Box,
                                     figure_bytes)
from quizgen.export.lms.grades import number_text
from quizgen.export.lms.layout import box_prompt_html, category_runs, question_html, solution_html

__all__ = ["qti_files", "qti_zip", "write_qti", "FILEBASE"]

FILEBASE = "$IMS-CC-FILEBASE$/"
MEDIA_DIR = "web_resources/quizgen/"
QTI_NS = "http://www.imsglobal.org/xsd/ims_qtiasiv1p2"


def _x(text: object) -> str:
    return html.escape(xml_text(str(text)), quote=True)


def _ident(*parts: str) -> str:
    text = xml_text("|".join(parts))
    return "g" + hashlib.blake2b(text.encode("utf-8"), digest_size=12).hexdigest()


def _field(label: str, entry: str) -> str:
    return (f"<qtimetadatafield><fieldlabel>{label}</fieldlabel>"
            f"<fieldentry>{_x(entry)}</fieldentry></qtimetadatafield>")


def _mattext(html_text: str) -> str:
    return f'<material><mattext texttype="text/html">{_x(html_text)}</mattext></material>'


def _feedback(ident: str, html_text: str) -> str:
    return (f'<itemfeedback ident="{ident}"><flow_mat>{_mattext(html_text)}</flow_mat>'
            f"</itemfeedback>")


def _traps_html(box: Box) -> str:
    """The modelled wrong answers of a numerical box, listed for the feedback."""
    from quizgen.render.cards import esc

    items = "".join(f"<li>{esc(a.text)}: {esc(a.feedback)}</li>"
                    for a in box.answers if a.grade < 100 and not a.percent)
    return f"<ul>{items}</ul>" if items else ""


class _Response(NamedTuple):
    """What a box adds to its item: the response in the presentation, the scoring conditions
    and the feedback texts they point at."""

    presentation: str
    conditions: list[str]
    feedbacks: list[str]


def _numerical_response(box: Box) -> _Response:
    """A number typed in: right when it equals an accepted answer or lies in its window."""
    from quizgen.render.cards import esc

    right = box.answers[0]
    presentation = ('<response_str ident="response1" rcardinality="Single">'
                    '<render_fib fibtype="Decimal"><response_label ident="answer1"/></render_fib>'
                    "</response_str></presentation>")
    conditions = []
    # Canvas's own export: one scoring condition per accepted answer (here the value and,
    # where the prompt offers one, its percentage: Canvas reads the number "37.5").
    for accepted in [a for a in box.answers if a.grade == 100]:
        low = number_text(accepted.value - accepted.tolerance)
        high = number_text(accepted.value + accepted.tolerance)
        conditions.append(
            '<respcondition continue="No"><conditionvar><or>'
            f'<varequal respident="response1">{accepted.text}</varequal><and>'
            f'<vargte respident="response1">{low}</vargte>'
            f'<varlte respident="response1">{high}</varlte></and></or></conditionvar>'
            '<setvar action="Set" varname="SCORE">100</setvar>'
            '<displayfeedback feedbacktype="Response" linkrefid="correct_fb"/>'
            '</respcondition>')
    conditions.append('<respcondition continue="Yes"><conditionvar><other/></conditionvar>'
                      '<displayfeedback feedbacktype="Response" linkrefid="general_incorrect_fb"/>'
                      "</respcondition>")
    feedbacks = [_feedback("correct_fb", esc(right.feedback)),
                 _feedback("general_incorrect_fb", _traps_html(box))]
    return _Response(presentation, conditions, feedbacks)


def _choice_response(box: Box, ident: str) -> _Response:
    """Options to pick (one, or every one that binds), each with its own feedback; full marks
    for the right pick alone (multi: every right option ticked and no wrong one)."""
    from quizgen.render.cards import esc

    cardinality = "Single" if box.kind == "choice" else "Multiple"
    labels, conditions, feedbacks = [], [], []
    for i, a in enumerate(box.answers):
        labels.append(f'<response_label ident="{ident}a{i}">{_mattext(esc(a.text))}'
                      f"</response_label>")
        feedbacks.append(_feedback(f"{ident}a{i}_fb", esc(a.feedback)))
        conditions.append(f'<respcondition continue="Yes"><conditionvar>'
                          f'<varequal respident="response1">{ident}a{i}</varequal>'
                          f'</conditionvar><displayfeedback feedbacktype="Response" '
                          f'linkrefid="{ident}a{i}_fb"/></respcondition>')
    presentation = (f'<response_lid ident="response1" rcardinality="{cardinality}">'
                    "<render_choice>" + "".join(labels)
                    + "</render_choice></response_lid></presentation>")
    if box.kind == "choice":
        right = next(i for i, a in enumerate(box.answers) if a.grade == 100)
        test = f'<varequal respident="response1">{ident}a{right}</varequal>'
    else:
        test = "<and>" + "".join(
            f'<varequal respident="response1">{ident}a{i}</varequal>' if a.grade > 0 else
            f'<not><varequal respident="response1">{ident}a{i}</varequal></not>'
            for i, a in enumerate(box.answers)) + "</and>"
    conditions.append(f'<respcondition continue="No"><conditionvar>{test}</conditionvar>'
                      '<setvar action="Set" varname="SCORE">100</setvar></respcondition>')
    return _Response(presentation, conditions, feedbacks)


def _item_meta(qtype: str, points: float, ident: str) -> str:
    return (f"<itemmetadata><qtimetadata>{_field('question_type', qtype)}"
            f"{_field('points_possible', f'{points:g}')}"
            f"{_field('original_answer_ids', '')}"
            f"{_field('assessment_question_identifierref', ident + 'q')}"
            f"</qtimetadata></itemmetadata>")


def _item(question: BankQuestion, index: int, points: float) -> str:
    box = question.boxes[index]
    ident = _ident(question.idnumber, box.key)
    src = FILEBASE + MEDIA_DIR.removeprefix("web_resources/") + question.figure if question.figure else None
    text = question_html(question) + f"<p>{box_prompt_html(question, index)}</p>"
    general = solution_html(question, src)
    qtype = {"numerical": "numerical_question", "choice": "multiple_choice_question",
             "multi": "multiple_answers_question"}[box.kind]
    response = _numerical_response(box) if box.kind == "numerical" else _choice_response(box, ident)
    shown = ('<respcondition continue="Yes"><conditionvar><other/></conditionvar>'
             '<displayfeedback feedbacktype="Response" linkrefid="general_fb"/>'
             "</respcondition>")
    return "".join([
        f'<item ident="{ident}" title="{_x(question.name)}">', _item_meta(qtype, points, ident),
        "<presentation>", _mattext(text), response.presentation,
        '<resprocessing><outcomes><decvar maxvalue="100" minvalue="0" varname="SCORE" '
        'vartype="Decimal"/></outcomes>' + shown + "".join(response.conditions)
        + "</resprocessing>",
        _feedback("general_fb", general), *response.feedbacks, "</item>"])


def _section_open(ident: str, key: tuple[str, ...], points: float) -> str:
    title = " / ".join(key[1:]) or key[0]
    return (f'<section ident="{_ident(ident, *key)}" title="{_x(title)}"><selection_ordering>'
            f"<selection><selection_number>1</selection_number><selection_extension>"
            f"<points_per_item>{points:g}</points_per_item></selection_extension></selection>"
            f"</selection_ordering>")


def _assessment_open(title: str, ident: str) -> str:
    return ('<?xml version="1.0" encoding="UTF-8"?>\n'
            f'<questestinterop xmlns="{QTI_NS}" '
            'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
            f'xsi:schemaLocation="{QTI_NS} http://www.imsglobal.org/xsd/ims_qtiasiv1p2p1.xsd">'
            f'<assessment ident="{ident}" title="{_x(title)}"><qtimetadata>'
            f'{_field("cc_maxattempts", "1")}</qtimetadata>'
            '<section ident="root_section">')


_ASSESSMENT_CLOSE = "</section></assessment></questestinterop>\n"


def assessment_meta(title: str, ident: str, points: float) -> str:
    return ('<?xml version="1.0" encoding="UTF-8"?>\n'
            f'<quiz identifier="{ident}" xmlns="http://canvas.instructure.com/xsd/cccv1p0" '
            'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
            'xsi:schemaLocation="http://canvas.instructure.com/xsd/cccv1p0 '
            'https://canvas.instructure.com/xsd/cccv1p0.xsd">'
            f"<title>{_x(title)}</title><description></description>"
            "<shuffle_answers>true</shuffle_answers><scoring_policy>keep_highest</scoring_policy>"
            "<quiz_type>assignment</quiz_type>"
            f"<points_possible>{points:g}</points_possible>"
            "<show_correct_answers>true</show_correct_answers><allowed_attempts>1</allowed_attempts>"
            "<available>false</available></quiz>\n")


def manifest_xml(title: str, ident: str, figures: Iterable[str]) -> str:
    names = sorted(figures)
    media = "".join(
        f'<resource identifier="{_ident(ident, name)}" type="webcontent" '
        f'href="{MEDIA_DIR}{_x(name)}"><file href="{MEDIA_DIR}{_x(name)}"/></resource>'
        for name in names)
    depends = "".join(f'<dependency identifierref="{_ident(ident, name)}"/>' for name in names)
    return ('<?xml version="1.0" encoding="UTF-8"?>\n'
            f'<manifest identifier="{ident}m" '
            'xmlns="http://www.imsglobal.org/xsd/imsccv1p1/imscp_v1p1" '
            'xmlns:imsmd="http://www.imsglobal.org/xsd/imsmd_v1p2" '
            'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
            'xsi:schemaLocation="http://www.imsglobal.org/xsd/imsccv1p1/imscp_v1p1 '
            'http://www.imsglobal.org/xsd/imscp_v1p1.xsd">'
            "<metadata><schema>IMS Content</schema><schemaversion>1.1.3</schemaversion>"
            f"<imsmd:lom><imsmd:general><imsmd:title><imsmd:string>{_x(title)}"
            "</imsmd:string></imsmd:title></imsmd:general></imsmd:lom></metadata>"
            "<organizations/><resources>"
            f'<resource identifier="{ident}" type="imsqti_xmlv1p2">'
            f'<file href="{ident}/{ident}.xml"/>'
            f'<dependency identifierref="{ident}meta"/>{depends}</resource>'
            f'<resource identifier="{ident}meta" '
            'type="associatedcontent/imscc_xmlv1p1/learning-application-resource" '
            f'href="{ident}/assessment_meta.xml"><file href="{ident}/assessment_meta.xml"/>'
            f"</resource>{media}</resources></manifest>\n")




def _entry(name: str) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name, date_time=ZIP_DATE)
    info.compress_type = zipfile.ZIP_DEFLATED
    return info


def _copy(spool: IO[bytes], target: IO[bytes]) -> None:
    spool.seek(0)
    while chunk := spool.read(COPY_BYTES):
        target.write(chunk)


def write_package(source: Bank | BankStream, handle: IO[bytes]) -> None:
    """The package written into `handle` as its questions are made: each figure goes into the
    zip when first seen; each group's items wait in a temporary file (spilled to disk past a
    few MB) until their category is done, and the assessment in another until the end; the
    manifest, which lists the figures, comes last. Fixed entry dates: the same bank gives the
    same bytes."""
    questions = source.questions if isinstance(source, Bank) else source
    ident: str | None = None
    figures: set[str] = set()
    total = 0.0
    with zipfile.ZipFile(handle, "w", zipfile.ZIP_DEFLATED) as zf, \
            tempfile.SpooledTemporaryFile(max_size=SPOOL_BYTES) as body:
        for _, run in category_runs(questions):
            groups: dict[tuple[str, ...], tuple[float, IO[bytes]]] = {}
            try:
                for q in run:
                    if ident is None:
                        ident = _ident("quizgen", source.title, q.idnumber)
                    data = figure_bytes(q, source)
                    if q.figure and data is not None and q.figure not in figures:
                        figures.add(q.figure)
                        zf.writestr(_entry(MEDIA_DIR + q.figure), data)
                    for i, box in enumerate(q.boxes):
                        key = q.category if len(q.boxes) == 1 else q.category + (box.key,)
                        if key not in groups:
                            groups[key] = (q.points / len(q.boxes),
                                           tempfile.SpooledTemporaryFile(max_size=SPOOL_BYTES))
                        points, spool = groups[key]
                        spool.write(_item(q, i, points).encode("utf-8"))
                for key, (points, spool) in groups.items():
                    body.write(_section_open(ident, key, points).encode("utf-8"))
                    _copy(spool, body)
                    body.write(b"</section>")
                    total += points
            finally:
                for _, spool in groups.values():
                    spool.close()
        if ident is None:
            ident = _ident("quizgen", source.title)
        big = body.tell() > 1 << 30
        with zf.open(_entry(f"{ident}/{ident}.xml"), "w", force_zip64=big) as entry:
            entry.write(_assessment_open(source.title, ident).encode("utf-8"))
            _copy(body, entry)
            entry.write(_ASSESSMENT_CLOSE.encode("utf-8"))
        zf.writestr(_entry(f"{ident}/assessment_meta.xml"),
                    assessment_meta(source.title, ident, total).encode("utf-8"))
        zf.writestr(_entry("imsmanifest.xml"),
                    manifest_xml(source.title, ident, figures).encode("utf-8"))


def qti_zip(bank: Bank | BankStream) -> bytes:
    """The package as zip bytes."""
    buf = io.BytesIO()
    write_package(bank, buf)
    return buf.getvalue()


def qti_files(bank: Bank | BankStream) -> dict[str, bytes]:
    """The package's files by path (what the zip holds)."""
    with zipfile.ZipFile(io.BytesIO(qti_zip(bank))) as zf:
        return {name: zf.read(name) for name in zf.namelist()}


def write_qti(bank: Bank | BankStream, out: str | Path) -> int:
    """Write the package to `out` (atomically, as it is made); the number of bytes written."""
    from quizgen.files import atomic_open

    with atomic_open(out, "wb") as handle:
        write_package(bank, handle)
        return handle.tell()
