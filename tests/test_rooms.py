"""Rooms import downward only: a family says what a problem is (parameters, answers, steps, a
context of numbers) and its writer in `quizgen.render.writers` says it in words, so no module of
`quizgen.problems` imports from `quizgen.render` and no family writes a sentence."""

from __future__ import annotations

import ast
import pathlib

import pytest

import quizgen.problems
from quizgen.problems import families
from quizgen.problems.base import Family

PROBLEMS = pathlib.Path(quizgen.problems.__file__).parent
ENGINE = PROBLEMS.parent / "engine"
#: What the engine's pure arithmetic never imports: the problems built on it, or any words.
ABOVE_ENGINE = ("quizgen.problems", "quizgen.render", "quizgen.export", "quizgen.grade",
                "quizgen.cli", "quizgen.generator")
#: What a family no longer has: the words are its writer's.
WORD_METHODS = ("render", "mcq_stem", "choices", "real_note", "real_change_note")


def imported(path: pathlib.Path) -> set[str]:
    """Every module `path` imports (``from quizgen import render`` counts as quizgen.render)."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
            out.update(f"{node.module}.{alias.name}" for alias in node.names)
    return out


def test_the_import_scan_sees_render_imports(tmp_path):
    src = tmp_path / "m.py"
    src.write_text("from quizgen import render\nimport quizgen.render.phrases\n"
                   "def f():\n    from quizgen.render.phrases import phrase\n")
    assert {"quizgen.render", "quizgen.render.phrases"} <= imported(src)


@pytest.mark.parametrize("path", sorted(PROBLEMS.glob("*.py")), ids=lambda p: p.stem)
def test_problems_import_nothing_from_render(path):
    assert sorted(m for m in imported(path) if m == "quizgen.render" or m.startswith("quizgen.render.")) == []


def test_families_write_no_words():
    wordy = []
    for cell, fam in families().items():
        for cls in type(fam).__mro__:
            if not issubclass(cls, Family):
                continue
            wordy += [f"{cell}: {cls.__name__}.{name}" for name in WORD_METHODS if name in vars(cls)]
    assert wordy == []


@pytest.mark.parametrize("path", sorted(ENGINE.glob("*.py")), ids=lambda p: p.stem)
def test_the_engine_imports_nothing_built_on_it(path):
    assert sorted(m for m in imported(path)
                  if any(m == top or m.startswith(top + ".") for top in ABOVE_ENGINE)) == []
