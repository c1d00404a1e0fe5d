"""Figures of the cells worked from code: lanes coloured by what they do, a reduction's active
lanes per iteration, threads waiting at a barrier.

* `lane_grid`: one row of 32 lanes per warp (or per iteration of one warp), each lane coloured
  by its category: the path it takes (if, else, returned early, absent), whether it still runs an
  iteration of a loop, or whose write it reads after a barrier. A named row is outlined.
* `reduction_grid`: one row per iteration of a reduction, one cell per warp filled in proportion
  to its active lanes: full warps, divergent ones (some lanes active), idle ones.
* `barrier_timeline`: each thread (or warp) as a bar of work up to its arrival and a hatched
  wait up to the barrier's release.

The look is every figure's (`quizgen.render.figures`): a 360-unit-wide canvas, ink in
``currentColor``, mid-tone fills that read in light and in Anki's inverted night mode.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Sequence

from quizgen.render.canvas import (BINDING, GOOD, MASKED, WATER, WIDTH, Canvas, check_lang,
                                   figure_label, heading, label_number, num, percent, text_width)
from quizgen.errors import QuizgenError
from quizgen.languages import DEFAULT_LANG
from quizgen.render.phrases import labels

#: Categories of a lane and their fills (None: an outline only) by legend.
LEGENDS: dict[str, tuple[tuple[str, str | None], ...]] = {
    "paths": (("T", GOOD), ("E", BINDING), ("X", MASKED), (".", None)),
    "loop": (("R", GOOD), ("D", MASKED), (".", None)),
    "partners": (("o", GOOD), ("w", WATER), ("x", BINDING), (".", None)),
}
LEFT = 58.0
RIGHT = WIDTH - 8.0


def _legend(c: Canvas, lang: str, legend: str, present: set[str], y: float) -> float:
    for code, fill in LEGENDS[legend]:
        if code not in present:
            continue
        if fill is None:
            c.rect(LEFT, y - 9, 10, 10, fill="none", stroke="currentColor", stroke_opacity="0.5",
                   stroke_dasharray="2 2")
        else:
            c.rect(LEFT, y - 9, 10, 10, fill=fill, fill_opacity="0.55" if code in "XD" else None)
        name = "absent" if code == "." else code
        c.text(LEFT + 16, y, figure_label(lang, f"lanes.{legend}.{name}"), font_size="11",
               cls="qz-legend")
        y += 16
    return y


def lane_grid(rows: Sequence[str], legend: str, lang: str = DEFAULT_LANG, *,
              title: str = "lanes.title_paths", values: dict[str, Any] | None = None,
              row_label: str = "lanes.warp", highlight: int | None = None,
              first_row: int = 0) -> str:
    """Rows of 32 lanes, each lane a cell coloured by its category (see `LEGENDS`); `title`
    and `row_label` are figure labels, the title filled with `values`."""
    lang = check_lang(lang)
    if legend not in LEGENDS:
        raise QuizgenError(f"got legend {legend!r}; expected one of: {', '.join(LEGENDS)}",
                           field="figure")
    if not rows or any(not isinstance(r, str) or len(r) != 32 for r in rows) or len(rows) > 64:
        raise QuizgenError("a lane grid is 1 to 64 rows of 32 lanes each", field="figure")
    fills = dict(LEGENDS[legend])
    title = figure_label(lang, title, **dict(values or {}))
    c = Canvas(title)
    top = heading(c, title) + 14
    cell = (RIGHT - LEFT) / 32
    h = 11.0 if len(rows) <= 16 else 8.5
    for lane in (0, 8, 16, 24, 31):
        c.text(LEFT + (lane + 0.5) * cell, top, str(lane), text_anchor="middle", font_size="10")
    y0 = y = top + 5
    present: set[str] = set()
    row_text = labels(lang, "figure-label")[row_label]
    for r, row in enumerate(rows):
        c.text(LEFT - 4, y + h - 2, row_text.format(w=first_row + r, k=first_row + r),
               text_anchor="end", font_size="10", font_weight="bold" if r == highlight else None)
        for code, start, end in _runs(row):        # a run of equal lanes is one rectangle
            present.add(code)
            fill = fills.get(code)
            x, w = LEFT + start * cell, (end - start) * cell
            if fill is None:
                c.rect(x + 0.8, y + 0.8, w - 1.6, h - 1.6, fill="none", stroke="currentColor",
                       stroke_opacity="0.35", stroke_width="0.6", stroke_dasharray="2 2",
                       cls="qz-lane-absent")
            else:
                c.rect(x, y, w, h, fill=fill, fill_opacity="0.55" if code in "XD" else None,
                       cls=f"qz-lane-{code}")
        y += h
    # thin lines between the lanes and the rows, drawn once over every run
    d = [f"M{num(LEFT + lane * cell)} {num(y0)}v{num(y - y0)}" for lane in range(1, 32)]
    d += [f"M{num(LEFT)} {num(y0 + r * h)}h{num(RIGHT - LEFT)}" for r in range(1, len(rows))]
    c.path("".join(d), stroke="#fff", stroke_opacity="0.8", stroke_width="1", fill="none")
    if highlight is not None and 0 <= highlight < len(rows):
        c.rect(LEFT - 1, y0 + highlight * h - 1, RIGHT - LEFT + 2, h + 2, fill="none",
               stroke="currentColor", stroke_width="1.8", cls="qz-highlight")
    return c.render(_legend(c, lang, legend, present, y + 18) - 4)


def _runs(row: str) -> list[tuple[str, int, int]]:
    """(code, first lane, one past the last lane) for each run of equal codes in `row`."""
    out: list[tuple[str, int, int]] = []
    start = 0
    for lane in range(1, len(row) + 1):
        if lane == len(row) or row[lane] != row[start]:
            out.append((row[start], start, lane))
            start = lane
    return out


def reduction_grid(strides: Sequence[int], active: Sequence[Sequence[int]],
                   present: Sequence[int], kind: str, lang: str = DEFAULT_LANG,
                   highlight: int | None = None) -> str:
    """One row per iteration (its stride), one cell per warp filled by its active lanes ÷ 32;
    a partly filled cell is a divergent warp."""
    lang = check_lang(lang)
    title = figure_label(lang, f"reduction.title.{kind}", T=sum(present))
    c = Canvas(title)
    top = heading(c, title) + 12
    warps = len(present)
    cell = (RIGHT - 64 - LEFT) / warps
    h = 14.0
    c.text(LEFT, top, figure_label(lang, "reduction.warps", w=warps), font_size="10")
    y = top + 6
    y0 = y
    for k, (s, row) in enumerate(zip(strides, active)):
        c.text(LEFT - 4, y + h - 3, f"s = {s}", text_anchor="end", font_size="10",
               font_weight="bold" if k + 1 == highlight else None)
        w = 0
        while w < warps:                       # warps alike side by side make one bar
            a, p = row[w], present[w]
            end = w + 1
            while end < warps and row[end] == a and present[end] == p:
                end += 1
            if a:                               # height: its adding lanes of 32, never too thin to see
                bar = max(3.0, (h - 1) * a / 32)
                c.rect(LEFT + w * cell, y + h - 1 - bar, (end - w) * cell, bar,
                       fill=GOOD if a == p else BINDING, cls="qz-active" if a == p else "qz-divergent")
            w = end
        div = sum(1 for a, p in zip(row, present) if 0 < a < p)
        act = sum(1 for a in row if a)
        c.text(RIGHT, y + h - 3, f"{act} / {div}", text_anchor="end", font_size="10",
               fill=BINDING if div else None)
        if k + 1 == highlight:
            c.rect(LEFT - 1, y - 1, RIGHT - LEFT + 2, h + 2, fill="none", stroke="currentColor",
                   stroke_width="1.6", cls="qz-highlight")
        y += h
    d = [f"M{num(LEFT + w * cell)} {num(y0)}v{num(y - y0)}" for w in range(warps + 1)]
    d += [f"M{num(LEFT)} {num(y0 + r * h)}h{num(warps * cell)}" for r in range(len(strides) + 1)]
    c.path("".join(d), stroke="currentColor", stroke_opacity="0.3", stroke_width="0.6", fill="none")
    y += 16
    for code, fill in (("full", GOOD), ("divergent", BINDING)):
        c.rect(LEFT, y - 9, 10, 10, fill=fill)
        c.text(LEFT + 16, y, figure_label(lang, f"reduction.{code}"), font_size="11")
        y += 16
    for key in ("reduction.height", "reduction.columns"):
        c.text(LEFT, y, figure_label(lang, key), font_size="11")
        y += 16
    return c.render(y - 8)


def barrier_timeline(arrivals: Sequence[Any], weights: Sequence[int], unit: str,
                     lang: str = DEFAULT_LANG, grouped: bool = False) -> str:
    """Each arrival as a bar of work and a hatched wait up to the release (the last arrival)."""
    lang = check_lang(lang)
    times = [Fraction(str(t)) for t in arrivals]
    release = max(times)
    waits = sum((release - t) * w for t, w in zip(times, weights))
    share = waits / (sum(weights) * release)
    title = figure_label(lang, "barrier.title", share=percent(float(share)))
    c = Canvas(title)
    top = heading(c, title) + 14
    labels = [figure_label(lang, "barrier.warp" if grouped else "barrier.thread", j=j, n=w)
              for j, w in enumerate(weights)]
    left = max(LEFT, max(text_width(label, 10) for label in labels) + 8)
    scale = (RIGHT - left - 6) / float(release)
    h = 13.0 if len(times) <= 12 else 9.0
    y = top
    for label, t in zip(labels, times):
        c.text(left - 4, y + h - 3, label, text_anchor="end", font_size="10")
        c.rect(left, y + 1, float(t) * scale, h - 2, fill=WATER, cls="qz-work")
        if t < release:
            c.rect(left + float(t) * scale, y + 1, float(release - t) * scale, h - 2,
                   fill=BINDING, fill_opacity="0.45", cls="qz-wait")
        y += h
    x = left + float(release) * scale
    c.line(x, top - 4, x, y + 2, stroke=BINDING, stroke_width="1.6", stroke_dasharray="3 2")
    text = figure_label(lang, "barrier.release", t=label_number(float(release)), unit=unit)
    c.text(min(x, RIGHT - text_width(text, 10)), y + 14, text, font_size="10", fill=BINDING)
    y += 34
    for code, fill, op in (("work", WATER, None), ("wait", BINDING, "0.45")):
        c.rect(LEFT, y - 9, 10, 10, fill=fill, fill_opacity=op)
        c.text(LEFT + 16, y, figure_label(lang, f"barrier.{code}"), font_size="11")
        y += 16
    return c.render(y - 4)


#: The figure kinds this module draws (`quizgen.render.figures` dispatches them here).
KINDS = ("lane_grid", "reduction_grid", "barrier_timeline")


def draw_code_figure(spec: dict[str, Any], lang: str) -> str:
    """The SVG of a complete spec of one of `KINDS`."""
    kind = spec.get("kind")
    try:
        if kind == "lane_grid":
            return lane_grid(spec["rows"], spec["legend"], lang, title=spec.get("title", "lanes.title_paths"),
                             values=spec.get("values"), row_label=spec.get("row_label", "lanes.warp"),
                             highlight=spec.get("highlight"), first_row=spec.get("first_row", 0))
        if kind == "reduction_grid":
            return reduction_grid(spec["strides"], spec["active"], spec["present"], spec["reduction"],
                                  lang, spec.get("highlight"))
        return barrier_timeline(spec["arrivals"], spec["weights"], spec.get("unit", ""), lang,
                                bool(spec.get("grouped")))
    except KeyError as exc:
        raise QuizgenError(f"the {kind} figure needs {exc.args[0]!r}", field="figure") from None
