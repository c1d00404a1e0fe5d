"""`quizgen --help` from the shipped copy: the same text the CLI prints, at every entry point."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

from quizgen import launch


def run(args: list[str], columns: int = 80) -> subprocess.CompletedProcess:
    env = {**os.environ, "COLUMNS": str(columns)}
    return subprocess.run(args, capture_output=True, text=True, env=env, timeout=60)


def test_help_reads_the_same_from_every_entry_point():
    live = launch.live_help()
    assert live.startswith("Usage: quizgen [OPTIONS] COMMAND")
    for flag in ("--help", "-h"):
        done = run([sys.executable, "-m", "quizgen", flag])
        assert done.returncode == 0 and done.stdout == live, flag
    # the console script installed beside this interpreter (never whatever is first on PATH)
    script = shutil.which("quizgen", path=os.path.dirname(sys.executable))
    if script:
        done = run([script, "--help"])
        assert done.returncode == 0 and done.stdout == live


def test_a_narrow_terminal_gets_help_wrapped_to_its_width():
    done = run([sys.executable, "-m", "quizgen", "--help"], columns=60)
    assert done.returncode == 0
    assert done.stdout != launch.live_help()
    assert max(len(line) for line in done.stdout.splitlines()) <= 58
    assert "occupancy" in done.stdout


def test_commands_still_reach_the_cli():
    done = run([sys.executable, "-m", "quizgen", "occupancy", "--help"])
    assert done.returncode == 0 and "--threads" in done.stdout
    done = run([sys.executable, "-m", "quizgen", "nonsense"])
    assert done.returncode == 2
