"""A Moodle numerical question that offers a percentage: its ``%`` unit and the order of its
answers, written to how Moodle grades a response (``question/type/numerical``):

* ``qtype_numerical_answer_processor::apply_units`` (questiontype.php) reads "37.5%" as the
  number 37.5 and the unit "%", whose multiplier is ``1 / 100`` (a unit's stored multiplier is
  how many of it make one: 100 % make one whole);
* ``qtype_numerical_question::get_matching_answer`` (question.php) tries the answers in the
  file's order and, for each, first the scaled number (0.375) and then the number as typed
  (37.5): the first answer whose window holds either decides. A response without a unit (or
  with one Moodle does not know) has no scaled number.

So a bare window around the right answer 0.375 also catches "0.375%" (typed number 0.375),
the slip of a student who takes the share for a percentage. The answers are therefore:

* for each plain answer v, a *misread* answer at v ÷ 100 with 0% and feedback that says what
  "v%" means (listed before v: "0.375%" scales into its window before v's window sees 0.375);
* ordered so that an answer whose window a scaled number can reach comes before every answer
  whose window the same response's typed number reaches (a stable topological order; answers
  with the same grade and feedback need none), and an answer before a misread window that
  overlaps it;
* the right answer's percent form (37.5) first of all, so that Moodle's review line "The
  correct answer is: 37.5 %" (``get_correct_response``: the first answer at 100% with the first
  unit) is true. Where no percent form of the right answer exists (its number is a modelled
  wrong answer's), the question takes no unit (`percent_unit` is False) and keeps the old
  reading: "37.5%" is then 37.5 with a unit Moodle does not know.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Callable

from quizgen.export.lms.bank import Answer, Box
from quizgen.export.lms.grades import number_text

__all__ = ["PERCENT", "percent_unit", "misread_answers", "moodle_answer_order"]

#: The unit a share's box declares: ``%``, 100 of which make one whole.
PERCENT = ("%", 100)


def _hundredth(value: float | int) -> float:
    """`value` ÷ 100 as a person writes it (0.375 → 0.00375, not 0.0037499999999999999)."""
    return float(Decimal(repr(float(value))).scaleb(-2))


def _window(answer: Answer) -> tuple[float, float]:
    slack = 1e-12 * max(1.0, abs(answer.value))
    return answer.value - answer.tolerance - slack, answer.value + answer.tolerance + slack


def _meet(a: tuple[float, float], b: tuple[float, float]) -> bool:
    return a[0] <= b[1] and b[0] <= a[1]


def right_percent(box: Box) -> Answer | None:
    """The right answer written as a percentage (37.5 for 0.375), if the box holds one."""
    return next((a for a in box.answers if a.percent and a.grade == 100), None)


def percent_unit(box: Box) -> bool:
    """Whether the question declares the ``%`` unit: its prompt offers a percentage and the
    right answer's percent form is one of its answers (what Moodle shows as the right answer)."""
    return box.percent and right_percent(box) is not None


def misread_answers(box: Box, feedback: Callable[[str, str], str]) -> list[Answer]:
    """For each plain answer v of a box that takes a ``%``, the window of "v%" read as v ÷ 100,
    at 0%, with ``feedback(typed, value)`` ("0.375", "0.00375"); left out where it meets one of
    the box's own windows (there "v%" is that answer)."""
    if not percent_unit(box):
        return []
    taken = [_window(a) for a in box.answers]
    out: list[Answer] = []
    for a in box.answers:
        if a.percent:
            continue
        value = _hundredth(a.value)
        misread = Answer(number_text(value), value, 0.0, feedback(a.text, number_text(value)),
                         _hundredth(a.tolerance) if a.tolerance else 0.0)
        if any(_meet(_window(misread), w) for w in taken):
            continue
        taken.append(_window(misread))
        out.append(misread)
    return out


def moodle_answer_order(box: Box, misread: list[Answer]) -> list[Answer]:
    """The box's answers and its misread windows in the order Moodle must try them."""
    first = right_percent(box) if percent_unit(box) else None
    plain = [a for a in box.answers if not a.percent]
    percent = [a for a in box.answers if a.percent and a is not first]
    preferred = ([first] if first is not None else []) + misread + plain + percent
    if not percent_unit(box):
        return preferred
    n = len(preferred)
    windows = [_window(a) for a in preferred]
    before: list[set[int]] = [set() for _ in range(n)]     # before[j]: what must precede j
    for i in range(n):
        for j in range(n):
            if i == j:
                continue
            a, b = preferred[i], preferred[j]
            same = a.grade == b.grade and a.feedback == b.feedback
            scaled = (windows[i][0] * 100, windows[i][1] * 100)
            if not same and _meet(scaled, windows[j]):
                before[j].add(i)            # "Z%": Z/100 in a's window, Z in b's
            if a in box.answers and b in misread and _meet(windows[i], windows[j]):
                before[j].add(i)
    order: list[int] = []
    left = list(range(n))
    while left:
        ready = next((j for j in left if before[j] <= set(order)), None)
        if ready is None:                   # a cycle (only around 0): keep the preferred order
            order += left
            break
        order.append(ready)
        left.remove(ready)
    return [preferred[j] for j in order]
