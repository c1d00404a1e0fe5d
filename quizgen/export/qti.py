"""IMS QTI 1.2 packages as Canvas Classic Quizzes (and Blackboard) import them.

The zip holds ``imsmanifest.xml`` (an IMS content package: the assessment resource of type
``imsqti_xmlv1p2``, its ``assessment_meta.xml`` and the figures as ``webcontent``), the
assessment ``<id>/<id>.xml`` and the figures under ``web_resources/``, referenced from HTML as
``$IMS-CC-FILEBASE$/…``; this is the layout Canvas exports and existing exporters write.

Each category becomes a question group (``<section>`` with ``selection_number`` 1) holding
its variants, so every student draws one. Items carry Canvas's ``question_type``:
``numerical_question`` (the value and the window value ± tolerance; Canvas grades every listed
answer as right, so the traps go into the feedback text, never as answers),
``multiple_choice_question`` (the traps as per-option feedback) and
``multiple_answers_question`` (tick every binding limit). Canvas has no multi-part numerical
item: a problem asked with several boxes becomes one item per box, each box's variants in
their own group.
"""

from __future__ import annotations

import hashlib
import html
import io
import zipfile
from pathlib import Path

from quizgen.xmltext import xml_text
from quizgen.export.lms import (Bank, BankQuestion, Box, box_prompt_html, number_text,
                                question_html, solution_html)

__all__ = ["qti_files", "qti_zip", "write_qti", "FILEBASE"]

FILEBASE = "$IMS-CC-FILEBASE$/"
MEDIA_DIR = "web_resources/quizgen/"
QTI_NS = "http://www.imsglobal.org/xsd/ims_qtiasiv1p2"
_ZIP_DATE = (1980, 1, 1, 0, 0, 0)


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
    from quizgen.export.cards import esc

    items = "".join(f"<li>{esc(a.text)}: {esc(a.feedback)}</li>"
                    for a in box.answers if a.grade < 100 and not a.percent)
    return f"<ul>{items}</ul>" if items else ""


def _item(question: BankQuestion, index: int, points: float) -> str:
    box = question.boxes[index]
    problem = question.problem
    ident = _ident(question.idnumber, box.key)
    src = FILEBASE + MEDIA_DIR.removeprefix("web_resources/") + question.figure if question.figure else None
    text = question_html(question) + f"<p>{box_prompt_html(question, index)}</p>"
    general = solution_html(question, src)
    qtype = {"numerical": "numerical_question", "choice": "multiple_choice_question",
             "multi": "multiple_answers_question"}[box.kind]
    meta = (f"<itemmetadata><qtimetadata>{_field('question_type', qtype)}"
            f"{_field('points_possible', f'{points:g}')}"
            f"{_field('original_answer_ids', '')}"
            f"{_field('assessment_question_identifierref', ident + 'q')}"
            f"</qtimetadata></itemmetadata>")
    out = [f'<item ident="{ident}" title="{_x(question.name)}">', meta, "<presentation>",
           _mattext(text)]
    feedbacks = [_feedback("general_fb", general)]
    conditions = ['<respcondition continue="Yes"><conditionvar><other/></conditionvar>'
                  '<displayfeedback feedbacktype="Response" linkrefid="general_fb"/>'
                  "</respcondition>"]
    if box.kind == "numerical":
        right = box.answers[0]
        out.append('<response_str ident="response1" rcardinality="Single">'
                   '<render_fib fibtype="Decimal"><response_label ident="answer1"/></render_fib>'
                   "</response_str></presentation>")
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
        from quizgen.export.cards import esc

        feedbacks.append(_feedback("correct_fb", esc(right.feedback)))
        feedbacks.append(_feedback("general_incorrect_fb", _traps_html(box)))
    else:
        cardinality = "Single" if box.kind == "choice" else "Multiple"
        labels = []
        from quizgen.export.cards import esc

        for i, a in enumerate(box.answers):
            labels.append(f'<response_label ident="{ident}a{i}">{_mattext(esc(a.text))}'
                          f"</response_label>")
            feedbacks.append(_feedback(f"{ident}a{i}_fb", esc(a.feedback)))
            conditions.append(f'<respcondition continue="Yes"><conditionvar>'
                              f'<varequal respident="response1">{ident}a{i}</varequal>'
                              f'</conditionvar><displayfeedback feedbacktype="Response" '
                              f'linkrefid="{ident}a{i}_fb"/></respcondition>')
        out.append(f'<response_lid ident="response1" rcardinality="{cardinality}"><render_choice>'
                   + "".join(labels) + "</render_choice></response_lid></presentation>")
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
    out.append('<resprocessing><outcomes><decvar maxvalue="100" minvalue="0" varname="SCORE" '
               'vartype="Decimal"/></outcomes>' + "".join(conditions) + "</resprocessing>")
    out.extend(feedbacks)
    out.append("</item>")
    return "".join(out)


def _groups(bank: Bank) -> dict[tuple[str, ...], list[tuple[BankQuestion, int]]]:
    groups: dict[tuple[str, ...], list[tuple[BankQuestion, int]]] = {}
    for q in bank.questions:
        for i, box in enumerate(q.boxes):
            key = q.category if len(q.boxes) == 1 else q.category + (box.key,)
            groups.setdefault(key, []).append((q, i))
    return groups


def assessment_xml(bank: Bank, ident: str) -> str:
    sections = []
    for key, members in _groups(bank).items():
        q0, _ = members[0]
        points = q0.points / len(q0.boxes)
        title = " / ".join(key[1:]) or key[0]
        items = "".join(_item(q, i, points) for q, i in members)
        sections.append(
            f'<section ident="{_ident(ident, *key)}" title="{_x(title)}"><selection_ordering>'
            f"<selection><selection_number>1</selection_number><selection_extension>"
            f"<points_per_item>{points:g}</points_per_item></selection_extension></selection>"
            f"</selection_ordering>{items}</section>")
    return ('<?xml version="1.0" encoding="UTF-8"?>\n'
            f'<questestinterop xmlns="{QTI_NS}" '
            'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
            f'xsi:schemaLocation="{QTI_NS} http://www.imsglobal.org/xsd/ims_qtiasiv1p2p1.xsd">'
            f'<assessment ident="{ident}" title="{_x(bank.title)}"><qtimetadata>'
            f'{_field("cc_maxattempts", "1")}</qtimetadata>'
            f'<section ident="root_section">{"".join(sections)}</section>'
            "</assessment></questestinterop>\n")


def assessment_meta(bank: Bank, ident: str) -> str:
    groups = _groups(bank)
    points = sum(members[0][0].points / len(members[0][0].boxes) for members in groups.values())
    return ('<?xml version="1.0" encoding="UTF-8"?>\n'
            f'<quiz identifier="{ident}" xmlns="http://canvas.instructure.com/xsd/cccv1p0" '
            'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
            'xsi:schemaLocation="http://canvas.instructure.com/xsd/cccv1p0 '
            'https://canvas.instructure.com/xsd/cccv1p0.xsd">'
            f"<title>{_x(bank.title)}</title><description></description>"
            "<shuffle_answers>true</shuffle_answers><scoring_policy>keep_highest</scoring_policy>"
            "<quiz_type>assignment</quiz_type>"
            f"<points_possible>{points:g}</points_possible>"
            "<show_correct_answers>true</show_correct_answers><allowed_attempts>1</allowed_attempts>"
            "<available>false</available></quiz>\n")


def manifest_xml(bank: Bank, ident: str) -> str:
    media = "".join(
        f'<resource identifier="{_ident(ident, name)}" type="webcontent" '
        f'href="{MEDIA_DIR}{_x(name)}"><file href="{MEDIA_DIR}{_x(name)}"/></resource>'
        for name in sorted(bank.figures))
    depends = "".join(f'<dependency identifierref="{_ident(ident, name)}"/>'
                      for name in sorted(bank.figures))
    return ('<?xml version="1.0" encoding="UTF-8"?>\n'
            f'<manifest identifier="{ident}m" '
            'xmlns="http://www.imsglobal.org/xsd/imsccv1p1/imscp_v1p1" '
            'xmlns:imsmd="http://www.imsglobal.org/xsd/imsmd_v1p2" '
            'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
            'xsi:schemaLocation="http://www.imsglobal.org/xsd/imsccv1p1/imscp_v1p1 '
            'http://www.imsglobal.org/xsd/imscp_v1p1.xsd">'
            "<metadata><schema>IMS Content</schema><schemaversion>1.1.3</schemaversion>"
            f"<imsmd:lom><imsmd:general><imsmd:title><imsmd:string>{_x(bank.title)}"
            "</imsmd:string></imsmd:title></imsmd:general></imsmd:lom></metadata>"
            "<organizations/><resources>"
            f'<resource identifier="{ident}" type="imsqti_xmlv1p2">'
            f'<file href="{ident}/{ident}.xml"/>'
            f'<dependency identifierref="{ident}meta"/>{depends}</resource>'
            f'<resource identifier="{ident}meta" '
            'type="associatedcontent/imscc_xmlv1p1/learning-application-resource" '
            f'href="{ident}/assessment_meta.xml"><file href="{ident}/assessment_meta.xml"/>'
            f"</resource>{media}</resources></manifest>\n")


def qti_files(bank: Bank) -> dict[str, bytes]:
    """The package's files by path (what the zip holds)."""
    ident = _ident("quizgen", bank.title, *(q.idnumber for q in bank.questions[:1]))
    files = {"imsmanifest.xml": manifest_xml(bank, ident).encode("utf-8"),
             f"{ident}/{ident}.xml": assessment_xml(bank, ident).encode("utf-8"),
             f"{ident}/assessment_meta.xml": assessment_meta(bank, ident).encode("utf-8")}
    for name, data in sorted(bank.figures.items()):
        files[MEDIA_DIR + name] = data
    return files


def qti_zip(bank: Bank) -> bytes:
    """The package as zip bytes (fixed entry dates: the same bank gives the same bytes)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in qti_files(bank).items():
            info = zipfile.ZipInfo(name, date_time=_ZIP_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, data)
    return buf.getvalue()


def write_qti(bank: Bank, out: str | Path) -> int:
    from quizgen.files import atomic_write

    return atomic_write(out, qti_zip(bank))
