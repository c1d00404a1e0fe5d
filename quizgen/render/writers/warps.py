"""The words of the warp problems (W-A…W-J).

They are laid out as every family's (`quizgen.render.writers.family`): the cell's section, the
engine's steps, the trap where its predicates hold. The warp cells explain each step with their
own why-lines, which name the step's numbers; the cells that quote a block's shape or a thread's
coordinates write them here, from the family's numbers.
"""

from __future__ import annotations

from typing import Iterable

from quizgen.problems.warp_divergence import DivergenceFamily
from quizgen.problems.warp_families import CleanBlock, DepthTerm, RowStraddle, TailWarp, TinyBlock, pick_steps
from quizgen.problems.warp_grids import ChooseBlock
from quizgen.problems.warp_hiding import HidingFamily, SchedulerDemand
from quizgen.render.solution import solution_steps
from quizgen.render.whys import numbered_whys
from quizgen.render.writers import writes
from quizgen.render.writers.family import FamilyWriter


def tuple_text(values: Iterable[int]) -> str:
    """(48, 4, 1): a block's shape or a thread's coordinates, as the notes write blockDim and
    threadIdx."""
    return "(" + ", ".join(str(int(v)) for v in values) + ")"


@writes(HidingFamily)
@writes(SchedulerDemand)
class WarpWriter(FamilyWriter):
    """The warp cells: every step's why names its own numbers."""

    numbered = True


@writes(CleanBlock)
@writes(TailWarp)
class BlockWriter(WarpWriter):
    """Cells whose phrases quote the block's shape (``block_text``)."""

    def texts(self, params, solved):
        return {"block_text": tuple_text(params["block"])}


@writes(RowStraddle)
class RowStraddleWriter(BlockWriter):
    """W-C quotes the asked warp's first and last thread."""

    def texts(self, params, solved):
        a = solved.answers
        return {**super().texts(params, solved), "first_text": tuple_text(a["first_coords"]),
                "last_text": tuple_text(a["last_coords"])}


@writes(DepthTerm)
class DepthTermWriter(BlockWriter):
    """W-C2 quotes the thread's (x, y, z)."""

    def texts(self, params, solved):
        return {**super().texts(params, solved), "coords_text": tuple_text(solved.answers["coords"])}


@writes(TinyBlock)
class TinyBlockWriter(BlockWriter):
    """W-D quotes the asked thread's threadIdx."""

    def texts(self, params, solved):
        return {**super().texts(params, solved), "thread_text": tuple_text(params["thread"])}


@writes(DivergenceFamily)
class DivergenceWriter(WarpWriter):
    """The divergence cells quote the lanes of every path and the costs of the paths taken."""

    def texts(self, params, solved):
        ctx = solved.data["ctx"]
        return {"lanes_text": " / ".join(str(b["lanes"]) for b in ctx["branch_list"]),
                "costs_text": " + ".join(str(b["cost"]) for b in ctx["taken"])}


@writes(ChooseBlock)
class ChooseBlockWriter(WarpWriter):
    """W-I quotes both blocks, as given and as square/aligned, and the better one; its steps
    work each block in turn, labelled with its shape, then compare them."""

    def texts(self, params, solved):
        ctx = solved.data["ctx"]
        a, b = params["blocks"]
        better = solved.answers["better_block"]
        return {"sq_text": tuple_text(ctx["sq"]), "al_text": tuple_text(ctx["al"]),
                "a_text": tuple_text(a), "b_text": tuple_text(b),
                "better_text": tuple_text(better) if better else ""}

    def steps(self, params, gpu, solved, lang, salt):
        cmp = solved.data["cmp"]
        keys = ("threads_per_block", "warps", "tail_active", "wasted_lanes")
        out = []
        for bw in (cmp.first, cmp.second):
            label = tuple_text(bw.block[:2])
            for step in solution_steps(numbered_whys(pick_steps(bw.steps, keys), lang), lang,
                                       salt=salt + label, gpu=gpu.to_dict()):
                step.title = f"[{label}] {step.title}"
                out.append(step)
        out += solution_steps(numbered_whys(cmp.steps + solved.data.get("more", []), lang), lang,
                              salt=salt, gpu=gpu.to_dict())
        return out
