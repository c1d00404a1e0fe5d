"""Warp families of a launch over an image (seed 001, W-I): which block shape wastes fewer lanes,
per warp and over the whole grid.

The shared machinery (`EngineFamily`, the predicates) is in `quizgen.problems.warp_families`;
the words are the families' writers' (``render/writers/warps.py``).
"""

from __future__ import annotations

from typing import Any

from quizgen.engine import warps as warp_engine
from quizgen.engine.arith import ceiling
from quizgen.engine.derivation import Step
from quizgen.problems import relations as rel
from quizgen.problems import specs as sp
from quizgen.problems.base import Misconception, Solved
from quizgen.problems.registry import register
from quizgen.problems.warp_families import WARP, EngineFamily, lanes_in_one_warp


def grid_idle_from(v: dict[str, Any]) -> int:
    """Idle lanes over the image launch: every lane of the square block's launch minus the pixels."""
    sq = next(b for b in v["blocks"] if b[0] % WARP)
    return warp_engine.grid_idle_lanes(v["image"], sq)[0]


IMAGES = {1: ((1920, 1080), (1280, 720), (3840, 2160), (1024, 768), (640, 480), (2048, 2048)),
          2: ((1920, 1080), (1280, 720), (3840, 2160), (2560, 1440), (800, 600), (4096, 2160)),
          3: ((1000, 1000), (1366, 768), (3000, 2000), (1600, 900), (720, 576), (4000, 3000))}


@register
class ChooseBlock(EngineFamily):
    """W-I: a square-looking block against a warp-aligned one for an image kernel (Ex 9)."""

    cell = "W-I"
    main_answer = "square_wasted_lanes"
    answer_specs = {
        "square_warps": sp.count("warps", "blocks"),
        "square_wasted_lanes": sp.count("lanes", "square_warps", "blocks",
                                        compute=rel.wasted_lanes_of("square")),
        "aligned_warps": sp.count("warps", "blocks"),
        "aligned_wasted_lanes": sp.count("lanes", "aligned_warps", "blocks",
                                         compute=rel.wasted_lanes_of("aligned")),
        "better_block": sp.coords("blocks"),
        # over the whole image: every lane the square block's launch has, minus the pixels
        "square_grid_idle_lanes": sp.count("lanes", "image", "blocks",
                                           compute=lambda v, gpu: grid_idle_from(v)),
    }
    misconception_when = {key: (lanes_in_one_warp,) for key in (
        "active_as_wasted", "rows_pad_to_warps", "x_only", "half_warp", "wavefront_64")}

    def space(self, level, gpu):
        squares = {1: (6, 10, 12, 14, 18, 20, 22, 30), 2: (6, 7, 9, 10, 11, 12, 13, 14, 15, 18, 20, 22, 25, 26, 28, 30),
                   3: (5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31)}[level]
        aligned = {1: ((32, 8), (32, 4), (32, 16), (64, 4), (64, 8), (128, 2), (32, 32)),
                   2: ((32, 2), (32, 4), (32, 6), (32, 8), (64, 2), (64, 4), (96, 4), (128, 4)),
                   3: ((32, 3), (32, 5), (32, 7), (64, 3), (96, 2), (96, 5), (160, 2))}[level]
        for image in IMAGES[level]:
            extra = {"ask": "grid_idle"} if level == 3 else {}
            for s in squares:
                for ax, ay in aligned:
                    sq, al = [s, s, 1], [ax, ay, 1]
                    yield {"image": list(image), "blocks": [sq, al], **extra}
                    if level > 1:
                        yield {"image": list(image), "blocks": [al, sq], **extra}

    @staticmethod
    def _square_first(params) -> bool:
        return params["blocks"][0][0] % WARP != 0

    def solve(self, params, gpu, explain=True):
        a, b = params["blocks"]
        cmp = warp_engine.compare_blocks(a, b, explain=explain)
        sq, al = (cmp.first, cmp.second) if self._square_first(params) else (cmp.second, cmp.first)
        better = cmp.better_block
        answers = {"square_warps": sq.warps, "square_wasted_lanes": sq.wasted_lanes,
                   "aligned_warps": al.warps, "aligned_wasted_lanes": al.wasted_lanes,
                   "better_block": list(better) if better else None}
        W, H = params["image"]
        ctx = {
            "W": W, "H": H, "sq": list(sq.block), "al": list(al.block),
            "sq_P": sq.threads, "al_P": al.threads, "sq_q": sq.full_warps, "sq_t": sq.tail_active,
            "sq_share": sq.waste_fraction, "al_q": al.full_warps,
            "sq_grid": ceiling(W, sq.block[0]) * ceiling(H, sq.block[1]),
            "al_grid": ceiling(W, al.block[0]) * ceiling(H, al.block[1]),
        }
        more: list[Step] = []
        if params.get("ask") == "grid_idle":
            answers["square_grid_idle_lanes"], more = warp_engine.grid_idle_lanes(
                params["image"], sq.block, explain=explain)
        ctx["grid_idle"] = answers.get("square_grid_idle_lanes", 0)
        # the launch's idle lanes in their two kinds: padding in every block, threads past the edge
        ctx.update({"launched": ctx["sq_grid"] * sq.warps * WARP, "pixels": W * H,
                    "padding": ctx["sq_grid"] * sq.wasted_lanes,
                    "edge": ctx["sq_grid"] * sq.threads - W * H})
        return Solved(answers, {"cmp": cmp, "ctx": ctx, "more": more})

    def in_cell(self, params, gpu, solved):
        a = solved.answers
        cmp = solved.data["cmp"]
        better = a["better_block"]
        return (a["square_wasted_lanes"] > 0 and a["aligned_wasted_lanes"] == 0
                and better is not None and better[0] % WARP == 0 and cmp.better != "tie"
                and self.enough_options(params, gpu, solved))

    def misconceptions(self, params, gpu, solved):
        ctx = solved.data["ctx"]
        dx, dy = ctx["sq"][0], ctx["sq"][1]
        row_pad = dy * (WARP * ceiling(dx, WARP) - dx)
        P = ctx["sq_P"]
        return [
            Misconception("active_as_wasted", {"square_wasted_lanes": ctx["sq_t"]}),
            Misconception("rows_pad_to_warps", {"square_wasted_lanes": row_pad}),
            Misconception("x_only", {"square_wasted_lanes": WARP * ceiling(dx, WARP) - dx}),
            Misconception("half_warp", {"square_wasted_lanes": 16 * ceiling(P, 16) - P}),
            Misconception("wavefront_64", {"square_wasted_lanes": 64 * ceiling(P, 64) - P}),
            Misconception("square_is_balanced", {"square_wasted_lanes": 0, "better_block": ctx["sq"]}),
            # over the image: the warp padding alone, as if the edge blocks had no threads outside
            Misconception("padding_only", {"square_grid_idle_lanes": ctx["padding"]}),
        ]

    def figure(self, params, gpu, solved):
        ctx = solved.data["ctx"]
        return {"kind": "warp_grid", "block": ctx["sq"], "warp_id": solved.answers["square_warps"] - 1}
