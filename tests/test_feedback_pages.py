"""A student's feedback page as the student opens it: headless Chromium at a phone's width and a
desktop's, light and dark, offline.

One class sits the packaged midterm (six questions, a real kernel's source in Q6); its papers hold
the slips a class makes: threads given for warps, "2" for an occupancy, a bare percentage, text
around a number, a spreadsheet's date, several wrong boxes in one question.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from browser import Browser, chromium_path
from conftest import make_class
from quizgen.grade.grader import grade_class
from quizgen.recipes import load_exam_recipe
from quizgen.render.phrases import phrase

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(chromium_path() is None, reason="needs chromium")]

ROSTER = [("Asha Verma", "R01"), ("अनन्या शर्मा", "R02"), ("Venkataraghavan Subramaniam", "R03")]
#: Q5 (a grid over the SMs): every count off by seven, which no trap of the cell gives.
OFF = 7


def slips(roll: str, number: int, box: str, right) -> str:
    """R01 makes the slips; R02 writes every occupancy as a bare percentage; R03 is right."""
    text = ", ".join(right) if isinstance(right, list) else str(right)
    if roll == "R02" and box == "occupancy":
        return f"{right * 100:g}"                      # 37.5 for 0.375: read as 37.5%
    if roll != "R01":
        return text
    if number == 1 and box == "active_warps":
        return str(right * 32)                          # the threads, not the warps
    if number == 1 and box == "occupancy":
        return "2"
    if number == 3 and box == "warps":
        return f"about {right}"
    if number == 3 and box == "full_warps":
        return "3/8/2026"                               # a spreadsheet's date
    if number == 5 and isinstance(right, int) and box != "blocks_per_sm":
        return str(right + OFF)
    if number == 6 and box == "blocks_per_sm":
        return str(right + 1)                           # the kernel's worked solution is shown
    return text


@pytest.fixture(scope="module")
def pages(tmp_path_factory) -> dict[str, dict[str, Path]]:
    folder = tmp_path_factory.mktemp("feedback")
    recipe = load_exam_recipe("midterm").to_dict()
    sat = make_class(folder / "class", recipe, ROSTER, fill=slips)
    out = {}
    for lang in ("en", "hinglish"):
        graded = folder / f"graded-{lang}"
        grade_class(sat.manifest, sat.answers, graded, lang=lang, feedback_format="html")
        out[lang] = {roll: graded / "feedback" / f"{roll}.html" for _, roll in ROSTER}
    return out


@pytest.fixture(scope="module")
def chromium():
    with Browser() as browser:
        yield browser


SIZES = [(360, True), (1280, False)]


def _look(chromium, path: Path, width: int, mobile: bool, dark: bool, script: str):
    page = chromium.page(width=width, height=900, mobile=mobile)
    page.system_dark(dark)
    page.open(path)
    return page.eval(script)


QUESTIONS = """(() => [...document.querySelectorAll('h2')].map(h => {
    const parts = [];
    for (let e = h.nextElementSibling; e && e.tagName !== 'H2'; e = e.nextElementSibling) parts.push(e);
    const rows = parts.flatMap(e => [...e.querySelectorAll('tr')]).filter(r => r.querySelector('td'))
      .map(r => { const cells = [...r.querySelectorAll('td')];
        const box = c => { const b = c.getBoundingClientRect();
          return {left: b.left, right: b.right, width: b.width, text: c.innerText}; };
        return {status: r.className, cells: cells.map(box)}; });
    const pre = parts.flatMap(e => [...e.querySelectorAll('pre')]).map(p => {
        const b = p.getBoundingClientRect();
        return {text: p.innerText, left: b.left, right: b.right}; });
    return {head: h.innerText, text: parts.map(e => e.innerText).join('\\n'), rows, pre};
}))()"""

PAGE = """(() => ({width: innerWidth, scroll: document.documentElement.scrollWidth,
    text: document.body.innerText, requests: performance.getEntriesByType('resource').length,
    ink: getComputedStyle(document.body).color, paper: getComputedStyle(document.body).backgroundColor}))()"""


@pytest.mark.parametrize("lang", ["en", "hinglish"])
@pytest.mark.parametrize("width, mobile", SIZES)
@pytest.mark.parametrize("dark", [False, True])
def test_the_kernel_is_a_code_block_and_the_table_fits(pages, chromium, lang, width, mobile, dark):
    page = _look(chromium, pages[lang]["R01"], width, mobile, dark, PAGE)
    questions = _look(chromium, pages[lang]["R01"], width, mobile, dark, QUESTIONS)
    assert page["requests"] == 0 and "```" not in page["text"]
    # laid out for the screen it is on, nothing wider than it but a code block's own scroll box
    assert page["width"] == width and page["scroll"] <= width, page["scroll"]
    assert _contrast(page["ink"], page["paper"]) > 7
    kernel = questions[5]
    assert kernel["head"].startswith(("Question 6", "Sawaal 6")) or "6" in kernel["head"]
    code = next(p for p in kernel["pre"] if "__global__" in p["text"])
    assert len(code["text"].strip().splitlines()) >= 3          # the source keeps its lines
    assert any("ptxas info" in p["text"] for p in kernel["pre"])
    assert code["left"] >= 0 and code["right"] <= width + 0.5
    # every answer box's verdict and points are on the screen, on a phone too
    for question in questions:
        for row in question["rows"]:
            verdict, points = row["cells"][3], row["cells"][4]
            for cell in (verdict, points):
                assert cell["width"] > 0 and cell["left"] >= 0 and cell["right"] <= width + 0.5, \
                    (question["head"], row)
            assert "/" in points["text"]


def _contrast(ink: str, paper: str) -> float:
    def luminance(css: str) -> float:
        values = [float(v) for v in css[css.index("(") + 1:-1].split(",")[:3]]
        lin = [(v / 255 / 12.92) if v / 255 <= 0.03928 else ((v / 255 + 0.055) / 1.055) ** 2.4
               for v in values]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]
    a, b = sorted((luminance(ink), luminance(paper)), reverse=True)
    return (a + 0.05) / (b + 0.05)


def _parting_words(lang: str) -> str:
    """The parting sentence up to its first value: what repeats if it is said per box."""
    text = phrase(lang, "grade", "parting", {"step": 1, "title": "T", "result": "R"})
    return text.split("1")[0].strip()


@pytest.mark.parametrize("lang", ["en", "hinglish"])
def test_each_slip_is_said_once_and_the_classic_ones_are_named(pages, chromium, lang):
    questions = _look(chromium, pages[lang]["R01"], 1280, False, False, QUESTIONS)
    parting = _parting_words(lang)
    grid = questions[4]
    wrong = [r for r in grid["rows"] if r["status"] == "wrong"]
    assert len(wrong) >= 3                                   # several wrong boxes in Q5 …
    assert grid["text"].count(parting) == 1                  # … and one pointer to the solution
    for question in questions:
        assert question["text"].count(parting) <= 1, question["head"]
    first = questions[0]
    # 64 × 32 = 2,048 active warps: the threads were given for the warps
    trap = phrase(lang, "misconception", "threads_as_warps")
    assert trap in first["text"]
    # "2" for an occupancy: the row itself says how it was read
    occupancy = first["rows"][2]["cells"][1]["text"]          # blocks, warps, occupancy, limiter
    assert occupancy.startswith("2") and "2%" in occupancy


@pytest.mark.parametrize("lang", ["en", "hinglish"])
def test_a_bare_percentage_that_is_right_still_says_how_it_was_read(pages, chromium, lang):
    questions = _look(chromium, pages[lang]["R02"], 1280, False, False, QUESTIONS)
    rows = [r for q in questions for r in q["rows"] if r["status"] == "correct"
            and "%" in r["cells"][1]["text"] and r["cells"][1]["text"].split()[0][-1:].isdigit()]
    assert rows, "R02's occupancies, typed without %, are read as percentages and say so"


@pytest.mark.parametrize("lang", ["en", "hinglish"])
def test_unreadable_answers_are_explained_to_the_student(pages, chromium, lang):
    page = _look(chromium, pages[lang]["R01"], 360, True, False, PAGE)
    text = page["text"]
    assert "column 1" not in text and "unexpected" not in text        # the reader's own words
    assert "read what the student wrote" not in text                  # the teacher's instruction
    said = phrase(lang, "grade", "unreadable_number", {"answer": "'about X'"}).split("'about X'")[1]
    assert said.strip()[:25] in text
    date = phrase(lang, "grade", "unreadable_date", {"answer": "'3/8/2026'"})
    assert date in text


def test_every_right_answer_page_shows_no_worked_solution(pages):
    text = pages["en"]["R03"].read_text(encoding="utf-8")
    assert phrase("en", "grade", "all_right") in text and '<section class="quizgen-problem"' not in text
    manifest = json.loads((pages["en"]["R03"].parents[2] / "class" / "manifest.json")
                          .read_text(encoding="utf-8"))
    assert any(q["cell"] == "K-1" for q in manifest["students"][0]["questions"])
