"""Curves measured on a real NVIDIA H200, shipped with the CUDA programs that measured them
(``quizgen/data/measured/``: README.md, the .jsonl results, physics_real.cu and mem_real.cu).

* FMA issue rate against resident warps per SM at ILP 1, 2 and 4 (`fma_curves`): dependent FP32
  FMA chains, one block per SM; warp-instructions issued per SM per cycle (the peak is 4, one per
  scheduler).
* Streaming bandwidth against warps per SM at ILP 1 and 4 (`bandwidth_curves`).
* Where a launch's blocks land (`placement`).

`measured_knee` reads where a curve stops climbing; `model_knee` is what the shared latency model
(`quizgen.engine.latency`) predicts for it, N_sched × ⌈L·X_s/ILP⌉ with X_s = 1 issue per cycle.
"""

from __future__ import annotations

import json
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import Any

MEASURED_DIR = Path(__file__).with_name("data") / "measured"

#: Dependent-issue latency of an FP32 FMA on Hopper, in cycles: a warp can issue the next FMA of
#: its chain 4 cycles after the last. (One warp alone measures 0.216 FMA per cycle, a dependent
#: FMA every 4.6 cycles: the loop's own counter and branch instructions sit in the chain too.)
FMA_LATENCY = 4
#: The H200's HBM3e peak bandwidth (NVIDIA's H200 datasheet), bytes per second.
H200_PEAK_BANDWIDTH = 4.8e12


@cache
def _records(name: str) -> tuple[dict[str, Any], ...]:
    lines = (MEASURED_DIR / name).read_text(encoding="utf-8").splitlines()
    return tuple(json.loads(line) for line in lines if line.strip())


def device() -> dict[str, Any]:
    """The first record of the latency file: the device name and its SM count."""
    return dict(_records("h200_latency_and_placement.jsonl")[0])


def fma_curves() -> dict[int, list[tuple[int, float]]]:
    """ILP → [(warps per SM, warp-FMAs issued per SM per cycle)], in the measured order."""
    out: dict[int, list[tuple[int, float]]] = {}
    for r in _records("h200_latency_and_placement.jsonl"):
        if r.get("exp") == "latency":
            out.setdefault(r["ilp"], []).append((r["warps_per_sm"], r["warp_fma_per_cycle"]))
    return out


def bandwidth_curves() -> dict[int, list[tuple[int, float]]]:
    """ILP → [(warps per SM, GB/s over the whole GPU)]."""
    out: dict[int, list[tuple[int, float]]] = {}
    for r in _records("h200_bandwidth_vs_warps.jsonl"):
        if r.get("exp") == "bandwidth":
            out.setdefault(r["ilp"], []).append((r["warps_per_sm"], r["GBps"]))
    return out


def placement() -> list[dict[str, Any]]:
    return [dict(r) for r in _records("h200_latency_and_placement.jsonl") if r.get("exp") == "placement"]


def measured_knee(points: list[tuple[int, float]]) -> float:
    """Where a measured curve bends: its plateau (the highest rate) over the rate one warp adds
    (the first point's slope), the warps at which the rising line meets the plateau."""
    first_warps, first_rate = points[0]
    plateau = max(rate for _, rate in points)
    return plateau / (first_rate / first_warps)


def per_warp_rate(points: list[tuple[int, float]]) -> float:
    """What one warp adds at the start of the curve (0.216 FMA per cycle at ILP 1)."""
    warps, rate = points[0]
    return rate / warps


def model_knee(ilp: int = 1, *, latency: int = FMA_LATENCY, schedulers: int | None = None) -> int:
    """The warps per SM the shared latency model says an SM needs to issue every cycle: each
    scheduler needs ⌈L/ILP⌉ warps of its own, and the SM N_sched times that."""
    from quizgen import engine  # noqa: F401  (the engine package: one latency model for all)
    from quizgen.engine import latency as lat
    from quizgen.gpus import get_gpu

    n_sched = schedulers if schedulers is not None else get_gpu("h200").schedulers_per_sm
    if hasattr(lat, "hide_latency"):
        return lat.hide_latency(latency, 1, schedulers=n_sched, ilp=ilp, max_warps=64).warps_needed
    return lat.scheduler_demand(n_sched, latency, 1, ilp, max_warps=64).warps_needed


def model_rate(warps: float, ilp: int = 1, *, latency: int = FMA_LATENCY, schedulers: int = 4) -> float:
    """The model's issue rate: each warp issues ILP FMAs per L cycles, up to one per scheduler."""
    return float(min(Fraction(ilp, latency) * Fraction(warps), schedulers))


def bytes_per_warp_round(ilp: int) -> int:
    """Bytes one warp has in flight per round of the streaming kernel: 32 lanes × 4 B × ILP."""
    return 32 * 4 * ilp


def memory_latency_seconds() -> float:
    """The load latency the one-warp ILP 1 point implies by Little's law: bytes in flight over
    the whole GPU (SMs × 128 B) ÷ bandwidth."""
    warps, gbps = bandwidth_curves()[1][0]
    return device()["sms"] * warps * bytes_per_warp_round(1) / (gbps * 1e9)


def model_bandwidth(warps: float, ilp: int) -> float:
    """Little's law: bandwidth = bytes in flight ÷ latency, capped at the peak (GB/s)."""
    in_flight = device()["sms"] * warps * bytes_per_warp_round(ilp)
    return min(in_flight / memory_latency_seconds(), H200_PEAK_BANDWIDTH) / 1e9


def warps_for_peak(ilp: int) -> int:
    """Warps per SM that Little's law says the peak needs: peak × latency bytes in flight,
    shared by the SMs, at 128·ILP bytes per warp (rounded up)."""
    import math

    in_flight = H200_PEAK_BANDWIDTH * memory_latency_seconds()
    return math.ceil(in_flight / (device()["sms"] * bytes_per_warp_round(ilp)) - 1e-9)
