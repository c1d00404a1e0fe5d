"""Deck recipes: the shipped ones load, overrides apply, and every bad recipe is one clear line."""

from __future__ import annotations

import pytest

from quizgen.errors import QuizgenError
from quizgen.recipes import (apply_overrides, known_cells, load_deck_recipe, packaged_path,
                             plan_slots, problem_seed, recipe_from_dict)
from quizgen.languages import LANGS


def test_default_recipe_is_the_whole_course():
    recipe = load_deck_recipe(None)
    assert recipe.name == "default"
    assert recipe.cells == known_cells()
    assert len(recipe.cells) == 37 and recipe.cells[0] == "OCC-1" and recipe.cells[-1] == "D-5"
    assert recipe.langs == ("hinglish",)
    assert set(recipe.kinds) == {"numeric", "mcq", "cloze", "concept", "skill"}
    assert "::" in recipe.deck
    problems = len(plan_slots(recipe))
    assert 200 <= problems <= 600          # "a few hundred notes"


def test_focused_recipe_by_file_and_by_name():
    by_file = load_deck_recipe(packaged_path("decks", "occupancy-basics.toml"))
    by_name = load_deck_recipe("occupancy-basics")
    assert by_file == by_name
    assert by_file.cells == ("OCC-1", "OCC-2", "OCC-3", "OCC-4", "OCC-5")
    assert len(plan_slots(by_file)) == 5 * by_file.per_cell * len(by_file.levels)


def test_course_cells_are_the_registered_families_in_course_order():
    from quizgen import problems
    from quizgen.problems.registry import cell_order

    cells = known_cells()
    assert cells == tuple(problems.CELLS) == tuple(problems.families())
    assert cells[:3] == ("OCC-1", "OCC-2", "OCC-3") and cells.index("W-C") < cells.index("W-C2") \
        < cells.index("W-D")
    assert sorted(cells, key=cell_order) == list(cells)
    assert sorted(["OCC-10", "OCC-9", "W-C2", "W-C", "Z-1", "K-1"], key=cell_order) == \
        ["OCC-9", "OCC-10", "W-C", "W-C2", "K-1", "Z-1"]


def write(tmp_path, text, name="r.toml"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("body, words", [
    ('cells = ["OCC-1", "OCC-42"]', ["r.toml", "cells", "OCC-42"]),
    ("per_cell = -3", ["r.toml", "per_cell", "-3"]),
    ("per_cell = 2.5", ["per_cell"]),
    ('gpu = "gtx9000"', ["r.toml", "gpu", "gtx9000"]),
    ('gpu = ["a100", "nope"]', ["gpu", "nope"]),
    ('lang = "french"', ["lang", "french"]),
    ('kinds = ["numeric", "essay"]', ["kinds", "essay"]),
    ("levels = [1, 7]", ["levels", "7"]),
    ("levels = []", ["levels", "empty"]),
    ("seed = -1", ["seed"]),
    ("per_cel = 3", ["unknown key", "per_cel"]),
    ('deck = "quizgen::::x"', ["deck"]),
    ('cells = "OCC-1', ["r.toml", "not valid TOML"]),
    ("per_cell = [", ["not valid TOML"]),
])
def test_bad_recipes_are_one_clear_line(tmp_path, body, words):
    path = write(tmp_path, f'name = "t"\n{body}\n')
    with pytest.raises(QuizgenError) as info:
        load_deck_recipe(path)
    message = str(info.value)
    assert "\n" not in message
    for word in words:
        assert word in message


def test_missing_recipe_file(tmp_path):
    with pytest.raises(QuizgenError, match="no such recipe"):
        load_deck_recipe(tmp_path / "absent.toml")


def test_name_defaults_to_file_stem_and_cells_are_normalised(tmp_path):
    recipe = load_deck_recipe(write(tmp_path, 'cells = ["occ-2", "w-c2", "OCC-2"]\n',
                                    name="my-deck.toml"))
    assert recipe.name == "my-deck"
    assert recipe.cells == ("OCC-2", "W-C2")


def test_overrides():
    base = load_deck_recipe("occupancy-basics")
    changed = apply_overrides(base, seed=99, lang="both", per_cell="2", gpu="t4,a100")
    assert (changed.seed, changed.langs, changed.per_cell, changed.gpus) == (
        99, LANGS, 2, ("t4", "a100"))
    assert changed.cells == base.cells and changed.name == base.name
    assert apply_overrides(base) == base
    assert apply_overrides(changed, gpu="default").gpus == ()
    with pytest.raises(QuizgenError, match="gpu"):
        apply_overrides(base, gpu="nosuchgpu")
    with pytest.raises(QuizgenError, match="per_cell"):
        apply_overrides(base, per_cell=-1)
    with pytest.raises(QuizgenError, match="lang"):
        apply_overrides(base, lang="klingon")


def test_plan_counts_seeds_and_gpu_rotation():
    recipe = recipe_from_dict({"name": "p", "cells": ["OCC-1", "X-5"], "per_cell": 3,
                               "levels": [1, 3], "lang": "both", "gpu": ["t4", "a100"], "seed": 5})
    slots = plan_slots(recipe)
    assert len(slots) == 2 * 3 * 2 * 2
    assert len({s.key(recipe) for s in slots}) == len(slots)
    assert [s.gpu for s in slots[:3]] == ["t4", "a100", "t4"]
    # Both languages of a slot state the same problem (same seed); seeds differ across slots.
    by_lang = {}
    for s in slots:
        by_lang.setdefault((s.cell, s.level, s.index), set()).add(s.seed)
    assert all(len(seeds) == 1 for seeds in by_lang.values())
    assert len({next(iter(seeds)) for seeds in by_lang.values()}) == len(by_lang)
    # A slot's seed depends on the slot, not on which other cells the recipe lists.
    alone = plan_slots(recipe_from_dict({"name": "p", "cells": ["X-5"], "per_cell": 3,
                                         "levels": [1, 3], "seed": 5}))
    assert {(s.level, s.index, s.seed) for s in alone} == {
        (s.level, s.index, s.seed) for s in slots if s.cell == "X-5" and s.lang == "hinglish"}
    assert problem_seed(5, "X-5", 1, 0) != problem_seed(6, "X-5", 1, 0)


# ---------------------------------------------------------------------------------------------
# One reader: every command that takes a recipe refuses a bad file with the same line


def _refusal(command: list[str], cwd) -> tuple[int, str]:
    import subprocess
    import sys

    from conftest import scaled

    done = subprocess.run([sys.executable, "-m", "quizgen", *command], cwd=cwd,
                          capture_output=True, text=True, timeout=scaled(60))
    return done.returncode, done.stderr


BAD_RECIPES = {
    # 3 MB: a recipe is a few hundred bytes; `export` used to read any size
    "big.toml": (b'title = "x"\n' + b"# padding\n" * 300_000, ["big.toml", "larger than 1 MB"]),
    "typo.toml": (b'title = "x\ncells = ["OCC-1"]\n', ["typo.toml", "not valid TOML"]),
    "latin1.toml": ('title = "Übung"\n'.encode("latin-1"), ["latin1.toml", "not UTF-8"]),
}


@pytest.mark.parametrize("name", sorted(BAD_RECIPES))
def test_deck_sheet_export_and_preview_refuse_a_bad_recipe_file_alike(tmp_path, name):
    content, words = BAD_RECIPES[name]
    (tmp_path / name).write_bytes(content)
    before = sorted(p.name for p in tmp_path.iterdir())
    lines = set()
    for command in (["deck", name], ["sheet", name], ["export", name], ["preview", name]):
        code, err = _refusal(command, tmp_path)
        assert code == 2, (command, err)
        assert err.count("\n") == 1, (command, err)
        lines.add(err)
    assert len(lines) == 1, lines
    line = lines.pop()
    for word in words:
        assert word in line
    assert sorted(p.name for p in tmp_path.iterdir()) == before   # nothing written


def test_a_missing_recipe_file_is_said_alike_and_names_the_packaged_recipes(tmp_path):
    for command, names in ((["deck", "gone.toml"], "default, occupancy-basics (decks)"),
                           (["sheet", "gone.toml"], "midterm (exams)"),
                           (["export", "gone.toml"], "(decks); midterm (exams)"),
                           (["preview", "gone.toml"], "(decks); midterm (exams)")):
        code, err = _refusal(command, tmp_path)
        assert code == 2 and err.count("\n") == 1, (command, err)
        assert "no such recipe file: gone.toml" in err and names in err, (command, err)
