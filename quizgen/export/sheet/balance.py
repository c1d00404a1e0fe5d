"""How hard each paper is predicted to be, and, with a calibration, papers drawn to be equally hard.

Every version the sheet draws is weighed by a model of its expected points for a student of
average ability (`quizgen.fairness.model`): the calibration's, fitted on earlier graded classes of
the same recipe (``quizgen sheet --calibrate``), else a prior from the worked solution's steps and
trap, labelled as such. A question's *target* is the mean over the planner's survey of draws made
for no student; a paper's predicted difficulty is its expected score and how far it lies from the
sum of the targets.

With a calibration the sheet balances, keeping every turn of every question's outcomes
(`quizgen.export.sheet.plan._Outcomes`), so each outcome keeps its share of the class:

1. *pairing*: a student's turn picks the outcome of every question, so outcomes of questions
   whose cycles share a length always come together (`pair`); once for the exam, over the
   turns of the whole exam, each question's turns are dealt out again (each as often as
   before) so that hard outcomes of one question meet easy ones of the others;
2. *within the turn*: of the student's first `CANDIDATES` versions of each question that keep
   its turn (the same seeds as always, so each version stays the student's own), one per
   question is taken so that the paper's expected score lies within half the tolerance of the
   target (`choose`), else as near it as they allow.

Each student's paper depends on their own roll number alone, as without a calibration: adding a
student changes nobody else's version. Without a calibration nothing changes in the draw.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from quizgen.fairness.features import problem_features
from quizgen.fairness.model import ExamModel, QuestionModel, prior

#: The default tolerance, in points: every paper's predicted expected score within this of every
#: other's (each within half of it from the target).
TOLERANCE = 0.5
#: Versions that keep the turn drawn per question and student when balancing; more gives closer
#: papers and a slower sheet.
CANDIDATES = 6
#: A paper beyond the tolerance costs this much per point, a turn not kept (only where no
#: version keeps it) costs 1 (or 2 for a too-common value, as the planner weighs them), and
#: within the tolerance a point from the target costs `NEAR`.
BEYOND = 100.0
NEAR = 0.01
#: Deviations are added up in steps of this many points; at most `STATES` sums are followed.
STEP = 0.01
STATES = 1500
#: Versions drawn for no student on each turn of a question's cycle, to weigh the turn.
SAMPLE = 4
#: Turns of the whole exam `pair` weighs (the cycles' least common multiple, at most this).
MAX_CYCLE = 720


@dataclass(slots=True)
class Weighing:
    """The sheet's model of each question (`model`: a calibration; None: the prior, made per
    question from its survey), each question's target, and whether (and how tightly) it balances."""

    model: ExamModel | None = None
    tolerance: float = TOLERANCE
    questions: dict[int, QuestionModel] = field(default_factory=dict)
    targets: dict[int, float] = field(default_factory=dict)
    turns: dict[int, list[int]] | None = None     # question → its turns re-paired (`pair`)
    offset: float | None = None          # the papers' target less the sum of the questions'
    beyond: set[str] = field(default_factory=set)  # papers (keys) left beyond the tolerance

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
        target += self.offset or 0.0
        return {"basis": self.basis, "expected": round(expected, 2),
                "relative": round(expected - target, 2)}

    def settle(self, cycles: dict[int, list[float]]) -> None:
        """The questions' turns re-paired (`pair`), and the target papers meet at: the mean
        over the turns of a paper's expected score."""
        self.turns = pair(cycles)
        self.offset = sum(sum(c) / len(c) - self.targets.get(n, 0.0) for n, c in cycles.items())

    def turn(self, number: int, turn: int) -> int:
        """The turn question `number` takes on a student's turn (already plus the number)."""
        order = (self.turns or {}).get(number)
        return turn if order is None else order[turn % len(order)]

    def within(self, options: Sequence[Sequence[tuple[int, float]]], picks: list[int]) -> bool:
        """Whether the paper these picks make lies within the tolerance of the target."""
        total = sum(options[q][j][1] for q, j in enumerate(picks))
        return abs(total - (self.offset or 0.0)) <= self.tolerance / 2 + 1e-9

    def describe(self) -> dict[str, Any]:
        """What the manifest records of a balanced draw (its calibration and tolerance)."""
        model = self.model
        return {"basis": self.basis, "tolerance": self.tolerance,
                "classes": model.classes if model else 0,
                "students": model.students if model else 0,
                "target": round(sum(self.targets.values()) + (self.offset or 0.0), 2),
                "turns": {str(n): t for n, t in sorted((self.turns or {}).items())}}


def reachable(options: Sequence[Sequence[tuple[int, float]]]
              ) -> dict[int, tuple[int, tuple[int, ...]]]:
    """Every sum of deviations one option per question reaches (in steps of `STEP` points),
    each with the fewest turns not kept that reach it and the options that do (of equal ones,
    the earliest)."""
    states: dict[int, tuple[int, tuple[int, ...]]] = {0: (0, ())}
    for candidates in options:
        grown: dict[int, tuple[int, tuple[int, ...]]] = {}
        for total, (deficit, picks) in states.items():
            for j, (missed, deviation) in enumerate(candidates):
                key = total + round(deviation / STEP)
                value = (deficit + missed, picks + (j,))
                if key not in grown or value < grown[key]:
                    grown[key] = value
        if len(grown) > STATES:      # the fewest turns broken, then the nearest the middle
            grown = dict(sorted(grown.items(), key=lambda kv: (kv[1][0], abs(kv[0])))[:STATES])
        states = grown
    return states


def cost(total: int, deficit: int, tolerance: float, offset: float) -> float:
    """What a paper `total` steps from the sum of the targets costs, with `deficit` turns not
    kept, when it should lie within ±tolerance/2 of `offset` points from that sum."""
    off = abs(total * STEP - offset)
    return deficit + BEYOND * max(0.0, off - tolerance / 2) + NEAR * off


def choose(options: Sequence[Sequence[tuple[int, float]]], tolerance: float,
           offset: float = 0.0) -> list[int]:
    """One option per question: options[q] is [(turns not kept, deviation from the question's
    target in points)]; the choice keeps the paper within ±tolerance/2 of the target (the sum
    of the questions' targets plus `offset`) where it can, keeping the most turns, then the
    closest to the target (see `BEYOND`, `NEAR`). Deterministic: of equal choices, the one with
    the earliest options."""
    states = reachable(options)
    best = min(states.items(), key=lambda kv: (cost(kv[0], kv[1][0], tolerance, offset), kv[1]))
    return list(best[1][1])


def pair(cycles: dict[int, list[float]]) -> dict[int, list[int]]:
    """For each question, which turn of its cycle each turn of the student's takes, so that
    papers are most even.

    A student's turn t picks every question's outcome (question q takes turn t + q), so outcomes
    of questions whose cycles share a length always come together: on the midterm every paper
    whose stall cannot be hidden (W-F) also has the grid of several waves. `cycles[q]` is
    question q's expected points on each turn of its cycle. Over the turns of the whole exam
    (the cycles' least common multiple, when it is at most `MAX_CYCLE`) each question's turns
    are dealt out again, each as often as before (so each outcome keeps its share): the widest
    question first, its hardest turns to the papers that are easiest so far (`_deal`); else
    each cycle is permuted one swap at a time while a swap makes the papers more even
    (`_swap`). Questions left as they are (and all of them, when nothing is gained) are not
    listed."""
    numbers = [n for n in sorted(cycles) if len(cycles[n]) > 1
               and max(cycles[n]) - min(cycles[n]) > 1e-9]
    if len(numbers) < 2:
        return {}
    length = math.lcm(*(len(cycles[n]) for n in numbers))
    if length <= MAX_CYCLE:
        order = _deal(cycles, numbers, length)
        if _spread(cycles, order, length) >= _spread(cycles, {}, length):
            return {}
        return {n: order[n] for n in numbers
                if order[n] != [t % len(cycles[n]) for t in range(length)]}
    return _swap(cycles, numbers, MAX_CYCLE)


def _spread(cycles: dict[int, list[float]], order: dict[int, list[int]], length: int) -> float:
    """The variance of the papers' expected scores over `length` turns, the questions' turns
    taken through `order` (a question not in it: its own turn)."""
    papers = []
    for t in range(length):
        total = 0.0
        for n, cycle in cycles.items():
            mine = order.get(n)
            total += cycle[(t + n) % len(cycle) if mine is None else mine[(t + n) % len(mine)]]
        papers.append(total)
    mean = sum(papers) / length
    return round(sum((p - mean) ** 2 for p in papers) / length, 9)


def _deal(cycles: dict[int, list[float]], numbers: list[int], length: int
          ) -> dict[int, list[int]]:
    """Each question's turns over `length` turns of the exam (each turn of its cycle as often as
    before), dealt widest question first: its hardest turns to the papers easiest so far."""
    sums = [0.0] * length
    order: dict[int, list[int]] = {}
    for n in sorted(numbers, key=lambda n: (min(cycles[n]) - max(cycles[n]), n)):
        cycle = cycles[n]
        turns = sorted((i for i in range(len(cycle)) for _ in range(length // len(cycle))),
                       key=lambda i: (cycle[i], i))
        papers = sorted(range(length), key=lambda p: (-round(sums[p], 9), p))
        dealt = [0] * length
        for p, i in zip(papers, turns):
            dealt[(p + n) % length] = i
            sums[p] += cycle[i]
        order[n] = dealt
    return order


def _swap(cycles: dict[int, list[float]], numbers: list[int], length: int
          ) -> dict[int, list[int]]:
    """Each question's cycle permuted one swap at a time while a swap makes the variance of the
    papers' expected scores over the first `length` turns smaller (the first question's cycle
    is the reference)."""
    order = {n: list(range(len(cycles[n]))) for n in numbers}

    def spread() -> float:
        papers = [sum(cycles[n][order[n][(t + n) % len(order[n])]] for n in numbers)
                  for t in range(length)]
        mean = sum(papers) / length
        return round(sum((p - mean) ** 2 for p in papers) / length, 9)

    best = spread()
    improved = True
    while improved:
        improved = False
        for n in numbers[1:]:
            cycle = order[n]
            for i in range(len(cycle)):
                for j in range(i + 1, len(cycle)):
                    if cycles[n][cycle[i]] == cycles[n][cycle[j]]:
                        continue
                    cycle[i], cycle[j] = cycle[j], cycle[i]
                    value = spread()
                    if value < best:
                        best, improved = value, True
                    else:
                        cycle[i], cycle[j] = cycle[j], cycle[i]
    return {n: order[n] for n in numbers if order[n] != sorted(order[n])}
