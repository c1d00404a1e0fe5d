"""What each answer means to the grader, and carried-error credit from a student's own answers.

A problem record carries its answer specs (kind, unit, format, tolerance, depends_on). A record
written before specs existed (a version-1 manifest) gets them from its registered family; a record
of a family this install does not know is read by its values alone (a number is compared as a
number, a list of names as a set of limits, …).

Carried credit is one operation for every family: walk the answers in dependency order and
recompute each one that depends on earlier answers with its spec's `compute` (the engine function
the solver uses), fed the student's own earlier values where they wrote readable ones of the
right kind. A value that is itself the mistake a question tests (a count of warps or blocks that
is not whole, an occupancy above 1) feeds nothing.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Callable, Mapping

from quizgen.problems.specs import AnswerSpec, order, plain_number, usable

Compute = Callable[[Mapping[str, Any], Any], Any]


def record_specs(problem: Mapping[str, Any]) -> dict[str, AnswerSpec]:
    """The specs of a problem's answers: the record's own, else its family's declaration."""
    answers = problem.get("answers") or {}
    own = problem.get("answer_specs")
    declared = _declared(str(problem.get("cell", "")))
    out: dict[str, AnswerSpec] = {}
    for key, value in answers.items():
        spec = None
        if isinstance(own, Mapping) and isinstance(own.get(key), Mapping):
            try:
                spec = AnswerSpec.from_dict(own[key])
            except (ValueError, TypeError):
                spec = None
        if spec is None:
            spec = declared.get(key) or _by_value(value)
        out[key] = spec
    return out


def computes(problem: Mapping[str, Any], specs: Mapping[str, AnswerSpec]) -> dict[str, Compute]:
    """The compute functions of the answers whose record says what the family still declares
    (same inputs): a record saved under an older meaning is graded without carried credit."""
    declared = _declared(str(problem.get("cell", "")))
    out = {}
    for key, spec in specs.items():
        mine = declared.get(key)
        if mine is not None and mine.compute is not None and mine.depends_on == spec.depends_on:
            out[key] = mine.compute
    return out


def _declared(cell: str) -> dict[str, AnswerSpec]:
    from quizgen.errors import QuizgenError
    from quizgen.problems import family

    try:
        return dict(family(cell).answer_specs)
    except QuizgenError:
        return {}


def _by_value(value: Any) -> AnswerSpec:
    """A spec for an answer of a family this install does not know: read by the value's type."""
    if isinstance(value, bool):
        return AnswerSpec("yes_no")
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        return AnswerSpec("limits")
    if isinstance(value, list):
        return AnswerSpec("coords")
    if isinstance(value, str):
        return AnswerSpec("choice")
    return AnswerSpec("real")


_BROKEN = object()


def carried_values(specs: Mapping[str, AnswerSpec], fns: Mapping[str, Compute],
                   answers: Mapping[str, Any], params: Mapping[str, Any], gpu: Any,
                   own: Mapping[str, Any],
                   keys: list[str] | None = None) -> dict[str, tuple[Any, frozenset[str]]]:
    """Per answer key whose value changes once the student's own answers (`own`: key → the value
    they wrote, right or wrong) replace the record's: (the value by the student's numbers, the
    keys of the student's answers it comes from)."""
    inputs: dict[str, Any] = {}
    sources: dict[str, frozenset[str]] = {}
    broken: set[str] = set()
    out: dict[str, tuple[Any, frozenset[str]]] = {}
    for key in keys if keys is not None else order(specs):
        spec = specs[key]
        deps = [d for d in spec.depends_on if d != key and d in specs]
        value: Any = answers[key]
        src: frozenset[str] = frozenset()
        fn = fns.get(key)
        if fn is not None and deps:
            if any(d in broken for d in deps):
                value = _BROKEN
            else:
                src = frozenset().union(*(sources.get(d, frozenset()) for d in deps))
                if src:
                    values = {d: params[d] for d in spec.depends_on if d in params and d not in deps}
                    values.update({d: plain_number(inputs.get(d, answers[d])) for d in deps})
                    try:
                        value = fn(values, gpu)
                    except (ArithmeticError, KeyError, TypeError, ValueError, IndexError,
                            StopIteration):
                        value = _BROKEN
                    if value is None:
                        value = _BROKEN
                    elif _near(value, answers[key], spec.tolerance):
                        value, src = answers[key], frozenset()   # the slip changes nothing here
        if value is not _BROKEN and src:
            out[key] = (value, src)
        # What the answers after this one use for it.
        if key in own:
            if _near(own[key], answers[key], spec.tolerance):
                pass                                   # written right: the record's value
            elif usable(spec, own[key]):
                inputs[key], sources[key] = own[key], frozenset({key})
            else:
                broken.add(key)
        elif value is _BROKEN:
            broken.add(key)
        elif src:
            inputs[key], sources[key] = value, src
    return out


def _near(a: Any, b: Any, tolerance: float) -> bool:
    if a == b:
        return True
    x, y = exact(a), exact(b)
    if x is None or y is None or not tolerance:
        return False
    return abs(x - y) <= _tolerance(tolerance)


_TOLERANCES: dict[float, Fraction] = {}


def _tolerance(value: float) -> Fraction:
    found = _TOLERANCES.get(value)
    if found is None:
        found = _TOLERANCES[value] = Fraction(repr(value))
    return found


def downstream(specs: Mapping[str, AnswerSpec], fns: Mapping[str, Compute]) -> dict[str, frozenset[str]]:
    """Per answer key, the answers computed from it, directly or through others."""
    users: dict[str, set[str]] = {k: set() for k in specs}
    for key, spec in specs.items():
        if key in fns:
            for dep in spec.depends_on:
                if dep != key and dep in users:
                    users[dep].add(key)
    out: dict[str, frozenset[str]] = {}
    for key in order(specs)[::-1]:
        found = set(users[key])
        for user in users[key]:
            found |= out.get(user, frozenset())
        out[key] = frozenset(found)
    return out


def exact(value: Any) -> Fraction | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, Fraction):
        return value
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, float):
        return Fraction(repr(value))
    return None
