"""Validating an exam manifest: every field grade, scan and check will use, by type and range,
before anything uses it.

A manifest is the teacher's file: it may be hand-edited, truncated or mixed up with another JSON
file. Whatever is wrong with it is one `QuizgenError` naming the file and the field
(``students[3].sheet.boxes[2].page``), never a traceback halfway through grading or scanning.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from quizgen.errors import QuizgenError
from quizgen.manifest.record import MANIFEST_FORMAT, MANIFEST_VERSION

#: The most students (versions) a manifest may hold: `quizgen sheet` prints at most 5,000.
MAX_STUDENTS = 5000
#: The most questions one version may have, and the largest question number.
MAX_QUESTIONS = 1000
MAX_NUMBER = 10**6
#: The most points one question or answer box may carry (as the grader's `question_points`).
MAX_POINTS = 10**6
#: A page with answer grids: the papers quizgen prints are A4 and US Letter; a scan layout says
#: its page in mm, from a postcard to A3 (anything else was not written by quizgen sheet).
PAGE_MM = (50.0, 420.0)
#: The most pages one paper with answer grids has: the sheet makes a page's QR code for this
#: many pages, and refuses a longer paper.
MAX_PAGES = 12
#: Corner marks on every page with answer grids, one near each corner: the sheet prints four,
#: and the scanner straightens a page by all four (or, when one is hidden, by the other three and
#: the QR code), so a layout names exactly four.
CORNER_MARKS = 4
#: Digits before and after the point in one number grid (the sheet prints at most 7 + 4).
MAX_PLACES = 12
#: Bubbles in one box (a number grid has 10 per digit row, plus sign and % rows).
MAX_BUBBLES = 400
BOX_KINDS = ("number", "yes_no", "limits", "written")


def check_manifest(data: Any, source: str = "manifest", *, scan: bool = False) -> dict[str, Any]:
    """`data` if it is an exam manifest the grader (and with `scan`, the scanner) can use;
    otherwise a one-line `QuizgenError` naming `source` and the field."""
    check_head(data, source)
    students = data.get("students")
    if not isinstance(students, list):
        raise QuizgenError(f"{source} lists no students", field="manifest")
    check_count(len(students), source)
    for i, student in enumerate(students, start=1):
        check_student(student, f"students[{i}]", source)
    if scan:
        size = check_scan_layout(data.get("scan"), source)
        seen: set[str] = set()
        for i, student in enumerate(students, start=1):
            check_scan_paper(student, i, source, size, seen)
    return data


def check_head(data: Any, source: str) -> None:
    """Everything of a manifest but its students: what it is, its format, its fields' kinds."""
    if not isinstance(data, dict):
        raise QuizgenError(f"{source} is not an exam manifest (expected a JSON object)",
                           field="manifest")
    if "format" in data and data["format"] != MANIFEST_FORMAT:
        raise QuizgenError(f"{source} is not an exam manifest written by quizgen sheet "
                           f"(format {_shown(data['format'])})", field="manifest")
    version = data.get("format_version", 1)
    if isinstance(version, int) and not isinstance(version, bool) and version > MANIFEST_VERSION:
        raise QuizgenError(f"{source} was written by a newer quizgen (manifest format {version}; "
                           f"this one reads up to {MANIFEST_VERSION})", field="manifest")
    _whole(version, "format_version", source, 1, MANIFEST_VERSION)
    for name, kind in (("recipe", dict), ("paper", str), ("practice", bool), ("balance", dict)):
        if data.get(name) is not None and not isinstance(data[name], kind):
            _bad(source, name, data[name], _KIND_WORDS[kind])


def check_count(count: int, source: str) -> None:
    """A manifest holds at least one student and at most `MAX_STUDENTS`."""
    if not count:
        raise QuizgenError(f"{source} lists no students", field="manifest")
    if count > MAX_STUDENTS:
        _bad(source, "students", count,
             f"at most {MAX_STUDENTS:,} students (quizgen sheet prints no more)")


_KIND_WORDS = {dict: "an object", str: "text", bool: "true or false", list: "a list"}


def check_student(student: Any, where: str, source: str) -> None:
    """One student's paper (`where`: ``students[3]``): who, and every question."""
    if not isinstance(student, Mapping) or not isinstance(student.get("questions"), list):
        _fail(source, where, "expected a student: name, roll, version and questions")
    for name in ("name", "roll", "version"):
        value = student.get(name)
        if value is not None and not isinstance(value, str):
            _bad(source, f"{where}.{name}", value, "text")
    predicted = student.get("predicted")
    if predicted is not None and not isinstance(predicted, Mapping):
        _bad(source, f"{where}.predicted", predicted, "an object (basis, expected, relative)")
    questions = student["questions"]
    if len(questions) > MAX_QUESTIONS:
        _bad(source, f"{where}.questions", len(questions),
             f"at most {MAX_QUESTIONS:,} questions")
    for j, item in enumerate(questions, start=1):
        check_question(item, f"{where}.questions[{j}]", source)


def check_question(item: Any, at: str, source: str) -> None:
    """One saved problem (a manifest's question, or a problem JSON for `quizgen check`):
    the fields the grader reads, by type and range."""
    if not isinstance(item, Mapping):
        _fail(source, at, "expected a problem object")
    if "number" in item:
        _whole(item["number"], f"{at}.number", source, 0, MAX_NUMBER)
    _check_points(item.get("points"), f"{at}.points", source)
    asked = item.get("asked")
    if asked is not None and (not isinstance(asked, list)
                              or not all(isinstance(k, str) for k in asked)):
        _bad(source, f"{at}.asked", asked, "a list of answer keys")
    tolerances = item.get("tolerances")
    if tolerances is not None:
        if not isinstance(tolerances, Mapping):
            _bad(source, f"{at}.tolerances", tolerances, "an object of answer key → tolerance")
        for key, value in tolerances.items():
            _number(value, f"{at}.tolerances.{key}", source, 0, 1e9)
    features = item.get("features")
    if features is not None and (not isinstance(features, Mapping) or not all(
            isinstance(v, (str, int, bool)) for v in features.values())):
        _bad(source, f"{at}.features", features, "an object of the version's features")
    answers = item.get("answers")
    if answers is not None and not isinstance(answers, Mapping):
        _bad(source, f"{at}.answers", answers, "an object of answer key → answer")
    choices = item.get("choices")
    if choices is not None and (not isinstance(choices, list)
                                or not all(isinstance(c, Mapping) for c in choices)):
        _bad(source, f"{at}.choices", choices, "a list of choices (objects)")
    solution = item.get("solution")
    if solution is not None and (not isinstance(solution, Mapping)
                                 or not isinstance(solution.get("steps", []), list)):
        _bad(source, f"{at}.solution", solution, "a worked solution (an object with steps)")


def check_problem(data: Any, where: str) -> None:
    """A problem JSON given to `quizgen check`: as a manifest's question (`check_question`)."""
    try:
        check_question(data, "", where)
    except QuizgenError as exc:
        raise QuizgenError(str(exc).removeprefix("manifest: "), field="problem") from None


def _check_points(points: Any, where: str, source: str) -> None:
    if points is None or isinstance(points, str):      # a text is read (and checked) as points
        return
    if isinstance(points, Mapping):
        for key, value in points.items():
            if not isinstance(value, str):
                _number(value, f"{where}.{key}", source, 0, MAX_POINTS)
        return
    _number(points, where, source, 0, MAX_POINTS)


def check_scan_layout(layout: Any, source: str) -> tuple[float, float]:
    """The pages' layout for the scanner (``scan``); its page size in mm."""
    if not isinstance(layout, Mapping):
        raise QuizgenError(f"{source} has no answer grids; print the exam with quizgen sheet "
                           "--bubbles to scan it", field="manifest")
    if not isinstance(layout.get("exam"), str) or not layout["exam"]:
        _bad(source, "scan.exam", layout.get("exam"), "the exam's code (text)")
    size = layout.get("page_size")
    low, high = PAGE_MM
    if not _pair(size) or not all(low <= v <= high for v in size):
        _bad(source, "scan.page_size", size, f"[width, height] in mm, each from {low:g} to "
             f"{high:g}")
    width, height = size
    marks = layout.get("marks")
    if not isinstance(marks, list) or len(marks) != CORNER_MARKS:
        _bad(source, "scan.marks", marks, f"the {CORNER_MARKS} corner marks' [x, y] in mm")
    for k, mark in enumerate(marks, start=1):
        _point(mark, f"scan.marks[{k}]", source, width, height)
    short = min(width, height)
    _number(layout.get("mark_size"), "scan.mark_size", source, 1, short / 4, low_open=False)
    _number(layout.get("qr_size"), "scan.qr_size", source, 5, short / 2)
    _number(layout.get("radius"), "scan.radius", source, 0.5, 10)
    _point(layout.get("qr"), "scan.qr", source, width - layout["qr_size"],
           height - layout["qr_size"])
    return width, height


def check_scan_paper(student: Mapping[str, Any], number: int, source: str,
                     size: tuple[float, float], seen: set[str]) -> None:
    """Student `number`'s answer grids on the pages of `size`; `seen` holds the version codes
    of the papers before it (each code is one paper's)."""
    if "sheet" not in student:
        raise QuizgenError(f"{source} has no answer grids; print the exam with quizgen sheet "
                           "--bubbles to scan it", field="manifest")
    where = f"students[{number}]"
    version = student.get("version")
    if not isinstance(version, str) or not version:
        _bad(source, f"{where}.version", version, "the version's code (text)")
    if version in seen:
        _bad(source, f"{where}.version", version, "a code of one version only (it repeats)")
    seen.add(version)
    _check_sheet(student["sheet"], f"{where}.sheet", source, *size)


def _check_sheet(sheet: Any, where: str, source: str, width: float, height: float) -> None:
    if not isinstance(sheet, Mapping):
        _bad(source, where, sheet, "an object with pages and boxes")
    pages = _whole(sheet.get("pages"), f"{where}.pages", source, 1, MAX_PAGES)
    boxes = sheet.get("boxes")
    if not isinstance(boxes, list):
        _bad(source, f"{where}.boxes", boxes, "a list of answer boxes")
    for b, box in enumerate(boxes, start=1):
        at = f"{where}.boxes[{b}]"
        if not isinstance(box, Mapping):
            _bad(source, at, box, "an answer box (an object)")
        if not isinstance(box.get("column"), str) or not box["column"]:
            _bad(source, f"{at}.column", box.get("column"), "the answer column, such as Q1.occupancy")
        if box.get("kind") not in BOX_KINDS:
            _bad(source, f"{at}.kind", box.get("kind"), "one of " + ", ".join(BOX_KINDS))
        _whole(box.get("page"), f"{at}.page", source, 1, pages)
        region = box.get("region")
        if not isinstance(region, list) or len(region) != 4 or not all(
                _is_number(v) for v in region):
            _bad(source, f"{at}.region", region, "[x, y, width, height] in mm")
        _point(region[:2], f"{at}.region", source, width, height)
        _point([region[0] + region[2], region[1] + region[3]], f"{at}.region", source,
               width, height)
        if "r" in box:
            _number(box["r"], f"{at}.r", source, 0.5, 10)
        bubbles = box.get("bubbles")
        if not isinstance(bubbles, list) or len(bubbles) > MAX_BUBBLES:
            _bad(source, f"{at}.bubbles", bubbles,
                 f"a list of at most {MAX_BUBBLES} bubbles")
        for k, bubble in enumerate(bubbles, start=1):
            if not _bubble_on_page(bubble, width, height):
                _check_bubble(bubble, f"{at}.bubbles[{k}]", source, width, height)
        if box["kind"] == "number":
            for name in ("places", "decimals"):
                _whole(box.get(name), f"{at}.{name}", source, 0, MAX_PLACES)
            for name in ("sign", "selector"):
                if not isinstance(box.get(name, False), bool):
                    _bad(source, f"{at}.{name}", box.get(name), "true or false")


def _bubble_on_page(bubble: Any, width: float, height: float) -> bool:
    """A bubble ``[x, y, row, value]`` inside the page: the quick test of every bubble of a class
    (a number that is not finite fails the comparisons; a bool is not a number here)."""
    return (type(bubble) is list and len(bubble) == 4 and type(bubble[2]) is str
            and type(bubble[3]) is str and type(bubble[0]) in _NUMBER_TYPES
            and type(bubble[1]) in _NUMBER_TYPES and 0 <= bubble[0] <= width
            and 0 <= bubble[1] <= height)


def _check_bubble(bubble: Any, where: str, source: str, width: float, height: float) -> None:
    """A bubble that failed the quick test, refused with what is wrong with it."""
    if (not isinstance(bubble, list) or len(bubble) != 4
            or not isinstance(bubble[2], str) or not isinstance(bubble[3], str)):
        _bad(source, where, bubble, "[x, y, row, value]")
    _point(bubble[:2], where, source, width, height)


_NUMBER_TYPES = (int, float)


# ---------------------------------------------------------------------------------------------
# One field


def _is_number(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return abs(value) < 10**300         # a float can hold it (one rule: finite numbers)
    return isinstance(value, float) and math.isfinite(value)


def _pair(value: Any) -> bool:
    return isinstance(value, list) and len(value) == 2 and all(_is_number(v) for v in value)


def _point(value: Any, where: str, source: str, width: float, height: float) -> None:
    if not _pair(value) or not (0 <= value[0] <= width and 0 <= value[1] <= height):
        _bad(source, where, value, f"a point [x, y] on the {width:g} × {height:g} mm page")


def _number(value: Any, where: str, source: str, low: float, high: float, *,
            low_open: bool = False) -> float:
    if not _is_number(value) or not (low < value if low_open else low <= value) or value > high:
        _bad(source, where, value, f"a finite number from {_text(low)} to {_text(high)}")
    return value


def _text(number: float) -> str:
    return f"{int(number):,}" if float(number).is_integer() else f"{number:g}"


def _whole(value: Any, where: str, source: str, low: int, high: int) -> int:
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        _bad(source, where, value, f"a whole number from {low:,} to {high:,}")
    return value


def _shown(value: Any, width: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= width else text[: width - 1] + "…"


def _bad(source: str, where: str, value: Any, expected: str) -> None:
    _fail(source, where, f"got {_shown(value)}; expected {expected}")


def _fail(source: str, where: str, message: str) -> None:
    where = where.lstrip(".")
    raise QuizgenError(f"{source}: {where + ': ' if where else ''}{message}", field="manifest")
