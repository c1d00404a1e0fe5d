"""Where packaged data lives: inside the wheel (quizgen/templates, quizgen/decks) or in a checkout."""

from __future__ import annotations

from functools import cache
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


@cache
def data_dir(name: str) -> Path:
    """The folder `name` ("templates" or "decks"): installed copy first, then the checkout's."""
    for candidate in (_PACKAGE / name, _PACKAGE.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"quizgen's {name}/ folder is missing from this installation")


def packaged_path(name: str, *parts: str) -> Path:
    return data_dir(name).joinpath(*parts)
