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
    assert unit.correct_response() == "0.375 %"    # why quizgen's unit is "%" × 1, not × 100


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


def forms(answer):
    """How a student writes `answer`: the number, a longer decimal, or the percentage."""
    if answer.percent:
        return [f"{answer.text}%", f"{answer.text} %"]
    longer = f"{answer.text}.0" if "." not in answer.text and "e" not in answer.text else \
        answer.text + "0" if "e" not in answer.text else answer.text
    return [answer.text, longer]


def far_from(box):
    return number_text(max(abs(a.value) + a.tolerance for a in box.answers) * 7 + 13)


def _check_box(box, model, *, percent_complete: bool, seen: dict):
    for answer in box.answers:
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
    seen = {"plain": 0, "percent": 0, "misconception": 0, "shown as percent": 0,
            "shown as fraction": 0}
    percent_boxes = 0
    for question in read_moodle_xml(moodle_xml(built)):
        record = records[question.idnumber]
        if question.qtype == "numerical":
            box = record.boxes[0]
            model = numerical_from_import(question)
            _check_box(box, model, percent_complete=True, seen=seen)
            if box.percent:
                percent_boxes += 1
                right = next(a for a in box.answers if a.percent and a.grade == 100)
                shown, unit = model.correct_response().split(" ")
                assert unit == "%"
                shows_percent = float(shown) == pytest.approx(right.value, rel=1e-12)
                seen["shown as percent"] += shows_percent
                seen["shown as fraction"] += not shows_percent   # its window meets a trap's
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
    # Moodle's "The correct answer is" reads "37.5 %" except where that would shadow a trap
    assert seen["shown as fraction"] <= seen["shown as percent"] / 10


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
