"""Latency engine: seed 001 Ex 6 and Ex 10 and self-test, seed 000 Ex 6, seed 004's Little's law."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from quizgen.engine import latency
from quizgen.engine.latency import efficiency, littles_law, scheduler_demand, warps_needed
from quizgen.errors import QuizgenError

from engine_checks import check_steps

@pytest.mark.parametrize("L, W, need, deficit, hidable", [
    (400, 1, 400, 336, False),     # seed 001 Ex 6: zero compute between loads
    (300, 15, 20, 0, True),        # seed 001 self-test
    (400, 20, 20, 0, True),        # cell E with the notes' numbers
    (301, 15, 21, 0, True),        # a fraction of a warp rounds up
    (640, 10, 64, 0, True),        # exactly the cap
    (650, 10, 65, 1, False),
])
def test_warps_needed(L, W, need, deficit, hidable):
    r = warps_needed(L, W)
    assert (r.warps_needed, r.deficit, r.hidable, r.memory_bound) == (need, deficit, hidable, not hidable)
    assert r.degenerate is (W == 1)


def test_ex6_steps():
    r = warps_needed(400, 1, explain=True)
    assert [(s.key, s.result, s.note) for s in r.steps] == [
        ("warps_needed", 400, "no_compute"), ("deficit", 336, "memory_bound")]
    assert r.to_dict()["memory_bound"] is True


def test_ex10_scheduler_demand():
    r = scheduler_demand(4, 400, 1, 20, explain=True)
    assert (r.instruction_slots, r.warps_needed, r.deficit, r.ilp_factor, r.warps_with_ilp) == (1600, 80, 16, 2, 40)
    assert not r.fits
    assert [s.key for s in r.steps] == ["instruction_slots", "warps_needed", "deficit", "ilp_factor",
                                        "warps_with_ilp"]
    d = json.loads(json.dumps(r.to_dict(with_steps=True)))
    assert d["schedulers"] == 4 and d["issue_interval"] == 1 and d["work_per_warp"] == 20


def test_scheduler_demand_fractional_slots_and_fit():
    r = scheduler_demand(4, 400, 3, 20, explain=True)          # 1600/3 slots → 26.67 → 27 warps
    assert r.instruction_slots == pytest.approx(1600 / 3) and r.warps_needed == 27 and r.fits
    assert r.ilp_factor == 1 and [s.key for s in r.steps] == ["instruction_slots", "warps_needed", "deficit"]


@given(st.integers(1, 8), st.integers(1, 2000), st.integers(1, 4), st.integers(1, 64), st.integers(8, 64))
def test_ilp_factor_is_the_smallest_that_fits(n_sched, L, t, i_warp, cap):
    r = scheduler_demand(n_sched, L, t, i_warp, max_warps=cap)
    assert r.warps_with_ilp <= cap
    if r.ilp_factor > 1:
        k = r.ilp_factor - 1
        assert -(-(n_sched * L) // (t * i_warp * k)) > cap
    assert r.deficit == max(r.warps_needed - cap, 0)


@pytest.mark.parametrize("N, eta, saturated", [(64, 64 / 300, False), (300, 1.0, True), (600, 1.0, True),
                                               (0, 0.0, False)])
def test_seed000_ex6_efficiency(N, eta, saturated):
    r = efficiency(N, 300)
    assert r.efficiency == pytest.approx(eta) and r.saturated is saturated and r.plateau_at == 300
    assert r.spare_warps == max(N - 300, 0)


def test_seed000_ex6_is_about_21_percent():
    assert round(efficiency(64, 300).efficiency, 3) == 0.213


@given(st.integers(0, 1000), st.integers(1, 500))
def test_efficiency_rises_then_plateaus(n, L):
    a, b = efficiency(n, L).efficiency, efficiency(n + 1, L).efficiency
    assert 0 <= a <= b <= 1
    assert (b == a) == (n >= L)


def test_littles_law_seed004():
    plain = littles_law(400, 1, explain=True)
    assert plain.concurrency == 400 and plain.warps_needed == 400
    helped = littles_law(400, 1, ilp=4, schedulers=4, explain=True)
    assert helped.warps_needed == 25 and 16 <= helped.warps_needed <= 32
    # the latency is never divided: the last step records L itself, unchanged
    for r in (plain, helped):
        last = r.steps[-1]
        assert (last.key, last.result, last.note) == ("latency", 400, "no_l_eff")
        assert r.latency == 400 and r.to_dict()["latency"] == 400


def test_littles_law_rounds_up_and_takes_floats():
    r = littles_law(400, 0.1, ilp=3)
    assert r.concurrency == 40 and r.warps_needed == 14
    assert littles_law(400, "1", ilp="4", schedulers="4").warps_needed == 25


@pytest.mark.parametrize("call", [
    lambda: warps_needed(0, 10), lambda: warps_needed(400, 0), lambda: warps_needed(400, 2.5),
    lambda: warps_needed(400, 1, max_warps=0), lambda: scheduler_demand(0, 400, 1, 20),
    lambda: scheduler_demand(4, 400, 0, 20), lambda: efficiency(-1, 300), lambda: efficiency(10, 0),
    lambda: littles_law(400, 0), lambda: littles_law(400, "fast"), lambda: littles_law(400, -1),
    lambda: littles_law(400, float("inf")), lambda: littles_law(400, 1, ilp=0),
    lambda: littles_law(400, 1, schedulers=0), lambda: littles_law(400, True),
])
def test_bad_input_is_one_line(call):
    with pytest.raises(QuizgenError) as info:
        call()
    assert "\n" not in str(info.value) and info.value.field in str(info.value)


def test_formulas_agree_with_sympy_and_phrases_cover_steps():
    steps = []
    for L, W in [(400, 1), (300, 15), (301, 15)]:
        steps += warps_needed(L, W, explain=True).steps
    for args in [(4, 400, 1, 20), (4, 400, 3, 20), (4, 401, 1, 20)]:
        steps += scheduler_demand(*args, explain=True).steps
    for n in (64, 300, 600):
        steps += efficiency(n, 300, explain=True).steps
    steps += littles_law(400, 1, ilp=4, schedulers=4, explain=True).steps
    steps += littles_law(400, 1, ilp=3, schedulers=4, explain=True).steps
    check_steps(steps, latency.FORMULAS)
