"""Simulated classes: students of known ability answer the versions of a real exam, with effects
planted on chosen features of the versions, and the real grader grades their answer sheets. What
the tests and the benchmark measure the fairness statistics on.

    logits = box_logits(manifest, seed=1)                   # each box's difficulty, fixed
    planted = [Planted(1, "limiter", "registers", -0.7)]    # Q1 harder where registers bind
    students = simulate_class(manifest, planted, logits, seed=7)   # graded StudentResults

A student of ability θ (drawn N(0, 1)) gets a box of question q right with probability
1 / (1 + exp(−(θ + logit_box + Σ planted logits of the version's features))), each box on its own
given θ; a right box is written as the key has it, a wrong one as a wrong answer of the box's
kind (another number, another limit, the other yes/no), and the sheet is graded by
`quizgen.grade.grader.grade_rows`, carried errors and all.
"""

from __future__ import annotations

import math
import random
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
                text = right_text(right) if rng.random() < p else wrong_text(right)
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


def wrong_text(value: Any) -> str:
    """A wrong answer of the same kind: the other yes/no, other limits, another number."""
    if isinstance(value, bool):
        return "no" if value else "yes"
    if isinstance(value, list):
        return "shared memory" if "registers" in value else "registers"
    if isinstance(value, int):
        return str(value * 2 + 3)
    if isinstance(value, float) and math.isfinite(value):
        return str(round(value / 2 + 0.0123, 4))
    return "?"
