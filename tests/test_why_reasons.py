"""Whys that give the mechanism: in every cell and language, at least 90% of the whys say what in
the hardware or the rule makes the step necessary, by the benchmark's own criterion
(``bench/teaching.py``: `gives_reason`), not the step's formula again with numbers."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from quizgen.generator import generate_one
from quizgen.languages import LANGS
from quizgen.problems import families

_spec = importlib.util.spec_from_file_location(
    "teaching", Path(__file__).resolve().parents[1] / "bench" / "teaching.py")
teaching = sys.modules.setdefault("teaching", importlib.util.module_from_spec(_spec))
if not hasattr(teaching, "gives_reason"):
    _spec.loader.exec_module(teaching)

CELLS = sorted(families())
SEEDS = range(6)


@pytest.fixture(scope="module")
def shares() -> dict[tuple[str, str], tuple[float, list[str]]]:
    """(cell, lang) → (share of whys that give a reason, a few that do not)."""
    out = {}
    for cell in CELLS:
        for lang in LANGS:
            good, bad = 0, []
            for level in (1, 2, 3):
                for seed in SEEDS:
                    try:
                        problem = generate_one(cell, level=level, seed=seed, lang=lang)
                    except Exception:        # a level with fewer candidates than seeds
                        break
                    for step in problem.solution.steps:
                        if step.why:
                            if teaching.why_gives_reason(step, lang):
                                good += 1
                            else:
                                bad.append(step.why)
            out[cell, lang] = (good / max(good + len(bad), 1), bad[:3])
    return out


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("cell", CELLS)
def test_whys_give_a_reason(shares, cell, lang):
    share, bad = shares[cell, lang]
    assert share >= 0.90, f"{cell} ({lang}): {share:.0%} of whys give a reason; e.g. {bad}"


def test_every_language_has_a_vocabulary():
    for lang in LANGS:
        assert teaching.REASON_MARKERS[lang] and teaching.MECHANISMS[lang], lang


@pytest.mark.parametrize("lang, why, formula, reason", [
    # restated formulas: arithmetic and the formula's own words, no mechanism or no marker
    ("en", "Occupancy = 8/32 = 25%.", "occupancy", False),
    ("en", "Divide the 32 active warps by the ceiling of 64: 50% of the warp slots hold a warp.",
     "occupancy", False),
    ("en", "⌈256/32⌉ = 8 warps per block.", "warps_per_block", False),
    ("en", "Blocks → warps: 5 × 8 = 40.", "active_warps", False),
    ("hinglish", "Occupancy = 16/64 = 25%.", "occupancy", False),
    ("hinglish", "Blocks → warps: 5 × 8 = 40.", "active_warps", False),
    # a conclusion after "so"/"toh" with no cause before it: the arithmetic read aloud
    ("en", "16 warps give 32 × 16 = 512 lanes for 512 threads, so 0 lanes idle.", "wasted_lanes",
     False),
    ("en", "27 × 32 = 864, so 27 full warps and no partial one.", "warps_round_up", False),
    ("en", "Compare with the hardware: 268 > 64, so 204 warps are missing.", "warp_deficit", False),
    ("hinglish", "1 warp = 32 × 1 = 32 lanes, threads sirf 24, toh 8 lanes idle.", "wasted_lanes",
     False),
    ("hinglish", "⌈768/32⌉ = 24: division exact hai, toh upar round karne se kuch nahi badalta.",
     "warps_round_up", False),
    ("en", "One sub-partition has 16,384 registers for 9 warps: at most ⌊16,384/9⌋ = 1,820 per "
     "warp.", "regs_per_warp_by_sm", False),
    # filler: a connective, but no mechanism of the hardware or a rule
    ("en", "This step matters, so do it carefully.", None, False),
    ("hinglish", "Yeh step zaroori hai, toh dhyan se karo.", None, False),
    # the seeds' own whys, and ours, which give the mechanism
    ("hinglish", "Ek block ko apne saare threads ke liye ek saath registers reserve karne padte "
     "hain; wahi reservation pool ke liye compete karti hai.", "regs_per_block", True),
    ("hinglish", "Block ko pure SM se zyada registers chahiye. 0.5 ka floor 0 hai — tum aadha "
     "block host nahi kar sakte.", "blocks_by_regs", True),
    ("en", "A block reserves the registers of all its threads at once, so 256 × 32 = 8,192 "
     "registers leave the pool together.", "regs_per_block", True),
    ("en", "⌈100/32⌉ = 4: the hardware issues whole warps, so the 4 leftover threads still "
     "take a warp of their own.", "warps_per_block", True),
    ("en", "Only resident warps can hide the stall, so compare with the hardware's cap: 268 > 64, "
     "and 204 warps are missing.", "warp_deficit", True),
    ("hinglish", "Har warp apne saare 32 lanes issue karta hai, bhare hon ya nahi, isliye 8 lanes "
     "idle hain.", "wasted_lanes", True),
])
def test_the_criterion_tells_a_reason_from_a_restated_formula(lang, why, formula, reason):
    assert teaching.gives_reason(why, lang, formula) is reason, why
