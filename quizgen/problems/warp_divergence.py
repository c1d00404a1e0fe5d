"""Warp families of divergence (seed 001, cells W-G, W-H): a warp's branches run one after the
other, so its time is the sum of the paths its lanes take.

The shared machinery (`EngineFamily`, the predicates) is in `quizgen.problems.warp_families`;
the words are the families' writers' (``render/writers/warps.py``).
"""

from __future__ import annotations

from typing import Iterable

from quizgen.engine import divergence as div_engine
from quizgen.problems import relations as rel
from quizgen.problems import specs as sp
from quizgen.problems.base import Misconception, Solved
from quizgen.problems.registry import register
from quizgen.problems.warp_families import WARP, EngineFamily, uneven_split


def branches_of(lanes: Iterable[int], costs: Iterable[int]) -> list[dict[str, int]]:
    return [{"lanes": n, "cost": c} for n, c in zip(lanes, costs)]


def splits(parts: int, step: int) -> list[tuple[int, ...]]:
    """Lane splits of 32 into `parts` branches, each ≥ 1, the first parts on a grid of `step`."""
    if parts == 2:
        return [(a, WARP - a) for a in range(1, WARP, step)]
    out = []
    for a in range(1, WARP, step):
        for b in range(1, WARP - a, step):
            rest = WARP - a - b
            if parts == 3 and rest >= 1:
                out.append((a, b, rest))
            elif parts == 4:
                for c in range(1, rest, step * 2):
                    if rest - c >= 1:
                        out.append((a, b, c, rest - c))
    return out


class DivergenceFamily(EngineFamily):
    topic = "divergence"
    main_answer = "slowdown"
    answer_specs = {
        "divergent_time": sp.cycles("branches"),
        "baseline": sp.cycles("branches"),
        "slowdown": sp.ratio("divergent_time", "baseline", compute=rel.slowdown),
        "lane_utilisation": sp.fraction("branches"),
    }

    def branch_extra(self, params, res, explain):
        """The level-3 what-if's answers and steps ({} and [] when the problem asks none)."""
        return {}, []

    def solve(self, params, gpu, explain=True):
        res = div_engine.divergence(params["branches"], explain=explain)
        answers = {"divergent_time": res.serialised, "baseline": res.baseline,
                   "slowdown": res.slowdown, "lane_utilisation": res.lane_utilisation}
        taken = [b for b in res.branches if b.lanes > 0]
        empty = [b for b in res.branches if b.lanes == 0]
        more_answers, more = self.branch_extra(params, res, explain)
        answers.update(more_answers)
        return Solved(answers, {"steps": res.steps + more, "ctx": {
            "branch_list": [b.to_dict() for b in res.branches], "n_branches": len(res.branches),
            "taken": [b.to_dict() for b in taken], "empty": [b.to_dict() for b in empty],
            "n_taken": len(taken), "T_div": res.serialised, "T_conv": res.baseline,
            "U": res.useful_lane_cycles, "sum_all": sum(b.cost for b in res.branches),
            "cost": taken[0].cost, "path": params.get("path", 1),
            "path_cost": res.branches[params.get("path", 1) - 1].cost}})

    def figure(self, params, gpu, solved):
        return {"kind": "divergence_timeline", "branches": params["branches"],
                "baseline": solved.answers["baseline"]}


@register
class BothBranches(DivergenceFamily):
    """W-G: every branch has lanes and costs the same: serialised passes, the split does not matter (Ex 7)."""

    cell = "W-G"
    answer_specs = {**DivergenceFamily.answer_specs,
                    # what-if: the threads regrouped so each warp's lanes agree
                    "time_saved": sp.cycles("divergent_time", "baseline",
                                            compute=lambda v, gpu: v["divergent_time"] - v["baseline"])}
    misconception_when = {"split_ratio_matters": (uneven_split,), "minority_share": (uneven_split,)}
    trap_when = (uneven_split,)

    def branch_extra(self, params, res, explain):
        if params.get("ask") != "uniform":
            return {}, []
        saved, steps = div_engine.uniform_saving(params["branches"], explain=explain)
        return {"time_saved": saved}, steps

    def space(self, level, gpu):
        if level == 1:
            for cost in range(10, 101, 10):
                for split in splits(2, 1):
                    yield {"branches": branches_of(split, (cost, cost))}
        elif level == 2:
            for cost in (8, 12, 16, 24, 30, 40, 48, 60, 64):
                for split in splits(2, 2):
                    yield {"branches": branches_of(split, (cost, cost))}
                for split in splits(3, 5):
                    yield {"branches": branches_of(split, (cost,) * 3)}
        else:
            for cost in (7, 13, 18, 25, 37, 45, 51, 66, 90):
                for split in splits(3, 4):
                    yield {"branches": branches_of(split, (cost,) * 3), "ask": "uniform"}
                for split in splits(4, 7):
                    yield {"branches": branches_of(split, (cost,) * 4), "ask": "uniform"}

    def in_cell(self, params, gpu, solved):
        br = params["branches"]
        return (len(br) >= 2 and all(b["lanes"] > 0 for b in br)
                and len({b["cost"] for b in br}) == 1 and self.enough_options(params, gpu, solved))

    def misconceptions(self, params, gpu, solved):
        lanes = [b["lanes"] for b in params["branches"]]
        n = len(lanes)
        return [
            Misconception("split_ratio_matters", {"slowdown": round(WARP / max(lanes), 4)}),
            Misconception("branches_overlap", {"slowdown": 1.0}),
            Misconception("minority_share", {"slowdown": round(1 + min(lanes) / max(lanes), 4)}),
            Misconception("double_per_branch", {"slowdown": float(2 * n)}),
        ]


@register
class AllAgree(DivergenceFamily):
    """W-H: every lane takes the same branch: the empty branches cost nothing, slowdown 1 (Ex 8)."""

    cell = "W-H"
    main_answer = "divergent_time"
    answer_specs = {**DivergenceFamily.answer_specs,
                    # what-if: a single lane takes the first empty path instead
                    "one_lane_time": sp.cycles(
                        "branches", "path",
                        compute=lambda v, gpu: div_engine.one_lane_diverges(v["branches"], v["path"] - 1)[0])}

    def branch_extra(self, params, res, explain):
        if params.get("ask") != "one_lane":
            return {}, []
        time, steps = div_engine.one_lane_diverges(params["branches"], params["path"] - 1,
                                                   explain=explain)
        return {"one_lane_time": time}, steps

    def space(self, level, gpu):
        if level == 1:
            for taken in (0, 1):
                for c in range(10, 101, 5):
                    for d in range(10, 101, 5):
                        costs = (c, d) if taken == 0 else (d, c)
                        lanes = (WARP, 0) if taken == 0 else (0, WARP)
                        yield {"branches": branches_of(lanes, costs)}
        elif level == 2:
            for taken in (0, 1, 2):
                for c in (8, 12, 16, 20, 24, 30, 40, 50, 64):
                    for d in (10, 20, 30, 40, 60):
                        for e in (6, 12, 18):
                            costs = [d, e]
                            costs.insert(taken, c)
                            lanes = [0, 0, 0]
                            lanes[taken] = WARP
                            yield {"branches": branches_of(lanes, costs)}
        else:
            for n in (2, 3, 4):
                for taken in range(n):
                    for c in (7, 11, 19, 23, 33, 47, 58):
                        for d in (9, 17, 29, 41):
                            costs = [d + 3 * j for j in range(n - 1)]
                            costs.insert(taken, c)
                            lanes = [0] * n
                            lanes[taken] = WARP
                            yield {"branches": branches_of(lanes, costs), "ask": "one_lane",
                                   "path": 2 if taken == 0 else 1}

    def in_cell(self, params, gpu, solved):
        br = params["branches"]
        populated = [b for b in br if b["lanes"] > 0]
        return (len(br) >= 2 and len(populated) == 1 and solved.answers["slowdown"] == 1.0
                and self.enough_options(params, gpu, solved))

    def misconceptions(self, params, gpu, solved):
        t = solved.answers["divergent_time"]
        costs = [b["cost"] for b in params["branches"]]
        total, n = sum(costs), len(costs)
        return [
            Misconception("count_empty_branch", {"slowdown": round(total / t, 4), "divergent_time": total}),
            Misconception("always_double", {"slowdown": 2.0, "divergent_time": 2 * t}),
            Misconception("branches_per_warp", {"slowdown": float(n), "divergent_time": n * t}),
            Misconception("slowest_path", {"slowdown": round(max(costs) / t, 4),
                                           "divergent_time": max(costs)}),
            Misconception("lane_cycles_as_time", {"divergent_time": WARP * t}),
        ]
