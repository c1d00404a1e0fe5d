"""The notes' pictures as small SVG figures, drawn from the engine's results.

Each function returns an SVG document as a string: the same input gives the same bytes (no
timestamps, no random ids), a ``viewBox`` 360 units wide (a phone's width, so 12-unit text is 12 px
there) with ``width="100%"``, and a transparent background. A figure has one look whatever the theme: text and lines use
``currentColor``, fixed to a dark ink (`INK`) on the root, and nothing inside follows the system's
colour scheme. Dark themes are the page's job: the card style sheet inverts a figure in Anki's
night mode (an ``<img>`` cannot see the card's classes, and the system's scheme is not Anki's).
Coloured fills are mid-tones that read before and after that inversion, and text drawn on a fill
has a fixed dark colour.

Labels come from the phrasebook's ``[figure-label]`` table, in the card's language.

Figures:

* `occupancy_lids`: seed 000's bucket with lids — one bar per limit, the lowest marked, the
  water level at blocks per SM.
* `occupancy_sweep`: occupancy against block size, registers per thread or shared memory per
  block (the curves NVIDIA's occupancy calculator plots), with the launch's own point.
* `efficiency_curve`: η(N) = min(N, L)/L with its plateau (seed 000 Ex 6).
* `warp_grid`: a block's threads coloured by warp, one warp outlined (seed 001 Ex 3).
* `divergence_timeline`: the convergent bar over the serialised branches (seed 001 Ex 7/8).
* `waves_figure`: waves of blocks across the SMs and the ragged tail (seed 000 Ex 7).
* `measured_fma`, `measured_bandwidth`: curves measured on a real H200 beside the latency model's
  prediction (`quizgen.render.measured_figures`).
* `kernel_source`: a shipped kernel's CUDA source and its ptxas report (`quizgen.render.kernel_figures`).

`figure_for` draws the figure a problem asks for (its ``figure`` spec); `media_name` names an
SVG by its content for Anki's media folder. A deck draws each distinct figure once:
`figure_spec` completes a problem's spec (GPU, model, language), `figure_key` gives it a
canonical text, and `draw_figure` draws it.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import html
import json
import math
import re
from collections.abc import Mapping
from typing import Any

from quizgen.engine import divergence as divergence_engine
from quizgen.engine import grid as grid_engine
from quizgen.engine import latency as latency_engine
from quizgen.engine import warps as warp_engine
from quizgen.engine.occupancy import LaunchConfig, OccupancyResult, launch_config, occupancy
from quizgen.errors import QuizgenError, require_int
from quizgen.gpus import GPU, resolve_gpu
from quizgen.xmltext import xml_text

from quizgen.render import numbers  # noqa: E402
from quizgen.render.phrases import DEFAULT_LANG, LANGS, labels  # noqa: E402  (the phrasebook's languages)
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


def _label(lang: str, key: str, **values: Any) -> str:
    """A label in `lang`, with "1 blocks" read as "1 block"."""
    for name, value in values.items():     # counts as a person reads them: 9,750 blocks
        if value.__class__ is int:
            values[name] = numbers.count(value)
    text = labels(lang, "figure-label")[key].format(**values)
    return _ONE.sub(r"1 \1", text) if "1 " in text else text


def _check_lang(lang: Any) -> str:
    if lang not in LANGS:
        raise QuizgenError(f"got {lang!r}; expected one of: {', '.join(LANGS)}", field="lang")
    return lang


_NUMS: dict[float, str] = {}


def _num(value: float) -> str:
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


def _fmt(value: float) -> str:
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


class _Canvas:
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
            return _Canvas._format_attrs(attrs)
        if text is None:
            text = _Canvas._format_attrs(attrs)
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
                out.append(f' {name}="{_num(value)}"')
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
        self.parts.append(f'<rect x="{_num(x)}" y="{_num(y)}" width="{_num(max(w, 0))}" '
                          f'height="{_num(max(h, 0))}"{self._attrs(attrs)}/>')

    def line(self, x1: float, y1: float, x2: float, y2: float, **attrs: Any) -> None:
        attrs.setdefault("stroke", "currentColor")
        self.add("line", {"x1": float(x1), "y1": float(y1), "x2": float(x2), "y2": float(y2),
                          **attrs})

    def path(self, d: str, **attrs: Any) -> None:
        self.add("path", {"d": d, **attrs})

    def circle(self, cx: float, cy: float, r: float, **attrs: Any) -> None:
        self.add("circle", {"cx": float(cx), "cy": float(cy), "r": float(r), **attrs})

    def text(self, x: float, y: float, text: str, **attrs: Any) -> None:
        self.parts.append(f'<text x="{_num(x)}" y="{_num(y)}"{self._attrs(attrs)}>'
                          f"{_escape(text)}</text>")

    def open(self, tag: str, **attrs: Any) -> None:
        self.parts.append(f"<{tag}{self._attrs(attrs)}>")

    def close(self, tag: str) -> None:
        self.parts.append(f"</{tag}>")

    def render(self, height: float) -> str:
        h = _num(math.ceil(height))
        head = (f'<svg xmlns="http://www.w3.org/2000/svg" class="qz-fig" viewBox="0 0 {self.width} {h}" '
                f'width="100%" role="img" color="{INK}" fill="currentColor" font-family="DejaVu Sans, Verdana, '
                f'Arial, sans-serif" font-size="{FONT}"><title>{_escape(self.title)}</title>')
        return head + "".join(self.parts) + "</svg>\n"


def _heading(c: _Canvas, text: str, y: float = 18) -> float:
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


def _arrow_head(x: float, y: float, direction: str, size: float = 5) -> str:
    """Path data of a small filled triangle pointing left/right/down/up with its tip at (x, y)."""
    s = size
    if direction == "right":
        return f"M{_num(x)} {_num(y)}l{_num(-s)} {_num(-s * 0.7)}v{_num(s * 1.4)}z"
    if direction == "left":
        return f"M{_num(x)} {_num(y)}l{_num(s)} {_num(-s * 0.7)}v{_num(s * 1.4)}z"
    if direction == "down":
        return f"M{_num(x)} {_num(y)}l{_num(-s * 0.7)} {_num(-s)}h{_num(s * 1.4)}z"
    return f"M{_num(x)} {_num(y)}l{_num(-s * 0.7)} {_num(s)}h{_num(s * 1.4)}z"


# ---------------------------------------------------------------------------------------------
# 1. The bucket with lids


def occupancy_lids(result: OccupancyResult, lang: str = DEFAULT_LANG) -> str:
    """One bar per limit at the blocks it allows, the lowest ones marked, the level at blocks/SM."""
    lang = _check_lang(lang)
    limits = result.limits
    names = [n for n in ("registers", "shared_memory", "warps", "blocks", "barriers")
             if n in limits and not (n == "barriers" and limits[n] is None)]
    blocks = result.blocks_per_sm
    binding = set(result.limiter)
    finite = [limits[n] for n in names if limits[n] is not None]
    # Scale: wide enough to show every small limit, yet a huge one (128 blocks by registers) does
    # not squash the rest: bars past the axis end are drawn broken, with their number.
    axis_max = max(min(max(finite + [blocks, 1]), max(4 * blocks, 8)), 1)
    x0, x1 = 12.0, WIDTH - 12.0
    span = x1 - x0

    def x_of(n: float) -> float:
        return x0 + span * min(n, axis_max) / axis_max

    where = result.gpu if result.gpu == result.model else f"{result.gpu}, {result.model} model"
    title = _label(lang, "lids_title", where=where)
    c = _Canvas(title)
    shift = _heading(c, title) - 18
    y = 32.0 + shift
    row_h = 38.0
    top = y
    for name in names:
        value = limits[name]
        is_binding = name in binding
        c.text(x0, y + 13, _label(lang, f"lid.{name}"), font_weight="bold" if is_binding else None)
        shown = _label(lang, "no_limit") if value is None else _label(lang, "blocks", n=value)
        c.text(x1, y + 13, shown, text_anchor="end", cls="qz-val", data_limit=name,
               font_weight="bold" if is_binding else None)
        bar_y = y + 18
        colour = BINDING if is_binding else NEUTRAL
        if value is None:
            c.rect(x0, bar_y, span, 12, fill=NEUTRAL, fill_opacity="0.25", stroke=NEUTRAL,
                   stroke_dasharray="4 3", cls="qz-bar", data_limit=name)
        else:
            end = x_of(value)
            c.rect(x0, bar_y, end - x0, 12, fill=colour, cls="qz-bar", data_limit=name,
                   data_binding="true" if is_binding else None)
            if value > axis_max:
                # a break mark: the bar goes on past the axis
                c.path(f"M{_num(end - 14)} {_num(bar_y - 2)}l5 16M{_num(end - 8)} {_num(bar_y - 2)}l5 16",
                       stroke="currentColor", stroke_width="2.5", fill="none")
            if is_binding:
                tag = _label(lang, "binding")
                if end + 6 + text_width(tag, bold=True) <= x1:
                    c.text(end + 6, bar_y + 10.5, tag, fill=BINDING, font_weight="bold",
                           cls="qz-binding", data_limit=name)
                else:
                    c.text(x0 + 4, bar_y + 10, _label(lang, "binding_short"), fill=INK_ON_FILL,
                           font_size="11", font_weight="bold", cls="qz-binding", data_limit=name)
        y += row_h
    bottom = y - 4
    # the water level, across the bars (not through their labels)
    wx = x_of(blocks)
    d = "".join(f"M{_num(wx)} {_num(top + i * row_h + 15)}v18" for i in range(len(names)))
    c.path(d + f"M{_num(wx)} {_num(bottom - 1)}v5", stroke=WATER, stroke_width="2.5", fill="none",
           cls="qz-water")
    level = _label(lang, "water", n=blocks)
    tw = text_width(level, bold=True)
    lx = min(max(wx - tw / 2, x0), x1 - tw)
    c.text(lx, bottom + 18, level, fill=WATER, font_weight="bold", cls="qz-level")
    y = bottom + 38
    if result.blocks_per_sm == 0:
        why = result.failure or (result.limiter[0] if result.limiter else "registers")
        why_text = labels(lang, "figure-label").get(f"why.{why}", why)
        c.text(x0, y, _label(lang, "lids_fails", why=why_text), fill=BINDING, font_weight="bold")
    else:
        c.text(x0, y, _label(lang, "lids_footer", b=blocks, w=result.warps_per_block,
                             a=result.active_warps, m=result.max_warps_per_sm,
                             occ=percent(result.occupancy)))
    return c.render(y + 8)


# ---------------------------------------------------------------------------------------------
# 2. The occupancy calculator's sweeps

SWEEPS = ("threads", "regs", "smem")


def _with(config: LaunchConfig, **changes: Any) -> LaunchConfig:
    """`dataclasses.replace` for a launch, without its field introspection (a sweep makes hundreds)."""
    fields = {"threads_per_block": config.threads_per_block, "regs_per_thread": config.regs_per_thread,
              "smem_per_block": config.smem_per_block, "dyn_smem": config.dyn_smem,
              "optin": config.optin, "carveout": config.carveout, "barriers": config.barriers,
              "block": config.block}
    fields.update(changes)
    return LaunchConfig(**fields)


def sweep_points(gpu: GPU, config: LaunchConfig, vary: str,
                 model: str | None = None) -> tuple[list[int], list[float], int]:
    """(x values, occupancy at each, the launch's own x) for one sweep."""
    if vary == "threads":
        xs = list(range(32, gpu.max_threads_per_block + 1, 32))
        own = config.threads_per_block

        def cfg(x: int) -> LaunchConfig:
            return _with(config, threads_per_block=x, block=None)
    elif vary == "regs":
        xs = list(range(0, gpu.max_regs_per_thread + 1))
        own = config.regs_per_thread

        def cfg(x: int) -> LaunchConfig:
            return _with(config, regs_per_thread=x)
    elif vary == "smem":
        # The total a block asks for; the dynamic part varies when the launch has one.
        own = config.smem_per_block + config.dyn_smem
        top = max(gpu.smem_per_block_optin, own)
        xs = list(range(0, top + 1, 1024))
        if config.dyn_smem:
            def cfg(x: int) -> LaunchConfig:
                return _with(config, dyn_smem=max(x - config.smem_per_block, 0))
            xs = [x for x in xs if x >= config.smem_per_block] or [config.smem_per_block]
        else:
            def cfg(x: int) -> LaunchConfig:
                return _with(config, smem_per_block=x)
    else:
        raise QuizgenError(f"got {vary!r}; expected one of: {', '.join(SWEEPS)}", field="vary")
    if own not in xs:
        xs = sorted(xs + [own])
    # Launches that differ only in the varied value share their curve: cfg(xs[0]) is the same
    # for all of them, and so is each cfg(x).
    try:
        curve = _sweep_curve(gpu, cfg(xs[0]), vary, model)
    except TypeError:          # an unhashable field: draw this curve without sharing it
        curve = {}
    ys = []
    for x in xs:
        y = curve.get(x)
        if y is None:
            y = curve[x] = occupancy(gpu, cfg(x), model=model).occupancy
        ys.append(y)
    return xs, ys, own


@functools.lru_cache(maxsize=256)
def _sweep_curve(gpu: GPU, first: LaunchConfig, vary: str, model: str | None) -> dict[int, float]:
    """The occupancy found so far at each x of one sweep (filled in by `sweep_points`)."""
    return {}


def occupancy_sweep(gpu: GPU | str | Mapping[str, Any], config: LaunchConfig, vary: str = "threads",
                    model: str | None = None, lang: str = DEFAULT_LANG, mark: bool = True) -> str:
    """Occupancy as one launch parameter varies, computed point by point with the engine."""
    lang = _check_lang(lang)
    gpu = resolve_gpu(gpu)
    model = model or gpu.default_model
    xs, ys, own = sweep_points(gpu, config, vary, model)
    own_result = occupancy(gpu, config, model=model)
    scale_x = 1024 if vary == "smem" else 1
    title = _label(lang, f"sweep_title.{vary}", gpu=gpu.name, model=model)
    c = _Canvas(title)
    shift = _heading(c, title) - 18
    left, right, top, bottom = 46.0, WIDTH - 14.0, 56.0 + shift, 216.0 + shift
    x_lo, x_hi = 0, max(xs[-1], own)

    def px(x: float) -> float:
        return left + (right - left) * (x - x_lo) / (x_hi - x_lo)

    def py(v: float) -> float:
        return bottom - (bottom - top) * v

    # axes and grid
    for v in (0, 0.25, 0.5, 0.75, 1.0):
        c.line(left, py(v), right, py(v), stroke_opacity="0.2" if v else "1", stroke_width="1")
        c.text(left - 5, py(v) + 4, percent(v), text_anchor="end", font_size="11")
    # ticks at the steps people think in: 256 threads, 64 registers, 16 or 32 KB
    step = {"threads": 256 if x_hi > 512 else 128, "regs": 64,
            "smem": 32 if x_hi > 128 * 1024 else 16}[vary]
    tick = 0.0
    while tick * scale_x <= x_hi + 1e-9:
        tx = px(tick * scale_x)
        c.line(tx, bottom, tx, bottom + 4)
        c.text(tx, bottom + 16, _num(tick), text_anchor="middle", font_size="11")
        tick += step
    c.line(left, top - 4, left, bottom)
    c.text((left + right) / 2, bottom + 32, _label(lang, f"axis.{vary}"), text_anchor="middle")
    # the curve: occupancy is constant between sample points (steps), as the calculator draws it
    d = [f"M{_num(px(xs[0]))} {_num(py(ys[0]))}"]
    for i in range(1, len(xs)):
        if ys[i] != ys[i - 1]:
            d.append(f"H{_num(px(xs[i]))}V{_num(py(ys[i]))}")
    d.append(f"H{_num(px(xs[-1]))}")
    c.path("".join(d), fill="none", stroke=WATER, stroke_width="2", cls="qz-curve")
    if vary == "threads":
        for x, v in zip(xs, ys):
            c.circle(px(x), py(v), 1.8, fill=WATER)
    height = bottom + 40
    if mark:
        mx, my = px(own), py(own_result.occupancy)
        c.circle(mx, my, 5, fill=BINDING, stroke="currentColor", stroke_width="1.5", cls="qz-mark")
        shown = own if vary != "smem" else own_result.config.smem_per_block + own_result.config.dyn_smem
        label = _label(lang, f"sweep_mark.{vary}", x=shown, occ=percent(own_result.occupancy))
        tw = text_width(label, bold=True)
        # above the plot, with a leader line down to the point
        lx = min(max(mx - tw / 2, 6), WIDTH - 6 - tw)
        c.text(lx, 40 + shift, label, fill=BINDING, font_weight="bold", cls="qz-mark-label")
        c.line(mx, 44 + shift, mx, my - 6, stroke=BINDING, stroke_dasharray="3 2")
    return c.render(height)


# ---------------------------------------------------------------------------------------------
# 3. Latency hiding: η(N)


def efficiency_curve(latency: Any, resident_warps: Any, lang: str = DEFAULT_LANG) -> str:
    """The rising line η = N/L that flattens at N = L, with the launch's N marked."""
    lang = _check_lang(lang)
    result = latency_engine.efficiency(resident_warps, latency)
    L, N, eta = result.latency, result.resident_warps, result.efficiency
    title = _label(lang, "eta_title", L=L)
    c = _Canvas(title)
    shift = _heading(c, title) - 18
    c.text(WIDTH / 2, 36 + shift, "η(N) = min(N, L) / L", text_anchor="middle", cls="qz-formula")
    left, right, top, bottom = 46.0, WIDTH - 14.0, 70.0 + shift, 210.0 + shift
    x_hi = max(2 * L, math.ceil(N * 1.15))

    def px(n: float) -> float:
        return left + (right - left) * n / x_hi

    def py(v: float) -> float:
        return bottom - (bottom - top) * v

    for v in (0, 0.5, 1.0):
        c.line(left, py(v), right, py(v), stroke_opacity="0.2" if v else "1")
        c.text(left - 5, py(v) + 4, percent(v), text_anchor="end", font_size="11")
    c.line(left, top - 6, left, bottom)
    c.path(f"M{_num(px(0))} {_num(py(0))}L{_num(px(L))} {_num(py(1))}H{_num(px(x_hi))}", fill="none",
           stroke=WATER, stroke_width="2.5", cls="qz-curve")
    # the plateau's start
    c.line(px(L), py(1), px(L), bottom, stroke_dasharray="4 3", stroke_opacity="0.6")
    c.line(px(L), bottom, px(L), bottom + 4)
    c.text(px(L), bottom + 16, f"L = {L}", text_anchor="middle", font_size="11")
    plateau = _label(lang, "plateau", L=L)
    tw = text_width(plateau, 11)
    c.text(max(right - tw, left + 4), py(1) - 10, plateau, font_size="11", fill=WATER)
    # the launch's point, its tick on the axis, and its values in a legend line below
    mx, my = px(N), py(eta)
    c.line(mx, my, mx, bottom + 4, stroke=BINDING, stroke_dasharray="3 2")
    c.circle(mx, my, 5, fill=BINDING, stroke="currentColor", stroke_width="1.5", cls="qz-mark")
    if abs(mx - px(L)) >= 50:
        c.text(mx, bottom + 16, f"N = {N}", text_anchor="middle", font_size="11", fill=BINDING)
    c.text((left + right) / 2, bottom + 34, _label(lang, "axis.warps"), text_anchor="middle")
    y = bottom + 56
    c.circle(left - 30, y - 4, 5, fill=BINDING, stroke="currentColor", stroke_width="1.5")
    c.text(left - 20, y, _label(lang, "eta_mark", N=N, eta=percent(eta)), fill=BINDING,
           font_weight="bold", cls="qz-mark-label")
    return c.render(y + 8)


# ---------------------------------------------------------------------------------------------
# 4. A block's threads coloured by warp


def warp_colour(warp_id: int) -> str:
    return WARP_PALETTE[warp_id % len(WARP_PALETTE)]


@dataclasses.dataclass(frozen=True, slots=True)
class WarpRun:
    """A rectangle of one warp's threads inside one z-slice: rows y0…y1, columns x0…x1 (inclusive)."""

    warp: int
    z: int
    y0: int
    y1: int
    x0: int
    x1: int
    linear_start: int
    linear_end: int


def warp_runs(shape: tuple[int, int, int], warp_id: int) -> list[WarpRun]:
    """The engine's row pieces of a warp, with consecutive whole rows of one slice merged."""
    dx = shape[0]
    runs: list[WarpRun] = []
    for seg in warp_engine.warp_members(shape, warp_id):
        whole = seg.x_start == 0 and seg.x_end == dx - 1
        if runs:
            prev = runs[-1]
            if (whole and prev.x0 == 0 and prev.x1 == dx - 1 and prev.z == seg.z
                    and prev.y1 + 1 == seg.y):
                runs[-1] = dataclasses.replace(prev, y1=seg.y, linear_end=seg.linear_end)
                continue
        runs.append(WarpRun(warp_id, seg.z, seg.y, seg.y, seg.x_start, seg.x_end, seg.linear_start,
                            seg.linear_end))
    return runs


def _run_text(lang: str, run: WarpRun, three_d: bool) -> str:
    rows = (_label(lang, "row_one", y=run.y0) if run.y0 == run.y1
            else _label(lang, "row_many", a=run.y0, b=run.y1))
    where = f"z={run.z}, {rows}" if three_d else rows
    xs = f"{run.x0}" if run.x0 == run.x1 else f"{run.x0}–{run.x1}"
    return _label(lang, "grid_seg", where=where, xs=xs)


@dataclasses.dataclass(frozen=True, slots=True)
class _WarpGrid:
    """A block's warp grid without a highlighted warp: its drawing and its layout."""

    title: str
    parts: tuple[str, ...]
    left: float
    top: float
    cell_w: float
    cell_h: float
    grid_w: float
    slice_h: float
    gap: float
    stack_gap: float
    side_by_side: bool
    y_end: float

    def origin(self, z: int) -> tuple[float, float]:
        if self.side_by_side:
            return self.left + z * (self.grid_w + self.gap), self.top
        return self.left, self.top + z * (self.slice_h + self.stack_gap)

    def rect_of(self, run: WarpRun) -> tuple[float, float, float, float]:
        ox, oy = self.origin(run.z)
        return (ox + run.x0 * self.cell_w, oy + run.y0 * self.cell_h,
                (run.x1 - run.x0 + 1) * self.cell_w, (run.y1 - run.y0 + 1) * self.cell_h)


@functools.lru_cache(maxsize=1024)   # ~2 KB each
def _warp_grid_base(shape: tuple[int, int, int], lang: str) -> _WarpGrid:
    """Every warp's threads tinted, the cell lines and the slice frames: the same whichever warp
    a card highlights, so drawn once per block shape."""
    info = warp_engine.block_warps(shape)
    dx, dy, dz = shape
    dims = f"{dx}×{dy}×{dz}" if dz > 1 else f"{dx}×{dy}" if dy > 1 else f"({dx})"
    title = _label(lang, "grid_title", dims=dims, p=info.threads, w=info.warps, waste=info.wasted_lanes)
    c = _Canvas(title)
    shift = _heading(c, title) - 18
    left = 24.0
    avail = WIDTH - left - 18
    gap = 14.0
    # z-slices side by side when their cells stay at least 10 units wide, else stacked
    side_by_side = dz > 1 and (avail - (dz - 1) * gap) / (dz * dx) >= 10
    if side_by_side:
        cell_w = min(24.0, (avail - (dz - 1) * gap) / (dz * dx))
    else:
        cell_w = min(24.0, avail / dx)
    grid_w = cell_w * dx
    cell_h = cell_w if cell_w >= 14 else 14.0
    stack_gap = 24.0 if dz > 1 and not side_by_side else 0.0
    max_grid_h = 480.0
    rows_tall = dy if side_by_side else dy * dz
    if rows_tall * cell_h + (dz - 1) * stack_gap > max_grid_h:
        cell_h = max((max_grid_h - (dz - 1) * stack_gap) / rows_tall, 2.0)
    slice_h = dy * cell_h
    top = 44.0 + shift + (16 if dz > 1 else 0)
    y_end = top + (slice_h if side_by_side else dz * slice_h + (dz - 1) * stack_gap)
    grid = _WarpGrid(title, (), left, top, cell_w, cell_h, grid_w, slice_h, gap, stack_gap,
                     side_by_side, y_end)
    origin = grid.origin
    rect_of = grid.rect_of
    c.text(left + 2, 44.0 + shift - 6, "x →", font_size="11")
    c.text(left - 6, 44.0 + shift - 6, "y ↓", text_anchor="end", font_size="11")
    for z in range(dz):
        ox, oy = origin(z)
        if dz > 1:
            c.text(ox, oy - 5, _label(lang, "slice", z=z), font_size="11", cls="qz-slice-label")
    ids: list[tuple[float, float, int]] = []
    c.open("g", cls="qz-warps")
    for k in range(info.warps):
        for run in warp_runs(shape, k):
            rx, ry, rw, rh = rect_of(run)
            c.rect(rx, ry, rw, rh, fill=warp_colour(k), data_warp=k)
            if rh >= 11 and rw >= text_width(str(k), 10) + 4:
                ids.append((rx + rw / 2, ry + rh / 2 + 3.5, k))
    c.close("g")
    c.open("g", cls="qz-warp-ids", text_anchor="middle", font_size="10", fill=INK_ON_FILL)
    for tx, ty, k in ids:
        c.text(tx, ty, str(k))
    c.close("g")
    d = []
    for z in range(dz):
        ox, oy = origin(z)
        if cell_w >= 4:  # cell lines, when a cell is wide enough to tell apart
            d += [f"M{_num(ox + x * cell_w)} {_num(oy)}v{_num(slice_h)}" for x in range(1, dx)]
        if cell_h >= 4:
            d += [f"M{_num(ox)} {_num(oy + y * cell_h)}h{_num(grid_w)}" for y in range(1, dy)]
    if d:
        c.path("".join(d), stroke="#000", stroke_opacity="0.18", stroke_width="0.6", fill="none")
    for z in range(dz):
        ox, oy = origin(z)
        c.rect(ox, oy, grid_w, slice_h, fill="none", stroke="currentColor", stroke_width="1",
               cls="qz-slice", data_z=z, data_cols=dx, data_rows=dy)
    return dataclasses.replace(grid, parts=tuple(c.parts))


def warp_grid(block: Any, highlight_warp: Any = None, lang: str = DEFAULT_LANG) -> str:
    """Threads of a block (D_x columns × D_y rows; z-slices side by side or stacked) tinted by
    warp, with one warp outlined.

    Each run of a warp is one rect (so a 1024-thread block stays small); thin lines mark the thread
    cells when they are wide enough to see.
    """
    lang = _check_lang(lang)
    shape = warp_engine.block_shape(block)
    info = warp_engine.block_warps(shape)
    dx, dy, dz = shape
    hl = None if highlight_warp is None else require_int(
        "warp_id", highlight_warp, minimum=0, maximum=info.warps - 1,
        allowed=f"a whole number from 0 to {info.warps - 1} (block {dx}×{dy}×{dz} has "
                f"{info.warps} warps)")
    grid = _warp_grid_base(shape, lang)
    c = _Canvas(grid.title)
    c.parts = list(grid.parts)
    left, cell_h, rect_of = grid.left, grid.cell_h, grid.rect_of
    y_end = grid.y_end
    if hl is not None:
        runs = warp_runs(shape, hl)
        rects = [rect_of(run) for run in runs]
        for rx, ry, rw, rh in rects:
            c.rect(rx, ry, rw, rh, fill="none", stroke="currentColor", stroke_width="2.5",
                   cls="qz-highlight", data_warp=hl)
        # where the warp runs off a row and goes on at the next one's start: a hook at the run's
        # end and an arrow into the next run, like a wrapped line of text
        for (ax, ay, aw, ah), (bx, by, _, bh) in list(zip(rects, rects[1:]))[:2]:
            x_from, y_from = ax + aw, ay + ah - min(ah, cell_h) / 2
            y_to = by + min(bh, cell_h) / 2
            c.path(f"M{_num(x_from + 2)} {_num(y_from)}h5q4 0 4 4v6", fill="none", stroke=BINDING,
                   stroke_width="2", cls="qz-wrap")
            c.path(_arrow_head(x_from + 11, y_from + 14, "down", 5), fill=BINDING)
            c.line(bx - 13, y_to, bx - 5, y_to, stroke=BINDING, stroke_width="2", cls="qz-wrap")
            c.path(_arrow_head(bx - 1, y_to, "right", 5), fill=BINDING)
        y = y_end + 24
        c.text(left - 14, y, _label(lang, "grid_warp", k=hl, a=runs[0].linear_start,
                                    b=runs[-1].linear_end), font_weight="bold", cls="qz-caption")
        shown = runs if len(runs) <= 4 else runs[:3]
        for run in shown:
            y += 17
            c.text(left, y, _run_text(lang, run, dz > 1), cls="qz-seg")
        if len(runs) > len(shown):
            y += 17
            c.text(left, y, _label(lang, "grid_more", n=len(runs) - len(shown)))
        y_end = y
    return c.render(y_end + 10)


# ---------------------------------------------------------------------------------------------
# 5. Divergence: serialised branches


def _branch_name(lang: str, i: int, count: int) -> str:
    if count <= 2:
        return _label(lang, "branch.if" if i == 0 else "branch.else")
    return _label(lang, "branch.n", n=i + 1)


def divergence_timeline(branches: Any, baseline: Any = None, lang: str = DEFAULT_LANG,
                        active_lanes: Any = 32) -> str:
    """The convergent bar on top; below, the branches that some lane takes, end to end.

    `branches` is a list of {"lanes", "cost"}; `baseline` the convergent time in cycles (None: the
    engine's lane-weighted baseline).
    """
    lang = _check_lang(lang)
    result = divergence_engine.divergence(branches, active_lanes=active_lanes, baseline=baseline)
    taken = [(b.lanes, b.cost) for b in result.branches]
    lanes_all = result.active_lanes
    serialised, base, slowdown = result.serialised, result.baseline, result.slowdown
    title = (_label(lang, "div_title", t=_fmt(serialised), b=_fmt(base), s=times(slowdown))
             if serialised > base else _label(lang, "div_title_free", t=_fmt(serialised), b=_fmt(base)))
    c = _Canvas(title)
    shift = _heading(c, title) - 18
    left, right = 12.0, WIDTH - 12.0
    total = max(serialised, base)
    unit = (right - left) / total

    # the convergent bar
    y = 34.0 + shift
    c.text(left, y + 10, _label(lang, "convergent", b=_fmt(base)), font_size="11",
           cls="qz-baseline-label")
    c.rect(left, y + 16, base * unit, 14, fill=WATER, cls="qz-baseline")
    y += 46
    # the serialised branches: each bar is a strip of 32 lanes, live lanes coloured, masked grey
    lane_h = 1.25
    bar_h = lanes_all * lane_h
    x = left
    count = len(taken)
    for i, (lanes, cost) in enumerate(taken):
        if lanes == 0:
            continue
        w = cost * unit
        colour = BRANCH_PALETTE[i % len(BRANCH_PALETTE)]
        c.rect(x, y, w, lanes * lane_h, fill=colour, cls="qz-live", data_branch=i)
        c.rect(x, y + lanes * lane_h, w, (lanes_all - lanes) * lane_h, fill=MASKED, fill_opacity="0.35",
               cls="qz-masked", data_branch=i)
        c.rect(x, y, w, bar_h, fill="none", stroke="currentColor", stroke_width="1")
        name = _branch_name(lang, i, count)
        if w >= text_width(name, 11, bold=True) + 6 and lanes * lane_h >= 12:
            c.text(x + 4, y + lanes * lane_h / 2 + 4, name, font_size="11",
                   fill=INK_ON_FILL, font_weight="bold")
        x += w
    # the double arrow over the whole serialised time
    ay = y + bar_h + 12
    if serialised:
        end = left + serialised * unit
        c.line(left + 2, ay, end - 2, ay, stroke=BINDING, stroke_width="1.8")
        c.path(_arrow_head(left, ay, "left") + _arrow_head(end, ay, "right"), fill=BINDING)
        c.line(left, y + bar_h, left, ay + 4, stroke=BINDING, stroke_width="1")
        c.line(end, y + bar_h, end, ay + 4, stroke=BINDING, stroke_width="1")
    c.text(left, ay + 18, _label(lang, "serialised", t=_fmt(serialised), s=times(slowdown)), fill=BINDING,
           font_weight="bold", cls="qz-total")
    y = ay + 40
    for i, (lanes, cost) in enumerate(taken):
        name = _branch_name(lang, i, count)
        colour = BRANCH_PALETTE[i % len(BRANCH_PALETTE)]
        if lanes:
            c.rect(left, y - 10, 11, 11, fill=colour)
            c.text(left + 17, y, _label(lang, "branch_line", name=name, live=lanes,
                                        masked=lanes_all - lanes, cost=_fmt(cost)),
                   cls="qz-branch", data_branch=i)
        else:
            c.rect(left, y - 10, 11, 11, fill="none", stroke="currentColor", stroke_dasharray="2 2")
            c.text(left + 17, y, _label(lang, "branch_skipped", name=name), cls="qz-skipped",
                   data_branch=i, fill_opacity="0.8")
        y += 18
    c.rect(left, y - 10, 11, 11, fill=MASKED, fill_opacity="0.35")
    c.text(left + 17, y, _label(lang, "masked_note"), font_size="11")
    y += 18
    return c.render(y - 6)


# ---------------------------------------------------------------------------------------------
# 6. Waves across the SMs


def last_wave_spread(plan: grid_engine.Waves) -> tuple[int, ...]:
    """Blocks on each SM in the last wave drawn, from the engine's counts: blocks go out
    breadth-first, one per SM first, so the tail's blocks spread over its tail_sms SMs."""
    if plan.tail_blocks == 0:
        return (plan.blocks_per_sm,) * plan.num_sms
    used = plan.tail_sms
    base, extra = divmod(plan.tail_blocks, used)
    spread = [base + 1] * extra + [base] * (used - extra)
    return tuple(spread + [0] * (plan.num_sms - len(spread)))


def waves_figure(grid_blocks: Any, num_sms: Any, blocks_per_sm: Any, lang: str = DEFAULT_LANG) -> str:
    """SMs as columns, waves as rows; each cell filled to the blocks that SM holds in that wave."""
    lang = _check_lang(lang)
    plan = grid_engine.waves(grid_blocks, num_sms, blocks_per_sm)
    last_wave = last_wave_spread(plan)
    title = _label(lang, "waves_title", g=plan.grid_blocks, sms=plan.num_sms, bps=plan.blocks_per_sm,
                   slots=plan.slots)
    c = _Canvas(title)
    shift = _heading(c, title) - 18
    if plan.waves == 1:
        summary = _label(lang, "waves_summary_one", g=plan.grid_blocks, used=plan.sms_with_blocks)
    elif plan.tail_blocks == 0:
        summary = _label(lang, "waves_summary_exact", waves=plan.waves)
    else:
        summary = _label(lang, "waves_summary", waves=plan.waves, full=plan.full_waves,
                         tail=plan.tail_blocks)
    c.text(WIDTH / 2, 36 + shift, summary, text_anchor="middle", cls="qz-summary")
    widest = max(text_width(_label(lang, "wave", n=plan.waves), 11, bold=True),
                 text_width(_label(lang, "wave", n=1), 11))
    left, right = max(56.0, widest + 12), WIDTH - 10.0
    col = (right - left) / plan.num_sms
    row_h = 26.0
    y = 50.0 + shift
    # Rows to draw: all waves when few; else the first two, an ellipsis, the last full one, the tail.
    full = plan.full_waves
    rows: list[tuple[str, int | None]] = []
    if full <= 4:
        rows += [("full", n) for n in range(1, full + 1)]
    else:
        rows += [("full", 1), ("full", 2), ("skip", full - 3), ("full", full)]
    if plan.tail_blocks:
        rows.append(("last", plan.waves))

    for kind, n in rows:
        if kind == "skip":
            c.text(left, y + 14, _label(lang, "waves_skipped", n=n), font_size="11")
            y += row_h
            continue
        is_tail = kind == "last"
        c.text(left - 6, y + 15, _label(lang, "wave", n=n), text_anchor="end", font_size="11",
               font_weight="bold" if is_tail and plan.waves > 1 else None)
        if kind == "full":
            c.rect(left, y, right - left, row_h - 4, fill=GOOD, cls="qz-wave", data_wave=n,
                   data_blocks=plan.slots)
        else:
            # runs of equal fill, drawn as one rect each
            i = 0
            spread = last_wave
            while i < len(spread):
                j = i
                while j < len(spread) and spread[j] == spread[i]:
                    j += 1
                h = (row_h - 4) * spread[i] / plan.blocks_per_sm
                if spread[i]:
                    c.rect(left + i * col, y + row_h - 4 - h, (j - i) * col, h, fill=GOOD,
                           cls="qz-sm-run", data_sms=j - i, data_blocks_each=spread[i])
                    each = _label(lang, "per_sm", n=spread[i], bps=plan.blocks_per_sm)
                    if spread[i] < plan.blocks_per_sm and (j - i) * col >= text_width(each, 10) + 6:
                        c.text(left + (i + j) * col / 2, y + 12, each, text_anchor="middle",
                               font_size="10", cls="qz-per-sm")
                else:
                    c.rect(left + i * col, y, (j - i) * col, row_h - 4, fill=BINDING,
                           fill_opacity="0.18", stroke=BINDING, stroke_dasharray="3 2",
                           stroke_width="1", cls="qz-idle", data_sms=j - i)
                i = j
        c.rect(left, y, right - left, row_h - 4, fill="none", stroke="currentColor",
               stroke_width="0.8")
        if col >= 3:
            d = "".join(f"M{_num(left + s * col)} {_num(y)}v{_num(row_h - 4)}"
                        for s in range(1, plan.num_sms))
            c.path(d, stroke="currentColor", stroke_opacity="0.3", stroke_width="0.5", fill="none")
        y += row_h
    c.text(left, y + 8, "SM 0", font_size="11")
    c.text(right, y + 8, f"SM {plan.num_sms - 1}", text_anchor="end", font_size="11")
    y += 28
    idle = sum(1 for n in last_wave if n == 0)
    busy = plan.num_sms - idle
    if idle:
        c.rect(left, y - 10, 11, 11, fill=BINDING, fill_opacity="0.18", stroke=BINDING,
               stroke_dasharray="3 2")
        c.text(left + 17, y, _label(lang, "idle", n=idle), fill=BINDING, font_weight="bold",
               cls="qz-idle-label")
        c.text(right, y, _label(lang, "busy", n=busy), text_anchor="end", cls="qz-busy-label")
        y += 10
    return c.render(y + 4)


# ---------------------------------------------------------------------------------------------
# The dispatcher and Anki media names

KINDS = ("occupancy_lids", "occupancy_sweep", "efficiency_curve", "warp_grid", "divergence_timeline",
         "waves_figure", "measured_fma", "measured_bandwidth", "kernel_source")

_CONFIG_KEYS = ("threads_per_block", "regs_per_thread", "smem_per_block", "dyn_smem", "optin",
                "carveout", "barriers", "block")


def _need(spec: Mapping[str, Any], *names: str) -> Any:
    for name in names:
        if name in spec and spec[name] is not None:
            return spec[name]
    raise QuizgenError(f"the {spec.get('kind')} figure needs {names[0]!r}", field="figure")


def _spec_config(spec: Mapping[str, Any]) -> LaunchConfig:
    if isinstance(spec.get("config"), LaunchConfig):
        return spec["config"]
    source = spec.get("config") if isinstance(spec.get("config"), Mapping) else spec
    return launch_config(**{k: source[k] for k in _CONFIG_KEYS if k in source})


def figure_spec(problem_or_spec: Any, lang: str | None = None, **numbers: Any) -> dict[str, Any] | None:
    """The complete spec of the figure a problem asks for (None: it has none): its ``figure``
    fields completed by the problem's ``gpu``, ``model`` and ``lang``, with ``lang`` settled.

    Takes what `figure_for` takes. Two problems whose complete specs are equal get the same
    figure, so a deck can draw each distinct spec once (see `figure_key`).
    """
    source = problem_or_spec
    context: dict[str, Any] = {}
    if isinstance(source, str):
        spec: dict[str, Any] = {"kind": source}
    elif isinstance(source, Mapping) and "kind" in source:
        spec = dict(source)
    elif isinstance(source, Mapping) or hasattr(source, "figure"):
        # a problem dict, or a `Problem` read field by field (no copy of the whole record)
        get = source.get if isinstance(source, Mapping) else (lambda k: getattr(source, k, None))
        if not get("figure"):
            return None
        spec = dict(get("figure"))
        context = {k: get(k) for k in ("gpu", "model", "lang") if get(k) is not None}
    else:
        raise QuizgenError(f"expected a problem or a figure spec, got {type(source).__name__}",
                           field="figure")
    spec.update(numbers)
    for key, value in context.items():
        spec.setdefault(key, value)
    spec["lang"] = _check_lang(lang or spec.get("lang") or DEFAULT_LANG)
    return spec


def figure_key(spec: Mapping[str, Any]) -> str:
    """A canonical text of a complete spec: equal keys draw equal figures."""
    return json.dumps(spec, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      default=repr)


def draw_figure(spec: Mapping[str, Any]) -> str:
    """The SVG of a complete spec (from `figure_spec`)."""
    lang = _check_lang(spec.get("lang", DEFAULT_LANG))
    kind = spec.get("kind")
    if kind == "occupancy_lids":
        gpu = resolve_gpu(_need(spec, "gpu"))
        return occupancy_lids(occupancy(gpu, _spec_config(spec), model=spec.get("model")), lang)
    if kind == "occupancy_sweep":
        gpu = resolve_gpu(_need(spec, "gpu"))
        return occupancy_sweep(gpu, _spec_config(spec), spec.get("vary", "threads"), spec.get("model"),
                               lang, bool(spec.get("mark", True)))
    if kind == "efficiency_curve":
        return efficiency_curve(_need(spec, "latency"),
                                _need(spec, "resident_warps", "active_warps"), lang)
    if kind == "warp_grid":
        return warp_grid(_need(spec, "block"), spec.get("warp_id", spec.get("highlight_warp")), lang)
    if kind == "divergence_timeline":
        return divergence_timeline(_need(spec, "branches"), _need(spec, "baseline"), lang)
    if kind == "waves_figure":
        return waves_figure(_need(spec, "grid_blocks"), _need(spec, "num_sms"),
                            _need(spec, "blocks_per_sm"), lang)
    if kind in ("measured_fma", "measured_bandwidth"):
        from quizgen.render import measured_figures

        draw = measured_figures.fma_issue_figure if kind == "measured_fma" else measured_figures.bandwidth_figure
        return draw(lang)
    if kind == "kernel_source":
        from quizgen.render.kernel_figures import kernel_source_figure

        return kernel_source_figure(_need(spec, "kernel"), _need(spec, "arch"), lang, spec.get("before"))
    raise QuizgenError(f"got kind {kind!r}; expected one of: {', '.join(KINDS)}", field="figure")


def figure_for(problem_or_spec: Any, lang: str | None = None, **numbers: Any) -> str | None:
    """The figure a problem asks for, or None when it has none.

    Accepts a `Problem`, a problem dict (its ``figure`` spec, completed by its ``gpu``, ``model``
    and ``lang``), a spec dict ``{"kind": ..., ...}``, or a kind name with the numbers as keywords.
    Spec fields use the canonical names: ``gpu`` (preset name or dict), ``model`` and the launch
    fields (``threads_per_block``/``block``, ``regs_per_thread``, ``smem_per_block``, ...) for
    the occupancy figures, plus ``vary`` and ``mark`` for the sweep; ``latency`` and
    ``resident_warps`` (or ``active_warps``); ``block`` and ``warp_id``; ``branches`` and
    ``baseline``; ``grid_blocks``, ``num_sms`` and ``blocks_per_sm``.
    """
    spec = figure_spec(problem_or_spec, lang, **numbers)
    return None if spec is None else draw_figure(spec)


def media_name(svg: str) -> str:
    """An Anki media file name from the figure's bytes: same figure, same name."""
    return f"quizgen-{hashlib.sha256(svg.encode('utf-8')).hexdigest()[:16]}.svg"
