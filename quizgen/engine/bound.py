"""Memory-bound or compute-bound: bytes, arithmetic intensity and one thread's critical path (seed 004).

Per thread:

* bytes moved = bytes loaded + bytes stored; arithmetic intensity = FLOPs / bytes moved;
* compute cycles = FLOPs / FLOPs per cycle, and never less than one FLOP's latency (one result
  cannot appear sooner than that);
* critical path = load latency + compute cycles. The store is not on it: global stores are
  buffered and retire asynchronously (seed 004, Ex 1 and its flashcard).

Classification (CELLS.md, *Physics*): the roofline. The kernel is memory-bound when its arithmetic
intensity is below the GPU's machine balance (peak FLOP/s ÷ peak bytes/s): memory then caps the
FLOP rate at intensity × bandwidth, below the peak. Otherwise it is compute-bound; a kernel that
moves no bytes is compute-bound. The critical path explains *why* a thread waits (and how much
latency other warps must hide); it does not decide.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from quizgen.engine.derivation import Step
from quizgen.engine.latency import plain, require_number
from quizgen.errors import require_int

#: Formulas of this module: name → (sympy source, {symbol: meaning}).
FORMULAS: dict[str, tuple[str, dict[str, str]]] = {
    "bytes_moved": ("b_ld + b_st", {
        "b_ld": "bytes loaded per thread", "b_st": "bytes stored per thread"}),
    "arithmetic_intensity": ("F_ops/b_mov", {
        "F_ops": "FLOPs per thread", "b_mov": "bytes moved per thread"}),
    "compute_cycles": ("Max(F_ops/r_F, l_F)", {
        "F_ops": "FLOPs per thread", "r_F": "FLOPs per cycle per thread",
        "l_F": "latency of one FLOP (cycles)"}),
    "critical_path": ("L_ld + C_cmp", {
        "L_ld": "load latency (cycles)", "C_cmp": "compute cycles"}),
    "machine_balance": ("F_peak/B_peak", {
        "F_peak": "peak FP32 throughput (GFLOP/s)", "B_peak": "peak memory bandwidth (GB/s)"}),
    "attainable_flops": ("Min(F_peak, I_AI*B_peak)", {
        "F_peak": "peak FP32 throughput (GFLOP/s)", "I_AI": "arithmetic intensity (FLOP/B)",
        "B_peak": "peak memory bandwidth (GB/s)"}),
    "memory_share": ("L_ld/P_crit", {
        "L_ld": "load latency (cycles)", "P_crit": "critical-path latency (cycles)"}),
}


@dataclass(slots=True)
class KernelBound:
    """One thread's memory traffic, arithmetic intensity, critical path and the verdict."""

    bytes_loaded: int
    bytes_stored: int
    flops: int | float
    load_latency: int | None                # None: only the verdict was asked (no critical path)
    flop_latency: int | float
    flops_per_cycle: int | float
    bytes_moved: int
    arithmetic_intensity: float | None      # None when no bytes move
    compute_cycles: int | float
    critical_path: int | float | None
    memory_share: float | None
    bound: str                              # "memory" or "compute", by the roofline
    reason: str | None                      # a why-key: memory_latency_dominates / compute_dominates
    machine_balance: float = 0.0            # FLOP/B where the roofline bends
    peak_gflops: int = 0
    bandwidth_gbs: int = 0
    attainable_gflops: float = 0.0          # min(peak, AI × bandwidth)
    steps: list[Step] = field(default_factory=list)

    @property
    def memory_bound(self) -> bool:
        return self.bound == "memory"

    def to_dict(self, *, with_steps: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            "bytes_loaded": self.bytes_loaded, "bytes_stored": self.bytes_stored,
            "flops": self.flops, "load_latency": self.load_latency,
            "flop_latency": self.flop_latency, "flops_per_cycle": self.flops_per_cycle,
            "bytes_moved": self.bytes_moved, "arithmetic_intensity": self.arithmetic_intensity,
            "compute_cycles": self.compute_cycles, "critical_path": self.critical_path,
            "memory_share": self.memory_share, "bound": self.bound,
            "memory_bound": self.memory_bound, "reason": self.reason,
            "machine_balance": self.machine_balance, "peak_gflops": self.peak_gflops,
            "bandwidth_gbs": self.bandwidth_gbs, "attainable_gflops": self.attainable_gflops,
        }
        if with_steps:
            out["steps"] = [s.to_dict() for s in self.steps]
        return out


def classify_kernel(bytes_loaded: Any, bytes_stored: Any, flops: Any, *, load_latency: Any = None,
                    flop_latency: Any = 4, flops_per_cycle: Any = 1, gpu: Any = None,
                    explain: bool = False) -> KernelBound:
    """Seed 004 Ex 1–2: memory- or compute-bound by the roofline on `gpu` (default: the notes'
    SM), with one thread's critical path to explain the wait. The verdict needs no latency: with
    `load_latency` None there is no critical path (PMPP's "36 FLOPs, seven 4-byte accesses")."""
    if gpu is None:
        from quizgen.gpus import get_gpu
        gpu = get_gpu("textbook")
    balance = gpu.machine_balance
    if balance is None:
        from quizgen.errors import QuizgenError
        raise QuizgenError(f"GPU {gpu.name!r} has no peak_fp32_gflops and mem_bandwidth_gbs, "
                           "so its machine balance (the roofline) is unknown", field="gpu")
    F_peak, B_peak = gpu.peak_fp32_gflops, gpu.mem_bandwidth_gbs
    b_ld = require_int("bytes_loaded", bytes_loaded, minimum=0)
    b_st = require_int("bytes_stored", bytes_stored, minimum=0)
    f = require_number("flops", flops, positive=False)
    L = None if load_latency is None else require_int("load_latency", load_latency, minimum=0)
    l_f = require_number("flop_latency", flop_latency, positive=False)
    rate = require_number("flops_per_cycle", flops_per_cycle)
    moved = b_ld + b_st
    ai = Fraction(f) / moved if moved else None
    compute = max(f / rate, l_f) if f else Fraction(0)
    memory = ai is not None and ai < balance          # the roofline's verdict
    bound = "memory" if memory else "compute"
    if L is None:
        path = share = reason = None
    else:
        path = L + compute
        share = float(Fraction(L) / path) if path else 0.0
        waits = b_ld > 0 and L > compute                 # the critical path's reading (the why)
        reason = "memory_latency_dominates" if waits else "compute_dominates"
    attainable = min(Fraction(F_peak), ai * B_peak) if ai is not None else Fraction(F_peak)

    result = KernelBound(b_ld, b_st, plain(f), L, plain(l_f), plain(rate), moved,
                         float(ai) if ai is not None else None, plain(compute),
                         None if path is None else plain(path), share,
                         bound, reason, float(balance), F_peak, B_peak, float(attainable))
    if explain:
        result.steps = _steps(result, f, rate, l_f, ai, balance, attainable)
    return result


def _steps(r: KernelBound, f: Fraction, rate: Fraction, l_f: Fraction, ai: Fraction | None,
           balance: Fraction, attainable: Fraction) -> list[Step]:
    """The derivation: traffic, intensity and the roofline's verdict; with a load latency, also
    one thread's critical path (which explains the wait, and decides nothing)."""
    b_ld, b_st, moved, L, memory = r.bytes_loaded, r.bytes_stored, r.bytes_moved, r.load_latency, r.memory_bound
    F_peak, B_peak, compute, path = r.peak_gflops, r.bandwidth_gbs, r.compute_cycles, r.critical_path
    steps = [Step("bytes_moved", "bytes_moved", {"b_ld": b_ld, "b_st": b_st}, moved, "B",
                  "count_traffic", "no_traffic" if moved == 0 else None)]
    if ai is not None:
        steps.append(Step("arithmetic_intensity", "arithmetic_intensity",
                          {"F_ops": plain(f), "b_mov": moved}, float(ai), "FLOP/B",
                          "flops_per_byte", None))
    steps.append(Step("machine_balance", "machine_balance", {"F_peak": F_peak, "B_peak": B_peak},
                      float(balance), "FLOP/B", "roofline_bends"))
    if ai is not None:
        steps.append(Step("attainable_flops", "attainable_flops",
                          {"F_peak": F_peak, "I_AI": float(ai), "B_peak": B_peak},
                          float(attainable), "GFLOP/s", "roofline_decides",
                          "below_balance" if memory else "above_balance"))
    if L is None:
        return steps
    steps.append(Step("compute_cycles", "compute_cycles",
                      {"F_ops": plain(f), "r_F": plain(rate), "l_F": plain(l_f)}, compute,
                      "cycles", "pipelined_compute",
                      "one_flop_latency" if f and f / rate < l_f else None))
    steps.append(Step("critical_path", "critical_path", {"L_ld": L, "C_cmp": compute},
                      path, "cycles", "load_then_compute", "store_async" if b_st else None))
    if path:
        steps.append(Step("memory_share", "memory_share", {"L_ld": L, "P_crit": path},
                          r.memory_share, "", r.reason,
                          "moderate_occupancy_enough" if memory else "few_warps_enough"))
    return steps
