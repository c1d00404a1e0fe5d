"""The phrasebook: every sentence of a worked solution, per language, with variants.

Phrases live in ``templates/phrases/*.<lang>.toml`` (one set of files per language). Each file has
tables such as ``[step]`` (step titles), ``[why]`` (the one-line reason for a step), ``[note]``
(side remarks), ``[unit]`` and family sections (``[OCC-2]`` with ``question``, ``forecast``,
``verify``, ``answer``, ``trap``). A value is a string or a list of alternative strings; the
variant used is picked by a stable hash of the problem id, so a deck of 50 cards from one cell
does not read as 50 copies of one sentence, yet the same problem always reads the same.

Phrases are Jinja templates of the one environment (`quizgen.render.jinja`, ``StrictUndefined``:
a missing value is an error, never an empty gap in a student's solution; sandboxed, so a phrase
file from any folder runs no code), each compiled once.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import marshal
import os
import re
import sys
import tempfile
import tomllib
import zlib
from functools import cache
from typing import Any

from quizgen.errors import QuizgenError
from quizgen.languages import LANGS
from quizgen.render.numbers import ungrouped_arguments
from quizgen.resources import data_dir, private_folder

def labels(lang: str, section: str) -> dict[str, str]:
    """A table of fixed words (``[card-label]``, ``[figure-label]``, ...) in `lang`, as written:
    its ``{placeholders}`` are for `str.format`."""
    table = book(lang).get(section)
    if table is None:
        raise KeyError(f"no phrase table [{section}] in {lang}")
    return table


@cache
def book(lang: str) -> dict[str, dict[str, Any]]:
    """All phrase tables of one language, merged across files (kept between processes, see
    `_kept_book`: reading the TOML takes a few tens of milliseconds a language)."""
    if lang not in LANGS:
        raise QuizgenError(f"got {lang!r}; expected one of: {', '.join(LANGS)}", field="lang")
    folder = data_dir("templates") / "phrases"
    if not folder.is_dir():
        raise QuizgenError(f"no phrases/ folder in {folder.parent}", field="templates")
    files = [(path, path.read_bytes()) for path in sorted(folder.glob(f"*.{lang}.toml"))]
    digest = hashlib.blake2b(str(folder).encode(), digest_size=16)
    for path, data in files:
        digest.update(b"\0%s\0%d\0" % (path.name.encode(), len(data)))
        digest.update(data)
    kept = _kept_book(lang, digest.digest())
    if kept is not None:
        merged, origins = kept
        for section, key, index in origins:
            ORIGINS[(lang, section, key)] = str(files[index][0])
        return merged
    merged: dict[str, dict[str, Any]] = {}
    origins: list[tuple[str, str, int]] = []
    for index, (path, raw) in enumerate(files):
        try:
            data = tomllib.load(io.BytesIO(raw))
        except tomllib.TOMLDecodeError as exc:
            raise QuizgenError(f"{path}: not readable TOML ({exc})", field="templates") from None
        for section, table in data.items():
            if not isinstance(table, dict):
                raise QuizgenError(f"{path}: {section!r} is not a table of phrases; write it "
                                   "under a [section] heading", field="templates")
            target = merged.setdefault(section, {})
            for key, value in table.items():
                if key in target:
                    raise QuizgenError(f"{path}: phrase [{section}] {key} is defined twice "
                                       f"(also in {ORIGINS.get((lang, section, key))})",
                                       field="templates")
                target[key] = value
                ORIGINS[(lang, section, key)] = str(path)
                origins.append((section, key, index))
    _keep_book(lang, digest.digest(), merged, origins)
    return merged


def _book_file(lang: str):
    """The file that keeps `lang`'s merged phrasebook: in the private folder of compiled
    templates (`quizgen.resources.cache_dir`), one per language and Python; None where that
    folder cannot be used."""
    folder = private_folder()
    if folder is None:
        return None
    return folder / f"__quizgen_phrases_{lang}_{sys.implementation.cache_tag}.marshal"


def _kept_book(lang: str, digest: bytes) -> tuple[dict[str, dict[str, Any]], list] | None:
    """The merged tables and their origins as kept for phrase files of this `digest` (their
    folder, names and bytes), or None (none kept, another folder's or another version's)."""
    path = _book_file(lang)
    try:
        kept, merged, origins = marshal.loads(path.read_bytes()) if path else (None, None, None)
    except (OSError, ValueError, EOFError, TypeError):
        return None
    if kept != digest or not isinstance(merged, dict) or not isinstance(origins, list):
        return None
    return merged, origins


def _keep_book(lang: str, digest: bytes, merged: dict[str, Any], origins: list) -> None:
    """Keep the merged tables for the next process (replaced whole; where it cannot be
    written, or holds what marshal cannot, nothing is kept)."""
    path = _book_file(lang)
    if path is None:
        return
    name = None
    try:
        data = marshal.dumps((digest, merged, origins))
        handle, name = tempfile.mkstemp(dir=path.parent, prefix=".phrases-")
        with os.fdopen(handle, "wb") as fh:
            fh.write(data)
        os.replace(name, path)
    except (OSError, ValueError):
        if name is not None:
            with contextlib.suppress(OSError):
                os.unlink(name)


#: (lang, section, key) → the phrase file that writes it (for error messages).
ORIGINS: dict[tuple[str, str, str], str] = {}


@cache
def _compiled(text: str):
    """`text` as a function of one context dict, compiled once by the one environment."""
    from quizgen.render.jinja import phrase_renderer

    return phrase_renderer(text)


#: With QUIZGEN_CHECK_PHRASES set, rendering a phrase renders every variant of its key with the
#: same context (a writer fills all the variants of a key alike); `CHECKED` collects the variants
#: so rendered to text, as (lang, section, key, index), and `CONTEXTS` a few contexts of each
#: (lang, section), for the test that wants every variant reached and rendered.
CHECK = bool(os.environ.get("QUIZGEN_CHECK_PHRASES"))
CHECKED: set[tuple[str, str, str, int]] = set()
CONTEXTS: dict[tuple[str, str], list[dict[str, Any]]] = {}


def check_variant(variant: _Lazy, context: dict[str, Any]) -> None:
    """Render `variant` with `context`; counted in `CHECKED` when that gives text (a context
    that lacks one of its names is no fault of the variant's)."""
    try:
        _compiled(variant.text)(context)
    except Exception:
        return
    CHECKED.add(variant.where)


#: Unit words a count can precede, plural → singular ("1 cycles" → "1 cycle").
_SINGULAR = {"cycles": "cycle", "blocks": "block", "warps": "warp", "threads": "thread",
             "SMs": "SM", "schedulers": "scheduler", "waves": "wave", "lanes": "lane",
             "registers": "register", "instructions": "instruction", "operations": "operation",
             "passes": "pass", "branches": "branch", "bytes": "byte", "slots": "slot",
             "sub-partitions": "sub-partition", "FLOPs": "FLOP"}
_ONE_UNIT = re.compile(r"1 (" + "|".join(map(re.escape, _SINGULAR)) + r")\b")


def singular_units(text: str) -> str:
    """A count of exactly one takes the singular unit, in both languages (the units are English
    technical terms in Hinglish too): "1 blocks" → "1 block", never "0.1 block", "21 block" or a
    sum's "q + 1 warp". (The pattern starts at the literal "1 ", which the regex engine finds
    fast; what may stand before the 1 is checked here.)"""
    def one(m: re.Match) -> str:
        i = m.start()
        if i and (text[i - 1].isalnum() or text[i - 1] in "_.,/"
                  or text[i - 2:i] in ("+ ", "\u2212 ", "- ")):
            return m.group(0)
        return "1 " + _SINGULAR[m.group(1)]
    return _ONE_UNIT.sub(one, text)


class _Lazy:
    """A phrase variant with placeholders, compiled on first use and rendered from a dict.

    `where` is (lang, section, key, index of the variant); `siblings` the variants of its key.
    """

    __slots__ = ("text", "compiled", "where", "siblings")

    def __init__(self, text: str, where: tuple[str, str, str, int] = ("", "", "", 0)) -> None:
        self.text = text
        self.compiled = None
        self.where = where
        self.siblings: tuple[Any, ...] = ()

    def render_map(self, context: dict[str, Any]) -> str:
        try:
            compiled = self.compiled
            if compiled is None:
                compiled = self.compiled = _compiled(self.text)
                if CHECK:
                    self.compiled = compiled = _checking(self, compiled)
            out = compiled(context)
        except Exception as exc:   # name the phrase: someone editing a phrasebook needs to find it
            from quizgen.render.jinja import phrase_error

            raise phrase_error(self.describe(), exc) from None
        if "min(" in out or "max(" in out:
            out = ungrouped_arguments(out)
        return singular_units(out) if "1 " in out else out

    def describe(self) -> str:
        """Where this variant is written: its file, table, key and place among the variants."""
        lang, section, key, index = self.where
        if not section:
            return f"phrase {self.text[:80]!r}"
        place = f" (variant {index + 1})" if len(self.siblings) > 1 else ""
        return f"{ORIGINS.get((lang, section, key), 'phrases')} [{section}] {key}{place}"


def _checking(variant: _Lazy, compiled):
    def render(context: dict[str, Any]) -> str:
        seen = CONTEXTS.setdefault(variant.where[:2], [])
        if len(seen) < 40 and all(c is not context for c in seen):
            seen.append(context)
        for other in variant.siblings or (variant,):
            if other.__class__ is _Lazy:
                check_variant(other, context)
        return compiled(context)

    return render


def _variants(lang: str, section: str, key: str, value: Any) -> tuple[Any, ...]:
    """A phrase's variants: plain strings, and templates (`_Lazy`) compiled on first use."""
    texts = [value] if isinstance(value, str) else list(value)
    variants = tuple(v if "{" not in v else _Lazy(v, (lang, section, key, i))
                     for i, v in enumerate(texts))
    for variant in variants:
        if variant.__class__ is _Lazy:
            variant.siblings = variants
    return variants


_ENTRIES: dict[str, dict[tuple[str, str], tuple[tuple[Any, ...], bytes]]] = {}
_EMPTY: dict[str, Any] = {}
_LAST_SALT: tuple[str, int] = ("", 0)


def _entries(lang: str) -> dict[tuple[str, str], tuple[tuple[Any, ...], bytes]]:
    """(section, key) → (its variants, the key's bytes for the variant hash). A variant is a plain
    string, or a template compiled on first use."""
    entries = _ENTRIES.get(lang)
    if entries is None:
        entries = {}
        for section, table in book(lang).items():
            for key, value in table.items():
                if not isinstance(value, (str, list)):    # a setting ([language] default)
                    continue
                entries[(section, key)] = (_variants(lang, section, key, value),
                                           f"|{section}|{key}".encode())
        _ENTRIES[lang] = entries
    return entries


def chooser(lang: str, section: str, key: str):
    """(variants, the key's bytes for the hash) of phrase [section].key, for callers that choose
    many variants in a loop: variant crc32(bytes, crc32(salt)) mod count, as `phrase` does."""
    entry = (_ENTRIES.get(lang) or _entries(lang)).get((section, key))
    if entry is None:
        raise KeyError(f"no phrase [{section}] {key!r} in {lang}")
    return entry


def fill(variant, context: dict[str, Any]) -> str:
    """A variant (from a `chooser` entry) with its placeholders filled from `context`."""
    return variant if variant.__class__ is str else variant.render_map(context)


def phrase(lang: str, section: str, key: str, context: dict[str, Any] | None = None,
           *, salt: str = "") -> str:
    """Render phrase [section].key in `lang` with `context`.

    Of several variants, the one at crc32("salt|section|key") mod their number is used.
    """
    global _LAST_SALT
    entry = (_ENTRIES.get(lang) or _entries(lang)).get((section, key))
    if entry is None:
        raise KeyError(f"no phrase [{section}] {key!r} in {lang}")
    variants = entry[0]
    if len(variants) == 1:
        chosen = variants[0]
    else:
        last = _LAST_SALT
        if last[0] == salt:
            start = last[1]
        else:
            start = zlib.crc32(salt.encode())
            _LAST_SALT = (salt, start)
        chosen = variants[zlib.crc32(entry[1], start) % len(variants)]
    if chosen.__class__ is str:
        return chosen
    return chosen.render_map(context if context is not None else _EMPTY)


def has(lang: str, section: str, key: str) -> bool:
    return (section, key) in (_ENTRIES.get(lang) or _entries(lang))


@cache
def _lines(lang: str, section: str, key: str) -> tuple[Any, ...]:
    table = book(lang).get(section)
    if table is None or key not in table:
        raise KeyError(f"no phrase [{section}] {key!r} in {lang}")
    lines = _variants(lang, section, key, table[key])
    for line in lines:
        if line.__class__ is _Lazy:
            line.siblings = (line,)      # every line is rendered: each checks itself
    return lines


def phrase_list(lang: str, section: str, key: str, context: dict[str, Any] | None = None,
                *, salt: str = "") -> list[str]:
    """A phrase whose value is a list of lines rendered in full (e.g. several Verify lines).

    Lines that render empty (a Jinja condition that was false) are dropped.
    """
    out = []
    for line in _lines(lang, section, key):
        rendered = line if line.__class__ is str else line.render_map(context or _EMPTY).strip()
        if rendered:
            out.append(rendered)
    return out
