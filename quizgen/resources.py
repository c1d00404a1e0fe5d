"""Where packaged data lives: inside the wheel (quizgen/templates, quizgen/decks) or in a checkout.

``QUIZGEN_TEMPLATES`` names another templates folder to use instead of the packaged one (a full
copy with your changes, e.g. a new language's phrase files); it is read once, at first use.
"""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


@cache
def data_dir(name: str) -> Path:
    """The folder `name` ("templates" or "decks"): installed copy first, then the checkout's
    (``templates``: the folder ``QUIZGEN_TEMPLATES`` names, when set)."""
    override = os.environ.get("QUIZGEN_TEMPLATES") if name == "templates" else None
    if override:
        if not Path(override).is_dir():
            from quizgen.errors import QuizgenError

            what = "is a file, not a folder" if Path(override).exists() else "no such folder"
            raise QuizgenError(f"{what}: {override} (name a folder holding a full copy of "
                               "quizgen's templates)", field="QUIZGEN_TEMPLATES")
        return Path(override)
    for candidate in (_PACKAGE / name, _PACKAGE.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"quizgen's {name}/ folder is missing from this installation")


def packaged_path(name: str, *parts: str) -> Path:
    return data_dir(name).joinpath(*parts)
