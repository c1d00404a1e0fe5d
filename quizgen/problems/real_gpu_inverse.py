"""Level-3 design questions of L-1 and L-2.

L-1 asks the most registers per thread that make room for one more block; L-2 the largest
shared-memory tile that does. Both are the notes' (textbook) lids turned around, solved by
`quizgen.engine.inverse` so that the answer is checked by substitution, and only the closed-form
steps a student writes are shown.
"""

from __future__ import annotations

from quizgen.engine import inverse
from quizgen.engine.derivation import Step
from quizgen.engine.occupancy import LaunchConfig, launch_config


def _closed_form(steps: list[Step], keys: tuple[str, ...]) -> list[Step]:
    return [st for st in steps if st.key in keys]


def max_regs(gpu, threads_per_block: int, regs_per_thread: int, target_blocks: int):
    """The most registers per thread that keep `target_blocks` blocks (textbook model)."""
    res = inverse.max_regs_for_blocks(gpu, launch_config(threads_per_block, regs_per_thread),
                                      target_blocks, model="textbook")
    res.steps = _closed_form(res.steps, ("regs_lid", "answer"))
    return res


def textbook_max_regs(gpu, threads_per_block: int, target_blocks: int) -> int:
    return max_regs(gpu, threads_per_block, 1, target_blocks).answer


def max_smem(gpu, config: LaunchConfig, target_blocks: int):
    """The most shared memory per block that keeps `target_blocks` blocks (textbook model)."""
    res = inverse.max_smem_for_blocks(gpu, config, target_blocks, model="textbook")
    res.steps = _closed_form(res.steps, ("answer",))
    return res


def textbook_max_smem(gpu, threads_per_block: int, regs_per_thread: int, target_blocks: int) -> int:
    return max_smem(gpu, launch_config(threads_per_block, regs_per_thread, 1), target_blocks).answer
