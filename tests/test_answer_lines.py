"""Answer lines print answers from the answer record: by its names, never from a look-alike."""

from __future__ import annotations

import re

import pytest
from jinja2 import meta

from quizgen.generator import CELLS, LEVELS, family, generate_one
from quizgen.render.jinja import environment
from quizgen.render.phrases import book

#: Names an Answer line may print besides answers and parameters: the GPU, a GPU's label, and
#: flags, shares and rates that no answer names (X_sm: the SM's issue rate, L-5).
NOT_ANSWERS = {"gpu", "gpu_name", "small", "share", "equal", "loop", "X_sm"}
_ENV = environment()     # the one environment (the phrases' filters)


def printed_names(template: str) -> set[str]:
    return meta.find_undeclared_variables(_ENV.parse(template))


def answer_templates(cell: str, lang: str) -> list[str]:
    section = book(lang).get(cell, {})
    templates = []
    for entry in ("answer", "answer_prefix"):
        value = section.get(entry)
        templates += [value] if isinstance(value, str) else list(value or [])
    return templates


#: Cells whose Answer line is a phrase template (the others print the engine's own result
#: object, whose numbers tests/test_applicability.py compares with the record).
TEMPLATED = [(cell, lang) for lang in ("en", "hinglish") for cell in CELLS
             if answer_templates(cell, lang)]


def test_most_cells_write_their_answer_line_from_a_template():
    assert len(TEMPLATED) >= len(CELLS)   # at least half of the (cell, language) pairs are checked


@pytest.mark.parametrize("cell, lang", TEMPLATED)
def test_answer_templates_name_only_answers_and_givens(cell, lang):
    templates = answer_templates(cell, lang)
    fam = family(cell)
    answers = set(fam.answer_specs)
    params = set()
    for level in LEVELS:
        params |= set(generate_one(cell, level=level, seed=0, lang=lang).params)
    for template in templates:
        for name in printed_names(template):
            assert (name in answers or name in params or name in NOT_ANSWERS
                    or name.endswith("_text")), (cell, lang, name, template)
        # no answer written as a bare literal ("0 blocks", "0 wasted lanes")
        assert not re.search(r"(?<![\w{.])0 (blocks|wasted)", template), (cell, template)


@pytest.mark.parametrize("lang", ["en", "hinglish"])
def test_occ7_answer_line_prints_the_recorded_idle_sms(lang):
    for level in LEVELS:
        for seed in range(12):
            p = generate_one("OCC-7", level=level, seed=seed, lang=lang)
            a = p.answers
            line = p.solution.answer
            unit = "block/SM" if a["blocks_per_sm"] == 1 else "blocks/SM"   # one block, singular
            assert f"{a['blocks_per_sm']} {unit}" in line
            numbers = [int(n.replace(",", "")) for n in re.findall(r"\d[\d,]*", line)]
            assert a["idle_sms"] in numbers and a["waves"] in numbers, (line, a)
            if a["waves"] > 1:
                assert a["tail_blocks"] in numbers and a["tail_sms"] in numbers
