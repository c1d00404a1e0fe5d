"""Worked solutions of the calculators over code (``quizgen divergence --if/--loop/--reduction``
and ``quizgen barrier``): the engine's steps in words (the same why-lines as the cells D-1 … D-5),
a Verify by another route (the lanes added back, every warp counted by kind, each wait added
one by one) and the Answer line. Nothing is solved again here. Sentences live in
``templates/phrases/calculators-code.<lang>.toml``.
"""

from __future__ import annotations

from typing import Any

from quizgen.engine import barrier as bar_engine
from quizgen.engine import branches as br
from quizgen.engine import code_steps as cs
from quizgen.problems.model import Solution
from quizgen.render.phrases import phrase
from quizgen.render.solution import solution_steps
from quizgen.engine.threads import WARP



def _p(lang: str, key: str, **ctx: Any) -> str:
    return phrase(lang, "calc-code", key, ctx)


def code_title(lang: str, key: str, **ctx: Any) -> str:
    return phrase(lang, "calc-code-title", key, ctx)


def _paths(b: br.Branching):
    seen: dict[int, list[str]] = {}

    def paths(block: int) -> list[str]:
        if block not in seen:
            seen[block] = br.lane_paths(b.code, b.cond, b.exit, block, b)
        return seen[block]
    return paths


def branch_solution(b: br.Branching, lang: str, *, warp: br.WarpBranch | None = None,
                    costs: tuple[int, int] | None = None) -> Solution:
    """``divergence --if``: every group of warps, the active and divergent ones, a named warp."""
    la = b.launch
    steps = cs.branch_steps(b, _paths(b))
    if warp is not None:
        steps += cs.warp_steps(warp, *(costs or (None, None)))
    if costs is not None:
        steps.append(cs.grid_time_step(b, *costs))
    ctx = {"W_grid": la.grid_warps, "W_t": b.then_warps, "W_e": b.else_warps,
           "W_r": b.warps_reached, "W_all": b.all_take_warps, "W_div": b.divergent_warps,
           "N_t": b.threads_taking, "N_r": b.threads_reaching, "T": la.threads_per_block,
           "G": la.blocks, "lanes": la.grid_warps * WARP, "exit": b.exit is not None,
           "div_blocks": b.divergent_blocks}
    verify = [_p(lang, "branch_kinds", **ctx), _p(lang, "branch_lanes", **ctx)]
    answer = [_p(lang, "branch_answer", **ctx)]
    if warp is not None:
        wctx = {"k": warp.warp, "b": warp.block, "n_t": warp.take, "n_e": warp.other,
                "n_p": warp.present, "n_r": warp.reach, "simd": warp.simd_then,
                "costs": costs is not None}
        if costs is not None:
            wctx.update(time=warp.time(*costs), eff=warp.region_efficiency(*costs))
        verify.append(_p(lang, "warp_lanes", **wctx))
        answer.append(_p(lang, "warp_answer", **wctx))
    if costs is not None:
        answer.append(_p(lang, "grid_cycles", cycles=costs[0] * b.then_warps + costs[1] * b.else_warps))
    return Solution(forecast=_p(lang, "branch_forecast", cond=b.cond.text),
                    steps=solution_steps(steps, lang), verify=verify, answer=" ".join(answer),
                    trap="")


def loop_solution(lw: br.LoopWarps, lang: str, *, iteration: int | None = None,
                  warp: tuple[int, int] | None = None) -> Solution:
    """``divergence --loop``: each group's trip counts, the iterations issued, SIMD efficiency;
    with an iteration, the warps still running and diverging in it."""
    la = lw.launch

    def trips_of(block: int) -> list[list[int]]:
        return br.lane_trips(lw.code, lw.trip, block, lw)

    steps = cs.loop_steps(lw, trips_of)
    ctx: dict[str, Any] = {"issued": lw.issued, "useful": lw.useful, "eff": lw.efficiency,
                           "W_grid": la.grid_warps, "div_it": lw.divergent_iterations,
                           "top": int(lw.t_max.max()) if lw.t_max.size else 0}
    verify = [_p(lang, "loop_slots", **ctx)]
    answer = [_p(lang, "loop_answer", **ctx)]
    if warp is not None:
        b, w = warp
        t_min, t_max, S = (int(a[b, w]) for a in (lw.t_min, lw.t_max, lw.t_sum))
        wctx = {"k": w, "b": b, "t_min": t_min, "t_max": t_max, "S": S,
                "eff": S / (WARP * t_max) if t_max else 0.0}
        answer.append(_p(lang, "loop_warp", **wctx))
    if iteration is not None:
        steps += cs.iteration_steps(lw, iteration)
        ictx = {"it": iteration, "running": lw.running(iteration), "full": lw.full(iteration),
                "diverging": lw.diverging(iteration), "lanes": lw.lanes_running(iteration),
                "W_grid": la.grid_warps}
        verify.append(_p(lang, "loop_iteration_check", **ictx))
        answer.append(_p(lang, "loop_iteration", **ictx))
    return Solution(forecast=_p(lang, "loop_forecast", trip=lw.trip.text),
                    steps=solution_steps(steps, lang), verify=verify, answer=" ".join(answer),
                    trap="")


def reduction_solution(r: br.Reduction, lang: str, *, iteration: int | None = None) -> Solution:
    """``divergence --reduction``: one iteration in detail (if asked), then the add's
    warp-instructions over every iteration and the iterations that diverge."""
    steps = cs.stride_steps(r, iteration) if iteration is not None else []
    steps += cs.reduction_total_steps(r)
    ctx = {"kind": r.kind, "T": r.threads, "G": r.blocks, "issued": r.issued,
           "grid": r.issued * r.blocks, "useful": r.useful, "eff": r.efficiency,
           "n_it": len(r.strides), "div": ", ".join(map(str, r.divergent_iterations)) or "—",
           "first": r.first_divergent, "power": r.threads & (r.threads - 1) == 0,
           "rows": "; ".join(f"s = {s.stride}: {s.active_warps}/{s.divergent_warps}" for s in r.strides)}
    verify = [_p(lang, "reduction_rows", **ctx), _p(lang, "reduction_adds", **ctx)]
    answer = _p(lang, "reduction_answer", **ctx)
    if iteration is not None:
        s = r.at(iteration)
        answer = _p(lang, "reduction_iteration", it=iteration, s=s.stride, threads=s.active_threads,
                    warps=s.active_warps, div=s.divergent_warps) + " " + answer
    return Solution(forecast=_p(lang, "reduction_forecast", kind=r.kind), steps=solution_steps(steps, lang),
                    verify=verify, answer=answer, trap="")


def wait_solution(r: bar_engine.BarrierWait, lang: str, unit: str) -> Solution:
    """``barrier --arrivals``: the release, the waits added up, their share."""
    steps = solution_steps(r.steps, lang)
    waits = " + ".join(f"{bar_engine.plain(w * n):,}" if n == 1 else f"{n} × {bar_engine.plain(w):,}"
                       for w, n in zip(r.waits, r.weights))
    ctx = {"T": bar_engine.plain(r.release), "W": bar_engine.plain(r.total_wait),
           "N": r.threads, "share": float(r.share), "waits": waits, "unit": unit,
           "longest": bar_engine.plain(r.longest_wait), "j": r.last}
    return Solution(forecast=_p(lang, "wait_forecast", **ctx), steps=steps,
                    verify=[_p(lang, "wait_sum", **ctx), _p(lang, "wait_bound", **ctx)],
                    answer=_p(lang, "wait_answer", **ctx), trap="")


def partner_solution(p: br.Partners, lang: str) -> Solution:
    """``barrier --read``: whose write each thread reads, and the least barrier."""
    steps = solution_steps(cs.partner_steps(p) + [cs.barrier_step(p)], lang)
    la = p.code.launch
    ctx = {"T": la.threads_per_block, "W": la.warps_per_block, "n_o": p.own, "n_w": p.same_warp,
           "n_x": p.cross_warp, "barrier": p.barrier, "read": p.partner.text}
    return Solution(forecast=_p(lang, "partner_forecast", **ctx), steps=steps,
                    verify=[_p(lang, "partner_sum", **ctx)], answer=_p(lang, "partner_answer", **ctx),
                    trap="")
