"""Which features of the versions moved the chance of a right answer, beyond the student's
ability: the statistics behind the class report's fairness section and ``sheet --calibrate``.

The method, per question slot (every box of the question, one row per student and box):

* **Ability** is the student's *rest score*: the points counted on the other questions,
  standardised within the class. The model without any feature is a logistic regression of
  "box right" on the box and the rest score: the logistic-regression screen for differential item
  functioning (Swaminathan and Rogers 1990, "Detecting differential item functioning using
  logistic regression procedures", J. Educ. Meas. 27), with the version's features in the place
  of the groups. It is fitted once per question (statsmodels' GLM, binomial family).
* **The test** of a feature (a column: a value of a category, or a count) is the score (Rao)
  test of adding it to that model: U = Σ x̃ᵢ eᵢ over students, x̃ the column after the rest score
  is taken out of it and eᵢ the student's residual summed over the question's boxes. Its variance
  is the one random assignment gives: the sheet hands versions out by a hash of the roll number,
  not by ability, so without an effect the versions could have fallen to any students (covariance
  adjustment in randomised experiments, Rosenbaum 2002, Statistical Science 17). Summing a
  student's boxes first keeps the boxes of one question from counting as independent evidence.
* **The estimate** is the one-step estimate from the same fit, γ = U / I (I the information of
  the column), with standard error √Var(U) / I: one test, one estimate, one interval, always in
  agreement. In points: what a student of the class's average ability gains or loses between
  papers with and without the feature (or between the fewest and the most steps), each end of
  the interval carried through the same curve.
* **Many tests**: every column of every question is one test, and the p values are adjusted by
  Holm's step-down method (Holm 1979, "A simple sequentially rejective multiple test
  procedure", Scand. J. Statist. 6): on a fair exam, the chance of any flag is at most 5%.
  (`holm`; statsmodels' ``multipletests`` gives the same numbers.)
* **Per paper**, each question's features enter one joint model (GLM with standard errors
  clustered by student), each effect shrunk toward 0 by its own uncertainty, γ · max(0, 1 −
  se²/γ²), so that an effect no larger than its noise counts as none; a paper's expected score
  is the sum of its questions' expected points for a student of average ability.
* **The smallest detectable effect**: the effect of a feature splitting the class in half that
  this class would flag 8 times in 10 at the adjusted level (Bonferroni's bound on Holm's first
  step), (z₁₋α/2m + z₀.₈₀) · se.

Limits (said in the report too): the rest score measures ability with noise, so effects are
slightly understated; features that always go together (a cell and the limit it makes bind) are
one test, whichever of them causes it; only the features quizgen records are tested; a class
smaller than `MIN_STUDENTS` is not tested at all.
"""

from __future__ import annotations

import gc
import math
from array import array
import os
import sys
import warnings
from collections import Counter, namedtuple
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

if "numpy" not in sys.modules:
    # The fits are small (a few thousand rows, a dozen columns): one BLAS thread is fastest, and
    # a pool of threads on a busy two-core machine made each fit seventy times slower.
    for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(_variable, "1")

import numpy as np  # noqa: E402
from scipy.stats import norm  # noqa: E402
from statsmodels.genmod import families  # noqa: E402
from statsmodels.genmod.generalized_linear_model import GLM  # noqa: E402

from quizgen.fairness.features import feature_kind, sort_key  # noqa: E402
from quizgen.fairness.model import (MIN_STUDENTS, Column, ExamModel, PaperRecord,  # noqa: E402
                                    QuestionModel, logistic)

#: The level of the tests, over the whole exam (Holm).
ALPHA = 0.05
#: Power at which the smallest detectable effect is stated.
POWER = 0.80
#: Fits of the whole exam, each with the rest scores cleared of what the one before measured
#: of the student's other versions: at most this many, until no effect moves by `SETTLED`
#: logits or more.
PASSES = 8
SETTLED = 0.02
#: The joint model of a question takes a column while one adds this much (|z|) beyond those
#: already in it, and at most this many.
SELECT_Z = 2.0
MAX_COLUMNS = 4
#: A value of a feature is tested only when at least this many papers have it, and this many
#: do not (fewer, and one student's day decides it).
MIN_GROUP = 20


@dataclass(slots=True)
class FeatureTest:
    """One feature of one question, tested: `papers` of `n` papers have it; `estimate` and `se`
    in logits (negative: harder); `points`, `low`, `high` the effect in points for a student of
    average ability with its 95% interval; `p` and `p_adjusted` (Holm), `flagged` when
    `p_adjusted` < ALPHA."""

    number: int
    column: Column
    papers: int
    n: int
    estimate: float
    se: float
    z: float
    p: float
    points: float
    low: float
    high: float
    p_adjusted: float = 1.0
    flagged: bool = False
    values: tuple[float, float] = (0.0, 1.0)      # a count's lowest and highest value
    explained_by: Column | None = None            # significant only through this flagged one


@dataclass(slots=True)
class QuestionFit:
    """One question across the class: its graded papers, its tests, its joint model, and the
    smallest effect this class could detect on it (logits and points)."""

    number: int
    n: int
    points: float
    tests: list[FeatureTest] = field(default_factory=list)
    model: QuestionModel | None = None
    detectable: float | None = None
    detectable_points: float | None = None


@dataclass(slots=True)
class ExamFit:
    """The fit of an exam over one or more graded classes."""

    questions: dict[int, QuestionFit]
    students: int
    classes: int
    model: ExamModel
    too_small: bool

    @property
    def tests(self) -> list[FeatureTest]:
        return [t for n in sorted(self.questions) for t in self.questions[n].tests]

    @property
    def flags(self) -> list[FeatureTest]:
        return sorted((t for t in self.tests if t.flagged), key=lambda t: (t.p_adjusted, t.number))


def fit_exam(classes: Sequence[Sequence[PaperRecord]], *, alpha: float = ALPHA) -> ExamFit:
    """Test every feature of every question and fit the joint models, over these graded classes
    (each a list of papers; a student's ability is measured within their own class).

    In passes (at most `PASSES`, until the effects settle): a student's other versions may have
    given or taken points too (the planner's turns tie one question's outcome to another's),
    which the rest score would read as ability; each pass after the first takes from each rest
    score what the pass before measured of the student's other versions."""
    students = sum(len(c) for c in classes)
    fits = _fit_pass(classes, None, alpha)
    for _ in range(PASSES - 1):
        before = _effects(fits)
        fits = _fit_pass(classes, _other_versions(fits, classes), alpha)
        after = _effects(fits)
        if before.keys() == after.keys() and all(abs(before[k] - after[k]) < SETTLED
                                                  for k in before):
            break
    model = ExamModel("calibration", {n: f.model for n, f in fits.items() if f.model},
                      classes=len(classes), students=students)
    return ExamFit(fits, students, len(classes), model, students < MIN_STUDENTS)


def _fit_pass(classes: Sequence[Sequence[PaperRecord]], taken: list[dict[int, Any]] | None,
              alpha: float) -> dict[int, QuestionFit]:
    too_small = sum(len(c) for c in classes) < MIN_STUDENTS
    numbers = sorted({q.number for c in classes for p in c for q in p.questions})
    data = {n: _QuestionData.gather(n, classes, taken) for n in numbers}
    fits: dict[int, QuestionFit] = {}
    for number, d in data.items():
        fits[number] = QuestionFit(number, d.n, d.points)
        if d.n >= 2 and d.fit_null():
            fits[number].tests = [] if too_small else [d.test(c) for c in d.columns()]
        d.release()
    tests = [t for f in fits.values() for t in f.tests]
    _adjust(tests, alpha)
    m = max(1, len(tests))
    for number, d in data.items():
        _beyond_the_first(d, fits[number].tests, alpha, m)
        if d.null is not None:
            fits[number].detectable, fits[number].detectable_points = d.detectable(alpha, m)
        fits[number].model = (d.joint([t.column for t in fits[number].tests])
                              if d.null is not None and not too_small else d.plain_model())
        d.release()
    return fits


def _beyond_the_first(d: "_QuestionData", tests: list[FeatureTest], alpha: float,
                      m: int) -> None:
    """A flag stands only if its feature changes the marks beyond those flagged before it on the
    same question (the strongest first): a feature that merely goes with a flagged one (more
    digits to write, on the versions of a harder cell) is unflagged, and says which one explains
    it. Its test is the score test with the earlier flags in the model, at Bonferroni's level
    α/m (only flags are taken away, so the chance of any false flag stays within α)."""
    kept: list[Column] = []
    for test in sorted((t for t in tests if t.flagged), key=lambda t: t.p):
        if kept:
            result = d._fit(kept)
            x = np.array([test.column.of(f) for f in d.features])
            if result is not None:
                residual, weight = d._per_student(result)
                _, se, z = d.score(x, d._base(kept), residual, weight)
                if se == 0 or 2 * norm.sf(abs(z)) * m >= alpha:
                    test.flagged, test.explained_by = False, kept[0]
                    continue
        kept.append(test.column)


def _effects(fits: dict[int, QuestionFit]) -> dict[tuple[int, str, Any], float]:
    """Every effect of the joint models, by question and column."""
    return {(n, c.feature, c.value): g for n, f in fits.items() if f.model
            for c, g in zip(f.model.columns, f.model.effects)}


def _other_versions(fits: dict[int, QuestionFit], classes: Sequence[Sequence[PaperRecord]]
                    ) -> list[dict[int, Any]]:
    """Per class, per question, per paper (an array): the points the paper's *other* versions
    were measured to give (+) or take (−) against their class's average version."""
    out: list[dict[int, Any]] = []
    for papers in classes:
        deviations: list[dict[int, float]] = []
        for paper in papers:
            mine = {}
            for q in paper.questions:
                model = fits[q.number].model if q.number in fits else None
                if model is not None and model.columns:
                    mine[q.number] = model.expected(q.features, [k for k, _, _ in q.boxes])
            deviations.append(mine)
        means = {n: sum(d[n] for d in deviations if n in d) / max(1, sum(n in d for d in deviations))
                 for n in {n for d in deviations for n in d}}
        out.append({})
        for i, (paper, d) in enumerate(zip(papers, deviations)):
            for q in paper.questions:
                out[-1].setdefault(q.number, array("d", bytes(8 * len(papers))))[i] = sum(
                    v - means[m] for m, v in d.items() if m != q.number)
    return out


def _adjust(tests: list[FeatureTest], alpha: float) -> None:
    """Holm's adjusted p values; a test is flagged when its adjusted p is below `alpha`."""
    for t, q in zip(tests, holm([t.p for t in tests])):
        t.p_adjusted, t.flagged = q, q < alpha


def holm(p: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p values (Holm 1979): the i-th smallest p times (m − i + 1),
    never below the one before, at most 1. The same numbers as statsmodels'
    ``multipletests(p, method="holm")``, which also runs a full garbage collection on every call
    (0.4 s beside a graded class), so it is written out here."""
    m = len(p)
    out = [1.0] * m
    running = 0.0
    for rank, i in enumerate(sorted(range(m), key=lambda i: p[i])):
        running = max(running, min(1.0, p[i] * (m - rank)))
        out[i] = running
    return out


class _QuestionData:
    """One question's rows: per student, the version's features, the rest score and the boxes."""

    def __init__(self, number: int) -> None:
        self.number = number
        self.features: list[dict[str, Any]] = []
        self.rest = array("d")                      # standardised within the class
        self.klass = array("q")
        self.boxes: list[list[tuple[str, float, bool]]] = []
        self.points: dict[str, float] = {}
        self.null: Any = None                   # the model without features: its coefficients
        self.alpha: dict[str, float] = {}       # each box's logit at the class's average
        self.modelled: list[str] = []           # the boxes some got right and some wrong
        self.residual: Any = None               # per student: Σ (right − fitted) over boxes
        self.weight: Any = None                 # per student: Σ fitted · (1 − fitted)
        self._rows: Any = None                  # the box-level design, built once

    @property
    def n(self) -> int:
        return len(self.features)

    @classmethod
    def gather(cls, number: int, classes: Sequence[Sequence[PaperRecord]],
               taken: list[dict[int, Any]] | None = None) -> "_QuestionData":
        """The question's rows over the classes; `taken[k][number][i]`, when given, is what
        paper i's other versions were measured to give, taken from its rest score."""
        d = cls(number)
        for k, papers in enumerate(classes):
            rows = []
            for i, paper in enumerate(papers):
                q = next((q for q in paper.questions if q.number == number), None)
                if q is None:
                    continue
                # the record's own boxes when every one is counted (a class of thousands
                # makes no copy of them)
                counted = (q.boxes if all(r is True or r is False for _, _, r in q.boxes) else
                           [(key, pts, bool(r)) for key, pts, r in q.boxes if r is not None])
                for key, pts, _ in q.boxes:
                    d.points.setdefault(key, pts)
                if counted:
                    given = taken[k][number][i] if taken is not None and number in taken[k] else 0.0
                    rows.append((q.features, paper.score - q.earned - given, counted))
            rest = [r for _, r, _ in rows]
            mean = sum(rest) / len(rest) if rest else 0.0
            sd = math.sqrt(sum((r - mean) ** 2 for r in rest) / len(rest)) if rest else 0.0
            for features, r, counted in rows:
                d.features.append(features)
                d.rest.append((r - mean) / sd if sd > 0 else 0.0)
                d.klass.append(k)
                d.boxes.append(counted)
        return d

    def release(self) -> None:
        """Let the box-level design go until it is needed again (it is the class's size times
        the question's boxes: one question's at a time is held)."""
        self._rows = None

    # -- the model without features

    def _design(self, extra=None):
        """Rows of the box-level design: box indicators, rest score, class indicators, then
        `extra` (student-level columns, one row per student); with the response and each row's
        student."""
        if self._rows is None:
            keys = {k: j for j, k in enumerate(self.modelled)}
            classes = {c: j for j, c in enumerate(sorted(set(self.klass))[1:])}
            rows, y, who = [], [], []
            for i, boxes in enumerate(self.boxes):
                for key, _, right in boxes:
                    if key in keys:
                        rows.append(keys[key])
                        y.append(1.0 if right else 0.0)
                        who.append(i)
            who_a = np.array(who, dtype=int)
            X = np.zeros((len(rows), len(keys) + 1 + len(classes)))
            X[np.arange(len(rows)), rows] = 1.0
            X[:, len(keys)] = np.array(self.rest)[who_a]
            for c, j in classes.items():
                X[:, len(keys) + 1 + j] = (np.array(self.klass)[who_a] == c)
            self._rows = (X, np.array(y), who_a)
        X, y, who = self._rows
        if extra is not None:
            X = np.column_stack([X, np.asarray(extra, dtype=float)[who]])
        return X, y, who

    def fit_null(self) -> bool:
        """Fit the model without features; False when there is nothing to fit (every box all
        right or all wrong) or it cannot be fitted."""
        tally: dict[str, list[int]] = {}
        for boxes in self.boxes:
            for key, _, right in boxes:
                tally.setdefault(key, [0, 0])[0 if right else 1] += 1
        self.modelled = [k for k in self.points if k in tally and min(tally[k]) > 0]
        for key, (right, wrong) in tally.items():
            self.alpha[key] = math.log((right + 0.5) / (wrong + 0.5))
        if not self.modelled:
            return False
        result = self._fit([])
        if result is None:
            return False
        self.null = result.params               # not the result: its arrays are the class's size
        shift = self._class_shift(result.params)
        for j, key in enumerate(self.modelled):
            self.alpha[key] = float(result.params[j]) + shift
        self.residual, self.weight = self._per_student(result)
        return True

    def _fit(self, columns: list[Column], *, clustered: bool = False):
        x = np.array([[c.of(f) for c in columns] for f in self.features]) if columns else None
        X, y, who = self._design(x)
        return _glm(X, y, groups=who if clustered else None)

    def _per_student(self, result):
        """Per student: the residuals summed over the question's boxes, and the weights."""
        _, y, who = self._design()
        pi = result.fittedvalues
        return (np.bincount(who, weights=y - pi, minlength=self.n),
                np.bincount(who, weights=pi * (1 - pi), minlength=self.n))

    def _class_shift(self, params) -> float:
        """The logit of the average class (the first class is the model's baseline)."""
        classes = sorted(set(self.klass))
        if len(classes) < 2:
            return 0.0
        base = len(self.modelled) + 1
        shifts = [0.0] + [float(params[base + j]) for j in range(len(classes) - 1)]
        counts = Counter(self.klass)
        return sum(s * counts[c] for s, c in zip(shifts, classes)) / len(self.klass)

    # -- the columns and their tests

    def columns(self) -> list[Column]:
        """The columns to test: each value of a category that enough papers have (and enough
        do not), each count; a column that matches another on every paper joins it."""
        names = sorted({k for f in self.features for k in f}, key=sort_key)
        found: list[tuple[Column, tuple[int, ...]]] = []
        for name in names:
            for column in _feature_columns(name, [f.get(name) for f in self.features]):
                found.append((column, tuple(int(column.of(f) != 0) for f in self.features)
                              if not column.is_count else ()))
        out: list[tuple[Column, tuple[int, ...]]] = []
        for column, pattern in found:
            same = self._same_papers(column, pattern, out)
            if same is None:
                out.append((column, pattern))
                continue
            j, value = same
            first = out[j][0]
            out[j] = (Column(first.feature, first.value, first.center, first.low, first.high,
                             first.also + ((column.feature, value),)), out[j][1])
        return [c for c, _ in out]

    def _same_papers(self, column: Column, pattern: tuple[int, ...],
                     earlier: list[tuple[Column, tuple[int, ...]]]) -> tuple[int, Any] | None:
        """(index, value) of an earlier column held by exactly the papers `column` picks out
        (value: `column`'s), or by exactly the others when `column`'s feature has two values
        (value: its other one); None if there is none."""
        if not pattern:
            return None
        for j, (_, p) in enumerate(earlier):
            if p == pattern:
                return j, column.value
            if p and all(a != b for a, b in zip(p, pattern)):
                seen = {f.get(column.feature) for f in self.features} - {column.value}
                if len(seen) == 1 and None not in seen:
                    return j, seen.pop()
        return None

    def _base(self, columns: list[Column]):
        """The student-level design the tests adjust for: 1, the rest score, the class, and
        the columns already in the model."""
        classes = sorted(set(self.klass))[1:]
        return np.column_stack(
            [np.ones(self.n), np.array(self.rest)]
            + [np.array([1.0 if k == c else 0.0 for k in self.klass]) for c in classes]
            + [np.array([c.of(f) for f in self.features]) for c in columns])

    def score(self, x, base, residual, weight) -> tuple[float, float, float]:
        """(estimate, se, z) of the column `x` added to the model whose per-student residuals
        and weights are given, `base` its student-level design: the score test with the
        variance of random assignment, and its one-step estimate."""
        coef, *_ = np.linalg.lstsq(base, x, rcond=None)
        xt = x - base @ coef
        e = residual
        spread = float(((e - e.mean()) ** 2).sum()) / max(1, self.n - 1)
        variance = float((xt ** 2).sum()) * spread
        information = float((xt ** 2 * weight).sum())
        if variance <= 1e-12 or information <= 1e-12:
            return 0.0, 0.0, 0.0
        u = float((xt * e).sum())
        return u / information, math.sqrt(variance) / information, u / math.sqrt(variance)

    def test(self, column: Column) -> FeatureTest:
        x = np.array([column.of(f) for f in self.features])
        estimate, se, z = self.score(x, self._base([]), self.residual, self.weight)
        p = float(2 * norm.sf(abs(z))) if se > 0 else 1.0
        share = ((column.center - column.low) / column.span if column.is_count and column.span
                 else float(x.mean()))
        points, low, high = (self.effect_points(g * column.span, share)
                             for g in (estimate, estimate - 1.96 * se, estimate + 1.96 * se))
        papers = int((x != 0).sum()) if not column.is_count else self.n
        values = (column.low, column.high) if column.is_count else (0.0, 1.0)
        return FeatureTest(self.number, column, papers, self.n, estimate, se, z, p, points,
                           low, high, values=values)

    def effect_points(self, gamma: float, share: float) -> float:
        """Points gained by a student of average ability between a paper at the column's low end
        (or without the value) and one at its high end (with it): `gamma` over the whole span,
        `share` the class's mean position along it (the model's logits are at that mean)."""
        total = 0.0
        for key, points in self.points.items():
            alpha = self.alpha.get(key)
            if alpha is None:
                continue
            total += points * (logistic(alpha + gamma * (1 - share))
                               - logistic(alpha - gamma * share))
        return total

    def detectable(self, alpha: float, tests: int) -> tuple[float | None, float | None]:
        """The smallest effect (logits, points) of a column splitting the class in half that
        would be flagged with probability POWER."""
        e, w = self.residual, self.weight
        n = self.n
        spread = float(((e - e.mean()) ** 2).sum()) / max(1, n - 1)
        information = float(w.sum()) / 4
        if information <= 0 or n < 2:
            return None, None
        se = math.sqrt(n / 4 * spread) / information
        gamma = (norm.isf(alpha / (2 * tests)) + norm.isf(1 - POWER)) * se
        return gamma, abs(self.effect_points(gamma, 0.5))

    # -- the joint model

    def plain_model(self) -> QuestionModel:
        return QuestionModel(self.number, [(k, pts, self.alpha.get(k, 0.0))
                                           for k, pts in self.points.items()])

    def joint(self, tested: list[Column]) -> QuestionModel:
        """The question's model for papers: the tested columns entered one at a time, the
        strongest first, while one adds something beyond those before it (|z| ≥ SELECT_Z, at
        most MAX_COLUMNS), then fitted together, each effect shrunk by its uncertainty."""
        selected: list[Column] = []
        residual, weight = self.residual, self.weight
        while len(selected) < MAX_COLUMNS:
            base = self._base(selected)
            best, best_z = None, SELECT_Z
            for column in tested:
                if column in selected:
                    continue
                x = np.array([column.of(f) for f in self.features])
                _, se, z = self.score(x, base, residual, weight)
                if se > 0 and abs(z) >= best_z and _adds(base, x):
                    best, best_z = column, abs(z)
            if best is None:
                break
            result = self._fit(selected + [best])
            if result is None:
                break
            selected.append(best)
            residual, weight = self._per_student(result)
        result = self._fit(selected, clustered=True) if selected else None
        if result is None:
            return self.plain_model()
        k = len(selected)
        effects = [_shrunk(float(g), float(s)) for g, s in zip(result.params[-k:], result.bse[-k:])]
        shift = self._class_shift(result.params)
        alphas = {key: float(result.params[j]) + shift for j, key in enumerate(self.modelled)}
        boxes = [(key, pts, alphas.get(key, self.alpha.get(key, 0.0)))
                 for key, pts in self.points.items()]
        return QuestionModel(self.number, boxes, selected, effects)


def _shrunk(gamma: float, se: float) -> float:
    """γ · max(0, 1 − se²/γ²): γ² is estimated by γ̂² − se² (the square of an estimate is its
    square plus its variance), so the effect keeps the share of it that is signal."""
    if gamma == 0:
        return 0.0
    return gamma * max(0.0, 1 - (se / gamma) ** 2)


def _adds(base, x) -> bool:
    """Whether the column `x` says something the design `base` does not."""
    return np.linalg.matrix_rank(np.column_stack([base, x])) > np.linalg.matrix_rank(base)


def _feature_columns(name: str, values: list[Any]) -> list[Column]:
    """The columns of one feature over the papers: a count with more than two values seen is
    one column (centred at its mean); a category (or a count of two values) is one indicator
    per value held by MIN_GROUP papers or more (and not by all but fewer than MIN_GROUP); of
    two values, only the rarer one's."""
    n = len(values)
    seen = Counter(v for v in values if v is not None)
    if len(seen) < 2:
        return []
    if feature_kind(name) == "number" and len(seen) > 2 and all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v in seen):
        numbers = [float(v) for v in values if v is not None]
        return [Column(name, None, sum(numbers) / len(numbers), min(numbers), max(numbers))]
    ranked = sorted(seen, key=lambda v: (-seen[v], str(v)))
    if len(ranked) == 2:
        ranked = ranked[1:]
    return [Column(name, v) for v in ranked if MIN_GROUP <= seen[v] <= n - MIN_GROUP]


#: What the tests and models use of a fit: the coefficients, their standard errors (clustered
#: fits only) and each row's fitted chance.
_Fitted = namedtuple("_Fitted", "params bse fittedvalues")


def _glm(X, y, groups=None) -> _Fitted | None:
    """A binomial GLM of `y` on `X` (standard errors clustered by `groups` when given); None if
    it cannot be fitted (separation, no convergence)."""
    fitted = _fit_glm(X, y, groups)
    # statsmodels' model and result refer to each other and hold arrays several times the
    # design's size: unreachable now, they are collected before the next fit (the young
    # generations only), so that a class of thousands holds one fit's arrays at a time.
    gc.collect(1)
    return fitted


def _fit_glm(X, y, groups) -> _Fitted | None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            model = GLM(y, X, family=families.Binomial())
            if groups is None:
                result = model.fit()
            else:
                result = model.fit(cov_type="cluster", cov_kwds={"groups": groups})
        except Exception:      # statsmodels' separation and convergence warnings, singular X
            return None
    if not np.all(np.isfinite(result.params)) or (
            groups is not None and not np.all(np.isfinite(result.bse))):
        return None
    return _Fitted(np.array(result.params), None if groups is None else np.array(result.bse),
                   np.array(result.fittedvalues))
