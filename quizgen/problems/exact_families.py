"""Exact-rule families (X-1…X-3, X-5): NVIDIA's allocation rules against the notes' formulas."""

from __future__ import annotations

from typing import Any

from quizgen.engine.occupancy import OccupancyResult, occupancy
from quizgen.gpus import get_gpu
from quizgen.problems import sampling
from quizgen.problems.base import Misconception, Solved
from quizgen.problems.model import Solution
from quizgen.problems import applicability as when
from quizgen.problems import relations as rel
from quizgen.problems import specs as sp
from quizgen.problems.occupancy_families import (LAUNCH, OCC_SPECS, OccupancyFamily, answers_of,
                                                 shapes_for, with_shape)
from quizgen.problems.registry import register
from quizgen.render.occupancy import occupancy_answer
from quizgen.render.phrases import phrase, phrase_list
from quizgen.render.solution import occupancy_verify, solution_steps


def _model_miscs(key: str, res: OccupancyResult) -> Misconception:
    return Misconception(key, {"blocks_per_sm": res.blocks_per_sm, "active_warps": res.active_warps,
                               "occupancy": res.occupancy})


#: Under NVIDIA's rules a lid is not the pool over one block's request (allocation units,
#: reserved memory): blocks per SM follow from the launch, not from the earlier answers.
EXACT_SPECS = {**OCC_SPECS, "blocks_per_sm": sp.count("blocks", *LAUNCH)}


class ExactFamily(OccupancyFamily):
    topic = "exact-rules"
    model = "exact"
    answer_specs = EXACT_SPECS

    def solve(self, params, gpu, explain=True):
        cfg = self.config(params)
        res = occupancy(gpu, cfg, model="exact", explain=explain)
        when.keep_applicable_notes(res.steps, res.limiter)
        book = occupancy(gpu, cfg, model="textbook")
        return Solved(answers_of(res), {"result": res, "textbook": book})

    def context(self, params, gpu, solved):
        ctx = super().context(params, gpu, solved)
        ctx["tb"] = solved.data["textbook"]
        return ctx

    def misconceptions(self, params, gpu, solved):
        return [_model_miscs("textbook_model", solved.data["textbook"])] + super().misconceptions(params, gpu, solved)


@register
class RegisterGranularity(ExactFamily):
    """X-1: registers are allocated per warp in units of 256 (and per sub-partition)."""

    cell = "X-1"

    def gpu_choices(self, level):
        return {1: ("a100", "h100", "v100"), 2: ("a100", "h100", "v100", "b200"),
                3: ("a10", "rtx4090", "t4")}[level]

    def space(self, level, gpu):
        threads = (64, 128, 256, 512, 1024) if level == 1 else sampling.THREADS[2]
        regs = ([r for r in range(20, 130) if r % 8] if level == 1 else
                [r for r in range(20, 256) if r % 8] if level == 2 else range(20, 256, 3))
        for T in threads:
            for r in regs:
                yield {"threads_per_block": T, "regs_per_thread": r}

    def in_cell(self, params, gpu, solved):
        res, book = solved.data["result"], solved.data["textbook"]
        return (res.blocks_per_sm != book.blocks_per_sm and "registers" in res.limiter
                and res.blocks_per_sm >= 1)


@register
class SharedMemoryGranularity(ExactFamily):
    """X-2: shared memory is rounded up and the driver reserves 1 KB per block (cc ≥ 8.0)."""

    cell = "X-2"

    def gpu_choices(self, level):
        return {1: ("a100", "h100"), 2: ("a100", "h100", "b200"), 3: ("a10", "rtx4090", "a100")}[level]

    def space(self, level, gpu):
        threads = (32, 64, 128, 256) if level == 1 else (64, 96, 128, 192, 256)
        sizes = ([kb * 1024 for kb in range(4, 49)] if level == 1 else
                 [kb * 1024 - d for kb in range(6, 49) for d in (0, 100, 200)] if level == 2 else
                 [kb * 1000 + d for kb in range(6, 49) for d in (0, 24, 72)])
        for T in threads:
            for s in sizes:
                for shape in shapes_for(T, 2)[:3 if level == 1 else 1]:
                    yield with_shape({"threads_per_block": T, "regs_per_thread": 32, "smem_per_block": s}, shape)

    def in_cell(self, params, gpu, solved):
        res, book = solved.data["result"], solved.data["textbook"]
        return (gpu.reserved_smem_per_block > 0 and res.limiter == ["shared_memory"]
                and res.blocks_per_sm < book.blocks_per_sm and res.blocks_per_sm >= 1)

    def misconceptions(self, params, gpu, solved):
        res = solved.data["result"]
        s = params["smem_per_block"]
        sm = res.smem_per_sm_available
        w = res.warps_per_block
        cap = min(gpu.max_blocks_per_sm, gpu.max_warps_per_sm // w)
        # The floor mistake with everything else right: the exact allocation (reserve and
        # rounding included), divided without the floor. The generic textbook no_floor also drops
        # the reserve, so it would be a second mistake under the floor's name.
        out = [m for m in super().misconceptions(params, gpu, solved) if m.key != "no_floor"]
        frac = min(cap, sm / res.smem_per_block_allocated) if res.smem_per_block_allocated else cap
        if frac != int(frac):
            out.append(Misconception("no_floor", {"blocks_per_sm": round(frac, 3),
                                                  "active_warps": round(frac * w, 3),
                                                  "occupancy": min(1.0, frac * w / gpu.max_warps_per_sm)}))
        g = gpu.smem_alloc_unit
        no_reserve = min(cap, sm // (-(-s // g) * g))
        no_round = min(cap, sm // (s + gpu.reserved_smem_per_block))
        for key, blocks in (("no_reserved_smem", no_reserve), ("no_smem_rounding", no_round)):
            out.append(Misconception(key, {"blocks_per_sm": blocks, "active_warps": blocks * w,
                                           "occupancy": blocks * w / gpu.max_warps_per_sm}))
        return out


@register
class DynamicSmemOptIn(ExactFamily):
    """X-3: dynamic shared memory above 48 KB needs opt-in; the carveout can limit blocks."""

    cell = "X-3"
    answer_specs = {**EXACT_SPECS, "blocks_without_optin": sp.count("blocks", *LAUNCH, "dyn_smem")}
    misconception_when = {**OccupancyFamily.misconception_when, "ignore_carveout": (when.carveout_set,)}

    def gpu_choices(self, level):
        return {1: ("a100", "h100"), 2: ("a100", "h100", "b200"), 3: ("a100", "h100", "b200", "a10", "rtx4090")}[level]

    def space(self, level, gpu):
        kbs = range(52, 161, 4) if level == 1 else range(50, 228, 2) if level == 2 else range(50, 228, 3)
        carveouts = (-1,) if level < 3 else (-1, 25, 50, 75)
        for T in ((64, 128, 256, 512) if level < 3 else (128, 256, 512)):
            for kb in kbs:
                for c in carveouts:
                    yield {"threads_per_block": T, "regs_per_thread": 32, "dyn_smem": kb * 1024,
                           "optin": True, "carveout": c}

    def solve(self, params, gpu, explain=True):
        solved = super().solve(params, gpu, explain)
        without = occupancy(gpu, self.config(dict(params, optin=None)), model="exact")
        solved.answers = {"blocks_without_optin": without.blocks_per_sm, **solved.answers}
        solved.data["without"] = without
        return solved

    def in_cell(self, params, gpu, solved):
        res, without = solved.data["result"], solved.data["without"]
        return (without.blocks_per_sm == 0 and res.blocks_per_sm >= 1
                and "shared_memory" in res.limiter and params["dyn_smem"] <= gpu.smem_per_block_optin)

    def misconceptions(self, params, gpu, solved):
        out = super().misconceptions(params, gpu, solved)
        res = solved.data["result"]
        full = occupancy(gpu, self.config(dict(params, carveout=-1)), model="exact")
        if params.get("carveout", -1) != -1:
            out.append(_model_miscs("ignore_carveout", full))
        out.append(Misconception("launch_without_optin", {"blocks_without_optin": res.blocks_per_sm}))
        return out

    def render(self, params, gpu, solved, lang, salt):
        title, question, solution = super().render(params, gpu, solved, lang, salt)
        ctx = self.context(params, gpu, solved)
        solution.answer = phrase(lang, self.cell, "answer_prefix", ctx, salt=salt) + " " + solution.answer
        return title, question, solution


X5_GPUS = ("t4", "a100", "h100")


@register
class SameKernelManyGpus(ExactFamily):
    """X-5: one kernel on T4, A100 and H100: the limiter changes with the GPU."""

    cell = "X-5"
    main_answer = "occupancy_t4"
    answer_specs = {key: spec for g in X5_GPUS for key, spec in (
        (f"blocks_per_sm_{g}", sp.count("blocks", *LAUNCH)),
        (f"active_warps_{g}", sp.count("warps", f"blocks_per_sm_{g}", "threads_per_block",
                                       compute=rel.active_warps_on(g))),
        (f"occupancy_{g}", sp.fraction(f"active_warps_{g}", compute=rel.occupancy_on(g))),
        (f"limiter_{g}", sp.limits(*LAUNCH)))}

    def gpu_choices(self, level):
        return ("a100",)

    def space(self, level, gpu):
        threads = (128, 256, 512, 1024) if level == 1 else sampling.THREADS[2]
        regs = (24, 32, 36, 40, 44, 48, 56, 64, 72, 80, 96, 112, 128) if level < 3 else tuple(range(24, 160, 6))
        smems = ((0, 8192, 16384, 24576, 32768, 40960, 49152) if level < 3
                 else tuple(range(0, 49153, 6144)))
        for T in threads:
            for r in regs:
                for s in smems:
                    yield {"threads_per_block": T, "regs_per_thread": r, "smem_per_block": s}

    def solve(self, params, gpu, explain=True):
        cfg = self.config(params)
        results = {name: occupancy(get_gpu(name), cfg, model="exact", explain=explain) for name in X5_GPUS}
        for res in results.values():
            when.keep_applicable_notes(res.steps, res.limiter)
        answers: dict[str, Any] = {}
        for name, res in results.items():
            answers[f"blocks_per_sm_{name}"] = res.blocks_per_sm
            answers[f"active_warps_{name}"] = res.active_warps
            answers[f"occupancy_{name}"] = res.occupancy
            answers[f"limiter_{name}"] = list(res.limiter)
        return Solved(answers, {"results": results, "result": results["a100"],
                                "textbook": occupancy(gpu, cfg, model="textbook")})

    def in_cell(self, params, gpu, solved):
        results = solved.data["results"]
        limiters = {tuple(r.limiter) for r in results.values()}
        return len(limiters) >= 2 and all(r.blocks_per_sm >= 1 for r in results.values())

    def render(self, params, gpu, solved, lang, salt):
        ctx = self.context(params, gpu, solved)
        results = solved.data["results"]
        ctx["results"] = results
        steps = []
        verify = []
        answers = []
        for name, res in results.items():
            the_gpu = get_gpu(name)
            for step in solution_steps(res.steps, lang, salt=salt + name, gpu=the_gpu.to_dict()):
                step.title = f"[{name.upper()}] {step.title}"
                steps.append(step)
            verify.extend(f"[{name.upper()}] {line}" for line in occupancy_verify(res, the_gpu, lang, salt=salt))
            answers.append(f"{name.upper()}: {occupancy_answer(res, lang)}")
        solution = Solution(forecast=phrase(lang, self.cell, "forecast", ctx, salt=salt), steps=steps,
                            verify=verify, answer=" ".join(answers),
                            trap=phrase(lang, self.cell, "trap", ctx, salt=salt))
        return (phrase(lang, self.cell, "title", ctx, salt=salt),
                phrase(lang, self.cell, "question", ctx, salt=salt), solution)

    def misconceptions(self, params, gpu, solved):
        cfg = self.config(params)
        t4 = get_gpu("t4")
        book = occupancy(t4, cfg, model="textbook")
        a100 = solved.data["results"]["a100"]
        return [
            Misconception("textbook_model", {"occupancy_t4": book.occupancy}),
            Misconception("same_on_every_gpu", {"occupancy_t4": a100.occupancy}),
            Misconception("t4_has_64_warps", {"occupancy_t4": min(1.0, solved.data["results"]["t4"].active_warps / 64)}),
            Misconception("occupancy_from_blocks",
                          {"occupancy_t4": solved.data["results"]["t4"].blocks_per_sm / t4.max_blocks_per_sm}),
            Misconception("ceil_not_floor", {"occupancy_t4": min(1.0, (solved.data["results"]["t4"].blocks_per_sm + 1)
                                                                  * solved.data["results"]["t4"].warps_per_block
                                                                  / t4.max_warps_per_sm)}),
        ]

    def figure(self, params, gpu, solved):
        return None


X4_TARGETS = (0.25, 0.375, 0.5, 0.625, 0.75, 1.0)


@register
class InverseRegisters(ExactFamily):
    """X-4: the most registers per thread that keep a target occupancy, solved and checked."""

    cell = "X-4"
    main_answer = "regs_per_thread"
    answer_specs = {
        "target_blocks": sp.count("blocks", "target_occupancy", "threads_per_block"),
        "regs_per_thread": sp.count("registers", "target_blocks", "threads_per_block", "smem_per_block"),
        "blocks_per_sm": sp.count("blocks", "regs_per_thread", "threads_per_block", "smem_per_block"),
    }

    def gpu_choices(self, level):
        return {1: ("textbook", "a100", "h100"), 2: ("a100", "h100", "v100"),
                3: ("t4", "a10", "rtx4090")}[level]

    def space(self, level, gpu):
        threads = ((64, 128, 256, 512, 1024) if level == 1 else (64, 96, 128, 192, 256, 384, 512, 768)
                   if level == 2 else (96, 160, 192, 224, 288, 320, 384, 480, 640))
        smems = (0,) if level == 1 else (0, 4096, 12288)
        for T in threads:
            for s in smems:
                for target in X4_TARGETS:
                    for shape in shapes_for(T, 2)[:4 if level == 1 else 1]:
                        yield with_shape({"threads_per_block": T, "smem_per_block": s,
                                          "target_occupancy": target}, shape)

    def solve(self, params, gpu, explain=True):
        from quizgen.engine.inverse import max_regs_for_occupancy

        model = gpu.default_model
        cfg = self.config(params)
        inv = max_regs_for_occupancy(gpu, cfg, params["target_occupancy"], model=model)
        book = max_regs_for_occupancy(gpu, cfg, params["target_occupancy"], model="textbook")
        answers: dict[str, Any] = {"target_blocks": inv.target_blocks}
        if inv.answer is not None:
            answers["regs_per_thread"] = inv.answer
            answers["blocks_per_sm"] = inv.at_answer.blocks_per_sm if inv.at_answer else None
        return Solved(answers, {"inverse": inv, "book": book, "model": model})

    def model_for(self, gpu):
        return gpu.default_model

    def in_cell(self, params, gpu, solved):
        inv = solved.data["inverse"]
        return (inv.answer is not None and 1 <= inv.answer < gpu.max_regs_per_thread
                and inv.at_next is not None)

    def context(self, params, gpu, solved):
        inv = solved.data["inverse"]
        block = params.get("block")
        T = params["threads_per_block"]
        return {**solved.answers, "T": T,
                "T_text": f"{T} (blockDim = ({block[0]}, {block[1]}))" if block else str(T),
                "s": params.get("smem_per_block", 0), "gpu": gpu.to_dict(),
                "gpu_name": gpu.spoken_name, "inv": inv,
                "book": solved.data["book"], "target": params["target_occupancy"],
                "model": solved.data["model"], "r": inv.answer, "B": inv.target_blocks,
                "next": inv.at_next, "at": inv.at_answer}

    def render(self, params, gpu, solved, lang, salt):
        ctx = self.context(params, gpu, solved)
        inv = solved.data["inverse"]
        import dataclasses

        engine_steps = []
        for step in inv.steps:
            if step.key in ("check_answer", "check_next"):
                step = dataclasses.replace(step, why="substitute_check")
            elif step.key == "regs_lid" and step.note == "floor_drops":
                step = dataclasses.replace(step, note="floor_drops_regs")
            engine_steps.append(step)
        steps = solution_steps(engine_steps, lang, salt=salt, gpu=gpu.to_dict())
        verify = phrase_list(lang, self.cell, "verify", ctx, salt=salt)
        solution = Solution(forecast=phrase(lang, self.cell, "forecast", ctx, salt=salt), steps=steps,
                            verify=verify, answer=phrase(lang, self.cell, "answer", ctx, salt=salt),
                            trap=phrase(lang, self.cell, "trap", ctx, salt=salt))
        return (phrase(lang, self.cell, "title", ctx, salt=salt),
                phrase(lang, self.cell, "question", ctx, salt=salt), solution)

    def misconceptions(self, params, gpu, solved):
        inv, book = solved.data["inverse"], solved.data["book"]
        T = params["threads_per_block"]
        target_warps = params["target_occupancy"] * gpu.max_warps_per_sm
        out = []
        if book.answer is not None:
            out.append(Misconception("textbook_model", {"regs_per_thread": book.answer}))
        out.append(Misconception("warps_not_blocks",
                                 {"regs_per_thread": min(255, int(gpu.regs_per_sm // (32 * target_warps)))}))
        out.append(Misconception("one_block_short", {"regs_per_thread": min(255, gpu.regs_per_sm // (max(1, inv.target_blocks - 1) * T))}))
        if inv.answer is not None:
            out.append(Misconception("no_check_next", {"regs_per_thread": inv.answer + 1}))
        return out

    def figure(self, params, gpu, solved):
        inv = solved.data["inverse"]
        if inv.answer is None:
            return None
        return {"kind": "occupancy_sweep", "vary": "regs",
                "threads_per_block": params["threads_per_block"],
                "smem_per_block": params.get("smem_per_block", 0), "regs_per_thread": inv.answer}
