"""One step past an occupancy answer: a what-if, an inverse or a design choice (the notes' model).

A student who can compute occupancy is next asked what a change does, or what change reaches a
goal: two more registers per thread (seed 000 Example 2's cliff), the most registers or shared
memory per block that let one more block in, the smallest block that reaches the SM's warp
ceiling, the registers at which a block that does not fit would fit, the warps that reach a
target latency-hiding efficiency, the grid that fills whole waves, the share of lane slots that
do useful work. Each function returns its answer and the steps that derive it; the answer is
checked against the occupancy engine where one applies (the closed form and the engine agree).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from quizgen.engine.arith import ceiling
from quizgen.engine.derivation import Step
from quizgen.engine.occupancy import LaunchConfig, OccupancyResult, occupancy
from quizgen.gpus import GPU

#: Formulas of this module: name → (sympy source, {symbol: meaning}).
#: The what-ifs whose result is an occupancy: written with its percentage (0.78125 = 78.125%).
SHARES = frozenset({"whatif_occupancy", "useful_occupancy"})

FORMULAS: dict[str, tuple[str, dict[str, str]]] = {
    "whatif_regs_lid": ("floor(R_SM/(T*(r + d)))", {
        "R_SM": "registers per SM", "T": "threads per block", "r": "registers per thread",
        "d": "registers added per thread"}),
    "whatif_blocks": ("Min(B_new, B_rest)", {
        "B_new": "the changed lid", "B_rest": "the lowest of the other lids"}),
    "whatif_occupancy": ("B*w/W_max", {
        "B": "resident blocks after the change", "w": "warps per block",
        "W_max": "max warps per SM"}),
    "next_block_regs": ("floor(R_SM/((B + 1)*T))", {
        "R_SM": "registers per SM", "B": "resident blocks now", "T": "threads per block"}),
    "next_block_smem": ("floor(S_SM/(B + 1))", {
        "S_SM": "shared memory per SM (B)", "B": "resident blocks now"}),
    "block_for_ceiling": ("32*ceiling(W_max/B_max)", {
        "W_max": "max warps per SM", "B_max": "max resident blocks per SM"}),
    "regs_to_fit": ("floor(R_SM/T)", {"R_SM": "registers per SM", "T": "threads per block"}),
    "warps_for_efficiency": ("N_sched*ceiling(E*L)", {
        "N_sched": "warp schedulers per SM", "E": "target efficiency",
        "L": "stall latency (cycles)"}),
    "full_wave_grid": ("C*ceiling(G/C)", {"C": "block slots in one wave", "G": "blocks in the grid"}),
    "useful_occupancy": ("O*U", {"O": "occupancy", "U": "lane utilisation"}),
}


def next_block_regs(regs_per_sm: int, blocks: int, threads: int) -> int:
    """⌊R_SM/((B + 1)·T)⌋: the most registers per thread at which B + 1 blocks fit by registers."""
    return regs_per_sm // ((blocks + 1) * threads)


def next_block_smem(smem_per_sm: int, blocks: int) -> int:
    """⌊S_SM/(B + 1)⌋: the most shared memory per block at which B + 1 blocks fit."""
    return smem_per_sm // (blocks + 1)


def ceiling_block(max_warps: int, max_blocks: int) -> int:
    """32·⌈W_max/B_max⌉: the smallest block whose B_max blocks reach the warp ceiling."""
    return 32 * ceiling(max_warps, max_blocks)


def fit_regs(regs_per_sm: int, threads: int) -> int:
    """⌊R_SM/T⌋: the most registers per thread at which one block of T threads fits."""
    return regs_per_sm // threads


def efficiency_warps(latency: int, target: Any, schedulers: int = 1) -> int:
    """N_sched·⌈E·L⌉: the fewest warps at which η(N) = min(N, N_sched·L)/(N_sched·L) reaches E,
    shared out evenly (each scheduler needs ⌈E·L⌉ of its own)."""
    return schedulers * math.ceil(Fraction(target).limit_denominator(1000) * latency)


def wave_grid(grid_blocks: int, slots: int) -> int:
    """C·⌈G/C⌉: the smallest grid of at least G blocks whose waves are all full."""
    return slots * ceiling(grid_blocks, slots)


@dataclass(slots=True)
class Change:
    """The answer of one level-3 step, the occupancy it leads to (when it is an occupancy
    question) and the derivation."""

    value: Any
    after: OccupancyResult | None = None
    steps: list[Step] = field(default_factory=list)


def _rest(result: OccupancyResult, *dropped: str) -> int:
    """The lowest of the lids other than `dropped` (warps and the block cap always count)."""
    return min(v for k, v in result.limits.items() if v is not None and k not in dropped)


def _occupancy_step(after: OccupancyResult, why: str) -> Step:
    return Step("occupancy_after", "whatif_occupancy",
                {"B": after.blocks_per_sm, "w": after.warps_per_block,
                 "W_max": after.max_warps_per_sm}, after.occupancy, "", why)


def more_registers(gpu: GPU, config: LaunchConfig, extra: int) -> Change:
    """What `extra` more registers per thread do to blocks and occupancy (textbook model)."""
    before = occupancy(gpu, config, model="textbook")
    r, T = config.regs_per_thread, config.threads_per_block
    changed = LaunchConfig(T, r + extra, config.smem_per_block, config.dyn_smem, config.optin,
                           config.carveout, config.barriers, config.block)
    after = occupancy(gpu, changed, model="textbook")
    lid = after.limits["registers"]
    rest = _rest(before, "registers")
    steps = [
        Step("regs_lid_after", "whatif_regs_lid", {"R_SM": gpu.regs_per_sm, "T": T, "r": r, "d": extra},
             lid, "blocks", "whatif_register_lid"),
        Step("blocks_after", "whatif_blocks", {"B_new": lid, "B_rest": rest}, after.blocks_per_sm,
             "blocks", "whatif_blocks"),
        _occupancy_step(after, "whatif_occupancy"),
    ]
    return Change(after.occupancy, after, steps)


def regs_for_next_block(gpu: GPU, config: LaunchConfig) -> Change:
    """The most registers per thread at which one more block fits by registers (textbook)."""
    before = occupancy(gpu, config, model="textbook")
    B, T = before.blocks_per_sm, config.threads_per_block
    r_new = next_block_regs(gpu.regs_per_sm, B, T)
    after = occupancy(gpu, LaunchConfig(T, r_new, config.smem_per_block, config.dyn_smem,
                                        block=config.block), model="textbook")
    steps = [
        Step("regs_next_block", "next_block_regs", {"R_SM": gpu.regs_per_sm, "B": B, "T": T},
             r_new, "registers", "next_block_regs"),
        _occupancy_step(after, "occupancy_at_new_regs"),
    ]
    return Change(r_new, after, steps)


def smem_for_next_block(gpu: GPU, config: LaunchConfig) -> Change:
    """The most shared memory per block at which one more block fits by shared memory."""
    before = occupancy(gpu, config, model="textbook")
    B = before.blocks_per_sm
    s_new = next_block_smem(gpu.smem_per_sm, B)
    after = occupancy(gpu, LaunchConfig(config.threads_per_block, config.regs_per_thread, s_new,
                                        block=config.block), model="textbook")
    steps = [
        Step("smem_next_block", "next_block_smem", {"S_SM": gpu.smem_per_sm, "B": B}, s_new, "B",
             "next_block_smem"),
        _occupancy_step(after, "occupancy_at_new_smem"),
    ]
    return Change(s_new, after, steps)


def block_for_ceiling(gpu: GPU, config: LaunchConfig) -> Change:
    """The smallest block (whole warps) whose blocks can fill the warp ceiling without the
    block cap stopping them first: 32·⌈W_max/B_max⌉ threads, checked with the engine."""
    W, cap = gpu.max_warps_per_sm, gpu.max_blocks_per_sm
    T_new = ceiling_block(W, cap)
    after = occupancy(gpu, LaunchConfig(T_new, config.regs_per_thread, config.smem_per_block,
                                        config.dyn_smem), model="textbook")
    steps = [
        Step("block_for_ceiling", "block_for_ceiling", {"W_max": W, "B_max": cap}, T_new, "threads",
             "block_for_ceiling"),
        _occupancy_step(after, "occupancy_at_new_block"),
    ]
    return Change(T_new, after, steps)


def regs_to_fit(gpu: GPU, config: LaunchConfig) -> Change:
    """The most registers per thread at which one block of this size fits (textbook)."""
    T = config.threads_per_block
    r_new = fit_regs(gpu.regs_per_sm, T)
    after = occupancy(gpu, LaunchConfig(T, r_new, block=config.block), model="textbook")
    steps = [
        Step("regs_to_fit", "regs_to_fit", {"R_SM": gpu.regs_per_sm, "T": T}, r_new, "registers",
             "regs_to_fit"),
        _occupancy_step(after, "occupancy_at_fit"),
    ]
    return Change(r_new, after, steps)


def loosen_tied_lid(gpu: GPU, config: LaunchConfig) -> Change:
    """Loosen one resource of a tie just enough for one more block (registers if they tie, else
    shared memory) and count the blocks then: another lid of the tie still holds them."""
    before = occupancy(gpu, config, model="textbook")
    if "registers" in before.limiter:
        first = regs_for_next_block(gpu, config)
        dropped = "registers"
        lid = first.after.limits["registers"]
    else:
        first = smem_for_next_block(gpu, config)
        dropped = "shared_memory"
        lid = first.after.limits["shared_memory"]
    after = first.after
    rest = _rest(before, dropped)
    steps = [first.steps[0],
             Step("blocks_after", "whatif_blocks", {"B_new": lid, "B_rest": rest},
                  after.blocks_per_sm, "blocks", "tie_still_binds")]
    return Change(after.blocks_per_sm, after, steps)


def warps_for_efficiency(latency: int, target: Fraction | float, schedulers: int = 1) -> Change:
    """The fewest resident warps at which the SM's η(N) reaches `target`."""
    E = Fraction(target).limit_denominator(1000)
    N = efficiency_warps(latency, E, schedulers)
    steps = [Step("warps_for_target", "warps_for_efficiency",
                  {"N_sched": schedulers, "E": float(E), "L": latency}, N,
                  "warps", "warps_for_efficiency")]
    return Change(N, None, steps)


def full_wave_grid(grid_blocks: int, slots: int) -> Change:
    """The smallest grid of at least `grid_blocks` blocks whose every wave is full."""
    G_new = wave_grid(grid_blocks, slots)
    steps = [Step("full_wave_grid", "full_wave_grid", {"C": slots, "G": grid_blocks}, G_new,
                  "blocks", "full_wave_grid")]
    return Change(G_new, None, steps)


def useful_occupancy(occ: float, utilisation: float) -> Change:
    """The share of the SM's lane slots that do useful work: occupancy × lane utilisation."""
    value = occ * utilisation
    steps = [Step("useful_occupancy", "useful_occupancy",
                  {"O": occ, "U": utilisation}, value, "", "useful_occupancy")]
    return Change(value, None, steps)
