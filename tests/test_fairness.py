"""Were the versions fair? The variant features, the model of a paper's expected points, the
statistics (checked on classes with planted effects, graded by the real grader), the calibration
file and its refusals, and the sheet that draws versions to an even predicted difficulty.

The study over a hundred simulated classes of 300 on the shipped midterm is
tests/test_fairness_study.py (slow) and bench/bench_fairness.py."""

from __future__ import annotations

import json
import math
from collections import Counter
import random
import statistics

import pytest

from conftest import run_quizgen

from quizgen.errors import QuizgenError
from quizgen.export.sheet import plan_exam
from quizgen.export.sheet.balance import Weighing, choose, pair
from quizgen.fairness.calibration import (CALIBRATION_FILE, calibration_json, read_calibrations,
                                          recipe_fingerprint)
from quizgen.fairness.features import problem_features, variant_features
from quizgen.fairness.model import (Column, ExamModel, PaperRecord, QuestionModel,
                                    QuestionRecord, logistic, prior)
from quizgen.fairness.simulate import Planted, answers_sheet, box_logits, true_expected
from quizgen.generator import generate_one
from quizgen.recipes import Student, parse_exam_recipe

#: A small exam whose two questions draw versions that differ: the limit that binds (Q1), and
#: whether the stall can be hidden (Q2).
RECIPE = {"title": "Fairness check", "lang": "en", "seed": 31,
          "questions": [{"cell": ["OCC-2", "OCC-3"], "level": 1,
                         "points": {"blocks_per_sm": 1, "active_warps": 1, "occupancy": 2,
                                    "limiter": 1}},
                        {"cell": ["W-E", "W-F"], "level": 1,
                         "points": {"warps_needed": 2, "deficit": 1, "hidable": 1}}]}
#: Q1 much harder where shared memory binds (OCC-3), Q2 harder where the stall cannot be hidden
#: (W-F): outcomes that come together on the same papers, as the turns are drawn.
PLANTED = [Planted(1, "cell", "OCC-3", -2.0), Planted(2, "cell", "W-F", -1.5)]


# ---------------------------------------------------------------------------------------------
# Features


def test_a_versions_features_are_read_off_its_record():
    problem = generate_one("OCC-2", level=1, seed=3, lang="en")
    record = {**problem.to_dict(), "asked": ["blocks_per_sm", "occupancy", "limiter"]}
    features = variant_features(record)
    assert features["cell"] == "OCC-2" and features["gpu"] == "textbook"
    assert features["limiter"] == "registers"
    assert features["steps"] == len(problem.solution.steps)
    assert features["trap"] is bool(problem.solution.trap)
    # 1 block, occupancy 0.25: digits 1 + 2; the limiter is no number to write
    assert problem.answers["blocks_per_sm"] == 1 and problem.answers["occupancy"] == 0.25
    assert features["digits"] == 3
    hiding = generate_one("W-E", level=1, seed=3, lang="en")
    assert variant_features(hiding.to_dict())["answer:hidable"] in ("yes", "no")
    extra = generate_one("OCC-2", level=3, seed=3, lang="en")
    assert variant_features(extra.to_dict())["extra"] == extra.params["ask"]


def test_digits_count_what_a_student_writes():
    record = {"answers": {"a": 0.40625, "b": 640, "c": 0.5, "d": True, "e": ["warps"], "f": 0}}
    assert variant_features(record)["digits"] == 5 + 2 + 1 + 1


@pytest.mark.parametrize("cell", ["OCC-2", "OCC-7", "OCC-9", "W-B", "W-F", "K-1", "L-2", "X-1"])
def test_the_sheet_and_the_grader_read_the_same_features(cell):
    """The sheet weighs a drawn problem; the grader reads its saved record: one answer."""
    problem = generate_one(cell, level=2, seed=5, lang="en")
    asked = list(problem.answers)[:3]
    assert problem_features(problem, asked) == variant_features({**problem.to_dict(),
                                                                 "asked": asked})


# ---------------------------------------------------------------------------------------------
# The model of expected points


def test_a_question_model_adds_up_its_boxes():
    model = QuestionModel(1, [("a", 2.0, 0.0), ("b", 1.0, math.log(4))],
                          [Column("trap", True), Column("steps", None, 10, 8, 12)], [-1.0, -0.5])
    assert model.expected({"trap": False, "steps": 10}) == pytest.approx(2 * 0.5 + 0.8)
    assert model.expected({"trap": True, "steps": 10}) == pytest.approx(
        2 * logistic(-1) + logistic(math.log(4) - 1))
    # a count beyond the range seen is taken at its end; an unknown value is the baseline
    assert model.expected({"steps": 40}) == model.expected({"steps": 12})
    assert model.expected({"trap": "maybe", "steps": 10}) == pytest.approx(1.8)
    assert model.expected({"trap": False, "steps": 10}, asked=["b"]) == pytest.approx(0.8)
    again = ExamModel.from_dict(json.loads(json.dumps(ExamModel("calibration", {1: model}).to_dict())))
    assert again.expected(1, {"trap": True, "steps": 11}) == pytest.approx(
        model.expected({"trap": True, "steps": 11}), abs=1e-5)


def test_the_prior_counts_steps_and_traps_and_nothing_else():
    model = prior(1, [("x", 4.0)], usual_steps=10)
    usual = model.expected({"steps": 10, "trap": False, "cell": "OCC-2"})
    assert usual == pytest.approx(4 * 0.6)
    longer = model.expected({"steps": 11, "trap": False})
    assert longer < usual
    # a trap is one step more
    assert model.expected({"steps": 10, "trap": True}) == pytest.approx(longer)
    # near the usual length, a step costs what P = 0.6^(k/10) says
    assert longer / 4 == pytest.approx(0.6 ** 1.1, abs=0.005)


def test_a_model_that_is_not_one_is_refused():
    with pytest.raises(QuizgenError):
        ExamModel.from_dict({"basis": "calibration", "questions": [{"number": 1, "boxes": [
            ["a", 1, float("nan")]]}]})
    with pytest.raises(QuizgenError):
        ExamModel.from_dict({"basis": "guess", "questions": []})


# ---------------------------------------------------------------------------------------------
# The statistics, on classes simulated without the grader (fast) …


def _records(n: int, seed: int, effect: float) -> list[PaperRecord]:
    """`n` students, two questions: Q1's versions are cell A or B (B `effect` logits easier),
    Q2's on three GPUs; four and three boxes, abilities N(0, 1)."""
    rng = random.Random(seed)
    easy = {("1", k): rng.gauss(0.6, 0.5) for k in "abcd"} | {("2", k): rng.gauss(0.6, 0.5)
                                                              for k in "xyz"}
    papers = []
    for _ in range(n):
        ability = rng.gauss(0, 1)
        cell, gpu = rng.choice("AB"), rng.choice(["a10", "t4", "h100"])
        questions = []
        for number, features, keys in (("1", {"cell": cell, "steps": rng.choice([9, 10])}, "abcd"),
                                       ("2", {"gpu": gpu}, "xyz")):
            shift = effect if features.get("cell") == "B" else 0.0
            boxes = [(k, 1.0, rng.random() < logistic(ability + easy[(number, k)] + shift))
                     for k in keys]
            questions.append(QuestionRecord(int(number), features, boxes))
        papers.append(PaperRecord(sum(q.earned for q in questions), questions))
    return papers


def test_a_planted_effect_is_found_with_its_size_and_a_fair_exam_is_not_flagged():
    from quizgen.fairness.fit import fit_exam

    found = fit_exam([_records(400, 1, -1.0)])
    flagged = found.flags
    assert [(t.number, t.column.feature) for t in flagged] == [(1, "cell")]
    test = flagged[0]
    truth = -1.0 if test.column.value == "B" else 1.0
    assert abs(test.estimate - truth) <= 1.96 * test.se
    assert (test.points < 0) == (truth < 0) and test.low < test.points < test.high
    # the joint model carries the effect into the papers' expected points
    model = found.model.questions[1]
    assert model.expected({"cell": "B"}) < model.expected({"cell": "A"}) - 0.4
    for seed in (2, 3, 4):
        fair = fit_exam([_records(400, seed, 0.0)])
        assert fair.flags == [] and not fair.too_small
        assert all(t.p_adjusted >= t.p for t in fair.tests)


def test_a_class_too_small_is_not_tested():
    from quizgen.fairness.fit import fit_exam
    from quizgen.fairness.model import MIN_STUDENTS

    small = fit_exam([_records(MIN_STUDENTS - 1, 1, -3.0)])
    assert small.too_small and small.tests == [] and small.flags == []
    assert all(not q.columns for q in small.model.questions.values())


def test_holm_gives_statsmodels_numbers():
    from statsmodels.stats.multitest import multipletests

    from quizgen.fairness.fit import holm

    rng = random.Random(5)
    for size in (1, 2, 7, 40):
        p = [rng.random() ** 3 for _ in range(size)]
        assert holm(p) == pytest.approx(list(multipletests(p, method="holm")[1]))


def test_features_that_always_go_together_are_one_test():
    from quizgen.fairness.fit import fit_exam

    papers = _records(200, 7, 0.0)
    for paper in papers:               # the limiter follows the cell on every paper
        q = paper.questions[0]
        q.features["limiter"] = "registers" if q.features["cell"] == "A" else "shared_memory"
    tests = [t for t in fit_exam([papers]).tests if t.number == 1 and t.column.feature == "cell"]
    assert len(tests) == 1
    assert tests[0].column.also in ((("limiter", "shared_memory"),), (("limiter", "registers"),))


# ---------------------------------------------------------------------------------------------
# … and on a class drawn by the sheet and graded by the real grader


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """80 students on RECIPE with the PLANTED effects, graded with every file written; the
    same class in Hinglish."""
    import csv

    from quizgen.grade.grader import grade_class

    work = tmp_path_factory.mktemp("fair")
    recipe = parse_exam_recipe(RECIPE)
    roster = [Student(f"Student {i}", f"F{i:03d}") for i in range(80)]
    plan = plan_exam(recipe, roster, None, generate=generate_one)
    (work / "manifest.json").write_text(plan.manifest_text(), encoding="utf-8")
    logits = box_logits(plan.manifest, seed=3)
    sheet, _ = answers_sheet(plan.manifest, PLANTED, logits, seed=4)
    with (work / "answers.csv").open("w", encoding="utf-8", newline="") as fh:
        csv.writer(fh).writerows([sheet.header, *(row.cells for row in sheet.rows)])
    out = {"work": work, "plan": plan, "logits": logits}
    for lang in ("en", "hinglish"):
        out[lang] = grade_class(work / "manifest.json", work / "answers.csv", work / f"g-{lang}",
                                lang=lang, feedback_format="md")
    return out


def test_the_graded_class_flags_the_planted_version(graded):
    fairness = graded["en"].graded.fairness
    assert fairness.status == "measured" and fairness.students == 80
    flags = {t.number: t for t in fairness.flags}
    assert sorted(flags) == [1, 2] and len(fairness.flags) == 2
    flag = flags[1]
    assert flag.column.feature == "cell" and (flag.points < 0) == (flag.column.value == "OCC-3")
    # on Q2 the GPU goes with the cell: whichever is flagged, the other is named as going with it
    cell = next(t for t in fairness.tests if t.number == 2 and t.column.feature == "cell")
    assert (cell.points < 0) == (cell.column.value == "W-F")
    assert cell is flags[2] or cell.explained_by is flags[2].column
    # the papers of the harder version are expected to score less, by about the flagged effect
    # the papers of the harder versions are expected to score less, by about the flagged effects
    def mean(q1: str, q2: str) -> float:
        return statistics.fmean(p.expected for p, r in zip(fairness.papers, fairness.records)
                                if [q.features["cell"] for q in r.questions] == [q1, q2])

    assert mean("OCC-2", "W-E") - mean("OCC-3", "W-F") == pytest.approx(
        abs(flags[1].points) + abs(flags[2].points), rel=0.3)
    assert fairness.gap == pytest.approx(max(p.expected for p in fairness.papers)
                                         - min(p.expected for p in fairness.papers))


def test_the_report_and_its_files_say_so_in_both_languages(graded):
    from quizgen.fairness.calibration import read_calibrations

    folder = graded["work"] / "g-en"
    html = (folder / "class-report.html").read_text(encoding="utf-8")
    assert "Were the versions fair?" in html and "Q1: papers with cell OCC-" in html
    # what went with the cell on every paper
    assert "(always with registers binding)" in html or "(always with shared memory binding)" in html
    markdown = (folder / "report.md").read_text(encoding="utf-8")
    assert "## Were the versions fair?" in markdown and "- Q1: papers with cell OCC-" in markdown
    rows = (folder / "fairness.csv").read_text(encoding="utf-8-sig").splitlines()
    assert rows[0].startswith("question,feature,value") and any(",yes," in r for r in rows[1:])
    papers = (folder / "fairness-papers.csv").read_text(encoding="utf-8-sig").splitlines()
    assert len(papers) == 81 and "adjusted_for_information_only" in papers[0]
    results = (folder / "results.csv").read_text(encoding="utf-8-sig")
    assert "adjusted" not in results                 # the grade stays the raw score
    classes = read_calibrations([folder], graded["plan"].manifest.recipe)
    assert len(classes) == 1 and len(classes[0]) == 80
    hinglish = (graded["work"] / "g-hinglish" / "class-report.html").read_text(encoding="utf-8")
    assert "Kya versions fair the?" in hinglish and "wale papers average ability" in hinglish
    hi_md = (graded["work"] / "g-hinglish" / "report.md").read_text(encoding="utf-8")
    assert "ne students ki ability se aage marks badle" in hi_md


def test_a_small_class_says_it_is_too_small(graded, tmp_path):
    from quizgen.grade.fairness import assess, view

    manifest = graded["plan"].manifest
    students = graded["en"].students[:25]
    fairness = assess(manifest, students)
    assert fairness.status == "small" and fairness.flags == []
    en, hi = view(fairness, "en"), view(fairness, "hinglish")
    assert "With 25 students the class is too small" in en["verdict"] and en["flags"] == []
    # no question says its versions had nothing to test: the class was too small to test them
    assert en["questions"] == [] and hi["questions"] == [] and en["spread"] is None
    assert "25 students ke saath class itni chhoti hai" in hi["verdict"]


# ---------------------------------------------------------------------------------------------
# The calibration file, and what sheet --calibrate refuses


def test_a_calibration_reads_back_and_refuses_another_exam_an_edit_and_nothing(graded, tmp_path):
    recipe = graded["plan"].manifest.recipe
    source = graded["work"] / "g-en" / CALIBRATION_FILE
    classes = read_calibrations([source], recipe)
    assert calibration_json(recipe, classes[0]) == source.read_text(encoding="utf-8")
    # the same questions with another seed and title: the same exam for a calibration
    assert recipe_fingerprint({**recipe, "seed": 99, "title": "Next term"}) == \
        recipe_fingerprint(recipe)
    other = {**recipe, "questions": recipe["questions"][:1]}
    cases = {"another recipe": (source, other), "changed after": (None, recipe),
             "is empty": ("", recipe), "not a calibration": ("[1, 2]", recipe),
             "holds no calibration.json": (tmp_path, recipe)}
    for words, (content, which) in cases.items():
        path = source
        if content is None:
            text = source.read_text(encoding="utf-8").replace('"score":', '"score":1', 1)
            path = tmp_path / "edited.json"
            path.write_text(text, encoding="utf-8")
        elif isinstance(content, str):
            path = tmp_path / "bad.json"
            path.write_text(content, encoding="utf-8")
        elif content == tmp_path:
            path = tmp_path
        with pytest.raises(QuizgenError) as caught:
            read_calibrations([path], which)
        assert words in str(caught.value) and "\n" not in str(caught.value)


def test_sheet_refuses_a_bad_calibration_in_one_line(graded, tmp_path):
    recipe = tmp_path / "exam.toml"
    recipe.write_text('title = "Other"\nseed = 1\n[[questions]]\ncell = "OCC-1"\n',
                      encoding="utf-8")
    empty = tmp_path / "empty"
    empty.mkdir()
    graded_folder = graded["work"] / "g-en"
    for args, words in ((["--calibrate", graded_folder], "another recipe"),
                        (["--calibrate", empty], "holds no calibration.json"),
                        (["--tolerance", "0.3"], "give --calibrate")):
        done = run_quizgen("sheet", recipe, "--versions", "2", "--out", tmp_path / "x", *args,
                           timeout=120)
        assert done.returncode == 2, done.stderr
        assert len(done.stderr.strip().splitlines()) == 1 and words in done.stderr
        assert not (tmp_path / "x").exists()


# ---------------------------------------------------------------------------------------------
# Balancing


def test_choose_keeps_the_turns_unless_the_paper_would_lie_beyond_the_tolerance():
    # three questions; option 0 keeps the turn, option 1 breaks it
    keeps = [[(0, 0.1), (1, -0.1)], [(0, 0.1), (1, 0.0)], [(0, 0.0), (1, 0.0)]]

    def outcome(picks):
        return (sum(keeps[q][j][0] for q, j in enumerate(picks)),
                round(sum(keeps[q][j][1] for q, j in enumerate(picks)), 6))

    assert choose(keeps, tolerance=0.5) == [0, 0, 0]           # 0.2 from the target: fine
    broken, off = outcome(choose(keeps, tolerance=0.2))        # within 0.1: one turn broken
    assert broken == 1 and abs(off) <= 0.1
    far = [[(0, 1.0), (1, -1.0)], [(0, 1.0), (2, 0.0)]]
    assert choose(far, tolerance=0.5) == [1, 0]                # the cheapest way back
    assert choose(far, tolerance=0.5) == choose(far, tolerance=0.5)


def test_pairing_deals_each_questions_turns_to_even_papers_keeping_their_shares():
    # cycles of 3 and 2 turns: as drawn, every pair of outcomes comes up once in 6 turns, and a
    # permutation within each cycle cannot change that; dealt over the 6 turns, the hard turns of
    # question 1 (0 points) meet the easy turns of question 2 (2 points)
    cycles = {1: [3.0, 3.0, 0.0], 2: [2.0, 0.0]}

    def papers(order):
        return [sum(c[order[n][(t + n) % len(order[n])]] if n in order else c[(t + n) % len(c)]
                    for n, c in cycles.items()) for t in range(6)]

    plain, dealt = papers({}), papers(pair(cycles))
    assert sorted(dealt) == [2.0, 2.0, 3.0, 3.0, 3.0, 5.0]               # the most even there is
    assert statistics.pstdev(dealt) < 0.6 * statistics.pstdev(plain)
    for n, order in pair(cycles).items():
        assert len(order) == 6
        assert Counter(order) == Counter(t % len(cycles[n]) for t in range(6))
    assert pair({1: [1.0, 0.0]}) == {} and pair({1: [1.0, 1.0], 2: [2.0, 0.0]}) == {}


def test_the_calibrated_sheet_draws_papers_of_even_difficulty(graded):
    from quizgen.fairness.calibration import calibrate

    recipe = parse_exam_recipe(RECIPE)
    model, fit = calibrate([graded["work"] / "g-en"], recipe.to_dict())
    assert fit.students == 80 and model.basis == "calibration"
    roster = [Student(f"Next {i}", f"N{i:03d}") for i in range(30)]
    plain = plan_exam(recipe, roster, None, generate=generate_one)
    weighing = Weighing(model, tolerance=0.4)
    even = plan_exam(recipe, roster, None, generate=generate_one, weighing=weighing)

    def fitted(paper):
        return sum(model.expected(n, q["features"], q["asked"]) for n, q in paper.numbered())

    before = [fitted(p) for p in plain.manifest.students]
    after = [fitted(p) for p in even.manifest.students]
    assert statistics.pstdev(after) <= 0.5 * statistics.pstdev(before)
    assert max(after) - min(after) <= 0.5 * (max(before) - min(before))
    # the outcomes' effects do not cancel to within 0.4 points: the papers beyond it are counted
    beyond = [p for p, value in zip(even.manifest.students, after)
              if abs(value - even.manifest.balance["target"]) > 0.2 + 0.01]
    assert len(weighing.beyond) == len(beyond) > 0
    # every question's outcomes keep their shares: the turns are re-paired, not broken
    for number in (1, 2):
        def shares(plan):
            return sorted(Counter(q["cell"] for p in plan.manifest.students
                                  for n, q in p.numbered() if n == number).values())
        assert shares(even) == shares(plain)
    truth = [true_expected(p, graded["logits"], PLANTED) for p in even.manifest.students]
    plain_truth = [true_expected(p, graded["logits"], PLANTED) for p in plain.manifest.students]
    assert statistics.pstdev(truth) <= 0.5 * statistics.pstdev(plain_truth)
    # every paper's predicted difficulty is in the manifest; the draw is recorded
    assert even.manifest.balance["basis"] == "calibration" and even.manifest.balance["students"] == 80
    assert all(p.predicted["basis"] == "calibration" for p in even.manifest.students)
    assert [p.predicted["expected"] for p in even.manifest.students] == pytest.approx(after, abs=0.01)
    # each version still its student's own; the same calibration draws the same papers again
    ids = [q["id"] for p in even.manifest.students for q in p.questions]
    assert len(set(ids)) == len(ids)
    again = plan_exam(recipe, roster, None, generate=generate_one, weighing=weighing)
    assert again.manifest_text() == even.manifest_text()
    # without a calibration nothing in the draw changes
    assert plan_exam(recipe, roster, None, generate=generate_one,
                     weighing=Weighing()).manifest_text() == plain.manifest_text()


def test_without_the_statistics_grading_goes_on_and_says_how_to_add_them(graded, monkeypatch):
    import sys

    from quizgen.fairness.calibration import calibrate
    from quizgen.grade.fairness import assess, view

    monkeypatch.setitem(sys.modules, "quizgen.fairness.fit", None)   # as if not installed
    fairness = assess(graded["plan"].manifest, graded["en"].students)
    assert fairness.status == "unavailable" and fairness.records    # the calibration still kept
    assert "pip install 'quizgen[stats]'" in view(fairness, "en")["verdict"]
    with pytest.raises(QuizgenError, match="stats extra"):
        calibrate([graded["work"] / "g-en"], graded["plan"].manifest.recipe)


RECIPE_TOML = '''title = "Fairness check"
lang = "en"
seed = 31

[[questions]]
cell = ["OCC-2", "OCC-3"]
level = 1
points = {blocks_per_sm = 1, active_warps = 1, occupancy = 2, limiter = 1}

[[questions]]
cell = ["W-E", "W-F"]
level = 1
points = {warps_needed = 2, deficit = 1, hidable = 1}
'''


@pytest.mark.slow
def test_sheet_calibrate_from_the_command_line(graded, tmp_path):
    """The whole sheet (Typst, the key) drawn on the graded class's calibration."""
    from pypdf import PdfReader

    recipe = tmp_path / "exam.toml"
    recipe.write_text(RECIPE_TOML, encoding="utf-8")
    assert parse_exam_recipe(RECIPE).to_dict() == parse_exam_recipe(
        __import__("tomllib").loads(RECIPE_TOML)).to_dict()
    done = run_quizgen("sheet", recipe, "--versions", "4", "--calibrate", graded["work"] / "g-en",
                       "--tolerance", "0.4", "--out", tmp_path / "next", timeout=600)
    assert done.returncode == 0, done.stderr
    assert "balanced on 1 graded class (80 students)" in done.stdout
    manifest = json.loads((tmp_path / "next" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["balance"]["basis"] == "calibration" and manifest["balance"]["tolerance"] == 0.4
    assert all(s["predicted"]["basis"] == "calibration" for s in manifest["students"])
    key = " ".join(" ".join(p.extract_text().split())
                   for p in PdfReader(tmp_path / "next" / "key.pdf").pages)
    assert key.count("Predicted for a student of average ability, from earlier graded") == 4


@pytest.mark.slow
def test_without_a_calibration_the_key_prints_the_prior_and_says_it_is_one(exam_folder):
    from pypdf import PdfReader

    manifest = json.loads((exam_folder / "manifest.json").read_text(encoding="utf-8"))
    assert "balance" not in manifest
    assert [s["predicted"]["basis"] for s in manifest["students"]] == ["prior", "prior"]
    key = " ".join(" ".join(p.extract_text().split())
                   for p in PdfReader(exam_folder / "key.pdf").pages)
    assert key.count("Predicted difficulty (a prior from the worked solutions' steps and traps; "
                     "no class has measured it)") == 2
