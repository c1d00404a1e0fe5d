"""Benchmark: memory flat in the size of the input, as a user runs the commands.

    python3 bench/bench_memory.py [--size full|quick|smoke]

Each command runs in a process of its own; its peak is the kernel's high-water mark of resident
memory (``VmHWM`` in /proc, read until the process ends; imports included), the largest over the
command and every process it starts. Each figure is compared with the same command on half the
input (the floor): twice the input must not take more than 1.1 × the memory.

* ``quizgen preview`` of an exam recipe of N questions (one page per question, written one at a
  time) against N/2;
* ``quizgen grade`` and ``quizgen grade --remedial`` of a class of N students (a pool of generated
  problems handed out as versions, answers a realistic mix) against N/2;
* ``quizgen check --manifest /dev/zero``: refused before it is read whole;
* ``quizgen sheet midterm --versions N --bubbles`` against N/2: here the figure is the largest
  *sum* over the process tree (the sheet and its Typst compiles alive together), as a machine
  feels it.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from common import Row, pick, print_table  # noqa: E402

#: Twice the input may take at most this many times the memory of the input.
FLAT = 1.1


def _hwm_kb(pid: int, summed: bool = False) -> int:
    """The largest high-water mark of resident memory of `pid` and its descendants, in KB (with
    `summed`: their sum; a child still running its parent's command line is between fork and
    exec, its memory its parent's, counted once)."""
    peak, todo = 0, [(pid, b"")]
    while todo:
        current, parent_cmdline = todo.pop()
        try:
            cmdline = Path(f"/proc/{current}/cmdline").read_bytes()
            status = Path(f"/proc/{current}/status").read_text()
            hwm = int(status.split("VmHWM:")[1].split()[0])
            if not summed:
                peak = max(peak, hwm)
            elif cmdline != parent_cmdline:
                peak += hwm
            for task in Path(f"/proc/{current}/task").iterdir():
                todo.extend((int(c), cmdline) for c in (task / "children").read_text().split())
        except (OSError, IndexError, ValueError):
            continue
    return peak


def peak_mb(args: list[str], cwd: Path, expect: int = 0, summed: bool = False) -> float:
    """Peak memory in MB of the command `args` (a quizgen command line) run in `cwd` (with
    `summed`: of its processes together)."""
    proc = subprocess.Popen([sys.executable, "-m", "quizgen", *args], cwd=cwd,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    peak = 0
    while True:
        # read before reaping: a finished process's /proc entry goes with its exit status
        peak = max(peak, _hwm_kb(proc.pid, summed))
        pid, status = os.waitpid(proc.pid, os.WNOHANG)
        if pid == proc.pid:
            break
        time.sleep(0.02)
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode("utf-8", "replace")
    if proc.returncode != expect:
        raise RuntimeError(f"quizgen {' '.join(args)} exited {proc.returncode}: {err[-2000:]}")
    return peak / 1024


def exam_recipe(questions: int) -> str:
    """An exam recipe of `questions` occupancy questions."""
    head = 'title = "Long exam"\nlang = "en"\nseed = 1\n'
    return head + '[[questions]]\ncell = "OCC-2"\nlevel = 1\n' * questions


def preview_peak(questions: int, work: Path) -> float:
    (work / "long.toml").write_text(exam_recipe(questions), encoding="utf-8")
    shutil.rmtree(work / "site", ignore_errors=True)
    return peak_mb(["preview", "long.toml", "--out", "site", "-q"], work)


def write_class(students: int, work: Path) -> None:
    """manifest.json and answers.csv of a class of `students` into `work`."""
    from bench_grade import build_class, problem_pool, CELLS

    pool = problem_pool()
    per_student = sum(len(pool[cell][0]["answers"]) for cell, _ in CELLS)
    manifest, sheet, _ = build_class(pool, students * per_student, seed=3)
    manifest["students"] = manifest["students"][:students]
    lines = sheet.splitlines(keepends=True)[:students + 1]
    assert len(manifest["students"]) == students == len(lines) - 1
    (work / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    (work / "answers.csv").write_text("".join(lines), encoding="utf-8")


def grade_peaks(students: int, work: Path) -> tuple[float, float]:
    """(grade, grade --remedial) peak MB for a class of `students`."""
    write_class(students, work)
    for name in ("g", "g2", "fu"):
        shutil.rmtree(work / name, ignore_errors=True)
    plain = peak_mb(["grade", "manifest.json", "answers.csv", "--out", "g", "-q"], work)
    remedial = peak_mb(["grade", "manifest.json", "answers.csv", "--out", "g2",
                        "--remedial", "fu", "-q"], work)
    return plain, remedial


def sheet_peak(students: int, work: Path) -> float:
    """Peak MB of the sheet's process tree for a class of `students`, answer grids printed."""
    shutil.rmtree(work / "exam", ignore_errors=True)
    return peak_mb(["sheet", "midterm", "--versions", str(students), "--bubbles", "--out",
                    "exam"], work, summed=True)


def run(questions: int, students: int, sheet: int = 0) -> dict:
    work = Path(tempfile.mkdtemp(prefix="bench-memory-"))
    try:
        out = {"questions": questions, "students": students,
               "preview": preview_peak(questions, work),
               "preview_half": preview_peak(questions // 2, work)}
        out["grade"], out["remedial"] = grade_peaks(students, work)
        out["grade_half"], out["remedial_half"] = grade_peaks(students // 2, work)
        out["check_zero"] = peak_mb(["check", "--manifest", "/dev/zero", "Q1.occupancy", "1",
                                     "--roll", "R1"], work, expect=2)
        if sheet:
            out["sheet_students"] = sheet
            out["sheet"], out["sheet_half"] = sheet_peak(sheet, work), sheet_peak(sheet // 2, work)
        return out
    finally:
        shutil.rmtree(work, ignore_errors=True)


def rows(m: dict) -> list[Row]:
    q, s = m["questions"], m["students"]
    flat = f"≤ {FLAT} × floor"
    return [
        Row(f"preview peak memory: {q:,} questions", m["preview"], "MB",
            f"{q // 2:,} questions", m["preview_half"], flat, m["preview"] <= FLAT * m["preview_half"]),
        Row(f"grade peak memory: {s:,} students", m["grade"], "MB", f"{s // 2:,} students",
            m["grade_half"], flat, m["grade"] <= FLAT * m["grade_half"]),
        Row(f"grade --remedial peak memory: {s:,} students", m["remedial"], "MB",
            f"{s // 2:,} students", m["remedial_half"], flat,
            m["remedial"] <= FLAT * m["remedial_half"]),
        Row("check --manifest /dev/zero peak memory", m["check_zero"], "MB", "", 0.0,
            "< 200 MB", m["check_zero"] < 200),
    ] + ([Row(f"sheet --bubbles peak memory: {m['sheet_students']:,} students (process tree)",
              m["sheet"], "MB", f"{m['sheet_students'] // 2:,} students", m["sheet_half"], flat,
              m["sheet"] <= FLAT * m["sheet_half"])] if "sheet" in m else [])


def measure(size: str = "full") -> list[Row]:
    """Rows for bench/run.py."""
    return rows(run(pick(size, 100, 60, 8), pick(size, 2000, 600, 40), pick(size, 400, 64, 4)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", choices=("full", "quick", "smoke"), default="full")
    args = parser.parse_args()
    print_table(measure(args.size))


if __name__ == "__main__":
    main()
