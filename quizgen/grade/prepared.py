"""A saved problem made ready for grading many answers: expected values, kinds, points.

The grader reads only the saved record (a manifest's question, or a problem JSON). The family's
solver and misconception models are re-run on the saved parameters only to *explain* a wrong
answer (`derive`), never to decide what is right.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from functools import cached_property
from typing import Any

from quizgen.errors import QuizgenError
from quizgen.grade.dependencies import computes, downstream
from quizgen.grade.memo import PROBLEMS, ProblemMemo, frozen
from quizgen.grade.results import as_fraction, number_text
from quizgen.languages import DEFAULT_LANG
from quizgen.manifest import MAX_POINTS
from quizgen.problems.records import record_specs
from quizgen.problems.specs import AnswerSpec, canonical_unit, order


class Prepared:
    """One problem of a manifest (or a problem JSON) made ready for grading many answers.

    Expected values are converted once; the family's solver and misconception models are run
    only when a wrong answer needs explaining, and at most once. `memo` remembers what grading
    many students' texts against this problem works out (see `quizgen.grade.memo`).
    """

    def __init__(self, problem: Mapping[str, Any], *, number: int = 0,
                 asked: Sequence[str] | None = None,
                 tolerances: Mapping[str, Any] | None = None,
                 points: Any = None) -> None:
        if not isinstance(problem, Mapping):
            raise QuizgenError("expected a problem object", field="problem")
        for name in ("cell", "answers"):
            if name not in problem:
                raise QuizgenError(f"a problem needs {name!r}", field="problem")
        if not isinstance(problem["answers"], Mapping):
            raise QuizgenError("'answers' must be an object", field="problem")
        self.problem = problem
        self.number = number
        self.id = str(problem.get("id", ""))
        self.cell = str(problem["cell"])
        self.lang = str(problem.get("lang") or DEFAULT_LANG)
        self.answers: Mapping[str, Any] = problem["answers"]
        self.params: Mapping[str, Any] = problem.get("params") or {}
        self.specs: dict[str, AnswerSpec] = record_specs(problem)
        self.units: Mapping[str, str] = {k: spec.unit for k, spec in self.specs.items()}
        keys = list(asked) if asked is not None else list(self.answers)
        unknown = [k for k in keys if k not in self.answers]
        if unknown:
            raise QuizgenError(f"{unknown[0]!r} is not an answer of problem {self.id or self.cell}",
                               field="asked")
        self.asked = keys
        given = tolerances or {}
        self.tolerance: dict[str, Fraction | None] = {}
        for key in keys:
            # A manifest writes 0 for "no tolerance given"; then the spec's applies.
            tol = given.get(key) or self.specs[key].tolerance
            self.tolerance[key] = as_fraction(tol) if tol else None
        self.kind = {key: self.specs[key].kind for key in keys}
        self.unit = {key: self._unit_word(key) for key in keys}
        self.expected = {key: as_fraction(self.answers[key]) for key in keys}
        self.points = question_points(points, keys)
        self.memo = ProblemMemo()
        self._texts: dict[tuple[str, str], str] = {}      # expected_text, per (key, language)

    # -- kinds, units, display

    def _unit_word(self, key: str) -> str | None:
        unit = self.units.get(key)
        return str(unit) if unit and canonical_unit(str(unit)) else None

    def unit_word(self, key: str) -> str | None:
        return self.unit[key] if key in self.unit else self._unit_word(key)

    def expected_text(self, key: str, lang: str) -> str:
        """The expected answer as shown to a student ("0.21875 (21.875%)", "7 blocks")."""
        found = self._texts.get((key, lang))
        if found is None:
            found = self._texts[key, lang] = self._expected_text(key, lang)
        return found

    def _expected_text(self, key: str, lang: str) -> str:
        from quizgen.render.answers import answer_text

        value = self.answers[key]
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return number_text(value, self.specs[key].unit, self.specs[key].format, lang)
        if isinstance(value, str) and lang == self.lang:   # a named option: its text, as offered
            for choice in self.problem.get("choices") or ():
                if isinstance(choice, Mapping) and choice.get("value") == value and choice.get("text"):
                    return str(choice["text"])
        return answer_text(value, self.specs[key].unit, lang)   # as the key prints it

    # -- the family's view (only to explain)

    def derived(self) -> dict[str, Any]:
        """Solver output, misconceptions and GPUs, computed once (empty when not available)."""
        return self._derived

    @cached_property
    def _derived(self) -> dict[str, Any]:
        return derive(self.problem)

    def computes(self) -> dict[str, Any]:
        """The compute function of each answer that depends on others (carried credit)."""
        return self._computes

    @cached_property
    def _computes(self) -> dict[str, Any]:
        return computes(self.problem, self.specs)

    def downstream(self) -> dict[str, frozenset[str]]:
        """Per answer key, the answers computed from it (directly or through others)."""
        return self._downstream

    @cached_property
    def _downstream(self) -> dict[str, frozenset[str]]:
        return downstream(self.specs, self.computes())

    @cached_property
    def order(self) -> list[str]:
        """The answer keys, each after the answers it is computed from."""
        return order(self.specs)

    def misconceptions(self) -> list[tuple[str, Mapping[str, Any]]]:
        return self.derived().get("misconceptions", [])

    def steps(self) -> list[Mapping[str, Any]]:
        return self._steps

    @cached_property
    def _steps(self) -> list[Mapping[str, Any]]:
        solution = self.problem.get("solution")
        steps = (solution.get("steps") or []) if isinstance(solution, Mapping) else []
        return [s for s in steps if isinstance(s, Mapping)]


def derive(problem: Mapping[str, Any]) -> dict[str, Any]:
    """The family's view of a problem, shared by every student who has the same problem."""
    gpu = problem.get("gpu")
    try:
        # The id is a hash of cell, parameters, GPU and seed; the parameters and the GPU's
        # name are added so that a hand-edited manifest never reuses a stale answer.
        key = ("derive", str(problem.get("id")), str(problem.get("cell")),
               frozen(problem.get("params") or {}),
               gpu.get("name") if isinstance(gpu, Mapping) else None)
        if not problem.get("id"):
            key += (frozen(gpu or {}),)
        hash(key)
    except TypeError:
        return _derive_now(problem)
    return PROBLEMS(key, _derive_now, problem)


def _derive_now(problem: Mapping[str, Any]) -> dict[str, Any]:
    """Re-run the family on the saved parameters: its GPU, solution and misconception models."""
    out: dict[str, Any] = {}
    try:
        from quizgen.gpus import gpu_from_dict
        from quizgen.problems import family

        gpu = gpu_from_dict(problem["gpu"]) if isinstance(problem.get("gpu"), Mapping) else None
        out["gpu"] = gpu
        fam = family(str(problem["cell"]))
        params = dict(problem.get("params") or {})
        if gpu is None:
            return out
        solved = fam.solve(params, gpu, explain=False)
        out["solved"] = solved
        out["misconceptions"] = [(m.key, dict(m.answers))
                                 for m in fam.applicable_misconceptions(params, gpu, solved)]
        # Each trap's numbers, exact, per answer key (the comparisons' fast path).
        traps: dict[str, list[tuple[str, Fraction]]] = {}
        for name, answers in out["misconceptions"]:
            for key, value in answers.items():
                number = as_fraction(value)
                if number is not None:
                    traps.setdefault(key, []).append((name, number))
        out["traps"] = traps
    except (QuizgenError, KeyError, TypeError, ValueError, ArithmeticError):
        # A problem from a family this install does not know, or hand-written parameters:
        # it is still graded from its saved answers, only without diagnosis.
        pass
    return out


def question_points(points: Any, keys: Sequence[str]) -> dict[str, Fraction]:
    """Points per answer box: a number is split evenly across the boxes, a dict is per key.

    No points at all means one point per box.
    """
    if not keys:
        return {}
    if points is None:
        return {key: Fraction(1) for key in keys}
    if isinstance(points, Mapping):
        return {key: _points_value(points.get(key, 0), key) for key in keys}
    total = _points_value(points, "points")
    return {key: total / len(keys) for key in keys}


def _points_value(value: Any, where: str) -> Fraction:
    number = as_fraction(value)
    if number is None and isinstance(value, str):
        from quizgen.grade.parse import read_number

        number = read_number(where, value, minimum=0, maximum=MAX_POINTS,
                             expected="a number of points")
    if number is None or number < 0 or number > MAX_POINTS:
        raise QuizgenError(f"got {value!r}; expected a number of points from 0 to {MAX_POINTS:,}",
                           field=where)
    return number


def prepare(problem: Any, **kwargs: Any) -> Prepared:
    """A `Prepared` problem from a `Problem`, its dict, or a manifest question."""
    if hasattr(problem, "to_dict"):
        problem = problem.to_dict()
    return Prepared(problem, **kwargs)
