"""The level-3 steps: a what-if, an inverse or a design choice, checked on the seeds' own numbers
and against the occupancy engine (the closed form and a brute-force search agree)."""

from __future__ import annotations

import pytest

from quizgen.engine import whatif
from quizgen.engine.formulas import evaluate
from quizgen.engine.occupancy import launch_config, occupancy
from quizgen.gpus import get_gpu
from quizgen.problems import resolve_named_gpu

BOOK = get_gpu("textbook")


def test_two_more_registers_halve_occupancy_seed_000_example_2():
    """Seed 000, Example 2's cliff: 256 threads at 128 registers give 2 blocks (25%); 130
    registers give 1 block (12.5%)."""
    change = whatif.more_registers(BOOK, launch_config(256, 128), 2)
    assert change.after.blocks_per_sm == 1 and change.value == 0.125
    assert [s.result for s in change.steps] == [1, 1, 0.125]


def test_registers_for_one_more_block_undo_the_cliff():
    """Back from 130 registers (1 block): at most ⌊65,536/(2 × 256)⌋ = 128 give 2 blocks."""
    change = whatif.regs_for_next_block(BOOK, launch_config(256, 130))
    assert change.value == 128 and change.after.blocks_per_sm == 2
    assert occupancy(BOOK, launch_config(256, 129), model="textbook").blocks_per_sm == 1


def test_shared_memory_for_one_more_block_seed_000_example_3():
    """Seed 000, Example 3: 48 KB per block leave 2 blocks; 3 blocks need at most 32 KB each."""
    change = whatif.smem_for_next_block(BOOK, launch_config(256, 2, 49152))
    assert change.value == 32768 and change.after.blocks_per_sm == 3 and change.after.occupancy == 24 / 64


@pytest.mark.parametrize("gpu_name, threads", [("textbook", 64), ("textbook-bmax16", 128),
                                               ("t4", 64), ("a10", 96)])
def test_smallest_block_that_fills_the_ceiling_is_the_smallest_by_search(gpu_name, threads):
    """Seed 000, Example 4's subtle point: with B_max = 16, 64-thread blocks stop at 50%; the
    closed form 32·⌈W_max/B_max⌉ is the smallest whole-warp block that reaches 100%."""
    gpu = resolve_named_gpu(gpu_name)
    change = whatif.block_for_ceiling(gpu, launch_config(64, 16))
    full = [T for T in range(32, 1025, 32)
            if occupancy(gpu, launch_config(T, 16), model="textbook").occupancy == 1]
    assert change.value == threads == min(full) and change.after.occupancy == 1


def test_registers_at_which_a_block_fits_seed_000_example_5():
    """Seed 000, Example 5: 512 threads at 256 registers do not fit; at ⌊65,536/512⌋ = 128 they do."""
    assert occupancy(BOOK, launch_config(512, 256), model="textbook").blocks_per_sm == 0
    change = whatif.regs_to_fit(BOOK, launch_config(512, 256))
    assert change.value == 128 and change.after.blocks_per_sm == 1
    assert occupancy(BOOK, launch_config(512, 129), model="textbook").blocks_per_sm == 0


def test_loosening_one_lid_of_a_tie_gains_nothing():
    """Seed 000, Example 1: registers and warps tie at 8 blocks; fewer registers leave 8."""
    change = whatif.loosen_tied_lid(BOOK, launch_config(256, 32))
    assert change.steps[0].result == 28 and change.value == 8      # ⌊65,536/(9 × 256)⌋


def test_latency_grid_and_lane_steps():
    assert whatif.efficiency_warps(300, 0.5) == 150 and whatif.efficiency_warps(130, 0.75) == 98
    assert whatif.wave_grid(1000, 432) == 1296 and whatif.wave_grid(52, 576) == 576
    assert whatif.useful_occupancy(0.5, 0.5).value == 0.25


@pytest.mark.parametrize("fn, args", [
    (whatif.more_registers, (BOOK, launch_config(192, 40, 4096), 3)),
    (whatif.regs_for_next_block, (BOOK, launch_config(224, 205, 3000))),
    (whatif.smem_for_next_block, (BOOK, launch_config(128, 16, 13 * 1024))),
    (whatif.block_for_ceiling, (BOOK, launch_config(64, 20))),
    (whatif.regs_to_fit, (BOOK, launch_config(640, 192))),
])
def test_each_step_equals_its_formula(fn, args):
    """The number a step records is what its formula gives for its values (sympy)."""
    for step in fn(*args).steps:
        assert float(evaluate(step.formula, step.values)) == pytest.approx(step.result), step


# In the problems -----------------------------------------------------------------------------

from quizgen.generator import generate_one  # noqa: E402

LEVEL_THREE = {"OCC-1": "occupancy_after", "OCC-2": "regs_next_block", "OCC-3": "smem_next_block",
               "OCC-4": "block_for_ceiling", "OCC-5": "regs_to_fit", "OCC-6": "warps_for_target",
               "OCC-7": "full_wave_grid", "OCC-8": "useful_occupancy", "OCC-9": "blocks_after"}


@pytest.mark.parametrize("cell, key", sorted(LEVEL_THREE.items()))
def test_level_three_asks_its_step_and_levels_one_and_two_do_not(cell, key):
    for seed in range(3):
        p = generate_one(cell, level=3, seed=seed, lang="en")
        assert key in p.answers and key in p.answer_specs, (cell, seed)
        assert any(s.formula in whatif.FORMULAS for s in p.solution.steps)
        for level in (1, 2):
            assert key not in generate_one(cell, level=level, seed=seed, lang="en").answers


def test_a_small_grid_asks_for_its_idle_sms_with_options_inside_the_gpu():
    seen = 0
    for seed in range(40):
        p = generate_one("OCC-7", level=1, seed=seed, lang="en")
        if p.params["grid_blocks"] >= p.params["num_sms"]:
            assert p.main_answer == "waves"
            continue
        seen += 1
        assert p.main_answer == "idle_sms" and len(p.choices) >= 4
        assert all(0 <= c.value <= p.params["num_sms"] for c in p.choices)
        assert [c.value for c in p.choices if c.correct] == [p.answers["idle_sms"]]
        assert "no block" in p.mcq_stem and "waves" not in p.mcq_stem
    assert seen


def test_a_real_gpu_shows_the_exact_answer_of_the_level_three_step():
    """OCC-5 on an A100: the textbook ⌊65,536/T⌋ registers, and the exact model's own answer."""
    p = generate_one("OCC-5", level=3, seed=1, lang="en", gpu="a100")
    T = p.params["threads_per_block"]
    exact = 0
    for r in range(1, 256):
        if occupancy(get_gpu("a100"), launch_config(T, r), model="exact").blocks_per_sm:
            exact = r
    assert f"at most {exact} registers per thread" in p.solution.answer
    assert p.answers["regs_to_fit"] == 65536 // T


def test_occ8_on_a_real_gpu_names_its_model_and_the_exact_occupancy():
    p = generate_one("OCC-8", level=2, seed=0, lang="en", gpu="a100")
    assert "textbook" in p.question.lower() and "exact model" in p.solution.answer.lower()
    assert "textbook" in p.mcq_stem.lower()
