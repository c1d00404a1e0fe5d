"""Latency hiding: how many warps keep a scheduler busy while one warp waits (seeds 000, 001, 004).

* ``warps_needed``: ⌈L/W⌉ warps, each covering W cycles of another warp's L-cycle stall
  (seed 001 Ex 5–6); W = 1 is the degenerate, memory-bound limit.
* ``scheduler_demand``: N_sched·L/T_issue instruction slots per stall, ÷ I_warp = warps; the
  SM's warp cap can bind, and instruction-level parallelism closes the gap (seed 001 Ex 10).
* ``efficiency``: η(N) = min(N, L)/L with one issue per cycle; a plateau at N ≥ L (seed 000 Ex 6).
* ``littles_law``: concurrency = L × throughput; warps ≈ L·throughput/(ILP·schedulers)
  (seed 004). ILP and schedulers lower the warps needed; the latency L itself never changes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from quizgen.engine.derivation import Step
from quizgen.errors import QuizgenError, require_int

#: Formulas of this module: name → (sympy source, {symbol: meaning}).
FORMULAS: dict[str, tuple[str, dict[str, str]]] = {
    "warps_to_hide": ("ceiling(L/W)", {
        "L": "stall latency (cycles)", "W": "independent instructions a warp issues between stalls"}),
    "warp_deficit": ("Max(N_w - W_max, 0)", {
        "N_w": "warps needed", "W_max": "max resident warps per SM"}),
    "instruction_slots": ("N_sched*L/T_issue", {
        "N_sched": "warp schedulers per SM", "L": "stall latency (cycles)",
        "T_issue": "cycles between issues of one scheduler"}),
    "warps_for_slots": ("ceiling(S_in/I_warp)", {
        "S_in": "instruction slots to fill during one stall",
        "I_warp": "independent instructions per warp between stalls"}),
    "ilp_factor": ("ceiling(N_w/W_max)", {
        "N_w": "warps needed without ILP", "W_max": "max resident warps per SM"}),
    "warps_with_ilp": ("ceiling(S_in/(I_warp*k_ilp))", {
        "S_in": "instruction slots to fill during one stall",
        "I_warp": "independent instructions per warp between stalls",
        "k_ilp": "instruction-level parallelism factor"}),
    "plateau_warps": ("L", {"L": "stall latency (cycles)"}),
    "latency_efficiency": ("Min(N_res, L)/L", {
        "N_res": "resident warps", "L": "stall latency (cycles)"}),
    "concurrency": ("L*X", {"L": "latency (cycles)", "X": "throughput (operations per cycle)"}),
    "littles_warps": ("ceiling(C_ops/(k_ilp*N_sched))", {
        "C_ops": "operations that must be in flight", "k_ilp": "independent operations per warp (ILP)",
        "N_sched": "warp schedulers per SM"}),
    "latency_unchanged": ("L", {"L": "latency of one operation (cycles)"}),
}


def require_number(field_name: str, value: Any, *, positive: bool = True) -> Fraction:
    """A finite number (int, float or numeric string) as an exact Fraction, or a one-line error.

    Floats go through their decimal text so that 0.1 stays one tenth.
    """
    if value.__class__ is int and (value > 0 or (value == 0 and not positive)):
        return Fraction(value)      # the common case, without Fraction comparisons
    allowed = "a number > 0" if positive else "a number ≥ 0"
    if isinstance(value, bool) or value is None:
        raise QuizgenError(f"got {value!r}; expected {allowed}", field=field_name)
    try:
        if isinstance(value, Fraction):
            exact = value
        elif isinstance(value, int):
            exact = Fraction(value)
        elif isinstance(value, float):
            if not math.isfinite(value):
                raise ValueError
            exact = Fraction(repr(value))
        elif isinstance(value, str):
            exact = Fraction(value.strip())
        else:
            raise ValueError
    except (ValueError, ZeroDivisionError):
        raise QuizgenError(f"got {value!r}; expected {allowed}", field=field_name) from None
    if exact < 0 or (positive and exact == 0):
        raise QuizgenError(f"got {value!r}; expected {allowed}", field=field_name)
    return exact


def plain(value: Fraction | int | float) -> int | float:
    """An int when whole, else a float: the JSON-safe form of an exact number."""
    if value.__class__ is int:
        return value
    if isinstance(value, Fraction):
        return int(value) if value.denominator == 1 else float(value)
    return value


def _ceil(value: Fraction) -> int:
    return -(-value.numerator // value.denominator)


@dataclass(slots=True)
class WarpsNeeded:
    """⌈L/W⌉ warps to hide an L-cycle stall, against the SM's warp cap."""

    latency: int
    work_per_warp: int
    max_warps: int
    warps_needed: int
    deficit: int
    steps: list[Step] = field(default_factory=list)

    @property
    def hidable(self) -> bool:
        return self.warps_needed <= self.max_warps

    @property
    def memory_bound(self) -> bool:
        return not self.hidable

    @property
    def degenerate(self) -> bool:
        """W = 1: nothing to overlap, one warp per cycle of stall (seed 001 Ex 6)."""
        return self.work_per_warp == 1

    def to_dict(self, *, with_steps: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            "latency": self.latency, "work_per_warp": self.work_per_warp,
            "max_warps": self.max_warps, "warps_needed": self.warps_needed,
            "deficit": self.deficit, "hidable": self.hidable, "memory_bound": self.memory_bound,
            "degenerate": self.degenerate,
        }
        if with_steps:
            out["steps"] = [s.to_dict() for s in self.steps]
        return out


def warps_needed(latency: Any, work_per_warp: Any, *, max_warps: Any = 64,
                 explain: bool = False) -> WarpsNeeded:
    """Warps needed to hide `latency` cycles when each warp issues `work_per_warp` between stalls."""
    L = require_int("latency", latency, minimum=1)
    W = require_int("work_per_warp", work_per_warp, minimum=1)
    cap = require_int("max_warps", max_warps, minimum=1)
    n = -(-L // W)
    deficit = max(n - cap, 0)
    steps: list[Step] = []
    if explain:
        note = "no_compute" if W == 1 else None if L % W == 0 else "ceil_rounds_up"
        steps.append(Step("warps_needed", "warps_to_hide", {"L": L, "W": W}, n, "warps",
                          "fill_the_wait", note))
        steps.append(Step("deficit", "warp_deficit", {"N_w": n, "W_max": cap}, deficit, "warps",
                          "compare_cap", "memory_bound" if deficit else "hidable"))
    return WarpsNeeded(L, W, cap, n, deficit, steps)


@dataclass(slots=True)
class SchedulerDemand:
    """Seed 001 Ex 10: the instruction slots of one stall, in warps, against the warp cap."""

    schedulers: int
    latency: int
    issue_interval: int
    work_per_warp: int
    max_warps: int
    instruction_slots: int | float
    warps_needed: int
    deficit: int
    ilp_factor: int
    warps_with_ilp: int
    steps: list[Step] = field(default_factory=list)

    @property
    def fits(self) -> bool:
        return self.deficit == 0

    def to_dict(self, *, with_steps: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            "schedulers": self.schedulers, "latency": self.latency,
            "issue_interval": self.issue_interval, "work_per_warp": self.work_per_warp,
            "max_warps": self.max_warps, "instruction_slots": self.instruction_slots,
            "warps_needed": self.warps_needed, "deficit": self.deficit, "fits": self.fits,
            "ilp_factor": self.ilp_factor, "warps_with_ilp": self.warps_with_ilp,
        }
        if with_steps:
            out["steps"] = [s.to_dict() for s in self.steps]
        return out


def scheduler_demand(schedulers: Any, latency: Any, issue_interval: Any, work_per_warp: Any, *,
                     max_warps: Any = 64, explain: bool = False) -> SchedulerDemand:
    """N_sched·L/T_issue slots, ⌈÷ I_warp⌉ warps, the deficit under the cap, and the ILP to close it.

    The ILP factor is the smallest whole k with ⌈slots/(I_warp·k)⌉ ≤ cap, which is ⌈needed/cap⌉.
    """
    n_sched = require_int("schedulers", schedulers, minimum=1)
    L = require_int("latency", latency, minimum=1)
    t_issue = require_int("issue_interval", issue_interval, minimum=1)
    i_warp = require_int("work_per_warp", work_per_warp, minimum=1)
    cap = require_int("max_warps", max_warps, minimum=1)
    slots = Fraction(n_sched * L, t_issue)
    needed = _ceil(slots / i_warp)
    deficit = max(needed - cap, 0)
    k = -(-needed // cap)
    with_ilp = _ceil(slots / (i_warp * k))
    steps: list[Step] = []
    if explain:
        steps.append(Step("instruction_slots", "instruction_slots",
                          {"N_sched": n_sched, "L": L, "T_issue": t_issue}, plain(slots),
                          "instructions", "slots_in_flight",
                          None if slots.denominator == 1 else "fractional_slots"))
        steps.append(Step("warps_needed", "warps_for_slots", {"S_in": plain(slots), "I_warp": i_warp},
                          needed, "warps", "slots_to_warps",
                          None if (slots / i_warp).denominator == 1 else "ceil_rounds_up"))
        steps.append(Step("deficit", "warp_deficit", {"N_w": needed, "W_max": cap}, deficit,
                          "warps", "compare_cap", "cap_binds" if deficit else "fits"))
        if deficit:
            steps.append(Step("ilp_factor", "ilp_factor", {"N_w": needed, "W_max": cap}, k, "×",
                              "ilp_closes_gap", "ilp_costs_registers"))
            steps.append(Step("warps_with_ilp", "warps_with_ilp",
                              {"S_in": plain(slots), "I_warp": i_warp, "k_ilp": k}, with_ilp,
                              "warps", "ilp_check"))
    return SchedulerDemand(n_sched, L, t_issue, i_warp, cap, plain(slots), needed, deficit, k,
                           with_ilp, steps)


@dataclass(slots=True)
class Efficiency:
    """η(N) = min(N, L)/L: the share of issue cycles that N resident warps keep busy."""

    resident_warps: int
    latency: int
    efficiency: float
    steps: list[Step] = field(default_factory=list)

    @property
    def plateau_at(self) -> int:
        return self.latency

    @property
    def saturated(self) -> bool:
        return self.resident_warps >= self.latency

    @property
    def spare_warps(self) -> int:
        """Warps past the plateau: they add nothing."""
        return max(self.resident_warps - self.latency, 0)

    def to_dict(self, *, with_steps: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            "resident_warps": self.resident_warps, "latency": self.latency,
            "efficiency": self.efficiency, "plateau_at": self.plateau_at,
            "saturated": self.saturated, "spare_warps": self.spare_warps,
        }
        if with_steps:
            out["steps"] = [s.to_dict() for s in self.steps]
        return out


def efficiency(resident_warps: Any, latency: Any, *, explain: bool = False) -> Efficiency:
    """Seed 000 Ex 6's model: one issue per cycle, each warp covers one cycle of an L-cycle stall."""
    n = require_int("resident_warps", resident_warps, minimum=0)
    L = require_int("latency", latency, minimum=1)
    eta = min(n, L) / L
    steps: list[Step] = []
    if explain:
        steps.append(Step("plateau_warps", "plateau_warps", {"L": L}, L, "warps", "one_warp_per_cycle"))
        note = "saturated" if n == L else "past_plateau" if n > L else "below_plateau"
        steps.append(Step("efficiency", "latency_efficiency", {"N_res": n, "L": L}, eta, "",
                          "fraction_of_cycles", note))
    return Efficiency(n, L, eta, steps)


@dataclass(slots=True)
class LittlesLaw:
    """Concurrency = L × throughput, and the warps that supply it with ILP and several schedulers."""

    latency: int
    throughput: int | float
    ilp: int | float
    schedulers: int
    concurrency: int | float
    warps_needed: int
    steps: list[Step] = field(default_factory=list)

    def to_dict(self, *, with_steps: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            "latency": self.latency, "throughput": self.throughput, "ilp": self.ilp,
            "schedulers": self.schedulers, "concurrency": self.concurrency,
            "warps_needed": self.warps_needed,
        }
        if with_steps:
            out["steps"] = [s.to_dict() for s in self.steps]
        return out


def littles_law(latency: Any, throughput: Any, *, ilp: Any = 1, schedulers: Any = 1,
                explain: bool = False) -> LittlesLaw:
    """Little's law for latency hiding (seed 004's Mistake 2, done right).

    Warps needed ≈ ⌈L·throughput/(ILP·schedulers)⌉. ILP and schedulers raise what each warp and
    the SM supply; they never shorten L (no L_eff = L/(…)): the last step records L unchanged.
    """
    L = require_int("latency", latency, minimum=1)
    x = require_number("throughput", throughput)
    k = require_number("ilp", ilp)
    n_sched = require_int("schedulers", schedulers, minimum=1)
    conc = L * x
    n = _ceil(conc / (k * n_sched))
    steps: list[Step] = []
    if explain:
        steps.append(Step("concurrency", "concurrency", {"L": L, "X": plain(x)}, plain(conc),
                          "operations", "littles_law"))
        steps.append(Step("warps_needed", "littles_warps",
                          {"C_ops": plain(conc), "k_ilp": plain(k), "N_sched": n_sched}, n, "warps",
                          "share_the_concurrency",
                          None if (conc / (k * n_sched)).denominator == 1 else "ceil_rounds_up"))
        steps.append(Step("latency", "latency_unchanged", {"L": L}, L, "cycles",
                          "latency_is_fixed", "no_l_eff"))
    return LittlesLaw(L, plain(x), plain(k), n_sched, plain(conc), n, steps)
