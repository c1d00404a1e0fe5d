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
    for i, n in enumerate(tally):
        h = PLOT_H * n / top
        c.rect(LEFT + i * bar_w + 1, base - h, bar_w - 2, h, fill=WATER)
        if n:
            c.text(LEFT + (i + 0.5) * bar_w, base - h - 3, numbers.count(n), text_anchor="middle",
                   font_size="10")
    c.line(LEFT, base, WIDTH - RIGHT, base)
    c.line(LEFT, y0, LEFT, base)
    for i in range(count + 1):
        if count > 8 and i % 2:
            continue
        x = LEFT + i * bar_w
        c.text(x, base + 13, numbers.number(min(i * width, max_score), 2), text_anchor="middle",
               font_size="10")
    c.text(LEFT - 6, y0 + 8, numbers.count(top), text_anchor="end", font_size="10")
    c.text(LEFT - 6, base, "0", text_anchor="end", font_size="10")
    if mean is not None and max_score > 0:
        x = LEFT + plot_w * min(mean / max_score, 1.0)
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


def item_map(items: Sequence[tuple[str, float | None, float | None, bool]], lang: str) -> str:
    """Each item as a point: facility across, discrimination up; flagged items in red.

    items: (label, facility, discrimination, flagged); items without both figures are left out.
    """
    c = Canvas(_label(lang, "map_title"))
    y0 = heading(c, _label(lang, "map_title")) + 16
    plot_w = WIDTH - LEFT - RIGHT
    lo, hi = -0.5, 1.0                  # discrimination shown from −0.5 to 1
    base = y0 + PLOT_H

    def y_of(r: float) -> float:
        return base - PLOT_H * (min(max(r, lo), hi) - lo) / (hi - lo)

    # the bands a teacher reads: below 0.2 poor (shaded), 0 marked
    c.rect(LEFT, y_of(0.2), plot_w, base - y_of(0.2), fill=NEUTRAL, fill_opacity="0.18")
    c.line(LEFT, y_of(0.0), WIDTH - RIGHT, y_of(0.0), stroke_dasharray="3 3")
    c.line(LEFT, base, WIDTH - RIGHT, base)
    c.line(LEFT, y0, LEFT, base)
    for r in (-0.5, 0.0, 0.2, 0.5, 1.0):
        c.text(LEFT - 5, y_of(r) + 3, numbers.number(r, 1), text_anchor="end", font_size="10")
    for f in (0.0, 0.25, 0.5, 0.75, 1.0):
        c.text(LEFT + plot_w * f, base + 13, numbers.percent(f, 0), text_anchor="middle",
               font_size="10")
    for label, facility, r, flagged in items:
        if facility is None or r is None:
            continue
        x, y = LEFT + plot_w * facility, y_of(r)
        c.circle(x, y, 4, fill=BINDING if flagged else GOOD)
        if flagged:                     # only the items to look at are named: the rest crowd
            right = x > LEFT + 0.6 * plot_w
            c.text(x - 6 if right else x + 6, y - 5, label, font_size="9",
                   text_anchor="end" if right else "start")
    c.text(LEFT + plot_w / 2, base + 28, _label(lang, "map_x"), text_anchor="middle",
           font_size="11")
    c.text(LEFT + plot_w / 2, base + 44, _label(lang, "map_legend"), text_anchor="middle",
           font_size="10")
    c.text(12, y0 + PLOT_H / 2, _label(lang, "map_y"), text_anchor="middle", font_size="11",
           transform=f"rotate(-90 12 {y0 + PLOT_H / 2:.1f})")
    return c.render(base + 52)
