"""The worked number of a concept card (cell L-6): an example that shows what the card claims.

Each card names its example (``example = "<kind>"`` in ``templates/concepts/l6.en.toml``). A kind
is a small computation by the engine (an occupancy, a latency to hide, a divergent warp, a launch's
waves, …), a list of candidate numbers, and the claim the card makes about them: a card on a block
cap that binds needs numbers where the block cap binds, a card on fewer blocks than SMs a grid
smaller than the GPU. The example is drawn from the candidates, starting at a place fixed by the
card id, until the claim holds on the card's GPU; no candidate that shows it is an error (a test
draws every card on every GPU). A kind that needs one of NVIDIA's allocation rules the card's GPU
lacks (the notes' SM has no allocation units and no reserve) is worked on the A100, and its note
says so. ``none``: the card's point has no number to work (a note on the warp's width).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from typing import Any, Callable

from quizgen.engine.arith import ceiling
from quizgen.engine.derivation import Step
from quizgen.errors import QuizgenError
from quizgen.gpus import GPU, get_gpu

#: Facts of one computed example: the numbers its claim and its note read.
Facts = dict[str, Any]
#: (gpu, candidate) → (steps, index from which the latency whys apply, facts)
Build = Callable[[GPU, dict[str, Any]], tuple[list[Step], int, Facts]]


@dataclass(frozen=True)
class Kind:
    """One kind of worked number: what it computes and what it must show."""

    note: str                                   # [L-6-example] key of its note
    candidates: tuple[dict[str, Any], ...]
    build: Build
    shows: Callable[[Facts], bool]              # the card's claim, on the computed numbers
    needs: Callable[[GPU], bool] = lambda gpu: True   # a rule the card's GPU must have
    more: tuple[dict[str, Any], ...] = ()       # tried last: numbers for an SM the others miss


def _occupancy(gpu: GPU, v: dict[str, Any], keys: tuple[str, ...], model: str = "textbook"
               ) -> tuple[list[Step], Facts]:
    from quizgen.engine.occupancy import launch_config, occupancy

    cfg = launch_config(v["T"], v.get("r", 32), v.get("s", 0), v.get("dyn", 0),
                        optin=v.get("optin"), carveout=v.get("c", -1))
    from quizgen.problems.applicability import keep_applicable_notes

    res = occupancy(gpu, cfg, model=model, explain=True)
    keep_applicable_notes(res.steps, res.limiter)       # the cliff is remarked on a binding lid
    lids = [x for x in res.limits.values() if x is not None]
    facts = {**v, "blocks": res.blocks_per_sm, "warps": res.active_warps, "occ": res.occupancy,
             "limiter": list(res.limiter), "lids": lids, "alloc": res.smem_per_block_allocated,
             "model": model, "sm_smem": res.smem_per_sm_available, "full": gpu.smem_per_sm}
    return [st for st in res.steps if st.key in keys], facts


_LIDS = ("blocks_by_regs", "blocks_by_smem", "blocks_by_warps", "blocks_cap", "blocks_per_sm",
         "active_warps", "occupancy")


def _plain(keys: tuple[str, ...]) -> Build:
    def build(gpu: GPU, v: dict[str, Any]):
        steps, facts = _occupancy(gpu, v, keys)
        return steps, len(steps), facts
    return build


def _before_after(keys: tuple[str, ...], change: Callable[[dict], dict]) -> Build:
    """The launch after a change, worked in full; the one before it only counted (its blocks and
    occupancy go to the note), so no step is shown twice."""
    def build(gpu: GPU, v: dict[str, Any]):
        _, before = _occupancy(gpu, v, ())
        after_v = change(v)
        steps, facts = _occupancy(gpu, after_v, keys)
        facts.update({"before_blocks": before["blocks"], "before_occ": before["occ"],
                      "before_warps": before["warps"], "T0": v["T"], "r0": v.get("r", 32),
                      "s0": v.get("s", 0)})
        return steps, len(steps), facts
    return build


def _cliff(gpu: GPU, v: dict[str, Any]):
    from quizgen.engine import whatif
    from quizgen.engine.occupancy import launch_config

    steps, facts = _occupancy(gpu, v, ("regs_per_block", "blocks_by_regs", "blocks_per_sm",
                                       "active_warps", "occupancy"))
    change = whatif.more_registers(gpu, launch_config(v["T"], v["r"]), v["d"])
    facts.update({"after_blocks": change.after.blocks_per_sm, "after_occ": change.value})
    steps = steps + list(change.steps)
    return steps, len(steps), facts


def _exact(keys: tuple[str, ...]) -> Build:
    def build(gpu: GPU, v: dict[str, Any]):
        steps, facts = _occupancy(gpu, v, keys, model="exact")
        _, book = _occupancy(gpu, v, (), model="textbook")
        facts.update({"book_warps": book["warps"], "book_blocks": book["blocks"]})
        if "dyn" in v:          # the same launch without the opt-in, and without its dynamic bytes
            _, plain = _occupancy(gpu, {**v, "optin": None}, (), model="exact")
            _, static = _occupancy(gpu, {**v, "dyn": 0, "optin": None}, (), model="exact")
            facts.update({"without_optin": plain["blocks"], "static_only": static["blocks"]})
        return steps, len(steps), facts
    return build


def _hiding(gpu: GPU, v: dict[str, Any], ilp: int = 1):
    from quizgen.engine import latency

    return latency.hide_latency(v["L"], v["W"], schedulers=gpu.schedulers_per_sm, ilp=ilp,
                                max_warps=gpu.max_warps_per_sm, explain=True)


def _hide(count: int) -> Build:
    def build(gpu: GPU, v: dict[str, Any]):
        res = _hiding(gpu, v, v.get("k", 1))
        facts = {**v, "n_s": res.warps_per_scheduler, "need": res.warps_needed,
                 "cap": gpu.max_warps_per_sm, "N": gpu.schedulers_per_sm}
        if v.get("k", 1) > 1:
            facts["need_without"] = _hiding(gpu, v).warps_needed
        steps = res.steps[:count]
        return steps, 0, facts
    return build


def _over_cap(gpu: GPU, v: dict[str, Any]):
    res = _hiding(gpu, v)
    facts = {**v, "n_s": res.warps_per_scheduler, "need": res.warps_needed,
             "cap": gpu.max_warps_per_sm, "N": gpu.schedulers_per_sm}
    keys = ("warps_per_scheduler", "warps_needed", "deficit", "ilp_factor", "warps_with_ilp")
    return [st for st in res.steps if st.key in keys], 0, facts


def _littles(gpu: GPU, v: dict[str, Any]):
    from quizgen.engine import latency

    res = latency.hide_latency(v["L"], 1, schedulers=gpu.schedulers_per_sm, throughput=1,
                               ilp=v["k"], max_warps=gpu.max_warps_per_sm, explain=True)
    keys = ("concurrency", "warps_per_scheduler", "warps_needed", "latency")
    steps = [st for st in res.steps if st.key in keys]
    facts = {**v, "need": res.warps_needed, "latency": v["L"], "N": gpu.schedulers_per_sm,
             "cap": gpu.max_warps_per_sm,
             "shows_latency": any(st.key == "latency" and st.result == v["L"] for st in steps)}
    return steps, 0, facts


def _memory(keys: tuple[str, ...]) -> Build:
    def build(gpu: GPU, v: dict[str, Any]):
        from quizgen.engine import bound

        kb = bound.classify_kernel(v["b_ld"], v["b_st"], v["F"], load_latency=v["L"], gpu=gpu,
                                   explain=True)
        facts = {**v, "bound": kb.bound, "AI": kb.arithmetic_intensity,
                 "balance": kb.machine_balance, "path": kb.critical_path}
        return [st for st in kb.steps if st.key in keys], 0, facts
    return build


def _compute_bound(gpu: GPU, v: dict[str, Any]):
    steps, _, facts = _memory(("arithmetic_intensity", "machine_balance"))(gpu, v)
    res = _hiding(gpu, {"L": v["L"], "W": v["W"]})
    facts.update({"need": res.warps_needed, "cap": gpu.max_warps_per_sm, "W": v["W"]})
    return steps + res.steps[:2], 0, facts


def _warps(keys: tuple[str, ...]) -> Build:
    def build(gpu: GPU, v: dict[str, Any]):
        from quizgen.engine import warps

        block = v.get("block") or [v["T"], 1, 1]
        bw = warps.block_warps(block, explain=True)
        p = block[0] * block[1] * block[2]
        facts = {**v, "P": p, "warps": bw.warps, "wasted": bw.wasted_lanes, "Dx": block[0]}
        return [st for st in bw.steps if st.key in keys], 0, facts
    return build


def _divergence(gpu: GPU, v: dict[str, Any]):
    from quizgen.engine import divergence

    branches = [{"lanes": n, "cost": c} for n, c in zip(v["split"], v["costs"])]
    d = divergence.divergence(branches, explain=True)
    keys = ("serialised_time", "baseline", "slowdown", "lane_utilisation")
    facts = {**v, "slowdown": d.slowdown, "taken": sum(1 for n in v["split"] if n),
             "serialised": d.serialised}
    return [st for st in d.steps if st.key in keys], 0, facts


def _uniform(gpu: GPU, v: dict[str, Any]):
    from quizgen.engine import divergence

    branches = [{"lanes": n, "cost": c} for n, c in zip(v["split"], v["costs"])]
    d = divergence.divergence(branches, explain=True)
    saved, more = divergence.uniform_saving(branches, explain=True)
    steps = [st for st in d.steps if st.key in ("serialised_time", "baseline")] + list(more)
    return steps, 0, {**v, "saved": saved, "taken": sum(1 for n in v["split"] if n)}


def _grid(keys: tuple[str, ...]) -> Build:
    def build(gpu: GPU, v: dict[str, Any]):
        from quizgen.engine import grid

        S = gpu.num_sms
        G = max(1, int(v["G"] * S))
        w = grid.waves(G, S, v["B"], explain=True)
        facts = {"G": G, "S": S, "B": v["B"], "tail": w.tail_blocks, "slots": w.slots,
                 "idle": S - min(G, S), "tail_sms": w.tail_sms, "waves": w.waves}
        return [st for st in w.steps if st.key in keys], 0, facts
    return build


def _cap_can_bind(gpu: GPU) -> bool:
    """Whether the block cap can bind below a full SM: fewer block slots than warp slots."""
    return gpu.max_blocks_per_sm < gpu.max_warps_per_sm


def _block_can_outgrow(gpu: GPU) -> bool:
    """Whether one block can ask for more registers than the SM has."""
    return gpu.max_threads_per_block * gpu.max_regs_per_thread > gpu.regs_per_sm


def _has_rules(gpu: GPU) -> bool:
    return gpu.reg_alloc_unit > 1


def _has_reserve(gpu: GPU) -> bool:
    return gpu.reserved_smem_per_block > 0


def _has_optin(gpu: GPU) -> bool:
    return gpu.smem_per_block_optin > 48 * 1024 and not gpu.is_textbook


def _has_carveout(gpu: GPU) -> bool:
    return bool(gpu.smem_carveout_kb)


def _doubled(v: dict[str, Any]) -> dict[str, Any]:
    return {**v, "T": 2 * v["T"]}


def _fewer_regs(v: dict[str, Any]) -> dict[str, Any]:
    return {**v, "r": v["r"] - v["d"]}


def _smaller_tile(v: dict[str, Any]) -> dict[str, Any]:
    return {**v, "s": v["s"] // 2}


_REGS = ({"T": 256, "r": 64}, {"T": 256, "r": 80}, {"T": 128, "r": 48}, {"T": 256, "r": 96},
         {"T": 512, "r": 40}, {"T": 128, "r": 72})
_HIDE = ({"L": 400, "W": 40}, {"L": 300, "W": 50}, {"L": 240, "W": 40}, {"L": 480, "W": 60},
         {"L": 200, "W": 25})
_MEMORY = ({"b_ld": 16, "b_st": 4, "F": 10, "L": 400}, {"b_ld": 8, "b_st": 4, "F": 24, "L": 500},
           {"b_ld": 32, "b_st": 8, "F": 16, "L": 450})
_TWO_PATHS = ({"split": (20, 12), "costs": (30, 30)}, {"split": (24, 8), "costs": (40, 40)},
              {"split": (16, 16), "costs": (25, 25)})

KINDS: dict[str, Kind] = {
    # occupancy: the lids, the floor, the ratio of warps
    "occupancy": Kind("occupancy", _REGS,
                      _plain(("regs_per_block", "blocks_by_regs", "blocks_per_sm", "active_warps", "occupancy")),
                      lambda f: 0 < f["occ"] < 1 and "registers" in f["limiter"],
                      more=({"T": 256, "r": 48}, {"T": 128, "r": 60})),
    "all_lids": Kind("occupancy", ({"T": 256, "r": 40, "s": 16384}, {"T": 128, "r": 64, "s": 24576},
                                   {"T": 512, "r": 32, "s": 32768}, {"T": 256, "r": 48, "s": 20480}),
                     _plain(_LIDS), lambda f: len(set(f["lids"])) >= 3,
                     more=({"T": 256, "r": 48, "s": 16384}, {"T": 128, "r": 56, "s": 12288})),
    "floor": Kind("occupancy", ({"T": 256, "r": 130}, {"T": 256, "r": 90}, {"T": 128, "r": 200},
                                {"T": 512, "r": 40}, {"T": 256, "r": 70}),
                  _plain(("regs_per_block", "blocks_by_regs", "blocks_per_sm", "active_warps", "occupancy")),
                  lambda f: f["blocks"] >= 1 and (f["regs_sm"] / (f["T"] * f["r"])) % 1 >= 0.5,
                  more=({"T": 256, "r": 40}, {"T": 256, "r": 48}, {"T": 128, "r": 48})),
    "partial_warp_counts": Kind("occupancy", ({"T": 100, "r": 32}, {"T": 200, "r": 32},
                                              {"T": 72, "r": 32}, {"T": 48, "r": 40}),
                                _plain(("warps_per_block", "blocks_per_sm", "active_warps",
                                        "occupancy")),
                                lambda f: f["T"] % 32 and f["warps"] == f["blocks"] * ceiling(f["T"], 32)),
    "block_cap": Kind("block_cap", ({"T": 32, "r": 32}, {"T": 64, "r": 16}, {"T": 32, "r": 16},
                                    {"T": 64, "r": 32}),
                      _plain(("blocks_by_regs", "blocks_by_warps", "blocks_cap", "blocks_per_sm",
                              "active_warps", "occupancy")),
                      lambda f: f["limiter"] == ["blocks"] and f["occ"] < 1, _cap_can_bind),
    "a100": Kind("occupancy", ({"T": 256, "r": 64}, {"T": 128, "r": 64}),
                 _plain(("regs_per_block", "blocks_by_regs", "blocks_per_sm", "active_warps", "occupancy")),
                 lambda f: f["warps"] == 32 and f["occ"] == 0.5, lambda gpu: gpu.name == "a100"),
    "cliff": Kind("cliff", ({"T": 256, "r": 128, "d": 2}, {"T": 512, "r": 64, "d": 2},
                            {"T": 256, "r": 64, "d": 2}, {"T": 128, "r": 128, "d": 2}),
                  _cliff, lambda f: 0 < f["after_occ"] <= f["occ"] / 2,
                  more=({"T": 512, "r": 32, "d": 2}, {"T": 1024, "r": 32, "d": 2},
                        {"T": 512, "r": 48, "d": 2})),
    "cannot_fit": Kind("cannot_fit", ({"T": 512, "r": 255}, {"T": 1024, "r": 128},
                                     {"T": 1024, "r": 96}),
                       _plain(("regs_per_block", "blocks_by_regs", "blocks_per_sm", "occupancy")),
                       lambda f: f["blocks"] == 0, _block_can_outgrow,
                       more=({"T": 1024, "r": 63}, {"T": 1024, "r": 48})),
    "fewer_regs": Kind("fewer_regs", ({"T": 256, "r": 72, "d": 8}, {"T": 256, "r": 80, "d": 16},
                                      {"T": 128, "r": 96, "d": 16}, {"T": 256, "r": 48, "d": 8}),
                       _before_after(("regs_per_block", "blocks_by_regs", "blocks_per_sm",
                                      "active_warps", "occupancy"), _fewer_regs),
                       lambda f: f["blocks"] > f["before_blocks"],
                       more=({"T": 256, "r": 48, "d": 8}, {"T": 256, "r": 40, "d": 8},
                             {"T": 128, "r": 60, "d": 12})),
    "smaller_tile": Kind("smaller_tile", ({"T": 256, "r": 32, "s": 49152},
                                          {"T": 128, "r": 32, "s": 32768},
                                          {"T": 256, "r": 16, "s": 40960}),
                         _before_after(("blocks_by_smem", "blocks_per_sm", "active_warps",
                                        "occupancy"), _smaller_tile),
                         lambda f: f["blocks"] > f["before_blocks"],
                       more=({"T": 256, "r": 48, "d": 8}, {"T": 256, "r": 40, "d": 8},
                             {"T": 128, "r": 60, "d": 12})),
    "bigger_block": Kind("bigger_block", ({"T": 32, "r": 32}, {"T": 64, "r": 32},
                                          {"T": 32, "r": 16}),
                         _before_after(("blocks_by_warps", "blocks_cap", "blocks_per_sm",
                                        "active_warps", "occupancy"), _doubled),
                         lambda f: f["occ"] > f["before_occ"], _cap_can_bind),
    # NVIDIA's allocation rules (on the A100 where the card's GPU has none)
    "granularity": Kind("exact", ({"T": 64, "r": 65}, {"T": 64, "r": 75}, {"T": 64, "r": 90},
                                  {"T": 256, "r": 57}),
                        _exact(("regs_per_warp_allocated", "warps_per_subpartition",
                                "blocks_by_regs", "active_warps", "occupancy")),
                        lambda f: f["warps"] < f["book_warps"], _has_rules,
                        more=({"T": 256, "r": 25}, {"T": 192, "r": 21}, {"T": 128, "r": 51})),
    "reserve": Kind("exact", ({"T": 256, "r": 32, "s": 16384}, {"T": 128, "r": 32, "s": 24576},
                              {"T": 256, "r": 32, "s": 40960}),
                    _exact(("smem_per_block_allocated", "blocks_by_smem", "blocks_per_sm",
                            "active_warps")),
                    lambda f: f["alloc"] > f["s"], _has_reserve),
    "optin": Kind("exact", ({"T": 256, "r": 32, "dyn": 65536, "optin": 65536},
                            {"T": 256, "r": 32, "dyn": 81920, "optin": 81920}),
                  _exact(("smem_per_block_allocated", "blocks_by_smem", "blocks_per_sm",
                          "active_warps")),
                  lambda f: f["without_optin"] == 0 and f["blocks"] >= 1, _has_optin),
    "dynamic": Kind("exact", ({"T": 256, "r": 32, "dyn": 16384}, {"T": 128, "r": 32, "dyn": 24576},
                              {"T": 256, "r": 32, "dyn": 32768}),
                    _exact(("smem_per_block_allocated", "blocks_by_smem", "blocks_per_sm",
                            "active_warps")),
                    lambda f: f["alloc"] >= f["dyn"] > 0 and f["blocks"] < f["static_only"],
                    _has_rules),
    "carveout": Kind("exact", ({"T": 256, "r": 32, "s": 16384, "c": 30},
                               {"T": 256, "r": 32, "s": 16384, "c": 45},
                               {"T": 256, "r": 32, "s": 16384, "c": 60}),
                     _exact(("smem_carveout", "blocks_by_smem", "blocks_per_sm", "active_warps")),
                     lambda f: f["sm_smem"] > f["c"] * f["full"] // 100, _has_carveout),
    # latency hiding
    "hide": Kind("latency", _HIDE, _hide(3),
                 lambda f: f["n_s"] >= 2 and f["need"] <= f["cap"]),
    "homework": Kind("homework", ({"L": 120, "W": 10},), _hide(3), lambda f: f["n_s"] == 12),
    "plateau": Kind("latency", _HIDE, _hide(3), lambda f: f["need"] < f["cap"]),
    "over_cap": Kind("latency", ({"L": 400, "W": 20}, {"L": 600, "W": 25}, {"L": 400, "W": 10},
                                 {"L": 800, "W": 20}),
                     _over_cap, lambda f: f["need"] > f["cap"]),
    "one_per_load": Kind("latency", ({"L": 400, "W": 1}, {"L": 500, "W": 1}, {"L": 300, "W": 1}),
                         _hide(3), lambda f: f["need"] > f["cap"]),
    "ilp": Kind("ilp", ({"L": 400, "W": 10, "k": 4}, {"L": 300, "W": 15, "k": 2},
                        {"L": 600, "W": 20, "k": 3}),
                _hide(3), lambda f: f["need"] < f["need_without"]),
    "littles": Kind("littles", ({"L": 400, "k": 4}, {"L": 300, "k": 3}, {"L": 500, "k": 5}),
                    _littles, lambda f: f["shows_latency"] and f["need"] < 4 * f["L"]),
    # memory and the roofline
    "store_off_path": Kind("memory", _MEMORY, _memory(("bytes_moved", "compute_cycles",
                                                       "critical_path")),
                           lambda f: f["b_st"] > 0 and f["path"] < f["L"] + f["F"] + 400),
    "roofline": Kind("memory", _MEMORY, _memory(("bytes_moved", "arithmetic_intensity",
                                                 "machine_balance", "attainable_flops")),
                     lambda f: f["AI"] is not None),
    "memory_bound": Kind("memory", _MEMORY, _memory(("arithmetic_intensity", "machine_balance",
                                                     "attainable_flops")),
                         lambda f: f["bound"] == "memory"),
    "compute_bound": Kind("compute", ({"b_ld": 8, "b_st": 4, "F": 384, "L": 24, "W": 10},
                                      {"b_ld": 8, "b_st": 0, "F": 512, "L": 30, "W": 16},
                                      {"b_ld": 16, "b_st": 4, "F": 768, "L": 32, "W": 12},
                                      {"b_ld": 8, "b_st": 0, "F": 1024, "L": 24, "W": 16}),
                          _compute_bound,
                          lambda f: f["bound"] == "compute" and 4 * f["need"] <= f["cap"]),
    # warps
    "warp_split": Kind("warps", ({"T": 256}, {"T": 128}, {"T": 512}),
                       _warps(("warps", "wasted_lanes", "waste_fraction")),
                       lambda f: f["warps"] >= 2 and not f["wasted"]),
    "partial_warp": Kind("warps", ({"T": 100}, {"T": 200}, {"T": 72}, {"T": 48}),
                         _warps(("warps", "wasted_lanes", "waste_fraction")),
                         lambda f: f["wasted"] > 0),
    "warp_count_proof": Kind("warps", ({"T": 100}, {"T": 200}, {"T": 72}),
                             _warps(("warps", "warps_check", "full_warps", "tail_active")),
                             lambda f: f["T"] % 32 > 0),
    "square_block": Kind("block", ({"block": [30, 30, 1]}, {"block": [20, 20, 1]},
                                   {"block": [24, 24, 1]}),
                         _warps(("threads_per_block", "warps", "wasted_lanes")),
                         lambda f: f["Dx"] % 32 and f["wasted"] > 0),
    # divergence
    "serialises": Kind("divergence", _TWO_PATHS, _divergence,
                       lambda f: f["taken"] >= 2 and f["slowdown"] > 1),
    "split_irrelevant": Kind("divergence", ({"split": (31, 1), "costs": (30, 30)},
                                            {"split": (1, 31), "costs": (40, 40)}),
                             _divergence, lambda f: min(f["split"]) == 1 and f["slowdown"] == 2),
    "empty_branch": Kind("divergence", ({"split": (32, 0), "costs": (30, 20)},
                                        {"split": (32, 0), "costs": (40, 40)}),
                         _divergence, lambda f: f["taken"] == 1 and f["slowdown"] == 1),
    "uniform": Kind("divergence", _TWO_PATHS, _uniform, lambda f: f["saved"] > 0),
    # the launch grid: G is a share of the GPU's SMs
    "too_few_blocks": Kind("grid", ({"G": 0.5, "B": 4}, {"G": 0.75, "B": 2}, {"G": 0.25, "B": 8}),
                           _grid(("sms_with_blocks", "idle_sms", "sm_utilisation")),
                           lambda f: f["G"] < f["S"] and f["idle"] > 0),
    "tail_wave": Kind("grid", ({"G": 25, "B": 8}, {"G": 3.7, "B": 2}, {"G": 12.5, "B": 4}),
                      _grid(("slots", "waves", "tail_blocks", "tail_sms")),
                      lambda f: 0 < f["tail"] < f["slots"]),
    "breadth_first": Kind("grid", ({"G": 8.5, "B": 4}, {"G": 6.25, "B": 2}, {"G": 24.5, "B": 8}),
                          _grid(("slots", "waves", "tail_blocks", "tail_sms")),
                          lambda f: 0 < f["tail"] < f["S"] and f["B"] > 1
                          and f["tail_sms"] == f["tail"]),
}


def _start(card_id: str, n: int) -> int:
    return int.from_bytes(hashlib.blake2b(card_id.encode(), digest_size=4).digest(), "big") % n


def example_gpu(kind: str, gpu: GPU) -> GPU:
    """The GPU the example is worked on: the card's, unless it lacks the rule the kind shows."""
    if kind in KINDS and not KINDS[kind].needs(gpu):
        return get_gpu("a100")
    return gpu


def worked_example(kind: str, card_id: str, gpu: GPU
                   ) -> tuple[list[Step], int, Facts, GPU]:
    """The steps of the card's worked number, the index from which the latency cells' whys
    apply, the facts its note names, and the GPU it is worked on: the first candidate, from a
    place fixed by the card id, whose numbers show the card's claim."""
    if kind == "none":
        return [], 0, {}, gpu
    spec = KINDS.get(kind)
    if spec is None:
        raise QuizgenError(f"card {card_id!r}: unknown example {kind!r}", field="card")
    on = example_gpu(kind, gpu)
    start = _start(card_id, len(spec.candidates))
    ordered = [spec.candidates[(start + i) % len(spec.candidates)]
               for i in range(len(spec.candidates))] + list(spec.more)
    for values in ordered:
        if values.get("r", 0) > on.max_regs_per_thread:
            continue                            # a chip that refuses the launch shows nothing
        steps, numbered_from, facts = spec.build(on, values)
        facts = {"regs_sm": on.regs_per_sm, **facts}
        if spec.shows(facts):
            return steps, numbered_from, facts, on
    raise QuizgenError(f"card {card_id!r}: no {kind} example shows the card on {on.name}",
                       field="card")
