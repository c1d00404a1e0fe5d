"""Grade answers against saved problems: every box scored, carried errors credited, traps named.

The grader reads only the saved problem record (a manifest's question, or a problem JSON): the
expected answers, their units and tolerances. It recomputes the family's solver and its
misconception models only to *explain* a wrong answer, never to decide what is right.

One answer box goes through four stages, each in its own module:

1. **read** and 2. **compare** (`quizgen.grade.judge`): whitelist reading only, nothing runs;
   unreadable text is *invalid*, an empty box is *blank*; then the expected value by the
   answer's kind and tolerance;
3. **carry** (`quizgen.grade.carry`): a wrong later answer of a multi-step question that is right
   *given the student's own earlier answers* (their blocks per SM × warps per block, …) is
   *carried* and earns its points. Each answer's spec names what it is computed from and how;
4. **diagnose** (`quizgen.grade.diagnose`): a wrong answer equal to what a misconception model
   gives names that misconception; otherwise the first worked-solution step where the student's
   numbers part from the solution is pointed at.

`grade_class` runs this over a class: the answer sheet is read (`quizgen.grade.sheet`), each row
matched to its student (`quizgen.grade.match`), each question graded here, and the reports
written (`quizgen.grade.report`). What grading remembers meanwhile is in `quizgen.grade.memo`.
"""

from __future__ import annotations

import os
import re
import sys
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from fractions import Fraction
from functools import partial
from pathlib import Path
from typing import Any

from quizgen.collector import collector_paused
from quizgen.errors import QuizgenError
from quizgen.files import staged_folder
from quizgen.grade import report
from quizgen.grade.carry import carry_credit
from quizgen.grade.diagnose import diagnosed, parting_index, parting_step
from quizgen.grade.graded import GradedClass, GradeSummary, graded_class
from quizgen.grade.judge import Box, judged
from quizgen.grade.match import (SHARED_PROBLEMS, Entry, Matcher, manifest_entries,
                                 read_columns, require_answer_columns)
from quizgen.grade.memo import clear_caches, same
from quizgen.grade.notes import Note, note_text
from quizgen.grade.papers import GradedPapers
from quizgen.grade.parse import parse_answer
from quizgen.grade.prepared import MAX_POINTS, Prepared, prepare, question_points
from quizgen.grade.report import OUTPUTS
from quizgen.grade.results import (EARNS, FLAGGABLE, SHOW_CHARS, BoxResult, CheckResult, FileIssue,
                                   QuestionResult, Status, StudentResult, humanize)
from quizgen.grade.sheet import AnswerSheet, SheetRow, read_answer_sheet
from quizgen.manifest import Manifest, load_manifest

__all__ = [
    "CheckResult", "BoxResult", "QuestionResult", "StudentResult", "FileIssue", "GradeSummary",
    "GradedClass", "AnswerSheet", "SheetRow", "check_answer", "grade_question",
    "grade_class", "read_answer_sheet", "question_points", "prepare", "clear_caches",
    "Prepared", "Status", "EARNS", "FLAGGABLE", "SHOW_CHARS", "MAX_POINTS", "OUTPUTS", "humanize",
]

# A semicolon sheet comes from a decimal-comma locale: "0,375" is 0.375 there.
_DECIMAL_COMMA = re.compile(r"^\s*([+\-−]?\d+),(\d+)\s*(%?)\s*$")


# ---------------------------------------------------------------------------------------------
# Grading one question


def grade_question(q: Prepared, answers: Mapping[str, str | None], *,
                   lang: str | None = None) -> list[CheckResult]:
    """Grade every asked box of one question from the student's texts (None: no such column)."""
    lang = lang or q.lang
    boxes: dict[str, Box] = {key: judged(q, key, answers.get(key)) for key in q.asked}
    if not any(box.status == "wrong" for box in boxes.values()):
        return [_final(q, box, lang) for box in boxes.values()]
    # Stages 3 and 4 decide only the wrong boxes; every other box is final as judged.
    carried = carry_credit(q, boxes, lang)
    parting = parting_index(q, boxes)
    return [_final_wrong(q, box, lang, carried.get(key), parting) if box.status == "wrong"
            else _final(q, box, lang) for key, box in boxes.items()]


def _final(q: Prepared, box: Box, lang: str) -> CheckResult:
    """The result of a box that stages 3 and 4 leave alone, remembered per (key, text, language)."""
    if box.memo is None:
        return _result(q, box, lang)
    return q.memo(("final", *box.memo, lang), _result, q, box, lang)


def _final_wrong(q: Prepared, box: Box, lang: str, carried: str | None,
                 parting: int) -> CheckResult:
    """The result of a box judged wrong: carried, or diagnosed (a misconception, else the
    step where the student's numbers part from the solution)."""
    misconceptions = explanation = None
    if carried is None:
        misconceptions, explanation = diagnosed(q, box, lang)
        if misconceptions:
            parting = 0
    else:
        parting = 0
    if box.memo is None:
        return _decided(q, box, lang, carried, misconceptions, explanation, parting)
    return q.memo(("wrong", box.memo, lang, carried, parting), _decided, q, box, lang, carried,
                  misconceptions, explanation, parting)


def _decided(q: Prepared, box: Box, lang: str, carried: str | None,
             misconceptions: tuple[str, ...] | None, explanation: str | None,
             parting: int) -> CheckResult:
    done = box.copy()
    if carried is None:
        done.misconceptions, done.explanation = misconceptions, explanation
        step = parting_step(q, parting)
        if step is not None:
            done.step, done.step_title, done.step_result = step
    else:
        done.status, done.carried = "carried", carried
    return _result(q, done, lang)


#: Remarks that say how an answer was interpreted rather than what is wrong with it.
READINGS = frozenset({"read_percent"})


def _result(q: Prepared, box: Box, lang: str) -> CheckResult:
    # A class keeps every student's results: the words many boxes share are kept once.
    note = note_text(box.note, lang)
    reading = note if isinstance(box.note, Note) and box.note.key in READINGS else None
    return CheckResult(
        key=sys.intern(box.key), answer=box.raw or "", status=box.status,
        expected=q.answers[box.key], expected_text=sys.intern(q.expected_text(box.key, lang)),
        value=box.value, note=note, misconceptions=box.misconceptions, explanation=box.explanation,
        carried=box.carried, step=box.step, step_title=box.step_title,
        step_result=box.step_result, reading=reading)


def check_answer(problem: Any, key: str | None, answer: str, *,
                 given: Mapping[str, str] | None = None, lang: str | None = None) -> CheckResult:
    """Grade one answer to one problem (a `Problem`, its dict, or a manifest question).

    `key` defaults to the problem's main answer (or its only one). `given` holds the student's
    other answers to the same problem, so that a carried error is recognised.
    """
    data = problem.to_dict() if hasattr(problem, "to_dict") else problem
    if not isinstance(data, Mapping) or not isinstance(data.get("answers"), Mapping):
        raise QuizgenError("expected a problem object with 'answers'", field="problem")
    answers = data["answers"]
    if key is None:
        key = data.get("main_answer") or None
        asked = data.get("asked")
        if key is None and isinstance(asked, list) and len(asked) == 1:
            key = asked[0]
        if key is None and len(answers) == 1:
            key = next(iter(answers))
        if key is None:
            raise QuizgenError(f"this problem has several answers; choose one with --key "
                               f"({', '.join(answers)})", field="key")
    if key not in answers:
        raise QuizgenError(f"{key!r} is not an answer of this problem ({', '.join(answers)})",
                           field="key")
    others = dict(given or {})
    unknown = [k for k in others if k not in answers]
    if unknown:
        raise QuizgenError(f"{unknown[0]!r} is not an answer of this problem", field="given")
    asked = [k for k in answers if k == key or k in others]
    q = Prepared(data, asked=asked, tolerances=data.get("tolerances") or {})
    results = grade_question(q, {**others, key: answer}, lang=lang)
    return next(r for r in results if r.key == key)


# ---------------------------------------------------------------------------------------------
# Grading a class


#: ``progress(done, total)``: told after each step of a long piece of work.
Progress = Callable[[int, int], None]


def grade_rows(manifest: Manifest | Mapping[str, Any], sheet: AnswerSheet, *, invalid: str = "zero",
               lang: str | None = None, progress: Progress | None = None
               ) -> tuple[list[StudentResult], list[FileIssue], list[SheetRow]]:
    """Match each row of the sheet to its student and grade it (no files written).

    Returns the graded students (in sheet order), the issues (with line numbers) and the rows
    that could not be graded (kept whole, for ``unmatched.csv``). `progress(rows done, rows)`
    is told after each row.
    """
    issues: list[FileIssue] = []
    unmatched: list[SheetRow] = []
    with collector_paused():
        students = list(graded_rows(Manifest.of(manifest), sheet, issues, unmatched,
                                    invalid=invalid, lang=lang, progress=progress))
    return students, issues, unmatched


def graded_rows(manifest: Manifest, sheet: AnswerSheet, issues: list[FileIssue],
                unmatched: list[SheetRow], *, invalid: str, lang: str | None,
                progress: Progress | None = None) -> Iterator[StudentResult]:
    """Each row of the sheet matched to its student and graded, in turn: the students, in
    sheet order, one at a time (nothing of a paper is kept once it is given); the sheet's issues
    go into `issues` and the rows no student could be found for into `unmatched`."""
    if invalid not in ("flag", "zero"):
        raise QuizgenError(f"got {invalid!r}; expected flag or zero", field="invalid")
    lang = manifest.language(lang)
    entries = manifest_entries(manifest)
    issues += sheet.issues
    columns = read_columns(sheet.header, entries, invalid, issues, manifest.answer_columns())
    matcher = Matcher(entries, columns, len(sheet.header))
    plans: dict[int, Any] = {}
    total = len(sheet.rows)
    for done, row in enumerate(sheet.rows, start=1):
        entry, name, roll = matcher.match(row, issues)
        if entry is None:
            unmatched.append(row)
        else:
            yield _grade_entry(entry, row, columns.answers, sheet.delimiter, invalid, lang, name,
                               roll, plans)
        if progress is not None:
            progress(done, total)


def _grade_entry(entry: Entry, row: SheetRow, columns: Mapping[str, int], delimiter: str,
                 invalid: str, lang: str, name: str, roll: str,
                 plans: dict[int, tuple[Prepared, str, list[tuple[str, int | None]]]] | None = None
                 ) -> StudentResult:
    cells = row.cells
    width = len(cells)
    plans = {} if plans is None else plans
    questions = []
    for q in entry.questions:
        # Per problem, once per sheet: its title and where each of its answers is.
        plan = plans.get(id(q))
        if plan is None or plan[0] is not q:
            if len(plans) > SHARED_PROBLEMS:          # the problems of papers graded long ago
                plans.clear()
            plan = plans[id(q)] = (q, sys.intern(str(q.problem.get("title") or q.cell)),
                                   [(key, columns.get(f"Q{q.number}.{key}")) for key in q.asked])
        _, title, where = plan
        texts: dict[str, str | None] = {}
        for key, index in where:
            if index is None:
                texts[key] = None
                continue
            text = cells[index] if index < width else ""
            if delimiter == ";":
                match = _DECIMAL_COMMA.match(text)
                if match and not parse_answer(text).ok:
                    text = f"{match.group(1)}.{match.group(2)}{match.group(3)}"
            texts[key] = text
        boxes = [_box_result(q, result, invalid) for result in grade_question(q, texts, lang=lang)]
        questions.append(QuestionResult(q.number, sys.intern(q.cell), q.id, title, boxes))
    # the manifest's own text when the sheet says the same: a class keeps one copy of each
    return StudentResult(entry.name if name in ("", entry.name) else name,
                         entry.roll if roll in ("", entry.roll) else roll, entry.version, row.line,
                         questions, lang)


def _box_result(q: Prepared, result: CheckResult, invalid: str) -> BoxResult:
    """A result with its points; shared by every student whose box has the same result."""
    return q.memo.holding(("box", id(result), invalid), result, _points, q, result, invalid)


def _points(q: Prepared, result: CheckResult, invalid: str) -> BoxResult:
    max_points = same(q.points[result.key])
    if result.earns:
        points: Fraction | None = max_points
    elif result.status in FLAGGABLE and invalid == "flag":
        points = None
    else:
        points = same(Fraction(0))
    return same(BoxResult(q.number, sys.intern(f"Q{q.number}.{result.key}"), same(result),
                           max_points, points))



def grade_class(manifest: Manifest | str | os.PathLike[str],
                answers_path: str | os.PathLike[str], out_dir: str | os.PathLike[str], *,
                invalid: str = "zero", force: bool = False, lang: str | None = None,
                feedback_format: str = "md",
                adjust: Callable[[Manifest], Any] | None = None,
                progress: Callable[[str, int, int], None] | None = None) -> GradeSummary:
    """Grade a filled answer sheet against its exam manifest (a path, or a `Manifest` already
    read) and write the reports; the summary holds the `GradedClass` they were written from.

    Writes ``out_dir/results.csv``, ``out_dir/feedback/<roll or name>.md`` (or ``.html``),
    ``out_dir/report.md``, the class analysis (``analysis.csv``, ``misconceptions.csv``,
    ``class-report.html``) and, when some rows could not be graded, ``out_dir/unmatched.csv``.
    `invalid` is ``"zero"`` (unreadable or missing answers score 0 and are listed in the
    ``needs_review`` column) or ``"flag"`` (left out of the score and listed). `adjust(manifest)`
    gives what changes boxes as each paper is graded (the teacher's overrides:
    `quizgen.grade.overrides.Decisions`): its ``apply(student)``, then its ``issues()`` to
    report. Inputs are only read; an existing,
    non-empty `out_dir` is refused unless `force`. `progress(phase, done, total)` is told how
    far each phase is: ``"grading"`` (rows of the sheet), then ``"writing"`` (feedback pages).
    """
    manifest_path = Path(manifest.source if isinstance(manifest, Manifest) else manifest)
    answers_path, out = Path(answers_path), Path(out_dir)
    if feedback_format not in ("md", "html"):
        raise QuizgenError(f"got {feedback_format!r}; expected md or html", field="format")
    if invalid not in ("flag", "zero"):
        raise QuizgenError(f"got {invalid!r}; expected flag or zero", field="invalid")
    # the inputs first: a missing or wrong file is the mistake to name, not the output folder
    if not isinstance(manifest, Manifest):
        manifest = load_manifest(manifest_path)
    sheet = read_answer_sheet(answers_path)
    require_answer_columns(sheet.header, manifest, str(answers_path))
    report.check_out(out, (manifest_path, answers_path), force)
    the_lang = manifest.language(lang)
    with collector_paused():             # rendering the pages makes no cycles either
        students, issues, unmatched = _graded_papers(
            manifest, sheet, invalid, lang, adjust,
            partial(progress, "grading") if progress is not None else None)
        # what grading remembered is done with: the analysis and the pages reuse its memory
        clear_caches()
        graded = graded_class(manifest, sheet, students, issues, unmatched, invalid=invalid,
                              lang=the_lang)
        with staged_folder(out) as tmp:
            written = report.write_all(
                tmp, graded, fmt=feedback_format,
                progress=partial(progress, "writing") if progress is not None else None)
            for message in report.move_into_place(tmp, out, written):
                warnings.warn(message, stacklevel=2)
    feedback = sorted((out / "feedback").glob(f"*.{feedback_format}"))
    return GradeSummary(out_dir=out, graded=graded, results_csv=out / "results.csv",
                        report=out / "report.md", feedback=feedback,
                        unmatched=(out / "unmatched.csv") if unmatched else None)


def _graded_papers(manifest: Manifest, sheet: AnswerSheet, invalid: str, lang: str | None,
                   adjust: Callable[[Manifest], Any] | None, progress: Progress | None
                   ) -> tuple[GradedPapers, list[FileIssue], list[SheetRow]]:
    """The class graded paper by paper, each paper kept compactly once graded (and changed by
    `adjust`'s decisions); with the sheet's issues and the rows not graded."""
    issues: list[FileIssue] = []
    unmatched: list[SheetRow] = []
    decisions = adjust(manifest) if adjust is not None else None
    papers = GradedPapers()
    for student in graded_rows(manifest, sheet, issues, unmatched, invalid=invalid, lang=lang,
                               progress=progress):
        if decisions is not None:
            decisions.apply(student)
        papers.add(student)
    if decisions is not None:
        issues += decisions.issues()
    return papers, issues, unmatched
