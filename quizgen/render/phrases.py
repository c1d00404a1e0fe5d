"""The phrasebook: every sentence of a worked solution, per language, with variants.

Phrases live in ``templates/phrases/*.<lang>.toml`` (lang: ``hinglish`` or ``en``). Each file has
tables such as ``[step]`` (step titles), ``[why]`` (the one-line reason for a step), ``[note]``
(side remarks), ``[unit]`` and family sections (``[OCC-2]`` with ``question``, ``forecast``,
``verify``, ``answer``, ``trap``). A value is a string or a list of alternative strings; the
variant used is picked by a stable hash of the problem id, so a deck of 50 cards from one cell
does not read as 50 copies of one sentence, yet the same problem always reads the same.

Phrases are Jinja templates rendered with ``StrictUndefined``: a missing value is an error, never
an empty gap in a student's solution.
"""

from __future__ import annotations

import os
import re
import zlib
import tomllib
from functools import cache
from typing import Any

from quizgen.render.fastjinja import Unsupported, compile_template, default_filters
from quizgen.resources import data_dir

LANGS = ("hinglish", "en")


@cache
def _env():
    import jinja2

    env = jinja2.Environment(undefined=jinja2.StrictUndefined, autoescape=False,
                             keep_trailing_newline=False)
    env.filters["num"] = _num
    env.filters["pct"] = _pct
    env.filters["kb"] = _kb
    env.filters["size"] = _size
    return env


def _num(value: Any) -> str:
    """65536 → 65,536 (group digits above 9,999); floats trimmed."""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        return f"{value:,}" if abs(value) >= 10000 else str(value)
    if isinstance(value, float):
        if value.is_integer():
            return _num(int(value))
        return f"{value:.4f}".rstrip("0").rstrip(".")
    return str(value)


def _pct(value: Any) -> str:
    """0.375 → 37.5%."""
    text = f"{float(value) * 100:.3f}".rstrip("0").rstrip(".")
    return text + "%"


def _kb(value: Any) -> str:
    """49152 → 48 KB; 50176 → 49 KB; 1000 → 0.98 KB."""
    kb = int(value) / 1024
    if kb.is_integer():
        return f"{int(kb)} KB"
    return f"{kb:.2f}".rstrip("0").rstrip(".") + " KB"


def _size(value: Any) -> str:
    """A shared-memory size as a student reads it: 48 KB when whole, else 49,000 B."""
    value = int(value)
    if value % 1024 == 0:
        return f"{value // 1024} KB"
    return f"{_num(value)} B"


@cache
def book(lang: str) -> dict[str, dict[str, Any]]:
    """All phrase tables of one language, merged across files."""
    if lang not in LANGS:
        from quizgen.errors import QuizgenError

        raise QuizgenError(f"got {lang!r}; expected one of: {', '.join(LANGS)}", field="lang")
    merged: dict[str, dict[str, Any]] = {}
    folder = data_dir("templates") / "phrases"
    for path in sorted(folder.glob(f"*.{lang}.toml")):
        with path.open("rb") as fh:
            data = tomllib.load(fh)
        for section, table in data.items():
            target = merged.setdefault(section, {})
            for key, value in table.items():
                if key in target:
                    raise RuntimeError(f"phrase [{section}] {key} defined twice ({path.name})")
                target[key] = value
    return merged


_SIMPLE = re.compile(r"\{\{\s*(.+?)\s*\}\}")
_PATH = re.compile(r"^([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)(?:\s*\|\s*(num|pct|kb|size|upper))?$")
_FILTERS = {"num": None, "pct": None, "kb": None, "size": None, "upper": str.upper}


class _FastTemplate:
    """A phrase whose placeholders are plain names (``{{ gpu.regs_per_sm|num }}``), rendered
    without Jinja's per-call overhead; anything richer goes to Jinja."""

    __slots__ = ("parts",)

    def __init__(self, parts):
        self.parts = parts

    def render(self, **context: Any) -> str:
        out = []
        for part in self.parts:
            if isinstance(part, str):
                out.append(part)
                continue
            path, flt = part
            value: Any = context
            for i, name in enumerate(path):
                if isinstance(value, dict):
                    if name not in value:
                        raise KeyError(f"phrase placeholder {'.'.join(path)!r} is undefined")
                    value = value[name]
                else:
                    value = getattr(value, name)
            if flt == "num":
                out.append(_num(value))
            elif flt == "pct":
                out.append(_pct(value))
            elif flt == "kb":
                out.append(_kb(value))
            elif flt == "size":
                out.append(_size(value))
            elif flt == "upper":
                out.append(str(value).upper())
            else:
                out.append(str(value))
        return "".join(out)


@cache
def _compiled(text: str):
    if "{%" not in text and "{#" not in text:
        parts: list[Any] = []
        pos = 0
        ok = True
        for match in _SIMPLE.finditer(text):
            path = _PATH.match(match.group(1))
            if path is None:
                ok = False
                break
            parts.append(text[pos:match.start()])
            parts.append((tuple(path.group(1).split(".")), path.group(2)))
            pos = match.end()
        if ok:
            parts.append(text[pos:])
            return _FastTemplate([p for p in parts if p != ""])
    try:
        compiled = _CompiledTemplate(compile_template(text, _compiled_filters()))
    except Unsupported:
        return _JinjaTemplate(_env().from_string(text))
    if os.environ.get("QUIZGEN_CHECK_PHRASES"):
        return _CheckedTemplate(compiled, _JinjaTemplate(_env().from_string(text)))
    return compiled


@cache
def _compiled_filters():
    return default_filters(_num, _pct, _size, _kb)


class _CompiledTemplate:
    __slots__ = ("render",)

    def __init__(self, render) -> None:
        self.render = render


class _CheckedTemplate:
    """Renders with both engines and insists they agree (tests set QUIZGEN_CHECK_PHRASES=1)."""

    __slots__ = ("fast", "jinja")

    def __init__(self, fast, jinja) -> None:
        self.fast, self.jinja = fast, jinja

    def render(self, **context: Any) -> str:
        expected = self.jinja.render(**context)
        got = self.fast.render(**context)
        if got != expected:
            raise AssertionError(f"compiled phrase differs from Jinja: {got!r} != {expected!r}")
        return got


class _JinjaTemplate:
    """A Jinja template rendered with a shared context (no globals merge per call)."""

    __slots__ = ("template",)

    def __init__(self, template) -> None:
        self.template = template

    def render(self, **context: Any) -> str:
        t = self.template
        return "".join(t.root_render_func(t.new_context(context, shared=True)))


class _Lazy:
    """A phrase variant with placeholders, compiled on first use and rendered from a dict."""

    __slots__ = ("text", "compiled")

    def __init__(self, text: str) -> None:
        self.text = text
        self.compiled = None

    def render_map(self, context: dict[str, Any]) -> str:
        compiled = self.compiled
        if compiled is None:
            compiled = self.compiled = _compiled(self.text)
        return compiled.render(**context)


_ENTRIES: dict[str, dict[tuple[str, str], tuple[Any, ...]]] = {}
_EMPTY: dict[str, Any] = {}


def _entries(lang: str) -> dict[tuple[str, str], tuple[Any, ...]]:
    """(section, key) → its variants: plain strings, or templates compiled on first use."""
    entries = _ENTRIES.get(lang)
    if entries is None:
        entries = {}
        for section, table in book(lang).items():
            for key, value in table.items():
                variants = [value] if isinstance(value, str) else list(value)
                entries[(section, key)] = tuple(v if "{" not in v else _Lazy(v) for v in variants)
        _ENTRIES[lang] = entries
    return entries


def phrase(lang: str, section: str, key: str, context: dict[str, Any] | None = None,
           *, salt: str = "") -> str:
    """Render phrase [section].key in `lang` with `context`."""
    entries = _ENTRIES.get(lang) or _entries(lang)
    variants = entries.get((section, key))
    if variants is None:
        raise KeyError(f"no phrase [{section}] {key!r} in {lang}")
    if len(variants) == 1:
        chosen = variants[0]
    else:
        chosen = variants[zlib.crc32(f"{salt}|{section}|{key}".encode()) % len(variants)]
    if chosen.__class__ is str:
        return chosen
    return chosen.render_map(context if context is not None else _EMPTY)


def has(lang: str, section: str, key: str) -> bool:
    return (section, key) in (_ENTRIES.get(lang) or _entries(lang))


def phrase_list(lang: str, section: str, key: str, context: dict[str, Any] | None = None,
                *, salt: str = "") -> list[str]:
    """A phrase whose value is a list of lines rendered in full (e.g. several Verify lines).

    Lines that render empty (a Jinja condition that was false) are dropped.
    """
    table = book(lang).get(section)
    if table is None or key not in table:
        raise KeyError(f"no phrase [{section}] {key!r} in {lang}")
    value = table[key]
    lines = [value] if isinstance(value, str) else list(value)
    out = []
    for line in lines:
        rendered = _compiled(line).render(**(context or {})).strip() if "{" in line else line
        if rendered:
            out.append(rendered)
    return out
