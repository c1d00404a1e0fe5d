"""The printed-formula cache shipped in the package matches what sympy prints today."""

from __future__ import annotations

import json
import subprocess
import sys

from quizgen.render import math as qmath


def test_shipped_cache_is_current():
    shipped = json.loads(qmath.CACHE_FILE.read_text(encoding="utf-8"))
    fresh = qmath.printed_formulas()
    stale = sorted(set(fresh["formulas"]) ^ set(shipped["formulas"]))
    stale += sorted(n for n in fresh["formulas"] if shipped["formulas"].get(n) != fresh["formulas"][n])
    assert not stale, f"run `python -m quizgen.render.math` to refresh: {stale[:5]}"


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
