"""Occupancy figures: seed 000's bucket with lids (one bar per limit, the lowest marked, the water
level at blocks per SM) and the occupancy calculator's sweeps (occupancy against block size,
registers per thread or shared memory per block, with the launch's own point)."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

from quizgen.engine.occupancy import LaunchConfig, OccupancyResult, occupancy
from quizgen.errors import QuizgenError
from quizgen.gpus import GPU, resolve_gpu
from quizgen.render.canvas import (BINDING, INK_ON_FILL, NEUTRAL, WATER, WIDTH, Canvas, check_lang,
                                   figure_label, heading, num, percent, text_width)
from quizgen.problems import VARIANT_GPUS, resolve_named_gpu
from quizgen.render.answers import gpu_words
from quizgen.render.phrases import labels
from quizgen.languages import DEFAULT_LANG

# ---------------------------------------------------------------------------------------------
# 1. The bucket with lids


#: The bars' left and right ends, and the height of one limit's row.
_LID_X0, _LID_X1 = 12.0, WIDTH - 12.0
_LID_ROW_H = 38.0


def occupancy_lids(result: OccupancyResult, lang: str = DEFAULT_LANG) -> str:
    """One bar per limit at the blocks it allows, the lowest ones marked, the level at blocks/SM."""
    lang = check_lang(lang)
    limits = result.limits
    names = [n for n in ("registers", "shared_memory", "warps", "blocks", "barriers")
             if n in limits and not (n == "barriers" and limits[n] is None)]
    blocks = result.blocks_per_sm
    binding = set(result.limiter)
    finite = [limits[n] for n in names if limits[n] is not None]
    # Scale: wide enough to show every small limit, yet a huge one (128 blocks by registers) does
    # not squash the rest: bars past the axis end are drawn broken, with their number.
    axis_max = max(min(max(finite + [blocks, 1]), max(4 * blocks, 8)), 1)
    x0, x1 = _LID_X0, _LID_X1
    span = x1 - x0

    def x_of(n: float) -> float:
        return x0 + span * min(n, axis_max) / axis_max

    where = result.gpu if result.gpu == result.model else f"{result.gpu}, {result.model} model"
    if result.gpu in VARIANT_GPUS:      # a cell's variant of the notes' SM: by what it changes
        where = gpu_words(resolve_named_gpu(result.gpu), lang)
    title = figure_label(lang, "lids_title", where=where)
    c = Canvas(title)
    shift = heading(c, title) - 18
    y = 32.0 + shift
    top = y
    for name in names:
        _lid_row(c, lang, name, limits[name], name in binding, y, x_of(limits[name] or 0), axis_max)
        y += _LID_ROW_H
    bottom = y - 4
    return _water_level(c, lang, result, top, bottom, len(names), x_of(blocks))


def _lid_row(c: Canvas, lang: str, name: str, value: int | None, is_binding: bool, y: float,
             end: float, axis_max: int) -> None:
    """One limit: its name and the blocks it allows above its bar (ending at `end`), a break mark
    when the bar runs past the axis, and the binding tag on the lowest limits."""
    x0, x1 = _LID_X0, _LID_X1
    c.text(x0, y + 13, figure_label(lang, f"lid.{name}"), font_weight="bold" if is_binding else None)
    shown = figure_label(lang, "no_limit") if value is None else figure_label(lang, "blocks", n=value)
    c.text(x1, y + 13, shown, text_anchor="end", cls="qz-val", data_limit=name,
           font_weight="bold" if is_binding else None)
    bar_y = y + 18
    colour = BINDING if is_binding else NEUTRAL
    if value is None:
        c.rect(x0, bar_y, x1 - x0, 12, fill=NEUTRAL, fill_opacity="0.25", stroke=NEUTRAL,
               stroke_dasharray="4 3", cls="qz-bar", data_limit=name)
        return
    c.rect(x0, bar_y, end - x0, 12, fill=colour, cls="qz-bar", data_limit=name,
           data_binding="true" if is_binding else None)
    if value > axis_max:
        # a break mark: the bar goes on past the axis
        c.path(f"M{num(end - 14)} {num(bar_y - 2)}l5 16M{num(end - 8)} {num(bar_y - 2)}l5 16",
               stroke="currentColor", stroke_width="2.5", fill="none")
    if is_binding:
        tag = figure_label(lang, "binding")
        if end + 6 + text_width(tag, bold=True) <= x1:
            c.text(end + 6, bar_y + 10.5, tag, fill=BINDING, font_weight="bold",
                   cls="qz-binding", data_limit=name)
        else:
            c.text(x0 + 4, bar_y + 10, figure_label(lang, "binding_short"), fill=INK_ON_FILL,
                   font_size="11", font_weight="bold", cls="qz-binding", data_limit=name)


def _water_level(c: Canvas, lang: str, result: OccupancyResult, top: float, bottom: float,
                 rows: int, wx: float) -> str:
    """The water level at blocks per SM (at x `wx`), across the bars and not through their
    labels, and the footer line: the occupancy it gives, or why no block fits."""
    x0, x1 = _LID_X0, _LID_X1
    blocks = result.blocks_per_sm
    d = "".join(f"M{num(wx)} {num(top + i * _LID_ROW_H + 15)}v18" for i in range(rows))
    c.path(d + f"M{num(wx)} {num(bottom - 1)}v5", stroke=WATER, stroke_width="2.5", fill="none",
           cls="qz-water")
    level = figure_label(lang, "water", n=blocks)
    tw = text_width(level, bold=True)
    lx = min(max(wx - tw / 2, x0), x1 - tw)
    c.text(lx, bottom + 18, level, fill=WATER, font_weight="bold", cls="qz-level")
    y = bottom + 38
    if result.blocks_per_sm == 0:
        why = result.failure or (result.limiter[0] if result.limiter else "registers")
        why_text = labels(lang, "figure-label").get(f"why.{why}", why)
        c.text(x0, y, figure_label(lang, "lids_fails", why=why_text), fill=BINDING, font_weight="bold")
    else:
        c.text(x0, y, figure_label(lang, "lids_footer", b=blocks, w=result.warps_per_block,
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
    lang = check_lang(lang)
    gpu = resolve_gpu(gpu)
    model = model or gpu.default_model
    xs, ys, own = sweep_points(gpu, config, vary, model)
    own_result = occupancy(gpu, config, model=model)
    scale_x = 1024 if vary == "smem" else 1
    title = figure_label(lang, f"sweep_title.{vary}", gpu=gpu.name, model=model)
    c = Canvas(title)
    shift = heading(c, title) - 18
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
        c.text(tx, bottom + 16, num(tick), text_anchor="middle", font_size="11")
        tick += step
    c.line(left, top - 4, left, bottom)
    c.text((left + right) / 2, bottom + 32, figure_label(lang, f"axis.{vary}"), text_anchor="middle")
    # the curve: occupancy is constant between sample points (steps), as the calculator draws it
    d = [f"M{num(px(xs[0]))} {num(py(ys[0]))}"]
    for i in range(1, len(xs)):
        if ys[i] != ys[i - 1]:
            d.append(f"H{num(px(xs[i]))}V{num(py(ys[i]))}")
    d.append(f"H{num(px(xs[-1]))}")
    c.path("".join(d), fill="none", stroke=WATER, stroke_width="2", cls="qz-curve")
    if vary == "threads":
        for x, v in zip(xs, ys):
            c.circle(px(x), py(v), 1.8, fill=WATER)
    height = bottom + 40
    if mark:
        mx, my = px(own), py(own_result.occupancy)
        c.circle(mx, my, 5, fill=BINDING, stroke="currentColor", stroke_width="1.5", cls="qz-mark")
        shown = own if vary != "smem" else own_result.config.smem_per_block + own_result.config.dyn_smem
        label = figure_label(lang, f"sweep_mark.{vary}", x=shown, occ=percent(own_result.occupancy))
        tw = text_width(label, bold=True)
        # above the plot, with a leader line down to the point
        lx = min(max(mx - tw / 2, 6), WIDTH - 6 - tw)
        c.text(lx, 40 + shift, label, fill=BINDING, font_weight="bold", cls="qz-mark-label")
        c.line(mx, 44 + shift, mx, my - 6, stroke=BINDING, stroke_dasharray="3 2")
    return c.render(height)

