"""The class report as a teacher reads it, in headless Chromium at 360 and 1280 px, light and dark,
offline: the histogram read off its own axis, the words that explain its numbers, the list of items
to look at before the long table, the item map marking what the table highlights, and tables that
fit a desktop without breaking a cell's name.

The class sits the packaged midterm (31 points: the histogram's last bar reaches past the highest
score) and gives the misconceptions the families model, so items carry several misconceptions,
cells and flags.
"""

from __future__ import annotations

import csv
import statistics
from pathlib import Path

import pytest

from browser import Browser, chromium_path
from conftest import make_class
from quizgen.grade.grader import grade_class
from quizgen.recipes import load_exam_recipe
from quizgen.render.canvas import BINDING
from quizgen.render.phrases import book

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(chromium_path() is None, reason="needs chromium")]

ROSTER = [(f"Student {i:02d}", f"R{i:02d}") for i in range(1, 25)]


def _slips(roll: str, number: int, box: str, right):
    """Most boxes right; a student in three writes a wrong number where a count is asked, and
    the occupancy of Q1 is off by a trap's amount for some."""
    i = int(roll[1:])
    text = ", ".join(right) if isinstance(right, list) else str(right)
    if isinstance(right, bool) or not isinstance(right, (int, float)):
        return text if (i + number) % 4 else "registers"
    if (i * 7 + number * 3 + len(box)) % 5 == 0:
        return str(right * 2 if isinstance(right, int) else right / 2)
    if i % 3 == 0 and number in (1, 5, 6):
        return str(right + 1 if isinstance(right, int) else 1.0)
    return text


def _traps(sat) -> None:
    """Three students in four answer a question's main box with one of its wrong options, each
    the answer of a misconception: an item then names several misconceptions and cells."""
    with sat.answers.open(encoding="utf-8", newline="") as fh:
        rows = list(csv.reader(fh))
    head = rows[0]
    for row, paper in zip(rows[1:], sat.data["students"]):
        pick = int(paper["roll"][1:]) % 4
        for q in paper["questions"]:
            wrong = [c for c in q.get("choices", []) if not c["correct"] and c.get("misconception")]
            column = f"Q{q['number']}.{q.get('main_answer')}"
            if pick and len(wrong) >= pick and column in head:
                value = wrong[pick - 1]["value"]
                row[head.index(column)] = ", ".join(value) if isinstance(value, list) else str(value)
    with sat.answers.open("w", encoding="utf-8", newline="") as fh:
        csv.writer(fh).writerows(rows)


@pytest.fixture(scope="module")
def reports(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("report")
    sat = make_class(folder / "class", load_exam_recipe("midterm").to_dict(), ROSTER, _slips)
    _traps(sat)
    out = {}
    for lang in ("en", "hinglish"):
        grade_class(sat.manifest, sat.answers, folder / lang, lang=lang)
        out[lang] = folder / lang / "class-report.html"
    return out


@pytest.fixture(scope="module")
def chromium():
    with Browser() as browser:
        yield browser


def _open(chromium, path: Path, width: int, dark: bool):
    page = chromium.page(width=width, height=900, mobile=width < 500)
    page.system_dark(dark)
    page.open(path)
    return page


def _scores(report: Path) -> list[float]:
    with (report.parent / "results.csv").open(encoding="utf-8-sig", newline="") as fh:
        return [float(r["score"]) for r in csv.DictReader(fh)]


HISTOGRAM = """(() => {
    const svg = document.querySelectorAll('figure svg')[0];
    const centre = e => { const r = e.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; };
    const texts = [...svg.querySelectorAll('text')].map(t => ({text: t.textContent, c: centre(t)}));
    const mean = [...svg.querySelectorAll('line')].find(l => l.getAttribute('stroke-dasharray') === '4 3');
    const bars = [...svg.querySelectorAll('rect')].filter(r => r.getBoundingClientRect().height > 0.5)
        .map(r => { const b = r.getBoundingClientRect(); return [b.left, b.right, b.top]; });
    const axis = [...svg.querySelectorAll('line')].map(l => l.getBoundingClientRect())
        .filter(b => b.height < 1 && b.width > 100)[0];
    return {texts, mean: mean.getBoundingClientRect().left + mean.getBoundingClientRect().width / 2,
            bars, axis: axis.top};
})()"""


@pytest.mark.parametrize("width", [360, 1280])
@pytest.mark.parametrize("dark", [False, True])
def test_the_histogram_reads_true_off_its_own_axis(reports, chromium, width, dark):
    report = reports["en"]
    drawn = _open(chromium, report, width, dark).eval(HISTOGRAM)
    # the numbers under the axis, where a reader reads them
    ticks = sorted((t["c"][0], float(t["text"])) for t in drawn["texts"]
                   if t["text"].replace(".", "").isdigit() and t["c"][1] > drawn["axis"])
    assert len(ticks) >= 4 and ticks[0][1] == 0

    def value_at(x: float) -> float:
        for (xa, va), (xb, vb) in zip(ticks, ticks[1:]):
            if xa <= x <= xb:
                return va + (vb - va) * (x - xa) / (xb - xa)
        raise AssertionError(f"{x} is off the axis {ticks}")

    scores = _scores(report)
    step = ticks[1][1] - ticks[0][1]
    assert value_at(drawn["mean"]) == pytest.approx(statistics.fmean(scores), abs=step * 0.04)
    # each bar stands over the scores it counts: its edges read on the axis bound its students
    counted = 0
    for left, right, top in drawn["bars"]:
        # a bar's edges, read to the half point (bars stand a hair apart)
        lo = round(value_at(left) * 2) / 2
        last = right >= ticks[-1][0] - 1
        hi = float("inf") if last else round(value_at(right) * 2) / 2
        label = min((t for t in drawn["texts"] if t["text"].isdigit() and left <= t["c"][0] <= right
                     and t["c"][1] < top + 2), key=lambda t: abs(t["c"][1] - top))
        inside = sum(1 for s in scores if lo <= s < hi)
        assert int(label["text"]) == inside, (lo, hi, label["text"])
        counted += inside
    assert counted == len(scores)


LAYOUT = """(() => {
    const table = [...document.querySelectorAll('table')].find(t => t.rows[0].cells.length >= 9);
    const h3 = [...document.querySelectorAll('h3')];
    const flagsHead = h3.find(h => h.nextElementSibling && h.nextElementSibling.matches('ul.flags'));
    const scroll = table.closest('.scroll') || table.parentElement;
    const highlighted = [...table.querySelectorAll('tr.flagged td:first-child')].map(td => td.innerText.trim());
    const svg = document.querySelectorAll('figure svg')[1];
    const marks = [...svg.querySelectorAll('circle, rect')].filter(e => e.querySelector('title'))
        .map(e => ({name: e.querySelector('title').textContent,
                    red: [e.getAttribute('fill'), e.getAttribute('stroke')].includes('%s')}));
    const broken = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        if (!n.parentElement.closest('td, th')) continue;
        for (const m of n.textContent.matchAll(/\\b(OCC-\\d|W-[A-J]|L-\\d|X-\\d|K-1)\\b/g)) {
            const range = document.createRange();
            range.setStart(n, m.index); range.setEnd(n, m.index + m[0].length);
            const lines = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
            if (lines.size > 1) broken.push(m[0]);
        }
    }
    return {text: document.body.innerText, flagsTop: flagsHead ? flagsHead.getBoundingClientRect().top : null,
            tableTop: table.getBoundingClientRect().top, fits: scroll.scrollWidth <= scroll.clientWidth + 1,
            tableWidth: table.scrollWidth, room: scroll.clientWidth, highlighted, marks, broken,
            page: document.documentElement.scrollWidth, view: innerWidth,
            requests: performance.getEntriesByType('resource').length};
})()""" % BINDING


@pytest.mark.parametrize("lang", ["en", "hinglish"])
@pytest.mark.parametrize("width", [360, 1280])
@pytest.mark.parametrize("dark", [False, True])
def test_the_report_explains_its_numbers_and_marks_what_it_highlights(reports, chromium, lang,
                                                                       width, dark):
    seen = _open(chromium, reports[lang], width, dark).eval(LAYOUT)
    words = book(lang)["analysis"]
    assert seen["requests"] == 0 and seen["page"] <= seen["view"]
    # the figures' words in plain language, in the report itself
    for key in ("legend_facility", "legend_discrimination", "legend_upper_lower", "legend_alpha"):
        assert words[key].split(":")[0] in seen["text"], key
    assert "analysis.py" not in seen["text"]
    # what to look at comes before the long table
    assert seen["flagsTop"] is not None and seen["flagsTop"] < seen["tableTop"]
    # every item the table highlights is marked red on the map, and nothing else is red
    assert seen["highlighted"], "the planted class has items to look at"
    red = {m["name"] for m in seen["marks"] if m["red"]}
    assert red == set(seen["highlighted"]), (sorted(red), seen["highlighted"])
    assert not seen["broken"], seen["broken"]           # "OCC-/4" never
    if width == 1280:
        assert seen["fits"], (seen["tableWidth"], seen["room"])
