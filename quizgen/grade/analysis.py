"""What a graded class says about the exam and about the class: item analysis and the
misconception map.

Pure functions over the graded students (`StudentResult`), no I/O. An *item* is one answer box
(``Q3.occupancy``); a question's figures add up its boxes. Only counted boxes enter the figures
(a box left out of the score with ``--invalid flag`` is missing data, not a zero).

The statistics, and where they come from:

* **Facility** F = mean points ÷ the item's points: the share of the marks the class earned
  (Moodle's "facility index"; a proportion correct for a one-point item).
* **Discrimination** r = the Pearson correlation of the item's points with the *rest* of the test
  (total minus the item), so the item does not correlate with itself: the corrected item-total or
  point-biserial correlation (Henrysson 1963, "Correction of item-total correlations in item
  analysis", Psychometrika 28; Moodle's "discrimination index" is this coefficient).
* **Upper–lower index** D = (mean of the top 27% − mean of the bottom 27%) ÷ the item's points,
  students ranked by total score (Kelley 1939, "The selection of upper and lower groups for the
  validation of test items", J. Educ. Psych. 30: 27% is the split that makes D most reliable).
* **Reliability**: Cronbach's α = k/(k−1) · (1 − Σ σ²ᵢ / σ²ₓ) over the k items' points and the total
  (Cronbach 1951, "Coefficient alpha and the internal structure of tests", Psychometrika 16); with
  items scored 0/1 it is Kuder and Richardson's KR-20 (1937). Variances are population variances
  (divided by n) in both places, as the formula asks; α is undefined when the totals do not vary.
* **Score distribution**: mean, the sample standard deviation (n − 1), min, max and the quartiles
  (`statistics.quantiles`, inclusive method: the median of each half, as a teacher computes it).
* **Flags**, after Ebel and Frisbie's guide to discrimination (Essentials of Educational
  Measurement, 1991: below 0.20 an item is poor, and a negative one works against the test),
  and facility near 0 or 1 (the item tells the class apart from nobody); and a wrong answer that
  many of the strongest students gave, which is how a wrong key usually shows.
"""

from __future__ import annotations

import math
import statistics
from array import array
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import combinations
from typing import Any

from quizgen.grade.results import BoxResult, StudentResult, fraction_text, shorten
from quizgen.manifest import Manifest

__all__ = ["ItemStats", "Distribution", "MisconceptionEntry", "CellToReteach", "ClassAnalysis",
           "analyse_class", "pearson", "cronbach_alpha", "upper_lower_index", "grade_band"]

#: Share of the class in each of the upper and lower groups (Kelley 1939).
GROUP_SHARE = 0.27
#: Discrimination below this is poor (Ebel and Frisbie 1991).
LOW_DISCRIMINATION = 0.20
#: Facility at or below / at or above these: the item separates almost no one.
HARD, EASY = 0.10, 0.95
#: A wrong answer given by at least this share of the upper group (and 2 students) is flagged.
STRONG_WRONG_SHARE = 1 / 3
#: Fewer students than this and correlations mean little: no discrimination flags.
MIN_STUDENTS_FOR_FLAGS = 5


def pearson(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    """The Pearson correlation of two equal-length series; None when either does not vary."""
    n = len(xs)
    if n < 2 or n != len(ys):
        return None
    mx, my = sum(xs) / n, sum(ys) / n
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    if sxx <= 1e-12 * n or syy <= 1e-12 * n:     # a constant series (up to rounding)
        return None
    return sxy / math.sqrt(sxx * syy)


def _pvariance(values: Sequence[float]) -> float:
    n = len(values)
    if n == 0:
        return 0.0
    mean = sum(values) / n
    return sum((v - mean) ** 2 for v in values) / n


def cronbach_alpha(items: Sequence[Sequence[float]]) -> float | None:
    """Cronbach's α of a students × items table of points (every row the same length)."""
    if not items or len(items[0]) < 2 or len(items) < 2:
        return None
    return _alpha([[row[j] for row in items] for j in range(len(items[0]))])


def _alpha(columns: Sequence[Sequence[float]]) -> float | None:
    """Cronbach's α of the items' points given by item (each column one item, every student's
    points in the same order; at least two items and two students)."""
    k = len(columns)
    totals = [0] * len(columns[0])
    for column in columns:                   # each student's items added in order, as sum(row)
        for i, value in enumerate(column):
            totals[i] += value
    total_var = _pvariance(totals)
    if total_var <= 1e-12:
        return None
    item_var = sum(_pvariance(column) for column in columns)
    return k / (k - 1) * (1 - item_var / total_var)


def upper_lower_index(points: Sequence[float], totals: Sequence[float], max_points: float,
                      share: float = GROUP_SHARE) -> float | None:
    """Kelley's D: the top `share` of students (by total) minus the bottom, per item point.

    Ties at a group's edge are broken by the order given (a stable sort), so the same class
    always gives the same D."""
    n = len(points)
    if n < 2 or max_points <= 0:
        return None
    size = max(1, round(share * n))
    order = sorted(range(n), key=lambda i: totals[i])
    lower = [points[i] for i in order[:size]]
    upper = [points[i] for i in order[-size:]]
    return (sum(upper) / size - sum(lower) / size) / max_points


def grade_band(percent: float, bands: Sequence[tuple[str, float]]) -> str:
    """The label of the highest band whose threshold (a percentage) the score reaches; "" if none."""
    for label, threshold in sorted(bands, key=lambda b: -b[1]):
        if percent + 1e-9 >= threshold:
            return label
    return ""


@dataclass(slots=True)
class ItemStats:
    """One answer box (or, with key "", a whole question) across the class."""

    item: str                           # Q3.occupancy, or Q3 for the question
    question: int
    key: str
    cells: tuple[str, ...]
    n: int                              # students whose item is counted
    max_points: float
    mean_points: float
    facility: float | None
    discrimination: float | None        # item–rest correlation
    upper_lower: float | None           # Kelley's D
    blank_share: float
    invalid_share: float                # unreadable or missing
    misconceptions: list[tuple[str, int]]   # (key, boxes) most common first
    flags: list[tuple[str, dict[str, Any]]] = field(default_factory=list)   # (reason key, values)


@dataclass(slots=True)
class Distribution:
    count: int
    max_score: float
    mean: float | None
    sd: float | None
    minimum: float | None
    maximum: float | None
    quartiles: tuple[float, float, float] | None
    scores: list[float]


@dataclass(slots=True)
class MisconceptionEntry:
    """One misconception across every version of the exam."""

    key: str
    students: list[str]                 # labels, in sheet order
    boxes: int
    questions: list[int]
    columns: list[str]
    cells: list[str]
    levels: list[int]
    systematic: list[str]               # students who show it in two boxes or more


@dataclass(slots=True)
class CellToReteach:
    cell: str
    levels: list[int]
    lost_share: float                   # share of the cell's points the class did not earn
    points_lost: float
    points_possible: float
    students_losing: int
    misconceptions: list[tuple[str, int]]


@dataclass(slots=True)
class ClassAnalysis:
    items: list[ItemStats]              # boxes, in column order
    questions: list[ItemStats]          # whole questions, by number
    alpha: float | None
    distribution: Distribution
    misconceptions: list[MisconceptionEntry]
    pairs: list[tuple[str, str, int]]   # misconceptions that co-occur in students: (a, b, students)
    reteach: list[CellToReteach]
    bands: list[tuple[str, float]]


def _float(value: Fraction | None) -> float:
    return float(value) if value is not None else 0.0


def _levels_by_problem(manifest: Manifest | None) -> dict[str, int]:
    if manifest is None:
        return {}
    return {pid: question["level"] for pid, question in manifest.problems().items()
            if pid and isinstance(question.get("level"), int)}


def first_misconception(box: BoxResult) -> str | None:
    """The misconception a wrong box is put down to (the grader's first match), or None."""
    if box.check.status == "wrong" and box.check.misconceptions:
        return box.check.misconceptions[0]
    return None


class _Entries:
    """The students whose item is counted, as columns: each one's index, points and the item's
    points (arrays of numbers, not an object per student), and the box (None for a whole
    question)."""

    __slots__ = ("students", "points", "maxima", "boxes")

    def __init__(self) -> None:
        self.students = array("q")
        self.points = array("d")
        self.maxima = array("d")
        self.boxes: list[BoxResult | None] = []

    def add(self, student: int, points: float, maximum: float, box: BoxResult | None) -> None:
        self.students.append(student)
        self.points.append(points)
        self.maxima.append(maximum)
        self.boxes.append(box)

    def __len__(self) -> int:
        return len(self.students)


def _item(item: str, question: int, key: str, cells: Sequence[str], entries: _Entries,
          totals: Sequence[float], statuses: Counter, miscs: Counter,
          strong_wrong: list[tuple[str, int, int]]) -> ItemStats:
    """`entries`: the students whose item is counted."""
    n = len(entries)
    max_points = max(entries.maxima, default=0.0)
    points = entries.points
    rest = [totals[i] - p for i, p in zip(entries.students, points)]
    mean = sum(points) / n if n else 0.0
    facility = mean / max_points if n and max_points > 0 else None
    disc = pearson(points, rest)
    d27 = upper_lower_index(points, [totals[i] for i in entries.students], max_points)
    seen = sum(statuses.values()) or 1
    stats = ItemStats(item, question, key, tuple(cells), n, max_points, mean, facility, disc, d27,
                      statuses["blank"] / seen, (statuses["invalid"] + statuses["missing"]) / seen,
                      miscs.most_common())
    if facility is not None:
        if facility <= HARD:
            stats.flags.append(("hard", {"facility": facility}))
        elif facility >= EASY:
            stats.flags.append(("easy", {"facility": facility}))
    if n >= MIN_STUDENTS_FOR_FLAGS and disc is not None:
        if disc < 0:
            stats.flags.append(("negative", {"r": disc}))
        elif disc < LOW_DISCRIMINATION:
            stats.flags.append(("low", {"r": disc}))
    for answer, count, upper in strong_wrong:
        stats.flags.append(("strong_wrong", {"answer": answer, "count": count, "upper": upper}))
    return stats


def _strong_wrong(entries: _Entries, totals: Sequence[float]) -> list[tuple[str, int, int]]:
    """Wrong answers given by a third or more of the upper group (at least 2 students)."""
    n = len(entries)
    if n < MIN_STUDENTS_FOR_FLAGS:
        return []
    size = max(1, round(GROUP_SHARE * n))
    order = sorted(range(n), key=lambda j: totals[entries.students[j]])
    upper = [entries.boxes[j] for j in order[-size:]]
    wrong = Counter()
    for box in upper:
        if box is not None and box.check.status == "wrong":
            shown = (fraction_text(box.check.value) if box.check.value is not None
                     else shorten(box.check.answer, 30))
            wrong[shown] += 1
    return [(answer, count, size) for answer, count in wrong.most_common()
            if count >= 2 and count >= STRONG_WRONG_SHARE * size]


class _Tally:
    """What one pass over the class gathers for the item statistics, a student at a time."""

    def __init__(self) -> None:
        self.by_column: dict[str, _Entries] = defaultdict(_Entries)
        self.statuses: dict[str, Counter] = defaultdict(Counter)
        self.miscs: dict[str, Counter] = defaultdict(Counter)
        self.cells: dict[str, Counter] = defaultdict(Counter)
        self.by_question: dict[int, _Entries] = defaultdict(_Entries)
        self.question_cells: dict[int, Counter] = defaultdict(Counter)

    def add(self, i: int, student: StudentResult) -> None:
        for q in student.questions:
            self.question_cells[q.number][q.cell] += 1
            earned = [0.0, 0.0]
            for box in q.boxes:
                self.statuses[box.column][box.check.status] += 1
                self.cells[box.column][q.cell] += 1
                if (m := first_misconception(box)) is not None:
                    self.miscs[box.column][m] += 1
                if box.counted:
                    self.by_column[box.column].add(i, _float(box.points), _float(box.max_points),
                                                   box)
                    earned[0] += _float(box.points)
                    earned[1] += _float(box.max_points)
            if earned[1] > 0:
                entries = self.by_question[q.number]
                if entries.students and entries.students[-1] == i:   # a number twice: the last
                    entries.points[-1], entries.maxima[-1] = earned
                else:
                    entries.add(i, earned[0], earned[1], None)


def analyse_class(students: Sequence[StudentResult], columns: Sequence[str],
                  manifest: Manifest | Mapping[str, Any] | None = None,
                  bands: Sequence[tuple[str, float]] = ()) -> ClassAnalysis:
    """Item statistics, reliability, the score distribution and the misconception map, from
    one pass over the class (a student at a time)."""
    levels = _levels_by_problem(Manifest.of(manifest) if manifest else None)
    totals: list[float] = []
    most = 0.0
    tally, mapped, reteach = _Tally(), _MapTally(levels), _ReteachTally(levels)
    for i, student in enumerate(students):
        totals.append(_float(student.score))
        most = max(most, _float(student.max_score))
        tally.add(i, student)
        mapped.add(student)
        reteach.add(i, student)
    items = []
    for column in columns:
        entries = tally.by_column.get(column, _Entries())
        if not entries and not tally.statuses.get(column):
            continue
        number = int(column.split(".", 1)[0][1:])
        items.append(_item(column, number, column.split(".", 1)[1],
                           [c for c, _ in tally.cells[column].most_common()], entries, totals,
                           tally.statuses[column], tally.miscs[column],
                           _strong_wrong(entries, totals)))
    questions = []
    for number in sorted(tally.by_question):
        status = Counter()
        misc = Counter()
        for column, counter in tally.statuses.items():
            if column.startswith(f"Q{number}."):
                status.update(counter)
                misc.update(tally.miscs[column])
        questions.append(_item(f"Q{number}", number, "",
                               [c for c, _ in tally.question_cells[number].most_common()],
                               tally.by_question[number], totals, status, misc, []))
    misconceptions, pairs = mapped.result()
    return ClassAnalysis(items, questions, _class_alpha(tally.by_column, columns, len(totals)),
                         _distribution(totals, most), misconceptions, pairs, reteach.result(),
                         list(bands))


def _class_alpha(by_column: Mapping[str, _Entries], columns: Sequence[str],
                 n: int) -> float | None:
    """α over the boxes every student has counted (a flagged box is missing data)."""
    complete = [c for c in columns if len(by_column.get(c, ())) == n]
    if not complete or len(complete) < 2 or n < 2:
        return None
    table = []
    for column in complete:
        points = array("d", bytes(8 * n))
        entries = by_column[column]
        for i, p in zip(entries.students, entries.points):
            points[i] = p
        table.append(points)
    return _alpha(table)


def _distribution(totals: list[float], maximum: float) -> Distribution:
    n = len(totals)
    if not n:
        return Distribution(0, maximum, None, None, None, None, None, [])
    quartiles = tuple(statistics.quantiles(totals, n=4, method="inclusive")) if n >= 2 else None
    return Distribution(n, maximum, statistics.fmean(totals),
                        statistics.stdev(totals) if n >= 2 else None, min(totals), max(totals),
                        quartiles, totals)


class _MapTally:
    """The misconception map, gathered a student at a time: who shows each misconception,
    where, and which misconceptions go together in students."""

    def __init__(self, levels: Mapping[str, int]) -> None:
        self.levels = levels
        self.seen: dict[str, dict[str, Any]] = {}
        self.together: Counter = Counter()

    def add(self, student: StudentResult) -> None:
        mine: Counter = Counter()
        for q in student.questions:
            for box in q.boxes:
                key = first_misconception(box)
                if key is None:
                    continue
                mine[key] += 1
                entry = self.seen.setdefault(key, {"students": {}, "boxes": 0,
                                                   "questions": set(), "columns": set(),
                                                   "cells": set(), "levels": set()})
                entry["students"][student.label] = None
                entry["boxes"] += 1
                entry["questions"].add(q.number)
                entry["columns"].add(box.column)
                entry["cells"].add(q.cell)
                if q.problem_id in self.levels:
                    entry["levels"].add(self.levels[q.problem_id])
        for key, count in mine.items():
            if count >= 2:
                self.seen[key].setdefault("systematic", []).append(student.label)
        for a, b in combinations(sorted(mine), 2):
            self.together[(a, b)] += 1

    def result(self) -> tuple[list[MisconceptionEntry], list[tuple[str, str, int]]]:
        entries = [MisconceptionEntry(key, list(e["students"]), e["boxes"], sorted(e["questions"]),
                                      sorted(e["columns"], key=_column_order), sorted(e["cells"]),
                                      sorted(e["levels"]), e.get("systematic", []))
                   for key, e in self.seen.items()]
        entries.sort(key=lambda e: (-len(e.students), -e.boxes, e.key))
        pairs = [(a, b, n) for (a, b), n in sorted(self.together.items(),
                                                   key=lambda kv: (-kv[1], kv[0])) if n >= 2]
        return entries, pairs


def _column_order(column: str) -> tuple[int, str]:
    number, _, key = column.partition(".")
    return int(number[1:]), key


class _ReteachTally:
    """The cells to teach again, gathered a student at a time: the points the class lost in
    each cell, how many students lost some, and the misconceptions behind them."""

    def __init__(self, levels: Mapping[str, int]) -> None:
        self.levels = levels
        self.lost: dict[str, list[Fraction]] = defaultdict(lambda: [Fraction(0), Fraction(0)])
        self.losing: dict[str, list[int]] = defaultdict(lambda: [0, -1])   # students, the last
        self.cell_levels: dict[str, set[int]] = defaultdict(set)
        self.miscs: dict[str, Counter] = defaultdict(Counter)

    def add(self, i: int, student: StudentResult) -> None:
        for q in student.questions:
            for box in q.boxes:
                if not box.counted:
                    continue
                possible, earned = box.max_points, box.points
                self.lost[q.cell][0] += possible - earned
                self.lost[q.cell][1] += possible
                if earned < possible and self.losing[q.cell][1] != i:
                    self.losing[q.cell][0] += 1
                    self.losing[q.cell][1] = i
                if (m := first_misconception(box)) is not None:
                    self.miscs[q.cell][m] += 1
            if q.problem_id in self.levels:
                self.cell_levels[q.cell].add(self.levels[q.problem_id])

    def result(self) -> list[CellToReteach]:
        ranked = [CellToReteach(cell, sorted(self.cell_levels[cell]),
                                float(pts[0] / pts[1]) if pts[1] else 0.0, float(pts[0]),
                                float(pts[1]), self.losing[cell][0],
                                self.miscs[cell].most_common(3))
                  for cell, pts in self.lost.items() if pts[1] > 0]
        ranked.sort(key=lambda c: (-c.lost_share, -c.points_lost, c.cell))
        return ranked
