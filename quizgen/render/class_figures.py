"""The class report's pictures, as SVG drawn like the cards' figures (`quizgen.render.figures`):
the score histogram and the item map (facility against discrimination).

Same conventions: a ``viewBox`` 360 units wide, ``currentColor`` ink, mid-tone fills, the same
input gives the same bytes. Labels come from the phrasebook's ``[class-figure-label]`` table.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from quizgen.render import numbers
from quizgen.render.canvas import BINDING, GOOD, NEUTRAL, WATER, WIDTH, Canvas, heading
from quizgen.render.phrases import labels

__all__ = ["score_histogram", "item_map"]

LEFT, RIGHT, PLOT_H = 40, 12, 150


def _label(lang: str, key: str, **values: Any) -> str:
    return labels(lang, "class-figure-label")[key].format(**values)


def _bins(max_score: float) -> tuple[float, int]:
    """A bin width that gives 5–12 bars over 0…max_score (whole points where it can)."""
    if max_score <= 0:
        return 1.0, 1
    for width in (1, 2, 2.5, 5, 10, 20, 25, 50, 100):
        count = math.ceil(max_score / width)
        if count <= 12:
            return float(width), max(count, 1)
    return max_score / 10, 10


def score_histogram(scores: Sequence[float], max_score: float, lang: str,
                    mean: float | None = None) -> str:
    """How many students scored in each band of points, with the class mean marked."""
    width, count = _bins(max_score)
    tally = [0] * count
    for s in scores:
        tally[min(int(s // width), count - 1)] += 1
    top = max(tally, default=0) or 1
    c = Canvas(_label(lang, "histogram_title"))
    y0 = heading(c, _label(lang, "histogram_title")) + 30   # room for the mean's label and a count
    plot_w = WIDTH - LEFT - RIGHT
    bar_w = plot_w / count
    base = y0 + PLOT_H
    # one scale for the bars, the ticks and the mean: 0 … count × width points across the plot
    # (the last bar may reach past the highest score; the highest score gets its own tick)
    span = width * count

    def x_of(points: float) -> float:
        return LEFT + plot_w * min(max(points / span, 0.0), 1.0)

    mean_x = x_of(min(mean, max_score)) if mean is not None and max_score > 0 else None
    for i, n in enumerate(tally):
        h = PLOT_H * n / top
        c.rect(LEFT + i * bar_w + 1, base - h, bar_w - 2, h, fill=WATER)
        if n:
            x, anchor = LEFT + (i + 0.5) * bar_w, "middle"
            if mean_x is not None and abs(mean_x - x) < 8:      # beside the mean's line
                x, anchor = (mean_x - 3, "end") if mean_x >= x else (mean_x + 3, "start")
            c.text(x, base - h - 3, numbers.count(n), text_anchor=anchor, font_size="10")
    c.line(LEFT, base, WIDTH - RIGHT, base)
    c.line(LEFT, y0, LEFT, base)

    ticks = [i * width for i in range(count + 1) if i * width <= max_score
             and not (count > 8 and i % 2)]
    if max_score > 0 and max_score not in ticks:
        ticks = [t for t in ticks if x_of(max_score) - x_of(t) >= 14] + [max_score]
    for t in ticks:
        c.line(x_of(t), base, x_of(t), base + 3)
        c.text(x_of(t), base + 13, numbers.number(t, 2), text_anchor="middle", font_size="10")
    c.text(LEFT - 6, y0 + 8, numbers.count(top), text_anchor="end", font_size="10")
    c.text(LEFT - 6, base, "0", text_anchor="end", font_size="10")
    if mean_x is not None:
        x = mean_x
        c.line(x, y0 - 16, x, base, stroke=BINDING, stroke_width="2", stroke_dasharray="4 3")
        anchor = "end" if x > LEFT + 0.7 * plot_w else "start" if x < LEFT + 0.3 * plot_w else "middle"
        c.text(x + {"end": -4, "start": 4, "middle": 0}[anchor], y0 - 19,
               _label(lang, "mean", value=numbers.number(mean, 2)), text_anchor=anchor,
               font_size="10", fill=BINDING)
    c.text(LEFT + plot_w / 2, base + 28, _label(lang, "histogram_x"), text_anchor="middle",
           font_size="11")
    c.text(12, y0 + PLOT_H / 2, _label(lang, "histogram_y"), text_anchor="middle", font_size="11",
           transform=f"rotate(-90 12 {y0 + PLOT_H / 2:.1f})")
    return c.render(base + 36)


#: An item of the map: (label, facility, discrimination, flagged, a whole question).
MapItem = tuple[str, "float | None", "float | None", bool, bool]


def item_map(items: Sequence[MapItem], lang: str) -> str:
    """Each item as a mark: facility across, discrimination up; flagged items in red and named
    where their name fits beside the mark without covering another name or mark.

    A question is a square, an answer box a dot; an item with no discrimination (everyone or no
    one earned it) is a ring on the 0 line. An item with no facility is left out. Every mark
    carries its item's name as a tooltip (``<title>``).
    """
    c = Canvas(_label(lang, "map_title"))
    y0 = heading(c, _label(lang, "map_title")) + 16
    plot_w = WIDTH - LEFT - RIGHT
    lo, hi = -0.5, 1.0                  # discrimination shown from −0.5 to 1
    base = y0 + PLOT_H

    def at(facility: float, r: float | None) -> tuple[float, float]:
        r = 0.0 if r is None else min(max(r, lo), hi)
        return LEFT + plot_w * facility, base - PLOT_H * (r - lo) / (hi - lo)

    # the bands a teacher reads: below 0.2 poor (shaded), 0 marked
    c.rect(LEFT, at(0, 0.2)[1], plot_w, base - at(0, 0.2)[1], fill=NEUTRAL, fill_opacity="0.18")
    c.line(LEFT, at(0, 0.0)[1], WIDTH - RIGHT, at(0, 0.0)[1], stroke_dasharray="3 3")
    c.line(LEFT, base, WIDTH - RIGHT, base)
    c.line(LEFT, y0, LEFT, base)
    for r in (-0.5, 0.0, 0.2, 0.5, 1.0):
        c.text(LEFT - 5, at(0, r)[1] + 3, numbers.number(r, 1), text_anchor="end", font_size="10")
    for f in (0.0, 0.25, 0.5, 0.75, 1.0):
        c.text(LEFT + plot_w * f, base + 13, numbers.percent(f, 0), text_anchor="middle",
               font_size="10")
    shown = [(label, *at(f, r), r is None, flagged, question)
             for label, f, r, flagged, question in items if f is not None]
    _marks(c, shown)
    _names(c, shown, (LEFT, y0 - 12, WIDTH, base))
    for dy, key, size in ((28, "map_x", "11"), (44, "map_legend", "10"), (58, "map_shapes", "10")):
        c.text(LEFT + plot_w / 2, base + dy, _label(lang, key), text_anchor="middle", font_size=size)
    c.text(12, y0 + PLOT_H / 2, _label(lang, "map_y"), text_anchor="middle", font_size="11",
           transform=f"rotate(-90 12 {y0 + PLOT_H / 2:.1f})")
    return c.render(base + 66)


#: A mark placed on the map: (label, x, y, no discrimination, flagged, a whole question).
_Mark = tuple[str, float, float, bool, bool, bool]


def _marks(c: Canvas, shown: Sequence[_Mark]) -> None:
    """The marks, the flagged ones last (drawn over the rest), each with its name as a tooltip."""
    for label, x, y, ring, flagged, question in sorted(shown, key=lambda m: m[4]):
        colour = BINDING if flagged else GOOD
        tip = f"<title>{_xml(label)}</title>"
        if ring:
            c.add("circle", {"cx": x, "cy": y, "r": 4.0, "fill": "none", "stroke": colour,
                             "stroke_width": "2", "cls": "qz-item"}, tip)
        elif question:
            c.add("rect", {"x": x - 4, "y": y - 4, "width": 8.0, "height": 8.0, "fill": colour,
                           "cls": "qz-item"}, tip)
        else:
            c.add("circle", {"cx": x, "cy": y, "r": 4.0, "fill": colour, "cls": "qz-item"}, tip)


def _names(c: Canvas, shown: Sequence[_Mark], area: tuple[float, float, float, float]) -> None:
    """The flagged marks' names, each beside its mark inside `area`, where it covers no other
    name and no mark (a name that finds no such place is left to the tooltip and the list)."""
    from quizgen.render.canvas import text_width

    taken = [(x - 4, y - 4, x + 4, y + 4) for _, x, y, *_ in shown]
    for label, x, y, _, flagged, _ in shown:
        if not flagged:
            continue
        width = text_width(label, 9)
        for dx, dy in ((6, -5), (-6, -5), (6, 12), (-6, 12)):
            left = x + dx if dx > 0 else x + dx - width
            box = (left, y + dy - 9, left + width, y + dy + 1)
            inside = area[0] <= box[0] and box[2] <= area[2] and area[1] <= box[1] and box[3] <= area[3]
            if inside and not any(_overlap(box, other) for other in taken):
                taken.append(box)
                c.text(x + dx, y + dy, label, font_size="9",
                       text_anchor="start" if dx > 0 else "end", cls="qz-item-name")
                break


def _overlap(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _xml(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
