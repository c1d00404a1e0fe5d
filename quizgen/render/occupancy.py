"""The worked solution of an occupancy calculation (used by the calculator and the OCC/L/X families)."""

from __future__ import annotations

from quizgen.engine.occupancy import OccupancyResult
from quizgen.gpus import GPU
from quizgen.problems.model import Solution
from quizgen.render.phrases import phrase
from quizgen.render.solution import occupancy_verify, solution_steps


def limiter_text(result: OccupancyResult, lang: str) -> str:
    return " + ".join(phrase(lang, "label", name) for name in result.limiter)


def occupancy_answer(result: OccupancyResult, lang: str) -> str:
    text = phrase(lang, "occupancy-answer", "answer",
                  {"B": result.blocks_per_sm, "A": result.active_warps,
                   "W_max": result.max_warps_per_sm, "occ": result.occupancy,
                   "limiter": limiter_text(result, lang)})
    if result.launch_fails:
        text += " " + phrase(lang, "label", "launch_fails")
    return text


def occupancy_solution(result: OccupancyResult, gpu: GPU, lang: str, *, salt: str = "",
                       forecast: str = "", trap: str = "") -> Solution:
    steps = solution_steps(result.steps, lang, salt=salt, gpu=gpu.to_dict())
    verify = occupancy_verify(result, gpu, lang, salt=salt)
    return Solution(forecast=forecast, steps=steps, verify=verify,
                    answer=occupancy_answer(result, lang), trap=trap)
