"""The one reader of recipe files: which file a command's argument names, and its TOML.

Every command that takes a recipe (``deck``, ``sheet``, ``export``) finds and reads it here, so
that the same file is refused the same way by all of them: a missing file (naming the packaged
recipes), a folder, a file over the size limit (`quizgen.files.LIMITS`), bytes that are not
UTF-8, and TOML that does not parse are each one `QuizgenError` line naming the file.
"""

from __future__ import annotations

import tomllib
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

from quizgen.errors import QuizgenError
from quizgen.files import read_limited
from quizgen.recipes.packaged import packaged_names_hint, packaged_path

#: Where a bare name (``midterm``) is looked for, and the recipe given no argument, by kind
#: ("bank": either kind, as ``quizgen export`` takes).
_FOLDERS = {"deck": ((),), "exam": (("exams",),), "bank": ((), ("exams",))}
_DEFAULTS = {"deck": ("default.toml",), "exam": ("exams", "midterm.toml"),
             "bank": ("default.toml",)}


def find_recipe(given: str | Path | None, kind: str) -> Path:
    """The file a command's recipe argument names: the packaged default for None, the file
    itself, or, for a bare name that is no file (``midterm``, even beside a folder of that
    name), the packaged recipe of that name. A path that names nothing is returned as given
    (`read_recipe` says so)."""
    if given is None:
        return packaged_path("decks", *_DEFAULTS[kind])
    path = Path(given)
    if path.is_file():
        return path
    if not path.suffix and path.name == str(given):
        for folder in _FOLDERS[kind]:
            candidate = packaged_path("decks", *folder, f"{path.name}.toml")
            if candidate.is_file():
                return candidate
    return path


def read_recipe(file: Path, kind: str) -> dict[str, Any]:
    """The TOML table of a recipe file, read once with the size limit."""
    if not file.exists() and not file.is_symlink():
        hint = packaged_names_hint(None if kind == "bank" else kind)
        raise QuizgenError(f"no such recipe file: {file}; {hint}", field="recipe")
    data = read_limited(file, "recipe")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise QuizgenError(f"{file} is not UTF-8 text (byte {exc.start})", field="recipe") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise QuizgenError(f"{file} is not valid TOML ({exc})", field="recipe") from None


@contextmanager
def in_file(file: Path | str) -> Iterator[None]:
    """A recipe's field errors, said with the file's name in front (``my.toml: seed: …``)."""
    try:
        yield
    except QuizgenError as exc:
        raise QuizgenError(f"{Path(file).name}: {exc}") from None
