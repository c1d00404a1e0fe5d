"""Grading a class holds memory flat in its students: a class twice the size is graded in about
the same memory, as a user runs it (``python -m quizgen grade``, its own peak measured by the
kernel), and the answer sheet is never held whole.

What a larger class may add, a student at a time, is the grade's own record of each paper (a few
hundred bytes) and the fairness fit's rows (a few KB: the statistics need every student's
boxes); the rest (what grading remembers, the sheet, the writers) stays within bounds set by
design. Before it was so, a student added about 17 KB at a thousand students, and more in a
small class: every paper's results as objects, every problem's texts remembered without a
common bound, the sheet read whole.
"""

from __future__ import annotations

import csv
import json
import os
import random
import subprocess
import sys
import tracemalloc
from pathlib import Path

import pytest

from quizgen.generator import generate_one

#: Students of the smaller class (the larger has twice as many).
STUDENTS = 300
#: The most a student of the larger class may add to the peak, in KB (the fit's rows and the
#: papers' record come to about 8; a sheet held whole adds its 16 KB remark alone).
GROWTH_KB = 15
#: One cell per question, a few versions of each, drawn as a sheet hands them out.
CELLS = (("OCC-1", 1), ("OCC-2", 2), ("L-1", 1), ("X-1", 1))
VERSIONS = 3
#: A remark a teacher pasted beside each student's answers (a column quizgen does not read).
REMARK = 16 * 1024


def _pool() -> dict[str, list[dict]]:
    return {cell: [generate_one(cell, level=level, seed=seed, lang="en").to_dict()
                   for seed in range(VERSIONS)] for cell, level in CELLS}


def _answer(rng: random.Random, value) -> str:
    """A realistic mix: right (as typed two ways), off by one, blank, unreadable."""
    roll = rng.random()
    if isinstance(value, list):
        return " and ".join(value) if roll < 0.8 else "smem"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    if roll < 0.4:
        return str(value)
    if roll < 0.55:
        return f"{value * 100:g}%" if isinstance(value, float) and value <= 1 else f"{value:,}"
    if roll < 0.8:
        return str(value + rng.choice((1, 2, -1)))
    if roll < 0.9:
        return ""
    return rng.choice(("about eight", "8 blocks?", "1,5", "n/a"))


def write_class(folder: Path, students: int, pool: dict[str, list[dict]]) -> None:
    """manifest.json and answers.csv of a class of `students` into `folder`."""
    rng = random.Random(7)
    papers, columns = [], {}
    for i in range(students):
        questions = []
        for number, (cell, _) in enumerate(CELLS, start=1):
            problem = dict(pool[cell][rng.randrange(VERSIONS)])
            problem.update(number=number, points=len(problem["answers"]),
                           asked=list(problem["answers"]))
            questions.append(problem)
            columns.update((f"Q{number}.{key}", None) for key in problem["answers"])
        papers.append({"name": f"Student {i}", "roll": f"R{i:05d}", "version": f"V{i:05d}",
                       "questions": questions})
    (folder / "manifest.json").write_text(json.dumps(
        {"recipe": {"title": "Memory", "lang": "en"}, "students": papers}), encoding="utf-8")
    with open(folder / "answers.csv", "w", encoding="utf-8", newline="") as fh:
        out = csv.writer(fh)
        out.writerow(["name", "roll", "version", *columns, "remarks"])
        for paper in papers:
            cells = {f"Q{q['number']}.{key}": _answer(rng, value)
                     for q in paper["questions"] for key, value in q["answers"].items()}
            remark = f"{paper['name']}: " + "wrote the working in the margin; " * (REMARK // 32)
            out.writerow([paper["name"], paper["roll"], paper["version"],
                          *[cells.get(c, "") for c in columns], remark])


def peak_kb(folder: Path, *args: str) -> int:
    """`python -m quizgen grade` of the class in `folder`: its peak resident memory, in KB."""
    proc = subprocess.Popen([sys.executable, "-m", "quizgen", "grade", "manifest.json",
                             "answers.csv", "--out", "graded", "-q", *args], cwd=folder,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)      # this child's own peak, not the session's
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode("utf-8", "replace")
    proc.stderr.close()
    assert proc.returncode == 0, err
    assert (folder / "graded" / "results.csv").is_file()
    return usage.ru_maxrss


@pytest.fixture(scope="module")
def classes(tmp_path_factory) -> tuple[Path, Path]:
    pool = _pool()
    small, large = tmp_path_factory.mktemp("small"), tmp_path_factory.mktemp("large")
    write_class(small, STUDENTS, pool)
    write_class(large, 2 * STUDENTS, pool)
    return small, large


def test_a_class_twice_as_large_is_graded_in_about_the_same_memory(classes):
    small, large = classes
    floor, peak = peak_kb(small, "--format", "md"), peak_kb(large, "--format", "md")
    per_student = (peak - floor) / STUDENTS
    assert per_student <= GROWTH_KB, (
        f"{STUDENTS} more students took {(peak - floor) / 1024:.1f} MB more "
        f"({per_student:.1f} KB a student; peaks {floor / 1024:.1f} and {peak / 1024:.1f} MB)")


def test_the_answer_sheet_is_read_a_row_at_a_time(classes):
    """Opening a sheet of megabytes holds none of its rows; going through them holds one."""
    from quizgen.grade.sheet import read_answer_sheet

    path = classes[1] / "answers.csv"
    size = path.stat().st_size
    tracemalloc.start()
    try:
        sheet = read_answer_sheet(path)
        opened = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        rows = sum(1 for _ in sheet.rows)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert rows == 2 * STUDENTS and size > 2 * STUDENTS * REMARK
    assert opened < size / 20 and peak < size / 20, (opened, peak, size)
