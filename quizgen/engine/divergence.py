"""Warp divergence: a warp runs every branch that at least one of its lanes takes, one after another.

Rules (seed 001 Ex 7–8, seed 000 Ex 8):

* serialised time = Σ cost of the branches taken by ≥ 1 lane; an empty branch costs nothing (its
  mask is all zero and the warp jumps over it); masked lanes still spend the branch's cycles.
* convergent baseline, unless the caller passes one: Σ lanes·cost / active lanes, the time per warp
  if the same threads were regrouped so that every lane of a warp agreed (each lane still does its
  own branch's work). When every populated branch costs the same, this is that one branch cost,
  which is what the notes compare against (30 cycles in Ex 7 and Ex 8).
* slowdown = serialised / baseline; lane utilisation = Σ lanes·cost / (active lanes · serialised).
  With the default baseline, slowdown = 1 / lane utilisation.

Branch sums are written as running totals (one step per branch) so that any number of branches
fits the same two formulas.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from quizgen.engine.derivation import Step
from quizgen.engine.latency import plain, require_number
from quizgen.engine.warps import WARP_SIZE
from quizgen.errors import QuizgenError, require_int


#: Formulas of this module: name → (sympy source, {symbol: meaning}).
FORMULAS: dict[str, tuple[str, dict[str, str]]] = {
    "branch_pass": ("S_prev + T_b*Min(n_b, 1)", {
        "S_prev": "cycles spent on the branches before this one", "T_b": "cost of this branch (cycles)",
        "n_b": "lanes that take this branch"}),
    "lane_work": ("U_prev + n_b*T_b", {
        "U_prev": "useful lane-cycles of the branches before this one",
        "n_b": "lanes that take this branch", "T_b": "cost of this branch (cycles)"}),
    "convergent_time": ("U/n_act", {
        "U": "useful lane-cycles (Σ lanes·cost)", "n_act": "active lanes in the warp"}),
    "given_baseline": ("T_conv", {"T_conv": "convergent time given by the problem (cycles)"}),
    "divergence_slowdown": ("T_div/T_conv", {
        "T_div": "serialised (divergent) time", "T_conv": "convergent time"}),
    "lane_utilisation": ("U/(n_act*T_div)", {
        "U": "useful lane-cycles (Σ lanes·cost)", "n_act": "active lanes in the warp",
        "T_div": "serialised (divergent) time"}),
    "uniform_saving": ("T_div - T_conv", {
        "T_div": "serialised (divergent) time", "T_conv": "time when every lane of a warp agrees"}),
    "one_lane_diverges": ("T_t + T_e", {
        "T_t": "cost of the path the other lanes take (cycles)",
        "T_e": "cost of the path the one lane takes (cycles)"}),
    "speed_ratio": ("T_Y/T_X", {
        "T_Y": "time of the divergent kernel's region", "T_X": "time of the convergent kernel's region"}),
}


@dataclass(frozen=True, slots=True)
class Branch:
    lanes: int
    cost: int | float

    def to_dict(self) -> dict[str, Any]:
        return {"lanes": self.lanes, "cost": self.cost}


def parse_branches(branches: Any, *, active_lanes: int = WARP_SIZE) -> list[Branch]:
    """Validate a list of {"lanes": n, "cost": c} dicts or (n, c) pairs."""
    if isinstance(branches, (str, bytes)) or not hasattr(branches, "__iter__"):
        raise QuizgenError(f"got {branches!r}; expected a list of {{lanes, cost}} pairs",
                           field="branches")
    out: list[Branch] = []
    for index, item in enumerate(branches):
        where = f"branches[{index}]"
        if isinstance(item, dict):
            if set(item) != {"lanes", "cost"}:
                raise QuizgenError(f"got keys {sorted(item)}; expected exactly lanes and cost",
                                   field=where)
            lanes, cost = item["lanes"], item["cost"]
        elif isinstance(item, (list, tuple)) and len(item) == 2:
            lanes, cost = item
        else:
            raise QuizgenError(f"got {item!r}; expected {{\"lanes\": n, \"cost\": cycles}} or (n, cycles)",
                               field=where)
        n = require_int(f"{where}.lanes", lanes, minimum=0, maximum=WARP_SIZE,
                        allowed=f"a whole number from 0 to {WARP_SIZE} (lanes of one warp)")
        c = require_number(f"{where}.cost", cost, positive=False)
        out.append(Branch(n, plain(c)))
    if not out:
        raise QuizgenError("got an empty list; expected at least one branch", field="branches")
    total = sum(b.lanes for b in out)
    if total != active_lanes:
        raise QuizgenError(f"lanes add up to {total} but the warp has {active_lanes} active lanes",
                           field="branches")
    return out


@dataclass(slots=True)
class Divergence:
    """One divergent region of one warp."""

    branches: tuple[Branch, ...]
    active_lanes: int
    serialised: int | float
    baseline: int | float
    baseline_rule: str            # "lane_weighted" (the default) or "given"
    slowdown: float
    lane_utilisation: float
    useful_lane_cycles: int | float
    steps: list[Step] = field(default_factory=list)

    @property
    def populated(self) -> int:
        return sum(1 for b in self.branches if b.lanes > 0)

    @property
    def divergent(self) -> bool:
        return self.populated > 1

    @property
    def longest_branch(self) -> int | float:
        return max(b.cost for b in self.branches if b.lanes > 0)

    @property
    def split_matters(self) -> bool:
        """Whether the populated branches differ in cost (else the split ratio cannot matter)."""
        return len({b.cost for b in self.branches if b.lanes > 0}) > 1

    @property
    def idle_lane_cycles(self) -> int | float:
        return plain(self.active_lanes * _exact(self.serialised)
                     - _exact(self.useful_lane_cycles))

    def to_dict(self, *, with_steps: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            "branches": [b.to_dict() for b in self.branches], "active_lanes": self.active_lanes,
            "serialised": self.serialised, "baseline": self.baseline,
            "baseline_rule": self.baseline_rule, "slowdown": self.slowdown,
            "lane_utilisation": self.lane_utilisation,
            "useful_lane_cycles": self.useful_lane_cycles,
            "idle_lane_cycles": self.idle_lane_cycles, "populated": self.populated,
            "divergent": self.divergent, "longest_branch": self.longest_branch,
            "split_matters": self.split_matters,
        }
        if with_steps:
            out["steps"] = [s.to_dict() for s in self.steps]
        return out


def _same(value: int) -> int:
    return value


def _exact(value: int | float) -> Fraction:
    return Fraction(value) if isinstance(value, int) else Fraction(repr(value))


def divergence(branches: Any, *, active_lanes: Any = WARP_SIZE, baseline: Any = None,
               explain: bool = False) -> Divergence:
    """Serialised time, slowdown and lane utilisation of one warp's divergent region."""
    n_act = require_int("active_lanes", active_lanes, minimum=1, maximum=WARP_SIZE)
    parsed = parse_branches(branches, active_lanes=n_act)
    steps: list[Step] = []
    record = steps if explain else None

    # Whole costs add up exactly as ints (much quicker than Fractions); other costs as Fractions.
    exact = _same if all(b.cost.__class__ is int for b in parsed) else _exact
    taken = [b for b in parsed if b.lanes > 0]
    serial = _serialised_time(parsed, n_act, exact, record)
    useful = _useful_lane_cycles(taken, exact, record)
    base, rule = _baseline(baseline, useful, n_act, taken, record)
    plain_base = plain(base)

    slowdown = float(serial / base)
    # int / int is correctly rounded, as float(Fraction) is
    util = (useful / (n_act * serial) if useful.__class__ is int and serial.__class__ is int
            else float(Fraction(useful) / (n_act * serial))) if serial else 0.0
    if explain:
        equal = len({b.cost for b in taken}) == 1
        note = ("no_divergence" if len(taken) == 1
                else "split_ratio_irrelevant" if equal else "split_ratio_matters")
        steps.append(Step("slowdown", "divergence_slowdown",
                          {"T_div": plain(serial), "T_conv": plain_base}, slowdown, "×",
                          "compare_to_convergent", note))
        steps.append(Step("lane_utilisation", "lane_utilisation",
                          {"U": plain(useful), "n_act": n_act, "T_div": plain(serial)}, util, "",
                          "useful_lane_share"))
    return Divergence(tuple(parsed), n_act, plain(serial), plain_base, rule, slowdown, util,
                      plain(useful), steps)


def _serialised_time(parsed: list[Branch], n_act: int, exact, record: list[Step] | None
                     ) -> int | Fraction:
    """The warp runs every taken branch one after another: the sum of their costs (a pass per
    branch appended to `record` when it is given)."""
    serial: int | Fraction = 0
    for index, b in enumerate(parsed):
        before = serial
        if b.lanes > 0:
            serial += exact(b.cost)
        if record is not None:
            last = index == len(parsed) - 1
            note = ("empty_branch_free" if b.lanes == 0
                    else "masked_lanes" if b.lanes < n_act else "all_lanes_agree")
            record.append(Step("serialised_time" if last else "branch_pass", "branch_pass",
                               {"S_prev": plain(before), "T_b": b.cost, "n_b": b.lanes}, plain(serial),
                               "cycles", "pass_per_branch" if b.lanes else "skip_empty_branch", note))
    return serial


def _useful_lane_cycles(taken: list[Branch], exact, record: list[Step] | None) -> int | Fraction:
    """Lane-cycles of useful work: each taken branch's lanes × its cost."""
    useful: int | Fraction = 0
    for b in taken:
        before = useful
        useful += b.lanes * exact(b.cost)
        if record is not None:
            record.append(Step("useful_lane_cycles", "lane_work",
                               {"U_prev": plain(before), "n_b": b.lanes, "T_b": b.cost}, plain(useful),
                               "lane-cycles", "count_useful_work"))
    return useful


def _baseline(baseline: Any, useful: int | Fraction, n_act: int, taken: list[Branch],
              record: list[Step] | None) -> tuple[Fraction, str]:
    """The convergent time to compare with: the given one, else the lane-weighted mean cost."""
    if baseline is not None:
        base = require_number("baseline", baseline)
        if record is not None:
            record.append(Step("baseline", "given_baseline", {"T_conv": plain(base)}, plain(base),
                               "cycles", "baseline_given"))
        return base, "given"
    base = Fraction(useful) / n_act
    if base == 0:
        raise QuizgenError("every taken branch costs 0 cycles; there is no time to compare",
                           field="branches")
    if record is not None:
        equal = len({b.cost for b in taken}) == 1
        record.append(Step("baseline", "convergent_time", {"U": plain(useful), "n_act": n_act},
                           plain(base), "cycles", "all_lanes_agree",
                           "one_branch_cost" if equal else "lane_weighted_baseline"))
    return base, "lane_weighted"


@dataclass(slots=True)
class OccupancyTwist:
    """Seed 000 Ex 8: kernels X (convergent) and Y (divergent) at the same occupancy."""

    occupancy: float
    divergent: Divergence
    time_x: int | float
    time_y: int | float
    speed_ratio: float
    lane_utilisation_x: float
    lane_utilisation_y: float
    steps: list[Step] = field(default_factory=list)

    @property
    def faster(self) -> str:
        return "X" if self.speed_ratio > 1 else "tie"

    def to_dict(self, *, with_steps: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            "occupancy": self.occupancy, "occupancy_x": self.occupancy,
            "occupancy_y": self.occupancy, "time_x": self.time_x, "time_y": self.time_y,
            "speed_ratio": self.speed_ratio, "slowdown": self.speed_ratio,
            "lane_utilisation_x": self.lane_utilisation_x,
            "lane_utilisation_y": self.lane_utilisation_y, "faster": self.faster,
            "branches": [b.to_dict() for b in self.divergent.branches],
            "divergence": self.divergent.to_dict(),
        }
        if with_steps:
            out["steps"] = [s.to_dict() for s in self.steps]
        return out


def equal_occupancy_twist(branches: Any, *, occupancy: Any = 1.0, active_lanes: Any = WARP_SIZE,
                          explain: bool = False) -> OccupancyTwist:
    """Two kernels with equal occupancy; Y's warps split into `branches`, X's lanes all agree.

    X does the same useful work convergently (the lane-weighted baseline), so the speed ratio
    T_Y/T_X equals 1 / Y's lane utilisation: occupancy counts warps, not useful lanes.
    """
    occ = require_number("occupancy", occupancy)
    if occ > 1:
        raise QuizgenError(f"got {occupancy!r}; expected a fraction from 0 to 1", field="occupancy")
    y = divergence(branches, active_lanes=active_lanes, explain=explain)
    ratio = float(_exact(y.serialised) / _exact(y.baseline))
    steps: list[Step] = []
    if explain:
        for s in y.steps:
            if s.key == "baseline":  # kernel X runs the same work with every lane agreeing
                s = Step("time_x", s.formula, s.values, s.result, s.unit, s.why, s.note)
            if s.key != "slowdown":
                steps.append(s)
        steps.append(Step("speed_ratio", "speed_ratio", {"T_Y": y.serialised, "T_X": y.baseline},
                          ratio, "×", "same_occupancy_different_speed", "occupancy_blind"))
    return OccupancyTwist(float(occ), y, y.baseline, y.serialised, ratio, 1.0, y.lane_utilisation,
                          steps)


def uniform_saving(branches: Any, *, explain: bool = False) -> tuple[int | float, list[Step]]:
    """What-if: the threads are regrouped so that every warp's lanes agree (a warp-uniform
    branch). Each warp then runs one path, the convergent time, and saves the rest."""
    res = divergence(branches)
    saved = plain(_exact(res.serialised) - _exact(res.baseline))
    steps = [Step("time_saved", "uniform_saving", {"T_div": res.serialised, "T_conv": res.baseline},
                  saved, "cycles", "uniform_saving")] if explain else []
    return saved, steps


def one_lane_diverges(branches: Any, target: int, *,
                      explain: bool = False) -> tuple[int | float, list[Step]]:
    """What-if: one lane of a convergent warp takes branch `target` instead. The warp now runs
    both paths one after the other: the time is the serialised time of the new split."""
    parsed = parse_branches(branches)
    taken = [i for i, b in enumerate(parsed) if b.lanes > 0]
    if len(taken) != 1 or parsed[target].lanes != 0:
        raise QuizgenError("one lane can only move from the one taken branch to an empty one",
                           field="branches")
    moved = [{"lanes": b.lanes, "cost": b.cost} for b in parsed]
    moved[taken[0]]["lanes"] -= 1
    moved[target]["lanes"] = 1
    time = divergence(moved).serialised
    steps = [Step("one_lane_time", "one_lane_diverges",
                  {"T_t": parsed[taken[0]].cost, "T_e": parsed[target].cost}, time, "cycles",
                  "one_lane_diverges")] if explain else []
    return time, steps
