"""Divergence engine: seed 001 Ex 7–8 and self-test, seed 000 Ex 8, properties and bad input."""

from __future__ import annotations

import json

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from quizgen.engine import divergence as divergence_module
from quizgen.engine.divergence import divergence, equal_occupancy_twist
from quizgen.errors import QuizgenError

from engine_checks import check_steps

@pytest.mark.parametrize("branches, serialised, baseline, slowdown, utilisation", [
    ([{"lanes": 20, "cost": 30}, {"lanes": 12, "cost": 30}], 60, 30, 2.0, 0.5),   # seed 001 Ex 7
    ([(31, 30), (1, 30)], 60, 30, 2.0, 0.5),                                       # Ex 7: split irrelevant
    ([(32, 30), (0, 30)], 30, 30, 1.0, 1.0),                                       # seed 001 Ex 8
    ([(16, 40), (16, 40)], 80, 40, 2.0, 0.5),                                      # seed 001 self-test
    ([(8, 10), (8, 10), (16, 10)], 30, 10, 3.0, 1 / 3),                            # three paths
    ([(16, 10), (16, 30)], 40, 20, 2.0, 0.5),                                      # unequal costs
])
def test_seed_divergence(branches, serialised, baseline, slowdown, utilisation):
    r = divergence(branches)
    assert (r.serialised, r.baseline) == (serialised, baseline)
    assert r.slowdown == pytest.approx(slowdown) and r.lane_utilisation == pytest.approx(utilisation)


def test_ex7_steps_and_dict():
    r = divergence([(20, 30), (12, 30)], explain=True)
    assert [(s.key, s.result) for s in r.steps] == [
        ("branch_pass", 30), ("serialised_time", 60), ("useful_lane_cycles", 600),
        ("useful_lane_cycles", 960), ("baseline", 30), ("slowdown", 2.0), ("lane_utilisation", 0.5)]
    assert r.steps[-2].note == "split_ratio_irrelevant"
    d = json.loads(json.dumps(r.to_dict(with_steps=True)))
    assert d["branches"] == [{"lanes": 20, "cost": 30}, {"lanes": 12, "cost": 30}]
    assert d["slowdown"] == 2.0 and d["divergent"] is True and d["split_matters"] is False


def test_ex8_empty_branch_is_free():
    r = divergence([{"lanes": 32, "cost": 30}, {"lanes": 0, "cost": 30}], explain=True)
    assert r.steps[1].note == "empty_branch_free" and r.steps[1].result == 30
    assert not r.divergent and r.populated == 1 and r.idle_lane_cycles == 0
    assert [s.note for s in r.steps if s.key == "slowdown"] == ["no_divergence"]


def test_given_baseline():
    r = divergence([(20, 30), (12, 50)], baseline=30, explain=True)
    assert r.serialised == 80 and r.baseline == 30 and r.baseline_rule == "given"
    assert r.slowdown == pytest.approx(80 / 30)
    assert r.split_matters


def test_partial_warp_active_lanes():
    r = divergence([(3, 20), (1, 20)], active_lanes=4)
    assert r.serialised == 40 and r.slowdown == 2.0 and r.lane_utilisation == 0.5


def test_seed000_ex8_twist():
    t = equal_occupancy_twist([(16, 1), (16, 1)], occupancy=1.0, explain=True)
    assert t.speed_ratio == 2.0 and t.lane_utilisation_y == 0.5 and t.lane_utilisation_x == 1.0
    assert t.faster == "X" and (t.time_x, t.time_y) == (1, 2)
    d = t.to_dict(with_steps=True)
    assert d["occupancy_x"] == d["occupancy_y"] == 1.0 and d["slowdown"] == 2.0
    assert [s.key for s in t.steps][-1] == "speed_ratio" and "time_x" in [s.key for s in t.steps]
    assert "slowdown" not in [s.key for s in t.steps]


@st.composite
def branch_lists(draw):
    """1 to 6 branches whose lanes add up to at most one warp (drawn, not filtered: no health-check flakes)."""
    left, out = 32, []
    for _ in range(draw(st.integers(1, 6))):
        lanes = draw(st.integers(0, left))
        left -= lanes
        out.append((lanes, draw(st.integers(0, 500))))
    return out




@given(branch_lists())
def test_serialised_at_least_longest_and_slowdown_is_inverse_utilisation(raw):
    total = sum(n for n, _ in raw)
    assume(0 < total <= 32 and any(c for n, c in raw if n))
    r = divergence(raw, active_lanes=total)
    longest = max(c for n, c in raw if n)
    assert r.serialised >= longest == r.longest_branch
    assert r.serialised == sum(c for n, c in raw if n)
    assert r.slowdown >= 1 - 1e-12
    assert r.slowdown == pytest.approx(1 / r.lane_utilisation)


@pytest.mark.parametrize("branches, kwargs, field", [
    ([(33, 10), (0, 10)], {}, "branches[0].lanes"),
    ([(20, -5), (12, 10)], {}, "branches[0].cost"),
    ([(-1, 5), (33, 5)], {}, "branches[0].lanes"),
    ([(20, 10), (10, 10)], {}, "branches"),
    ([], {}, "branches"),
    ("20,12", {}, "branches"),
    ([(20, 10, 3)], {}, "branches[0]"),
    ([{"lanes": 32}], {}, "branches[0]"),
    ([(32, 0)], {}, "branches"),
    ([(32, 10)], {"active_lanes": 33}, "active_lanes"),
    ([(32, 10)], {"baseline": 0}, "baseline"),
])
def test_bad_input_is_one_line(branches, kwargs, field):
    with pytest.raises(QuizgenError) as info:
        divergence(branches, **kwargs)
    assert info.value.field == field and "\n" not in str(info.value)


def test_twist_rejects_occupancy_above_one():
    with pytest.raises(QuizgenError, match="occupancy"):
        equal_occupancy_twist([(16, 1), (16, 1)], occupancy=1.5)


def test_formulas_agree_with_sympy_and_phrases_cover_steps():
    steps = []
    for br in ([(20, 30), (12, 30)], [(32, 30), (0, 30)], [(20, 30), (12, 50)], [(8, 1), (8, 1), (16, 2)]):
        steps += divergence(br, explain=True).steps
        steps += divergence(br, baseline=30, explain=True).steps
    steps += equal_occupancy_twist([(16, 1), (16, 1)], explain=True).steps
    steps += divergence_module.uniform_saving([(20, 30), (12, 30)], explain=True)[1]
    steps += divergence_module.one_lane_diverges([(32, 30), (0, 45)], 1, explain=True)[1]
    check_steps(steps, divergence_module.FORMULAS)


@given(st.lists(st.tuples(st.integers(0, 32), st.integers(0, 10**6)), min_size=1, max_size=5))
def test_whole_costs_give_the_exact_ratios_correctly_rounded(pairs):
    from fractions import Fraction

    lanes = [n for n, _ in pairs]
    assume(0 < sum(lanes) <= 32)
    assume(any(n and c for n, c in pairs))
    r = divergence([{"lanes": n, "cost": c} for n, c in pairs], active_lanes=sum(lanes))
    serial = sum(c for n, c in pairs if n)
    useful = sum(n * c for n, c in pairs if n)
    n_act = sum(lanes)
    assert r.serialised == serial and r.useful_lane_cycles == useful
    assert r.slowdown == float(Fraction(serial * n_act, useful))
    assert r.lane_utilisation == float(Fraction(useful, n_act * serial))
    base = Fraction(useful, n_act)
    assert r.baseline == (int(base) if base.denominator == 1 else float(base))
