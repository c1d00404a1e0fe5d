"""Loops worked out from code (cells D-2 and D-3): a trip count that depends on the thread, and
the two reductions over shared memory.

* D-2: ``for (int k = 0; k < TRIP; k++)``: a warp runs as many iterations as its longest lane,
  and iteration k diverges in it while some of its lanes have finished (a lane that never
  entered has finished). Level 1: the same trip counts in every warp (``5 - (i % 3)``); level 2:
  trip counts that grow with the thread, one warp's SIMD efficiency over the loop; level 3: a
  grid, and the warps still running and diverging in iteration k.
* D-3: interleaved (``t % (2*s) == 0``) and sequential (``t < s``) addressing: the active and
  divergent warps of one iteration over a grid (level 1 interleaved, level 2 sequential, with
  the first iteration that diverges), the add's warp-instructions of both over a grid (level 3).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from quizgen.engine import branches as br
from quizgen.engine import code_steps as cs
from quizgen.engine.derivation import Step
from quizgen.problems import specs as sp
from quizgen.problems.base import Misconception, Solved
from quizgen.problems.code_families import GLOBAL_INDEX, CodeFamily, launch_code
from quizgen.problems.registry import register
from quizgen.engine.arith import ceiling
from quizgen.engine.threads import WARP



# ---------------------------------------------------------------------------------------------
# D-2: a thread-dependent loop


def _trips_level1() -> list[str]:
    out = []
    for b in (2, 3, 4, 5, 6, 8):
        out += [f"{a} - (i % {b})" for a in range(b + 1, b + 6)]
        out += [f"(i % {b}) + {a}" for a in (1, 2, 3)]
    for m in (1, 3, 7):
        out += [f"{a} + (i & {m})" for a in (1, 2, 4)]
    return out


def _trips_level2() -> list[str]:
    out = [f"i / {d}" for d in (2, 4, 8, 16)]
    out += [f"i / {d} + {a}" for d in (4, 8, 16) for a in (1, 2)]
    out += [f"{a} + i / 32" for a in (1, 2, 3)]
    out += [f"(i / 32) * {a} + (i % {b})" for a in (2, 3) for b in (3, 4)]
    return out


def _trips_level3() -> list[str]:
    out = [f"i % {p}" for p in (5, 7, 12, 20, 48, 80)]
    out += [f"(i / {d}) % {p}" for d in (4, 16) for p in (3, 6)]
    out += [f"blockIdx.x + (threadIdx.x & {m})" for m in (1, 3, 7)]
    return out


@lru_cache(maxsize=4096)
def _loop(block: tuple, grid: int, lets: tuple, trip: str):
    c = launch_code({"block": list(block), "grid": grid, "lets": list(lets)})
    return c, br.loop_warps(c, trip)


def _lane_trips(c, lw):
    seen: dict[int, list[list[int]]] = {}

    def trips(block: int) -> list[list[int]]:
        if block not in seen:
            seen[block] = br.lane_trips(c, lw.trip, block, lw)
        return seen[block]
    return trips


def loop_rows(trips: list[int], top: int) -> list[str]:
    """A warp's lanes by iteration: "R" runs iteration k, "D" has finished, "." is absent."""
    lanes = np.full(WARP, -1, dtype=np.int64)
    lanes[:len(trips)] = trips
    k = np.arange(1, top + 1)[:, None]
    codes = np.where(lanes < 0, ord("."), np.where(lanes >= k, ord("R"), ord("D"))).astype(np.uint8)
    text = codes.tobytes().decode("ascii")
    return [text[i * WARP:(i + 1) * WARP] for i in range(top)]


@register
class LoopFromCode(CodeFamily):
    """D-2: a loop whose trip count depends on the thread → iterations each warp runs and
    diverges in, SIMD efficiency, warps running and diverging in iteration k."""

    cell = "D-2"
    main_answer = "divergent_iterations"
    answer_specs = {
        "warp_iterations": sp.count("iterations", "block", "trip"),
        "convergent_iterations": sp.count("iterations", "block", "trip"),
        "divergent_iterations": sp.count("iterations", "block", "trip"),
        "warp_efficiency": sp.fraction("block", "trip", "warp"),
        "issued_iterations": sp.count("iterations", "block", "trip"),
        "grid_warps": sp.count("warps", "grid", "block"),
        "running_warps": sp.count("warps", "trip", "iteration"),
        "diverging_warps": sp.count("warps", "trip", "iteration"),
    }
    trap_when = ()

    def space(self, level, gpu):
        if level == 1:
            for T in (64, 96, 128, 192, 256, 384, 512):
                for trip in _trips_level1():
                    yield {"block": [T, 1, 1], "lets": ["int i = threadIdx.x"], "trip": trip}
        elif level == 2:
            for T in (64, 96, 128, 192, 256):
                for trip in _trips_level2():
                    for w in range(T // WARP):
                        yield {"block": [T, 1, 1], "lets": ["int i = threadIdx.x"], "trip": trip,
                               "warp": w}
        else:
            for T in (128, 256):
                for G in (2, 3, 4, 6):
                    for trip in _trips_level3():
                        for k in (2, 3, 4, 5, 6, 9):
                            yield {"block": [T, 1, 1], "grid": G, "lets": [GLOBAL_INDEX],
                                   "trip": trip, "iteration": k}

    def variant(self, params) -> str:
        return "grid" if "iteration" in params else "warp" if "warp" in params else "block"

    def situation(self, params, solved) -> str:
        return "finished"

    def _solve_answers(self, params, c, lw) -> tuple[dict[str, Any], tuple[int, int], str]:
        la = c.launch
        v = self.variant(params)
        if v == "grid":
            k = params["iteration"]
            answers = {"grid_warps": la.grid_warps, "running_warps": lw.running(k),
                       "diverging_warps": lw.diverging(k), "issued_iterations": lw.issued}
            return answers, (0, 0), "diverging_warps"
        w = params.get("warp", 0)
        t_min, t_max, S = (int(a[0, w]) for a in (lw.t_min, lw.t_max, lw.t_sum))
        answers = {"warp_iterations": t_max, "convergent_iterations": t_min,
                   "divergent_iterations": t_max - t_min}
        if v == "warp":
            del answers["convergent_iterations"]
            answers["warp_efficiency"] = S / (WARP * t_max) if t_max else 0.0
            answers["issued_iterations"] = lw.issued
            return answers, (0, w), "warp_efficiency"
        return answers, (0, w), "divergent_iterations"

    def solve(self, params, gpu, explain=True):
        c, lw = _loop(tuple(params["block"]), params.get("grid", 1), tuple(params["lets"]),
                      params["trip"])
        answers, named, main = self._solve_answers(params, c, lw)
        trips = _lane_trips(c, lw)
        w = named[1]
        data: dict[str, Any] = {"loop": lw, "named": named, "main_answer": main,
                                "ctx": loop_context(params, lw, w)}
        if explain:
            steps = cs.loop_steps(lw, trips)
            if "warp" in params:
                steps.append(_warp_efficiency_step(lw, w))
            if "iteration" in params:
                steps += cs.iteration_steps(lw, params["iteration"])
            data["steps"] = steps
            data["trips"] = trips(named[0])[w]
        return Solved(answers, data)

    def in_cell(self, params, gpu, solved):
        lw, a = solved.data["loop"], solved.answers
        if "iteration" in params:
            k = params["iteration"]
            if not lw.diverging(k) or k > int(lw.t_max.max()):
                return False
        elif not a["warp_iterations"] or a["warp_iterations"] > 24:
            return False                 # a warp that loops, and few enough rows for its figure
        return super().in_cell(params, gpu, solved)

    def misconceptions(self, params, gpu, solved):
        lw, a = solved.data["loop"], solved.answers
        out: list[Misconception] = []
        if "divergent_iterations" in a:
            ctx = solved.data["ctx"]
            out += [Misconception("all_iterations_diverge", {"divergent_iterations": a["warp_iterations"]}),
                    Misconception("distinct_counts", {"divergent_iterations": ctx["distinct"]}),
                    Misconception("block_total", {"divergent_iterations": ctx["W"] * a["divergent_iterations"]}),
                    Misconception("lanes_finishing", {"divergent_iterations": ctx["early"]})]
            if "convergent_iterations" in a:
                out.append(Misconception("convergent_as_divergent",
                                         {"divergent_iterations": a["convergent_iterations"]}))
        if "warp_efficiency" in a:
            ctx = solved.data["ctx"]
            out += [Misconception("block_efficiency", {"warp_efficiency": lw.efficiency}),
                    Misconception("min_over_max", {"warp_efficiency": ctx["t_min"] / max(ctx["t_max"], 1)}),
                    Misconception("last_iteration_lanes", {"warp_efficiency": ctx["at_max"] / WARP}),
                    *([Misconception("running_lanes_only", {"warp_efficiency": ctx["S"] / (ctx["entered"] * max(ctx["t_max"], 1))})]
                      if ctx["entered"] < WARP else [])]
        if "diverging_warps" in a:
            k = params["iteration"]
            out += [Misconception("running_as_diverging", {"diverging_warps": a["running_warps"]}),
                    Misconception("finished_as_absent", {"diverging_warps": 0}),
                    Misconception("lanes_not_warps", {"diverging_warps": lw.lanes_running(k)}),
                    Misconception("divergence_per_block", {"diverging_warps": _blocks_diverging(lw, k)})]
        return out

    def figure(self, params, gpu, solved):
        trips = solved.data.get("trips")
        b, w = solved.data["named"]
        if trips is None:
            c, lw = _loop(tuple(params["block"]), params.get("grid", 1), tuple(params["lets"]),
                          params["trip"])
            trips = br.lane_trips(c, lw.trip, b, lw)[w]
        top = max(trips) if trips else 0
        rows = loop_rows(trips, min(max(top, 1), 40))
        return {"kind": "lane_grid", "legend": "loop", "rows": rows, "title": "lanes.title_loop",
                "values": {"w": w, "block": b}, "row_label": "lanes.iteration", "first_row": 0,
                "highlight": params["iteration"] - 1 if "iteration" in params and
                params["iteration"] <= len(rows) else None}


def _blocks_diverging(lw: br.LoopWarps, k: int) -> int:
    return int(((lw.t_min < k) & (lw.t_max >= k)).any(axis=1).sum())


def _warp_efficiency_step(lw: br.LoopWarps, w: int) -> Step:
    t_max, S = int(lw.t_max[0, w]), int(lw.t_sum[0, w])
    return Step("code_loop_warp_efficiency", "loop_warp_efficiency",
                {"S": S, "t_max": t_max, "k": w}, S / (WARP * t_max) if t_max else 0.0, "",
                "d_loop_warp_efficiency")


def loop_context(params: dict[str, Any], lw: br.LoopWarps, w: int) -> dict[str, Any]:
    la = lw.launch
    trips = br.lane_trips(lw.code, lw.trip, 0, lw)[w]
    t_max = max(trips)
    ctx = {"T": la.threads_per_block, "W": la.warps_per_block, "G": la.blocks,
           "W_grid": la.grid_warps, "k": w, "t_min": min(trips), "t_max": t_max,
           "S": sum(trips), "distinct": len(set(trips)), "early": sum(t < t_max for t in trips),
           "at_max": sum(t == t_max for t in trips), "entered": sum(t > 0 for t in trips) or 1,
           "trips_text": ", ".join(map(str, sorted(set(trips), reverse=True))),
           "trip": lw.trip.text, "issued": lw.issued, "useful": lw.useful,
           "block_eff": lw.efficiency}
    if "iteration" in params:
        k = params["iteration"]
        ctx.update(it=k, running=lw.running(k), full=lw.full(k), diverging=lw.diverging(k),
                   lanes=lw.lanes_running(k), top=int(lw.t_max.max()))
    return ctx


# ---------------------------------------------------------------------------------------------
# D-3: the two reductions


@register
class ReductionFromCode(CodeFamily):
    """D-3: interleaved and sequential addressing: one iteration's active and divergent warps,
    the first iteration that diverges, the add's warp-instructions over a grid."""

    cell = "D-3"
    main_answer = "grid_divergent"
    answer_specs = {
        "active_threads": sp.count("threads", "block", "stride"),
        "adding_warps": sp.count("warps", "active_threads"),
        "block_divergent": sp.count("warps", "block", "stride"),
        "grid_divergent": sp.count("warps", "block_divergent", "grid",
                                   compute=lambda v, gpu: v["block_divergent"] * v["grid"]),
        "first_divergent": sp.count("", "block"),
        "issued_interleaved": sp.count("instructions", "block"),
        "issued_sequential": sp.count("instructions", "block"),
        "grid_saved": sp.count("instructions", "issued_interleaved", "issued_sequential", "grid",
                               compute=lambda v, gpu: (v["issued_interleaved"] - v["issued_sequential"]) * v["grid"]),
    }

    def space(self, level, gpu):
        kind = "interleaved" if level == 1 else "sequential" if level == 2 else "both"
        for T in (64, 128, 256, 512, 1024):
            if level == 3:
                for G in range(2, 49):
                    yield {"kind": kind, "block": [T, 1, 1], "grid": G}
                continue
            for G in range(2, 13):
                for k, s in enumerate(br.strides_of(kind, T), 1):
                    yield {"kind": kind, "block": [T, 1, 1], "grid": G, "iteration": k, "stride": s}

    def variant(self, params) -> str:
        return params["kind"]

    def situation(self, params, solved) -> str:
        return params["kind"]

    def solve(self, params, gpu, explain=True):
        T, G = params["block"][0], params["grid"]
        data: dict[str, Any] = {}
        if params["kind"] == "both":
            inter, seq = _reduction("interleaved", T), _reduction("sequential", T)
            answers = {"issued_interleaved": inter.issued, "issued_sequential": seq.issued,
                       "grid_saved": (inter.issued - seq.issued) * G}
            data["ctx"] = {"T": T, "G": G, "W": ceiling(T, WARP), "I_int": inter.issued,
                           "I_seq": seq.issued, "n_it": len(inter.strides),
                           "U": inter.useful, "eff_int": inter.efficiency, "eff_seq": seq.efficiency}
            data["reductions"] = (inter, seq)
            data["main_answer"] = "grid_saved"
            if explain:
                data["steps"] = _both_steps(inter, seq, G)
        else:
            r = _reduction(params["kind"], T)
            k = params["iteration"]
            s = r.at(k)
            answers = {"active_threads": s.active_threads, "adding_warps": s.active_warps,
                       "block_divergent": s.divergent_warps,
                       "grid_divergent": s.divergent_warps * G}
            if params["kind"] == "sequential":
                answers["first_divergent"] = r.first_divergent
            data["ctx"] = {"T": T, "G": G, "W": ceiling(T, WARP), "it": k, "s": s.stride,
                           "two_s": 2 * s.stride, "n_it": len(r.strides),
                           "first": r.first_divergent, "full": s.full_warps,
                           "prev": r.at(k - 1).active_warps if k > 1 else None}
            data["reductions"] = (r,)
            if explain:
                data["steps"] = self._steps(r, k, G)
        return Solved(answers, data)

    @staticmethod
    def _steps(r: br.Reduction, k: int, G: int) -> list[Step]:
        steps = cs.stride_steps(r, k)
        div = r.at(k).divergent_warps
        steps.append(Step("code_red_grid", "grid_warps", {"G": G, "w": div, "k": k}, G * div,
                          "warps", "d_red_grid"))
        if r.kind == "sequential":
            steps.append(Step("code_red_first", "", {"n_it": len(r.strides), "T": r.threads,
                                                      "first": r.first_divergent,
                                                      "s": r.at(r.first_divergent).stride},
                              r.first_divergent, "", "d_red_first"))
        return steps

    def in_cell(self, params, gpu, solved):
        return super().in_cell(params, gpu, solved)

    def misconceptions(self, params, gpu, solved):
        a, ctx = solved.answers, solved.data["ctx"]
        G = params["grid"]
        if params["kind"] == "both":
            inter, seq = solved.data["reductions"]
            return [
                Misconception("per_block_saving", {"grid_saved": a["issued_interleaved"] - a["issued_sequential"]}),
                Misconception("adds_not_warps", {"grid_saved": 0}),
                Misconception("divergent_only", {"grid_saved": G * (sum(s.divergent_warps for s in inter.strides)
                                                                     - sum(s.divergent_warps for s in seq.strides))}),
                Misconception("first_iteration_only", {"grid_saved": G * (inter.strides[0].active_warps
                                                                           - seq.strides[0].active_warps)}),
            ]
        s_active, s_threads = a["adding_warps"], a["active_threads"]
        stride = solved.data["reductions"][0].at(params["iteration"])
        several = sum(1 for n, p in zip(stride.active, stride.present) if 1 < n < p)
        return [
            Misconception("divergence_per_block", {"grid_divergent": G if a["block_divergent"] else 0}),
            Misconception("one_lane_no_divergence", {"grid_divergent": G * several}),
            Misconception("threads_for_warps", {"grid_divergent": G * s_threads}),
            Misconception("warps_halve_too", {"grid_divergent": G * ceiling(s_threads, WARP)}),
            Misconception("grid_one_block", {"grid_divergent": a["block_divergent"]}),
            Misconception("active_as_divergent", {"grid_divergent": G * s_active}),
            *self._sequential_slips(params, ctx, G),
        ]

    @staticmethod
    def _sequential_slips(params, ctx, G) -> list[Misconception]:
        if params["kind"] != "sequential":
            return []
        k = params["iteration"]
        inter = _reduction("interleaved", params["block"][0])
        out = [Misconception("same_as_interleaved", {"grid_divergent": G * inter.at(k).divergent_warps})]
        if ctx["prev"] is not None:
            seq = _reduction("sequential", params["block"][0])
            out.append(Misconception("dropped_warps_diverge", {"grid_divergent": G * (ctx["prev"] - seq.at(k).active_warps)}))
        return out

    def figure(self, params, gpu, solved):
        reductions = solved.data["reductions"]
        r = reductions[-1] if params["kind"] == "both" else reductions[0]
        return {"kind": "reduction_grid", "reduction": r.kind,
                "strides": [s.stride for s in r.strides],
                "active": [list(s.active) for s in r.strides],
                "present": list(r.strides[0].present) if r.strides else [],
                "highlight": params.get("iteration")}


@lru_cache(maxsize=64)
def _reduction(kind: str, T: int) -> br.Reduction:
    return br.reduction(kind, T)


def _both_steps(inter: br.Reduction, seq: br.Reduction, G: int) -> list[Step]:
    steps = cs.reduction_total_steps(inter) + cs.reduction_total_steps(seq)[:1]
    saved = inter.issued - seq.issued
    steps.append(Step("code_red_saved", "reduction_saving",
                      {"G": G, "I_i": inter.issued, "I_s": seq.issued}, saved * G, "instructions",
                      "d_red_saved"))
    return steps
