"""Latency families of seed 000: OCC-6…OCC-8.

OCC-6 is the plateau of η(N) = min(N, L)/L; OCC-7 a grid across all SMs (blocks per SM from the
textbook occupancy model, then waves and the ragged tail); OCC-8 two kernels at equal occupancy,
one diverging. The latency cells of seed 004 are beside it: L-3 and L-4 (a memory-bound and a
compute-bound kernel's critical path) in `latency_bound`, L-5 (Little's law with ILP and
schedulers) in `littles_law`. Solving goes through `quizgen.engine`; each family checks its cell.
"""

from __future__ import annotations

from typing import Any

from quizgen.engine import divergence as div_engine
from quizgen.engine import grid as grid_engine
from quizgen.engine import latency as lat_engine
from quizgen.engine import whatif
from quizgen.engine.arith import ceiling
from quizgen.engine.occupancy import launch_config, occupancy
from quizgen.problems import applicability as when
from quizgen.problems import relations as rel
from quizgen.problems import specs as sp
from quizgen.problems.base import Misconception, Solved
from quizgen.problems.registry import register
from quizgen.problems.warp_divergence import branches_of, splits
from quizgen.problems.warp_families import WARP, EngineFamily


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
            Misconception("grid_over_sms", {"waves": ceiling(G, S)}),
            Misconception("forgot_tail_wave", {"waves": G // C, "tail_blocks": 0}),
            Misconception("exact_waves", {"waves": round(G / C, 3)}),
            Misconception("one_block_per_sm", {"waves": ceiling(G, S), "slots": S}),
            Misconception("packed_tail", {"tail_sms": ceiling(a["tail_blocks"], a["blocks_per_sm"])}),
            # Idle SMs of a small grid: its blocks packed B per SM, every SM busy, or used for idle.
            Misconception("packed_grid", {"idle_sms": S - min(S, ceiling(G, a["blocks_per_sm"]))}),
            Misconception("every_sm_busy", {"idle_sms": 0}),
            Misconception("busy_as_idle", {"idle_sms": min(G, S)}),
            Misconception("free_slots_as_idle", {"idle_sms": S}),
        ]
        B = a["blocks_per_sm"]
        if B + 1 <= gpu.max_blocks_per_sm:   # one block too many per SM, still within the cap
            out.append(Misconception("ceil_not_floor", {"blocks_per_sm": B + 1, "slots": S * (B + 1),
                                                        "waves": ceiling(G, S * (B + 1))}))
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
