"""Figures along time: latency hiding's η(N) = min(N, L)/L with its plateau (seed 000 Ex 6), and
a divergent warp's serialised branches under the convergent bar (seed 001 Ex 7/8)."""

from __future__ import annotations

import math
from typing import Any

from quizgen.engine import divergence as divergence_engine
from quizgen.engine import latency as latency_engine
from quizgen.render.canvas import (BINDING, BRANCH_PALETTE, INK_ON_FILL, MASKED, WATER, WIDTH, Canvas,
                                   arrow_head, check_lang, figure_label, heading, label_number, num,
                                   percent, text_width, times)
from quizgen.languages import DEFAULT_LANG

# ---------------------------------------------------------------------------------------------
# 3. Latency hiding: η(N)


def efficiency_curve(latency: Any, resident_warps: Any, lang: str = DEFAULT_LANG) -> str:
    """The rising line η = N/L that flattens at N = L, with the launch's N marked."""
    lang = check_lang(lang)
    result = latency_engine.efficiency(resident_warps, latency)
    L, N, eta = result.latency, result.resident_warps, result.efficiency
    title = figure_label(lang, "eta_title", L=L)
    c = Canvas(title)
    shift = heading(c, title) - 18
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
    c.path(f"M{num(px(0))} {num(py(0))}L{num(px(L))} {num(py(1))}H{num(px(x_hi))}", fill="none",
           stroke=WATER, stroke_width="2.5", cls="qz-curve")
    # the plateau's start
    c.line(px(L), py(1), px(L), bottom, stroke_dasharray="4 3", stroke_opacity="0.6")
    c.line(px(L), bottom, px(L), bottom + 4)
    c.text(px(L), bottom + 16, f"L = {L}", text_anchor="middle", font_size="11")
    plateau = figure_label(lang, "plateau", L=L)
    tw = text_width(plateau, 11)
    c.text(max(right - tw, left + 4), py(1) - 10, plateau, font_size="11", fill=WATER)
    # the launch's point, its tick on the axis, and its values in a legend line below
    mx, my = px(N), py(eta)
    c.line(mx, my, mx, bottom + 4, stroke=BINDING, stroke_dasharray="3 2")
    c.circle(mx, my, 5, fill=BINDING, stroke="currentColor", stroke_width="1.5", cls="qz-mark")
    if abs(mx - px(L)) >= 50:
        c.text(mx, bottom + 16, f"N = {N}", text_anchor="middle", font_size="11", fill=BINDING)
    c.text((left + right) / 2, bottom + 34, figure_label(lang, "axis.warps"), text_anchor="middle")
    y = bottom + 56
    c.circle(left - 30, y - 4, 5, fill=BINDING, stroke="currentColor", stroke_width="1.5")
    c.text(left - 20, y, figure_label(lang, "eta_mark", N=N, eta=percent(eta)), fill=BINDING,
           font_weight="bold", cls="qz-mark-label")
    return c.render(y + 8)



# ---------------------------------------------------------------------------------------------
# 5. Divergence: serialised branches


#: The height of one lane in a branch's bar (a warp's 32 lanes make a 40-unit strip).
_LANE_H = 1.25


def _branch_name(lang: str, i: int, count: int) -> str:
    if count <= 2:
        return figure_label(lang, "branch.if" if i == 0 else "branch.else")
    return figure_label(lang, "branch.n", n=i + 1)


def divergence_timeline(branches: Any, baseline: Any = None, lang: str = DEFAULT_LANG,
                        active_lanes: Any = 32) -> str:
    """The convergent bar on top; below, the branches that some lane takes, end to end.

    `branches` is a list of {"lanes", "cost"}; `baseline` the convergent time in cycles (None: the
    engine's lane-weighted baseline).
    """
    lang = check_lang(lang)
    result = divergence_engine.divergence(branches, active_lanes=active_lanes, baseline=baseline)
    taken = [(b.lanes, b.cost) for b in result.branches]
    lanes_all = result.active_lanes
    serialised, base, slowdown = result.serialised, result.baseline, result.slowdown
    t, b = label_number(serialised), label_number(base)
    title = (figure_label(lang, "div_title", t=t, b=b, s=times(slowdown)) if serialised > base
             else figure_label(lang, "div_title_free", t=t, b=b))
    c = Canvas(title)
    shift = heading(c, title) - 18
    left, right = 12.0, WIDTH - 12.0
    total = max(serialised, base)
    unit = (right - left) / total

    # the convergent bar
    y = 34.0 + shift
    c.text(left, y + 10, figure_label(lang, "convergent", b=label_number(base)), font_size="11",
           cls="qz-baseline-label")
    c.rect(left, y + 16, base * unit, 14, fill=WATER, cls="qz-baseline")
    y += 46
    bar_h = lanes_all * _LANE_H
    _branch_bars(c, lang, taken, lanes_all, left, unit, y)
    # the double arrow over the whole serialised time
    ay = y + bar_h + 12
    if serialised:
        end = left + serialised * unit
        c.line(left + 2, ay, end - 2, ay, stroke=BINDING, stroke_width="1.8")
        c.path(arrow_head(left, ay, "left") + arrow_head(end, ay, "right"), fill=BINDING)
        c.line(left, y + bar_h, left, ay + 4, stroke=BINDING, stroke_width="1")
        c.line(end, y + bar_h, end, ay + 4, stroke=BINDING, stroke_width="1")
    c.text(left, ay + 18, figure_label(lang, "serialised", t=t, s=times(slowdown)), fill=BINDING,
           font_weight="bold", cls="qz-total")
    y = _branch_legend(c, lang, taken, lanes_all, left, ay + 40)
    return c.render(y - 6)


def _branch_bars(c: Canvas, lang: str, taken: list[tuple[int, float]], lanes_all: int, left: float,
                 unit: float, y: float) -> None:
    """The serialised branches end to end: each bar is a strip of the warp's lanes, live lanes
    coloured, masked ones grey, named where the bar has room."""
    lane_h = _LANE_H
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


def _branch_legend(c: Canvas, lang: str, taken: list[tuple[int, float]], lanes_all: int, left: float,
                   y: float) -> float:
    """A line per branch (its live and masked lanes and its cost, or that no lane takes it) and
    the masked lanes' key; returns the y after the last line."""
    count = len(taken)
    for i, (lanes, cost) in enumerate(taken):
        name = _branch_name(lang, i, count)
        colour = BRANCH_PALETTE[i % len(BRANCH_PALETTE)]
        if lanes:
            c.rect(left, y - 10, 11, 11, fill=colour)
            c.text(left + 17, y, figure_label(lang, "branch_line", name=name, live=lanes,
                                              masked=lanes_all - lanes, cost=label_number(cost)),
                   cls="qz-branch", data_branch=i)
        else:
            c.rect(left, y - 10, 11, 11, fill="none", stroke="currentColor", stroke_dasharray="2 2")
            c.text(left + 17, y, figure_label(lang, "branch_skipped", name=name), cls="qz-skipped",
                   data_branch=i, fill_opacity="0.8")
        y += 18
    c.rect(left, y - 10, 11, 11, fill=MASKED, fill_opacity="0.35")
    c.text(left + 17, y, figure_label(lang, "masked_note"), font_size="11")
    return y + 18

