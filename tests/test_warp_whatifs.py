"""The warp cells' level-3 steps: each inverse or what-if equals the forward model at its boundary."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quizgen.engine import divergence, latency, warps
from quizgen.generator import families, generate_one, resolve_named_gpu


def test_seed_001_numbers():
    # Ex 1/2: thread 70 needs warps 0-2 → 96 threads; (100,1,1) pads to 128, still 4 warps
    assert warps.smallest_full_block(70)[0] == 96
    assert warps.padded_block((100, 1, 1))[0] == 128
    # Ex 3: rows of 48 → 64 keeps each warp in one row; Ex 3b: slices of 32 are one warp each
    assert warps.aligned_width((48, 4, 1))[0] == 64
    assert [warps.warp_slices((8, 4, 3), k)[0] for k in range(3)] == [1, 1, 1]
    # Ex 9: 1920×1080 in (30, 30) blocks: 64 × 36 blocks × 28 idle lanes
    assert warps.grid_idle_lanes((1920, 1080), (30, 30, 1))[0] == 64 * 36 * 28
    # Ex 7: made warp-uniform, 60 → 30 cycles; Ex 8 with one lane on the else: 30 + 30
    assert divergence.uniform_saving([(20, 30), (12, 30)])[0] == 30
    assert divergence.one_lane_diverges([(32, 30), (0, 30)], 1)[0] == 60
    # Ex 10: I_warp = 20 on 16 warps per scheduler hides 320 cycles, short of 400;
    # hiding 400 needs 25 instructions per warp
    assert latency.max_hidden_latency(20, schedulers=4, max_warps=64)[0] == 320
    assert latency.min_work_to_hide(400, schedulers=4, max_warps=64)[0] == 25


@settings(max_examples=200, deadline=None)
@given(L=st.integers(1, 2000), n=st.integers(1, 8), cap=st.integers(8, 64), t=st.integers(1, 4),
       w=st.integers(1, 60))
def test_inverses_sit_on_the_boundary_of_hide_latency(L, n, cap, t, w):
    least, _ = latency.min_work_to_hide(L, schedulers=n, max_warps=cap, issue_interval=t)
    assert latency.hide_latency(L, least, schedulers=n, issue_interval=t, max_warps=cap).hidable
    if least > 1:
        assert not latency.hide_latency(L, least - 1, schedulers=n, issue_interval=t,
                                        max_warps=cap).hidable
    longest, _ = latency.max_hidden_latency(w, schedulers=n, max_warps=cap, issue_interval=t)
    assert latency.hide_latency(longest, w, schedulers=n, issue_interval=t, max_warps=cap).hidable
    assert not latency.hide_latency(longest + 1, w, schedulers=n, issue_interval=t,
                                    max_warps=cap).hidable


@settings(max_examples=200, deadline=None)
@given(dx=st.integers(1, 100), dy=st.integers(1, 10), dz=st.integers(1, 4))
def test_aligned_width_is_the_narrowest_with_no_straddling_warp(dx, dy, dz):
    width = warps.aligned_width((dx, dy, dz))[0]
    assert width >= dx and width % 32 == 0
    for candidate in range(dx, width + 1):
        rows = max(dy, 2)
        ok = all(len({s.y for s in warps.warp_members((candidate, rows, 1), k)}) == 1
                 for k in range(-(-candidate * rows // 32)))
        assert ok == (candidate == width), candidate


@pytest.mark.parametrize("cell", ["W-A", "W-B", "W-C", "W-C2", "W-D", "W-E", "W-F", "W-G", "W-H",
                                  "W-I", "W-J"])
def test_level_three_asks_and_answers_its_step(cell):
    fam = families()[cell]
    for seed in range(6):
        p = generate_one(cell, level=3, seed=seed, lang="en")
        ask = p.params["ask"]
        extra = set(p.answers) - set(generate_one(cell, level=1, seed=seed, lang="en").answers)
        assert extra, (cell, ask)
        for key in extra:
            assert key in fam.answer_specs and key in p.answer_specs
        assert p.solution.steps[-1].why and any(ch.isdigit() for ch in p.solution.steps[-1].why)
        for lang in ("en", "hinglish"):
            q = generate_one(cell, level=3, seed=seed, lang=lang)
            assert q.mcq_stem and q.mcq_stem != q.question
        # levels 1 and 2 never ask it
        assert "ask" not in generate_one(cell, level=1, seed=seed, lang="en").params


def test_w_h_whys_never_charge_an_empty_branch():
    """A path no lane takes costs nothing; its why says so with its own cycles."""
    for seed in range(30):
        p = generate_one("W-H", level=2, seed=seed, lang="en")
        for step in p.solution.steps:
            if step.values.get("n_b") == 0:
                assert "whole cost" not in step.why and str(step.values["T_b"]) in step.why


def test_w_g_trap_only_for_an_uneven_split():
    fam = families()["W-G"]
    gpu = resolve_named_gpu("textbook")
    even = {"branches": [{"lanes": 16, "cost": 40}, {"lanes": 16, "cost": 40}]}
    uneven = {"branches": [{"lanes": 20, "cost": 30}, {"lanes": 12, "cost": 30}]}
    assert not fam.trap_applies(even, gpu, fam.solve(even, gpu))
    assert fam.trap_applies(uneven, gpu, fam.solve(uneven, gpu))
