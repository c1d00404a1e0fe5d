"""Which GPU a problem's identity names: the problem's own, unless the problem does not depend
on it.

A problem's id (and the Anki note's GUID, the Moodle idnumber) hashes its cell, parameters,
seed, level and GPU, so that the same launch on another GPU is another problem. But some cells
ask nothing of the GPU (the warps of a block, a divergence split): their solve reads no GPU
fact and their words name none, so the same parameters on any GPU are word for word the same
problem. Others read only a few facts (the schedulers and the warp cap). Such a problem takes
the identity it has on its cell's own GPU (the one it is drawn on when no GPU is asked) on
every GPU that agrees with that one on the facts its cell reads: a deck built for another GPU
then holds the same notes as the default deck for these cells, and no problem of the default
deck changes its id. `GPU_FACTS` lists the cells and the facts; tests/test_problem_ids.py
checks, against every preset GPU, that their solve reads nothing else and that their answers,
words and options do not change, and that every other cell does depend on its GPU.
"""

from __future__ import annotations

from typing import Any, Mapping

from quizgen.problems import family, resolve_named_gpu

__all__ = ["GPU_FACTS", "gpu_facts", "identity_gpu"]

#: Cells whose problems depend on no GPU fact, or on only these (the GPU's field names); a
#: table by level where only some levels do.
GPU_FACTS: dict[str, tuple[str, ...] | dict[int, tuple[str, ...]]] = {
    "W-A": (), "W-B": (), "W-C": (), "W-C2": (), "W-G": (), "W-H": (), "W-I": (),
    "D-1": (), "D-2": (), "D-3": (), "D-4": (), "D-5": (),
    "OCC-6": ("max_warps_per_sm", "schedulers_per_sm"),
    "L-5": ("max_warps_per_sm",),
    "W-D": {level: ("max_blocks_per_sm", "max_warps_per_sm") for level in (1, 2)},
}


def gpu_facts(cell: str, level: int) -> tuple[str, ...] | None:
    """The GPU facts a problem of `cell` at `level` depends on (None: it depends on its GPU)."""
    facts = GPU_FACTS.get(cell)
    return facts.get(level) if isinstance(facts, dict) else facts


def _fact(gpu: Any, name: str) -> Any:
    return gpu.get(name) if isinstance(gpu, Mapping) else getattr(gpu, name, None)


def identity_gpu(cell: str, level: int, gpu: Any) -> str:
    """The GPU name that a problem of `cell` at `level` on `gpu` (a GPU or its dict) carries in
    its identity: the cell's own GPU where the problem cannot tell the two apart, else its own."""
    name = str(_fact(gpu, "name") or "")
    facts = gpu_facts(cell, level)
    if facts is None:
        return name
    own = family(cell).gpu_choices(level)
    if len(own) != 1 or own[0] == name:
        return name
    home = resolve_named_gpu(own[0])
    if all(_fact(gpu, fact) == getattr(home, fact) for fact in facts):
        return home.name
    return name
