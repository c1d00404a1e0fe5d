"""The languages quizgen speaks: the set of ``<lang>`` suffixes of the phrasebook's files.

A language is its phrase files (``templates/phrases/*.<lang>.toml``); ``labels.<lang>.toml`` has
its ``[language]`` table (its own name, HTML tag, whether it is the default). Nothing else lists
the languages, so a new language is new TOML files only.
"""

from __future__ import annotations

import tomllib
from typing import Any

from quizgen.resources import data_dir


def _language_tables() -> dict[str, dict[str, Any]]:
    """Each language the phrasebook has files for (``<name>.<lang>.toml``) → its ``[language]``
    table (name, HTML tag, whether it is the default), read from ``labels.<lang>.toml``."""
    folder = data_dir("templates") / "phrases"
    found: dict[str, dict[str, Any]] = {}
    for path in sorted(folder.glob("*.*.toml")):
        found.setdefault(path.name.split(".")[-2], {})
    for lang in found:
        path = folder / f"labels.{lang}.toml"
        if path.is_file():
            with path.open("rb") as fh:
                found[lang] = dict(tomllib.load(fh).get("language") or {})
    return found


_LANGUAGES = _language_tables()

#: The language a command uses when none is asked for: the one whose ``[language]`` table says
#: ``default = true`` (else the first by name).
DEFAULT_LANG: str = next((lang for lang, table in sorted(_LANGUAGES.items())
                          if table.get("default") is True), min(_LANGUAGES, default=""))

#: The phrasebook's languages, the default first: a new language is new TOML files, and nothing
#: else lists it.
LANGS: tuple[str, ...] = tuple(sorted(_LANGUAGES, key=lambda lang: (lang != DEFAULT_LANG, lang)))


def language_name(lang: str) -> str:
    """The language's own name (``English``), for deck names and menus."""
    return str(_LANGUAGES.get(lang, {}).get("name") or lang)


def html_lang(lang: str) -> str:
    """The language's HTML ``lang`` tag (``hi-Latn``)."""
    return str(_LANGUAGES.get(lang, {}).get("html") or lang)
