"""Latency hiding: how many warps keep an SM's schedulers busy while warps wait (seeds 000, 001, 004).

One model, used by every cell and the calculator (``hide_latency``): Little's law per scheduler.
A scheduler issues X_s instructions per cycle (X_s = 1/T_issue); to cover an L-cycle stall it needs
L·X_s instructions in flight, and a warp brings W·ILP of them, so it needs ⌈L·X_s/(W·ILP)⌉ warps of
its own (seed 001: L = 300, W = 15 → 20). Every scheduler needs its own warps: the SM needs
N_sched times that (seed 001 Ex 10: 4 × 20 = 80 against a cap of 64 → 16 short). More schedulers
never lower the warps needed; dividing by N_sched is the misconception ``divided_by_schedulers``.

``efficiency`` is seed 000 Ex 6's single-scheduler curve η(N) = min(N, L)/L (one issue per cycle,
one instruction per warp between stalls): its plateau is ``hide_latency(L, 1).warps_needed``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from quizgen.engine.arith import ceiling
from quizgen.engine.derivation import Step
from quizgen.errors import QuizgenError, require_int

#: Formulas of this module: name → (sympy source, {symbol: meaning}).
FORMULAS: dict[str, tuple[str, dict[str, str]]] = {
    "warps_to_hide": ("ceiling(L/W)", {
        "L": "stall latency (cycles)", "W": "independent instructions a warp issues between stalls"}),
    "warps_per_scheduler": ("ceiling(L/(T_issue*I_warp))", {
        "L": "stall latency (cycles)", "T_issue": "cycles between issues of one scheduler",
        "I_warp": "independent instructions per warp between stalls"}),
    "littles_per_scheduler": ("ceiling(L*X_s/k_ilp)", {
        "L": "latency (cycles)", "X_s": "operations one scheduler starts per cycle",
        "k_ilp": "independent operations in flight per warp (ILP)"}),
    "hiding_per_scheduler": ("ceiling(L*X_s/(W*k_ilp))", {
        "L": "stall latency (cycles)", "X_s": "instructions one scheduler issues per cycle",
        "W": "independent instructions a warp issues between stalls",
        "k_ilp": "independent operations in flight per warp (ILP)"}),
    "sm_warps": ("N_sched*n_s", {
        "N_sched": "warp schedulers per SM", "n_s": "warps each scheduler needs"}),
    "warp_deficit": ("Max(N_w - W_max, 0)", {
        "N_w": "warps needed", "W_max": "max resident warps per SM"}),
    "warps_per_scheduler_cap": ("floor(W_max/N_sched)", {
        "W_max": "max resident warps per SM", "N_sched": "warp schedulers per SM"}),
    "ilp_factor": ("ceiling(n_s/c_s)", {
        "n_s": "warps each scheduler needs without extra ILP",
        "c_s": "warps one scheduler can hold (its share of the cap)"}),
    "warps_with_ilp": ("N_sched*ceiling(n_s/k_x)", {
        "N_sched": "warp schedulers per SM", "n_s": "warps each scheduler needs without extra ILP",
        "k_x": "extra ILP factor, on top of the ILP already counted in n_s"}),
    "sm_throughput": ("N_sched*X_s", {
        "N_sched": "warp schedulers per SM", "X_s": "operations one scheduler starts per cycle"}),
    "plateau_warps": ("N_sched*L", {"N_sched": "warp schedulers per SM",
                                    "L": "stall latency (cycles)"}),
    "latency_efficiency": ("Min(N_res, N_sched*L)/(N_sched*L)", {
        "N_res": "resident warps", "N_sched": "warp schedulers per SM",
        "L": "stall latency (cycles)"}),
    "efficiency_at_cap": ("Min(W_max, N_sched*L)/(N_sched*L)", {
        "W_max": "max resident warps per SM", "N_sched": "warp schedulers per SM",
        "L": "stall latency (cycles)"}),
    "concurrency": ("L*X", {"L": "latency (cycles)", "X": "throughput (operations per cycle)"}),
    "latency_unchanged": ("L", {"L": "latency of one operation (cycles)"}),
    "min_work_per_warp": ("ceiling(L/(T_issue*floor(W_max/N_sched)))", {
        "L": "stall latency (cycles)", "T_issue": "cycles between issues of one scheduler",
        "W_max": "max resident warps per SM", "N_sched": "warp schedulers per SM"}),
    "max_hidden_latency": ("floor(W_max/N_sched)*T_issue*I_warp", {
        "W_max": "max resident warps per SM", "N_sched": "warp schedulers per SM",
        "T_issue": "cycles between issues of one scheduler",
        "I_warp": "independent instructions per warp between stalls"}),
    "warps_each_scheduler": ("floor(N_w/N_sched)", {
        "N_w": "warps resident on the SM", "N_sched": "warp schedulers per SM"}),
    "least_ilp": ("ceiling(L*X_s/(W*n_h))", {
        "L": "stall latency (cycles)", "X_s": "instructions one scheduler issues per cycle",
        "W": "independent instructions a warp issues between stalls",
        "n_h": "warps each scheduler holds"}),
    "bytes_per_warp": ("32*b_l*k_ilp", {
        "b_l": "bytes one lane loads", "k_ilp": "loads in flight per lane (ILP)"}),
    "implied_latency": ("N_SM*b_1/B_1", {
        "N_SM": "SMs", "b_1": "bytes one warp has in flight at ILP 1",
        "B_1": "bandwidth measured with one warp per SM (GB/s = bytes per ns)"}),
    "bytes_in_flight": ("B_peak*t_lat", {
        "B_peak": "peak bandwidth (GB/s = bytes per ns)", "t_lat": "load latency (ns)"}),
    "bytes_per_sm": ("Q_fl/N_SM", {"Q_fl": "bytes in flight on the GPU", "N_SM": "SMs"}),
    "warps_for_bytes": ("ceiling(q_SM/b_w)", {
        "q_SM": "bytes one SM must keep in flight", "b_w": "bytes one warp has in flight"}),
    "ilp_for_bytes": ("ceiling(q_SM/(W_max*b_1))", {
        "q_SM": "bytes one SM must keep in flight", "W_max": "max resident warps per SM",
        "b_1": "bytes one warp has in flight at ILP 1"}),
    "loaded_latency": ("N_SM*N_w*b_w/B_meas", {
        "N_SM": "SMs", "N_w": "warps per SM", "b_w": "bytes one warp has in flight",
        "B_meas": "measured bandwidth (GB/s = bytes per ns)"}),
    "measured_bw_share": ("B_meas/B_peak", {
        "B_meas": "measured bandwidth (GB/s)", "B_peak": "peak bandwidth (GB/s)"}),
    "hiding_after": ("N_sched*ceiling(L_new/W)", {
        "N_sched": "warp schedulers per SM", "L_new": "the new stall latency (cycles)",
        "W": "independent instructions a warp issues between stalls"}),
    "extra_warps": ("N_new - N_old", {
        "N_new": "warps needed after the change", "N_old": "warps needed before it"}),
    "warps_for_rate": ("ceiling(X_goal/x_w)", {
        "X_goal": "issue rate to reach (per SM per cycle)",
        "x_w": "issue rate one warp adds (per cycle)"}),
    "measured_share": ("X_meas/X_peak", {
        "X_meas": "measured issue rate (per SM per cycle)",
        "X_peak": "peak issue rate (per SM per cycle)"}),
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


@dataclass(slots=True)
class LatencyHiding:
    """Warps an SM needs to hide an L-cycle stall: per scheduler ⌈L·X_s/(W·ILP)⌉, × N_sched."""

    latency: int
    work_per_warp: int
    ilp: int | float
    schedulers: int
    issue_interval: int
    throughput: int | float       # X_s: instructions one scheduler issues per cycle
    max_warps: int
    in_flight: int | float        # L × X, X = N_sched·X_s: operations the SM keeps in flight
    warps_per_scheduler: int
    warps_needed: int
    deficit: int
    scheduler_cap: int            # ⌊W_max/N_sched⌋: the warps one scheduler can hold
    ilp_factor: int               # extra ILP that brings the need under the cap (1: none needed)
    warps_with_ilp: int
    steps: list[Step] = field(default_factory=list)
    #: What the stall waits for: "memory" (a load), "arithmetic" (a dependent instruction's
    #: pipeline latency) or None (not said). Only a memory stall makes a kernel memory-bound.
    stall: str | None = "memory"

    @property
    def hidable(self) -> bool:
        return self.deficit == 0

    @property
    def fits(self) -> bool:
        return self.deficit == 0

    @property
    def memory_bound(self) -> bool | None:
        """A memory stall the SM cannot hide (None: unhidable, but the stall's kind was not said)."""
        if self.hidable or self.stall == "arithmetic":
            return False
        return True if self.stall == "memory" else None

    @property
    def no_overlap(self) -> bool:
        """A degenerate memory stall: nothing to overlap it with, so it stays unhidden."""
        return self.degenerate and self.stall == "memory"

    @property
    def degenerate(self) -> bool:
        """W = 1 and no ILP: nothing to overlap, one warp per cycle of stall (seed 001 Ex 6)."""
        return self.work_per_warp == 1 and self.ilp == 1

    @property
    def sm_throughput(self) -> int | float:
        return plain(Fraction(self.schedulers) * Fraction(str(self.throughput)))

    def to_dict(self, *, with_steps: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            "latency": self.latency, "work_per_warp": self.work_per_warp, "ilp": self.ilp,
            "schedulers": self.schedulers, "issue_interval": self.issue_interval,
            "throughput": self.throughput, "sm_throughput": self.sm_throughput,
            "max_warps": self.max_warps, "in_flight": self.in_flight,
            "warps_per_scheduler": self.warps_per_scheduler, "warps_needed": self.warps_needed,
            "deficit": self.deficit, "hidable": self.hidable, "stall": self.stall,
            "memory_bound": self.memory_bound,
            "degenerate": self.degenerate, "ilp_factor": self.ilp_factor,
            "warps_with_ilp": self.warps_with_ilp,
        }
        if with_steps:
            out["steps"] = [s.to_dict() for s in self.steps]
        return out


#: The kinds of stall a latency question can name.
STALLS = ("memory", "arithmetic")


def hide_latency(latency: Any, work_per_warp: Any = 1, *, schedulers: Any = 1,
                 issue_interval: Any = 1, throughput: Any = None, ilp: Any = 1,
                 max_warps: Any = 64, stall: str | None = "memory",
                 explain: bool = False) -> LatencyHiding:
    """The one latency-hiding model (see the module docstring): warps per scheduler, × N_sched.

    `throughput` is X_s, the operations one scheduler must start per cycle (Little's law); when it
    is left out, X_s = 1/`issue_interval`. `ilp` multiplies the independent work a warp brings.
    When the need is over the cap, the smallest whole extra ILP factor k with
    N_sched·⌈n_s/k⌉ ≤ cap is ⌈n_s/⌊cap/N_sched⌋⌉ (none exists when the cap is below N_sched).
    `stall` names what the warps wait for: an unhidable memory stall is memory-bound, an
    arithmetic one (a dependent instruction's latency) is not, and ILP closes its gap.
    """
    if stall is not None and stall not in STALLS:
        raise QuizgenError(f"got {stall!r}; expected {' or '.join(STALLS)}", field="stall")
    L = require_int("latency", latency, minimum=1)
    W = require_int("work_per_warp", work_per_warp, minimum=1)
    n_sched = require_int("schedulers", schedulers, minimum=1)
    t_issue = require_int("issue_interval", issue_interval, minimum=1)
    cap = require_int("max_warps", max_warps, minimum=1)
    k = require_number("ilp", ilp)
    littles = throughput is not None
    x_s = require_number("throughput", throughput) if littles else Fraction(1, t_issue)
    per_sched_exact = L * x_s / (W * k)
    n_s = ceiling(per_sched_exact)
    need = n_sched * n_s
    deficit = max(need - cap, 0)
    c_s = cap // n_sched
    if deficit and c_s:
        extra = ceiling(n_s, c_s)
    else:
        extra = 1
    with_ilp = n_sched * ceiling(n_s, extra)
    in_flight = L * x_s * n_sched
    result = LatencyHiding(L, W, plain(k), n_sched, t_issue, plain(x_s), cap, plain(in_flight), n_s,
                           need, deficit, c_s, extra, with_ilp, stall=stall)
    if explain:
        round_note = None if per_sched_exact.denominator == 1 else "ceil_rounds_up"
        result.steps = _hiding_steps(result, x_s, k, littles, round_note)
    return result


def _hiding_steps(h: LatencyHiding, x_s: Fraction, k: Fraction | int, littles: bool,
                  round_note: str | None) -> list[Step]:
    """The derivation of `h`: the SM's throughput and Little's law (when asked by throughput),
    warps per scheduler, × N_sched, against the cap, and the ILP that closes a gap."""
    L, n_sched, cap, deficit, c_s = h.latency, h.schedulers, h.max_warps, h.deficit, h.scheduler_cap
    steps: list[Step] = []
    if littles:
        steps.append(Step("sm_throughput", "sm_throughput", {"N_sched": n_sched, "X_s": plain(x_s)},
                          plain(x_s * n_sched), "operations per cycle", "every_scheduler_issues"))
        steps.append(Step("concurrency", "concurrency", {"L": L, "X": plain(x_s * n_sched)},
                          plain(L * x_s * n_sched), "operations", "littles_law"))
    steps.append(_per_scheduler_step(h, x_s, k, littles, round_note))
    steps.append(Step("warps_needed", "sm_warps", {"N_sched": n_sched, "n_s": h.warps_per_scheduler},
                      h.warps_needed, "warps", "every_scheduler_own_warps",
                      "schedulers_add_warps" if n_sched > 1 else None))
    # W = 1 without ILP behind a load: nothing to overlap, memory-bound (seed 001 Ex 6); behind an
    # arithmetic latency the remedy is independent instructions (ILP), never "memory-bound"
    no_overlap = h.work_per_warp == 1 and k == 1 and h.stall == "memory"
    if not deficit:
        note = "hidable"
    elif h.stall == "arithmetic":
        note = "latency_bound"
    else:
        note = "memory_bound" if no_overlap else "cap_binds"
    steps.append(Step("deficit", "warp_deficit", {"N_w": h.warps_needed, "W_max": cap}, deficit, "warps",
                      "compare_cap", note))
    if deficit and c_s and not no_overlap:
        steps.append(Step("scheduler_cap", "warps_per_scheduler_cap",
                          {"W_max": cap, "N_sched": n_sched}, c_s, "warps", "share_of_cap"))
        steps.append(Step("ilp_factor", "ilp_factor", {"n_s": h.warps_per_scheduler, "c_s": c_s},
                          h.ilp_factor, "×", "ilp_closes_gap", "ilp_costs_registers"))
        steps.append(Step("warps_with_ilp", "warps_with_ilp",
                          {"N_sched": n_sched, "n_s": h.warps_per_scheduler, "k_x": h.ilp_factor},
                          h.warps_with_ilp, "warps", "ilp_check"))
    if littles:
        steps.append(Step("latency", "latency_unchanged", {"L": L}, L, "cycles",
                          "latency_is_fixed_arithmetic" if h.stall == "arithmetic"
                          else "latency_is_fixed", "no_l_eff"))
    return steps


def _per_scheduler_step(h: LatencyHiding, x_s: Fraction, k: Fraction | int, littles: bool,
                        round_note: str | None) -> Step:
    """n_s, written from what the problem gave: a throughput or ILP, an issue interval, or neither."""
    L, W, n_s, t_issue = h.latency, h.work_per_warp, h.warps_per_scheduler, h.issue_interval
    if littles or k != 1:
        if W == 1:
            return Step("warps_per_scheduler", "littles_per_scheduler",
                        {"L": L, "X_s": plain(x_s), "k_ilp": plain(k)}, n_s, "warps",
                        "per_scheduler_littles", round_note)
        return Step("warps_per_scheduler", "hiding_per_scheduler",
                    {"L": L, "X_s": plain(x_s), "W": W, "k_ilp": plain(k)}, n_s,
                    "warps", "per_scheduler_littles", round_note)
    if t_issue != 1:
        return Step("warps_per_scheduler", "warps_per_scheduler",
                    {"L": L, "T_issue": t_issue, "I_warp": W}, n_s, "warps",
                    "fill_the_wait_issue", round_note)
    return Step("warps_per_scheduler", "warps_to_hide", {"L": L, "W": W}, n_s, "warps",
                "fill_the_wait", "no_compute" if W == 1 and h.stall == "memory" else round_note)


def min_work_to_hide(latency: Any, *, schedulers: Any, max_warps: Any, issue_interval: Any = 1,
                     explain: bool = False) -> tuple[int | None, list[Step]]:
    """The least independent work per warp with which the SM's cap hides an L-cycle stall: each
    scheduler holds ⌊cap/N_sched⌋ warps, so W ≥ L/(T_issue·⌊cap/N_sched⌋). It is `hide_latency`
    solved for W (a test checks both sides of the boundary); None when a scheduler holds none."""
    L = require_int("latency", latency, minimum=1)
    n_sched = require_int("schedulers", schedulers, minimum=1)
    cap = require_int("max_warps", max_warps, minimum=1)
    t_issue = require_int("issue_interval", issue_interval, minimum=1)
    c_s = cap // n_sched
    work = ceiling(L, t_issue * c_s) if c_s else None
    steps = [Step("min_work_per_warp", "min_work_per_warp",
                  {"L": L, "T_issue": t_issue, "W_max": cap, "N_sched": n_sched}, work,
                  "instructions", "min_work_per_warp")] if explain and work else []
    return work, steps


def max_hidden_latency(work_per_warp: Any, *, schedulers: Any, max_warps: Any,
                       issue_interval: Any = 1, explain: bool = False) -> tuple[int, list[Step]]:
    """The longest stall the SM's cap can hide with this work per warp and no extra ILP:
    ⌊cap/N_sched⌋·T_issue·I_warp cycles (`hide_latency` solved for L)."""
    W = require_int("work_per_warp", work_per_warp, minimum=1)
    n_sched = require_int("schedulers", schedulers, minimum=1)
    cap = require_int("max_warps", max_warps, minimum=1)
    t_issue = require_int("issue_interval", issue_interval, minimum=1)
    longest = (cap // n_sched) * t_issue * W
    steps = [Step("max_latency", "max_hidden_latency",
                  {"W_max": cap, "N_sched": n_sched, "T_issue": t_issue, "I_warp": W}, longest,
                  "cycles", "max_hidden_latency")] if explain else []
    return longest, steps


def divided_by_schedulers(result: LatencyHiding) -> int:
    """The misconception `divided_by_schedulers` (seed 004's "Mistake 2"): the warps one
    scheduler needs shared out among all N_sched schedulers, ⌈L·X_s/(W·ILP·N_sched)⌉."""
    x_s = Fraction(str(result.throughput))
    return ceiling(result.latency * x_s / (result.work_per_warp * Fraction(str(result.ilp))
                                           * result.schedulers))


@dataclass(slots=True)
class Efficiency:
    """η(N) = min(N, N_sched·L)/(N_sched·L): the share of the SM's issue cycles that N resident
    warps keep busy. The warps are shared out among the N_sched schedulers and each scheduler
    issues only from its own, so each needs L warps of its own (one instruction per warp between
    L-cycle stalls): the plateau is N_sched·L. With one scheduler it is seed 000 Ex 6's
    min(N, L)/L."""

    resident_warps: int
    latency: int
    efficiency: float
    plateau_at: int
    max_warps: int | None = None
    steps: list[Step] = field(default_factory=list)
    schedulers: int = 1

    @property
    def saturated(self) -> bool:
        return self.resident_warps >= self.plateau_at

    @property
    def spare_warps(self) -> int:
        """Warps past the plateau: they add nothing."""
        return max(self.resident_warps - self.plateau_at, 0)

    @property
    def efficiency_at_cap(self) -> float | None:
        """η at the SM's warp cap: the best any occupancy can do (seed 000 Ex 6, one scheduler: 64/300)."""
        if self.max_warps is None:
            return None
        return min(self.max_warps, self.plateau_at) / self.plateau_at

    def to_dict(self, *, with_steps: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            "resident_warps": self.resident_warps, "latency": self.latency,
            "schedulers": self.schedulers,
            "efficiency": self.efficiency, "plateau_at": self.plateau_at,
            "saturated": self.saturated, "spare_warps": self.spare_warps,
        }
        if self.max_warps is not None:
            out["max_warps"] = self.max_warps
            out["efficiency_at_cap"] = self.efficiency_at_cap
        if with_steps:
            out["steps"] = [s.to_dict() for s in self.steps]
        return out


def efficiency(resident_warps: Any, latency: Any, *, max_warps: Any = None, schedulers: Any = 1,
               explain: bool = False) -> Efficiency:
    """Seed 000 Ex 6's model on an SM of `schedulers` schedulers: each issues once per cycle
    from its own warps, and each warp brings one instruction between stalls, so one scheduler's
    plateau is `hide_latency(L, 1)` = L warps and the SM's is N_sched·L; with `max_warps`, also
    η at the SM's warp cap."""
    n = require_int("resident_warps", resident_warps, minimum=0)
    L = require_int("latency", latency, minimum=1)
    n_sched = require_int("schedulers", schedulers, minimum=1)
    cap = None if max_warps is None else require_int("max_warps", max_warps, minimum=1)
    plateau = hide_latency(L, 1, schedulers=n_sched).warps_needed
    eta = min(n, plateau) / plateau
    steps: list[Step] = []
    if explain:
        steps.append(Step("plateau_warps", "plateau_warps", {"N_sched": n_sched, "L": L}, plateau,
                          "warps", "one_warp_per_cycle"))
        note = "saturated" if n == plateau else "past_plateau" if n > plateau else "below_plateau"
        steps.append(Step("efficiency", "latency_efficiency", {"N_res": n, "N_sched": n_sched, "L": L},
                          eta, "", "fraction_of_cycles", note))
        if cap is not None:
            steps.append(Step("efficiency_at_cap", "efficiency_at_cap",
                              {"W_max": cap, "N_sched": n_sched, "L": L},
                              min(cap, plateau) / plateau, "", "cap_bounds_efficiency",
                              "cap_below_plateau" if cap < plateau else "cap_reaches_plateau"))
    return Efficiency(n, L, eta, plateau, cap, steps, n_sched)


@dataclass(slots=True)
class LeastIlp:
    """The inverse of `hide_latency`: with N_w warps resident, each scheduler holds ⌊N_w/N_sched⌋
    of them, and the least whole ILP that still fills an L-cycle stall is ⌈L·X_s/(W·n_h)⌉."""

    latency: int
    resident_warps: int
    work_per_warp: int
    schedulers: int
    throughput: int | float
    warps_each: int             # n_h = ⌊N_w/N_sched⌋
    least_ilp: int | None       # None when a scheduler holds no warp at all
    steps: list[Step] = field(default_factory=list)


def least_ilp(latency: Any, resident_warps: Any, work_per_warp: Any = 1, *, schedulers: Any = 1,
              throughput: Any = 1, explain: bool = False) -> LeastIlp:
    """The least ILP that hides `latency` with `resident_warps` warps on the SM (an inverse of the
    one latency model: every scheduler covers the stall with its own share of the warps)."""
    L = require_int("latency", latency, minimum=1)
    n_w = require_int("resident_warps", resident_warps, minimum=1)
    W = require_int("work_per_warp", work_per_warp, minimum=1)
    n_sched = require_int("schedulers", schedulers, minimum=1)
    x_s = require_number("throughput", throughput)
    each = n_w // n_sched
    k = ceiling(L * x_s / (W * each)) if each else None
    steps: list[Step] = []
    if explain:
        steps.append(Step("warps_each_scheduler", "warps_each_scheduler",
                          {"N_w": n_w, "N_sched": n_sched}, each, "warps", "lat_warps_each_scheduler"))
        if each:
            steps.append(Step("least_ilp", "least_ilp",
                              {"L": L, "X_s": plain(x_s), "W": W, "n_h": each}, k, "",
                              "lat_least_ilp"))
    return LeastIlp(L, n_w, W, n_sched, plain(x_s), each, k, steps)


def latency_change(before: LatencyHiding, new_latency: Any, *,
                   explain: bool = False) -> tuple[LatencyHiding, Step | None]:
    """What-if: the same kernel with a new stall latency. The warps needed under the one model,
    and the step that compares them with the warps needed before (never a shorter latency: ILP
    and schedulers change the warps, the latency is the memory's)."""
    after = hide_latency(new_latency, before.work_per_warp, schedulers=before.schedulers,
                         issue_interval=before.issue_interval,
                         throughput=before.throughput, ilp=before.ilp,
                         max_warps=before.max_warps, stall=before.stall, explain=False)
    step = None
    if explain:
        step = Step("extra_warps", "extra_warps",
                    {"N_new": after.warps_needed, "N_old": before.warps_needed},
                    after.warps_needed - before.warps_needed, "warps", "lat_extra_warps")
    return after, step


def warps_for_rate(goal: Any, per_warp_rate: Any, *, explain: bool = False) -> tuple[int, Step | None]:
    """Little's law read off a measured curve: one warp adds x_w issues per cycle while the curve
    climbs, so reaching X_goal takes ⌈X_goal/x_w⌉ warps."""
    g = require_number("goal", goal)
    x = require_number("per_warp_rate", per_warp_rate)
    n = ceiling(g / x)
    step = (Step("warps_for_rate", "warps_for_rate", {"X_goal": plain(g), "x_w": plain(x)}, n,
                 "warps", "lat_warps_for_rate") if explain else None)
    return n, step


@dataclass(slots=True)
class BytesInFlight:
    """Little's law for memory bandwidth: bytes in flight = bandwidth × latency."""

    per_warp: int               # bytes one warp has in flight: 32 lanes × b_l × ILP
    latency_ns: float           # the latency one warp's point implies
    in_flight: float            # bytes the peak needs in flight, whole GPU
    per_sm: float
    warps_needed: int           # ⌈per_sm / per_warp⌉
    ilp_at_cap: int             # the least ILP with the SM's cap of warps
    steps: list[Step] = field(default_factory=list)


def bytes_in_flight(peak_gbs: Any, one_warp_gbs: Any, sms: Any, ilp: Any = 1, *,
                    lane_bytes: Any = 4, max_warps: Any = 64,
                    explain: bool = False) -> BytesInFlight:
    """Little's law in bytes (the measured H200 streaming curve): one warp per SM at ILP 1 moving
    `one_warp_gbs` implies the latency t = SMs × 32·b_l ÷ B_1; the peak needs B_peak × t bytes in
    flight, shared by the SMs; warps = ⌈per SM ÷ (32·b_l·ILP)⌉, and the least ILP with the SM's
    cap of warps is ⌈per SM ÷ (cap × 32·b_l)⌉. GB/s is bytes per ns, so t is in ns."""
    peak = require_number("peak_gbs", peak_gbs)
    one = require_number("one_warp_gbs", one_warp_gbs)
    n_sm = require_int("sms", sms, minimum=1)
    k = require_int("ilp", ilp, minimum=1)
    b_l = require_int("lane_bytes", lane_bytes, minimum=1)
    cap = require_int("max_warps", max_warps, minimum=1)
    b_1 = 32 * b_l
    b_w = b_1 * k
    t = n_sm * b_1 / one
    q = peak * t
    q_sm = q / n_sm
    n = ceiling(q_sm / b_w)
    k_cap = ceiling(q_sm / (cap * b_1))
    steps: list[Step] = []
    if explain:
        steps += [
            Step("bytes_per_warp", "bytes_per_warp", {"b_l": b_l, "k_ilp": k}, b_w, "B",
                 "lat_bytes_per_warp"),
            Step("implied_latency", "implied_latency",
                 {"N_SM": n_sm, "b_1": b_1, "B_1": plain(one)}, plain(t), "ns", "lat_implied_latency"),
            Step("bytes_in_flight", "bytes_in_flight", {"B_peak": plain(peak), "t_lat": plain(t)},
                 plain(q), "B", "lat_bytes_in_flight"),
            Step("bytes_per_sm", "bytes_per_sm", {"Q_fl": plain(q), "N_SM": n_sm}, plain(q_sm), "B",
                 "lat_bytes_per_sm"),
            Step("warps_for_bandwidth", "warps_for_bytes", {"q_SM": plain(q_sm), "b_w": b_w}, n,
                 "warps", "lat_warps_for_bytes"),
            Step("ilp_at_cap", "ilp_for_bytes", {"q_SM": plain(q_sm), "W_max": cap, "b_1": b_1},
                 k_cap, "", "lat_ilp_for_bytes"),
        ]
    return BytesInFlight(b_w, float(t), float(q), float(q_sm), n, k_cap, steps)
