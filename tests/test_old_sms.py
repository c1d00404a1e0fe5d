"""The SMs textbooks and older exams use: compute capability 2.0 to 6.1, and the SMs of textbook
exercises. Each preset's limits are checked against NVIDIA's table and the occupancy header's
granularities (the header cross-check itself is in test_occupancy_header.py); cc 2.0, which the
header does not cover, is checked against NVIDIA's occupancy spreadsheet's rules, written here
on their own."""

from __future__ import annotations

import json
import random
import re

import pytest

from quizgen.engine.occupancy import launch_config, occupancy
from quizgen.errors import QuizgenError
from quizgen.generator import generate_one
from quizgen.gpus import field_kinds, get_gpu, preset_names
from quizgen.kernels import preset_for_capability
from quizgen.render.writers.family import gpu_label

from conftest import run_quizgen

# Per preset: NVIDIA's "Technical Specifications per Compute Capability" (warps, blocks,
# registers per SM, per block and per thread, shared memory per SM and per block) and the
# allocation rules of cuda_occupancy.h (register unit per warp, shared-memory unit, sub-partitions:
# cudaOccRegAllocationGranularity, cudaOccSMemAllocationGranularity,
# cudaOccSubPartitionsPerMultiprocessor, cudaOccMaxBlocksPerMultiprocessor). cc 2.0 from the
# occupancy spreadsheet: 64-register units per warp, warps in pairs, 128-byte shared memory units.
# SM counts are the boards' (datasheets and whitepapers).
LIMITS = {
    #          cc     SMs warps blocks regs/SM regs/blk r/thr smem/SM smem/blk g_R  g_S  P
    "c2050":   ("2.0", 14, 48, 8, 32768, 32768, 63, 49152, 49152, 64, 128, 2),
    "gtx680":  ("3.0", 8, 64, 16, 65536, 65536, 63, 49152, 49152, 256, 256, 4),
    "k40":     ("3.5", 15, 64, 16, 65536, 65536, 255, 49152, 49152, 256, 256, 4),
    "gtx750ti": ("5.0", 5, 64, 32, 65536, 65536, 255, 65536, 49152, 256, 256, 4),
    "gtx980":  ("5.2", 16, 64, 32, 65536, 65536, 255, 98304, 49152, 256, 256, 4),
    "p100":    ("6.0", 56, 64, 32, 65536, 65536, 255, 65536, 49152, 256, 256, 2),
    "gtx1080": ("6.1", 20, 64, 32, 65536, 65536, 255, 98304, 49152, 256, 256, 4),
}
FIELDS = ("compute_capability", "num_sms", "max_warps_per_sm", "max_blocks_per_sm", "regs_per_sm",
          "regs_per_block", "max_regs_per_thread", "smem_per_sm", "smem_per_block",
          "reg_alloc_unit", "smem_alloc_unit", "schedulers_per_sm")


@pytest.mark.parametrize("name", sorted(LIMITS))
def test_each_old_preset_has_the_tables_limits(name):
    gpu = get_gpu(name)
    assert tuple(getattr(gpu, f) for f in FIELDS) == LIMITS[name]
    # before Volta: no reserved shared memory, no opt-in above the per-block limit, no carveout,
    # no block barriers as a limit; 1,024 threads per block from cc 2.0 on; a datasheet's peaks
    assert (gpu.reserved_smem_per_block, gpu.smem_per_block_optin, gpu.smem_carveout_kb,
            gpu.barriers_per_sm, gpu.max_threads_per_block) == (0, gpu.smem_per_block, (), 0, 1024)
    assert gpu.peak_fp32_gflops > 0 and gpu.mem_bandwidth_gbs > 0 and "datasheet" in gpu.peak_source \
        or "whitepaper" in gpu.peak_source
    assert gpu.default_model == "exact" and not gpu.is_textbook
    # Kepler, Maxwell and Pascal schedulers dual-issue; Fermi GF100's do not
    assert gpu.dual_issue == (gpu.cc_major in (3, 5, 6))


SM35_LOG = """\
ptxas info    : Compiling entry function '_Z5scalePfi' for 'sm_35'
ptxas info    : Function properties for _Z5scalePfi
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 40 registers, 4096 bytes smem, 336 bytes cmem[0]
"""


def test_an_sm_35_log_is_answered_on_the_k40():
    """A compiler report for sm_35 (as an older nvcc prints it) is answered on the cc 3.5 preset:
    40 registers → 1,280 per warp, 4 sub-partitions of 16,384 hold 12 warps each, 6 blocks of 8."""
    proc = run_quizgen("occupancy", "--ptxas", "-", "--threads", "256", "--json", stdin=SM35_LOG)
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)
    assert (got["gpu"], got["arch"], got["blocks_per_sm"], got["limiter"]) == ("k40", "sm_35", 6, ["registers"])


def test_each_capability_maps_to_its_preset_for_compiler_logs():
    for arch, name in (("2.0", "c2050"), ("3.0", "gtx680"), ("3.5", "k40"), ("5.0", "gtx750ti"),
                       ("5.2", "gtx980"), ("6.0", "p100"), ("6.1", "gtx1080")):
        assert preset_for_capability(arch) == name


# The SMs of PMPP's chapter 4 exercises: only the limits each states differ from the notes' SM.
EXERCISE_SMS = {
    "pmpp-1536": {"max_warps_per_sm": 48, "max_blocks_per_sm": 4},
    "pmpp-64blocks": {"max_warps_per_sm": 64, "max_blocks_per_sm": 64},
    "pmpp-512": {"max_threads_per_block": 512, "max_blocks_per_sm": 8},
}


@pytest.mark.parametrize("name", sorted(EXERCISE_SMS))
def test_each_exercise_sm_states_its_limits_and_keeps_the_notes_others(name):
    gpu, notes = get_gpu(name), get_gpu("textbook")
    stated = EXERCISE_SMS[name]
    for field in FIELDS[1:] + ("max_threads_per_block", "reserved_smem_per_block"):
        want = stated.get(field, getattr(notes, field))
        assert getattr(gpu, field) == want, field
    assert gpu.is_textbook and gpu.default_model == "textbook" and gpu.compute_capability is None
    assert gpu_label(gpu, "en") == "the textbook exercise's GPU"
    assert gpu_label(notes, "en") == "the notes' textbook GPU"


def test_every_preset_is_named_in_the_readme():
    from pathlib import Path

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    paragraph = readme[readme.index("GPU presets:"):].split("\n\n")[0]
    for name in preset_names():
        assert f"`{name}" in paragraph or f" {name}," in paragraph or f" {name}`" in paragraph, name


# --- cc 2.0, which cuda_occupancy.h does not cover: the occupancy spreadsheet's rules ----------

def spreadsheet_blocks(T: int, r: int, s: int) -> int:
    """NVIDIA's CUDA Occupancy Calculator for compute capability 2.0, written from its GPU Data
    sheet (48 warps, 8 blocks, 32 K registers, 63 per thread, register allocation unit 64 per
    warp, warp allocation granularity 2, 48 KB of shared memory in 128-byte units) and its
    formulas: warps limited by registers are floor(R / registers per warp) rounded down to the
    warp granularity, and blocks are those warps over the block's warps."""
    warps = -(-T // 32)
    if T > 1024:
        return 0
    by_warps = min(8, 48 // warps)
    if r:
        per_warp = -(-(r * 32) // 64) * 64
        limited = (32768 // per_warp) // 2 * 2
        by_regs = limited // warps
    else:
        by_regs = 8
    if s:
        alloc = -(-s // 128) * 128
        by_smem = 0 if alloc > 49152 else 49152 // alloc
    else:
        by_smem = 8
    return min(by_warps, by_regs, by_smem)


def test_fermi_follows_the_occupancy_spreadsheet():
    rng = random.Random(20)
    gpu = get_gpu("c2050")
    seen = set()
    for _ in range(4000):
        T = rng.choice([rng.randint(1, 1024), 32 * rng.randint(1, 32), rng.randint(1025, 1100)])
        r, s = rng.randint(0, 63), rng.choice([0, rng.randint(0, 50000), 1024 * rng.randint(1, 48)])
        got = occupancy(gpu, launch_config(T, r, s), model="exact")
        assert got.blocks_per_sm == spreadsheet_blocks(T, r, s), (T, r, s)
        seen.update(got.limiter)
    assert seen == {"registers", "shared_memory", "warps", "blocks"}


def test_fermi_register_allocation_in_64_register_units():
    """21 registers × 32 lanes = 672, a warp gets 704 (11 units of 64); at 256 threads a block
    holds 8 × 704 = 5,632, and the 2 schedulers' halves hold ⌊16,384/704⌋ = 23 warps each."""
    res = occupancy(get_gpu("c2050"), launch_config(256, 21), model="exact", explain=True)
    assert res.regs_per_block_allocated == 5632
    assert res.limits["registers"] == (23 * 2) // 8 == 5


# --- the rules older SMs add or drop -----------------------------------------------------------

def test_gp100_also_checks_the_other_pascal_chips():
    """cuda_occupancy.h: a block that fits GP100's 2 register sub-partitions but not the 4 of the
    other Pascal chips runs on neither (288 threads at 176 registers)."""
    fits = occupancy(get_gpu("p100"), launch_config(256, 176), model="exact")
    refused = occupancy(get_gpu("p100"), launch_config(288, 176), model="exact", explain=True)
    assert fits.blocks_per_sm == 1
    assert refused.blocks_per_sm == 0 and refused.failure == "regs_gp10x"
    assert [s.why for s in refused.steps if s.key == "blocks_by_regs"] == ["register_lid_gp10x"]


def test_a_carveout_before_volta_is_one_line():
    with pytest.raises(QuizgenError, match="compute capability 7.0"):
        occupancy(get_gpu("k40"), launch_config(128, 32, carveout=50), model="exact")
    proc = run_quizgen("occupancy", "--gpu", "gtx1080", "--threads", "128", "--carveout", "50")
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "carveout" in proc.stderr


def test_the_kernels_registers_are_within_the_chips_cap():
    """cc 3.0 and 2.0 allow 63 registers per thread: asking for more is one line, and no cell
    draws such a kernel there."""
    with pytest.raises(QuizgenError, match="at most 63"):
        occupancy(get_gpu("gtx680"), launch_config(128, 64))
    for cell, level in (("OCC-1", 1), ("OCC-2", 2), ("X-1", 1), ("OCC-5", 1)):
        for seed in range(5):
            p = generate_one(cell, level=level, seed=seed, gpu="gtx680", lang="en")
            assert p.params.get("regs_per_thread", 0) <= 63


def test_single_issue_questions_are_not_asked_on_dual_issue_sms():
    """W-E says each scheduler issues one instruction per cycle: a Kepler scheduler can issue
    two of a warp's independent instructions, so W-E refuses the K40 (one line); W-F (one
    instruction between loads: nothing to dual-issue) and Fermi's W-E are asked."""
    with pytest.raises(QuizgenError, match="no W-E problem exists"):
        generate_one("W-E", level=1, seed=0, gpu="k40", lang="en")
    p = generate_one("W-F", level=1, seed=0, gpu="k40", lang="en")
    assert p.params["schedulers"] == 4
    p = generate_one("W-E", level=1, seed=0, gpu="c2050", lang="en")
    assert p.params["schedulers"] == 2 and "2 warp schedulers" in p.question


#: The driver's bytes per block, an opt-in, a carveout, in either language (a block's own
#: "0 B reserve karta hai", the shared memory it asks for, is not the driver's).
DRIVER_RESERVE = re.compile(r"\d B reserved|reserved \+|\+ \d[\d,]* B reserve|driver (reserves|adds|keeps)"
                            r"|driver har block|driver ke reserve|opt-in|opted in|carveout|cc 8\.0")


@pytest.mark.parametrize("name", ["c2050", "k40", "gtx980", "p100"])
def test_an_old_sm_is_never_told_of_a_reserve_or_an_opt_in(name):
    """Every problem on an SM before Volta, both languages: no reserved bytes per block, no
    opt-in, no carveout (the calculator refuses one; no cell draws one)."""
    from quizgen.generator import CELLS

    said = 0
    for cell in CELLS:
        if cell in ("X-5", "L-6"):      # X-5 compares T4, A100 and H100 by design; L-6 has no GPU
            continue
        for level in (1, 2, 3):
            for lang in ("en", "hinglish"):
                try:
                    p = generate_one(cell, level=level, seed=1, gpu=name, lang=lang)
                except QuizgenError:
                    continue
                sol = p.solution
                text = " ".join([p.title, p.question, p.mcq_stem, sol.forecast, sol.answer,
                                 sol.trap, *sol.verify, *(c.why for c in p.choices),
                                 *(f"{st.title} {st.why} {st.note}" for st in sol.steps)])
                said_there = DRIVER_RESERVE.search(text)
                assert said_there is None, (cell, level, lang, said_there)
                said += 1
    assert said > 40


# --- --set: every field of the catalogue -------------------------------------------------------

SAMPLE = {"int": "77", "text": "something", "kb_list": "0,8,16,32"}


@pytest.mark.parametrize("field", sorted(field_kinds()))
def test_set_takes_every_catalogue_field(field):
    from quizgen.cli.options import load_gpu

    kind = field_kinds()[field]
    value = {"compute_capability": "6.1", "base": "a100", "name": "mine",
             "warp_size": "32"}.get(field, SAMPLE[kind])
    gpu = load_gpu("a100", None, [f"{field}={value}"])
    got = getattr(gpu, field)
    if kind == "kb_list":
        assert got == (0, 8, 16, 32)
    elif kind == "int":
        assert got == int(value)
    elif field == "base":
        assert got == "a100"
    else:
        assert got == value


def test_set_peak_figures_reach_the_roofline():
    proc = run_quizgen("bound", "--load-bytes", "28", "--flops", "36", "--set",
                       "peak_fp32_gflops=200", "--set", "mem_bandwidth_gbs=100", "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["machine_balance"] == 2.0
    bad = run_quizgen("bound", "--load-bytes", "28", "--flops", "36", "--set", "peak_gflops=1")
    assert bad.returncode == 2 and "peak_fp32_gflops" in bad.stderr and bad.stderr.count("\n") == 1
