"""The family registry: cell id → family instance.

The list of cells is the registered families', in the course's order: the topic groups in the
order CELLS.md lists them, then by number or letter within a group (W-C before W-C2 before W-D).
A new cell is a new registered family; nothing else lists it.
"""

from __future__ import annotations

import re

from quizgen.problems.base import Family

#: The course's topic groups, in CELLS.md order (a cell id is GROUP-suffix), then D (divergence,
#: loops, reductions and barriers worked out from the code); a group not listed here sorts after
#: these, by name.
GROUPS: tuple[str, ...] = ("OCC", "W", "L", "X", "K", "D")

FAMILIES: dict[str, Family] = {}


def cell_order(cell: str) -> tuple:
    """Sort key: the cell's group, then its suffix read as numbers and letters (OCC-2 < OCC-10)."""
    group, _, rest = cell.partition("-")
    rank = GROUPS.index(group) if group in GROUPS else len(GROUPS)
    parts = tuple((0, int(t), "") if t.isdigit() else (1, 0, t) for t in re.findall(r"\d+|\D+", rest))
    return (rank, group, parts)


def registered_cells() -> tuple[str, ...]:
    """Every registered cell, in the course's order."""
    return tuple(sorted(FAMILIES, key=cell_order))


def register(cls: type[Family]) -> type[Family]:
    if cls.cell in FAMILIES:
        raise RuntimeError(f"two families for cell {cls.cell}")
    if not re.fullmatch(r"[A-Z]+-[A-Z0-9]+", cls.cell):
        raise RuntimeError(f"a cell id is GROUP-suffix (OCC-2, W-C2); got {cls.cell!r}")
    FAMILIES[cls.cell] = cls()
    return cls
