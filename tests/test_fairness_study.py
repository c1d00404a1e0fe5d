"""The fairness statistics over many simulated classes of 300 on the shipped midterm (graded by
the real grader), the calibrated sheet on the next class, and the class report's section as a
teacher sees it (a phone, a desktop, dark mode, the printer). Slow: a hundred classes and
Chromium. bench/bench_fairness.py prints the same figures."""

from __future__ import annotations

import base64
import csv
import statistics

import pytest

from quizgen.fairness.simulate import (Planted, answers_sheet, box_logits, calibration_study,
                                       power_study)

pytestmark = pytest.mark.slow

#: The effect whose power is measured: Q1 harder by 0.7 logits where registers bind (23% of
#: the papers).
PLANTED = [Planted(1, "limiter", "registers", -0.7)]
#: Four planted effects, the class the next exam is calibrated on.
UNEVEN = [Planted(1, "limiter", "registers", -0.7), Planted(4, "cell", "W-F", -0.7),
          Planted(5, "steps", 18, -0.7), Planted(6, "trap", True, -0.7)]
CLASSES = 100


@pytest.fixture(scope="module")
def midterm():
    from bench_fairness import midterm as drawn

    return drawn(300)


@pytest.fixture(scope="module", autouse=True)
def _bench_on_path():
    import sys

    from conftest import REPO

    sys.path.insert(0, str(REPO / "bench"))
    yield
    sys.path.remove(str(REPO / "bench"))


def test_a_planted_effect_is_flagged_in_most_classes_and_a_fair_exam_rarely(midterm):
    _, manifest = midterm
    planted = power_study(manifest, PLANTED, CLASSES, seed=2, jobs=2)
    fair = power_study(manifest, [], CLASSES, seed=1, jobs=2)
    assert planted.planted_tested == CLASSES            # tested in every class
    assert planted.planted_flagged >= 0.80 * CLASSES
    assert fair.any_flag <= 0.05 * CLASSES
    # the intervals cover the planted value, and 0 on the questions where nothing is planted,
    # about 95% of the time
    assert 0.90 <= planted.planted_covered / CLASSES <= 0.99
    covered = (fair.others_covered + planted.others_covered) / (fair.others_tested
                                                                + planted.others_tested)
    assert 0.93 <= covered <= 0.97
    assert statistics.fmean(planted.estimates) == pytest.approx(-0.7, abs=0.1)


def test_a_calibration_from_one_class_evens_the_next_classs_papers(midterm):
    from quizgen.recipes import Student

    recipe, manifest = midterm
    roster = [Student(f"Next {i}", f"N{i:04d}") for i in range(100)]
    found = calibration_study(recipe, manifest, UNEVEN, roster, [100, 101, 102], tolerance=0.5)
    # under the model the sheet fitted: at most half the spread on every calibration, and the
    # gap likewise over the three
    assert all(e.model_sd[1] <= 0.5 * e.model_sd[0] for e in found)
    assert statistics.fmean(e.model_gap[1] / e.model_gap[0] for e in found) <= 0.5
    # under the planted truth (what the students met), over three calibration classes
    assert statistics.fmean(e.truth_sd[1] / e.truth_sd[0] for e in found) <= 0.5
    assert statistics.fmean(e.truth_gap[1] / e.truth_gap[0] for e in found) <= 0.5


# ---------------------------------------------------------------------------------------------
# The section as a teacher sees it


@pytest.fixture(scope="module")
def reports(midterm, tmp_path_factory):
    """class-report.html of one simulated class of 300 with the planted effect, in both
    languages."""
    from quizgen.grade.grader import grade_class
    from quizgen.manifest import manifest_json

    _, manifest = midterm
    work = tmp_path_factory.mktemp("fair-report")
    (work / "manifest.json").write_text(manifest_json(manifest), encoding="utf-8")
    sheet, _ = answers_sheet(manifest, PLANTED, box_logits(manifest, 0), seed=9)
    with (work / "answers.csv").open("w", encoding="utf-8", newline="") as fh:
        csv.writer(fh).writerows([sheet.header, *(row.cells for row in sheet.rows)])
    out = {}
    for lang in ("en", "hinglish"):
        grade_class(work / "manifest.json", work / "answers.csv", work / lang, lang=lang,
                    feedback_format="md")
        out[lang] = work / lang / "class-report.html"
    return out


LOOK = """(() => {
    const s = document.querySelector('section.fair');
    const r = s.getBoundingClientRect();
    const verdict = s.querySelector('.verdict').getBoundingClientRect();
    const inks = [...s.querySelectorAll('p, li, td, th, dt, dd, h2, h3')].map(e => {
        const c = getComputedStyle(e);
        return [c.color, c.backgroundColor, parseFloat(c.fontSize)];
    });
    return {page: document.documentElement.scrollWidth, view: innerWidth, left: r.left,
            right: r.right, top: r.top + scrollY, height: r.height, verdict: verdict.width,
            small: Math.min(...inks.map(i => i[2])), flags: s.querySelectorAll('ul.flags li').length};
})()"""


@pytest.mark.parametrize("lang", ["en", "hinglish"])
def test_the_fairness_section_reads_on_a_phone_a_desktop_in_dark_mode_and_printed(reports, lang,
                                                                                    tmp_path):
    from browser import Browser, chromium_path
    from pypdf import PdfReader

    assert chromium_path(), "chromium is needed (Debian: apt-get install chromium)"
    with Browser() as chromium:
        for width, dark in ((360, False), (360, True), (1280, False), (1280, True)):
            page = chromium.page(width=width, height=800, mobile=width < 500)
            page.system_dark(dark)
            page.open(reports[lang])
            look = page.eval(LOOK)
            # nothing wider than the screen (tables scroll in their own box), the verdict as
            # wide as the text column, no text under 12 px, the flag listed
            assert look["page"] <= look["view"], (width, look)
            assert 0 <= look["left"] and look["right"] <= look["view"] + 0.5, (width, look)
            assert look["verdict"] >= min(width, 960) * 0.8, (width, look)
            assert look["small"] >= 12 and look["flags"] >= 1, look
            clip = {"x": 0, "y": look["top"], "width": width, "height": min(look["height"], 2000)}
            png = page.screenshot(clip)
            (tmp_path / f"fair-{lang}-{width}-{'dark' if dark else 'light'}.png").write_bytes(
                base64.b64decode(png))
            ink = page.pixels_js(png, """let dark = 0;
                for (let i = 0; i < data.length; i += 4) if (data[i] < 128) dark++;
                return dark / (width * height);""")
            assert 0.01 < ink < 0.4, (width, dark, ink)      # text on a light page, not blank
        pdf = base64.b64decode(page.send("Page.printToPDF", {"printBackground": True})["data"])
    (tmp_path / "report.pdf").write_bytes(pdf)
    text = " ".join(p.extract_text() for p in PdfReader(tmp_path / "report.pdf").pages)
    words = {"en": ("Were the versions fair?", "Q1: papers with", "Holm"),
             "hinglish": ("Kya versions fair the?", "wale papers average ability", "Holm")}
    assert all(w in " ".join(text.split()) for w in words[lang]), text[-3000:]
