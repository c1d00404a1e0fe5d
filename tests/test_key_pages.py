"""The printed papers as a teacher and a student hold them: the key's summary table never splits a
student's row across pages, a tolerance is printed in its answer's own form, a GPU by what it is,
the packaged exam names no course and no past date, and a practice sheet keeps its solutions
apart from its problems. Read from the PDFs as poppler extracts and rasterises them."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import run_quizgen
from quizgen.render.phrases import labels

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(shutil.which("pdftotext") is None or shutil.which("pdftoppm") is None,
                                 reason="needs poppler-utils")]

NAMES = ["Asha Verma", "अनन्या शर्मा", "Kumar, Vikram", "Venkataraghavan Subramaniam Ramanathan Iyer",
         "Meera Pillai", "Farah Khan", "Karthikeyan Balasubramanian", "Zoya Ali"]


def _pages(pdf: Path) -> list[str]:
    """Each page's text as pdftotext lays it out (its columns kept)."""
    count = int(re.search(r"Pages:\s+(\d+)", subprocess.run(
        ["pdfinfo", str(pdf)], capture_output=True, text=True, timeout=60).stdout).group(1))
    return [subprocess.run(["pdftotext", "-layout", "-f", str(n), "-l", str(n), str(pdf), "-"],
                           capture_output=True, text=True, timeout=60).stdout
            for n in range(1, count + 1)]


@pytest.fixture(scope="module")
def midterm(tmp_path_factory) -> Path:
    """The packaged midterm for a class of 16 with long and Devanagari names."""
    folder = tmp_path_factory.mktemp("key")
    rows = ["Roll No,Name"] + [f'R{i:02d},"{NAMES[i % len(NAMES)]}"' for i in range(1, 17)]
    (folder / "class.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    done = run_quizgen("sheet", "--roster", "class.csv", "--out", "mid", cwd=folder, timeout=600)
    assert done.returncode == 0, done.stderr
    return folder / "mid"


def test_no_student_row_of_the_key_is_split_across_pages(midterm):
    manifest = json.loads((midterm / "manifest.json").read_text(encoding="utf-8"))
    codes = [s["version"] for s in manifest["students"]]
    word = labels("en", "sheet-label")
    head = re.compile(rf"^\s*{word['version']}\s+{word['name']}\s+{word['question']} 1")
    starts: list[str] = []
    overview = [p for p in _pages(midterm / "key.pdf") if any(head.match(l) for l in p.splitlines())]
    assert len(overview) >= 2                       # sixteen rows do not fit one page
    for number, page in enumerate(overview, 1):
        lines = page.splitlines()
        at = next(i for i, line in enumerate(lines) if head.match(line))
        body = [line for line in lines[at + 1:] if line.strip()]
        # the first line under the repeated header begins a student's row: its version, its name
        first = body[0].split()[0]
        assert first in codes, f"page {number} of the key's table begins mid-row: {body[0]!r}"
        starts += [line.split()[0] for line in body if line.split()[0] in codes]
    assert sorted(starts) == sorted(codes)          # every row once, each from its version
    # and as a reader sees page 2: ink in the version column right under the header row
    png = midterm / "overview-2.png"
    number = _pages(midterm / "key.pdf").index(overview[1]) + 1
    subprocess.run(["pdftoppm", "-png", "-r", "40", "-f", str(number), "-l", str(number),
                    "-singlefile", str(midterm / "key.pdf"), str(png.with_suffix(""))],
                   check=True, timeout=60)
    assert png.stat().st_size > 2000


def test_tolerances_and_gpus_are_printed_as_a_reader_reads_them(midterm):
    key = "\n".join(_pages(midterm / "key.pdf"))
    exam = "\n".join(_pages(midterm / "exam.pdf"))
    # 28.125% ± 0.05 percentage points, as the box's hint says: never ± 0.0005 beside a percentage
    assert re.search(r"\d%\s+± 0\.05 percentage points", key)
    assert "± 0.0005" not in key
    for text in (key, exam):
        given = [line for line in text.splitlines() if "GPU =" in line]
        assert given and not any(re.search(r"GPU = (textbook|pmpp)", line) for line in given)
        assert any("GPU = the notes' SM" in line for line in given)
    assert "textbook-64kb" not in key + exam


def test_the_packaged_exam_names_no_course_and_no_past_date(midterm):
    for pdf in ("exam.pdf", "key.pdf"):
        for page in _pages(midterm / pdf):
            assert "CS 433" not in page and "2025-10-14" not in page and "Date:" not in page


def _units(pdf: Path) -> list[list[str]]:
    """The pages of each student's paper (its footer counts them: Page 1 of n starts one)."""
    units: list[list[str]] = []
    for page in _pages(pdf):
        if re.search(r"Page 1 of \d+", page) or not units:
            units.append([])
        units[-1].append(page)
    return units


@pytest.mark.parametrize("where", ["end", "under"])
def test_a_practice_sheet_keeps_its_solutions_apart_unless_asked(tmp_path, where):
    extra = [] if where == "end" else ["--solutions", "under"]
    done = run_quizgen("sheet", "midterm", "--versions", "2", "--out", "p", "--practice", *extra,
                       cwd=tmp_path, timeout=600)
    assert done.returncode == 0, done.stderr
    word = labels("en", "sheet-label")
    units = _units(tmp_path / "p" / "exam.pdf")
    assert len(units) == 2
    for pages in units:
        solved = [i for i, page in enumerate(pages) if f"{word['forecast']}:" in page]
        asked = [i for i, page in enumerate(pages) if "(a) " in page]      # answer boxes
        assert solved and asked
        if where == "end":
            # every problem before the first solution, which starts a page of its own
            assert max(asked) < min(solved)
            first = pages[min(solved)]
            assert word["solutions"] in first.split(word["forecast"])[0]
        else:
            assert min(solved) <= max(asked)                # a solution among the problems


def test_solutions_without_practice_is_one_line(tmp_path):
    done = run_quizgen("sheet", "--versions", "1", "--out", "x", "--solutions", "under",
                       cwd=tmp_path)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "--practice" in done.stderr
    assert not (tmp_path / "x").exists()
