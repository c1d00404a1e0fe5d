"""Simulated classes: students of known ability answer the versions of a real exam, with effects
planted on chosen features of the versions, and the real grader grades their answer sheets. What
the tests and the benchmark measure the fairness statistics on.

    logits = box_logits(manifest, seed=1)                   # each box's difficulty, fixed
    planted = [Planted(1, "limiter", "registers", -0.7)]    # Q1 harder where registers bind
    students = simulate_class(manifest, planted, logits, seed=7)   # graded StudentResults

A student of ability θ (drawn N(0, 1)) gets a box of question q right with probability
1 / (1 + exp(−(θ + logit_box + Σ planted logits of the version's features))), each box on its own
given θ; a right box is written as the key has it, a wrong one as a wrong answer the grader
cannot credit (`wrong_text`), and the sheet is graded by `quizgen.grade.grader.grade_rows`.
"""

from __future__ import annotations

import math
import random
import zlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from quizgen.fairness.features import stored_features
from quizgen.fairness.model import logistic
from quizgen.manifest import Manifest

#: Each box's logit for a student of ability 0 is drawn from N(mean, sd²): facilities around
#: two in three, from about 0.3 to 0.9, as a class's boxes usually are.
BOX_MEAN, BOX_SD = 0.7, 0.6


@dataclass(frozen=True, slots=True)
class Planted:
    """An effect planted on question `number`: versions whose feature `feature` has `value` are
    `logits` easier for every student (negative: harder)."""

    number: int
    feature: str
    value: Any
    logits: float

    def on(self, number: int, features: Mapping[str, Any]) -> float:
        return self.logits if number == self.number and features.get(self.feature) == self.value \
            else 0.0


def box_logits(manifest: Manifest, seed: int = 0) -> dict[tuple[int, str], float]:
    """Each box's logit for a student of ability 0 on a version without planted effects, drawn
    once per exam (question number, box key, in the manifest's order)."""
    rng = random.Random(f"boxes|{seed}")
    out: dict[tuple[int, str], float] = {}
    for _, number, key, _ in manifest.boxes():
        if (number, key) not in out:
            out[(number, key)] = rng.gauss(BOX_MEAN, BOX_SD)
    return out


def chance(number: int, key: str, features: Mapping[str, Any], ability: float,
           logits: Mapping[tuple[int, str], float], planted: Iterable[Planted]) -> float:
    """The chance that a student of `ability` gets this box right."""
    shift = sum(p.on(number, features) for p in planted)
    return logistic(ability + logits.get((number, key), 0.0) + shift)


def true_expected(paper: Any, logits: Mapping[tuple[int, str], float],
                  planted: Sequence[Planted], ability: float = 0.0) -> float:
    """A paper's expected score for a student of `ability` under the planted truth."""
    total = 0.0
    for number, question in paper.numbered():
        features = stored_features(question)
        points = question.get("points")
        for key in question.get("asked") or []:
            value = points.get(key, 0) if isinstance(points, Mapping) else 0
            total += float(value) * chance(number, key, features, ability, logits, planted)
    return total


def answers_sheet(manifest: Manifest, planted: Sequence[Planted],
                  logits: Mapping[tuple[int, str], float], seed: int):
    """The filled answer sheet of a simulated class (an `AnswerSheet`, as read from a CSV), and
    each paper's student ability."""
    from quizgen.grade.sheet import AnswerSheet, SheetRow

    rng = random.Random(f"class|{seed}")
    columns = manifest.answer_columns()
    where = {column: 3 + j for j, column in enumerate(columns)}
    rows, abilities = [], []
    for line, paper in enumerate(manifest.students, start=2):
        ability = rng.gauss(0.0, 1.0)
        cells = [paper.name, paper.roll, paper.version] + [""] * len(columns)
        for number, question in paper.numbered():
            features = stored_features(question)
            for key in question.get("asked") or []:
                right = question["answers"][key]
                p = chance(number, key, features, ability, logits, planted)
                text = right_text(right) if rng.random() < p else wrong_text(right, key)
                cells[where[f"Q{number}.{key}"]] = text
        rows.append(SheetRow(line, tuple(cells)))
        abilities.append(ability)
    sheet = AnswerSheet(["name", "roll", "version", *columns], rows, [])
    return sheet, abilities


def simulate_class(manifest: Manifest, planted: Sequence[Planted],
                   logits: Mapping[tuple[int, str], float], seed: int):
    """A simulated class graded by the real grader: the `StudentResult`s."""
    from quizgen.grade.grader import grade_rows

    sheet, _ = answers_sheet(manifest, planted, logits, seed)
    students, _, unmatched = grade_rows(manifest, sheet)
    if unmatched:
        raise AssertionError(f"{len(unmatched)} simulated rows matched no paper")
    return students


def right_text(value: Any) -> str:
    """A right answer as a student writes it."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        return ", ".join(map(str, value))
    return str(value)


def wrong_text(value: Any, key: str = "") -> str:
    """A wrong answer the grader cannot credit as carried: other limits; a number no sum or
    product of the student's other (wrong) numbers reproduces (v² plus an offset of the box's
    own: a common offset or factor would be carried through blocks × warps); for a yes/no, an unreadable word (the other answer
    may follow from the student's own wrong numbers, and earn its points as carried), which
    scores 0."""
    if isinstance(value, bool):
        return "unsure"
    if isinstance(value, list):
        return "shared memory" if "registers" in value else "registers"
    if isinstance(value, int):
        return str(value * value + 5 + zlib.crc32(key.encode("utf-8")) % 23)
    if isinstance(value, float) and math.isfinite(value):
        return str(round(value / 2 + 0.0123, 4))
    return "?"


# ---------------------------------------------------------------------------------------------
# Studies: many simulated classes on one exam


@dataclass(slots=True)
class PowerStudy:
    """What `power_study` found over `classes` simulated classes of `students`: how many had any
    flag, how many flagged the planted feature, how many 95% intervals covered the planted value
    (for the planted feature) and 0 (for every feature of a question with nothing planted)."""

    classes: int
    students: int
    any_flag: int = 0
    planted_flagged: int = 0
    planted_covered: int = 0
    planted_tested: int = 0
    others_covered: int = 0
    others_tested: int = 0
    estimates: list[float] | None = None

    def add(self, other: "PowerStudy") -> None:
        for name in ("any_flag", "planted_flagged", "planted_covered", "planted_tested",
                     "others_covered", "others_tested"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.estimates = (self.estimates or []) + (other.estimates or [])


def planted_logits(column: Any, planted: Sequence[Planted], number: int) -> float:
    """The planted effect a tested column measures, in logits (0 when none is planted on it)."""
    pairs = {(column.feature, column.value), *column.also}
    return sum(p.logits for p in planted if p.number == number and (p.feature, p.value) in pairs)


def one_class(manifest: Manifest, planted: Sequence[Planted],
              logits: Mapping[tuple[int, str], float], seed: int) -> PowerStudy:
    """One simulated class, graded and assessed, counted as a `PowerStudy` of one."""
    from quizgen.grade.fairness import assess

    fairness = assess(manifest, simulate_class(manifest, planted, logits, seed))
    out = PowerStudy(1, fairness.students, any_flag=int(bool(fairness.flags)), estimates=[])
    touched = {p.number for p in planted}
    for test in fairness.tests:
        truth = planted_logits(test.column, planted, test.number)
        covered = abs(test.estimate - truth) <= 1.96 * test.se
        if truth:
            out.planted_tested += 1
            out.planted_flagged += int(test.flagged)
            out.planted_covered += int(covered)
            out.estimates.append(test.estimate)
        elif test.number not in touched:
            # The other features of a question with a planted effect are left out: each is
            # tested against all the other papers, those with the planted value among them, so
            # its true effect is not 0 (OCC-4 papers are easier than the rest when OCC-2's are
            # harder).
            out.others_tested += 1
            out.others_covered += int(covered)
    return out


def power_study(manifest: Manifest, planted: Sequence[Planted], classes: int, *,
                seed: int = 0, jobs: int = 1) -> PowerStudy:
    """`classes` simulated classes on the papers of `manifest` (new abilities and answers each
    time, the same box difficulties), with `jobs` processes."""
    import gc

    logits = box_logits(manifest, seed)
    seeds = [seed * 100_003 + k for k in range(classes)]
    total = PowerStudy(0, len(manifest.students), estimates=[])
    # The exam's papers live through every class: kept out of the collector's passes (each
    # graded class would otherwise walk them all again), and shared with the workers as forked.
    gc.freeze()
    try:
        if jobs > 1 and classes > 1:
            import multiprocessing

            context = multiprocessing.get_context("fork")
            with context.Pool(jobs, initializer=_hold,
                              initargs=(manifest, planted, logits)) as pool:
                results = pool.map(_held_class, seeds, chunksize=1)
        else:
            results = [one_class(manifest, planted, logits, s) for s in seeds]
    finally:
        gc.unfreeze()
    for result in results:
        total.add(result)
        total.classes += 1
    return total


_HELD: dict[str, Any] = {}


def _hold(manifest: Manifest, planted: Sequence[Planted], logits: Mapping) -> None:
    _HELD.update(manifest=manifest, planted=planted, logits=logits)


def _held_class(seed: int) -> PowerStudy:
    return one_class(_HELD["manifest"], _HELD["planted"], _HELD["logits"], seed)


@dataclass(slots=True)
class EvenPapers:
    """What `calibration_study` found for one calibration: the standard deviation and the
    largest easiest-to-hardest gap of the next class's papers' expected scores (a student of
    ability 0), plain and calibrated, under the planted truth and under the fitted model, and
    how many papers the calibrated sheet left beyond its tolerance."""

    truth_sd: tuple[float, float]
    truth_gap: tuple[float, float]
    model_sd: tuple[float, float]
    model_gap: tuple[float, float]
    beyond: int
    papers: int


def spread(values: Sequence[float]) -> tuple[float, float]:
    """(population standard deviation, largest − smallest)."""
    mean = sum(values) / len(values)
    return math.sqrt(sum((v - mean) ** 2 for v in values) / len(values)), max(values) - min(values)


def calibration_study(recipe: Any, manifest: Manifest, planted: Sequence[Planted],
                      roster: Sequence[Any], seeds: Sequence[int], *, tolerance: float,
                      logits: Mapping[tuple[int, str], float] | None = None) -> list[EvenPapers]:
    """For each seed: a class on `manifest`'s papers with `planted` effects, graded; its
    calibration fitted; the next class (`roster`) drawn plain and calibrated (same recipe and
    seed) and both weighed."""
    from quizgen.export.sheet import plan_exam
    from quizgen.export.sheet.balance import Weighing
    from quizgen.generator import generate_one
    from quizgen.grade.fairness import assess

    logits = box_logits(manifest, 0) if logits is None else logits
    plain = plan_exam(recipe, list(roster), None, generate=generate_one)
    out = []
    for seed in seeds:
        fairness = assess(manifest, simulate_class(manifest, planted, logits, seed))
        model = fairness.fit.model
        weighing = Weighing(model, tolerance)
        even = plan_exam(recipe, list(roster), None, generate=generate_one, weighing=weighing)
        figures = []
        for weigh in (lambda p: true_expected(p, logits, planted),
                      lambda p: sum(model.expected(n, stored_features(q), q["asked"])
                                    for n, q in p.numbered())):
            before = spread([weigh(p) for p in plain.manifest.students])
            after = spread([weigh(p) for p in even.manifest.students])
            figures.append(((before[0], after[0]), (before[1], after[1])))
        (truth_sd, truth_gap), (model_sd, model_gap) = figures
        out.append(EvenPapers(truth_sd, truth_gap, model_sd, model_gap, len(weighing.beyond),
                              len(roster)))
    return out
