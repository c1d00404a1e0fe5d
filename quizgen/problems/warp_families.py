"""Warp families (seed 001, cells W-A…W-J): where threads go, latency hiding, divergence.

Each family enumerates its candidates, solves them with `quizgen.engine.warps`, `latency` and
`divergence`, and keeps only the draws that land in the cell (W-B: a partial tail warp; W-C: the
asked warp straddles two rows; W-F: W = 1 and the need is above the SM's cap; …). The worked
solution is the engine's derivation, put into words by the families' writers
(``render/writers/warps.py``).
"""

from __future__ import annotations

from typing import Any, Iterable

from quizgen.engine import divergence as div_engine
from quizgen.engine import latency as lat_engine
from quizgen.engine import warps as warp_engine
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
                                              compute=lambda v, gpu: -(-v["elements"] // v["threads_per_block"])),
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
            Misconception("rows_pad_to_warps", {"warps": dy * dz * -(-dx // WARP)}),
            Misconception("x_only", {"warps": -(-dx // WARP)}),
            Misconception("added_dimensions", {"warps": -(-(dx + dy + dz) // WARP)}),
            Misconception("wavefront_64", {"warps": -(-P // 64)}),
            Misconception("half_warp", {"warps": -(-P // 16)}),
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
                warps = -(-P // WARP)
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


# ----------------------------------------------------------------------------- latency hiding


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
            Misconception("divide_by_warp_size", {"warps_needed": N * -(-L // WARP)}),
        ]

    def figure(self, params, gpu, solved):
        return {"kind": "efficiency_curve", "latency": params["latency"],
                "resident_warps": gpu.max_warps_per_sm}


@register
class SchedulerDemand(EngineFamily):
    """W-J: every scheduler needs ⌈L/(T_issue·I_warp)⌉ warps of its own; × N_sched they exceed
    the SM's cap, and ILP closes the gap (seed 001 Ex 10)."""

    cell = "W-J"
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


# ----------------------------------------------------------------------------- divergence


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


# ----------------------------------------------------------------------------- choosing a block


def grid_idle_from(v: dict[str, Any]) -> int:
    """Idle lanes over the image launch: every lane of the square block's launch minus the pixels."""
    sq = next(b for b in v["blocks"] if b[0] % WARP)
    return warp_engine.grid_idle_lanes(v["image"], sq)[0]


IMAGES = {1: ((1920, 1080), (1280, 720), (3840, 2160), (1024, 768), (640, 480), (2048, 2048)),
          2: ((1920, 1080), (1280, 720), (3840, 2160), (2560, 1440), (800, 600), (4096, 2160)),
          3: ((1000, 1000), (1366, 768), (3000, 2000), (1600, 900), (720, 576), (4000, 3000))}


@register
class ChooseBlock(EngineFamily):
    """W-I: a square-looking block against a warp-aligned one for an image kernel (Ex 9)."""

    cell = "W-I"
    main_answer = "square_wasted_lanes"
    answer_specs = {
        "square_warps": sp.count("warps", "blocks"),
        "square_wasted_lanes": sp.count("lanes", "square_warps", "blocks",
                                        compute=rel.wasted_lanes_of("square")),
        "aligned_warps": sp.count("warps", "blocks"),
        "aligned_wasted_lanes": sp.count("lanes", "aligned_warps", "blocks",
                                         compute=rel.wasted_lanes_of("aligned")),
        "better_block": sp.coords("blocks"),
        # over the whole image: every lane the square block's launch has, minus the pixels
        "square_grid_idle_lanes": sp.count("lanes", "image", "blocks",
                                           compute=lambda v, gpu: grid_idle_from(v)),
    }
    misconception_when = {key: (lanes_in_one_warp,) for key in (
        "active_as_wasted", "rows_pad_to_warps", "x_only", "half_warp", "wavefront_64")}

    def space(self, level, gpu):
        squares = {1: (6, 10, 12, 14, 18, 20, 22, 30), 2: (6, 7, 9, 10, 11, 12, 13, 14, 15, 18, 20, 22, 25, 26, 28, 30),
                   3: (5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31)}[level]
        aligned = {1: ((32, 8), (32, 4), (32, 16), (64, 4), (64, 8), (128, 2), (32, 32)),
                   2: ((32, 2), (32, 4), (32, 6), (32, 8), (64, 2), (64, 4), (96, 4), (128, 4)),
                   3: ((32, 3), (32, 5), (32, 7), (64, 3), (96, 2), (96, 5), (160, 2))}[level]
        for image in IMAGES[level]:
            extra = {"ask": "grid_idle"} if level == 3 else {}
            for s in squares:
                for ax, ay in aligned:
                    sq, al = [s, s, 1], [ax, ay, 1]
                    yield {"image": list(image), "blocks": [sq, al], **extra}
                    if level > 1:
                        yield {"image": list(image), "blocks": [al, sq], **extra}

    @staticmethod
    def _square_first(params) -> bool:
        return params["blocks"][0][0] % WARP != 0

    def solve(self, params, gpu, explain=True):
        a, b = params["blocks"]
        cmp = warp_engine.compare_blocks(a, b, explain=explain)
        sq, al = (cmp.first, cmp.second) if self._square_first(params) else (cmp.second, cmp.first)
        better = cmp.better_block
        answers = {"square_warps": sq.warps, "square_wasted_lanes": sq.wasted_lanes,
                   "aligned_warps": al.warps, "aligned_wasted_lanes": al.wasted_lanes,
                   "better_block": list(better) if better else None}
        W, H = params["image"]
        ctx = {
            "W": W, "H": H, "sq": list(sq.block), "al": list(al.block),
            "sq_P": sq.threads, "al_P": al.threads, "sq_q": sq.full_warps, "sq_t": sq.tail_active,
            "sq_share": sq.waste_fraction, "al_q": al.full_warps,
            "sq_grid": -(-W // sq.block[0]) * -(-H // sq.block[1]),
            "al_grid": -(-W // al.block[0]) * -(-H // al.block[1]),
        }
        more: list[Step] = []
        if params.get("ask") == "grid_idle":
            answers["square_grid_idle_lanes"], more = warp_engine.grid_idle_lanes(
                params["image"], sq.block, explain=explain)
        ctx["grid_idle"] = answers.get("square_grid_idle_lanes", 0)
        # the launch's idle lanes in their two kinds: padding in every block, threads past the edge
        ctx.update({"launched": ctx["sq_grid"] * sq.warps * WARP, "pixels": W * H,
                    "padding": ctx["sq_grid"] * sq.wasted_lanes,
                    "edge": ctx["sq_grid"] * sq.threads - W * H})
        return Solved(answers, {"cmp": cmp, "ctx": ctx, "more": more})

    def in_cell(self, params, gpu, solved):
        a = solved.answers
        cmp = solved.data["cmp"]
        better = a["better_block"]
        return (a["square_wasted_lanes"] > 0 and a["aligned_wasted_lanes"] == 0
                and better is not None and better[0] % WARP == 0 and cmp.better != "tie"
                and self.enough_options(params, gpu, solved))

    def misconceptions(self, params, gpu, solved):
        ctx = solved.data["ctx"]
        dx, dy = ctx["sq"][0], ctx["sq"][1]
        row_pad = dy * (WARP * -(-dx // WARP) - dx)
        P = ctx["sq_P"]
        return [
            Misconception("active_as_wasted", {"square_wasted_lanes": ctx["sq_t"]}),
            Misconception("rows_pad_to_warps", {"square_wasted_lanes": row_pad}),
            Misconception("x_only", {"square_wasted_lanes": WARP * -(-dx // WARP) - dx}),
            Misconception("half_warp", {"square_wasted_lanes": 16 * -(-P // 16) - P}),
            Misconception("wavefront_64", {"square_wasted_lanes": 64 * -(-P // 64) - P}),
            Misconception("square_is_balanced", {"square_wasted_lanes": 0, "better_block": ctx["sq"]}),
            # over the image: the warp padding alone, as if the edge blocks had no threads outside
            Misconception("padding_only", {"square_grid_idle_lanes": ctx["padding"]}),
        ]

    def figure(self, params, gpu, solved):
        ctx = solved.data["ctx"]
        return {"kind": "warp_grid", "block": ctx["sq"], "warp_id": solved.answers["square_warps"] - 1}
