"""What the sheets print, as text (pure): the Typst sources and JSON documents of the exam and
the key, and the blank answer sheet (the manifest's papers are `quizgen.manifest`'s).

Safety of user text: names, titles and instructions never pass through Typst's parser. The
templates in ``templates/sheet/`` read everything they print from a JSON document handed to the
compiler (``sys.inputs``), and Typst displays a JSON string verbatim, whatever characters it
holds. Only formulas are evaluated as Typst math, and those come from our own printer with numbers
substituted (see `_math_value`). Jinja fills only layout choices (paper size, fonts) into the
templates.
"""

from __future__ import annotations

import io
import json
import os
from typing import Any, Iterable

from quizgen.errors import QuizgenError
from quizgen.export import bubbles as b
from quizgen.export.bubbles import MAX_PAGES, box_grid, page_code, qr_svg
from quizgen.export.sheet.fonts import choose_fonts
from quizgen.export.sheet.plan import answer_kind
from quizgen.files import csv_text
from quizgen.gpus import gpu_from_dict
from quizgen.problems.model import Problem
from quizgen.problems.records import answer_spec
from quizgen.recipes.exam import ExamQuestion, ExamRecipe
from quizgen.recipes.roster import Student
from quizgen.render.answers import answer_name, answer_text, gpu_words, param_name
from quizgen.render.jinja import template
from quizgen.render.math import format_number, substituted, symbolic
from quizgen.render.numbers import number as number_text
from quizgen.render.phrases import labels as phrase_labels
from quizgen.render.solution import yes_no
from quizgen.render.typst import typst_string

PAPERS = ("a4", "us-letter")
#: Where a practice sheet prints the worked solutions: after a page break at the end of each
#: student's paper (the student tries first), or right under each problem's answer boxes.
SOLUTIONS = ("end", "under")


class ExamLayout:
    """What every document of one exam shares: its words, fonts, cover, scan marks and the two
    Typst sources; and the JSON document of a chunk of versions for each."""

    def __init__(self, recipe: ExamRecipe, students: list[Student], *, paper: str,
                 practice: bool, font_paths: Iterable[str | os.PathLike[str]],
                 bubbles: bool, solutions: str = "end") -> None:
        if solutions not in SOLUTIONS:
            raise QuizgenError(f"got {solutions!r}; expected {' or '.join(SOLUTIONS)}",
                               field="solutions")
        self.practice, self.lang = practice, recipe.lang
        self.labels = _labels(recipe.lang)
        self.fonts, self.font_dirs, self.warnings = choose_fonts(recipe, students, font_paths)
        self.common = {"title": recipe.title, "course": recipe.course, "date": recipe.date,
                       "duration": recipe.duration, "instructions": recipe.instructions,
                       "total": _points_text(recipe.total_points), "labels": self.labels,
                       "practice": practice, "solutions": solutions}
        self.scan = scan_layout(recipe, paper) if bubbles else None
        layout = {"paper": paper, "fonts": self.fonts}
        self.exam_source = _template("exam.typ.j2").render(**layout, practice=practice)
        self.key_source = _template("key.typ.j2").render(**layout)

    def exam_data(self, entries) -> str:
        units = [_exam_unit(student, code, questions, self.labels, self.practice, self.scan)
                 for student, code, questions in entries]
        extra = {"scan": self.scan} if self.scan else {}
        return json.dumps({**self.common, **extra, "units": units}, ensure_ascii=False)

    def key_data(self, entries, overview: list[dict[str, Any]] | None,
                 predicted: list[dict[str, Any]] | None = None) -> str:
        units = [_key_unit(student, code, questions, self.labels)
                 for student, code, questions in entries]
        for unit, difficulty in zip(units, predicted or []):
            unit["predicted"] = predicted_text(difficulty, self.lang)
        return json.dumps({**self.common, "overview": overview or [], "units": units},
                          ensure_ascii=False)


# ---------------------------------------------------------------------------------------------
# The answer sheet


def id_columns(columns: list[str]) -> list[str]:
    """The answer sheet's read-only columns after the answers: each question's problem id
    (``Q1.id``, what ``quizgen check ID ANSWER`` takes), prefilled per version; the grader
    reads no answer from them."""
    return [f"{question}.id" for question in dict.fromkeys(c.split(".", 1)[0] for c in columns)]


def id_cells(questions, ids: list[str]) -> list[str]:
    """One version's problem ids under `ids` (its questions in any printed order)."""
    by_column = {f"Q{number}.id": problem.id for number, _, problem, _ in questions}
    return [by_column.get(column, "") for column in ids]


def answer_sheet_csv(entries, columns: list[str]) -> str:
    """The blank answer sheet: who, then every answer column, then each question's problem id."""
    ids = id_columns(columns)
    rows = [["name", "roll", "version", *columns, *ids]]
    rows += [[student.name, student.roll, code, *([""] * len(columns)), *id_cells(questions, ids)]
             for student, code, questions in entries]
    return csv_text(rows)


def overview_row(student: Student, code: str, questions) -> dict[str, Any]:
    """One line of the key's summary table: the version, who, and each question's answers."""
    return {"version": code, "name": _breakable(student.name), "roll": student.roll,
            "answers": [[row["value"] for row in _answer_rows(problem, asked)]
                        for _, _, problem, asked in questions]}


def predicted_text(difficulty: dict[str, Any], lang: str) -> str:
    """A paper's predicted difficulty as the key prints it under the version's head."""
    from quizgen.render.phrases import phrase

    relative = float(difficulty.get("relative", 0.0))
    context = {"expected": number_text(difficulty.get("expected", 0.0), 2),
               "amount": number_text(abs(relative), 2), "easier": relative > 0,
               "same": abs(relative) < 0.005}
    key = "key_calibration" if difficulty.get("basis") == "calibration" else "key_prior"
    return phrase(lang, "fairness", key, context)


def _breakable(text: str, every: int = 14) -> str:
    """Long unbroken runs get zero-width break points, so a fixed-width column can wrap them."""
    words = []
    for word in text.split(" "):
        words.append("\u200b".join(word[i:i + every] for i in range(0, len(word), every)) or word)
    return " ".join(words)


# ---------------------------------------------------------------------------------------------
# What the templates print


def _template(name: str):
    return template(f"sheet/{name}")


def _labels(lang: str) -> dict[str, str]:
    """The sheet's fixed words in `lang`: the phrasebook's ``[sheet-label]``."""
    return dict(phrase_labels(lang, "sheet-label"))


def _points_text(points: float) -> str:
    return number_text(points, 6)


def _unit(problem: Problem, key: str) -> str:
    """The unit printed after an answer box: the answer spec's (cards and LMS banks print the
    same)."""
    return answer_spec(problem, key).printed_unit


def _value_text(value: Any, lang: str) -> str:
    """An answer or a given value as printed: 8, 0.375, registers, shared_memory, [3, 1, 0]; a
    yes/no in `lang`."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return yes_no(value, lang)
    if isinstance(value, float) and value != value:
        return "—"
    if isinstance(value, float) and value in (float("inf"), float("-inf")):
        return "∞" if value > 0 else "−∞"
    if isinstance(value, (int, float)):
        return format_number(value)     # 65,536 · 0.375 (text, not math)
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(v, (str, int, float)) for v in value):
        if all(isinstance(v, str) for v in value):
            return ", ".join(value)
        return "(" + ", ".join(_value_text(v, lang) for v in value) + ")"
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _box_width(value: Any) -> float:
    """Box width in em, by the answer's kind (never its length: the box must not hint)."""
    if isinstance(value, bool) or isinstance(value, (int, float)):
        return 9.0
    if isinstance(value, list):
        return 24.0 if any(isinstance(v, str) for v in value) else 12.0
    return 18.0


def _given(problem: Problem, labels) -> list[list[str]]:
    """The Given line: the GPU as a person says it, then each named quantity (a parameter the
    phrasebook does not name, such as which variant is asked, is not the student's to read)."""
    items = []
    if isinstance(problem.gpu, dict) and problem.gpu.get("name"):
        try:
            spoken = gpu_words(gpu_from_dict(problem.gpu), problem.lang)
        except Exception:              # an older manifest's GPU record: its name is still true
            spoken = str(problem.gpu["name"])
        items.append([labels["gpu"], spoken])
    for key, value in problem.params.items():
        name = param_name(key, problem.lang)
        if name is not None and not isinstance(value, dict):
            items.append([name, _value_text(value, problem.lang)])
    return items


def _question_common(number: int, spec: ExamQuestion, problem: Problem, labels) -> dict[str, Any]:
    total = spec.total
    return {"number": number, "points": _points_text(total),
            "points_label": labels["point"] if total == 1 else labels["points"],
            "cell": problem.cell, "level": problem.level, "title": problem.title,
            "question": problem.question, "given": _given(problem, labels)}


def _exam_unit(student: Student, code: str, questions, labels, practice: bool,
               scan: dict[str, Any] | None = None) -> dict[str, Any]:
    items = []
    for number, spec, problem, asked in questions:
        item = _question_common(number, spec, problem, labels)
        item["title"] = ""   # a problem's title can name its answer ("The shared-memory lid")
        item["space"] = spec.space
        item["boxes"] = [{"letter": chr(ord("a") + i) if i < 26 else str(i + 1),
                          "label": answer_name(key, problem.lang), "unit": _unit(problem, key),
                          "width": _box_width(problem.answers[key]),
                          "hint": _box_hint(problem, key, labels),
                          "points": _box_points(spec, key, len(asked), labels),
                          "column": f"Q{number}.{key}"}
                         for i, key in enumerate(asked)]
        if scan is not None:
            for box, key in zip(item["boxes"], asked):
                box["grid"] = box_grid(answer_kind(problem, key), problem.answers[key], labels)
        if practice:
            item["solution"] = _solution(problem)
            item["answers"] = _answer_rows(problem, asked)
        items.append(item)
    unit = {"name": student.name, "roll": student.roll, "version": code, "qr": _qr_svg(code),
            "questions": items}
    if scan is not None:
        unit["qrs"] = [qr_svg(page_code(scan["exam"], code, page))
                       for page in range(1, MAX_PAGES + 1)]
    return unit


def scan_layout(recipe: ExamRecipe, paper: str) -> dict[str, Any]:
    """What a scanner needs to know of every page (``quizgen sheet --bubbles``): the paper, the
    corner marks, where the QR code sits and the bubbles' radius, all in mm."""
    width, height = b.PAPER_MM[paper]
    return {"exam": b.exam_id(recipe.to_dict()), "paper": paper, "page_size": [width, height],
            "marks": [list(c) for c in b.mark_centres(paper)], "mark_size": b.MARK_SIZE,
            "qr": [round(width - 20 - b.QR_SIZE, 2), round(height - b.MARK_INSET - b.QR_SIZE, 2)],
            "qr_size": b.QR_SIZE, "radius": b.RADIUS}


def _box_hint(problem: Problem, key: str, labels: dict[str, str]) -> str:
    """How to write one box's answer and how exact it must be, from the answer's spec."""
    spec = getattr(problem, "answer_specs", None) or {}
    spec = spec.get(key) if isinstance(spec, dict) else None
    kind = answer_kind(problem, key)
    fmt = str(spec.get("format") or "") if isinstance(spec, dict) else ""
    tolerance = float(problem.tolerances.get(key, 0.0) or
                      (spec.get("tolerance", 0.0) if isinstance(spec, dict) else 0.0) or 0.0)
    if kind == "fraction" or fmt == "percent":
        return labels["hint_percent"].format(tol=format_number(round(tolerance * 100, 6)))
    if kind == "ratio" or fmt == "times":
        return labels["hint_times"].format(tol=format_number(tolerance))
    if kind in ("count", "cycles") or (kind == "real" and isinstance(problem.answers.get(key), int)
                                       and not tolerance):
        return labels["hint_cycles" if kind == "cycles" else "hint_count"]
    if kind == "bytes":
        return labels["hint_bytes"]
    if kind == "coords":
        return labels["hint_tuple"]
    if kind == "yes_no":
        return labels["hint_yes_no"]
    if kind == "limits":
        return labels["hint_limits"]
    if kind == "choice":
        return labels["hint_text"]
    return labels["hint_real"].format(tol=format_number(tolerance)) if tolerance else labels["hint_exact"]


def _box_points(spec: ExamQuestion, key: str, boxes: int, labels: dict[str, str]) -> str:
    """A box's points as printed ("2 marks"); '' when an even split is not a round number."""
    points = spec.box_points(key, boxes)
    if not isinstance(spec.points, dict) and not float(points).is_integer():
        return ""
    return f"{_points_text(points)} {labels['point'] if points == 1 else labels['points']}"


def _key_unit(student: Student, code: str, questions, labels) -> dict[str, Any]:
    items = []
    for number, spec, problem, asked in questions:
        item = _question_common(number, spec, problem, labels)
        item["answers"] = _answer_rows(problem, asked)
        item["solution"] = _solution(problem)
        item["id"] = problem.id      # what `quizgen check ID ANSWER --manifest` takes
        items.append(item)
    return {"name": student.name, "roll": student.roll, "version": code, "questions": items}


def _answer_rows(problem: Problem, asked: list[str]) -> list[dict[str, str]]:
    rows = []
    for key in asked:
        unit = str(problem.units.get(key, ""))
        rows.append({"key": key, "label": answer_name(key, problem.lang),
                     "value": answer_text(problem.answers[key], unit, problem.lang),
                     "unit": "",
                     "tolerance": _tolerance_text(float(problem.tolerances.get(key, 0.0)), unit,
                                                  problem.lang)})
    return rows


def _tolerance_text(tolerance: float, unit: str, lang: str) -> str:
    """A tolerance in its answer's own form: percentage points beside a percentage (28.125%
    ± 0.05 percentage points, as the box's hint says), the answer's unit beside a number."""
    if not tolerance:
        return ""
    if unit == "fraction":
        points = format_number(round(tolerance * 100, 6))
        return _labels(lang)["tolerance_points"].format(tol=points)
    return "± " + answer_text(tolerance, unit, lang)


def _solution(problem: Problem) -> dict[str, Any]:
    sol = problem.solution
    return {"forecast": sol.forecast, "steps": [_step(step, problem.lang) for step in sol.steps],
            "verify": list(sol.verify), "answer": sol.answer, "trap": sol.trap,
            "figure": _figure(problem)}


def _figure(problem: Problem) -> str:
    """The problem's figure as SVG text ('' when it has none). Drawn anew for each version (a
    fraction of a millisecond; a thousand students' papers hold few figures twice)."""
    from quizgen.render.figures import draw_figure, figure_spec

    spec = figure_spec(problem)
    return "" if spec is None else draw_figure(spec)


def _step(step, lang: str) -> dict[str, str]:
    return {"title": step.title, "math": _step_math(step, lang), "why": step.why,
            "note": step.note or ""}


def _math_value(value: Any, lang: str) -> Any:
    """A value safe to splice into Typst math: a number, ∞, or a quoted Typst string."""
    if isinstance(value, bool):
        return typst_string(yes_no(value, lang))
    if isinstance(value, float) and (value != value or value in (float("inf"), float("-inf"))):
        return "∞" if value == float("inf") else ("-∞" if value < 0 else typst_string("nan"))
    if isinstance(value, (int, float)):
        return value
    if value == "∞":
        return value
    return typst_string(_value_text(value, lang))


def _step_math(step, lang: str) -> str:
    """``symbolic = substituted = result unit`` as Typst math ('' for a prose-only step)."""
    result = _math_value(step.result, lang) if step.result is not None else "∞"
    result_text = (str(result) if not isinstance(result, (int, float))
                   else format_number(result, "typst"))
    parts = []
    if step.formula:
        values = {k: _math_value(v, lang) for k, v in step.values.items()}
        sym = symbolic(step.formula, "typst")
        sub = substituted(step.formula, values, "typst")
        parts.append(sym)
        if sub != sym and sub != result_text:
            parts.append(sub)
    if parts and parts[-1] == result_text:
        parts.pop()
    parts.append(result_text)
    text = " = ".join(parts)
    if step.unit:
        text += " thin " + typst_string(step.unit)
    if "#" in text:   # never: the printer writes no code, values are numbers or quoted strings
        raise AssertionError(f"code in a formula of step {step.title!r}")
    return text


def _qr_svg(code: str) -> str:
    import segno

    buf = io.BytesIO()
    segno.make(code, error="m", micro=False).save(buf, kind="svg", scale=4, border=2,
                                                  xmldecl=False, svgns=True)
    return buf.getvalue().decode("ascii")
