"""Deck recipes: which cells, how many problems, which GPUs, languages and card kinds (TOML files).

A recipe is data (``decks/*.toml`` in a checkout, ``quizgen/decks/`` in an installed wheel). Its
``name`` is part of every note's GUID, so it must never change once a deck has been shared: that is
what lets a rebuilt deck update the notes students already study instead of adding copies.

Everything a user can get wrong in a recipe (an unknown cell, a negative count, an unknown GPU, a
TOML typo) becomes one `QuizgenError` line that names the file and the field.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from quizgen.errors import QuizgenError, require_int
from quizgen.gpus import get_gpu
from quizgen.problems import LEVELS
from quizgen.recipes.lms import lms_options
from quizgen.recipes.read import find_recipe, read_recipe
from quizgen.languages import DEFAULT_LANG, LANGS  # the phrasebook's languages

#: Card kinds made from single problems (a recipe without ``kinds`` gets these).
PROBLEM_KINDS = ("numeric", "mcq", "cloze", "concept")
#: Every kind; ``skill``: one note per cell and level holding `variants` solved variants.
KINDS = PROBLEM_KINDS + ("skill",)
#: Variants per skill note unless the recipe says (``variants = K``).
DEFAULT_VARIANTS = 12
MAX_VARIANTS = 200
DEFAULT_RECIPE = "default.toml"

#: The most problems a deck asks for per cell and level (the whole course at 1000 is ~300,000
#: notes, beyond any deck anyone reviews).
MAX_PER_CELL = 1000
#: The largest seed (problem i of a cell uses seed + i, so seeds stay well inside 64 bits).
MAX_SEED = 2**53

_KEYS = ("name", "title", "deck", "description", "cells", "per_cell", "levels", "gpu", "lang",
         "seed", "kinds", "kind", "variants", "lms")


def known_cells() -> tuple[str, ...]:
    """Every cell id, in the course's order: the registered families' (one list, theirs)."""
    from quizgen.problems import CELLS

    return tuple(CELLS)


@dataclass(frozen=True, slots=True)
class DeckRecipe:
    """A validated recipe. Build it with `load_deck_recipe` or `recipe_from_dict`."""

    name: str                       # stable id, part of every note GUID
    title: str
    deck: str                       # Anki deck hierarchy, parts joined by "::"
    cells: tuple[str, ...]
    per_cell: int                   # problems per cell and level (and language)
    levels: tuple[int, ...]
    gpus: tuple[str, ...]           # () = each cell's own preset; several = round-robin by slot
    langs: tuple[str, ...]
    seed: int
    kinds: tuple[str, ...]
    description: str = ""
    variants: int = DEFAULT_VARIANTS  # solved variants per skill note
    source: str = ""                # where the recipe came from (file path), for messages

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name, "title": self.title, "deck": self.deck,
            "description": self.description, "cells": list(self.cells),
            "per_cell": self.per_cell, "levels": list(self.levels),
            "gpu": list(self.gpus) or "default",
            "lang": list(self.langs), "seed": self.seed, "kinds": list(self.kinds),
            "variants": self.variants,
        }


def load_deck_recipe(path: str | Path | None = None) -> DeckRecipe:
    """Read and validate a recipe file; ``None`` loads the packaged default (the whole course).

    A bare name such as ``occupancy-basics`` that is not a file is looked up among the packaged
    recipes.
    """
    file = find_recipe(path, "deck")
    data = read_recipe(file, "deck")
    data.setdefault("name", file.stem)
    return recipe_from_dict(data, source=str(file))


def recipe_from_dict(data: dict[str, Any], *, source: str = "recipe") -> DeckRecipe:
    """Validate a recipe given as a dict (the parsed TOML)."""
    label = Path(source).name
    try:
        return _validate(data, source)
    except QuizgenError as exc:
        raise QuizgenError(f"{label}: {exc}") from None


def apply_overrides(recipe: DeckRecipe, *, seed: Any = None, lang: Any = None,
                    per_cell: Any = None, gpu: Any = None, variants: Any = None,
                    skills: bool = False) -> DeckRecipe:
    """The recipe with command-line options (``--seed``, ``--lang``, ``--per-cell``, ``--gpu``,
    ``--variants``, ``--skills``) applied.

    ``None`` keeps the recipe's value. `lang` and `gpu` take the recipe's forms: a name, a
    comma-separated list, ``both`` (languages) or ``default`` (GPUs). `skills` keeps only the
    skill notes.
    """
    data = recipe.to_dict()
    if seed is not None:
        data["seed"] = seed
    if lang is not None:
        data["lang"] = _split(lang)
    if per_cell is not None:
        data["per_cell"] = per_cell
    if gpu is not None:
        data["gpu"] = _split(gpu)
    if variants is not None:
        data["variants"] = variants
    if skills:
        data["kinds"] = ["skill"]
    return recipe_from_dict(data, source=recipe.source or recipe.name)


def _split(value: Any) -> Any:
    if isinstance(value, str) and "," in value:
        return [part.strip() for part in value.split(",") if part.strip()]
    return value


def _validate(data: dict[str, Any], source: str) -> DeckRecipe:
    unknown = sorted(set(data) - set(_KEYS))
    if unknown:
        raise QuizgenError(f"unknown key {unknown[0]!r}; expected one of: {', '.join(_KEYS)}")
    if "lms" in data:       # grades of the LMS banks (quizgen export): checked here, used there
        lms_options(data["lms"])

    name = _text(data, "name", required=True)
    if not all(ch.isalnum() or ch in "-_." for ch in name):
        raise QuizgenError(f"got {name!r}; use letters, digits, '-', '_' or '.'", field="name")
    title = _text(data, "title") or name
    deck = _text(data, "deck") or f"quizgen::{title}"
    parts = [part.strip() for part in deck.split("::")]
    if not all(parts):
        raise QuizgenError(f"got {deck!r}; expected names joined by '::' with none empty", field="deck")
    deck = "::".join(parts)

    cells = _cells(data.get("cells", "all"))
    per_cell = require_int("per_cell", data.get("per_cell", 1), minimum=1, maximum=MAX_PER_CELL)
    levels = _int_list(data.get("levels", [1]), "levels")
    for level in levels:
        if level not in LEVELS:
            raise QuizgenError(f"got {level}; expected levels from {LEVELS[0]} to {LEVELS[-1]}",
                               field="levels")
    gpus = _gpus(data.get("gpu", "default"))
    langs = _langs(data.get("lang", DEFAULT_LANG))
    seed = require_int("seed", data.get("seed", 0), minimum=0, maximum=MAX_SEED)
    if "kind" in data and "kinds" in data:
        raise QuizgenError("give either 'kind' or 'kinds', not both", field="kind")
    if "kind" in data:
        kinds = _names(data["kind"], "kind", KINDS)
    else:
        kinds = _names(data.get("kinds", list(PROBLEM_KINDS)), "kinds", KINDS)
    variants = require_int("variants", data.get("variants", DEFAULT_VARIANTS), minimum=1,
                           maximum=MAX_VARIANTS)
    return DeckRecipe(name=name, title=title, deck=deck, cells=cells, per_cell=per_cell,
                      levels=levels, gpus=gpus, langs=langs, seed=seed, kinds=kinds,
                      description=_text(data, "description"), source=source, variants=variants)


def _text(data: dict[str, Any], key: str, *, required: bool = False) -> str:
    value = data.get(key, "")
    if not isinstance(value, str):
        raise QuizgenError(f"got {value!r}; expected text", field=key)
    value = value.strip()
    if required and not value:
        raise QuizgenError("missing; expected text", field=key)
    return value


def _listed(value: Any, key: str) -> list[Any]:
    if isinstance(value, (list, tuple)):
        items = list(value)
    else:
        items = [value]
    if not items:
        raise QuizgenError("is empty; expected at least one entry", field=key)
    return items


def _int_list(value: Any, key: str) -> tuple[int, ...]:
    out = [require_int(key, item) for item in _listed(value, key)]
    return tuple(dict.fromkeys(out))


def _names(value: Any, key: str, allowed: tuple[str, ...]) -> tuple[str, ...]:
    out = []
    for item in _listed(value, key):
        if not isinstance(item, str) or item.strip().lower() not in allowed:
            raise QuizgenError(f"got {item!r}; expected some of: {', '.join(allowed)}", field=key)
        out.append(item.strip().lower())
    return tuple(dict.fromkeys(out))


def _cells(value: Any) -> tuple[str, ...]:
    known = known_cells()
    if isinstance(value, str) and value.strip().lower() == "all":
        return known
    by_upper = {cell.upper(): cell for cell in known}
    out = []
    for item in _listed(value, "cells"):
        cell = by_upper.get(str(item).strip().upper()) if isinstance(item, str) else None
        if cell is None:
            raise QuizgenError(f"unknown cell {item!r}; cells are listed in CELLS.md "
                               f"({known[0]} … {known[-1]}) or 'all'", field="cells")
        out.append(cell)
    return tuple(dict.fromkeys(out))


def _langs(value: Any) -> tuple[str, ...]:
    if isinstance(value, str) and value.strip().lower() in ("both", "all"):
        return LANGS
    return _names(value, "lang", LANGS)


def _gpus(value: Any) -> tuple[str, ...]:
    if value is None or (isinstance(value, str) and value.strip().lower() in ("default", "")):
        return ()
    out = []
    for item in _listed(value, "gpu"):
        if not isinstance(item, str):
            raise QuizgenError(f"got {item!r}; expected a GPU preset name", field="gpu")
        out.append(get_gpu(item.strip().lower()).name)
    return tuple(dict.fromkeys(out))


@dataclass(frozen=True, slots=True)
class Slot:
    """One problem a recipe asks for: its place in the deck and the seed that draws it."""

    cell: str
    level: int
    index: int                      # 0 … per_cell-1 within (cell, level)
    lang: str
    gpu: str | None                 # preset name, or None for the cell's own preset
    seed: int                       # the problem's own seed, derived from the recipe's

    def key(self, recipe: DeckRecipe) -> tuple[Any, ...]:
        """The stable identity of this slot: the note GUID is derived from it, never from text."""
        return ("quizgen", recipe.name, self.cell, self.level, self.index, recipe.seed, self.lang)


#: Seeds of one (cell, level) start at a recipe-dependent offset below this, then count up.
SEED_WINDOW = 512


def problem_seed(recipe_seed: int, cell: str, level: int, index: int) -> int:
    """A per-problem seed that depends only on the recipe seed and the slot (not on the order).

    Consecutive slots get consecutive seeds, and the generator gives distinct problems for
    consecutive seeds, so a deck repeats a problem only when its cell runs out of them; the
    offset (from the recipe seed, the cell and the level) makes another recipe seed another deck.
    """
    digest = hashlib.blake2b(f"{recipe_seed}:{cell}:{level}".encode(), digest_size=8)
    return int.from_bytes(digest.digest(), "big") % SEED_WINDOW + index


def plan_slots(recipe: DeckRecipe) -> list[Slot]:
    """Every problem of the deck, in deck order (language, cell, level, index).

    With several GPUs, slot i of a cell and level uses GPU i mod n. Both languages of one slot
    share its seed, so the Hinglish and English cards state the same problem.
    """
    slots = []
    for lang in recipe.langs:
        for cell in recipe.cells:
            for level in recipe.levels:
                for index in range(recipe.per_cell):
                    gpu = recipe.gpus[index % len(recipe.gpus)] if recipe.gpus else None
                    slots.append(Slot(cell, level, index, lang, gpu,
                                      problem_seed(recipe.seed, cell, level, index)))
    return slots
