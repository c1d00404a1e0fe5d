"""The notes' pictures as small SVG figures, drawn from the engine's results.

Each function returns an SVG document as a string: the same input gives the same bytes (no
timestamps, no random ids), a ``viewBox`` 360 units wide (a phone's width, so 12-unit text is 12 px
there) with ``width="100%"``, and a transparent background. A figure has one look whatever the theme: text and lines use
``currentColor``, fixed to a dark ink (`INK`) on the root, and nothing inside follows the system's
colour scheme. Dark themes are the page's job: the card style sheet inverts a figure in Anki's
night mode (an ``<img>`` cannot see the card's classes, and the system's scheme is not Anki's).
Coloured fills are mid-tones that read before and after that inversion, and text drawn on a fill
has a fixed dark colour.

Labels come from the phrasebook's ``[figure-label]`` table, in the card's language. The canvas,
colours and label helpers every figure shares are in `quizgen.render.canvas`.

Figures:

* `occupancy_lids`: seed 000's bucket with lids — one bar per limit, the lowest marked, the
  water level at blocks per SM (`quizgen.render.occupancy_figures`).
* `occupancy_sweep`: occupancy against block size, registers per thread or shared memory per
  block (the curves NVIDIA's occupancy calculator plots), with the launch's own point
  (`quizgen.render.occupancy_figures`).
* `efficiency_curve`: η(N) = min(N, L)/L with its plateau (seed 000 Ex 6;
  `quizgen.render.timeline_figures`).
* `warp_grid`: a block's threads coloured by warp, one warp outlined (seed 001 Ex 3;
  `quizgen.render.grid_figures`).
* `divergence_timeline`: the convergent bar over the serialised branches (seed 001 Ex 7/8;
  `quizgen.render.timeline_figures`).
* `waves_figure`: waves of blocks across the SMs and the ragged tail (seed 000 Ex 7;
  `quizgen.render.grid_figures`).
* `measured_fma`, `measured_bandwidth`: curves measured on a real H200 beside the latency model's
  prediction (`quizgen.render.measured_figures`).
* `kernel_source`: a shipped kernel's CUDA source and its ptxas report (`quizgen.render.kernel_figures`).
* `lane_grid`, `reduction_grid`, `barrier_timeline`: the cells worked from code, lanes coloured by
  path, a reduction's active lanes per iteration, waits at a barrier (`quizgen.render.code_figures`).

`figure_for` draws the figure a problem asks for (its ``figure`` spec); `media_name` names an
SVG by its content for Anki's media folder. A deck draws each distinct figure once:
`figure_spec` completes a problem's spec (GPU, model, language), `figure_key` gives it a
canonical text, and `draw_figure` draws it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from quizgen.engine.occupancy import LaunchConfig, launch_config, occupancy
from quizgen.errors import QuizgenError
from quizgen.gpus import resolve_gpu
from quizgen.render.canvas import (BINDING, BRANCH_PALETTE, FONT, GOOD, INK, INK_ON_FILL, MASKED,
                                   NEUTRAL, WARP_PALETTE, WATER, WIDTH, check_lang, percent,
                                   text_width, times)
from quizgen.render.grid_figures import (WarpRun, last_wave_spread, warp_colour, warp_grid, warp_runs,
                                         waves_figure)
from quizgen.render.occupancy_figures import SWEEPS, occupancy_lids, occupancy_sweep, sweep_points
from quizgen.languages import DEFAULT_LANG, LANGS
from quizgen.render.timeline_figures import divergence_timeline, efficiency_curve

__all__ = ["BINDING", "BRANCH_PALETTE", "DEFAULT_LANG", "FONT", "GOOD", "INK", "INK_ON_FILL", "KINDS",
           "LANGS", "MASKED", "NEUTRAL", "SWEEPS", "WARP_PALETTE", "WATER", "WIDTH", "WarpRun",
           "divergence_timeline", "draw_figure", "efficiency_curve", "figure_for", "figure_key",
           "figure_spec", "last_wave_spread", "media_name", "occupancy_lids", "occupancy_sweep",
           "percent", "sweep_points", "text_width", "times", "warp_colour", "warp_grid", "warp_runs",
           "waves_figure"]


# ---------------------------------------------------------------------------------------------
# The dispatcher and Anki media names

KINDS = ("occupancy_lids", "occupancy_sweep", "efficiency_curve", "warp_grid", "divergence_timeline",
         "waves_figure", "measured_fma", "measured_bandwidth", "kernel_source",
         "lane_grid", "reduction_grid", "barrier_timeline")

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
    spec["lang"] = check_lang(lang or spec.get("lang") or DEFAULT_LANG)
    return spec


def figure_key(spec: Mapping[str, Any]) -> str:
    """A canonical text of a complete spec: equal keys draw equal figures."""
    return json.dumps(spec, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      default=repr)


def draw_figure(spec: Mapping[str, Any]) -> str:
    """The SVG of a complete spec (from `figure_spec`)."""
    lang = check_lang(spec.get("lang", DEFAULT_LANG))
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
    if kind in ("lane_grid", "reduction_grid", "barrier_timeline"):
        from quizgen.render.code_figures import draw_code_figure

        return draw_code_figure(spec, lang)
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
