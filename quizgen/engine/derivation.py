"""A derivation is an ordered list of steps: what is computed, from which formula, and why.

Steps are plain, JSON-safe records. A step names its formula (a key into
`quizgen.engine.formulas`) instead of holding a sympy object, so that solving stays numeric and
fast; the sympy expression is built once, on first use, by whoever prints it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

Number = int | float


@dataclass(slots=True)
class Step:
    """One step of a worked solution.

    key      what the step computes (a quantity name, e.g. ``blocks_by_regs``)
    formula  the formula's name in the registry (``quizgen.engine.formulas.FORMULAS``)
    values   the numbers substituted, by symbol name
    result   the step's value
    unit     the unit of the result (``blocks``, ``warps``, ``B``, ``cycles``, ``""``)
    why      a key naming why the step is taken (templates turn it into a sentence)
    note     an optional key for a side remark (e.g. ``no_limit``, ``floor_drops``)
    """

    key: str
    formula: str
    values: dict[str, Number]
    result: Any
    unit: str
    why: str
    note: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "key": self.key, "formula": self.formula, "values": dict(self.values),
            "result": self.result, "unit": self.unit, "why": self.why, "note": self.note,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Step":
        return cls(**data)


def find_step(steps: list[Step], key: str) -> Step | None:
    for step in steps:
        if step.key == key:
            return step
    return None
