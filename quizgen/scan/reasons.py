"""Why a box is left for review or a page is not used, and the scan's own notes: phrases written
in a language when shown (``str()`` gives the interface's English)."""

from __future__ import annotations

from typing import Any

from quizgen.grade.notes import Note


def reason(key: str, **values: Any) -> Note:
    """Why a box is left for review or a page is not used: phrase ``[scan_reason].key`` with its
    values, written in a language when shown (``str()`` gives the interface's English)."""
    return Note(key, tuple(values.items()), "scan_reason")


def scan_note(key: str, **values: Any) -> Note:
    """A line of the scan's warnings and report: phrase ``[scan].key`` with its values."""
    return Note(key, tuple(values.items()), "scan")
