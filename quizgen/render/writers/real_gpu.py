"""The two sentences of a question that names a real GPU but keeps the notes' model.

Cells built on the notes' formulas (OCC-1…9, L-1, L-2) keep the textbook model on a real GPU
(`quizgen.problems.real_gpu`); the question then says so in its own text, and the Answer gives
the exact model's answer (NVIDIA's allocation rules) beside the textbook one, so that a textbook
number is never presented as a real chip's behaviour.
"""

from __future__ import annotations

from quizgen.engine.attribution import Attribution, attribute
from quizgen.engine.occupancy import LaunchConfig, OccupancyResult
from quizgen.gpus import GPU
from quizgen.problems.real_gpu import exact_occupancy
from quizgen.render.phrases import phrase

#: The phrasebook section of these sentences.
SECTION = "real-gpu"


def question_note(gpu: GPU, lang: str, salt: str) -> str:
    """The sentence a question adds: it uses the textbook model; the exact answer is given too."""
    return phrase(lang, SECTION, "question", {"name": gpu.spoken_name}, salt=salt)


def occupancy_text(res: OccupancyResult, lang: str) -> str:
    if res.blocks_per_sm == 0:
        return phrase(lang, SECTION, "exact_none", {})
    return phrase(lang, SECTION, "exact_occ", {"B": res.blocks_per_sm, "A": res.active_warps,
                                               "occ": res.occupancy})


def because(att: Attribution, lang: str, *, warps: bool = False) -> str:
    """The rules that change the count, each with its numbers and its change, as one clause
    (``warps``: the change in warps, for a question that counts warps)."""
    clauses = []
    for e in att.effects:
        before, after = (e.warps_before, e.warps_after) if warps else (e.blocks_before, e.blocks_after)
        unit = "warps" if warps else "blocks"
        ctx = {**e.detail, "change": f"{_count_text(before)} → {_count_text(after)} {unit}"}
        clauses.append(phrase(lang, SECTION, "rule_" + e.rule, ctx))
    return phrase(lang, SECTION, "rules_joined", {"clauses": clauses})


def _count_text(value) -> str:
    from quizgen.render.numbers import number

    return number(value, 3)


def answer_note(gpu: GPU, lang: str, salt: str, *, exact: str, book: str, same: bool,
                reserve: bool = False, whole_blocks: int = 0, granularity: bool = True,
                attribution: Attribution | None = None, warps: bool = False) -> str:
    """The sentence the Answer adds: the exact model's answer, the same or beside the textbook one,
    with what the textbook leaves out: `whole_blocks` (the warps per block, where the textbook
    answer counted warps one at a time and whole blocks change it), `granularity` (the exact
    allocation changes it), `reserve` (the 1 KB reserved per block is part of that)."""
    ctx = {"name": gpu.spoken_name, "exact": exact, "book": book, "reserve": reserve,
           "whole_blocks": whole_blocks, "granularity": granularity}
    if attribution is not None and not same and attribution.effects:
        ctx["because"] = because(attribution, lang, warps=warps)
        return phrase(lang, SECTION, "answer_because", ctx, salt=salt)
    return phrase(lang, SECTION, "answer_same" if same else "answer_differs", ctx, salt=salt)


def occupancy_note(gpu: GPU, config: LaunchConfig, book: OccupancyResult, lang: str,
                   salt: str) -> str:
    """Answer note for an occupancy question: blocks, warps and occupancy under both models."""
    exact = exact_occupancy(gpu, config)
    same = (exact.blocks_per_sm, exact.active_warps) == (book.blocks_per_sm, book.active_warps)
    return answer_note(gpu, lang, salt, exact=occupancy_text(exact, lang),
                       book=occupancy_text(book, lang), same=same,
                       attribution=attribute(gpu, config))


def design_note(gpu: GPU, config: LaunchConfig, parameter: str, value: int, target: int,
                lang: str, salt: str) -> str:
    """A design value found with the notes' formulas, checked on the real GPU: the blocks it
    gives there (and the rules that make them fewer), and the value NVIDIA's rules allow for
    `target` blocks, searched with the exact model. `parameter` is ``regs_per_thread`` or
    ``smem_per_block``; `config` is the launch with the design value in it."""
    from dataclasses import replace

    from quizgen.engine import inverse

    exact = exact_occupancy(gpu, config)
    if parameter == "regs_per_thread":
        found = inverse.max_regs_for_blocks(gpu, config, target, model="exact").answer
    else:
        found = inverse.max_smem_for_blocks(gpu, config, target, model="exact").answer
    short = exact.blocks_per_sm < target
    ctx = {"name": gpu.spoken_name, "regs": parameter == "regs_per_thread", "v": value,
           "target": target, "exact": occupancy_text(exact, lang), "short": short,
           "found": found, "because": because(attribute(gpu, config), lang) if short else ""}
    if found is not None:
        check = exact_occupancy(gpu, replace(config, **{parameter: found}))
        ctx["found_blocks"] = check.blocks_per_sm
        if parameter == "smem_per_block":
            ctx.update(smem_budget(gpu, check.smem_per_sm_available, target, found, config))
    return phrase(lang, SECTION, "design_exact", ctx, salt=salt)


def smem_budget(gpu: GPU, pool: int, target: int, found: int, config: LaunchConfig) -> dict:
    """How NVIDIA's rules give the most shared memory per block that keeps `target` blocks:
    each block's share of the SM's `pool`, rounded down to whole allocation units, less the
    bytes the driver reserves per block (and the block's dynamic bytes). Empty when that
    arithmetic is not what limits `found` (another lid does)."""
    share = pool // target
    unit = gpu.smem_alloc_unit
    rounded = share // unit * unit
    reserve = gpu.reserved_smem_per_block
    if rounded - reserve - config.dyn_smem != found:
        return {}
    return {"pool": pool, "share": share, "unit": unit, "rounded": rounded, "reserve": reserve,
            "dyn": config.dyn_smem}


def change_note(gpu: GPU, cell: str, change, lang: str, salt: str) -> str:
    """The level-3 launch on the real GPU. A design value (OCC-2's registers, OCC-3's shared
    memory for one more block) is checked and searched again with the exact model; any other
    change shows the exact answer beside the textbook one."""
    after = change.after
    if cell in ("OCC-2", "OCC-3"):
        parameter = "regs_per_thread" if cell == "OCC-2" else "smem_per_block"
        return design_note(gpu, after.config, parameter, getattr(after.config, parameter),
                           after.blocks_per_sm, lang, salt)
    exact = exact_occupancy(gpu, after.config)
    ctx = {"name": gpu.spoken_name, "exact": occupancy_text(exact, lang),
           "book": occupancy_text(after, lang)}
    if (exact.blocks_per_sm, exact.active_warps) == (after.blocks_per_sm, after.active_warps):
        return phrase(lang, SECTION, "after_same", ctx, salt=salt)
    ctx["because"] = because(attribute(gpu, after.config), lang)
    return phrase(lang, SECTION, "after_because", ctx, salt=salt)
