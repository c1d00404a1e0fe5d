"""Little's law (seed 004, cell L-5): in flight = latency × throughput, with ILP and schedulers,
and against a real H200's measured curves.

The cell poses three problems over one physics (`LittlesLawBase`): the warps that hide a latency
(`HideLatency`, every level; at level 3 with a warp budget the least ILP, an inverse), the warps a
real H200's measured FMA curve needs (`MeasuredFmaCurve`, level 3), and Little's law in bytes on
its measured streaming curve (`BandwidthCurve`, level 3). The registered family `LittlesLaw`
draws the problems of a level and hands each candidate to the problem it poses. Solving goes
through `quizgen.engine.latency`; each problem checks its cell.
"""

from __future__ import annotations

import math
from fractions import Fraction

from quizgen.engine import latency as lat_engine
from quizgen.engine.derivation import Step
from quizgen.engine.flight import bytes_to_hide
from quizgen.problems import relations as rel
from quizgen.problems import specs as sp
from quizgen.problems.base import Misconception, Solved
from quizgen.problems.latency_bound import LatencyFamily, ilp_above_one, least_ilp_of, several_schedulers
from quizgen.problems.registry import register
from quizgen import measured


def measured_fma_share(ilp: int, warps: int) -> Fraction:
    """The measured H200 FMA issue rate at `warps` warps per SM and this ILP, over the peak of
    4 per cycle (one per scheduler)."""
    rate = dict(measured.fma_curves()[ilp])[warps]
    return Fraction(str(rate)) / 4


#: Measured on a real H200 (quizgen/data/measured, physics_real.cu): the FMA issue-rate goals a
#: level-3 L-5 problem asks for, in warp-instructions per SM per cycle (the peak is 4).
FMA_GOALS = (2, 3, 4)


class LittlesLawBase(LatencyFamily):
    """L-5: in flight = L × X with X = N_sched·X_s; each scheduler needs ⌈L·X_s/ILP⌉ warps of
    its own. ILP lowers the warps needed, more schedulers raise them; the latency never changes.
    What the cell's three problems share: their answers, when a slip applies, the model's count."""

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
        # level 2: Little's law in bytes from a stated bandwidth and latency
        "bytes_needed": sp.real("B", "peak_gbs", "latency_ns"),
        "bytes_per_sm": sp.real("B", "bytes_needed", "sms", compute=lambda v, gpu: (
            Fraction(str(v["bytes_needed"])) / v["sms"])),
        "warps_for_bytes": sp.count("warps", "bytes_per_sm", "lane_bytes", "ilp", compute=lambda v, gpu: (
            math.ceil(Fraction(str(v["bytes_per_sm"])) / (32 * v["lane_bytes"] * v["ilp"])))),
        "ilp_for_bytes": sp.count("", "bytes_per_sm", "lane_bytes", compute=lambda v, gpu: (
            math.ceil(Fraction(str(v["bytes_per_sm"])) / (gpu.max_warps_per_sm * 32 * v["lane_bytes"])))),
    }
    misconception_when = {"divided_by_schedulers": (several_schedulers,),
                          "forgot_schedulers": (several_schedulers,),
                          "no_ilp": (ilp_above_one,)}

    def gpu_choices(self, level):
        return ("h200",) if level == 3 else (self.default_gpu,)

    def figure(self, params, gpu, solved):
        # Little's law against a real H200: FMA issue rate vs warps at ILP 1, 2, 4, measured
        return {"kind": "measured_fma"}

    def hide(self, params, gpu, explain):
        """The warps that hide the latency: the model's answers, steps and numbers."""
        res = lat_engine.hide_latency(params["latency"], 1, throughput=params["throughput"],
                                      ilp=params["ilp"], schedulers=params["schedulers"],
                                      max_warps=gpu.max_warps_per_sm, explain=explain)
        answers = {"concurrency": res.in_flight, "warps_per_scheduler": res.warps_per_scheduler,
                   "warps_needed": res.warps_needed, "latency": res.latency}
        ctx = {"L": res.latency, "X": res.throughput, "X_sm": res.sm_throughput, "k": res.ilp,
               "N": res.schedulers, "Cops": res.in_flight, "n": res.warps_needed,
               "n_s": res.warps_per_scheduler, "per_sched": res.latency * res.throughput,
               "cap": gpu.max_warps_per_sm, "deficit": res.deficit}
        return res, answers, list(res.steps), ctx

    def misconceptions(self, params, gpu, solved):
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


class HideLatency(LittlesLawBase):
    """The warps that hide a latency with ILP on every scheduler; at level 3 a warp budget short
    of that need asks for the least ILP that makes it enough (an inverse)."""

    def space(self, level, gpu):
        # the SM's own schedulers: a question never gives the chip another count of them
        scheds = (gpu.schedulers_per_sm,)
        if level == 1:
            lats, xs, ilps = range(100, 801, 10), (1,), (2, 4, 8)
        elif level == 2:
            lats, xs, ilps = range(200, 801, 25), (1, 0.5), (2, 3, 4, 6)
        else:
            lats, xs, ilps = range(100, 420, 8), (0.25, 0.5, 0.75), (2, 3, 4)
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
        return "budget" if "warp_budget" in params else ""

    def solve(self, params, gpu, explain=True):
        res, answers, steps, ctx = self.hide(params, gpu, explain)
        if "warp_budget" in params:
            inv = lat_engine.least_ilp(params["latency"], params["warp_budget"], 1,
                                       schedulers=params["schedulers"],
                                       throughput=params["throughput"], explain=explain)
            steps += inv.steps
            answers["least_ilp"] = inv.least_ilp
            ctx.update({"budget": params["warp_budget"], "n_h": inv.warps_each,
                        "k_min": inv.least_ilp or 0})
        return Solved(answers, {"steps": steps, "res": res, "ctx": ctx})

    def in_cell(self, params, gpu, solved):
        a = solved.answers
        ok = params["ilp"] > 1 and params["schedulers"] > 1 and a["warps_per_scheduler"] >= 2
        if "warp_budget" in params:     # the budget is short of the need: the ILP must rise
            ok = (ok and params["warp_budget"] < a["warps_needed"]
                  and params["ilp"] < a.get("least_ilp", 0) <= 8)
        return ok


class MeasuredFmaCurve(LittlesLawBase):
    """Level 3: the warps a real H200's measured FMA issue curve needs for a goal rate, beside
    the model's count and the share of the peak the chip reaches at it."""

    #: the parameter only this problem's candidates draw
    draws = "goal_rate"

    def space(self, level, gpu):
        for k, points in sorted(measured.fma_curves().items()):
            for goal in FMA_GOALS:
                yield {"latency": measured.FMA_LATENCY, "throughput": 1, "ilp": k,
                       "schedulers": gpu.schedulers_per_sm, "goal_rate": goal,
                       "per_warp_rate": points[0][1]}

    def level_three(self, params):
        return "measured"

    def solve(self, params, gpu, explain=True):
        res, answers, steps, ctx = self.hide(params, gpu, explain)
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
        return True                     # every goal on the measured FMA curve is a problem


class BandwidthCurve(LittlesLawBase):
    """Level 3: Little's law in bytes on a real H200's measured streaming curve, the model
    beside it: the bytes in flight, the warps they take, and the latency the load has grown to."""

    #: the parameter only this problem's candidates draw
    draws = "peak_gbs"

    def figure(self, params, gpu, solved):
        # streaming bandwidth vs warps at ILP 1 and 4, measured
        return {"kind": "measured_bandwidth"}

    def space(self, level, gpu):
        peak = measured.H200_PEAK_BANDWIDTH / 1e9
        bw = measured.bandwidth_curves()
        one_warp = bw[1][0][1]          # one warp per SM at ILP 1: the unloaded latency
        for k, points in sorted(bw.items()):
            for warps, gbs in points:
                if warps >= 16:
                    yield {"ilp": k, "peak_gbs": peak, "one_warp_gbs": one_warp,
                           "sms": measured.device()["sms"], "at_warps": warps,
                           "measured_gbs": gbs}

    def level_three(self, params):
        return "bandwidth"

    def solve(self, params, gpu, explain=True):
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

    def in_cell(self, params, gpu, solved):
        # a point where the latency under load has grown
        return solved.answers["loaded_latency"] > solved.data["ctx"]["t"]

    def misconceptions(self, params, gpu, solved):
        return []                       # asked in bytes, with no options: nothing to offer


class BytesFromLatency(LittlesLawBase):
    """Level 2: Little's law in bytes on the GPU the question states: its bandwidth × the load
    latency must be in flight; the SMs share it and a warp carries 32 lanes × bytes × ILP."""

    #: the parameter only this problem's candidates draw
    draws = "latency_ns"

    def figure(self, params, gpu, solved):
        return None

    def space(self, level, gpu):
        for t in (300, 400, 500, 600, 700, 800):
            for b_l in (4, 8, 16):
                for k in (1, 2, 4):
                    yield {"peak_gbs": gpu.mem_bandwidth_gbs, "latency_ns": t, "sms": gpu.num_sms,
                           "lane_bytes": b_l, "ilp": k}

    def level_three(self, params):
        return "bytes"

    def solve(self, params, gpu, explain=True):
        cap = gpu.max_warps_per_sm
        res = bytes_to_hide(params["peak_gbs"], params["latency_ns"], params["sms"],
                                       lane_bytes=params["lane_bytes"], ilp=params["ilp"],
                                       max_warps=cap, explain=explain)
        answers = {"bytes_needed": res.in_flight, "bytes_per_sm": res.per_sm,
                   "warps_for_bytes": res.warps_needed}
        over = res.warps_needed > cap
        if over:
            answers["ilp_for_bytes"] = res.ilp_at_cap
        ctx = {"B": params["peak_gbs"], "t": params["latency_ns"], "S": params["sms"],
               "b_l": params["lane_bytes"], "k": params["ilp"], "cap": cap,
               "q": answers["bytes_needed"], "q_sm": answers["bytes_per_sm"], "b_w": res.per_warp, "n": res.warps_needed,
               "k_cap": res.ilp_at_cap, "over": over}
        return Solved(answers, {"steps": list(res.steps), "ctx": ctx,
                                "main_answer": "warps_for_bytes", "correct_phrase": "correct_bytes"})

    def in_cell(self, params, gpu, solved):
        # at least two warps to find, and the bytes do not divide evenly (a real ceiling)
        ctx = solved.data["ctx"]
        return ctx["n"] >= 2 and ctx["q_sm"] % ctx["b_w"] != 0

    def misconceptions(self, params, gpu, solved):
        c = solved.data["ctx"]
        q, q_sm, b_l, k = Fraction(str(c["q"])), Fraction(str(c["q_sm"])), c["b_l"], c["k"]
        out = [
            Misconception("whole_gpu_bytes", {"warps_for_bytes": math.ceil(q / c["b_w"])}),
            Misconception("lane_not_warp", {"warps_for_bytes": math.ceil(q_sm / (b_l * k))}),
            Misconception("no_ilp", {"warps_for_bytes": math.ceil(q_sm / (32 * b_l))}),
            Misconception("ilp_multiplies", {"warps_for_bytes": math.ceil(q_sm * k / (32 * b_l))}),
        ]
        key = "cap_is_enough" if c["over"] else "filled_the_sm"
        return out + [Misconception(key, {"warps_for_bytes": c["cap"]})]


HIDE = HideLatency()
BYTES = BytesFromLatency()
#: The level-3 problems on the measured curves, in the order their candidates are drawn.
CURVES = (BandwidthCurve(), MeasuredFmaCurve())
#: The problems each level draws, in order (the order fixes which candidate a seed gets).
PROBLEMS_BY_LEVEL = {1: (HIDE,), 2: (HIDE, BYTES), 3: (*CURVES, HIDE)}


@register
class LittlesLaw(LittlesLawBase):
    """L-5, the cell: draws the problems of a level and hands each candidate to the problem it
    poses (a curve's candidates carry the parameter only that curve draws)."""

    def space(self, level, gpu):
        for problem in PROBLEMS_BY_LEVEL[level]:
            yield from problem.space(level, gpu)

    def problem_of(self, params) -> LittlesLawBase:
        return next((c for c in (BYTES, *CURVES) if c.draws in params), HIDE)

    def level_three(self, params):
        return self.problem_of(params).level_three(params)

    def figure(self, params, gpu, solved):
        return self.problem_of(params).figure(params, gpu, solved)

    def solve(self, params, gpu, explain=True):
        return self.problem_of(params).solve(params, gpu, explain)

    def in_cell(self, params, gpu, solved):
        return self.problem_of(params).in_cell(params, gpu, solved)

    def misconceptions(self, params, gpu, solved):
        return self.problem_of(params).misconceptions(params, gpu, solved)
