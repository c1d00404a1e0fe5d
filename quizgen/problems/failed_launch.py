"""OCC-5 (seed 000, Example 5): a block that cannot fit, a launch failure and the largest block
that would fit, under the notes' model.

A block fails in two ways: it needs more registers than the SM has, or it has more threads than
one block may have (a limit per block, not per SM: PMPP's 32×32 block on a device of 512 threads
per block). The question also asks the largest block that runs; at level 3, the registers at
which the block as written would fit.
"""

from __future__ import annotations

from quizgen.engine import whatif
from quizgen.engine.arith import ceiling
from quizgen.engine.occupancy import launch_config, occupancy
from quizgen.gpus import GPU
from quizgen.problems import relations as rel
from quizgen.problems import specs as sp
from quizgen.problems.base import Misconception
from quizgen.problems.occupancy_families import (OCC_SPECS, OccupancyFamily, book_occupancy,
                                                 shapes_for, with_shape)
from quizgen.problems.registry import register


def blocks_within_block_limit(v, gpu) -> int:
    """The notes' lowest lid, and 0 for a block over the GPU's threads-per-block limit."""
    if v["threads_per_block"] > gpu.max_threads_per_block:
        return 0
    return rel.textbook_blocks(v, gpu)


def over_thread_limit(facts, m) -> bool:
    """The block asks for more threads than one block may have."""
    return facts.params["threads_per_block"] > facts.gpu.max_threads_per_block


def over_thread_limit_space(level: int, gpu: GPU):
    """Blocks over the GPU's per-block thread limit whose registers would fit: the launch fails
    on threads alone (1-D and 2-D shapes, as a kernel writes them)."""
    limit = gpu.max_threads_per_block
    shapes = ([[limit + 32 * k, 1, 1] for k in (8, 16, 32)] + [[32, limit // 32 + k, 1] for k in (1, 4, 8, 16, 32)]
              if level == 1 else
              [[x, y, 1] for x in (16, 24, 32, 48, 64) for y in (16, 24, 32, 40, 48, 64)
               if limit < x * y <= 4 * limit])
    for shape in shapes:
        T = shape[0] * shape[1]
        for r in (16, 20, 24, 28, 30, 32, 40):
            params = {"threads_per_block": T, "regs_per_thread": r}
            yield with_shape(params, shape if shape[1] > 1 else None)


def fix_block(params: dict, gpu: GPU) -> str:
    """The nearest block that runs, as a kernel would write it: blockDim.x kept and y cut to the
    per-block limit ("blockDim 32×32"), or a 1-D block of the limit itself."""
    block, limit = params.get("block"), gpu.max_threads_per_block
    if block and block[1] > 1 and block[0] <= limit:
        return f"blockDim {block[0]}×{limit // block[0]}"
    return f"{limit:,} threads"


def ignored_block_limit(gpu: GPU, config, T: int) -> Misconception:
    """The launch taken to run as asked: the SM's other lids applied to the whole block, as if
    no limit per block existed (blocks and occupancy; the largest block = the block asked)."""
    loose = occupancy(gpu.with_overrides(max_threads_per_block=max(T, gpu.max_threads_per_block)),
                      config, model="textbook")
    return Misconception("ignored_block_limit", {"largest_block": T, "blocks_per_sm": loose.blocks_per_sm,
                                                 "active_warps": loose.active_warps,
                                                 "occupancy": loose.occupancy})


@register
class CannotFit(OccupancyFamily):
    """OCC-5: a block that cannot fit: zero blocks, a launch failure, and the largest block that
    fits. Two ways to fail: more registers than the SM has, or more threads than one block may
    have (a limit per block, not per SM: PMPP's 32×32 block on a 512-thread-per-block SM)."""

    cell = "OCC-5"
    main_answer = "largest_block"
    ask_key = "ask"
    draws_refused_launches = True
    answer_specs = {
        **OCC_SPECS,
        # a block over the per-block thread limit has no lid at all: 0 blocks
        "blocks_per_sm": sp.count("blocks", "regs_per_block", "warps", "smem_per_block",
                                  "threads_per_block", compute=blocks_within_block_limit),
        "largest_block": sp.count("threads", "regs_per_thread"),
        "regs_to_fit": sp.count("registers", "threads_per_block", compute=lambda v, gpu: whatif.fit_regs(
            gpu.regs_per_sm, v["threads_per_block"])),
        "occupancy_after": sp.fraction("threads_per_block", "regs_to_fit",
                                       compute=lambda v, gpu: book_occupancy(
                                           v, gpu, regs=v["regs_to_fit"])),
    }
    misconception_when = {**OccupancyFamily.misconception_when,
                          "sm_limit_as_block_limit": (over_thread_limit,),
                          "registers_not_threads": (over_thread_limit,),
                          "ignored_block_limit": (over_thread_limit,)}

    def gpu_choices(self, level):
        # level 2 adds PMPP's SM whose blocks hold at most 512 threads
        return ("textbook", "pmpp-512") if level == 2 else ("textbook",)

    def level_three(self, params, gpu, res):
        change = whatif.regs_to_fit(gpu, self.config(params))
        return {"regs_to_fit": change.value, "occupancy_after": change.after.occupancy}, change

    def space(self, level, gpu):
        if level < 3:
            yield from over_thread_limit_space(level, gpu)
        if gpu.max_threads_per_block < 1024:
            return      # a register question does not state the block limit: only the usual one
        threads = (512, 640, 768, 896, 1024) if level == 1 else (256, 320, 384, 448, 512, 640, 768, 896, 1024)
        regs = ((96, 104, 112, 120, 144, 160, 176, 192, 208, 224, 240, 255) if level == 1
                else tuple(range(70, 256)) if level == 3 else tuple(range(72, 256, 8)))
        for T in threads:
            for r in regs:
                if r & (r - 1) == 0:
                    continue        # R_SM/r a power of two: every method gives the same block
                for shape in shapes_for(T, 2)[:4 if level == 1 else 2]:
                    params = {"threads_per_block": T, "regs_per_thread": r}
                    if level == 3:          # inverse: the registers at which this block fits
                        if (not gpu.is_textbook
                                and whatif.fit_regs(gpu.regs_per_sm, T) > gpu.max_regs_per_thread):
                            continue        # every register count this GPU allows fits the block
                        params["ask"] = "regs_to_fit"
                    yield with_shape(params, shape)

    def solve(self, params, gpu, explain=True):
        solved = super().solve(params, gpu, explain)
        r = params["regs_per_thread"]
        largest = min(gpu.max_threads_per_block, (gpu.regs_per_sm // r) // 32 * 32)
        solved.answers["largest_block"] = largest
        over = solved.data["result"].failure == "threads_per_block"
        solved.data["extra"] = {"largest": largest, "largest_raw": gpu.regs_per_sm // r,
                                "over_threads": over, "fix_block": fix_block(params, gpu)}
        if over:        # the right option's reason is the thread limit's, not the registers'
            solved.data["correct_phrase"] = "correct_threads"
        return solved

    def in_cell(self, params, gpu, solved):
        res = solved.data["result"]
        largest = solved.answers["largest_block"]
        if solved.data["extra"]["over_threads"]:
            # only the block's threads stop it: its registers would fit, and the largest block
            # is the per-block limit itself
            T, r = params["threads_per_block"], params["regs_per_thread"]
            return (res.limiter == ["warps"] and T * r <= gpu.regs_per_sm
                    and largest == gpu.max_threads_per_block
                    and self.blocks_of(params, gpu, largest) >= 1)
        if not (res.blocks_per_sm == 0 and res.limiter == ["registers"] and largest >= 32
                and solved.data["extra"]["largest_raw"] % 32):     # whole warps: a real rounding
            return False
        # The largest block is checked with the question's own model: it runs, 32 more do not.
        fits = self.blocks_of(params, gpu, largest)
        return fits >= 1 and (largest + 32 > gpu.max_threads_per_block
                              or self.blocks_of(params, gpu, largest + 32) == 0)

    def blocks_of(self, params, gpu, T, model=None):
        cfg = launch_config(T, params["regs_per_thread"])
        return occupancy(gpu, cfg, model=model or self.model).blocks_per_sm

    def misconceptions(self, params, gpu, solved):
        T, r = params["threads_per_block"], params["regs_per_thread"]
        raw = gpu.regs_per_sm // r
        by_regs = raw // 32 * 32
        return [
            Misconception("no_warp_rounding", {"largest_block": raw}),
            Misconception("threads_not_registers", {"largest_block": gpu.max_threads_per_block}),
            Misconception("warp_round_up", {"largest_block": min(gpu.max_threads_per_block,
                                                                 ceiling(raw, 32) * 32)}),
            Misconception("power_of_two_block", {"largest_block": 1 << (min(raw, gpu.max_threads_per_block).bit_length() - 1)}),
            Misconception("no_floor", {"occupancy": min(1.0, (gpu.regs_per_sm / (T * r)) * (ceiling(T, 32)) / gpu.max_warps_per_sm)}),
            # a block over the per-block thread limit: the SM's thread capacity read as the
            # block's limit, the registers alone, or the launch taken to run as asked
            Misconception("sm_limit_as_block_limit",
                          {"largest_block": min(gpu.max_warps_per_sm * 32, by_regs)}),
            Misconception("registers_not_threads", {"largest_block": by_regs}),
            ignored_block_limit(gpu, self.config(params), T),
        ]
