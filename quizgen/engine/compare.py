"""Comparisons across GPUs: one kernel's resident warps on two SMs (cell X-5, level 3).

Occupancy is a share of each SM's own warp slots, so equal percentages on two GPUs can hold
different numbers of warps; the ratio of resident warps says how many more one SM keeps busy.
"""

from __future__ import annotations

from fractions import Fraction

from quizgen.engine.derivation import Step

#: Formulas of this module: name → (sympy source, {symbol: meaning}).
FORMULAS: dict[str, tuple[str, dict[str, str]]] = {
    "warps_ratio": ("A_1/A_2", {"A_1": "resident warps per SM on the first GPU",
                                 "A_2": "resident warps per SM on the second GPU"}),
}


def warps_ratio(warps_first: int, warps_second: int) -> Step:
    """The resident warps of one SM over another's (both must hold at least one warp)."""
    if warps_second <= 0:
        raise ValueError("the second GPU holds no warp")
    ratio = Fraction(warps_first, warps_second)
    value = int(ratio) if ratio.denominator == 1 else float(ratio)
    return Step("warps_ratio", "warps_ratio", {"A_1": warps_first, "A_2": warps_second}, value, "",
                "xi_warps_ratio")
