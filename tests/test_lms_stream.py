"""Exports stream: peak memory stays flat as the bank grows (each question is written as it is
made). Measured as the peak resident size of a separate `quizgen export` process, at a size and
at four times that size; the writers used to hold the whole bank (``export --variants 1000``
passed 1.9 GB)."""

from __future__ import annotations

import subprocess
import sys

import pytest

#: The export run in a fresh interpreter that reports its own peak resident size (MB): the
#: kernel's high-water mark of this program's memory (VmHWM), which starts afresh at exec;
#: getrusage's ru_maxrss does not (a child forked from a large test process reports its size).
_PEAK = """
import sys
from typer.testing import CliRunner
from quizgen.cli import app
result = CliRunner().invoke(app, sys.argv[1:])
assert result.exit_code == 0, result.output
with open("/proc/self/status") as fh:
    print(next(int(line.split()[1]) for line in fh if line.startswith("VmHWM:")) // 1024)
"""


def _peak_mb(tmp_path, *args) -> int:
    run = subprocess.run([sys.executable, "-c", _PEAK, "export", *args], capture_output=True,
                         text=True, encoding="utf-8", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    return int(run.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("args, small", [
    (("occupancy-basics", "--format", "moodle", "--out", "bank.xml"), 20),
    (("occupancy-basics", "--answers", "all", "--format", "qti", "--out", "bank.zip"), 10),
], ids=["moodle", "qti-every-answer"])
def test_peak_memory_is_flat_in_variants(tmp_path, args, small):
    low = _peak_mb(tmp_path, *args, "--variants", str(small))
    high = _peak_mb(tmp_path, *args, "--variants", str(small * 4))
    assert high < 300
    # four times the questions (hundreds more, each tens of KB of XML and figure): at most a
    # few MB more, where holding the bank cost 16 MB (Moodle) and 58 MB (QTI) here
    assert high - low <= 8, (low, high)
