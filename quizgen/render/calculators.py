"""Worked solutions of the calculators: warps, latency hiding, divergence, waves, memory vs compute.

Each function takes the engine's records (computed with ``explain=True``) and returns a `Solution`:
the engine's steps in words, a Verify that checks the result by another route (rebuild the index
from the coordinates, bracket a ceiling between two products, multiply a ratio back), and the
Answer line. Nothing is solved again here; the checks only multiply and compare what the engine
returned. Sentences live in ``templates/phrases/calculators.<lang>.toml``.
"""

from __future__ import annotations

from typing import Any

from quizgen.engine.bound import KernelBound
from quizgen.engine.divergence import Divergence
from quizgen.engine.flight import BytesNeeded
from quizgen.engine.grid import GridCount, Waves
from quizgen.engine.latency import Efficiency, LatencyHiding
from quizgen.engine.warps import WARP_SIZE, BlockComparison, BlockWarps, Segment, ThreadLocation
from quizgen.problems.model import Solution, SolutionStep
from quizgen.render.phrases import phrase
from quizgen.render.solution import solution_steps

#: The steps of each block that a side-by-side comparison shows (the rest are in `quizgen warps`).
COMPARE_KEYS = ("threads_per_block", "warps", "full_warps", "tail_active", "wasted_lanes",
                "waste_fraction", "rows_aligned")


def shape_text(block: tuple[int, int, int] | list[int]) -> str:
    return "×".join(str(d) for d in block)


def _p(lang: str, section: str, key: str, **ctx: Any) -> str:
    return phrase(lang, f"calc-{section}", key, ctx)


def calculator_title(lang: str, key: str, **ctx: Any) -> str:
    """The heading of a calculator's output, e.g. "Warps · block 48×4×1"."""
    return _p(lang, "title", key, **ctx)


# ------------------------------------------------------------------------------------------------
# Warps


def segment_text(segment: Segment, lang: str, *, show_z: bool) -> str:
    """One row piece of a warp: "row y=0: x=32–47 (linear 32–47, 16 threads)"."""
    return _p(lang, "warps", "segment", y=segment.y, z=segment.z, show_z=show_z,
              x0=segment.x_start, x1=segment.x_end, i0=segment.linear_start, i1=segment.linear_end,
              n=segment.count)


def warp_member_steps(block: BlockWarps, warp_id: int, segments: list[Segment],
                      lang: str) -> list[SolutionStep]:
    """Steps for "which threads make up warp k": its first and last index, then its row pieces."""
    first, last = segments[0].linear_start, segments[-1].linear_end
    show_z = block.block[2] > 1
    pieces = "; ".join(segment_text(s, lang, show_z=show_z) for s in segments)
    ctx = {"k": warp_id, "P": block.threads, "first": first, "last": last}
    return [
        SolutionStep(title=_p(lang, "warps", "first_title", **ctx), formula="warp_first_index",
                     values={"k": warp_id}, result=first, unit="",
                     why=_p(lang, "warps", "first_why", **ctx)),
        SolutionStep(title=_p(lang, "warps", "last_title", **ctx), formula="warp_last_index",
                     values={"k": warp_id, "P": block.threads}, result=last, unit="",
                     why=_p(lang, "warps", "last_why", **ctx)),
        SolutionStep(title=_p(lang, "warps", "rows_title", **ctx), formula=None, values={},
                     result=pieces, unit="",
                     why=_p(lang, "warps", "rows_why", D_x=block.block[0], **ctx),
                     note=_p(lang, "warps", "rows_note", count=len(segments))
                     if len(segments) > 1 else ""),
    ]


def _bracket(lang: str, block: BlockWarps) -> str:
    w, p = block.warps, block.threads
    return _p(lang, "warps", "verify_bracket", w=w, P=p, hi=w * WARP_SIZE, lo=(w - 1) * WARP_SIZE)


def warps_solution(block: BlockWarps, lang: str, *, thread: ThreadLocation | None = None,
                   from_linear: bool = False, warp_id: int | None = None,
                   segments: list[Segment] | None = None, salt: str = "") -> Solution:
    """Warps of one block; optionally one thread's place and one warp's threads."""
    steps = solution_steps(block.steps, lang, salt=salt)
    verify = [_bracket(lang, block),
              _p(lang, "warps", "verify_lanes", w=block.warps, P=block.threads,
                 wasted=block.wasted_lanes, lanes=block.warps * WARP_SIZE)]
    answer = [_p(lang, "warps", "answer", w=block.warps, top=block.top_warp_id,
                 full=block.full_warps, tail=block.tail_active, wasted=block.wasted_lanes,
                 tail_waste=block.tail_waste_fraction, waste=block.waste_fraction,
                 P=block.threads, degenerate=block.single_warp_degenerate)]
    if thread is not None:
        # the location's own steps repeat the thread count; skip it
        steps += solution_steps([s for s in thread.steps if s.key != "threads_per_block"], lang,
                                salt=salt)
        tx, ty, tz = thread.coords
        dx, dy, _ = thread.block
        i, k = thread.linear_index, thread.warp_id
        if from_linear:
            verify.append(_p(lang, "warps", "verify_rebuild", tx=tx, ty=ty, tz=tz, D_x=dx, D_y=dy,
                             i=i))
        else:
            # the other way round: peel the index just built back into digits
            area = dx * dy
            offset = i - tz * area
            verify.append(_p(lang, "warps", "verify_peel", i=i, A=area, tz=tz, o=offset, D_x=dx,
                             ty=ty, tx=tx))
        verify.append(_p(lang, "warps", "verify_in_warp", k=k, lo=WARP_SIZE * k,
                         hi=WARP_SIZE * k + WARP_SIZE - 1, i=i, lane=thread.lane))
        answer.append(_p(lang, "warps", "answer_thread", tx=tx, ty=ty, tz=tz, i=i, k=k,
                         lane=thread.lane))
    if warp_id is not None and segments:
        steps += warp_member_steps(block, warp_id, segments, lang)
        counts = [s.count for s in segments]
        first, last = segments[0].linear_start, segments[-1].linear_end
        verify.append(_p(lang, "warps", "verify_pieces", counts=" + ".join(map(str, counts)),
                         total=sum(counts), first=first, last=last, span=last - first + 1))
        show_z = block.block[2] > 1
        answer.append(_p(lang, "warps", "answer_warp", k=warp_id,
                         pieces="; ".join(segment_text(s, lang, show_z=show_z) for s in segments),
                         first=first, last=last))
    return Solution(forecast=_p(lang, "forecast", "warps"), steps=steps, verify=verify,
                    answer=" ".join(answer), trap="")


def grid_solution(grid: GridCount, lang: str, *, salt: str = "") -> Solution:
    """A whole grid's threads and warps (``quizgen warps --grid`` or ``--elements``)."""
    g = grid
    ctx = {"G": g.blocks, "P": g.threads_per_block, "w": g.warps_per_block, "threads": g.threads,
           "warps": g.warps, "n": g.elements, "past": g.past_end, "idle": g.idle_lanes,
           "padding": g.warps * WARP_SIZE - g.threads}
    verify = [_p(lang, "grid", "verify_threads", **ctx)]
    if g.elements:
        verify.append(_p(lang, "grid", "verify_elements", **ctx))
    return Solution(forecast=_p(lang, "forecast", "grid", n=g.elements),
                    steps=solution_steps(g.steps, lang, salt=salt), verify=verify,
                    answer=_p(lang, "grid", "answer", **ctx), trap="")


def compare_solution(comparison: BlockComparison, lang: str, *, salt: str = "") -> Solution:
    """Seed 001 Ex 9: two block shapes side by side, then the better one."""
    steps: list[SolutionStep] = []
    for block in (comparison.first, comparison.second):
        label = shape_text(block.block)
        for step in solution_steps([s for s in block.steps if s.key in COMPARE_KEYS], lang,
                                   salt=salt):
            step.title = f"[{label}] {step.title}"
            steps.append(step)
    steps += solution_steps(comparison.steps, lang, salt=salt)
    verify = []
    for block in (comparison.first, comparison.second):
        verify.append(f"[{shape_text(block.block)}] " + _bracket(lang, block))
    a, b = comparison.first, comparison.second
    ctx = {"a": shape_text(a.block), "b": shape_text(b.block), "wa": a.warps, "wb": b.warps,
           "xa": a.wasted_lanes, "xb": b.wasted_lanes, "fa": a.waste_fraction,
           "fb": b.waste_fraction, "ra": a.rows_aligned, "rb": b.rows_aligned}
    if comparison.better == "tie":
        answer = _p(lang, "compare", "answer_tie", **ctx)
    else:
        win, lose = (a, b) if comparison.better == "first" else (b, a)
        answer = _p(lang, "compare", "answer", win=shape_text(win.block), ww=win.warps,
                    xw=win.wasted_lanes, fw=win.waste_fraction, aligned=win.rows_aligned,
                    lose=shape_text(lose.block), wl=lose.warps, xl=lose.wasted_lanes,
                    fl=lose.waste_fraction)
    verify.append(_p(lang, "compare", "verify_fractions", **ctx))
    return Solution(forecast=_p(lang, "forecast", "compare"), steps=steps, verify=verify,
                    answer=answer, trap="")


# ------------------------------------------------------------------------------------------------
# Latency hiding


def latency_solution(lang: str, *, hiding: LatencyHiding | None = None,
                     eta: Efficiency | None = None, salt: str = "") -> Solution:
    """Warps an SM needs to hide a stall (one model: per scheduler, × N_sched) and η(N)."""
    steps: list[SolutionStep] = []
    verify: list[str] = []
    answer: list[str] = []
    forecast = ""
    if hiding is not None:
        h = hiding
        steps += solution_steps(h.steps, lang, salt=salt)
        per_warp = h.work_per_warp * h.ilp               # instructions one warp brings
        cycles = h.latency * h.throughput                 # L·X_s: what one scheduler must fill
        verify.append(_p(lang, "latency", "verify_bracket", n=h.warps_per_scheduler, w=per_warp,
                         need=cycles, hi=h.warps_per_scheduler * per_warp,
                         lo=(h.warps_per_scheduler - 1) * per_warp))
        verify.append(_p(lang, "latency", "verify_sm", N=h.schedulers, n=h.warps_per_scheduler,
                         total=h.warps_needed, cap=h.max_warps, fits=h.hidable))
        if h.deficit and h.scheduler_cap and not h.no_overlap:
            verify.append(_p(lang, "latency", "verify_ilp", N=h.schedulers, n=h.warps_per_scheduler,
                             k=h.ilp_factor, with_ilp=h.warps_with_ilp, cap=h.max_warps,
                             c=h.scheduler_cap))
        answer.append(_p(lang, "latency", "answer", N=h.schedulers, n=h.warps_per_scheduler,
                         total=h.warps_needed, cap=h.max_warps, fits=h.hidable,
                         deficit=h.deficit, degenerate=h.no_overlap, k=h.ilp_factor, k0=h.ilp,
                         with_ilp=h.warps_with_ilp, can_ilp=bool(h.scheduler_cap),
                         C=h.in_flight, L=h.latency, littles=any(s.key == "concurrency" for s in h.steps)))
        if h.deficit and h.stall == "arithmetic":
            answer.append(_p(lang, "latency", "answer_arithmetic", L=h.latency))
        forecast = _p(lang, "forecast", "latency", cap=h.max_warps, N=h.schedulers)
    if eta is not None:
        steps += solution_steps(eta.steps, lang, salt=salt)
        verify.append(_p(lang, "latency", "verify_eta", N=eta.resident_warps, L=eta.latency,
                         eta=eta.efficiency, busy=min(eta.resident_warps, eta.latency)))
        answer.append(_p(lang, "latency", "answer_eta", N=eta.resident_warps, L=eta.latency,
                         eta=eta.efficiency, spare=eta.spare_warps, cap=eta.max_warps,
                         eta_cap=eta.efficiency_at_cap))
        forecast = forecast or _p(lang, "forecast", "eta", N=eta.resident_warps, L=eta.latency)
    return Solution(forecast=forecast, steps=steps, verify=verify, answer=" ".join(answer),
                    trap="")


def bytes_solution(result: BytesNeeded, lang: str, *, salt: str = "") -> Solution:
    """Little's law in bytes: bandwidth × latency in flight, per SM, and the warps that carry it."""
    r = result
    ctx = {"B": r.bandwidth, "t": r.latency_ns, "S": r.sms, "b_l": r.lane_bytes, "k": r.ilp,
           "cap": r.max_warps, "q": r.in_flight, "q_sm": r.per_sm, "b_w": r.per_warp,
           "n": r.warps_needed, "k_cap": r.ilp_at_cap, "fits": r.fits}
    verify = [_p(lang, "bytes", "verify_back", **ctx)]
    if not r.fits:
        verify.append(_p(lang, "bytes", "verify_cap", **ctx))
    return Solution(forecast=_p(lang, "forecast", "bytes", **ctx),
                    steps=solution_steps(r.steps, lang, salt=salt), verify=verify,
                    answer=_p(lang, "bytes", "answer", **ctx), trap="")


# ------------------------------------------------------------------------------------------------
# Divergence


def divergence_solution(result: Divergence, lang: str, *, salt: str = "") -> Solution:
    """Serialised time, slowdown and lane utilisation of one warp's divergent region."""
    r = result
    steps = solution_steps(r.steps, lang, salt=salt)
    taken = [b for b in r.branches if b.lanes > 0]
    ctx = {"lanes": " + ".join(str(b.lanes) for b in r.branches), "n_act": r.active_lanes,
           "costs": " + ".join(f"{b.cost:g}" for b in taken), "T": r.serialised,
           "longest": r.longest_branch, "base": r.baseline, "slow": r.slowdown,
           "util": r.lane_utilisation, "U": r.useful_lane_cycles, "idle": r.idle_lane_cycles,
           "issued": r.active_lanes * r.serialised, "passes": len(taken),
           "skipped": len(r.branches) - len(taken), "divergent": r.divergent,
           "lane_weighted": r.baseline_rule == "lane_weighted"}
    verify = [_p(lang, "divergence", "verify_lanes", **ctx),
              _p(lang, "divergence", "verify_longest", **ctx),
              _p(lang, "divergence", "verify_product", product=r.slowdown * r.baseline, **ctx),
              _p(lang, "divergence", "verify_idle", **ctx)]
    return Solution(forecast=_p(lang, "forecast", "divergence", n=len(r.branches)), steps=steps,
                    verify=verify, answer=_p(lang, "divergence", "answer", **ctx), trap="")


# ------------------------------------------------------------------------------------------------
# Waves


def waves_solution(result: Waves, lang: str, *, occupancy: Any = None, gpu: Any = None,
                   salt: str = "") -> Solution:
    """Slots, idle SMs, waves and the tail; with `occupancy`, how blocks per SM were found first."""
    w = result
    steps: list[SolutionStep] = []
    if occupancy is not None:
        # only the part of the occupancy derivation that ends in blocks per SM
        occ_steps = [s for s in occupancy.steps if s.key not in ("active_warps", "occupancy")]
        steps += solution_steps(occ_steps, lang, salt=salt,
                                gpu=gpu.to_dict() if gpu is not None else None)
    steps += solution_steps(w.steps, lang, salt=salt)
    verify = [_p(lang, "waves", "verify_bracket", n=w.waves, C=w.slots, G=w.grid_blocks,
                 hi=w.waves * w.slots, lo=(w.waves - 1) * w.slots),
              _p(lang, "waves", "verify_sum", F=w.full_waves, C=w.slots, R=w.tail_blocks,
                 G=w.grid_blocks, full=w.full_waves * w.slots)]
    if w.tail_blocks and w.full_waves:
        verify.append(_p(lang, "waves", "verify_tail", m=w.tail_sms, S=w.num_sms,
                         R=w.tail_blocks, C=w.slots, tail_idle=w.tail_idle_sms,
                         tail_util=w.tail_utilisation))
    ctx = {"n": w.waves, "F": w.full_waves, "R": w.tail_blocks, "m": w.tail_sms,
           "S": w.num_sms, "used": w.sms_with_blocks, "idle": w.idle_sms, "C": w.slots,
           "G": w.grid_blocks, "B": w.blocks_per_sm, "sm_util": w.sm_utilisation,
           "slot_util": w.slot_utilisation, "tail_idle": w.tail_idle_sms,
           "tail_util": w.tail_utilisation}
    return Solution(forecast=_p(lang, "forecast", "waves", G=w.grid_blocks, S=w.num_sms),
                    steps=steps, verify=verify, answer=_p(lang, "waves", "answer", **ctx), trap="")


def waves_given(lang: str, occupancy: Any, gpu_name: str) -> str:
    """The line that says blocks per SM came from the occupancy calculation."""
    cfg = occupancy.config
    return _p(lang, "waves", "from_occupancy", gpu=gpu_name, model=occupancy.model,
              T=cfg.threads_per_block, r=cfg.regs_per_thread,
              smem=cfg.smem_per_block + cfg.dyn_smem, B=occupancy.blocks_per_sm,
              limiter=", ".join(phrase(lang, "label", name) for name in occupancy.limiter))


# ------------------------------------------------------------------------------------------------
# Memory- vs compute-bound


def bound_solution(result: KernelBound, lang: str, *, salt: str = "", gpu_name: str = "textbook") -> Solution:
    """Seed 004 Ex 1–2: bytes, arithmetic intensity, critical path, and the verdict."""
    r = result
    steps = solution_steps(r.steps, lang, salt=salt)
    ctx = {"ld": r.bytes_loaded, "st": r.bytes_stored, "moved": r.bytes_moved, "F": r.flops,
           "ai": r.arithmetic_intensity, "L": r.load_latency, "C": r.compute_cycles,
           "path": r.critical_path, "share": r.memory_share, "memory": r.memory_bound,
           "balance": r.machine_balance, "peak": r.peak_gflops, "bw": r.bandwidth_gbs,
           "att": r.attainable_gflops, "gpu": gpu_name}
    verify = []
    if r.arithmetic_intensity is not None:
        verify.append(_p(lang, "bound", "verify_ai", back=r.arithmetic_intensity * r.bytes_moved,
                         **ctx))
    if r.load_latency is None:      # only the verdict was asked: the roofline, no critical path
        verify.append(_p(lang, "bound", "verify_compare_roofline", **ctx))
        return Solution(forecast=_p(lang, "forecast", "bound_roofline"), steps=steps,
                        verify=verify, answer=_p(lang, "bound", "answer_roofline", **ctx), trap="")
    verify.append(_p(lang, "bound", "verify_compare", **ctx))
    if r.bytes_stored:
        verify.append(_p(lang, "bound", "verify_store", **ctx))
    return Solution(forecast=_p(lang, "forecast", "bound"), steps=steps, verify=verify,
                    answer=_p(lang, "bound", "answer", **ctx), trap="")
