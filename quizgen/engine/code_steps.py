"""The derivations of `quizgen.engine.branches`: the steps a worked solution shows, with the
numbers the engine counted.

A step per group of warps that split alike (their lanes, which threads take the path, which
are absent or gone), then the counts over them, each with its formula: active warps are the
warps where every reaching lane takes the path plus the split ones, divergent warps are
W_t + W_e − W_r (warps with an if-lane, with an else-lane, minus those reached at all), a warp's
SIMD efficiency is n_t/32. Loops and reductions count iterations the same way.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from quizgen.engine import branches as br
from quizgen.engine.derivation import Step
from quizgen.engine.threads import WARP
from quizgen.engine.arith import ceiling

#: Formulas of this module: name → (sympy source, {symbol: meaning}).
FORMULAS: dict[str, tuple[str, dict[str, str]]] = {
    "else_lanes": ("n_r - n_t", {"n_r": "lanes of the warp that reach the branch",
                                 "n_t": "lanes that take the if-path"}),
    "active_warps_code": ("W_all + W_split", {
        "W_all": "warps whose every reaching lane takes the path",
        "W_split": "warps whose lanes split at the branch"}),
    "divergent_warps_code": ("W_t + W_e - W_r", {
        "W_t": "warps with a lane on the if-path", "W_e": "warps with a lane on the else-path",
        "W_r": "warps with a lane that reaches the branch"}),
    "simd_efficiency": ("n_t/32", {"n_t": "lanes of the warp that execute the statement"}),
    "branch_time": ("c_t*Min(n_t, 1) + c_e*Min(n_e, 1)", {
        "c_t": "cycles of the if-path", "c_e": "cycles of the else-path",
        "n_t": "lanes on the if-path", "n_e": "lanes on the else-path"}),
    "region_efficiency": ("(n_t*c_t + n_e*c_e)/(32*T_w)", {
        "n_t": "lanes on the if-path", "c_t": "cycles of the if-path",
        "n_e": "lanes on the else-path", "c_e": "cycles of the else-path",
        "T_w": "cycles the warp issues on the branch"}),
    "grid_branch_cycles": ("c_t*W_t + c_e*W_e", {
        "c_t": "cycles of the if-path", "W_t": "warps with a lane on the if-path",
        "c_e": "cycles of the else-path", "W_e": "warps with a lane on the else-path"}),
    "loop_divergent_iterations": ("t_max - t_min", {
        "t_max": "the warp's longest trip count", "t_min": "the warp's shortest trip count"}),
    "loop_warp_efficiency": ("S/(32*t_max)", {
        "S": "iterations the warp's lanes need, added up", "t_max": "the warp's longest trip count"}),
    "loop_issued_uniform": ("w*t_max", {"w": "warps", "t_max": "each warp's longest trip count"}),
    "work_efficiency": ("U/(32*I)", {"U": "useful lane-operations",
                                     "I": "warp-instructions issued"}),
    "loop_running_warps": ("w - W_done", {
        "w": "warps", "W_done": "warps whose every lane has finished"}),
    "divergent_of_active": ("W_a - W_f", {
        "W_a": "warps with at least one active lane", "W_f": "warps whose every lane is active"}),
    "interleaved_active": ("ceiling(T/(2*s))", {"T": "threads in the block", "s": "the stride"}),
    "interleaved_warps": ("ceiling(T/Max(2*s, 32))", {"T": "threads in the block",
                                                      "s": "the stride"}),
    "sequential_active": ("Min(s, T)", {"s": "the stride", "T": "threads in the block"}),
    "sequential_warps": ("ceiling(Min(s, T)/32)", {"s": "the stride", "T": "threads in the block"}),
    "reduction_saving": ("G*(I_i - I_s)", {
        "G": "blocks in the grid", "I_i": "warp-instructions of the interleaved loop in one block",
        "I_s": "warp-instructions of the sequential loop in one block"}),
    "cross_warp_reads": ("P - n_o - n_w", {
        "P": "threads in the block", "n_o": "threads that read their own slot",
        "n_w": "threads that read a slot of their own warp"}),
}
SHARES = frozenset({"simd_efficiency", "region_efficiency", "loop_warp_efficiency",
                    "work_efficiency"})


def span_text(first: int, last: int) -> str:
    return str(first) if first == last else f"{first}–{last}"


def list_text(values: Sequence[int], limit: int = 6) -> str:
    """0–7, or 1, 3, 5, … 31: consecutive runs joined, a long irregular list cut short."""
    runs: list[tuple[int, int]] = []
    for v in sorted(set(values)):
        if runs and v == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], v)
        else:
            runs.append((v, v))
    parts = [span_text(a, b) for a, b in runs]
    if len(parts) > limit:
        return ", ".join(parts[:limit - 1]) + ", …, " + parts[-1]
    return ", ".join(parts)


def _block_steps(la) -> list[Step]:
    steps = []
    x, y, z = la.block
    if y > 1 or z > 1:
        steps.append(Step("code_block_threads", "block_threads", {"D_x": x, "D_y": y, "D_z": z},
                          la.threads_per_block, "threads", "d_block_threads"))
    steps.append(Step("code_warps", "warp_count", {"P": la.threads_per_block},
                      la.warps_per_block, "warps", "d_block_warps",
                      "d_tail_warp" if la.threads_per_block % WARP else None))
    if la.blocks > 1:
        steps.append(Step("code_grid_warps", "grid_warps", {"G": la.blocks, "w": la.warps_per_block},
                          la.grid_warps, "warps", "d_grid_warps"))
    return steps


# ---------------------------------------------------------------------------------------------
# A branch


def groups(keys: np.ndarray, la) -> list[tuple[tuple[int, ...], list[int]]]:
    """Rows of `keys` (one per warp of the launch, block-major) grouped when equal, in order of
    first appearance: (the row, the flat indices of its warps)."""
    found: dict[tuple[int, ...], list[int]] = {}
    for at, row in enumerate(map(tuple, keys.tolist())):
        found.setdefault(row, []).append(at)
    return list(found.items())


def members(flat: list[int], la) -> dict[str, Any]:
    """Which warps a group holds, as a step's values: warp and block lists when the group is
    whole warps of whole blocks (``cross``), else (block, warp) pairs."""
    W = la.warps_per_block
    blocks = sorted({int(f) // W for f in flat})
    warps = sorted({int(f) % W for f in flat})
    pairs = [(int(f) // W, int(f) % W) for f in flat]
    by_block: dict[int, list[int]] = {}
    for b, w in pairs:
        by_block.setdefault(b, []).append(w)
    same: dict[tuple[int, ...], list[int]] = {}      # blocks that hold the same warps of it
    for b, ws in by_block.items():
        same.setdefault(tuple(ws), []).append(b)
    parts = [[list_text(ws), list_text(bs), len(ws), len(bs)] for ws, bs in same.items()]
    return {"n_w": len(flat), "n_k": len(warps), "n_b": len(blocks), "warps": list_text(warps),
            "blocks": list_text(blocks), "all_blocks": len(blocks) == la.blocks,
            "parts": parts[:3], "more_parts": len(parts) > 3, "G": la.blocks, "k": pairs[0][1],
            "example": pairs[0]}


def split_groups(b: br.Branching) -> list[dict[str, Any]]:
    """The warps of the launch grouped by how they split: (present, reach, take) alike, with
    the warps and blocks of each group and an example warp's lanes."""
    la = b.launch
    present = np.broadcast_to(b.present, b.reach.shape)
    keys = np.stack([present, b.reach, b.take], axis=-1).reshape(-1, 3)
    out = []
    for (p, r, t), flat in groups(keys, la):
        out.append({"n_p": p, "n_r": r, "n_t": t, "count": len(flat), **members(flat, la)})
    return out


def _split_why(g: dict[str, Any]) -> str:
    if g["n_r"] == 0:
        return "d_split_gone"
    if g["n_t"] == 0:
        return "d_split_none"
    return "d_split_all" if g["n_t"] == g["n_r"] else "d_split_both"


def _split_note(g: dict[str, Any]) -> str | None:
    if g["n_r"] < g["n_p"]:
        return "d_note_exited"
    return "d_note_tail" if g["n_p"] < WARP else None


def taking_text(paths: str, warp: int, which: str = "T") -> str:
    """The linear indices (in the block) of the lanes of `warp` whose path is `which`."""
    lanes = [i for i, c in enumerate(paths) if c == which]
    return list_text([WARP * warp + i for i in lanes]) if lanes else ""


def branch_steps(b: br.Branching, paths_of: Any, *, limit: int = 8) -> list[Step]:
    """The warps, each group's split (`paths_of(block)` gives a block's lane paths), the active
    and divergent warps."""
    la = b.launch
    steps = _block_steps(la)
    found = split_groups(b)
    for g in found[:limit]:
        blk, w = g["example"]
        paths = paths_of(blk)[w]
        values = {key: g[key] for key in ("n_r", "n_t", "n_p", "n_w", "n_k", "n_b", "warps", "k",
                                          "blocks", "all_blocks", "parts", "more_parts", "G")}
        values.update(n_x=g["n_p"] - g["n_r"], flat=la.block[1] * la.block[2] > 1,
                      cond=b.cond.text, take=taking_text(paths, w), other=taking_text(paths, w, "E"),
                      first=WARP * w, last=WARP * w + g["n_p"] - 1)
        steps.append(Step("code_split", "else_lanes", values, g["n_r"] - g["n_t"], "lanes",
                          _split_why(g), _split_note(g)))
    if len(found) > limit:
        rest = sum(g["count"] for g in found[limit:])
        steps[-1].note = "d_note_more"
        steps[-1].values["more"] = rest
    W_all, W_split = b.all_take_warps, b.divergent_warps
    steps.append(Step("code_then_warps", "active_warps_code", {"W_all": W_all, "W_split": W_split},
                      b.then_warps, "warps", "d_then_warps"))
    steps.append(Step("code_divergent", "divergent_warps_code",
                      {"W_t": b.then_warps, "W_e": b.else_warps, "W_r": b.warps_reached},
                      b.divergent_warps, "warps", "d_divergent_warps",
                      "d_note_per_block" if la.blocks > 1 else None))
    return steps


def warp_steps(wb: br.WarpBranch, then_cost: int | None = None, else_cost: int | None = None,
               *, simd: bool = True) -> list[Step]:
    """One named warp: its SIMD efficiency for the if-path, and with costs its time and its
    efficiency over the whole branch."""
    values = {"n_t": wb.take, "k": wb.warp, "b": wb.block, "n_p": wb.present, "n_r": wb.reach}
    steps = [Step("code_simd", "simd_efficiency", values, wb.simd_then, "",
                  "d_simd_warp", "d_note_idle_lanes" if wb.present < WARP or wb.reach < wb.present
                  else None)] if simd else []
    if then_cost is not None and else_cost is not None:
        t = wb.time(then_cost, else_cost)
        steps.append(Step("code_branch_time", "branch_time",
                          {"c_t": then_cost, "c_e": else_cost, "n_t": wb.take, "n_e": wb.other,
                           "k": wb.warp}, t, "cycles", "d_branch_time"))
        steps.append(Step("code_region_efficiency", "region_efficiency",
                          {"n_t": wb.take, "c_t": then_cost, "n_e": wb.other, "c_e": else_cost,
                           "T_w": t}, wb.region_efficiency(then_cost, else_cost), "",
                          "d_region_efficiency"))
    return steps


def grid_time_step(b: br.Branching, then_cost: int, else_cost: int) -> Step:
    """Warp-cycles the whole launch issues on the branch: each warp pays for every path one of
    its lanes takes."""
    W_t, W_e = b.then_warps, b.else_warps
    return Step("code_grid_cycles", "grid_branch_cycles",
                {"c_t": then_cost, "W_t": W_t, "c_e": else_cost, "W_e": W_e},
                then_cost * W_t + else_cost * W_e, "cycles", "d_grid_cycles")


# ---------------------------------------------------------------------------------------------
# A loop


def runs_text(values: Sequence[int], limit: int = 6) -> str:
    """Sorted whole numbers with consecutive runs joined: 0–15, 64–79."""
    ordered = sorted(set(int(v) for v in values))
    runs: list[tuple[int, int]] = []
    for v in ordered:
        if runs and v == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], v)
        else:
            runs.append((v, v))
    parts = [span_text(a, b) if b > a + 1 else (f"{a}, {b}" if b > a else str(a)) for a, b in runs]
    if len(parts) > limit:
        return ", ".join(parts[:limit - 1]) + ", …, " + parts[-1]
    return ", ".join(parts)


def loop_groups(lw: br.LoopWarps) -> list[dict[str, Any]]:
    la = lw.launch
    keys = np.stack([lw.t_min, lw.t_max], axis=-1).reshape(-1, 2)
    sums = lw.t_sum.reshape(-1)
    return [{"t_min": t_min, "t_max": t_max, "S": int(sums[flat[0]]), "count": len(flat),
             **members(flat, la)} for (t_min, t_max), flat in groups(keys, la)]


def loop_steps(lw: br.LoopWarps, trips_of: Any, *, limit: int = 6) -> list[Step]:
    """The warps; each group's trip counts and the iterations it diverges in; the iterations
    issued over the launch and the share of them that does useful work."""
    la = lw.launch
    steps = _block_steps(la)
    found = loop_groups(lw)
    for g in found[:limit]:
        blk, w = g["example"]
        values = {key: g[key] for key in ("t_min", "t_max", "S", "n_w", "n_k", "n_b", "warps", "k",
                                          "blocks", "all_blocks", "parts", "more_parts", "G")}
        values["trips"] = runs_text(trips_of(blk)[w])
        steps.append(Step("code_loop_warp", "loop_divergent_iterations", values,
                          g["t_max"] - g["t_min"], "iterations",
                          "d_loop_uniform" if g["t_min"] == g["t_max"] else "d_loop_diverges"))
    if len(found) > limit:
        steps[-1].note = "d_note_more"
        steps[-1].values["more"] = sum(g["count"] for g in found[limit:])
    if len(found) == 1:
        steps.append(Step("code_loop_issued", "loop_issued_uniform",
                          {"w": la.grid_warps, "t_max": found[0]["t_max"]}, lw.issued,
                          "iterations", "d_loop_issued"))
    else:
        parts = " + ".join(f"{g['count']} × {g['t_max']}" if g["count"] > 1 else str(g["t_max"])
                           for g in found[:limit]) + (" + …" if len(found) > limit else "")
        steps.append(Step("code_loop_issued", "", {"sum": parts, "w": la.grid_warps}, lw.issued,
                          "iterations", "d_loop_issued_sum"))
    steps.append(Step("code_loop_efficiency", "work_efficiency", {"U": lw.useful, "I": lw.issued},
                      lw.efficiency, "", "d_loop_efficiency"))
    return steps


def iteration_steps(lw: br.LoopWarps, k: int) -> list[Step]:
    """Iteration k: the warps still running it (every warp but those whose lanes have all
    finished) and the ones among them that diverge (some lanes done, some not)."""
    w = lw.launch.grid_warps
    running, full = lw.running(k), lw.full(k)
    return [Step("code_loop_running", "loop_running_warps", {"w": w, "W_done": w - running, "k": k},
                 running, "warps", "d_loop_running"),
            Step("code_loop_diverging", "divergent_of_active", {"W_a": running, "W_f": full, "k": k},
                 running - full, "warps", "d_loop_diverging")]


# ---------------------------------------------------------------------------------------------
# A reduction


def stride_steps(r: br.Reduction, k: int) -> list[Step]:
    """Iteration k of the reduction: its stride, the active threads and warps, the divergent
    warps."""
    s = r.at(k)
    T = r.threads
    inter = r.kind == "interleaved"
    values = {"T": T, "s": s.stride, "k": k, "two_s": 2 * s.stride}
    active = ceiling(T, 2 * s.stride) if inter else min(s.stride, T)
    warps = ceiling(T, max(2 * s.stride, WARP)) if inter else ceiling(min(s.stride, T), WARP)
    steps = [
        Step("code_red_threads",
             ("interleaved_active" if inter else "sequential_active")
             if active == s.active_threads else "", values, s.active_threads, "threads",
             "d_red_threads_" + r.kind),
        Step("code_red_warps",
             ("interleaved_warps" if inter else "sequential_warps")
             if warps == s.active_warps else "", dict(values), s.active_warps, "warps",
             "d_red_warps_" + r.kind),
        Step("code_red_divergent", "divergent_of_active",
             {"W_a": s.active_warps, "W_f": s.full_warps, "k": k, "s": s.stride},
             s.divergent_warps, "warps", "d_red_divergent_" + r.kind),
    ]
    return steps


def reduction_total_steps(r: br.Reduction) -> list[Step]:
    """The add's warp-instructions over every iteration and the share of their lanes that work."""
    counts = [s.active_warps for s in r.strides]
    parts = " + ".join(map(str, counts))
    return [Step("code_red_issued", "", {"sum": parts, "n_it": len(counts), "T": r.threads,
                                         "kind": r.kind},
                 r.issued, "instructions", "d_red_issued_" + r.kind),
            Step("code_red_efficiency", "work_efficiency", {"U": r.useful, "I": r.issued,
                                                            "kind": r.kind},
                 r.efficiency, "", "d_red_efficiency")]


# ---------------------------------------------------------------------------------------------
# Barriers: whose write each thread reads


def partner_steps(p: br.Partners) -> list[Step]:
    la = p.code.launch
    steps = _block_steps(la)
    kinds = p.kinds
    for kind, key in (("o", "code_partner_own"), ("w", "code_partner_warp"), ("x", "code_partner_cross")):
        members = [i for i, k in enumerate(kinds) if k == kind]
        if members:
            first = members[0]
            steps.append(Step(key, "", {"n": len(members), "first": first, "reads": p.who[first],
                                        "w_first": first // WARP, "w_reads": p.who[first] // WARP,
                                        "threads": list_text(members)}, len(members), "threads",
                              f"d_{key[5:]}"))
    steps.append(Step("code_cross_reads", "cross_warp_reads",
                      {"P": la.threads_per_block, "n_o": p.own, "n_w": p.same_warp},
                      p.cross_warp, "threads", "d_cross_reads"))
    return steps


#: The least barrier between a shared-memory write and the read of another thread's slot.
BARRIER_CALLS = {"none": "—", "syncwarp": "__syncwarp()", "syncthreads": "__syncthreads()"}


def barrier_step(p: br.Partners) -> Step:
    """The least barrier: none when every thread reads its own slot, __syncwarp() when the
    writer is always a lane of the reader's warp, __syncthreads() when it is another warp."""
    la = p.code.launch
    return Step("code_barrier", "", {"n_x": p.cross_warp, "n_w": p.same_warp, "n_o": p.own,
                                     "P": la.threads_per_block, "W": la.warps_per_block},
                BARRIER_CALLS[p.barrier], "", f"d_barrier_{p.barrier}")
