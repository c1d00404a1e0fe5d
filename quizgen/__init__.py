"""quizgen: GPU architecture as auto-solved problems, worked solutions, decks, sheets and grades.

The public surface, importable without reading the source::

    from quizgen import get_gpu, launch_config, occupancy
    result = occupancy(get_gpu("a100"), launch_config(256, regs_per_thread=64))

Names are imported lazily so that ``quizgen --help`` stays fast.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

_EXPORTS = {
    "GPU": "quizgen.gpus",
    "get_gpu": "quizgen.gpus",
    "resolve_gpu": "quizgen.gpus",
    "preset_names": "quizgen.gpus",
    "load_gpu_file": "quizgen.gpus",
    "QuizgenError": "quizgen.errors",
    "LaunchConfig": "quizgen.engine.occupancy",
    "OccupancyResult": "quizgen.engine.occupancy",
    "launch_config": "quizgen.engine.occupancy",
    "occupancy": "quizgen.engine.occupancy",
    "Problem": "quizgen.problems.model",
}

__all__ = sorted(_EXPORTS) + ["__version__"]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'quizgen' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
