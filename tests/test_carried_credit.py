"""Carried credit, generic: for every family whose answers build on earlier ones, a wrong first
answer and the rest computed from it earn the carried points; a fractional count earns none."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quizgen.gpus import gpu_from_dict
from quizgen.grade import check_answer
from quizgen.grade.carry import carried_values
from quizgen.generator import CELLS, family, generate_one
from quizgen.problems.specs import order


def dependent_cells() -> list[str]:
    return [c for c in CELLS if any(s.compute for s in family(c).answer_specs.values())]


def text(value) -> str:
    if isinstance(value, Fraction):
        return str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (list, tuple)):
        return "(" + ", ".join(map(str, value)) + ")"
    return str(value)


def chain(problem: dict) -> list[tuple[str, str]]:
    """(first answer, a dependent answer) pairs: the dependent reaches the first through specs."""
    fam = family(problem["cell"])
    specs = {k: fam.answer_specs[k] for k in problem["answers"]}
    reach: dict[str, set[str]] = {}
    for key in order(specs):
        deps = [d for d in specs[key].depends_on if d in specs and d != key]
        reach[key] = set(deps).union(*(reach[d] for d in deps)) if specs[key].compute else set()
    return [(root, key) for key in specs for root in sorted(reach[key])]


def nudged(value):
    """A wrong value of the same kind: one more (a count stays whole)."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, float):
        return Fraction(repr(value)) * Fraction(1, 2)
    return None


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cell=st.sampled_from(dependent_cells()), level=st.sampled_from([1, 2, 3]),
       seed=st.integers(min_value=0, max_value=40))
def test_wrong_first_answer_then_the_rest_from_it_is_carried(cell, level, seed):
    problem = generate_one(cell, level=level, seed=seed, lang="en").to_dict()
    fam = family(cell)
    specs = {k: fam.answer_specs[k] for k in problem["answers"]}
    fns = {k: s.compute for k, s in specs.items() if s.compute}
    gpu = gpu_from_dict(problem["gpu"])
    for root, key in chain(problem):
        slip = nudged(problem["answers"][root])
        if slip is None:
            continue
        carried = carried_values(specs, fns, problem["answers"], problem["params"], gpu, {root: slip})
        if key not in carried:
            continue                      # the slip does not change this answer
        value, sources = carried[key]
        if isinstance(value, bool) or value == problem["answers"][key]:
            continue
        # The student writes every answer on the path from their own slip.
        given_ = {root: text(slip)}
        for mid in carried:
            if mid != key and mid in problem["answers"]:
                given_[mid] = text(carried[mid][0])
        result = check_answer(problem, key, text(value), given=given_)
        assert result.status == "carried", (problem["id"], root, key, slip, value, result.note)
        assert "Carried from (" in result.carried


@pytest.mark.parametrize("cell", ["W-B", "W-A", "W-D", "OCC-1", "OCC-2"])
def test_a_fractional_warp_count_earns_no_carried_credit(cell):
    """2.25 warps is the mistake W-B tests (no ceiling): nothing carries from it."""
    for seed in range(5):
        problem = generate_one(cell, level=1, seed=seed, lang="en").to_dict()
        T = problem["params"]["threads_per_block"]
        if T % 32 == 0 and cell == "W-B":
            continue
        frac = Fraction(T, 32) if T % 32 else Fraction(4 * T + 1, 128)
        if "wasted_lanes" in problem["answers"]:
            key, value = "wasted_lanes", frac * 32 - T
        else:
            key, value = "active_warps", problem["answers"]["blocks_per_sm"] * frac
        given_ = {"warps": text(frac)}
        if key == "active_warps":
            given_["blocks_per_sm"] = str(problem["answers"]["blocks_per_sm"])
        result = check_answer(problem, key, text(value), given=given_)
        assert result.status != "carried", (problem["id"], frac, value)
        # The same slip by a whole warp does carry: the method is what is credited.
        whole = problem["answers"]["warps"] + 1
        value = whole * 32 - T if key == "wasted_lanes" else problem["answers"]["blocks_per_sm"] * whole
        given_ = {"warps": str(whole)}
        if key == "active_warps":             # the student's blocks per SM, right
            given_["blocks_per_sm"] = str(problem["answers"]["blocks_per_sm"])
        assert check_answer(problem, key, text(value), given=given_).status == "carried"


def test_occupancy_above_one_carries_nothing():
    problem = generate_one("W-E", level=1, seed=3, lang="en").to_dict()
    fam = family("W-E")
    specs = {k: fam.answer_specs[k] for k in problem["answers"]}
    fns = {k: s.compute for k, s in specs.items() if s.compute}
    gpu = gpu_from_dict(problem["gpu"])
    assert "deficit" in carried_values(specs, fns, problem["answers"], problem["params"], gpu,
                                       {"warps_needed": gpu.max_warps_per_sm + 5})
    from quizgen.problems.specs import usable, fraction
    assert not usable(fraction(), Fraction(5, 4)) and usable(fraction(), Fraction(1, 4))


def test_carried_feedback_is_in_the_students_language():
    problem = generate_one("OCC-7", level=2, seed=5, lang="en").to_dict()
    a = problem["answers"]
    B = a["blocks_per_sm"] + 1
    slots = B * problem["params"]["num_sms"]
    waves = -(-problem["params"]["grid_blocks"] // slots)
    given_ = {"blocks_per_sm": str(B), "slots": str(slots)}
    en = check_answer(problem, "waves", str(waves), given=given_, lang="en")
    hi = check_answer(problem, "waves", str(waves), given=given_, lang="hinglish")
    assert en.status == hi.status == "carried"
    assert en.carried.startswith("Carried from (b)") and "se carried" in hi.carried
    # slots from the student's own blocks per SM, tail blocks from the student's own slots
    assert check_answer(problem, "slots", str(slots), given={"blocks_per_sm": str(B)}).status == "carried"
    tail = problem["params"]["grid_blocks"] % slots
    assert check_answer(problem, "tail_blocks", str(tail), given=given_).status == "carried"


def test_w_e_chain_from_own_warps_needed():
    problem = generate_one("W-E", level=2, seed=1, lang="en").to_dict()
    n = problem["answers"]["warps_needed"] + 3
    cap = problem["gpu"]["max_warps_per_sm"]
    given_ = {"warps_needed": str(n)}
    assert check_answer(problem, "deficit", str(max(n - cap, 0)), given=given_).status in ("carried", "correct")
    if "occupancy_needed" in problem["answers"] and n <= cap:
        assert check_answer(problem, "occupancy_needed", f"{n}/{cap}", given=given_).status == "carried"
        assert check_answer(problem, "hidable", "yes", given=given_).status == "correct"
