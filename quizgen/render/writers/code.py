"""The words of the cells worked from code (D-1 … D-5): the code the question shows, printed as
code (a fenced paragraph, as K-1 shows its kernel: cards, sheets and Markdown keep its lines),
and the worked solution from the engine's counts.

Each cell's phrasebook section has its entries per variant of the question (``question_<v>``,
``forecast_<v>``, ``verify_<v>``, ``answer_<v>``, ``mcq_stem_<v>``; the variant is the family's
`variant`), a trap per situation (``trap_<situation>``, said only where the family's
`trap_when` holds), and the steps are the engine's, said with this cell's why-lines.
"""

from __future__ import annotations

from typing import Any

from hashlib import blake2b

from quizgen.problems.model import Choice, Solution
from quizgen.render.code_listing import listing
from quizgen.render.phrases import has, phrase, phrase_list
from quizgen.render.writers import writes
from quizgen.render.writers.family import FamilyWriter
from quizgen.render.writers.warps import tuple_text
from quizgen.problems.code_families import CodeFamily


def fenced(code: str) -> str:
    """Code as the question's last paragraph: a fenced block the exporters print as code."""
    return "\n\n```cuda\n" + code.rstrip("\n") + "\n```"


@writes(CodeFamily)
class CodeWriter(FamilyWriter):
    """Writes the cells worked from code: the question's words, then its code."""

    def texts(self, params, solved):
        out = {}
        if "block" in params:
            out["block_text"] = tuple_text(params["block"][:2] if params["block"][2] == 1
                                           else params["block"])
        return out

    def write(self, params, gpu, solved, lang, salt):
        ctx = self.named_context(params, gpu, solved, lang)
        solved.data["rendered_ctx"] = ctx
        sec, v = self.cell, self.fam.variant(params)
        steps = self.steps(params, gpu, solved, lang, salt)
        question = phrase(lang, sec, f"question_{v}", ctx, salt=salt)
        code = listing(self.cell, params)
        if code:
            question += fenced(code)
        situation = self.fam.situation(params, solved)
        trap = (phrase(lang, sec, f"trap_{situation}", ctx, salt=salt)
                if self.trap_applies(params, gpu, solved) else "")
        solution = Solution(
            forecast=phrase(lang, sec, f"forecast_{v}", ctx, salt=salt), steps=steps,
            verify=phrase_list(lang, sec, f"verify_{v}", ctx, salt=salt),
            answer=phrase(lang, sec, f"answer_{v}", ctx, salt=salt), trap=trap)
        return phrase(lang, sec, "title", ctx, salt=salt), question, solution

    def choices(self, params, gpu, solved, lang, salt):
        """A cell whose answer is a named option (D-5's barrier) writes its options here."""
        if self.fam.main_answer:
            return None
        return barrier_choices(self.fam, params, gpu, solved, lang, salt)

    def mcq_stem(self, params, gpu, solved, lang, salt):
        key = f"mcq_stem_{self.fam.variant(params)}"
        if not has(lang, self.cell, key):
            return ""
        ctx = solved.data.get("rendered_ctx") or self.named_context(params, gpu, solved, lang)
        stem = phrase(lang, self.cell, key, ctx, salt=salt)
        code = listing(self.cell, params)
        return stem + fenced(code) if code else stem


#: The options of a question whose answer is a barrier (D-5), in a fixed order before shuffling.
BARRIER_OPTIONS = ("none", "syncwarp", "syncthreads", "threadfence")


def barrier_choices(fam, params, gpu, solved, lang: str, salt: str) -> list[Choice]:
    """The four barriers as options: the least one that keeps the read safe is right; each of
    the others says the slip that picks it (`fam`'s applicable misconceptions)."""
    right = solved.answers["barrier"]
    slips = {m.answers["barrier"]: m.key
             for m in reversed(fam.applicable_misconceptions(params, gpu, solved))}
    out = []
    for value in BARRIER_OPTIONS:
        text = phrase(lang, fam.cell, f"option_{value}", salt=salt)
        if value == right:
            out.append(Choice(text, value, True, phrase(lang, fam.cell, "correct", salt=salt)))
        elif value in slips:
            out.append(Choice(text, value, False, phrase(lang, "misconception", slips[value],
                                                         salt=salt), slips[value]))
    keyed = sorted((blake2b(f"{salt}|{c.text}".encode(), digest_size=4).digest(), i)
                   for i, c in enumerate(out))
    return [out[i] for _, i in keyed]


def describe(values: dict[str, Any]) -> dict[str, Any]:
    """Values a phrase may want as text (a block's shape), kept beside the numbers."""
    return {k: tuple_text(v) if isinstance(v, (list, tuple)) else v for k, v in values.items()}
