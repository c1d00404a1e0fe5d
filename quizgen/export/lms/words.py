"""The bank's own words (the ``lms`` phrases) in a problem's language."""

from __future__ import annotations


def lms_words(lang: str) -> dict[str, str]:
    """The banks' fixed words in `lang`: the phrasebook's ``[lms]``."""
    from quizgen.render.phrases import book

    return dict(book(lang)["lms"])


def misconception_feedback(lang: str, key: str, salt: str) -> str:
    """What a bank tells a student who chose the answer trap `key` leads to."""
    from quizgen.render.phrases import has, phrase

    if has(lang, "misconception", key):
        return phrase(lang, "misconception", key, salt=salt)
    return phrase(lang, "lms", "unnamed_trap", {"name": key.replace("_", " ")}, salt=salt)
