"""What the grader writes: ``results.csv``, one feedback page per student, ``report.md``.

Pages come from the jinja2 templates in ``templates/grade/`` (``StrictUndefined``; the HTML
page is autoescaped, and whatever a student typed is escaped in Markdown too), in the exam's
language, with the worked solutions rendered by `quizgen.render.text`.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

from quizgen.errors import QuizgenError
from quizgen.grade.notes import note_text
from quizgen.grade.results import (BoxResult, CheckResult, FileIssue, QuestionResult,
                                   StudentResult, fraction_text, humanize, quote, shorten)
from quizgen.grade.fairness import FAIRNESS_FILES, write_fairness
from quizgen.grade.graded import GradedClass
from quizgen.grade.sheet import AnswerSheet, SheetRow
from quizgen.manifest import Manifest

__all__ = ["write_all", "results_csv", "results_rows", "feedback_page", "class_report",
           "points_text", "feedback_names", "write_text"]

#: How many of the most common wrong answers the report lists per answer box.
COMMON_WRONG = 3


def points_text(value: Fraction | None) -> str:
    """Points as a teacher reads them: 4, 1.67, 0.5."""
    if value is None:
        return ""
    if value.denominator == 1:
        return str(value.numerator)
    return f"{float(value):.2f}".rstrip("0").rstrip(".")


def _labels(lang: str) -> dict[str, Any]:
    from quizgen.render.phrases import book

    return dict(book(lang)["grade"])


def _say(lang: str, key: str, **context: Any) -> str:
    from quizgen.render.phrases import phrase

    return phrase(lang, "grade", key, context)


def _answer_name(key: str, lang: str) -> str:
    """A box's label: the answer's name in the student's language (the phrasebook's)."""
    from quizgen.render.answers import answer_name

    return answer_name(key, lang)


def _misconception_text(lang: str, key: str, salt: str = "") -> str:
    from quizgen.render.phrases import has, phrase

    if has(lang, "misconception", key):
        return phrase(lang, "misconception", key, salt=salt)
    return humanize(key)


def _template(name: str):
    from quizgen.render.jinja import template

    return template(f"grade/{name}")


# ---------------------------------------------------------------------------------------------
# results.csv


#: Statuses a teacher should look at: the answer could not be read, or its column is missing.
REVIEW = ("invalid", "missing")


def results_csv(students: Sequence[StudentResult], columns: Sequence[str],
                bands: Sequence[tuple[str, float]] = ()) -> str:
    """One row per student: points per box (or the status of a box left out of the score),
    ``needs_review``: the boxes whose answers could not be read or were missing, and with the
    recipe's ``[grades]``, the grade its bands give the score."""
    from quizgen.files import csv_text

    return csv_text(results_rows(students, columns, bands))


def results_rows(students: Sequence[StudentResult], columns: Sequence[str],
                 bands: Sequence[tuple[str, float]] = ()) -> Iterator[list[object]]:
    """The rows of `results_csv`, a student at a time."""
    from quizgen.grade.class_report import student_band

    yield ["student", "roll", "version", "score", "max_score", *columns, "needs_review",
           *(["grade"] if bands else [])]
    for student in students:
        cells = {}
        for box in student.boxes:
            cells[box.column] = (points_text(box.points) if box.counted
                                 else box.check.status)   # "invalid" / "missing": flagged
        review = " ".join(b.column for b in student.boxes if b.check.status in REVIEW)
        yield [student.name, student.roll, student.version, points_text(student.score),
               points_text(student.max_score), *[cells.get(c, "") for c in columns],
               review, *([student_band(student, bands)] if bands else [])]


def unmatched_csv(sheet: AnswerSheet, rows: Sequence[SheetRow]) -> str:
    from quizgen.files import csv_text

    return csv_text([["line", *sheet.header], *([row.line, *row.cells] for row in rows)])


# ---------------------------------------------------------------------------------------------
# Feedback pages


def feedback_names(students: Sequence[StudentResult]) -> list[str]:
    """A file stem per student: roll, else name, else version; safe and distinct
    (`quizgen.files.file_stems`)."""
    from quizgen.files import file_stems

    return file_stems([s.roll or s.name or s.version for s in students],
                      alternates=[s.version for s in students], fallback="student")


#: How many rendered worked solutions the feedback pages keep for the pages after.
SOLUTIONS_KEPT = 512


class _Solutions:
    """Worked solutions of the manifest's problems, rendered once each, in the page language."""

    def __init__(self, manifest: Manifest, lang: str, fmt: str) -> None:
        self.lang, self.fmt = lang, fmt
        self.problems: dict[str, Mapping[str, Any]] = manifest.problems()
        self.cache: dict[str, str] = {}
        self.words: dict[str, tuple[str, list[str]] | None] = {}

    def get(self, problem_id: str) -> str:
        if problem_id not in self.cache:
            if len(self.cache) >= SOLUTIONS_KEPT:    # a class of thousands: the pages before
                self.cache.clear()
            self.cache[problem_id] = self._render(self.problems.get(problem_id))
        return self.cache[problem_id]

    def titles(self, problem_id: str) -> tuple[str, list[str]] | None:
        """The problem's title and its steps' titles in the page language (None: unknown), so
        a page never quotes a step of the solution in another language than its own."""
        if problem_id not in self.words:
            data = self.problems.get(problem_id)
            found = None
            if data and isinstance(data.get("solution"), Mapping):
                try:
                    title, _, solution, lang = _solution_in(data, self.lang)
                    if lang == self.lang:
                        found = (title, [step.title for step in solution.steps])
                except Exception:   # a hand-written problem: its saved words stand
                    found = None
            self.words[problem_id] = found
        return self.words[problem_id]

    def _render(self, data: Mapping[str, Any] | None) -> str:
        from quizgen.render.text import render_solution

        if not data or not isinstance(data.get("solution"), Mapping):
            return ""
        try:
            _, question, solution, lang = _solution_in(data, self.lang)
            return render_solution(solution, lang, self.fmt, question=question)
        except Exception:   # a hand-written solution the templates cannot show: leave it out
            return ""


def _solution_in(data: Mapping[str, Any], lang: str):
    """(title, question, solution, language): saved, or re-rendered by the family in `lang`."""
    import dataclasses

    from quizgen.problems.model import Problem

    names = {f.name for f in dataclasses.fields(Problem)}
    problem = Problem.from_dict({k: v for k, v in data.items() if k in names})
    if problem.lang == lang:
        return problem.title, problem.question, problem.solution, lang
    try:
        from quizgen.gpus import gpu_from_dict
        from quizgen.problems import family
        from quizgen.render.writers import writer_for

        fam = family(problem.cell)
        gpu = gpu_from_dict(problem.gpu)
        solved = fam.solve(dict(problem.params), gpu, explain=True)
        title, question, solution = writer_for(fam).write(dict(problem.params), gpu, solved,
                                                          lang, problem.id)
        return title, question, solution, lang
    except Exception:   # the family cannot re-render it: the saved language it is
        return problem.title, problem.question, problem.solution, problem.lang


def _box_view(box: BoxResult, lang: str, invalid: str, problem_id: str,
              step_titles: list[str] | None = None) -> dict[str, Any]:
    check: CheckResult = box.check
    labels = _labels(lang)
    # One explanation: the best-ranked misconception that applies and gives this very answer.
    misconceptions = []
    for key in check.misconceptions[:1]:
        text = check.explanation or _misconception_text(lang, key, problem_id)
        misconceptions.append({"key": key, "name": humanize(key), "explanation": text})
    parting = None
    if check.status == "wrong" and not check.misconceptions:
        title = check.step_title
        if check.step and step_titles and check.step <= len(step_titles):
            title = step_titles[check.step - 1]        # the step as the page's language names it
        parting = (_say(lang, "parting", step=check.step, title=title,
                        result=check.step_result) if check.step else _say(lang, "no_parting"))
    flag_note = None
    if check.status in ("invalid", "missing"):
        # a box the student wrote but the sheet lost (a missing column, a spreadsheet's date)
        # waits for the teacher; an unreadable one is the student's to rewrite
        waits = check.status == "missing" or _spreadsheet_date(check)
        flag_note = labels["flagged"] if not box.counted else \
            labels["zeroed_until" if waits else "zeroed"]
    note = _student_note(check, lang)
    return {
        "column": box.column, "key": check.key, "label": _answer_name(check.key, lang),
        "answer": check.shown, "expected": check.expected_text, "status": check.status,
        "status_text": labels[f"status_{check.status}"],
        "points": points_text(box.points) if box.counted else "—",
        "max_points": points_text(box.max_points),
        "note": "" if note == check.reading else note or "",
        "reading": check.reading or "", "carried": check.carried or "",
        "misconceptions": misconceptions, "parting": parting or "", "flag_note": flag_note or "",
        "ok": check.earns,
    }


def _spreadsheet_date(check: CheckResult) -> bool:
    from quizgen.grade.parse import parse_answer

    parsed = parse_answer(check.answer) if check.status == "invalid" else None
    return parsed is not None and parsed.error is not None and parsed.error.key == "date_shaped"


def _student_note(check: CheckResult, lang: str) -> str | None:
    """The remark a student reads: the reader's located message ("unexpected 'about' at column
    1") and a spreadsheet's date are the teacher's to read (report.md); the student is told
    what happened to the box and how to write a number."""
    from quizgen.grade.parse import parse_answer

    if check.status == "missing":
        return _say(lang, "missing_box")
    if check.status != "invalid" or not check.answer.strip():
        return check.note
    parsed = parse_answer(check.answer)
    if parsed.ok or parsed.error is None or note_text(parsed.error, lang) != check.note:
        return check.note               # a yes/no, a limit, an option: already said plainly
    answer = quote(shorten(check.answer, 30))
    if parsed.error.key == "date_shaped":
        return _say(lang, "unreadable_date", answer=answer)
    return _say(lang, "unreadable_number", answer=answer)


def feedback_page(student: StudentResult, solutions: _Solutions, *, lang: str, invalid: str,
                  fmt: str, title: str = "") -> str:
    labels = _labels(lang)
    questions = []
    for q in student.questions:
        words = solutions.titles(q.problem_id)
        boxes = [_box_view(b, lang, invalid, q.problem_id, words[1] if words else None)
                 for b in q.boxes]
        needs_solution = any(not b["ok"] for b in boxes)
        # where the numbers part from the worked solution is one place per question: said once
        parting = next((b["parting"] for b in boxes if b["parting"]), "")
        questions.append({"number": q.number, "title": words[0] if words else q.title,
                          "cell": q.cell,
                          "score": points_text(q.score), "max_score": points_text(q.max_score),
                          "boxes": boxes, "parting": parting,
                          "solution": solutions.get(q.problem_id) if needs_solution else ""})
    flagged = sum(1 for b in student.boxes if not b.counted)
    all_right = all(b.check.earns for b in student.boxes)
    template = _template(f"feedback.{fmt}.j2")
    return template.render(
        exam_title=title, labels=labels, lang=lang, questions=questions, all_right=all_right,
        student={"name": student.name, "roll": student.roll, "version": student.version,
                 "score": points_text(student.score),
                 "max_score": points_text(student.max_score)},
        flagged_text=_say(lang, "flagged_total", n=flagged) if flagged else "")


# ---------------------------------------------------------------------------------------------
# report.md


def class_report(students: Sequence[StudentResult], issues: Sequence[FileIssue],
                 unmatched: int, columns: Sequence[str], *, lang: str, invalid: str,
                 title: str = "") -> str:
    """report.md's class section: the class's figures, each question and box, the
    misconceptions, and every answer a teacher must read (made row by row as the page is
    rendered), from one pass over the class."""
    labels = _labels(lang)
    tally = _ReportTally()
    for student in students:
        tally.add(student)
    questions = []
    for number in sorted(tally.numbers):
        q = tally.questions[number]
        boxes = [_column_view(column, tally.columns[column, number], lang) for column in columns
                 if (column, number) in tally.columns]
        questions.append({"number": number,
                          "cells": ", ".join(c for c, _ in tally.cells[number].most_common()),
                          "mean": f"{q.mean:.2f}", "points": f"{q.most:g}",
                          "full": f"{q.full}/{q.n}", "boxes": boxes})
    misconceptions = [{"key": key, "name": humanize(key), "count": count,
                       "explanation": _misconception_text(lang, key)}
                      for key, count in tally.misconceptions.most_common()]
    scores, maxima = tally.scores, tally.maxima
    template = _template("report.md.j2")
    return template.render(
        exam_title=title, labels=labels, count=len(scores),
        policy=labels["policy_flag"] if invalid == "flag" else labels["policy_zero"],
        mean=f"{statistics.fmean(scores):.2f}" if scores else "—",
        median=f"{statistics.median(scores):.2f}" if scores else "—",
        max_score=f"{max(maxima):g}" if maxima else "—",
        questions=questions, misconceptions=misconceptions,
        flagged=_Flagged(students, labels, tally.flagged),
        flagged_title=labels["flagged_answers" if invalid == "flag" else "review_answers"],
        issues=[{"line": i.line, "message": note_text(i.message, lang), "severity": i.severity}
                for i in issues],
        unmatched=_say(lang, "unmatched", n=unmatched) if unmatched else "")


class _Flagged:
    """Every answer a teacher must read on the paper, with the reader's own reason (the
    student's page words it for the student): made row by row as the report is written."""

    def __init__(self, students: Sequence[StudentResult], labels: Mapping[str, Any],
                 count: int) -> None:
        self.students, self.labels, self.count = students, labels, count

    def __bool__(self) -> bool:
        return self.count > 0

    def __iter__(self) -> Iterator[dict[str, str]]:
        labels = self.labels
        for s in self.students:
            for b in s.boxes:
                if b.check.status in REVIEW:
                    yield {"student": s.label, "column": b.column, "answer": b.check.shown,
                           "reason": b.check.note or labels[f"status_{b.check.status}"]}


class _QuestionTally:
    """One question number across the class: its papers, those that count, their mean."""

    __slots__ = ("n", "counted", "total", "most", "full")

    def __init__(self) -> None:
        self.n = self.counted = self.full = 0
        self.total = 0
        self.most = 0.0

    def add(self, q: QuestionResult) -> None:
        self.n += 1
        score, most = q.score, float(q.max_score)
        if q.max_score > 0:
            self.counted += 1
            self.total += float(score)
        self.most = max(self.most, most)
        if q.boxes and all(b.check.earns for b in q.boxes):
            self.full += 1

    @property
    def mean(self) -> float:
        return self.total / self.counted if self.counted else 0.0


class _ColumnTally:
    """One answer box across the class (`_column_view` lays it out)."""

    __slots__ = ("n", "counted", "total", "most", "status", "wrong", "behind")

    def __init__(self) -> None:
        self.n = self.counted = 0
        self.total = 0
        self.most: Fraction | None = None
        self.status: Counter = Counter()
        self.wrong: Counter = Counter()
        self.behind: dict[str, Counter] = {}

    def add(self, b: BoxResult) -> None:
        self.n += 1
        if b.counted:
            self.counted += 1
            self.total += float(b.points)
        self.most = b.max_points if self.most is None else max(self.most, b.max_points)
        self.status[b.check.status] += 1
        if b.check.status != "wrong":
            return
        shown = (fraction_text(b.check.value) if b.check.value is not None
                 else shorten(b.check.answer, 30))
        self.wrong[shown] += 1
        for key in b.check.misconceptions[:1]:
            self.behind.setdefault(shown, Counter())[key] += 1


class _ReportTally:
    """What report.md's class section counts, gathered a student at a time."""

    def __init__(self) -> None:
        self.scores: list[float] = []
        self.maxima: list[float] = []
        self.numbers: set[int] = set()
        self.questions: dict[int, _QuestionTally] = {}
        self.columns: dict[tuple[str, int], _ColumnTally] = {}
        self.cells: dict[int, Counter] = {}
        self.misconceptions: Counter = Counter()
        self.flagged = 0

    def add(self, student: StudentResult) -> None:
        self.scores.append(float(student.score))
        self.maxima.append(float(student.max_score))
        for q in student.questions:
            self.cells.setdefault(q.number, Counter())[q.cell] += 1
            self.questions.setdefault(q.number, _QuestionTally()).add(q)
            for box in q.boxes:
                self.numbers.add(q.number)
                self.columns.setdefault((box.column, box.question), _ColumnTally()).add(box)
                if box.check.status == "wrong" and box.check.misconceptions:
                    self.misconceptions[box.check.misconceptions[0]] += 1
                self.flagged += box.check.status in REVIEW


def _column_view(column: str, tally: _ColumnTally, lang: str) -> dict[str, Any]:
    mean = tally.total / tally.counted if tally.counted else 0.0
    status = tally.status
    common = []
    for shown, count in tally.wrong.most_common(COMMON_WRONG):
        names = ", ".join(humanize(k) for k, _ in tally.behind.get(shown, Counter()).most_common())
        common.append({"answer": shown, "count": count, "behind": names})
    return {"column": column, "mean": f"{mean:.2f}",
            "max": points_text(tally.most), "n": tally.n,
            "correct": status["correct"], "carried": status["carried"],
            "wrong": status["wrong"], "blank": status["blank"],
            "invalid": status["invalid"] + status["missing"], "common": common}


# ---------------------------------------------------------------------------------------------
# Everything, into one folder


def write_text(path: Path, pieces: Iterable[str], *, newline: str | None = None) -> None:
    """Write text made piece by piece (a row, a student at a time) to `path`, in UTF-8 (with
    `newline` as `open` takes it): a file of a class of thousands is never held whole."""
    with open(path, "w", encoding="utf-8", newline=newline) as fh:
        for piece in pieces:
            for start in range(0, len(piece), _SLICE):     # a long page encoded a slice at a time
                fh.write(piece[start:start + _SLICE])


#: How much of a long text `write_text` encodes at a time.
_SLICE = 1 << 16


def write_all(out: Path, graded: GradedClass, *, fmt: str = "md",
              progress: Callable[[int, int], None] | None = None) -> list[str]:
    """Write results.csv, feedback/, report.md (and unmatched.csv), analysis.csv,
    misconceptions.csv and class-report.html of `graded` into `out`; their names.
    `progress(pages done, pages)` is told after each feedback page."""
    from quizgen.files import csv_lines
    from quizgen.grade import class_report as CR

    students, lang, title = graded.students, graded.lang, graded.title
    written = []
    write_text(out / "results.csv", csv_lines(results_rows(students, graded.columns,
                                                           graded.bands)), newline="")
    written.append("results.csv")
    folder = out / "feedback"
    folder.mkdir()
    solutions = _Solutions(graded.manifest, lang, fmt)
    for done, (stem, student) in enumerate(zip(feedback_names(students), students), start=1):
        page = feedback_page(student, solutions, lang=lang, invalid=graded.invalid, fmt=fmt,
                             title=title)
        (folder / f"{stem}.{fmt}").write_text(page, encoding="utf-8")
        if progress is not None:
            progress(done, len(students))
    written.append("feedback")
    if graded.unmatched:
        (out / "unmatched.csv").write_text(unmatched_csv(graded.sheet, graded.unmatched),
                                           encoding="utf-8", newline="")
        written.append("unmatched.csv")
    write_text(out / "report.md", [
        class_report(students, graded.issues, len(graded.unmatched), graded.columns, lang=lang,
                     invalid=graded.invalid, title=title),
        "\n", CR.analysis_markdown(graded.analysis, students, lang=lang,
                                    fairness=graded.fairness)])
    written.append("report.md")
    (out / "analysis.csv").write_text(CR.analysis_csv(graded.analysis, lang), encoding="utf-8",
                                      newline="")
    (out / "misconceptions.csv").write_text(CR.misconceptions_csv(graded.analysis),
                                            encoding="utf-8", newline="")
    (out / "class-report.html").write_text(
        CR.class_page(graded.analysis, students, lang=lang, title=title,
                      fairness=graded.fairness), encoding="utf-8")
    written += ["analysis.csv", "misconceptions.csv", "class-report.html"]
    written += write_fairness(out, graded)
    return written


# ---------------------------------------------------------------------------------------------
# The results folder: written aside, then moved into place


#: What `grade_class` writes inside its folder.
OUTPUTS = ("results.csv", "report.md", "feedback", "unmatched.csv", "changes.csv",
           "analysis.csv", "misconceptions.csv", "class-report.html", *FAIRNESS_FILES)


def check_out(out: Path, inputs: Sequence[Path], force: bool) -> None:
    """Refuse an `out` folder that would overwrite an input, or hold someone else's files."""
    resolved_inputs = {p.resolve() for p in inputs}
    for name in OUTPUTS:
        target = (out / name).resolve()
        for source in resolved_inputs:
            if target == source or target in source.parents:
                raise QuizgenError(f"{out / name} would overwrite the input {source}; choose "
                                   "another --out folder", field="out")
    if out.exists() and not out.is_dir():
        raise QuizgenError(f"{out} exists and is not a folder", field="out")
    if out.is_dir() and any(out.iterdir()) and not force:
        raise QuizgenError(f"{out} already exists and is not empty; pass --force to overwrite "
                           "its results", field="out")
    from quizgen.files import check_folder

    check_folder(out, force=force, own=graded_earlier)


def graded_earlier(rel: str, path: Path) -> bool:
    """A file `grade_class` wrote before it kept a ledger of its files."""
    return rel in OUTPUTS or (rel.startswith("feedback/") and rel.count("/") == 1
                              and rel.endswith((".md", ".html")))


def move_into_place(tmp: Path, out: Path, written: Sequence[str]) -> list[str]:
    """Replace only our own files in `out` (an earlier run's, unchanged); returns what was kept."""
    from quizgen.files import publish_folder

    names = []
    for name in written:
        if (tmp / name).is_dir():
            names += sorted(f"{name}/{p.name}" for p in (tmp / name).iterdir())
        else:
            names.append(name)
    return publish_folder(tmp, out, names, own=graded_earlier)
