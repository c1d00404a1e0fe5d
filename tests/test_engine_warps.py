"""Warps engine: seed 001's worked examples and self-test, round trips and partitions, bad input."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quizgen.engine import warps
from quizgen.engine.formulas import evaluate, sources
from quizgen.engine.warps import (Segment, block_shape, block_warps, compare_blocks, coords_of,
                                  linear_index, locate_thread, warp_members, warp_of)
from quizgen.errors import QuizgenError

from engine_checks import check_steps

# seed 001: Ex 1, Ex 2, Ex 3, Ex 3b, Ex 9 (both blocks), self-test; cell D (block < 32)
BLOCKS = [
    # block, P, warps, full, tail, wasted, rows_aligned, single
    ((256, 1, 1), 256, 8, 8, 0, 0, True, False),
    ((100, 1, 1), 100, 4, 3, 4, 28, False, False),
    ((48, 4, 1), 192, 6, 6, 0, 0, False, False),
    ((8, 4, 3), 96, 3, 3, 0, 0, False, False),
    ((30, 30, 1), 900, 29, 28, 4, 28, False, False),
    ((32, 8, 1), 256, 8, 8, 0, 0, True, False),
    ((72, 1, 1), 72, 3, 2, 8, 24, False, False),
    ((20, 1, 1), 20, 1, 0, 20, 12, False, True),
]


@pytest.mark.parametrize("block, P, w, full, tail, wasted, aligned, single", BLOCKS)
def test_seed_blocks(block, P, w, full, tail, wasted, aligned, single):
    r = block_warps(block)
    assert (r.threads, r.warps, r.full_warps, r.tail_active, r.wasted_lanes) == (P, w, full, tail, wasted)
    assert r.top_warp_id == w - 1
    assert r.rows_aligned is aligned and r.single_warp_degenerate is single
    assert r.waste_fraction == pytest.approx(wasted / (32 * w))


def test_tail_waste_fraction_of_ex2():
    assert block_warps("100").tail_waste_fraction == pytest.approx(0.875)
    assert block_warps("256").tail_waste_fraction == 0.0


def test_ex2_derivation_order_and_numbers():
    r = block_warps((100, 1, 1), explain=True)
    got = [(s.key, s.result) for s in r.steps]
    assert got == [("threads_per_block", 100), ("warps", 4), ("warps_check", 4), ("full_warps", 3),
                   ("tail_active", 4), ("wasted_lanes", 28), ("tail_waste_fraction", 0.875),
                   ("waste_fraction", 28 / 128), ("threads_check", 100)]
    assert r.steps[1].note == "partial_tail_warp"


def test_ex3_warp_one_cuts_across_rows():
    assert warp_members((48, 4, 1), 1) == [Segment(0, 0, 32, 47, 32, 47), Segment(0, 1, 0, 15, 48, 63)]
    assert warp_members("48x4", 0) == [Segment(0, 0, 0, 31, 0, 31)]
    r = block_warps((48, 4, 1), explain=True)
    assert [s.note for s in r.steps if s.key == "rows_aligned"] == ["rows_cut"]


def test_ex3b_one_warp_per_slice_and_thread_70():
    r = block_warps((8, 4, 3))
    assert r.slices_aligned and not r.rows_aligned
    for k in range(3):
        members = warp_members((8, 4, 3), k)
        assert [(s.z, s.y, s.x_start, s.x_end) for s in members] == [(k, y, 0, 7) for y in range(4)]
    loc = locate_thread((8, 4, 3), linear=70, explain=True)
    assert loc.coords == (6, 0, 2) and loc.warp_id == 2 and loc.lane == 6 and loc.z_slice == 2
    assert [(s.key, s.result) for s in loc.steps] == [
        ("threads_per_block", 96), ("slice_size", 32), ("t_z", 2), ("offset_in_slice", 6),
        ("t_y", 0), ("t_x", 6), ("warp_id", 2), ("lane", 6), ("linear_index", 70)]
    assert loc.to_dict()["coords"] == [6, 0, 2] and loc.to_dict()["linear_index"] == 70


def test_locate_from_coords():
    loc = locate_thread("8,4,3", coords="6,0,2", explain=True)
    assert loc.linear_index == 70 and loc.warp_id == 2
    assert [s.key for s in loc.steps] == ["threads_per_block", "linear_index", "warp_id", "lane"]
    assert locate_thread((48, 4), coords=(15, 1)).to_dict()["warp_id"] == 1


def test_ex9_compare_blocks():
    c = compare_blocks((30, 30), (32, 8), explain=True)
    assert c.better == "second" and c.better_block == (32, 8, 1)
    assert c.reasons == ["fewer_idle_lanes", "rows_aligned"]
    assert (c.first.warps, c.first.wasted_lanes, c.second.warps, c.second.wasted_lanes) == (29, 28, 8, 0)
    d = c.to_dict(with_steps=True)
    assert d["better_block"] == [32, 8, 1] and d["first"]["warps"] == 29 and d["steps"]
    assert compare_blocks((32, 8), (30, 30)).better == "first"


def test_compare_tie_and_alignment_tiebreak():
    c = compare_blocks((16, 16), (256, 1), explain=True)     # both waste nothing; 16-wide rows
    assert c.better == "second" and c.reasons == ["rows_aligned"]
    assert c.steps[0].note == "alignment_breaks_tie"
    t = compare_blocks((64, 4), (32, 8))
    assert t.better == "tie" and t.reasons == ["same_waste_same_alignment"] and t.better_block is None


@pytest.mark.parametrize("text, shape", [
    ("48,4,1", (48, 4, 1)), ("48x4", (48, 4, 1)), ([48, 4], (48, 4, 1)), ((48, 4, 1), (48, 4, 1)),
    ("8×4×3", (8, 4, 3)), ("(30, 30)", (30, 30, 1)), (256, (256, 1, 1)), ("100", (100, 1, 1)),
])
def test_block_shape_parsing(text, shape):
    assert block_shape(text) == shape


@pytest.mark.parametrize("call", [
    lambda: block_shape("0,4,1"), lambda: block_shape([32, -1]), lambda: block_shape("32x4x2x1"),
    lambda: block_shape(""), lambda: block_shape("a,b"), lambda: block_shape(True),
    lambda: block_shape(2.5), lambda: linear_index((8, 4, 3), (8, 0, 0)),
    lambda: linear_index((8, 4, 3), (0, 0, 3)), lambda: coords_of((8, 4, 3), 96),
    lambda: coords_of((8, 4, 3), -1), lambda: warp_members((100,), 4), lambda: warp_of(-3),
    lambda: locate_thread((8, 4, 3)), lambda: locate_thread((8, 4, 3), linear=1, coords=(1, 0, 0)),
    lambda: locate_thread((8, 4, 3), coords=(0, 4, 0)),
])
def test_bad_input_is_one_line(call):
    with pytest.raises(QuizgenError) as info:
        call()
    message = str(info.value)
    assert "\n" not in message and info.value.field in message


def test_outside_thread_message_names_the_axis():
    with pytest.raises(QuizgenError, match=r"coords: .*y = 4 but D_y = 4"):
        linear_index((8, 4, 3), (0, 4, 0))


dims = st.integers(min_value=1, max_value=12)


@settings(max_examples=60, deadline=None)
@given(dims, dims, dims)
def test_round_trip_every_thread(dx, dy, dz):
    block = (dx, dy, dz)
    for i in range(dx * dy * dz):
        c = coords_of(block, i)
        assert linear_index(block, c) == i
        assert c[0] < dx and c[1] < dy and c[2] < dz


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 40), st.integers(1, 12), st.integers(1, 6))
def test_warps_partition_the_block(dx, dy, dz):
    block = (dx, dy, dz)
    r = block_warps(block)
    covered: list[int] = []
    for k in range(r.warps):
        members = warp_members(block, k)
        ids = [i for s in members for i in range(s.linear_start, s.linear_end + 1)]
        assert ids == list(range(32 * k, min(32 * k + 32, r.threads)))
        for s in members:
            assert s.linear_start == linear_index(block, (s.x_start, s.y, s.z))
            assert s.count == s.linear_end - s.linear_start + 1
        assert all(warp_of(i) == k for i in ids)
        covered.extend(ids)
    assert covered == list(range(r.threads))
    assert r.full_warps * 32 + r.tail_active == r.threads
    assert r.warps * 32 - r.wasted_lanes == r.threads


@given(st.integers(min_value=1, max_value=10**9))
def test_last_index_floor_equals_ceiling(P):
    assert (P - 1) // 32 + 1 == -(-P // 32) == math.ceil(P / 32)


def test_formulas_agree_with_sympy_and_phrases_cover_steps():
    steps = []
    for block in [(100, 1, 1), (48, 4, 1), (8, 4, 3), (20, 1, 1), (33, 2, 2), (256, 1, 1)]:
        steps += block_warps(block, explain=True).steps
    steps += locate_thread((8, 4, 3), linear=70, explain=True).steps
    steps += locate_thread((8, 4, 3), coords=(6, 0, 2), explain=True).steps
    c = compare_blocks((30, 30), (32, 8), explain=True)
    steps += c.steps + compare_blocks((16, 2), (32, 1), explain=True).steps
    steps += compare_blocks((64, 4), (32, 8), explain=True).steps
    steps += compare_blocks((32, 8), (30, 30), explain=True).steps
    # formulas shown without a step of their own: the warp's first and last index
    assert evaluate("warp_first_index", {"k": 3}) == 96
    assert evaluate("warp_last_index", {"k": 3, "P": 100}) == 99 == warp_members((100,), 3)[-1].linear_end
    # the level-3 what-ifs and inverses of the warp cells
    steps += warps.smallest_full_block(70, explain=True)[1]
    steps += warps.padded_block((100, 1, 1), explain=True)[1]
    steps += warps.aligned_width((48, 4, 1), explain=True)[1]
    steps += warps.warp_slices((7, 5, 3), 1, explain=True)[1]
    steps += warps.threads_at_block_cap((12, 1, 1), 32, 64, explain=True)[1]
    steps += warps.grid_idle_lanes((1920, 1080), (30, 30, 1), explain=True)[1]
    steps += warps.global_thread(5195, 960, explain=True).steps
    steps += warps.launch_idle_lanes(50_000, (627, 1, 1), explain=True)[2]
    used = {k: v for k, v in warps.FORMULAS.items() if k not in ("warp_first_index", "warp_last_index")}
    check_steps(steps, used)


def test_formula_names_unique_across_modules():
    names = sources()
    for module in ("warps", "latency", "divergence", "grid", "bound"):
        mod = __import__(f"quizgen.engine.{module}", fromlist=["FORMULAS"])
        for name in mod.FORMULAS:
            assert names[name] == mod.FORMULAS[name]


def test_to_dict_is_json_safe():
    import json

    r = block_warps((30, 30), explain=True)
    d = json.loads(json.dumps(r.to_dict(with_steps=True)))
    assert d["block"] == [30, 30, 1] and d["threads_per_block"] == 900 and d["wasted_lanes"] == 28
    assert d["steps"][0]["key"] == "threads_per_block"
    assert warp_members((48, 4), 1)[0].to_dict()["x_start"] == 32
