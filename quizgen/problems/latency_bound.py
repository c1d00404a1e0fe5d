"""Latency families of a kernel's critical path (seed 004, cells L-3, L-4): a memory-bound and a
compute-bound kernel, the roofline deciding which, the latency the warps must hide.

Solving goes through `quizgen.engine.bound` and `latency`; each family checks its cell. Little's
law with ILP and schedulers (L-5) is in `littles_law`, built on `LatencyFamily` here.
"""

from __future__ import annotations

from typing import Any

from quizgen.engine import bound as bound_engine
from quizgen.engine import latency as lat_engine
from quizgen.engine.arith import ceiling
from quizgen.engine.derivation import Step
from quizgen.problems import relations as rel
from quizgen.problems import specs as sp
from quizgen.problems.base import Misconception, Solved
from quizgen.problems.registry import register
from quizgen.problems.warp_families import EngineFamily


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
    states_single_issue = True
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
    states_single_issue = True
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
            Misconception("compute_as_stall", {"warps_needed": N * ceiling(L + C, W)}),
            Misconception("forgot_schedulers", {"warps_needed": res.warps_per_scheduler}),
            Misconception("divided_by_schedulers",
                          {"warps_needed": lat_engine.divided_by_schedulers(res)}),
        ]
