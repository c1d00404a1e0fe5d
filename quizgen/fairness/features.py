"""The variant features of one version of a question, read off its saved problem record: what
a teacher could know about a paper before anyone sits the exam, and what may make it easier or
harder for a student of the same ability.

    variant_features(record)   # {"cell": "OCC-2", "limiter": "registers", "steps": 9, ...}

Every value is a JSON scalar (text, whole number or true/false), so the features are recorded in
the manifest beside the problem and in the calibration file beside the graded boxes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: Bumped when a feature's meaning changes: a calibration of other features is not mixed in.
FEATURES_VERSION = 1

#: Features that are counts (an effect per unit); the others are categories.
NUMERIC = frozenset({"steps", "digits"})

#: The features in the order a teacher reads them.
ORDER = ("cell", "gpu", "limiter", "answer", "trap", "steps", "extra", "digits")


def variant_features(record: Mapping[str, Any]) -> dict[str, Any]:
    """The features of one saved problem (a manifest's question, `Problem.to_dict()`):

    * ``cell`` and ``gpu``: the scenario cell and the GPU the version was drawn on;
    * ``limiter``: the limits that bind, joined with ``+`` (occupancy problems);
    * ``answer:<box>``: a yes/no answer asked (``answer:hidable`` = ``yes``);
    * ``trap``: whether the cell's trap is present in these numbers (its worked solution names it);
    * ``steps``: the worked solution's number of steps;
    * ``extra``: the level-3 extra asked (``regs_for_next_block``, ``bigger_block``, …);
    * ``digits``: the significant digits of the numbers the student must write (0.40625 has 5,
      0.5 has 1): the size of the arithmetic.
    """
    out: dict[str, Any] = {}
    cell = record.get("cell")
    if isinstance(cell, str) and cell:
        out["cell"] = cell
    gpu = record.get("gpu")
    name = gpu.get("name") if isinstance(gpu, Mapping) else gpu
    if isinstance(name, str) and name:
        out["gpu"] = name
    answers = record.get("answers") if isinstance(record.get("answers"), Mapping) else {}
    limiter = answers.get("limiter")
    if isinstance(limiter, list) and limiter and all(isinstance(v, str) for v in limiter):
        out["limiter"] = "+".join(sorted(limiter))
    asked = _asked(record, answers)
    for key in asked:
        if isinstance(answers.get(key), bool):
            out[f"answer:{key}"] = "yes" if answers[key] else "no"
    solution = record.get("solution") if isinstance(record.get("solution"), Mapping) else {}
    if isinstance(solution.get("steps"), list):
        out["steps"] = len(solution["steps"])
    if isinstance(solution.get("trap"), str):
        out["trap"] = bool(solution["trap"].strip())
    params = record.get("params") if isinstance(record.get("params"), Mapping) else {}
    extra = params.get("ask") or params.get("change")
    if isinstance(extra, str) and extra:
        out["extra"] = extra
    digits = sum(_digits(answers[key]) for key in asked if key in answers)
    if digits:
        out["digits"] = digits
    return out


def problem_features(problem: Any, asked: list[str]) -> dict[str, Any]:
    """The features of a `Problem` as drawn, before it is saved (the sheet weighs many)."""
    solution = problem.solution
    return variant_features({"cell": problem.cell, "gpu": problem.gpu, "answers": problem.answers,
                             "asked": list(asked), "params": problem.params,
                             "solution": {"steps": solution.steps, "trap": solution.trap}})


def _asked(record: Mapping[str, Any], answers: Mapping[str, Any]) -> list[str]:
    asked = record.get("asked")
    if isinstance(asked, list) and all(isinstance(k, str) for k in asked):
        return asked
    return list(answers)


def _digits(value: Any) -> int:
    """Significant digits of a number to be written (0 for text, yes/no and lists)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return 0
    if isinstance(value, int):
        return max(1, len(str(abs(value)).rstrip("0")))
    text = f"{abs(value):.6g}"
    if "e" in text:
        text = text.split("e")[0]
    return max(1, len(text.replace(".", "").lstrip("0").rstrip("0")))


def feature_kind(name: str) -> str:
    """``number`` for a count, else ``category``."""
    return "number" if name in NUMERIC else "category"


def sort_key(name: str) -> tuple[int, str]:
    """The place of a feature in `ORDER` (``answer:<box>`` as ``answer``)."""
    base = name.split(":", 1)[0]
    return (ORDER.index(base) if base in ORDER else len(ORDER), name)


def stored_features(record: Mapping[str, Any]) -> dict[str, Any]:
    """The features recorded with a question in its manifest, when they are valid (an object of
    JSON scalars); else those read off the record (a manifest written before features were)."""
    stored = record.get("features")
    if isinstance(stored, Mapping) and all(
            isinstance(k, str) and isinstance(v, (str, int, bool)) for k, v in stored.items()):
        return dict(stored)
    return variant_features(record)
