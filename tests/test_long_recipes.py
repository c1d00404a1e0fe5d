"""Long exam recipes as a careless or hostile user writes them: a preview's memory stays flat in
the number of questions (its pages are written one at a time), and a recipe past the stated
limit is refused with one line by every command before anything is drawn. Peak memory is the
kernel's high-water mark of the command's own process."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from quizgen.recipes.exam import MAX_QUESTIONS


def _recipe(folder: Path, questions: int) -> Path:
    path = folder / f"long-{questions}.toml"
    path.write_text('title = "Long"\nlang = "en"\nseed = 1\n'
                    + '[[questions]]\ncell = "OCC-2"\nlevel = 1\n' * questions, encoding="utf-8")
    return path


def _peak(args, cwd) -> tuple[int, str, str, float]:
    """(exit code, stdout, stderr, peak MB) of `python -m quizgen ARGS`."""
    proc = subprocess.Popen([sys.executable, "-m", "quizgen", *map(str, args)], cwd=cwd,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    peak = 0
    while True:
        try:
            status = Path(f"/proc/{proc.pid}/status").read_text()
            peak = max(peak, int(status.split("VmHWM:")[1].split()[0]))
        except (OSError, IndexError, ValueError):
            pass
        pid, code = os.waitpid(proc.pid, os.WNOHANG)
        if pid == proc.pid:
            break
        time.sleep(0.02)
    proc.returncode = os.waitstatus_to_exitcode(code)
    return proc.returncode, proc.stdout.read(), proc.stderr.read(), peak / 1024


pytestmark = pytest.mark.skipif(not Path("/proc/self/status").exists(),
                                reason="peak memory is read from /proc")


def test_preview_memory_is_flat_in_questions(tmp_path):
    peaks = {}
    for n in (MAX_QUESTIONS // 2, MAX_QUESTIONS):
        code, out, err, peaks[n] = _peak(["preview", _recipe(tmp_path, n), "--out",
                                          f"site-{n}", "-q"], tmp_path)
        assert code == 0, err
        assert out.startswith(f"{n} pages, {2 * n} problems"), out
        assert len(list((tmp_path / f"site-{n}").glob("Q*.html"))) == n
        index = (tmp_path / f"site-{n}" / "index.html").read_text(encoding="utf-8")
        assert "quizgen sheet prints this one" in index          # no first pages laid out
    assert peaks[MAX_QUESTIONS] <= 1.1 * peaks[MAX_QUESTIONS // 2], peaks
    assert peaks[MAX_QUESTIONS] < 1000, peaks
    # a page links its neighbours, not every page: the site grows with its pages, not their square
    page = (tmp_path / f"site-{MAX_QUESTIONS}" / "Q50.html").read_text(encoding="utf-8")
    assert page.count('href="Q') <= 3


@pytest.mark.parametrize("command", [["preview", "{r}", "--out", "site"],
                                     ["sheet", "{r}", "--versions", "2", "--out", "ex"],
                                     ["export", "{r}", "--format", "moodle", "--out", "b.xml"]])
def test_a_recipe_past_the_limit_is_one_line_before_anything_is_drawn(tmp_path, command):
    recipe = _recipe(tmp_path, 3000)
    code, _, err, peak = _peak([a.format(r=recipe) for a in command], tmp_path)
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert f"at most {MAX_QUESTIONS}" in err and "3,000" in err
    assert peak < 200, peak
    assert [p.name for p in tmp_path.iterdir()] == [recipe.name]
