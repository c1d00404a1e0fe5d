"""Answers as people read them: the name of each answer box, and a value with its unit.

One place for what every exporter prints: the sheet's boxes and key, the cards' hints and
options, the grader's "expected" line, `quizgen generate`'s Markdown.
"""

from __future__ import annotations

from functools import cache, lru_cache
from typing import Any

from quizgen.render import numbers


@cache
def _table(lang: str, section: str) -> dict[str, str]:
    from quizgen.render.phrases import book

    return dict(book(lang).get(section, {}))


def answer_name(key: str, lang: str) -> str:
    """``blocks_per_sm`` → "blocks per SM", from the phrasebook's [answer_name] (every answer key
    of every family has its name there; a test checks it)."""
    names = _table(lang, "answer_name")
    if key in names:
        return names[key]
    return key.replace("_", " ")


#: The SM limits a variant of the notes' SM may change, each printed as a student reads it.
_NOTES_LIMITS = ("regs_per_sm", "smem_per_sm", "max_warps_per_sm", "max_blocks_per_sm",
                 "max_threads_per_block")


def gpu_words(gpu: Any, lang: str) -> str:
    """A GPU as people name it: a real chip by its name (A100), the notes' SM, and a variant of
    it by what it changes ("the notes' SM with 64 KB of shared memory"), never by the name of
    a preset (textbook-64kb)."""
    if not gpu.is_textbook:
        return gpu.spoken_name
    from quizgen.gpus import get_gpu

    words = _table(lang, "gpu-words")
    notes = get_gpu("textbook")
    changes = [words[field].format(value=numbers.size(getattr(gpu, field))
                                   if field == "smem_per_sm" else numbers.count(getattr(gpu, field)))
               for field in _NOTES_LIMITS if getattr(gpu, field) != getattr(notes, field)]
    return words["notes_with"].format(changes=", ".join(changes)) if changes else words["notes"]


def param_name(key: str, lang: str) -> str | None:
    """A given quantity's name as a sheet prints it, or None for a parameter that only says how
    the question is posed (which variant is asked): those are never printed."""
    return _table(lang, "param_name").get(key)


def answer_text(value: Any, unit: str, lang: str) -> str:
    """A value with its unit: 37.5%, 2×, 1 block, 4 blocks, (6, 0, 2), registers + shared memory."""
    if isinstance(value, list):
        return _answer_text(tuple(value), list, unit, lang)
    # The type is part of the cache key: True, 1 and 1.0 are equal keys but print differently.
    return _answer_text(value, type(value), unit, lang)


@lru_cache(maxsize=65536)
def _answer_text(value: Any, kind: type, unit: str, lang: str) -> str:
    from quizgen.render.solution import format_value, unit_text

    if kind is list:
        value = list(value)
    words = _table(lang, "answer_word")
    if value is None:
        return "—"
    if isinstance(value, bool):
        return words["yes" if value else "no"]
    if unit == "fraction" and isinstance(value, (int, float)):
        return numbers.percent(value)
    if unit == "ratio" and isinstance(value, (int, float)):
        return format_value(value, lang) + "×"
    if isinstance(value, list):
        if all(isinstance(v, str) for v in value):
            return " + ".join(words.get(v, v.replace("_", " ")) for v in value)
        return "(" + ", ".join(format_value(v, lang) for v in value) + ")"
    if isinstance(value, str):
        return words.get(value, value)
    if unit in ("", "text", "limiter"):
        return format_value(value, lang)
    return f"{format_value(value, lang)} {unit_text(unit, value, lang)}".strip()
