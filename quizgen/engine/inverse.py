"""Inverse occupancy questions: the largest registers, block or shared memory that keep a target.

Each solver searches one launch parameter by bisection over the fast occupancy engine (blocks per
SM never rise when registers, threads or shared memory grow, in either model), then proves the
answer by substitution: at the answer the target is reached, one more register, thread or byte
misses it (unless the answer is already the hardware's largest value). The steps give the closed
form a student writes (⌊R_SM/(B·T)⌋ and its exact-model counterpart), and tests hold the closed
form and the search to the same number.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable

from quizgen.engine.arith import ceiling
from quizgen.engine.derivation import Step
from quizgen.engine.occupancy import MODELS, LaunchConfig, OccupancyResult, occupancy
from quizgen.errors import QuizgenError, require_int
from quizgen.gpus import GPU

#: Formulas of this module: name → (sympy source, {symbol: meaning}).
FORMULAS: dict[str, tuple[str, dict[str, str]]] = {
    "inv_blocks_for_occupancy": ("ceiling(O*W_max/w)", {
        "O": "target occupancy", "W_max": "max warps per SM", "w": "warps per block"}),
    "inv_regs_textbook": ("floor(R_SM/(B*T))", {
        "R_SM": "registers per SM", "B": "target blocks per SM", "T": "threads per block"}),
    "inv_subpartition_warps": ("ceiling(B*w/P)", {
        "B": "target blocks per SM", "w": "warps per block", "P": "sub-partitions per SM"}),
    "inv_regs_per_warp_by_sm": ("floor(floor(R_SM/P)/n_P)", {
        "R_SM": "registers per SM", "P": "sub-partitions per SM",
        "n_P": "warps each sub-partition must hold"}),
    "inv_regs_per_warp_by_block": ("floor(R_blk/(P*ceiling(w/P)))", {
        "R_blk": "registers per block (hardware limit)", "P": "sub-partitions per SM",
        "w": "warps per block"}),
    "inv_regs_from_warp": ("floor(floor(R_warp/g_R)*g_R/32)", {
        "R_warp": "largest register allocation per warp", "g_R": "register allocation unit"}),
    "inv_threads_by_regs": ("floor(R_SM/(B*r))", {
        "R_SM": "registers per SM", "B": "target blocks per SM", "r": "registers per thread"}),
    "inv_warps_by_slots": ("floor(W_max/B)", {
        "W_max": "max warps per SM", "B": "target blocks per SM"}),
    "inv_warps_by_regs": ("floor(P*n_P/B)", {
        "P": "sub-partitions per SM", "n_P": "warps that fit in one sub-partition",
        "B": "target blocks per SM"}),
    "inv_warps_by_block_regs": ("P*floor(R_blk/(P*R_warp))", {
        "P": "sub-partitions per SM", "R_blk": "registers per block (hardware limit)",
        "R_warp": "registers allocated per warp"}),
    "inv_threads_from_warps": ("32*w", {"w": "largest warps per block"}),
    "inv_round_to_warp": ("32*floor(T/32)", {"T": "largest block in threads"}),
    "inv_smem_textbook": ("floor(S_SM/B) - s_other", {
        "S_SM": "shared memory per SM (B)", "B": "target blocks per SM",
        "s_other": "the block's other shared memory (B)"}),
    "inv_smem_share": ("floor(S_SM/B)", {
        "S_SM": "shared memory per SM the carveout gives (B)", "B": "target blocks per SM"}),
    "inv_smem_exact": ("floor(A/g_S)*g_S - s_other - s_res", {
        "A": "largest allocation per block (B)", "g_S": "shared-memory allocation unit (B)",
        "s_other": "the block's other shared memory (B)",
        "s_res": "shared memory the driver reserves per block (B)"}),
    "inv_smem_block_limit": ("S_blk + s_res", {
        "S_blk": "per-block shared-memory limit (48 KB, or the opt-in limit) (B)",
        "s_res": "shared memory the driver reserves per block (B)"}),
    "inv_largest_alloc": ("Min(S_lim, S_share)", {
        "S_lim": "per-block allocation limit (B)", "S_share": "one block's share of the SM (B)"}),
    "inv_regs_to_cut": ("r_now - r_max", {
        "r_now": "registers per thread the kernel compiles to",
        "r_max": "most registers per thread that keep the target"}),
    "inv_largest": ("Min(x_lid, x_max)", {
        "x_lid": "largest value the parameter's own limit allows",
        "x_max": "largest value the hardware allows"}),
}

INF = "∞"


@dataclass(frozen=True, slots=True)
class Probe:
    """The occupancy at one value of the searched parameter (a substitution check)."""

    value: int
    blocks_per_sm: int
    active_warps: int
    occupancy: float
    limiter: tuple[str, ...]
    failure: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"value": self.value, "blocks_per_sm": self.blocks_per_sm,
                "active_warps": self.active_warps, "occupancy": self.occupancy,
                "limiter": list(self.limiter), "failure": self.failure}


@dataclass(slots=True)
class InverseAnswer:
    """The largest value of one launch parameter that keeps a target, with its proof."""

    question: str
    parameter: str
    model: str
    gpu: str
    config: LaunchConfig
    target_blocks: int
    target_occupancy: float | None
    answer: int | None
    #: The largest value the search allowed (the hardware's limit, or a value no block fits at).
    maximum: int
    at_answer: Probe | None
    at_next: Probe | None
    steps: list[Step] = field(default_factory=list)

    @property
    def reachable(self) -> bool:
        return self.answer is not None

    @property
    def at_maximum(self) -> bool:
        """True when the answer is the hardware's largest value, so there is no next to check."""
        return self.answer is not None and self.answer == self.maximum

    def to_dict(self, *, with_steps: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            "question": self.question, "parameter": self.parameter, "model": self.model,
            "gpu": self.gpu, **self.config.to_dict(), "target_blocks": self.target_blocks,
            "target_occupancy": self.target_occupancy, "answer": self.answer,
            "maximum": self.maximum,
            "at_answer": self.at_answer.to_dict() if self.at_answer else None,
            "at_next": self.at_next.to_dict() if self.at_next else None,
        }
        if with_steps:
            out["steps"] = [s.to_dict() for s in self.steps]
        return out


# --------------------------------------------------------------------------------------------
# Public solvers


def max_regs_for_blocks(gpu: GPU, config: LaunchConfig, target_blocks: Any,
                        model: str | None = None) -> InverseAnswer:
    """Most registers per thread that still give ≥ `target_blocks` blocks per SM (None if none)."""
    model = _model(gpu, model)
    target = require_int("target_blocks", target_blocks, minimum=1)
    return _solve_regs(gpu, config, target, None, model, "max_regs_for_blocks", [])


def max_regs_for_occupancy(gpu: GPU, config: LaunchConfig, target_occupancy: Any,
                           model: str | None = None) -> InverseAnswer:
    """Most registers per thread that still give ≥ `target_occupancy` (a fraction in (0, 1])."""
    model = _model(gpu, model)
    occ = _occupancy_target(target_occupancy)
    w = ceiling(config.threads_per_block, 32)
    target = max(1, ceiling(occ * gpu.max_warps_per_sm, w))  # ceil(O·W_max/w), exact in Fraction
    steps = [Step("target_blocks", "inv_blocks_for_occupancy",
                  {"O": float(occ), "W_max": gpu.max_warps_per_sm, "w": w}, int(target), "blocks",
                  "occupancy_to_blocks")]
    return _solve_regs(gpu, config, int(target), float(occ), model, "max_regs_for_occupancy", steps)


def max_threads_for_blocks(gpu: GPU, config: LaunchConfig, target_blocks: Any,
                           model: str | None = None, *, whole_warps: bool = False) -> InverseAnswer:
    """Largest block (threads) that still gives ≥ `target_blocks` blocks per SM.

    `whole_warps=True` restricts the answer to multiples of 32 (the next check is then one more
    warp). In the exact model every limit depends on whole warps, so the answer is a multiple of
    32 anyway; the textbook's register lid ⌊R_SM/(B·r)⌋ need not be.
    """
    model = _model(gpu, model)
    target = require_int("target_blocks", target_blocks, minimum=1)
    step_size = 32 if whole_warps else 1
    top = gpu.max_threads_per_block // step_size
    c = config
    if top < 1:
        raise QuizgenError(f"{gpu.name} allows {gpu.max_threads_per_block} threads per block, "
                           "less than one warp", field="whole_warps")

    def with_value(k: int) -> LaunchConfig:
        return LaunchConfig(k * step_size, c.regs_per_thread, c.smem_per_block, c.dyn_smem, c.optin,
                            c.carveout, c.barriers, None)

    steps: list[Step] = []
    first = _probe_full(gpu, model, with_value(1))
    steps.append(_blocks_step("blocks_at_smallest", first, model))
    guess = None
    if _blocks(first) >= target:
        closed = _threads_closed_form(gpu, config, target, model, whole_warps)
        steps += closed
        guess = closed[-1].result // step_size
    else:
        steps.append(Step("answer", "inv_largest", {"x_lid": 0, "x_max": gpu.max_threads_per_block},
                          None, "threads", "target_unreachable", "unreachable"))
    k, at_answer, at_next = _search(gpu, model, with_value, 1, top, target, guess)
    answer = None if k is None else k * step_size
    steps += _check_steps(at_answer, at_next, model)
    return InverseAnswer("max_threads_for_blocks", "threads_per_block", model, gpu.name, config,
                         target, None, answer, top * step_size,
                         _probe(at_answer, "threads_per_block"), _probe(at_next, "threads_per_block"),
                         steps)


def max_smem_for_blocks(gpu: GPU, config: LaunchConfig, target_blocks: Any,
                        model: str | None = None, *, dynamic: bool = False) -> InverseAnswer:
    """Most shared memory per block (bytes) that still gives ≥ `target_blocks` blocks per SM.

    Searches the static shared memory (`smem_per_block`), or with `dynamic=True` the dynamic
    shared memory, keeping the other part and the opt-in setting of `config` as they are.
    """
    model = _model(gpu, model)
    target = require_int("target_blocks", target_blocks, minimum=1)
    parameter = "dyn_smem" if dynamic else "smem_per_block"
    # One byte past this no block fits in either model, so the search range always ends in a miss.
    top = max(gpu.smem_per_sm, gpu.smem_per_block, gpu.smem_per_block_optin) \
        + gpu.reserved_smem_per_block + 1

    def with_value(v: int) -> LaunchConfig:
        return dataclasses.replace(config, **{parameter: v})

    value, at_answer, at_next = _search(gpu, model, with_value, 0, top, target)
    steps: list[Step] = []
    first = _probe_full(gpu, model, with_value(0))
    steps.append(_blocks_step("blocks_at_smallest", first, model))
    if _blocks(first) >= target and at_answer is not None:
        steps += _smem_closed_form(gpu, config, target, model, dynamic, at_answer)
    else:
        steps.append(Step("answer", "inv_largest", {"x_lid": 0, "x_max": top}, None, "B",
                          "target_unreachable", "unreachable"))
    steps += _check_steps(at_answer, at_next, model)
    return InverseAnswer("max_smem_for_blocks", parameter, model, gpu.name, config, target, None,
                         value, top, _probe(at_answer, parameter), _probe(at_next, parameter), steps)


def registers_to_cut(gpu: GPU, config: LaunchConfig, regs_now: Any, answer: InverseAnswer) -> tuple[
        OccupancyResult, int, list[Step]]:
    """What a register cap must do: the occupancy at the registers the kernel compiles to, and
    how many registers per thread a cap (``__launch_bounds__``, ``-maxrregcount``) removes to
    reach `answer`'s target. Returns (the occupancy now, the cut, the steps)."""
    r_now = require_int("regs_now", regs_now, minimum=1, maximum=gpu.max_regs_per_thread)
    if answer.answer is None or r_now <= answer.answer:
        raise QuizgenError(f"{r_now} registers per thread already keep the target", field="regs_now")
    now = occupancy(gpu, dataclasses.replace(config, regs_per_thread=r_now), model=answer.model)
    steps = [_blocks_step("blocks_now", now, answer.model),
             Step("occupancy_now", "occupancy", {"A": now.active_warps, "W_max": gpu.max_warps_per_sm},
                  now.occupancy, "", "xi_occupancy_now"),
             Step("regs_to_cut", "inv_regs_to_cut", {"r_now": r_now, "r_max": answer.answer},
                  r_now - answer.answer, "registers", "xi_inv_regs_to_cut")]
    return now, r_now - answer.answer, steps


# --------------------------------------------------------------------------------------------
# Search and probes


def _model(gpu: GPU, model: str | None) -> str:
    model = model or gpu.default_model
    if model not in MODELS:
        raise QuizgenError(f"got {model!r}; expected one of: {', '.join(MODELS)}", field="model")
    return model


def _occupancy_target(value: Any) -> Fraction:
    if isinstance(value, bool) or not isinstance(value, (int, float, Fraction, str)):
        raise QuizgenError(f"got {value!r}; expected a fraction in (0, 1], like 0.5",
                           field="target_occupancy")
    try:
        text = str(value).strip()
        occ = Fraction(text[:-1]) / 100 if text.endswith("%") else Fraction(text)
    except (ValueError, ZeroDivisionError):
        raise QuizgenError(f"got {value!r}; expected a fraction in (0, 1], like 0.5",
                           field="target_occupancy") from None
    if not 0 < occ <= 1:
        raise QuizgenError(f"got {value!r}; expected a fraction in (0, 1], like 0.5",
                           field="target_occupancy")
    return occ


def _probe_full(gpu: GPU, model: str, cfg: LaunchConfig) -> OccupancyResult | None:
    try:
        return occupancy(gpu, cfg, model=model)
    except QuizgenError:
        # A launch the driver would refuse (shared memory past the largest carveout): no block.
        return None


def _blocks(result: OccupancyResult | None) -> int:
    return 0 if result is None else result.blocks_per_sm


def _search(gpu: GPU, model: str, with_value: Callable[[int], LaunchConfig], lo: int, hi: int,
            target: int, guess: int | None = None
            ) -> tuple[int | None, OccupancyResult | None, OccupancyResult | None]:
    """Largest v in [lo, hi] whose launch keeps ≥ target blocks (blocks fall as v grows).

    A `guess` (the closed form's answer) is tried first: if it keeps the target and one more
    does not, it is the answer (blocks fall as v grows) and the bisection is skipped.
    """
    if guess is not None and lo <= guess <= hi:
        at_guess = _probe_full(gpu, model, with_value(guess))
        if _blocks(at_guess) >= target:
            if guess == hi:
                return hi, at_guess, None
            at_next = _probe_full(gpu, model, with_value(guess + 1))
            if _blocks(at_next) < target:
                return guess, at_guess, at_next
    first = _probe_full(gpu, model, with_value(lo))
    if _blocks(first) < target:
        return None, None, None
    last = _probe_full(gpu, model, with_value(hi))
    if _blocks(last) >= target:
        return hi, last, None
    good, bad, at_bad = lo, hi, last
    at_good = first
    while bad - good > 1:
        mid = (good + bad) // 2
        res = _probe_full(gpu, model, with_value(mid))
        if _blocks(res) >= target:
            good, at_good = mid, res
        else:
            bad, at_bad = mid, res
    return good, at_good, at_bad


#: The why-line of each blocks-per-SM step: the other lids first, then the two checks.
_BLOCKS_WHY = {"blocks_at_smallest": "other_lids_allow", "check_answer": "substitute_check",
               "check_next": "boundary_check", "blocks_now": "xi_blocks_now"}


def _blocks_step(key: str, result: OccupancyResult | None, model: str) -> Step:
    why = _BLOCKS_WHY[key]
    if result is None:
        return Step(key, "blocks_per_sm", {}, 0, "blocks", why, "smem_carveout")
    lim = result.limits
    values: dict[str, Any] = {
        "B_R": lim["registers"] if lim["registers"] is not None else INF,
        "B_S": lim["shared_memory"] if lim["shared_memory"] is not None else INF,
        "B_W": lim["warps"], "B_max": lim["blocks"]}
    formula = "blocks_per_sm"
    if model == "exact" and lim["barriers"] is not None:
        values["B_bar"] = lim["barriers"]
        formula = "blocks_per_sm_exact"
    return Step(key, formula, values, result.blocks_per_sm, "blocks", why)


def _check_steps(at_answer: OccupancyResult | None, at_next: OccupancyResult | None,
                 model: str) -> list[Step]:
    steps = []
    if at_answer is not None:
        steps.append(_blocks_step("check_answer", at_answer, model))
        if at_next is not None:
            steps.append(_blocks_step("check_next", at_next, model))
    return steps


# --------------------------------------------------------------------------------------------
# Registers


def _solve_regs(gpu: GPU, config: LaunchConfig, target: int, occ: float | None, model: str,
                question: str, steps: list[Step]) -> InverseAnswer:
    top = gpu.max_regs_per_thread
    c = config

    def with_value(r: int) -> LaunchConfig:
        return LaunchConfig(c.threads_per_block, r, c.smem_per_block, c.dyn_smem, c.optin,
                            c.carveout, c.barriers, c.block)

    first = _probe_full(gpu, model, with_value(0))
    steps = list(steps)
    steps.append(_blocks_step("blocks_at_smallest", first, model))
    guess = None
    if _blocks(first) >= target:
        closed = _regs_closed_form(gpu, config, target, model)
        steps += closed
        guess = closed[-1].result
    else:
        steps.append(Step("answer", "inv_largest", {"x_lid": 0, "x_max": top}, None, "registers",
                          "target_unreachable", "unreachable"))
    r, at_answer, at_next = _search(gpu, model, with_value, 0, top, target, guess)
    steps += _check_steps(at_answer, at_next, model)
    return InverseAnswer(question, "regs_per_thread", model, gpu.name, config, target, occ, r, top,
                         _probe(at_answer, "regs_per_thread"), _probe(at_next, "regs_per_thread"),
                         steps)


def _probe(result: OccupancyResult | None, parameter: str) -> Probe | None:
    if result is None:
        return None
    return Probe(getattr(result.config, parameter), result.blocks_per_sm, result.active_warps,
                 result.occupancy, tuple(result.limiter), result.failure)


def _regs_closed_form(gpu: GPU, cfg: LaunchConfig, B: int, model: str) -> list[Step]:
    T = cfg.threads_per_block
    top = gpu.max_regs_per_thread
    if model == "textbook":
        lid = gpu.regs_per_sm // (B * T)
        return [Step("regs_lid", "inv_regs_textbook", {"R_SM": gpu.regs_per_sm, "B": B, "T": T}, lid,
                     "registers", "regs_lid_inverse"),
                Step("answer", "inv_largest", {"x_lid": lid, "x_max": top}, min(lid, top),
                     "registers", "largest_that_fits")]
    P, g = gpu.schedulers_per_sm, gpu.reg_alloc_unit
    w = ceiling(T, 32)
    n_p = ceiling(B * w, P)
    by_sm = (gpu.regs_per_sm // P) // n_p
    by_block = gpu.regs_per_block // (P * ceiling(w, P))
    r_warp = min(by_sm, by_block)
    lid = (r_warp // g) * g // 32
    steps = [
        Step("subpartition_warps", "inv_subpartition_warps", {"B": B, "w": w, "P": P}, n_p, "warps",
             "subpartition_warps_needed"),
        Step("regs_per_warp_by_sm", "inv_regs_per_warp_by_sm",
             {"R_SM": gpu.regs_per_sm, "P": P, "n_P": n_p}, by_sm, "registers", "regs_lid_inverse"),
        Step("regs_per_warp_by_block", "inv_regs_per_warp_by_block",
             {"R_blk": gpu.regs_per_block, "P": P, "w": w}, by_block, "registers", "block_reg_check",
             None if by_block >= by_sm else "binds"),
        Step("regs_lid", "inv_regs_from_warp", {"R_warp": r_warp, "g_R": g}, lid, "registers",
             "reg_granularity_down", None if r_warp % g == 0 and (r_warp // g * g) % 32 == 0 else "floor_drops"),
        Step("answer", "inv_largest", {"x_lid": lid, "x_max": top}, min(lid, top), "registers",
             "largest_that_fits"),
    ]
    return steps


# --------------------------------------------------------------------------------------------
# Threads


def _threads_closed_form(gpu: GPU, cfg: LaunchConfig, B: int, model: str,
                         whole_warps: bool) -> list[Step]:
    r = cfg.regs_per_thread
    t_max = gpu.max_threads_per_block
    w_slots = gpu.max_warps_per_sm // B
    steps = [Step("warps_by_slots", "inv_warps_by_slots", {"W_max": gpu.max_warps_per_sm, "B": B},
                  w_slots, "warps", "warp_slots_per_block")]
    if model == "textbook":
        # The warp lid allows ⌈T/32⌉ ≤ ⌊W_max/B⌋; the register lid T ≤ ⌊R_SM/(B·r)⌋ is in threads.
        steps.append(Step("threads_by_slots", "inv_threads_from_warps", {"w": w_slots}, 32 * w_slots,
                          "threads", "warps_to_threads"))
        lid = 32 * w_slots
        if r:
            t_regs = gpu.regs_per_sm // (B * r)
            steps.append(Step("threads_by_regs", "inv_threads_by_regs",
                              {"R_SM": gpu.regs_per_sm, "B": B, "r": r}, t_regs, "threads",
                              "regs_lid_inverse", "threads_partial_warp" if t_regs % 32 else None))
            lid = min(lid, t_regs)
    else:
        P, g = gpu.schedulers_per_sm, gpu.reg_alloc_unit
        w_lid = w_slots
        r_warp = ceiling(r * 32, g) * g
        if r_warp:
            n_p = (gpu.regs_per_sm // P) // r_warp
            steps.append(Step("warps_per_subpartition", "warps_per_subpartition",
                              {"R_SM": gpu.regs_per_sm, "P": P, "R_warp": r_warp}, n_p, "warps",
                              "subpartition_regs"))
            w_regs = (P * n_p) // B
            steps.append(Step("warps_by_regs", "inv_warps_by_regs", {"P": P, "n_P": n_p, "B": B},
                              w_regs, "warps", "regs_lid_inverse"))
            # The hardware's per-block check counts warps rounded up to whole sub-partitions.
            w_block = P * (gpu.regs_per_block // (P * r_warp))
            steps.append(Step("warps_by_block_regs", "inv_warps_by_block_regs",
                              {"P": P, "R_blk": gpu.regs_per_block, "R_warp": r_warp}, w_block,
                              "warps", "block_reg_check"))
            w_lid = min(w_lid, w_regs, w_block)
        lid = 32 * w_lid
        steps.append(Step("threads_lid", "inv_threads_from_warps", {"w": w_lid}, lid, "threads",
                          "warps_to_threads"))
    largest = min(lid, t_max)
    steps.append(Step("largest_block" if whole_warps else "answer", "inv_largest",
                      {"x_lid": lid, "x_max": t_max}, largest, "threads", "largest_that_fits"))
    if whole_warps:
        steps.append(Step("answer", "inv_round_to_warp", {"T": largest}, 32 * (largest // 32),
                          "threads", "whole_warps", "partial_warp" if largest % 32 else None))
    return steps


# --------------------------------------------------------------------------------------------
# Shared memory


def _smem_closed_form(gpu: GPU, cfg: LaunchConfig, B: int, model: str, dynamic: bool,
                      at_answer: OccupancyResult) -> list[Step]:
    other = cfg.smem_per_block if dynamic else cfg.dyn_smem
    if model == "textbook":
        lid = gpu.smem_per_sm // B - other
        return [Step("answer", "inv_smem_textbook",
                     {"S_SM": gpu.smem_per_sm, "B": B, "s_other": other}, lid, "B",
                     "smem_lid_inverse")]
    g, res = gpu.smem_alloc_unit, gpu.reserved_smem_per_block
    steps: list[Step] = []
    # The per-block limit in force at the answer: the opt-in limit once the kernel's static part,
    # the reserved 1 KB and its opt-in size pass the default 48 KB (cuda_occupancy.h's rule).
    a_cfg = at_answer.config
    optin_in_force = (a_cfg.optin is not None
                      and a_cfg.smem_per_block + res + a_cfg.optin > gpu.smem_per_block)
    s_blk = gpu.smem_per_block_optin if optin_in_force else gpu.smem_per_block
    per_block = s_blk + res
    steps.append(Step("smem_block_limit", "inv_smem_block_limit", {"S_blk": s_blk, "s_res": res},
                      per_block, "B", "smem_per_block_limit", "optin" if optin_in_force else None))
    largest_alloc = per_block
    if B >= 2:
        # B blocks must share the SM's carveout; one block may grow the carveout, B ≥ 2 may not.
        share = at_answer.smem_per_sm_available // B
        steps.append(Step("smem_share", "inv_smem_share",
                          {"S_SM": at_answer.smem_per_sm_available, "B": B}, share, "B",
                          "carveout_share"))
        largest_alloc = min(per_block, share)
        steps.append(Step("largest_alloc", "inv_largest_alloc", {"S_lim": per_block, "S_share": share},
                          largest_alloc, "B", "largest_alloc"))
    lid = (largest_alloc // g) * g - other - res
    key = "answer" if not (dynamic and cfg.optin is not None) else "smem_lid"
    steps.append(Step(key, "inv_smem_exact",
                      {"A": largest_alloc, "g_S": g, "s_other": other, "s_res": res}, lid, "B",
                      "smem_granularity_inverse"))
    if key != "answer":
        steps.append(Step("answer", "inv_largest", {"x_lid": lid, "x_max": cfg.optin},
                          min(lid, cfg.optin), "B", "largest_that_fits",
                          "optin" if cfg.optin < lid else None))
    return steps
