"""Strict readers of LMS question files, written from the importers' own rules.

* Moodle XML: ``question/format/xml/format.php`` (what each question type reads), the grade
  check of ``question/format.php`` (``match_grade_options`` against
  ``question_bank::fraction_options_full``, within 1e-5 of a fraction), and the cloze parser
  ``qtype_multianswer_extract_question`` with ``qtype_multianswer_validate_question``
  (``question/type/multianswer/questiontype.php``), whose regular expressions are copied below.
* GIFT: ``question/format/gift/format.php`` (``readquestion`` and its escapes).
* QTI: the layout Canvas exports and existing exporters write (manifest resources, groups with
  ``selection_number``, items with Canvas's ``question_type``), every reference resolved.

A reader raises `ImportRejected` wherever Moodle would refuse the question or the file.
"""

from __future__ import annotations

import base64
import html
import re
import xml.etree.ElementTree as ET
import zipfile
from dataclasses import dataclass, field
from typing import Any


class ImportRejected(AssertionError):
    """What Moodle (or Canvas) would refuse."""


_RAW_FRACTIONS = (0.9, 0.8333333, 0.8, 0.75, 0.7, 0.6666667, 0.6, 0.5, 0.4, 0.3333333, 0.3,
                  0.25, 0.2, 0.1666667, 0.1428571, 0.125, 0.1111111, 0.1, 0.05)
#: question_bank::fraction_options_full(): 0, 1, the fractions, their negatives, -1.
FRACTIONS_FULL = (0.0, 1.0) + _RAW_FRACTIONS + tuple(-f for f in _RAW_FRACTIONS) + (-1.0,)


def match_grade(fraction: float) -> float:
    """match_grade_options($options, $grade, 'error'): the listed value, or rejected."""
    for value in FRACTIONS_FULL:
        if abs(fraction - value) < 0.00001:
            return value
    raise ImportRejected(f"grade {fraction * 100}% is not one of Moodle's")


def php_is_numeric(text: str) -> bool:
    return re.fullmatch(r"\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?", text) is not None


# ---------------------------------------------------------------------------------------------
# The cloze parser (question/type/multianswer/questiontype.php), regex for regex.

ANSWER_ALTERNATIVE_FRACTION_REGEX = r"=|%(-?[0-9]+(?:[.,][0-9]*)?)%"
# PHP's (?<!\\|&|&amp;) (lookbehinds of different widths) as three lookbehinds.
ANSWER_ALTERNATIVE_ANSWER_REGEX = r".+?(?<!\\)(?<!&)(?<!&amp;)(?=[~#}]|$)"
ANSWER_ALTERNATIVE_FEEDBACK_REGEX = r".*?(?<!\\)(?=[~}]|$)"
ANSWER_ALTERNATIVE_REGEX = ("(" + ANSWER_ALTERNATIVE_FRACTION_REGEX + ")?"
                            "(" + ANSWER_ALTERNATIVE_ANSWER_REGEX + ")"
                            "(#(" + ANSWER_ALTERNATIVE_FEEDBACK_REGEX + "))?")
NUMBER_REGEX = r"-?(([0-9]+[.,]?[0-9]*|[.,][0-9]+)([eE][-+]?[0-9]+)?)"
NUMERICAL_ALTERNATIVE_REGEX = "^(" + NUMBER_REGEX + ")(:" + NUMBER_REGEX + ")?$"
ANSWER_TYPE_DEF_REGEX = (
    "(NUMERICAL|NM)|(MULTICHOICE|MC)|(MULTICHOICE_V|MCV)|(MULTICHOICE_H|MCH)|"
    "(SHORTANSWER|SA|MW)|(SHORTANSWER_C|SAC|MWC)|"
    "(MULTICHOICE_S|MCS)|(MULTICHOICE_VS|MCVS)|(MULTICHOICE_HS|MCHS)|"
    "(MULTIRESPONSE|MR)|(MULTIRESPONSE_H|MRH)|(MULTIRESPONSE_S|MRS)|(MULTIRESPONSE_HS|MRHS)")
ANSWER_START_REGEX = r"\{([0-9]*):(" + ANSWER_TYPE_DEF_REGEX + "):"
ANSWER_REGEX = (ANSWER_START_REGEX + "(" + ANSWER_ALTERNATIVE_REGEX + "(~" + ANSWER_ALTERNATIVE_REGEX
                + ")*)" + r"\}")
_GROUP_TYPES = {3: "numerical", 4: "multichoice", 5: "multichoice", 6: "multichoice",
                7: "shortanswer", 8: "shortanswer", 9: "multichoice", 10: "multichoice",
                11: "multichoice", 12: "multiresponse", 13: "multiresponse",
                14: "multiresponse", 15: "multiresponse"}


def html_entity_decode(text: str) -> str:
    return html.unescape(text)


@dataclass
class Sub:
    qtype: str
    mark: float
    answers: list[str] = field(default_factory=list)
    fractions: list[float] = field(default_factory=list)
    feedback: list[str] = field(default_factory=list)
    tolerance: list[float | None] = field(default_factory=list)


def extract_cloze(text: str) -> tuple[str, list[Sub]]:
    """qtype_multianswer_extract_question: (the text with {#n} placeholders, sub-questions)."""
    answer_regex = re.compile(ANSWER_REGEX, re.S)
    alternative = re.compile("~?" + ANSWER_ALTERNATIVE_REGEX, re.S)
    numerical = re.compile(NUMERICAL_ALTERNATIVE_REGEX, re.S)
    subs = []
    position = 1
    while (m := answer_regex.search(text)) is not None:
        kind = next(_GROUP_TYPES[g] for g in range(3, 16) if m.group(g))
        sub = Sub(kind, float(m.group(1)) if m.group(1) else 1.0)
        remaining = m.group(16)
        has_specific = False
        while (alt := alternative.search(remaining)) is not None:
            if alt.group(1) == "=":
                sub.fractions.append(1.0)
            elif alt.group(2):
                sub.fractions.append(0.01 * float(alt.group(2).replace(",", ".")))
                has_specific = True
            else:
                sub.fractions.append(0.0)
            if alt.group(5) is not None:
                feedback = html_entity_decode(alt.group(5)).replace("\\}", "}")
                sub.feedback.append(feedback.replace("\\#", "#"))
            else:
                sub.feedback.append("")
            num = numerical.search(alt.group(3)) if kind == "numerical" else None
            if num is not None:
                sub.answers.append(num.group(1))
                sub.tolerance.append(float(num.group(6).replace(",", ".")) if num.group(6) else 0.0)
            else:
                answer = html_entity_decode(alt.group(3)).replace("\\}", "}").replace("\\#", "#")
                sub.answers.append(answer)
                sub.tolerance.append(None)
            remaining = remaining.split(alt.group(0), 1)[1]
        if kind == "multiresponse":
            total = sum(f for f in sub.fractions if f > 0)
            if total:
                sub.fractions = [f / total if f > 0 else (f if has_specific else -1 / total)
                                 for f in sub.fractions]
        subs.append(sub)
        text = text.replace(m.group(0), f"{{#{position}}}", 1)
        position += 1
    return text, subs


def validate_cloze(subs: list[Sub]) -> None:
    """qtype_multianswer_validate_question: each sub-question's errors, raised."""
    if not subs:
        raise ImportRejected("cloze question without sub-questions")
    for n, sub in enumerate(subs, 1):
        count, has_max = 0, False
        for answer, fraction in zip(sub.answers, sub.fractions):
            if answer.strip() == "":
                continue
            count += 1
            if sub.qtype == "numerical" and not (php_is_numeric(answer.strip()) or answer.strip() == "*"):
                raise ImportRejected(f"sub-question {n}: answer {answer!r} is not a number")
            if fraction == 1 or (sub.qtype == "multiresponse" and fraction > 0):
                has_max = True
        if sub.qtype in ("multichoice", "multiresponse") and count < 2:
            raise ImportRejected(f"sub-question {n}: fewer than 2 options")
        if count == 0:
            raise ImportRejected(f"sub-question {n}: no answer")
        if not has_max:
            raise ImportRejected(f"sub-question {n}: no answer at 100%")


# ---------------------------------------------------------------------------------------------
# Moodle XML


@dataclass
class MoodleAnswer:
    text: str
    fraction: float
    feedback: str
    tolerance: float | None = None


@dataclass
class MoodleQuestion:
    qtype: str
    category: tuple[str, ...]
    name: str
    questiontext: str
    generalfeedback: str
    idnumber: str | None
    files: dict[str, bytes]             # name → decoded bytes (question text and feedback)
    answers: list[MoodleAnswer] = field(default_factory=list)
    single: bool = True
    subs: list[Sub] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    # numerical: what qformat_xml::import_numerical reads (its defaults when absent)
    units: list[tuple[str, str]] = field(default_factory=list)     # (unit_name, multiplier)
    showunits: int | None = None
    unitgradingtype: int = 0
    unitpenalty: float = 0.1
    unitsleft: bool = False


def split_category_path(path: str) -> list[str]:
    """qformat_default::split_category_path: "/" separates, "//" is a literal slash."""
    parts = re.split(r"(?<!/)/(?!/)", path)
    return [p.replace("//", "/").strip() for p in parts]


def _text(node: ET.Element | None, default: str = "") -> str:
    if node is None:
        return default
    text = node.find("text")
    return (text.text or "").strip() if text is not None else default


def _files(node: ET.Element | None) -> dict[str, bytes]:
    out = {}
    for f in (node.findall("file") if node is not None else []):
        if f.get("encoding") != "base64":
            raise ImportRejected("file not base64")
        out[(f.get("path") or "/") + f.get("name", "")] = base64.b64decode(f.text or "",
                                                                          validate=True)
    return out


def read_moodle_xml(data: str | bytes) -> list[MoodleQuestion]:
    """Every question of a Moodle XML file, as Moodle's importer would take it."""
    try:
        root = ET.fromstring(data)
    except ET.ParseError as exc:
        raise ImportRejected(f"not XML: {exc}") from None
    if root.tag != "quiz":
        raise ImportRejected("root element is not <quiz>")
    category: tuple[str, ...] = ()
    out = []
    for q in root.findall("question"):
        qtype = q.get("type")
        if qtype == "category":
            path = _text(q.find("category"))
            parts = split_category_path(path)
            if not re.fullmatch(r"\$[a-z]+\$", parts[0]):
                raise ImportRejected(f"category {path!r} names no context")
            category = tuple(parts[1:])
            continue
        name = _text(q.find("name"))
        if not name:
            raise ImportRejected("question without a name")
        qt, gf = q.find("questiontext"), q.find("generalfeedback")
        if qt is None or qt.get("format") != "html":
            raise ImportRejected("question text not HTML")
        files = {**_files(qt), **_files(gf)}
        idnumber = q.findtext("idnumber")
        question = MoodleQuestion(qtype, category, name, _text(qt), _text(gf), idnumber, files,
                                  tags=[_text(t) for t in q.findall("tags/tag")])
        if qtype in ("numerical", "multichoice"):
            for a in q.findall("answer"):
                fraction = match_grade(float(a.get("fraction", "0")) / 100)
                tol = a.findtext("tolerance")
                question.answers.append(MoodleAnswer(_text(a), fraction, _text(a.find("feedback")),
                                                     float(tol) if tol is not None else None))
            if not question.answers:
                raise ImportRejected(f"{name}: no answers")
        if qtype == "numerical":
            question.units = [(u.findtext("unit_name") or "", u.findtext("multiplier") or "1")
                              for u in q.findall("units/unit")]
            question.showunits = int(q.findtext("showunits")) if q.findtext("showunits") else None
            question.unitgradingtype = int(q.findtext("unitgradingtype") or 0)
            question.unitpenalty = float(q.findtext("unitpenalty") or 0.1)
            question.unitsleft = (q.findtext("unitsleft") or "0").strip() not in ("", "0")
            for a in question.answers:
                if not (php_is_numeric(a.text) or a.text == "*"):
                    raise ImportRejected(f"{name}: answer {a.text!r} is not a number")
                if a.tolerance is None or a.tolerance < 0:
                    raise ImportRejected(f"{name}: bad tolerance")
            if max(a.fraction for a in question.answers) != 1.0:
                raise ImportRejected(f"{name}: no answer at 100%")
        elif qtype == "multichoice":
            question.single = (q.findtext("single") or "true").strip() not in ("false", "0", "")
            if len(question.answers) < 2:
                raise ImportRejected(f"{name}: fewer than 2 options")
            positive = sum(a.fraction for a in question.answers if a.fraction > 0)
            if question.single and max(a.fraction for a in question.answers) != 1.0:
                raise ImportRejected(f"{name}: no option at 100%")
            if not question.single and abs(positive - 1) > 0.0001:
                raise ImportRejected(f"{name}: right options do not add up to 100%")
        elif qtype == "cloze":
            _, question.subs = extract_cloze(question.questiontext)
            validate_cloze(question.subs)
        else:
            raise ImportRejected(f"unexpected question type {qtype!r}")
        for src in re.findall(r'src="@@PLUGINFILE@@/([^"]+)"',
                              question.questiontext + question.generalfeedback):
            if "/" + html.unescape(src) not in files:
                raise ImportRejected(f"{name}: @@PLUGINFILE@@/{src} has no <file>")
        out.append(question)
    return out


# ---------------------------------------------------------------------------------------------
# GIFT (question/format/gift/format.php)

_ESCAPED = (("\\:", "&&058;"), ("\\#", "&&035;"), ("\\=", "&&061;"), ("\\{", "&&123;"),
            ("\\}", "&&125;"), ("\\~", "&&126;"), ("\\n", "&&010"))
_WEIGHT = re.compile(r"^%\-*([0-9]{1,2})\.?([0-9]*)%")


def _pre(text: str) -> str:
    text = text.replace("\\\\", "&&092;")
    for escaped, placeholder in _ESCAPED:
        text = text.replace(escaped, placeholder)
    return text.replace("&&092;", "\\")


def _post(text: str) -> str:
    for escaped, placeholder in _ESCAPED:
        text = text.replace(placeholder, escaped[1] if escaped[1] != "n" else "\n")
    return text


def _with_format(text: str, default: str = "moodle") -> tuple[str, str]:
    fmt = default
    if text.startswith("["):
        end = text.index("]")
        name = text[1:end]
        if name in ("moodle", "html", "plain", "markdown"):
            fmt, text = name, text[end + 1:]
    return _post(text).strip(), fmt


def _weight(answer: str) -> tuple[float, str]:
    answer = answer[1:]
    end = answer.index("%")
    return float(answer[:end]) / 100, answer[end + 1:]


@dataclass
class GiftQuestion:
    qtype: str
    category: str
    name: str
    text: str
    fmt: str
    generalfeedback: str
    answers: list[tuple[str, float, str, float | None]] = field(default_factory=list)


def read_gift(data: str) -> list[GiftQuestion]:
    """Every question of a GIFT file (blank lines separate questions)."""
    out = []
    category = ""
    for block in re.split(r"\n\s*\n", data.replace("\r\n", "\n")):
        lines = [" " if line.strip().startswith("//") else line for line in block.split("\n")]
        text = "\n".join(lines).strip()
        if not text:
            continue
        text = _pre(text)
        if text.startswith("$CATEGORY:"):
            category = text[10:].strip()
            continue
        name = ""
        if text.startswith("::"):
            text = text[2:]
            end = text.find("::")
            if end < 0:
                raise ImportRejected("unterminated name")
            name, text = _post(text[:end]), text[end + 2:].strip()
        start, finish = text.find("{"), text.find("}")
        if start < 0 or finish < 0 or finish < start:
            raise ImportRejected(f"{name}: braces")
        answertext = text[start + 1:finish].strip()
        if not text.endswith("}"):
            raise ImportRejected(f"{name}: text after the answers")
        question_text, fmt = _with_format(text[:start])
        general = ""
        if "####" in answertext:
            cut = answertext.rindex("####")
            general, answertext = answertext[cut + 4:], answertext[:cut].strip()
        general, _ = _with_format(general, fmt)
        q = GiftQuestion("", category, name, question_text, fmt, general)
        if answertext.startswith("#"):
            q.qtype = "numerical"
            body = answertext[1:]
            wrong = ""
            if "~" in body:
                cut = body.index("~")
                body, wrong = body[:cut], body[cut:]
            parts = body.split("=")
            parts[0] = parts[0].strip()
            if not parts[0]:
                parts = parts[1:]
            if not parts:
                raise ImportRejected(f"{name}: no numerical answers")
            for answer in (p.strip() for p in parts):
                weight = 1.0
                if _WEIGHT.match(answer):
                    weight, answer = _weight(answer)
                value, _, feedback = answer.partition("#")
                value, _ = _with_format(value.strip(), fmt)
                feedback, _ = _with_format(feedback.strip(), fmt)
                ans, _, tol = value.partition(":")
                if not php_is_numeric(tol or "0"):
                    raise ImportRejected(f"{name}: tolerance {tol!r}")
                q.answers.append((ans.strip(), weight, feedback, float(tol or 0)))
            if wrong:
                _, _, feedback = wrong.partition("#")
                q.answers.append(("*", 0.0, _with_format(feedback.strip(), fmt)[0], None))
        elif "~" in answertext:
            q.qtype = "multichoice"
            parts = answertext.replace("=", "~=").split("~")
            parts = [p.strip() for p in parts]
            if not parts[0]:
                parts = parts[1:]
            if len(parts) < 2:
                raise ImportRejected(f"{name}: fewer than 2 options")
            for answer in parts:
                if answer.startswith("="):
                    weight, answer = 1.0, answer[1:]
                elif _WEIGHT.match(answer):
                    weight, answer = _weight(answer)
                else:
                    weight = 0.0
                value, _, feedback = answer.partition("#")
                q.answers.append((_with_format(value.strip(), fmt)[0], weight,
                                  _with_format(feedback.strip(), fmt)[0], None))
        else:
            raise ImportRejected(f"{name}: not a numerical or multiple-choice question")
        for _, weight, _, _ in q.answers:
            match_grade(weight)
        out.append(q)
    return out


# ---------------------------------------------------------------------------------------------
# Canvas QTI 1.2 package

QTI = "{http://www.imsglobal.org/xsd/ims_qtiasiv1p2}"
CP = "{http://www.imsglobal.org/xsd/imsccv1p1/imscp_v1p1}"
CANVAS_TYPES = {"numerical_question", "multiple_choice_question", "multiple_answers_question"}


@dataclass
class QtiItem:
    group: str
    qtype: str
    title: str
    text: str
    points: float
    right: list[str]                    # numerical: [exact, low, high]; choice: right options' texts
    options: list[tuple[str, str]]      # choice: (text, feedback)
    feedback: dict[str, str]
    accepted: list[list[str]] = field(default_factory=list)   # numerical: every [exact, low, high]


def read_qti(path) -> list[QtiItem]:
    """Every item of a QTI zip, after checking the package's structure and references."""
    with zipfile.ZipFile(path) as zf:
        names = set(zf.namelist())
        if "imsmanifest.xml" not in names:
            raise ImportRejected("no imsmanifest.xml")
        manifest = ET.fromstring(zf.read("imsmanifest.xml"))
        if manifest.tag != CP + "manifest":
            raise ImportRejected("manifest root")
        resources = {r.get("identifier"): r for r in manifest.iter(CP + "resource")}
        qti = [r for r in resources.values() if r.get("type") == "imsqti_xmlv1p2"]
        if len(qti) != 1:
            raise ImportRejected("expected one imsqti_xmlv1p2 resource")
        for r in resources.values():
            for f in r.findall(CP + "file"):
                if f.get("href") not in names:
                    raise ImportRejected(f"manifest file {f.get('href')} missing from the zip")
        for dep in qti[0].findall(CP + "dependency"):
            if dep.get("identifierref") not in resources:
                raise ImportRejected("dangling dependency")
        meta = [r for r in resources.values()
                if r.get("type") == "associatedcontent/imscc_xmlv1p1/learning-application-resource"]
        if len(meta) != 1:
            raise ImportRejected("no assessment_meta resource")
        webcontent = {f.get("href") for r in resources.values() if r.get("type") == "webcontent"
                      for f in r.findall(CP + "file")}
        doc = ET.fromstring(zf.read(qti[0].find(CP + "file").get("href")))
        if doc.tag != QTI + "questestinterop":
            raise ImportRejected("assessment root")
        items = []
        assessment = doc.find(QTI + "assessment")
        root = assessment.find(QTI + "section")
        for section in root.findall(QTI + "section"):
            number = section.findtext(f"{QTI}selection_ordering/{QTI}selection/{QTI}selection_number")
            if number != "1":
                raise ImportRejected("group without selection_number 1")
            for item in section.findall(QTI + "item"):
                items.append(_qti_item(item, section.get("title", ""), names, webcontent, zf))
        return items


def _qti_item(item, group, names, webcontent, zf) -> QtiItem:
    fields = {f.findtext(QTI + "fieldlabel"): f.findtext(QTI + "fieldentry")
              for f in item.iter(QTI + "qtimetadatafield")}
    qtype = fields.get("question_type")
    if qtype not in CANVAS_TYPES:
        raise ImportRejected(f"question_type {qtype!r}")
    presentation = item.find(QTI + "presentation")
    text = presentation.findtext(f"{QTI}material/{QTI}mattext")
    feedback = {fb.get("ident"): fb.findtext(f".//{QTI}mattext") or ""
                for fb in item.findall(QTI + "itemfeedback")}
    for ref in item.iter(QTI + "displayfeedback"):
        if ref.get("linkrefid") not in feedback:
            raise ImportRejected("feedback reference without itemfeedback")
    for html_text in [text, *feedback.values()]:
        for src in re.findall(r'src="\$IMS-CC-FILEBASE\$/([^"]+)"', html_text or ""):
            target = "web_resources/" + html.unescape(src)
            if target not in names or target not in webcontent:
                raise ImportRejected(f"image {src} not in the package's web content")
    conditions = item.findall(f"{QTI}resprocessing/{QTI}respcondition")
    scoring = [c for c in conditions if c.find(QTI + "setvar") is not None]
    if not scoring or any(c.findtext(QTI + "setvar") != "100" for c in scoring):
        raise ImportRejected("expected conditions that set SCORE to 100")
    if qtype != "numerical_question" and len(scoring) != 1:
        raise ImportRejected("a choice item has one scoring condition")
    var = scoring[0].find(QTI + "conditionvar")
    options: list[tuple[str, str]] = []
    accepted: list[list[str]] = []
    if qtype == "numerical_question":
        fib = presentation.find(f"{QTI}response_str/{QTI}render_fib")
        if fib is None or fib.get("fibtype") != "Decimal":
            raise ImportRejected("numerical item without a Decimal fill-in")
        # Canvas's export: one condition per answer, an exact value or a window around it.
        for condition in scoring:
            cv = condition.find(QTI + "conditionvar")
            accepted.append([cv.findtext(f"{QTI}or/{QTI}varequal"),
                             cv.findtext(f"{QTI}or/{QTI}and/{QTI}vargte"),
                             cv.findtext(f"{QTI}or/{QTI}and/{QTI}varlte")])
            if any(v is None or not php_is_numeric(v) for v in accepted[-1]):
                raise ImportRejected("numerical answer without an exact value and a window")
        right = accepted[0]
    else:
        lid = presentation.find(QTI + "response_lid")
        want = "Single" if qtype == "multiple_choice_question" else "Multiple"
        if lid is None or lid.get("rcardinality") != want:
            raise ImportRejected("choice item cardinality")
        labels = {lab.get("ident"): lab.findtext(f"{QTI}material/{QTI}mattext")
                  for lab in lid.iter(QTI + "response_label")}
        options = [(labels[i], feedback.get(i + "_fb", "")) for i in labels]
        if qtype == "multiple_choice_question":
            chosen = [var.findtext(QTI + "varequal")]
        else:
            chosen = [v.text for v in var.findall(f"{QTI}and/{QTI}varequal")]
            negated = [v.text for v in var.findall(f"{QTI}and/{QTI}not/{QTI}varequal")]
            if set(chosen) | set(negated) != set(labels):
                raise ImportRejected("multiple answers: every option must be tested")
        if not chosen or any(c not in labels for c in chosen):
            raise ImportRejected("right answer is no option")
        right = [labels[c] for c in chosen]
    return QtiItem(group, qtype, item.get("title", ""), text or "",
                   float(fields.get("points_possible", "0")), right, options, feedback,
                   accepted)


# ---------------------------------------------------------------------------------------------
# How Moodle grades a numerical answer: qtype_numerical_answer_processor::apply_units and
# qtype_numerical_question (question/type/numerical/questiontype.php and question.php), with
# how an import stores the question (qformat_xml::import_numerical, qtype_numerical::
# save_units / save_question_options / save_unit_options), line for line where it decides.

UNITINPUT, UNITRADIO, UNITSELECT, UNITNONE = 0, 1, 2, 3        # showunits / unitdisplay
UNITOPTIONAL, UNITGRADEDOUTOFMARK, UNITGRADEDOUTOFMAX = 0, 1, 2  # unitgradingtype
PHP_PRECISION = 14                                               # php.ini "precision"
_EXPONENT = re.compile(r"(?:e|E|(?:x|\*|×)10(?:\^|\*\*))([+-]?\d+)")
_NUMBER = r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[-+]?\d+)?"


class AnswerProcessor:
    """qtype_numerical_answer_processor: a response's number, its unit and the unit's
    multiplier (1 / the unit's stored multiplier; None for no or an unknown unit)."""

    def __init__(self, units: dict[str, float], unitsbefore: bool = False,
                 decsep: str = ".", thousandssep: str = ","):   # langconfig of English
        self.units = dict(units)
        self.unitsbefore = unitsbefore
        self.decsep, self.thousandssep = decsep, thousandssep

    def apply_units(self, response: str | None, separateunit: str | None = None):
        if response is None:
            return None, None, None
        response = response.replace(" ", "")
        response = _EXPONENT.sub(r"e\1", response)
        if "." in response or response.count(",") > 1:
            response = response.replace(",", "")
        else:   # PHP's str_replace with arrays: each pair in turn over the whole string
            for old, new in ((self.thousandssep, ""), (self.decsep, "."), (",", ".")):
                response = response.replace(old, new)
        regex = f"{_NUMBER}$" if self.unitsbefore else f"^{_NUMBER}"
        m = re.search(regex, response)
        if m is None:
            return None, None, None
        number = m.group(0)
        unit = response[:-len(number)] if self.unitsbefore else response[len(number):]
        if separateunit is not None:
            unit = separateunit
        multiplier = 1 / self.units[unit] if self.is_known_unit(unit) else None
        return float(number), unit, multiplier

    def is_known_unit(self, unit: str) -> bool:
        return unit in self.units

    def contains_thousands_separator(self, value: str) -> bool:
        return self.thousandssep in (".", ",") and self.thousandssep in value

    def default_unit(self) -> str | None:
        return next(iter(self.units), None)


@dataclass
class NumericalAnswer:
    """qtype_numerical_answer: `answer` is the stored text ('*' matches anything)."""

    answer: str
    fraction: float
    tolerance: float
    feedback: str = ""
    tolerancetype: int | str = 2          # numerical questions: always nominal

    def interval(self) -> tuple[float, float]:
        if self.answer == "*":
            raise ValueError("no interval for *")
        answer = float(self.answer)
        epsilon = 10.0 ** -PHP_PRECISION
        tolerance = abs(self.tolerance) + epsilon
        if self.tolerancetype in (1, "relative"):
            spread = abs(answer) * tolerance
            return answer - spread, answer + spread
        if self.tolerancetype in (2, "nominal"):
            tolerance = abs(self.tolerance) + epsilon * max(abs(self.tolerance), abs(answer), epsilon)
            return answer - tolerance, answer + tolerance
        if self.tolerancetype in (3, "geometric"):
            quotient = 1 + abs(tolerance)
            return answer / quotient, answer * quotient
        raise ValueError(f"unknown tolerance type {self.tolerancetype}")

    def within_tolerance(self, value: float) -> bool:
        if self.answer == "*":
            return True
        low, high = self.interval()
        return low <= value <= high


@dataclass
class Graded:
    fraction: float
    answer: NumericalAnswer | None      # the answer whose feedback the student sees
    complete: bool                      # is_complete_response (False: Moodle shows `error`)
    error: str                          # get_validation_error's string key, '' when none


@dataclass
class NumericalQuestion:
    """qtype_numerical_question as the question engine grades it."""

    answers: list[NumericalAnswer]
    ap: AnswerProcessor
    unitdisplay: int = UNITNONE
    unitgradingtype: int = UNITOPTIONAL
    unitpenalty: float = 0.1

    def has_separate_unit_field(self) -> bool:
        return self.unitdisplay in (UNITRADIO, UNITSELECT)

    def is_gradable_response(self, response: str) -> bool:
        return bool(response) or response == "0"

    def validation_error(self, response: str) -> str:
        if not self.is_gradable_response(response):
            return "pleaseenterananswer"
        value, unit, _ = self.ap.apply_units(response)
        if value is None:
            return "invalidnumber"
        if self.unitdisplay != UNITINPUT and unit:
            return "invalidnumbernounit"
        if self.ap.contains_thousands_separator(response):
            return "pleaseenteranswerwithoutthousandssep"
        return ""

    def matching_answer(self, value: float | None, multiplier: float | None):
        if value is None:
            return None, False
        scaled = value * multiplier if multiplier is not None else value
        for answer in self.answers:
            if answer.within_tolerance(scaled):
                return answer, multiplier is not None
            if answer.within_tolerance(value):
                return answer, False
        return None, False

    def apply_unit_penalty(self, fraction: float, unitisright: bool) -> float:
        if unitisright:
            return fraction
        if self.unitgradingtype == UNITGRADEDOUTOFMARK:
            fraction -= self.unitpenalty * fraction
        elif self.unitgradingtype == UNITGRADEDOUTOFMAX:
            fraction -= self.unitpenalty
        return max(fraction, 0.0)

    def grade(self, response: str) -> Graded:
        """grade_response, as a quiz calls it on submission (deferred feedback grades every
        gradable response, complete or not)."""
        error = self.validation_error(response)
        if not self.is_gradable_response(response):
            return Graded(0.0, None, False, error)
        value, _, multiplier = self.ap.apply_units(response)
        answer, unitisright = self.matching_answer(value, multiplier)
        if answer is None:
            return Graded(0.0, None, not error, error)
        return Graded(self.apply_unit_penalty(answer.fraction, unitisright), answer, not error,
                      error)

    def correct_response(self) -> str:
        """get_correct_response: the first answer at 100%, with the default unit when the
        unit is typed in the box (what the review shows as "The correct answer is")."""
        right = next(a for a in self.answers if a.fraction == 1.0)
        if self.unitdisplay == UNITINPUT and self.ap.default_unit():
            return f"{right.answer} {self.ap.default_unit()}"
        return right.answer


def _php_number_text(value: float) -> str:
    """A float as PHP stores it back into a text column (precision 14, no trailing zeros)."""
    text = f"{value:.{PHP_PRECISION}G}"
    if "E" in text:
        mantissa, exponent = text.split("E")
        text = mantissa.rstrip("0").rstrip(".") + "E" + ("+" if int(exponent) >= 0 else "-") + \
            str(abs(int(exponent)))
    elif "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


def _apply_unit(raw: str, units: dict[str, float], unitsleft: bool) -> float | None:
    """qtype_numerical::apply_unit: the value in the base unit (None: not a number)."""
    value, _, multiplier = AnswerProcessor(units, unitsleft).apply_units(raw)
    if value is None:
        return None
    return value * multiplier if multiplier is not None else value


def numerical_from_import(question: MoodleQuestion) -> NumericalQuestion:
    """A Moodle XML numerical question as Moodle stores and then grades it."""
    units: dict[str, float] = {}
    for name, multiplier in question.units:          # save_units: nameless, zero or repeated go
        value = _apply_unit(multiplier, {}, False)
        if name and value and name not in units:
            units[name] = value
    answers = []
    for a in question.answers:
        if a.text.strip() == "*":
            text = "*"
        else:
            stored = _apply_unit(a.text, units, question.unitsleft)
            if stored is None:
                raise ImportRejected(f"answer {a.text!r} is not a number")
            text = _php_number_text(stored)
        tolerance = _apply_unit(str(a.tolerance if a.tolerance is not None else 0), units,
                                question.unitsleft)
        answers.append(NumericalAnswer(text, a.fraction, tolerance or 0.0, a.feedback))
    showunits = question.showunits
    if showunits is None:           # import_numerical's default
        showunits = UNITNONE if not units else UNITINPUT
    # save_unit_options on an import sets unitgradingtype to 0 (only the editing form's
    # "unitrole" grades units) and keeps the file's showunits and unitpenalty.
    return NumericalQuestion(answers, AnswerProcessor(units, question.unitsleft), showunits,
                             UNITOPTIONAL, question.unitpenalty)


def numerical_from_cloze(sub: Sub) -> NumericalQuestion:
    """A NUMERICAL sub-question of a cloze (qtype_multianswer_extract_question makes it with
    no units, so save_unit_options gives it showunits 3 and unitpenalty 1)."""
    if sub.qtype != "numerical":
        raise ValueError("not a numerical sub-question")
    answers = [NumericalAnswer(a if a == "*" else _php_number_text(float(a.replace(",", "."))),
                               f, t or 0.0, fb)
               for a, f, t, fb in zip(sub.answers, sub.fractions, sub.tolerance, sub.feedback)]
    return NumericalQuestion(answers, AnswerProcessor({}), UNITNONE, UNITOPTIONAL, 1.0)


def numerical_from_gift(question: GiftQuestion) -> NumericalQuestion:
    """A GIFT numerical question: qformat_gift sets no units, so the question has none
    (showunits 3, as a legacy import without a base unit)."""
    answers = [NumericalAnswer("*" if text == "*" else _php_number_text(float(text)), weight,
                               tol or 0.0, feedback)
               for text, weight, feedback, tol in question.answers]
    return NumericalQuestion(answers, AnswerProcessor({}), UNITNONE, UNITOPTIONAL, 0.1)


# ---------------------------------------------------------------------------------------------
# What a (re-)import does with idnumbers: qformat_default::importprocess (question/format.php)


class MoodleBank:
    """Question bank entries by category, as imports fill it. An imported question whose
    idnumber its category already holds is added all the same, with the idnumber removed
    ("We cannot have duplicate idnumbers in a category. Just remove it.")."""

    def __init__(self) -> None:
        self.entries: dict[tuple[str, ...], list[str | None]] = {}

    def import_questions(self, questions: list[MoodleQuestion]) -> tuple[int, int]:
        """(questions added, idnumbers removed)."""
        added = removed = 0
        for q in questions:
            held = self.entries.setdefault(q.category, [])
            idnumber = (q.idnumber or "").strip() or None
            if idnumber is not None and idnumber in held:
                idnumber, removed = None, removed + 1
            held.append(idnumber)
            added += 1
        return added, removed
