"""Warp and latency families: the seeds' worked examples as problems, and every cell generates."""

from __future__ import annotations

import pytest

from quizgen.generator import families, generate_one, resolve_named_gpu
from quizgen.problems.base import distinct_wrong
from quizgen.render.figures import figure_for

MY_CELLS = ("W-A", "W-B", "W-C", "W-C2", "W-D", "W-E", "W-F", "W-G", "W-H", "W-I", "W-J",
            "OCC-6", "OCC-7", "OCC-8", "L-3", "L-4", "L-5")


def branches(*pairs):
    return [{"lanes": n, "cost": c} for n, c in pairs]


# (source, cell, params, expected answers, lands in the cell?)
SEED_CASES = [
    # seed 001 Ex 1: (256, 1, 1) → 8 full warps; the top warp ID is ⌊255/32⌋ = 7
    # A cell also needs four honest options for its multiple-choice card (each wrong one from a
    # named misconception, inside the block): thread 255 is in the last warp, where only warps 3
    # (the 64-wide wavefront) and 6 (zero-based twice) are wrong yet inside the block, so the
    # seed's own numbers are not posed; thread 200 of the same block is.
    ("001 Ex 1", "W-A", {"block": [256, 1, 1], "threads_per_block": 256, "linear_index": 255},
     {"warps": 8, "wasted_lanes": 0, "warp_id": 7, "lane": 31}, False),
    ("001 Ex 1, thread 200", "W-A", {"block": [256, 1, 1], "threads_per_block": 256,
                                     "linear_index": 200},
     {"warps": 8, "wasted_lanes": 0, "warp_id": 6, "lane": 8}, True),
    # seed 001 Ex 2: (100, 1, 1) → 4 warps, the last with 4 threads, 28 wasted lanes
    ("001 Ex 2", "W-B", {"block": [100, 1, 1], "threads_per_block": 100},
     {"warps": 4, "full_warps": 3, "tail_active": 4, "wasted_lanes": 28}, True),
    # seed 001 Ex 3: (48, 4, 1), warp 1 = row 0 x 32–47 + row 1 x 0–15; 6 warps, no waste
    ("001 Ex 3", "W-C", {"block": [48, 4, 1], "threads_per_block": 192, "warp_id": 1},
     {"warps": 6, "wasted_lanes": 0, "first_coords": [32, 0, 0], "last_coords": [15, 1, 0],
      "rows_spanned": 2, "first_row_threads": 16}, True),
    # seed 001 Ex 3b: (8, 4, 3), linear 70 → (6, 0, 2), warp 2; 3 warps, one per slice
    ("001 Ex 3b", "W-C2", {"block": [8, 4, 3], "threads_per_block": 96, "linear_index": 70},
     {"coords": [6, 0, 2], "warp_id": 2, "lane": 6, "warps": 3, "wasted_lanes": 0}, True),
    # seed 001 Ex 6: L = 400, W = 1 → 400 warps per scheduler ≫ 64: memory-bound. Corrected by
    # the shared physics: each of the 4 schedulers needs its own 400, so the SM needs 1600.
    ("001 Ex 6", "W-F", {"latency": 400, "work_per_warp": 1, "schedulers": 4},
     {"warps_per_scheduler": 400, "warps_needed": 1600, "deficit": 1536, "hidable": False,
      "coverage": 0.04}, True),
    ("001 Ex 6, one scheduler", "W-F", {"latency": 400, "work_per_warp": 1, "schedulers": 1},
     {"warps_needed": 400, "deficit": 336, "hidable": False, "coverage": 0.16}, True),
    # seed 001 Ex 7: 20 lanes if (30), 12 else (30) → 60 cycles, 2×
    ("001 Ex 7", "W-G", {"branches": branches((20, 30), (12, 30))},
     {"divergent_time": 60, "baseline": 30, "slowdown": 2.0, "lane_utilisation": 0.5}, True),
    # seed 001 Ex 8: all 32 lanes take if (30), 0 else → 30 cycles, 1×
    # with both paths at 30 cycles every wrong method gives 60 (or the 960 lane-cycles): too few
    # distinct options to pose; an else of 45 cycles keeps the lesson and four options
    ("001 Ex 8", "W-H", {"branches": branches((32, 30), (0, 30))},
     {"divergent_time": 30, "slowdown": 1.0, "lane_utilisation": 1.0}, False),
    ("001 Ex 8, else 45", "W-H", {"branches": branches((32, 30), (0, 45))},
     {"divergent_time": 30, "slowdown": 1.0, "lane_utilisation": 1.0}, True),
    # seed 001 Ex 9: 1920 × 1080 image, (30, 30) → 29 warps, 28 wasted; (32, 8) → 8 warps, 0 wasted
    ("001 Ex 9", "W-I", {"image": [1920, 1080], "blocks": [[30, 30, 1], [32, 8, 1]]},
     {"square_warps": 29, "square_wasted_lanes": 28, "aligned_warps": 8, "aligned_wasted_lanes": 0,
      "better_block": [32, 8, 1]}, True),
    # seed 001 Ex 10: 4 schedulers × 400/1 = 1600 slots ÷ 20 = 80 warps > 64: 16 short
    ("001 Ex 10", "W-J", {"schedulers": 4, "latency": 400, "issue_interval": 1, "work_per_warp": 20},
     {"instruction_slots": 1600, "warps_per_scheduler": 20, "warps_needed": 80, "deficit": 16,
      "ilp_factor": 2, "warps_with_ilp": 40}, True),
    # seed 001 self-test
    ("001 self-test 1", "W-B", {"block": [72, 1, 1], "threads_per_block": 72},
     {"warps": 3, "tail_active": 8, "wasted_lanes": 24}, True),
    ("001 self-test 2", "W-C2", {"block": [8, 4, 3], "threads_per_block": 96, "linear_index": 40},
     {"warps": 3, "coords": [0, 1, 1], "warp_id": 1}, True),
    # seed 001 self-test 3: 20 warps per scheduler; corrected: × 4 schedulers = 80 > 64, so it
    # is no longer a W-E problem on the textbook SM (it is W-J's trap); with one scheduler it is.
    ("001 self-test 3", "W-E", {"latency": 300, "work_per_warp": 15, "schedulers": 4},
     {"warps_per_scheduler": 20, "warps_needed": 80, "deficit": 16, "hidable": False}, False),
    # 300/15 divides exactly and one scheduler leaves no scheduler slip: two wrong options only;
    # 310 cycles (a ceiling to take) is posed
    ("001 self-test 3, one scheduler", "W-E", {"latency": 300, "work_per_warp": 15, "schedulers": 1},
     {"warps_needed": 20, "deficit": 0, "hidable": True}, False),
    ("001 self-test 3, one scheduler, L = 310", "W-E",
     {"latency": 310, "work_per_warp": 15, "schedulers": 1},
     {"warps_needed": 21, "deficit": 0, "hidable": True}, True),
    # an even 16/16 split hides the cell's trap (no split can look cheaper) and leaves two
    # wrong options: not posed
    ("001 self-test 4", "W-G", {"branches": branches((16, 40), (16, 40))},
     {"divergent_time": 80, "slowdown": 2.0}, False),
    # seed 000 Ex 6, one scheduler as the seed works it: L = 300: η(64) = 64/300, η(600) = 1
    ("000 Ex 6 N=64", "OCC-6", {"latency": 300, "resident_warps": 64, "schedulers": 1},
     {"efficiency": 64 / 300, "plateau_warps": 300, "efficiency_at_cap": 64 / 300}, True),
    ("000 Ex 6 N=32", "OCC-6", {"latency": 300, "resident_warps": 32, "schedulers": 1},
     {"efficiency": 32 / 300, "efficiency_at_cap": 64 / 300, "spare_warps": 0}, True),
    # η(600) = 1 as the seed says, but no SM holds 600 warps (cap 64): not an OCC-6 problem
    ("000 Ex 6 N=600", "OCC-6", {"latency": 300, "resident_warps": 600, "schedulers": 1},
     {"efficiency": 1.0, "spare_warps": 300}, False),
    ("000 Ex 6 N=300", "OCC-6", {"latency": 300, "resident_warps": 300, "schedulers": 1},
     {"efficiency": 1.0, "spare_warps": 0}, False),
    # the shared physics corrects the seed for the notes' own SM: its 4 schedulers each issue
    # from their own 16 of the 64 warps, so η(64) = 16/300 and the plateau is 4 × 300 warps
    ("000 Ex 6 N=64, 4 schedulers", "OCC-6", {"latency": 300, "resident_warps": 64, "schedulers": 4},
     {"efficiency": 16 / 300, "plateau_warps": 1200, "efficiency_at_cap": 16 / 300}, True),
    # seed 000 Ex 7: 80 SMs × 8 blocks = 640 slots; 40 blocks → 1 wave, 40 SMs idle
    ("000 Ex 7 small", "OCC-7", {"threads_per_block": 256, "regs_per_thread": 32, "grid_blocks": 40,
                                 "num_sms": 80},
     {"blocks_per_sm": 8, "slots": 640, "waves": 1, "idle_sms": 40}, True),
    # … and 2000 blocks → 4 waves, an 80-block tail
    ("000 Ex 7 big", "OCC-7", {"threads_per_block": 256, "regs_per_thread": 32, "grid_blocks": 2000,
                               "num_sms": 80},
     # corrected: blocks go out breadth-first, so the tail's 80 blocks sit on all 80 SMs (the
     # seed's "10 SMs" packs them 8 per SM: the misconception packed_tail)
     {"blocks_per_sm": 8, "waves": 4, "tail_blocks": 80, "tail_sms": 80, "idle_sms": 0}, True),
    # seed 000 Ex 8: equal 100% occupancy; Y splits 16/16 → 2× slower
    ("000 Ex 8", "OCC-8", {"threads_per_block": 256, "regs_per_thread": 32,
                           "branches": branches((16, 10), (16, 10))},
     {"occupancy": 1.0, "slowdown": 2.0, "lane_utilisation": 0.5}, True),
    # seed 004 Ex 1: 16 B load + 4 B store, 10 FLOPs, load 400 cycles
    # The warps: each scheduler needs ⌈400/(10·4)⌉ = 10, the SM 40 (62.5%), not the seed's
    # 16–32 (which divides by the schedulers): corrected, so Ex 1 itself leaves the cell; with
    # ILP 8 the same kernel needs 4 × 5 = 20 warps and lands in it.
    ("004 Ex 1", "L-3", {"bytes_loaded": 16, "bytes_stored": 4, "flops": 10, "latency": 400,
                         "flop_latency": 4, "ilp": 4, "schedulers": 4},
     {"bytes_moved": 20, "arithmetic_intensity": 0.5, "compute_cycles": 10, "critical_path": 410,
      "bound": "memory", "warps_per_scheduler": 10, "warps_needed": 40}, False),
    ("004 Ex 1, ILP 8", "L-3", {"bytes_loaded": 16, "bytes_stored": 4, "flops": 10, "latency": 400,
                                "flop_latency": 4, "ilp": 8, "schedulers": 4},
     {"critical_path": 410, "bound": "memory", "warps_needed": 20, "occupancy_needed": 20 / 64},
     True),
    # seed 004 Ex 2: 256 FMAs, 8 B from shared memory at 30 cycles; high ILP → 4–8 warps
    # per scheduler ⌈30/4⌉ = 8 (the seed's 4–8), × 4 schedulers = 32 warps: corrected, above the
    # cell's 25%; ILP 8 gives 4 per scheduler, 16 warps = 25%, the seed's own "25% is enough".
    ("004 Ex 2 ILP 4", "L-4", {"bytes_loaded": 8, "bytes_stored": 0, "flops": 256, "latency": 30,
                               "flop_latency": 4, "work_per_warp": 4, "schedulers": 4},
     {"compute_cycles": 256, "critical_path": 286, "bound": "compute", "warps_per_scheduler": 8,
      "warps_needed": 32}, False),
    ("004 Ex 2 ILP 8", "L-4", {"bytes_loaded": 8, "bytes_stored": 0, "flops": 256, "latency": 30,
                               "flop_latency": 4, "work_per_warp": 8, "schedulers": 4},
     {"warps_per_scheduler": 4, "warps_needed": 16, "occupancy_needed": 16 / 64}, True),
    # seed 004 Mistake 2: L = 400, each of 4 schedulers at 1 per cycle → 1600 in flight; ILP 4 →
    # 100 warps per scheduler, 400 for the SM. Corrected: the seed's 25 divides by the
    # schedulers, which is now the misconception divided_by_schedulers.
    ("004 Mistake 2", "L-5", {"latency": 400, "throughput": 1, "ilp": 4, "schedulers": 4},
     {"concurrency": 1600, "warps_per_scheduler": 100, "warps_needed": 400, "latency": 400}, True),
]


@pytest.mark.parametrize("source, cell, params, expected, lands",
                         SEED_CASES, ids=[c[0] for c in SEED_CASES])
def test_seed_examples_reproduce(source, cell, params, expected, lands):
    fam = families()[cell]
    gpu = resolve_named_gpu("textbook")
    solved = fam.solve(params, gpu)
    for key, value in expected.items():
        got = solved.answers[key]
        if isinstance(value, float):
            assert got == pytest.approx(value, abs=1e-9), (source, key)
        else:
            assert got == value, (source, key)
    assert fam.in_cell(params, gpu, solved) is lands
    if lands:
        # The modelled wrong methods give at least one wrong answer for the seed's own numbers.
        wrong = distinct_wrong(solved.answers[fam.main_answer],
                               fam.misconceptions(params, gpu, solved), fam.main_answer)
        assert wrong, source


def test_seed_004_ex1_memory_bound_reading():
    """Load dominates the critical path; 50% occupancy is enough; the store adds nothing."""
    fam = families()["L-3"]
    params = next(c[2] for c in SEED_CASES if c[0] == "004 Ex 1, ILP 8")
    solved = fam.solve(params, resolve_named_gpu("textbook"))
    assert solved.answers["critical_path"] < 400 + 400 / 10        # ≈ 400, dominated by the load
    assert 16 <= solved.answers["warps_needed"] <= 32
    assert solved.answers["occupancy_needed"] <= 0.5
    wrong = {m.key: m.answers for m in fam.misconceptions(params, resolve_named_gpu("textbook"), solved)}
    assert wrong["divided_by_schedulers"]["warps_needed"] == 2       # ⌈400/(10·8·4)⌉
    store = {m.key: m.answers for m in fam.misconceptions(params, resolve_named_gpu("textbook"), solved)}
    assert store["store_on_critical_path"]["critical_path"] == 810


def test_w_f_level_three_uses_each_gpus_cap():
    """W-F compares with the problem's own SM cap: a T4 SM holds 32 warps."""
    fam = families()["W-F"]
    t4 = resolve_named_gpu("t4")
    solved = fam.solve({"latency": 100, "work_per_warp": 1, "schedulers": 4}, t4)
    assert solved.answers["deficit"] == 400 - 32
    assert solved.answers["coverage"] == pytest.approx(32 / 400)


def test_w_i_order_of_blocks_does_not_change_answers():
    fam = families()["W-I"]
    gpu = resolve_named_gpu("textbook")
    a = fam.solve({"image": [1280, 720], "blocks": [[12, 12, 1], [64, 4, 1]]}, gpu).answers
    b = fam.solve({"image": [1280, 720], "blocks": [[64, 4, 1], [12, 12, 1]]}, gpu).answers
    assert a == b
    assert a["square_warps"] == 5 and a["square_wasted_lanes"] == 16 and a["better_block"] == [64, 4, 1]


@pytest.mark.parametrize("cell", MY_CELLS)
@pytest.mark.parametrize("lang", ["hinglish", "en"])
def test_generate_one_every_level(cell, lang):
    fam = families()[cell]
    for level in (1, 2, 3):
        p = generate_one(cell, level=level, seed=level * 7, lang=lang)
        assert p.cell == cell and p.lang == lang
        gpu = resolve_named_gpu(p.gpu["name"])
        solved = fam.solve(p.params, gpu, explain=False)
        # (a solver may ask another answer for one problem: a small grid's idle SMs)
        assert p.main_answer == (solved.data.get("main_answer") or fam.main_answer)
        assert p.main_answer in p.answers
        assert set(p.units) <= set(p.answers)
        assert p.answer_specs[p.main_answer]["kind"]
        assert fam.in_cell(p.params, gpu, solved)


@pytest.mark.parametrize("cell", MY_CELLS)
def test_figures_draw(cell):
    p = generate_one(cell, level=2, seed=1, lang="en")
    if p.figure is None:
        return
    svg = figure_for(p)
    assert svg and svg.lstrip().startswith("<svg")
