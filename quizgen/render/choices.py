"""Multiple-choice options from the misconception models: the right answer and distinct traps.

The right option says how it is reached with this problem's own numbers: the cell's method in
words, then the arithmetic of the worked solution's steps that end at the answer
(`right_chain`), so the reason under the right option always arrives at the option's value.
"""

from __future__ import annotations

import re
from functools import cache
from hashlib import blake2b
from typing import Any

from quizgen.problems.base import Family, Misconception, Solved, distinct_wrong
from quizgen.problems.model import Choice, SolutionStep
from quizgen.problems.options import MAX_WRONG, plausible
from quizgen.render.answers import answer_text
from quizgen.render.math import substituted
from quizgen.render.phrases import has, phrase
from quizgen.render.solution import format_value, unit_text


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


#: Where the head of a symbol's meaning ends and what qualifies it begins.
_HEAD_END = re.compile(r"\b(?:whose|that|which|where|with|of)\b")
#: A result's unit → the words a symbol's meaning uses for such a quantity.
_UNIT_WORDS = {"cycle": ("cycle", "time", "latency")}


def _feeds(step: SolutionStep, into: SolutionStep, sym: str, result: Any = None) -> bool:
    """Whether `step`'s result is the value `into` uses for symbol `sym`: equal to it, and in a
    unit the symbol's meaning names, or any unit for a symbol that means a value (a count of
    blocks feeds "resident blocks per SM", not "warp schedulers per SM"; any count feeds "the
    largest value the limit allows"). `result`: the step's result as a number, if known."""
    if not _same(_value(step.result) if result is None else result, into.values[sym]):
        return False
    return not step.unit or _unit_named(into.formula, sym, step.unit)


@cache
def _unit_named(formula: str, sym: str, unit: str) -> bool:
    """Whether symbol `sym` of `formula` means a quantity in `unit` (or any value), read from
    the head of its meaning ("warps whose lanes split" counts warps, not lanes)."""
    from quizgen.engine.formulas import sources

    unit = unit.lower().rstrip("s")
    if not unit:
        return True
    text = _HEAD_END.split(sources()[formula][1].get(sym, "").lower(), 1)[0]
    words = _UNIT_WORDS.get(unit, (unit,))
    return "value" in text or any(re.search(rf"\b{re.escape(w)}s?\b", text) for w in words)


def _passes_through(step: SolutionStep, into: SolutionStep, sym: str) -> bool:
    """Whether `into` takes its `sym` straight from the problem, as `step` does: a step that
    only picks that same number (min(8250, 80) = 80 SMs feeding "SMs on the GPU" = 80) is not
    where the number comes from."""
    return sym in step.values and _same(step.values[sym], into.values[sym])


@cache
def _arithmetic(formula: str) -> bool:
    from quizgen.engine.formulas import sources

    return any(op in sources()[formula][0] for op in "*/+-(")


def _feeder(before: list[tuple[int, SolutionStep, Any]], index: dict[Any, list[tuple[int, Any]]],
            floats: bool, chain: list[int], into: SolutionStep, sym: str, used: Any) -> int | None:
    """The latest step of `before` (not yet in `chain`) whose result `into` uses as `sym`.
    `index`: the numeric results of `before` → their steps, latest first (an equal number is
    found without a scan); where a float is among them (`floats`) or used, the numbers are also
    compared within `_same`'s tolerance (a float's rounding)."""
    cls = used.__class__
    if cls is int or cls is float:
        for j, st in index.get(used, ()):
            if j not in chain and (not st.unit or _unit_named(into.formula, sym, st.unit)) \
                    and not _passes_through(st, into, sym):
                return j
        if cls is int and not floats:
            return None
        for j, st, result in before:        # a float's rounding: compared inline (`_same`)
            rc = result.__class__
            if (rc is int or rc is float) and abs(result - used) <= 1e-9 * max(1.0, abs(result)) \
                    and j not in chain and (not st.unit or _unit_named(into.formula, sym, st.unit)) \
                    and not _passes_through(st, into, sym):
                return j
        return None
    return next((j for j, st, result in before
                 if j not in chain and _same(result, used) and _feeds(st, into, sym, result)
                 and not _passes_through(st, into, sym)), None)


def right_chain(steps: list[SolutionStep], value: Any, unit: str = "") -> str:
    """The arithmetic that ends at `value`: the last step computing it, and the steps whose
    results it uses, and theirs (at most `CHAIN_STEPS` in all), each ``formula = result unit``
    in the solution's order, joined by "; " (empty when no step computes the value in `unit`,
    the answer's unit as written)."""
    found = None
    for i in range(len(steps) - 1, -1, -1):
        st = steps[i]
        if not st.formula or unit and st.unit and st.unit != unit:
            continue
        result = st.result
        rc = result.__class__
        if rc is str:       # a share ("0.6667 = 66.667%"), rounded to its printed places
            if _same(_value(result), value, 1e-4):
                found = i
                break
        elif (rc is int or rc is float) and value.__class__ in (int, float):
            if abs(result - value) <= 1e-9 * max(1.0, abs(result)):
                found = i
                break
        elif _same(result, value):
            found = i
            break
    if found is None:
        return ""
    # the steps before the answer's that compute a number: (index, step, its result)
    before = []
    for j in range(found - 1, -1, -1):
        st = steps[j]
        if st.formula and _arithmetic(st.formula):
            result = st.result
            before.append((j, st, _value(result) if result.__class__ is str else result))
    index: dict[Any, list[tuple[int, Any]]] = {}
    floats = False
    for j, st, result in before:
        rc = result.__class__
        if rc is int or rc is float:
            index.setdefault(result, []).append((j, st))
            floats = floats or rc is float
    chain, queue = [found], [found]
    while queue and len(chain) < CHAIN_STEPS:
        into = steps[queue.pop(0)]
        for sym, used in into.values.items():
            cls = used.__class__
            if cls is int and not floats and used not in index:
                continue                    # no earlier step has this number (the usual case)
            j = _feeder(before, index, floats, chain, into, sym, used)
            if j is not None:
                chain.append(j)
                queue.append(j)
                if len(chain) == CHAIN_STEPS:
                    break
    return "; ".join(_step_text(steps[i]) for i in sorted(chain))


#: (formula, its values, result, unit) → the step's arithmetic as text: problems drawn from the
#: same pools repeat most steps (kept to a bounded size). A formula's values are numbers (sympy
#: symbols), so equal keys print alike; the result's type is in the key (True == 1).
_TEXTS: dict[Any, str] = {}


def _step_text(st: SolutionStep) -> str:
    """``formula = result unit`` of one step, in plain text."""
    try:
        key = (st.formula, tuple(st.values.items()), st.result, st.result.__class__, st.unit)
        return _TEXTS[key]
    except KeyError:
        pass
    except TypeError:                       # a list among the values: not kept
        key = None
    result = st.result if st.result.__class__ is str else format_value(st.result)
    text = f"{substituted(st.formula, st.values, 'unicode')} = {result}"
    text = text + st.unit if st.unit == "×" else f"{text} {st.unit}".rstrip()
    if key is not None and len(_TEXTS) < 20_000:
        _TEXTS[key] = text
    return text


@cache
def _quotes_chain(lang: str, section: str, key: str) -> bool:
    """Whether the right option's phrase `key` of `section` quotes the worked arithmetic (a
    phrase that works the answer out with its own numbers needs no chain)."""
    from quizgen.render.phrases import book

    variants = book(lang)[section][key]
    return any("chain" in str(v) for v in ([variants] if isinstance(variants, str) else variants))


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
    own = solved.data.get("correct_phrase", "correct")     # a cell's case may have its own
    section = fam.cell if has(lang, fam.cell, own) else "misconception"
    if section == "misconception":
        own = "correct"
    ctx = solved.data.get("rendered_ctx", {})
    if _quotes_chain(lang, section, own):
        written = "" if unit in ("", "fraction", "ratio") else unit_text(unit, correct, lang)
        ctx = {**ctx, "chain": right_chain(steps or [], correct, written)}
    why = phrase(lang, section, own, ctx, salt=salt)
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
    # A stable order that does not always put the right answer first (texts are distinct):
    # by the hash of "salt|text", the salt's part hashed once.
    salted = blake2b(f"{salt}|".encode(), digest_size=4)
    keyed = []
    for i, c in enumerate(choices):
        h = salted.copy()
        h.update(c.text.encode())
        keyed.append((h.digest(), i))
    keyed.sort()
    return [choices[i] for _, i in keyed]
