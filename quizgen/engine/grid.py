"""A grid across the GPU: block slots, idle SMs, waves and the ragged tail (seed 000 Ex 7).

The notes' model, used here:

* one wave = as many blocks as the GPU holds at once: slots = SMs × resident blocks per SM;
* the first blocks are handed out one per SM, so a grid smaller than the SM count lights
  min(grid, SMs) SMs and leaves the rest idle;
* waves = ⌈grid/slots⌉; the last wave holds the tail, grid − full waves × slots blocks (0 when the
  last wave is full);
* blocks go out breadth-first (CELLS.md; measured on an H200: 200 blocks that could fit 16 per
  SM land on all 132 SMs, at most 2 on any one): the tail's t blocks spread one per SM first, so
  min(t, SMs) SMs hold them, and the tail's cost is its share of the slots, t/slots. Packing the
  tail onto ⌈t/blocks per SM⌉ SMs (seed 000 Ex 7's "10 SMs") is the misconception `packed_tail`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from quizgen.engine.arith import ceiling
from quizgen.engine.derivation import Step
from quizgen.errors import require_int

#: Formulas of this module: name → (sympy source, {symbol: meaning}).
FORMULAS: dict[str, tuple[str, dict[str, str]]] = {
    "grid_slots": ("N_SM*B_SM", {
        "N_SM": "SMs on the GPU", "B_SM": "resident blocks per SM"}),
    "sms_with_blocks": ("Min(G, N_SM)", {"G": "blocks in the grid", "N_SM": "SMs on the GPU"}),
    "idle_sms": ("N_SM - U_SM", {"N_SM": "SMs on the GPU", "U_SM": "SMs that hold a block"}),
    "wave_count": ("ceiling(G/C_slots)", {
        "G": "blocks in the grid", "C_slots": "block slots of one wave"}),
    "full_waves": ("floor(G/C_slots)", {
        "G": "blocks in the grid", "C_slots": "block slots of one wave"}),
    "tail_blocks": ("G - F_w*C_slots", {
        "G": "blocks in the grid", "F_w": "full waves", "C_slots": "block slots of one wave"}),
    "tail_sms": ("Min(R_tail, N_SM)", {
        "R_tail": "blocks in the tail wave", "N_SM": "SMs on the GPU"}),
    "sm_utilisation": ("U_SM/N_SM", {"U_SM": "SMs that hold a block", "N_SM": "SMs on the GPU"}),
    "slot_utilisation": ("G/(N_waves*C_slots)", {
        "G": "blocks in the grid", "N_waves": "waves", "C_slots": "block slots of one wave"}),
    # a whole grid's threads and warps (PMPP ch. 4: "how many warps in the grid?")
    "grid_blocks": ("G_x*G_y*G_z", {"G_x": "gridDim.x", "G_y": "gridDim.y", "G_z": "gridDim.z"}),
    "grid_threads": ("G*P", {"G": "blocks in the grid", "P": "threads per block"}),
    "grid_warps": ("G*w", {"G": "blocks in the grid", "w": "warps in one block"}),
    "threads_past_end": ("G*P - n", {
        "G": "blocks in the grid", "P": "threads per block", "n": "elements, one thread each"}),
    "grid_padding_lanes": ("G*(32*w - P)", {
        "G": "blocks in the grid", "w": "warps in one block", "P": "threads per block"}),
}


@dataclass(slots=True)
class Waves:
    """How a grid of blocks runs on the whole GPU."""

    grid_blocks: int
    num_sms: int
    blocks_per_sm: int
    slots: int
    sms_with_blocks: int
    idle_sms: int
    waves: int
    full_waves: int
    tail_blocks: int
    tail_sms: int
    sm_utilisation: float
    slot_utilisation: float
    steps: list[Step] = field(default_factory=list)

    @property
    def tail_idle_sms(self) -> int:
        """SMs with nothing to do during the last wave (0 when it is full)."""
        return self.num_sms - self.tail_sms if self.tail_blocks else 0

    @property
    def tail_sm_utilisation(self) -> float:
        return self.tail_sms / self.num_sms if self.tail_blocks else 1.0

    @property
    def tail_utilisation(self) -> float:
        """The share of the block slots the last wave uses: t/slots (1 when it is full)."""
        return self.tail_blocks / self.slots if self.tail_blocks else 1.0

    @property
    def packed_tail_sms(self) -> int:
        """The misconception `packed_tail`: the tail packed B blocks per SM, ⌈t/B⌉ SMs."""
        return ceiling(self.tail_blocks, self.blocks_per_sm)

    @property
    def small_grid(self) -> bool:
        """Fewer blocks than SMs: some SMs get nothing at all."""
        return self.grid_blocks < self.num_sms

    def to_dict(self, *, with_steps: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            "grid_blocks": self.grid_blocks, "num_sms": self.num_sms,
            "blocks_per_sm": self.blocks_per_sm, "slots": self.slots,
            "sms_with_blocks": self.sms_with_blocks, "idle_sms": self.idle_sms,
            "waves": self.waves, "full_waves": self.full_waves, "tail_blocks": self.tail_blocks,
            "tail_sms": self.tail_sms, "tail_idle_sms": self.tail_idle_sms,
            "sm_utilisation": self.sm_utilisation, "slot_utilisation": self.slot_utilisation,
            "tail_sm_utilisation": self.tail_sm_utilisation,
            "tail_utilisation": self.tail_utilisation, "small_grid": self.small_grid,
        }
        if with_steps:
            out["steps"] = [s.to_dict() for s in self.steps]
        return out


def waves(grid_blocks: Any, num_sms: Any, blocks_per_sm: Any, *, explain: bool = False) -> Waves:
    """Slots, SMs used and idle, waves, the tail wave and utilisation for one launch."""
    G = require_int("grid_blocks", grid_blocks, minimum=1)
    S = require_int("num_sms", num_sms, minimum=1)
    B = require_int("blocks_per_sm", blocks_per_sm, minimum=1,
                    allowed="a whole number ≥ 1 (a block that cannot fit never launches)")
    slots = S * B
    used = min(G, S)
    idle = S - used
    n_waves = ceiling(G, slots)
    full = G // slots
    tail = G - full * slots
    tail_sms = min(tail, S)        # breadth-first: one block per SM first (0 when no tail)
    sm_util = used / S
    slot_util = G / (n_waves * slots)

    steps: list[Step] = []
    if explain:
        steps.append(Step("slots", "grid_slots", {"N_SM": S, "B_SM": B}, slots, "blocks",
                          "one_wave_capacity"))
        steps.append(Step("sms_with_blocks", "sms_with_blocks", {"G": G, "N_SM": S}, used, "SMs",
                          "one_block_per_sm_first", "too_few_blocks" if G < S else None))
        steps.append(Step("idle_sms", "idle_sms", {"N_SM": S, "U_SM": used}, idle, "SMs",
                          "blocks_are_the_unit", "idle_sms" if idle else None))
        steps.append(Step("waves", "wave_count", {"G": G, "C_slots": slots}, n_waves, "waves",
                          "rounds_of_blocks",
                          "single_wave" if n_waves == 1 else None if tail == 0 else "ragged_tail"))
        if n_waves > 1:
            steps.append(Step("full_waves", "full_waves", {"G": G, "C_slots": slots}, full, "waves",
                              "count_full_waves"))
            steps.append(Step("tail_blocks", "tail_blocks", {"G": G, "F_w": full, "C_slots": slots},
                              tail, "blocks", "leftover_blocks", None if tail else "no_tail"))
            if tail:
                # (the tail's share of the slots, t/slots, is checked in the Verify lines)
                steps.append(Step("tail_sms", "tail_sms", {"R_tail": tail, "N_SM": S}, tail_sms, "SMs",
                                  "tail_breadth_first", "tail_idle_sms" if tail_sms < S else None))
        steps.append(Step("sm_utilisation", "sm_utilisation", {"U_SM": used, "N_SM": S}, sm_util, "",
                          "share_of_sms", "grid_too_small" if G < S else None))
        steps.append(Step("slot_utilisation", "slot_utilisation",
                          {"G": G, "N_waves": n_waves, "C_slots": slots}, slot_util, "",
                          "average_over_waves"))
    return Waves(G, S, B, slots, used, idle, n_waves, full, tail, tail_sms, sm_util, slot_util, steps)


#: gridDim.x's limit (2^31 − 1, every compute capability from 3.0), and the most blocks in total
#: a count here takes.
MAX_GRID_DIM = (1 << 31) - 1
MAX_GRID_BLOCKS = 1 << 40


@dataclass(slots=True)
class GridCount:
    """A whole grid's blocks, threads and warps: every block brings its P threads in w warps, so
    the grid has G·P threads in G·w warps (warps are cut inside each block, never across blocks).
    With n elements (one thread each) the grid is ⌈n/P⌉ blocks and its last G·P − n threads
    have no element."""

    block: tuple[int, int, int]
    grid: tuple[int, int, int]
    blocks: int
    threads_per_block: int
    warps_per_block: int
    threads: int
    warps: int
    idle_lanes: int                 # launched lanes with no thread or no element
    elements: int | None = None
    past_end: int | None = None     # threads launched past the last element
    steps: list[Step] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"grid": list(self.grid), "grid_blocks": self.blocks,
                "threads_per_block": self.threads_per_block, "warps_per_block": self.warps_per_block,
                "grid_threads": self.threads, "grid_warps": self.warps,
                "idle_lanes": self.idle_lanes, "elements": self.elements,
                "threads_past_end": self.past_end}


def grid_count(block: Any, grid: Any = None, *, elements: Any = None,
               explain: bool = False) -> GridCount:
    """Threads and warps of a whole grid of `block`-shaped blocks: `grid` blocks (a count or
    gridDim x,y,z), or the ⌈n/P⌉ blocks a launch of one thread per element needs."""
    from quizgen.engine.warps import WARP_SIZE, block_shape, block_warps
    from quizgen.errors import QuizgenError

    if (grid is None) == (elements is None):
        raise QuizgenError("give the grid (blocks, or gridDim x,y,z) or the elements (one thread "
                           "each), one of them", field="grid")
    bw = block_warps(block)
    P, w = bw.threads, bw.warps
    steps: list[Step] = []
    n = past = None
    if elements is not None:
        n = require_int("elements", elements, minimum=1, maximum=1 << 40)
        G = ceiling(n, P)
        dims = (G, 1, 1)
        steps.append(Step("launch_blocks", "launch_blocks", {"n": n, "T": P}, G, "blocks",
                          "launch_blocks"))
    else:
        try:
            dims = block_shape(grid)
        except QuizgenError as exc:
            raise QuizgenError(str(exc)[len("block: "):].replace("32,8,1", "8 or 4,2,1"),
                               field="grid") from None
        G = dims[0] * dims[1] * dims[2]
        if max(dims) > MAX_GRID_DIM or G > MAX_GRID_BLOCKS:
            raise QuizgenError(f"got {grid!r}; a grid has at most {MAX_GRID_DIM:,} blocks along x "
                               "(and far fewer in total here)", field="grid")
        if dims[1] * dims[2] > 1:
            steps.append(Step("grid_blocks", "grid_blocks",
                              {"G_x": dims[0], "G_y": dims[1], "G_z": dims[2]}, G, "blocks",
                              "grid_blocks"))
    steps.append(Step("grid_threads", "grid_threads", {"G": G, "P": P}, G * P, "threads",
                      "grid_threads"))
    steps.append(Step("grid_warps", "grid_warps", {"G": G, "w": w}, G * w, "warps", "grid_warps",
                      None if P % WARP_SIZE == 0 else "grid_partial_warps"))
    if n is not None:
        past = G * P - n
        idle = G * w * WARP_SIZE - n
        steps.append(Step("threads_past_end", "threads_past_end", {"G": G, "P": P, "n": n}, past,
                          "threads", "threads_past_end"))
        steps.append(Step("launch_idle_lanes", "launch_idle_lanes", {"n": n, "T": P, "w": w}, idle,
                          "lanes", "launch_idle_lanes"))
    else:
        idle = G * (w * WARP_SIZE - P)
        if idle:
            steps.append(Step("grid_padding_lanes", "grid_padding_lanes", {"G": G, "w": w, "P": P},
                              idle, "lanes", "grid_padding_lanes"))
    return GridCount(bw.block, dims, G, P, w, G * P, G * w, idle, n, past,
                     steps if explain else [])
