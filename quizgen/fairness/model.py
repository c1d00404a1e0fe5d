"""A model of a question's expected points for a student of average ability, from the features
of its version: per answer box, the chance of a right answer is

    P(box right) = 1 / (1 + exp(−(α_box + Σ γ_j · x_j)))

where α_box is the box's logit for a version with every column at 0 (the most common value of
each feature, a count at its mean) and x_j the version's columns (`Column`). The expected points
of a version are Σ points_box · P(box right); a paper's, the sum over its questions.

The model is fitted from graded classes (`quizgen.fairness.fit`: basis ``calibration``) or set
before any data from what the worked solution shows (`prior`: basis ``prior``). It is plain
Python, so that the sheet can weigh every version it draws without the statistics libraries.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from quizgen.errors import QuizgenError

#: A question of its usual length taken, before any data, as answered right by this share of
#: the students of average ability (what the prior's absolute level rests on; only differences
#: between papers are read from it).
PRIOR_FACILITY = 0.6
#: Fewer graded students than this and nothing is tested (`quizgen.fairness.fit`): the class is
#: too small to tell a version's effect from chance.
MIN_STUDENTS = 40


def logistic(x: float) -> float:
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    z = math.exp(x)
    return z / (1.0 + z)


@dataclass(frozen=True, slots=True)
class Column:
    """One column of a question's model: an indicator (`feature` has `value`: 1, else 0) or, with
    `value` None, a count (the feature's value minus `center`, kept within `low`…`high`, the
    range the data showed). `also` names the (feature, value) pairs that went with this one on
    every paper of the data, so that their effects cannot be told apart."""

    feature: str
    value: Any = None
    center: float = 0.0
    low: float = 0.0
    high: float = 0.0
    also: tuple[tuple[str, Any], ...] = ()

    @property
    def is_count(self) -> bool:
        return self.value is None

    def of(self, features: Mapping[str, Any]) -> float:
        """This column's value for a version with these features."""
        found = features.get(self.feature)
        if not self.is_count:
            return 1.0 if found == self.value else 0.0
        if isinstance(found, bool) or not isinstance(found, (int, float)):
            return 0.0
        return min(max(float(found), self.low), self.high) - self.center

    @property
    def span(self) -> float:
        """What the column moves by between the versions compared: 1 for an indicator; the
        range seen for a count."""
        return 1.0 if not self.is_count else self.high - self.low

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"feature": self.feature}
        if self.is_count:
            out.update(center=self.center, low=self.low, high=self.high)
        else:
            out["value"] = self.value
        if self.also:
            out["also"] = [[f, v] for f, v in self.also]
        return out

    @classmethod
    def from_dict(cls, data: Any, where: str) -> Column:
        if not isinstance(data, Mapping) or not isinstance(data.get("feature"), str):
            raise QuizgenError("expected a column: feature and value, or a count's range",
                               field=where)
        also = tuple((str(f), v) for f, v in data.get("also") or ()
                     if isinstance(v, (str, int, bool)))
        if "value" in data:
            if not isinstance(data["value"], (str, int, bool)):
                raise QuizgenError("a column's value is text, a number or true/false",
                                   field=where)
            return cls(data["feature"], data["value"], also=also)
        numbers = [_finite(data.get(k), f"{where}.{k}") for k in ("center", "low", "high")]
        return cls(data["feature"], None, *numbers, also=also)


@dataclass(slots=True)
class QuestionModel:
    """One question's model: its boxes as (key, points, logit α), its columns and their effects
    in logits (each already shrunk toward 0 by its own uncertainty: see `quizgen.fairness.fit`)."""

    number: int
    boxes: list[tuple[str, float, float]]
    columns: list[Column] = field(default_factory=list)
    effects: list[float] = field(default_factory=list)

    @property
    def points(self) -> float:
        return sum(points for _, points, _ in self.boxes)

    def shift(self, features: Mapping[str, Any]) -> float:
        """The logit shift of a version with these features."""
        return sum(g * c.of(features) for c, g in zip(self.columns, self.effects))

    def expected(self, features: Mapping[str, Any], asked: Iterable[str] | None = None) -> float:
        """Expected points of a student of average ability on a version with these features
        (over the boxes `asked`, default every box of the model)."""
        shift = self.shift(features)
        wanted = None if asked is None else set(asked)
        return sum(points * logistic(alpha + shift) for key, points, alpha in self.boxes
                   if wanted is None or key in wanted)

    def to_dict(self) -> dict[str, Any]:
        return {"number": self.number,
                "boxes": [[key, points, round(alpha, 6)] for key, points, alpha in self.boxes],
                "columns": [c.to_dict() for c in self.columns],
                "effects": [round(g, 6) for g in self.effects]}

    @classmethod
    def from_dict(cls, data: Any, where: str) -> QuestionModel:
        if not isinstance(data, Mapping):
            raise QuizgenError("expected a question's model", field=where)
        number = data.get("number")
        if not isinstance(number, int) or isinstance(number, bool) or number < 1:
            raise QuizgenError(f"got {number!r}; expected a question number", field=f"{where}.number")
        boxes = []
        for k, box in enumerate(data.get("boxes") or [], start=1):
            if (not isinstance(box, list) or len(box) != 3 or not isinstance(box[0], str)):
                raise QuizgenError("expected [box, points, logit]", field=f"{where}.boxes[{k}]")
            boxes.append((box[0], _finite(box[1], f"{where}.boxes[{k}]"),
                          _finite(box[2], f"{where}.boxes[{k}]")))
        columns = [Column.from_dict(c, f"{where}.columns[{k}]")
                   for k, c in enumerate(data.get("columns") or [], start=1)]
        effects = [_finite(g, f"{where}.effects") for g in data.get("effects") or []]
        if len(effects) != len(columns):
            raise QuizgenError("one effect per column", field=f"{where}.effects")
        return cls(number, boxes, columns, effects)


@dataclass(slots=True)
class ExamModel:
    """The models of an exam's questions: fitted on `students` students of `classes` graded
    classes (basis ``calibration``), or the `prior` (basis ``prior``, no data)."""

    basis: str
    questions: dict[int, QuestionModel]
    classes: int = 0
    students: int = 0

    def expected(self, number: int, features: Mapping[str, Any],
                 asked: Iterable[str] | None = None) -> float | None:
        """Expected points of question `number` on a version with these features (None: the
        model has no such question)."""
        model = self.questions.get(number)
        return None if model is None else model.expected(features, asked)

    def to_dict(self) -> dict[str, Any]:
        return {"basis": self.basis, "classes": self.classes, "students": self.students,
                "questions": [self.questions[n].to_dict() for n in sorted(self.questions)]}

    @classmethod
    def from_dict(cls, data: Any, where: str = "model") -> ExamModel:
        if not isinstance(data, Mapping) or data.get("basis") not in ("calibration", "prior"):
            raise QuizgenError("expected a model with basis calibration or prior", field=where)
        questions = {}
        for k, item in enumerate(data.get("questions") or [], start=1):
            model = QuestionModel.from_dict(item, f"{where}.questions[{k}]")
            questions[model.number] = model
        counts = [data.get(k, 0) for k in ("classes", "students")]
        if not all(isinstance(c, int) and not isinstance(c, bool) and c >= 0 for c in counts):
            raise QuizgenError("classes and students are whole numbers", field=where)
        return cls(data["basis"], questions, *counts)


@dataclass(slots=True)
class QuestionRecord:
    """One question of one graded paper: its number, its version's features, and each box as
    (key, points, earned: True/False, or None when the box was left out of the score)."""

    number: int
    features: dict[str, Any]
    boxes: list[tuple[str, float, bool | None]]

    @property
    def earned(self) -> float:
        return sum(points for _, points, right in self.boxes if right)


@dataclass(slots=True)
class PaperRecord:
    """One graded paper: the points counted on the whole paper, and its questions."""

    score: float
    questions: list[QuestionRecord]


def prior(number: int, boxes: Iterable[tuple[str, float]], usual_steps: int) -> QuestionModel:
    """A question's model before any data, from its worked solution alone: a solution of k steps
    is right only if every step is, so a version's chance is PRIOR_FACILITY^(k / usual) with the
    trap counted as one step more (one more place a named slip waits). In logits, near the usual
    length: each step (or trap) moves the chance by ln(F) / (usual · (1 − F))."""
    usual = max(1, usual_steps)
    per_step = math.log(PRIOR_FACILITY) / (usual * (1 - PRIOR_FACILITY))
    alpha = math.log(PRIOR_FACILITY / (1 - PRIOR_FACILITY))
    steps = Column("steps", None, float(usual), 0.0, float(10 * usual))
    return QuestionModel(number, [(key, float(points), alpha) for key, points in boxes],
                         [steps, Column("trap", True)], [per_step, per_step])


def _finite(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise QuizgenError(f"got {value!r}; expected a finite number", field=where)
    return float(value)
