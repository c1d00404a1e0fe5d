"""How hard each paper is predicted to be, and, with a calibration, papers drawn to be equally hard.

Every version the sheet draws is weighed by a model of its expected points for a student of
average ability (`quizgen.fairness.model`): the calibration's, fitted on earlier graded classes of
the same recipe (``quizgen sheet --calibrate``), else a prior from the worked solution's steps and
trap, labelled as such. A question's *target* is the mean over the planner's survey of draws made
for no student; a paper's predicted difficulty is its expected score and how far it lies from the
sum of the targets.

With a calibration the sheet balances: for each student it draws a few versions of every question
(the same seeds as always, so every version stays the student's own), then takes one per question
so that the paper's expected score lies within half the tolerance of the target, breaking the
outcomes' turns (`quizgen.export.sheet.plan._Outcomes`) only where no version that keeps them
gets the paper there. Without a calibration nothing changes in the draw.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from quizgen.fairness.features import problem_features
from quizgen.fairness.model import ExamModel, QuestionModel, prior

#: The default tolerance, in points: every paper's predicted expected score within this of every
#: other's (each within half of it from the target).
TOLERANCE = 0.5
#: Versions drawn per question and student when balancing (the first that keeps the turns among
#: them); more gives closer papers and a slower sheet.
CANDIDATES = 6
#: A paper beyond the tolerance costs this much per point, a turn not kept costs 1 (or 2 for a
#: too-common value, as the planner weighs them), and within the tolerance a point from the
#: target costs `NEAR`: the tolerance first, then the turns, then the target.
BEYOND = 100.0
NEAR = 0.01
#: Deviations are added up in steps of this many points; at most `STATES` sums are followed.
STEP = 0.005
STATES = 600


@dataclass(slots=True)
class Weighing:
    """The sheet's model of each question (`model`: a calibration; None: the prior, made per
    question from its survey), each question's target, and whether (and how tightly) it balances."""

    model: ExamModel | None = None
    tolerance: float = TOLERANCE
    questions: dict[int, QuestionModel] = field(default_factory=dict)
    targets: dict[int, float] = field(default_factory=dict)

    @property
    def balancing(self) -> bool:
        return self.model is not None

    @property
    def basis(self) -> str:
        return "calibration" if self.model is not None else "prior"

    def survey(self, number: int, spec: Any, usual_steps: int,
               draws: Sequence[tuple[Any, list[str]]]) -> None:
        """Question `number`'s model and target, from the survey's draws ((problem, asked))."""
        if self.model is not None and number in self.model.questions:
            model = self.model.questions[number]
        else:
            asked = draws[0][1] if draws else []
            model = prior(number, [(k, float(spec.box_points(k, len(asked)))) for k in asked],
                          usual_steps)
        self.questions[number] = model
        values = [self.expected(number, problem, asked) for problem, asked in draws]
        self.targets[number] = sum(values) / len(values) if values else 0.0

    def expected(self, number: int, problem: Any, asked: list[str]) -> float:
        """Expected points of a student of average ability on this version of question `number`."""
        return self.questions[number].expected(problem_features(problem, asked), asked)

    def predicted(self, questions) -> dict[str, Any]:
        """A paper's predicted difficulty for the manifest: its expected score for a student of
        average ability, how far that lies from the target (points), and the basis."""
        expected = sum(self.expected(number, problem, asked)
                       for number, _, problem, asked in questions)
        target = sum(self.targets.get(number, 0.0) for number, _, _, _ in questions)
        return {"basis": self.basis, "expected": round(expected, 2),
                "relative": round(expected - target, 2)}

    def describe(self) -> dict[str, Any]:
        """What the manifest records of a balanced draw (its calibration and tolerance)."""
        model = self.model
        return {"basis": self.basis, "tolerance": self.tolerance,
                "classes": model.classes if model else 0,
                "students": model.students if model else 0,
                "target": round(sum(self.targets.values()), 2)}


def choose(options: Sequence[Sequence[tuple[int, float]]], tolerance: float) -> list[int]:
    """One option per question: options[q] is [(turns not kept, deviation from the target in
    points)]; the choice keeps the sum of deviations within ±tolerance/2 where it can, keeping
    the most turns, then the closest to the target (see `BEYOND`, `NEAR`). Deterministic: of
    equal choices, the one with the earliest options."""
    states: dict[int, tuple[int, tuple[int, ...]]] = {0: (0, ())}
    for q, candidates in enumerate(options):
        grown: dict[int, tuple[int, tuple[int, ...]]] = {}
        for total, (deficit, picks) in states.items():
            for j, (missed, deviation) in enumerate(candidates):
                key = total + round(deviation / STEP)
                value = (deficit + missed, picks + (j,))
                if key not in grown or value < grown[key]:
                    grown[key] = value
        states = dict(sorted(grown.items(), key=lambda kv: (_cost(kv, tolerance), kv[1]))[:STATES])
    best = min(states.items(), key=lambda kv: (_cost(kv, tolerance), kv[1]))
    return list(best[1][1])


def _cost(state: tuple[int, tuple[int, tuple[int, ...]]], tolerance: float) -> float:
    total, (deficit, _) = state
    off = abs(total) * STEP
    return deficit + BEYOND * max(0.0, off - tolerance / 2) + NEAR * off
