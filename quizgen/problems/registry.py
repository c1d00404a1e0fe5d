"""The family registry: cell id → family instance, in CELLS.md order."""

from __future__ import annotations

from quizgen.problems.base import Family

#: Every cell of CELLS.md, in its order.
CELLS: tuple[str, ...] = (
    "OCC-1", "OCC-2", "OCC-3", "OCC-4", "OCC-5", "OCC-6", "OCC-7", "OCC-8", "OCC-9",
    "W-A", "W-B", "W-C", "W-C2", "W-D", "W-E", "W-F", "W-G", "W-H", "W-I", "W-J",
    "L-1", "L-2", "L-3", "L-4", "L-5", "L-6",
    "X-1", "X-2", "X-3", "X-4", "X-5",
    "K-1",
)

FAMILIES: dict[str, Family] = {}


def register(cls: type[Family]) -> type[Family]:
    if cls.cell in FAMILIES:
        raise RuntimeError(f"two families for cell {cls.cell}")
    if cls.cell not in CELLS:
        raise RuntimeError(f"unknown cell {cls.cell}")
    FAMILIES[cls.cell] = cls()
    return cls
