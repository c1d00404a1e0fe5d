"""Throughput of the exact occupancy model on its numeric path (no derivation).

Run: python3 bench/bench_occupancy.py [--n 50000] [--repeat 5]

Prints evaluations per second for `occupancy(..., model="exact")` over random launches on every
preset, next to a floor measured in the same run: a bare loop doing the exact model's integer
arithmetic inline (no dataclasses, no dicts, no result record). The ratio says how much of the
engine's time goes to building the result rather than to the arithmetic itself.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from quizgen.engine.occupancy import launch_config, occupancy  # noqa: E402
from quizgen.gpus import get_gpu, preset_names  # noqa: E402

TARGET = 50_000  # evaluations per second


def random_launches(n: int, seed: int = 1):
    rng = random.Random(seed)
    # the real GPUs from cc 7.0 (carveouts and opt-in draws apply to them all; the floor below
    # writes their arithmetic)
    gpus = [get_gpu(name) for name in preset_names() if get_gpu(name).cc_major >= 7]
    out = []
    for _ in range(n):
        optin_kind = rng.randrange(3)
        dyn = rng.choice([0, rng.randint(0, 48 * 1024), rng.randint(0, 160 * 1024)])
        cfg = launch_config(
            rng.choice([rng.randint(1, 1024), 32 * rng.randint(1, 32)]), rng.randint(0, 255),
            rng.choice([0, rng.randint(0, 48 * 1024)]), dyn,
            None if optin_kind == 0 else True if optin_kind == 1 else rng.randint(0, 200 * 1024),
            -1 if rng.random() < 0.5 else rng.randint(0, 100), rng.randint(0, 4))
        out.append((rng.choice(gpus), cfg))
    return out


def run_engine(cases) -> int:
    total = 0
    for gpu, cfg in cases:
        total += occupancy(gpu, cfg, model="exact").blocks_per_sm
    return total


def run_floor(cases) -> int:
    """The exact model's arithmetic, inline: the least work any implementation must do."""
    total = 0
    for gpu, cfg in cases:
        T, r = cfg.threads_per_block, cfg.regs_per_thread
        w = -(-T // 32)
        P = gpu.schedulers_per_sm
        by_warps = 0 if T > gpu.max_threads_per_block else gpu.max_warps_per_sm // w
        g = gpu.reg_alloc_unit
        rw = -(-(r * 32) // g) * g
        if r > gpu.max_regs_per_thread or rw * (-(-w // P) * P) > gpu.regs_per_block:
            by_regs = 0
        elif rw == 0:
            by_regs = 1 << 30
        else:
            by_regs = ((gpu.regs_per_sm // P) // rw * P) // w
        res = gpu.reserved_smem_per_block
        static = cfg.smem_per_block + res
        gs = gpu.smem_alloc_unit
        alloc = -(-(static + cfg.dyn_smem) // gs) * gs
        sizes = gpu.smem_carveout_kb
        want = gpu.smem_per_sm if cfg.carveout == -1 else cfg.carveout * gpu.smem_per_sm // 100
        pref = want
        for kb in sizes:
            if want <= kb * 1024:
                pref = kb * 1024
                break
        if cfg.optin is not None:
            limit = gpu.smem_per_block_optin if static + cfg.optin > gpu.smem_per_block else gpu.smem_per_block
        else:
            limit = gpu.smem_per_block
        if (cfg.optin is not None and cfg.dyn_smem > cfg.optin) or alloc > limit + res:
            by_smem = 0
        else:
            sm = pref
            if pref < alloc:
                for kb in sizes:
                    if alloc <= kb * 1024:
                        sm = kb * 1024
                        break
            by_smem = sm // alloc if alloc else 1 << 30
        blocks = min(by_regs, by_smem, by_warps, gpu.max_blocks_per_sm)
        if gpu.barriers_per_sm and cfg.barriers:
            blocks = min(blocks, gpu.barriers_per_sm // cfg.barriers)
        total += blocks
    return total


def best_rate(fn, cases, repeat: int) -> tuple[float, int]:
    best = float("inf")
    check = 0
    for _ in range(repeat):
        start = time.perf_counter()
        check = fn(cases)
        best = min(best, time.perf_counter() - start)
    return len(cases) / best, check


def measure(size: str = "full") -> list:
    """Rows for bench/run.py: the numeric path, and the whole JSON Lines batch path."""
    import io
    import json

    from common import Row, pick

    from quizgen.engine.batch import run_batch

    n = pick(size, 50_000, 20_000, 1_000)
    cases = random_launches(n)
    engine_rate, engine_sum = best_rate(run_engine, cases, 3)
    floor_rate, floor_sum = best_rate(run_floor, cases, 3)
    assert engine_sum == floor_sum, "the floor loop disagrees with the engine"
    lines = [json.dumps({"gpu": gpu.name, "threads_per_block": cfg.threads_per_block,
                         "regs_per_thread": cfg.regs_per_thread, "smem_per_block": cfg.smem_per_block,
                         "dyn_smem": cfg.dyn_smem, "optin": cfg.optin, "carveout": cfg.carveout,
                         "barriers": cfg.barriers}) + "\n" for gpu, cfg in cases]
    start = time.perf_counter()
    run_batch(lines, io.StringIO())
    batch_rate = n / (time.perf_counter() - start)
    start = time.perf_counter()
    for line in lines:
        json.dumps(json.loads(line))
    json_rate = n / (time.perf_counter() - start)
    return [
        Row("occupancy, exact model, numeric path", engine_rate, "configs/s",
            "the same integer arithmetic inline", floor_rate, "≥ 50,000/s", engine_rate >= TARGET),
        Row("occupancy --batch (JSON Lines in and out)", batch_rate, "configs/s",
            "JSON parse + dump of the same lines", json_rate, "≥ 50,000/s", batch_rate >= TARGET),
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=50_000, help="random launches per run")
    parser.add_argument("--repeat", type=int, default=5, help="runs; the best one counts")
    args = parser.parse_args()
    cases = random_launches(args.n)
    engine_rate, engine_sum = best_rate(run_engine, cases, args.repeat)
    floor_rate, floor_sum = best_rate(run_floor, cases, args.repeat)
    if engine_sum != floor_sum:
        print(f"the floor loop disagrees with the engine ({floor_sum} vs {engine_sum} blocks)")
        return 1
    rows = [("exact model, numeric path (configs/s)", engine_rate, floor_rate, floor_rate / engine_rate)]
    print(f"{'figure':<40} {'value':>12} {'floor':>12} {'floor/value':>12}")
    for name, value, floor, ratio in rows:
        print(f"{name:<40} {value:>12,.0f} {floor:>12,.0f} {ratio:>12.2f}")
    print(f"target ≥ {TARGET:,} configs/s: {'met' if engine_rate >= TARGET else 'MISSED'}")
    return 0 if engine_rate >= TARGET else 1


if __name__ == "__main__":
    raise SystemExit(main())
