"""Figures on a grid: a block's threads coloured by warp with one warp outlined (seed 001 Ex 3),
and waves of blocks across the SMs with the ragged tail (seed 000 Ex 7)."""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

from quizgen.engine import grid as grid_engine
from quizgen.engine import warps as warp_engine
from quizgen.errors import require_int
from quizgen.render.canvas import (BINDING, GOOD, INK_ON_FILL, WARP_PALETTE, WIDTH, Canvas, arrow_head,
                                   check_lang, figure_label, heading, num, text_width)
from quizgen.languages import DEFAULT_LANG

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
    rows = (figure_label(lang, "row_one", y=run.y0) if run.y0 == run.y1
            else figure_label(lang, "row_many", a=run.y0, b=run.y1))
    where = f"z={run.z}, {rows}" if three_d else rows
    xs = f"{run.x0}" if run.x0 == run.x1 else f"{run.x0}–{run.x1}"
    return figure_label(lang, "grid_seg", where=where, xs=xs)


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


def _grid_layout(shape: tuple[int, int, int], title: str, shift: float) -> _WarpGrid:
    """Where a block's cells go: z-slices side by side when their cells stay at least 10 units
    wide, else stacked; cells at most 24 wide and the whole grid at most 480 tall."""
    dx, dy, dz = shape
    left = 24.0
    avail = WIDTH - left - 18
    gap = 14.0
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
    return _WarpGrid(title, (), left, top, cell_w, cell_h, grid_w, slice_h, gap, stack_gap,
                     side_by_side, y_end)


@functools.lru_cache(maxsize=1024)   # ~2 KB each
def _warp_grid_base(shape: tuple[int, int, int], lang: str) -> _WarpGrid:
    """Every warp's threads tinted, the cell lines and the slice frames: the same whichever warp
    a card highlights, so drawn once per block shape."""
    info = warp_engine.block_warps(shape)
    dx, dy, dz = shape
    dims = f"{dx}×{dy}×{dz}" if dz > 1 else f"{dx}×{dy}" if dy > 1 else f"({dx})"
    title = figure_label(lang, "grid_title", dims=dims, p=info.threads, w=info.warps,
                         waste=info.wasted_lanes)
    c = Canvas(title)
    shift = heading(c, title) - 18
    grid = _grid_layout(shape, title, shift)
    left = grid.left
    c.text(left + 2, 44.0 + shift - 6, "x →", font_size="11")
    c.text(left - 6, 44.0 + shift - 6, "y ↓", text_anchor="end", font_size="11")
    for z in range(dz):
        ox, oy = grid.origin(z)
        if dz > 1:
            c.text(ox, oy - 5, figure_label(lang, "slice", z=z), font_size="11", cls="qz-slice-label")
    _tint_warps(c, grid, shape, info.warps)
    _cell_lines(c, grid, shape)
    return dataclasses.replace(grid, parts=tuple(c.parts))


def _tint_warps(c: Canvas, grid: _WarpGrid, shape: tuple[int, int, int], warps: int) -> None:
    """Each warp's runs in its colour, and its number on the runs wide enough to hold it."""
    ids: list[tuple[float, float, int]] = []
    c.open("g", cls="qz-warps")
    for k in range(warps):
        for run in warp_runs(shape, k):
            rx, ry, rw, rh = grid.rect_of(run)
            c.rect(rx, ry, rw, rh, fill=warp_colour(k), data_warp=k)
            if rh >= 11 and rw >= text_width(str(k), 10) + 4:
                ids.append((rx + rw / 2, ry + rh / 2 + 3.5, k))
    c.close("g")
    c.open("g", cls="qz-warp-ids", text_anchor="middle", font_size="10", fill=INK_ON_FILL)
    for tx, ty, k in ids:
        c.text(tx, ty, str(k))
    c.close("g")


def _cell_lines(c: Canvas, grid: _WarpGrid, shape: tuple[int, int, int]) -> None:
    """Thin lines between the thread cells (when a cell is wide enough to tell apart) and a
    frame round each z-slice."""
    dx, dy, dz = shape
    cell_w, cell_h, grid_w, slice_h = grid.cell_w, grid.cell_h, grid.grid_w, grid.slice_h
    d = []
    for z in range(dz):
        ox, oy = grid.origin(z)
        if cell_w >= 4:  # cell lines, when a cell is wide enough to tell apart
            d += [f"M{num(ox + x * cell_w)} {num(oy)}v{num(slice_h)}" for x in range(1, dx)]
        if cell_h >= 4:
            d += [f"M{num(ox)} {num(oy + y * cell_h)}h{num(grid_w)}" for y in range(1, dy)]
    if d:
        c.path("".join(d), stroke="#000", stroke_opacity="0.18", stroke_width="0.6", fill="none")
    for z in range(dz):
        ox, oy = grid.origin(z)
        c.rect(ox, oy, grid_w, slice_h, fill="none", stroke="currentColor", stroke_width="1",
               cls="qz-slice", data_z=z, data_cols=dx, data_rows=dy)


def warp_grid(block: Any, highlight_warp: Any = None, lang: str = DEFAULT_LANG) -> str:
    """Threads of a block (D_x columns × D_y rows; z-slices side by side or stacked) tinted by
    warp, with one warp outlined.

    Each run of a warp is one rect (so a 1024-thread block stays small); thin lines mark the thread
    cells when they are wide enough to see.
    """
    lang = check_lang(lang)
    shape = warp_engine.block_shape(block)
    info = warp_engine.block_warps(shape)
    dx, dy, dz = shape
    hl = None if highlight_warp is None else require_int(
        "warp_id", highlight_warp, minimum=0, maximum=info.warps - 1,
        allowed=f"a whole number from 0 to {info.warps - 1} (block {dx}×{dy}×{dz} has "
                f"{info.warps} warps)")
    grid = _warp_grid_base(shape, lang)
    c = Canvas(grid.title)
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
            c.path(f"M{num(x_from + 2)} {num(y_from)}h5q4 0 4 4v6", fill="none", stroke=BINDING,
                   stroke_width="2", cls="qz-wrap")
            c.path(arrow_head(x_from + 11, y_from + 14, "down", 5), fill=BINDING)
            c.line(bx - 13, y_to, bx - 5, y_to, stroke=BINDING, stroke_width="2", cls="qz-wrap")
            c.path(arrow_head(bx - 1, y_to, "right", 5), fill=BINDING)
        y = y_end + 24
        c.text(left - 14, y, figure_label(lang, "grid_warp", k=hl, a=runs[0].linear_start,
                                          b=runs[-1].linear_end), font_weight="bold", cls="qz-caption")
        shown = runs if len(runs) <= 4 else runs[:3]
        for run in shown:
            y += 17
            c.text(left, y, _run_text(lang, run, dz > 1), cls="qz-seg")
        if len(runs) > len(shown):
            y += 17
            c.text(left, y, figure_label(lang, "grid_more", n=len(runs) - len(shown)))
        y_end = y
    return c.render(y_end + 10)



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


#: The height of one wave's row (its bar is 4 units shorter).
_WAVE_ROW_H = 26.0


def waves_figure(grid_blocks: Any, num_sms: Any, blocks_per_sm: Any, lang: str = DEFAULT_LANG) -> str:
    """SMs as columns, waves as rows; each cell filled to the blocks that SM holds in that wave."""
    lang = check_lang(lang)
    plan = grid_engine.waves(grid_blocks, num_sms, blocks_per_sm)
    last_wave = last_wave_spread(plan)
    title = figure_label(lang, "waves_title", g=plan.grid_blocks, sms=plan.num_sms,
                         bps=plan.blocks_per_sm, slots=plan.slots)
    c = Canvas(title)
    shift = heading(c, title) - 18
    if plan.waves == 1:
        summary = figure_label(lang, "waves_summary_one", g=plan.grid_blocks, used=plan.sms_with_blocks)
    elif plan.tail_blocks == 0:
        summary = figure_label(lang, "waves_summary_exact", waves=plan.waves)
    else:
        summary = figure_label(lang, "waves_summary", waves=plan.waves, full=plan.full_waves,
                               tail=plan.tail_blocks)
    c.text(WIDTH / 2, 36 + shift, summary, text_anchor="middle", cls="qz-summary")
    widest = max(text_width(figure_label(lang, "wave", n=plan.waves), 11, bold=True),
                 text_width(figure_label(lang, "wave", n=1), 11))
    left, right = max(56.0, widest + 12), WIDTH - 10.0
    col = (right - left) / plan.num_sms
    row_h = _WAVE_ROW_H
    y = 50.0 + shift
    for kind, n in _wave_rows(plan):
        if kind == "skip":
            c.text(left, y + 14, figure_label(lang, "waves_skipped", n=n), font_size="11")
            y += row_h
            continue
        is_tail = kind == "last"
        c.text(left - 6, y + 15, figure_label(lang, "wave", n=n), text_anchor="end", font_size="11",
               font_weight="bold" if is_tail and plan.waves > 1 else None)
        if kind == "full":
            c.rect(left, y, right - left, row_h - 4, fill=GOOD, cls="qz-wave", data_wave=n,
                   data_blocks=plan.slots)
        else:
            _tail_row(c, lang, plan, last_wave, left, col, y)
        c.rect(left, y, right - left, row_h - 4, fill="none", stroke="currentColor",
               stroke_width="0.8")
        if col >= 3:
            d = "".join(f"M{num(left + s * col)} {num(y)}v{num(row_h - 4)}"
                        for s in range(1, plan.num_sms))
            c.path(d, stroke="currentColor", stroke_opacity="0.3", stroke_width="0.5", fill="none")
        y += row_h
    return c.render(_idle_legend(c, lang, plan, last_wave, left, right, y) + 4)


def _wave_rows(plan: grid_engine.Waves) -> list[tuple[str, int | None]]:
    """The rows to draw: all waves when few; else the first two, an ellipsis, the last full one,
    and the tail."""
    full = plan.full_waves
    rows: list[tuple[str, int | None]] = []
    if full <= 4:
        rows += [("full", n) for n in range(1, full + 1)]
    else:
        rows += [("full", 1), ("full", 2), ("skip", full - 3), ("full", full)]
    if plan.tail_blocks:
        rows.append(("last", plan.waves))
    return rows


def _tail_row(c: Canvas, lang: str, plan: grid_engine.Waves, spread: tuple[int, ...], left: float,
              col: float, y: float) -> None:
    """The last wave: runs of SMs holding equal blocks, each drawn as one rect filled to its
    share, and the SMs it leaves idle."""
    row_h = _WAVE_ROW_H
    i = 0
    while i < len(spread):
        j = i
        while j < len(spread) and spread[j] == spread[i]:
            j += 1
        h = (row_h - 4) * spread[i] / plan.blocks_per_sm
        if spread[i]:
            c.rect(left + i * col, y + row_h - 4 - h, (j - i) * col, h, fill=GOOD,
                   cls="qz-sm-run", data_sms=j - i, data_blocks_each=spread[i])
            each = figure_label(lang, "per_sm", n=spread[i], bps=plan.blocks_per_sm)
            if spread[i] < plan.blocks_per_sm and (j - i) * col >= text_width(each, 10) + 6:
                c.text(left + (i + j) * col / 2, y + 12, each, text_anchor="middle",
                       font_size="10", cls="qz-per-sm")
        else:
            c.rect(left + i * col, y, (j - i) * col, row_h - 4, fill=BINDING,
                   fill_opacity="0.18", stroke=BINDING, stroke_dasharray="3 2",
                   stroke_width="1", cls="qz-idle", data_sms=j - i)
        i = j


def _idle_legend(c: Canvas, lang: str, plan: grid_engine.Waves, last_wave: tuple[int, ...],
                 left: float, right: float, y: float) -> float:
    """The first and last SM's names under the columns, and how many SMs the last wave leaves
    idle; returns the y after them."""
    c.text(left, y + 8, "SM 0", font_size="11")
    c.text(right, y + 8, f"SM {plan.num_sms - 1}", text_anchor="end", font_size="11")
    y += 28
    idle = sum(1 for n in last_wave if n == 0)
    busy = plan.num_sms - idle
    if idle:
        c.rect(left, y - 10, 11, 11, fill=BINDING, fill_opacity="0.18", stroke=BINDING,
               stroke_dasharray="3 2")
        c.text(left + 17, y, figure_label(lang, "idle", n=idle), fill=BINDING, font_weight="bold",
               cls="qz-idle-label")
        c.text(right, y, figure_label(lang, "busy", n=busy), text_anchor="end", cls="qz-busy-label")
        y += 10
    return y
