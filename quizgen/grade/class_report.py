"""The class report a teacher reads after grading: ``class-report.html`` (one offline page with
its figures inline, printable), the item analysis and misconception map as CSV for a spreadsheet,
and the same tables as a section of ``report.md``.

Everything here is laid out from a `ClassAnalysis` (`quizgen.grade.analysis`) in the exam's
language; nothing is computed again.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from quizgen.grade.analysis import ClassAnalysis, ItemStats, grade_band
from quizgen.grade.fairness import view as fairness_view
from quizgen.grade.results import StudentResult, humanize
from quizgen.render import numbers

#: Flags drawn red on the item map: the item may be wrong, not merely easy.
SERIOUS = frozenset({"hard", "negative", "low", "strong_wrong"})

__all__ = ["analysis_csv", "misconceptions_csv", "class_page", "analysis_markdown", "view"]


def _words(lang: str) -> dict[str, Any]:
    from quizgen.render.phrases import book

    return dict(book(lang)["analysis"])


def _say(lang: str, key: str, **context: Any) -> str:
    from quizgen.render.phrases import phrase

    return phrase(lang, "analysis", key, context)


def _misconception_text(lang: str, key: str) -> str:
    from quizgen.render.phrases import has, phrase

    return phrase(lang, "misconception", key) if has(lang, "misconception", key) else humanize(key)


def _share(value: float | None) -> str:
    return "—" if value is None else numbers.percent(value, 1)


def _coef(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"


def _flag_texts(item: ItemStats, lang: str) -> list[str]:
    out = []
    for reason, values in item.flags:
        shown = dict(values)
        if "facility" in shown:
            shown["all"], shown["none"] = shown["facility"] >= 1, shown["facility"] <= 0
            shown["facility"] = _share(shown["facility"])
        if "r" in shown:
            shown["r"] = _coef(shown["r"])
        if "answer" in shown:
            shown["answer"] = f"'{shown['answer']}'"
        out.append(_say(lang, f"flag_{reason}", **shown))
    return out


def serious(item: ItemStats) -> bool:
    """Whether the item may be wrong, not merely easy: highlighted in the table, red on the map."""
    return any(reason in SERIOUS for reason, _ in item.flags)


def _item_row(item: ItemStats, lang: str) -> dict[str, Any]:
    return {"item": item.item, "serious": serious(item), "cells": list(item.cells), "n": item.n,
            "points": numbers.number(item.max_points, 2),
            "mean": numbers.number(item.mean_points, 2),
            "facility": _share(item.facility), "facility_value": item.facility,
            "discrimination": _coef(item.discrimination), "r_value": item.discrimination,
            "upper_lower": _coef(item.upper_lower),
            "blank": _share(item.blank_share), "unreadable": _share(item.invalid_share),
            "misconceptions": ", ".join(f"{humanize(k)} ({n})" for k, n in item.misconceptions[:3]),
            "flags": _flag_texts(item, lang)}


def _band_counts(students: Sequence[StudentResult], bands: Sequence[tuple[str, float]]
                 ) -> list[dict[str, Any]]:
    if not bands:
        return []
    tally = Counter(student_band(s, bands) for s in students)
    return [{"band": label or "—", "threshold": numbers.number(threshold, 2),
             "count": tally.get(label, 0)}
            for label, threshold in sorted(bands, key=lambda b: -b[1])]


def student_band(student: StudentResult, bands: Sequence[tuple[str, float]]) -> str:
    """The student's grade label from the recipe's bands (percent of the points counted)."""
    if not bands or student.max_score <= 0:
        return ""
    return grade_band(float(student.score / student.max_score) * 100, bands)


def view(analysis: ClassAnalysis, students: Sequence[StudentResult], lang: str) -> dict[str, Any]:
    """Everything the page and the Markdown section show, as text in `lang`."""
    d = analysis.distribution
    total = len(students)
    entries = []
    for m in analysis.misconceptions:
        entries.append({
            "key": m.key, "name": humanize(m.key), "explanation": _misconception_text(lang, m.key),
            "n": len(m.students), "students": ", ".join(m.students),
            "line": _say(lang, "map_line", n=len(m.students), total=total, boxes=m.boxes,
                         questions=", ".join(f"Q{q}" for q in m.questions)),
            "columns": ", ".join(m.columns), "cells": ", ".join(m.cells), "cell_list": list(m.cells),
            "levels": ", ".join(str(v) for v in m.levels),
            "systematic": ", ".join(m.systematic)})
    questions = sorted({q for m in analysis.misconceptions for q in m.questions})
    shown = _shown_by_question(students) if analysis.misconceptions else {}
    grid = []
    for m in analysis.misconceptions:
        per_q = shown.get(m.key, Counter())
        grid.append({"name": humanize(m.key),
                     "counts": [{"n": per_q.get(q, 0), "share": per_q.get(q, 0) / total if total else 0}
                                for q in questions]})
    alpha = analysis.alpha
    return {
        "count": total,
        "mean": "—" if d.mean is None else numbers.number(d.mean, 2),
        "sd": "—" if d.sd is None else numbers.number(d.sd, 2),
        "minimum": "—" if d.minimum is None else numbers.number(d.minimum, 2),
        "maximum": "—" if d.maximum is None else numbers.number(d.maximum, 2),
        "max_score": numbers.number(d.max_score, 2),
        "quartiles": "—" if d.quartiles is None else " · ".join(numbers.number(q, 2) for q in d.quartiles),
        "alpha": _coef(alpha),
        "alpha_note": _words(lang)["alpha_none"] if alpha is None else (
            _words(lang)["alpha_low"] if alpha < 0.7 else ""),
        "boxes": [_item_row(i, lang) for i in analysis.items],
        "questions": [_item_row(q, lang) for q in analysis.questions],
        "misconceptions": entries,
        "map_questions": [f"Q{q}" for q in questions], "grid": grid,
        "pairs": [{"a": humanize(a), "b": humanize(b), "n": n} for a, b, n in analysis.pairs[:10]],
        "reteach": [{"cell": c.cell, "levels": ", ".join(str(v) for v in c.levels),
                     "lost": _share(c.lost_share),
                     "points": f"{numbers.number(c.points_lost, 2)} / {numbers.number(c.points_possible, 2)}",
                     "losing": c.students_losing,
                     "losing_text": _say(lang, "reteach_line", n=c.students_losing),
                     "misconceptions": ", ".join(f"{humanize(k)} ({n})" for k, n in c.misconceptions)}
                    for c in analysis.reteach],
        "bands": _band_counts(students, analysis.bands),
    }


def _shown_by_question(students: Sequence[StudentResult]) -> dict[str, Counter]:
    """Per misconception, per question number: how many students' answers to it show it (a
    wrong box put down to it), from one pass over the class."""
    out: dict[str, Counter] = {}
    for student in students:
        for q in student.questions:
            keys = {b.check.misconceptions[0] for b in q.boxes
                    if b.check.status == "wrong" and b.check.misconceptions}
            for key in keys:
                out.setdefault(key, Counter())[q.number] += 1
    return out


def analysis_csv(analysis: ClassAnalysis, lang: str) -> str:
    """One row per question and per answer box: the item statistics, as numbers."""
    from quizgen.files import csv_text

    rows: list[list[object]] = [["item", "question", "box", "cells", "n", "points", "mean",
                                 "facility", "discrimination", "upper_lower", "blank",
                                 "unreadable", "misconceptions", "flags"]]

    def num(value: float | None) -> str:
        return "" if value is None else f"{value:.4f}".rstrip("0").rstrip(".")

    for item in [*analysis.questions, *analysis.items]:
        rows.append([item.item, item.question, item.key, " ".join(item.cells), item.n,
                     num(item.max_points), num(item.mean_points), num(item.facility),
                     num(item.discrimination), num(item.upper_lower), num(item.blank_share),
                     num(item.invalid_share),
                     " ".join(f"{k}:{n}" for k, n in item.misconceptions),
                     " | ".join(_flag_texts(item, lang))])
    return csv_text(rows)


def misconceptions_csv(analysis: ClassAnalysis) -> str:
    """The misconception map: one row per misconception, with who showed it and where."""
    from quizgen.files import csv_text

    rows: list[list[object]] = [["misconception", "students", "boxes", "questions", "boxes_where",
                                 "cells", "levels", "systematic", "who"]]
    for m in analysis.misconceptions:
        rows.append([m.key, len(m.students), m.boxes, " ".join(f"Q{q}" for q in m.questions),
                     " ".join(m.columns), " ".join(m.cells), " ".join(str(v) for v in m.levels),
                     "; ".join(m.systematic), "; ".join(m.students)])
    return csv_text(rows)


def class_page(analysis: ClassAnalysis, students: Sequence[StudentResult], *, lang: str,
               title: str, fairness: Any = None) -> str:
    """class-report.html: the whole analysis on one page that needs no network."""
    from quizgen.render.class_figures import item_map, score_histogram
    from quizgen.render.jinja import template

    d = analysis.distribution
    # every item the table highlights is red on the map: the questions as well as their boxes
    figures = {
        "histogram": score_histogram(d.scores, d.max_score, lang, d.mean),
        "item_map": item_map([(i.item, i.facility, i.discrimination, serious(i), not i.key)
                              for i in [*analysis.questions, *analysis.items]], lang),
    }
    return template("grade/class.html.j2").render(
        lang=lang, exam_title=title, words=_words(lang), v=view(analysis, students, lang),
        figures=figures, fair=fairness_view(fairness, lang))


def analysis_markdown(analysis: ClassAnalysis, students: Sequence[StudentResult], *,
                      lang: str, fairness: Any = None) -> str:
    """The analysis as a section of report.md."""
    from quizgen.render.jinja import template

    return template("grade/analysis.md.j2").render(words=_words(lang),
                                                   v=view(analysis, students, lang),
                                                   fair=fairness_view(fairness, lang))
