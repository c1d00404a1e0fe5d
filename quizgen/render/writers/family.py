"""The writer of every family that has none of its own: the cell's phrasebook section.

A new cell is its family (parameters, answers, the engine's steps in ``solved.data["steps"]``,
a context of numbers) and its phrase entries (``[<cell>]`` with title, question, forecast, verify,
answer, trap, mcq_stem); this writer says it. Writers of cells that quote values as written (a
block's shape) or explain steps with their own why-lines build on it.
"""

from __future__ import annotations

from typing import Any, ClassVar

from quizgen.gpus import GPU
from quizgen.problems.base import Family
from quizgen.problems.model import Solution
from quizgen.render.phrases import has, phrase, phrase_list
from quizgen.render.solution import solution_steps
from quizgen.render.whys import formula_whys, numbered_whys
from quizgen.render.writers import writes
from quizgen.render.writers.base import Writer


def at_sentence_start(text: str) -> str:
    """A name opening a sentence: its first letter upper-case, the rest as written ("GPU" stays)."""
    return text[:1].upper() + text[1:]


def gpu_label(gpu: GPU, lang: str) -> str:
    """How a question names the GPU: as a person says it ("A100"), or the notes' SM in words."""
    if gpu.is_textbook:
        # the notes' SM and its twists, or the SM of a textbook exercise (a preset of its own)
        exercise = not gpu.name.startswith("textbook") and bool(gpu.description)
        return phrase(lang, "gpu_label", "exercise" if exercise else "textbook")
    return gpu.spoken_name


@writes(Family)
class FamilyWriter(Writer):
    """Writes a problem from its cell's phrasebook section: ``title``, ``question``,
    ``forecast``, ``verify``, ``answer``, ``trap`` (only where the family's `trap_when` holds),
    ``mcq_stem``, and ``ask_<name>``/``answer_<name>`` for the step a problem's ``ask``
    parameter adds; the steps are the engine's (``solved.data["steps"]``), in words."""

    #: whether the steps read the warp cells' own why-lines (`numbered_whys`)
    numbered: ClassVar[bool] = False
    #: this cell's own why keys, by the engine step's formula (`formula_whys`)
    whys: ClassVar[dict[str, str]] = {}

    def texts(self, params: dict[str, Any], solved) -> dict[str, str]:
        """Values the phrases quote as written (a block's shape, a thread's coordinates)."""
        return {}

    def context(self, params, gpu, solved) -> dict[str, Any]:
        """The family's numbers and the texts its phrases quote."""
        return {**self.fam.context(params, gpu, solved), **self.texts(params, solved)}

    def named_context(self, params, gpu, solved, lang) -> dict[str, Any]:
        """The context with the GPU as the question names it, alone and opening a sentence."""
        ctx = self.context(params, gpu, solved)
        ctx["gpu_name"] = gpu_label(gpu, lang)
        ctx["gpu_name_start"] = at_sentence_start(ctx["gpu_name"])
        return ctx

    def write(self, params, gpu, solved, lang, salt):
        ctx = self.named_context(params, gpu, solved, lang)
        solved.data["rendered_ctx"] = ctx          # the multiple-choice stem reuses it
        sec = self.cell
        steps = self.steps(params, gpu, solved, lang, salt)
        question = phrase(lang, sec, "question", ctx, salt=salt)
        answer = phrase(lang, sec, "answer", ctx, salt=salt)
        ask = params.get("ask")
        if ask:
            question += " " + phrase(lang, sec, f"ask_{ask}", ctx, salt=salt)
            answer += " " + phrase(lang, sec, f"answer_{ask}", ctx, salt=salt)
        trap = (phrase(lang, sec, "trap", ctx, salt=salt)
                if self.trap_applies(params, gpu, solved) else "")
        solution = Solution(
            forecast=phrase(lang, sec, "forecast", ctx, salt=salt), steps=steps,
            verify=phrase_list(lang, sec, "verify", ctx, salt=salt),
            answer=answer, trap=trap)
        return phrase(lang, sec, "title", ctx, salt=salt), question, solution

    def mcq_stem(self, params, gpu, solved, lang, salt):
        if not has(lang, self.cell, "mcq_stem"):
            return ""
        ctx = solved.data.get("rendered_ctx")
        if ctx is None or ctx["gpu_name"] != gpu_label(gpu, lang):
            ctx = self.named_context(params, gpu, solved, lang)
        return phrase(lang, self.cell, "mcq_stem", ctx, salt=salt)

    def steps(self, params, gpu, solved, lang, salt):
        """The engine's steps in words, each with the why-line this cell explains it with."""
        steps = solved.data["steps"]
        if self.numbered:
            numbered_whys(steps, lang)
        if self.whys:
            formula_whys(steps, self.whys)
        return solution_steps(steps, lang, salt=salt, gpu=gpu.to_dict())
