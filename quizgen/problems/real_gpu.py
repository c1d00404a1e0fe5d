"""Which model a question that names a real GPU uses (CELLS.md, *Physics*: "Which model").

Cells built on the notes' formulas (OCC-1…9, L-1, L-2) keep the textbook model on a real GPU, but
then the question says so in its own text and the solution shows the exact answer (NVIDIA's
allocation rules) beside the textbook one, so that a textbook number is never presented as a real
chip's behaviour. These helpers say when that is the case and compute the exact answer; the two
sentences are the render layer's (``render/writers/real_gpu.py``).
"""

from __future__ import annotations

from typing import Any

from quizgen.engine.occupancy import LaunchConfig, OccupancyResult, occupancy
from quizgen.gpus import GPU


def names_real_gpu(gpu: GPU, model: str | None) -> bool:
    """A real GPU answered with the textbook model: the case that needs the caveat."""
    return model == "textbook" and not gpu.is_textbook


def exact_occupancy(gpu: GPU, config: LaunchConfig) -> OccupancyResult:
    return occupancy(gpu, config, model="exact")


def largest_exact_block(gpu: GPU, config_for: Any) -> int:
    """The largest multiple of 32 threads of which at least one block fits under the exact model
    (0 when none does); `config_for(T)` builds the launch for a block of T threads."""
    for T in range(gpu.max_threads_per_block // 32 * 32, 0, -32):
        if occupancy(gpu, config_for(T), model="exact").blocks_per_sm >= 1:
            return T
    return 0
