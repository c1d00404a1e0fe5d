"""Every text quizgen writes into XML (Moodle XML, QTI, SVG figures, card HTML) passes one
sanitiser (quizgen.xmltext.xml_text): a title pasted from a PDF with U+0001 or U+FFFE in it
still gives files a strict XML parser (expat, as Moodle's and Canvas's importers) accepts."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
import xml.etree.ElementTree as ET
import zipfile

import pytest

from quizgen.export.lms import build_bank, load_bank_recipe
from quizgen.xmltext import xml_text

#: What XML 1.0 forbids: C0 controls but tab, LF, CR; U+FFFE, U+FFFF; lone surrogates.
FORBIDDEN = ([chr(c) for c in range(0x20) if c not in (0x09, 0x0A, 0x0D)]
             + ["\ufffe", "\uffff", "\ud800", "\udbff", "\udc00", "\udfff"])
#: Allowed, if odd, and kept: DEL and the C1 controls, the other noncharacters, the last plane.
KEPT = ["\t", "\n", "\x7f", "\x85", "\x9f", "\ufdd0", "\ufdef", "\U0001fffe", "\U0010ffff",
        "\ufffd"]

EXAM = ('title = "Quiz"\nlang = "en"\nseed = 3\n'
        '[[questions]]\ncell = "OCC-3"\nlevel = 1\npoints = {blocks_per_sm = 1, occupancy = 2}\n'
        '[[questions]]\ncell = "W-B"\nlevel = 1\npoints = 2\n')


def test_the_sanitiser_drops_what_xml_forbids_and_keeps_the_rest():
    for ch in FORBIDDEN:
        cleaned = xml_text(f"a{ch}b")
        assert cleaned in ("ab", "a\ufffdb"), repr(ch)
        ET.fromstring(f"<t>{cleaned}</t>".encode("utf-8"))
    assert xml_text("a\ud800b") == "a\ufffdb"             # a lost character is marked
    for ch in KEPT:
        assert xml_text(f"a{ch}b") == f"a{ch}b"
    clean = "Occupancy — 37.5% · ≥ 2 blocks"
    assert xml_text(clean) is clean


def _exam_with_title(tmp_path, title):
    path = tmp_path / "exam.toml"
    path.write_text(EXAM, encoding="utf-8")
    recipe = load_bank_recipe(path)
    exam = dataclasses.replace(recipe.exam, title=title)
    return dataclasses.replace(recipe, title=title, exam=exam)


def _parse_all(bank):
    from quizgen.export.lms.moodle import moodle_xml
    from quizgen.export.lms.qti import qti_files

    ET.fromstring(moodle_xml(bank).encode("utf-8"))
    for name, data in qti_files(bank).items():
        if name.endswith((".xml", ".svg")):
            ET.fromstring(data)
    for name, data in bank.figures.items():
        ET.fromstring(data)


@pytest.mark.parametrize("ch", FORBIDDEN + KEPT, ids=lambda c: f"U+{ord(c):04X}")
def test_every_character_in_a_title_gives_well_formed_moodle_and_qti(tmp_path, ch):
    from quizgen.export.lms.gift import gift_text

    bank = build_bank(_exam_with_title(tmp_path, f"Mid{ch}term {ch}"), variants=1)
    _parse_all(bank)
    text = gift_text(bank)
    assert not any(bad in text for bad in FORBIDDEN)
    if ch in KEPT and ch not in "\t\n":
        from quizgen.export.lms.moodle import moodle_xml

        assert ch in moodle_xml(bank)               # nothing allowed is lost


def test_every_forbidden_character_in_problem_text_and_feedback(tmp_path):
    """The same characters inside the words of a question, its feedback and its options."""
    from quizgen.export.lms.moodle import moodle_xml

    junk = "".join(FORBIDDEN)
    bank = build_bank(_exam_with_title(tmp_path, "Quiz"), variants=1)
    for i, q in enumerate(bank.questions):
        boxes = tuple(dataclasses.replace(
            b, label=b.label + junk, hint=b.hint + junk,
            answers=tuple(dataclasses.replace(a, feedback=a.feedback + junk) for a in b.answers))
            for b in q.boxes)
        bank.questions[i] = dataclasses.replace(q, name=q.name + junk, boxes=boxes,
                                                category=q.category[:-1] + (q.category[-1] + junk,))
    _parse_all(bank)
    written = moodle_xml(bank)
    assert not any(bad in written for bad in FORBIDDEN)
    assert bank.questions[0].boxes[0].answers[0].feedback.rstrip(junk) in written


def test_svg_figures_and_card_html_pass_the_sanitiser():
    from quizgen.render.cards import esc
    from quizgen.gpus import resolve_gpu
    from quizgen.render.figures import occupancy_sweep
    from quizgen.engine.occupancy import launch_config

    junk = "".join(FORBIDDEN)
    gpu = dataclasses.replace(resolve_gpu("textbook"), name=f"My{junk}GPU")
    svg = occupancy_sweep(gpu, launch_config(256, 32, 0))
    ET.fromstring(svg.encode("utf-8"))
    assert "MyGPU" in svg or "My\ufffd" in svg
    html_text = esc(f"T < 32{junk}")
    ET.fromstring(f"<p>{html_text}</p>".encode("utf-8"))


@pytest.mark.parametrize("fmt, suffix", [("moodle", ".xml"), ("qti", ".zip")])
def test_export_command_with_a_pasted_title(tmp_path, fmt, suffix):
    """The teacher's case: a recipe whose title holds U+0001 and U+FFFE (TOML escapes)."""
    recipe = tmp_path / "pasted.toml"
    recipe.write_text(EXAM.replace('title = "Quiz"', 'title = "Mid\\u0001term\\uFFFE 2025"'),
                      encoding="utf-8")
    out = tmp_path / f"bank{suffix}"
    run = subprocess.run([sys.executable, "-m", "quizgen", "export", str(recipe), "--format",
                          fmt, "--variants", "1", "--out", str(out)],
                         capture_output=True, text=True, encoding="utf-8")
    assert run.returncode == 0, run.stderr
    if fmt == "moodle":
        root = ET.fromstring(out.read_bytes())
        assert any("Midterm 2025" in (c.text or "") for c in root.iter("text"))
    else:
        with zipfile.ZipFile(out) as zf:
            for name in zf.namelist():
                if name.endswith(".xml"):
                    ET.fromstring(zf.read(name))


def test_html_pages_drop_what_xml_forbids_from_a_students_answer(tmp_path):
    """A feedback page shows what a student typed; pasted from a PDF it can hold controls and
    noncharacters, which the page's one template environment drops (`quizgen.xmltext`)."""
    import csv
    import io

    from quizgen.export.sheet import plan_exam
    from quizgen.recipes import Student, parse_exam_recipe
    from quizgen.generator import generate_one
    from quizgen.grade.grader import grade_class

    recipe = {"title": "Pasted\x01 answers\ufffe", "lang": "en", "seed": 1,
              "questions": [{"cell": "OCC-2", "level": 1, "points": 2}]}
    plan = plan_exam(parse_exam_recipe(recipe), [Student("Asha\x0b", "A1")], None,
                     generate=generate_one)
    (tmp_path / "manifest.json").write_text(plan.manifest_text(), encoding="utf-8")
    rows = list(csv.reader(io.StringIO(plan.answers_csv.removeprefix("\ufeff"))))
    rows[1][rows[0].index("Q1.occupancy")] = "25\x02%\x1f\uffff"
    with (tmp_path / "answers.csv").open("w", encoding="utf-8", newline="") as fh:
        csv.writer(fh).writerows(rows)
    grade_class(tmp_path / "manifest.json", tmp_path / "answers.csv", tmp_path / "g",
                feedback_format="html")
    pages = [*(tmp_path / "g" / "feedback").glob("*.html"), tmp_path / "g" / "class-report.html"]
    assert len(pages) == 2
    for page in pages:
        text = page.read_text(encoding="utf-8")
        assert xml_text(text) == text, page.name
        assert "Pasted answers" in text
