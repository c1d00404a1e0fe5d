"""Were the versions fair? A graded class's answer: which features of the versions changed the
chance of a right answer beyond the students' ability, each paper's expected score for a student
of average ability, and whether the class was large enough to tell.

    fairness = assess(manifest, students)     # quizgen.grade.graded does this once per class
    fairness.flags, fairness.sd, fairness.gap, fairness.status

The statistics are `quizgen.fairness.fit`'s (statsmodels: the ``stats`` extra); without them
the assessment says so and grading goes on. What is written from it: the class report's section
(`view`, templates ``grade/fairness.*.j2``), ``fairness.csv`` (every feature tested),
``fairness-papers.csv`` (every paper's expected score and, for information only, an adjusted
score) and ``calibration.json`` (for ``quizgen sheet --calibrate``).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from quizgen.fairness.calibration import CALIBRATION_FILE, write_calibration
from quizgen.fairness.features import stored_features
from quizgen.fairness.model import MIN_STUDENTS, PaperRecord, QuestionRecord
from quizgen.grade.results import BoxResult, StudentResult
from quizgen.manifest import Manifest

__all__ = ["Fairness", "PaperExpectation", "assess", "paper_records", "write_fairness",
           "FAIRNESS_FILES"]

#: What grading writes about the versions' fairness (beside results.csv).
FAIRNESS_FILES = ("fairness.csv", "fairness-papers.csv", CALIBRATION_FILE)


@dataclass(slots=True)
class PaperExpectation:
    """One graded paper: its raw score, the expected score of a student of the class's average
    ability on it, and the raw score with the paper's measured effect removed (information
    only: the grade is the raw score)."""

    label: str
    roll: str
    version: str
    raw: float
    expected: float
    adjustment: float
    adjusted: float


@dataclass(slots=True)
class Fairness:
    """The fairness of one graded class's versions.

    `status`: ``measured``; ``small`` (too few students to test: nothing is flagged);
    ``same`` (no question's versions differ in any recorded feature); ``unavailable`` (the
    statistics libraries are not installed). `fit` is the `ExamFit` (None unless measured or
    small); `papers` the graded papers, each with its expected score."""

    status: str
    students: int
    max_score: float
    fit: Any = None
    papers: list[PaperExpectation] = field(default_factory=list)
    records: list[PaperRecord] = field(default_factory=list)

    @property
    def flags(self) -> list:
        return self.fit.flags if self.fit is not None and self.status == "measured" else []

    @property
    def tests(self) -> list:
        return self.fit.tests if self.fit is not None else []

    def _expected(self) -> list[float]:
        return [p.expected for p in self.papers]

    @property
    def sd(self) -> float | None:
        values = self._expected()
        return statistics.pstdev(values) if len(values) >= 2 else None

    @property
    def easiest(self) -> PaperExpectation | None:
        return max(self.papers, key=lambda p: (p.expected, p.version), default=None)

    @property
    def hardest(self) -> PaperExpectation | None:
        return min(self.papers, key=lambda p: (p.expected, p.version), default=None)

    @property
    def gap(self) -> float | None:
        if not self.papers:
            return None
        return self.easiest.expected - self.hardest.expected

    @property
    def detectable(self) -> list[float]:
        """The smallest effect (points) this class could detect on each question it tested."""
        if self.fit is None:
            return []
        return [q.detectable_points for n, q in sorted(self.fit.questions.items())
                if q.detectable_points is not None]


def paper_records(manifest: Manifest, students: Sequence[StudentResult]
                  ) -> tuple[list[PaperRecord], list[tuple[str, str, str, float]]]:
    """Each graded student's paper as the fit reads it (features of every question from the
    manifest, each box right or not, None when left out of the score), and who the students
    kept are, with their scores: label, roll, version, raw score (a student whose version the
    manifest lacks has no features to weigh)."""
    papers, kept = [], []
    # A class of thousands has a few dozen distinct boxes and versions' features: each is kept
    # once and shared by the papers that have it (a question's record too, read only), so the
    # records grow by little per student.
    shared: dict[Any, Any] = {}
    for student in students:
        paper = manifest.by_version(student.version)
        if paper is None:
            continue
        records = {n: q for n, q in paper.numbered()}
        questions = []
        for q in student.questions:
            record = records.get(q.number)
            if record is None:
                continue
            boxes = [_once(shared, (b.check.key, float(b.max_points), _right(b))) for b in q.boxes]
            boxes = _once(shared, tuple(boxes), boxes)
            features = stored_features(record)
            features = _once(shared, (_FEATURES, *((k, type(v), v) for k, v in features.items())),
                             features)
            questions.append(_once(shared, (q.number, id(features), id(boxes)),
                                   QuestionRecord(q.number, features, boxes)))
        score = sum(q.earned for q in questions)
        papers.append(PaperRecord(score, questions))
        kept.append((student.label, student.roll, student.version, float(student.score)))
    return papers, kept


#: Marks a key of `paper_records`' shared values as a version's features (not a box).
_FEATURES = object()


def _right(box: BoxResult) -> bool | None:
    """Whether a box earned all its points (None: left out of the score)."""
    return None if box.points is None else bool(box.points >= box.max_points > 0)


def _once(shared: dict[Any, Any], key: Any, value: Any = None) -> Any:
    """The value kept for `key` (`value`, else the key itself, the first time it is asked)."""
    found = shared.get(key)
    if found is None:
        found = shared[key] = key if value is None else value
    return found


def assess(manifest: Manifest, students: Sequence[StudentResult]) -> Fairness:
    """The fairness of the class's versions (see `Fairness`)."""
    papers, kept = paper_records(manifest, students)
    maximum = max((sum(p for q in r.questions for _, p, right in q.boxes if right is not None)
                   for r in papers), default=0.0)
    if not _versions_differ(papers):
        return Fairness("same", len(papers), maximum, records=papers)
    try:
        from quizgen.fairness.fit import fit_exam
    except ImportError:
        return Fairness("unavailable", len(papers), maximum, records=papers)
    from quizgen.collector import collector_for_new

    with collector_for_new():          # statsmodels' fits make cycles: collected as made
        fit = fit_exam([papers])
    return Fairness("small" if fit.too_small else "measured", len(papers), maximum, fit,
                    _expectations(fit.model, papers, kept), papers)


def _versions_differ(papers: Sequence[PaperRecord]) -> bool:
    seen: dict[int, set[str]] = {}
    for paper in papers:
        for q in paper.questions:
            seen.setdefault(q.number, set()).add(repr(sorted(q.features.items())))
    return any(len(v) > 1 for v in seen.values())


def _expectations(model, papers: Sequence[PaperRecord],
                  students: Sequence[tuple[str, str, str, float]]) -> list[PaperExpectation]:
    expected = []
    for paper in papers:
        total = 0.0
        for q in paper.questions:
            value = model.expected(q.number, q.features, [k for k, _, _ in q.boxes])
            total += value if value is not None else q.earned
        expected.append(total)
    mean = sum(expected) / len(expected) if expected else 0.0
    out = []
    for (label, roll, version, raw), paper, value in zip(students, papers, expected):
        most = sum(p for q in paper.questions for _, p, right in q.boxes if right is not None)
        adjustment = mean - value
        adjusted = min(max(raw + adjustment, 0.0), most)
        out.append(PaperExpectation(label, roll, version, raw, value, adjustment, adjusted))
    return out


# ---------------------------------------------------------------------------------------------
# What a teacher reads


def _say(lang: str, key: str, **context: Any) -> str:
    from quizgen.render.phrases import phrase

    return phrase(lang, "fairness", key, context)


def _words(lang: str) -> dict[str, Any]:
    from quizgen.render.phrases import book

    return dict(book(lang)["fairness"])


def _points(value: float | None) -> str:
    """Points to two places, as a teacher compares them: 0.40, 2.09."""
    return "—" if value is None else f"{abs(value) if round(value, 2) == 0 else value:.2f}"


def _p(value: float) -> str:
    """A p value with its sign of comparison: "= 0.02", "< 0.001"."""
    if value < 0.001:
        return "< 0.001"
    return f"= {value:.3f}" if value < 0.01 else f"= {value:.2f}"


def feature_text(feature: str, value: Any, lang: str) -> str:
    """One feature's value as a teacher reads it after "papers with": "registers binding",
    "the trap present", "cell OCC-2"."""
    from quizgen.render.phrases import book

    base, _, box = feature.partition(":")
    context: dict[str, Any] = {"value": value, "box": box, "lids": "", "name": feature,
                               "label": ""}
    if base == "limiter" and isinstance(value, str):
        words = book(lang).get("answer_word", {})
        lids = [str(words.get(lid, lid)) for lid in value.split("+")]
        context["lids"] = _say(lang, "and_list", items=lids[:-1], last=lids[-1])
    if base == "gpu" and isinstance(value, str):
        context["label"] = book(lang).get("gpu_label", {}).get(value, "")
    key = f"feature_{base}" if base != "trap" else ("feature_trap" if value else "feature_no_trap")
    return _say(lang, key if _has(lang, key) else "feature_other", **context)


def _has(lang: str, key: str) -> bool:
    from quizgen.render.phrases import has

    return has(lang, "fairness", key)


def column_text(column, lang: str) -> str:
    """A tested column: its feature's value, and those that went with it on every paper."""
    if column.is_count:
        return _say(lang, f"count_{column.feature}" if _has(lang, f"count_{column.feature}")
                    else "count_other", name=column.feature)
    main = feature_text(column.feature, column.value, lang)
    if not column.also:
        return main
    others = [feature_text(f, v, lang) for f, v in column.also]
    return _say(lang, "together", main=main, others="; ".join(others))


def flag_text(test, lang: str, tests: int, others: Sequence[Any] = ()) -> str:
    """One flag as a sentence a teacher can act on; `others` are the tests of features that go
    with it on the papers, significant only through it (which of them is the cause, the class
    cannot tell)."""
    harder = test.points < 0
    context = {"q": test.number, "what": column_text(test.column, lang),
               "points": _points(abs(test.points)), "harder": harder,
               "low": _points(min(abs(test.low), abs(test.high)) if test.low * test.high > 0 else 0),
               "high": _points(max(abs(test.low), abs(test.high))), "p": _p(test.p_adjusted),
               "tests": tests, "papers": test.papers, "n": test.n,
               "from": _points(test.values[0]), "to": _points(test.values[1])}
    sentence = _say(lang, "flag_count" if test.column.is_count else "flag", **context)
    if others:
        sentence += " " + _say(lang, "goes_with", what="; ".join(column_text(o.column, lang)
                                                                   for o in others))
    return sentence


def _explained(fairness: Fairness, test) -> list:
    return [t for t in fairness.tests if t.explained_by is test.column and t.number == test.number]


def verdict(fairness: Fairness, lang: str) -> str:
    """The plain sentence: was the exam fair, to within what this class can detect?"""
    found = fairness.detectable
    context = {"n": fairness.students, "needed": MIN_STUDENTS, "flags": len(fairness.flags),
               "low": _points(min(found)) if found else "—",
               "high": _points(max(found)) if found else "—",
               "same_range": bool(found) and round(min(found), 1) == round(max(found), 1)}
    return _say(lang, f"verdict_{fairness.status}" if fairness.status != "measured"
                else ("verdict_flags" if fairness.flags else "verdict_fair"), **context)


def view(fairness: Fairness | None, lang: str) -> dict[str, Any] | None:
    """Everything the report's fairness section shows, as text in `lang` (None: nothing to
    show, a class graded without a manifest's versions)."""
    if fairness is None:
        return None
    tests = len(fairness.tests)
    out: dict[str, Any] = {"status": fairness.status, "verdict": verdict(fairness, lang),
                           "words": _words(lang), "flags": [], "questions": [], "spread": None}
    if fairness.fit is None:
        return out
    out["flags"] = [flag_text(t, lang, tests, _explained(fairness, t)) for t in fairness.flags]
    # a class too small tests nothing: the verdict says so, and no question claims otherwise
    measured = fairness.fit.questions if fairness.status == "measured" else {}
    for number, q in sorted(measured.items()):
        strongest = max(q.tests, key=lambda t: abs(t.z), default=None)
        row = {"q": f"Q{number}", "n": q.n, "tested": len(q.tests),
               "detectable": _points(q.detectable_points),
               "strongest": "" if strongest is None else _say(
                   lang, "strongest_line", what=column_text(strongest.column, lang),
                   points=_signed(strongest.points), low=_signed(strongest.low),
                   high=_signed(strongest.high), p=_p(strongest.p_adjusted))}
        row["line"] = _say(lang, "question_line", **row)
        out["questions"].append(row)
    if fairness.papers and fairness.status == "measured":
        easiest, hardest = fairness.easiest, fairness.hardest
        out["spread"] = {"sd": _points(fairness.sd), "gap": _points(fairness.gap),
                         "max": _points(fairness.max_score),
                         "easiest": _points(easiest.expected), "easiest_who": easiest.version,
                         "hardest": _points(hardest.expected), "hardest_who": hardest.version,
                         "line": _say(lang, "spread_line", sd=_points(fairness.sd),
                                      gap=_points(fairness.gap), max=_points(fairness.max_score),
                                      easiest=_points(easiest.expected),
                                      hardest=_points(hardest.expected))}
    return out


def _signed(value: float) -> str:
    text = _points(abs(value))
    return text if round(value, 2) == 0 else ("+" if value > 0 else "−") + text


# ---------------------------------------------------------------------------------------------
# The files


def tests_csv(fairness: Fairness, lang: str) -> str:
    """fairness.csv: one row per feature tested."""
    from quizgen.files import csv_text

    rows: list[list[object]] = [["question", "feature", "value", "goes_with", "papers", "of",
                                 "effect_logits", "se_logits", "effect_points", "low_points",
                                 "high_points", "p", "p_adjusted", "flagged", "through",
                                 "reads"]]

    def num(value: float) -> str:
        return "" if value is None or not math.isfinite(value) else f"{value:.4f}".rstrip("0").rstrip(".")

    for t in fairness.tests:
        c = t.column
        value = f"{c.low:g}..{c.high:g}" if c.is_count else str(c.value)
        rows.append([f"Q{t.number}", c.feature, value,
                     " ".join(f"{f}={v}" for f, v in c.also), t.papers, t.n, num(t.estimate),
                     num(t.se), num(t.points), num(t.low), num(t.high), num(t.p),
                     num(t.p_adjusted), "yes" if t.flagged else "",
                     "" if t.explained_by is None else column_text(t.explained_by, lang),
                     flag_text(t, lang, len(fairness.tests))])
    return csv_text(rows)


def papers_csv(fairness: Fairness) -> str:
    """fairness-papers.csv: every graded paper, its expected score for a student of average
    ability, and an adjusted score for information (the grade stays the raw score)."""
    from quizgen.files import csv_text

    return csv_text(papers_rows(fairness))


def papers_rows(fairness: Fairness) -> Iterator[list[object]]:
    """The rows of `papers_csv`, a paper at a time."""
    yield ["student", "roll", "version", "raw_score", "expected_average_student",
           "paper_effect", "adjusted_for_information_only"]
    for p in fairness.papers:
        yield [p.label, p.roll, p.version, _round(p.raw), _round(p.expected),
               _round(-p.adjustment), _round(p.adjusted)]


def _round(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".") if value != 0 else "0"


def write_fairness(out, graded: Any) -> list[str]:
    """fairness.csv and fairness-papers.csv (when the class was measured) and calibration.json
    (whenever a paper was graded) of a `GradedClass` into the folder `out`; their names."""
    from pathlib import Path

    from quizgen.files import csv_lines

    fairness: Fairness | None = graded.fairness
    out, written = Path(out), []
    if fairness is None:
        return written
    if fairness.fit is not None:
        (out / "fairness.csv").write_text(tests_csv(fairness, graded.lang), encoding="utf-8",
                                          newline="")
        with open(out / "fairness-papers.csv", "w", encoding="utf-8", newline="") as fh:
            fh.writelines(csv_lines(papers_rows(fairness)))
        written += ["fairness.csv", "fairness-papers.csv"]
    if fairness.records:
        write_calibration(out / CALIBRATION_FILE, graded.manifest.recipe, fairness.records)
        written.append(CALIBRATION_FILE)
    return written
