"""Where packaged data lives: inside the wheel (quizgen/templates, quizgen/decks) or in a checkout.

``QUIZGEN_TEMPLATES`` names another templates folder to use instead of the packaged one (a full
copy with your changes, e.g. a new language's phrase files); it is read once, at first use.
"""

from __future__ import annotations

import os
import stat
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


def cache_dir() -> Path:
    """Where compiled templates are kept: ``$XDG_CACHE_HOME/quizgen/templates`` (by default
    ``~/.cache/quizgen/templates``), a folder only this user may open."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "quizgen" / "templates"


def private_folder() -> Path | None:
    """`cache_dir`, made if need be, or None where it cannot be made or is not this user's
    alone: code read from it runs."""
    folder = cache_dir()
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = folder.lstat()
    except OSError:
        return None
    if not stat.S_ISDIR(info.st_mode) or stat.S_IMODE(info.st_mode) & 0o077 or (
            hasattr(os, "getuid") and info.st_uid != os.getuid()):
        return None
    return folder
