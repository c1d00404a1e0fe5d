"""Every answer a prompt offers, graded as Moodle grades it.

The model of Moodle's numerical grader (tests/lms_readers.py: qtype_numerical_answer_processor,
qtype_numerical_question, qtype_numerical_answer and how an import stores a question) is
checked first against the cases of Moodle's own unit tests, then run over every numerical and
cloze question of the course (both languages), the midterm, a bank of every answer, and GIFT:
the plain number, the same number written as a longer decimal and, where the prompt offers
one, the percentage ("37.5%", "37.5 %") of the right answer and of each misconception's answer
must earn exactly the grade the bank declares for it; an answer far from all of them earns 0.
"""

from __future__ import annotations

from functools import cache

import pytest

from lms_readers import (UNITINPUT, UNITNONE, AnswerProcessor, NumericalAnswer,
                         NumericalQuestion, extract_cloze, numerical_from_cloze,
                         numerical_from_gift, numerical_from_import, read_gift, read_moodle_xml)
from quizgen.export.lms import build_bank, load_bank_recipe, number_text
from quizgen.export.lms.gift import gift_text
from quizgen.export.lms.moodle import moodle_xml


# ---------------------------------------------------------------------------------------------
# The model against Moodle's own cases (question/type/numerical/tests/answerprocessor_test.php)


@pytest.mark.parametrize("response, value, unit, multiplier", [
    ("3x10^8 m/s", 3e8, "m/s", 1), ("3x10^8", 3e8, "", None), ("1c", 1, "c", 299792458),
    ("0001.000 mph", 1, "mph", 0.44704), ("1 frogs", 1, "frogs", None),
    (". m/s", None, None, None), ("", None, None, None), ("    ", None, None, None),
])
def test_apply_units_as_moodles_tests_expect(response, value, unit, multiplier):
    ap = AnswerProcessor({"m/s": 1, "c": 3.3356409519815e-9, "mph": 2.2369362920544})
    got = ap.apply_units(response)
    assert got[1] == unit
    assert (got[0] is None) if value is None else got[0] == pytest.approx(value, abs=1e-4)
    assert (got[2] is None) if multiplier is None else got[2] == pytest.approx(multiplier, abs=1e-4)


@pytest.mark.parametrize("units, before, decsep, thousands, response, expected", [
    ({"%": 100}, False, ".", ",", "3%", (3, "%", 0.01)),
    ({"%": 100}, False, ".", ",", "1e-6 %", (1e-6, "%", 0.01)),
    ({"%": 100}, False, ".", ",", "100", (100, "", None)),
    ({}, False, ",", " ", "-1 000", (-1000, "", None)),
    ({}, False, ",", " ", "3,14159", (3.14159, "", None)),
    ({"$": 1, "£": 1}, True, ".", ",", "£1,234.56", (1234.56, "£", 1)),
    ({"$": 1, "£": 1}, True, ".", ",", "$100.", (100, "$", 1)),
    ({"$": 1, "£": 1}, True, ".", ",", "frog 100", (100, "frog", None)),
])
def test_percent_currency_and_euro_cases_of_moodles_tests(units, before, decsep, thousands,
                                                          response, expected):
    ap = AnswerProcessor(units, before, decsep, thousands)
    value, unit, multiplier = ap.apply_units(response)
    assert value == pytest.approx(expected[0]) and unit == expected[1]
    assert multiplier == (None if expected[2] is None else pytest.approx(expected[2]))


def test_tolerance_kinds_nominal_relative_geometric():
    nominal = NumericalAnswer("7", 1.0, 0.5)
    assert nominal.within_tolerance(7.5) and not nominal.within_tolerance(7.5001)
    relative = NumericalAnswer("200", 1.0, 0.1, tolerancetype="relative")
    assert relative.interval() == pytest.approx((180, 220))
    geometric = NumericalAnswer("100", 1.0, 1.0, tolerancetype=3)
    assert geometric.interval() == pytest.approx((50, 200))
    exact = NumericalAnswer("0.1", 1.0, 0.0)          # the precision margin of MDL-3225
    assert exact.within_tolerance(0.1 + 1e-15) and not exact.within_tolerance(0.1 + 1e-12)


def test_a_percent_without_a_declared_unit_is_graded_as_the_bare_number():
    """What Moodle did with the old banks: "37.5%" is 37.5 and an unknown unit, so it matches
    no answer near 0.375 (and a box without units calls it invalid)."""
    old = NumericalQuestion([NumericalAnswer("0.375", 1.0, 0), NumericalAnswer("*", 0.0, 0)],
                            AnswerProcessor({}), UNITNONE)
    graded = old.grade("37.5%")
    assert graded.fraction == 0 and graded.error == "invalidnumbernounit"
    unit = NumericalQuestion([NumericalAnswer("0.375", 1.0, 0)], AnswerProcessor({"%": 100}),
                             UNITINPUT)
    assert unit.grade("37.5%").fraction == 1 and unit.grade("0.375").fraction == 1
    # the review's "The correct answer is" adds the unit to the first right answer: "0.375 %",
    # which is 0.00375 (Moodle grades it right only by falling back to the typed 0.375, the
    # slip a bank catches), so a bank lists the right answer's percent form (37.5) first
    assert unit.correct_response() == "0.375 %"
    assert unit.ap.apply_units("0.375 %")[0] * unit.ap.apply_units("0.375 %")[2] == 0.00375


# ---------------------------------------------------------------------------------------------
# The order Moodle tries answers in (question/type/numerical/question.php,
# qtype_numerical_question::get_matching_answer: for each answer in turn, the scaled number,
# then the number as typed; the first window that holds either decides)


def test_a_percent_typed_after_a_share_matches_the_share_unless_its_hundredth_comes_first():
    """"0.5%" for a share of 0.5: scaled 0.005, typed 0.5. Listed after the right answer, the
    window at 0.005 never sees it (Moodle grades 100%); listed first, it does."""
    percent = AnswerProcessor({"%": 100})
    right, misread = NumericalAnswer("0.5", 1.0, 0), NumericalAnswer("0.005", 0.0, 0)
    late = NumericalQuestion([right, misread], percent, UNITINPUT)
    early = NumericalQuestion([misread, right], percent, UNITINPUT)
    assert late.grade("0.5%").fraction == 1 and late.grade("0.5%").answer is right
    assert early.grade("0.5%").fraction == 0 and early.grade("0.5%").answer is misread
    for question in (late, early):
        assert question.grade("50%").fraction == 1 and question.grade("50 %").fraction == 1
        assert question.grade("0.5").fraction == 1 and question.grade("0.005").fraction == 0
    # without a declared unit there is no scaled number: the two cannot be told apart
    bare = NumericalQuestion([misread, right], AnswerProcessor({}), UNITNONE)
    assert bare.grade("0.5%").fraction == 1 and bare.grade("0.5%").error == "invalidnumbernounit"


# ---------------------------------------------------------------------------------------------
# Every bank


BANKS = {
    "course-en": (None, {"variants": 2, "lang": "en"}),
    "course-hinglish": (None, {"variants": 2, "lang": "hinglish"}),
    "midterm": ("midterm", {"variants": 3}),
    "every-answer": ("occupancy-basics", {"variants": 2, "lang": "en", "answers": "all"}),
}


@cache
def bank(name):
    recipe, kwargs = BANKS[name]
    return build_bank(load_bank_recipe(recipe), figures=False, **kwargs)


def misread(box, answer):
    """The grade Moodle must give "v%" typed for a plain answer v of a box whose question
    declares the % unit: v ÷ 100 is that share, so the grade of the answer whose window holds
    it (a wrong value: 0% when none does)."""
    value = answer.value / 100
    return next((a.grade for a in box.answers if abs(a.value - value) <= a.tolerance + 1e-12), 0.0)


def forms(answer):
    """How a student writes `answer`: the number, a longer decimal, or the percentage."""
    if answer.percent:
        return [f"{answer.text}%", f"{answer.text} %"]
    longer = f"{answer.text}.0" if "." not in answer.text and "e" not in answer.text else \
        answer.text + "0" if "e" not in answer.text else answer.text
    return [answer.text, longer]


def far_from(box):
    return number_text(max(abs(a.value) + a.tolerance for a in box.answers) * 7 + 13)


def _check_box(box, model, *, percent_complete: bool, seen: dict, units: bool = False):
    """Every form of every answer earns its declared grade; with `units` (a Moodle XML
    question with the % unit) "v%" for each plain answer v earns what v ÷ 100 earns, and
    without (cloze, GIFT: no units) it earns v's own grade, as the README says."""
    for answer in box.answers:
        if box.percent and not answer.percent:
            typed = model.grade(f"{answer.text}%")
            want = misread(box, answer) if units else answer.grade
            assert typed.fraction == pytest.approx(want / 100, abs=1e-9), (box.key, answer.text)
            seen["misread"] = seen.get("misread", 0) + 1
            seen["misread caught"] = seen.get("misread caught", 0) + (want != answer.grade)
        for text in forms(answer):
            graded = model.grade(text)
            assert graded.fraction == pytest.approx(answer.grade / 100, abs=1e-9), \
                (box.key, text, answer.misconception, graded)
            seen["percent" if answer.percent else "plain"] += 1
            seen["misconception"] += bool(answer.misconception)
            if answer.percent and not percent_complete:
                assert graded.error == "invalidnumbernounit"   # said in the README
            else:
                assert graded.complete, (text, graded.error)
    assert model.grade(far_from(box)).fraction == 0


@pytest.mark.parametrize("name", list(BANKS))
def test_every_offered_answer_form_gets_its_declared_grade_in_moodle_xml(name):
    built = bank(name)
    records = {q.idnumber: q for q in built.questions}
    seen = {"plain": 0, "percent": 0, "misconception": 0, "shown as percent": 0}
    percent_boxes = 0
    for question in read_moodle_xml(moodle_xml(built)):
        record = records[question.idnumber]
        if question.qtype == "numerical":
            box = record.boxes[0]
            model = numerical_from_import(question)
            _check_box(box, model, percent_complete=True, seen=seen, units=True)
            if box.percent:
                percent_boxes += 1
                right = next(a for a in box.answers if a.percent and a.grade == 100)
                shown, unit = model.correct_response().split(" ")
                assert unit == "%"
                assert float(shown) == pytest.approx(right.value, rel=1e-12)
                assert model.grade(model.correct_response()).fraction == 1
                seen["shown as percent"] += 1
            else:
                assert model.correct_response() == box.answers[0].text
        elif question.qtype == "cloze":
            _, subs = extract_cloze(question.questiontext)
            for box, sub in zip(record.boxes, subs, strict=True):
                if box.kind == "numerical":
                    percent_boxes += box.percent
                    _check_box(box, numerical_from_cloze(sub), percent_complete=False, seen=seen)
    assert seen["plain"] and seen["misconception"]
    assert percent_boxes and seen["percent"], "no box of this bank offers a percentage"
    if seen["shown as percent"]:          # numerical questions: every right "v%" is caught
        assert seen["misread caught"] >= seen["shown as percent"]


def test_every_offered_answer_form_gets_its_declared_grade_in_gift():
    built = bank("course-en")
    by_name = {}
    for q in built.questions:
        for i, box in enumerate(q.boxes):
            by_name[q.name if len(q.boxes) == 1 else f"{q.name} ({box.key})"] = box
    seen = {"plain": 0, "percent": 0, "misconception": 0}
    for question in read_gift(gift_text(built)):
        if question.qtype == "numerical":
            _check_box(by_name[question.name], numerical_from_gift(question),
                       percent_complete=False, seen=seen)
    assert seen["plain"] and seen["percent"] and seen["misconception"]


# ---------------------------------------------------------------------------------------------
# What the Check button says (interactive behaviours): the question is invalid, not graded, and
# shows its validation error. qtype_multianswer_question::get_validation_error gives the string
# 'pleaseananswerallparts' when a part is incomplete (question/type/multianswer/question.php,
# lang/en/qtype_multianswer.php); a numerical question with a unit it does not declare is
# incomplete (qtype_numerical_question::is_complete_response) with 'invalidnumbernounit'.

MOODLE_STRINGS = {
    "pleaseananswerallparts": "Please answer all parts of the question.",
    "invalidnumbernounit": "You must enter a valid number. Do not include a unit in your response.",
}


def test_the_readme_quotes_what_check_says_to_a_percent_in_cloze_and_gift():
    from conftest import REPO

    built = bank("every-answer")
    clozes = [q for q in read_moodle_xml(moodle_xml(built)) if q.qtype == "cloze"]
    records = {q.idnumber: q for q in built.questions}
    shown = 0
    for question in clozes:
        _, subs = extract_cloze(question.questiontext)
        for box, sub in zip(records[question.idnumber].boxes, subs, strict=True):
            if box.kind == "numerical" and box.percent:
                right = box.answers[0]
                # "0.375%" for 0.375: full marks on submission (nothing tells it from 0.375),
                # but incomplete: the cloze's Check shows its string instead of a grade
                graded = numerical_from_cloze(sub).grade(f"{right.text}%")
                assert right.grade == 100 and graded.fraction == 1 and not graded.complete
                assert graded.error == "invalidnumbernounit"
                shown += 1
    gift = [q for q in read_gift(gift_text(bank("course-en"))) if q.qtype == "numerical"]
    percent_gift = 0
    for question in gift:
        model = numerical_from_gift(question)
        if model.grade("37.5%").error == "invalidnumbernounit":
            percent_gift += 1
    assert shown and percent_gift == len(gift)
    readme = " ".join((REPO / "README.md").read_text(encoding="utf-8").split())
    assert f'a cloze question says "{MOODLE_STRINGS["pleaseananswerallparts"]}"' in readme
    assert f'a GIFT one "{MOODLE_STRINGS["invalidnumbernounit"]}"' in readme
    assert "asks for a number without a unit" not in readme
    assert "cannot tell from `0.375`" in readme
