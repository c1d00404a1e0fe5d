"""Grid engine: seed 000 Ex 7 (80 SMs, 8 blocks/SM, grids of 40 and 2000), wave properties."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from quizgen.engine import grid
from quizgen.engine.grid import waves
from quizgen.errors import QuizgenError

from engine_checks import check_steps

def test_seed000_ex7_small_grid():
    r = waves(40, 80, 8, explain=True)
    assert (r.slots, r.sms_with_blocks, r.idle_sms, r.waves) == (640, 40, 40, 1)
    assert r.sm_utilisation == 0.5 and r.small_grid
    assert r.slot_utilisation == pytest.approx(40 / 640)
    assert [s.key for s in r.steps] == ["slots", "sms_with_blocks", "idle_sms", "waves",
                                        "sm_utilisation", "slot_utilisation"]


def test_seed000_ex7_big_grid():
    """Seed 000 Ex 7: 4 waves, an 80-block tail. Corrected by the shared physics (blocks go out
    breadth-first): the tail lands one block per SM on all 80 SMs, not packed on the seed's 10
    (that count is the misconception packed_tail); its cost is 80/640 = 12.5% of the slots."""
    r = waves(2000, 80, 8, explain=True)
    assert (r.waves, r.full_waves, r.tail_blocks, r.tail_sms, r.tail_idle_sms) == (4, 3, 80, 80, 0)
    assert r.packed_tail_sms == 10 and r.tail_utilisation == pytest.approx(80 / 640)
    assert r.idle_sms == 0 and r.sm_utilisation == 1.0
    assert r.slot_utilisation == pytest.approx(2000 / 2560)
    d = json.loads(json.dumps(r.to_dict(with_steps=True)))
    assert d["waves"] == 4 and d["tail_blocks"] == 80 and d["grid_blocks"] == 2000 and d["num_sms"] == 80
    assert [s["result"] for s in d["steps"] if s["key"] == "tail_sms"] == [80]


@pytest.mark.parametrize("G, n_waves, tail, tail_sms", [
    (1280, 2, 0, 0),      # the last wave is full: no tail
    (640, 1, 0, 0),
    (641, 2, 1, 1),
    (700, 2, 60, 60),     # breadth-first: 60 tail blocks on 60 SMs, one each
    (80, 1, 80, 80),      # one partial wave: one block per SM
    (1279, 2, 639, 80),   # a tail that still needs every SM
])
def test_tails(G, n_waves, tail, tail_sms):
    r = waves(G, 80, 8)
    assert (r.waves, r.tail_blocks, r.tail_sms) == (n_waves, tail, tail_sms)


def test_measured_h200_placement():
    """Measured on an H200: 200 blocks that could fit 16 per SM land on all 132 SMs."""
    r = waves(200, 132, 16)
    assert r.sms_with_blocks == 132 == r.tail_sms and r.idle_sms == 0


@given(st.integers(1, 100_000), st.integers(1, 200), st.integers(1, 32))
def test_tail_spreads_breadth_first(G, S, B):
    r = waves(G, S, B)
    assert r.tail_sms == min(r.tail_blocks, S)
    assert r.tail_idle_sms == (S - r.tail_sms if r.tail_blocks else 0)
    assert r.tail_sms >= (r.packed_tail_sms if r.tail_blocks else 0)


@given(st.integers(1, 100_000), st.integers(1, 200), st.integers(1, 32))
def test_waves_cover_the_grid(G, S, B):
    r = waves(G, S, B)
    assert r.waves * r.slots >= G > (r.waves - 1) * r.slots
    assert 0 <= r.tail_blocks < r.slots
    assert r.full_waves * r.slots + r.tail_blocks == G
    assert 0 <= r.tail_sms <= S and r.sms_with_blocks + r.idle_sms == S
    assert 0 < r.slot_utilisation <= 1


@pytest.mark.parametrize("args, field", [
    ((0, 80, 8), "grid_blocks"), ((40, 0, 8), "num_sms"), ((40, 80, 0), "blocks_per_sm"),
    (("many", 80, 8), "grid_blocks"), ((40.5, 80, 8), "grid_blocks"),
])
def test_bad_input_is_one_line(args, field):
    with pytest.raises(QuizgenError) as info:
        waves(*args)
    assert info.value.field == field and "\n" not in str(info.value)


def test_formulas_agree_with_sympy_and_phrases_cover_steps():
    steps = []
    for G in (40, 2000, 1280, 700, 640, 1279):
        steps += waves(G, 80, 8, explain=True).steps
    # a whole grid's threads and warps: by blocks (1D and gridDim x,y,z) and by elements
    steps += grid.grid_count("30,30", "4,2", explain=True).steps
    steps += grid.grid_count(512, elements=2000, explain=True).steps
    check_steps(steps, grid.FORMULAS)
