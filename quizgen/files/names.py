"""File names made from a teacher's text (a roll number, a student's name)."""

from __future__ import annotations

import re
from collections.abc import Sequence

#: Names Windows keeps for devices, with or without an extension (``CON.html`` opens the console).
_RESERVED = frozenset({"CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$", "CLOCK$",
                       *(f"{d}{n}" for d in ("COM", "LPT") for n in "0123456789¹²³")})
#: A stem's length: well inside 255 bytes (Linux, macOS) and 255 UTF-16 units (Windows), with
#: room for a suffix, an extension and a folder inside Windows' 260-character paths.
STEM_CHARS, STEM_BYTES = 80, 160


def file_stems(names: Sequence[str], *, alternates: Sequence[str] | None = None,
               fallback: str = "file") -> list[str]:
    """A file stem for each name, safe on Windows, macOS and Linux, and distinct from each other
    as those systems compare names (without case; é composed or not).

    Characters other than letters, digits, ``.`` and ``-`` become ``_``; leading and trailing
    dots, spaces and ``_`` go (Windows drops trailing ones); a device name (CON, PRN, AUX, NUL,
    COM1, LPT1, with or without an extension) gets a leading ``_``; a long name is cut. A name
    already taken gets ``-<its alternate>`` (a version code), then ``-2``, ``-3``..."""
    seen: set[str] = set()
    out = []
    for i, name in enumerate(names):
        stem = _safe_stem(name) or _safe_stem(fallback) or "file"
        if _fold(stem) in seen:
            alternate = _safe_stem(alternates[i]) if alternates and alternates[i] else ""
            room = len(alternate.encode("utf-8")) + 6          # "-<alternate>-<n>"
            base = _cut(stem, STEM_CHARS - room, STEM_BYTES - room)
            stem = f"{base}-{alternate}" if alternate else base
            n = 2
            while _fold(stem) in seen:
                stem, n = f"{base}-{alternate + '-' if alternate else ''}{n}", n + 1
        seen.add(_fold(stem))
        out.append(stem)
    return out


def _safe_stem(text: str) -> str:
    import unicodedata

    stem = re.sub(r"[^\w.\-]+", "_", unicodedata.normalize("NFC", str(text)))
    stem = _cut(stem.strip("._ -"), STEM_CHARS).rstrip("._ -")
    if stem.split(".", 1)[0].upper() in _RESERVED:
        stem = "_" + stem
    return stem


def _cut(text: str, chars: int, size: int = STEM_BYTES) -> str:
    """`text` cut to at most `chars` characters and `size` bytes of UTF-8."""
    text = text[:max(chars, 1)]
    while len(text.encode("utf-8")) > max(size, 4):
        text = text[:-1]
    return text


def _fold(stem: str) -> str:
    import unicodedata

    return unicodedata.normalize("NFKC", stem).casefold()
