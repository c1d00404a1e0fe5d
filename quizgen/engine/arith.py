"""Whole-number arithmetic the engine and the families share."""

from __future__ import annotations

from typing import Any


def ceiling(x: Any, divisor: Any = 1) -> Any:
    """⌈x / divisor⌉, exactly: floor division of the negation, so whole numbers and Fractions
    never pass through a float (⌈T/32⌉ warps per block, ⌈G/S⌉ waves)."""
    return -(-x // divisor)
