"""What the Anki rooms hand each other: a built deck (`DeckPackage`), made by `notes`, stamped by
`plan`, written by `write`. It sits below them all, so their imports run one way."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(slots=True)
class DeckPackage:
    """A built deck, ready to write: its genanki decks and its media files' bytes."""

    decks: list[Any]                 # genanki decks, sorted by name (the order they are written)
    media: dict[str, bytes]          # media file name → content, sorted by name
    cells: int = 0                   # cells with at least one note
    skipped: int = 0                 # problems that fit none of the recipe's card kinds
    figures: Any = None              # the `FigureMedia` that drew them (skill notes reuse it)
