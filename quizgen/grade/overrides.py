"""A teacher's decisions on single boxes, and regrading that keeps the earlier results.

``overrides.csv`` has one row per decision::

    roll,box,points,accept,reason
    R07,Q2.occupancy,3,,read the working: 0.1875 was meant
    *,Q4.hidable,,no,either answer is right for this version of the question
    R12,Q1.limiter,,registers + warps,a tie counts

* ``roll``: the student's roll number (or version code); ``*`` for every student.
* ``box``: the answer column, ``Q<number>.<answer key>``.
* ``points``: the points this box earns, from 0 to the box's maximum; or
* ``accept``: an answer to accept beside the key's: a box whose answer reads as the same value
  (by the same reader and tolerance as the key's) earns full points.
* ``reason``: shown in the student's feedback and in ``changes.csv``.

A decision that cannot be applied stops the regrade with one line, before anything is written:
two rows that decide one box differently (points 0 on line 2, points 1 on line 3; or points and
an accepted answer), or an accepted answer the box's reader cannot read (``banana`` for a
fraction). Several accepted answers for one box are all accepted. A row for one student decides
over a row for everyone (``*``): the ``*`` rows are applied first. Points are finite numbers
from 0 to the box's worth (``1e309``, ``inf`` and ``nan`` are refused). Byte-order marks and
zero-width characters are dropped from every cell (two exports pasted into one file), and a
repeated header row is skipped.

`regrade` grades the answer sheet again (after a key fix, or with new overrides) into the same
folder: the earlier results move to ``history/<n>/`` first, and ``changes.csv`` lists every box
whose points changed.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import os
import shutil
from dataclasses import dataclass
from functools import partial
from fractions import Fraction
from pathlib import Path
from typing import Any, Mapping, Sequence

from quizgen.errors import QuizgenError
from quizgen.grade.notes import Note
from quizgen.manifest import Manifest, load_manifest
from quizgen.manifest import column as column_of

__all__ = ["Override", "Decisions", "read_overrides", "check_overrides", "apply_overrides",
           "regrade"]


@dataclass(frozen=True, slots=True)
class Override:
    line: int
    roll: str                  # roll number or version code; "*" for everyone
    box: str                   # Q<number>.<key>
    points: Fraction | None
    accept: str | None
    reason: str


_COLUMNS = ("roll", "box", "points", "accept", "reason")


def read_overrides(path: str | os.PathLike[str]) -> list[Override]:
    """The rows of an overrides file; a malformed one is a one-line `QuizgenError`."""
    from quizgen.files import csv_rows, read_limited, sniff_delimiter

    path = Path(path)
    try:
        text = read_limited(path, "overrides", limit=16 << 20).decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise QuizgenError(f"{path} is not UTF-8 text (byte {exc.start}); save it as UTF-8 CSV",
                           field="overrides") from None
    lines = text.splitlines()
    first = next((line for line in lines if line.strip()), None)
    if first is None:
        raise QuizgenError(f"{path} is empty; expected the columns {', '.join(_COLUMNS)}",
                           field="overrides")
    reader = csv_rows(io.StringIO(text), delimiter=sniff_delimiter(first))
    try:
        rows = [(reader.line_num, row) for row in reader if any(c.strip() for c in row)]
    except csv.Error as exc:
        raise QuizgenError(f"{path} line {reader.line_num + 1} is not readable CSV ({exc}); "
                           "check its quotes", field="overrides") from None
    if not rows:
        raise QuizgenError(f"{path} is empty; expected the columns {', '.join(_COLUMNS)}",
                           field="overrides")
    header = [c.strip().casefold() for c in rows[0][1]]
    missing = [c for c in ("roll", "box") if c not in header]
    if missing or ("points" not in header and "accept" not in header):
        raise QuizgenError(f"{path} needs the columns roll, box, and points or accept (it has: "
                           f"{', '.join(rows[0][1])})", field="overrides")
    at = {name: header.index(name) for name in _COLUMNS if name in header}

    def cell(row: list[str], name: str) -> str:
        i = at.get(name)
        return row[i].strip() if i is not None and i < len(row) else ""

    out = []
    for line, row in rows[1:]:
        if [c.strip().casefold() for c in row] == header:
            continue                # the header again: a second export pasted below the first
        roll, box, points, accept = (cell(row, n) for n in ("roll", "box", "points", "accept"))
        where = f"{path.name} line {line}"
        if not roll or not box:
            raise QuizgenError(f"{where}: give the roll (or *) and the box, such as Q2.occupancy",
                               field="overrides")
        if bool(points) == bool(accept):
            raise QuizgenError(f"{where}: give either points or an accepted answer, not "
                               f"{'both' if points else 'neither'}", field="overrides")
        value = _points_given(points, where) if points else None
        out.append(Override(line, roll, _box_name(box), value, accept or None,
                            cell(row, "reason")))
    return out


def _points_given(text: str, where: str) -> Fraction:
    """A row's points: a finite number from 0 to `MAX_POINTS` (a comma may be the point)."""
    import math
    import sys

    from quizgen.files import visible
    from quizgen.grade.prepared import MAX_POINTS

    shown, text = visible(text), text.replace(",", ".")
    try:
        value: Fraction | None = Fraction(text)
    except (ValueError, ZeroDivisionError):
        try:
            value = None if not math.isfinite(float(text)) else Fraction(-1)
        except ValueError:
            raise QuizgenError(f"{where}: points {shown!r} is not a number",
                               field="overrides") from None
    if value is None or abs(value) > sys.float_info.max:
        # one rule for every number: inf, nan and 1e309 (beyond any float) alike
        raise QuizgenError(f"{where}: points {shown!r} is not a finite number",
                           field="overrides")
    if value < 0:
        raise QuizgenError(f"{where}: points cannot be negative", field="overrides")
    if value > MAX_POINTS:
        raise QuizgenError(f"{where}: points {shown} is more than any box is worth (at most "
                           f"{MAX_POINTS:,})", field="overrides")
    return value


def _box_name(box: str) -> str:
    head, _, key = box.strip().partition(".")
    return f"Q{head.strip().lstrip('Qq')}.{key.strip()}"


def check_overrides(overrides: Sequence[Override], manifest: Manifest | Mapping[str, Any],
                    source: str, *, lang: str | None = None) -> None:
    """Refuse (one line) the decisions that cannot be applied: two rows deciding one box of one
    student differently, and an accepted answer the box's reader cannot read."""
    from quizgen.files import visible
    from quizgen.grade.grader import check_answer

    manifest = Manifest.of(manifest)
    lang = manifest.language(lang)
    deciding: dict[tuple[str, str, bool], Override] = {}
    read: set[tuple[int, str, int]] = set()
    for override in overrides:
        for paper, number, key, question in manifest.boxes():
            version, roll, column = paper.version, paper.roll, column_of(number, key)
            if column.casefold() != override.box.casefold() or (
                    override.roll != "*" and override.roll.casefold() not in (
                        roll.casefold(), version.casefold())):
                continue
            everyone = override.roll == "*"
            earlier = deciding.setdefault((version, column.casefold(), everyone), override)
            if earlier is not override and _decision(earlier) != _decision(override) and (
                    earlier.points is not None or override.points is not None):
                who = "every student" if everyone else visible(roll or version)
                raise QuizgenError(
                    f"{source} lines {earlier.line} and {override.line} decide {column} of {who} "
                    f"differently ({_decision_text(earlier)}, then {_decision_text(override)}); "
                    "keep one of them", field="overrides")
            if override.accept is None or (override.line, version, number) in read:
                continue
            read.add((override.line, version, number))
            reading = check_answer(question, key, override.accept, lang=lang)
            if reading.status == "invalid":
                raise QuizgenError(
                    f"{source} line {override.line}: the accepted answer "
                    f"{visible(override.accept)!r} for {column} cannot be read: "
                    f"{visible(reading.note or 'not an answer to this box')}", field="overrides")


def _decision(override: Override) -> tuple[Any, ...]:
    return ("points", override.points) if override.points is not None else ("accept",
                                                                             override.accept)


def _decision_text(override: Override) -> str:
    if override.points is not None:
        return f"{_points(override.points)} points"
    return f"accept {override.accept!r}"


def apply_overrides(students: list[Any], manifest: Manifest | Mapping[str, Any],
                    overrides: Sequence[Override], *, lang: str | None = None) -> list[Any]:
    """Change the graded boxes as the overrides say (in place); returns the file issues (an
    override that names no student or no box, or gives more than the box's points). The notes
    are in `lang`, else the exam's language."""
    decisions = Decisions(manifest, overrides, lang=lang)
    for student in students:
        decisions.apply(student)
    return decisions.issues()


class Decisions:
    """The overrides applied to a class one paper at a time, as the papers are graded: each
    student's boxes changed as the overrides say (`apply`), then what could not be applied
    (`issues`), the same as `apply_overrides` on the whole class."""

    def __init__(self, manifest: Manifest | Mapping[str, Any], overrides: Sequence[Override],
                 *, lang: str | None = None) -> None:
        self.manifest = Manifest.of(manifest)
        self.lang = self.manifest.language(lang)
        # A row for one student decides over a row for everyone: the rows for everyone go first.
        self.rules = sorted(overrides, key=lambda o: o.roll != "*")
        self.hits = [0] * len(self.rules)
        self.found: list[Any] = []

    def apply(self, student: Any) -> None:
        """Change one student's boxes (in place)."""
        from quizgen.grade.grader import FileIssue, check_answer

        for n, override in enumerate(self.rules):
            if override.roll != "*" and override.roll.casefold() not in (
                    student.roll.casefold(), student.version.casefold()):
                continue
            for question in student.questions:
                for i, box in enumerate(question.boxes):
                    if box.column.casefold() != override.box.casefold():
                        continue
                    self.hits[n] += 1
                    changed = _decide(box, override,
                                      self.manifest.question(student.version, question.number),
                                      self.lang, check_answer)
                    if isinstance(changed, Note):
                        self.found.append(FileIssue(override.line, changed))
                    elif changed is not None:
                        question.boxes[i] = changed

    def issues(self) -> list[Any]:
        """What could not be applied, by line: a box given more than its points, and an
        override that matched no graded box."""
        from quizgen.files import visible
        from quizgen.grade.grader import FileIssue

        missed = [FileIssue(o.line, Note("override_no_box", (
            ("roll", visible(o.roll)), ("box", visible(o.box))), "grade_sheet"))
            for o, hits in zip(self.rules, self.hits) if hits == 0]
        return sorted(self.found + missed, key=lambda issue: issue.line)


def _decide(box, override: Override, problem, lang: str, check_answer):
    """The box after one override: a new box, None (no change), or why it cannot apply."""
    from quizgen.render.phrases import phrase

    if override.points is not None:
        if override.points > box.max_points:
            return Note("override_too_many", (("points", str(override.points)),
                                              ("box", box.column),
                                              ("worth", str(box.max_points))), "grade_sheet")
        status = "correct" if override.points == box.max_points else "wrong"
        note = phrase(lang, "grade_note", "teacher_points",
                      {"points": _points(override.points), "reason": override.reason or ""})
        check = dataclasses.replace(box.check, status=status, note=note)
        return dataclasses.replace(box, check=check, points=override.points)
    if problem is None or box.check.status == "blank":
        return None
    key = box.column.split(".", 1)[1]
    accepted = check_answer(_with_answer(problem, key, override.accept), key, box.check.answer,
                            lang=lang)
    if not accepted.earns or box.check.earns:
        return None
    note = phrase(lang, "grade_note", "teacher_accepted",
                  {"accepted": override.accept, "reason": override.reason or ""})
    check = dataclasses.replace(box.check, status="correct", note=note)
    return dataclasses.replace(box, check=check, points=box.max_points)


def _with_answer(problem: Mapping[str, Any], key: str, accept: str) -> dict[str, Any]:
    """The problem with `accept` (as a student would write it) as the expected answer."""
    from quizgen.grade.grader import check_answer

    expected = problem["answers"][key]
    value: Any = accept
    if isinstance(expected, bool):
        from quizgen.grade.judge import read_bool

        value = read_bool(accept) is True
    elif isinstance(expected, list) and all(isinstance(v, str) for v in expected):
        value = [v.strip().replace(" ", "_") for v in accept.replace("+", ",").split(",") if v.strip()]
    elif isinstance(expected, (int, float)):
        read = check_answer(problem, key, accept)
        value = float(read.value) if read.value is not None else accept
        if isinstance(expected, int) and float(value).is_integer():
            value = int(value)
    changed = dict(problem)
    changed["answers"] = {**problem["answers"], key: value}
    return changed


def _points(value: Fraction) -> str:
    from quizgen.grade.report import points_text

    return points_text(value)


# ---------------------------------------------------------------------------------------------
# Regrading


def regrade(manifest_path: str | os.PathLike[str], answers_path: str | os.PathLike[str],
            out_dir: str | os.PathLike[str], *, overrides: str | os.PathLike[str] | None = None,
            **options: Any):
    """Grade again into `out_dir`, keeping the earlier results in ``out_dir/history/<n>/`` and
    listing every box whose points changed in ``out_dir/changes.csv``. Returns the summary and
    the number of changed boxes."""
    from quizgen.grade.grader import OUTPUTS, grade_class

    out = Path(out_dir)
    previous = _results(out / "results.csv")
    rules = read_overrides(overrides) if overrides is not None else []
    manifest = load_manifest(manifest_path)         # read once: checked here, graded below
    if rules:
        check_overrides(rules, manifest, Path(overrides).name, lang=options.get("lang"))
    kept = None
    if any((out / name).exists() for name in OUTPUTS):
        history = out / "history"
        history.mkdir(parents=True, exist_ok=True)
        number = 1 + max((int(p.name) for p in history.iterdir() if p.name.isdigit()), default=0)
        kept = history / str(number)
        kept.mkdir()
        for name in OUTPUTS:
            if (out / name).exists():
                shutil.copytree(out / name, kept / name) if (out / name).is_dir() \
                    else shutil.copy2(out / name, kept / name)
    if options.get("feedback_format") is None:     # as the earlier results were written
        earlier = out / "feedback"
        md = earlier.is_dir() and any(earlier.glob("*.md")) and not any(earlier.glob("*.html"))
        options["feedback_format"] = "md" if md else "html"

    adjust = partial(Decisions, overrides=rules, lang=options.get("lang")) if rules else None
    try:
        summary = grade_class(manifest, answers_path, out, force=True, adjust=adjust, **options)
    except BaseException:
        if kept is not None and not any((out / name).exists() for name in OUTPUTS):
            for item in kept.iterdir():
                os.replace(item, out / item.name)
        elif kept is not None:          # the results stand as they were: no history of a
            shutil.rmtree(kept, ignore_errors=True)        # regrade that did not happen
            try:
                kept.parent.rmdir()
            except OSError:
                pass
        raise
    changes = _changes(previous, _results(out / "results.csv"), rules)
    from quizgen.files import add_to_ledger, write_csv

    write_csv(out / "changes.csv", [["student", "roll", "version", "box", "before", "after",
                                     "reason"], *changes])
    add_to_ledger(out, out / "changes.csv")
    return summary, len(changes)


def _results(path: Path) -> dict[str, dict[str, str]]:
    """results.csv by version code: every column's cell."""
    if not path.is_file():
        return {}
    with path.open(encoding="utf-8-sig", newline="") as fh:
        return {row["version"]: row for row in csv.DictReader(fh) if row.get("version")}


def _changes(before: dict[str, dict[str, str]], after: dict[str, dict[str, str]],
             rules: Sequence[Override]) -> list[list[str]]:
    from quizgen.files import plain_cell

    fixed = {"student", "roll", "version", "score", "max_score", "needs_review"}
    out = []
    for version, row in after.items():
        old = before.get(version, {})
        for column, value in row.items():
            if column in fixed or column is None or old.get(column, "") == value:
                continue
            reason = next((r.reason for r in rules if r.box.casefold() == column.casefold()
                           and r.roll in ("*", row.get("roll"), version)), "")
            out.append([plain_cell(row.get("student", "")), plain_cell(row.get("roll", "")),
                        version, column, old.get(column, ""), value, reason])
    return out
