"""Exam recipes a teacher can trust: points per box, boxes that say how to write them, no title
that gives the answer away, versions that differ in their outcomes, shuffled question order."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from fractions import Fraction

import pypdf
import pytest

from quizgen.errors import QuizgenError
from quizgen.export import sheet
from quizgen.export.sheet import build_exam, plan_exam
from quizgen.recipes import Student, load_exam_recipe, parse_exam_recipe
from quizgen.grade.grader import question_points
from quizgen.generator import generate_one

from conftest import REPO
from test_sheet import RECIPE, _one_line, occupancy_problem

MIDTERM = REPO / "decks" / "exams" / "midterm.toml"


def test_points_per_box():
    recipe = parse_exam_recipe({**RECIPE, "questions": [
        {"cell": "OCC-2", "points": {"blocks_per_sm": 2, "occupancy": 4}},
        {"cell": "OCC-1", "points": 3, "answers": ["blocks_per_sm", "occupancy", "limiter"]}]})
    first, second = recipe.questions
    assert first.answers == ("blocks_per_sm", "occupancy") and first.total == 6
    assert recipe.total_points == 9
    plan = plan_exam(recipe, None, 1, generate=occupancy_problem)
    q1, q2 = plan.manifest.students[0].questions
    assert q1["points"] == {"blocks_per_sm": 2, "occupancy": 4}
    assert question_points(q1["points"], q1["asked"]) == {"blocks_per_sm": 2, "occupancy": 4}
    assert question_points(q2["points"], q2["asked"]) == {k: Fraction(1) for k in q2["asked"]}


@pytest.mark.parametrize("points, answers, needle", [
    ({"blocks_per_sm": 2}, ["blocks_per_sm", "occupancy"], "'occupancy' has no points"),
    ({"blocks_per_sm": 2, "warps": 1}, ["blocks_per_sm"], "'warps' is not a box asked"),
    ({"blocks_per_sm": -1}, None, "negative"),
    ({"blocks_per_sm": "two"}, None, "expected a number"),
    ({}, None, "empty table"),
])
def test_bad_box_points(points, answers, needle):
    question = {"cell": "OCC-2", "points": points}
    if answers is not None:
        question["answers"] = answers
    with pytest.raises(QuizgenError) as exc:
        parse_exam_recipe({**RECIPE, "questions": [question]})
    assert needle in _one_line(exc)


def test_cells_and_gpus_as_lists_and_shuffle_flag():
    recipe = parse_exam_recipe({**RECIPE, "shuffle": True, "questions": [
        {"cell": ["occ-2", "OCC-3"], "gpu": ["a100", "H100"]}]})
    q = recipe.questions[0]
    assert q.cells == ("OCC-2", "OCC-3") and q.gpus == ("a100", "h100") and recipe.shuffle
    assert recipe.to_dict()["questions"][0]["cell"] == ["OCC-2", "OCC-3"]
    for bad, needle in ((["OCC-2", "NOPE"], "unknown cell"), ([], "give a scenario cell")):
        with pytest.raises(QuizgenError) as exc:
            parse_exam_recipe({**RECIPE, "questions": [{"cell": bad}]})
        assert needle in _one_line(exc)
    with pytest.raises(QuizgenError) as exc:
        parse_exam_recipe({**RECIPE, "shuffle": "yes"})
    assert "shuffle" in _one_line(exc)


@pytest.fixture(scope="module")
def printed(tmp_path_factory):
    """A small exam with real families, read back: exam pages and the key."""
    recipe = parse_exam_recipe({
        "title": "Quiz", "lang": "en", "seed": 5, "questions": [
            {"cell": "OCC-3", "level": 2,
             "points": {"blocks_per_sm": 2, "active_warps": 1, "occupancy": 2, "limiter": 1}},
            {"cell": "W-E", "level": 2, "points": 3,
             "answers": ["warps_needed", "deficit", "hidable"]}]})
    out = tmp_path_factory.mktemp("printed") / "quiz"
    result = build_exam(recipe, None, 2, out, generate=generate_one)
    manifest = json.loads(result.manifest.read_text("utf-8"))
    exam = [" ".join(p.extract_text().split()) for p in pypdf.PdfReader(result.exam_pdf).pages]
    key = [" ".join(p.extract_text().split()) for p in pypdf.PdfReader(result.key_pdf).pages[:3]]
    return manifest, " ".join(exam), " ".join(key)


def test_every_box_prints_its_format_rounding_and_points(printed):
    manifest, exam, _ = printed
    assert exam.count("whole number") >= 2 * 2 + 2 * 2      # counts of Q1 and Q2, two versions
    assert "percent or fraction; right within ±0.05 percentage points" in exam
    assert "yes or no" in exam
    assert "the resource: registers, shared memory, warps, blocks" in exam
    assert "[2 points]" in exam and "[1 point]" in exam   # Q1's table, Q2's even split


def test_no_title_that_names_the_answer(printed):
    manifest, exam, key = printed
    titles = {q["title"] for s in manifest["students"] for q in s["questions"] if q["title"]}
    assert titles
    for title in titles:
        assert title not in exam
    assert any(title in key for title in titles)     # the key keeps them, for the teacher


def _survey_default(versions: int):
    recipe = load_exam_recipe(MIDTERM)
    exam = sheet.build._Exam(recipe, None, versions, generate=generate_one, paper="a4", practice=False,
                       font_paths=())
    return exam, exam.entries(range(versions))


@pytest.fixture(scope="module")
def default_200():
    return _survey_default(200)


def test_no_box_has_one_value_for_more_than_half_the_class(default_200):
    _, entries = default_200
    seen: dict[str, Counter] = {}
    for _, _, questions in entries:
        for number, _, problem, asked in questions:
            for key in asked:
                seen.setdefault(f"Q{number}.{key}", Counter())[sheet.plan._canonical(problem.answers[key])] += 1
    assert len(seen) == 25
    for column, values in seen.items():
        value, times = values.most_common(1)[0]
        assert times <= 100, f"{column}: {value} in {times} of 200 versions"


def test_versions_match_in_difficulty_and_vary_in_outcome(default_200):
    exam, entries = default_200
    steps: dict[int, set[int]] = {}
    cells: dict[int, Counter] = {}
    for _, _, questions in entries:
        for number, spec, problem, _ in questions:
            assert problem.level == spec.level
            steps.setdefault(number, set()).add(len(problem.solution.steps))
            cells.setdefault(number, Counter())[problem.cell] += 1
    for number, counts in steps.items():
        usual = exam._outcomes[number].steps
        assert all(abs(n - usual) * 10 <= usual * 3 for n in counts), (number, counts)
    # the limiter question draws from three cells, the latency question from two
    assert set(cells[1]) == {"OCC-2", "OCC-3", "OCC-4"} and set(cells[4]) == {"W-E", "W-F"}


# What a question's text asks for (as the families word it), and the box that answers it.
ASKED_WORDS = {
    "limiter": r"limiter|runs out first|lid limits|limits it|limiting",
    "occupancy": r"occupancy",
    "active_warps": r"active warps|warps are active",
    "blocks_per_sm": r"blocks/SM|blocks per SM|blocks are resident",
    "waves": r"waves",
    "idle_sms": r"no block at all|sit idle|idle",
    "tail_blocks": r"last one|the tail\b|tail wave",
    "tail_sms": r"on how many SMs|SMs the tail|SMs hold the tail",
    "slots": r"block slots",
    "wasted_lanes": r"wasted|idle lanes",
    "tail_active": r"last warp|partial one|tail warp",
    "warps_needed": r"warps|how many warps",
}


def test_every_quantity_a_question_asks_for_has_a_box(default_200):
    _, entries = default_200
    for _, _, questions in entries[:60]:
        for number, _, problem, asked in questions:
            for key, words in ASKED_WORDS.items():
                if key in problem.answers and re.search(words, problem.question, re.I):
                    assert key in asked, (number, key, problem.question)


def test_shuffled_order_is_recorded_and_columns_stay(tmp_path):
    recipe = parse_exam_recipe({**RECIPE, "shuffle": True})
    roster = [Student(f"S{i}", roll=str(i)) for i in range(6)]
    plan = plan_exam(recipe, roster, None, generate=occupancy_problem)
    plain = plan_exam(parse_exam_recipe(RECIPE), roster, None, generate=occupancy_problem)
    assert plan.answers_csv == plain.answers_csv
    orders = [p.order or [1, 2, 3] for p in plan.manifest.students]
    assert all(sorted(o) == [1, 2, 3] for o in orders) and len({tuple(o) for o in orders}) > 1
    for paper, order in zip(plan.manifest.students, orders):
        assert [q["number"] for q in paper.questions] == order
    assert plan.manifest.recipe["shuffle"] is True
    # each student's problems are the same as unshuffled, only their order differs
    by_number = lambda p: {q["number"]: q["id"] for q in p.questions}  # noqa: E731
    assert [by_number(p) for p in plan.manifest.students] == \
        [by_number(p) for p in plain.manifest.students]


def test_sheet_lang_and_shuffle_options(tmp_path):
    out = tmp_path / "hi"
    done = subprocess.run([sys.executable, "-m", "quizgen", "sheet", "--versions", "2", "--lang",
                           "hinglish", "--shuffle", "--out", str(out)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    manifest = json.loads((out / "manifest.json").read_text("utf-8"))
    assert manifest["recipe"]["lang"] == "hinglish" and manifest["recipe"]["shuffle"] is True
    assert {q["lang"] for s in manifest["students"] for q in s["questions"]} == {"hinglish"}
    assert "Sawaal" in pypdf.PdfReader(out / "exam.pdf").pages[0].extract_text()
    bad = subprocess.run([sys.executable, "-m", "quizgen", "sheet", "--versions", "1", "--lang",
                          "fr", "--out", str(tmp_path / "fr")], capture_output=True, text=True,
                         timeout=120)
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1 and "lang" in bad.stderr


@pytest.mark.parametrize("text", [
    "Name,Roll No\nAsha,7\nRavi,8\n",
    "Student;Roll Number\nAsha;7\nRavi;8\n",
    "sep=;\nSTUDENT NAME;Enrollment\nAsha;7\nRavi;8\n",
    "roll_no\tnaam\n7\tAsha\n8\tRavi\n",
    "\ufeffStudent,Enrollment No.\nAsha,7\nRavi,8\n",
])
def test_roster_headers_and_separators(text):
    from quizgen.recipes import parse_roster

    assert parse_roster(text) == [Student("Asha", "7"), Student("Ravi", "8")]


def test_duplicate_rolls_warn(tmp_path):
    from quizgen.recipes import RosterWarning, parse_roster

    with pytest.warns(RosterWarning, match=r"line 4: roll number '7' is also on line 2"):
        students = parse_roster("name,roll\nAsha,7\nRavi,8\nMeera,7\n")
    assert len(students) == 3
    roster = tmp_path / "class.csv"
    roster.write_text("Name;Roll No\nAsha;7\nमीरा;7\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "quizgen", "sheet", "--roster", str(roster),
                           "--out", str(tmp_path / "out")], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    assert "roll number '7' is also on line 2" in done.stderr
    data = (tmp_path / "out" / "answers.csv").read_bytes()
    assert data.startswith(b"\xef\xbb\xbfname,roll,version,")      # a BOM: Excel reads UTF-8
    assert "मीरा" in data.decode("utf-8-sig")
