"""LMS question banks: Moodle XML, GIFT and Canvas QTI read back by strict readers written from
the importers' rules (tests/lms_readers.py), checked against the problem records."""

from __future__ import annotations

import html
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from functools import cache
from pathlib import Path

import pytest

from lms_readers import (ImportRejected, extract_cloze, read_gift, read_moodle_xml, read_qti,
                         validate_cloze)
from quizgen.export.lms import (MOODLE_GRADES, Answer, Box, answer_tolerance, build_bank,
                                is_moodle_grade, lms_labels, lms_options, load_bank_recipe)
from quizgen.export.lms.gift import gift_text
from quizgen.export.lms.moodle import cloze_escape, cloze_markup, moodle_xml, prose_for_cloze
from quizgen.export.lms.qti import qti_zip
from quizgen.problems import CELLS
from quizgen.errors import QuizgenError


@cache
def course_bank(lang: str = "en", variants: int = 2):
    return build_bank(load_bank_recipe(None), variants=variants, lang=lang)


@cache
def exam_bank():
    return build_bank(load_bank_recipe("midterm"), variants=3)


@cache
def all_answers_bank():
    return build_bank(load_bank_recipe("occupancy-basics"), variants=2, lang="en", answers="all")


def _by_id(bank):
    return {q.idnumber: q for q in bank.questions}


def _assert_numerical_against_record(problem, key, answers, tolerance_of):
    """answers: [(text, fraction, feedback, tolerance)]: the record's number at 100% and, where
    the prompt offers a percentage, that number × 100 at 100% too; no other answer in its window."""
    from quizgen.export.lms import offers_percent

    value = problem.answers[key]
    right = sorted((a for a in answers if a[1] == 1.0), key=lambda a: abs(float(a[0]) - value))
    assert len(right) == (2 if offers_percent(problem, key) else 1)
    assert float(right[0][0]) == value                     # exactly the record's number
    specs = getattr(problem, "answer_specs", None) or {}
    expected = specs[key]["tolerance"] if key in specs else problem.tolerances.get(key, 0.0)
    assert right[0][3] == expected == answer_tolerance(problem, key)
    if len(right) == 2:
        assert float(right[1][0]) == pytest.approx(value * 100, abs=1e-9)
        assert right[1][3] == pytest.approx(right[0][3] * 100, abs=1e-12)
    low, high = value - right[0][3], value + right[0][3]
    for text, fraction, feedback, tol in answers:
        if fraction == 1.0 or text == "*":
            continue
        wrong = float(text)
        # no wrong answer lies in the right window (how the windows of percent forms meet the
        # others is graded by Moodle's rules in tests/test_lms_moodle_grading.py)
        assert not low <= wrong <= high, (key, wrong, value)
        assert feedback.strip()


# ---------------------------------------------------------------------------------------------
# Moodle XML


@pytest.mark.parametrize("lang", ["en", "hinglish"])
def test_moodle_bank_reads_back_equal_to_the_records(lang):
    bank = course_bank(lang)
    questions = read_moodle_xml(moodle_xml(bank))
    records = _by_id(bank)
    assert len(questions) == len(bank.questions) == len(CELLS) * 2
    assert {q.category for q in questions} == {("quizgen", cell) for cell in
                                              {q.problem.cell for q in bank.questions}}
    assert len({q.idnumber for q in questions}) == len(questions)
    kinds = set()
    for q in questions:
        record = records[q.idnumber]
        problem = record.problem
        kinds.add(q.qtype)
        assert q.category == ("quizgen", problem.cell)
        for a in q.answers:
            assert any(abs(a.fraction * 100 - g) < 0.001 for g in MOODLE_GRADES)
        if q.qtype == "numerical":
            key = problem.main_answer
            _assert_numerical_against_record(
                problem, key, [(a.text, a.fraction, a.feedback, a.tolerance) for a in q.answers],
                answer_tolerance)
            assert q.answers[-1].text == "*" and q.answers[-1].fraction == 0
            assert len(q.answers) >= 3        # right, at least one modelled trap, anything else
        elif q.qtype == "multichoice":
            right = [a for a in q.answers if a.fraction == 1.0]
            correct = [c for c in problem.choices if c.correct]
            assert [html.unescape(a.text) for a in right] == [c.text for c in correct]
            for a, choice in zip(q.answers, problem.choices):
                assert html.unescape(a.text) == choice.text
                assert a.feedback
                if not choice.correct:
                    assert html.unescape(a.feedback) == choice.why
        else:
            pytest.fail(f"unexpected {q.qtype}")
    assert kinds == {"numerical", "multichoice"}


def test_moodle_html_and_mathjax_survive_and_figures_decode_as_svg():
    from quizgen.render.cards import question_html, solution_html

    bank = course_bank("en")
    records = _by_id(bank)
    questions = read_moodle_xml(moodle_xml(bank))
    figures = 0
    for q in questions:
        problem = records[q.idnumber].problem
        assert q.questiontext.startswith(question_html(problem))
        solution = solution_html(problem)
        assert q.generalfeedback.startswith(lms_labels(solution))
        assert solution.count('<span class="qz-label">') == q.generalfeedback.count("<strong")
        if problem.solution.steps and any(s.formula for s in problem.solution.steps):
            assert "\\(" in q.generalfeedback and "\\)" in q.generalfeedback
        for path, data in q.files.items():
            root = ET.fromstring(data)
            assert root.tag.endswith("svg"), path
            assert f'src="@@PLUGINFILE@@{path}"' in q.generalfeedback
            figures += 1
    assert figures >= 20


def test_cdata_splits_a_closing_marker():
    from quizgen.export.lms.moodle import cdata

    text = "a]]>b <p>&amp;</p>"
    root = ET.fromstring(f"<t>{cdata(text)}</t>")
    assert root.text == text


def test_exam_cloze_parses_into_one_sub_question_per_asked_answer():
    bank = exam_bank()
    records = _by_id(bank)
    recipe = load_bank_recipe("midterm").exam
    questions = read_moodle_xml(moodle_xml(bank))
    assert len(questions) == 3 * len(recipe.questions)
    seen_multi = seen_choice = False
    for q in questions:
        record = records[q.idnumber]
        problem = record.problem
        number = int(q.category[-1].split()[0][1:])
        asked = recipe.questions[number - 1].answers or tuple(problem.answers)
        assert q.qtype == ("cloze" if len(asked) > 1 else q.qtype)
        if q.qtype != "cloze":
            continue
        assert len(q.subs) == len(asked)
        for key, sub in zip(asked, q.subs):
            value = problem.answers[key]
            if sub.qtype == "numerical":
                _assert_numerical_against_record(
                    problem, key, list(zip(sub.answers, sub.fractions, sub.feedback, sub.tolerance)),
                    answer_tolerance)
            elif sub.qtype == "multiresponse":
                seen_multi = True
                from quizgen.render.answers import answer_text

                right = sorted(a for a, f in zip(sub.answers, sub.fractions) if f > 0)
                assert right == sorted(answer_text([v], "limiter", problem.lang) for v in value)
                assert abs(sum(f for f in sub.fractions if f > 0) - 1) < 1e-6
                assert all(f < 0 for a, f in zip(sub.answers, sub.fractions) if a not in right)
            else:
                seen_choice = True
                right = [a for a, f in zip(sub.answers, sub.fractions) if f == 1]
                from quizgen.render.answers import answer_text

                assert right == [answer_text(value, str(problem.units.get(key, "")), problem.lang)]
            for f in sub.fractions:
                assert is_moodle_grade(f * 100)
            assert all(fb.strip() for fb in sub.feedback)
    assert seen_multi and seen_choice


def test_all_answers_of_a_deck_recipe_become_a_cloze():
    bank = all_answers_bank()
    records = _by_id(bank)
    for q in read_moodle_xml(moodle_xml(bank)):
        problem = records[q.idnumber].problem
        asked = [b.key for b in records[q.idnumber].boxes]
        assert len(asked) >= 4 and q.qtype == "cloze" and len(q.subs) == len(asked)
        for key, sub in zip(asked, q.subs):
            if sub.qtype == "numerical":
                assert float(sub.answers[0]) == problem.answers[key]


TRICKY = 'T < 32 & "x" ~ {1:NUMERICAL:=1} #3 / \\( \\frac{a}{b} \\) 50% = a:b ]]> &amp;'


def test_cloze_escaping_survives_moodles_parser():
    from quizgen.render.cards import esc

    box = Box("k", "k", "h", "choice", (
        Answer("right " + TRICKY, 1, 100.0, "fb " + TRICKY),
        Answer("wrong } # ~", 2, 33.33333, TRICKY, misconception="m")))
    number = Box("n", "n", "h", "numerical", (
        Answer("0.1875", 0.1875, 100.0, TRICKY, 0.0005),
        Answer("1e-05", 1e-05, -50.0, "} # ~ \\", 0.0005)))
    text = f"<p>{prose_for_cloze(esc(TRICKY))}</p> {cloze_markup(box)} and {cloze_markup(number)}"
    rest, subs = extract_cloze(text)
    validate_cloze(subs)
    assert len(subs) == 2 and rest.endswith("{#1} and {#2}")
    assert subs[0].answers == [esc("right " + TRICKY), esc("wrong } # ~")]
    assert subs[0].feedback == [esc("fb " + TRICKY), esc(TRICKY)]
    assert subs[0].fractions == [1.0, pytest.approx(0.3333333)]
    assert subs[1].answers == ["0.1875", "1e-05"] and subs[1].tolerance == [0.0005, 0.0005]
    assert subs[1].fractions == [1.0, -0.5]
    assert subs[1].feedback == [esc(TRICKY), esc("} # ~ \\")]
    assert html.unescape(cloze_escape(esc(TRICKY))) == esc(TRICKY)
    assert html.unescape(rest.split("</p>")[0]) == "<p>" + html.unescape(esc(TRICKY))


def test_a_misconceptions_partial_grade_comes_from_the_recipe(tmp_path):
    recipe = tmp_path / "r.toml"
    recipe.write_text('name = "r"\ncells = ["OCC-2"]\nper_cell = 3\nlevels = [2]\nlang = "en"\n'
                      '[lms]\ndefault_partial = 10\npartial = { no_floor = 50 }\n', encoding="utf-8")
    bank = build_bank(load_bank_recipe(recipe))
    questions = read_moodle_xml(moodle_xml(bank))
    records = _by_id(bank)
    grades = {}
    for q in questions:
        box = records[q.idnumber].boxes[0]
        read = {r.text: r.fraction for r in q.answers}
        for a in box.answers:
            if a.misconception:
                grades.setdefault(a.misconception, set()).add(read[a.text])
    assert grades["no_floor"] == {0.5}
    assert all(g == {0.1} for k, g in grades.items() if k != "no_floor")


@pytest.mark.parametrize("table, message", [
    ({"default_partial": 45}, "lms.default_partial: got 45"),
    ({"partial": {"no_floor": 100}}, "lms.partial.no_floor"),
    ({"partial": {"no_floor": "half"}}, "expected a percentage"),
    ({"bonus": 1}, "unknown key 'bonus'"),
])
def test_recipe_grades_outside_moodles_list_are_refused(table, message):
    with pytest.raises(QuizgenError, match=message.replace("(", r"\(")):
        lms_options(table)


def test_every_listed_grade_passes_moodles_check_and_others_do_not():
    assert all(is_moodle_grade(g) for g in MOODLE_GRADES)
    assert len(MOODLE_GRADES) == 41
    assert not any(is_moodle_grade(g) for g in (45, 33.3, 99, 101, 12))


def test_moodle_bank_of_every_cell_by_20_variants_exports_in_under_5_seconds():
    # CPU time of this process: the figure a user's idle machine shows, whatever else CI runs
    start = time.process_time()
    bank = build_bank(load_bank_recipe(None), variants=20, lang="hinglish")
    text = moodle_xml(bank)
    elapsed = time.process_time() - start
    assert len({q.category for q in bank.questions}) == len(CELLS)
    assert len(bank.questions) == len(CELLS) * 20
    assert len(text) > 1_000_000
    assert elapsed < 5.0, f"{elapsed:.2f} s"


def test_export_is_deterministic():
    bank = exam_bank()
    again = build_bank(load_bank_recipe("midterm"), variants=3)
    assert moodle_xml(bank) == moodle_xml(again)
    assert qti_zip(bank) == qti_zip(again)


# ---------------------------------------------------------------------------------------------
# GIFT


def test_gift_reads_back_equal_to_the_records():
    bank = course_bank("hinglish")
    questions = read_gift(gift_text(bank))
    assert len(questions) == len(bank.questions)
    for q, record in zip(questions, bank.questions):
        problem = record.problem
        assert q.category == "$course$/quizgen/" + problem.cell
        assert q.fmt == "html" and q.name == record.name
        assert q.generalfeedback.startswith("<div")
        if q.qtype == "numerical":
            _assert_numerical_against_record(problem, problem.main_answer, q.answers,
                                             answer_tolerance)
            assert q.answers[-1][0] == "*"
        else:
            right = [html.unescape(a[0]) for a in q.answers if a[1] == 1.0]
            assert right == [c.text for c in problem.choices if c.correct]
            assert all(a[2] for a in q.answers)


def test_gift_splits_a_multi_box_problem_into_one_question_per_box():
    bank = exam_bank()
    questions = read_gift(gift_text(bank))
    assert len(questions) == sum(len(q.boxes) for q in bank.questions)
    multi = [q for q in questions if q.name.endswith("(limiter)")]
    assert multi and all(q.qtype == "multichoice" for q in multi)
    for q in multi:     # tick every binding limit: no "=", the right ones share 100%
        assert abs(sum(a[1] for a in q.answers if a[1] > 0) - 1) < 1e-6
        assert any(a[1] < 0 for a in q.answers)
    assert {q.category.rsplit("/", 1)[-1] for q in questions} >= {"blocks_per_sm", "limiter"}


def test_gift_escapes_survive_the_importer():
    from quizgen.export.lms.gift import gift_escape

    text = "::n\\: 1::[html]<p>" + gift_escape(TRICKY) + "</p>{=a " + gift_escape("= ~ # {}") + \
           "#" + gift_escape(TRICKY) + " ~%50%b#x}"
    (q,) = read_gift(text)
    assert q.name == "n: 1" and q.text == "<p>" + TRICKY + "</p>"
    assert q.answers[0] == ("a = ~ # {}", 1.0, TRICKY, None)
    assert q.answers[1][1] == 0.5


def test_gift_rejects_what_moodle_rejects():
    with pytest.raises(ImportRejected):
        read_gift("::x::text {#=%45%3:0#no}")           # 45% is not one of Moodle's grades
    with pytest.raises(ImportRejected):
        read_gift("::x::a } b {#=3:0}")                 # an unescaped brace


# ---------------------------------------------------------------------------------------------
# Canvas QTI


def test_qti_package_structure_and_answers_equal_the_records(tmp_path):
    bank = exam_bank()
    path = tmp_path / "bank.zip"
    path.write_bytes(qti_zip(bank))
    items = read_qti(path)
    boxes = [(q, b) for q in bank.questions for b in q.boxes]
    assert len(items) == len(boxes)
    by_group = {}
    for item in items:
        by_group.setdefault(item.group, []).append(item)
    assert all(len(members) == 3 for members in by_group.values())
    grouped = {}
    for q, b in boxes:
        grouped.setdefault((q.category, b.key), []).append((q, b))
    pairs = [pair for members in grouped.values() for pair in members]
    types = set()
    for item, (q, box) in zip(items, pairs):
        problem = q.problem
        value = problem.answers[box.key]
        types.add(item.qtype)
        if item.qtype == "numerical_question":
            exact, low, high = (float(v) for v in item.right)
            tol = answer_tolerance(problem, box.key)
            assert exact == value and low == value - tol and high == value + tol
            from quizgen.export.lms import offers_percent

            if offers_percent(problem, box.key):     # the percentage, accepted too
                exact, low, high = (float(v) for v in item.accepted[1])
                assert exact == pytest.approx(value * 100) and high - low == pytest.approx(200 * tol)
            assert len(item.accepted) == (2 if offers_percent(problem, box.key) else 1)
            for wrong in box.answers:
                if wrong.grade < 100 and not wrong.percent:
                    assert html.escape(wrong.text) in item.feedback["general_incorrect_fb"]
        elif item.qtype == "multiple_answers_question":
            from quizgen.render.answers import answer_text

            assert sorted(item.right) == sorted(answer_text([v], "limiter", problem.lang)
                                                for v in value)
        else:
            from quizgen.render.answers import answer_text

            assert item.right == [html.escape(answer_text(value, str(problem.units.get(box.key, "")),
                                                          problem.lang))]
            assert all(fb for _, fb in item.options)
        assert "\\(" in item.feedback["general_fb"] or not any(
            s.formula for s in problem.solution.steps)
    assert types == {"numerical_question", "multiple_choice_question", "multiple_answers_question"}


def test_qti_course_bank_multiple_choice_equals_the_records(tmp_path):
    bank = course_bank("en")
    path = tmp_path / "bank.zip"
    path.write_bytes(qti_zip(bank))
    items = read_qti(path)
    assert len(items) == len(bank.questions)
    for item, q in zip(items, bank.questions):
        if item.qtype == "multiple_choice_question":
            assert [html.unescape(r) for r in item.right] == [c.text for c in q.problem.choices
                                                               if c.correct]
        else:
            assert float(item.right[0]) == q.problem.answers[q.problem.main_answer]


# ---------------------------------------------------------------------------------------------
# The command


def _run(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "quizgen", *args], capture_output=True,
                          text=True, cwd=cwd)


def test_export_command_writes_each_format(tmp_path):
    for fmt, name in (("moodle", "b.xml"), ("gift", "b.txt"), ("qti", "b.zip")):
        done = _run("export", "occupancy-basics", "--format", fmt, "--variants", "2",
                    "--lang", "en", "--out", str(tmp_path / name))
        assert done.returncode == 0, done.stderr
        assert "questions in 5 categories" in done.stdout
    assert len(read_moodle_xml((tmp_path / "b.xml").read_bytes())) == 10
    assert len(read_gift((tmp_path / "b.txt").read_text(encoding="utf-8"))) == 10
    assert len(read_qti(tmp_path / "b.zip")) == 10


@pytest.mark.parametrize("args, message", [
    (("--format", "docx"), "format: got 'docx'"),
    (("no-such-recipe.toml",), "no such recipe file"),
    (("--variants", "0"), "variants"),
    (("--lang", "fr"), "lang: got 'fr'"),
])
def test_export_command_bad_input_is_one_line_and_exit_2(tmp_path, args, message):
    done = _run("export", *args, "--out", str(tmp_path / "x.xml"))
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and message in done.stderr
    assert not (tmp_path / "x.xml").exists()


def test_export_help_documents_the_command():
    done = _run("export", "--help")
    assert done.returncode == 0
    for word in ("--format", "--variants", "--lang", "--answers", "moodle", "gift", "qti"):
        assert word in done.stdout


def test_readme_export_examples_run(tmp_path):
    from conftest import REPO

    lines = [line.strip().split("  #")[0].strip()
             for line in (REPO / "README.md").read_text(encoding="utf-8").splitlines()
             if line.startswith("    quizgen export ")]
    assert len(lines) >= 4
    for command in lines:
        done = _run(*command.split()[1:], "--variants", "1", cwd=tmp_path)
        assert done.returncode == 0, (command, done.stderr)
    assert len(read_moodle_xml((tmp_path / "gpu-bank.xml").read_bytes())) == len(CELLS)
    assert read_qti(tmp_path / "midterm.zip")


def test_an_lms_table_is_part_of_deck_and_exam_recipes():
    from quizgen.recipes import parse_exam_recipe
    from quizgen.recipes import recipe_from_dict

    deck = recipe_from_dict({"name": "d", "cells": ["OCC-1"], "lms": {"partial": {"no_floor": 50}}})
    assert deck.cells == ("OCC-1",)
    exam = parse_exam_recipe({"title": "t", "questions": [{"cell": "OCC-2"}],
                              "lms": {"default_partial": 10}})
    assert exam.title == "t"
    with pytest.raises(QuizgenError, match="lms.partial.no_floor"):
        recipe_from_dict({"name": "d", "lms": {"partial": {"no_floor": 45}}})
    with pytest.raises(QuizgenError, match="lms.default_partial"):
        parse_exam_recipe({"title": "t", "questions": [{"cell": "OCC-2"}],
                           "lms": {"default_partial": 101}})


# ---------------------------------------------------------------------------------------------
# In a browser: what Moodle stores, with MathJax (Moodle's filter) and the figure files


_BROWSER_PAGE = r"""<!doctype html>
<html><head><meta charset="utf-8">
<script>
window.MathJax = { tex: { inlineMath: [["\\(", "\\)"]], displayMath: [["\\[", "\\]"]] },
                   svg: { fontCache: "global" }, startup: { typeset: false } };
</script>
<script src="__MATHJAX__"></script>
</head><body>__BODY__<pre id="qz-result">pending</pre>
<script>
window.addEventListener("load", () => {
  MathJax.startup.promise.then(() => MathJax.typesetPromise()).then(() => {
    const questions = [...document.querySelectorAll(".qz-moodle")].map((q) => {
      const copy = q.cloneNode(true);
      copy.querySelectorAll("mjx-container").forEach((m) => m.remove());
      return {
        math: q.querySelectorAll("mjx-container").length,
        errors: q.querySelectorAll("[data-mjx-error], merror").length,
        leftover: copy.textContent.includes("\\(") || copy.textContent.includes("\\)"),
        images: [...q.querySelectorAll("img")].map((i) => [i.complete, i.naturalWidth]),
        inputs: q.querySelectorAll("input.qz-box").length,
      };
    });
    document.getElementById("qz-result").textContent = JSON.stringify(questions);
  }).catch((e) => { document.getElementById("qz-result").textContent = "ERROR " + e; });
});
</script></body></html>"""


def test_moodle_questions_render_in_a_browser_with_mathjax_and_svg_figures(tmp_path):
    import base64
    import json
    import os
    import re
    import shutil
    import tempfile

    browser = shutil.which("chromium") or ("/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None)
    mathjax = pytest.importorskip("mathjax")
    if browser is None:
        pytest.skip("chromium is not installed")
    script = Path(mathjax.__file__).parent / "static" / "mathjax" / "es5" / "tex-svg.js"
    questions = (read_moodle_xml(moodle_xml(course_bank("en")))[::2]
                 + read_moodle_xml(moodle_xml(exam_bank()))[::3])
    parts, expected = [], []
    for q in questions:
        text = q.questiontext
        if q.qtype == "cloze":          # as Moodle shows it: each {#n} becomes an input box
            text, subs = extract_cloze(text)
            text = re.sub(r"\{#\d+\}", '<input class="qz-box">', text)
        feedback = q.generalfeedback
        for path, data in q.files.items():
            uri = "data:image/svg+xml;base64," + base64.b64encode(data).decode("ascii")
            feedback = feedback.replace(f"@@PLUGINFILE@@{path}", uri)
        parts.append(f'<div class="qz-moodle">{text}<hr>{feedback}</div>')
        expected.append((q.questiontext.count("\\(") + q.generalfeedback.count("\\("),
                         len(q.files), len(q.subs)))
    page = tmp_path / "moodle.html"
    page.write_text(_BROWSER_PAGE.replace("__MATHJAX__", script.as_uri())
                    .replace("__BODY__", "".join(parts)), encoding="utf-8")
    profile = tempfile.mkdtemp(prefix="quizgen-chromium-")
    try:
        out = subprocess.run(
            [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
             "--no-first-run", "--disable-background-networking", "--disable-component-update",
             "--disable-sync", f"--user-data-dir={profile}", "--allow-file-access-from-files",
             "--virtual-time-budget=60000", "--dump-dom", page.as_uri()],
            capture_output=True, text=True, timeout=180)
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    match = re.search(r'<pre id="qz-result">(.*?)</pre>', out.stdout, re.S)
    assert match, out.stderr[-2000:]
    result = json.loads(html.unescape(match.group(1)))
    assert len(result) == len(questions)
    for got, (math, figures, boxes) in zip(result, expected):
        assert got["math"] == math and got["errors"] == 0 and not got["leftover"]
        assert len(got["images"]) == figures
        assert all(done and width > 0 for done, width in got["images"])
        assert got["inputs"] == boxes
    assert sum(g["math"] for g in result) > 100 and sum(len(g["images"]) for g in result) > 10


@pytest.mark.parametrize("lang, one, many", [("en", "1 variant of", "2 variants of"),
                                             ("hinglish", "ke 1 variant:", "ke 2 variants:")])
def test_category_notes_count_their_variants_in_each_language(lang, one, many):
    bank = build_bank(load_bank_recipe("occupancy-basics"), variants=2, lang=lang)
    two = moodle_xml(bank)
    bank.questions[:] = [q for i, q in enumerate(bank.questions) if i % 2 == 0]
    assert many in two and one in moodle_xml(bank)
