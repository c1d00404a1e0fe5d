"""The recipes shipped with quizgen (``decks/*.toml``, ``decks/exams/*.toml``): found, listed, shown
and copied out to edit (`quizgen recipe`), and named by every recipe-not-found error."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

import quizgen
from quizgen.errors import QuizgenError


def packaged_path(folder: str, *parts: str) -> Path:
    """A file of quizgen's data folders (``decks``, ``templates``): the wheel's copy, else the checkout's.

    The wheel maps ``decks/`` → ``quizgen/decks/`` (see pyproject.toml); a checkout keeps them
    beside the package.
    """
    package = Path(quizgen.__file__).resolve().parent
    for base in (package / folder, package.parent / folder):
        if base.is_dir():
            return base.joinpath(*parts)
    raise FileNotFoundError(f"quizgen's {folder}/ folder is missing from this installation")


@dataclass(frozen=True, slots=True)
class PackagedRecipe:
    name: str                       # what a command takes: `quizgen deck NAME`, `quizgen sheet NAME`
    kind: str                       # "deck" or "exam"
    path: Path
    title: str


def packaged_recipes() -> list[PackagedRecipe]:
    """Every recipe shipped with quizgen: the deck recipes, then the exam recipes, by name."""
    found = []
    for kind, folder in (("deck", packaged_path("decks")), ("exam", packaged_path("decks", "exams"))):
        for file in sorted(folder.glob("*.toml")) if folder.is_dir() else ():
            if file.name.endswith(".lock.json"):
                continue
            try:
                title = str(tomllib.loads(file.read_text(encoding="utf-8")).get("title", ""))
            except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
                title = ""
            found.append(PackagedRecipe(file.stem, kind, file, title))
    return found


def packaged_recipe(name: str) -> PackagedRecipe:
    """One packaged recipe by name (`midterm`, `midterm.toml`); an unknown name is one error line
    that lists the packaged ones."""
    stem = name[:-5] if name.lower().endswith(".toml") else name
    for recipe in packaged_recipes():
        if recipe.name == stem:
            return recipe
    raise QuizgenError(f"no packaged recipe {name!r}; {packaged_names_hint()}", field="recipe")


def packaged_names_hint(kind: str | None = None) -> str:
    """'packaged recipes: default, occupancy-basics (decks); midterm (exams)': said by every
    recipe-not-found error, with how to get one to edit."""
    groups = []
    for which, label in (("deck", "decks"), ("exam", "exams")):
        if kind not in (None, which):
            continue
        names = [r.name for r in packaged_recipes() if r.kind == which]
        if names:
            groups.append(f"{', '.join(names)} ({label})")
    return ("packaged recipes: " + "; ".join(groups) +
            " — give one by name, or `quizgen recipe copy NAME my.toml` for a copy to edit")
