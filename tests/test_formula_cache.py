"""Showing formulas needs no sympy at run time (the shipped cache is current: test_build_data.py)."""

from __future__ import annotations

import subprocess
import sys


def test_showing_a_solution_does_not_import_sympy():
    code = ("import sys\nfrom quizgen.cli import main\nsys.argv=['quizgen','occupancy','--gpu','a100',"
            "'--threads','256','--regs','64']\ntry:\n    main()\nexcept SystemExit:\n    pass\n"
            "assert 'sympy' not in sys.modules, 'sympy was imported'\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "Yeh step kyun?" in result.stdout


def test_help_does_not_import_heavy_libraries():
    code = ("import sys\nfrom quizgen.cli import main\nsys.argv=['quizgen','--help']\ntry:\n    main()\n"
            "except SystemExit:\n    pass\n"
            "heavy = [m for m in ('sympy', 'genanki', 'typst', 'jinja2', 'pydantic') if m in sys.modules]\n"
            "assert not heavy, heavy\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr


def test_building_a_deck_with_formula_cards_does_not_import_sympy(tmp_path):
    code = (
        "import sys\n"
        "from quizgen.export.anki import build_deck\n"
        "from quizgen.recipes import recipe_from_dict\n"
        "recipe = recipe_from_dict({'name': 'x', 'cells': ['OCC-1', 'W-C'], 'per_cell': 2, 'levels': [1],\n"
        "                           'kinds': ['numeric', 'cloze']})\n"
        f"summary = build_deck(recipe, {str(tmp_path / 'd.apkg')!r}, timestamp=1800000000)\n"
        "assert summary.notes > 4, summary\n"
        "assert 'sympy' not in sys.modules, 'sympy was imported'\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
