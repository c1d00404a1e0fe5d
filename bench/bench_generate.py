"""Problems generated, solved and rendered with worked solutions per second (one core)."""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import Row, pick, print_table  # noqa: E402


def _jobs(n: int, first_seed: int = 0):
    from quizgen.problems import CELLS

    return [(CELLS[i % len(CELLS)], 1 + (i // len(CELLS)) % 3, first_seed + i // (3 * len(CELLS)))
            for i in range(n)]


def measure(size: str = "full") -> list[Row]:
    from quizgen.gpus import gpu_from_dict
    from quizgen.generator import family, generate_one
    from quizgen.render.text import render_solution

    n = pick(size, 12000, 3000, 200)
    rows = []
    for lang in ("hinglish", "en"):
        jobs = _jobs(n)
        # Warm-up: the pools of every cell and level and the compiled phrases (a one-off per process).
        for cell, level, _ in _jobs(31 * 3):
            generate_one(cell, level=level, seed=0, lang=lang)
        # Problems are streamed, as a deck or an exam uses them (none is kept). Three rounds of
        # distinct problems (each round its own seeds); the fastest round counts, since this
        # machine's speed drifts.
        gen = float("inf")
        for round_ in range(3):
            seeds_per_round = n // (3 * 31) + 1
            batch = jobs if round_ == 0 else _jobs(n, first_seed=round_ * seeds_per_round)
            start = time.perf_counter()
            for c, lv, s in batch:
                generate_one(c, level=lv, seed=s, lang=lang)
            gen = min(gen, time.perf_counter() - start)
        sample = [generate_one(c, level=lv, seed=s, lang=lang) for c, lv, s in jobs[: n // 4]]
        start = time.perf_counter()
        for p in sample:
            render_solution(p.solution, lang, "md", title=p.title, question=p.question)
        md = (time.perf_counter() - start) * 4
        # Floor: the engine alone solving the same parameters (numbers only: no words, no steps).
        cases = [(family(p.cell), p.params, gpu_from_dict(p.gpu)) for p in sample]
        start = time.perf_counter()
        for fam, params, gpu in cases:
            fam.solve(params, gpu, explain=False)
        floor = (time.perf_counter() - start) * 4
        rate = n / gen
        rows.append(Row(f"generate + solve + worked solution ({lang})", rate, "problems/s",
                        "the engine alone solving them (numbers only)", n / floor,
                        "≥ 3,000/s", rate >= 3000))
        both = n / (gen + md)
        rows.append(Row(f"… and printed as Markdown ({lang})", both, "problems/s",
                        "the engine alone solving them (numbers only)", n / floor, "—", True))
    return rows


if __name__ == "__main__":
    print_table(measure("quick" if "--quick" in sys.argv else "full"))
