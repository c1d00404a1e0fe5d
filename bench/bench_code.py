"""The engine for code over thread indices: a condition evaluated for every thread of a grid and
counted warp by warp (`quizgen.engine.branches.branching`, what ``quizgen divergence --if`` and
the D-cells run).

    python3 bench/bench_code.py [--blocks 1000]

Prints the seconds for a 1,024-thread block × 1,000 blocks (the best of three), next to a floor
measured in the same run: NumPy alone computing the same condition for the same threads, with
no parsing, no C rules and no per-warp counting. Target: well under a second (≤ 0.5 s on the
reference machine).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

CONDITION = "i < n && (i % 3 == 0 || threadIdx.x < 40)"
TARGET_S = 0.5


def engine(blocks: int) -> int:
    from quizgen.engine import branches as br
    from quizgen.engine import threads as th

    code = th.code(th.launch(1024, blocks), ["int i = blockIdx.x * blockDim.x + threadIdx.x",
                                             f"int n = {1024 * blocks - 1000}"])
    return br.branching(code, CONDITION).threads_taking


def floor(blocks: int) -> int:
    import numpy as np

    i = np.arange(1024 * blocks, dtype=np.int64)
    n = 1024 * blocks - 1000
    return int(((i < n) & ((i % 3 == 0) | (i % 1024 < 40))).sum())


def measure(size: str = "full") -> list:
    from common import Row, best_of, pick

    blocks = pick(size, 1000, 1000, 20)
    assert engine(blocks) == floor(blocks), "the engine and the floor disagree"
    seconds = best_of(lambda: engine(blocks), 3)
    floor_s = best_of(lambda: floor(blocks), 3)
    return [Row(f"code engine: a condition over 1,024 × {blocks:,} threads, warp by warp", seconds,
                "s", "NumPy alone, the same condition", floor_s, f"≤ {TARGET_S} s",
                seconds <= TARGET_S)]


if __name__ == "__main__":
    from common import print_table

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--blocks", type=int, default=1000)
    args = parser.parse_args()
    print_table(measure("full" if args.blocks == 1000 else "smoke"))
