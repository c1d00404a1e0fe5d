"""The problem record: everything a card, a sheet or the grader needs, JSON-safe.

A problem is generated once (parameters and answers from a seed), rendered from its own fields
(never recomputed), and graded next week from its saved JSON. Prose fields hold plain Unicode text
(⌊65536/8192⌋ is fine) and never math markup; math lives in the structured ``steps`` (formula
name + substituted values), so each exporter prints it in its own language (LaTeX for Anki and
HTML, Typst for PDFs, plain text for the terminal).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


def _copy(value: Any) -> Any:
    """A deep copy of JSON-like data (dicts, lists, tuples as lists, scalars)."""
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_copy(v) for v in value]
    return value


@dataclass(slots=True)
class SolutionStep:
    """One numbered step of a worked solution."""

    title: str                         # what this step computes, in the problem's language
    formula: str | None                # formula name in quizgen.engine.formulas (None: prose only)
    values: dict[str, Any]             # numbers substituted, by symbol
    result: Any                        # the step's value (a number, or text such as "∞")
    unit: str                          # unit of the result, in the problem's language
    why: str                           # one line: why this step (the notes' "Yeh step kyun?")
    note: str = ""                     # optional remark (a floor that drops a block, a tie, ...)


@dataclass(slots=True)
class Choice:
    """One option of a multiple-choice card."""

    text: str                          # the option as shown ("4 blocks", "37.5%")
    value: Any                         # the number behind it (for the grader)
    correct: bool
    why: str                           # why it is right, or which trap gives it
    misconception: str | None = None   # misconception key, for wrong options


@dataclass(slots=True)
class Solution:
    forecast: str                      # the question to guess before solving
    steps: list[SolutionStep]
    verify: list[str]                  # independent checks, each a line of plain text
    answer: str                        # the final answer, one or two lines
    trap: str                          # the cell's trap or lesson


@dataclass(slots=True)
class Problem:
    """One generated problem, under the canonical names of CELLS.md."""

    id: str
    cell: str
    level: int
    lang: str
    seed: int
    gpu: dict[str, Any]
    params: dict[str, Any]
    answers: dict[str, Any]
    question: str
    solution: Solution
    title: str = ""
    model: str | None = None           # "textbook" | "exact" on occupancy problems
    units: dict[str, str] = field(default_factory=dict)          # answer key → unit
    tolerances: dict[str, float] = field(default_factory=dict)   # answer key → abs tolerance
    choices: list[Choice] = field(default_factory=list)
    main_answer: str | None = None     # the answer key a type-in card asks for
    topics: list[str] = field(default_factory=list)
    figure: dict[str, Any] | None = None   # what a figure needs (kind + numbers), drawn later
    #: answer key → {"kind", "unit", "format", "tolerance", "depends_on"} (CELLS.md), from the family
    answer_specs: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: the multiple-choice stem: the same setup, asking only the quantity the options give
    #: (the main answer); empty when the problem has no options
    mcq_stem: str = ""

    def to_dict(self) -> dict[str, Any]:
        """The record as plain JSON-safe data (what `quizgen generate --format json` writes)."""
        sol = self.solution
        out: dict[str, Any] = {
            "id": self.id, "cell": self.cell, "level": self.level, "lang": self.lang,
            "seed": self.seed, "gpu": _copy(self.gpu), "params": _copy(self.params),
            "answers": _copy(self.answers), "question": self.question,
            "solution": {
                "forecast": sol.forecast,
                "steps": [{"title": st.title, "formula": st.formula, "values": dict(st.values),
                           "result": _copy(st.result), "unit": st.unit, "why": st.why,
                           "note": st.note} for st in sol.steps],
                "verify": list(sol.verify), "answer": sol.answer, "trap": sol.trap,
            },
            "title": self.title,
        }
        if self.model is not None:
            out["model"] = self.model
        out.update({
            "units": dict(self.units), "tolerances": dict(self.tolerances),
            "answer_specs": {k: dict(v, depends_on=list(v["depends_on"]))
                             for k, v in self.answer_specs.items()},
            "choices": [{"text": c.text, "value": _copy(c.value), "correct": c.correct, "why": c.why,
                         "misconception": c.misconception} for c in self.choices],
            "main_answer": self.main_answer, "topics": list(self.topics),
            "figure": _copy(self.figure), "mcq_stem": self.mcq_stem,
        })
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Problem":
        data = dict(data)
        sol = dict(data.pop("solution"))
        sol["steps"] = [SolutionStep(**s) for s in sol["steps"]]
        data["solution"] = Solution(**sol)
        data["choices"] = [Choice(**c) for c in data.get("choices", [])]
        return cls(**data)
