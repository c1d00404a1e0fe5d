"""Which answers of a problem are computed from which: the compute function of each answer whose
saved record still means what its family declares, and, per answer, every answer computed from
it. `Prepared` works both out once per problem; carried credit (`quizgen.grade.carry`) walks
them."""

from __future__ import annotations

from typing import Any, Mapping

from quizgen.problems.records import declared_specs
from quizgen.problems.specs import AnswerSpec, Compute, order


def computes(problem: Mapping[str, Any], specs: Mapping[str, AnswerSpec]) -> dict[str, Compute]:
    """The compute functions of the answers whose record says what the family still declares
    (same inputs): a record saved under an older meaning is graded without carried credit."""
    declared = declared_specs(str(problem.get("cell", "")))
    out = {}
    for key, spec in specs.items():
        mine = declared.get(key)
        if mine is not None and mine.compute is not None and mine.depends_on == spec.depends_on:
            out[key] = mine.compute
    return out


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
