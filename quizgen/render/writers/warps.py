"""The words of the warp problems (W-A…W-J) and of every family built on `EngineFamily`.

One writer lays out these problems from the cell's own phrasebook section: title, question,
forecast, the engine's steps, verify lines, answer and, where its predicates hold, the trap; a
level-3 problem's ``ask_<name>`` and ``answer_<name>`` follow the question and the answer. The
warp cells explain each step with their own why-lines, which name the step's numbers; the cells
that quote a block's shape or a thread's coordinates write them here, from the family's numbers.
"""

from __future__ import annotations

from typing import Any, ClassVar, Iterable

from quizgen.engine.derivation import Step
from quizgen.gpus import GPU
from quizgen.problems.model import Solution
from quizgen.problems.warp_families import (ChooseBlock, CleanBlock, DepthTerm, DivergenceFamily,
                                            EngineFamily, HidingFamily, RowStraddle,
                                            SchedulerDemand, TailWarp, TinyBlock, pick_steps)
from quizgen.render.phrases import book, has, phrase, phrase_list
from quizgen.render.solution import solution_steps
from quizgen.render.writers import writes
from quizgen.render.writers.base import Writer


def tuple_text(values: Iterable[int]) -> str:
    """(48, 4, 1): a block's shape or a thread's coordinates, as the notes write blockDim and
    threadIdx."""
    return "(" + ", ".join(str(int(v)) for v in values) + ")"


def at_sentence_start(text: str) -> str:
    """A name opening a sentence: its first letter upper-case, the rest as written ("GPU" stays)."""
    return text[:1].upper() + text[1:]


def gpu_label(gpu: GPU, lang: str) -> str:
    """How a question names the GPU: as a person says it ("A100"), or the notes' SM in words."""
    if gpu.is_textbook:
        return phrase(lang, "gpu_label", "textbook")
    return gpu.spoken_name


#: lang → engine why key → the warp cells' own key for it (``w_<key>``, where one exists).
_NUMBERED: dict[str, dict[str, str]] = {}


def numbered_whys(steps: list[Step], lang: str) -> list[Step]:
    """The steps with the warp cells' own why-lines: an engine why key ``k`` becomes ``w_k`` when
    the phrasebook has one (those name the step's own numbers; the calculators keep the engine's
    general sentences). The steps are this problem's own (a fresh solve), so they are renamed
    in place."""
    own = _NUMBERED.get(lang)
    if own is None:
        whys = book(lang).get("why", {})
        own = _NUMBERED[lang] = {k[2:]: k for k in whys if k.startswith("w_")}
    for s in steps:
        key = own.get(s.why)
        if key is not None:
            s.why = key
    return steps


def formula_whys(steps: list[Step], whys: dict[str, str]) -> list[Step]:
    """A cell's own why for each engine step it names (by formula): a why that speaks of this
    problem's numbers in this cell's terms."""
    for step in steps:
        step.why = whys.get(step.formula, step.why)
    return steps


@writes(EngineFamily)
class EngineWriter(Writer):
    """Writes a problem from its cell's section: title, question, forecast, verify, answer, trap,
    mcq_stem, and ``ask_<name>``/``answer_<name>`` for the step a problem's ``ask`` adds."""

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


@writes(HidingFamily)
@writes(SchedulerDemand)
class WarpWriter(EngineWriter):
    """The warp cells: every step's why names its own numbers."""

    numbered = True


@writes(CleanBlock)
@writes(TailWarp)
class BlockWriter(WarpWriter):
    """Cells whose phrases quote the block's shape (``block_text``)."""

    def texts(self, params, solved):
        return {"block_text": tuple_text(params["block"])}


@writes(RowStraddle)
class RowStraddleWriter(BlockWriter):
    """W-C quotes the asked warp's first and last thread."""

    def texts(self, params, solved):
        a = solved.answers
        return {**super().texts(params, solved), "first_text": tuple_text(a["first_coords"]),
                "last_text": tuple_text(a["last_coords"])}


@writes(DepthTerm)
class DepthTermWriter(BlockWriter):
    """W-C2 quotes the thread's (x, y, z)."""

    def texts(self, params, solved):
        return {**super().texts(params, solved), "coords_text": tuple_text(solved.answers["coords"])}


@writes(TinyBlock)
class TinyBlockWriter(BlockWriter):
    """W-D quotes the asked thread's threadIdx."""

    def texts(self, params, solved):
        return {**super().texts(params, solved), "thread_text": tuple_text(params["thread"])}


@writes(DivergenceFamily)
class DivergenceWriter(WarpWriter):
    """The divergence cells quote the lanes of every path and the costs of the paths taken."""

    def texts(self, params, solved):
        ctx = solved.data["ctx"]
        return {"lanes_text": " / ".join(str(b["lanes"]) for b in ctx["branch_list"]),
                "costs_text": " + ".join(str(b["cost"]) for b in ctx["taken"])}


@writes(ChooseBlock)
class ChooseBlockWriter(WarpWriter):
    """W-I quotes both blocks, as given and as square/aligned, and the better one; its steps
    work each block in turn, labelled with its shape, then compare them."""

    def texts(self, params, solved):
        ctx = solved.data["ctx"]
        a, b = params["blocks"]
        better = solved.answers["better_block"]
        return {"sq_text": tuple_text(ctx["sq"]), "al_text": tuple_text(ctx["al"]),
                "a_text": tuple_text(a), "b_text": tuple_text(b),
                "better_text": tuple_text(better) if better else ""}

    def steps(self, params, gpu, solved, lang, salt):
        cmp = solved.data["cmp"]
        keys = ("threads_per_block", "warps", "tail_active", "wasted_lanes")
        out = []
        for bw in (cmp.first, cmp.second):
            label = tuple_text(bw.block[:2])
            for step in solution_steps(numbered_whys(pick_steps(bw.steps, keys), lang), lang,
                                       salt=salt + label, gpu=gpu.to_dict()):
                step.title = f"[{label}] {step.title}"
                out.append(step)
        out += solution_steps(numbered_whys(cmp.steps + solved.data.get("more", []), lang), lang,
                              salt=salt, gpu=gpu.to_dict())
        return out
