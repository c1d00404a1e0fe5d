"""Barriers (cells D-4 and D-5): the time threads wait at ``__syncthreads()``, and which barrier a
shared-memory exchange needs at least.

* D-4: ``__syncthreads()`` releases when the block's last thread arrives; each thread waits from
  its arrival to then (CELLS.md: PMPP's eight threads, 4.1 ÷ 24.0 = 17.1%). Level 1: a few
  threads' arrival times; level 2: warps that arrive together, the last one partial, so threads
  are weighed by the lanes present; level 3: what balancing the last warp's work gains.
* D-5: each thread writes its own slot of shared memory and then reads another's. The least
  barrier between the write and the read is none (it reads its own slot), ``__syncwarp()`` (a
  lane of its own warp wrote it) or ``__syncthreads()`` (a thread of another warp did). A warp
  running in lockstep is not a guarantee since compute capability 7.0 (independent thread
  scheduling), so "one warp needs no barrier" is the misconception `warp_lockstep`.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from quizgen.engine import barrier as bar_engine
from quizgen.engine import branches as br
from quizgen.engine import code_steps as cs
from quizgen.engine import threads as th
from quizgen.problems import specs as sp
from quizgen.problems.base import Misconception, Solved
from quizgen.problems.code_families import CodeFamily
from quizgen.problems.registry import register
from quizgen.engine.arith import ceiling
from quizgen.engine.threads import WARP


#: Offsets of the threads' (or warps') arrivals, in steps: the last one arrives latest.
ARRIVAL_SHAPES = ((0, 3, 10, 8, 4, -1, 6, 9), (5, 0, 2, 12, 7, 3, 1, 6), (2, 2, 9, 4, 0, 7, 3, 5),
                  (8, 1, 4, 0, 6, 3, 11, 2), (3, 6, 0, 5, 9, 2, 4, 14), (0, 4, 4, 7, 1, 10, 5, 3),
                  (6, 2, 8, 1, 3, 0, 9, 4), (1, 7, 3, 15, 2, 5, 0, 6), (4, 0, 6, 2, 10, 1, 8, 3),
                  (9, 3, 0, 6, 2, 12, 5, 1))


def arrivals_of(shape: tuple[int, ...], n: int, base: int, step: int) -> list[int]:
    return [base + step * (o - min(shape[:n])) for o in shape[:n]]


@register
class BarrierWaiting(CodeFamily):
    """D-4: arrival times at ``__syncthreads()`` → the release, the waits, their share."""

    cell = "D-4"
    main_answer = "wait_share"
    answer_specs = {
        "release": sp.cycles("arrivals"),
        "waiting_threads": sp.count("threads", "block"),
        "total_wait": sp.cycles("arrivals", "release"),
        "wait_share": sp.fraction("total_wait", "release", "arrivals"),
        "release_gain": sp.cycles("arrivals"),
        "new_share": sp.fraction("arrivals"),
    }

    def space(self, level, gpu):
        if level == 1:
            for n in (4, 5, 6, 7, 8):
                for shape in ARRIVAL_SHAPES:
                    for base in (120, 200, 250, 300):
                        for step in (10, 20, 30):
                            yield {"arrivals": arrivals_of(shape, n, base, step)}
            return
        for T in (100, 136, 200, 232, 168, 240):
            W = ceiling(T, WARP)
            for shape in ARRIVAL_SHAPES:
                for base in (400, 500, 600):
                    for step in (20, 40, 60):
                        p = {"block": [T, 1, 1], "arrivals": arrivals_of(shape, W, base, step)}
                        if level == 3:
                            p["ask"] = "balance"
                        yield p

    def variant(self, params) -> str:
        return "balance" if params.get("ask") else "warps" if "block" in params else "threads"

    def situation(self, params, solved) -> str:
        return "partial" if "block" in params else "last"

    def weights(self, params) -> list[int]:
        if "block" not in params:
            return [1] * len(params["arrivals"])
        present = th.launch(params["block"]).present()
        return [int(p) for p in present]

    def solve(self, params, gpu, explain=True):
        weights = self.weights(params)
        r = bar_engine.barrier_wait(params["arrivals"], weights, explain=explain)
        answers: dict[str, Any] = {"release": bar_engine.plain(r.release)}
        if "block" in params:
            answers["waiting_threads"] = r.threads
        answers["total_wait"] = bar_engine.plain(r.total_wait)
        answers["wait_share"] = float(r.share)
        data: dict[str, Any] = {"wait": r, "ctx": wait_context(params, r)}
        steps = list(r.steps)
        if params.get("ask") == "balance":
            after, gain = bar_engine.balanced(r, explain=explain)
            answers["release_gain"] = bar_engine.plain(r.release - after.release)
            answers["new_share"] = float(after.share)
            data["after"] = after
            data["main_answer"] = "new_share"
            data["ctx"].update(release2=bar_engine.plain(after.release),
                               wait2=bar_engine.plain(after.total_wait), share2=float(after.share))
            if explain:
                steps += [gain, *[s for s in bar_engine.wait_steps(after)[1:]]]
                steps[-2].key, steps[-1].key = "bar_new_total", "bar_new_share"
        if explain:
            data["steps"] = steps
        return Solved(answers, data)

    def in_cell(self, params, gpu, solved):
        r = solved.data["wait"]
        if r.arrivals.count(r.release) > 1:
            return False                    # one thread (or warp) arrives last
        return super().in_cell(params, gpu, solved)

    def misconceptions(self, params, gpu, solved):
        r = solved.data["wait"]
        N, T, W = r.threads, r.release, r.total_wait
        first = min(r.arrivals)
        out = [
            Misconception("share_of_work", {"wait_share": float(W / r.arrival_sum)}),
            Misconception("longest_wait_share", {"wait_share": float(r.longest_wait / T)}),
            Misconception("last_thread_left_out", {"wait_share": float(W / ((N - r.weights[r.last]) * T))}),
            Misconception("spread_share", {"wait_share": float((T - first) / T)}),
        ]
        if "block" in params:
            plain = bar_engine.barrier_wait(list(r.arrivals))
            full = bar_engine.barrier_wait(list(r.arrivals), [WARP] * len(r.arrivals))
            out += [Misconception("warps_not_threads", {"total_wait": bar_engine.plain(plain.total_wait),
                                                        "wait_share": float(plain.share)}),
                    Misconception("tail_as_full", {"total_wait": bar_engine.plain(full.total_wait),
                                                   "waiting_threads": full.threads,
                                                   "wait_share": float(full.share)})]
        if "after" in solved.data:
            after = solved.data["after"]
            out += [Misconception("balance_changes_nothing", {"new_share": float(r.share)}),
                    Misconception("gain_over_release", {"new_share": float((r.release - after.release) / r.release)}),
                    Misconception("share_of_work", {"new_share": float(after.total_wait / after.arrival_sum)})]
        return out

    def figure(self, params, gpu, solved):
        r = solved.data["wait"]
        return {"kind": "barrier_timeline", "arrivals": [bar_engine.plain(t) for t in r.arrivals],
                "weights": list(r.weights), "unit": "cycles", "grouped": "block" in params}


def wait_context(params: dict[str, Any], r: bar_engine.BarrierWait) -> dict[str, Any]:
    times = [bar_engine.plain(t) for t in r.arrivals]
    return {"N": r.threads, "n_arr": len(times), "T_last": bar_engine.plain(r.release),
            "j_last": r.last, "S_t": bar_engine.plain(r.arrival_sum),
            "W_tot": bar_engine.plain(r.total_wait), "first": min(times),
            "times_text": ", ".join(map(str, times)),
            "waits_text": " + ".join(f"{bar_engine.plain(w * n):,}" for w, n in zip(r.waits, r.weights)),
            "weights_text": ", ".join(map(str, r.weights)), "tail": r.weights[-1],
            "T": params["block"][0] if "block" in params else len(times),
            "longest": bar_engine.plain(r.longest_wait)}


# ---------------------------------------------------------------------------------------------
# D-5: which barrier an exchange needs

#: One-dimensional reads (the slot each thread reads, over t = threadIdx.x), by level.
READS_1D = {
    1: ["t", "t ^ 1", "t ^ 2", "t ^ 16", "31 - t", "(t + 1) % 32", "(t + 8) % 32", "(t & ~1)",
        "t / 2 * 2", "(t * 3) % 32", "(t + 31) % 32", "t ^ 5"],
    2: ["t", "t ^ 1", "t ^ 16", "t ^ 32", "(t + 32) % blockDim.x", "blockDim.x - 1 - t",
        "(t + 1) % blockDim.x", "(t & ~31) | ((t + 1) & 31)", "t ^ 31", "(t / 32) * 32",
        "(t + 16) % blockDim.x", "t % 32"],
}
#: Two-dimensional reads: (the code's tile[row][column], the partner's linear index).
READS_2D = (
    (("tx", "ty"), "threadIdx.x * blockDim.x + threadIdx.y"),
    (("ty", "blockDim.x - 1 - tx"), "threadIdx.y * blockDim.x + (blockDim.x - 1 - threadIdx.x)"),
    (("(ty + 1) % blockDim.y", "tx"), "((threadIdx.y + 1) % blockDim.y) * blockDim.x + threadIdx.x"),
    (("ty", "tx ^ 1"), "threadIdx.y * blockDim.x + (threadIdx.x ^ 1)"),
    (("ty ^ 1", "tx"), "(threadIdx.y ^ 1) * blockDim.x + threadIdx.x"),
)
BARRIERS = ("none", "syncwarp", "syncthreads")


@lru_cache(maxsize=1024)
def _partners(block: tuple, partner: str, one_d: bool) -> br.Partners:
    lets = ["int t = threadIdx.x"] if one_d else []
    return br.partners(th.code(th.launch(list(block)), lets), partner)


@register
class BarrierNeeded(CodeFamily):
    """D-5: a shared-memory exchange → the threads that read another warp's write, and the least
    barrier between the write and the read."""

    cell = "D-5"
    main_answer = ""            # the barrier is one of named options, written by the writer
    answer_specs = {
        "barrier": sp.choice("block", "partner"),
        "warps": sp.count("warps", "block", compute=lambda v, gpu: ceiling(_threads(v["block"]), WARP)),
        "cross_warp_reads": sp.count("threads", "block", "partner"),
    }

    def space(self, level, gpu):
        if level in (1, 2):
            for T in ((32,) if level == 1 else (64, 96, 128, 256, 512)):
                for read in READS_1D[level]:
                    if read == "t ^ 32" and T % 64:
                        continue        # thread 64 of 96 would read slot 96: outside the block
                    yield {"block": [T, 1, 1], "read": read, "partner": read}
            return
        for dx, dy in ((8, 8), (16, 16), (32, 32), (16, 8), (32, 8), (8, 4)):
            for (row, col), partner in READS_2D:
                if partner.startswith("threadIdx.x * blockDim.x") and dx != dy:
                    continue                    # a transpose reads a square tile
                yield {"block": [dx, dy, 1], "read": [row, col], "partner": partner}

    def variant(self, params) -> str:
        return "tile" if params["block"][1] > 1 else "warp" if params["block"][0] == WARP else "block"

    def situation(self, params, solved) -> str:
        barrier = solved.answers["barrier"]
        if barrier == "syncwarp" and solved.answers["warps"] > 1:
            return "inwarp"
        return {"none": "own", "syncwarp": "lockstep", "syncthreads": "cross"}[barrier]

    def solve(self, params, gpu, explain=True):
        p = _partners(tuple(params["block"]), params["partner"], params["block"][1] == 1)
        # the barrier first: it is what the options of the card name
        answers = {"barrier": p.barrier, "warps": th.launch(params["block"]).warps_per_block,
                   "cross_warp_reads": p.cross_warp}
        data: dict[str, Any] = {"partners": p, "ctx": {
            "T": p.code.launch.threads_per_block, "W": p.code.launch.warps_per_block,
            "n_o": p.own, "n_w": p.same_warp, "n_x": p.cross_warp,
            "warps_crossed": sum(1 for v in p.cross_by_warp if v)}}
        if explain:
            data["steps"] = cs.partner_steps(p) + [cs.barrier_step(p)]
        return Solved(answers, data)

    def in_cell(self, params, gpu, solved):
        return True

    def misconceptions(self, params, gpu, solved):
        barrier = solved.answers["barrier"]
        out = []
        if barrier != "none":
            out.append(Misconception("warp_lockstep" if barrier == "syncwarp" else "no_barrier_needed",
                                     {"barrier": "none"}))
        if barrier == "syncthreads":
            out.append(Misconception("warp_barrier_suffices", {"barrier": "syncwarp"}))
        if barrier != "syncthreads":
            out.append(Misconception("barrier_always_block_wide", {"barrier": "syncthreads"}))
        if barrier == "none":
            out.append(Misconception("barrier_after_every_write", {"barrier": "syncwarp"}))
        out.append(Misconception("fence_as_barrier", {"barrier": "threadfence"}))
        return out

    def figure(self, params, gpu, solved):
        p = solved.data["partners"]
        kinds = "".join(p.kinds)
        rows = [kinds[w * WARP:(w + 1) * WARP].ljust(WARP, ".")
                for w in range(p.code.launch.warps_per_block)]
        return {"kind": "lane_grid", "legend": "partners", "rows": rows,
                "title": "lanes.title_partners", "values": {"T": p.code.launch.threads_per_block}}


def _threads(block) -> int:
    x, y, z = (list(block) + [1, 1])[:3]
    return x * y * z

