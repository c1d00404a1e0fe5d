"""Multiple-choice options from the misconception models: the right answer and distinct traps.

The right option says how it is reached with this problem's own numbers: the cell's method in
words, then the arithmetic of the worked solution's steps that end at the answer
(`right_chain`), so the reason under the right option always arrives at the option's value.
"""

from __future__ import annotations

import re
from hashlib import blake2b
from typing import Any

from quizgen.problems.base import Family, Misconception, Solved, distinct_wrong
from quizgen.problems.model import Choice, SolutionStep
from quizgen.problems.options import MAX_WRONG, plausible
from quizgen.render.answers import answer_text
from quizgen.render.phrases import has, phrase


#: The most steps of arithmetic a right option quotes (the answer's step and what it uses).
CHAIN_STEPS = 3


def _value(result: Any) -> Any:
    """A step's result as a number (a share prints as "0.75 = 75%") or a list; None for text."""
    if result.__class__ is str:
        head = result.split(" = ", 1)[0].replace(",", "")
        try:
            return float(head)
        except ValueError:
            return None
    return result


def _same(a: Any, b: Any, places: float = 1e-9) -> bool:
    """Whether two results are the same number (or list), `places` the relative tolerance."""
    if isinstance(a, (list, tuple)) or isinstance(b, (list, tuple)):
        return isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)) and list(a) == list(b)
    if isinstance(a, bool) or isinstance(b, bool) or a is None or b is None:
        return False
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return abs(a - b) <= places * max(1.0, abs(a))
    return False


#: A result's unit → the words a symbol's meaning uses for such a quantity.
_UNIT_WORDS = {"cycle": ("cycle", "time", "latency")}


def _feeds(step: SolutionStep, into: SolutionStep, sym: str) -> bool:
    """Whether `step`'s result is the value `into` uses for symbol `sym`: equal to it, and in a
    unit the symbol's meaning names, or any unit for a symbol that means a value (a count of
    blocks feeds "resident blocks per SM", not "warp schedulers per SM"; any count feeds "the
    largest value the limit allows")."""
    from quizgen.engine.formulas import meaning

    if not _same(_value(step.result), into.values[sym]):
        return False
    unit = step.unit.lower().rstrip("s") if step.unit else ""
    if not unit:
        return True
    text = meaning(into.formula).get(sym, "").lower()
    words = _UNIT_WORDS.get(unit, (unit,))
    return "value" in text or any(re.search(rf"\b{re.escape(w)}s?\b", text) for w in words)


def _passes_through(step: SolutionStep, into: SolutionStep, sym: str) -> bool:
    """Whether `into` takes its `sym` straight from the problem, as `step` does: a step that
    only picks that same number (min(8250, 80) = 80 SMs feeding "SMs on the GPU" = 80) is not
    where the number comes from."""
    return sym in step.values and _same(step.values[sym], into.values[sym])


def _computes(step: SolutionStep) -> bool:
    """Whether a step works something out (B_max = 16 only reads a number off the chip)."""
    from quizgen.engine.formulas import sources

    return any(op in sources()[step.formula][0] for op in "*/+-(")


def right_chain(steps: list[SolutionStep], value: Any, unit: str = "") -> str:
    """The arithmetic that ends at `value`: the last step computing it, and the steps whose
    results it uses, and theirs (at most `CHAIN_STEPS` in all), each ``formula = result unit``
    in the solution's order, joined by "; " (empty when no step computes the value in `unit`,
    the answer's unit as written)."""
    from quizgen.render import math as qmath
    from quizgen.render.solution import format_value

    found = None
    for i in range(len(steps) - 1, -1, -1):
        st = steps[i]
        # a result written as a share ("0.6667 = 66.667%") is rounded to its printed places
        tolerance = 1e-4 if st.result.__class__ is str else 1e-9
        if st.formula and _same(_value(st.result), value, tolerance) and (not unit or not st.unit
                                                               or st.unit == unit):
            found = i
            break
    if found is None:
        return ""
    chain, queue = [found], [found]
    while queue and len(chain) < CHAIN_STEPS:
        into = steps[queue.pop(0)]
        for sym in into.values:
            j = next((j for j in range(chain[0] - 1, -1, -1)
                      if steps[j].formula and j not in chain and _feeds(steps[j], into, sym)
                      and not _passes_through(steps[j], into, sym) and _computes(steps[j])),
                     None)
            if j is not None and len(chain) < CHAIN_STEPS:
                chain.append(j)
                queue.append(j)
    parts = []
    for i in sorted(chain):
        st = steps[i]
        result = st.result if st.result.__class__ is str else format_value(st.result)
        text = f"{qmath.substituted(st.formula, st.values, 'unicode')} = {result}"
        parts.append(text + st.unit if st.unit == "×" else f"{text} {st.unit}".rstrip())
    return "; ".join(parts)


def build_choices(fam: Family, solved: Solved, miscs: list[Misconception], lang: str,
                  salt: str, steps: list[SolutionStep] | None = None) -> list[Choice]:
    key = solved.data.get("main_answer") or fam.main_answer
    answers = solved.answers
    if key not in answers:
        return []
    correct = answers[key]
    unit = fam.units.get(key, "")
    wrong = [m for m in distinct_wrong(correct, miscs, key) if plausible(m.answers[key], unit)]
    if not wrong:
        return []
    text = answer_text(correct, unit, lang)
    # The right option's reason is the cell's own method (the occupancy sentence is the default
    # only for the cells that are the notes' occupancy calculation).
    from quizgen.render.solution import unit_text

    written = "" if unit in ("", "fraction", "ratio") else unit_text(unit, correct, lang)
    chain = right_chain(steps or [], correct, written)
    ctx = {**solved.data.get("rendered_ctx", {}), "chain": chain}
    why = (phrase(lang, fam.cell, "correct", ctx, salt=salt) if has(lang, fam.cell, "correct")
           else phrase(lang, "misconception", "correct", ctx, salt=salt))
    choices = [Choice(text, correct, True, why)]
    shown = {text}
    for m in wrong:
        value = m.answers[key]
        text = answer_text(value, unit, lang)
        if text in shown:
            continue
        shown.add(text)
        why = phrase(lang, "misconception", m.key, salt=salt) if has(lang, "misconception", m.key) else m.key
        choices.append(Choice(text, value, False, why, m.key))
        if len(choices) > MAX_WRONG:
            break
    if len(choices) < max(2, fam.min_options):
        return []
    # A stable order that does not always put the right answer first (texts are distinct).
    keyed = sorted((blake2b(f"{salt}|{c.text}".encode(), digest_size=4).digest(), i)
                   for i, c in enumerate(choices))
    return [choices[i] for _, i in keyed]
