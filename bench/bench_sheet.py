"""Benchmark: a 300-student exam (exam.pdf, key.pdf, manifest, answer sheet), end to end, against
Typst alone compiling the same two documents (the floor).

    python3 bench/bench_sheet.py [--students 300] [--repeat 3]

Problems come from ``quizgen.problems.generate_one`` when it serves every cell of the exam below,
else from a small generator over the occupancy engine (the same one the tests use).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from quizgen.export.sheet import (Student, build_exam, compile_typst, parse_exam_recipe,  # noqa: E402
                                  plan_exam)

RECIPE = {
    "title": "GPU Architecture — Midterm", "course": "CS 433", "date": "2025-10-14",
    "duration": "75 minutes", "instructions": "Answer in the boxes; show your working.",
    "lang": "en", "seed": 2025,
    "questions": [
        {"cell": "OCC-1", "level": 1, "points": 4},
        {"cell": "OCC-2", "level": 2, "points": 6, "answers": ["blocks_per_sm", "occupancy"]},
        {"cell": "OCC-3", "level": 2, "points": 6},
        {"cell": "OCC-4", "level": 3, "points": 4},
    ],
}


def _generator(recipe):
    try:
        from quizgen.problems import generate_one

        for q in recipe.questions:
            generate_one(q.cell, level=q.level, seed=1, lang=recipe.lang, gpu=q.gpu or recipe.gpu)
        return generate_one, "quizgen.problems.generate_one"
    except Exception:   # the families are not all there: fall back to the engine-only generator
        sys.path.insert(0, str(ROOT / "tests"))
        from test_sheet import occupancy_problem

        return occupancy_problem, "occupancy engine (tests/test_sheet.py)"


def run(students: int, repeat: int) -> tuple[float, float, float, int, int, str]:
    """(end to end, floor, planning, exam pages, key pages, problem source), best of `repeat`."""
    recipe = parse_exam_recipe(RECIPE)
    generate, source = _generator(recipe)
    roster = [Student(f"Student {i:03d}", roll=f"R{i:04d}") for i in range(students)]
    warnings.simplefilter("ignore")
    plan_exam(recipe, roster[:2], None, generate=generate)  # warm-up: imports, fonts
    work = Path(tempfile.mkdtemp(prefix="bench-sheet-"))
    try:
        ends, floors, plans = [], [], []
        for i in range(repeat):
            t0 = time.perf_counter()
            result = build_exam(recipe, roster, None, work / f"run{i}", generate=generate)
            ends.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            plan = plan_exam(recipe, roster, None, generate=generate)
            plans.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            compile_typst(plan.exam_source, plan.exam_data, plan.font_paths)
            compile_typst(plan.key_source, plan.key_data, plan.font_paths)
            floors.append(time.perf_counter() - t0)
        from pypdf import PdfReader

        exam_pages = len(PdfReader(result.exam_pdf).pages)
        key_pages = len(PdfReader(result.key_pdf).pages)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return min(ends), min(floors), min(plans), exam_pages, key_pages, source


def measure(size: str = "full") -> list:
    """Rows for bench/run.py."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from common import Row, pick

    students = pick(size, 300, 60, 3)
    figure, floor, _, _, _, _ = run(students, pick(size, 2, 1, 1))
    return [Row(f"exam: {students} students, exam + key + manifest", figure, "s",
                "Typst alone compiling the same documents", floor, "≤ 1.5 × floor", figure <= 1.5 * floor)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    figure, floor, planning, exam_pages, key_pages, source = run(args.students, args.repeat)
    print(f"exam sheet, {args.students} students × {len(RECIPE['questions'])} questions "
          f"({exam_pages} exam pages, {key_pages} key pages); problems from {source}")
    print(f"  end to end (problems, manifest, CSV, both PDFs, atomic write): {figure:7.2f} s")
    print(f"  floor (Typst alone compiling the same exam and key):          {floor:7.2f} s")
    print(f"  ratio: {figure / floor:.2f}× the floor   (drawing problems and preparing data: "
          f"{planning:.2f} s)")


if __name__ == "__main__":
    main()
