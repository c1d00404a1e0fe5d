"""Cards take the type-in answer, its format hint and the back's check from the answer's spec
(kind, unit, format, tolerance), never from the unit table or the key's name."""

from __future__ import annotations

import dataclasses
import re

from quizgen.export.anki import typed as C
from quizgen.generator import generate_one


def _with_spec(problem, **changes):
    key = problem.main_answer
    specs = {k: dict(v) for k, v in problem.answer_specs.items()}
    specs[key].update(changes)
    # the unit table says something else on purpose: the card must not read it
    return dataclasses.replace(problem, answer_specs=specs, units={key: "bananas"}, tolerances={})


def test_the_hint_and_check_follow_the_spec_not_the_unit_table():
    p = generate_one("W-B", level=1, seed=3, lang="en")
    assert p.answer_specs[p.main_answer]["kind"] == "count"
    plain = C.answer_format(_with_spec(p), "en")
    assert "a whole number" in plain and "unit: " + p.answer_specs[p.main_answer]["unit"] in plain
    assert "bananas" not in plain
    renamed = C.answer_format(_with_spec(p, unit="threads"), "en")
    assert renamed.endswith("unit: threads)")
    check = C.check_html(_with_spec(p, unit="threads"))
    assert 'data-kind="count"' in check and 'data-unit="threads"' in check


def test_a_fraction_is_hinted_and_checked_as_its_spec_says():
    p = generate_one("OCC-2", level=1, seed=5, lang="en")
    spec = p.answer_specs[p.main_answer]
    assert (spec["kind"], spec["format"]) == ("fraction", "percent")
    hint = C.answer_format(_with_spec(p), "en")
    assert "percentage" in hint and "unit:" not in hint
    check = C.check_html(_with_spec(p, tolerance=0.01))
    assert re.search(r'data-kind="fraction" data-tol="0\.01"', check)
    # the same value declared a plain real number is typed and hinted as a number
    real = _with_spec(p, kind="real", format="number", unit="")
    assert "percentage" not in C.answer_format(real, "en")
    assert 'data-kind="real"' in C.check_html(real)


def test_yes_no_and_limits_are_not_typed():
    p = generate_one("OCC-2", level=1, seed=5, lang="en")
    assert C.typed_answer(_with_spec(p, kind="yes_no", format="yes_no")) is None
