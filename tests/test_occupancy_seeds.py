"""Every per-SM occupancy number in the source notes, solved by the engine.

Seed 000 (examples 1–7 and the self-check) uses the notes' SM (`textbook`: 65,536 registers,
64 warps, 32 blocks, 96 KB shared memory); the self-check's SM has 64 KB of shared memory.
Seed 004 (scenarios 1–2 and the flashcards) uses the A100's figures with the notes' formulas.
Each row: the numbers the note prints, including the per-limit block counts it works out.
"""

from __future__ import annotations

import pytest

from quizgen.engine.occupancy import launch_config, occupancy, warps_by_registers
from quizgen.gpus import get_gpu

TEXTBOOK = get_gpu("textbook")
SELF_CHECK_SM = TEXTBOOK.with_overrides(smem_per_sm=65536)
A100 = get_gpu("a100")
BMAX_16_SM = TEXTBOOK.with_overrides(max_blocks_per_sm=16)

# (case, gpu, launch, blocks/SM, active warps, occupancy, limiter, per-limit counts the note shows)
BLOCK_CASES = [
    ("000 ex1 register-bound, clean divide", TEXTBOOK, dict(threads_per_block=256, regs_per_thread=32),
     8, 64, 1.0, ["registers", "warps"], {"registers": 8, "warps": 8}),
    ("000 ex2 register-bound, 128 registers", TEXTBOOK, dict(threads_per_block=256, regs_per_thread=128),
     2, 16, 0.25, ["registers"], {"registers": 2}),
    ("000 ex2 rounding trap, 130 registers", TEXTBOOK, dict(threads_per_block=256, regs_per_thread=130),
     1, 8, 0.125, ["registers"], {"registers": 1}),
    ("000 ex3 shared-memory-bound", TEXTBOOK,
     dict(threads_per_block=256, regs_per_thread=2, smem_per_block=48 * 1024),
     2, 16, 0.25, ["shared_memory"], {"registers": 128, "shared_memory": 2, "warps": 8}),
    # The notes' B_max is 32, equal to the warp lid here: a tie the note leaves unsaid.
    ("000 ex4 warp-ceiling-bound", TEXTBOOK, dict(threads_per_block=64, regs_per_thread=16),
     32, 64, 1.0, ["warps", "blocks"], {"registers": 64, "warps": 32, "blocks": 32}),
    ("000 ex4 twist, B_max = 16", BMAX_16_SM, dict(threads_per_block=64, regs_per_thread=16),
     16, 32, 0.5, ["blocks"], {"registers": 64, "warps": 32, "blocks": 16}),
    ("000 ex5 a block that cannot fit", TEXTBOOK, dict(threads_per_block=512, regs_per_thread=256),
     0, 0, 0.0, ["registers"], {"registers": 0}),
    ("000 ex5 the largest block that fits at 256 registers", TEXTBOOK,
     dict(threads_per_block=256, regs_per_thread=256), 1, 8, 0.125, ["registers"], {"registers": 1}),
    ("000 self-check: registers tie with shared memory", SELF_CHECK_SM,
     dict(threads_per_block=256, regs_per_thread=100, smem_per_block=32 * 1024),
     2, 16, 0.25, ["registers", "shared_memory"], {"registers": 2, "shared_memory": 2, "warps": 8}),
    ("004 scenario 2 on A100", A100,
     dict(threads_per_block=256, regs_per_thread=32, smem_per_block=48 * 1024),
     3, 24, 0.375, ["shared_memory"], {"registers": 8, "shared_memory": 3, "warps": 8}),
]


@pytest.mark.parametrize(
    "gpu, params, blocks, warps, occ, limiter, limits",
    [case[1:] for case in BLOCK_CASES], ids=[case[0] for case in BLOCK_CASES])
def test_seed_block_numbers(gpu, params, blocks, warps, occ, limiter, limits):
    result = occupancy(gpu, launch_config(**params), model="textbook")
    assert result.blocks_per_sm == blocks
    assert result.active_warps == warps
    assert result.occupancy == pytest.approx(occ)
    assert result.limiter == limiter
    assert {name: result.limits[name] for name in limits} == limits
    assert result.launch_fails == (blocks == 0)


@pytest.mark.parametrize(
    "gpu, params, blocks, warps, occ, limiter, limits",
    [case[1:] for case in BLOCK_CASES], ids=[case[0] for case in BLOCK_CASES])
def test_seed_numbers_survive_the_derivation(gpu, params, blocks, warps, occ, limiter, limits):
    """The worked solution's steps carry the same numbers as the answer."""
    result = occupancy(gpu, launch_config(**params), model="textbook", explain=True)
    by_key = {step.key: step.result for step in result.steps}
    assert by_key["blocks_per_sm"] == blocks
    assert by_key["active_warps"] == warps
    assert by_key["occupancy"] == pytest.approx(occ)
    for name, key in (("registers", "blocks_by_regs"), ("shared_memory", "blocks_by_smem"),
                      ("warps", "blocks_by_warps")):
        if name in limits:
            assert by_key[key] == limits[name]
    # A tie is named as one in the derivation.
    tie = [s for s in result.steps if s.key == "blocks_per_sm"][0].note == "tie"
    assert tie == (len(limiter) > 1)


def test_seed_000_example_2_cliff():
    """Two more registers per thread halve the occupancy (the register cliff)."""
    at_128 = occupancy(TEXTBOOK, launch_config(256, 128), model="textbook")
    at_130 = occupancy(TEXTBOOK, launch_config(256, 130), model="textbook")
    assert at_128.occupancy == 2 * at_130.occupancy
    assert 2 * 256 * 128 <= TEXTBOOK.regs_per_sm < 2 * 256 * 130


def test_seed_000_example_7_block_slots():
    """Example 7's launch: the example 1 kernel on 80 SMs offers 640 block slots."""
    per_sm = occupancy(TEXTBOOK, launch_config(256, 32), model="textbook").blocks_per_sm
    assert TEXTBOOK.num_sms == 80
    assert per_sm * TEXTBOOK.num_sms == 640


# (case, registers per thread, warps the register file allows, occupancy)
WARP_CASES = [
    ("004 scenario 1: 64 registers", 64, 32, 0.5),
    ("004 scenario 2: register limit in warps", 32, 64, 1.0),
    ("004 flashcard: 80 registers", 80, 25, 25 / 64),
]


@pytest.mark.parametrize("regs, warps, occ", [c[1:] for c in WARP_CASES], ids=[c[0] for c in WARP_CASES])
def test_seed_004_warps_by_registers(regs, warps, occ):
    got = warps_by_registers(A100, regs)
    assert got == warps
    assert got / A100.max_warps_per_sm == pytest.approx(occ)


def test_seed_004_flashcard_rounds_to_39_percent():
    assert round(100 * warps_by_registers(A100, 80) / A100.max_warps_per_sm) == 39


def test_seed_004_a100_figures():
    """The A100 facts the note lists: 64 warps (2048 threads), 65,536 registers, 164 KB, 32 blocks."""
    assert (A100.max_warps_per_sm, A100.max_threads_per_sm, A100.regs_per_sm,
            A100.smem_per_sm, A100.max_blocks_per_sm) == (64, 2048, 65536, 164 * 1024, 32)
