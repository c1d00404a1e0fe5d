"""Exact-rule families (X-1…X-5): NVIDIA's allocation rules against the notes' formulas.

Level 1 is one exact calculation, level 2 the cell's trap in an ordinary case, level 3 a step on
top computed by the engine: the headroom that keeps the blocks just found (X-1 registers, X-2
static and X-3 dynamic shared memory, by the engine's inverse), what a register cap must cut
(X-4) and the resident warps of one GPU against another (X-5). Every draw keeps four options on
its multiple-choice card, from slips that each bend one of NVIDIA's rules.
"""

from __future__ import annotations

import dataclasses
from functools import cache
from typing import Any

from quizgen.engine.arith import ceiling
from quizgen.engine.attribution import attribute
from quizgen.engine.compare import warps_ratio
from quizgen.engine.occupancy import OccupancyResult, launch_config, occupancy
from quizgen.gpus import GPU, get_gpu
from quizgen.problems import sampling
from quizgen.problems.base import Family, Misconception, Solved, distinct_wrong
from quizgen.problems.options import MAX_WRONG, plausible
from quizgen.problems import applicability as when
from quizgen.problems.applicability import Facts, applies
from quizgen.problems import relations as rel
from quizgen.problems import specs as sp
from quizgen.problems.occupancy_families import (LAUNCH, OCC_SPECS, OccupancyFamily, answers_of,
                                                 bent_misconception, shapes_for, with_shape)
from quizgen.problems.registry import register


def model_misconception(key: str, res: OccupancyResult) -> Misconception:
    return Misconception(key, {"blocks_per_sm": res.blocks_per_sm, "active_warps": res.active_warps,
                               "occupancy": res.occupancy})


def textbook_model_key(gpu: GPU) -> str:
    """The slip of the notes' formula on a real GPU, in the words that fit it: an SM before
    cc 7.0 reserves no shared memory per block, so its sentence names the rounding alone."""
    return "textbook_model_rounding" if 0 < gpu.cc_major < 7 else "textbook_model"


def textbook_differs(facts, m) -> bool:
    """The notes' formula gives another number of blocks than NVIDIA's rules (the X trap)."""
    data = facts.solved.data
    return data["textbook"].blocks_per_sm != data["result"].blocks_per_sm


def reserves_smem(facts, m) -> bool:
    """The GPU reserves shared memory for every block (compute capability 8.0 and later)."""
    return facts.gpu.reserved_smem_per_block > 0


def exact_misconceptions(gpu: GPU, res: OccupancyResult, book: OccupancyResult) -> list[Misconception]:
    """The wrong methods on a real GPU, each bending exactly one of NVIDIA's rules (the rest of
    the exact calculation kept): the notes' formula, allocation without its rounding or reserve,
    the register file as one pool, a lid left out, occupancy from blocks, one block too many."""
    cfg = res.config
    out = [model_misconception(textbook_model_key(gpu), book)]
    for key, changed in (("no_reg_rounding", {"reg_alloc_unit": 1}),
                         ("registers_one_pool", {"schedulers_per_sm": 1}),
                         ("no_reserved_smem", {"reserved_smem_per_block": 0}),
                         ("no_smem_rounding", {"smem_alloc_unit": 1})):
        out.append(model_misconception(key, occupancy(bent_gpu(gpu, **changed), cfg, model="exact")))
    w, w_max = res.warps_per_block, gpu.max_warps_per_sm
    sub = res.limits["registers"] is not None and _warps_by_register_file(gpu, res)
    if sub:
        # the warps the register file holds, as if warps need not come in whole blocks
        out.append(Misconception("warps_not_whole_blocks", {
            "active_warps": min(sub, w_max), "occupancy": min(sub, w_max) / w_max}))
    lids = res.limits
    for key, dropped in (("ignore_regs", "registers"), ("ignore_smem", "shared_memory"),
                         ("ignore_warp_cap", "warps"), ("ignore_bmax", "blocks")):
        kept = [v for k, v in lids.items() if k != dropped and v is not None]
        out.append(bent_misconception(key, kept, w, w_max))
    B = res.blocks_per_sm
    out.append(Misconception("occupancy_from_blocks", {"occupancy": B / gpu.max_blocks_per_sm}))
    if B > 1:
        out.append(Misconception("one_block_at_a_time", {
            "blocks_per_sm": 1, "active_warps": w, "occupancy": w / w_max}))
    if 0 < B < gpu.max_blocks_per_sm:
        out.append(Misconception("ceil_not_floor", {
            "blocks_per_sm": B + 1, "active_warps": (B + 1) * w,
            "occupancy": min(1.0, (B + 1) * w / w_max)}))
    return out


def _warps_by_register_file(gpu: GPU, res: OccupancyResult) -> int:
    """P × (warps per sub-partition): the warps whose registers fit, block or no block."""
    regs_warp = res.regs_per_block_allocated // res.warps_per_block if res.warps_per_block else 0
    if not regs_warp:
        return 0
    P = gpu.schedulers_per_sm
    return (gpu.regs_per_sm // P) // regs_warp * P


def enough_options(fam: Family, params: dict[str, Any], gpu: GPU, solved: Solved) -> bool:
    """At least three distinct, plausible wrong answers from the misconceptions that apply
    (a multiple-choice card shows four options)."""
    key = fam.main_answer
    if key not in solved.answers:
        return False
    unit = fam.units.get(key, "")
    wrong = distinct_wrong(solved.answers[key], fam.applicable_misconceptions(params, gpu, solved), key)
    return sum(plausible(m.answers[key], unit) for m in wrong) >= MAX_WRONG


@cache
def _bent_gpu(gpu: GPU, changed: tuple[tuple[str, Any], ...]) -> GPU:
    return gpu.with_overrides(**dict(changed))


def bent_gpu(gpu: GPU, **changed: Any) -> GPU:
    """The GPU with one allocation rule changed (a misconception's model of the chip)."""
    return _bent_gpu(gpu, tuple(sorted(changed.items())))


#: Level 3 of X-1…X-3: which resource's headroom is asked → the answer's key.
HEADROOM = {"regs": "max_regs_per_thread", "smem": "max_smem_per_block", "dyn": "max_dyn_smem"}


def headroom(gpu: GPU, cfg, blocks: int, ask: str):
    """The most registers per thread, static or dynamic shared memory per block (opted in to the
    GPU's maximum) that still keep `blocks` blocks per SM under NVIDIA's rules (engine inverse)."""
    from quizgen.engine.inverse import max_regs_for_blocks, max_smem_for_blocks

    if ask == "regs":
        return max_regs_for_blocks(gpu, cfg, blocks, model="exact")
    if ask == "smem":
        return max_smem_for_blocks(gpu, cfg, blocks, model="exact")
    return max_smem_for_blocks(gpu, dataclasses.replace(cfg, optin=gpu.smem_per_block_optin), blocks,
                               model="exact", dynamic=True)


def headroom_of(ask: str, *inputs: str):
    """The spec's compute: the headroom from the student's own blocks per SM."""
    def compute(v, gpu):
        cfg = launch_config(v["threads_per_block"], v.get("regs_per_thread", 0) if ask != "regs" else 0,
                            v.get("smem_per_block", 0) if ask != "smem" else 0,
                            v.get("dyn_smem", 0) if ask != "dyn" else 0,
                            True if ask == "dyn" else None, v.get("carveout", -1))
        return headroom(gpu, cfg, int(v["blocks_per_sm"]), ask).answer
    return compute


#: Under NVIDIA's rules a lid is not the pool over one block's request (allocation units,
#: reserved memory): blocks per SM follow from the launch, not from the earlier answers.
EXACT_SPECS = {**OCC_SPECS, "blocks_per_sm": sp.count("blocks", *LAUNCH)}


class ExactFamily(OccupancyFamily):
    topic = "exact-rules"
    model = "exact"
    answer_specs = EXACT_SPECS


    def in_cell(self, params, gpu, solved):
        """The draw lands in the cell (`lands`), its level-3 step is real, and its multiple-choice
        card has four options."""
        return (self.lands(params, gpu, solved) and self.headroom_lands(params, solved)
                and enough_options(self, params, gpu, solved))

    def lands(self, params, gpu, solved):
        return True

    def context(self, params, gpu, solved):
        ctx = super().context(params, gpu, solved)
        ctx["tb"] = solved.data["textbook"]
        res = solved.data.get("result")
        if res is not None:         # which of NVIDIA's rules make the count differ from the notes'
            # a fact of the solved problem, found once (every text of the problem asks for it)
            rules = solved.data.get("rules")
            if rules is None:
                rules = solved.data["rules"] = attribute(gpu, res.config).rules()
            ctx.update(rules=rules, rule_g="reg_granularity" in rules,
                       rule_p="subpartitions" in rules, rule_res="reserve" in rules,
                       rule_sg="smem_granularity" in rules)
        return ctx

    #: Each slip is named only where the rule it bends matters here.
    misconception_when = {
        **OccupancyFamily.misconception_when,
        "no_reg_rounding": (when.uses_regs, when.binds("registers")),
        "registers_one_pool": (when.uses_regs, when.binds("registers")),
        "no_reserved_smem": (reserves_smem, when.binds("shared_memory")),
        "no_smem_rounding": (when.binds("shared_memory"),),
        "warps_not_whole_blocks": (when.binds("registers"),),
        "one_block_at_a_time": (when.several_blocks,),
    }

    trap_when = (textbook_differs,)

    def misconceptions(self, params, gpu, solved):
        return exact_misconceptions(gpu, solved.data["result"], solved.data["textbook"])

    def solve(self, params, gpu, explain=True):
        cfg = self.config(params)
        res = occupancy(gpu, cfg, model="exact", explain=explain)
        when.keep_applicable_notes(res.steps, res.limiter)
        book = occupancy(gpu, cfg, model="textbook")
        solved = Solved(answers_of(res), {"result": res, "textbook": book})
        ask = params.get("ask")
        if ask and res.blocks_per_sm >= 1:
            head = headroom(gpu, cfg, res.blocks_per_sm, ask)
            solved.data["headroom"] = head
            solved.answers[HEADROOM[ask]] = head.answer
        return solved

    def headroom_lands(self, params, solved) -> bool:
        """Level 3: the headroom is a real step (it exists and one more breaks it)."""
        if not params.get("ask"):
            return True
        head = solved.data.get("headroom")
        return head is not None and head.answer is not None and head.at_next is not None


@register
class RegisterGranularity(ExactFamily):
    """X-1: registers are allocated per warp in units of 256 (and per sub-partition)."""

    cell = "X-1"
    answer_specs = {**EXACT_SPECS, "max_regs_per_thread": sp.count(
        "registers", "threads_per_block", "smem_per_block", "blocks_per_sm",
        compute=headroom_of("regs"))}

    def gpu_choices(self, level):
        return {1: ("a100", "h100", "v100"), 2: ("a100", "h100", "v100", "b200"),
                3: ("a10", "rtx4090", "t4")}[level]

    def space(self, level, gpu):
        threads = (64, 128, 256, 512, 1024) if level == 1 else sampling.THREADS[2]
        regs = ([r for r in range(20, 130) if r % 8] if level == 1 else
                [r for r in range(20, 256) if r % 8] if level == 2 else range(20, 256, 3))
        for T in threads:
            for r in regs:
                yield ({"threads_per_block": T, "regs_per_thread": r} if level < 3 else
                       {"threads_per_block": T, "regs_per_thread": r, "ask": "regs"})

    def lands(self, params, gpu, solved):
        res, book = solved.data["result"], solved.data["textbook"]
        return (res.blocks_per_sm != book.blocks_per_sm and "registers" in res.limiter
                and res.blocks_per_sm >= 1)


@register
class SharedMemoryGranularity(ExactFamily):
    """X-2: shared memory is rounded up and the driver reserves 1 KB per block (cc ≥ 8.0)."""

    cell = "X-2"
    answer_specs = {**EXACT_SPECS, "max_smem_per_block": sp.bytes_(
        "threads_per_block", "regs_per_thread", "blocks_per_sm", compute=headroom_of("smem"))}

    def gpu_choices(self, level):
        return {1: ("a100", "h100"), 2: ("a100", "h100", "b200"), 3: ("a10", "rtx4090", "a100")}[level]

    def space(self, level, gpu):
        threads = (32, 64, 128, 256) if level == 1 else (64, 96, 128, 192, 256)
        sizes = ([kb * 1024 for kb in range(4, 49)] if level == 1 else
                 [kb * 1024 - d for kb in range(6, 49) for d in (0, 100, 200)] if level == 2 else
                 [kb * 1000 + d for kb in range(6, 49) for d in (0, 24, 72)])
        for T in threads:
            for s in sizes:
                for shape in shapes_for(T, 2)[:3 if level == 1 else 1]:
                    params = {"threads_per_block": T, "regs_per_thread": 32, "smem_per_block": s}
                    yield with_shape(dict(params, ask="smem") if level == 3 else params, shape)

    def lands(self, params, gpu, solved):
        res, book = solved.data["result"], solved.data["textbook"]
        return (gpu.reserved_smem_per_block > 0 and res.limiter == ["shared_memory"]
                and res.blocks_per_sm < book.blocks_per_sm and res.blocks_per_sm >= 1)

    def misconceptions(self, params, gpu, solved):
        res = solved.data["result"]
        sm = res.smem_per_sm_available
        w = res.warps_per_block
        cap = min(gpu.max_blocks_per_sm, gpu.max_warps_per_sm // w)
        # The floor mistake with everything else right: the exact allocation (reserve and
        # rounding included), divided without the floor. The generic textbook no_floor also drops
        # the reserve, so it would be a second mistake under the floor's name.
        out = super().misconceptions(params, gpu, solved)
        frac = min(cap, sm / res.smem_per_block_allocated) if res.smem_per_block_allocated else cap
        if frac != int(frac):       # the cell's own slips first (options keep the first three)
            out.insert(1, Misconception("no_floor", {"blocks_per_sm": round(frac, 3),
                                                     "active_warps": round(frac * w, 3),
                                                     "occupancy": min(1.0, frac * w / gpu.max_warps_per_sm)}))
        return out


@register
class DynamicSmemOptIn(ExactFamily):
    """X-3: dynamic shared memory above 48 KB needs opt-in; the carveout can limit blocks."""

    cell = "X-3"
    answer_specs = {**EXACT_SPECS, "blocks_without_optin": sp.count("blocks", *LAUNCH, "dyn_smem"),
                    "max_dyn_smem": sp.bytes_("threads_per_block", "regs_per_thread", "carveout",
                                              "blocks_per_sm", compute=headroom_of("dyn"))}
    misconception_when = {**ExactFamily.misconception_when, "ignore_carveout": (when.carveout_set,)}
    trap_when = (lambda facts, m: facts.answers["blocks_without_optin"] == 0,)

    def gpu_choices(self, level):
        return {1: ("a100", "h100"), 2: ("a100", "h100", "b200"), 3: ("a100", "h100", "b200", "a10", "rtx4090")}[level]

    def space(self, level, gpu):
        kbs = range(50, 161, 2) if level == 1 else range(50, 228, 2) if level == 2 else range(50, 228, 3)
        carveouts = (-1,) if level < 3 else (-1, 25, 50, 75)
        for T in ((64, 128, 256, 512) if level < 3 else (128, 256, 512)):
            for kb in kbs:
                for c in carveouts:
                    params = {"threads_per_block": T, "regs_per_thread": 32, "dyn_smem": kb * 1024,
                              "optin": True, "carveout": c}
                    yield dict(params, ask="dyn") if level == 3 else params

    def solve(self, params, gpu, explain=True):
        solved = super().solve(params, gpu, explain)
        without = occupancy(gpu, self.config(dict(params, optin=None)), model="exact")
        solved.answers = {"blocks_without_optin": without.blocks_per_sm, **solved.answers}
        solved.data["without"] = without
        return solved

    def lands(self, params, gpu, solved):
        res, without = solved.data["result"], solved.data["without"]
        return (without.blocks_per_sm == 0 and res.blocks_per_sm >= 1
                and "shared_memory" in res.limiter and params["dyn_smem"] <= gpu.smem_per_block_optin)

    def misconceptions(self, params, gpu, solved):
        res = solved.data["result"]
        own = []                    # the cell's own slips first (options keep the first three)
        if params.get("carveout", -1) != -1:
            full = occupancy(gpu, self.config(dict(params, carveout=-1)), model="exact")
            own.append(model_misconception("ignore_carveout", full))
        own.append(Misconception("launch_without_optin", {"blocks_without_optin": res.blocks_per_sm}))
        return own + super().misconceptions(params, gpu, solved)


X5_GPUS = ("t4", "a100", "h100")


@register
class SameKernelManyGpus(ExactFamily):
    """X-5: one kernel on T4, A100 and H100: the limiter changes with the GPU."""

    cell = "X-5"
    main_answer = "occupancy_t4"
    misconception_when: dict = {}       # filtered on the T4's own lids in `misconceptions`
    answer_specs = {key: spec for g in X5_GPUS for key, spec in (
        (f"blocks_per_sm_{g}", sp.count("blocks", *LAUNCH)),
        (f"active_warps_{g}", sp.count("warps", f"blocks_per_sm_{g}", "threads_per_block",
                                       compute=rel.active_warps_on(g))),
        (f"occupancy_{g}", sp.fraction(f"active_warps_{g}", compute=rel.occupancy_on(g))),
        (f"limiter_{g}", sp.limits(*LAUNCH)))}
    answer_specs["warps_ratio"] = sp.ratio(
        "active_warps_h100", "active_warps_t4",
        compute=lambda v, gpu: warps_ratio(v["active_warps_h100"], v["active_warps_t4"]).result)

    trap_when = (lambda facts, m: len({tuple(r.limiter) for r in facts.solved.data["results"].values()}) > 1,)

    def gpu_choices(self, level):
        return ("a100",)

    def space(self, level, gpu):
        threads = (64, 128, 192, 256, 384, 512, 1024) if level == 1 else sampling.THREADS[2]
        regs = (24, 32, 36, 40, 44, 48, 56, 64, 72, 80, 96, 112, 128) if level < 3 else tuple(range(24, 160, 6))
        smems = ((0, 8192, 16384, 24576, 32768, 40960, 49152) if level < 3
                 else tuple(range(0, 49153, 6144)))
        for T in threads:
            for r in regs:
                for s in smems:
                    params = {"threads_per_block": T, "regs_per_thread": r, "smem_per_block": s}
                    yield dict(params, compare="h100_t4") if level == 3 else params

    def solve(self, params, gpu, explain=True):
        cfg = self.config(params)
        results = {name: occupancy(get_gpu(name), cfg, model="exact", explain=explain) for name in X5_GPUS}
        for res in results.values():
            when.keep_applicable_notes(res.steps, res.limiter)
        answers: dict[str, Any] = {}
        for name, res in results.items():
            answers[f"blocks_per_sm_{name}"] = res.blocks_per_sm
            answers[f"active_warps_{name}"] = res.active_warps
            answers[f"occupancy_{name}"] = res.occupancy
            answers[f"limiter_{name}"] = list(res.limiter)
        data = {"results": results, "result": results["a100"],
                "textbook": occupancy(gpu, cfg, model="textbook")}
        if params.get("compare") and results["t4"].active_warps:
            step = warps_ratio(results["h100"].active_warps, results["t4"].active_warps)
            answers["warps_ratio"] = step.result
            data["ratio_step"] = step
        return Solved(answers, data)

    def lands(self, params, gpu, solved):
        results = solved.data["results"]
        limiters = {tuple(r.limiter) for r in results.values()}
        return len(limiters) >= 2 and all(r.blocks_per_sm >= 1 for r in results.values())

    def misconceptions(self, params, gpu, solved):
        """The exact slips made on the T4 (the asked GPU), each named where it applies on the
        T4's own lids, and the slips of carrying an answer over from another GPU."""
        cfg = self.config(params)
        t4 = get_gpu("t4")
        results = solved.data["results"]
        res = results["t4"]
        book = occupancy(t4, cfg, model="textbook")
        facts = Facts(params, t4, Solved({"limiter": res.limiter, "blocks_per_sm": res.blocks_per_sm}, {"result": res}))
        # the cell's own slips first (carrying another GPU's answer; options keep the first three)
        out = [Misconception("same_on_every_gpu", {"occupancy_t4": results["a100"].occupancy}),
               Misconception("t4_has_64_warps", {"occupancy_t4": min(1.0, res.active_warps / 64)}),
               Misconception("copied_h100", {"occupancy_t4": results["h100"].occupancy})]
        for m in exact_misconceptions(t4, res, book):
            if "occupancy" in m.answers and applies(ExactFamily.misconception_when, facts, m):
                out.append(Misconception(m.key, {"occupancy_t4": m.answers["occupancy"]}))
        return out

    def figure(self, params, gpu, solved):
        return None


def _regs_for_warps(gpu: GPU, warps: int, model: str) -> int:
    """The most registers per thread if the register file only had to hold `warps` warps (no
    whole blocks): the slip of going from target warps straight to registers."""
    top = gpu.max_regs_per_thread
    if model == "textbook":
        return min(top, gpu.regs_per_sm // (32 * warps))
    P, g = gpu.schedulers_per_sm, gpu.reg_alloc_unit
    per_warp = (gpu.regs_per_sm // P) // ceiling(warps, P)
    return min(top, per_warp // g * g // 32)


X4_TARGETS = (0.25, 0.375, 0.5, 0.625, 0.75, 1.0)
#: Level 3: what the kernel compiles to today, above the answer (a register cap must cut it).
X4_REGS_NOW = (40, 64, 96, 128, 168, 255)


@register
class InverseRegisters(ExactFamily):
    """X-4: the most registers per thread that keep a target occupancy, solved and checked."""

    cell = "X-4"
    main_answer = "regs_per_thread"
    misconception_when: dict = {}       # each slip below is redone in the question's own model
    #: The trap (one register more breaks the target) is there when a next value exists.
    trap_when = (lambda facts, m: facts.solved.data["inverse"].at_next is not None,)
    answer_specs = {
        "target_blocks": sp.count("blocks", "target_occupancy", "threads_per_block"),
        "regs_per_thread": sp.count("registers", "target_blocks", "threads_per_block", "smem_per_block"),
        "blocks_per_sm": sp.count("blocks", "regs_per_thread", "threads_per_block", "smem_per_block"),
        "occupancy_now": sp.fraction("regs_now", "threads_per_block", "smem_per_block",
                                     compute=lambda v, gpu: occupancy(
                                         gpu, launch_config(v["threads_per_block"], v["regs_now"],
                                                            v.get("smem_per_block", 0)),
                                         model=gpu.default_model).occupancy),
        "regs_to_cut": sp.count("registers", "regs_now", "regs_per_thread",
                                compute=lambda v, gpu: v["regs_now"] - v["regs_per_thread"]),
    }

    def gpu_choices(self, level):
        return {1: ("textbook", "a100", "h100"), 2: ("a100", "h100", "v100"),
                3: ("t4", "a10", "rtx4090")}[level]

    def space(self, level, gpu):
        threads = ((64, 128, 256, 512, 1024) if level == 1 else (64, 96, 128, 192, 256, 384, 512, 768)
                   if level == 2 else (96, 160, 192, 224, 288, 320, 384, 480, 640))
        smems = (0,) if level == 1 else (0, 4096, 12288)
        for T in threads:
            for s in smems:
                for target in X4_TARGETS:
                    for shape in shapes_for(T, 2)[:4 if level == 1 else 1]:
                        params = {"threads_per_block": T, "smem_per_block": s, "target_occupancy": target}
                        if level < 3:
                            yield with_shape(params, shape)
                            continue
                        for now in X4_REGS_NOW:
                            yield with_shape(dict(params, regs_now=now), shape)

    def solve(self, params, gpu, explain=True):
        from quizgen.engine.inverse import max_regs_for_occupancy

        model = gpu.default_model
        cfg = self.config(params)
        inv = max_regs_for_occupancy(gpu, cfg, params["target_occupancy"], model=model)
        book = max_regs_for_occupancy(gpu, cfg, params["target_occupancy"], model="textbook")
        answers: dict[str, Any] = {"target_blocks": inv.target_blocks}
        data: dict[str, Any] = {"inverse": inv, "book": book, "model": model}
        if inv.answer is not None:
            answers["regs_per_thread"] = inv.answer
            answers["blocks_per_sm"] = inv.at_answer.blocks_per_sm if inv.at_answer else None
            now = params.get("regs_now")
            if now is not None and now > inv.answer:
                from quizgen.engine.inverse import registers_to_cut

                res_now, cut, steps = registers_to_cut(gpu, cfg, now, inv)
                answers["occupancy_now"] = res_now.occupancy
                answers["regs_to_cut"] = cut
                data.update(now=res_now, cut_steps=steps)
        return Solved(answers, data)

    def model_for(self, gpu):
        return gpu.default_model

    def lands(self, params, gpu, solved):
        inv = solved.data["inverse"]
        return (inv.answer is not None and 1 <= inv.answer < gpu.max_regs_per_thread
                and inv.at_next is not None
                and ("regs_now" not in params or ("regs_to_cut" in solved.answers
                                                  and solved.data["now"].blocks_per_sm >= 1)))

    def context(self, params, gpu, solved):
        inv = solved.data["inverse"]
        return {**solved.answers, "T": params["threads_per_block"],
                "s": params.get("smem_per_block", 0), "gpu": gpu.to_dict(),
                "gpu_name": gpu.spoken_name, "inv": inv,
                "book": solved.data["book"], "target": params["target_occupancy"],
                "model": solved.data["model"], "r": inv.answer, "B": inv.target_blocks,
                "next": inv.at_next, "at": inv.at_answer, "regs_now": params.get("regs_now"),
                "now": solved.data.get("now")}

    def misconceptions(self, params, gpu, solved):
        """Each slip redone with the engine's inverse in the question's own model, one rule bent."""
        from quizgen.engine.inverse import max_regs_for_blocks

        inv, book, model = solved.data["inverse"], solved.data["book"], solved.data["model"]
        cfg = self.config(params)
        B = inv.target_blocks
        target_warps = ceiling(params["target_occupancy"] * gpu.max_warps_per_sm)
        out = []
        if book.answer is not None:
            out.append(Misconception(textbook_model_key(gpu), {"regs_per_thread": book.answer}))
        out.append(Misconception("warps_not_blocks", {"regs_per_thread": _regs_for_warps(gpu, int(target_warps), model)}))
        for key, the_gpu, blocks in (("one_block_short", gpu, B - 1), ("whole_file_one_block", gpu, 1),
                                     ("no_reg_rounding", bent_gpu(gpu, reg_alloc_unit=1), B),
                                     ("registers_one_pool", bent_gpu(gpu, schedulers_per_sm=1), B)):
            if blocks >= 1 and (key != "whole_file_one_block" or B > 1):
                wrong = max_regs_for_blocks(the_gpu, cfg, blocks, model=model).answer
                if wrong is not None:
                    out.append(Misconception(key, {"regs_per_thread": wrong}))
        if inv.answer is not None:
            out.append(Misconception("no_check_next", {"regs_per_thread": inv.answer + 1}))
        return out

    def figure(self, params, gpu, solved):
        inv = solved.data["inverse"]
        if inv.answer is None:
            return None
        return {"kind": "occupancy_sweep", "vary": "regs",
                "threads_per_block": params["threads_per_block"],
                "smem_per_block": params.get("smem_per_block", 0), "regs_per_thread": inv.answer}
