"""Which of NVIDIA's rules make the exact answer differ from the notes' (textbook) one, and by how much.

The exact model (`quizgen.engine.occupancy`) is the textbook model plus a handful of allocation
rules. `count` solves a launch with any subset of those rules switched on: with none it is the
textbook model, with all of them the exact model (tests hold both). `attribute` then switches the
rules on one at a time, in a fixed order (`RULES`), and records each rule that changes the
count of resident blocks, from what to what, with the numbers the rule works on; it also switches
each rule off alone against the exact model (`without`), which says, for a launch that fails,
what it would do without the rule that stops it ("opted in, 2 blocks fit").

`per_warp=True` starts one step earlier, from seed 004's per-warp count ⌊R_SM/(32·r)⌋ (no blocks
at all), so that whole blocks and the block cap are rules like the others.

Every sentence that explains a real GPU's answer is written from an `Attribution`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from quizgen.engine.arith import ceiling
from quizgen.engine.occupancy import LaunchConfig, align_up_carveout, fails_on_gp10x, carveout_size
from quizgen.errors import QuizgenError
from quizgen.gpus import GPU

#: The exact model's rules, in the order `attribute` switches them on. The two that can stop a
#: launch outright (a block's register and shared-memory ceilings) come last, so that the rules
#: before them show what they change in a launch that runs.
RULES = ("reg_granularity", "subpartitions", "smem_granularity", "reserve", "carveout",
         "barriers", "regs_per_block", "block_limit")

_ALL = frozenset(RULES)


@dataclass(frozen=True, slots=True)
class Count:
    """Resident blocks and warps of one launch under one set of rules."""

    blocks: int
    warps: int
    smem_alloc: int          # bytes one block takes
    smem_sm: int             # shared memory per SM that the blocks share
    regs_warp: int           # registers one warp takes
    per_sub: int | None      # warps that fit in one sub-partition (None: not counted per part)


@dataclass(frozen=True, slots=True)
class Effect:
    """One rule that changed the count: `before` → `after` resident warps (and blocks)."""

    rule: str
    blocks_before: int | float
    blocks_after: int
    warps_before: int
    warps_after: int
    detail: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return {"rule": self.rule, "blocks_before": self.blocks_before,
                "blocks_after": self.blocks_after, "warps_before": self.warps_before,
                "warps_after": self.warps_after, **self.detail}


@dataclass(slots=True)
class Attribution:
    """The textbook count, the exact count, and the rules that lead from one to the other."""

    book_blocks: int | float
    book_warps: int
    exact_blocks: int
    exact_warps: int
    effects: list[Effect]
    #: blocks under the exact model with only this rule switched off
    without: dict[str, int] = field(default_factory=dict)

    @property
    def differs(self) -> bool:
        return self.book_warps != self.exact_warps

    def rules(self) -> list[str]:
        return [e.rule for e in self.effects]

    def effect(self, rule: str) -> Effect | None:
        return next((e for e in self.effects if e.rule == rule), None)

    def to_dict(self) -> dict[str, Any]:
        return {"book_blocks": self.book_blocks, "book_warps": self.book_warps,
                "exact_blocks": self.exact_blocks, "exact_warps": self.exact_warps,
                "effects": [e.to_dict() for e in self.effects], "without": dict(self.without)}


def count(gpu: GPU, cfg: LaunchConfig, rules: frozenset[str] | set[str]) -> Count:
    """Resident blocks under the textbook lids plus the named exact rules."""
    T, r = cfg.threads_per_block, cfg.regs_per_thread
    w = ceiling(T, 32)
    P = gpu.schedulers_per_sm
    by_warps = 0 if T > gpu.max_threads_per_block else gpu.max_warps_per_sm // w
    blocks = min(by_warps, gpu.max_blocks_per_sm)

    if "reg_granularity" in rules:
        g_r = gpu.reg_alloc_unit
        regs_warp = ceiling(r * 32, g_r) * g_r
        regs_block = regs_warp * w
    else:
        regs_warp, regs_block = 32 * r, T * r
    per_sub = None
    if "regs_per_block" in rules and (regs_warp * (ceiling(w, P) * P) > gpu.regs_per_block
                                      or regs_block > gpu.regs_per_block
                                      or fails_on_gp10x(gpu, regs_warp, w)):
        blocks = 0
    elif regs_block:
        if "subpartitions" in rules:
            per_sub = (gpu.regs_per_sm // P) // regs_warp
            blocks = min(blocks, per_sub * P // w)
        else:
            blocks = min(blocks, gpu.regs_per_sm // regs_block)

    reserved = gpu.reserved_smem_per_block if "reserve" in rules else 0
    g_s = gpu.smem_alloc_unit if "smem_granularity" in rules else 1
    static = cfg.smem_per_block + reserved
    smem_alloc = ceiling(static + cfg.dyn_smem, g_s) * g_s
    smem_sm = carveout_size(gpu, cfg.carveout) if "carveout" in rules else gpu.smem_per_sm
    fits = True
    before_volta = 0 < gpu.cc_major < 7         # no opt-in and no carveout there
    if "block_limit" in rules:
        limit = gpu.smem_per_block
        if cfg.optin is not None and static + cfg.optin > gpu.smem_per_block and not before_volta:
            limit = gpu.smem_per_block_optin
        if (cfg.optin is not None and cfg.dyn_smem > cfg.optin) or smem_alloc > limit + reserved:
            fits = False
    if not fits:
        blocks = 0
    elif smem_alloc:
        if "carveout" in rules and smem_sm < smem_alloc and not before_volta:
            try:
                smem_sm = align_up_carveout(gpu, smem_alloc)
            except QuizgenError:        # more than any carveout (only without the per-block limit)
                smem_sm = gpu.smem_per_sm
        blocks = min(blocks, smem_sm // smem_alloc)

    if "barriers" in rules and gpu.barriers_per_sm and cfg.barriers > 0:
        blocks = min(blocks, gpu.barriers_per_sm // cfg.barriers)
    return Count(blocks, blocks * w, smem_alloc, smem_sm, regs_warp, per_sub)


def attribute(gpu: GPU, cfg: LaunchConfig, *, per_warp: bool = False) -> Attribution:
    """Switch the exact rules on one at a time from the textbook count (or, `per_warp`, from the
    notes' per-warp register count) and keep each rule that changes it."""
    T, r = cfg.threads_per_block, cfg.regs_per_thread
    w = ceiling(T, 32)
    effects: list[Effect] = []
    book = count(gpu, cfg, frozenset())
    if per_warp:
        # seed 004: ⌊R_SM/(32·r)⌋ warps, capped by the warp ceiling, no blocks at all
        warps = min(gpu.regs_per_sm // (32 * r), gpu.max_warps_per_sm) if r else gpu.max_warps_per_sm
        start_blocks: int | float = warps / w
        start_warps = warps
        # whole blocks: the register and warp lids in blocks, without the block cap
        by_regs = gpu.regs_per_sm // (T * r) if r else 1 << 30
        whole = min(by_regs, gpu.max_warps_per_sm // w)
        if whole * w != warps:
            effects.append(Effect("whole_blocks", warps / w, whole, warps, whole * w,
                                  {"w": w, "T": T}))
        if book.blocks != whole:
            effects.append(Effect("block_cap", whole, book.blocks, whole * w, book.warps,
                                  {"B_max": gpu.max_blocks_per_sm}))
    else:
        start_blocks, start_warps = book.blocks, book.warps
    on: set[str] = set()
    prev = book
    for rule in RULES:
        on.add(rule)
        cur = count(gpu, cfg, on)
        if cur.blocks != prev.blocks:
            effects.append(Effect(rule, prev.blocks, cur.blocks, prev.warps, cur.warps,
                                  _detail(rule, gpu, cfg, prev, cur)))
        prev = cur
    without = {rule: count(gpu, cfg, _ALL - {rule}).blocks for rule in RULES}
    return Attribution(start_blocks, start_warps, prev.blocks, prev.warps, effects, without)


def _detail(rule: str, gpu: GPU, cfg: LaunchConfig, before: Count, after: Count) -> dict[str, Any]:
    """The numbers a sentence about `rule` needs."""
    r = cfg.regs_per_thread
    asked = cfg.smem_per_block + cfg.dyn_smem
    if rule == "reg_granularity":
        return {"g": gpu.reg_alloc_unit, "need": 32 * r, "alloc": after.regs_warp}
    if rule == "subpartitions":
        return {"P": gpu.schedulers_per_sm, "part": gpu.regs_per_sm // gpu.schedulers_per_sm,
                "per_sub": after.per_sub, "alloc": after.regs_warp,
                "w": ceiling(cfg.threads_per_block, 32)}
    if rule == "regs_per_block":
        w = ceiling(cfg.threads_per_block, 32)
        return {"limit": gpu.regs_per_block, "alloc": after.regs_warp * w,
                "gp10x": fails_on_gp10x(gpu, after.regs_warp, w)}
    if rule == "smem_granularity":
        return {"g": gpu.smem_alloc_unit, "asked": asked, "alloc": after.smem_alloc}
    if rule == "reserve":
        return {"reserve": gpu.reserved_smem_per_block, "asked": asked, "alloc": after.smem_alloc}
    if rule == "carveout":
        return carveout_reason(gpu, cfg, after.smem_alloc)
    if rule == "barriers":
        return {"N_bar": gpu.barriers_per_sm, "b": cfg.barriers}
    if rule == "block_limit":
        optin = cfg.optin is not None
        limit = gpu.smem_per_block_optin if (
            optin and cfg.smem_per_block + gpu.reserved_smem_per_block + cfg.optin > gpu.smem_per_block
        ) else gpu.smem_per_block
        can_opt_in = not 0 < gpu.cc_major < 7          # no opt-in before Volta
        out = {"optin": optin, "limit": limit, "reserve": gpu.reserved_smem_per_block,
               "alloc": after.smem_alloc, "optin_limit": gpu.smem_per_block_optin,
               "dyn": cfg.dyn_smem, "optin_bytes": cfg.optin, "can_opt_in": can_opt_in,
               "with_optin": None}
        if not optin and can_opt_in and (after.smem_alloc
                                          <= gpu.smem_per_block_optin + gpu.reserved_smem_per_block):
            # what the same launch does once it opts in
            from dataclasses import replace

            out["with_optin"] = count(gpu, replace(cfg, optin=cfg.dyn_smem), _ALL).blocks
        return out
    return {}


def carveout_reason(gpu: GPU, cfg: LaunchConfig, smem_alloc: int) -> dict[str, Any]:
    """The shared memory per SM the driver picks, and why: the preference rounded up to a size the
    architecture supports (`rounded`), or raised because one block needs more (`raised`)."""
    default = cfg.carveout == -1
    wanted = gpu.smem_per_sm if default else cfg.carveout * gpu.smem_per_sm // 100
    preference = carveout_size(gpu, cfg.carveout)
    size = preference
    why = "rounded" if preference != wanted else "exact"
    if smem_alloc and preference < smem_alloc:
        size = align_up_carveout(gpu, smem_alloc)
        why = "raised"
    return {"c": cfg.carveout, "default": default, "wanted": wanted, "preference": preference,
            "size": size, "why": why, "alloc": smem_alloc, "full": gpu.smem_per_sm}
