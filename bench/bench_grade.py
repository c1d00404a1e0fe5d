"""Benchmark: grading 100,000 answers (target ≤ 5 s on one core), beside its floor.

    python3 bench/bench_grade.py [--answers 100000] [--end-to-end 10000] [--repeat 3]

A class is built from real generated problems (a pool per cell, handed out to students the way
versions are) and filled with a realistic mix: right answers written many ways, trap answers,
carried errors, blanks, unreadable and hostile text. Every timed run starts cold (nothing
remembered from an earlier run); the best of `--repeat` runs counts. Printed, as one table:

* grading: matching rows to students and grading every box (read, compare, carry, diagnose),
  without writing files — the figure the target is about — against the floor measured in the
  same run: reading the answer sheet (CSV decoding and splitting) plus a bare loop over the
  answers;
* reading alone: `parse_answer` on every answer text (its fast path for the common shapes and
  its cache), against the full reader alone on the same texts (no fast path, no cache);
* end to end: `grade_class` on a smaller class, with results.csv, one feedback page per student
  (worked solutions rendered) and report.md written, against grading alone of that class.

`measure(quick)` gives the same rows to ``bench/run.py``.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import random
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from common import Row, print_table  # noqa: E402

from quizgen.gpus import gpu_from_dict  # noqa: E402
from quizgen.grade.grader import (clear_caches, grade_class, grade_rows,  # noqa: E402
                                  read_answer_sheet)
from quizgen.grade.parse import parse_answer, parse_with_work  # noqa: E402
from quizgen.generator import family, generate_one  # noqa: E402

TARGET_S = 5.0

CELLS = (("OCC-1", 1), ("OCC-2", 2), ("OCC-3", 1), ("OCC-4", 1), ("L-1", 1), ("L-2", 1),
         ("X-1", 1), ("X-2", 1))
POOL = 60                         # distinct problems per cell
HOSTILE = ("__import__('os')", "9**9**9", "(" * 300 + "1" + ")" * 300, "rm -rf /", "$(id)")


def problem_pool() -> dict[str, list[dict]]:
    pool = {}
    for cell, level in CELLS:
        pool[cell] = []
        for seed in range(POOL):
            problem = generate_one(cell, level=level, seed=seed, lang="en").to_dict()
            fam = family(cell)
            gpu = gpu_from_dict(problem["gpu"])
            miscs = fam.misconceptions(problem["params"], gpu, fam.solve(problem["params"], gpu))
            problem["_traps"] = [m.answers for m in miscs]
            pool[cell].append(problem)
    return pool


def answer_text(rng: random.Random, q: dict, key: str) -> str:
    value = q["answers"][key]
    roll = rng.random()
    if isinstance(value, list):
        return " and ".join(value) if roll < 0.9 else "smem"
    if roll < 0.25:
        return str(value)
    if roll < 0.45:
        if key == "occupancy":
            return f"{value * 100:g}%"
        return f"{value} {q['units'].get(key, '')}".strip() if key != "regs_per_block" else f"{value:,}"
    if roll < 0.55 and key == "occupancy":
        return f"{q['answers']['active_warps']}/{q['gpu']['max_warps_per_sm']}"
    if roll < 0.75:
        traps = [t[key] for t in q["_traps"] if key in t and t[key] != value]
        if traps:
            return str(rng.choice(traps))
        return str(value + 1) if isinstance(value, int) else str(value)
    if roll < 0.85:
        return str(value + rng.choice((1, 2, -1))) if isinstance(value, int) else "0.3"
    if roll < 0.92:
        return ""
    if roll < 0.97:
        return rng.choice(("about eight", "8 blocks?", "1,5", "n/a"))
    return rng.choice(HOSTILE)


def build_class(pool: dict[str, list[dict]], answers: int, seed: int = 1):
    rng = random.Random(seed)
    per_student = sum(len(pool[c][0]["answers"]) for c, _ in CELLS)
    count = max(1, -(-answers // per_student))
    students = []
    columns: dict[str, None] = {}
    for i in range(count):
        questions = []
        for number, (cell, _) in enumerate(CELLS, start=1):
            problem = pool[cell][(i * 7 + number) % POOL]
            item = dict(problem)
            item.update(number=number, points=len(problem["answers"]), asked=list(problem["answers"]))
            item.pop("_traps")
            questions.append((item, problem["_traps"]))
            for key in problem["answers"]:
                columns[f"Q{number}.{key}"] = None
        students.append({"name": f"Student {i}", "roll": f"R{i:06d}", "version": f"V{i:06d}",
                         "questions": questions})
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["name", "roll", "version", *columns])
    total = 0
    for student in students:
        cells = {}
        for item, traps in student["questions"]:
            for key in item["asked"]:
                cells[f"Q{item['number']}.{key}"] = answer_text(rng, {**item, "_traps": traps}, key)
                total += 1
        writer.writerow([student["name"], student["roll"], student["version"],
                         *[cells.get(c, "") for c in columns]])
    manifest = {"recipe": {"title": "Benchmark", "lang": "en"},
                "students": [{**s, "questions": [q for q, _ in s["questions"]]} for s in students]}
    return manifest, buf.getvalue(), total


def _best(fn, repeat: int) -> tuple[float, float, object]:
    """Best wall time and its CPU time over `repeat` cold runs, and the last result."""
    best = (float("inf"), float("inf"))
    result = None
    for _ in range(repeat):
        clear_caches()
        wall, cpu = time.perf_counter(), time.process_time()
        result = fn()
        best = min(best, (time.perf_counter() - wall, time.process_time() - cpu))
    return best[0], best[1], result


def run(answers: int = 100_000, end_to_end: int = 10_000, repeat: int = 3) -> dict:
    """Every figure and floor of this benchmark, measured in one run."""
    out: dict = {}
    t0 = time.perf_counter()
    pool = problem_pool()
    manifest, sheet_text, total = build_class(pool, answers)
    out.update(students=len(manifest["students"]), answers=total,
               setup_s=time.perf_counter() - t0)

    with tempfile.TemporaryDirectory() as tmp:
        sheet_path = Path(tmp) / "answers.csv"
        sheet_path.write_text(sheet_text, encoding="utf-8")

        def read_and_loop():
            sheet = read_answer_sheet(sheet_path)
            n = 0
            for row in sheet.rows:
                for _cell in row.cells[3:]:
                    n += 1
            return sheet, n

        out["floor_s"], _, (sheet, looped) = _best(read_and_loop, repeat)
        assert looped == total, (looped, total)
        texts = [c for row in sheet.rows for c in row.cells[3:]]

        out["parse_s"], _, _ = _best(lambda: [parse_answer(t) for t in texts], repeat)
        out["full_reader_s"], _, _ = _best(lambda: [parse_with_work(t) for t in texts], 1)

        out["grade_s"], out["grade_cpu_s"], (students, _, unmatched) = _best(
            lambda: grade_rows(manifest, sheet, invalid="flag"), repeat)
        graded = sum(len(s.boxes) for s in students)
        assert graded == total and not unmatched, (graded, total, len(unmatched))
        statuses: dict[str, int] = {}
        for s in students:
            for b in s.boxes:
                statuses[b.check.status] = statuses.get(b.check.status, 0) + 1
        out["statuses"] = statuses

        small, small_text, small_total = build_class(pool, end_to_end, seed=2)
        mpath = Path(tmp) / "manifest.json"
        mpath.write_text(json.dumps(small), encoding="utf-8")
        apath = Path(tmp) / "small.csv"
        apath.write_text(small_text, encoding="utf-8")
        small_sheet = read_answer_sheet(apath)
        out["small_answers"] = small_total
        out["small_grade_s"], _, _ = _best(lambda: grade_rows(small, small_sheet), repeat)
        runs = iter(range(repeat))
        out["e2e_s"], _, summary = _best(
            lambda: grade_class(mpath, apath, Path(tmp) / f"out{next(runs)}"), repeat)
        out["small_students"] = len(summary.students)
    return out


def rows(m: dict) -> list[Row]:
    n, small = m["answers"], m["small_answers"]
    return [
        Row(f"grading {n:,} answers (no files)", m["grade_s"], "s",
            "reading the CSV + a bare loop over the answers", m["floor_s"],
            f"≤ {TARGET_S:g} s", m["grade_s"] <= TARGET_S),
        Row(f"parse_answer on the same {n:,} texts", m["parse_s"], "s",
            "the full reader alone (no fast path, no cache)", m["full_reader_s"], "—", True),
        Row(f"grade_class end to end, {small:,} answers, files written", m["e2e_s"], "s",
            "grading the same class, no files", m["small_grade_s"], "—", True),
    ]


def measure(size: str = "full") -> list[Row]:
    """Rows for bench/run.py (the grading target is about 100,000 answers, full or quick)."""
    from common import pick

    return rows(run(pick(size, 100_000, 100_000, 3_000), pick(size, 10_000, 2_000, 300),
                    pick(size, 3, 1, 1)))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--answers", type=int, default=100_000)
    ap.add_argument("--end-to-end", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=3, help="cold runs per figure; the best counts")
    args = ap.parse_args()

    t = time.perf_counter()
    total_loop = 0
    for i in range(10_000_000):
        total_loop += i
    print(f"machine: a 10-million-step Python loop takes {time.perf_counter() - t:.2f} s "
          "(about 0.34 s on an idle desktop core; scale the figures below by it)")
    m = run(args.answers, args.end_to_end, args.repeat)
    print(f"setup: {m['students']} students, {m['answers']:,} answers "
          f"({m['setup_s']:.1f} s, not timed)")
    print(f"grading: {m['answers'] / m['grade_s']:,.0f} answers/s "
          f"(CPU time of the best run {m['grade_cpu_s']:.2f} s); statuses: "
          + ", ".join(f"{k} {v}" for k, v in sorted(m["statuses"].items())))
    print(f"end to end: {m['small_students']} students, "
          f"{m['small_answers'] / m['e2e_s']:,.0f} answers/s with every file written")
    print()
    print_table(rows(m))


if __name__ == "__main__":
    main()
