"""Which model a question that names a real GPU uses (CELLS.md, *Physics*: "Which model").

Cells built on the notes' formulas (OCC-1…9, L-1, L-2) keep the textbook model on a real GPU, but
then the question says so in its own text and the solution shows the exact answer (NVIDIA's
allocation rules) beside the textbook one, so that a textbook number is never presented as a real
chip's behaviour. These helpers compute that exact answer and write the two sentences.
"""

from __future__ import annotations

from typing import Any

from quizgen.engine.occupancy import LaunchConfig, OccupancyResult, occupancy
from quizgen.gpus import GPU
from quizgen.render.phrases import phrase

SECTION = "real-gpu"


def names_real_gpu(gpu: GPU, model: str | None) -> bool:
    """A real GPU answered with the textbook model: the case that needs the caveat."""
    return model == "textbook" and not gpu.is_textbook


def question_note(gpu: GPU, lang: str, salt: str) -> str:
    """The sentence a question adds: it uses the textbook model; the exact answer is given too."""
    return phrase(lang, SECTION, "question", {"name": gpu.spoken_name}, salt=salt)


def occupancy_text(res: OccupancyResult, lang: str) -> str:
    if res.blocks_per_sm == 0:
        return phrase(lang, SECTION, "exact_none", {})
    return phrase(lang, SECTION, "exact_occ", {"B": res.blocks_per_sm, "A": res.active_warps,
                                               "occ": res.occupancy})


def answer_note(gpu: GPU, lang: str, salt: str, *, exact: str, book: str, same: bool,
                reserve: bool = False) -> str:
    """The sentence the Answer adds: the exact model's answer, the same or beside the textbook one."""
    ctx = {"name": gpu.spoken_name, "exact": exact, "book": book, "reserve": reserve}
    return phrase(lang, SECTION, "answer_same" if same else "answer_differs", ctx, salt=salt)


def exact_occupancy(gpu: GPU, config: LaunchConfig) -> OccupancyResult:
    return occupancy(gpu, config, model="exact")


def occupancy_note(gpu: GPU, config: LaunchConfig, book: OccupancyResult, lang: str,
                   salt: str) -> str:
    """Answer note for an occupancy question: blocks, warps and occupancy under both models."""
    exact = exact_occupancy(gpu, config)
    same = (exact.blocks_per_sm, exact.active_warps) == (book.blocks_per_sm, book.active_warps)
    reserve = bool(gpu.reserved_smem_per_block) and bool(config.smem_per_block + config.dyn_smem)
    return answer_note(gpu, lang, salt, exact=occupancy_text(exact, lang),
                       book=occupancy_text(book, lang), same=same, reserve=reserve)


def largest_exact_block(gpu: GPU, config_for: Any) -> int:
    """The largest multiple of 32 threads of which at least one block fits under the exact model
    (0 when none does); `config_for(T)` builds the launch for a block of T threads."""
    for T in range(gpu.max_threads_per_block // 32 * 32, 0, -32):
        if occupancy(gpu, config_for(T), model="exact").blocks_per_sm >= 1:
            return T
    return 0
