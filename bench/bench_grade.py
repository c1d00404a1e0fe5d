"""Benchmark: answers graded per second, on a class of 100,000 answer boxes.

    python3 bench/bench_grade.py [--answers 100000] [--end-to-end 10000]

A class is built from real generated problems (a pool per cell, handed out to students the way
versions are) and filled with a realistic mix: right answers written many ways, trap answers,
carried errors, blanks, unreadable and hostile text. Printed:

* floor 1: reading the answer sheet alone (CSV decoding and splitting);
* floor 2: `parse_answer` alone on every answer text (no cache);
* grading: matching rows to students and grading every box (read, compare, carry, diagnose),
  without writing files — the figure the target (100,000 answers in ≤ 5 s) is about;
* end to end: `grade_class` on a smaller class, with results.csv, one feedback page per student
  (worked solutions rendered) and report.md written.
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

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from quizgen.gpus import gpu_from_dict  # noqa: E402
from quizgen.grade.grader import grade_class, grade_rows, read_answer_sheet  # noqa: E402
from quizgen.grade.parse import parse_answer  # noqa: E402
from quizgen.problems import family, generate_one  # noqa: E402

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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--answers", type=int, default=100_000)
    ap.add_argument("--end-to-end", type=int, default=10_000)
    args = ap.parse_args()

    t = time.perf_counter()
    total_loop = 0
    for i in range(10_000_000):
        total_loop += i
    print(f"machine: a 10-million-step Python loop takes {time.perf_counter() - t:.2f} s "
          "(about 0.4 s on an idle desktop core; scale the figures below by it)")

    t0 = time.perf_counter()
    pool = problem_pool()
    manifest, sheet_text, total = build_class(pool, args.answers)
    print(f"setup: {len(manifest['students'])} students, {total} answers "
          f"({time.perf_counter() - t0:.1f} s, not timed below)")

    with tempfile.TemporaryDirectory() as tmp:
        sheet_path = Path(tmp) / "answers.csv"
        sheet_path.write_text(sheet_text, encoding="utf-8")

        t = time.perf_counter()
        sheet = read_answer_sheet(sheet_path)
        read_s = time.perf_counter() - t
        texts = [c for row in sheet.rows for c in row.cells[3:]]

        t = time.perf_counter()
        for text in texts:
            parse_answer(text)
        parse_s = time.perf_counter() - t

        t = time.perf_counter()
        students, issues, unmatched = grade_rows(manifest,
                                                 sheet, invalid="flag")
        grade_s = time.perf_counter() - t
        graded = sum(len(s.boxes) for s in students)
        assert graded == total and not unmatched, (graded, total, len(unmatched))
        statuses: dict[str, int] = {}
        for s in students:
            for b in s.boxes:
                statuses[b.check.status] = statuses.get(b.check.status, 0) + 1

        print(f"floor, reading the CSV alone:   {read_s:6.2f} s  ({total / read_s:>10,.0f} answers/s)")
        print(f"floor, parse_answer alone:      {parse_s:6.2f} s  ({total / parse_s:>10,.0f} answers/s)")
        print(f"grading (match, read, compare, carry, diagnose; no files):")
        print(f"                                {grade_s:6.2f} s  ({total / grade_s:>10,.0f} answers/s)"
              f"  target: {total:,} in ≤ 5 s → {'met' if grade_s <= 5 else 'NOT met'}")
        print("  statuses: " + ", ".join(f"{k} {v}" for k, v in sorted(statuses.items())))

        small, small_text, small_total = build_class(pool, args.end_to_end, seed=2)
        mpath = Path(tmp) / "manifest.json"
        mpath.write_text(json.dumps(small), encoding="utf-8")
        apath = Path(tmp) / "small.csv"
        apath.write_text(small_text, encoding="utf-8")
        t = time.perf_counter()
        summary = grade_class(mpath, apath, Path(tmp) / "out")
        e2e_s = time.perf_counter() - t
        print(f"end to end (grade_class, {len(summary.students)} students, {small_total} answers, "
              f"files written): {e2e_s:.2f} s  ({small_total / e2e_s:,.0f} answers/s)")


if __name__ == "__main__":
    main()
