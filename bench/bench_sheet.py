"""Benchmark: a 300-student exam (exam.pdf, key.pdf, manifest, answer sheet), end to end, against
Typst alone compiling the same documents (the floor); and the scale of `quizgen sheet`: peak
memory of the whole process tree for 1,000 students and time for 500 against 1,000.

    python3 bench/bench_sheet.py [--students 300] [--repeat 3]
    python3 bench/bench_sheet.py --scale 500,1000

Problems come from ``quizgen.generator.generate_one`` when it serves every cell of the exam below,
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

from quizgen.export.sheet import build_exam, compile_typst, plan_exam  # noqa: E402
from quizgen.recipes import Student, parse_exam_recipe  # noqa: E402

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
        from quizgen.generator import generate_one

        for q in recipe.questions:
            generate_one(q.cell, level=q.level, seed=1, lang=recipe.lang, gpu=q.gpu or recipe.gpu)
        return generate_one, "quizgen.generator.generate_one"
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
            chunks = _chunk_documents(recipe, roster, generate)
            plans.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            for source, data in chunks:   # the same chunks build_exam compiles, one process
                compile_typst(source, data, ())
            floors.append(time.perf_counter() - t0)
        from pypdf import PdfReader

        exam_pages = len(PdfReader(result.exam_pdf).pages)
        key_pages = len(PdfReader(result.key_pdf).pages)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return min(ends), min(floors), min(plans), exam_pages, key_pages, source


def _chunk_documents(recipe, roster, generate) -> list[tuple[str, str]]:
    """The Typst documents `build_exam` compiles for this class: each chunk's exam and key."""
    from quizgen.export import sheet

    exam = sheet.build._Exam(recipe, roster, None, generate=generate, paper="a4", practice=False,
                       font_paths=())
    out = []
    for start in range(0, len(exam), sheet.CHUNK):
        entries = exam.entries(range(start, min(start + sheet.CHUNK, len(exam))))
        out.append((exam.exam_source, exam.exam_data(entries)))
        out.append((exam.key_source, exam.key_data(entries, None)))
    return out


def _tree_rss_kb(pid: int) -> int:
    """Resident memory of a process and all its descendants, in KB (Linux /proc)."""
    total, todo = 0, [pid]
    while todo:
        current = todo.pop()
        try:
            status = Path(f"/proc/{current}/status").read_text()
            total += int(status.split("VmRSS:")[1].split()[0])
            for task in Path(f"/proc/{current}/task").iterdir():
                todo.extend(int(c) for c in (task / "children").read_text().split())
        except (OSError, IndexError, ValueError):
            continue
    return total


def scale(students: int) -> tuple[float, float, float]:
    """(wall seconds, CPU seconds, peak MB) of `quizgen sheet --versions N` as a user runs it.

    CPU time (user + system, of the command and every process it started) is the steadier
    figure on a shared machine; peak memory is the largest sum of the resident memory of the
    command and its compile processes, sampled every 50 ms.
    """
    import os
    import subprocess

    work = Path(tempfile.mkdtemp(prefix="bench-sheet-scale-"))
    try:
        args = [sys.executable, "-m", "quizgen", "sheet", "--versions", str(students),
                "--out", str(work / "exam")]
        start = time.perf_counter()
        proc = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        peak = 0
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid == proc.pid:
                break
            peak = max(peak, _tree_rss_kb(proc.pid))
            time.sleep(0.05)
        seconds = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        err = proc.stderr.read().decode("utf-8", "replace")
        if proc.returncode != 0:
            raise RuntimeError(f"quizgen sheet failed: {err[-2000:]}")
        return seconds, usage.ru_utime + usage.ru_stime, peak / 1024
    finally:
        shutil.rmtree(work, ignore_errors=True)


def measure(size: str = "full") -> list:
    """Rows for bench/run.py."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from common import Row, pick

    students = pick(size, 300, 60, 3)
    figure, floor, _, _, _, _ = run(students, pick(size, 2, 1, 1))
    rows = [Row(f"exam: {students} students, exam + key + manifest", figure, "s",
                "Typst alone compiling the same documents", floor, "≤ 1.5 × floor", figure <= 1.5 * floor)]
    small, large = pick(size, (500, 1000), (100, 200), (4, 8))
    _, small_cpu, small_peak = scale(small)
    _, large_cpu, large_peak = scale(large)
    rows.append(Row(f"exam peak memory: {large:,} students (process tree)", large_peak, "MB",
                    f"{small:,} students", small_peak, "< 1,000 MB", large_peak < 1000))
    rows.append(Row(f"exam CPU time: {large:,} students", large_cpu, "s", f"{small:,} students",
                    small_cpu, "≤ 2.2 × floor", large_cpu <= 2.2 * small_cpu))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--scale", help="comma-separated class sizes: time and peak memory of "
                                        "quizgen sheet for each")
    args = parser.parse_args()
    if args.scale:
        for students in (int(n) for n in args.scale.split(",")):
            seconds, cpu, peak = scale(students)
            print(f"quizgen sheet --versions {students}: {seconds:7.1f} s wall, {cpu:7.1f} s CPU, "
                  f"peak memory {peak:6.0f} MB (process tree)", flush=True)
        return
    figure, floor, planning, exam_pages, key_pages, source = run(args.students, args.repeat)
    print(f"exam sheet, {args.students} students × {len(RECIPE['questions'])} questions "
          f"({exam_pages} exam pages, {key_pages} key pages); problems from {source}")
    print(f"  end to end (problems, manifest, CSV, both PDFs, atomic write): {figure:7.2f} s")
    print(f"  floor (Typst alone compiling the same exam and key):          {floor:7.2f} s")
    print(f"  ratio: {figure / floor:.2f}× the floor   (drawing problems and preparing data: "
          f"{planning:.2f} s)")


if __name__ == "__main__":
    main()
