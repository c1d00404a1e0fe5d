"""`quizgen --help`: the same text from every entry point, wrapped to the terminal; commands and
a wrongly set QUIZGEN_TEMPLATES reach the user the same way."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys


def run(args: list[str], columns: int = 80, **env: str) -> subprocess.CompletedProcess:
    full = {**os.environ, "COLUMNS": str(columns), **env}
    full.pop("LINES", None)
    return subprocess.run(args, capture_output=True, text=True, env=full, timeout=120)


def live_help(columns: int = 80) -> str:
    """The top-level help as the CLI itself prints it."""
    done = run([sys.executable, "-c", "from quizgen.cli import main; main()", "--help"], columns)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_help_reads_the_same_from_every_entry_point():
    live = live_help()
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
    assert done.stdout != live_help()
    assert max(len(line) for line in done.stdout.splitlines()) <= 58
    assert "occupancy" in done.stdout


def test_commands_still_reach_the_cli():
    done = run([sys.executable, "-m", "quizgen", "occupancy", "--help"])
    assert done.returncode == 0 and "--threads" in done.stdout
    done = run([sys.executable, "-m", "quizgen", "nonsense"])
    assert done.returncode == 2


def test_a_templates_folder_that_is_not_one_is_said_before_any_command(tmp_path):
    """The CLI reads its languages from the templates folder as it loads: even `--help`."""
    for args in (["--help"], ["occupancy", "--threads", "256"]):
        done = run([sys.executable, "-m", "quizgen", *args],
                   QUIZGEN_TEMPLATES=str(tmp_path / "nowhere"))
        assert done.returncode == 2 and done.stdout == ""
        assert done.stderr.splitlines() == [
            f"error: QUIZGEN_TEMPLATES: no such folder: {tmp_path / 'nowhere'} (name a folder "
            "holding a full copy of quizgen's templates)"]
