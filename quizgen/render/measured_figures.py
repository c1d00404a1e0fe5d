"""Measured H200 curves drawn beside the model's prediction (SVG, like `quizgen.render.figures`).

* `fma_issue_figure`: FMA issue rate per SM against resident warps at ILP 1, 2, 4 (measured
  points joined by lines) and the latency model's rate min(N·ILP/L, N_sched) (dashed), with the
  model's knee N_sched·⌈L/ILP⌉ marked.
* `bandwidth_figure`: streaming bandwidth against warps per SM at ILP 1 and 4, the HBM peak, and
  Little's law's line for ILP 1 (bytes in flight ÷ latency).
"""

from __future__ import annotations

from typing import Any

from quizgen import measured
from quizgen.render import numbers
from quizgen.render.phrases import labels
from quizgen.languages import DEFAULT_LANG
from quizgen.render.canvas import WIDTH, Canvas, check_lang, heading, num, text_width

CURVE_COLOURS = {1: "#2e86de", 2: "#27a567", 4: "#e4572e"}

def _l(lang: str, key: str, **values: Any) -> str:
    return labels(lang, "measured-label")[key].format(**values)


def _frame(c: Canvas, left, right, top, bottom, x_hi, y_hi, x_ticks, y_ticks, y_fmt):
    def px(x: float) -> float:
        return left + (right - left) * x / x_hi

    def py(y: float) -> float:
        return bottom - (bottom - top) * y / y_hi

    for y in y_ticks:
        c.line(left, py(y), right, py(y), stroke_opacity="0.15" if y else "1")
        c.text(left - 5, py(y) + 4, y_fmt(y), text_anchor="end", font_size="10")
    for x in x_ticks:
        c.line(px(x), bottom, px(x), bottom + 4)
        c.text(px(x), bottom + 15, str(x), text_anchor="middle", font_size="10")
    c.line(left, top - 4, left, bottom)
    return px, py


def _polyline(points, px, py) -> str:
    return "M" + "L".join(f"{num(px(x))} {num(py(y))}" for x, y in points)


def fma_issue_figure(lang: str = DEFAULT_LANG) -> str:
    lang = check_lang(lang)
    curves = measured.fma_curves()
    L, s = measured.FMA_LATENCY, 4
    title = _l(lang, "fma_title")
    c = Canvas(title)
    shift = heading(c, title) - 18
    left, right, top, bottom = 40.0, WIDTH - 12.0, 40.0 + shift, 210.0 + shift
    px, py = _frame(c, left, right, top, bottom, 32, 4.2, (0, 4, 8, 12, 16, 20, 24, 28, 32),
                    (0, 1, 2, 3, 4), lambda y: str(y))
    c.text(12, (top + bottom) / 2, _l(lang, "fma_axis_y"), font_size="10", text_anchor="middle",
           transform=f"rotate(-90 12 {num((top + bottom) / 2)})")
    for ilp, points in curves.items():
        colour = CURVE_COLOURS.get(ilp, "#8795a8")
        knee = measured.model_knee(ilp)
        model = [(0, 0.0), (knee, measured.model_rate(knee, ilp)), (32, measured.model_rate(32, ilp))]
        c.path(_polyline(model, px, py), fill="none", stroke=colour, stroke_width="1.5",
               stroke_dasharray="5 3", stroke_opacity="0.8")
        c.path(_polyline(points, px, py), fill="none", stroke=colour, stroke_width="2.5", cls="qz-curve")
        for x, y in points:
            c.circle(px(x), py(y), 2.6, fill=colour)
    knee1 = measured.model_knee(1)
    c.line(px(knee1), py(4), px(knee1), bottom, stroke_dasharray="2 3", stroke_opacity="0.7")
    c.text(px(knee1) + 4, py(4) - 4, _l(lang, "knee", s=s, L=L, k=1, n=knee1), font_size="10")
    c.text((left + right) / 2, bottom + 30, _l(lang, "axis_warps"), text_anchor="middle", font_size="11")
    y = bottom + 50
    for ilp in curves:
        colour = CURVE_COLOURS.get(ilp, "#8795a8")
        c.line(left - 28, y - 4, left - 8, y - 4, stroke=colour, stroke_width="2.5")
        c.text(left - 2, y, _l(lang, "measured", k=ilp), font_size="10")
        mx = left + 120
        c.line(mx - 24, y - 4, mx - 4, y - 4, stroke=colour, stroke_width="1.5", stroke_dasharray="5 3")
        c.text(mx, y, _l(lang, "model", k=ilp, L=L, s=s), font_size="10")
        y += 15
    one = curves[1]
    note = _l(lang, "knee_seen", r=numbers.decimal(measured.per_warp_rate(one), 3),
              p=numbers.decimal(max(r for _, r in one), 2),
              n=numbers.decimal(measured.measured_knee(one), 1))
    size = 10 if text_width(note, 10) <= WIDTH - 8 else 9
    c.text(WIDTH / 2, y + 4, note, text_anchor="middle", font_size=str(size))
    return c.render(y + 12)


def bandwidth_figure(lang: str = DEFAULT_LANG) -> str:
    lang = check_lang(lang)
    curves = measured.bandwidth_curves()
    peak = measured.H200_PEAK_BANDWIDTH / 1e12
    title = _l(lang, "bw_title")
    c = Canvas(title)
    shift = heading(c, title) - 18
    left, right, top, bottom = 40.0, WIDTH - 12.0, 40.0 + shift, 210.0 + shift
    px, py = _frame(c, left, right, top, bottom, 64, 5.0, (0, 8, 16, 24, 32, 40, 48, 56, 64),
                    (0, 1, 2, 3, 4, 5), lambda y: str(y))
    c.text(12, (top + bottom) / 2, _l(lang, "bw_axis_y"), font_size="10", text_anchor="middle",
           transform=f"rotate(-90 12 {num((top + bottom) / 2)})")
    c.line(left, py(peak), right, py(peak), stroke="#8795a8", stroke_width="1.5", stroke_dasharray="6 3")
    c.text(right, py(peak) - 4, _l(lang, "peak", p=numbers.number(peak, 1)), text_anchor="end", font_size="10")
    model = [(w, measured.model_bandwidth(w, 1) / 1000) for w in (0, 64)]
    c.path(_polyline(model, px, py), fill="none", stroke=CURVE_COLOURS[1], stroke_width="1.5",
           stroke_dasharray="5 3", stroke_opacity="0.8")
    for ilp, points in curves.items():
        colour = CURVE_COLOURS.get(ilp, "#8795a8")
        tb = [(w, g / 1000) for w, g in points]
        c.path(_polyline(tb, px, py), fill="none", stroke=colour, stroke_width="2.5", cls="qz-curve")
        for x, y in tb:
            c.circle(px(x), py(y), 2.6, fill=colour)
    c.text((left + right) / 2, bottom + 30, _l(lang, "axis_warps"), text_anchor="middle", font_size="11")
    y = bottom + 50
    for ilp in curves:
        colour = CURVE_COLOURS.get(ilp, "#8795a8")
        c.line(left - 28, y - 4, left - 8, y - 4, stroke=colour, stroke_width="2.5")
        c.text(left - 2, y, _l(lang, "measured", k=ilp), font_size="10")
        y += 15
    c.line(left - 28, y - 4, left - 8, y - 4, stroke=CURVE_COLOURS[1], stroke_width="1.5",
           stroke_dasharray="5 3")
    ns = measured.memory_latency_seconds() * 1e9
    c.text(left - 2, y, _l(lang, "littles", ns=numbers.decimal(ns, 0)), font_size="10")
    y += 17
    at64 = dict(curves[1])[64] / 1000
    need = measured.warps_for_peak(1)
    c.text(WIDTH / 2, y, _l(lang, "bw_note", a=numbers.decimal(at64, 2), p=numbers.number(peak, 1)),
           text_anchor="middle", font_size="10")
    c.text(WIDTH / 2, y + 14, _l(lang, "bw_need", n=need), text_anchor="middle", font_size="10")
    return c.render(y + 22)
