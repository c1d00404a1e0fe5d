"""Carried-error credit from a student's own answers.

What each answer means (`record_specs`: the record's own specs, else its family's declaration)
is read in `quizgen.problems.records`; the grader and the cards read it there. Which answers are
computed from which is `quizgen.grade.dependencies`'s.

Carried credit is one operation for every family: walk the answers in dependency order and
recompute each one that depends on earlier answers with its spec's `compute` (the engine function
the solver uses), fed the student's own earlier values where they wrote readable ones of the
right kind. A value that is itself the mistake a question tests (a count of warps or blocks that
is not whole, an occupancy above 1) feeds nothing.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Mapping

from quizgen.grade.judge import Box, same, same_number
from quizgen.grade.memo import SHARED, frozen
from quizgen.grade.prepared import Prepared
from quizgen.grade.results import fraction_text, number_text
from quizgen.problems.specs import AnswerSpec, Compute, order, plain_number, usable


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


# ---------------------------------------------------------------------------------------------
# Stage 3 of grading a question: which wrong boxes earn their points as carried errors


def carry_credit(q: Prepared, boxes: Mapping[str, Box], lang: str) -> dict[str, str]:
    """Stage 3: carried-error credit for wrong answers right by the student's own numbers.

    Returns, per answer key that is carried, the sentence explaining why it earns its points.
    """
    fns = q.computes()
    if not fns:
        return {}
    # Every answer the student wrote readably feeds what follows (a right one at the record's
    # value); an unreadable or blank box leaves the record's value in place.
    own = {}
    for key, box in boxes.items():
        if box.status == "wrong":
            value = box.value if box.parsed is not None else box.text_value
            if value is not None:
                own[key] = value
        elif box.status == "correct":
            own[key] = q.answers[key]
    # Nothing carries unless a wrong box lies downstream of an answer the student got wrong.
    below = q.downstream()
    wrong = [k for k, b in boxes.items() if b.status == "wrong"]
    if not any(w in below.get(k, ()) for k in own if k in wrong for w in wrong):
        return {}
    # Not remembered: the student's own numbers together are nearly always theirs alone (a
    # class of two thousand asks again about one in a hundred), so a table of them would only
    # grow with the class.
    return _carried(q, boxes, lang, fns, own)


def _carried(q: Prepared, boxes: Mapping[str, Box], lang: str, fns: Mapping[str, Compute],
             own: Mapping[str, Any]) -> dict[str, str]:
    gpu = q.derived().get("gpu")
    out: dict[str, str] = {}
    if gpu is not None:
        carried = carried_values(q.specs, fns, q.answers, q.params, gpu, own, q.order)
        for key, box in boxes.items():
            if box.status != "wrong" or key not in carried:
                continue
            value, sources = carried[key]
            if _carried_equal(q, box, value):
                out[key] = _carry_text(q, lang, sources, value, key, own)
    return out


def _carried_equal(q: Prepared, box: Box, value: Any) -> bool:
    if isinstance(value, Fraction):
        return box.parsed is not None and same_number(q, box, value)
    return same(q, box, value)


def _carry_text(q: Prepared, lang: str, sources: frozenset[str], value: Any, key: str,
                own: Mapping[str, Any]) -> str:
    """ "Carried from (b): with your blocks per SM = 9, the right method gives 72 warps …" """
    from quizgen.render.answers import answer_name
    from quizgen.render.phrases import phrase

    letters = {k: _box_letter(i) for i, k in enumerate(q.asked)}
    named = [k for k in q.asked if k in sources]
    boxes = ", ".join(f"({letters[k]})" for k in named)
    uses = ", ".join(f"{answer_name(k, lang)} = {_shown(own[k], lang)}" for k in named)
    if isinstance(value, (int, Fraction)) and not isinstance(value, bool):
        shown = number_text(_plain(value), q.specs[key].unit, q.specs[key].format, lang)
    else:
        from quizgen.render.answers import answer_text

        shown = answer_text(value, q.specs[key].unit, lang)
    return SHARED(("carry_text", lang, boxes, uses, shown), phrase, lang, "grade_carry",
                  "carried", {"boxes": boxes, "uses": uses, "value": shown})


def _box_letter(index: int) -> str:
    """The letter a sheet prints before a question's box (a, b, …)."""
    return chr(ord("a") + index) if index < 26 else str(index + 1)


def _shown(value: Any, lang: str) -> str:
    """A student's own answer as the carried note quotes it (yes/no in `lang`)."""
    if isinstance(value, Fraction):
        return fraction_text(value)
    if isinstance(value, (frozenset, set)):
        return " + ".join(sorted(str(v).replace("_", " ") for v in value))
    if isinstance(value, tuple):
        return "(" + ", ".join(_shown(v, lang) for v in value) + ")"
    if isinstance(value, bool):
        from quizgen.render.solution import yes_no

        return yes_no(value, lang)
    return str(value)


def _plain(value: Any) -> Any:
    if isinstance(value, Fraction):
        return value.numerator if value.denominator == 1 else float(value)
    return value
