"""Occupancy families (seed 000 cells OCC-1…5, OCC-9; seed 004 cells L-1, L-2): the notes' model.

Every family solves with `quizgen.engine.occupancy` (textbook model: the notes' formulas) and
checks that the draw lands in its cell before it is used. The textbook cells are here, with what
every occupancy family shares; the real-GPU cells L-1 and L-2 are in `real_gpu_families`.
"""

from __future__ import annotations

from typing import Any, ClassVar

from quizgen.engine import whatif
from quizgen.engine.arith import ceiling
from quizgen.engine.occupancy import OccupancyResult, launch_config, occupancy
from quizgen.gpus import GPU
from quizgen.problems import applicability as when
from quizgen.problems import relations as rel
from quizgen.problems import sampling
from quizgen.problems import specs as sp
from quizgen.problems.base import Family, Misconception, Solved
from quizgen.problems.registry import register

LAUNCH = ("threads_per_block", "regs_per_thread", "smem_per_block")
#: The answers of an occupancy problem under the notes' model: the lids, then the minimum.
OCC_SPECS = {
    "warps": sp.count("warps", "threads_per_block"),
    "regs_per_block": sp.count("registers", "threads_per_block", "regs_per_thread"),
    "blocks_per_sm": sp.count("blocks", "regs_per_block", "warps", "smem_per_block",
                              compute=rel.textbook_blocks),
    "active_warps": sp.count("warps", "blocks_per_sm", "warps", compute=rel.active_warps),
    "occupancy": sp.fraction("active_warps", compute=rel.occupancy_of),
    "limiter": sp.limits(*LAUNCH),
}


def book_occupancy(v, gpu, **changed) -> float:
    """Occupancy (textbook) of the problem's launch with some of its values replaced."""
    cfg = launch_config(changed.get("threads", v.get("threads_per_block")),
                        changed.get("regs", v.get("regs_per_thread", 0)),
                        changed.get("smem", v.get("smem_per_block", 0) or 0))
    return occupancy(gpu, cfg, model="textbook").occupancy


def _after_occupancy(v, gpu):
    """Occupancy from the blocks a change leaves: blocks × warps per block ÷ the warp ceiling."""
    return rel.occupancy_of({"active_warps": v["blocks_after"] * v["warps"]}, gpu)


def when_not_whole_warps(facts, m) -> bool:
    """The register pool does not divide into whole warps (so the floor drops a fraction)."""
    r = facts.params.get("regs_per_thread") or 0
    return bool(r) and facts.gpu.regs_per_sm % (32 * r) != 0


def answers_of(res: OccupancyResult) -> dict[str, Any]:
    cfg = res.config
    out: dict[str, Any] = {"warps": res.warps_per_block}
    if cfg.regs_per_thread:
        out["regs_per_block"] = res.regs_per_block_allocated
    out.update({"blocks_per_sm": res.blocks_per_sm, "active_warps": res.active_warps,
                "occupancy": res.occupancy, "limiter": list(res.limiter)})
    return out


def bent_misconception(key: str, lids: list[Any], w: int, max_warps: int) -> Misconception:
    """A misconception's answers from the lids its wrong method keeps (None: a lid it drops).

    The lowest lid is the blocks per SM; of equal lids the first (in the order registers, shared
    memory, warps, block cap) is kept, as `min` does, since an int and a float can tie.
    """
    kept = [v for v in lids if v is not None]
    blocks = min(kept) if kept else 0
    warps = blocks * w
    occ = min(1.0, warps / max_warps)
    if blocks.__class__ is float and not blocks.is_integer():
        blocks = round(blocks, 3)
        warps = round(warps, 3)
    else:
        blocks, warps = int(blocks), int(warps)
    return Misconception(key, {"blocks_per_sm": blocks, "active_warps": warps, "occupancy": occ})


def standard_misconceptions(gpu: GPU, res: OccupancyResult) -> list[Misconception]:
    """The textbook lids with one rule bent at a time: the wrong methods students use."""
    cfg = res.config
    T, r, s = cfg.threads_per_block, cfg.regs_per_thread, cfg.smem_per_block + cfg.dyn_smem
    w = ceiling(T, 32)
    regs_sm, smem_sm, w_max, b_max = (gpu.regs_per_sm, gpu.smem_per_sm, gpu.max_warps_per_sm,
                                      gpu.max_blocks_per_sm)
    by_regs = regs_sm // (T * r) if r else None
    by_smem = smem_sm // s if s else None
    by_warps = w_max // w
    out = [
        bent_misconception("no_floor", [regs_sm / (T * r) if r else None, smem_sm / s if s else None,
                           w_max / w, b_max], w, w_max),
        bent_misconception("ignore_smem", [by_regs, by_warps, b_max], w, w_max),
        bent_misconception("ignore_bmax", [by_regs, by_smem, by_warps], w, w_max),
        bent_misconception("ignore_warp_cap", [by_regs, by_smem, b_max], w, w_max),
        bent_misconception("threads_not_warps", [by_regs, by_smem, w_max * gpu.warp_size // T, b_max], w, w_max),
        bent_misconception("ignore_regs", [by_smem, by_warps, b_max], w, w_max),
        # 48 KB read as 48,000 B: the shared-memory lid in "kilobytes of 1000 bytes"
        bent_misconception("kb_as_1000", [by_regs, smem_sm // ((s // 1024) * 1000 + s % 1024) if s else None,
                             by_warps, b_max], w, w_max),
    ]
    # Occupancy from blocks instead of warps: blocks / B_max.
    out.append(Misconception("occupancy_from_blocks", {
        "occupancy": res.blocks_per_sm / gpu.max_blocks_per_sm}))
    B = res.blocks_per_sm
    # Stopped at blocks: resident blocks ÷ the warp ceiling (the blocks → warps step forgotten).
    out.append(Misconception("blocks_as_warps", {"active_warps": B, "occupancy": B / w_max}))
    # One block's warps over the ceiling: forgot that several blocks share the SM.
    out.append(Misconception("one_block_only", {"blocks_per_sm": 1, "active_warps": w,
                                                "occupancy": min(1.0, w / w_max)}))
    # Seed 004's per-warp count used on a block question: ⌊R_SM/(32·r)⌋ warps, as if warps
    # were resident one by one; blocks are resident whole.
    if r:
        loose = min(w_max, regs_sm // (32 * r))
        out.append(Misconception("register_warps_only", {"active_warps": loose,
                                                         "occupancy": loose / w_max}))
    # The 1,024-thread block limit taken for the SM's thread limit: the warp lid shrinks.
    per_block_warps = gpu.max_threads_per_block // gpu.warp_size
    if per_block_warps < w_max and w <= per_block_warps:
        alt = min([v for v in (by_regs, by_smem) if v is not None] + [per_block_warps // w, b_max])
        out.append(Misconception("block_limit_as_sm_limit", {
            "blocks_per_sm": alt, "active_warps": alt * w, "occupancy": alt * w / w_max}))
    # Occupancy read as how full the block is: threads per block ÷ the 1,024-thread block limit.
    out.append(Misconception("block_fill_as_occupancy", {
        "occupancy": min(1.0, T / gpu.max_threads_per_block)}))
    # The other common block cap (the notes: "commonly 16 or 32").
    other = 16 if b_max != 16 else 32
    kept = [v for v in (by_regs, by_smem, by_warps) if v is not None]
    alt = min(kept + [other])
    out.append(Misconception("other_block_cap", {"blocks_per_sm": alt, "active_warps": alt * w,
                                                 "occupancy": min(1.0, alt * w / w_max)}))
    # Rounding the binding lid up instead of down: one block too many.
    if res.blocks_per_sm:
        out.append(Misconception("ceil_not_floor", {
            "blocks_per_sm": res.blocks_per_sm + 1,
            "active_warps": (res.blocks_per_sm + 1) * res.warps_per_block,
            "occupancy": min(1.0, (res.blocks_per_sm + 1) * res.warps_per_block / gpu.max_warps_per_sm)}))
    return out


class OccupancyFamily(Family):
    """Shared machinery: a launch, the textbook model, its answers and the standard slips (the
    words are its writer's, ``render/writers/occupancy.py``)."""

    topic = "occupancy"
    main_answer = "occupancy"
    answer_specs = OCC_SPECS
    #: Each standard slip is named only where the rule it bends matters here.
    misconception_when = {
        "ignore_smem": (when.uses_smem, when.binds("shared_memory")),
        "kb_as_1000": (when.uses_smem, when.whole_kilobytes, when.binds("shared_memory")),
        "ignore_bmax": (when.binds("blocks"),),
        "ignore_warp_cap": (when.binds("warps"),),
        "ignore_regs": (when.uses_regs, when.binds("registers")),
        "threads_not_warps": (when.partial_warp,),
        "blocks_as_warps": (when.several_warps_per_block,),
        "one_block_only": (when.several_blocks,),
        "register_warps_only": (when.uses_regs, when.binds("registers"), when.several_warps_per_block),
        "other_block_cap": (when.binds("blocks"),),
        "block_limit_as_sm_limit": (when.binds("warps"),),
    }
    uses_model = True
    model = "textbook"

    def model_for(self, gpu: GPU) -> str:
        return self.model

    def config(self, params: dict[str, Any]):
        return launch_config(params["threads_per_block"], params.get("regs_per_thread", 0),
                             params.get("smem_per_block", 0), params.get("dyn_smem", 0),
                             params.get("optin"), params.get("carveout", -1),
                             params.get("barriers", 1), params.get("block"))

    #: The parameter that marks a level-3 draw (its step is `level_three`'s); None: no such step.
    ask_key: ClassVar[str | None] = None

    def solve(self, params: dict[str, Any], gpu: GPU, explain: bool = True) -> Solved:
        res = occupancy(gpu, self.config(params), model=self.model, explain=explain)
        when.keep_applicable_notes(res.steps, res.limiter)
        solved = Solved(answers_of(res), {"result": res})
        if self.ask_key and self.ask_key in params and res.blocks_per_sm >= 0:
            answers, change = self.level_three(params, gpu, res)
            solved.answers.update(answers)
            solved.data["change"] = change
            if explain:
                res.steps.extend(change.steps)
        return solved

    def level_three(self, params: dict[str, Any], gpu: GPU,
                    res: OccupancyResult) -> tuple[dict[str, Any], whatif.Change]:
        """The answers and derivation of the level-3 step (a what-if, an inverse, a choice)."""
        raise NotImplementedError

    def context(self, params: dict[str, Any], gpu: GPU, solved: Solved) -> dict[str, Any]:
        res: OccupancyResult = solved.data["result"]
        s = params.get("smem_per_block", 0) + params.get("dyn_smem", 0)
        return {**solved.answers, "T": params["threads_per_block"],
                "r": params.get("regs_per_thread", 0), "s": s, "gpu": gpu.to_dict(), "gpu_name": gpu.spoken_name, "res": res,
                "B": res.blocks_per_sm, "A": res.active_warps,
                "w": res.warps_per_block, "occ": res.occupancy, "limiter": res.limiter,
                "model": self.model, "params": params, **solved.data.get("extra", {}),
                **self.change_context(solved)}

    @staticmethod
    def change_context(solved: Solved) -> dict[str, Any]:
        change = solved.data.get("change")
        if change is None:
            return {"asked": False}
        after = change.after
        return {"asked": True, "x3": change.value, "B3": after.blocks_per_sm if after else 0,
                "A3": after.active_warps if after else 0, "occ3": after.occupancy if after else 0,
                "lim3": list(after.limiter) if after else []}

    def misconceptions(self, params, gpu, solved):
        return standard_misconceptions(gpu, solved.data["result"])

    def figure(self, params, gpu, solved):
        launch = ("threads_per_block", "block", "regs_per_thread", "smem_per_block", "dyn_smem",
                  "optin", "carveout", "barriers")
        return {"kind": "occupancy_lids", **{k: params[k] for k in launch if k in params}}


def shapes_for(T: int, level: int) -> list[list[int] | None]:
    """1D, or the 2D shapes kernels use for T threads (x a power of two from 8 to 256)."""
    out: list[list[int] | None] = [None]
    if level >= 2:
        out += [[x, T // x, 1] for x in (32, 16, 64, 8, 128, 256) if T % x == 0 and T // x > 1]
    return out


def with_shape(params: dict[str, Any], shape: list[int] | None) -> dict[str, Any]:
    if shape:
        params = dict(params, block=shape)
    return params


SMEM_CHOICES = {
    1: (0, 1024, 2048, 4096, 8192, 12288, 16384, 24576, 32768, 49152),
    2: tuple(kb * 1024 for kb in (0, 2, 3, 4, 6, 8, 10, 12, 16, 20, 24, 32, 40, 48)),
    3: (0, 1000, 1536, 3000, 5120, 7000, 9216, 10000, 15360, 20000, 30000, 40000),
}


@register
class RegisterClean(OccupancyFamily):
    """OCC-1: register-bound, the register divide is whole (seed 000, Example 1)."""

    cell = "OCC-1"
    ask_key = "extra_regs"
    answer_specs = {
        **OCC_SPECS,
        "blocks_after": sp.count("blocks", "threads_per_block", "regs_per_thread", "extra_regs",
                                 "smem_per_block", compute=lambda v, gpu: whatif.more_registers(
                                     gpu, launch_config(v["threads_per_block"], v["regs_per_thread"],
                                                        v.get("smem_per_block", 0) or 0),
                                     v["extra_regs"]).after.blocks_per_sm),
        "occupancy_after": sp.fraction("blocks_after", "warps", compute=_after_occupancy),
    }
    #: The warm-up has no trap (CELLS.md: "none"): no Trap box.
    trap_when = (when.never,)

    def space(self, level, gpu):
        regs = (32, 64, 128) if level == 1 else (16, 32, 64, 128)
        for T in sampling.THREADS[min(level, 2)]:
            for r in regs:
                for s in SMEM_CHOICES[level]:
                    for shape in shapes_for(T, 2):
                        params = {"threads_per_block": T, "regs_per_thread": r, "smem_per_block": s}
                        if level == 3:      # what-if: a few more registers per thread
                            params["extra_regs"] = (1, 2, 4, 8)[(T // 32 + r // 16 + s // 1024) % 4]
                        yield with_shape(params, shape)

    def level_three(self, params, gpu, res):
        change = whatif.more_registers(gpu, self.config(params), params["extra_regs"])
        return {"blocks_after": change.after.blocks_per_sm, "occupancy_after": change.value}, change

    def in_cell(self, params, gpu, solved):
        res = solved.data["result"]
        T, r = params["threads_per_block"], params["regs_per_thread"]
        change = solved.data.get("change")
        return ("registers" in res.limiter and res.blocks_per_sm > 0
                and gpu.regs_per_sm % (T * r) == 0 and "shared_memory" not in res.limiter
                and (change is None or change.after.blocks_per_sm >= 1))


@register
class RegisterFloor(OccupancyFamily):
    """OCC-2: register-bound, the divide is not whole and the floor drops a block (the cliff)."""

    cell = "OCC-2"
    ask_key = "ask"
    answer_specs = {
        **OCC_SPECS,
        "regs_next_block": sp.count("registers", "blocks_per_sm", "threads_per_block",
                                    compute=lambda v, gpu: whatif.next_block_regs(
                                        gpu.regs_per_sm, v["blocks_per_sm"], v["threads_per_block"])),
        "occupancy_after": sp.fraction("threads_per_block", "regs_next_block", "smem_per_block",
                                       compute=lambda v, gpu: book_occupancy(
                                           v, gpu, regs=v["regs_next_block"])),
    }

    def level_three(self, params, gpu, res):
        change = whatif.regs_for_next_block(gpu, self.config(params))
        return {"regs_next_block": change.value, "occupancy_after": change.after.occupancy}, change

    def space(self, level, gpu):
        if level == 1:
            regs = sorted({b + d for b in (16, 32, 64, 128) for d in (2, 4, 6, 8)})
            smem = (0, 1024, 2048, 4096, 8192)
        elif level == 2:
            regs = sorted({b + d for b in sampling.REGS[2] for d in (1, 2, 3, 5, 7)})
            smem = (0, 2048, 4096, 8192)
        else:
            regs = tuple(range(10, 256, 3))
            smem = (0, 3000)
        for T in sampling.THREADS[level]:
            for r in regs:
                for s in smem:
                    for shape in shapes_for(T, 2)[:2]:
                        params = {"threads_per_block": T, "regs_per_thread": min(r, 255),
                                  "smem_per_block": s}
                        if level == 3:      # inverse: the registers that win one more block
                            params["ask"] = "regs_for_next_block"
                        yield with_shape(params, shape)

    def solve(self, params, gpu, explain=True):
        solved = super().solve(params, gpu, explain)
        res = solved.data["result"]
        T = params["threads_per_block"]
        B = res.blocks_per_sm
        # The cliff: the most registers per thread that would still give one more block.
        r_more = gpu.regs_per_sm // ((B + 1) * T)
        solved.data["extra"] = {"r_more": r_more,
                                "exact_ratio": gpu.regs_per_sm / (T * params["regs_per_thread"])}
        return solved

    def in_cell(self, params, gpu, solved):
        res = solved.data["result"]
        T, r = params["threads_per_block"], params["regs_per_thread"]
        change = solved.data.get("change")
        return (res.limiter == ["registers"] and res.blocks_per_sm >= 1
                and gpu.regs_per_sm % (T * r) != 0 and solved.data["extra"]["r_more"] >= 1
                and (change is None or change.after.blocks_per_sm == res.blocks_per_sm + 1))


@register
class SharedMemoryBound(OccupancyFamily):
    """OCC-3: shared memory binds, registers do not; KB vs bytes (seed 000, Example 3)."""

    cell = "OCC-3"
    ask_key = "ask"
    answer_specs = {
        **OCC_SPECS,
        "smem_next_block": sp.bytes_("blocks_per_sm", compute=lambda v, gpu: whatif.next_block_smem(
            gpu.smem_per_sm, v["blocks_per_sm"])),
        "occupancy_after": sp.fraction("threads_per_block", "regs_per_thread", "smem_next_block",
                                       compute=lambda v, gpu: book_occupancy(
                                           v, gpu, smem=v["smem_next_block"])),
    }

    def space(self, level, gpu):
        regs = (8, 16, 24, 32) if level < 3 else (12, 20, 40)
        kbs = (12, 16, 20, 24, 32, 40, 48) if level < 3 else tuple(range(13, 49, 2))
        for T in sampling.THREADS[level]:
            for r in regs:
                for kb in kbs:
                    for shape in shapes_for(T, 2)[:3]:
                        params = {"threads_per_block": T, "regs_per_thread": r,
                                  "smem_per_block": kb * 1024}
                        if level == 3:      # inverse: the tile that lets one more block in
                            params["ask"] = "smem_for_next_block"
                        yield with_shape(params, shape)

    def level_three(self, params, gpu, res):
        change = whatif.smem_for_next_block(gpu, self.config(params))
        return {"smem_next_block": change.value, "occupancy_after": change.after.occupancy}, change

    def in_cell(self, params, gpu, solved):
        res = solved.data["result"]
        limits = res.limits
        change = solved.data.get("change")
        return (res.limiter == ["shared_memory"] and limits["registers"] is not None
                and limits["registers"] > res.blocks_per_sm and res.blocks_per_sm >= 1
                and (change is None or change.after.blocks_per_sm == res.blocks_per_sm + 1))


@register
class WarpCeiling(OccupancyFamily):
    """OCC-4: the warp ceiling or the blocks-per-SM cap binds with registers to spare."""

    cell = "OCC-4"
    ask_key = "ask"
    answer_specs = {
        **OCC_SPECS,
        "block_for_ceiling": sp.count("threads", compute=lambda v, gpu: whatif.ceiling_block(
            gpu.max_warps_per_sm, gpu.max_blocks_per_sm)),
        "occupancy_after": sp.fraction("block_for_ceiling", "regs_per_thread", "smem_per_block",
                                       compute=lambda v, gpu: book_occupancy(
                                           v, gpu, threads=v["block_for_ceiling"])),
    }
    # The trap (the warp or block cap binds with registers to spare) is in every OCC-4 problem;
    # its words say whether the SM still fills (the spare registers buy nothing) or not.

    def level_three(self, params, gpu, res):
        change = whatif.block_for_ceiling(gpu, self.config(params))
        return {"block_for_ceiling": change.value, "occupancy_after": change.after.occupancy}, change

    def gpu_choices(self, level):
        # Level 3: the notes' twist, the same SM with B_max = 16, and real SMs with a 16-block cap.
        return ("textbook-bmax16", "t4", "a10") if level == 3 else ("textbook",)

    def space(self, level, gpu):
        threads = (64, 128, 256, 512, 1024) if level == 1 else (32, 64, 96, 128, 192, 256)
        for T in threads:
            for r in (8, 12, 16, 20, 24, 28, 32):
                for s in (0, 512, 1024, 2048, 3072):
                    for shape in shapes_for(T, 2):
                        params = {"threads_per_block": T, "regs_per_thread": r, "smem_per_block": s}
                        if level == 3:      # design choice: the block size that fills the SM
                            params["ask"] = "block_for_ceiling"
                        yield with_shape(params, shape)

    def in_cell(self, params, gpu, solved):
        res = solved.data["result"]
        regs = res.limits["registers"]
        smem = res.limits["shared_memory"]
        change = solved.data.get("change")
        return (set(res.limiter) <= {"warps", "blocks"} and res.blocks_per_sm >= 1
                and regs is not None and regs > res.blocks_per_sm
                and (smem is None or smem > res.blocks_per_sm)
                # level 3 picks the block that fills the SM: asked where this one does not
                and (change is None or (change.after.occupancy == 1 and res.occupancy < 1)))


@register
class TiedLimits(OccupancyFamily):
    """OCC-9: two limits tie (seed 000's self-check)."""

    cell = "OCC-9"
    ask_key = "ask"
    answer_specs = {
        **OCC_SPECS,
        "blocks_after": sp.count("blocks", "threads_per_block", "regs_per_thread", "smem_per_block",
                                 compute=lambda v, gpu: whatif.loosen_tied_lid(
                                     gpu, launch_config(v["threads_per_block"], v["regs_per_thread"],
                                                        v.get("smem_per_block", 0) or 0)).value),
        "occupancy_after": sp.fraction("blocks_after", "warps", compute=_after_occupancy),
    }

    def level_three(self, params, gpu, res):
        change = whatif.loosen_tied_lid(gpu, self.config(params))
        return {"blocks_after": change.value, "occupancy_after": change.after.occupancy}, change

    def gpu_choices(self, level):
        return ("textbook",) if level == 1 else ("textbook-64kb", "textbook")

    def space(self, level, gpu):
        if level == 1:
            for T in sampling.THREADS[1]:
                for r in (16, 32, 64, 128):
                    for s in (0, 1024, 2048, 3072, 4096, 6144, 8192, 12288):
                        for shape in shapes_for(T, 2):
                            yield with_shape({"threads_per_block": T, "regs_per_thread": r,
                                              "smem_per_block": s}, shape)
            return
        for T in sampling.THREADS[2]:
            for B in (1, 2, 3, 4, 6, 8):
                for dr in (0, 1, 2):
                    for ds in ((0, 1024, 2048) if level == 2 else (0, 512, 1000, 1536)):
                        r = gpu.regs_per_sm // (B * T) - dr
                        s = gpu.smem_per_sm // B - ds
                        if 1 <= r <= 255 and s > 0:
                            params = {"threads_per_block": T, "regs_per_thread": r, "smem_per_block": s}
                            if level == 3:  # what-if: loosen one lid of the tie
                                params["ask"] = "loosen_one_lid"
                            yield params

    def in_cell(self, params, gpu, solved):
        res = solved.data["result"]
        change = solved.data.get("change")
        return (len(res.limiter) >= 2 and res.limiter != ["warps", "blocks"] and res.blocks_per_sm >= 1
                and (change is None or (change.after.blocks_per_sm == res.blocks_per_sm
                                        and change.steps[0].result >= 1)))
