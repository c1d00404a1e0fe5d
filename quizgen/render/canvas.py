"""The figures' common ground: an SVG canvas, its colours and width, text width estimates, a
fitted heading and the phrasebook's figure labels.

Every figure module (`quizgen.render.figures` and the families it dispatches to, the measured
curves, the kernel listings, the class report) draws on a `Canvas`: the same input gives the same
bytes (no timestamps, no random ids), a ``viewBox`` `WIDTH` units wide and ``currentColor`` ink
fixed to `INK` on the root (see `quizgen.render.figures` for why).
"""

from __future__ import annotations

import html
import math
import re
from typing import Any

from quizgen.errors import QuizgenError
from quizgen.render import numbers
from quizgen.render.phrases import labels
from quizgen.languages import LANGS
from quizgen.xmltext import xml_text

WIDTH = 360
FONT = 12
#: Rough advance of one character, in font sizes (DejaVu Sans is among the widest sans fonts).
_CHAR_EM = 0.56

# Colours: mid-tones that read on white and on near-black backgrounds.
BINDING = "#e4572e"
WATER = "#2e86de"
NEUTRAL = "#8795a8"
GOOD = "#27a567"
MASKED = "#8795a8"
INK_ON_FILL = "#151515"
#: Warp colours: 11 light hues (a prime count, so warps stacked above each other in a 2D block
#: differ unless a row holds a multiple of 11 warps); the warp number is written on each run.
WARP_PALETTE = ("#f4a261", "#8ecae6", "#b5e48c", "#f7b7d2", "#ffd166", "#a0c4ff",
                "#cdb4db", "#9ee7d0", "#ffadad", "#d4e09b", "#bdb2ff")
BRANCH_PALETTE = ("#27a567", "#e4572e", "#9b6fd6", "#e0a526", "#2e86de", "#d6457f")

#: The ink of text and lines (``currentColor``): the same in every theme.
INK = "#1d1d1f"


_ONE = re.compile(r"(?<![\d.,])1 (block|warp|wave|SM|lane|thread)s\b")


def figure_label(lang: str, key: str, **values: Any) -> str:
    """A label in `lang`, with "1 blocks" read as "1 block"."""
    for name, value in values.items():     # counts as a person reads them: 9,750 blocks
        if value.__class__ is int:
            values[name] = numbers.count(value)
    text = labels(lang, "figure-label")[key].format(**values)
    return _ONE.sub(r"1 \1", text) if "1 " in text else text


def check_lang(lang: Any) -> str:
    if lang not in LANGS:
        raise QuizgenError(f"got {lang!r}; expected one of: {', '.join(LANGS)}", field="lang")
    return lang


_NUMS: dict[float, str] = {}


def num(value: float) -> str:
    """A coordinate with at most one decimal, never '-0'."""
    text = _NUMS.get(value)
    if text is None:
        # '.1f' rounds the binary value exactly as round(value, 1) does
        text = f"{float(value):.1f}"
        if text.endswith(".0"):
            text = "0" if text == "-0.0" else text[:-2]
        if len(_NUMS) < 1 << 16:       # coordinates repeat from figure to figure
            _NUMS[value] = text
    return text


def percent(fraction: float) -> str:
    """A fraction as a percentage with at most one decimal: 0.375 → '37.5%', 64/300 → '21.3%'."""
    return numbers.percent(fraction, 1)


def label_number(value: float) -> str:
    """A count or a cost as written in a label: 30, 12.5, 0.25, 1,200."""
    return numbers.number(value, 2)


#: A ratio as '2×', '1.5×', '1.33×'.
times = numbers.times


def text_width(text: str, size: float = FONT, bold: bool = False) -> float:
    """A generous estimate of a label's width, for layout (no font metrics at hand)."""
    return len(text) * size * (_CHAR_EM + (0.04 if bold else 0))


_ATTR_SPECIAL = re.compile(r'[&<>"\n\r\t]')
_TEXT_SPECIAL = re.compile(r"[&<>]")


_ATTR_NAMES: dict[str, str] = {}


def _attr_name(key: str) -> str:
    """An SVG attribute name from a keyword: ``cls`` → ``class``, ``font_size`` → ``font-size``."""
    name = _ATTR_NAMES[key] = "class" if key == "cls" else key.replace("_", "-")
    return name


def _quote(value: str) -> str:
    """`quoteattr`'s result; most values need no escaping, and skip its replacement passes."""
    value = xml_text(value)
    if _ATTR_SPECIAL.search(value) is None:
        return f'"{value}"'
    from xml.sax.saxutils import quoteattr   # rarely needed; its import pulls in urllib

    return quoteattr(value)


def _escape(text: str) -> str:
    """Text escaped for XML, without the replacement passes for text that needs none."""
    text = xml_text(text)
    if _TEXT_SPECIAL.search(text) is None:
        return text
    return html.escape(text, quote=False)      # &, < and > only, as XML's escape


_ATTR_TEXT: dict[tuple[tuple[str, Any], ...], str] = {}


class Canvas:
    """An SVG document under construction: elements in drawing order, attributes in given order."""

    def __init__(self, title: str, width: int = WIDTH) -> None:
        self.title = title
        self.width = width
        self.parts: list[str] = []

    @staticmethod
    def _attrs(attrs: dict[str, Any]) -> str:
        # Elements repeat the same few attribute sets (a label's class, fill and anchor). Values
        # are str, int or float (never bool: True would share 1's cache entry).
        try:
            key = tuple(attrs.items())
            text = _ATTR_TEXT.get(key)
        except TypeError:       # an unhashable value: format it without the cache
            return Canvas._format_attrs(attrs)
        if text is None:
            text = Canvas._format_attrs(attrs)
            if len(_ATTR_TEXT) < 1 << 14:
                _ATTR_TEXT[key] = text
        return text

    @staticmethod
    def _format_attrs(attrs: dict[str, Any]) -> str:
        out = []
        for key, value in attrs.items():
            if value is None:
                continue
            name = _ATTR_NAMES.get(key) or _attr_name(key)
            kind = value.__class__
            if kind is float:
                out.append(f' {name}="{num(value)}"')
            elif kind is int:
                out.append(f' {name}="{value}"')
            else:
                out.append(f" {name}={_quote(str(value))}")
        return "".join(out)

    def add(self, tag: str, attrs: dict[str, Any], body: str | None = None) -> None:
        if body is None:
            self.parts.append(f"<{tag}{self._attrs(attrs)}/>")
        else:
            self.parts.append(f"<{tag}{self._attrs(attrs)}>{body}</{tag}>")

    def rect(self, x: float, y: float, w: float, h: float, **attrs: Any) -> None:
        self.parts.append(f'<rect x="{num(x)}" y="{num(y)}" width="{num(max(w, 0))}" '
                          f'height="{num(max(h, 0))}"{self._attrs(attrs)}/>')

    def line(self, x1: float, y1: float, x2: float, y2: float, **attrs: Any) -> None:
        attrs.setdefault("stroke", "currentColor")
        self.add("line", {"x1": float(x1), "y1": float(y1), "x2": float(x2), "y2": float(y2),
                          **attrs})

    def path(self, d: str, **attrs: Any) -> None:
        self.add("path", {"d": d, **attrs})

    def circle(self, cx: float, cy: float, r: float, **attrs: Any) -> None:
        self.add("circle", {"cx": float(cx), "cy": float(cy), "r": float(r), **attrs})

    def text(self, x: float, y: float, text: str, **attrs: Any) -> None:
        self.parts.append(f'<text x="{num(x)}" y="{num(y)}"{self._attrs(attrs)}>'
                          f"{_escape(text)}</text>")

    def open(self, tag: str, **attrs: Any) -> None:
        self.parts.append(f"<{tag}{self._attrs(attrs)}>")

    def close(self, tag: str) -> None:
        self.parts.append(f"</{tag}>")

    def render(self, height: float) -> str:
        h = num(math.ceil(height))
        head = (f'<svg xmlns="http://www.w3.org/2000/svg" class="qz-fig" viewBox="0 0 {self.width} {h}" '
                f'width="100%" role="img" color="{INK}" fill="currentColor" font-family="DejaVu Sans, Verdana, '
                f'Arial, sans-serif" font-size="{FONT}"><title>{_escape(self.title)}</title>')
        return head + "".join(self.parts) + "</svg>\n"


def heading(c: Canvas, text: str, y: float = 18) -> float:
    """A bold centred title, shrunk to fit the width, or broken in two lines; returns the next y."""
    for size in (13, 12, 11):
        if text_width(text, size, bold=True) <= WIDTH - 12:
            c.text(WIDTH / 2, y, text, text_anchor="middle", font_weight="bold", font_size=str(size),
                   cls="qz-title")
            return y
    words = text.split(" ")
    best = len(words) // 2
    for i in range(1, len(words)):
        if text_width(" ".join(words[:i]), 12, bold=True) <= WIDTH - 12:
            best = i
    for part in (" ".join(words[:best]), " ".join(words[best:])):
        c.text(WIDTH / 2, y, part, text_anchor="middle", font_weight="bold", font_size="12",
               cls="qz-title")
        y += 15
    return y - 15


def arrow_head(x: float, y: float, direction: str, size: float = 5) -> str:
    """Path data of a small filled triangle pointing left/right/down/up with its tip at (x, y)."""
    s = size
    if direction == "right":
        return f"M{num(x)} {num(y)}l{num(-s)} {num(-s * 0.7)}v{num(s * 1.4)}z"
    if direction == "left":
        return f"M{num(x)} {num(y)}l{num(s)} {num(-s * 0.7)}v{num(s * 1.4)}z"
    if direction == "down":
        return f"M{num(x)} {num(y)}l{num(-s * 0.7)} {num(-s)}h{num(s * 1.4)}z"
    return f"M{num(x)} {num(y)}l{num(-s * 0.7)} {num(s)}h{num(s * 1.4)}z"

