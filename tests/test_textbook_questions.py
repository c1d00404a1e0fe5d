"""Questions of the kinds textbooks and course exams ask, posed to the calculators as a teacher
types them, against the answer worked out by hand here. The questions are written for these
tests in the style of PMPP's chapter 4 and 5 exercises and of Caltech CS 179 (their own numbers,
not the books' wording); the SMs are the presets of the books' stated limits.

Each asks through the command line (`--json`), as a user does, so the options, the presets and
the engine are all under test; the worked solution of each is read for the words it must have."""

from __future__ import annotations

import json

import pytest

from conftest import run_quizgen


def ask(*args: str) -> dict:
    proc = run_quizgen(*args, "--json")
    assert proc.returncode == 0, (args, proc.stderr)
    return json.loads(proc.stdout)


def words(*args: str) -> str:
    proc = run_quizgen(*args, "--lang", "en")
    assert proc.returncode == 0, (args, proc.stderr)
    return proc.stdout


# --- occupancy on a stated SM --------------------------------------------------------------------

def test_most_threads_on_an_sm_of_1536_threads_and_4_blocks():
    """An SM takes up to 1,536 threads and 4 blocks: which of 64, 256, 512 and 768 threads per
    block puts the most threads on it? 64 → 4 blocks (256); 256 → 4 (1,024); 512 → 3 (1,536,
    the warp slots); 768 → 2 (1,536 too, the warp slots). 512 and 768 both fill it."""
    threads_on_sm = {}
    for T in (64, 256, 512, 768):
        r = ask("occupancy", "--gpu", "pmpp-1536", "--threads", str(T))
        threads_on_sm[T] = r["blocks_per_sm"] * T
    assert threads_on_sm == {64: 256, 256: 1024, 512: 1536, 768: 1536}
    assert ask("occupancy", "--gpu", "pmpp-1536", "--threads", "64")["limiter"] == ["blocks"]


@pytest.mark.parametrize("blocks, threads, possible, occ", [
    (16, 128, True, 1.0),        # 2,048 threads: the SM is full
    (48, 32, True, 0.75),        # 48 one-warp blocks: under the 64-block cap
    (64, 32, True, 1.0),
    (40, 64, False, None),       # 2,560 threads: more than the SM's 2,048
    (70, 16, False, None),       # 70 blocks: over the 64-block cap
])
def test_which_assignments_fit_an_sm_of_64_blocks(blocks, threads, possible, occ):
    """An SM of 2,048 threads and 64 blocks: can it hold B blocks of T threads, and at what
    occupancy? Possible exactly when B is at most the blocks per SM the calculator finds."""
    r = ask("occupancy", "--gpu", "pmpp-64blocks", "--threads", str(threads))
    assert (blocks <= r["blocks_per_sm"]) is possible
    if possible:
        assert blocks * r["warps_per_block"] / r["max_warps_per_sm"] == occ


@pytest.mark.parametrize("threads, regs, smem, full, limiter, occ", [
    (256, 32, None, True, ["registers", "warps"], 1.0),     # 8 blocks × 8,192 registers: exactly 64 K
    (32, 40, None, False, ["blocks"], 0.5),                 # 32 one-warp blocks: the block cap
    (512, 36, None, False, ["registers"], 0.75),            # 18,432 registers a block: 3 blocks
    (128, 28, "7KB", False, ["shared_memory"], 0.8125),     # 96 KB / 7 KB = 13 blocks of 4 warps
    (256, 28, "12KB", True, ["shared_memory", "warps"], 1.0),
])
def test_full_occupancy_on_the_books_sm(threads, regs, smem, full, limiter, occ):
    """The book's SM of 2,048 threads, 32 blocks, 64 K registers and 96 KB of shared memory is
    the notes' SM: can the kernel reach full occupancy, and if not, what limits it?"""
    args = ["occupancy", "--gpu", "textbook", "--threads", str(threads), "--regs", str(regs)]
    if smem:
        args += ["--smem", smem]
    r = ask(*args)
    assert (r["occupancy"] == 1.0) is full
    assert sorted(r["limiter"]) == sorted(limiter) and r["occupancy"] == occ


def test_a_block_over_the_devices_thread_limit_does_not_launch():
    """A device of 512 threads per block and 8 blocks per SM; a student launches 32 × 32 blocks
    for a matrix product. Reaction: it cannot run, 1,024 > 512 threads per block."""
    r = ask("occupancy", "--gpu", "pmpp-512", "--block", "32,32")
    assert r["blocks_per_sm"] == 0 and r["launch_fails"] and r["failure"] == "threads_per_block"
    text = words("occupancy", "--gpu", "pmpp-512", "--block", "32,32")
    assert "1,024" in text and "512" in text and "per block, not per SM" in text
    ok = ask("occupancy", "--gpu", "pmpp-512", "--block", "16,32")
    assert ok["blocks_per_sm"] == 4          # 512-thread blocks: 16 warps each, 64 warp slots


def test_register_allocation_on_a_kepler_sm():
    """On a GK110 (K40), 128-thread blocks at 50 registers: a warp's 1,600 registers are
    allocated as 1,792 (7 units of 256), so one block takes 4 × 1,792 = 7,168 registers."""
    r = ask("occupancy", "--gpu", "k40", "--threads", "128", "--regs", "50")
    assert r["regs_per_block_allocated"] == 7168
    assert r["blocks_per_sm"] == 9 and r["limiter"] == ["registers"]   # 16,384/1,792 = 9 per part


# --- a whole grid ----------------------------------------------------------------------------------

def test_threads_and_warps_of_a_grid():
    """A vector of 3,000 elements, one thread each, blocks of 256: how many threads does the grid
    launch, how many warps, and how many threads get no element? ⌈3000/256⌉ = 12 blocks, 3,072
    threads in 96 warps, 72 past the end. And 8 blocks of 96 threads hold 8 × 3 = 24 warps."""
    r = ask("warps", "--block", "256", "--elements", "3000")["grid"]
    assert (r["grid_blocks"], r["grid_threads"], r["grid_warps"], r["threads_past_end"]) == (12, 3072, 96, 72)
    g = ask("warps", "--block", "96", "--grid", "8")["grid"]
    assert (g["grid_threads"], g["grid_warps"], g["idle_lanes"]) == (768, 24, 0)
    g = ask("warps", "--block", "20,5", "--grid", "3,2")["grid"]      # 100-thread blocks, 6 of them
    assert (g["grid_blocks"], g["grid_warps"], g["idle_lanes"]) == (6, 24, 6 * 28)


# --- memory- or compute-bound, with the verdict only -------------------------------------------

@pytest.mark.parametrize("gflops, gbs, bound", [(400, 200, "memory"), (500, 450, "compute")])
def test_bound_by_the_roofline_without_a_latency(gflops, gbs, bound):
    """A kernel does 45 FLOPs and nine 4-byte global accesses per thread (36 B): 1.25 FLOP/B. On a
    GPU of 400 GFLOP/s and 200 GB/s (balance 2) it is memory-bound; on one of 500 GFLOP/s and
    450 GB/s (balance 1.11) compute-bound. No latency is given: the verdict needs none."""
    r = ask("bound", "--load-bytes", "36", "--flops", "45", "--set", f"peak_fp32_gflops={gflops}",
            "--set", f"mem_bandwidth_gbs={gbs}")
    assert r["arithmetic_intensity"] == 1.25 and r["critical_path"] is None
    assert r["bound"] == bound


def test_bound_verdict_words_without_a_latency():
    text = words("bound", "--load-bytes", "36", "--flops", "45", "--set", "peak_fp32_gflops=500",
                 "--set", "mem_bandwidth_gbs=450")
    assert "Compute-bound" in text and "critical path" not in text.lower()


# --- latency: what the stall is -------------------------------------------------------------------

def test_an_arithmetic_latency_is_never_memory_bound():
    """A GK110 SM: 4 schedulers, each dual-issuing (2 instructions a cycle), a 10-cycle arithmetic
    latency. Little's law: 10 × 4 × 2 = 80 instructions in flight, 80 warps at one independent
    instruction each, 16 more than the 64 an SM holds: ILP 2 closes it (40 warps). Nothing here
    waits for memory."""
    r = ask("latency", "--latency", "10", "--schedulers", "4", "--throughput", "2", "--stall",
            "arithmetic")
    assert (r["in_flight"], r["warps_needed"], r["deficit"], r["warps_with_ilp"]) == (80, 80, 16, 40)
    assert r["memory_bound"] is False and r["stall"] == "arithmetic"
    for lang in ("en", "hinglish"):
        proc = run_quizgen("latency", "--latency", "10", "--schedulers", "4", "--throughput", "2",
                           "--stall", "arithmetic", "--lang", lang)
        assert proc.returncode == 0
        assert "kernel is memory-bound" not in proc.stdout and "kernel memory-bound hai" not in proc.stdout
        assert "not memory-bound" in proc.stdout or "memory-bound nahi" in proc.stdout
    unsaid = ask("latency", "--latency", "10", "--schedulers", "4", "--throughput", "2")
    assert unsaid["memory_bound"] is None
    said = ask("latency", "--latency", "400", "--work", "1", "--stall", "memory")
    assert said["memory_bound"] is True


def test_littles_law_in_bytes():
    """A GPU of 900 GB/s and 80 SMs (the notes'), loads of 600 ns, float2 loads (8 B): 540,000 B
    in flight, 6,750 B per SM, 256 B per warp → 27 warps per SM; at 1.5 GHz, 900 cycles is the
    same 600 ns."""
    r = ask("latency", "--latency-ns", "600", "--lane-bytes", "8")["bytes"]
    assert (r["bytes_in_flight"], r["bytes_per_sm"], r["bytes_per_warp"], r["warps_needed"]) == (
        540000, 6750, 256, 27)
    by_clock = ask("latency", "--latency", "900", "--clock", "1.5", "--lane-bytes", "8")["bytes"]
    assert by_clock["latency_ns"] == 600 and by_clock["warps_needed"] == 27
    two = ask("latency", "--latency-ns", "600", "--lane-bytes", "8", "--ilp", "2")["bytes"]
    assert (two["bytes_per_warp"], two["warps_needed"]) == (512, 14)       # 6,750 / 512 = 13.2
    over = ask("latency", "--gpu", "h100", "--latency-ns", "700")["bytes"]     # 4-byte loads
    # 3,350 × 700 = 2,345,000 B over 132 SMs = 17,765 B: 139 warps > 64, ILP 3 at the cap
    assert (over["warps_needed"], over["fits"], over["ilp_at_cap"]) == (139, False, 3)


def test_one_line_errors_for_the_new_options():
    for args, field in ((("latency", "--latency", "10", "--stall", "slow", "--work", "2"), "stall"),
                        (("latency", "--bandwidth", "900"), "latency"),
                        (("latency", "--latency", "400", "--bandwidth", "900"), "latency-ns"),
                        (("warps", "--block", "64", "--grid", "0"), "grid"),
                        (("warps", "--block", "64", "--grid", "4", "--elements", "9"), "grid")):
        proc = run_quizgen(*args)
        assert proc.returncode == 2, (args, proc.stdout)
        assert proc.stderr.count("\n") == 1 and f"{field}:" in proc.stderr, (args, proc.stderr)
