"""Latency families: OCC-6…OCC-8 (seed 000) and L-3…L-5 (seed 004).

OCC-6 is the plateau of η(N) = min(N, L)/L; OCC-7 a grid across all SMs (blocks per SM from the
textbook occupancy model, then waves and the ragged tail); OCC-8 two kernels at equal occupancy,
one diverging; L-3 and L-4 a memory-bound and a compute-bound kernel's critical path; L-5 Little's
law with ILP and schedulers. Solving goes through `quizgen.engine`; each family checks its cell.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from quizgen.engine import bound as bound_engine
from quizgen.engine import divergence as div_engine
from quizgen.engine import grid as grid_engine
from quizgen.engine import latency as lat_engine
from quizgen.engine import whatif
from quizgen.engine.derivation import Step
from quizgen.engine.occupancy import launch_config, occupancy
from quizgen.problems import applicability as when
from quizgen.problems import relations as rel
from quizgen.problems import specs as sp
from quizgen.problems.base import Misconception, Solved
from quizgen.problems.registry import register
from quizgen.problems.warp_families import WARP, EngineFamily, branches_of, splits
from quizgen import measured


def extra_warps(v, gpu) -> int:
    """Warps needed after a latency change minus before (the one latency model, twice)."""
    return v["warps_after"] - v["warps_needed"]


def least_ilp_of(v, gpu) -> int:
    """⌈L·X_s/(W·⌊N_w/N_sched⌋)⌉: the least ILP with which a warp budget hides the stall."""
    res = lat_engine.least_ilp(v["latency"], v["warp_budget"], v.get("work_per_warp", 1),
                               schedulers=v["schedulers"], throughput=v.get("throughput", 1))
    if res.least_ilp is None:
        raise ValueError("a scheduler holds no warp")
    return res.least_ilp


def warps_after_of(work_key: str | None):
    def compute(v, gpu) -> int:
        return lat_engine.hide_latency(v["new_latency"], v[work_key] if work_key else 1,
                                       schedulers=v["schedulers"], ilp=v.get("ilp", 1),
                                       throughput=v.get("throughput"),
                                       max_warps=gpu.max_warps_per_sm).warps_needed
    return compute


@register
class EfficiencyPlateau(EngineFamily):
    """OCC-6: η(N) = min(N, N_sched·L)/(N_sched·L) on an SM whose N_sched schedulers each issue
    from their own share of the N warps, below or past the plateau at N = N_sched·L, and η at
    the SM's warp cap, the most any occupancy can give. (Seed 000 Ex 6 works one scheduler:
    64/300 ≈ 21%; on the notes' 4-scheduler SM the 64 warps are 16 per scheduler, 16/300.)"""

    cell = "OCC-6"
    topic = "latency-hiding"
    main_answer = "efficiency"
    answer_specs = {
        "efficiency": sp.fraction("resident_warps", "latency", "schedulers"),
        "plateau_warps": sp.count("warps", "latency", "schedulers"),
        "efficiency_at_cap": sp.fraction("latency", "schedulers"),
        "spare_warps": sp.count("warps", "resident_warps", "plateau_warps", compute=rel.spare_warps),
        "warps_for_target": sp.count("warps", "latency", "target_efficiency", "schedulers",
                                     compute=lambda v, gpu: whatif.efficiency_warps(
                                         v["latency"], v["target_efficiency"], v["schedulers"])),
    }
    misconception_when = {"one_scheduler_for_all": (lambda facts, m: facts.gpu.schedulers_per_sm > 1,)}

    def space(self, level, gpu):
        cap, S = gpu.max_warps_per_sm, gpu.schedulers_per_sm
        # short stalls (a dependent FMA is ~4 cycles) as well as memory ones, so that some
        # launches reach the plateau of S·L warps within the cap
        if level == 1:
            lats = (4, 6, 8, 10, 12, 16, 20, 24, 28, 30, 32, 36, 40, 48, 60, 100, 150, 200, 250,
                    300, 400, 500, 600, 800)
            warps = (4, 8, 16, 24, 32, 40, 48, 56, 64)
        elif level == 2:
            lats = (4, 6, 8, 10) + tuple(range(12, 61, 4)) + tuple(range(100, 801, 50))
            warps = tuple(range(4, 65, 4))
        else:
            # the target's fewest warps must fit under the cap (E·S·L ≤ W_max), so most level-3
            # stalls are short ones: dependent arithmetic of 5–32 cycles
            lats = tuple(range(5, 33)) + (35, 45, 51, 58, 70, 90, 99, 130, 170, 230, 300, 375,
                                          450, 700)
            warps = (4, 8, 12, 20, 28, 36, 44, 52, 60)
        for L in lats:
            for N in warps:
                if N <= cap and N % S == 0:     # no SM holds more than its cap; an even share
                    base = {"latency": L, "resident_warps": N, "schedulers": S}
                    if level < 3:
                        yield base
                        continue
                    for E in (0.5, 0.75, 0.9):  # inverse: the fewest warps for a target η
                        yield {**base, "target_efficiency": E, "ask": "warps_for_target"}

    def solve(self, params, gpu, explain=True):
        L, N = params["latency"], params["resident_warps"]
        S = params.get("schedulers", gpu.schedulers_per_sm)
        cap = gpu.max_warps_per_sm
        res = lat_engine.efficiency(N, L, max_warps=cap, schedulers=S, explain=explain)
        answers = {"efficiency": res.efficiency, "plateau_warps": res.plateau_at,
                   "efficiency_at_cap": res.efficiency_at_cap, "spare_warps": res.spare_warps}
        steps = list(res.steps)
        asked = "target_efficiency" in params
        if asked:
            change = whatif.warps_for_efficiency(L, params["target_efficiency"], S)
            answers["warps_for_target"] = change.value
            steps += change.steps
        n_s, cap_s = N // S, cap // S
        return Solved(answers, {"steps": steps, "ctx": {
            "asked": asked, "x3": answers.get("warps_for_target", 0),
            "E": params.get("target_efficiency", 0), "S": S, "n_s": n_s, "cap_s": cap_s,
            "L": L, "N": N, "P": res.plateau_at, "eta": res.efficiency,
            "eta_cap": res.efficiency_at_cap, "busy": min(n_s, L), "above": N > res.plateau_at,
            "cap_busy": min(cap_s, L), "cap_short": cap < res.plateau_at,
            "gain": res.efficiency_at_cap - res.efficiency}})

    def in_cell(self, params, gpu, solved):
        S = params.get("schedulers", gpu.schedulers_per_sm)
        return (params["resident_warps"] != S * params["latency"]
                and params["resident_warps"] <= gpu.max_warps_per_sm
                and solved.answers.get("warps_for_target", 0) <= gpu.max_warps_per_sm)

    def misconceptions(self, params, gpu, solved):
        L, N = params["latency"], params["resident_warps"]
        S = params.get("schedulers", gpu.schedulers_per_sm)
        P = S * L
        cap = gpu.max_warps_per_sm
        out = [
            # (below the plateau N/P is the right η: the slip shows only past it)
            Misconception("no_plateau", {**({"efficiency": round(N / P, 4)} if N > P else {}),
                                         "efficiency_at_cap": round(cap / P, 4)}),
            Misconception("occupancy_as_efficiency", {"efficiency": N / cap}),
            # seed 000 Ex 6's one scheduler read onto the whole SM: all N warps feed one issuer
            Misconception("one_scheduler_for_all", {"efficiency": min(N, L) / L,
                                                    "efficiency_at_cap": min(cap, L) / L,
                                                    "plateau_warps": L}),
        ]
        if N < P:
            out.append(Misconception("idle_share", {"efficiency": 1 - N / P}))
        if N > P:
            out.append(Misconception("latency_over_warps", {"efficiency": round(P / N, 4)}))
        # One warp's share (it issues once per L cycles), without counting the other warps.
        if N > S:
            out.append(Misconception("one_warp_share", {"efficiency": round(1 / L, 4)}))
        return out

    def figure(self, params, gpu, solved):
        # one scheduler's curve: its own share of the warps against the stall
        S = params.get("schedulers", gpu.schedulers_per_sm)
        return {"kind": "efficiency_curve", "latency": params["latency"],
                "resident_warps": params["resident_warps"] // S}


@register
class GridWaves(EngineFamily):
    """OCC-7: a grid across all SMs: too few blocks leave SMs idle, or the last wave is ragged (Ex 7)."""

    cell = "OCC-7"
    topic = "occupancy"
    main_answer = "waves"
    uses_model = True
    answer_specs = {
        "blocks_per_sm": sp.count("blocks", "threads_per_block", "regs_per_thread", "smem_per_block"),
        "slots": sp.count("blocks", "blocks_per_sm", "grid_blocks", "num_sms", compute=rel.slots),
        "waves": sp.count("waves", "slots", "grid_blocks", compute=rel.waves_from_slots),
        "tail_blocks": sp.count("blocks", "slots", "grid_blocks", compute=rel.tail_from_slots),
        "idle_sms": sp.count("SMs", "grid_blocks", "num_sms"),
        "tail_sms": sp.count("SMs", "blocks_per_sm", "grid_blocks", "num_sms", compute=rel.tail_sms),
        "full_wave_grid": sp.count("blocks", "grid_blocks", "slots",
                                   compute=lambda v, gpu: whatif.wave_grid(v["grid_blocks"], v["slots"])),
    }
    misconception_when = {"forgot_tail_wave": (when.ragged_tail,),
                          "one_block_per_sm": (when.several_blocks,),
                          "packed_grid": (when.several_blocks,),
                          "free_slots_as_idle": (when.several_blocks,)}

    def model_for(self, gpu):
        return "textbook"

    def gpu_choices(self, level):
        return {1: ("textbook",), 2: ("textbook", "v100", "a100"), 3: ("a100", "h100", "t4", "a10")}[level]

    def space(self, level, gpu):
        S = gpu.num_sms
        if level == 1:
            kernels = [(T, r, 0) for T in (128, 256, 512) for r in (32, 64)]
            grids = list(range(8, S, 4)) + list(range(1000, 10001, 250))
        elif level == 2:
            kernels = [(T, r, s) for T in (128, 256, 384, 512) for r in (32, 40, 64)
                       for s in (0, 16384)]
            grids = list(range(10, S, 10)) + list(range(700, 6001, 350))
        else:
            kernels = [(T, r, s) for T in (96, 192, 320, 640) for r in (26, 45, 70) for s in (0, 7000)]
            grids = list(range(7, S, 9)) + list(range(333, 9000, 411))
        for T, r, s in kernels:
            for G in grids:
                params = {"threads_per_block": T, "regs_per_thread": r, "grid_blocks": G, "num_sms": S}
                if s:
                    params["smem_per_block"] = s
                if level == 3:      # design choice: the grid that fills whole waves
                    params["ask"] = "full_wave_grid"
                yield params

    def solve(self, params, gpu, explain=True):
        cfg = launch_config(params["threads_per_block"], params["regs_per_thread"],
                            params.get("smem_per_block", 0))
        occ = occupancy(gpu, cfg, model="textbook", explain=explain)
        when.keep_applicable_notes(occ.steps, occ.limiter)
        B = occ.blocks_per_sm
        answers: dict[str, Any] = {"blocks_per_sm": B}
        if B == 0:
            return Solved(answers, {"steps": occ.steps, "occ": occ})
        wv = grid_engine.waves(params["grid_blocks"], params["num_sms"], B, explain=explain)
        answers.update({"slots": wv.slots, "waves": wv.waves, "tail_blocks": wv.tail_blocks,
                        "idle_sms": wv.idle_sms, "tail_sms": wv.tail_sms})
        steps = occ.steps + wv.steps
        asked = "ask" in params
        if asked:
            change = whatif.full_wave_grid(wv.grid_blocks, wv.slots)
            answers["full_wave_grid"] = change.value
            steps += change.steps
        # A grid smaller than the GPU asks for its idle SMs (every such grid is one wave).
        main = "idle_sms" if wv.small_grid else "waves"
        return Solved(answers, {"steps": steps, "occ": occ, "main_answer": main, "ctx": {
            "asked": asked, "x3": answers.get("full_wave_grid", 0),
            "T": params["threads_per_block"], "r": params["regs_per_thread"],
            "s": params.get("smem_per_block", 0), "G": wv.grid_blocks, "S": wv.num_sms, "B": B,
            "C": wv.slots, "F": wv.full_waves, "R": wv.tail_blocks, "U": wv.sms_with_blocks,
            "small": wv.small_grid, "w": occ.warps_per_block, "tail_idle": wv.tail_idle_sms,
            "util": wv.sm_utilisation, "tail_util": wv.tail_utilisation,
            "packed": wv.packed_tail_sms}})

    def in_cell(self, params, gpu, solved):
        a = solved.answers
        if a["blocks_per_sm"] < 1 or params["num_sms"] != gpu.num_sms:
            return False
        G, C, S = params["grid_blocks"], a["slots"], params["num_sms"]
        # A small grid is asked where breadth-first matters (several blocks could share an SM).
        return (G > C and G % C != 0) or (G < S and a["blocks_per_sm"] > 1)

    def misconceptions(self, params, gpu, solved):
        a = solved.answers
        if not a.get("slots"):
            return []
        G, S, C = params["grid_blocks"], params["num_sms"], a["slots"]
        out = [
            Misconception("grid_over_sms", {"waves": -(-G // S)}),
            Misconception("forgot_tail_wave", {"waves": G // C, "tail_blocks": 0}),
            Misconception("exact_waves", {"waves": round(G / C, 3)}),
            Misconception("one_block_per_sm", {"waves": -(-G // S), "slots": S}),
            Misconception("packed_tail", {"tail_sms": -(-a["tail_blocks"] // a["blocks_per_sm"])}),
            # Idle SMs of a small grid: its blocks packed B per SM, every SM busy, or used for idle.
            Misconception("packed_grid", {"idle_sms": S - min(S, -(-G // a["blocks_per_sm"]))}),
            Misconception("every_sm_busy", {"idle_sms": 0}),
            Misconception("busy_as_idle", {"idle_sms": min(G, S)}),
            Misconception("free_slots_as_idle", {"idle_sms": S}),
        ]
        B = a["blocks_per_sm"]
        if B + 1 <= gpu.max_blocks_per_sm:   # one block too many per SM, still within the cap
            out.append(Misconception("ceil_not_floor", {"blocks_per_sm": B + 1, "slots": S * (B + 1),
                                                        "waves": -(-G // (S * (B + 1)))}))
        return out

    def figure(self, params, gpu, solved):
        return {"kind": "waves_figure", "grid_blocks": params["grid_blocks"],
                "num_sms": params["num_sms"], "blocks_per_sm": solved.answers["blocks_per_sm"]}


@register
class EqualOccupancyDivergence(EngineFamily):
    """OCC-8: kernels X and Y at the same occupancy; Y's warps diverge, so Y is slower (Ex 8)."""

    cell = "OCC-8"
    topic = "divergence"
    main_answer = "slowdown"
    uses_model = True
    answer_specs = {
        "occupancy": sp.fraction("threads_per_block", "regs_per_thread"),
        "slowdown": sp.ratio("time_x", "time_y", compute=rel.speed_ratio),
        "lane_utilisation": sp.fraction("branches"),
        "time_x": sp.cycles("branches"),
        "time_y": sp.cycles("branches"),
        "useful_occupancy": sp.fraction("occupancy", "lane_utilisation",
                                        compute=lambda v, gpu: whatif.useful_occupancy(
                                            v["occupancy"], v["lane_utilisation"]).value),
    }

    def model_for(self, gpu):
        return "textbook"

    def space(self, level, gpu):
        launches = {1: [(256, 32), (128, 32), (512, 32), (256, 64), (1024, 16)],
                    2: [(256, 32), (128, 48), (192, 40), (256, 64), (512, 24), (384, 32)],
                    3: [(160, 37), (224, 52), (320, 29), (96, 90), (480, 41)]}[level]
        for T, r in launches:
            if level == 1:
                for split in splits(2, 2):
                    for cost in (10, 20, 40, 100):
                        yield {"threads_per_block": T, "regs_per_thread": r,
                               "branches": branches_of(split, (cost, cost))}
            elif level == 2:
                for split in splits(2, 3):
                    for costs in ((20, 10), (30, 10), (40, 20), (12, 36), (50, 25)):
                        yield {"threads_per_block": T, "regs_per_thread": r,
                               "branches": branches_of(split, costs)}
            else:
                for split in splits(3, 6):
                    for costs in ((12, 20, 8), (30, 30, 15), (25, 7, 40)):
                        # and the what-if: the share of lane slots doing useful work
                        yield {"threads_per_block": T, "regs_per_thread": r,
                               "branches": branches_of(split, costs), "ask": "useful_occupancy"}

    def solve(self, params, gpu, explain=True):
        occ = occupancy(gpu, launch_config(params["threads_per_block"], params["regs_per_thread"]),
                        model="textbook", explain=explain)
        when.keep_applicable_notes(occ.steps, occ.limiter)
        twist = div_engine.equal_occupancy_twist(params["branches"], occupancy=occ.occupancy,
                                                 explain=explain)
        y = twist.divergent
        answers = {"occupancy": occ.occupancy, "slowdown": twist.speed_ratio,
                   "lane_utilisation": twist.lane_utilisation_y, "time_x": twist.time_x,
                   "time_y": twist.time_y}
        lanes = [b.lanes for b in y.branches]
        steps = occ.steps + list(twist.steps)
        asked = "ask" in params
        if asked:
            change = whatif.useful_occupancy(occ.occupancy, twist.lane_utilisation_y)
            answers["useful_occupancy"] = change.value
            steps += change.steps
        return Solved(answers, {"steps": steps, "occ": occ, "ctx": {
            "asked": asked, "x3": answers.get("useful_occupancy", 0),
            "T": params["threads_per_block"], "r": params["regs_per_thread"], "A": occ.active_warps,
            "occ": occ.occupancy, "Tx": twist.time_x, "Ty": twist.time_y, "ratio": twist.speed_ratio,
            "U": y.useful_lane_cycles, "util": y.lane_utilisation,
            "branch_list": [b.to_dict() for b in y.branches],
            "equal": not y.split_matters, "n_branches": len(lanes)}})

    def in_cell(self, params, gpu, solved):
        a = solved.answers
        return (a["occupancy"] > 0 and a["slowdown"] > 1
                and all(b["lanes"] > 0 for b in params["branches"]))

    def misconceptions(self, params, gpu, solved):
        lanes = [b["lanes"] for b in params["branches"]]
        util = solved.answers["lane_utilisation"]
        return [
            Misconception("occupancy_decides_speed", {"slowdown": 1.0}),
            Misconception("split_ratio_matters", {"slowdown": round(WARP / max(lanes), 4)}),
            Misconception("utilisation_as_ratio", {"slowdown": round(util, 4)}),
            Misconception("one_pass_per_lane_group", {"slowdown": float(len(lanes) + 1)}),
        ]

    def figure(self, params, gpu, solved):
        return {"kind": "divergence_timeline", "branches": params["branches"],
                "baseline": solved.answers["time_x"]}


def kernel_bound(params: dict[str, Any], gpu: Any, explain: bool) -> bound_engine.KernelBound:
    """The roofline on the problem's GPU decides; the critical path explains (CELLS.md)."""
    return bound_engine.classify_kernel(params["bytes_loaded"], params["bytes_stored"], params["flops"],
                                        load_latency=params["latency"],
                                        flop_latency=params.get("flop_latency", 4),
                                        flops_per_cycle=params.get("flops_per_cycle", 1),
                                        gpu=gpu, explain=explain)


def has_store(facts, m) -> bool:
    """The kernel stores something (so leaving the store off the critical path is a lesson)."""
    return facts.params.get("bytes_stored", 0) > 0


def several_schedulers(facts, m) -> bool:
    return facts.params.get("schedulers", 1) > 1


def ilp_above_one(facts, m) -> bool:
    return facts.params.get("ilp", 1) > 1


class LatencyFamily(EngineFamily):
    """The latency cells (L-3…L-5): a kernel's load or issue latency and the warps that hide it;
    a level-3 problem adds one step, named by `level_three`."""

    topic = "latency-hiding"

    def level_three(self, params) -> str:
        """The name of the conceptual step a level-3 problem adds ("" when none)."""
        return ""


@register
class MemoryBoundKernel(LatencyFamily):
    """L-3: a memory-bound kernel: intensity, a critical path without the store, modest occupancy.
    Level 3 adds an inverse: registers leave room for only a few warps; the least ILP that still
    hides the load."""

    cell = "L-3"
    main_answer = "critical_path"
    answer_specs = {
        "bytes_moved": sp.bytes_("bytes_loaded", "bytes_stored"),
        "arithmetic_intensity": sp.real("", "flops", "bytes_moved", compute=rel.intensity),
        "compute_cycles": sp.cycles("flops", "flop_latency"),
        "critical_path": sp.cycles("latency", "compute_cycles", compute=rel.critical_path),
        "bound": sp.choice("arithmetic_intensity"),
        "warps_per_scheduler": sp.count("warps", "latency", "flops", "ilp"),
        "warps_needed": sp.count("warps", "warps_per_scheduler", "schedulers",
                                 compute=rel.sm_warps),
        "occupancy_needed": sp.fraction("warps_needed", compute=rel.occupancy_needed),
        "least_ilp": sp.count("", "latency", "warp_budget", "work_per_warp", "schedulers",
                              compute=least_ilp_of),
    }
    trap_when = (has_store,)
    misconception_when = {"store_on_critical_path": (has_store,),
                          "divided_by_schedulers": (several_schedulers,),
                          "forgot_schedulers": (several_schedulers,)}

    def figure(self, params, gpu, solved):
        # bytes in flight on a real H200: bandwidth vs warps at ILP 1 and 4, measured
        return {"kind": "measured_bandwidth"}

    def gpu_choices(self, level):
        return {1: ("textbook",), 2: ("textbook", "a100"), 3: ("a100", "h100", "a10")}[level]

    def space(self, level, gpu):
        if level == 1:
            loads, stores, flops, lats, ilps = (4, 8, 16, 32), (4, 8), (4, 8, 10, 12, 16, 20), (300, 350, 400, 450, 500), (4, 8)
        elif level == 2:
            loads, stores, flops, lats, ilps = (8, 12, 16, 32), (4, 16), (6, 10, 12, 24, 30), (350, 450, 600, 700), (4, 6, 8)
        else:
            loads, stores, flops, lats, ilps = (12, 20, 24, 48), (2, 4, 12), (3, 7, 15, 27, 33), (420, 530, 777), (2, 3)
        for b_ld in loads:
            for b_st in stores:
                for f in flops:
                    for L in lats:
                        for k in ilps:
                            p = {"bytes_loaded": b_ld, "bytes_stored": b_st, "flops": f, "latency": L,
                                 "flop_latency": 4, "ilp": k, "schedulers": gpu.schedulers_per_sm}
                            if level == 3:
                                for budget in (8, 12, 16, 24):
                                    yield {**p, "warp_budget": budget, "work_per_warp": f}
                            else:
                                yield p

    def level_three(self, params):
        return "budget" if "warp_budget" in params else ""

    def solve(self, params, gpu, explain=True):
        kb = kernel_bound(params, gpu, explain)
        cap = gpu.max_warps_per_sm
        # Between two loads a warp issues its F FLOPs; ILP k keeps k loads in flight per warp.
        hide = lat_engine.hide_latency(params["latency"], params["flops"], ilp=params["ilp"],
                                       schedulers=params["schedulers"], max_warps=cap,
                                       explain=explain)
        n = hide.warps_needed
        steps = kb.steps + hide.steps[:2]
        if explain:
            steps.append(Step("occupancy_needed", "occupancy", {"A": n, "W_max": cap}, n / cap, "",
                              "l4_occupancy_needed", None))
        answers = {"bytes_moved": kb.bytes_moved, "arithmetic_intensity": kb.arithmetic_intensity,
                   "compute_cycles": kb.compute_cycles, "critical_path": kb.critical_path,
                   "bound": kb.bound, "warps_per_scheduler": hide.warps_per_scheduler,
                   "warps_needed": n, "occupancy_needed": n / cap}
        ctx = {"b_ld": kb.bytes_loaded, "b_st": kb.bytes_stored, "F": kb.flops, "L": kb.load_latency,
               "C": kb.compute_cycles, "P": kb.critical_path, "AI": kb.arithmetic_intensity,
               "share": kb.memory_share, "k": params["ilp"], "N": params["schedulers"],
               "balance": kb.machine_balance, "peak": kb.peak_gflops, "bw": kb.bandwidth_gbs,
               "n": n, "n_s": hide.warps_per_scheduler, "cap": cap, "half": cap // 2}
        if "warp_budget" in params:
            inv = lat_engine.least_ilp(params["latency"], params["warp_budget"], params["flops"],
                                       schedulers=params["schedulers"], explain=explain)
            steps += inv.steps
            answers["least_ilp"] = inv.least_ilp
            ctx.update({"budget": params["warp_budget"], "n_h": inv.warps_each,
                        "k_min": inv.least_ilp or 0,
                        "covered": (inv.least_ilp or 0) * inv.warps_each * params["flops"]})
        return Solved(answers, {"steps": steps, "res": hide, "ctx": ctx})

    def in_cell(self, params, gpu, solved):
        a = solved.answers
        ok = (a["bound"] == "memory" and params["bytes_stored"] > 0
              and a["warps_needed"] <= gpu.max_warps_per_sm // 2)
        if "warp_budget" in params:     # the budget is too small for the given ILP: it must rise
            ok = (ok and a.get("least_ilp") is not None and params["ilp"] < a["least_ilp"] <= 8
                  and params["warp_budget"] < a["warps_needed"])
        return ok

    def misconceptions(self, params, gpu, solved):
        a = solved.answers
        L, f = params["latency"], params["flops"]
        res = solved.data["res"]
        return [
            Misconception("store_on_critical_path", {"critical_path": a["critical_path"] + L}),
            Misconception("compute_not_pipelined", {"critical_path": L + f * params["flop_latency"]}),
            Misconception("load_only", {"critical_path": L}),
            Misconception("intensity_load_only", {"arithmetic_intensity": f / params["bytes_loaded"]}),
            Misconception("latency_as_warps", {"warps_needed": L}),
            Misconception("divided_by_schedulers",
                          {"warps_needed": lat_engine.divided_by_schedulers(res)}),
            Misconception("forgot_schedulers", {"warps_needed": res.warps_per_scheduler}),
        ]


#: Where a compute-bound kernel's operands come from once they are not staged in shared memory,
#: and about how long a read waits there (cycles; an L2 hit ≈ 200, a DRAM access ≈ 500).
READ_SOURCES = (("l2", 200), ("dram", 500))


@register
class ComputeBoundKernel(LatencyFamily):
    """L-4: a compute-bound kernel: the ALUs decide, and a few warps hide the short latency.
    Level 3 adds a what-if: the read moves out of shared memory to a slower level; how many more
    warps does that take?"""

    cell = "L-4"
    main_answer = "warps_needed"
    answer_specs = {
        "compute_cycles": sp.cycles("flops", "flop_latency"),
        "critical_path": sp.cycles("latency", "compute_cycles", compute=rel.critical_path),
        "bound": sp.choice("flops", "bytes_loaded", "bytes_stored"),
        "warps_per_scheduler": sp.count("warps", "latency", "work_per_warp"),
        "warps_needed": sp.count("warps", "warps_per_scheduler", "schedulers",
                                 compute=rel.sm_warps),
        "occupancy_needed": sp.fraction("warps_needed", compute=rel.occupancy_needed),
        "warps_after": sp.count("warps", "new_latency", "work_per_warp", "schedulers",
                                compute=warps_after_of("work_per_warp")),
        "extra_warps": sp.count("warps", "warps_after", "warps_needed", compute=extra_warps),
    }
    misconception_when = {"divided_by_schedulers": (several_schedulers,),
                          "forgot_schedulers": (several_schedulers,)}

    def gpu_choices(self, level):
        return {1: ("textbook",), 2: ("textbook", "a100"), 3: ("a100", "a10", "t4")}[level]

    def space(self, level, gpu):
        if level == 1:
            flops, lats, works, loads = (64, 128, 256, 384, 512, 768, 1024), (16, 20, 24, 30, 32, 40), (4, 6, 8, 10, 12, 16), (4, 8, 16)
        elif level == 2:
            flops, lats, works, loads = (96, 160, 256, 384, 512, 640, 768), (22, 28, 30, 36), (3, 5, 6, 8, 10, 12, 14, 16), (8, 16)
        else:
            flops, lats, works, loads = (150, 300, 450, 700, 900, 1100, 1300), (19, 27, 33), (7, 9, 11, 13, 15, 17, 19), (12, 24)
        for f in flops:
            for L in lats:
                for W in works:
                    for b in loads:
                        p = {"bytes_loaded": b, "bytes_stored": 0 if f % 3 else 4, "flops": f,
                             "latency": L, "flop_latency": 4, "work_per_warp": W,
                             "schedulers": gpu.schedulers_per_sm}
                        if level == 3:
                            # the tile no longer staged in shared memory (which never misses):
                            # its reads hit in L2 or go to DRAM
                            for source, new in READ_SOURCES:
                                yield {**p, "new_latency": new, "new_source": source}
                        else:
                            yield p

    def level_three(self, params):
        return "what_if" if "new_latency" in params else ""

    def solve(self, params, gpu, explain=True):
        kb = kernel_bound(params, gpu, explain)
        cap = gpu.max_warps_per_sm
        hide = lat_engine.hide_latency(params["latency"], params["work_per_warp"],
                                       schedulers=params["schedulers"], max_warps=cap,
                                       explain=explain)
        n = hide.warps_needed
        steps = kb.steps + hide.steps[:2]
        if explain:
            steps.append(Step("occupancy_needed", "occupancy", {"A": n, "W_max": cap}, n / cap, "",
                              "l4_occupancy_needed", "few_warps_enough"))
        answers = {"compute_cycles": kb.compute_cycles, "critical_path": kb.critical_path,
                   "bound": kb.bound, "warps_per_scheduler": hide.warps_per_scheduler,
                   "warps_needed": n, "occupancy_needed": n / cap}
        ctx = {"b_ld": kb.bytes_loaded, "b_st": kb.bytes_stored, "F": kb.flops, "L": kb.load_latency,
               "C": kb.compute_cycles, "P": kb.critical_path, "W": params["work_per_warp"], "n": n,
               "n_s": hide.warps_per_scheduler, "N": params["schedulers"], "cap": cap,
               "AI": kb.arithmetic_intensity, "balance": kb.machine_balance, "peak": kb.peak_gflops,
               "bw": kb.bandwidth_gbs, "share": kb.memory_share, "occ_needed": n / cap}
        if "new_latency" in params:
            after, step = lat_engine.latency_change(hide, params["new_latency"], explain=explain)
            if explain:
                steps.append(Step("warps_after", "hiding_after",
                                  {"L_new": after.latency, "W": after.work_per_warp,
                                   "N_sched": after.schedulers}, after.warps_needed, "warps",
                                  "lat_hiding_after"))
                steps.append(step)
            short = max(0, after.warps_needed - cap)
            if explain and short:       # a need past the cap is a shortfall, not an occupancy
                steps.append(Step("deficit", "warp_deficit", {"N_w": after.warps_needed, "W_max": cap},
                                  short, "warps", "compare_cap", "cap_binds"))
            answers.update({"warps_after": after.warps_needed,
                            "extra_warps": after.warps_needed - n})
            ctx.update({"L2": after.latency, "n2": after.warps_needed, "n2_s": after.warps_per_scheduler,
                        "extra": after.warps_needed - n, "fits2": short == 0, "short2": short,
                        "from_l2": params.get("new_source") == "l2",
                        "occ2": min(after.warps_needed, cap) / cap})
        return Solved(answers, {"steps": steps, "res": hide, "ctx": ctx})

    def in_cell(self, params, gpu, solved):
        a = solved.answers
        ok = a["bound"] == "compute" and 4 * a["warps_needed"] <= gpu.max_warps_per_sm
        if "new_latency" in params:
            ok = ok and a["extra_warps"] > 0
        return ok

    def misconceptions(self, params, gpu, solved):
        L, W, N = params["latency"], params["work_per_warp"], params["schedulers"]
        C = solved.answers["compute_cycles"]
        res = solved.data["res"]
        return [
            Misconception("full_occupancy_needed", {"warps_needed": gpu.max_warps_per_sm,
                                                    "occupancy_needed": 1.0}),
            Misconception("latency_as_warps", {"warps_needed": L}),
            Misconception("no_ceiling", {"warps_needed": N * (L // W)}),
            Misconception("compute_as_stall", {"warps_needed": N * -(-(L + C) // W)}),
            Misconception("forgot_schedulers", {"warps_needed": res.warps_per_scheduler}),
            Misconception("divided_by_schedulers",
                          {"warps_needed": lat_engine.divided_by_schedulers(res)}),
        ]


def measured_fma_share(ilp: int, warps: int) -> Fraction:
    """The measured H200 FMA issue rate at `warps` warps per SM and this ILP, over the peak of
    4 per cycle (one per scheduler)."""
    rate = dict(measured.fma_curves()[ilp])[warps]
    return Fraction(str(rate)) / 4


#: Measured on a real H200 (quizgen/data/measured, physics_real.cu): the FMA issue-rate goals a
#: level-3 L-5 problem asks for, in warp-instructions per SM per cycle (the peak is 4).
FMA_GOALS = (2, 3, 4)


@register
class LittlesLaw(LatencyFamily):
    """L-5: in flight = L × X with X = N_sched·X_s; each scheduler needs ⌈L·X_s/ILP⌉ warps of
    its own. ILP lowers the warps needed, more schedulers raise them; the latency never changes.
    Level 3: the least ILP for a warp budget (an inverse), or a real H200's measured FMA curve
    beside the model's prediction."""

    cell = "L-5"
    main_answer = "warps_needed"
    answer_specs = {
        "concurrency": sp.real("operations", "latency", "throughput", "schedulers"),
        "warps_per_scheduler": sp.count("warps", "latency", "throughput", "ilp"),
        "warps_needed": sp.count("warps", "warps_per_scheduler", "schedulers",
                                 compute=rel.sm_warps),
        "latency": sp.cycles("latency"),
        "least_ilp": sp.count("", "latency", "warp_budget", "schedulers", "throughput",
                              compute=least_ilp_of),
        "warps_measured": sp.count("warps", "goal_rate", "per_warp_rate",
                                   compute=lambda v, gpu: lat_engine.warps_for_rate(
                                       v["goal_rate"], v["per_warp_rate"])[0]),
        "measured_share": sp.fraction("warps_needed", "ilp", compute=lambda v, gpu: (
            measured_fma_share(v["ilp"], v["warps_needed"]))),
        # level 3 on the measured H200 streaming curve: Little's law in bytes
        "bytes_in_flight": sp.real("B", "peak_gbs", "one_warp_gbs", "sms"),
        "warps_for_bandwidth": sp.count("warps", "peak_gbs", "one_warp_gbs", "sms", "ilp",
                                        compute=lambda v, gpu: lat_engine.bytes_in_flight(
                                            v["peak_gbs"], v["one_warp_gbs"], v["sms"],
                                            v["ilp"]).warps_needed),
        "ilp_at_cap": sp.count("", "peak_gbs", "one_warp_gbs", "sms",
                               compute=lambda v, gpu: lat_engine.bytes_in_flight(
                                   v["peak_gbs"], v["one_warp_gbs"], v["sms"]).ilp_at_cap),
        "loaded_latency": sp.real("ns", "sms", "at_warps", "ilp", "measured_gbs",
                                  compute=lambda v, gpu: Fraction(
                                      v["sms"] * v["at_warps"] * 128 * v["ilp"])
                                  / Fraction(str(v["measured_gbs"]))),
        "measured_bw_share": sp.fraction("measured_gbs", "peak_gbs", compute=lambda v, gpu: (
            Fraction(str(v["measured_gbs"])) / Fraction(str(v["peak_gbs"])))),
    }
    misconception_when = {"divided_by_schedulers": (several_schedulers,),
                          "forgot_schedulers": (several_schedulers,),
                          "no_ilp": (ilp_above_one,)}

    def figure(self, params, gpu, solved):
        # Little's law against a real H200: FMA issue rate vs warps at ILP 1, 2, 4, measured
        # (bytes in flight: streaming bandwidth vs warps at ILP 1 and 4)
        return {"kind": "measured_bandwidth" if "peak_gbs" in params else "measured_fma"}

    def gpu_choices(self, level):
        return ("h200",) if level == 3 else (self.default_gpu,)

    def space(self, level, gpu):
        # the SM's own schedulers: a question never gives the chip another count of them
        scheds = (gpu.schedulers_per_sm,)
        if level == 1:
            lats, xs, ilps = range(100, 801, 10), (1,), (2, 4, 8)
        elif level == 2:
            lats, xs, ilps = range(200, 801, 25), (1, 0.5), (2, 3, 4, 6)
        else:
            lats, xs, ilps = range(100, 420, 8), (0.25, 0.5, 0.75), (2, 3, 4)
            peak = measured.H200_PEAK_BANDWIDTH / 1e9
            bw = measured.bandwidth_curves()
            one_warp = bw[1][0][1]          # one warp per SM at ILP 1: the unloaded latency
            for k, points in sorted(bw.items()):
                for warps, gbs in points:
                    if warps >= 16:
                        yield {"ilp": k, "peak_gbs": peak, "one_warp_gbs": one_warp,
                               "sms": measured.device()["sms"], "at_warps": warps,
                               "measured_gbs": gbs}
            curves = measured.fma_curves()
            for k, points in sorted(curves.items()):
                for goal in FMA_GOALS:
                    yield {"latency": measured.FMA_LATENCY, "throughput": 1, "ilp": k,
                           "schedulers": gpu.schedulers_per_sm, "goal_rate": goal,
                           "per_warp_rate": points[0][1]}
        for L in lats:
            for x in xs:
                for k in ilps:
                    for n in scheds:
                        p = {"latency": L, "throughput": x, "ilp": k, "schedulers": n}
                        if level == 3:
                            for budget in (24, 32, 48, 64):
                                yield {**p, "warp_budget": budget}
                        else:
                            yield p

    def level_three(self, params):
        if "peak_gbs" in params:
            return "bandwidth"
        return "measured" if "goal_rate" in params else "budget" if "warp_budget" in params else ""

    def solve_bandwidth(self, params, gpu, explain):
        """Little's law in bytes on the measured H200 streaming curve, the model beside it."""
        k, n_w, got = params["ilp"], params["at_warps"], params["measured_gbs"]
        res = lat_engine.bytes_in_flight(params["peak_gbs"], params["one_warp_gbs"],
                                         params["sms"], k, max_warps=gpu.max_warps_per_sm,
                                         explain=explain)
        in_flight_at = params["sms"] * n_w * res.per_warp
        loaded = Fraction(in_flight_at) / Fraction(str(got))
        share = Fraction(str(got)) / Fraction(str(params["peak_gbs"]))
        steps = list(res.steps)
        if explain:
            steps.append(Step("measured_bw_share", "measured_bw_share",
                              {"B_meas": got, "B_peak": params["peak_gbs"]}, float(share), "",
                              "lat_measured_bw_share"))
            steps.append(Step("loaded_latency", "loaded_latency",
                              {"N_SM": params["sms"], "N_w": n_w, "b_w": res.per_warp, "B_meas": got},
                              float(loaded), "ns", "lat_loaded_latency"))
        answers = {"bytes_in_flight": res.in_flight, "warps_for_bandwidth": res.warps_needed,
                   "ilp_at_cap": res.ilp_at_cap, "measured_bw_share": float(share),
                   "loaded_latency": float(loaded)}
        ctx = {"k": k, "n_w": n_w, "got": got, "peak": params["peak_gbs"],
               "one": params["one_warp_gbs"], "S": params["sms"], "b_w": res.per_warp,
               "t": res.latency_ns, "q_sm": res.per_sm, "n_bw": res.warps_needed,
               "k_cap": res.ilp_at_cap, "share": float(share), "t_load": float(loaded),
               "cap": gpu.max_warps_per_sm, "device": measured.device()["device"]}
        return Solved(answers, {"steps": steps, "ctx": ctx})

    def solve(self, params, gpu, explain=True):
        if "peak_gbs" in params:
            return self.solve_bandwidth(params, gpu, explain)
        res = lat_engine.hide_latency(params["latency"], 1, throughput=params["throughput"],
                                      ilp=params["ilp"], schedulers=params["schedulers"],
                                      max_warps=gpu.max_warps_per_sm, explain=explain)
        answers = {"concurrency": res.in_flight, "warps_per_scheduler": res.warps_per_scheduler,
                   "warps_needed": res.warps_needed, "latency": res.latency}
        steps = list(res.steps)
        ctx = {"L": res.latency, "X": res.throughput, "X_sm": res.sm_throughput, "k": res.ilp,
               "N": res.schedulers, "Cops": res.in_flight, "n": res.warps_needed,
               "n_s": res.warps_per_scheduler, "per_sched": res.latency * res.throughput,
               "cap": gpu.max_warps_per_sm, "deficit": res.deficit}
        if "warp_budget" in params:
            inv = lat_engine.least_ilp(params["latency"], params["warp_budget"], 1,
                                       schedulers=params["schedulers"],
                                       throughput=params["throughput"], explain=explain)
            steps += inv.steps
            answers["least_ilp"] = inv.least_ilp
            ctx.update({"budget": params["warp_budget"], "n_h": inv.warps_each,
                        "k_min": inv.least_ilp or 0})
        if "goal_rate" in params:
            goal, x_w = params["goal_rate"], params["per_warp_rate"]
            n_meas, step = lat_engine.warps_for_rate(goal, x_w, explain=explain)
            curve = dict(measured.fma_curves()[params["ilp"]])
            at_model = curve.get(res.warps_needed)     # the H200's rate at the model's count
            steps += [step] if step else []
            answers["warps_measured"] = n_meas
            if at_model is not None:
                answers["measured_share"] = at_model / 4
                if explain:
                    steps.append(Step("measured_share", "measured_share",
                                      {"X_meas": at_model, "X_peak": 4}, at_model / 4, "",
                                      "lat_measured_share"))
            ctx.update({"goal": goal, "x_w": x_w, "n_meas": n_meas, "at_model": at_model,
                        "plateau": max(r for _, r in curve.items()),
                        "device": measured.device()["device"]})
        return Solved(answers, {"steps": steps, "res": res, "ctx": ctx})

    def in_cell(self, params, gpu, solved):
        a = solved.answers
        if "goal_rate" in params:       # every goal on the measured FMA curve is a problem
            return True
        if "peak_gbs" in params:        # a point where the latency under load has grown
            return a["loaded_latency"] > solved.data["ctx"]["t"]
        ok = params["ilp"] > 1 and params["schedulers"] > 1 and a["warps_per_scheduler"] >= 2
        if "warp_budget" in params:     # the budget is short of the need: the ILP must rise
            ok = (ok and params["warp_budget"] < a["warps_needed"]
                  and params["ilp"] < a.get("least_ilp", 0) <= 8)
        return ok

    def misconceptions(self, params, gpu, solved):
        if "peak_gbs" in params:        # asked in bytes, with no options: nothing to offer
            return []
        L, k, N = params["latency"], params["ilp"], params["schedulers"]
        res = solved.data["res"]
        conc = solved.answers["concurrency"]
        return [
            Misconception("divided_by_schedulers",
                          {"warps_needed": lat_engine.divided_by_schedulers(res)}),
            Misconception("forgot_schedulers", {"warps_needed": res.warps_per_scheduler}),
            Misconception("latency_as_warps", {"warps_needed": L}),
            Misconception("no_ilp", {"warps_needed": math.ceil(round(conc, 9))}),
            Misconception("l_eff", {"latency": round(L / (k * N), 2)}),
            # "a scheduler issues from one warp a cycle, so one warp each is enough"
            Misconception("one_warp_per_scheduler", {"warps_needed": N}),
        ] + ([Misconception("ilp_multiplies", {"warps_needed": ilp_up})]
             if (ilp_up := N * math.ceil(round(L * params["throughput"] * k, 9)))
             <= gpu.max_warps_per_sm else [])
