"""A remark on one graded answer, kept in no language until it is shown.

Reading and comparing an answer do not know who will read the result (a class can be graded in
one language and its feedback rendered in another), so a remark is a `Note`: the key of a phrase
in ``[grade_note]`` and the values it quotes. `note_text` writes it in the reader's language.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

#: The language of quizgen's own messages (command-line errors, --help), which are written in
#: English: a `Note` used as a plain string (an error line) reads in it.
INTERFACE_LANG = "en"


@dataclass(frozen=True, slots=True)
class Note:
    """Phrase ``[section].key`` with its values: a value may itself be a `Note`, or a tuple of
    them (written one after another, comma-separated)."""

    key: str
    values: tuple[tuple[str, Any], ...] = ()
    section: str = "grade_note"

    def text(self, lang: str) -> str:
        from quizgen.render.phrases import phrase

        return phrase(lang, self.section, self.key,
                      {k: _written(v, lang) for k, v in self.values})

    def __str__(self) -> str:
        return self.text(INTERFACE_LANG)


def _written(value: Any, lang: str) -> Any:
    if isinstance(value, Note):
        return value.text(lang)
    if isinstance(value, tuple) and value and all(isinstance(v, Note) for v in value):
        return ", ".join(v.text(lang) for v in value)
    return value


def note(key: str, **values: Any) -> Note:
    """A remark: ``note("read_percent", written="25", value="25")``."""
    return Note(key, tuple(values.items()))


def sheet_note(key: str, **values: Any) -> Note:
    """A remark on the answer sheet for the teacher: phrase ``[grade_sheet].key``."""
    return Note(key, tuple(values.items()), "grade_sheet")


def word(section: str, key: str) -> Note:
    """A word of the phrasebook used inside a remark (``word("answer_word", "registers")``)."""
    return Note(key, (), section)


def note_text(remark: Note | str | None, lang: str) -> str | None:
    """A remark in `lang` (a text is already written: a reader's error is kept as it is)."""
    return remark.text(lang) if isinstance(remark, Note) else remark
