"""Divergence worked out from the code: a branch, a thread-dependent loop, a reduction's strides.

Every count here is the warps' own (CELLS.md, *Divergence, loops, barriers*):

* a warp is *active* for a statement when at least one of its lanes executes it; it *diverges*
  at a branch when the lanes that reach the branch disagree. A partial tail warp's missing
  lanes, and lanes that left through an earlier exit, are idle, never a side of the split;
* SIMD efficiency of a warp for one statement is the lanes that execute it ÷ 32 (an issuing
  warp occupies all 32 lanes); over a region it is useful lane-work ÷ (32 × issued work);
* a divergent warp issues every taken path in turn: its time is the sum of their costs;
* a loop runs, in each warp, as many iterations as the warp's longest lane; iteration k
  diverges where some lanes still run it and others have finished (a lane that never entered
  has finished);
* a reduction's iteration issues the add once per warp with at least one active lane.

The step-by-step derivations of these results are in `quizgen.engine.code_steps`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from quizgen.engine import threads as th
from quizgen.engine.derivation import Step
from quizgen.engine.threads import WARP, Code, Launch
from quizgen.errors import QuizgenError

BIG = 1 << 40


# ---------------------------------------------------------------------------------------------
# A branch


@dataclass(slots=True)
class Branching:
    """Per warp (blocks × warps): lanes that reach the branch and lanes that take its if-path."""

    code: Code
    cond: th.Expr
    exit: th.Expr | None
    reach: np.ndarray
    take: np.ndarray
    steps: list[Step] = field(default_factory=list)
    codes: np.ndarray | None = None       # per evaluated thread, its path's byte (lane_paths)
    codes_per_block: bool = False

    @property
    def launch(self) -> Launch:
        return self.code.launch

    @property
    def present(self) -> np.ndarray:
        return self.launch.present()

    @property
    def other(self) -> np.ndarray:
        """Lanes that reach the branch and take the else-path (or skip the if)."""
        return self.reach - self.take

    @property
    def warps_reached(self) -> int:
        return int((self.reach > 0).sum())

    @property
    def then_warps(self) -> int:
        """Active warps for the if-path's statements."""
        return int((self.take > 0).sum())

    @property
    def else_warps(self) -> int:
        return int((self.other > 0).sum())

    @property
    def all_take_warps(self) -> int:
        return int(((self.take > 0) & (self.other == 0)).sum())

    @property
    def divergent_warps(self) -> int:
        return int(((self.take > 0) & (self.other > 0)).sum())

    @property
    def divergent_blocks(self) -> int:
        """Blocks holding at least one divergent warp (what counting per block gives)."""
        return int(((self.take > 0) & (self.other > 0)).any(axis=1).sum())

    @property
    def threads_taking(self) -> int:
        return int(self.take.sum())

    @property
    def threads_reaching(self) -> int:
        return int(self.reach.sum())

    def warp(self, block: int, warp: int) -> "WarpBranch":
        la = self.launch
        if not 0 <= block < la.blocks or not 0 <= warp < la.warps_per_block:
            raise QuizgenError(f"warp {warp} of block {block} is not in a launch of {la.blocks} "
                               f"block(s) of {la.warps_per_block} warp(s)", field="warp")
        return WarpBranch(block, warp, int(self.present[warp]), int(self.reach[block, warp]),
                          int(self.take[block, warp]))

    def to_dict(self) -> dict[str, Any]:
        return {"launch": self.launch.to_dict(), "condition": self.cond.text,
                "exit": self.exit.text if self.exit else None,
                "warps_reached": self.warps_reached, "then_warps": self.then_warps,
                "else_warps": self.else_warps, "divergent_warps": self.divergent_warps,
                "divergent_blocks": self.divergent_blocks, "threads_taking": self.threads_taking,
                "threads_reaching": self.threads_reaching}


@dataclass(frozen=True, slots=True)
class WarpBranch:
    """One warp at the branch: lanes present, reaching the branch, taking the if-path."""

    block: int
    warp: int
    present: int
    reach: int
    take: int

    @property
    def other(self) -> int:
        return self.reach - self.take

    @property
    def divergent(self) -> bool:
        return self.take > 0 and self.other > 0

    @property
    def simd_then(self) -> float:
        return self.take / WARP

    @property
    def simd_else(self) -> float:
        return self.other / WARP

    def time(self, then_cost: int, else_cost: int) -> int:
        """Cycles the warp spends on the branch: every path some lane takes, one after another."""
        return then_cost * (self.take > 0) + else_cost * (self.other > 0)

    def region_efficiency(self, then_cost: int, else_cost: int) -> float:
        issued = self.time(then_cost, else_cost)
        return (self.take * then_cost + self.other * else_cost) / (WARP * issued) if issued else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"block": self.block, "warp": self.warp, "present": self.present,
                "reach": self.reach, "take": self.take, "other": self.other,
                "divergent": self.divergent, "simd_then": self.simd_then,
                "simd_else": self.simd_else}


def _flags(c: Code, expr: th.Expr, chunk: th.Chunk, live: Any, field_name: str) -> np.ndarray:
    size = chunk.count * c.launch.threads_per_block
    value = th.run(expr, chunk.env, c, chunk.first, live, field_name)
    return th.per_thread(value, size) != 0


def _path_codes(live: np.ndarray, take: np.ndarray) -> np.ndarray:
    """Per thread, the byte of its path: T (if), E (else), X (left at the earlier exit)."""
    codes = np.full(live.shape, ord("E"), dtype=np.uint8)
    codes[take] = ord("T")
    codes[~live] = ord("X")
    return codes


def branching(c: Code, cond: str | th.Expr, exit: str | th.Expr | None = None) -> Branching:
    """Evaluate `cond` (and the earlier `exit`, whose lanes leave before the branch) for every
    thread of the launch and count, per warp, the lanes that reach the branch and take it."""
    cond_e = cond if isinstance(cond, th.Expr) else c.parse(cond, "if")
    exit_e = exit if isinstance(exit, th.Expr) or exit is None else c.parse(exit, "exit")
    la = c.launch
    per_block = c.reads_block_index(cond_e) or (exit_e is not None and c.reads_block_index(exit_e))
    reach_rows, take_rows, codes = [], [], []
    for chunk in th.chunks(c, per_block=per_block):
        size = chunk.count * la.threads_per_block
        live = ~_flags(c, exit_e, chunk, None, "exit") if exit_e is not None else np.ones(size, bool)
        take = _flags(c, cond_e, chunk, live, "if") & live
        reach_rows.append(th.by_warp(live, la, chunk.count, False).sum(axis=2))
        take_rows.append(th.by_warp(take, la, chunk.count, False).sum(axis=2))
        codes.append(_path_codes(live, take))
    reach, take = np.concatenate(reach_rows), np.concatenate(take_rows)
    if not per_block:
        reach, take = th.broadcast_blocks(reach, la), th.broadcast_blocks(take, la)
    out = Branching(c, cond_e, exit_e, reach, take)
    if len(codes) == 1:                 # every block evaluated at once: keep their lanes' paths
        out.codes, out.codes_per_block = codes[0], per_block
    return out


def lane_paths(c: Code, cond: th.Expr, exit: th.Expr | None, block: int,
               b: Branching | None = None) -> list[str]:
    """Each lane of every warp of `block` by path: "T" takes the if-path, "E" the else, "X" left
    at the earlier exit, "." absent (past the end of a partial warp): a string of 32 per warp.
    With `b` (the launch's `branching`), its kept paths are read instead of evaluating again."""
    la = c.launch
    T = la.threads_per_block
    if b is not None and b.codes is not None:
        at = block if b.codes_per_block else 0
        codes = b.codes[at * T:(at + 1) * T]
    else:
        chunk = next(th.chunks(c, per_block=True, only=block))
        live = ~_flags(c, exit, chunk, None, "exit") if exit is not None else np.ones(T, bool)
        codes = _path_codes(live, _flags(c, cond, chunk, live, "if") & live)
    W = la.warps_per_block
    text = codes.tobytes().decode("ascii") + "." * (W * WARP - T)
    return [text[w * WARP:(w + 1) * WARP] for w in range(W)]


# ---------------------------------------------------------------------------------------------
# A thread-dependent loop


@dataclass(slots=True)
class LoopWarps:
    """Per warp (blocks × warps): the shortest and longest trip count of its lanes, their sum,
    and the trip counts of every lane (sorted) for per-iteration counts."""

    code: Code
    trip: th.Expr
    t_min: np.ndarray
    t_max: np.ndarray
    t_sum: np.ndarray
    sorted_trips: np.ndarray
    steps: list[Step] = field(default_factory=list)
    trips: np.ndarray | None = None       # per evaluated thread, its trip count (lane_trips)
    trips_per_block: bool = False

    @property
    def launch(self) -> Launch:
        return self.code.launch

    @property
    def issued(self) -> int:
        """Iterations issued over all warps: each warp runs its longest lane's count."""
        return int(self.t_max.sum())

    @property
    def useful(self) -> int:
        """Lane-iterations of real work: every lane's own trip count."""
        return int(self.t_sum.sum())

    @property
    def efficiency(self) -> float:
        return self.useful / (WARP * self.issued) if self.issued else 0.0

    @property
    def divergent_iterations(self) -> int:
        """Warp-iterations in which the warp diverges (some lanes done, some still running)."""
        return int((self.t_max - self.t_min).sum())

    def running(self, k: int) -> int:
        """Warps still running iteration k (1-based)."""
        return int((self.t_max >= k).sum())

    def full(self, k: int) -> int:
        """Warps whose every lane still runs iteration k."""
        return int((self.t_min >= k).sum())

    def diverging(self, k: int) -> int:
        return self.running(k) - self.full(k)

    def lanes_running(self, k: int) -> int:
        s = self.sorted_trips
        return int(len(s) - np.searchsorted(s, k, side="left"))

    def breakpoints(self) -> list[int]:
        """The iterations where the running or diverging warps change: 1, and one past each
        warp's shortest and longest trip count (the counts are constant between them)."""
        points = {1} | {int(v) + 1 for v in np.unique(self.t_min)} | {int(v) + 1 for v in np.unique(self.t_max)}
        top = int(self.t_max.max()) if self.t_max.size else 0
        return sorted(p for p in points if 1 <= p <= top)

    def to_dict(self) -> dict[str, Any]:
        top = int(self.t_max.max()) if self.t_max.size else 0
        return {"launch": self.launch.to_dict(), "trip": self.trip.text, "issued": self.issued,
                "useful": self.useful, "efficiency": self.efficiency,
                "divergent_iterations": self.divergent_iterations, "longest": top,
                "iterations": [{"from": k, "running": self.running(k), "diverging": self.diverging(k),
                                "lanes": self.lanes_running(k)} for k in self.breakpoints()]}


def loop_warps(c: Code, trip: str | th.Expr) -> LoopWarps:
    """``for (int k = 0; k < TRIP; k++)``: each lane's trip count (a negative one runs no
    iteration) and, per warp, the shortest, the longest and their sum."""
    trip_e = trip if isinstance(trip, th.Expr) else c.parse(trip, "loop")
    la = c.launch
    per_block = c.reads_block_index(trip_e)
    mins, maxs, sums, every = [], [], [], []
    for chunk in th.chunks(c, per_block=per_block):
        size = chunk.count * la.threads_per_block
        trips = np.maximum(th.per_thread(th.run(trip_e, chunk.env, c, chunk.first, None, "loop"),
                                         size), 0)
        mins.append(th.by_warp(trips, la, chunk.count, BIG).min(axis=2))
        maxs.append(th.by_warp(trips, la, chunk.count, 0).max(axis=2))
        sums.append(th.by_warp(trips, la, chunk.count, 0).sum(axis=2))
        every.append(trips)
    t_min, t_max, t_sum = np.concatenate(mins), np.concatenate(maxs), np.concatenate(sums)
    trips_all = np.sort(np.concatenate(every))
    if not per_block:
        t_min, t_max, t_sum = (th.broadcast_blocks(a, la) for a in (t_min, t_max, t_sum))
        trips_all = np.repeat(trips_all, la.blocks) if la.blocks > 1 else trips_all
    out = LoopWarps(c, trip_e, t_min, t_max, t_sum, trips_all)
    if len(every) == 1:                 # every block evaluated at once: keep each lane's trips
        out.trips, out.trips_per_block = every[0], per_block
    return out


def lane_trips(c: Code, trip: th.Expr, block: int, lw: LoopWarps | None = None) -> list[list[int]]:
    """Each lane's trip count in every warp of `block` (absent lanes left out); with `lw` (the
    launch's `loop_warps`), its kept trips are read instead of evaluating again."""
    T = c.launch.threads_per_block
    if lw is not None and lw.trips is not None:
        at = block if lw.trips_per_block else 0
        trips = lw.trips[at * T:(at + 1) * T]
    else:
        chunk = next(th.chunks(c, per_block=True, only=block))
        trips = np.maximum(th.per_thread(th.run(trip, chunk.env, c, block, None, "loop"), T), 0)
    values = trips.tolist()
    return [values[w * WARP:(w + 1) * WARP] for w in range(c.launch.warps_per_block)]


# ---------------------------------------------------------------------------------------------
# A reduction's strides

#: The two classic addressings as (loop, condition): the stride loop and the guard of the add.
REDUCTIONS = {
    "interleaved": ("for (unsigned int s = 1; s < blockDim.x; s *= 2)", "t % (2*s) == 0"),
    "sequential": ("for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1)", "t < s"),
}


@dataclass(frozen=True, slots=True)
class Stride:
    """One iteration of a reduction: its stride and, per warp, the lanes that add."""

    iteration: int
    stride: int
    active: tuple[int, ...]          # active lanes per warp
    present: tuple[int, ...]

    @property
    def active_threads(self) -> int:
        return sum(self.active)

    @property
    def active_warps(self) -> int:
        return sum(1 for a in self.active if a)

    @property
    def full_warps(self) -> int:
        return sum(1 for a, p in zip(self.active, self.present) if a == p)

    @property
    def divergent_warps(self) -> int:
        return sum(1 for a, p in zip(self.active, self.present) if 0 < a < p)

    def to_dict(self) -> dict[str, Any]:
        return {"iteration": self.iteration, "stride": self.stride,
                "active_threads": self.active_threads, "active_warps": self.active_warps,
                "divergent_warps": self.divergent_warps}


@dataclass(slots=True)
class Reduction:
    kind: str
    threads: int
    blocks: int
    strides: tuple[Stride, ...]
    steps: list[Step] = field(default_factory=list)

    @property
    def issued(self) -> int:
        """Warp-instructions of the add over one block: active warps summed over iterations."""
        return sum(s.active_warps for s in self.strides)

    @property
    def useful(self) -> int:
        return sum(s.active_threads for s in self.strides)

    @property
    def efficiency(self) -> float:
        return self.useful / (WARP * self.issued) if self.issued else 0.0

    @property
    def divergent_iterations(self) -> list[int]:
        return [s.iteration for s in self.strides if s.divergent_warps]

    @property
    def first_divergent(self) -> int | None:
        found = self.divergent_iterations
        return found[0] if found else None

    def at(self, iteration: int) -> Stride:
        if not 1 <= iteration <= len(self.strides):
            raise QuizgenError(f"got iteration {iteration}; the loop runs {len(self.strides)} "
                               "iterations (1 is the first)", field="iteration")
        return self.strides[iteration - 1]

    def to_dict(self) -> dict[str, Any]:
        return {"reduction": self.kind, "threads_per_block": self.threads, "blocks": self.blocks,
                "loop": REDUCTIONS[self.kind][0], "condition": REDUCTIONS[self.kind][1],
                "issued": self.issued, "grid_issued": self.issued * self.blocks,
                "useful": self.useful, "efficiency": self.efficiency,
                "divergent_iterations": self.divergent_iterations,
                "iterations": [s.to_dict() for s in self.strides]}


def strides_of(kind: str, threads: int) -> list[int]:
    """The strides the loop takes, as written: 1, 2, 4, … below T, or T/2, T/4, … down to 1."""
    if kind == "interleaved":
        out, s = [], 1
        while s < threads:
            out.append(s)
            s *= 2
        return out
    out, s = [], threads // 2
    while s > 0:
        out.append(s)
        s >>= 1
    return out


def reduction(kind: str, threads: int, blocks: int = 1) -> Reduction:
    """The reduction loop over one block of `threads` (every block runs the same), its
    condition evaluated for every thread at every stride."""
    if kind not in REDUCTIONS:
        raise QuizgenError(f"got {kind!r}; expected one of: {', '.join(REDUCTIONS)}",
                           field="reduction")
    la = th.launch(threads, blocks)
    if la.block[1] != 1 or la.block[2] != 1:
        raise QuizgenError("a reduction here runs over a 1-D block", field="block")
    c = th.code(la, ["unsigned int t = threadIdx.x"])
    types = dict(c.types, s="unsigned")
    cond = th.cexpr.parse_expression(REDUCTIONS[kind][1], types, field="reduction")
    chunk = next(th.chunks(c, per_block=False))
    present = tuple(int(p) for p in la.present())
    out = []
    for k, s in enumerate(strides_of(kind, threads), 1):
        env = dict(chunk.env, s=s)
        flags = th.per_thread(th.run(cond, env, c, 0, None, "reduction"), threads) != 0
        active = th.by_warp(flags, la, 1, False).sum(axis=2)[0]
        out.append(Stride(k, s, tuple(int(a) for a in active), present))
    return Reduction(kind, threads, la.blocks, tuple(out))


# ---------------------------------------------------------------------------------------------
# Barriers: whose write each thread reads


@dataclass(slots=True)
class Partners:
    """Thread t writes its own slot, then reads the slot thread `partner(t)` wrote: per thread,
    whether that is itself, another lane of its warp, or a thread of another warp."""

    code: Code
    partner: th.Expr
    own: int
    same_warp: int
    cross_warp: int
    cross_by_warp: tuple[int, ...]
    kinds: tuple[str, ...]           # per thread: "o" own slot, "w" its warp, "x" another warp
    who: tuple[int, ...] = ()        # per thread: the thread whose slot it reads
    steps: list[Step] = field(default_factory=list)

    @property
    def barrier(self) -> str:
        """The least barrier between the write and the read: none, __syncwarp(), __syncthreads()."""
        if self.cross_warp:
            return "syncthreads"
        return "syncwarp" if self.same_warp else "none"

    def to_dict(self) -> dict[str, Any]:
        return {"launch": self.code.launch.to_dict(), "partner": self.partner.text,
                "own": self.own, "same_warp": self.same_warp, "cross_warp": self.cross_warp,
                "barrier": self.barrier}


def partners(c: Code, partner: str | th.Expr) -> Partners:
    """Evaluate the partner's linear index in the block for every thread of one block."""
    expr = partner if isinstance(partner, th.Expr) else c.parse(partner, "partner")
    if c.reads_block_index(expr):
        raise QuizgenError("the slot a thread reads must be one of its own block's (shared "
                           "memory is per block); leave blockIdx out", field="partner")
    la = c.launch
    T = la.threads_per_block
    chunk = next(th.chunks(c, per_block=False))
    who = th.per_thread(th.run(expr, chunk.env, c, 0, None, "partner"), T)
    bad = (who < 0) | (who >= T)
    if bad.any():
        at = int(np.flatnonzero(bad)[0])
        raise QuizgenError(f"thread {at} would read slot {int(who[at])}, which no thread of a "
                           f"{T}-thread block writes", field="partner")
    me = np.arange(T)
    own = who == me
    same = ~own & (who // WARP == me // WARP)
    cross = ~own & ~same
    kinds = np.where(own, "o", np.where(same, "w", "x"))
    per_warp = th.by_warp(cross, la, 1, False).sum(axis=2)[0]
    return Partners(c, expr, int(own.sum()), int(same.sum()), int(cross.sum()),
                    tuple(int(v) for v in per_warp), tuple(str(k) for k in kinds),
                    tuple(int(v) for v in who))


def pattern_groups(patterns: Sequence[str]) -> list[tuple[str, list[int]]]:
    """Warps grouped by identical lane patterns, in order of first appearance."""
    seen: dict[str, list[int]] = {}
    for w, p in enumerate(patterns):
        seen.setdefault(p, []).append(w)
    return list(seen.items())


