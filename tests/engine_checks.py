"""A check shared by the engine tests: formulas agree with sympy, every step has its phrases
(in the phrasebook of each language, merged across its files: the warp cells keep the phrases of
their own what-if steps beside their questions)."""

from __future__ import annotations

import pytest

from quizgen.engine.formulas import evaluate
from quizgen.render.jinja import environment
from quizgen.render.phrases import book


def check_steps(steps, formulas) -> None:
    """Each formula agrees with sympy once; every step key, why and note has phrases in both files."""
    seen: set[str] = set()
    tables = [book(lang) for lang in ("en", "hinglish")]
    env = environment()     # the one strict environment, with the phrases' filters
    for step in steps:
        if step.formula in formulas and step.formula not in seen:
            seen.add(step.formula)
            assert float(evaluate(step.formula, step.values)) == pytest.approx(float(step.result)), step
        for table in tables:
            for section, key in (("step", step.key), ("why", step.why), ("note", step.note)):
                if key is None:
                    continue
                variants = table[section][key]
                variants = [variants] if isinstance(variants, str) else variants
                assert 2 <= len(variants) <= 3, (section, key)
                for text in variants:
                    assert text.strip() and "\n" not in text
                    env.from_string(text).render(**step.values, result=step.result, nth=1)   # nth: solution_steps
    assert seen == set(formulas), set(formulas) - seen
