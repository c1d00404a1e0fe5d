"""The words of the notes' occupancy problems (OCC-1…5, OCC-9, L-1, L-2).

One writer lays out every occupancy problem: the cell's title, question and forecast, the
engine's derivation, the cell's trap where it applies, the level-3 ask and answer, and on a real
GPU the question's caveat and the exact model's answer beside the textbook one. A cell whose
answer is not an occupancy (OCC-5's largest block) or whose derivation is its own (L-1, L-2)
changes only the part that differs.
"""

from __future__ import annotations

import dataclasses

from typing import Any

from quizgen.engine import inverse
from quizgen.engine.occupancy import launch_config
from quizgen.problems.model import Solution
from quizgen.problems.failed_launch import CannotFit
from quizgen.problems.occupancy_families import OccupancyFamily
from quizgen.problems.real_gpu_families import RealGpuRegisters, RealGpuSharedMemory
from quizgen.engine.attribution import attribute
from quizgen.problems.real_gpu import exact_occupancy, largest_exact_block, names_real_gpu
from quizgen.render import numbers
from quizgen.render.occupancy import occupancy_solution
from quizgen.render.phrases import has, phrase, phrase_list
from quizgen.render.solution import solution_steps
from quizgen.render.whys import own_whys
from quizgen.render.writers import writes
from quizgen.render.writers.base import Writer
from quizgen.render.writers.real_gpu import (SECTION, answer_note, change_note, design_note,
                                             occupancy_note, question_note)


def block_text(params: dict[str, Any]) -> str:
    """The block as a question states it: its threads, and its shape when it is 2-D."""
    T, block = params["threads_per_block"], params.get("block")
    return f"{numbers.count(T)} (blockDim {block[0]}×{block[1]})" if block else numbers.count(T)


@writes(OccupancyFamily)
class OccupancyWriter(Writer):
    def context(self, params, gpu, solved) -> dict[str, Any]:
        """The family's numbers, with the block written out (``T_text``) for the templates."""
        return {**self.fam.context(params, gpu, solved), "T_text": block_text(params)}

    def write(self, params, gpu, solved, lang, salt):
        ctx = self.shared_context(params, gpu, solved)
        solved.data["rendered_ctx"] = ctx          # the right option's reason reuses it
        title = phrase(lang, self.cell, "title", ctx, salt=salt)
        question = (phrase(lang, self.cell, "question", ctx, salt=salt)
                    if has(lang, self.cell, "question") else phrase(lang, "occ", "question", ctx, salt=salt))
        forecast = phrase(lang, self.cell, "forecast", ctx, salt=salt)
        trap = (phrase(lang, self.cell, "trap", ctx, salt=salt)
                if self.trap_applies(params, gpu, solved) else "")
        solution = occupancy_solution(solved.data["result"], gpu, lang, salt=salt, forecast=forecast,
                                      trap=trap)
        extra = phrase_list(lang, self.cell, "verify", ctx, salt=salt) if has(lang, self.cell, "verify") else []
        solution.verify.extend(extra)
        if ctx["asked"]:
            question = f"{question} {phrase(lang, self.cell, 'ask3', ctx, salt=salt)}"
            solution.answer = f"{solution.answer} {phrase(lang, self.cell, 'answer3', ctx, salt=salt)}"
        if names_real_gpu(gpu, self.model_for(gpu)):
            question = f"{question} {question_note(gpu, lang, salt)}"
            solution.answer = f"{solution.answer} {self.real_note(params, gpu, solved, lang, salt)}"
            solution.answer += self.real_change_note(gpu, solved, lang, salt)
        return title, question, solution

    def real_change_note(self, gpu, solved, lang, salt) -> str:
        """The level-3 launch on the real GPU: the exact model beside the textbook answer (a
        design value searched again with the exact model)."""
        change = solved.data.get("change")
        if change is None or change.after is None:
            return ""
        return " " + change_note(gpu, self.cell, change, lang, salt)

    def mcq_stem(self, params, gpu, solved, lang, salt) -> str:
        ctx = self.shared_context(params, gpu, solved)
        stem = phrase(lang, self.cell if has(lang, self.cell, "stem") else "occ", "stem", ctx, salt=salt)
        if names_real_gpu(gpu, self.model_for(gpu)):
            stem = f"{stem} {question_note(gpu, lang, salt)}"
        return stem

    def real_note(self, params, gpu, solved, lang, salt) -> str:
        """The exact model's answer beside the textbook one (the question names a real GPU)."""
        return occupancy_note(gpu, self.config(params), solved.data["result"], lang, salt)


@writes(CannotFit)
class CannotFitWriter(OccupancyWriter):
    """OCC-5 answers with the largest block that fits, not with an occupancy."""

    def write(self, params, gpu, solved, lang, salt):
        if solved.data["extra"]["over_threads"]:
            return self.write_over_threads(params, gpu, solved, lang, salt)
        title, question, solution = super().write(params, gpu, solved, lang, salt)
        ctx = self.shared_context(params, gpu, solved)
        solution.answer = phrase(lang, self.cell, "answer", ctx, salt=salt)
        if ctx["asked"]:
            solution.answer = f"{solution.answer} {phrase(lang, self.cell, 'answer3', ctx, salt=salt)}"
        if names_real_gpu(gpu, self.model_for(gpu)):
            solution.answer = f"{solution.answer} {self.real_note(params, gpu, solved, lang, salt)}"
            if ctx["asked"]:       # the exact model's own inverse: registers at which T fits
                exact = inverse.max_regs_for_blocks(gpu, self.config(params), 1, model="exact").answer
                solution.answer += " " + phrase(lang, SECTION, "exact_regs_to_fit",
                                                {"T": params["threads_per_block"], "r": exact or 0},
                                                salt=salt)
        return title, question, solution

    def write_over_threads(self, params, gpu, solved, lang, salt):
        """A block over the per-block thread limit: its registers fit, so the question states
        the limit, and the trap and Verify are the thread limit's (never the registers')."""
        ctx = self.shared_context(params, gpu, solved)
        solved.data["rendered_ctx"] = ctx          # the right option's reason reuses it
        forecast = phrase(lang, self.cell, "forecast", ctx, salt=salt)
        trap = (phrase(lang, self.cell, "trap_threads", ctx, salt=salt)
                if self.trap_applies(params, gpu, solved) else "")
        solution = occupancy_solution(solved.data["result"], gpu, lang, salt=salt,
                                      forecast=forecast, trap=trap)
        solution.verify.extend(phrase_list(lang, self.cell, "verify_threads", ctx, salt=salt))
        solution.answer = phrase(lang, self.cell, "answer", ctx, salt=salt)
        question = phrase(lang, self.cell, "question_threads", ctx, salt=salt)
        if names_real_gpu(gpu, self.model_for(gpu)):
            question = f"{question} {question_note(gpu, lang, salt)}"
            solution.answer = f"{solution.answer} {self.real_note(params, gpu, solved, lang, salt)}"
        return phrase(lang, self.cell, "title", ctx, salt=salt), question, solution

    def mcq_stem(self, params, gpu, solved, lang, salt) -> str:
        if not solved.data["extra"]["over_threads"]:
            return super().mcq_stem(params, gpu, solved, lang, salt)
        stem = phrase(lang, self.cell, "stem_threads", self.shared_context(params, gpu, solved), salt=salt)
        if names_real_gpu(gpu, self.model_for(gpu)):
            stem = f"{stem} {question_note(gpu, lang, salt)}"
        return stem

    def real_note(self, params, gpu, solved, lang, salt) -> str:
        r = params["regs_per_thread"]
        exact = largest_exact_block(gpu, lambda T: launch_config(T, r))
        book = solved.answers["largest_block"]
        text = lambda T: phrase(lang, SECTION, "exact_largest", {"T": T})
        return answer_note(gpu, lang, salt, exact=text(exact), book=text(book), same=exact == book,
                           attribution=attribute(gpu, launch_config(book, r)))


@writes(RealGpuRegisters)
class RealGpuRegistersWriter(OccupancyWriter):
    """L-1: seed 004's per-warp register count, written from the solver's own steps."""

    def mcq_stem(self, params, gpu, solved, lang, salt):
        ctx = {"r": params["regs_per_thread"], "T": params["threads_per_block"],
               "gpu": gpu.to_dict(), "gpu_name": gpu.spoken_name}
        return phrase(lang, self.cell, "stem", ctx, salt=salt)

    def write(self, params, gpu, solved, lang, salt):
        ctx = {**solved.answers, "r": params["regs_per_thread"], "gpu": gpu.to_dict(),
               "A": solved.data["warps"], "occ": solved.data["occ"], "gpu_name": gpu.spoken_name,
               "T": params.get("threads_per_block", 32), "B": solved.data["blocks"],
               "w": solved.data["w"], "P": solved.data["per_warp"]}
        solved.data["rendered_ctx"] = ctx          # the right option's reason reuses it
        if "inverse" in solved.data:        # the design step's whys name its own numbers
            own_whys(solved.data["inverse"].steps, lang)
        steps = solution_steps(solved.data["steps"], lang, salt=salt, gpu=gpu.to_dict())
        verify = phrase_list(lang, self.cell, "verify", {**ctx, "need": 32 * ctx["r"]}, salt=salt)
        sol = Solution(forecast=phrase(lang, self.cell, "forecast", ctx, salt=salt), steps=steps,
                       verify=verify, answer=phrase(lang, self.cell, "answer", ctx, salt=salt),
                       trap=phrase(lang, self.cell, "trap", ctx, salt=salt))
        question = phrase(lang, self.cell, "question", ctx, salt=salt)
        design = ""
        if "target_blocks" in params:
            B2 = params["target_blocks"]
            r2 = solved.answers["max_regs"]
            more = {**ctx, "B2": B2, "A2": B2 * ctx["T"] // 32, "r2": r2,
                    "shed": ctx["r"] - r2, "pool": gpu.regs_per_sm}
            question = f"{question} {phrase(lang, 'L-1-design', 'ask', more, salt=salt)}"
            sol.verify.extend(phrase_list(lang, "L-1-design", "verify", more, salt=salt))
            sol.answer = f"{sol.answer} {phrase(lang, 'L-1-design', 'answer', more, salt=salt)}"
            if names_real_gpu(gpu, self.model_for(gpu)):     # the design value on the chip itself
                design = " " + design_note(gpu, launch_config(ctx["T"], r2), "regs_per_thread",
                                           r2, B2, lang, salt)
        if not self.trap_applies(params, gpu, solved):
            sol.trap = ""
        if names_real_gpu(gpu, self.model_for(gpu)):
            question = f"{question} {question_note(gpu, lang, salt)}"
            config = launch_config(ctx["T"], ctx["r"])
            exact = exact_occupancy(gpu, config)
            warps = lambda A, occ: phrase(lang, SECTION, "exact_warps", {"A": A, "occ": occ})
            sol.answer = (f"{sol.answer} " + answer_note(
                gpu, lang, salt, exact=warps(exact.active_warps, exact.occupancy),
                book=warps(ctx["A"], ctx["occ"]), same=exact.active_warps == ctx["A"],
                attribution=attribute(gpu, config), warps=True)) + design
        return phrase(lang, self.cell, "title", ctx, salt=salt), question, sol


@writes(RealGpuSharedMemory)
class RealGpuSharedMemoryWriter(OccupancyWriter):
    """L-2: the occupancy solution in seed 004's words, and the level-3 design step."""

    def write(self, params, gpu, solved, lang, salt):
        own_whys(solved.data["result"].steps, lang, "l2_")
        title, question, solution = super().write(params, gpu, solved, lang, salt)
        inv = solved.data.get("inverse")
        if inv is not None and inv.answer is not None:
            ctx = {"B": solved.answers["blocks_per_sm"], "B2": params["target_blocks"],
                   "s": params["smem_per_block"], "s2": inv.answer,
                   "trim": params["smem_per_block"] - inv.answer, "pool": gpu.smem_per_sm,
                   "w": solved.answers["warps"],
                   "A2": params["target_blocks"] * solved.answers["warps"]}
            question = f"{question} {phrase(lang, 'L-2-design', 'ask', ctx, salt=salt)}"
            solution.steps += solution_steps(own_whys(inv.steps, lang), lang, salt=salt,
                                             gpu=gpu.to_dict())
            solution.verify.extend(phrase_list(lang, "L-2-design", "verify", ctx, salt=salt))
            solution.answer = f"{solution.answer} {phrase(lang, 'L-2-design', 'answer', ctx, salt=salt)}"
            if names_real_gpu(gpu, self.model_for(gpu)):     # the design value on the chip itself
                cfg = dataclasses.replace(self.config(params), smem_per_block=inv.answer)
                solution.answer += " " + design_note(gpu, cfg, "smem_per_block", inv.answer,
                                                     params["target_blocks"], lang, salt)
        if not self.trap_applies(params, gpu, solved):
            solution.trap = ""
        return title, question, solution

    def mcq_stem(self, params, gpu, solved, lang, salt):
        ctx = self.shared_context(params, gpu, solved)
        return phrase(lang, self.cell, "stem", ctx, salt=salt)
