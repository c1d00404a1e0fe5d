"""Warp families of latency hiding (seed 001, cells W-E, W-F, W-J): how many warps an SM needs so that
its schedulers always have one ready, and what a shortfall costs.

The shared machinery (`EngineFamily`, the predicates) is in `quizgen.problems.warp_families`;
the words are the families' writers' (``render/writers/warps.py``).
"""

from __future__ import annotations

from quizgen.engine import latency as lat_engine
from quizgen.engine.arith import ceiling
from quizgen.problems import relations as rel
from quizgen.problems import specs as sp
from quizgen.problems.base import Misconception, Solved
from quizgen.problems.registry import register
from quizgen.problems.warp_families import WARP, EngineFamily, several_schedulers


def warp_cap_gpus(level: int) -> tuple[str, ...]:
    return {1: ("textbook",), 2: ("textbook", "a10"), 3: ("t4", "rtx4090", "h100")}[level]


class HidingFamily(EngineFamily):
    topic = "latency-hiding"
    answer_specs = {
        "warps_per_scheduler": sp.count("warps", "latency", "work_per_warp"),
        "warps_needed": sp.count("warps", "warps_per_scheduler", "schedulers",
                                 compute=rel.sm_warps),
        "deficit": sp.count("warps", "warps_needed", compute=rel.deficit),
        "hidable": sp.yes_no("warps_needed", compute=rel.hidable),
        "occupancy_needed": sp.fraction("warps_needed", compute=rel.occupancy_needed),
        "coverage": sp.fraction("warps_needed", compute=rel.coverage),
        # the inverse: the least work per warp with which the SM's cap hides the stall
        "min_work_per_warp": sp.count(
            "instructions", "latency", "schedulers",
            compute=lambda v, gpu: lat_engine.min_work_to_hide(
                v["latency"], schedulers=v["schedulers"], max_warps=gpu.max_warps_per_sm)[0]),
    }
    misconception_when = {"forgot_schedulers": (several_schedulers,),
                          "divided_by_schedulers": (several_schedulers,)}
    trap_when = (several_schedulers,)

    def gpu_choices(self, level):
        return warp_cap_gpus(level)

    def solve(self, params, gpu, explain=True):
        cap = gpu.max_warps_per_sm
        res = lat_engine.hide_latency(params["latency"], params["work_per_warp"],
                                      schedulers=params["schedulers"], max_warps=cap,
                                      explain=explain)
        n = res.warps_needed
        answers = {"warps_per_scheduler": res.warps_per_scheduler, "warps_needed": n,
                   "deficit": res.deficit, "hidable": res.hidable}
        if res.hidable:
            answers["occupancy_needed"] = n / cap
        else:
            answers["coverage"] = cap / n
        steps = res.steps
        if params.get("ask") == "min_work":
            work, more = lat_engine.min_work_to_hide(res.latency, schedulers=res.schedulers,
                                                     max_warps=cap, explain=explain)
            answers["min_work_per_warp"] = work
            steps = steps + more
        return Solved(answers, {"steps": steps, "res": res, "ctx": {
            "L": res.latency, "W": res.work_per_warp, "n": n, "n_s": res.warps_per_scheduler,
            "N": res.schedulers, "cap": cap, "c_s": res.scheduler_cap}})

    def scheduler_traps(self, solved) -> list[Misconception]:
        """The two ways of getting the schedulers wrong: leaving them out (one scheduler's warps
        as the SM's) and dividing by them (seed 004's "Mistake 2")."""
        res = solved.data["res"] if "res" in solved.data else None
        n_s = solved.answers["warps_per_scheduler"]
        out = [Misconception("forgot_schedulers", {"warps_needed": n_s})]
        if res is not None:
            out.append(Misconception("divided_by_schedulers",
                                     {"warps_needed": lat_engine.divided_by_schedulers(res)}))
        return out


@register
class EnoughWarps(HidingFamily):
    """W-E: ⌈L/W⌉ warps per scheduler, × N_sched per SM, and the SM can hold them (seed 001 Ex 5)."""

    cell = "W-E"
    states_single_issue = True
    main_answer = "warps_needed"

    def space(self, level, gpu):
        if level == 1:
            lats, works = range(100, 1001, 20), (4, 5, 8, 10, 12, 16, 20, 25, 32, 40, 50, 64, 80, 100)
        elif level == 2:
            lats, works = range(150, 1001, 25), tuple(range(6, 61, 3))
        else:
            lats, works = range(101, 1000, 34), tuple(range(7, 80, 4))
        extra = {"ask": "min_work"} if level == 3 else {}
        for L in lats:
            for W in works:
                yield {"latency": L, "work_per_warp": W, "schedulers": gpu.schedulers_per_sm,
                       **extra}

    def in_cell(self, params, gpu, solved):
        a = solved.answers
        return (params["work_per_warp"] >= 2 and a["hidable"] and a["warps_per_scheduler"] >= 2
                and a.get("min_work_per_warp", 0) != params["work_per_warp"]
                and self.enough_options(params, gpu, solved))

    def misconceptions(self, params, gpu, solved):
        L, W, N = params["latency"], params["work_per_warp"], params["schedulers"]
        n = solved.answers["warps_needed"]
        return self.scheduler_traps(solved) + [
            Misconception("no_ceiling", {"warps_needed": N * (L // W)}),
            Misconception("latency_as_warps", {"warps_needed": L}),
            Misconception("answer_in_threads", {"warps_needed": n * WARP}),
        ]

    def figure(self, params, gpu, solved):
        return None


@register
class NothingToOverlap(HidingFamily):
    """W-F: zero compute between loads (W = 1): each scheduler needs L warps, far above the cap."""

    cell = "W-F"
    main_answer = "warps_needed"

    def gpu_choices(self, level):
        return {1: ("textbook", "a100", "v100"), 2: ("textbook", "a10", "t4"),
                3: ("t4", "rtx4090", "h100", "a10")}[level]

    def space(self, level, gpu):
        lats = {1: range(100, 1001, 10), 2: range(65, 1001, 5), 3: range(33, 1200, 7)}[level]
        extra = {"ask": "min_work"} if level == 3 else {}
        for L in lats:
            yield {"latency": L, "work_per_warp": 1, "schedulers": gpu.schedulers_per_sm, **extra}

    def in_cell(self, params, gpu, solved):
        return (params["work_per_warp"] == 1 and not solved.answers["hidable"]
                and self.enough_options(params, gpu, solved))

    def misconceptions(self, params, gpu, solved):
        L, N = params["latency"], params["schedulers"]
        return self.scheduler_traps(solved) + [
            Misconception("cap_is_enough", {"warps_needed": gpu.max_warps_per_sm, "hidable": True}),
            Misconception("one_warp_per_load", {"warps_needed": N}),
            Misconception("divide_by_warp_size", {"warps_needed": N * ceiling(L, WARP)}),
        ]

    def figure(self, params, gpu, solved):
        return {"kind": "efficiency_curve", "latency": params["latency"],
                "resident_warps": gpu.max_warps_per_sm}


@register
class SchedulerDemand(EngineFamily):
    """W-J: every scheduler needs ⌈L/(T_issue·I_warp)⌉ warps of its own; × N_sched they exceed
    the SM's cap, and ILP closes the gap (seed 001 Ex 10)."""

    cell = "W-J"
    states_single_issue = True
    topic = "latency-hiding"
    main_answer = "warps_needed"
    answer_specs = {
        "instruction_slots": sp.real("instructions", "schedulers", "latency", "issue_interval"),
        "warps_per_scheduler": sp.count("warps", "latency", "issue_interval", "work_per_warp"),
        "warps_needed": sp.count("warps", "warps_per_scheduler", "schedulers",
                                 compute=rel.sm_warps),
        "deficit": sp.count("warps", "warps_needed", compute=rel.deficit),
        "ilp_factor": sp.ratio("warps_per_scheduler", "schedulers", compute=rel.ilp_factor),
        "warps_with_ilp": sp.count("warps", "warps_per_scheduler", "schedulers", "ilp_factor",
                                   compute=rel.warps_with_ilp),
        # the inverse: the longest stall the cap covers with this work and no extra ILP
        "max_latency": sp.cycles(
            "work_per_warp", "schedulers", "issue_interval",
            compute=lambda v, gpu: lat_engine.max_hidden_latency(
                v["work_per_warp"], schedulers=v["schedulers"], max_warps=gpu.max_warps_per_sm,
                issue_interval=v["issue_interval"])[0]),
    }
    misconception_when = {"forgot_schedulers": (several_schedulers,),
                          "divided_by_schedulers": (several_schedulers,)}

    def figure(self, params, gpu, solved):
        # the same model against a real H200: N_sched × ⌈L/ILP⌉ warps, measured
        return {"kind": "measured_fma"}

    def gpu_choices(self, level):
        return warp_cap_gpus(level)

    def space(self, level, gpu):
        if level == 1:
            lats, issues, works = range(200, 1001, 50), (1,), range(4, 41)
        elif level == 2:
            lats, issues, works = range(200, 1001, 40), (1, 2), range(4, 41, 2)
        else:
            lats, issues, works = range(210, 1200, 45), (1, 2, 3), (3, 5, 6, 7, 9, 11, 13, 14, 17, 19, 22, 23)
        extra = {"ask": "max_latency"} if level == 3 else {}
        for L in lats:
            for t in issues:
                for I in works:
                    yield {"schedulers": gpu.schedulers_per_sm, "latency": L, "issue_interval": t,
                           "work_per_warp": I, **extra}

    def solve(self, params, gpu, explain=True):
        cap = gpu.max_warps_per_sm
        res = lat_engine.hide_latency(params["latency"], params["work_per_warp"],
                                      schedulers=params["schedulers"],
                                      issue_interval=params["issue_interval"], max_warps=cap,
                                      explain=explain)
        answers = {"instruction_slots": res.in_flight,
                   "warps_per_scheduler": res.warps_per_scheduler,
                   "warps_needed": res.warps_needed, "deficit": res.deficit,
                   "ilp_factor": res.ilp_factor, "warps_with_ilp": res.warps_with_ilp}
        steps = res.steps
        if params.get("ask") == "max_latency":
            answers["max_latency"], more = lat_engine.max_hidden_latency(
                res.work_per_warp, schedulers=res.schedulers, max_warps=cap,
                issue_interval=res.issue_interval, explain=explain)
            steps = steps + more
        return Solved(answers, {"steps": steps, "res": res, "ctx": {
            "N": res.schedulers, "L": res.latency, "T_issue": res.issue_interval,
            "I": res.work_per_warp, "S": res.in_flight, "n": res.warps_needed,
            "n_s": res.warps_per_scheduler, "c_s": res.scheduler_cap,
            "cap": cap, "k": res.ilp_factor, "n_ilp": res.warps_with_ilp}})

    def in_cell(self, params, gpu, solved):
        return (solved.answers["deficit"] > 0 and solved.data["res"].scheduler_cap > 0
                and self.enough_options(params, gpu, solved))

    def misconceptions(self, params, gpu, solved):
        L, t, I, N = (params["latency"], params["issue_interval"], params["work_per_warp"],
                      params["schedulers"])
        res = solved.data["res"]
        slots = solved.answers["instruction_slots"]
        return [
            Misconception("forgot_schedulers", {"warps_needed": res.warps_per_scheduler}),
            Misconception("divided_by_schedulers",
                          {"warps_needed": lat_engine.divided_by_schedulers(res)}),
            Misconception("cap_is_enough", {"warps_needed": gpu.max_warps_per_sm, "deficit": 0}),
            Misconception("slots_as_warps", {"warps_needed": slots}),
            Misconception("no_ceiling", {"warps_needed": N * (L // (t * I))}),
        ]
