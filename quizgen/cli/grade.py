"""`quizgen grade` (a class from its manifest and filled answer sheet) and `quizgen check` (one answer)."""


import json
import sys
import warnings
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from quizgen.cli.root import app
from quizgen.cli.options import LANG_CHOICES
from quizgen.languages import LANGS

QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="No progress (a bar on a terminal, else a line on stderr every few seconds).")]


@app.command("grade")
def grade_command(
    manifest: Annotated[Path, typer.Argument(help="manifest.json written by `quizgen sheet`.")],
    answers: Annotated[Path, typer.Argument(help="The filled answer sheet (answers.csv; Excel's CSV is fine).")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder for results.csv, feedback/ and report.md.")] = Path("graded"),
    invalid: Annotated[str, typer.Option("--invalid", help="Unreadable or missing answers: zero (scored 0, listed in results.csv's needs_review column) or flag (left out of the score and listed).")] = "zero",
    force: Annotated[bool, typer.Option("--force", help="Grade into an existing --out folder: only quizgen's own earlier results are replaced; other files stay (one in the way is kept as NAME.kept).")] = False,
    lang: Annotated[Optional[str], typer.Option("--lang", "-l", help=f"Language of the feedback: {LANG_CHOICES} (default: the exam's).")] = None,
    fmt: Annotated[str, typer.Option("--format", "-f", help="Feedback pages as html (opens in any browser, math typeset offline) or md (Markdown with LaTeX math).")] = "html",
    lms: Annotated[Optional[str], typer.Option("--lms", help="Also write the gradebook import CSV of moodle or canvas (<lms>-grades.csv in --out).")] = None,
    overrides: Annotated[Optional[Path], typer.Option("--overrides", help="A teacher's decisions per box: overrides.csv with roll, box, points or accept, reason.")] = None,
    remedial: Annotated[Optional[Path], typer.Option("--remedial", help="Also write a follow-up Anki deck per student who lost points into this folder (skills of the cells they lost points in, concept cards of the misconceptions their answers showed) and class.apkg. A folder holding other files is refused (with --force they stay; one in the way is kept as NAME.kept).")] = None,
    quiet: QuietOpt = False,
) -> None:
    """Grade a class: score every answer box, credit carried errors, name the traps.

    Example: quizgen grade exam/manifest.json filled.csv --out graded
    """
    from quizgen.cli.root import fail
    from quizgen.errors import QuizgenError
    from quizgen.grade.grader import grade_class
    from quizgen.grade.report import points_text

    try:
        if lms is not None and lms not in ("moodle", "canvas"):
            raise QuizgenError(f"got {lms!r}; expected moodle or canvas", field="lms")
        if remedial is not None:          # before grading: a refused folder costs nothing
            from quizgen.grade.follow_up import check_follow_up_folder

            check_follow_up_folder(remedial, force=force, results=out)
        adjust = _adjuster(overrides, lang) if overrides is not None else None
        with warnings.catch_warnings(record=True) as caught, class_progress(quiet) as progress:
            warnings.simplefilter("always")
            summary = grade_class(manifest, answers, out, invalid=invalid, force=force, lang=lang,
                                  feedback_format=fmt, adjust=adjust, progress=progress)
        if lms is not None:
            from quizgen.files import add_to_ledger
            from quizgen.grade.lms import write_gradebook

            add_to_ledger(summary.out_dir, write_gradebook(summary.graded, summary.out_dir, lms))
    except QuizgenError as exc:
        raise fail(str(exc)) from None
    for warning in caught:
        typer.echo(f"warning: {warning.message}", err=True)
    scores = [s.score for s in summary.students]
    mean = points_text(sum(scores) / len(scores)) if scores else "—"
    typer.echo(f"{len(summary.students)} students, {summary.answers} answers graded; "
               f"class mean {mean} → {summary.out_dir}")
    _issues(summary)
    _review_note(summary)
    if remedial is not None:
        try:
            _follow_up(summary.graded, remedial, force)
        except QuizgenError as exc:
            raise fail(str(exc)) from None


def _adjuster(overrides: Path, lang: Optional[str]):
    """`grade_class`'s ``adjust``: the teacher's decisions of overrides.csv (read first),
    applied to each paper as it is graded."""
    from functools import partial

    from quizgen.grade.overrides import Decisions, read_overrides

    return partial(Decisions, overrides=read_overrides(overrides), lang=lang)


#: What each phase of grading a class counts, as its progress says it.
PHASES = {"grading": "students graded", "writing": "feedback pages written"}


@contextmanager
def class_progress(quiet: bool):
    """``progress(phase, done, total)`` for `grade_class`, or None when `quiet`: each phase its
    own progress (a bar on a terminal, else a line on stderr every few seconds, ``grade:
    800/2,128 students graded (5 s)``), as `deck` and `sheet` show theirs."""
    if quiet:
        yield None
        return
    from quizgen.cli.options import progress_reporter

    with ExitStack() as stack:
        current: dict[str, Any] = {}

        def progress(phase: str, done: int, total: int) -> None:
            if phase not in current:
                stack.close()               # the phase before is over: its bar goes
                current.clear()
                current[phase] = stack.enter_context(
                    progress_reporter("grade", PHASES[phase]))
            update = current[phase]
            if update is not None:
                update(done, total)

        yield progress


def _follow_up(graded, folder: Path, force: bool) -> None:
    """The follow-up decks of a graded class (`quizgen.grade.follow_up`), in its language."""
    from quizgen.grade.follow_up import write_follow_up_decks
    from quizgen.render.phrases import book

    words = book(graded.lang)["follow-up"]
    decks = write_follow_up_decks(graded, folder, force=force)
    for line in decks.kept:
        typer.echo(f"warning: {line}", err=True)
    typer.echo(words["written"].format(n=len(decks.written), folder=folder))
    if decks.nothing:
        typer.echo(words["nothing"].format(n=len(decks.nothing)))
    if decks.class_empty:
        typer.echo(words["class_nothing"])


def _issues(summary) -> None:
    for issue in summary.issues:
        if issue.severity == "error":   # the overrides' own lines say "override ..."
            source = "overrides.csv" if str(issue.message).startswith("override") else "answers.csv"
            typer.echo(f"{source} {issue}", err=True)


def _review_note(summary) -> None:
    flagged = review = 0
    for student in summary.students:
        for b in student.boxes:
            flagged += not b.counted
            review += b.check.status in ("invalid", "missing") and b.counted
    if flagged:
        typer.echo(f"{flagged} answers left out of the score (unreadable or missing); "
                   "see report.md", err=True)
    if review:
        typer.echo(f"{review} unreadable or missing answers scored 0; see the needs_review column "
                   "of results.csv", err=True)


@app.command("regrade")
def regrade_command(
    manifest: Annotated[Path, typer.Argument(help="manifest.json written by `quizgen sheet` (after a key fix, the fixed one).")],
    answers: Annotated[Path, typer.Argument(help="The filled answer sheet graded before.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="The folder of the earlier results: they move to history/<n>/, the new ones take their place.")] = Path("graded"),
    overrides: Annotated[Optional[Path], typer.Option("--overrides", help="A teacher's decisions per box: overrides.csv with roll, box, points or accept, reason.")] = None,
    invalid: Annotated[str, typer.Option("--invalid", help="Unreadable or missing answers: zero or flag (as for grade).")] = "zero",
    lang: Annotated[Optional[str], typer.Option("--lang", "-l", help=f"Language of the feedback: {LANG_CHOICES} (default: the exam's).")] = None,
    fmt: Annotated[Optional[str], typer.Option("--format", "-f", help="Feedback pages as html or md (default: the format of the earlier results, else html).")] = None,
    quiet: QuietOpt = False,
) -> None:
    """Grade again after a key fix or a teacher's decision, keeping the earlier results
    (history/<n>/) and listing every changed box in changes.csv.

    Example: quizgen regrade exam/manifest.json filled.csv --out graded --overrides overrides.csv
    """
    from quizgen.cli.root import fail
    from quizgen.errors import QuizgenError
    from quizgen.grade.overrides import regrade

    try:
        with class_progress(quiet) as progress:
            summary, changed = regrade(manifest, answers, out, overrides=overrides,
                                       invalid=invalid, lang=lang, feedback_format=fmt,
                                       progress=progress)
    except QuizgenError as exc:
        raise fail(str(exc)) from None
    typer.echo(f"{len(summary.students)} students graded again; {changed} boxes changed "
               f"(changes.csv) → {summary.out_dir}")
    _issues(summary)
    _review_note(summary)


@app.command("check")
def check_command(
    problem: Annotated[str, typer.Argument(help="A box of an exam (Q2.occupancy, with --manifest and --roll or --version-code), a problem id (printed in the key), a problem JSON file, or - for JSON on stdin.")],
    answer: Annotated[str, typer.Argument(help="The answer as a student would write it: 25%, 16/64, 8 blocks, ceil(100/32)…")],
    key: Annotated[Optional[str], typer.Option("--key", help="Which answer of the problem (default: its main answer, or the box's).")] = None,
    manifest: Annotated[Optional[Path], typer.Option("--manifest", "-m", help="Exam manifest (manifest.json of `quizgen sheet`) holding the box or problem id.")] = None,
    roll: Annotated[Optional[str], typer.Option("--roll", help="With a box such as Q2.occupancy: the student's roll number, as in the roster.")] = None,
    version: Annotated[Optional[str], typer.Option("--version-code", help="With a box: the paper's version code (printed beside its QR code), for an exam without a roster.")] = None,
    given: Annotated[Optional[list[str]], typer.Option("--given", help="The student's other answers, key=answer (repeatable), for carried errors.")] = None,
    lang: Annotated[Optional[str], typer.Option("--lang", "-l", help=f"Language of the explanation: {LANG_CHOICES} (default: the problem's).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Check one answer against one problem. Exit code 0: right; 1: wrong, blank or unreadable;
    2: bad input (no such problem, a bad option), with one line on stderr saying why.

    Example: quizgen check Q1.occupancy 12.5% --roll R07 --manifest exam/manifest.json
    """
    from quizgen.cli.root import fail
    from quizgen.errors import QuizgenError
    from quizgen.grade.grader import check_answer

    try:
        box = _box(problem, manifest, roll, version)
        if box is not None:
            data, box_key = box
            key = key or box_key
        else:
            data = _load_problem(problem, manifest)
        others = _given(given)

        if lang is not None and lang not in LANGS:
            raise QuizgenError(f"got {lang!r}; expected {LANG_CHOICES}", field="lang")
        result = check_answer(data, key, answer, given=others, lang=lang)
    except QuizgenError as exc:
        raise fail(str(exc)) from None
    if as_json:
        typer.echo(json.dumps(result.to_dict(), ensure_ascii=False, default=str))
    else:
        typer.echo(_describe(result))
    raise typer.Exit(code=0 if result.earns else 1)


def _describe(result) -> str:
    lines = [f"{result.key}: {result.status} (expected {result.expected_text})"]
    if result.note:
        lines.append(f"  {result.note}")
    if result.carried:
        lines.append(f"  {result.carried}")
    if result.misconceptions and result.explanation:
        # the best-ranked misconception that applies, explained (never a bare key)
        lines.append(f"  misconception: {result.explanation}")
    if result.step:
        lines.append(f"  parts from the solution at step {result.step} ({result.step_title}): "
                     f"{result.step_result}")
    return "\n".join(lines)


def _given(items: list[str] | None) -> dict[str, str]:
    from quizgen.errors import QuizgenError

    out = {}
    for item in items or []:
        if "=" not in item:
            raise QuizgenError(f"got {item!r}; expected key=answer", field="given")
        name, value = item.split("=", 1)
        out[name.strip()] = value
    return out


def _box(ref: str, manifest: Path | None, roll: str | None, version: str | None):
    """(problem, answer key) of box `ref` ("Q2.occupancy", or "Q2" for its main answer) on one
    student's paper; None when `ref` is not a box."""
    import re

    from quizgen.errors import QuizgenError

    match = re.fullmatch(r"\s*[Qq](\d{1,4})(?:\.(\w+))?\s*", ref)
    if match is None:
        if roll is not None or version is not None:
            raise QuizgenError(f"got {ref!r}; with --roll or --version-code give a box such as "
                               "Q2.occupancy (the answer sheet's column)", field="problem")
        return None
    if manifest is None or (roll is None) == (version is None):
        raise QuizgenError(f"box {ref} is on a student's paper: give --manifest and either --roll "
                           "or --version-code", field="problem")
    from quizgen.manifest import asked_keys, load_manifest

    data = load_manifest(manifest)
    who = roll.strip() if roll is not None else version.strip().upper()
    field = "roll" if roll is not None else "version"
    papers = data.papers_of(roll=roll, version=version)
    if not papers:
        raise QuizgenError(f"no paper with {field} {who!r} in {manifest}", field=field)
    number, key = int(match.group(1)), match.group(2)
    for question in papers[0].questions:
        if question.get("number") == number:
            asked = asked_keys(question)
            if key is not None and key not in asked:
                raise QuizgenError(f"question {number} has no box {key!r}; its boxes: "
                                   f"{', '.join(f'Q{number}.{k}' for k in asked)}", field="problem")
            return question, key
    raise QuizgenError(f"the exam has no question {number}", field="problem")


def _load_problem(ref: str, manifest: Path | None) -> dict[str, Any]:
    from quizgen.errors import QuizgenError

    if manifest is not None:
        from quizgen.manifest import load_manifest

        found = load_manifest(manifest).problems().get(ref) if ref else None
        if found is None:
            raise QuizgenError(f"no problem {ref!r} in {manifest}", field="problem")
        return found
    from quizgen.files import read_limited, read_stream_limited, utf8_text

    if ref == "-":
        where = "stdin"
        text = utf8_text(read_stream_limited(sys.stdin, "problem"), where, "problem")
    else:
        path = Path(ref)
        if not path.is_file():
            raise QuizgenError(f"{ref!r} is not a problem file; to check a problem of an exam, "
                               "give its id with --manifest", field="problem")
        where = ref
        text = utf8_text(read_limited(path, "problem"), where, "problem")
    from quizgen.manifest import check_problem, load_json

    data = load_json(text, where, "problem")
    if isinstance(data, list):
        if len(data) != 1:
            raise QuizgenError(f"{where} holds {len(data)} problems; give one (quizgen generate "
                               "--count 1) or an exam id with --manifest", field="problem")
        data = data[0]
    if not isinstance(data, dict) or "answers" not in data:
        raise QuizgenError(f"{where} is not a problem (no 'answers')", field="problem")
    check_problem(data, where)
    return data
