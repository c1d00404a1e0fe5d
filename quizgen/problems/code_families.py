"""Divergence worked out from the code (cells D-1, D-2, D-3): a branch, a thread-dependent loop
and a reduction, given as CUDA the way exams give them.

* D-1: ``if (condition)`` over thread indices: the warps of the block, the warps active for the
  if-path and the ones that diverge (level 1: a 1-D block; level 2: a 2-D block and the SIMD
  efficiency of one warp; level 3: a grid with the ``i < n`` boundary, an earlier exit, paths
  with costs: the boundary warp's time and efficiency).
* D-2: ``for (k = 0; k < TRIP; k++)`` with a trip count per thread: the iterations a warp runs
  and the ones it diverges in (level 1), one warp's SIMD efficiency over the loop (level 2), the
  warps still running and diverging in iteration k across a grid (level 3).
* D-3: the two reductions (interleaved ``t % (2*s) == 0``, sequential ``t < s``): one
  iteration's active and divergent warps (levels 1–2, level 2 adding where divergence starts),
  and the add's warp-instructions over a grid for both (level 3).

The counts are the engine's (`quizgen.engine.branches`, evaluated for every thread); the words
are the writer's (``render/writers/code.py``).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from quizgen.engine import branches as br
from quizgen.engine import code_steps as cs
from quizgen.engine import threads as th
from quizgen.problems import specs as sp
from quizgen.problems.base import Misconception, Solved, distinct_wrong
from quizgen.problems.options import MAX_WRONG, plausible
from quizgen.problems.registry import register
from quizgen.problems.warp_families import EngineFamily
from quizgen.engine.arith import ceiling
from quizgen.engine.threads import WARP

GLOBAL_INDEX = "int i = blockIdx.x * blockDim.x + threadIdx.x"


def launch_code(params: dict[str, Any]) -> th.Code:
    """The launch and definitions of a problem's code (its ``n`` as ``int n = …``)."""
    lets = list(params.get("lets", ()))
    if "n" in params:
        lets.append(f"int n = {params['n']}")
    return th.code(th.launch(params["block"], params.get("grid", 1)), lets)


class CodeFamily(EngineFamily):
    """The cells worked from code: a problem's code is its parameters (block, grid, definitions,
    the condition or trip count); the writer prints it as code."""

    topic = "divergence-from-code"

    def in_cell(self, params, gpu, solved):
        return self.enough_options(params, gpu, solved)

    def enough_options(self, params, gpu, solved) -> bool:
        """Three plausible wrong options for the problem's own main answer (a level may ask
        another quantity than the cell's first)."""
        key = solved.data.get("main_answer", self.main_answer)
        unit = self.units.get(key, "")
        wrong = [m for m in distinct_wrong(solved.answers[key],
                                           self.applicable_misconceptions(params, gpu, solved), key)
                 if plausible(m.answers[key], unit)]
        return len(wrong) >= MAX_WRONG


# ---------------------------------------------------------------------------------------------
# D-1: a branch


def _cond_level1() -> list[tuple[str, str]]:
    out = []
    for k in (8, 16, 24, 40, 48, 64, 72, 96, 100, 120, 160, 200):
        out += [("range", f"threadIdx.x < {k}"), ("range", f"threadIdx.x >= {k}")]
    for a, b in ((16, 48), (24, 100), (40, 104), (32, 96), (8, 120), (48, 200), (64, 160)):
        out.append(("band", f"threadIdx.x < {a} || threadIdx.x >= {b}"))
    for m in (2, 3, 4, 8):
        out += [("stride", f"threadIdx.x % {m} == 0"), ("stride", f"threadIdx.x % {m} != 0")]
    out += [("aligned", "threadIdx.x / 32 % 2 == 0"), ("aligned", "(threadIdx.x / 32) % 3 == 1"),
            ("band", "threadIdx.x % 64 < 16"), ("aligned", "threadIdx.x % 64 < 32"),
            ("band", "threadIdx.x % 64 >= 40")]
    return out


def _cond_level2(dx: int, dy: int) -> list[tuple[str, list[str], str]]:
    out: list[tuple[str, list[str], str]] = []
    for k in range(1, dy):
        out.append(("rows", [], f"threadIdx.y < {k}"))
    for k in sorted({dx // 4, dx // 2, 3 * dx // 4} - {0}):
        out.append(("cols", [], f"threadIdx.x < {k}"))
        out.append(("cols", [], f"threadIdx.x >= {k}"))
    out += [("rows", [], "threadIdx.y % 2 == 0"), ("stride", [], "(threadIdx.x + threadIdx.y) % 2 == 0")]
    for k in range(8, dx * dy, 24):
        if k % 32:
            out.append(("linear", [], f"threadIdx.y * blockDim.x + threadIdx.x < {k}"))
    for k in sorted({dx // 3, dx // 2 + 4, dx - 4} - {0}):
        if k % 32:
            out.append(("cols", [], f"threadIdx.x < {k} && threadIdx.y % 2 == 0"))
    for k in (8, 16, 24):
        out.append(("transposed", [f"int idx = threadIdx.y + {dy} * threadIdx.x"], f"idx % 32 < {k}"))
    return out


def _cond_level3() -> list[str]:
    return ["i % 2 == 0", "i % 3 == 0", "i % 4 != 0", "i % 64 < 32", "i % 64 < 16", "threadIdx.x < 48",
            "(i & 7) == 0", "i % 128 >= 100"]


#: Blocks of level 2 (x, y): rows of 8, 16, 32 or 64 threads.
BLOCKS_2D = ((16, 16), (32, 8), (8, 32), (32, 4), (16, 8), (64, 4), (8, 8), (16, 4), (8, 16),
             (32, 32), (16, 32))


@lru_cache(maxsize=4096)
def _branching(block: tuple, grid: int, lets: tuple, n: int | None, cond: str, exit: str | None):
    params: dict[str, Any] = {"block": list(block), "grid": grid, "lets": list(lets)}
    if n is not None:
        params["n"] = n
    c = launch_code(params)
    return c, br.branching(c, cond, exit)


def _key(params):
    return (tuple(params["block"]), params.get("grid", 1), tuple(params.get("lets", ())),
            params.get("n"), params["cond"], params.get("exit"))


def quiet_lanes(b: br.Branching) -> int:
    """Warps where the lanes that reach the branch agree, yet some lanes of the warp are absent
    or gone: what counting a partial or emptied warp as divergent adds."""
    present = b.present[None, :]
    agree = (b.reach > 0) & ~((b.take > 0) & (b.other > 0))
    return int((agree & (b.reach < WARP) & (b.reach <= present)).sum())


def has_idle_lanes(facts, m) -> bool:
    return facts.solved.data["ctx"]["quiet"] > 0


def is_stride(facts, m) -> bool:
    return facts.params.get("kind") == "stride"


def d1_trap(facts, m) -> bool:
    """D-1's trap is in these numbers: a partial or emptied warp, lanes alternating in every
    warp, or a condition that splits the block but never a warp."""
    b = facts.solved.data["branch"]
    return (facts.solved.data["ctx"]["quiet"] > 0 or facts.params.get("kind") == "stride"
            or (b.divergent_warps == 0 and b.then_warps and b.else_warps))


@register
class BranchFromCode(CodeFamily):
    """D-1: a condition over thread indices → active and divergent warps, a warp's SIMD
    efficiency, the boundary warp of a grid."""

    cell = "D-1"
    main_answer = "divergent_warps"
    answer_specs = {
        "warps": sp.count("warps", "block", compute=lambda v, gpu: ceiling(_threads(v["block"]), WARP)),
        "grid_warps": sp.count("warps", "grid", "warps",
                               compute=lambda v, gpu: v["grid"] * v["warps"]),
        "then_warps": sp.count("warps", "block", "cond"),
        "divergent_warps": sp.count("warps", "block", "cond"),
        "simd_efficiency": sp.fraction("block", "cond", "warp"),
        "warp_time": sp.cycles("costs", "cond"),
        "region_efficiency": sp.fraction("costs", "warp_time"),
    }
    misconception_when = {"tail_as_divergent": (has_idle_lanes,), "exited_as_divergent": (has_idle_lanes,),
                          "parity_no_divergence": (is_stride,)}
    trap_when = (d1_trap,)

    def space(self, level, gpu):
        if level == 1:
            for T in (64, 96, 128, 160, 192, 256, 320, 384, 512, 80, 100, 112, 144, 200, 232):
                for kind, cond in _cond_level1():
                    yield {"block": [T, 1, 1], "kind": kind, "cond": cond}
        elif level == 2:
            for dx, dy in BLOCKS_2D:
                W = dx * dy // WARP
                for kind, lets, cond in _cond_level2(dx, dy):
                    for w in range(W):
                        yield {"block": [dx, dy, 1], "kind": kind, "lets": lets, "cond": cond,
                               "warp": w}
        else:
            for T in (128, 256):
                for n in range(T + 36, 12 * T, T // 2 + 7):
                    for cond in _cond_level3():
                        for costs in ((20, 12), (30, 30), (16, 40)):
                            yield {"block": [T, 1, 1], "grid": ceiling(n, T), "lets": [GLOBAL_INDEX],
                                   "n": n, "exit": "i >= n", "cond": cond, "costs": list(costs),
                                   "kind": "grid"}

    def in_cell(self, params, gpu, solved):
        b = solved.data["branch"]
        if not (b.then_warps and b.else_warps):
            return False                 # every thread on one side: no branch to speak of
        if "n" in params and params["n"] % WARP == 0:
            return False                 # level 3 is about the boundary warp's gone lanes
        if "warp" in params and not 0 < solved.data["wb"].take < WARP:
            return False                 # the named warp works on the if-path, and not all of it
        return super().in_cell(params, gpu, solved)

    def variant(self, params) -> str:
        """Which question: one 1-D block, a named warp of a 2-D block, or a grid's boundary."""
        return "grid" if "n" in params else "warp" if "warp" in params else "block"

    def situation(self, params, solved) -> str:
        """Which of the cell's traps these numbers hold (see `d1_trap`)."""
        b = solved.data["branch"]
        if solved.data["ctx"]["quiet"]:
            return "exit" if "n" in params else "tail"
        if params.get("kind") == "stride":
            return "stride"
        return "aligned" if b.divergent_warps == 0 else "stride"

    def main_for(self, params) -> str:
        return "simd_efficiency" if "warp" in params else "divergent_warps"

    def solve(self, params, gpu, explain=True):
        c, b = _branching(*_key(params))
        la = c.launch
        answers: dict[str, Any] = {"warps": la.warps_per_block}
        if la.blocks > 1:
            answers["grid_warps"] = la.grid_warps
        answers["then_warps"] = b.then_warps
        answers["divergent_warps"] = b.divergent_warps
        named = self._named(params, la)
        wb = b.warp(*named) if named else None
        if wb is not None and "warp" in params:
            answers["simd_efficiency"] = wb.simd_then
        costs = params.get("costs")
        if costs and wb is not None:
            answers["warp_time"] = wb.time(*costs)
            answers["region_efficiency"] = wb.region_efficiency(*costs)
        data: dict[str, Any] = {"branch": b, "named": named, "wb": wb,
                                "main_answer": self.main_for(params),
                                "ctx": branch_context(params, b, wb)}
        if explain:
            paths = _paths_cache(c, b)
            steps = cs.branch_steps(b, paths)
            if wb is not None:
                steps += cs.warp_steps(wb, *(costs or (None, None)), simd="warp" in params)
            data["steps"] = steps
            data["paths"] = paths(named[0] if named else 0)
        return Solved(answers, data)

    @staticmethod
    def _named(params, la) -> tuple[int, int] | None:
        if "warp" in params:
            return (0, params["warp"])
        if "n" in params:                  # the warp that holds the last element, n − 1
            last = params["n"] - 1
            return (last // la.threads_per_block, last % la.threads_per_block // WARP)
        return None

    def misconceptions(self, params, gpu, solved):
        b, a = solved.data["branch"], solved.answers
        out = [
            Misconception("divergence_per_block", {"divergent_warps": b.divergent_blocks}),
            Misconception("every_warp_diverges", {"divergent_warps": b.warps_reached}),
            Misconception("active_as_divergent", {"divergent_warps": b.then_warps}),
            Misconception("parity_no_divergence", {"divergent_warps": 0}),
            Misconception("tail_as_divergent" if "n" not in params else "exited_as_divergent",
                          {"divergent_warps": b.divergent_warps + solved.data["ctx"]["quiet"]}),
            Misconception("full_warps_only", {"then_warps": b.all_take_warps}),
            Misconception("threads_for_warps", {"divergent_warps": b.threads_taking}),
        ]
        wb = solved.data["wb"]
        if wb is not None:
            out += self._warp_misconceptions(params, b, wb, a)
        if "grid_warps" in a:
            out.append(Misconception("warps_of_the_data", {"grid_warps": ceiling(params["n"], WARP)}))
        return out

    @staticmethod
    def _warp_misconceptions(params, b, wb, a) -> list[Misconception]:
        T = b.launch.threads_per_block
        out = [Misconception("simd_per_block", {"simd_efficiency": b.threads_taking / (T * b.launch.blocks)}),
               Misconception("else_share", {"simd_efficiency": wb.simd_else}),
               Misconception("active_warp_share", {"simd_efficiency": b.then_warps / b.launch.grid_warps})]
        if wb.reach and wb.reach < WARP:
            out.append(Misconception("present_lanes", {"simd_efficiency": wb.take / wb.reach}))
        dx = b.launch.block[0]
        if dx != WARP and wb.take <= dx and "warp" in params:
            out.append(Misconception("row_as_warp", {"simd_efficiency": wb.take / dx}))
        out.append(Misconception("lanes_over_block", {"simd_efficiency": wb.take / T}))
        costs = params.get("costs")
        if costs:
            c_t, c_e = costs
            out.append(Misconception("max_path", {"warp_time": max(c_t if wb.take else 0, c_e if wb.other else 0)}))
            if wb.reach < wb.present:
                out.append(Misconception("exited_pay_else", {"warp_time": c_t * (wb.take > 0) + c_e}))
            if wb.reach:
                out.append(Misconception("present_lanes", {"region_efficiency":
                    (wb.take * c_t + wb.other * c_e) / (wb.reach * max(a["warp_time"], 1))}))
        return out

    def figure(self, params, gpu, solved):
        named = solved.data["named"]
        block = named[0] if named else 0
        paths = solved.data.get("paths")
        if paths is None:
            c, b = _branching(*_key(params))
            paths = _paths_cache(c, b)(block)
        return {"kind": "lane_grid", "legend": "paths", "rows": paths,
                "highlight": named[1] if named else None, "title": "lanes.title_paths",
                "values": {"block": block}}


def branch_context(params, b: br.Branching, wb: br.WarpBranch | None) -> dict[str, Any]:
    """The numbers D-1's phrases name."""
    la = b.launch
    ctx = {"T": la.threads_per_block, "W": la.warps_per_block, "G": la.blocks,
           "W_grid": la.grid_warps, "W_t": b.then_warps, "W_e": b.else_warps,
           "W_r": b.warps_reached, "W_all": b.all_take_warps, "W_div": b.divergent_warps,
           "N_t": b.threads_taking, "N_r": b.threads_reaching, "quiet": quiet_lanes(b),
           "div_blocks": b.divergent_blocks, "cond": b.cond.text,
           "idle_lanes": la.grid_warps * WARP - b.threads_reaching}
    if wb is not None:
        ctx.update(k=wb.warp, kb=wb.block, n_p=wb.present, n_r=wb.reach, n_t=wb.take,
                   n_e=wb.other, n_x=wb.present - wb.reach, wb_div=wb.divergent)
        if params.get("costs"):
            c_t, c_e = params["costs"]
            ctx.update(c_t=c_t, c_e=c_e, T_w=wb.time(c_t, c_e))
    return ctx


def _threads(block) -> int:
    x, y, z = (list(block) + [1, 1])[:3]
    return x * y * z


def _paths_cache(c, b):
    """A block's lane paths, computed once per block."""
    seen: dict[int, list[str]] = {}

    def paths(block: int) -> list[str]:
        if block not in seen:
            seen[block] = br.lane_paths(c, b.cond, b.exit, block, b)
        return seen[block]
    return paths
