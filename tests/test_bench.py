"""The benchmark suite runs end to end (at tiny sizes: its figures are not checked here)."""

from __future__ import annotations

import re
import subprocess
import sys

from conftest import REPO


def test_every_benchmark_runs_and_fills_its_rows():
    done = subprocess.run([sys.executable, str(REPO / "bench" / "run.py"), "--smoke"],
                          capture_output=True, text=True, timeout=600, cwd=REPO)
    assert done.returncode == 0, done.stderr[-3000:]
    table = done.stdout
    for figure in ("machine:", "CLI start: quizgen --help", "CLI: one quizgen occupancy",
                   "generate + solve + worked solution (hinglish)", "occupancy --batch",
                   "deck end to end", "deck build peak memory", "default deck: `quizgen deck`",
                   "exam: 3 students",
                   "grading "):          # "grading 3,008 answers": the count follows the exam
        line = next((row for row in table.splitlines() if row.startswith(figure)), None)
        assert line is not None, f"no row for {figure!r} in:\n{table}"
        value = re.search(r"\s([\d,]+\.\d+) ", line)
        assert value and float(value.group(1).replace(",", "")) > 0, line


def test_an_unknown_benchmark_or_option_is_a_one_line_error():
    for args in (["nosuch"], ["--fast"]):
        done = subprocess.run([sys.executable, str(REPO / "bench" / "run.py"), *args],
                              capture_output=True, text=True, timeout=60, cwd=REPO)
        assert done.returncode == 2
        assert len(done.stderr.strip().splitlines()) == 1
