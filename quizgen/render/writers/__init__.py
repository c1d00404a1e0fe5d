"""Writers: the words of every problem, from what its family solved.

A family (``quizgen.problems``) says what a problem *is*: parameters, answers, the engine's steps
and a context of numbers. Its writer says it in a language, from the phrasebook: title, question,
worked solution, multiple-choice stem and options. Writers follow the families' class tree: a
writer is registered for a family class with `writes`, and a family uses the writer of its own
class or of its nearest ancestor that has one, so a new family built on an existing base needs
no writer of its own (its phrase entries are enough).

    from quizgen.render.writers import writer_for
    title, question, solution = writer_for(fam).write(params, gpu, solved, "en", salt)
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache
from typing import Callable

from quizgen.problems.base import Family
from quizgen.render.writers.base import Writer

__all__ = ["Writer", "writer_for", "writes"]

#: family class → the writer class that writes its problems
WRITERS: dict[type, type[Writer]] = {}


def writes(family_cls: type[Family]) -> Callable[[type[Writer]], type[Writer]]:
    """Register the decorated writer class for `family_cls` and the families built on it."""
    def register(writer_cls: type[Writer]) -> type[Writer]:
        if family_cls in WRITERS:
            raise RuntimeError(f"two writers for {family_cls.__name__}")
        WRITERS[family_cls] = writer_cls
        return writer_cls
    return register


@cache
def _load() -> None:
    for m in pkgutil.iter_modules(__path__):
        if m.name != "base":
            importlib.import_module(f"{__name__}.{m.name}")


_BY_CELL: dict[str, Writer] = {}


def writer_for(fam: Family) -> Writer:
    """The writer of `fam`'s problems (one instance per family, made on first use)."""
    found = _BY_CELL.get(fam.cell)
    if found is None:
        _load()
        cls = next(WRITERS[k] for k in type(fam).__mro__ if k in WRITERS)
        found = _BY_CELL[fam.cell] = cls(fam)
    return found
