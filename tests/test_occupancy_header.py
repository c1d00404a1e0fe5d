"""The exact model against NVIDIA's own occupancy header, on thousands of random launches.

`tests/occ_driver.cpp` is compiled once per session against ``cuda_occupancy.h`` (host C++, no CUDA
compiler needed) and fed one launch per line; every number it prints must match
``occupancy(..., model="exact")``. Skipped, with the reason, where g++ or the header is missing.
"""

from __future__ import annotations

import dataclasses
import random
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from quizgen.errors import QuizgenError
from quizgen.engine.occupancy import LIMIT_NAMES, LaunchConfig, launch_config, occupancy
from quizgen.gpus import GPU, get_gpu, preset_names

CUDA_INCLUDE = Path("/usr/local/cuda/include")
HEADER = CUDA_INCLUDE / "cuda_occupancy.h"
DRIVER_SOURCE = Path(__file__).with_name("occ_driver.cpp")
INT_MAX = 2**31 - 1
SEED = 20240611
CONFIGS_PER_PRESET = 1400

# cudaOccLimitingFactor bits
BITS = {"warps": 0x01, "registers": 0x02, "shared_memory": 0x04, "blocks": 0x08, "barriers": 0x10}

#: Every real preset the header covers: cc 3.0 and later (it answers CUDA_OCC_ERROR_UNKNOWN_DEVICE
#: for cc 2.x, so Fermi is checked against NVIDIA's occupancy spreadsheet in test_old_sms.py).
PRESETS = [name for name in preset_names() if get_gpu(name).cc_major >= 3]


@dataclass(frozen=True)
class HeaderResult:
    status: int
    blocks: int
    factor_bits: int
    limits: dict[str, int | None]
    regs_allocated: int
    smem_allocated: int


@pytest.fixture(scope="session")
def driver(tmp_path_factory) -> Path:
    if shutil.which("g++") is None:
        pytest.skip("g++ is not installed; the header cross-check needs a C++ compiler")
    if not HEADER.is_file():
        pytest.skip(f"{HEADER} is missing; the header cross-check needs NVIDIA's occupancy header")
    out = tmp_path_factory.mktemp("occ") / "occ_driver"
    subprocess.run(["g++", "-O1", "-std=c++17", f"-I{CUDA_INCLUDE}", str(DRIVER_SOURCE), "-o", str(out)],
                   check=True, capture_output=True, text=True)
    return out


def device_fields(gpu: GPU) -> list[int]:
    major, minor = (int(p) for p in gpu.compute_capability.split("."))
    return [major, minor, gpu.max_threads_per_block, gpu.max_threads_per_sm, gpu.regs_per_block,
            gpu.regs_per_sm, gpu.warp_size, gpu.smem_per_block, gpu.smem_per_sm, gpu.num_sms,
            gpu.smem_per_block_optin, gpu.reserved_smem_per_block]


def input_line(gpu: GPU, cfg: LaunchConfig) -> str:
    # optin=None → FUNC_SHMEM_LIMIT_DEFAULT with no dynamic limit; optin=N → FUNC_SHMEM_LIMIT_OPTIN, N.
    limit_config, max_dyn = (0, 0) if cfg.optin is None else (1, cfg.optin)
    fields = device_fields(gpu) + [cfg.regs_per_thread, cfg.smem_per_block, limit_config, max_dyn,
                                   cfg.barriers, cfg.carveout, cfg.threads_per_block, cfg.dyn_smem]
    return " ".join(str(v) for v in fields)


def run_driver(driver: Path, lines: list[str]) -> list[HeaderResult]:
    proc = subprocess.run([str(driver)], input="\n".join(lines) + "\n", capture_output=True,
                          text=True, check=True)
    out = []
    for row in proc.stdout.splitlines():
        v = [int(x) for x in row.split()]
        limits = dict(zip(("registers", "shared_memory", "warps", "blocks", "barriers"), v[3:8]))
        out.append(HeaderResult(v[0], v[1], v[2],
                                {k: None if x == INT_MAX else x for k, x in limits.items()}, v[8], v[9]))
    assert len(out) == len(lines)
    return out


def random_config(rng: random.Random) -> LaunchConfig:
    """One launch from the whole input space, biased towards the edges where rules change."""
    threads = rng.randint(1025, 2048) if rng.random() < 0.03 else rng.choice(
        [rng.randint(1, 1024), 32 * rng.randint(1, 32), rng.randint(1, 96)])
    regs = rng.choice([rng.randint(0, 255), 8 * rng.randint(0, 31), rng.randint(0, 40)])
    static = rng.choice([0, 0, rng.randint(0, 100 * 1024), 1024 * rng.randint(0, 64),
                         rng.randint(0, 4096)])
    dyn = rng.choice([0, 0, rng.randint(0, 230 * 1024), 1024 * rng.randint(0, 200),
                      rng.randint(0, 8192), rng.randint(0, 48 * 1024)])
    optin_kind = rng.randrange(3)
    optin: object = None if optin_kind == 0 else True if optin_kind == 1 else rng.choice(
        [rng.randint(0, 240 * 1024), dyn, max(0, dyn - rng.randint(1, 512)), 1024 * rng.randint(0, 232)])
    carveout = -1 if rng.random() < 0.4 else rng.randint(0, 100)
    barriers = rng.randint(0, 4)
    return launch_config(threads, regs, static, dyn, optin, carveout, barriers)


def within_table(gpu: GPU, cfg: LaunchConfig) -> LaunchConfig:
    """The launch as this GPU can be asked it: registers within the table's per-thread cap (63 on
    cc 3.0, where the header allows 255), and no carveout before cc 7.0 (the header ignores it
    there; the engine refuses it with one line, see test_pre_volta_carveout_is_refused_and_ignored)."""
    regs = cfg.regs_per_thread % (gpu.max_regs_per_thread + 1)
    carveout = cfg.carveout if gpu.cc_major >= 7 else -1
    if (regs, carveout) == (cfg.regs_per_thread, cfg.carveout):
        return cfg
    return dataclasses.replace(cfg, regs_per_thread=regs, carveout=carveout)


def sample() -> list[tuple[GPU, LaunchConfig]]:
    rng = random.Random(SEED)
    return [(gpu, within_table(gpu, random_config(rng)))
            for gpu in map(get_gpu, PRESETS) for _ in range(CONFIGS_PER_PRESET)]


def header_limiter(h: HeaderResult) -> list[str]:
    """Every limit whose own block count equals the final one (the barrier limit included)."""
    return [name for name in LIMIT_NAMES if h.limits[name] is not None and h.limits[name] == h.blocks]


def test_sample_is_large_and_covers_every_preset():
    cases = sample()
    assert len(cases) >= 10_000
    assert {gpu.name for gpu, _ in cases} == set(PRESETS)
    assert {"gtx680", "k40", "gtx750ti", "gtx980", "p100", "gtx1080"} <= set(PRESETS)
    assert "c2050" not in PRESETS
    assert any(cfg.threads_per_block > 1024 for _, cfg in cases)
    assert {cfg.barriers for _, cfg in cases} == {0, 1, 2, 3, 4}


def test_exact_model_matches_cuda_occupancy_header(driver):
    cases = sample()
    header = run_driver(driver, [input_line(gpu, cfg) for gpu, cfg in cases])
    mismatches = []
    header_errors = 0
    outcomes = {"fits": 0, "fails": 0}
    limiters_seen: set[str] = set()
    for (gpu, cfg), h in zip(cases, header):
        if h.status != 0:
            # The header refuses the launch (e.g. a carveout that rounds past the largest size):
            # the engine must refuse it too, with a one-line user error.
            header_errors += 1
            with pytest.raises(QuizgenError):
                occupancy(gpu, cfg, model="exact")
            continue
        ours = occupancy(gpu, cfg, model="exact")
        got = (ours.blocks_per_sm, ours.regs_per_block_allocated, ours.smem_per_block_allocated,
               ours.limits, sorted(ours.limiter))
        want = (h.blocks, h.regs_allocated, h.smem_allocated, h.limits, sorted(header_limiter(h)))
        if got != want:
            mismatches.append((gpu.name, cfg, got, want))
        outcomes["fits" if h.blocks else "fails"] += 1
        limiters_seen.update(header_limiter(h))
        # The header's own bits cover the four limits it takes the minimum of before barriers.
        pre_barrier = min(h.limits[n] if h.limits[n] is not None else INT_MAX
                          for n in ("registers", "shared_memory", "warps", "blocks"))
        for name in ("registers", "shared_memory", "warps", "blocks"):
            assert bool(h.factor_bits & BITS[name]) == (h.limits[name] == pre_barrier), (gpu.name, cfg)
    assert not mismatches, f"{len(mismatches)} mismatches, first: {mismatches[:3]}"
    # The sample must exercise launches that fit, launches that fail, and every limiter.
    assert outcomes["fits"] > 1000 and outcomes["fails"] > 100, outcomes
    assert limiters_seen == set(LIMIT_NAMES), limiters_seen
    assert header_errors == 0 or header_errors < len(cases) // 10


def test_header_agrees_on_hand_picked_edges(driver):
    """Boundaries the random sample may straddle only rarely, checked one by one."""
    a100, h100, t4, v100 = (get_gpu(n) for n in ("a100", "h100", "t4", "v100"))
    cases = [
        (a100, launch_config(256, 32)),
        (a100, launch_config(1024, 64)),                                # regs per block exactly 65536
        (a100, launch_config(1024, 65)),                                # one register too many
        (a100, launch_config(96, 255)),                                 # 3 warps rounded up to 4 for the check
        (a100, launch_config(128, 0, 48 * 1024)),                       # 48 KB static + 1 KB reserved
        (a100, launch_config(128, 0, 0, 48 * 1024)),                    # 48 KB dynamic, no opt-in
        (a100, launch_config(128, 0, 0, 48 * 1024 + 1, optin=True)),
        (a100, launch_config(128, 0, 0, 163 * 1024, optin=True)),
        (a100, launch_config(128, 0, 0, 163 * 1024 + 1, optin=True)),
        (a100, launch_config(128, 0, 0, 100 * 1024, optin=99 * 1024)),  # above its own opt-in
        (a100, launch_config(128, 0, 0, 20 * 1024, carveout=0)),        # carveout grows to fit
        (a100, launch_config(128, 0, 0, 20 * 1024, carveout=25)),
        (h100, launch_config(64, 16, barriers=4)),                      # barriers bind
        (h100, launch_config(64, 16, barriers=2)),                      # barriers tie with the cap
        (h100, launch_config(64, 16, barriers=0)),
        (t4, launch_config(1024, 32, carveout=0)),
        (v100, launch_config(32, 0, carveout=0)),                       # no shared memory at all
        (v100, launch_config(1025, 8)),
    ]
    k40, gtx680, gtx750ti, gtx980, p100, gtx1080 = (
        get_gpu(n) for n in ("k40", "gtx680", "gtx750ti", "gtx980", "p100", "gtx1080"))
    cases += [
        (k40, launch_config(1024, 64)),                                 # exactly 64 K registers
        (k40, launch_config(1024, 65)),                                 # 2,304 per warp: too many
        (k40, launch_config(64, 16)),                                   # Kepler's cap of 16 blocks
        (k40, launch_config(128, 0, 48 * 1024)),                        # 48 KB, no reserve
        (k40, launch_config(128, 0, 48 * 1024 + 1)),                    # one byte over, no opt-in
        (k40, launch_config(128, 0, 0, 40 * 1024, optin=True)),         # opt-in means nothing here
        (gtx680, launch_config(256, 63)),
        (gtx750ti, launch_config(128, 0, 20 * 1024)),                   # 64 KB per SM: 3 blocks
        (gtx980, launch_config(128, 0, 24 * 1024 + 1)),                 # rounded to 256 B
        (gtx980, launch_config(32, 8)),                                 # Maxwell's cap of 32 blocks
        (p100, launch_config(256, 176)),                                # 2 sub-partitions: 1 block
        (p100, launch_config(288, 176)),                                # fits GP100, not GP10x: 0
        (p100, launch_config(320, 168)),
        (gtx1080, launch_config(288, 176)),
        (gtx1080, launch_config(96, 255)),
    ]
    header = run_driver(driver, [input_line(gpu, cfg) for gpu, cfg in cases])
    for (gpu, cfg), h in zip(cases, header):
        assert h.status == 0
        ours = occupancy(gpu, cfg, model="exact")
        assert (ours.blocks_per_sm, ours.limits, sorted(ours.limiter)) == (
            h.blocks, h.limits, sorted(header_limiter(h))), (gpu.name, cfg)
        assert ours.regs_per_block_allocated == h.regs_allocated
        assert ours.smem_per_block_allocated == h.smem_allocated


def random_variant(rng: random.Random) -> GPU:
    """A preset with some per-SM sizes changed, as a user's GPU file may do (cc stays the preset's).

    Sizes past the largest carveout make the header refuse the launch, which the engine must
    refuse too.
    """
    base = get_gpu(rng.choice(PRESETS))
    if not base.smem_carveout_kb:       # before cc 7.0: any size, no carveout, no opt-in
        smem_sm = rng.choice([16384, 32768, 49152, 65536, 98304, rng.randint(1, 114688)])
        return base.with_overrides(
            regs_per_sm=rng.choice([32768, 65536]), regs_per_block=rng.choice([32768, 65536]),
            max_warps_per_sm=rng.choice([32, 48, 64]), smem_per_sm=smem_sm,
            smem_per_block=rng.choice([16384, 49152]),
            smem_per_block_optin=rng.choice([49152, 98304]))
    top = base.smem_carveout_kb[-1] * 1024
    smem_sm = rng.choice([1024 * rng.choice(base.smem_carveout_kb or (64,)) or 1024,
                          rng.randint(1, top), top + rng.randint(1, 64 * 1024)])
    return base.with_overrides(
        regs_per_sm=rng.choice([32768, 65536]), regs_per_block=rng.choice([32768, 65536]),
        max_warps_per_sm=rng.choice([32, 48, 64]), smem_per_sm=smem_sm,
        smem_per_block=rng.choice([16384, 49152]),
        smem_per_block_optin=max(1, rng.choice([49152, smem_sm, top, top + 4096])
                                 - base.reserved_smem_per_block))


def test_exact_model_matches_header_on_modified_gpus(driver):
    rng = random.Random(SEED + 1)
    cases = []
    for _ in range(180):
        gpu = random_variant(rng)
        cases += [(gpu, within_table(gpu, random_config(rng))) for _ in range(12)]
    header = run_driver(driver, [input_line(gpu, cfg) for gpu, cfg in cases])
    refused = 0
    for (gpu, cfg), h in zip(cases, header):
        if h.status != 0:
            refused += 1
            with pytest.raises(QuizgenError):
                occupancy(gpu, cfg, model="exact")
            continue
        ours = occupancy(gpu, cfg, model="exact")
        assert (ours.blocks_per_sm, ours.regs_per_block_allocated, ours.smem_per_block_allocated,
                ours.limits, sorted(ours.limiter)) == (
            h.blocks, h.regs_allocated, h.smem_allocated, h.limits, sorted(header_limiter(h))), (
            gpu.to_dict(), cfg)
    # Both kinds of outcome occur, so both branches above were exercised.
    assert 50 < refused < len(cases) - 500, refused


def test_pre_volta_carveout_is_refused_and_ignored(driver):
    """Before cc 7.0 the header reads no carveout (Kepler's split is a cache config, Maxwell and
    Pascal have dedicated shared memory): its answer with a carveout is its answer without one,
    so the engine refuses a carveout there with one line instead of answering another question."""
    rng = random.Random(SEED + 2)
    old = [get_gpu(n) for n in PRESETS if get_gpu(n).cc_major < 7]
    cases = []
    for gpu in old:
        for _ in range(60):
            cfg = within_table(gpu, random_config(rng))
            cases.append((gpu, cfg, rng.choice([0, 25, 50, 100])))
    lines = []
    for gpu, cfg, c in cases:
        lines += [input_line(gpu, cfg), input_line(gpu, dataclasses.replace(cfg, carveout=c))]
    header = run_driver(driver, lines)
    for i, (gpu, cfg, c) in enumerate(cases):
        plain, asked = header[2 * i], header[2 * i + 1]
        assert asked == plain, (gpu.name, cfg, c)
        with pytest.raises(QuizgenError, match="carveout"):
            occupancy(gpu, dataclasses.replace(cfg, carveout=c), model="exact")


def test_the_header_does_not_cover_fermi(driver):
    """cuda_occupancy.h answers CUDA_OCC_ERROR_UNKNOWN_DEVICE for cc 2.0: the C2050's exact model
    is checked against NVIDIA's occupancy spreadsheet instead (test_old_sms.py)."""
    fermi = get_gpu("c2050")
    (h,) = run_driver(driver, [input_line(fermi, launch_config(256, 21))])
    assert h.status != 0
    assert occupancy(fermi, launch_config(256, 21), model="exact").blocks_per_sm == 5
