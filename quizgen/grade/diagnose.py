"""Diagnosis of a wrong answer (stage 4 of grading): which trap it falls into, else where it
parts from the worked solution.

A wrong answer equal to what a misconception model of the family gives names that
misconception, explained in the student's language; otherwise the first worked-solution step
whose value the student's numbers do not match is pointed at.
"""

from __future__ import annotations

from collections.abc import Mapping

from quizgen.grade.judge import Box, compared, same, same_number
from quizgen.grade.prepared import Prepared
from quizgen.grade.results import as_fraction, humanize
from quizgen.problems.specs import NUMERIC_KINDS

# Worked-solution step formulas that compute an answer key under another name.
_STEP_KEYS = {"warps_per_block": "warps", "regs_per_block_allocated": "regs_per_block",
              "blocks_per_sm_exact": "blocks_per_sm", "warps_by_regs": "active_warps"}


def diagnosed(q: Prepared, box: Box, lang: str) -> tuple[tuple[str, ...], str | None]:
    """Stage 4 for one wrong box: its misconceptions and the first one explained (remembered)."""
    if box.memo is None:
        return _misconceptions_of(q, box, lang)
    return q.memo(("diagnosed", *box.memo, lang), _misconceptions_of, q, box, lang)


def _misconceptions_of(q: Prepared, box: Box,
                       lang: str) -> tuple[tuple[str, ...], str | None]:
    """The misconceptions whose answer a wrong box equals, and the first one explained."""
    from quizgen.render.phrases import has, phrase

    misconceptions, explanation = box.misconceptions, box.explanation
    if not misconceptions:
        if box.parsed is not None:
            names = (name for name, exact in q.derived().get("traps", {}).get(box.key, ())
                     if same_number(q, box, exact))
        else:
            names = (name for name, answers in q.misconceptions()
                     if box.key in answers and same(q, box, answers[box.key]))
        misconceptions = tuple(dict.fromkeys(names)) or _unit_slips(q, box)
    if misconceptions and explanation is None:
        first = misconceptions[0]
        explanation = (phrase(lang, "misconception", first, salt=q.id)
                       if has(lang, "misconception", first) else humanize(first))
    return misconceptions, explanation


def _unit_slips(q: Prepared, box: Box) -> tuple[str, ...]:
    """A slip of units no family models, because every family asking for warps invites it:
    threads given where warps are asked (2,048 for 64 active warps)."""
    exact = q.expected.get(box.key)
    if box.value is None or exact is None or not exact or q.unit_word(box.key) != "warps":
        return ()
    gpu = q.problem.get("gpu")
    warp_size = gpu.get("warp_size", 32) if isinstance(gpu, Mapping) else 32
    return ("threads_as_warps",) if box.value == exact * warp_size else ()


def parting_index(q: Prepared, boxes: Mapping[str, Box]) -> int:
    """The 1-based index of the first solution step whose value differs from the student's
    value for that quantity (0: none). Carrying does not change it: a carried answer still
    takes part, with the value the student wrote."""
    first = 0
    for box in boxes.values():
        if box.value is None or box.status == "invalid":
            continue
        index = (_parts_at(q, box) if box.memo is None
                 else q.memo(("parts", *box.memo), _parts_at, q, box))
        if index and (not first or index < first):
            first = index
    return first


def parting_step(q: Prepared, index: int) -> tuple[int, str, str] | None:
    """Step `index` (1-based) as shown: (index, title, its value in the solution)."""
    from quizgen.render.solution import format_value

    if not index:
        return None
    step = q.steps()[index - 1]
    return index, str(step.get("title", "")), format_value(step.get("result"))


def _parts_at(q: Prepared, box: Box) -> int:
    """The 1-based index of the first solution step of this box's quantity whose value the
    box's answer does not match (0: none)."""
    if not box.parsed:
        return 0
    key = box.key
    if q.kind[key] not in NUMERIC_KINDS:
        return 0
    for index, step in enumerate(q.steps(), start=1):
        formula = step.get("formula")
        if not formula:
            continue
        if _STEP_KEYS.get(str(formula), str(formula)) != key:
            continue
        result = as_fraction(step.get("result"))
        if result is None:
            continue
        if compared(box.parsed, result, kind=q.kind[key], tolerance=q.tolerance[key],
                    unit=q.unit_word(key)).status != "correct":
            return index
    return 0
