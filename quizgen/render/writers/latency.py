"""The words of the latency problems: OCC-6…OCC-8 (seed 000) and L-3…L-5 (seed 004).

OCC-6…8 are laid out like the warp cells, with their own why-lines for the engine's steps; OCC-7
and OCC-8 keep the notes' model on a real GPU, so their question says so and their answer gives
the exact model's answer beside it. L-3…L-5 explain their steps with the latency cells' whys; a
level-3 problem either adds its ask, verify lines and answer to the cell's words or, where its
section has words of its own throughout (measured data), is posed afresh.
"""

from __future__ import annotations

from typing import Any

from quizgen.engine import grid as grid_engine
from quizgen.engine import whatif
from quizgen.engine.occupancy import launch_config
from quizgen.problems import real_gpu
from quizgen.problems.latency_bound import LatencyFamily
from quizgen.problems.latency_families import EfficiencyPlateau, EqualOccupancyDivergence, GridWaves
from quizgen.problems.model import Solution
from quizgen.render.phrases import has, phrase, phrase_list
from quizgen.render.solution import solution_steps
from quizgen.render.whys import own_whys
from quizgen.render.writers import writes
from quizgen.engine.attribution import attribute
from quizgen.render.writers.real_gpu import SECTION, answer_note, occupancy_note, question_note
from quizgen.render.writers.family import FamilyWriter, gpu_label


@writes(EfficiencyPlateau)
class EfficiencyPlateauWriter(FamilyWriter):
    """OCC-6: η(N) = min(N, L)/L, its steps said with the cell's own numbers."""

    whys = {"plateau_warps": "occ6_plateau", "latency_efficiency": "occ6_efficiency",
            "efficiency_at_cap": "occ6_at_cap"}

    def mcq_stem(self, params, gpu, solved, lang, salt):
        return phrase(lang, self.cell, "stem", self.context(params, gpu, solved), salt=salt)


@writes(GridWaves)
class GridWavesWriter(FamilyWriter):
    """OCC-7: waves of a grid; on a real GPU, blocks per SM and waves under the exact model too."""

    whys = {"grid_slots": "occ7_slots", "sms_with_blocks": "occ7_sms_used", "idle_sms": "occ7_idle",
            "wave_count": "occ7_waves", "full_waves": "occ7_full_waves", "tail_blocks": "occ7_tail",
            "tail_sms": "occ7_tail_sms", "sm_utilisation": "occ7_sm_util",
            "slot_utilisation": "occ7_slot_util"}

    def write(self, params, gpu, solved, lang, salt):
        title, question, solution = super().write(params, gpu, solved, lang, salt)
        if real_gpu.names_real_gpu(gpu, self.model_for(gpu)):
            question = f"{question} {question_note(gpu, lang, salt)}"
            solution.answer = f"{solution.answer} {self.real_note(params, gpu, solved, lang, salt)}"
        return title, question, solution

    def mcq_stem(self, params, gpu, solved, lang, salt):
        ctx = self.context(params, gpu, solved)
        ctx["gpu_name"] = gpu_label(gpu, lang)
        stem = phrase(lang, self.cell, "stem", ctx, salt=salt)
        if real_gpu.names_real_gpu(gpu, self.model_for(gpu)):
            stem = f"{stem} {question_note(gpu, lang, salt)}"
        return stem

    def real_note(self, params, gpu, solved, lang, salt) -> str:
        """Blocks per SM and waves under the exact model, beside the textbook answer."""
        cfg = launch_config(params["threads_per_block"], params["regs_per_thread"],
                            params.get("smem_per_block", 0))
        B = real_gpu.exact_occupancy(gpu, cfg).blocks_per_sm
        a = solved.answers

        def text(blocks, slots, n):
            if not blocks:
                return phrase(lang, SECTION, "exact_none", {})
            return phrase(lang, SECTION, "exact_waves", {"B": blocks, "C": slots, "n": n})
        if B:
            wv = grid_engine.waves(params["grid_blocks"], params["num_sms"], B)
            exact = text(B, wv.slots, wv.waves)
        else:
            exact = text(0, 0, 0)
        note = answer_note(gpu, lang, salt, exact=exact,
                                    book=text(a["blocks_per_sm"], a["slots"], a["waves"]),
                                    same=B == a["blocks_per_sm"], attribution=attribute(gpu, cfg))
        if "full_wave_grid" in a and B and B != a["blocks_per_sm"]:
            grid = whatif.wave_grid(params["grid_blocks"], wv.slots)
            note += " " + phrase(lang, SECTION, "exact_full_waves", {"G": grid})
        return note


@writes(EqualOccupancyDivergence)
class EqualOccupancyDivergenceWriter(FamilyWriter):
    """OCC-8: the divergent kernel's lanes per path; on a real GPU, the exact occupancy too."""

    whys = {"branch_pass": "occ8_pass", "lane_work": "occ8_lane_work",
            "convergent_time": "occ8_convergent", "lane_utilisation": "occ8_lane_util",
            "speed_ratio": "occ8_ratio"}

    def texts(self, params, solved):
        return {"lanes_text": " / ".join(str(b["lanes"]) for b in solved.data["ctx"]["branch_list"])}

    def write(self, params, gpu, solved, lang, salt):
        title, question, solution = super().write(params, gpu, solved, lang, salt)
        if real_gpu.names_real_gpu(gpu, self.model_for(gpu)):
            cfg = launch_config(params["threads_per_block"], params["regs_per_thread"])
            question = f"{question} {question_note(gpu, lang, salt)}"
            solution.answer = (f"{solution.answer} "
                               f"{occupancy_note(gpu, cfg, solved.data['occ'], lang, salt)}")
        return title, question, solution

    def mcq_stem(self, params, gpu, solved, lang, salt):
        stem = phrase(lang, self.cell, "stem", self.context(params, gpu, solved), salt=salt)
        if real_gpu.names_real_gpu(gpu, self.model_for(gpu)):
            stem = f"{stem} {question_note(gpu, lang, salt)}"
        return stem


@writes(LatencyFamily)
class LatencyWriter(FamilyWriter):
    """L-3…L-5: the latency cells' own whys, a one-quantity stem, a trap only where its
    predicates hold."""

    def steps(self, params, gpu, solved, lang, salt):
        steps = own_whys(solved.data["steps"], lang)
        # a cell's own why for a formula, where its numbers mean something else (L-4's bytes
        # are the DRAM traffic of a kernel whose operands come from a shared-memory tile)
        own_whys(steps, lang, self.cell.lower().replace("-", "") + "_")
        return solution_steps(steps, lang, salt=salt, gpu=gpu.to_dict())

    def words(self, params, gpu, solved, lang) -> dict[str, Any]:
        """The phrases' values, built once per problem and language (write and stem share it)."""
        key = "words-" + lang
        ctx = solved.data.get(key)
        if ctx is None:
            ctx = solved.data[key] = self.context(params, gpu, solved)
            ctx["gpu_name"] = gpu_label(gpu, lang)
        return ctx

    def write(self, params, gpu, solved, lang, salt):
        ctx = self.words(params, gpu, solved, lang)
        solved.data["rendered_ctx"] = ctx          # the right option's reason reuses it
        sec = self.cell
        own = f"{self.cell}-{self.level_three(params)}"
        if has(lang, own, "forecast"):      # a level-3 problem with words of its own throughout
            solution = Solution(
                forecast=phrase(lang, own, "forecast", ctx, salt=salt),
                steps=self.steps(params, gpu, solved, lang, salt),
                verify=phrase_list(lang, own, "verify", ctx, salt=salt),
                answer=phrase(lang, own, "answer", ctx, salt=salt),
                trap=phrase(lang, own, "trap", ctx, salt=salt))
            return (phrase(lang, own, "title", ctx, salt=salt),
                    phrase(lang, own, "question", ctx, salt=salt), solution)
        solution = Solution(
            forecast=phrase(lang, sec, "forecast", ctx, salt=salt),
            steps=self.steps(params, gpu, solved, lang, salt),
            verify=phrase_list(lang, sec, "verify", ctx, salt=salt),
            answer=phrase(lang, sec, "answer", ctx, salt=salt),
            trap=phrase(lang, sec, "trap", ctx, salt=salt)
            if self.trap_applies(params, gpu, solved) else "")
        title = phrase(lang, sec, "title", ctx, salt=salt)
        extra = self.level_three(params)
        if not extra:
            return title, phrase(lang, sec, "question", ctx, salt=salt), solution
        sub = f"{self.cell}-{extra}"
        if has(lang, sub, "question"):      # a level-3 problem posed afresh (measured data)
            question = phrase(lang, sub, "question", ctx, salt=salt)
            solution.verify = solution.verify[:1]
        else:
            question = f"{phrase(lang, sec, 'question', ctx, salt=salt)} {phrase(lang, sub, 'ask', ctx, salt=salt)}"
        solution.verify.extend(phrase_list(lang, sub, "verify", ctx, salt=salt))
        solution.answer = f"{solution.answer} {phrase(lang, sub, 'answer', ctx, salt=salt)}"
        return title, question, solution

    def mcq_stem(self, params, gpu, solved, lang, salt):
        ctx = self.words(params, gpu, solved, lang)
        sec = f"{self.cell}-{self.level_three(params)}"
        return phrase(lang, sec if has(lang, sec, "stem") else self.cell, "stem", ctx, salt=salt)
