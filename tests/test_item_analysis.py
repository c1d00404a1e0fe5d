"""Item analysis, the misconception map and the follow-up decks of a graded class.

The statistics are checked against a class small enough to work by hand (below), and the map
against a generated class of 60 whose misconceptions were planted.

Hand-worked class: five students, three one-point items.

    student  A  B  C  total
    S1       1  1  1  3
    S2       1  1  0  2
    S3       1  0  1  2
    S4       0  1  0  1
    S5       0  0  0  0

* Facility: A 3/5 = 0.6, B 0.6, C 0.4.
* Item–rest correlation (Henrysson 1963). A: A = (1,1,1,0,0), rest = total − A = (2,1,1,1,0);
  deviations (.4,.4,.4,−.6,−.6) and (1,0,0,0,−1): Σxy = 1.0, Σx² = 1.2, Σy² = 2, so
  r = 1/√2.4 = 0.6455. B: rest (2,1,2,0,0), Σxy = .4 + 0 − .6 − .4 + .6 = 0, so r = 0 (flagged low).
  C: rest (2,2,1,1,0), deviations (.6,−.4,.6,−.4,−.4) and (.8,.8,−.2,−.2,−1.2): Σxy = 0.6,
  Σx² = 1.2, Σy² = 2.8, r = 0.6/√3.36 = 0.3273.
* Cronbach's α (= KR-20 here): totals (3,2,2,1,0) have mean 1.6 and variance 5.2/5 = 1.04; the
  items' variances p(1−p) are .24, .24, .24; α = 3/2 · (1 − .72/1.04) = 0.4615.
* Scores: mean 1.6, sample SD √(5.2/4) = 1.1402, quartiles (inclusive) of 0,1,2,2,3: 1, 2, 2.
"""

from __future__ import annotations

import csv
import io
import json
import math
import sqlite3
import subprocess
import sys
import zipfile
from fractions import Fraction

import pytest

from quizgen.errors import QuizgenError
from quizgen.export.sheet import plan_exam
from quizgen.recipes import Student, grade_bands, parse_exam_recipe
from quizgen.generator import generate_one
from quizgen.grade.analysis import (analyse_class, cronbach_alpha, grade_band, pearson,
                                    upper_lower_index)
from quizgen.grade.follow_up import follow_ups, slip_cards, write_follow_up_decks
from quizgen.grade.grader import check_answer, grade_class
from quizgen.grade.results import BoxResult, CheckResult, QuestionResult, StudentResult

HAND = {"S1": (1, 1, 1), "S2": (1, 1, 0), "S3": (1, 0, 1), "S4": (0, 1, 0), "S5": (0, 0, 0)}


def _student(roll: str, points: tuple[int, ...]) -> StudentResult:
    boxes = []
    for key, p in zip("abc", points):
        check = CheckResult(key, "x", "correct" if p else "wrong", 1, "1")
        boxes.append(BoxResult(1, f"Q1.{key}", check, Fraction(1), Fraction(p)))
    return StudentResult(roll, roll, "V", 2, [QuestionResult(1, "OCC-2", "p", "t", boxes)])


@pytest.fixture(scope="module")
def hand():
    students = [_student(roll, pts) for roll, pts in HAND.items()]
    return analyse_class(students, ["Q1.a", "Q1.b", "Q1.c"])


def test_facility_and_item_rest_discrimination_match_the_hand_worked_class(hand):
    by = {i.item: i for i in hand.items}
    assert [round(by[k].facility, 4) for k in ("Q1.a", "Q1.b", "Q1.c")] == [0.6, 0.6, 0.4]
    assert by["Q1.a"].discrimination == pytest.approx(1 / math.sqrt(2.4))
    assert by["Q1.b"].discrimination == pytest.approx(0.0, abs=1e-12)
    assert by["Q1.c"].discrimination == pytest.approx(0.6 / math.sqrt(3.36))


def test_reliability_and_distribution_match_the_hand_worked_class(hand):
    assert hand.alpha == pytest.approx(1.5 * (1 - 0.72 / 1.04))
    d = hand.distribution
    assert (d.mean, d.minimum, d.maximum) == (1.6, 0.0, 3.0)
    assert d.sd == pytest.approx(math.sqrt(1.3))
    assert d.quartiles == (1.0, 2.0, 2.0)


def test_an_item_that_does_not_separate_is_flagged_and_a_good_one_is_not(hand):
    by = {i.item: i for i in hand.items}
    assert [reason for reason, _ in by["Q1.b"].flags] == ["low"]
    assert by["Q1.a"].flags == []


def test_kelleys_upper_lower_index_on_ten_students():
    # totals 0…9; the 27% groups are 3 students each (round(2.7)): the item is right for the
    # top three and for one of the bottom three → D = (3 − 1)/3
    totals = list(range(10))
    item = [1, 0, 0, 0, 1, 0, 1, 1, 1, 1]
    assert upper_lower_index(item, totals, 1) == pytest.approx(2 / 3)
    assert upper_lower_index([1] * 10, totals, 1) == 0


def test_undefined_statistics_are_none_not_a_number():
    assert pearson([1, 1, 1], [0, 1, 2]) is None
    assert cronbach_alpha([[1, 1], [1, 1]]) is None      # totals do not vary


def test_grade_bands_read_and_applied():
    bands = grade_bands({"A": 85, "B": 70, "C": 50, "F": 0})
    assert bands[0] == ("A", 85.0)
    assert [grade_band(p, bands) for p in (100, 85, 84.9, 70, 10)] == ["A", "A", "B", "B", "F"]
    for bad in ({"A": 101}, {"A": "x"}, {"A": float("inf")}, {"A": 50, "B": 50}, []):
        with pytest.raises(QuizgenError):
            grade_bands(bad)


def test_every_mapped_misconception_and_card_exists():
    from quizgen.problems.concepts import card_ids
    from quizgen.render.phrases import has

    cards = set(card_ids())
    for key, card in slip_cards().items():
        assert has("en", "misconception", key) and has("hinglish", "misconception", key), key
        assert card in cards, card


# ---------------------------------------------------------------------------------------------
# A class of 60 with planted misconceptions

RECIPE = {"title": "Planted class", "lang": "en", "seed": 60,
          "grades": {"A": 85, "B": 60, "C": 40},
          "questions": [
              {"cell": "OCC-2", "level": 1, "points": 2},
              {"cell": "W-E", "level": 2, "points": 2},
              {"cell": "OCC-7", "level": 1, "points": 2},
              {"cell": "OCC-2", "level": 2, "points": 2}]}


def _text(value) -> str:
    return ", ".join(value) if isinstance(value, list) else str(value)


def _slip(question: dict, key: str | None = None) -> tuple[str, str] | None:
    """A misconception option of the question's main answer that the grader puts down to that
    misconception (value, key); None if it has none."""
    main = question["main_answer"]
    for choice in question.get("choices", []):
        m = choice.get("misconception")
        if not m or choice.get("correct") or (key is not None and m != key):
            continue
        text = _text(choice["value"])
        result = check_answer(question, main, text)
        if result.status == "wrong" and result.misconceptions[:1] == (m,):
            return text, m
    return None


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    work = tmp_path_factory.mktemp("planted")
    roster = [Student(f"Student {i:02d}", f"R{i:02d}") for i in range(60)]
    plan = plan_exam(parse_exam_recipe(RECIPE), roster, None, generate=generate_one)
    manifest = plan.manifest
    rows = list(csv.reader(io.StringIO(plan.answers_csv.removeprefix("\ufeff"))))
    header = rows[0]
    truth: dict[str, set[tuple[str, int]]] = {}      # misconception → {(roll, question)}
    for i, (row, paper) in enumerate(zip(rows[1:], manifest.students)):
        questions = {q["number"]: q for q in paper.questions}
        for number, q in questions.items():
            for key, value in q["answers"].items():
                column = f"Q{number}.{key}"
                if column in header:
                    row[header.index(column)] = _text(value)
        chosen: list[tuple[int, tuple[str, str]]] = []
        if i < 20:                                  # one slip in Q1
            chosen.append((1, _slip(questions[1])))
        if 10 <= i < 30:                            # one in Q2 (a third of them also in Q1)
            chosen.append((2, _slip(questions[2])))
        if 40 <= i < 48:                            # the tail wave
            chosen.append((3, _slip(questions[3])))
        if 50 <= i < 56:                            # systematic: the same slip in Q1 and Q4
            for first in [c for c in questions[1].get("choices", []) if c.get("misconception")]:
                a = _slip(questions[1], first["misconception"])
                b = _slip(questions[4], first["misconception"])
                if a and b:
                    chosen += [(1, a), (4, b)]
                    break
        for number, slip in chosen:
            if slip is None:
                continue
            text, key = slip
            row[header.index(f"Q{number}.{questions[number]['main_answer']}")] = text
            truth.setdefault(key, set()).add((f"R{i:02d}", number))
    (work / "manifest.json").write_text(plan.manifest_text(), encoding="utf-8")
    with (work / "answers.csv").open("w", encoding="utf-8", newline="") as fh:
        csv.writer(fh).writerows(rows)
    summary = grade_class(work / "manifest.json", work / "answers.csv", work / "graded")
    return work, manifest, summary, truth


def test_the_map_recovers_exactly_the_planted_misconceptions(planted):
    work, manifest, summary, truth = planted
    assert sum(len(v) for v in truth.values()) >= 50        # the planting found its slips
    from quizgen.grade.graded import answer_columns, bands_of

    analysis = summary.graded.analysis              # the one grading worked out
    assert analysis == analyse_class(summary.students, answer_columns(summary.students, manifest),
                                     manifest, bands_of(manifest))
    found = {m.key: m for m in analysis.misconceptions}
    assert set(found) == set(truth)
    label = {s.label: s.roll for s in summary.students}
    for key, where in truth.items():
        m = found[key]
        assert {label[s] for s in m.students} == {roll for roll, _ in where}, key
        assert set(m.questions) == {q for _, q in where}, key
        assert m.boxes == len(where)
        rolls_twice = {roll for roll, _ in where if sum(1 for r, _ in where if r == roll) > 1}
        assert {label[s] for s in m.systematic} == rolls_twice, key


def test_the_graded_folder_holds_the_analysis_and_the_grades(planted):
    work, manifest, summary, truth = planted
    out = work / "graded"
    rows = list(csv.DictReader(io.StringIO((out / "misconceptions.csv").read_text("utf-8-sig"))))
    assert {r["misconception"]: int(r["students"]) for r in rows} == \
        {k: len({roll for roll, _ in v}) for k, v in truth.items()}
    items = {r["item"]: r for r in csv.DictReader(io.StringIO((out / "analysis.csv").read_text("utf-8-sig")))}
    assert set(items) >= {"Q1", "Q2", "Q3", "Q4"}
    q1 = items["Q1"]
    earned = [sum(float(b.points) for b in s.questions[0].boxes if b.question == 1)
              for s in summary.students]
    # facility of Q1 = its mean points over its points
    by_number = {q.number: q for s in summary.students for q in s.questions}
    assert float(q1["facility"]) == pytest.approx(
        sum(q.score for s in summary.students for q in s.questions if q.number == 1)
        / (60 * by_number[1].max_score), abs=1e-4)
    assert earned  # the grader graded Q1 for every student
    results = list(csv.DictReader(io.StringIO((out / "results.csv").read_text("utf-8-sig"))))
    for r in results:
        share = 100 * float(r["score"]) / float(r["max_score"])
        assert r["grade"] == ("A" if share >= 85 else "B" if share >= 60 else "C" if share >= 40 else "")
    report = (out / "report.md").read_text("utf-8")
    assert "## Item analysis" in report and "Cronbach" in report
    page = (out / "class-report.html").read_text("utf-8")
    assert page.count("<svg") == 2 and "http" not in page.replace("http://www.w3.org/2000/svg", "")


def test_each_follow_up_holds_what_the_paper_showed(planted, tmp_path):
    work, manifest, summary, truth = planted
    plans = {p.key: p for p in follow_ups(summary.students, manifest)}
    cards = slip_cards()
    for key, where in truth.items():
        for roll, _ in where:
            assert key in plans[roll].misconceptions
            if key in cards:
                assert cards[key] in plans[roll].cards
    by_roll = {s.roll: s for s in summary.students}
    for roll, plan in plans.items():
        lost = {q.cell for q in by_roll[roll].questions if q.score < q.max_score}
        assert {cell for cell, _ in plan.skills} == lost, roll
        shown = {k for k, v in truth.items() if any(r == roll for r, _ in v)}
        assert set(plan.misconceptions) == shown, roll


@pytest.mark.slow
def test_follow_up_decks_import_into_anki_with_their_notes(planted, tmp_path):
    from anki.collection import Collection, ImportAnkiPackageRequest

    work, manifest, summary, truth = planted
    written = write_follow_up_decks(summary.graded, tmp_path / "decks", lang="en",
                                    timestamp=1_700_000_000)
    assert len(written) == 61 and written[-1][0].name == "class.apkg"
    for path, plan in written:      # every deck: one skill note per skill, one card per concept
        with zipfile.ZipFile(path) as z:
            db = tmp_path / "c.anki2"
            db.write_bytes(z.read("collection.anki2"))
        with sqlite3.connect(db) as con:
            models = dict(con.execute("select id, name from notetypes")) if _has(con, "notetypes") \
                else {int(k): v["name"] for k, v in json.loads(con.execute("select models from col").fetchone()[0]).items()}
            kinds = [models[mid] for (mid,) in con.execute("select mid from notes")]
        assert sum("skill" in k for k in kinds) == len(plan.skills), path.name
        assert sum("concept" in k for k in kinds) == len(plan.cards), path.name
    # two students' decks and the class deck into one real collection: a later import of the
    # same student's deck updates notes instead of adding copies
    (tmp_path / "col").mkdir()
    col = Collection(str(tmp_path / "col" / "collection.anki2"))
    try:
        first = next(p for p, plan in written if plan.skills and plan.cards)
        for path in (first, first):
            col.import_anki_package(ImportAnkiPackageRequest(package_path=str(path)))
        plan = next(plan for p, plan in written if p == first)
        assert col.note_count() == len(plan.skills) + len(plan.cards)
    finally:
        col.close()


def _has(con, table: str) -> bool:
    return con.execute("select 1 from sqlite_master where name = ?", (table,)).fetchone() is not None


def test_grade_remedial_from_the_command_line(planted, tmp_path):
    work, *_ = planted
    done = subprocess.run([sys.executable, "-m", "quizgen", "grade", str(work / "manifest.json"),
                           str(work / "answers.csv"), "--out", str(tmp_path / "g"),
                           "--remedial", str(tmp_path / "f")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert len(list((tmp_path / "f").glob("*.apkg"))) == 61
    assert "61 follow-up decks" in done.stdout


# ---------------------------------------------------------------------------------------------
# The class report as a teacher opens it: a phone, then the printer

@pytest.fixture(scope="module")
def reports(planted, tmp_path_factory):
    """class-report.html of the planted class in both languages."""
    work, manifest, summary, truth = planted
    out = {}
    for lang in ("en", "hinglish"):
        folder = tmp_path_factory.mktemp(f"report-{lang}")
        grade_class(work / "manifest.json", work / "answers.csv", folder / "g", lang=lang)
        out[lang] = folder / "g" / "class-report.html"
    return out


@pytest.mark.parametrize("lang", ["en", "hinglish"])
def test_the_class_report_reads_on_a_phone_and_prints(reports, lang, tmp_path):
    import base64

    from browser import Browser, chromium_path

    from pypdf import PdfReader

    assert chromium_path(), "chromium is needed (Debian: apt-get install chromium)"
    with Browser() as chromium:
        page = chromium.page(width=390, height=800, mobile=True)
        page.open(reports[lang])
        layout = page.eval("""(() => {
            const figs = [...document.querySelectorAll('figure svg')].map(s => s.getBoundingClientRect());
            return {page: document.documentElement.scrollWidth, view: innerWidth,
                    figs: figs.map(r => [r.width, r.height]),
                    rows: document.querySelectorAll('table tr').length,
                    requests: performance.getEntriesByType('resource').length};
        })()""")
        # nothing wider than the phone but the tables' own scroll boxes; figures drawn; the page
        # asked the network for nothing
        assert layout["page"] <= layout["view"], layout
        assert len(layout["figs"]) == 2 and all(w > 300 and h > 150 for w, h in layout["figs"])
        assert layout["rows"] > 30 and layout["requests"] == 0
        png = page.screenshot()
        ink = page.pixels_js(png, """let dark = 0;
            for (let i = 0; i < data.length; i += 4) if (data[i] < 128) dark++;
            return dark / (width * height);""")
        assert 0.005 < ink < 0.5       # text and figures, not a blank or a black page
        pdf = base64.b64decode(page.send("Page.printToPDF", {"printBackground": True})["data"])
    (tmp_path / "report.pdf").write_bytes(pdf)
    reader = PdfReader(tmp_path / "report.pdf")
    text = " ".join(p.extract_text() for p in reader.pages)
    words = {"en": ("Item analysis", "Cronbach"), "hinglish": ("Poori class ke misconceptions", "Cronbach")}
    assert all(w in text for w in words[lang]) and "Planted class" in text
