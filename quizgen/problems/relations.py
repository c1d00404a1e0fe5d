"""How one answer follows from others: the compute functions that answer specs name.

Each function takes the values of its spec's ``depends_on`` (answers and parameters, by name) and
the problem's GPU, and returns the answer the solver gives for them, through the engine function
the solver calls where one exists. The grader feeds them a student's own earlier answers to give
carried-error credit; a test feeds them each problem's own answers and checks they give its record.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Mapping

from quizgen.engine import grid as grid_engine
from quizgen.engine import warps as warp_engine
from quizgen.engine.arith import ceiling
from quizgen.engine.warps import WARP_SIZE

V = Mapping[str, Any]


# Occupancy (the notes' lids; seed 000) -------------------------------------------------------


def textbook_blocks(v: V, gpu: Any) -> int:
    """Blocks per SM = the lowest lid, with the register lid from the registers one block takes
    and the warp lid from the warps one block has (seed 000, Example 1)."""
    rpb, w = Fraction(v["regs_per_block"]), Fraction(v["warps"])
    if rpb <= 0 or w <= 0:
        raise ValueError("a block takes registers and warps")
    s = v.get("smem_per_block") or 0
    lids = [math.floor(gpu.regs_per_sm / rpb), math.floor(gpu.max_warps_per_sm / w),
            gpu.max_blocks_per_sm]
    if s:
        lids.append(gpu.smem_per_sm // s)
    return min(lids)


def active_warps(v: V, gpu: Any) -> Any:
    """Resident warps = blocks per SM × warps per block."""
    return v["blocks_per_sm"] * v["warps"]


def occupancy_of(v: V, gpu: Any) -> Fraction:
    """Occupancy = active warps / the SM's maximum."""
    return min(Fraction(1), Fraction(v["active_warps"]) / gpu.max_warps_per_sm)


def occupancy_on(gpu_name: str):
    """Occupancy on a named GPU (one kernel on several GPUs)."""
    from quizgen.gpus import get_gpu

    def compute(v: V, gpu: Any) -> Fraction:
        return occupancy_of({"active_warps": v[f"active_warps_{gpu_name}"]}, get_gpu(gpu_name))
    return compute


def active_warps_on(gpu_name: str):
    def compute(v: V, gpu: Any) -> Any:
        return v[f"blocks_per_sm_{gpu_name}"] * warp_engine.block_warps(
            [v["threads_per_block"], 1, 1]).warps
    return compute


def warps_from_register_pool(v: V, gpu: Any) -> int:
    """Seed 004: ⌊R_SM / registers per warp⌋ warps, at most the SM's cap."""
    rpw = Fraction(v["regs_per_warp"])
    if rpw <= 0:
        raise ValueError("a warp takes registers")
    return min(math.floor(gpu.regs_per_sm / rpw), gpu.max_warps_per_sm)


# Warps of a block (seed 001) -----------------------------------------------------------------


def wasted_lanes(v: V, gpu: Any) -> Any:
    """Lanes the block's warps hold beyond its threads: warps × 32 − threads."""
    return v["warps"] * WARP_SIZE - v["threads_per_block"]


def wasted_lanes_of(prefix: str):
    """The same for one of two blocks compared (W-I), the square-looking one (its rows are not a
    multiple of 32) or the aligned one: its warps × 32 − its threads."""
    def compute(v: V, gpu: Any) -> Any:
        square = [b for b in v["blocks"] if b[0] % WARP_SIZE]
        block = (square[0] if prefix == "square" else
                 next(b for b in v["blocks"] if b is not square[0]))
        return v[f"{prefix}_warps"] * WARP_SIZE - block[0] * block[1] * block[2]
    return compute


def tail_active(v: V, gpu: Any) -> Any:
    """Threads in the partial warp: threads − 32 × full warps."""
    return v["threads_per_block"] - WARP_SIZE * v["full_warps"]


def lane_of(v: V, gpu: Any) -> Any:
    """A thread's lane: its linear index mod 32."""
    return v["linear_index"] % WARP_SIZE


# Waves of a grid (OCC-7; CELLS.md: blocks go out breadth-first) ------------------------------


def _waves(v: V, blocks_per_sm: Any) -> grid_engine.Waves:
    return grid_engine.waves(v["grid_blocks"], v["num_sms"], blocks_per_sm)


def slots(v: V, gpu: Any) -> int:
    return _waves(v, v["blocks_per_sm"]).slots


def waves_from_slots(v: V, gpu: Any) -> int:
    """⌈grid / slots⌉."""
    return ceiling(Fraction(v["grid_blocks"]), Fraction(_positive(v["slots"])))


def tail_from_slots(v: V, gpu: Any) -> int:
    """Blocks left for the last, partial wave: grid − ⌊grid / slots⌋ × slots."""
    c = _positive(v["slots"])
    return v["grid_blocks"] - (v["grid_blocks"] // c) * c


def tail_sms(v: V, gpu: Any) -> int:
    return _waves(v, v["blocks_per_sm"]).tail_sms


def _positive(value: Any) -> Any:
    if value <= 0:
        raise ValueError("must be positive")
    return value


# Latency hiding (CELLS.md: Little's law per scheduler) ---------------------------------------


def deficit(v: V, gpu: Any) -> Any:
    """Warps short of the need under the SM's cap."""
    return max(v["warps_needed"] - gpu.max_warps_per_sm, 0)


def hidable(v: V, gpu: Any) -> bool:
    return v["warps_needed"] <= gpu.max_warps_per_sm


def occupancy_needed(v: V, gpu: Any) -> Fraction:
    return Fraction(v["warps_needed"]) / gpu.max_warps_per_sm


def sm_warps(v: V, gpu: Any) -> int:
    """Every scheduler needs its own warps: N_sched × one scheduler's warps (never ÷ N_sched)."""
    return v["schedulers"] * v["warps_per_scheduler"]


def coverage(v: V, gpu: Any) -> Fraction:
    """The share of the need that the SM's cap of warps supplies."""
    return Fraction(gpu.max_warps_per_sm) / _positive(v["warps_needed"])


def ilp_factor(v: V, gpu: Any) -> int:
    """The smallest whole k that brings one scheduler's warps within its share of the cap,
    ⌈n_s / ⌊cap / N_sched⌋⌉ (1 when the need already fits)."""
    n_s, n_sched = v["warps_per_scheduler"], v["schedulers"]
    share = gpu.max_warps_per_sm // _positive(n_sched)
    if n_sched * n_s <= gpu.max_warps_per_sm or share == 0:
        return 1
    return ceiling(Fraction(n_s), Fraction(share))


def warps_with_ilp(v: V, gpu: Any) -> int:
    """N_sched × ⌈n_s / k⌉."""
    return v["schedulers"] * ceiling(Fraction(v["warps_per_scheduler"]),
                                     Fraction(_positive(v["ilp_factor"])))


def intensity(v: V, gpu: Any) -> Fraction:
    """FLOP per byte moved."""
    return Fraction(v["flops"]) / _positive(v["bytes_moved"])


def critical_path(v: V, gpu: Any) -> Any:
    """The load's latency, then the compute (the store retires asynchronously)."""
    return v["latency"] + v["compute_cycles"]


def spare_warps(v: V, gpu: Any) -> Any:
    return max(v["resident_warps"] - v["plateau_warps"], 0)


# Divergence ----------------------------------------------------------------------------------


def slowdown(v: V, gpu: Any) -> Fraction:
    """Serialised time / convergent time."""
    return Fraction(v["divergent_time"]) / _positive(v["baseline"])


def speed_ratio(v: V, gpu: Any) -> Fraction:
    return Fraction(v["time_y"]) / _positive(v["time_x"])
