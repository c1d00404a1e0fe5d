"""Little's law in bytes from a stated latency (a calculator option and L-5 level 2).

To run at the peak bandwidth B, B × t bytes must be in flight while a load takes t (GB/s is bytes
per ns, so t in ns). The SMs share them; a warp carries 32 lanes × b_l bytes × ILP at once, so
each SM needs ⌈(B·t/N_SM)/(32·b_l·ILP)⌉ warps, and with its cap of warps the least ILP is
⌈(B·t/N_SM)/(cap·32·b_l)⌉. The latency is never shortened: ILP and wider loads change how many
bytes a warp carries, not how long one load takes. (The measured version, from an H200's
streaming curve, is `quizgen.engine.latency.bytes_in_flight`; the steps are the same.)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from quizgen.engine.derivation import Step
from quizgen.engine.arith import ceiling
from quizgen.engine.latency import plain, require_number
from quizgen.errors import require_int

#: Formulas of this module: name → (sympy source, {symbol: meaning}).
FORMULAS: dict[str, tuple[str, dict[str, str]]] = {
    "latency_ns": ("L/f", {"L": "latency (cycles)", "f": "clock (GHz = cycles per ns)"}),
}


@dataclass(slots=True)
class BytesNeeded:
    """Bytes in flight for a bandwidth and a latency, per SM, and the warps that carry them."""

    bandwidth: int | float      # GB/s = bytes per ns
    latency_ns: int | float
    sms: int
    lane_bytes: int
    ilp: int
    max_warps: int
    in_flight: int | float      # bytes the whole GPU keeps in flight
    per_sm: int | float
    per_warp: int               # 32 lanes × b_l × ILP
    warps_needed: int
    ilp_at_cap: int             # the least ILP with the SM's cap of warps
    steps: list[Step] = field(default_factory=list)

    @property
    def fits(self) -> bool:
        return self.warps_needed <= self.max_warps

    def to_dict(self) -> dict[str, Any]:
        return {"bandwidth_gbs": self.bandwidth, "latency_ns": self.latency_ns, "sms": self.sms,
                "lane_bytes": self.lane_bytes, "ilp": self.ilp, "max_warps": self.max_warps,
                "bytes_in_flight": self.in_flight, "bytes_per_sm": self.per_sm,
                "bytes_per_warp": self.per_warp, "warps_needed": self.warps_needed,
                "fits": self.fits, "ilp_at_cap": self.ilp_at_cap}


def bytes_to_hide(peak_gbs: Any, latency: Any, sms: Any, *, lane_bytes: Any = 4, ilp: Any = 1,
                  max_warps: Any = 64, clock_ghz: Any = None, explain: bool = False) -> BytesNeeded:
    """Little's law in bytes (see the module docstring). `latency` is in ns, or in cycles with
    `clock_ghz` (then t = L/f first)."""
    peak = require_number("bandwidth", peak_gbs)
    t = require_number("latency_ns", latency)
    n_sm = require_int("sms", sms, minimum=1)
    k = require_int("ilp", ilp, minimum=1, maximum=1 << 20)
    b_l = require_int("lane_bytes", lane_bytes, minimum=1, maximum=1 << 20)
    cap = require_int("max_warps", max_warps, minimum=1)
    steps: list[Step] = []
    if clock_ghz is not None:
        f = require_number("clock", clock_ghz)
        if explain:
            steps.append(Step("latency_ns", "latency_ns", {"L": plain(t), "f": plain(f)},
                              plain(t / f), "ns", "lat_latency_ns"))
        t = t / f
    b_1 = 32 * b_l
    b_w = b_1 * k
    q = peak * t
    q_sm = q / n_sm
    n = ceiling(q_sm / b_w)
    k_cap = ceiling(q_sm / (cap * b_1))
    if explain:
        steps += [
            Step("bytes_in_flight", "bytes_in_flight", {"B_peak": plain(peak), "t_lat": plain(t)},
                 plain(q), "B", "lat_bytes_in_flight"),
            Step("bytes_per_sm", "bytes_per_sm", {"Q_fl": plain(q), "N_SM": n_sm}, plain(q_sm), "B",
                 "lat_bytes_per_sm"),
            Step("bytes_per_warp", "bytes_per_warp", {"b_l": b_l, "k_ilp": k}, b_w, "B",
                 "lat_bytes_per_warp"),
            Step("warps_for_bandwidth", "warps_for_bytes", {"q_SM": plain(q_sm), "b_w": b_w}, n,
                 "warps", "lat_warps_for_bytes", "lat_over_cap" if n > cap else None),
        ]
        if n > cap:
            steps.append(Step("ilp_at_cap", "ilp_for_bytes", {"q_SM": plain(q_sm), "W_max": cap,
                                                               "b_1": b_1}, k_cap, "",
                              "lat_ilp_for_bytes"))
    return BytesNeeded(plain(peak), plain(t), n_sm, b_l, k, cap, plain(q), plain(q_sm), b_w, n,
                       k_cap, steps)
