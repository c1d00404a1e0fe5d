"""Blocks per SM, active warps and occupancy, in two models, each with its derivation.

* ``textbook``: the notes' formulas (seed 000, seed 004):
  blocks = min(⌊R_SM/(T·r)⌋, ⌊S_SM/s⌋, ⌊W_max/⌈T/32⌉⌋, B_max).
* ``exact``: the allocation rules of NVIDIA's occupancy calculation (the rules that the public
  header ``cuda_occupancy.h`` applies), written here from those rules: registers allocated per warp
  in units of 256 and per sub-partition, shared memory in 128/256-byte units plus the 1 KB the
  driver reserves per block from cc 8.0, the 48 KB default per-block limit and the opt-in limit for
  dynamic shared memory, the L1/shared carveout rounded to the sizes the architecture supports, and
  block barriers from cc 9.0.

Solving is pure integer arithmetic (fast enough for batches); ``explain=True`` also records the
steps of the derivation. A block that cannot fit is a result (0 blocks, ``launch_fails``), not an
error; only malformed input raises `QuizgenError`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from quizgen.engine.arith import ceiling
from quizgen.engine.derivation import Step
from quizgen.errors import QuizgenError, require_int
from quizgen.gpus import GPU

MODELS = ("textbook", "exact")
LIMIT_NAMES = ("registers", "shared_memory", "warps", "blocks", "barriers")

#: Formulas of this module: name → (sympy source, {symbol: meaning}).
FORMULAS: dict[str, tuple[str, dict[str, str]]] = {
    "warps_per_block": ("ceiling(T/32)", {"T": "threads per block"}),
    "regs_per_block": ("T*r", {"T": "threads per block", "r": "registers per thread"}),
    "blocks_by_regs": ("floor(R_SM/(T*r))", {
        "R_SM": "registers per SM", "T": "threads per block", "r": "registers per thread"}),
    "warps_by_regs": ("floor(R_SM/(32*r))", {
        "R_SM": "registers per SM", "r": "registers per thread"}),
    "regs_per_warp": ("32*r", {"r": "registers per thread"}),
    "smem_per_block": ("s_static + s_dyn", {
        "s_static": "static shared memory per block (B)",
        "s_dyn": "dynamic shared memory per block (B)"}),
    "blocks_by_smem": ("floor(S_SM/s)", {
        "S_SM": "shared memory per SM (B)", "s": "shared memory per block (B)"}),
    "blocks_by_warps": ("floor(W_max/w)", {
        "W_max": "max warps per SM", "w": "warps per block"}),
    "blocks_cap": ("B_max", {"B_max": "max resident blocks per SM"}),
    "blocks_per_sm": ("Min(B_R, B_S, B_W, B_max)", {
        "B_R": "blocks allowed by registers", "B_S": "blocks allowed by shared memory",
        "B_W": "blocks allowed by warp slots", "B_max": "max resident blocks per SM"}),
    "active_warps": ("B*w", {"B": "resident blocks per SM", "w": "warps per block"}),
    "occupancy": ("A/W_max", {"A": "active warps per SM", "W_max": "max warps per SM"}),
    # exact model
    "regs_per_warp_allocated": ("ceiling(32*r/g_R)*g_R", {
        "r": "registers per thread", "g_R": "register allocation unit"}),
    "regs_per_block_allocated": ("R_warp*w", {
        "R_warp": "registers allocated per warp", "w": "warps per block"}),
    "warps_per_subpartition": ("floor(R_SM/(P*R_warp))", {
        "R_SM": "registers per SM", "P": "sub-partitions (schedulers) per SM",
        "R_warp": "registers allocated per warp"}),
    "blocks_by_regs_exact": ("floor(P*n_P/w)", {
        "P": "sub-partitions per SM", "n_P": "warps that fit in one sub-partition",
        "w": "warps per block"}),
    "smem_per_block_allocated": ("ceiling((s_static + s_dyn + s_res)/g_S)*g_S", {
        "s_static": "static shared memory per block (B)",
        "s_dyn": "dynamic shared memory per block (B)",
        "s_res": "shared memory the driver reserves per block (B)",
        "g_S": "shared-memory allocation unit (B)"}),
    "smem_per_block_rounded": ("ceiling((s_static + s_dyn)/g_S)*g_S", {
        "s_static": "static shared memory per block (B)",
        "s_dyn": "dynamic shared memory per block (B)",
        "g_S": "shared-memory allocation unit (B)"}),
    "smem_carveout": ("c*S_SM/100", {
        "c": "carveout preference (% of the maximum)", "S_SM": "max shared memory per SM (B)"}),
    "blocks_by_barriers": ("floor(N_bar/b)", {
        "N_bar": "block barriers per SM", "b": "barriers one block uses"}),
    "blocks_per_sm_exact": ("Min(B_R, B_S, B_W, B_max, B_bar)", {
        "B_R": "blocks allowed by registers", "B_S": "blocks allowed by shared memory",
        "B_W": "blocks allowed by warp slots", "B_max": "max resident blocks per SM",
        "B_bar": "blocks allowed by barriers"}),
}

#: Formulas whose result is a share from 0 to 1 (a worked solution writes it with its percentage).
SHARES = frozenset({"occupancy"})

@dataclass(frozen=True, slots=True)
class LaunchConfig:
    """What a kernel launch asks of one SM."""

    threads_per_block: int
    regs_per_thread: int = 0
    smem_per_block: int = 0          # static shared memory, bytes
    dyn_smem: int = 0                # dynamic shared memory, bytes
    optin: int | None = None         # cudaFuncAttributeMaxDynamicSharedMemorySize; None = not set
    carveout: int = -1               # shared-memory carveout preference, % (-1 = default)
    barriers: int = 1                # block barriers the kernel uses
    block: tuple[int, int, int] | None = None

    def to_dict(self) -> dict[str, Any]:
        out = {
            "threads_per_block": self.threads_per_block, "regs_per_thread": self.regs_per_thread,
            "smem_per_block": self.smem_per_block, "dyn_smem": self.dyn_smem,
            "optin": self.optin, "carveout": self.carveout, "barriers": self.barriers,
        }
        if self.block is not None:
            out["block"] = list(self.block)
        return out


@dataclass(slots=True)
class OccupancyResult:
    """The answer for one launch on one GPU, under one model."""

    model: str
    gpu: str
    config: LaunchConfig
    warps_per_block: int
    regs_per_block_allocated: int
    smem_per_block_allocated: int
    smem_per_sm_available: int
    limits: dict[str, int | None]
    blocks_per_sm: int
    active_warps: int
    max_warps_per_sm: int
    limiter: list[str]
    failure: str | None = None
    steps: list[Step] = field(default_factory=list)

    @property
    def occupancy(self) -> float:
        return self.active_warps / self.max_warps_per_sm

    @property
    def launch_fails(self) -> bool:
        return self.blocks_per_sm == 0

    def to_dict(self, *, with_steps: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            "model": self.model, "gpu": self.gpu, **self.config.to_dict(),
            "warps_per_block": self.warps_per_block,
            "blocks_per_sm": self.blocks_per_sm, "active_warps": self.active_warps,
            "max_warps_per_sm": self.max_warps_per_sm,
            "occupancy": self.occupancy, "limiter": list(self.limiter),
            "limits": dict(self.limits),
            "regs_per_block_allocated": self.regs_per_block_allocated,
            "smem_per_block_allocated": self.smem_per_block_allocated,
            "smem_per_sm_available": self.smem_per_sm_available,
            "launch_fails": self.launch_fails, "failure": self.failure,
        }
        if with_steps:
            out["steps"] = [s.to_dict() for s in self.steps]
        return out


def launch_config(threads_per_block: Any = None, regs_per_thread: Any = 0, smem_per_block: Any = 0,
                  dyn_smem: Any = 0, optin: Any = None, carveout: Any = -1, barriers: Any = 1,
                  block: Any = None) -> LaunchConfig:
    """Validate raw inputs (CLI strings, JSON values) into a LaunchConfig, or raise one line."""
    # Fast path for the common case (plain ints in range, as a JSON batch sends them).
    if (block is None and type(threads_per_block) is int and type(regs_per_thread) is int
            and type(smem_per_block) is int and type(dyn_smem) is int and type(carveout) is int
            and type(barriers) is int and threads_per_block >= 1 and regs_per_thread >= 0
            and smem_per_block >= 0 and dyn_smem >= 0 and -1 <= carveout <= 100 and barriers >= 0
            and (optin is None or optin is False or optin is True
                 or (type(optin) is int and optin >= 0))):
        o = None if optin is None or optin is False else dyn_smem if optin is True else optin
        return LaunchConfig(threads_per_block, regs_per_thread, smem_per_block, dyn_smem, o,
                            carveout, barriers, None)
    shape: tuple[int, int, int] | None = None
    if block is not None:
        from quizgen.engine.warps import block_shape

        shape = block_shape(block)
        dims = list(shape)
        product = dims[0] * dims[1] * dims[2]
        if threads_per_block is None:
            threads_per_block = product
        elif require_int("threads_per_block", threads_per_block, minimum=1) != product:
            raise QuizgenError(
                f"block {dims[0]}×{dims[1]}×{dims[2]} has {product} threads but threads_per_block "
                f"is {threads_per_block}", field="block")
    if threads_per_block is None:
        raise QuizgenError("missing; give the threads in one block (≥ 1)", field="threads_per_block")
    t = require_int("threads_per_block", threads_per_block, minimum=1)
    r = require_int("regs_per_thread", regs_per_thread, minimum=0)
    s = require_int("smem_per_block", smem_per_block, minimum=0)
    d = require_int("dyn_smem", dyn_smem, minimum=0)
    if optin is None or optin is False:
        o = None
    elif optin is True:
        o = d
    else:
        o = require_int("optin", optin, minimum=0,
                        allowed="true, false, or the opt-in dynamic shared memory limit in bytes")
    c = require_int("carveout", carveout, minimum=-1, maximum=100,
                    allowed="-1 (default) or a percentage from 0 to 100")
    b = require_int("barriers", barriers, minimum=0)
    return LaunchConfig(t, r, s, d, o, c, b, shape)


def occupancy(gpu: GPU, config: LaunchConfig, *, model: str | None = None,
              explain: bool = False) -> OccupancyResult:
    """Resident blocks, warps and occupancy of `config` on one SM of `gpu`.

    More registers per thread than a real GPU allows is an input error (ptxas never emits such a
    kernel), not a launch to solve: one clear line, whichever model is asked for. The notes' SM
    under the notes' formulas has no such cap (seed 000 Ex 5 works at 256 registers per thread).
    """
    model = model or gpu.default_model
    if config.regs_per_thread > gpu.max_regs_per_thread and not (
            model == "textbook" and gpu.is_textbook):
        raise QuizgenError(f"got {config.regs_per_thread}; the {gpu.name} allows at most "
                           f"{gpu.max_regs_per_thread} registers per thread",
                           field="regs_per_thread")
    if model == "textbook":
        return _textbook(gpu, config, explain)
    if model == "exact":
        if config.carveout != -1 and _before_volta(gpu):
            # cuda_occupancy.h reads no carveout before Volta: asking for one is a mistake to name
            raise QuizgenError(
                f"got {config.carveout}; the {gpu.spoken_name} (compute capability "
                f"{gpu.compute_capability}) has no shared-memory carveout, which starts with "
                "compute capability 7.0: leave the carveout out", field="carveout")
        return _exact(gpu, config, explain)
    raise QuizgenError(f"got {model!r}; expected one of: {', '.join(MODELS)}", field="model")


def _limiter(limits: dict[str, int | None], blocks: int) -> list[str]:
    return [name for name in LIMIT_NAMES if limits.get(name) is not None and limits[name] == blocks]


def _textbook(gpu: GPU, cfg: LaunchConfig, explain: bool) -> OccupancyResult:
    T, r = cfg.threads_per_block, cfg.regs_per_thread
    s = cfg.smem_per_block + cfg.dyn_smem
    w = ceiling(T, 32)
    failure = None

    regs_block = T * r
    # The notes have no per-thread register cap: only the pool, ⌊R_SM/(T·r)⌋, limits (seed 000, Ex 5).
    if regs_block == 0:
        by_regs = None
    else:
        by_regs = gpu.regs_per_sm // regs_block
    by_smem = gpu.smem_per_sm // s if s else None
    if T > gpu.max_threads_per_block:
        by_warps = 0
        failure = failure or "threads_per_block"
    else:
        by_warps = gpu.max_warps_per_sm // w
    cap = gpu.max_blocks_per_sm
    limits = {"registers": by_regs, "shared_memory": by_smem, "warps": by_warps,
              "blocks": cap, "barriers": None}
    blocks = min(v for v in limits.values() if v is not None)
    if blocks == 0 and failure is None:
        failure = "registers" if by_regs == 0 else "shared_memory" if by_smem == 0 else "warps"
    active = blocks * w

    result = OccupancyResult(
        model="textbook", gpu=gpu.name, config=cfg, warps_per_block=w,
        regs_per_block_allocated=regs_block, smem_per_block_allocated=s,
        smem_per_sm_available=gpu.smem_per_sm, limits=limits, blocks_per_sm=blocks,
        active_warps=active, max_warps_per_sm=gpu.max_warps_per_sm,
        limiter=_limiter(limits, blocks), failure=failure)
    if explain:
        result.steps = _textbook_steps(gpu, result)
    return result


def _textbook_steps(gpu: GPU, result: OccupancyResult) -> list[Step]:
    """The notes' derivation of `result`, one step per formula."""
    cfg, w, limits = result.config, result.warps_per_block, result.limits
    T, r = cfg.threads_per_block, cfg.regs_per_thread
    s, regs_block = result.smem_per_block_allocated, result.regs_per_block_allocated
    by_regs, by_smem, by_warps = limits["registers"], limits["shared_memory"], limits["warps"]
    steps = [Step("warps_per_block", "warps_per_block", {"T": T}, w, "warps",
                  "warps_whole", None if T % 32 == 0 else "partial_warp")]
    if r:
        steps.append(Step("regs_per_block", "regs_per_block", {"T": T, "r": r}, regs_block,
                          "registers", "block_reserves_registers"))
        steps.append(Step("blocks_by_regs", "blocks_by_regs",
                          {"R_SM": gpu.regs_per_sm, "T": T, "r": r}, by_regs, "blocks",
                          "register_lid", _floor_note(gpu.regs_per_sm, regs_block)))
    else:
        steps.append(Step("blocks_by_regs", "", {"T": T, "r": 0}, None,
                          "blocks", "register_lid_none", "no_limit"))
    if cfg.dyn_smem and cfg.smem_per_block:
        steps.append(Step("smem_per_block", "smem_per_block",
                          {"s_static": cfg.smem_per_block, "s_dyn": cfg.dyn_smem}, s, "B",
                          "smem_total"))
    if s:
        steps.append(Step("blocks_by_smem", "blocks_by_smem", {"S_SM": gpu.smem_per_sm, "s": s},
                          by_smem, "blocks", "smem_lid", _floor_note(gpu.smem_per_sm, s)))
    else:
        steps.append(Step("blocks_by_smem", "", {"S_SM": gpu.smem_per_sm, "s": 0},
                          None, "blocks", "smem_lid_none", "no_limit"))
    steps.append(_warp_step(gpu, T, w, by_warps))
    steps.append(Step("blocks_cap", "blocks_cap", {"B_max": limits["blocks"]}, limits["blocks"],
                      "blocks", "block_lid"))
    steps.append(Step("blocks_per_sm", "blocks_per_sm",
                      _min_values(by_regs, by_smem, by_warps, limits["blocks"]),
                      result.blocks_per_sm, "blocks", "lowest_lid",
                      "tie" if len(_limiter(limits, result.blocks_per_sm)) > 1 else None))
    steps.extend(_warps_and_occupancy_steps(gpu, result))
    return steps


def _warp_step(gpu: GPU, T: int, w: int, by_warps: int) -> Step:
    if T > gpu.max_threads_per_block:
        # a limit per block, not a share of the warp slots: no formula of the slots gives this 0
        return Step("blocks_by_warps", "", {"T": T, "T_max": gpu.max_threads_per_block}, 0,
                    "blocks", "thread_limit_lid", "threads_per_block")
    return Step("blocks_by_warps", "blocks_by_warps", {"W_max": gpu.max_warps_per_sm, "w": w},
                by_warps, "blocks", "warp_lid", _floor_note(gpu.max_warps_per_sm, w))


def _warps_and_occupancy_steps(gpu: GPU, result: OccupancyResult) -> tuple[Step, Step]:
    blocks, w, active = result.blocks_per_sm, result.warps_per_block, result.active_warps
    return (Step("active_warps", "active_warps", {"B": blocks, "w": w}, active, "warps",
                 "count_warps"),
            Step("occupancy", "occupancy", {"A": active, "W_max": gpu.max_warps_per_sm},
                 active / gpu.max_warps_per_sm, "", "occupancy_def"))


def _floor_note(numerator: int, denominator: int) -> str | None:
    if denominator and numerator % denominator:
        return "floor_drops"
    return None


def _min_values(by_regs, by_smem, by_warps, cap, by_bars=None, exact=False) -> dict[str, Any]:
    inf = "∞"
    values: dict[str, Any] = {
        "B_R": by_regs if by_regs is not None else inf,
        "B_S": by_smem if by_smem is not None else inf,
        "B_W": by_warps, "B_max": cap,
    }
    if exact:
        values["B_bar"] = by_bars if by_bars is not None else inf
    return values


def carveout_size(gpu: GPU, carveout: int) -> int:
    """Shared memory per SM that a carveout preference asks for, rounded up to a supported size."""
    if carveout == -1:
        wanted = gpu.smem_per_sm
    else:
        wanted = carveout * gpu.smem_per_sm // 100
    return align_up_carveout(gpu, wanted)


def align_up_carveout(gpu: GPU, size: int) -> int:
    """`size` bytes of shared memory rounded up to the smallest carveout the GPU offers."""
    sizes = gpu.smem_carveout_kb
    if not sizes:
        return size
    for kb in sizes:
        if size <= kb * 1024:
            return kb * 1024
    raise QuizgenError(
        f"{gpu.name} supports at most {sizes[-1]} KB of shared memory per SM, {size} B asked",
        field="smem_per_sm")


def _exact(gpu: GPU, cfg: LaunchConfig, explain: bool) -> OccupancyResult:
    T = cfg.threads_per_block
    w = ceiling(T, 32)

    # Warp slots (cuda_occupancy.h: cudaOccMaxBlocksPerSMWarpsLimit).
    too_many = T > gpu.max_threads_per_block
    by_warps = 0 if too_many else gpu.max_warps_per_sm // w
    failure = "threads_per_block" if too_many else None

    # Registers: allocated per warp in units of g_R, per sub-partition.
    g_r = gpu.reg_alloc_unit
    regs_warp = ceiling(cfg.regs_per_thread * 32, g_r) * g_r
    by_regs = _blocks_by_registers(gpu, cfg.regs_per_thread, regs_warp, w)
    if by_regs == 0 and failure is None:
        failure = _register_failure(gpu, cfg.regs_per_thread, regs_warp, w)

    # Shared memory: static + dynamic + reserved, rounded up to g_S; per-block and carveout limits.
    g_s = gpu.smem_alloc_unit
    smem_alloc = ceiling(cfg.smem_per_block + gpu.reserved_smem_per_block + cfg.dyn_smem, g_s) * g_s
    smem_sm = carveout_size(gpu, cfg.carveout)
    smem_failure = _smem_failure(gpu, cfg, smem_alloc)
    if smem_failure is not None:
        by_smem: int | None = 0
        failure = failure or smem_failure
    else:
        if smem_sm < smem_alloc and not _before_volta(gpu):
            smem_sm = align_up_carveout(gpu, smem_alloc)
        by_smem = smem_sm // smem_alloc if smem_alloc else None
        if by_smem == 0:        # before Volta the SM's shared memory is fixed (a GPU file's)
            failure = failure or "shared_memory"

    cap = gpu.max_blocks_per_sm
    # min() and the limiter written out: this is the hot path of batch generation.
    blocks = by_warps if by_warps < cap else cap
    if by_regs is not None and by_regs < blocks:
        blocks = by_regs
    if by_smem is not None and by_smem < blocks:
        blocks = by_smem
    by_bars = None
    if gpu.barriers_per_sm and cfg.barriers > 0:
        by_bars = gpu.barriers_per_sm // cfg.barriers
        if by_bars < blocks:
            blocks = by_bars
    if blocks == 0 and failure is None:
        failure = "barriers"
    limits: dict[str, int | None] = {"registers": by_regs, "shared_memory": by_smem,
                                     "warps": by_warps, "blocks": cap, "barriers": by_bars}
    limiter = [name for name, value in (("registers", by_regs), ("shared_memory", by_smem),
                                        ("warps", by_warps), ("blocks", cap), ("barriers", by_bars))
               if value == blocks]

    result = OccupancyResult(
        model="exact", gpu=gpu.name, config=cfg, warps_per_block=w,
        regs_per_block_allocated=regs_warp * w, smem_per_block_allocated=smem_alloc,
        smem_per_sm_available=smem_sm, limits=limits, blocks_per_sm=blocks,
        active_warps=blocks * w, max_warps_per_sm=gpu.max_warps_per_sm, limiter=limiter,
        failure=failure)
    if explain:
        result.steps = _exact_steps(gpu, result, regs_warp)
    return result


def _blocks_by_registers(gpu: GPU, r: int, regs_warp: int, w: int) -> int | None:
    """Blocks the registers allow: the warps that fit in each sub-partition, over the block's
    warps (0: the block cannot launch; None: it uses no registers)."""
    if r > gpu.max_regs_per_thread or regs_warp * w > gpu.regs_per_block:
        return 0
    P = gpu.schedulers_per_sm
    if regs_warp * (ceiling(w, P) * P) > gpu.regs_per_block:  # the hardware check rounds warps up to P
        return 0
    if regs_warp == 0:
        return None
    blocks = ((gpu.regs_per_sm // P) // regs_warp * P) // w
    if blocks and fails_on_gp10x(gpu, regs_warp, w):
        return 0
    return blocks


def fails_on_gp10x(gpu: GPU, regs_warp: int, w: int) -> bool:
    """cc 6.0 only: would the block fail the register rules of the other Pascal chips (GP10x,
    4 sub-partitions)? cuda_occupancy.h then refuses it on GP100 too (2 sub-partitions), so that
    a kernel that runs on one Pascal chip runs on all of them."""
    if gpu.compute_capability != "6.0" or regs_warp == 0:
        return False
    P = GP10X_SUBPARTITIONS
    return (regs_warp * (ceiling(w, P) * P) > gpu.regs_per_block
            or ((gpu.regs_per_sm // P) // regs_warp * P) // w == 0)


#: Sub-partitions of the Pascal chips other than GP100 (cc 6.1 and 6.2), as cuda_occupancy.h has them.
GP10X_SUBPARTITIONS = 4


def _register_failure(gpu: GPU, r: int, regs_warp: int, w: int) -> str | None:
    """Why the registers keep the block from launching (None: they do not)."""
    P = gpu.schedulers_per_sm
    if r > gpu.max_regs_per_thread:
        return "regs_per_thread"
    if regs_warp * (ceiling(w, P) * P) > gpu.regs_per_block or regs_warp * w > gpu.regs_per_block:
        return "regs_per_block"
    if regs_warp and ((gpu.regs_per_sm // P) // regs_warp * P) // w and fails_on_gp10x(
            gpu, regs_warp, w):
        return "regs_gp10x"
    return None


def _warps_per_subpartition(gpu: GPU, r: int, regs_warp: int, w: int) -> int | None:
    """The warps whose registers fit in one sub-partition (None when the block cannot launch or
    uses no registers)."""
    if regs_warp == 0 or _register_failure(gpu, r, regs_warp, w) is not None:
        return None
    return (gpu.regs_per_sm // gpu.schedulers_per_sm) // regs_warp


def _smem_block_limit(gpu: GPU, cfg: LaunchConfig) -> int:
    """The shared memory one block may use: 48 KB by default, the opt-in limit when the kernel
    opts in to more dynamic shared memory, each with the bytes the driver reserves per block."""
    static = cfg.smem_per_block + gpu.reserved_smem_per_block
    if (cfg.optin is not None and static + cfg.optin > gpu.smem_per_block
            and not _before_volta(gpu)):
        return gpu.smem_per_block_optin + gpu.reserved_smem_per_block
    return gpu.smem_per_block + gpu.reserved_smem_per_block


def _before_volta(gpu: GPU) -> bool:
    """Compute capability below 7.0: no shared-memory carveout and no opt-in to more shared
    memory per block (cuda_occupancy.h then takes the default per-block limit and the SM's whole
    shared memory, whatever a GPU file says)."""
    return 0 < gpu.cc_major < 7


def _smem_failure(gpu: GPU, cfg: LaunchConfig, smem_alloc: int) -> str | None:
    """Why the shared memory keeps the block from launching (None: it fits)."""
    if cfg.optin is not None and cfg.dyn_smem > cfg.optin:
        return "dyn_smem_optin"
    if smem_alloc > _smem_block_limit(gpu, cfg):
        return ("smem_needs_optin" if cfg.optin is None
                and smem_alloc <= gpu.smem_per_block_optin + gpu.reserved_smem_per_block
                and not _before_volta(gpu) else "smem_per_block")
    return None


def _exact_steps(gpu: GPU, result: OccupancyResult, regs_warp: int) -> list[Step]:
    """The exact model's derivation of `result`, one step per allocation rule."""
    cfg, w, limits = result.config, result.warps_per_block, result.limits
    T, blocks = cfg.threads_per_block, result.blocks_per_sm
    by_regs, by_smem, by_warps = limits["registers"], limits["shared_memory"], limits["warps"]
    steps = [Step("warps_per_block", "warps_per_block", {"T": T}, w, "warps",
                  "warps_whole", None if T % 32 == 0 else "partial_warp")]
    per_sub = _warps_per_subpartition(gpu, cfg.regs_per_thread, regs_warp, w)
    steps.extend(_exact_register_steps(gpu, result, regs_warp, per_sub))
    steps.extend(_exact_smem_steps(gpu, result, _smem_block_limit(gpu, cfg)))
    steps.append(_warp_step(gpu, T, w, by_warps))
    cap = limits["blocks"]
    steps.append(Step("blocks_cap", "blocks_cap", {"B_max": cap}, cap, "blocks", "block_lid"))
    tie = "tie" if len(_limiter(limits, blocks)) > 1 else None
    if limits["barriers"] is not None:
        steps.append(Step("blocks_by_barriers", "blocks_by_barriers",
                          {"N_bar": gpu.barriers_per_sm, "b": cfg.barriers}, limits["barriers"],
                          "blocks", "barrier_lid"))
        steps.append(Step("blocks_per_sm", "blocks_per_sm_exact",
                          _min_values(by_regs, by_smem, by_warps, cap, limits["barriers"], True),
                          blocks, "blocks", "lowest_lid_barriers", tie))
    else:
        steps.append(Step("blocks_per_sm", "blocks_per_sm",
                          _min_values(by_regs, by_smem, by_warps, cap), blocks, "blocks",
                          "lowest_lid", tie))
    steps.extend(_warps_and_occupancy_steps(gpu, result))
    return steps


def _exact_register_steps(gpu: GPU, result: OccupancyResult, regs_warp: int,
                          per_sub: int | None) -> list[Step]:
    r, w = result.config.regs_per_thread, result.warps_per_block
    if not r:
        return [Step("blocks_by_regs", "", {"T": result.config.threads_per_block, "r": 0}, None,
                     "blocks", "register_lid_none", "no_limit")]
    g_r, P = gpu.reg_alloc_unit, gpu.schedulers_per_sm
    steps = [Step("regs_per_warp_allocated", "regs_per_warp_allocated",
                  {"r": r, "g_R": g_r}, regs_warp, "registers", "reg_granularity",
                  None if (r * 32) % g_r == 0 else "rounded_up"),
             Step("regs_per_block_allocated", "regs_per_block_allocated",
                  {"R_warp": regs_warp, "w": w}, result.regs_per_block_allocated, "registers",
                  "block_reserves_warp_registers")]
    if per_sub is not None:
        steps.append(Step("warps_per_subpartition", "warps_per_subpartition",
                          {"R_SM": gpu.regs_per_sm, "P": P, "R_warp": regs_warp}, per_sub,
                          "warps", "subpartition_regs"))
        steps.append(Step("blocks_by_regs", "blocks_by_regs_exact",
                          {"P": P, "n_P": per_sub, "w": w}, result.limits["registers"], "blocks",
                          "register_lid_exact", _floor_note(per_sub * P, w)))
    else:
        why = _register_failure(gpu, r, regs_warp, w) or "regs_per_block"
        steps.append(Step("blocks_by_regs", "", {"R_warp": regs_warp, "w": w}, 0, "blocks",
                          "register_lid_gp10x" if why == "regs_gp10x" else "register_lid_exact_fails",
                          why))
    return steps


def _exact_smem_steps(gpu: GPU, result: OccupancyResult, limit_block: int) -> list[Step]:
    cfg, reserved = result.config, gpu.reserved_smem_per_block
    smem_alloc, smem_sm = result.smem_per_block_allocated, result.smem_per_sm_available
    by_smem = result.limits["shared_memory"]
    # before Volta nothing is reserved per block: the step and its formula are the rounding alone
    old_sm = _before_volta(gpu)
    steps = [Step("smem_per_block_units" if old_sm else "smem_per_block_allocated",
                  "smem_per_block_rounded" if old_sm else "smem_per_block_allocated",
                  {"s_static": cfg.smem_per_block, "s_dyn": cfg.dyn_smem, "s_res": reserved,
                   "g_S": gpu.smem_alloc_unit}, smem_alloc, "B", "smem_granularity",
                  "reserved" if reserved else None)]
    if by_smem == 0:
        steps.append(Step("blocks_by_smem", "blocks_by_smem", {"S_SM": limit_block, "s": smem_alloc},
                          0, "blocks", "smem_lid", result.failure))
        return steps
    if cfg.carveout != -1:
        # what the preference asks for, then the size the driver picks and why
        preference = carveout_size(gpu, cfg.carveout)
        wanted = cfg.carveout * gpu.smem_per_sm // 100
        steps.append(Step("smem_carveout", "smem_carveout", {"c": cfg.carveout, "S_SM": gpu.smem_per_sm},
                          wanted, "B", "carveout_preference"))
        why = ("carveout_raised" if smem_sm != preference
               else "carveout_rounded" if preference != wanted else "carveout_kept")
        steps.append(Step("smem_per_sm", "", {"S_pref": preference, "S_want": wanted, "s": smem_alloc,
                                              "S_SM": gpu.smem_per_sm}, smem_sm, "B", why))
    steps.append(Step("blocks_by_smem", "blocks_by_smem", {"S_SM": smem_sm, "s": smem_alloc},
                      by_smem, "blocks", "smem_lid",
                      "no_limit" if by_smem is None else _floor_note(smem_sm, smem_alloc)))
    return steps


def warps_by_registers(gpu: GPU, regs_per_thread: int) -> int:
    """Seed 004's per-warp register limit: ⌊R_SM/(32·r)⌋ warps (textbook, no block shape)."""
    if regs_per_thread <= 0:
        return gpu.max_warps_per_sm
    return min(gpu.regs_per_sm // (32 * regs_per_thread), gpu.max_warps_per_sm)
