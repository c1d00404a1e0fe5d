"""The words of the exact-rule problems (X-1…X-5): NVIDIA's allocation rules, step by step.

X-1…X-3 are occupancy problems in the exact cells' own whys (``[why] x_…`` in families-x), with
the level-3 headroom step after them; X-3's answer first says what opting in changes; X-4 is an
inverse derivation; X-5 writes one derivation per GPU, each step marked with its GPU.
"""

from __future__ import annotations

import dataclasses

from quizgen.engine.attribution import attribute, carveout_reason
from quizgen.engine.derivation import Step
from quizgen.gpus import get_gpu
from quizgen.problems.exact_families import (DynamicSmemOptIn, ExactFamily, InverseRegisters,
                                             SameKernelManyGpus)
from quizgen.problems.model import Solution
from quizgen.render.occupancy import occupancy_answer
from quizgen.render.phrases import phrase, phrase_list
from quizgen.render.solution import occupancy_verify, solution_steps
from quizgen.render.writers import writes
from quizgen.render.writers.occupancy import OccupancyWriter

#: The engine's whys that the exact cells say in their own words (``[why] x_…`` in
#: families-x): each names its step's numbers, or the textbook lid it is compared with.
X_WHYS = {why: "x_" + why for why in (
    "warps_whole", "reg_granularity", "block_reserves_registers", "subpartition_regs",
    "register_lid_exact", "smem_granularity", "smem_lid", "carveout", "warp_lid", "block_lid",
    "lowest_lid", "count_warps", "occupancy_def", "barrier_lid")}
X_WHYS.update(block_reserves_warp_registers="x_block_reserves_registers",
              lowest_lid_barriers="x_lowest_lid_bar")


def exact_whys(steps: list[Step]) -> list[Step]:
    """The exact cells' whys on an occupancy derivation (a lid that is 0 or absent keeps the
    engine's own reason, which says why)."""
    for step in steps:
        new = X_WHYS.get(step.why)
        if new is None:
            continue
        if step.key == "blocks_by_smem":
            if step.result is None and not step.values.get("s"):
                new = "x_smem_lid_none"
            elif not (step.result.__class__ is int and step.result > 0 and step.values.get("s")):
                continue
        step.why = new
    return steps


def inverse_whys(steps: list[Step]) -> list[Step]:
    """The exact cells' whys on an inverse derivation (``[why] xi_…``), by formula (the three
    substitution checks by their role)."""
    out = []
    for step in steps:
        if step.result is None:
            out.append(step)
            continue
        if step.key in ("blocks_at_smallest", "check_answer", "check_next"):
            why = "xi_" + step.key
        else:
            why = "xi_" + step.formula
        note = "floor_drops_regs" if step.key == "regs_lid" and step.note == "floor_drops" else step.note
        out.append(dataclasses.replace(step, why=why, note=note))
    return out


@writes(ExactFamily)
class ExactWriter(OccupancyWriter):
    def write(self, params, gpu, solved, lang, salt):
        exact_whys(solved.data["result"].steps)
        title, question, solution = super().write(params, gpu, solved, lang, salt)
        if not self.trap_applies(params, gpu, solved):
            solution.trap = ""
        head = solved.data.get("headroom")
        if head is not None:
            ctx = {**self.shared_context(params, gpu, solved), "head": head}
            question = f"{question} {phrase(lang, self.cell, 'question_more', ctx, salt=salt)}"
            solution.steps += solution_steps(inverse_whys(head.steps), lang, salt=salt, gpu=gpu.to_dict())
            solution.verify.append(phrase(lang, self.cell, "verify_more", ctx, salt=salt))
            solution.answer = f"{solution.answer} {phrase(lang, self.cell, 'answer_more', ctx, salt=salt)}"
        return title, question, solution

    def mcq_stem(self, params, gpu, solved, lang, salt):
        return phrase(lang, self.cell, "mcq_stem", self.shared_context(params, gpu, solved), salt=salt)


@writes(DynamicSmemOptIn)
class DynamicSmemOptInWriter(ExactWriter):
    """X-3's answer opens with what the launch does without opting in; its trap names the
    carveout only for what it does here (cuts blocks, or is raised because a block needs more)."""

    def context(self, params, gpu, solved):
        ctx = super().context(params, gpu, solved)
        res = solved.data["result"]
        carve = None
        cut = ""
        if params.get("carveout", -1) != -1:
            carve = carveout_reason(gpu, res.config, res.smem_per_block_allocated)
            effect = attribute(gpu, res.config).effect("carveout")
            if effect is not None and effect.blocks_after < effect.blocks_before:
                cut = f"{effect.blocks_before} → {effect.blocks_after} blocks"
        ctx.update(carve=carve, carveout_cut=cut)
        return ctx

    def write(self, params, gpu, solved, lang, salt):
        title, question, solution = super().write(params, gpu, solved, lang, salt)
        ctx = self.shared_context(params, gpu, solved)
        solution.answer = phrase(lang, self.cell, "answer_prefix", ctx, salt=salt) + " " + solution.answer
        return title, question, solution


@writes(SameKernelManyGpus)
class SameKernelManyGpusWriter(ExactWriter):
    """X-5: the derivation, checks and answer once per GPU, each line marked with its GPU."""

    def write(self, params, gpu, solved, lang, salt):
        ctx = self.shared_context(params, gpu, solved)
        results = solved.data["results"]
        ctx["results"] = results
        steps = []
        verify = []
        answers = []
        for name, res in results.items():
            the_gpu = get_gpu(name)
            for step in solution_steps(exact_whys(res.steps), lang, salt=salt + name,
                                       gpu=the_gpu.to_dict()):
                step.title = f"[{name.upper()}] {step.title}"
                steps.append(step)
            verify.extend(f"[{name.upper()}] {line}" for line in occupancy_verify(res, the_gpu, lang, salt=salt))
            answers.append(f"{name.upper()}: {occupancy_answer(res, lang)}")
        trap = phrase(lang, self.cell, "trap", ctx, salt=salt) if self.trap_applies(params, gpu, solved) else ""
        question = phrase(lang, self.cell, "question", ctx, salt=salt)
        step = solved.data.get("ratio_step")
        if step is not None:
            ctx["ratio"] = step.result
            steps += solution_steps([step], lang, salt=salt, gpu=gpu.to_dict())
            question = f"{question} {phrase(lang, self.cell, 'question_more', ctx, salt=salt)}"
            answers.append(phrase(lang, self.cell, "answer_more", ctx, salt=salt))
        solution = Solution(forecast=phrase(lang, self.cell, "forecast", ctx, salt=salt), steps=steps,
                            verify=verify, answer=" ".join(answers), trap=trap)
        return phrase(lang, self.cell, "title", ctx, salt=salt), question, solution


@writes(InverseRegisters)
class InverseRegistersWriter(ExactWriter):
    """X-4: the engine's inverse derivation (and the registers a cap must cut) in the exact
    cells' whys; ``where`` says which model the question uses."""

    def mcq_stem(self, params, gpu, solved, lang, salt):
        ctx = self.shared_context(params, gpu, solved)
        ctx["where"] = phrase(lang, self.cell, "where", ctx, salt=salt)
        return phrase(lang, self.cell, "mcq_stem", ctx, salt=salt)

    def write(self, params, gpu, solved, lang, salt):
        ctx = self.shared_context(params, gpu, solved)
        ctx["where"] = phrase(lang, self.cell, "where", ctx, salt=salt)
        inv = solved.data["inverse"]
        engine_steps = []
        engine_steps.extend(inverse_whys(inv.steps))
        engine_steps += solved.data.get("cut_steps", [])
        steps = solution_steps(engine_steps, lang, salt=salt, gpu=gpu.to_dict())
        verify = phrase_list(lang, self.cell, "verify", ctx, salt=salt)
        trap = phrase(lang, self.cell, "trap", ctx, salt=salt) if self.trap_applies(params, gpu, solved) else ""
        answer = phrase(lang, self.cell, "answer", ctx, salt=salt)
        question = phrase(lang, self.cell, "question", ctx, salt=salt)
        if "regs_to_cut" in solved.answers:
            question = f"{question} {phrase(lang, self.cell, 'question_more', ctx, salt=salt)}"
            answer = f"{answer} {phrase(lang, self.cell, 'answer_more', ctx, salt=salt)}"
        solution = Solution(forecast=phrase(lang, self.cell, "forecast", ctx, salt=salt), steps=steps,
                            verify=verify, answer=answer, trap=trap)
        return phrase(lang, self.cell, "title", ctx, salt=salt), question, solution
