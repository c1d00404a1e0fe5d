"""Levels that climb, whys about this problem, four options on every multiple-choice card.

The figures come from ``bench/teaching.py`` (run it for the table). Each cell is asserted on its
own, so a cell that falls back names itself.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from quizgen.problems import families

_spec = importlib.util.spec_from_file_location(
    "teaching", Path(__file__).resolve().parents[1] / "bench" / "teaching.py")
teaching = sys.modules["teaching"] = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(teaching)

CELLS = sorted(families())


@pytest.fixture(scope="module")
def measures():
    return teaching.measure(seeds=20)


@pytest.mark.parametrize("cell", CELLS)
def test_level_three_adds_a_step_type_level_one_lacks(measures, cell):
    assert measures.cells[cell].climbing_steps, f"{cell}: level 3 repeats level 1's steps"


@pytest.mark.parametrize("cell", CELLS)
def test_whys_name_their_own_numbers(measures, cell):
    m = measures.cells[cell]
    assert m.number_share >= 0.70, f"{cell}: {m.number_share:.0%} of whys name a number"


@pytest.mark.parametrize("cell", CELLS)
def test_every_multiple_choice_has_four_options(measures, cell):
    m = measures.cells[cell]
    assert not m.mcq_short, f"{cell}: {len(m.mcq_short)} problems with < 4 options"


def test_no_why_is_more_than_two_percent_of_all_whys(measures):
    """Whys vary with the problem: the most frequent one is at most 2% of all, per language."""
    for lang, share in measures.top_why_share.items():
        assert share <= 0.02, (lang, f"{share:.2%}", measures.top_why[lang])


def test_measures_see_a_why_without_numbers():
    """The number test can be false: a why with no digits does not count."""
    from quizgen.problems.model import SolutionStep
    bare = SolutionStep("t", None, {"R": 65536}, 4, "", "Registers bind here.")
    named = SolutionStep("t", None, {"R": 65536}, 4, "", "65,536 ÷ 16,384 = 4 blocks fit.")
    frac = SolutionStep("t", None, {}, 0.375, "", "So 37.5% of the warp slots are busy.")
    assert not teaching.why_names_its_numbers(bare)
    assert teaching.why_names_its_numbers(named) and teaching.why_names_its_numbers(frac)
