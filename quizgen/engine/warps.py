"""Where threads go: block shapes, linear indices, warps, lanes and wasted lanes (seed 001, Ex 1–4, 9).

A block of shape (D_x, D_y, D_z) is flattened with x fastest: linear = t_z·D_x·D_y + t_y·D_x + t_x.
Warp k holds the linear indices 32k … 32k+31 (the last warp may be partial); the lane of a thread is
its linear index mod 32. Everything here is integer arithmetic; ``explain=True`` also records the
steps a teacher writes (seed 001's worked examples give their order).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from collections.abc import Iterable
from typing import Any

from quizgen.engine.arith import ceiling
from quizgen.engine.derivation import Step
from quizgen.errors import QuizgenError, require_int

WARP_SIZE = 32

#: Formulas of this module: name → (sympy source, {symbol: meaning}).
FORMULAS: dict[str, tuple[str, dict[str, str]]] = {
    "block_threads": ("D_x*D_y*D_z", {
        "D_x": "block width (threads along x)", "D_y": "block height (threads along y)",
        "D_z": "block depth (threads along z)"}),
    "warp_count": ("ceiling(P/32)", {"P": "threads in the block"}),
    "warp_count_by_last_index": ("floor((P - 1)/32) + 1", {"P": "threads in the block"}),
    "full_warps": ("floor(P/32)", {"P": "threads in the block"}),
    "tail_active": ("P - 32*q", {"P": "threads in the block", "q": "full warps"}),
    "threads_check": ("32*q + t", {"q": "full warps", "t": "active threads in the tail warp"}),
    "wasted_lanes": ("32*w - P", {"w": "warps in the block", "P": "threads in the block"}),
    "waste_fraction": ("(32*w - P)/(32*w)", {
        "w": "warps in the block", "P": "threads in the block"}),
    "tail_waste_fraction": ("(32 - t)/32", {"t": "active threads in the tail warp"}),
    "row_remainder": ("D_x - 32*floor(D_x/32)", {"D_x": "block width (threads along x)"}),
    "slice_remainder": ("A - 32*floor(A/32)", {"A": "threads in one z-slice (D_x·D_y)"}),
    "linear_index": ("t_z*D_x*D_y + t_y*D_x + t_x", {
        "t_x": "thread x index", "t_y": "thread y index", "t_z": "thread z index",
        "D_x": "block width", "D_y": "block height"}),
    "slice_size": ("D_x*D_y", {"D_x": "block width", "D_y": "block height"}),
    "slice_of": ("floor(i/A)", {"i": "linear index", "A": "threads in one z-slice (D_x·D_y)"}),
    "offset_in_slice": ("i - t_z*A", {
        "i": "linear index", "t_z": "thread z index", "A": "threads in one z-slice (D_x·D_y)"}),
    "row_of": ("floor(o/D_x)", {"o": "offset inside the z-slice", "D_x": "block width"}),
    "column_of": ("o - t_y*D_x", {
        "o": "offset inside the z-slice", "t_y": "thread y index", "D_x": "block width"}),
    "warp_of": ("floor(i/32)", {"i": "linear index"}),
    "lane_of": ("i - 32*k", {"i": "linear index", "k": "warp index"}),
    "warp_first_index": ("32*k", {"k": "warp index"}),
    "warp_last_index": ("Min(32*k + 31, P - 1)", {"k": "warp index", "P": "threads in the block"}),
    "smallest_full_block": ("32*(floor(i/32) + 1)", {"i": "linear index of the thread"}),
    "pad_to_warps": ("32*w", {"w": "warps in the block"}),
    "aligned_width": ("32*ceiling(D_x/32)", {"D_x": "block width (threads along x)"}),
    "slices_spanned": ("floor(Min(32*k + 31, P - 1)/A) - floor(32*k/A) + 1", {
        "k": "warp index", "P": "threads in the block", "A": "threads in one z-slice (D_x·D_y)"}),
    "threads_at_block_cap": ("Min(B_max, floor(W_max/w))*P", {
        "B_max": "max resident blocks per SM", "W_max": "max resident warps per SM",
        "w": "warps in the block", "P": "threads in the block"}),
    "grid_idle_lanes": ("32*w*ceiling(X/D_x)*ceiling(Y/D_y) - X*Y", {
        "X": "image width (pixels)", "Y": "image height (pixels)", "D_x": "block width",
        "D_y": "block height", "w": "warps in one block"}),
    "block_of_global": ("floor(g/T)", {"g": "global thread index", "T": "threads per block"}),
    "index_in_block": ("g - T*floor(g/T)", {"g": "global thread index", "T": "threads per block"}),
    "launch_blocks": ("ceiling(n/T)", {"n": "elements, one thread each", "T": "threads per block"}),
    "launch_idle_lanes": ("32*w*ceiling(n/T) - n", {
        "n": "elements, one thread each", "T": "threads per block", "w": "warps in one block"}),
    "waste_min": ("Min(f_a, f_b)", {
        "f_a": "idle-lane fraction of the first block", "f_b": "idle-lane fraction of the second block"}),
}


def block_shape(block: Any) -> tuple[int, int, int]:
    """A block shape as (D_x, D_y, D_z) from "48,4,1", "48x4", [48, 4], (48, 4, 1) or 256.

    Missing trailing dimensions are 1; zero or negative dimensions are refused.
    """
    if isinstance(block, bool):
        raise QuizgenError(f"got {block!r}; expected 1 to 3 dimensions like 32,8,1", field="block")
    if isinstance(block, int):
        dims: list[Any] = [block]
    elif isinstance(block, str):
        text = block.strip().strip("()[]").replace("×", ",").replace("x", ",").replace("X", ",")
        dims = [d for d in (part.strip() for part in text.split(",")) if d != ""] if text else []
    elif isinstance(block, Iterable):
        dims = list(block)
    else:
        raise QuizgenError(f"got {block!r}; expected 1 to 3 dimensions like 32,8,1", field="block")
    if not 1 <= len(dims) <= 3:
        raise QuizgenError(f"got {block!r}; expected 1 to 3 dimensions like 32,8,1", field="block")
    out = [require_int("block", d, minimum=1) for d in dims] + [1] * (3 - len(dims))
    return (out[0], out[1], out[2])


def _threads(shape: tuple[int, int, int]) -> int:
    return shape[0] * shape[1] * shape[2]


def _shape_text(shape: tuple[int, int, int]) -> str:
    return f"{shape[0]}×{shape[1]}×{shape[2]}"


def _coords(value: Any, shape: tuple[int, int, int]) -> tuple[int, int, int]:
    if isinstance(value, str):
        parts = [p.strip() for p in value.strip().strip("()[]").split(",") if p.strip() != ""]
    elif isinstance(value, Iterable):
        parts = list(value)
    else:
        raise QuizgenError(f"got {value!r}; expected x,y,z like 6,0,2", field="coords")
    if not 1 <= len(parts) <= 3:
        raise QuizgenError(f"got {value!r}; expected x,y,z like 6,0,2", field="coords")
    c = [require_int("coords", p, minimum=0) for p in parts] + [0] * (3 - len(parts))
    for axis, t, d in zip("xyz", c, shape):
        if t >= d:
            raise QuizgenError(f"thread ({c[0]}, {c[1]}, {c[2]}) is outside the block "
                               f"{_shape_text(shape)}: {axis} = {t} but D_{axis} = {d}",
                               field="coords")
    return (c[0], c[1], c[2])


def linear_index(block: Any, coords: Any) -> int:
    """The linear index of thread (t_x, t_y, t_z) in `block`: t_z·D_x·D_y + t_y·D_x + t_x."""
    shape = block_shape(block)
    tx, ty, tz = _coords(coords, shape)
    return tz * shape[0] * shape[1] + ty * shape[0] + tx


def _check_linear(shape: tuple[int, int, int], linear: Any) -> int:
    threads = _threads(shape)
    return require_int("linear_index", linear, minimum=0, maximum=threads - 1,
                       allowed=f"a whole number from 0 to {threads - 1} "
                               f"(block {_shape_text(shape)} has {threads} threads)")


def coords_of(block: Any, linear: Any) -> tuple[int, int, int]:
    """(t_x, t_y, t_z) of the thread with this linear index: read the mixed-radix digits."""
    shape = block_shape(block)
    i = _check_linear(shape, linear)
    dx, dy = shape[0], shape[1]
    tz, offset = divmod(i, dx * dy)
    ty, tx = divmod(offset, dx)
    return (tx, ty, tz)


def warp_of(linear: Any) -> int:
    """The warp that holds linear index `linear` (⌊i/32⌋)."""
    return require_int("linear_index", linear, minimum=0) // WARP_SIZE


@dataclass(frozen=True, slots=True)
class Segment:
    """A run of a warp's threads along one row: x_start…x_end at (y, z); ends inclusive."""

    z: int
    y: int
    x_start: int
    x_end: int
    linear_start: int
    linear_end: int

    @property
    def count(self) -> int:
        return self.x_end - self.x_start + 1

    def to_dict(self) -> dict[str, int]:
        return {"z": self.z, "y": self.y, "x_start": self.x_start, "x_end": self.x_end,
                "linear_start": self.linear_start, "linear_end": self.linear_end}


def warp_members(block: Any, warp_id: Any) -> list[Segment]:
    """The threads of warp `warp_id` as row pieces, in linear order (rows and z-slices may change)."""
    shape = block_shape(block)
    threads = _threads(shape)
    warps = ceiling(threads, WARP_SIZE)
    k = require_int("warp_id", warp_id, minimum=0, maximum=warps - 1,
                    allowed=f"a whole number from 0 to {warps - 1} "
                            f"(block {_shape_text(shape)} has {warps} warps)")
    dx, dy = shape[0], shape[1]
    i, last = WARP_SIZE * k, min(WARP_SIZE * k + WARP_SIZE - 1, threads - 1)
    out: list[Segment] = []
    while i <= last:
        tz, offset = divmod(i, dx * dy)
        ty, tx = divmod(offset, dx)
        run = min(last - i + 1, dx - tx)
        out.append(Segment(tz, ty, tx, tx + run - 1, i, i + run - 1))
        i += run
    return out


@dataclass(slots=True)
class BlockWarps:
    """How the threads of one block fill warps.

    waste_fraction is over the whole block (idle lanes / 32·warps); tail_waste_fraction is over the
    partial warp only (seed 001 Ex 2's 28/32 = 87.5%), 0 when every warp is full.
    """

    block: tuple[int, int, int]
    threads: int
    warps: int
    top_warp_id: int
    full_warps: int
    tail_active: int
    wasted_lanes: int
    waste_fraction: float
    tail_waste_fraction: float
    rows_aligned: bool
    slices_aligned: bool
    single_warp_degenerate: bool
    steps: list[Step] = field(default_factory=list)

    @property
    def has_partial_warp(self) -> bool:
        return self.tail_active > 0

    def to_dict(self, *, with_steps: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            "block": list(self.block), "threads_per_block": self.threads, "warps": self.warps,
            "top_warp_id": self.top_warp_id, "full_warps": self.full_warps,
            "tail_active": self.tail_active, "wasted_lanes": self.wasted_lanes,
            "waste_fraction": self.waste_fraction, "tail_waste_fraction": self.tail_waste_fraction,
            "has_partial_warp": self.has_partial_warp, "rows_aligned": self.rows_aligned,
            "slices_aligned": self.slices_aligned,
            "single_warp_degenerate": self.single_warp_degenerate,
        }
        if with_steps:
            out["steps"] = [s.to_dict() for s in self.steps]
        return out


def block_warps(block: Any, *, explain: bool = False) -> BlockWarps:
    """Warps, full warps, the partial tail warp and its wasted lanes for one block."""
    shape = block_shape(block)
    dx, dy, dz = shape
    p = dx * dy * dz
    w = ceiling(p, WARP_SIZE)
    q = p // WARP_SIZE
    tail = p - WARP_SIZE * q
    wasted = WARP_SIZE * w - p
    waste = wasted / (WARP_SIZE * w)
    tail_waste = (WARP_SIZE - tail) / WARP_SIZE if tail else 0.0
    rows_aligned = dx % WARP_SIZE == 0
    slices_aligned = (dx * dy) % WARP_SIZE == 0

    steps: list[Step] = []
    if explain:
        steps.append(Step("threads_per_block", "block_threads", {"D_x": dx, "D_y": dy, "D_z": dz},
                          p, "threads", "count_threads", "z_term" if dz > 1 else None))
        steps.append(Step("warps", "warp_count", {"P": p}, w, "warps", "warps_round_up",
                          "single_warp" if p < WARP_SIZE
                          else "partial_tail_warp" if tail else "exact_warps"))
        steps.append(Step("warps_check", "warp_count_by_last_index", {"P": p}, w, "warps",
                          "last_index_check"))
        steps.append(Step("full_warps", "full_warps", {"P": p}, q, "warps", "full_groups",
                          "no_full_warp" if q == 0 else None))
        steps.append(Step("tail_active", "tail_active", {"P": p, "q": q}, tail, "threads",
                          "tail_leftover", "no_tail" if tail == 0 else None))
        steps.append(Step("wasted_lanes", "wasted_lanes", {"w": w, "P": p}, wasted, "lanes",
                          "idle_lanes_cost", None if wasted else "no_waste"))
        if tail:
            steps.append(Step("tail_waste_fraction", "tail_waste_fraction", {"t": tail},
                              tail_waste, "", "tail_share"))
        steps.append(Step("waste_fraction", "waste_fraction", {"w": w, "P": p}, waste, "",
                          "waste_share"))
        if dy * dz > 1:
            steps.append(Step("rows_aligned", "row_remainder", {"D_x": dx}, dx % WARP_SIZE, "threads",
                              "row_alignment", "rows_aligned" if rows_aligned else "rows_cut"))
        if dz > 1:
            steps.append(Step("slices_aligned", "slice_remainder", {"A": dx * dy},
                              (dx * dy) % WARP_SIZE, "threads", "slice_alignment",
                              "slices_aligned" if slices_aligned else "slices_cut"))
        steps.append(Step("threads_check", "threads_check", {"q": q, "t": tail}, p, "threads",
                          "verify_threads"))

    return BlockWarps(shape, p, w, w - 1, q, tail, wasted, waste, tail_waste, rows_aligned,
                      slices_aligned, p < WARP_SIZE, steps)


@dataclass(slots=True)
class ThreadLocation:
    """One thread: its linear index, (x, y, z), warp and lane."""

    block: tuple[int, int, int]
    threads: int
    linear_index: int
    coords: tuple[int, int, int]
    warp_id: int
    lane: int
    slice_size: int
    offset_in_slice: int
    steps: list[Step] = field(default_factory=list)

    @property
    def z_slice(self) -> int:
        return self.coords[2]

    @property
    def row(self) -> int:
        return self.coords[1]

    def to_dict(self, *, with_steps: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            "block": list(self.block), "threads_per_block": self.threads,
            "linear_index": self.linear_index, "coords": list(self.coords),
            "warp_id": self.warp_id, "lane": self.lane, "z_slice": self.z_slice, "row": self.row,
            "slice_size": self.slice_size, "offset_in_slice": self.offset_in_slice,
        }
        if with_steps:
            out["steps"] = [s.to_dict() for s in self.steps]
        return out


def locate_thread(block: Any, *, linear: Any = None, coords: Any = None,
                  explain: bool = False) -> ThreadLocation:
    """Find a thread from its linear index or its (x, y, z): the other one, its warp and lane.

    From a linear index the steps peel the digits from the largest place value down (seed 001
    Ex 3b): z-slice, offset in the slice, row, column; then warp and lane, then the rebuild check.
    """
    shape = block_shape(block)
    dx, dy, dz = shape
    p = dx * dy * dz
    if (linear is None) == (coords is None):
        raise QuizgenError("give exactly one of linear_index or coords", field="linear_index")
    area = dx * dy
    steps: list[Step] = []
    if linear is not None:
        i = _check_linear(shape, linear)
        tz, offset = divmod(i, area)
        ty, tx = divmod(offset, dx)
        if explain:
            steps.append(Step("threads_per_block", "block_threads",
                              {"D_x": dx, "D_y": dy, "D_z": dz}, p, "threads", "count_threads",
                              "z_term" if dz > 1 else None))
            steps.append(Step("slice_size", "slice_size", {"D_x": dx, "D_y": dy}, area, "threads",
                              "slice_place_value"))
            steps.append(Step("t_z", "slice_of", {"i": i, "A": area}, tz, "", "peel_slice"))
            steps.append(Step("offset_in_slice", "offset_in_slice", {"i": i, "t_z": tz, "A": area},
                              offset, "threads", "peel_remainder"))
            steps.append(Step("t_y", "row_of", {"o": offset, "D_x": dx}, ty, "", "peel_row"))
            steps.append(Step("t_x", "column_of", {"o": offset, "t_y": ty, "D_x": dx}, tx, "",
                              "peel_column"))
    else:
        tx, ty, tz = _coords(coords, shape)
        offset = ty * dx + tx
        i = tz * area + offset
        if explain:
            steps.append(Step("threads_per_block", "block_threads",
                              {"D_x": dx, "D_y": dy, "D_z": dz}, p, "threads", "count_threads",
                              "z_term" if dz > 1 else None))
            steps.append(Step("linear_index", "linear_index",
                              {"t_x": tx, "t_y": ty, "t_z": tz, "D_x": dx, "D_y": dy}, i, "",
                              "flatten_x_fastest", "z_term" if tz > 0 else None))
    k = i // WARP_SIZE
    lane = i - WARP_SIZE * k
    if explain:
        steps.append(Step("warp_id", "warp_of", {"i": i}, k, "", "warp_from_index"))
        steps.append(Step("lane", "lane_of", {"i": i, "k": k}, lane, "", "lane_from_index"))
        if linear is not None:
            steps.append(Step("linear_index", "linear_index",
                              {"t_x": tx, "t_y": ty, "t_z": tz, "D_x": dx, "D_y": dy}, i, "",
                              "rebuild_check"))
    return ThreadLocation(shape, p, i, (tx, ty, tz), k, lane, area, offset, steps)


@dataclass(slots=True)
class BlockComparison:
    """Two candidate block shapes side by side (seed 001 Ex 9) and the better one.

    ``first.steps`` and ``second.steps`` hold each block's own derivation; ``steps`` holds only the
    comparison. ``better`` is "first", "second" or "tie"; ``reasons`` are keys such as
    ``fewer_idle_lanes`` and ``rows_aligned``.
    """

    first: BlockWarps
    second: BlockWarps
    better: str
    reasons: list[str]
    steps: list[Step] = field(default_factory=list)

    @property
    def better_block(self) -> tuple[int, int, int] | None:
        return {"first": self.first.block, "second": self.second.block}.get(self.better)

    def to_dict(self, *, with_steps: bool = False) -> dict[str, Any]:
        best = self.better_block
        out: dict[str, Any] = {
            "first": self.first.to_dict(with_steps=with_steps),
            "second": self.second.to_dict(with_steps=with_steps),
            "better": self.better, "better_block": list(best) if best else None,
            "reasons": list(self.reasons),
        }
        if with_steps:
            out["steps"] = [s.to_dict() for s in self.steps]
        return out


def compare_blocks(block_a: Any, block_b: Any, *, explain: bool = False) -> BlockComparison:
    """Which of two block shapes wastes fewer lanes, and keeps warps aligned with rows.

    Rule: the smaller idle-lane fraction wins (fractions, so blocks of different sizes compare
    fairly); on equal waste, the block whose rows are a multiple of 32 wide wins; else a tie.
    """
    a = block_warps(block_a, explain=explain)
    b = block_warps(block_b, explain=explain)
    reasons: list[str] = []
    if a.waste_fraction != b.waste_fraction:
        better = "first" if a.waste_fraction < b.waste_fraction else "second"
        reasons.append("fewer_idle_lanes")
        winner, loser = (a, b) if better == "first" else (b, a)
        if winner.rows_aligned and not loser.rows_aligned:
            reasons.append("rows_aligned")
    elif a.rows_aligned != b.rows_aligned:
        better = "first" if a.rows_aligned else "second"
        reasons.append("rows_aligned")
    else:
        better = "tie"
        reasons.append("same_waste_same_alignment")
    steps: list[Step] = []
    if explain:
        note = {"first": "first_better", "second": "second_better"}.get(better, "blocks_tie")
        if better != "tie" and reasons[0] == "rows_aligned":
            note = "alignment_breaks_tie"
        steps.append(Step("better_block", "waste_min",
                          {"f_a": a.waste_fraction, "f_b": b.waste_fraction},
                          min(a.waste_fraction, b.waste_fraction), "", "fewer_idle_lanes", note))
    return BlockComparison(a, b, better, reasons, steps)


# What-ifs and inverses on top of a block's warps (the level-3 questions) ----------------------


def smallest_full_block(linear: Any, *, explain: bool = False) -> tuple[int, list[Step]]:
    """The smallest block with no partial warp that still holds thread `linear`: its warp and
    every warp before it, 32·(⌊i/32⌋ + 1) threads."""
    i = require_int("linear_index", linear, minimum=0)
    size = WARP_SIZE * (i // WARP_SIZE + 1)
    steps = [Step("min_block_threads", "smallest_full_block", {"i": i}, size, "threads",
                  "smallest_full_block")] if explain else []
    return size, steps


@dataclass(slots=True)
class GlobalThread:
    """A thread found from its global index g = blockIdx.x·T + threadIdx.x in a 1D launch:
    its block, its index in the block, and the warp of that block it runs in."""

    global_index: int
    threads_per_block: int
    block: int
    index: int
    warp_id: int
    steps: list[Step] = field(default_factory=list)


def global_thread(global_index: Any, threads_per_block: Any, *,
                  explain: bool = False) -> GlobalThread:
    """Block first, then the warp: warps are cut inside each block, so the block's index
    comes off g before the division by 32 (⌊g/32⌋ numbers warps across the grid instead)."""
    g = require_int("global_index", global_index, minimum=0)
    T = require_int("threads_per_block", threads_per_block, minimum=1)
    b, i = divmod(g, T)
    k = i // WARP_SIZE
    steps = [Step("global_block", "block_of_global", {"g": g, "T": T}, b, "", "block_of_global"),
             Step("global_offset", "index_in_block", {"g": g, "T": T}, i, "", "index_in_block"),
             Step("global_warp", "warp_of", {"i": i}, k, "", "warp_of_global")] if explain else []
    return GlobalThread(g, T, b, i, k, steps)


def launch_idle_lanes(elements: Any, block: Any, *, explain: bool = False) -> tuple[int, int, list[Step]]:
    """A 1D launch of one thread per element: ⌈n/T⌉ blocks, and the lanes it leaves without an
    element, every launched lane minus the n elements (each block's partial-warp padding and
    the last block's threads past the end)."""
    n = require_int("elements", elements, minimum=1)
    bw = block_warps(block)
    blocks = ceiling(n, bw.threads)
    idle = blocks * bw.warps * WARP_SIZE - n
    steps = [Step("launch_blocks", "launch_blocks", {"n": n, "T": bw.threads}, blocks, "blocks",
                  "launch_blocks"),
             Step("launch_idle_lanes", "launch_idle_lanes", {"n": n, "T": bw.threads, "w": bw.warps},
                  idle, "lanes", "launch_idle_lanes")] if explain else []
    return blocks, idle, steps


def padded_block(block: Any, *, explain: bool = False) -> tuple[int, list[Step]]:
    """The block padded up to a whole number of warps: 32·w threads, still w warps (the padding
    only fills lanes the partial warp already took)."""
    w = block_warps(block).warps
    size = WARP_SIZE * w
    steps = [Step("padded_threads", "pad_to_warps", {"w": w}, size, "threads", "pad_to_warps")
             ] if explain else []
    return size, steps


def aligned_width(block: Any, *, explain: bool = False) -> tuple[int, list[Step]]:
    """The narrowest row width ≥ D_x at which every warp stays inside one row: 32·⌈D_x/32⌉ (a
    warp starts at 32k, so rows must start at multiples of 32 too)."""
    dx = block_shape(block)[0]
    width = WARP_SIZE * ceiling(dx, WARP_SIZE)
    steps = [Step("aligned_width", "aligned_width", {"D_x": dx}, width, "threads",
                  "aligned_width")] if explain else []
    return width, steps


def warp_slices(block: Any, warp_id: Any, *, explain: bool = False) -> tuple[int, list[Step]]:
    """How many z-slices warp `warp_id` touches (1: it stays in one slice)."""
    shape = block_shape(block)
    segs = warp_members(shape, warp_id)
    k = require_int("warp_id", warp_id, minimum=0)
    area, p = shape[0] * shape[1], _threads(shape)
    count = segs[-1].z - segs[0].z + 1
    steps = [Step("warp_slices", "slices_spanned", {"k": k, "P": p, "A": area}, count, "slices",
                  "slices_spanned")] if explain else []
    return count, steps


def threads_at_block_cap(block: Any, max_blocks: Any, max_warps: Any, *,
                         explain: bool = False) -> tuple[int, list[Step]]:
    """Threads an SM runs when it is filled with these blocks as far as the block-slot and warp
    caps allow (registers and shared memory aside): min(B_max, ⌊W_max/w⌋)·P."""
    bw = block_warps(block)
    b_max = require_int("max_blocks_per_sm", max_blocks, minimum=1)
    w_max = require_int("max_warps_per_sm", max_warps, minimum=1)
    threads = min(b_max, w_max // bw.warps) * bw.threads
    steps = [Step("threads_at_block_cap", "threads_at_block_cap",
                  {"B_max": b_max, "W_max": w_max, "w": bw.warps, "P": bw.threads}, threads,
                  "threads", "threads_at_block_cap")] if explain else []
    return threads, steps


def grid_idle_lanes(image: Any, block: Any, *, explain: bool = False) -> tuple[int, list[Step]]:
    """Lanes an image launch leaves without a pixel: every lane of every block launched minus
    the pixels. Both kinds count: the block's partial-warp padding, in every block, and the edge
    blocks' threads that fall outside the image (they are launched, and their lanes idle)."""
    width = require_int("image width", image[0], minimum=1)
    height = require_int("image height", image[1], minimum=1)
    bw = block_warps(block)
    dx, dy = bw.block[0], bw.block[1]
    blocks = ceiling(width, dx) * ceiling(height, dy)
    total = blocks * bw.warps * WARP_SIZE - width * height
    steps = [Step("square_grid_idle_lanes", "grid_idle_lanes",
                  {"X": width, "Y": height, "D_x": dx, "D_y": dy, "w": bw.warps},
                  total, "lanes", "grid_idle_lanes")] if explain else []
    return total, steps
