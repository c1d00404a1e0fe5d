"""Warp families (seed 001, cells W-A…W-J): where threads go, latency hiding, divergence.

This module holds what the warp families share (`EngineFamily`, the predicates over a solved
problem) and the cells of where threads go (W-A…W-D: warps of a block, a thread's warp, lane and
coordinates); latency hiding (W-E, W-F, W-J) is in `warp_hiding`, divergence (W-G, W-H) in
`warp_divergence`, the block for an image (W-I) in `warp_grids`.

Each family enumerates its candidates, solves them with `quizgen.engine.warps`, `latency` and
`divergence`, and keeps only the draws that land in the cell (W-B: a partial tail warp; W-C: the
asked warp straddles two rows; W-F: W = 1 and the need is above the SM's cap; …). The worked
solution is the engine's derivation, put into words by the families' writers
(``render/writers/warps.py``).
"""

from __future__ import annotations

from typing import Any, Iterable

from quizgen.engine import warps as warp_engine
from quizgen.engine.arith import ceiling
from quizgen.engine.derivation import Step
from quizgen.gpus import GPU
from quizgen.problems import relations as rel
from quizgen.problems import specs as sp
from quizgen.problems.applicability import Facts
from quizgen.problems.base import Family, Misconception, Solved, distinct_wrong
from quizgen.problems.options import MAX_WRONG, plausible
from quizgen.problems.registry import register

WARP = warp_engine.WARP_SIZE

#: A block's warps and its wasted lanes, computed from the warps (seed 001, Example 2).
BLOCK_SPECS = {
    "warps": sp.count("warps", "threads_per_block"),
    "wasted_lanes": sp.count("lanes", "warps", "threads_per_block", compute=rel.wasted_lanes),
}


def pick_steps(steps: list[Step], keys: Iterable[str]) -> list[Step]:
    """The engine's steps whose key is in `keys`, in the engine's order."""
    wanted = set(keys)
    return [s for s in steps if s.key in wanted]


def block_params(block: Iterable[int], **extra: Any) -> dict[str, Any]:
    dims = [int(d) for d in block]
    return {"block": dims, "threads_per_block": dims[0] * dims[1] * dims[2], **extra}


def spread(count: int, limit: int) -> list[int]:
    """About `limit` values from 0…count−1, evenly spaced, always including the last one."""
    if count <= limit:
        return list(range(count))
    step = count / limit
    out = sorted({int(i * step) for i in range(limit)} | {count - 1})
    return out


# Predicates over a solved problem (misconception_when, trap_when) -----------------------------


def coords_inside(key: str):
    """The option's coordinates lie inside the block (an option outside it rules itself out)."""
    def holds(facts: Facts, m: Any) -> bool:
        value = m.answers.get(key)
        return value is None or all(0 <= c < d for c, d in zip(value, facts.params["block"]))
    holds.__name__ = f"{key}_inside_block"
    return holds


def warp_id_in_block(facts: Facts, m: Any) -> bool:
    """The option names a warp the block has (0 … warps − 1)."""
    value = m.answers.get("warp_id")
    return value is None or 0 <= value < facts.answers["warps"]


def lanes_in_one_warp(facts: Facts, m: Any) -> bool:
    """An idle-lane count a block's one partial warp can have: 0 … 31."""
    value = m.answers.get("wasted_lanes", m.answers.get("square_wasted_lanes"))
    return value is None or 0 <= value < WARP


def block_has_rows(facts: Facts, m: Any) -> bool:
    """The block has more than one row or slice (so "blockDim.x only" is a real slip)."""
    b = facts.params.get("block") or facts.solved.data["ctx"]["sq"]
    return b[1] * b[2] > 1


def several_schedulers(facts: Facts, m: Any) -> bool:
    """The SM has more than one scheduler (so each needing its own warps changes the count)."""
    return facts.params.get("schedulers", 1) > 1


def uneven_split(facts: Facts, m: Any) -> bool:
    """The lanes do not split evenly among the paths (so "a lopsided split is cheaper" is a
    real temptation)."""
    lanes = [b["lanes"] for b in facts.params["branches"]]
    return len(set(lanes)) > 1


class EngineFamily(Family):
    """A family solved by the engine's warp, latency and divergence functions: its problem is
    `solved.data["steps"]` (engine steps) and `solved.data["ctx"]` (numbers for its cell's
    phrases), which its writer (``render/writers/warps.py``, on every family's writer) puts into
    words.
    """

    topic = "warps"

    def context(self, params: dict[str, Any], gpu: GPU, solved: Solved) -> dict[str, Any]:
        """Every family's context, with the SM's warp ceiling (``cap``) unless the solver named
        its own."""
        ctx = super().context(params, gpu, solved)
        ctx.setdefault("cap", gpu.max_warps_per_sm)
        return ctx

    def enough_options(self, params, gpu, solved) -> bool:
        """At least three distinct, plausible, applicable wrong options besides the right one,
        so that every multiple-choice card of the cell offers four."""
        key = self.main_answer
        unit = self.units.get(key, "")
        wrong = [m for m in distinct_wrong(solved.answers[key],
                                           self.applicable_misconceptions(params, gpu, solved), key)
                 if plausible(m.answers[key], unit)]
        return len(wrong) >= MAX_WRONG


# ----------------------------------------------------------------------------- where threads go


def y_fastest(block: list[int], i: int) -> list[int]:
    """Coordinates read with y moving fastest (the column-major slip)."""
    dx, dy, _ = block
    return [(i // dy) % dx, i % dy, i // (dx * dy)]


def z_fastest(block: list[int], i: int) -> list[int]:
    """Coordinates read with the axes reversed: z fastest, x slowest."""
    dx, dy, dz = block
    return [i // (dy * dz), (i // dz) % dy, i % dz]


@register
class CleanBlock(EngineFamily):
    """W-A: a 1D block whose size is a multiple of 32 (seed 001 Ex 1); which warp holds thread i."""

    cell = "W-A"
    main_answer = "warp_id"
    answer_specs = {**BLOCK_SPECS, "warp_id": sp.count("", "linear_index"),
                    "lane": sp.count("", "linear_index", compute=rel.lane_of),
                    # level 3: a thread found from its global index, block first, then warp
                    "global_block": sp.count("", "global_index", "threads_per_block",
                                             compute=lambda v, gpu: v["global_index"] // v["threads_per_block"]),
                    "global_warp": sp.count("", "global_index", "threads_per_block",
                                            compute=lambda v, gpu: (v["global_index"] % v["threads_per_block"]) // WARP),
                    }
    misconception_when = {key: (warp_id_in_block,) for key in (
        "one_based_warp", "lane_as_warp", "round_not_floor", "wavefront_64",
        "divided_by_warp_count", "thread_counted_from_one", "zero_based_twice")}

    def space(self, level, gpu):
        sizes = {1: (64, 128, 256, 512, 1024),
                 2: (96, 160, 192, 224, 256, 320, 384, 448, 512, 640, 768),
                 3: tuple(range(96, 1025, 32))}[level]
        for T in sizes:
            if level == 1:
                indices = sorted({i for i in range(0, T, 4) if i % 10 == 0 or i % 32 in (0, 31)} |
                                 {i for i in range(5, T, 37)} | {i for i in range(3, T, 23)})
            elif level == 2:
                indices = spread(T, 40)
            else:
                indices = [i for i in range(7, T, 29)]
            for i in indices:
                if level < 3:
                    yield block_params([T, 1, 1], linear_index=i)
                    continue
                # level 3 adds a thread of a later block, named by its global index
                b, j = 2 + i % 9, (11 * i + 5) % T
                yield block_params([T, 1, 1], linear_index=i, global_index=b * T + j,
                                   ask="global_index")

    def solve(self, params, gpu, explain=True):
        block = params["block"]
        bw = warp_engine.block_warps(block, explain=explain)
        loc = warp_engine.locate_thread(block, linear=params["linear_index"], explain=explain)
        steps = (pick_steps(bw.steps, ("warps", "wasted_lanes"))
                 + pick_steps(loc.steps, ("warp_id", "lane")))
        answers = {"warps": bw.warps, "wasted_lanes": bw.wasted_lanes, "warp_id": loc.warp_id,
                   "lane": loc.lane}
        ctx = {"T": bw.threads, "i": loc.linear_index,
               "first": WARP * loc.warp_id, "last": WARP * loc.warp_id + WARP - 1}
        if params.get("ask") == "global_index":
            gt = warp_engine.global_thread(params["global_index"], bw.threads, explain=explain)
            answers.update({"global_block": gt.block, "global_warp": gt.warp_id})
            steps += gt.steps
            ctx.update({"g": gt.global_index, "g_i": gt.index, "g_lane": gt.index % WARP,
                        "g_grid_warp": gt.global_index // WARP})
        return Solved(answers, {"steps": steps, "ctx": ctx})

    def in_cell(self, params, gpu, solved):
        b = params["block"]
        return (b[1] == b[2] == 1 and b[0] % WARP == 0 and solved.answers["wasted_lanes"] == 0
                and self.enough_options(params, gpu, solved))

    def misconceptions(self, params, gpu, solved):
        i = params["linear_index"]
        k = solved.answers["warp_id"]
        T = params["threads_per_block"]
        return [
            Misconception("one_based_warp", {"warp_id": k + 1}),
            Misconception("lane_as_warp", {"warp_id": i % WARP}),
            Misconception("round_not_floor", {"warp_id": int(i / WARP + 0.5)}),
            Misconception("wavefront_64", {"warp_id": i // 64}),
            Misconception("divided_by_warp_count", {"warp_id": i // (T // WARP)}),
            Misconception("thread_counted_from_one", {"warp_id": (i + 1) // WARP}),
            Misconception("zero_based_twice", {"warp_id": k - 1}),
            Misconception("top_id_as_count", {"warps": T // WARP - 1}),
            # level 3: ⌊g/32⌋ counts warps across the whole grid, not inside the thread's block
            *([Misconception("grid_warp_as_block_warp",
                             {"global_warp": params["global_index"] // WARP})]
              if "global_index" in params else []),
        ]

    def figure(self, params, gpu, solved):
        return {"kind": "warp_grid", "block": params["block"], "warp_id": solved.answers["warp_id"]}


@register
class TailWarp(EngineFamily):
    """W-B: the block is not a multiple of 32: a partial tail warp and its wasted lanes (Ex 2)."""

    cell = "W-B"
    main_answer = "warps"
    answer_specs = {**BLOCK_SPECS, "full_warps": sp.count("warps", "threads_per_block"),
                    "tail_active": sp.count("threads", "threads_per_block", "full_warps",
                                            compute=rel.tail_active),
                    # level 3: a 1D launch over n elements, one thread each
                    "launch_blocks": sp.count("blocks", "elements", "threads_per_block",
                                              compute=lambda v, gpu: ceiling(v["elements"], v["threads_per_block"])),
                    "launch_idle_lanes": sp.count("lanes", "elements", "threads_per_block",
                                                  compute=lambda v, gpu: warp_engine.launch_idle_lanes(
                                                      v["elements"], [v["threads_per_block"], 1, 1])[1])}
    misconception_when = {"x_only": (block_has_rows,), "rows_pad_to_warps": (block_has_rows,),
                          "added_dimensions": (block_has_rows,)}

    def space(self, level, gpu):
        if level == 1:
            for T in range(36, 1001, 4):
                if T % WARP:
                    yield block_params([T, 1, 1])
            for T in range(50, 1001, 50):
                yield block_params([T, 1, 1])
        elif level == 2:
            for x in (3, 5, 6, 7, 9, 10, 12, 14, 15, 20, 24, 25, 28, 30, 40, 48, 50, 60, 100):
                for y in range(2, 17):
                    if x * y <= 1024:
                        yield block_params([x, y, 1])
        else:
            # a 1D launch over n elements: the partial warp of every block and the last block's
            # threads past the end both launch idle lanes
            for T in range(33, 1000, 6):
                for n in (10_000, 50_000, 100_000, 250_000, 1_000_000):
                    if n % T:
                        yield block_params([T, 1, 1], elements=n, ask="launch_idle")

    def solve(self, params, gpu, explain=True):
        bw = warp_engine.block_warps(params["block"], explain=explain)
        keys = ["warps", "full_warps", "tail_active", "wasted_lanes", "tail_waste_fraction"]
        if params["block"][1] * params["block"][2] > 1:
            keys.insert(0, "threads_per_block")
        answers = {"warps": bw.warps, "wasted_lanes": bw.wasted_lanes, "full_warps": bw.full_warps,
                   "tail_active": bw.tail_active}
        steps = pick_steps(bw.steps, keys)
        ctx = {"P": bw.threads, "top": bw.top_warp_id,
               "q": bw.full_warps, "t": bw.tail_active, "w": bw.warps,
               "tail_share": bw.tail_waste_fraction, "first_tail": WARP * bw.full_warps}
        if params.get("ask") == "launch_idle":
            n = params["elements"]
            blocks, idle, more = warp_engine.launch_idle_lanes(n, params["block"], explain=explain)
            answers.update({"launch_blocks": blocks, "launch_idle_lanes": idle})
            steps += more
            ctx.update({"n": n, "G": blocks, "padding": blocks * bw.wasted_lanes,
                        "past_end": blocks * bw.threads - n})
        return Solved(answers, {"steps": steps, "ctx": ctx})

    def in_cell(self, params, gpu, solved):
        return (params["threads_per_block"] % WARP != 0 and solved.answers["full_warps"] >= 1
                and self.enough_options(params, gpu, solved))

    def misconceptions(self, params, gpu, solved):
        P = params["threads_per_block"]
        dx, dy, dz = params["block"]
        a = solved.answers
        return [
            Misconception("no_ceiling", {"warps": a["full_warps"], "wasted_lanes": 0}),
            Misconception("exact_division", {"warps": round(P / WARP, 3)}),
            Misconception("rows_pad_to_warps", {"warps": dy * dz * ceiling(dx, WARP)}),
            Misconception("x_only", {"warps": ceiling(dx, WARP)}),
            Misconception("added_dimensions", {"warps": ceiling(dx + dy + dz, WARP)}),
            Misconception("wavefront_64", {"warps": ceiling(P, 64)}),
            Misconception("half_warp", {"warps": ceiling(P, 16)}),
            Misconception("active_as_wasted", {"wasted_lanes": a["tail_active"]}),
            # level 3: the padding of each block alone, or the last block's overhang alone
            *([Misconception("tail_padding_only",
                             {"launch_idle_lanes": a["launch_blocks"] * a["wasted_lanes"]}),
               Misconception("overhang_only",
                             {"launch_idle_lanes": a["launch_blocks"] * P - params["elements"]})]
              if "elements" in params else []),
        ]

    def figure(self, params, gpu, solved):
        return {"kind": "warp_grid", "block": params["block"], "warp_id": solved.answers["warps"] - 1}


@register
class RowStraddle(EngineFamily):
    """W-C: a 2D block whose rows are not a multiple of 32 wide; the asked warp cuts across rows (Ex 3)."""

    cell = "W-C"
    main_answer = "last_coords"
    answer_specs = {**BLOCK_SPECS, "first_coords": sp.coords("block", "warp_id"),
                    "last_coords": sp.coords("block", "warp_id"),
                    "rows_spanned": sp.count("", "block", "warp_id"),
                    "first_row_threads": sp.count("threads", "block", "warp_id"),
                    "aligned_width": sp.count(
                        "threads", "block",
                        compute=lambda v, gpu: warp_engine.aligned_width(v["block"])[0])}
    misconception_when = {key: (coords_inside("last_coords"),) for key in (
        "y_fastest", "warp_stays_in_row", "rows_as_warps", "last_index_off_by_one",
        "wrapped_in_row", "swapped_xy")}

    def space(self, level, gpu):
        widths = {1: (12, 20, 24, 36, 40, 48, 56, 60, 72, 80, 100, 112, 120),
                  2: (10, 12, 18, 20, 24, 28, 36, 40, 44, 48, 50, 56, 60, 72, 80, 100, 120),
                  3: (9, 13, 17, 21, 27, 33, 35, 45, 50, 57, 63, 70, 75, 99)}[level]
        heights = {1: (2, 3, 4, 8, 16), 2: (2, 3, 4, 5, 6, 8, 10, 12), 3: (3, 5, 6, 7, 9, 11)}[level]
        for dx in widths:
            for dy in heights:
                P = dx * dy
                if P > 1024:
                    continue
                warps = ceiling(P, WARP)
                extra = {"ask": "aligned_width"} if level == 3 else {}
                for k in (range(warps) if level == 1 else spread(warps, 12)):
                    yield block_params([dx, dy, 1], warp_id=k, **extra)

    def solve(self, params, gpu, explain=True):
        block = params["block"]
        dx = block[0]
        k = params["warp_id"]
        bw = warp_engine.block_warps(block, explain=explain)
        segs = warp_engine.warp_members(block, k)
        first, last = segs[0].linear_start, segs[-1].linear_end
        y0, x0 = divmod(first, dx)
        y1, x1 = divmod(last, dx)
        steps: list[Step] = []
        if explain:
            steps = pick_steps(bw.steps, ("threads_per_block", "warps", "rows_aligned"))
            steps += [
                Step("warp_first", "warp_first_index", {"k": k}, first, "", "wc_first_index"),
                Step("warp_last", "warp_last_index", {"k": k, "P": bw.threads}, last, "",
                     "wc_last_index", "wc_partial_warp" if last < WARP * k + WARP - 1 else None),
                Step("first_row", "row_of", {"o": first, "D_x": dx}, y0, "", "wc_row"),
                Step("first_col", "column_of", {"o": first, "t_y": y0, "D_x": dx}, x0, "", "wc_col"),
                Step("last_row", "row_of", {"o": last, "D_x": dx}, y1, "", "wc_row"),
                Step("last_col", "column_of", {"o": last, "t_y": y1, "D_x": dx}, x1, "", "wc_col",
                     "wc_crosses" if y1 != y0 else None),
            ]
        answers = {"warps": bw.warps, "wasted_lanes": bw.wasted_lanes, "first_coords": [x0, y0, 0],
                   "last_coords": [x1, y1, 0], "rows_spanned": len(segs),
                   "first_row_threads": segs[0].count}
        if params.get("ask") == "aligned_width":
            answers["aligned_width"], more = warp_engine.aligned_width(block, explain=explain)
            steps += more
        pieces = [{"y": s.y, "x0": s.x_start, "x1": s.x_end, "n": s.count} for s in segs]
        return Solved(answers, {"steps": steps, "ctx": {
            "P": bw.threads, "Dx": dx, "Dy": block[1], "k": k, "i0": first, "i1": last,
            "x0": x0, "y0": y0, "x1": x1, "y1": y1, "pieces": pieces, "n_total": last - first + 1}})

    def in_cell(self, params, gpu, solved):
        b = params["block"]
        return (b[0] % WARP != 0 and b[1] > 1 and b[2] == 1 and solved.answers["rows_spanned"] >= 2
                and self.enough_options(params, gpu, solved))

    def misconceptions(self, params, gpu, solved):
        block = params["block"]
        dx = block[0]
        ctx = solved.data["ctx"]
        i1 = ctx["i1"]
        x0, y0 = solved.answers["first_coords"][:2]
        out = [
            Misconception("y_fastest", {"last_coords": y_fastest(block, i1)}),
            Misconception("warp_stays_in_row", {"last_coords": [x0 + ctx["n_total"] - 1, y0, 0]}),
            Misconception("rows_as_warps", {"last_coords": [i1 % WARP, i1 // WARP, 0]}),
            Misconception("wrapped_in_row", {"last_coords": [(x0 + ctx["n_total"] - 1) % dx, y0, 0]}),
            Misconception("swapped_xy", {"last_coords": [ctx["y1"], ctx["x1"], 0]}),
        ]
        if i1 + 1 < params["threads_per_block"]:
            y, x = divmod(i1 + 1, dx)
            out.append(Misconception("last_index_off_by_one", {"last_coords": [x, y, 0]}))
        return out

    def figure(self, params, gpu, solved):
        return {"kind": "warp_grid", "block": params["block"], "warp_id": params["warp_id"]}


@register
class DepthTerm(EngineFamily):
    """W-C2: a true 3D block; a linear index back to (x, y, z) with the z term in play (Ex 3b)."""

    cell = "W-C2"
    main_answer = "coords"
    answer_specs = {"coords": sp.coords("block", "linear_index"),
                    "warp_id": sp.count("", "linear_index"),
                    "lane": sp.count("", "linear_index", compute=rel.lane_of), **BLOCK_SPECS,
                    "warp_slices": sp.count(
                        "slices", "block", "warp_id",
                        compute=lambda v, gpu: warp_engine.warp_slices(v["block"], v["warp_id"])[0])}
    misconception_when = {key: (coords_inside("coords"),) for key in (
        "ignore_z_term", "y_fastest", "z_fastest", "swapped_xy", "z_slice_lost", "x_only_peeled",
        "slice_is_warp", "one_based_coords")}

    def space(self, level, gpu):
        dims = {1: ((4, 8, 16, 32), (2, 4, 8), (2, 4)),
                2: ((4, 6, 8, 10, 12, 16), (3, 4, 5, 6, 8), (2, 3, 4)),
                3: ((3, 5, 7, 9, 11, 13), (3, 5, 6, 7), (2, 3, 5, 6))}[level]
        per_shape = {1: 10, 2: 5, 3: 4}[level]
        for dx in dims[0]:
            for dy in dims[1]:
                for dz in dims[2]:
                    P = dx * dy * dz
                    if P > 1024:
                        continue
                    area = dx * dy
                    above = P - area  # indices in slices z ≥ 1
                    extra = {"ask": "warp_slices"} if level == 3 else {}
                    for j in spread(above, per_shape):
                        yield block_params([dx, dy, dz], linear_index=area + j, **extra)

    def solve(self, params, gpu, explain=True):
        block = params["block"]
        loc = warp_engine.locate_thread(block, linear=params["linear_index"], explain=explain)
        bw = warp_engine.block_warps(block, explain=explain)
        steps = loc.steps[:-1] + pick_steps(bw.steps, ("warps",)) if explain else []
        tx, ty, tz = loc.coords
        answers = {"coords": [tx, ty, tz], "warp_id": loc.warp_id, "lane": loc.lane,
                   "warps": bw.warps, "wasted_lanes": bw.wasted_lanes}
        if params.get("ask") == "warp_slices":
            answers["warp_slices"], more = warp_engine.warp_slices(block, loc.warp_id, explain=explain)
            steps += more
        return Solved(answers, {"steps": steps, "ctx": {
            "P": bw.threads, "Dx": block[0], "Dy": block[1], "Dz": block[2], "A": loc.slice_size,
            "i": loc.linear_index, "tx": tx, "ty": ty, "tz": tz, "o": loc.offset_in_slice,
            "k": loc.warp_id, "slices_aligned": bw.slices_aligned}})

    def in_cell(self, params, gpu, solved):
        return (params["block"][2] > 1 and solved.answers["coords"][2] > 0
                and self.enough_options(params, gpu, solved))

    def misconceptions(self, params, gpu, solved):
        block, i = params["block"], params["linear_index"]
        dx = block[0]
        tx, ty, tz = solved.answers["coords"]
        out = [
            Misconception("ignore_z_term", {"coords": [i % dx, i // dx, 0]}),
            Misconception("y_fastest", {"coords": y_fastest(block, i)}),
            Misconception("z_fastest", {"coords": z_fastest(block, i)}),
            Misconception("swapped_xy", {"coords": [ty, tx, tz]}),
            Misconception("z_slice_lost", {"coords": [i % dx, (i // dx) % block[1], 0]}),
            Misconception("x_only_peeled", {"coords": [i % dx, 0, 0]}),
            # seed 001 Ex 3b's slices are exactly one warp each; taken as a rule, slice = warp
            Misconception("slice_is_warp", {"coords": [(i % WARP) % dx, (i % WARP) // dx, i // WARP]}),
            Misconception("one_based_coords", {"coords": [tx + 1, ty + 1, tz + 1]}),
        ]
        return out

    def figure(self, params, gpu, solved):
        return {"kind": "warp_grid", "block": params["block"], "warp_id": solved.answers["warp_id"]}


@register
class TinyBlock(EngineFamily):
    """W-D: a block smaller than a warp: one warp, most lanes idle; where a thread sits in it."""

    cell = "W-D"
    main_answer = "wasted_lanes"
    answer_specs = {**BLOCK_SPECS, "linear_index": sp.count("", "block", "thread"),
                    "lane": sp.count("", "linear_index", compute=rel.lane_of),
                    "threads_at_block_cap": sp.count(
                        "threads", "threads_per_block",
                        compute=lambda v, gpu: warp_engine.threads_at_block_cap(
                            [v["threads_per_block"], 1, 1], gpu.max_blocks_per_sm,
                            gpu.max_warps_per_sm)[0])}
    misconception_when = {"x_only": (block_has_rows,),
                          "added_dimensions": (block_has_rows, lanes_in_one_warp),
                          "half_warp": (lanes_in_one_warp,), "blocks_share_warp": (lanes_in_one_warp,)}

    def shapes(self, level):
        if level == 1:
            out = [[n, 1, 1] for n in (1, 2, 4, 8, 12, 16, 20, 24, 28)]
            out += [[x, y, 1] for x in (2, 4, 8) for y in (2, 3, 4, 8) if x * y < WARP]
            out += [[2, 2, 2], [2, 2, 4], [4, 2, 2], [2, 4, 2], [4, 4, 1]]
            return out
        if level == 2:
            return [[x, y, 1] for x in range(3, 16) for y in range(2, 8) if x * y < WARP]
        return [[x, y, z] for x in (2, 3, 4, 5, 7) for y in (2, 3, 5) for z in (2, 3) if x * y * z < WARP]

    def space(self, level, gpu):
        seen = set()
        for shape in self.shapes(level):
            if tuple(shape) in seen:
                continue
            seen.add(tuple(shape))
            P = shape[0] * shape[1] * shape[2]
            extra = {"ask": "block_cap"} if level == 3 else {}
            for i in spread(P, {1: 32, 2: 6, 3: 12}[level]):
                tz, rest = divmod(i, shape[0] * shape[1])
                ty, tx = divmod(rest, shape[0])
                yield block_params(shape, thread=[tx, ty, tz], **extra)

    def solve(self, params, gpu, explain=True):
        block = params["block"]
        bw = warp_engine.block_warps(block, explain=explain)
        loc = warp_engine.locate_thread(block, coords=params["thread"], explain=explain)
        keys = ["warps", "wasted_lanes", "waste_fraction"]
        if block[1] * block[2] > 1:
            keys.insert(0, "threads_per_block")
        steps = (pick_steps(bw.steps, keys) + pick_steps(loc.steps, ("linear_index", "lane"))
                 if explain else [])
        answers = {"warps": bw.warps, "wasted_lanes": bw.wasted_lanes,
                   "linear_index": loc.linear_index, "lane": loc.lane}
        if params.get("ask") == "block_cap":
            answers["threads_at_block_cap"], more = warp_engine.threads_at_block_cap(
                block, gpu.max_blocks_per_sm, gpu.max_warps_per_sm, explain=explain)
            steps += more
        return Solved(answers, {"steps": steps, "ctx": {
            "P": bw.threads, "i": loc.linear_index, "share": bw.waste_fraction, "Dx": block[0],
            "B_max": gpu.max_blocks_per_sm, "slots": WARP * gpu.max_warps_per_sm}})

    def in_cell(self, params, gpu, solved):
        return (params["threads_per_block"] < WARP and solved.answers["warps"] == 1
                and self.enough_options(params, gpu, solved))

    def misconceptions(self, params, gpu, solved):
        P = params["threads_per_block"]
        dx, dy, dz = params["block"]
        return [
            Misconception("no_partial_warp", {"warps": 0, "wasted_lanes": 0}),
            Misconception("active_as_wasted", {"wasted_lanes": P}),
            Misconception("x_only", {"wasted_lanes": WARP - dx}),
            Misconception("added_dimensions", {"wasted_lanes": WARP - (dx + dy + dz)}),
            Misconception("half_warp", {"wasted_lanes": abs(16 - P)}),
            # warps never mix blocks; a student who packs ⌊32/P⌋ tiny blocks into one warp
            Misconception("blocks_share_warp", {"wasted_lanes": WARP % P}),
        ]

    def figure(self, params, gpu, solved):
        return {"kind": "warp_grid", "block": params["block"], "warp_id": 0}
