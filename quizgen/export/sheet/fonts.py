"""The sheet's fonts: the text font stack (with a Devanagari font when one is installed), the font
folders Typst is given, and a warning when a name or the cover needs glyphs no font has."""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path
from typing import Any, Iterable

from quizgen.errors import QuizgenError
from quizgen.recipes.exam import ExamRecipe
from quizgen.recipes.roster import Student

# Families of fonts that cover Devanagari (Debian packages: fonts-noto-core, fonts-lohit-deva,
# fonts-gargi, fonts-nakula, fonts-sahadeva, fonts-samyak-deva, fonts-sil-annapurna; macOS and
# Windows ship Kohinoor, Devanagari Sangam MN, Nirmala UI, Mangal).
_DEVANAGARI_FONTS = (
    "Noto Serif Devanagari", "Noto Sans Devanagari", "Lohit Devanagari", "Gargi", "Nakula",
    "Sahadeva", "Samyak Devanagari", "Annapurna SIL", "Kohinoor Devanagari",
    "Devanagari Sangam MN", "Nirmala UI", "Mangal", "Mukta", "Hind",
)
_DEVANAGARI_RANGES = ((0x0900, 0x097F), (0xA8E0, 0xA8FF), (0x1CD0, 0x1CFF))


class FontWarning(UserWarning):
    """Some text will not render: no installed font has its script's glyphs."""


def _is_devanagari(text: str) -> bool:
    return any(lo <= ord(ch) <= hi for ch in text for lo, hi in _DEVANAGARI_RANGES)


def choose_fonts(recipe: ExamRecipe, students: list[Student],
           font_paths: Iterable[str | os.PathLike[str]]) -> tuple[list[str], tuple[str, ...], list[str]]:
    """The text font stack, the font folders to pass to Typst, and warnings about missing glyphs."""
    dirs = tuple(str(Path(p)) for p in font_paths)
    for folder in dirs:
        if not Path(folder).exists():
            raise QuizgenError(f"no such font folder: {folder}", field="font_paths")
    families = _font_families(dirs)
    deva = [f for f in _DEVANAGARI_FONTS if f in families]
    deva += sorted(f for f in families if "devanagari" in f.lower() and f not in deva)
    stack = ["Libertinus Serif", *deva, "DejaVu Sans", "New Computer Modern"]
    messages = []
    if not deva:
        texts = [s.name for s in students if _is_devanagari(s.name)]
        texts += [t for t in (recipe.title, recipe.course, recipe.instructions) if _is_devanagari(t)]
        if texts:
            shown = ", ".join(texts[:10]) + (f" and {len(texts) - 10} more" if len(texts) > 10 else "")
            messages.append(
                f"no Devanagari font found, so these will print with broken letter joins (a "
                f"math font's bare glyphs): {shown}. Install one (Debian: apt-get install "
                f"fonts-noto-core or fonts-lohit-deva) or pass its folder with --font-path")
    return stack, dirs, messages


@cache
def _font_families(dirs: tuple[str, ...]) -> frozenset[str]:
    import typst

    kwargs: dict[str, Any] = {}
    if dirs:
        kwargs["font_paths"] = list(dirs)
    return frozenset(typst.Fonts(include_system_fonts=True, include_embedded_fonts=True,
                                 **kwargs).families())
