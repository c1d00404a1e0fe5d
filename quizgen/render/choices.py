"""Multiple-choice options from the misconception models: the right answer and distinct traps."""

from __future__ import annotations

from hashlib import blake2b

from quizgen.problems.base import Family, Misconception, Solved, distinct_wrong
from quizgen.problems.model import Choice
from quizgen.problems.options import MAX_WRONG, plausible
from quizgen.render.answers import answer_text
from quizgen.render.phrases import has, phrase


def build_choices(fam: Family, solved: Solved, miscs: list[Misconception], lang: str,
                  salt: str) -> list[Choice]:
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
    why = (phrase(lang, fam.cell, own, salt=salt) if has(lang, fam.cell, own)
           else phrase(lang, "misconception", "correct", salt=salt))
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
