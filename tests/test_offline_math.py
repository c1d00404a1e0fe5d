"""Math a student reads offline: the HTML pages quizgen writes for a person (`generate --format
html`, the feedback pages of `grade`) carry their formulas as MathML, which the browser typesets
itself: no script, no network, and no raw LaTeX when the network is off."""

from __future__ import annotations

import csv
import io
import re
import subprocess

import pytest

from browser import Browser, chromium_path
from conftest import run_quizgen

from quizgen.export.sheet import plan_exam
from quizgen.recipes import Student, parse_exam_recipe
from quizgen.generator import generate_one

CELLS = ("OCC-2", "OCC-9", "W-H", "L-5", "X-1")


def _quizgen(*args: str) -> subprocess.CompletedProcess:
    done = run_quizgen(*args)
    assert done.returncode == 0, done.stderr
    return done


def _no_network_needed(page: str) -> None:
    urls = re.findall(r"(?:src|href)\s*=\s*[\"']?(https?:[^\"' >]+)", page)
    assert urls == [] and "<script" not in page
    assert "\\(" not in page and "\\frac" not in page      # no LaTeX left for a script to typeset


def _typeset(browser: Browser, path) -> dict:
    page = browser.page(width=390, height=800, mobile=True)
    page.open(path)
    return page.eval("""(() => {
        const maths = [...document.querySelectorAll('math')];
        const fracs = [...document.querySelectorAll('mfrac')].filter(f => !f.parentElement.closest('mfrac')).map(f => {
            const r = f.getBoundingClientRect();
            const size = parseFloat(getComputedStyle(f).fontSize);
            return r.height / size;
        });
        return {maths: maths.length, empty: maths.filter(m => m.getBoundingClientRect().width < 1).length,
                fracs, requests: performance.getEntriesByType('resource').length,
                wide: document.documentElement.scrollWidth - innerWidth};
    })()""")


@pytest.fixture(scope="module")
def browser():
    assert chromium_path(), "chromium is needed (Debian: apt-get install chromium)"
    with Browser() as chromium:
        yield chromium


@pytest.mark.parametrize("lang", ["en", "hinglish"])
def test_generated_html_typesets_its_math_offline(browser, tmp_path, lang):
    args = ["generate", "--level", "2", "--level", "3", "--lang", lang, "--format", "html"]
    for cell in CELLS:
        args += ["--cell", cell]
    page = tmp_path / "problems.html"
    page.write_text(_quizgen(*args).stdout, encoding="utf-8")
    _no_network_needed(page.read_text("utf-8"))
    seen = _typeset(browser, page)
    assert seen["maths"] > 40 and seen["empty"] == 0 and seen["requests"] == 0
    # a fraction stands over its bar: taller than a line of text, as only typeset math is
    assert seen["fracs"] and min(seen["fracs"]) > 1.3
    assert seen["wide"] <= 0                   # nothing wider than the phone


def test_feedback_pages_typeset_their_math_offline(browser, tmp_path):
    recipe = {"title": "Offline", "lang": "en", "seed": 3,
              "questions": [{"cell": "OCC-2", "level": 2, "points": 2},
                            {"cell": "W-H", "level": 1, "points": 2}]}
    plan = plan_exam(parse_exam_recipe(recipe), [Student("Asha", "A1")], None,
                     generate=generate_one)
    (tmp_path / "manifest.json").write_text(plan.manifest_text(), encoding="utf-8")
    rows = list(csv.reader(io.StringIO(plan.answers_csv.removeprefix("\ufeff"))))
    rows[1][rows[0].index("Q1.blocks_per_sm")] = "7"
    with (tmp_path / "answers.csv").open("w", encoding="utf-8", newline="") as fh:
        csv.writer(fh).writerows(rows)
    _quizgen("grade", str(tmp_path / "manifest.json"), str(tmp_path / "answers.csv"),
             "--out", str(tmp_path / "graded"))            # HTML is the default
    page = tmp_path / "graded" / "feedback" / "A1.html"
    _no_network_needed(page.read_text("utf-8"))
    seen = _typeset(browser, page)
    assert seen["maths"] > 5 and seen["empty"] == 0 and seen["requests"] == 0
    assert min(seen["fracs"]) > 1.3
