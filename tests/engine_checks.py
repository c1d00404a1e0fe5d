"""A check shared by the engine tests: formulas agree with sympy, every step has its phrases."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from jinja2 import Environment, StrictUndefined

from quizgen.engine.formulas import evaluate

PHRASES = Path(__file__).resolve().parent.parent / "templates" / "phrases"


def check_steps(steps, formulas) -> None:
    """Each formula agrees with sympy once; every step key, why and note has phrases in both files."""
    seen: set[str] = set()
    tables = [tomllib.loads((PHRASES / f"engine.{lang}.toml").read_text("utf-8"))
              for lang in ("en", "hinglish")]
    env = Environment(undefined=StrictUndefined)
    for step in steps:
        if step.formula in formulas and step.formula not in seen:
            seen.add(step.formula)
            assert float(evaluate(step.formula, step.values)) == pytest.approx(float(step.result)), step
        for table in tables:
            for section, key in (("step", step.key), ("why", step.why), ("note", step.note)):
                if key is None:
                    continue
                variants = table[section][key]
                assert 2 <= len(variants) <= 3, (section, key)
                for text in variants:
                    assert text.strip() and "\n" not in text
                    env.from_string(text).render(**step.values)
    assert seen == set(formulas), set(formulas) - seen
