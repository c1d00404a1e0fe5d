"""From the engine's derivation to the words of a worked solution (no recomputation here).

`solution_steps` turns engine `Step`s into `SolutionStep`s in the problem's language: a title, the
formula's name and numbers (printed later by each exporter), the result and its unit, the why-line
and an optional note. `occupancy_verify` writes the independent checks for an occupancy result:
multiply back the binding limit and show that one more block breaks it.
"""

from __future__ import annotations

import zlib
from functools import cache
from zlib import crc32
from typing import Any

from quizgen.engine.derivation import Step, find_step
from quizgen.engine.formulas import shares as formula_shares
from quizgen.problems.model import SolutionStep
from quizgen.render import numbers
from quizgen.render.phrases import chooser, fill, has, phrase
from quizgen.languages import DEFAULT_LANG


def yes_no(value: bool, lang: str) -> str:
    """A yes/no answer as the phrasebook of `lang` writes it ([answer_word] yes, no)."""
    return phrase(lang, "answer_word", "yes" if value else "no")


def format_value(value: Any, lang: str = DEFAULT_LANG) -> str:
    """A result as printed after '=': 64, 0.375, ∞, and a yes/no in `lang`."""
    if value is None:
        return "∞"
    if isinstance(value, bool):
        return yes_no(value, lang)
    if isinstance(value, (int, float)):
        return numbers.number(value)
    if isinstance(value, (list, tuple)):
        return "(" + ", ".join(format_value(v, lang) for v in value) + ")"
    return str(value)


@cache
def _units(lang: str) -> tuple[dict[str, str], dict[str, str]]:
    from quizgen.render.phrases import book

    tables = book(lang)
    return dict(tables.get("unit", {})), dict(tables.get("unit_one", {}))


def unit_text(unit: str, value: Any, lang: str) -> str:
    """The unit in the problem's language, singular for exactly one ("1 block")."""
    if not unit:
        return ""
    many, one = _units(lang)
    if value == 1 and unit in one:
        return one[unit]
    return many.get(unit, unit)


def step_context(step: Step, gpu: dict[str, Any] | None) -> dict[str, Any]:
    ctx: dict[str, Any] = dict(step.values)
    ctx["result"] = step.result
    ctx["gpu"] = gpu or {}
    return ctx


#: lang → (step key, why key, note key) → the three phrases' entries.
_STEP_ENTRIES: dict[str, dict[tuple[str, str, str | None], tuple[Any, Any, Any]]] = {}


def solution_steps(steps: list[Step], lang: str, *, salt: str = "",
                   gpu: dict[str, Any] | None = None) -> list[SolutionStep]:
    out = []
    many, one = _units(lang)
    shares = formula_shares()
    crc = zlib.crc32(salt.encode())
    entries = _STEP_ENTRIES.get(lang)
    if entries is None:
        entries = _STEP_ENTRIES[lang] = {}
    for step in steps:
        triple = entries.get((step.key, step.why, step.note))
        if triple is None:
            triple = entries[(step.key, step.why, step.note)] = (
                chooser(lang, "step", step.key), chooser(lang, "why", step.why),
                chooser(lang, "note", step.note) if step.note else (("",), b""))
        (tv, tb), (wv, wb), (nv, nb) = triple
        title = tv[0] if len(tv) == 1 else tv[crc32(tb, crc) % len(tv)]
        why = wv[0] if len(wv) == 1 else wv[crc32(wb, crc) % len(wv)]
        note = nv[0] if len(nv) == 1 else nv[crc32(nb, crc) % len(nv)]
        if title.__class__ is not str or why.__class__ is not str or note.__class__ is not str:
            ctx = step_context(step, gpu)   # only phrases with placeholders need it
            title, why, note = fill(title, ctx), fill(why, ctx), fill(note, ctx)
        result = step.result
        unit = step.unit
        if unit:
            unit = one[unit] if result == 1 and unit in one else many.get(unit, unit)
        if result.__class__ is tuple or result.__class__ is list:
            result = list(result)
        elif result is None:
            result = "∞"
        elif result.__class__ is bool:
            result = yes_no(result, lang)
        elif step.formula in shares and (result.__class__ is float or result.__class__ is int):
            result = numbers.share(result)
        out.append(SolutionStep(title, step.formula, dict(step.values), result, unit, why, note))
    return out


def occupancy_verify(result, gpu, lang: str, *, salt: str = "") -> list[str]:
    """Independent checks of an occupancy result: multiply back, then test one more block."""
    B, w = result.blocks_per_sm, result.warps_per_block
    cfg = result.config
    lines: list[str] = []
    if B == 0:
        reason_key = result.failure or "registers"
        reason = phrase(lang, "note", reason_key, {"gpu": gpu.to_dict(), "T": cfg.threads_per_block},
                        salt=salt) if has(lang, "note", reason_key) else reason_key
        lines.append(phrase(lang, "verify", "fails", {"reason": reason.rstrip(".")}, salt=salt))
        return lines
    for limit in result.limiter:
        if limit == "registers":
            if result.model == "textbook":
                lines.append(phrase(lang, "verify", "registers",
                                    {"B": B, "need": cfg.threads_per_block * cfg.regs_per_thread,
                                     "pool": gpu.regs_per_sm}, salt=salt))
            else:
                sub = find_step(result.steps, "warps_per_subpartition")
                n_p = sub.result if sub else (gpu.regs_per_sm // gpu.schedulers_per_sm) // max(
                    1, result.regs_per_block_allocated // w)
                lines.append(phrase(lang, "verify", "registers_exact",
                                    {"B": B, "w": w, "P": gpu.schedulers_per_sm, "n_P": n_p},
                                    salt=salt))
        elif limit == "shared_memory":
            lines.append(phrase(lang, "verify", "shared_memory",
                                {"B": B, "need": result.smem_per_block_allocated,
                                 "pool": result.smem_per_sm_available}, salt=salt))
        elif limit == "warps":
            lines.append(phrase(lang, "verify", "warps",
                                {"B": B, "w": w, "W_max": gpu.max_warps_per_sm}, salt=salt))
        elif limit == "blocks":
            lines.append(phrase(lang, "verify", "blocks", {"B": B}, salt=salt))
        elif limit == "barriers":
            lines.append(phrase(lang, "verify", "barriers",
                                {"B": B, "b": cfg.barriers, "N_bar": gpu.barriers_per_sm}, salt=salt))
    lines.append(phrase(lang, "verify", "threads",
                        {"A": result.active_warps, "W_max": gpu.max_warps_per_sm,
                         "occ": result.occupancy}, salt=salt))
    return lines
