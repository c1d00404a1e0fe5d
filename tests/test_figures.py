"""The figures: valid SVG, numbers equal to the engine's, deterministic, geometry that tells the truth."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

from quizgen.engine.occupancy import launch_config, occupancy
from quizgen.errors import QuizgenError
from quizgen.gpus import get_gpu
from quizgen.problems.model import Problem, Solution
from quizgen.render import code_figures as CF
from quizgen.render import figures as F
from quizgen.render import grid_figures, occupancy_figures
from quizgen.render.canvas import num

NS = "{http://www.w3.org/2000/svg}"
SIZE_CAP = 16_000
class _Numbers:
    """The numbers a label shows, read as a person reads them (65,536 is one number)."""

    pattern = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?")

    def findall(self, text: str) -> list[str]:
        return [n.replace(",", "") for n in self.pattern.findall(text)]

    def search(self, text: str):
        return self.pattern.search(text)


NUMBER = _Numbers()

TEXTBOOK = get_gpu("textbook")


def parse(svg: str) -> ET.Element:
    root = ET.fromstring(svg)
    assert root.tag == f"{NS}svg"
    x, y, w, h = (float(v) for v in root.get("viewBox").split())
    assert (x, y) == (0, 0) and w > 0 and h > 0
    assert root.get("width") == "100%"
    return root


def texts(root: ET.Element, *, skip_title: bool = True) -> list[ET.Element]:
    return [t for t in root.iter(f"{NS}text") if not (skip_title and t.get("class") == "qz-title")]


def numbers_in(root: ET.Element, **kw) -> set[float]:
    found: set[float] = set()
    for t in texts(root, **kw):
        found |= {float(n) for n in NUMBER.findall(t.text or "")}
    return found


def rects(root: ET.Element, **attrs: str) -> list[ET.Element]:
    return [r for r in root.iter(f"{NS}rect") if all(r.get(k) == v for k, v in attrs.items())]


def box(el: ET.Element) -> tuple[float, float, float, float]:
    return tuple(float(el.get(k)) for k in ("x", "y", "width", "height"))  # type: ignore[return-value]


def pct(fraction: float) -> float:
    return round(fraction * 100, 1)


# ---------------------------------------------------------------------------------------------
# occupancy lids

LID_CASES = {
    # seed 000 Ex 1: registers and warps tie at 8
    "ex1": (TEXTBOOK, launch_config(256, 32), "textbook"),
    # seed 000 Ex 3: shared memory binds at 2, registers allow 128
    "ex3": (TEXTBOOK, launch_config(256, 2, 49152), "textbook"),
    # seed 000 Ex 4: warp slots bind, no shared memory (∞)
    "ex4": (TEXTBOOK, launch_config(64, 16), "textbook"),
    # seed 000 Ex 5: the block cannot fit
    "ex5": (TEXTBOOK, launch_config(1024, 128), "textbook"),
    # seed 000 self-check: registers and shared memory tie
    "tie": (TEXTBOOK.with_overrides(smem_per_sm=65536), launch_config(256, 100, 32768), "textbook"),
    "a100": (get_gpu("a100"), launch_config(256, 64, 40000), "exact"),
    "h100_barriers": (get_gpu("h100"), launch_config(128, 32), "exact"),
}


@pytest.mark.parametrize("lang", F.LANGS)
@pytest.mark.parametrize("case", sorted(LID_CASES))
def test_lids_label_the_engine_numbers_and_mark_the_binding_limits(case, lang):
    gpu, cfg, model = LID_CASES[case]
    result = occupancy(gpu, cfg, model=model)
    svg = F.occupancy_lids(result, lang)
    root = parse(svg)
    shown = {t.get("data-limit"): t.text for t in texts(root) if t.get("class") == "qz-val"}
    expected = {k: v for k, v in result.limits.items() if not (k == "barriers" and v is None)}
    assert set(shown) == set(expected)
    for name, value in expected.items():
        if value is None:
            assert "∞" in shown[name] and not NUMBER.search(shown[name])
        else:
            assert [int(n) for n in NUMBER.findall(shown[name])] == [value]
    # exactly the engine's limiter is marked, as bars and as tags
    bars = {r.get("data-limit") for r in rects(root, **{"data-binding": "true"})}
    tags = {t.get("data-limit") for t in texts(root) if t.get("class") == "qz-binding"}
    assert bars == tags == set(result.limiter)
    # every number on the figure is one the engine computed
    allowed = {float(v) for v in result.limits.values() if v is not None}
    allowed |= {float(result.blocks_per_sm), float(result.warps_per_block),
                float(result.active_warps), float(result.max_warps_per_sm), pct(result.occupancy)}
    assert numbers_in(root) <= allowed
    level = [t for t in texts(root) if t.get("class") == "qz-level"][0]
    assert [int(n) for n in NUMBER.findall(level.text)] == [result.blocks_per_sm]
    # the binding bars end where the water level stands
    water = [p for p in root.iter(f"{NS}path") if p.get("class") == "qz-water"][0]
    level_x = {float(x) for x in re.findall(r"M([\d.]+) ", water.get("d"))}
    assert len(level_x) == 1
    for bar in rects(root, **{"data-binding": "true"}):
        x, _, w, _ = box(bar)
        assert x + w == pytest.approx(min(level_x), abs=0.11)
    assert len(svg) < SIZE_CAP


def test_lids_speak_the_card_language():
    result = occupancy(TEXTBOOK, launch_config(256, 2, 49152), model="textbook")
    hing = F.occupancy_lids(result, "hinglish")
    en = F.occupancy_lids(result, "en")
    assert "Registers ki lid" in hing and "sabse neechi lid" in hing and "paani ka level" in hing
    assert "ki lid" not in en and "binding" in en
    with pytest.raises(QuizgenError, match="lang"):
        F.occupancy_lids(result, "fr")


def test_lids_of_a_failing_launch_say_it_fails():
    result = occupancy(TEXTBOOK, launch_config(1024, 128), model="textbook")
    root = parse(F.occupancy_lids(result, "en"))
    assert any("fails" in (t.text or "") for t in texts(root))


# ---------------------------------------------------------------------------------------------
# sweeps


def curve_levels(root: ET.Element) -> set[float]:
    """Occupancy levels (in %) that the step curve visits, read back from its path."""
    axis = {t.text: float(t.get("y")) - 4 for t in texts(root) if t.get("text-anchor") == "end"}
    y0, y100 = axis["0%"], axis["100%"]
    path = [p for p in root.iter(f"{NS}path") if p.get("class") == "qz-curve"][0].get("d")
    ys = [float(m) for m in re.findall(r"M[\d.]+ ([\d.]+)", path)]
    ys += [float(m) for m in re.findall(r"V([\d.]+)", path)]
    return {round((y0 - y) / (y0 - y100) * 100) for y in ys}


@pytest.mark.parametrize("gpu_name,model", [("a100", "exact"), ("textbook", "textbook"), ("t4", "exact")])
@pytest.mark.parametrize("vary", F.SWEEPS)
def test_sweep_follows_the_engine_and_marks_the_launch(gpu_name, model, vary):
    gpu = get_gpu(gpu_name)
    cfg = launch_config(256, 40, 12000)
    root = parse(F.occupancy_sweep(gpu, cfg, vary, model, "en"))
    own = occupancy(gpu, cfg, model=model)
    label = [t for t in texts(root) if t.get("class") == "qz-mark-label"][0].text
    own_x = {"threads": 256, "regs": 40, "smem": 12000}[vary]
    assert [float(n) for n in NUMBER.findall(label)] == [own_x, pct(own.occupancy)]
    # the levels the curve visits are the engine's occupancies over the calculator's range
    if vary == "threads":
        xs = range(32, gpu.max_threads_per_block + 1, 32)
        cfgs = [launch_config(x, 40, 12000) for x in xs]
    elif vary == "regs":
        cfgs = [launch_config(256, r, 12000) for r in range(0, gpu.max_regs_per_thread + 1)]
    else:
        cfgs = [launch_config(256, 40, s) for s in range(0, gpu.smem_per_block_optin + 1, 1024)]
        cfgs.append(cfg)
    expected = {round(occupancy(gpu, c, model=model).occupancy * 100) for c in cfgs}
    assert curve_levels(root) == expected


def test_sweep_refuses_an_unknown_parameter():
    with pytest.raises(QuizgenError, match="vary"):
        F.occupancy_sweep("a100", launch_config(256, 32), "warps")


def test_sweep_without_mark_has_no_point():
    svg = F.occupancy_sweep("a100", launch_config(256, 32), "regs", mark=False)
    assert "qz-mark" not in svg


# ---------------------------------------------------------------------------------------------
# η(N)


@pytest.mark.parametrize("latency,warps", [(300, 64), (300, 300), (300, 600), (400, 20), (50, 0)])
def test_efficiency_curve_numbers_and_plateau(latency, warps):
    root = parse(F.efficiency_curve(latency, warps, "hinglish"))
    eta = min(warps, latency) / latency
    label = [t for t in texts(root) if t.get("class") == "qz-mark-label"][0].text
    assert [float(n) for n in NUMBER.findall(label)] == [warps, pct(eta)]
    assert numbers_in(root) <= {float(latency), float(warps), pct(eta), 0.0, 50.0, 100.0}
    # the curve turns flat exactly at N = L, at the 100% line
    path = [p for p in root.iter(f"{NS}path") if p.get("class") == "qz-curve"][0].get("d")
    corner_x, corner_y = (float(v) for v in re.search(r"L([\d.]+) ([\d.]+)", path).groups())
    l_tick = [t for t in texts(root) if t.text == f"L = {latency}"][0]
    assert float(l_tick.get("x")) == pytest.approx(corner_x)
    hundred = [t for t in texts(root) if t.text == "100%"][0]
    assert float(hundred.get("y")) - 4 == pytest.approx(corner_y)


# ---------------------------------------------------------------------------------------------
# warp grid


def cells_of(root: ET.Element, rect: ET.Element, shape) -> set[int]:
    """Linear indices of the thread cells a rect covers, read from the slice frames."""
    dx, dy, _ = shape
    x, y, w, h = box(rect)
    for frame in rects(root, **{"class": "qz-slice"}):
        fx, fy, fw, fh = box(frame)
        if fx - 0.05 <= x <= fx + fw and fy - 0.05 <= y <= fy + fh:
            cw, ch = fw / dx, fh / dy
            z = int(frame.get("data-z"))
            x0, x1 = round((x - fx) / cw), round((x + w - fx) / cw)
            y0, y1 = round((y - fy) / ch), round((y + h - fy) / ch)
            return {xx + dx * (yy + dy * z) for yy in range(y0, y1) for xx in range(x0, x1)}
    raise AssertionError(f"rect at {x},{y} is outside every slice")


GRID_CASES = [((48, 4, 1), 1), ((30, 30, 1), 28), ((8, 4, 3), 2), ((32, 32, 1), 5), ((1024, 1, 1), 7),
              ((72, 1, 1), 2), ((10, 3, 1), 0), ((16, 8, 8), 13), ((5, 7, 3), 2), ((100, 3, 2), 12)]


@pytest.mark.parametrize("shape,warp", GRID_CASES)
def test_warp_grid_outline_covers_exactly_the_warp(shape, warp):
    svg = F.warp_grid(shape, warp, "en")
    root = parse(svg)
    threads = shape[0] * shape[1] * shape[2]
    want = set(range(32 * warp, min(32 * warp + 32, threads)))
    outlined: set[int] = set()
    for r in rects(root, **{"class": "qz-highlight"}):
        got = cells_of(root, r, shape)
        assert not got & outlined
        outlined |= got
    assert outlined == want
    # the coloured runs partition the block by warp
    seen: set[int] = set()
    for r in root.iter(f"{NS}rect"):
        if r.get("data-warp") is not None and r.get("class") is None:
            got = cells_of(root, r, shape)
            k = int(r.get("data-warp"))
            assert {i // 32 for i in got} == {k}
            assert not got & seen
            seen |= got
    assert seen == set(range(threads))
    assert len(svg) < SIZE_CAP


def test_warp_grid_seed_001_example_3_caption():
    root = parse(F.warp_grid((48, 4, 1), 1, "hinglish"))
    title = [t for t in texts(root, skip_title=False) if t.get("class") == "qz-title"]
    assert [int(n) for n in NUMBER.findall(" ".join(t.text for t in title))] == [48, 4, 192, 6, 0]
    caption = [t.text for t in texts(root) if t.get("class") == "qz-seg"]
    assert caption == ["row y=0 ka x = 32–47", "row y=1 ka x = 0–15"]
    assert any("32–63" in (t.text or "") for t in texts(root))
    # the wrap marks: one hook leaving row 0, one arrow entering row 1
    assert len([p for p in root.iter() if p.get("class") == "qz-wrap"]) == 2


def test_warp_grid_tail_warp_reports_idle_lanes():
    root = parse(F.warp_grid((30, 30, 1), 28, "en"))
    title = " ".join(t.text for t in texts(root, skip_title=False) if t.get("class") == "qz-title")
    assert [int(n) for n in NUMBER.findall(title)] == [30, 30, 900, 29, 28]


def test_warp_grid_rejects_a_warp_outside_the_block():
    with pytest.raises(QuizgenError, match="warp_id"):
        F.warp_grid((48, 4, 1), 6, "en")
    with pytest.raises(QuizgenError, match="block"):
        F.warp_grid((0, 4, 1), 0, "en")


# ---------------------------------------------------------------------------------------------
# divergence


def test_divergence_seed_001_example_7():
    svg = F.divergence_timeline([{"lanes": 20, "cost": 30}, {"lanes": 12, "cost": 30}], 30, "hinglish")
    root = parse(svg)
    lines = [t.text for t in texts(root) if t.get("class") == "qz-branch"]
    assert lines == ["if: 20 live / 12 masked · 30 cycles", "else: 12 live / 20 masked · 30 cycles"]
    total = [t.text for t in texts(root) if t.get("class") == "qz-total"][0]
    assert "60 cycles" in total and "2×" in total
    # the serialised bars, end to end, are twice the convergent bar
    base = box(rects(root, **{"class": "qz-baseline"})[0])
    live = [box(r) for r in rects(root, **{"class": "qz-live"})]
    assert live[0][0] + live[0][2] == pytest.approx(live[1][0], abs=0.11)
    assert sum(b[2] for b in live) == pytest.approx(2 * base[2], abs=0.2)
    # live lanes : masked lanes = 20 : 12 in the first bar
    masked = [box(r) for r in rects(root, **{"class": "qz-masked"})]
    assert live[0][3] / masked[0][3] == pytest.approx(20 / 12)


def test_divergence_seed_001_example_8_skips_the_empty_branch():
    root = parse(F.divergence_timeline([{"lanes": 32, "cost": 30}, {"lanes": 0, "cost": 30}], 30, "en"))
    assert len(rects(root, **{"class": "qz-live"})) == 1
    skipped = [t.text for t in texts(root) if t.get("class") == "qz-skipped"]
    assert skipped == ["else: 0 lanes → skipped, 0 cycles"]
    assert "no penalty" in [t.text for t in texts(root, skip_title=False)
                            if t.get("class") == "qz-title"][0]


@pytest.mark.parametrize("branches,baseline", [
    ([(10, 20), (12, 40), (10, 8)], 40),
    ([(1, 12), (31, 12)], 12),
    ([(16, 40), (16, 40)], 40),
    ([(8, 10), (0, 50), (24, 30)], None),
])
def test_divergence_numbers_match_the_engine(branches, baseline):
    from quizgen.engine.divergence import divergence

    spec = [{"lanes": n, "cost": c} for n, c in branches]
    result = divergence(spec, baseline=baseline)
    root = parse(F.divergence_timeline(spec, baseline, "en"))
    allowed = {float(v) for n, c in branches for v in (n, c, 32 - n)}
    allowed |= {float(result.serialised), round(float(result.baseline), 2),
                round(result.slowdown, 2), 0.0}
    if len(branches) > 2:  # branches are named "path 1", "path 2", ...
        allowed |= {float(i) for i in range(1, len(branches) + 1)}
    assert numbers_in(root) <= allowed
    total = [t.text for t in texts(root) if t.get("class") == "qz-total"][0]
    assert float(NUMBER.findall(total)[0]) == result.serialised
    assert len(rects(root, **{"class": "qz-live"})) == result.populated


def test_divergence_rejects_too_many_lanes():
    with pytest.raises(QuizgenError):
        F.divergence_timeline([{"lanes": 20, "cost": 30}, {"lanes": 20, "cost": 30}], 30, "en")


# ---------------------------------------------------------------------------------------------
# waves


@pytest.mark.parametrize("grid,sms,bps", [(40, 80, 8), (2000, 80, 8), (1280, 80, 8), (100000, 132, 4),
                                          (7, 148, 2), (1000, 108, 3)])
def test_waves_numbers_and_idle_sms_match_the_engine(grid, sms, bps):
    from quizgen.engine.grid import waves

    plan = waves(grid, sms, bps)
    svg = F.waves_figure(grid, sms, bps, "hinglish")
    root = parse(svg)
    allowed = {float(v) for v in (grid, sms, bps, plan.slots, plan.waves, plan.full_waves,
                                  plan.tail_blocks, plan.tail_idle_sms, sms - plan.tail_idle_sms,
                                  sms - 1, 0, 1, 2, plan.waves - 1, max(plan.full_waves - 3, 0))}
    allowed |= {float(n) for n in F.last_wave_spread(plan)}
    assert numbers_in(root, skip_title=False) <= allowed
    idle = [t.text for t in texts(root) if t.get("class") == "qz-idle-label"]
    if plan.tail_idle_sms:
        assert idle == [f"{plan.tail_idle_sms} idle SMs"]
        # the idle rects' width is the idle share of the SM axis
        frame = [r for r in rects(root, fill="none") if r.get("stroke") == "currentColor"][-1]
        idle_w = sum(box(r)[2] for r in rects(root, **{"class": "qz-idle"}))
        assert idle_w / box(frame)[2] == pytest.approx(plan.tail_idle_sms / sms, abs=0.002)
    else:
        assert idle == []
    assert len(svg) < SIZE_CAP


def test_waves_seed_000_example_7_big_grid():
    root = parse(F.waves_figure(2000, 80, 8, "en"))
    summary = [t.text for t in texts(root) if t.get("class") == "qz-summary"][0]
    assert [int(n) for n in NUMBER.findall(summary)] == [4, 3, 80]
    # breadth-first: the 80-block tail runs one block on each of the 80 SMs (not packed on 10),
    # so no SM idles in the last wave
    assert [t.text for t in texts(root) if t.get("class") in ("qz-busy-label", "qz-idle-label")] == []
    # a 60-block tail spreads over 60 SMs and leaves 20 idle
    assert len(rects(root, **{"class": "qz-wave"})) == 3
    root = parse(F.waves_figure(700, 80, 8, "en"))
    assert [t.text for t in texts(root) if t.get("class") == "qz-busy-label"] == ["60 SMs busy"]


# ---------------------------------------------------------------------------------------------
# every figure: deterministic, small, night-mode ready, readable by a real renderer

#: The figures of the cells worked from code: (a spec, the figure drawn directly).
LANE_ROWS = ["T" * 32, "T" * 8 + "E" * 24, "E" * 20 + "X" * 12]
REDUCTION = ([1, 2, 4, 8, 16, 32], [[16, 16], [8, 8], [4, 4], [2, 2], [1, 1], [1, 0]], [32, 32])
ARRIVALS = [2.0, 2.3, 3.0, 2.8, 2.4, 1.9, 2.6, 2.9]
CODE_FIGURES = {
    "lanes": ({"kind": "lane_grid", "legend": "paths", "rows": LANE_ROWS, "highlight": 1,
               "values": {"block": 0}},
              lambda lang: CF.lane_grid(LANE_ROWS, "paths", lang, values={"block": 0}, highlight=1)),
    "reduction": ({"kind": "reduction_grid", "reduction": "interleaved", "strides": REDUCTION[0],
                   "active": REDUCTION[1], "present": REDUCTION[2]},
                  lambda lang: CF.reduction_grid(*REDUCTION, "interleaved", lang)),
    "barrier": ({"kind": "barrier_timeline", "arrivals": ARRIVALS, "weights": [1] * 8, "unit": "cycles"},
                lambda lang: CF.barrier_timeline(ARRIVALS, [1] * 8, "cycles", lang)),
}

ALL = {
    "code_lanes": lambda lang: CODE_FIGURES["lanes"][1](lang),
    "code_reduction": lambda lang: CODE_FIGURES["reduction"][1](lang),
    "code_barrier": lambda lang: CODE_FIGURES["barrier"][1](lang),
    "lids": lambda lang: F.occupancy_lids(occupancy(TEXTBOOK, launch_config(256, 32)), lang),
    "sweep": lambda lang: F.occupancy_sweep("a100", launch_config(256, 40), "threads", None, lang),
    "eta": lambda lang: F.efficiency_curve(300, 64, lang),
    "grid": lambda lang: F.warp_grid((48, 4, 1), 1, lang),
    "div": lambda lang: F.divergence_timeline([{"lanes": 20, "cost": 30}, {"lanes": 12, "cost": 30}],
                                              30, lang),
    "waves": lambda lang: F.waves_figure(2000, 80, 8, lang),
}


@pytest.mark.parametrize("lang", F.LANGS)
@pytest.mark.parametrize("name", sorted(ALL))
def test_every_figure_is_deterministic_small_and_theme_neutral(name, lang):
    svg = ALL[name](lang)
    assert svg == ALL[name](lang)
    assert len(svg.encode()) < SIZE_CAP
    root = parse(svg)
    assert root.get("fill") == "currentColor" and root.get("color") == F.INK
    # one look in every theme: nothing follows the system's scheme (the card inverts it at night)
    assert root.find(f"{NS}style") is None and "prefers-color-scheme" not in svg
    assert root.find(f"{NS}title").text
    # text is either the theme colour or a fixed colour chosen to read on both backgrounds
    fixed = {F.BINDING, F.WATER, F.INK_ON_FILL, None}
    assert {t.get("fill") for t in root.iter(f"{NS}text")} <= fixed
    # no text smaller than 10 units on a 360-unit-wide figure
    sizes = [float(e.get("font-size")) for e in root.iter() if e.get("font-size")]
    assert min(sizes) >= 10


@pytest.mark.parametrize("name", sorted(ALL))
def test_every_figure_renders_with_cairosvg(name):
    cairosvg = pytest.importorskip("cairosvg")
    png = cairosvg.svg2png(bytestring=ALL[name]("en").encode(), output_width=360)
    assert png[:8] == b"\x89PNG\r\n\x1a\n"


# ---------------------------------------------------------------------------------------------
# dispatcher and media names


def _problem(figure):
    return Problem(id="p1", cell="W-C", level=1, lang="en", seed=1, gpu=get_gpu("a100").to_dict(),
                   params={}, answers={}, question="?",
                   solution=Solution(forecast="", steps=[], verify=[], answer="", trap=""),
                   model="exact", figure=figure)


def test_figure_for_dispatches_every_kind():
    from quizgen.render import measured_figures as MF
    from quizgen.render.kernel_figures import kernel_source_figure

    a100 = get_gpu("a100")
    cases = [
        ({"kind": "occupancy_lids", "gpu": "a100", "threads_per_block": 256, "regs_per_thread": 64,
          "model": "exact"},
         F.occupancy_lids(occupancy(a100, launch_config(256, 64), model="exact"), "en")),
        ({"kind": "occupancy_sweep", "gpu": "a100", "config": {"threads_per_block": 256},
          "vary": "regs"},
         F.occupancy_sweep(a100, launch_config(256), "regs", None, "en")),
        ({"kind": "efficiency_curve", "latency": 300, "active_warps": 64},
         F.efficiency_curve(300, 64, "en")),
        ({"kind": "warp_grid", "block": [48, 4, 1], "warp_id": 1}, F.warp_grid((48, 4, 1), 1, "en")),
        ({"kind": "divergence_timeline", "branches": [{"lanes": 32, "cost": 30}, {"lanes": 0, "cost": 30}],
          "baseline": 30},
         F.divergence_timeline([{"lanes": 32, "cost": 30}, {"lanes": 0, "cost": 30}], 30, "en")),
        ({"kind": "waves_figure", "grid_blocks": 40, "num_sms": 80, "blocks_per_sm": 8},
         F.waves_figure(40, 80, 8, "en")),
        ({"kind": "measured_fma"}, MF.fma_issue_figure("en")),
        ({"kind": "measured_bandwidth"}, MF.bandwidth_figure("en")),
        ({"kind": "kernel_source", "kernel": "reduce_sum", "arch": "sm_80"},
         kernel_source_figure("reduce_sum", "sm_80", "en")),
        *[(spec, draw("en")) for spec, draw in CODE_FIGURES.values()],
    ]
    assert {spec["kind"] for spec, _ in cases} == set(F.KINDS)
    for spec, expected in cases:
        assert F.figure_for(spec, lang="en") == expected
    assert F.figure_for("warp_grid", lang="en", block=[48, 4, 1], warp_id=1) == cases[3][1]


def test_figure_for_reads_a_problem_and_its_language():
    figure = {"kind": "occupancy_lids", "threads_per_block": 256, "regs_per_thread": 64}
    problem = _problem(figure)
    expected = F.occupancy_lids(occupancy(get_gpu("a100"), launch_config(256, 64), model="exact"), "en")
    assert F.figure_for(problem) == expected
    assert F.figure_for(problem.to_dict()) == expected
    assert F.figure_for(_problem(None)) is None


def test_figure_for_reports_bad_specs_in_one_line():
    with pytest.raises(QuizgenError, match="figure"):
        F.figure_for({"kind": "pie_chart"})
    with pytest.raises(QuizgenError, match="'latency'"):
        F.figure_for({"kind": "efficiency_curve", "resident_warps": 3})


def test_media_name_is_a_content_hash():
    a = F.efficiency_curve(300, 64, "en")
    b = F.efficiency_curve(300, 65, "en")
    assert re.fullmatch(r"quizgen-[0-9a-f]{16}\.svg", F.media_name(a))
    assert F.media_name(a) == F.media_name(F.efficiency_curve(300, 64, "en"))
    assert F.media_name(a) != F.media_name(b)


# ---------------------------------------------------------------------------------------------
# Drawing each figure once: complete specs, their keys, and the shared pieces


@pytest.mark.parametrize("value,text", [
    (0, "0"), (0.0, "0"), (-0.0, "0"), (-0.04, "0"), (-0.05, "-0.1"), (12, "12"), (12.0, "12"),
    (2.25, "2.2"), (2.35, "2.4"), (0.05, "0.1"), (359.96, "360"), (-3.5, "-3.5"), (1e16, "10000000000000000"),
])
def test_coordinates_have_one_decimal_at_most(value, text):
    assert num(value) == text
    assert num(value) == text          # and again, from the table of seen values


def test_a_problem_and_its_dict_give_the_same_complete_spec():
    problem = _problem({"kind": "occupancy_lids", "threads_per_block": 256, "regs_per_thread": 64})
    spec = F.figure_spec(problem)
    assert spec == F.figure_spec(problem.to_dict())
    assert spec["lang"] == "en" and spec["model"] == "exact" and spec["gpu"]["name"] == "a100"
    assert F.draw_figure(spec) == F.figure_for(problem)
    assert F.figure_spec(_problem(None)) is None
    # the problem itself is not changed by completing its spec
    assert problem.figure == {"kind": "occupancy_lids", "threads_per_block": 256, "regs_per_thread": 64}


def test_figure_keys_follow_the_content_not_the_order():
    a = {"kind": "waves_figure", "grid_blocks": 40, "num_sms": 80, "blocks_per_sm": 8, "lang": "en"}
    b = {"lang": "en", "blocks_per_sm": 8, "num_sms": 80, "grid_blocks": 40, "kind": "waves_figure"}
    assert F.figure_key(a) == F.figure_key(b)
    assert F.figure_key(a) != F.figure_key({**a, "lang": "hinglish"})
    assert F.figure_key(a) != F.figure_key({**a, "grid_blocks": 41})
    assert F.figure_key({**a, "config": launch_config(256, 32)}) != F.figure_key(
        {**a, "config": launch_config(256, 33)})


@pytest.mark.parametrize("vary,first,second", [
    ("regs", launch_config(256, 40, 12000), launch_config(256, 72, 12000)),
    ("threads", launch_config(128, 40, 12000), launch_config(640, 40, 12000)),
    ("smem", launch_config(256, 40, 12000), launch_config(256, 40, 30000)),
    ("smem", launch_config(256, 40, 4096, dyn_smem=8192), launch_config(256, 40, 4096, dyn_smem=20000)),
])
def test_launches_sharing_a_sweep_each_get_the_engines_points(vary, first, second):
    gpu = get_gpu("a100")
    for order in ((first, second), (second, first)):
        occupancy_figures._sweep_curve.cache_clear()
        for cfg in order:
            xs, ys, own = F.sweep_points(gpu, cfg, vary, "exact")
            assert own in xs
            if vary == "threads":
                expected = [occupancy(gpu, launch_config(x, cfg.regs_per_thread, cfg.smem_per_block),
                                      model="exact").occupancy for x in xs]
            elif vary == "regs":
                expected = [occupancy(gpu, launch_config(cfg.threads_per_block, x, cfg.smem_per_block),
                                      model="exact").occupancy for x in xs]
            elif cfg.dyn_smem:
                expected = [occupancy(gpu, launch_config(cfg.threads_per_block, cfg.regs_per_thread,
                                                         cfg.smem_per_block,
                                                         dyn_smem=x - cfg.smem_per_block),
                                      model="exact").occupancy for x in xs]
            else:
                expected = [occupancy(gpu, launch_config(cfg.threads_per_block, cfg.regs_per_thread, x),
                                      model="exact").occupancy for x in xs]
            assert ys == expected
    assert occupancy_figures._sweep_curve.cache_info().hits >= 1


@pytest.mark.parametrize("block", [(48, 4, 1), (8, 8, 4), (1000, 1, 1)])
def test_a_warp_grid_is_the_same_whichever_warps_were_drawn_before(block):
    warps = -(-block[0] * block[1] * block[2] // 32)
    chosen = [0, warps // 2, warps - 1, None]
    grid_figures._warp_grid_base.cache_clear()
    first = {k: F.warp_grid(block, k, "en") for k in chosen}
    grid_figures._warp_grid_base.cache_clear()
    second = {k: F.warp_grid(block, k, "en") for k in reversed(chosen)}
    assert first == second
    assert len(set(first.values())) == len(chosen)
    # every warp's own outline is there, and only that warp's
    for k in chosen[:3]:
        root = parse(first[k])
        assert {r.get("data-warp") for r in rects(root, **{"class": "qz-highlight"})} == {str(k)}
