"""Occupancy families on a real GPU (seed 004, cells L-1, L-2): register- and shared-memory-limited
warps with the chip's own allocation granularities (`quizgen.problems.real_gpu`).

What the occupancy families share (`OccupancyFamily`, the standard misconceptions) is in
`quizgen.problems.occupancy_families`.
"""

from __future__ import annotations

from quizgen.engine.arith import ceiling
from quizgen.engine.derivation import Step
from quizgen.engine.occupancy import warps_by_registers
from quizgen.gpus import GPU
from quizgen.problems import applicability as when
from quizgen.problems import real_gpu_inverse
from quizgen.problems import relations as rel
from quizgen.problems import specs as sp
from quizgen.problems.base import Misconception, Solved
from quizgen.problems.occupancy_families import (OCC_SPECS, OccupancyFamily, shapes_for,
                                                 when_not_whole_warps, with_shape)
from quizgen.problems.registry import register


def _whole_block_warps(gpu: GPU, per_warp: int, w: int) -> int:
    """The warps of the whole blocks that `per_warp` warps' worth of registers hold (L-1)."""
    return min(per_warp // w, gpu.max_blocks_per_sm) * w


@register
class RealGpuRegisters(OccupancyFamily):
    """L-1: register-limited warps on a real GPU (seed 004, scenario 1 and the A100 flashcard)."""

    cell = "L-1"
    main_answer = "occupancy"
    answer_specs = {
        "regs_per_warp": sp.count("registers", "regs_per_thread"),
        "warps": sp.count("warps", "threads_per_block"),
        # warps' worth of registers, then the whole blocks of the stated size they hold
        "blocks_per_sm": sp.count("blocks", "regs_per_warp", "warps", compute=lambda v, gpu: min(
            rel.warps_from_register_pool(v, gpu) // v["warps"], gpu.max_blocks_per_sm)),
        "active_warps": sp.count("warps", "regs_per_warp", "threads_per_block",
                                 compute=lambda v, gpu: _whole_block_warps(
                                     gpu, rel.warps_from_register_pool(v, gpu),
                                     ceiling(v["threads_per_block"], 32))),
        "occupancy": sp.fraction("active_warps", compute=rel.occupancy_of),
        # level 3, a design choice: the register cap that makes room for one more block
        "max_regs": sp.count("registers", "threads_per_block", "target_blocks",
                             compute=lambda v, gpu: real_gpu_inverse.textbook_max_regs(
                                 gpu, v["threads_per_block"], v["target_blocks"])),
        "regs_to_shed": sp.count("registers", "regs_per_thread", "max_regs",
                                 compute=lambda v, gpu: v["regs_per_thread"] - v["max_regs"]),
    }
    misconception_when = {"no_floor": (when_not_whole_warps,),
                          "ceil_not_floor": (when_not_whole_warps,)}

    def gpu_choices(self, level):
        return {1: ("a100", "v100", "h100", "b200"), 2: ("a100", "v100", "h100", "b200"),
                3: ("a100", "h100", "a10", "rtx4090", "t4")}[level]

    def space(self, level, gpu):
        regs = {1: range(33, 129), 2: range(129, 256), 3: range(40, 256)}[level]
        for r in regs:
            for T in (128, 256):        # the block size the question states (the exact model needs it)
                p = {"regs_per_thread": r, "threads_per_block": T}
                if level == 3:          # one more whole block than the registers allow now
                    p["target_blocks"] = warps_by_registers(gpu, r) * 32 // T + 1
                yield p

    def solve(self, params, gpu, explain=True):
        r, T = params["regs_per_thread"], params["threads_per_block"]
        per_warp = warps_by_registers(gpu, r)
        w = ceiling(T, 32)
        # warps are resident only in whole blocks of the stated size (and at most B_max of them)
        warps = _whole_block_warps(gpu, per_warp, w)
        blocks = warps // w
        occ = warps / gpu.max_warps_per_sm
        steps = [
            Step("regs_per_warp", "regs_per_warp", {"r": r}, 32 * r, "registers", "l1_regs_per_warp"),
            Step("warps_by_regs", "warps_by_regs", {"R_SM": gpu.regs_per_sm, "r": r}, per_warp, "warps",
                 "l1_warps_by_regs",
                 None if gpu.regs_per_sm % (32 * r) == 0 else "floor_drops_warp"),
            Step("blocks_by_regs", "blocks_by_regs", {"R_SM": gpu.regs_per_sm, "T": T, "r": r},
                 blocks, "blocks", "l1_whole_blocks", None if per_warp % w == 0 else "l1_cut_to_blocks"),
            Step("active_warps", "active_warps", {"B": blocks, "w": w}, warps, "warps", "l1_block_warps"),
            Step("occupancy", "occupancy", {"A": warps, "W_max": gpu.max_warps_per_sm}, occ, "",
                 "l1_occupancy"),
        ]
        answers = {"regs_per_warp": 32 * r, "warps": w, "blocks_per_sm": blocks, "active_warps": warps,
                   "occupancy": occ}
        data = {"steps": steps, "warps": warps, "occ": occ, "per_warp": per_warp, "blocks": blocks,
                "w": w}
        if "target_blocks" in params:
            inv = real_gpu_inverse.max_regs(gpu, params["threads_per_block"], r,
                                            params["target_blocks"])
            if inv.answer is not None:
                steps += inv.steps
                answers.update({"max_regs": inv.answer, "regs_to_shed": r - inv.answer})
            data["inverse"] = inv
        return Solved(answers, data)

    def in_cell(self, params, gpu, solved):
        a = solved.answers
        ok = 0 < a["active_warps"] < gpu.max_warps_per_sm
        if "target_blocks" in params:   # the wanted block fits under the warp cap, and some r does it
            ok = (ok and params["target_blocks"] * params["threads_per_block"] // 32
                  <= gpu.max_warps_per_sm and bool(a.get("max_regs")))
        return ok

    def misconceptions(self, params, gpu, solved):
        r, T = params["regs_per_thread"], params.get("threads_per_block", 128)
        W = gpu.max_warps_per_sm
        raw = gpu.regs_per_sm / (32 * r)
        return [
            Misconception("no_floor", {"occupancy": min(1.0, raw / W), "active_warps": round(raw, 3)}),
            Misconception("warps_not_whole_blocks", {"active_warps": warps_by_registers(gpu, r),
                                                     "occupancy": warps_by_registers(gpu, r) / W}),
            Misconception("forgot_warp_size", {"active_warps": min(W, gpu.regs_per_sm // r),
                                               "occupancy": min(W, gpu.regs_per_sm // r) / W}),
            Misconception("ceil_not_floor", {"active_warps": warps_by_registers(gpu, r) + 1,
                                             "occupancy": min(1.0, (warps_by_registers(gpu, r) + 1) / W)}),
            # blocks of T threads counted, then read as warps or against the block cap
            Misconception("register_blocks_as_warps", {"active_warps": gpu.regs_per_sm // (T * r),
                                              "occupancy": gpu.regs_per_sm // (T * r) / W}),
            Misconception("occupancy_from_blocks", {
                "occupancy": min(1.0, gpu.regs_per_sm // (T * r) / gpu.max_blocks_per_sm)}),
        ]

    def figure(self, params, gpu, solved):
        return None


@register
class RealGpuSharedMemory(OccupancyFamily):
    """L-2: shared-memory-limited blocks on a real GPU (seed 004, scenario 2): KB per SM vs per block."""

    cell = "L-2"
    answer_specs = {
        **OCC_SPECS,
        # level 3, a design choice: the largest tile that makes room for one more block
        "max_smem": sp.bytes_("threads_per_block", "regs_per_thread", "target_blocks",
                              compute=lambda v, gpu: real_gpu_inverse.textbook_max_smem(
                                  gpu, v["threads_per_block"], v["regs_per_thread"],
                                  v["target_blocks"])),
        "smem_to_trim": sp.bytes_("smem_per_block", "max_smem",
                                  compute=lambda v, gpu: v["smem_per_block"] - v["max_smem"]),
    }
    trap_when = (when.binds("shared_memory"),)

    def gpu_choices(self, level):
        return {1: ("a100", "h100", "v100"), 2: ("a100", "h100", "v100", "a10", "rtx4090"),
                3: ("a100", "h100", "v100", "a10", "rtx4090", "t4", "b200")}[level]

    def space(self, level, gpu):
        threads = (64, 128, 256, 512) if level == 1 else (64, 128, 192, 256, 384, 512)
        kbs = range(8, 49, 4) if level == 1 else range(12, 49, 2)
        for T in threads:
            for r in (16, 24, 32):
                for kb in kbs:
                    for shape in shapes_for(T, level)[:2]:
                        p = {"threads_per_block": T, "regs_per_thread": r, "smem_per_block": kb * 1024}
                        if level == 3:      # one block more than shared memory allows now
                            p["target_blocks"] = gpu.smem_per_sm // (kb * 1024) + 1
                        yield with_shape(p, shape)

    def solve(self, params, gpu, explain=True):
        solved = super().solve(params, gpu, explain)
        if "target_blocks" in params:
            inv = real_gpu_inverse.max_smem(gpu, self.config(params), params["target_blocks"])
            if inv.answer is not None:
                solved.answers.update({"max_smem": inv.answer,
                                       "smem_to_trim": params["smem_per_block"] - inv.answer})
            solved.data["inverse"] = inv
        return solved

    def in_cell(self, params, gpu, solved):
        res = solved.data["result"]
        ok = res.limiter == ["shared_memory"] and res.blocks_per_sm >= 1
        if "target_blocks" in params:
            ok = ok and bool(solved.answers.get("max_smem"))
        return ok
