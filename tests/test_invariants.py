"""Physics that holds for every generated problem, whatever its cell: each invariant is written
once, as a predicate over the problem record (its params, answers, steps and GPU), so a new cell
is checked by all of them without a line here.

Over every cell × level × both languages × the textbook SM and every real preset (and each cell's
own choice of GPU) × many seeds, more than 20,000 problems: no occupancy above 100% and no
resident warps above the cap; resident warps come in whole blocks; a what-if's new latency has a
real source (L1, L2, DRAM, a dependent FMA chain; shared memory never "misses"); a need above the
cap is stated as a shortfall against it; an SM has one scheduler model; idle lanes count every
launched thread outside the data.
"""

from __future__ import annotations

import math
import re
import time
from typing import Callable, Iterator

import pytest

from quizgen.errors import QuizgenError
from quizgen.generator import CELLS, LEVELS, generate_one
from quizgen.gpus import get_gpu, preset_names
from quizgen.problems.model import Problem

SEEDS = 11             # 32 cells × 3 levels × 2 languages × 10 GPU choices × 11 seeds, less refusals
LANGS = ("en", "hinglish")
GPUS = (None,) + tuple(preset_names())      # None: the cell's own choice for the level
WARP = 32

#: Where a slower read really comes from (the what-if of a latency change names one of them).
LATENCY_SOURCES = {"l1", "l2", "dram", "fma_chain"}
#: The formulas of the one latency-hiding model: a record using one must carry the SM's schedulers.
HIDING_FORMULAS = {"warps_to_hide", "sm_warps", "hiding_per_scheduler", "hiding_after",
                   "littles_per_scheduler", "latency_efficiency", "plateau_warps",
                   "efficiency_at_cap", "warps_for_efficiency"}
#: A need that can exceed the SM's cap → the answer that states the shortfall against it.
SHORTFALL_OF = {"warps_needed": "deficit", "warps_after": "deficit_after"}
#: The formulas whose result is an occupancy (a share of the SM's warp slots).
OCCUPANCY_FORMULAS = {"occupancy", "whatif_occupancy", "useful_occupancy"}
#: Formulas of an SM-wide latency-hiding figure: their steps must say how many schedulers share it.
SM_WIDE_FORMULAS = {"latency_efficiency", "plateau_warps", "efficiency_at_cap"}
#: A percentage said to be an occupancy, in either language ("191.667% occupancy", "occupancy 25%").
OCC_PERCENT = re.compile(r"([\d.,]+)% occupancy|occupancy (?:of |= )?([\d.,]+)%")

Check = Callable[[Problem], "str | None"]
INVARIANTS: list[Check] = []


def invariant(fn: Check) -> Check:
    INVARIANTS.append(fn)
    return fn


def suffixed(answers: dict, stem: str) -> Iterator[tuple[str, str, object]]:
    """(key, suffix, value) for `stem` and its per-GPU forms (`occupancy_a100`)."""
    for key, value in answers.items():
        if key == stem:
            yield key, "", value
        elif key.startswith(stem + "_") and key[len(stem) + 1:] in preset_names():
            yield key, key[len(stem) + 1:], value


def cap_of(p: Problem, suffix: str) -> int:
    return get_gpu(suffix).max_warps_per_sm if suffix else p.gpu["max_warps_per_sm"]


@invariant
def occupancy_at_most_one(p: Problem) -> str | None:
    for key, value in p.answers.items():
        if "occupancy" in key and isinstance(value, (int, float)) and not 0 <= value <= 1:
            return f"answer {key} = {value}"
    for step in p.solution.steps:
        if step.formula in OCCUPANCY_FORMULAS and isinstance(step.result, (int, float)):
            if not 0 <= step.result <= 1:
                return f"step {step.title!r} = {step.result}"
    for text in [p.solution.answer, *p.solution.verify, p.solution.trap]:
        for a, b in OCC_PERCENT.findall(text):
            if float((a or b).replace(",", "")) > 100:
                return f"says {text!r}"
    return None


@invariant
def resident_warps_within_cap(p: Problem) -> str | None:
    for key, suffix, value in suffixed(p.answers, "active_warps"):
        if not 0 <= value <= cap_of(p, suffix):
            return f"{key} = {value} above the cap {cap_of(p, suffix)}"
    if not any(suffix for _, suffix, _ in suffixed(p.answers, "active_warps")):
        for step in p.solution.steps:       # (a comparison's steps are each on its own GPU)
            if step.formula == "active_warps" and step.result > p.gpu["max_warps_per_sm"]:
                return f"step {step.title!r} = {step.result}"
    return None


@invariant
def resident_warps_are_whole_blocks(p: Problem) -> str | None:
    T = p.params.get("threads_per_block")
    if not T:
        return None
    per_block = math.ceil(T / WARP)
    for key, suffix, value in suffixed(p.answers, "active_warps"):
        if value % per_block:
            return f"{key} = {value} warps is not whole blocks of {per_block} warps ({T} threads)"
        blocks = p.answers.get("blocks_per_sm" + (f"_{suffix}" if suffix else ""))
        if blocks is not None and blocks * per_block != value:
            return f"{key} = {value} ≠ {blocks} blocks × {per_block} warps"
    return None


@invariant
def a_slower_read_has_a_real_source(p: Problem) -> str | None:
    if "new_latency" not in p.params:
        return None
    source = p.params.get("new_source")
    if source not in LATENCY_SOURCES:
        return f"new latency {p.params['new_latency']} from {source!r}"
    if source == p.params.get("source"):
        return f"the what-if reads from the same {source!r}"
    return None


@invariant
def a_need_above_the_cap_is_a_shortfall(p: Problem) -> str | None:
    cap = p.gpu["max_warps_per_sm"]
    for need, short in SHORTFALL_OF.items():
        value = p.answers.get(need)
        if isinstance(value, int) and value > cap:
            said = {p.answers.get(short)} | {s.result for s in p.solution.steps
                                             if s.formula == "warp_deficit"}
            if value - cap not in said:
                return f"{need} = {value} > cap {cap}, but no shortfall of {value - cap} is stated"
    return None


@invariant
def one_scheduler_model_per_sm(p: Problem) -> str | None:
    n = p.gpu["schedulers_per_sm"]
    if p.params.get("schedulers", n) != n:
        return f"params say {p.params['schedulers']} schedulers, the SM has {n}"
    for step in p.solution.steps:
        if step.formula not in HIDING_FORMULAS:
            continue
        if step.formula in SM_WIDE_FORMULAS and "N_sched" not in step.values:
            return f"step {step.title!r} is an SM-wide figure without the SM's schedulers"
        for sym in ("N_sched", "N"):
            if sym in step.values and step.values[sym] != n:
                return f"step {step.title!r} uses {sym} = {step.values[sym]}"
    return None


@invariant
def idle_lanes_count_every_launched_thread(p: Problem) -> str | None:
    if "image" not in p.params:
        return None
    width, height = p.params["image"]
    for key, value in p.answers.items():
        if not key.endswith("grid_idle_lanes"):
            continue
        which = key[: -len("_grid_idle_lanes")]
        bx, by, bz = next(b for b in p.params["blocks"]
                          if (b[0] % WARP != 0) == (which == "square"))
        launched = math.ceil(width / bx) * math.ceil(height / by) * math.ceil(bx * by * bz / WARP) * WARP
        if value != launched - width * height:
            return f"{key} = {value}, but {launched:,} lanes launched for {width * height:,} pixels"
    return None


def problems(cell: str) -> Iterator[Problem]:
    for lang in LANGS:
        for level in LEVELS:
            for gpu in GPUS:
                for seed in range(SEEDS):
                    try:
                        yield generate_one(cell, level=level, seed=seed, lang=lang, gpu=gpu)
                    except QuizgenError as exc:
                        if f"no {cell} problem exists" not in str(exc):
                            raise
                        break                           # this GPU has no such problem: refused


COUNTS: dict[str, int] = {}


@pytest.mark.parametrize("cell", CELLS)
def test_every_problem_keeps_the_physics(cell):
    start = time.perf_counter()
    failures = []
    count = 0
    for p in problems(cell):
        count += 1
        for check in INVARIANTS:
            why = check(p)
            if why:
                failures.append(f"{check.__name__}: {p.cell} L{p.level} {p.gpu['name']} "
                                f"seed {p.seed} {p.lang}: {why}")
    COUNTS[cell] = count
    assert count > 0
    assert not failures, f"{len(failures)} of {count}:\n" + "\n".join(failures[:12])
    print(f"{cell}: {count} problems in {time.perf_counter() - start:.1f} s")


def test_the_sweep_covers_twenty_thousand_problems():
    """Runs after the cells' sweeps (in file order): together they checked ≥ 20,000 problems."""
    for cell in CELLS:
        if cell not in COUNTS:              # a run of some cells only: count the others here
            COUNTS[cell] = sum(1 for _ in problems(cell))
    assert sum(COUNTS.values()) >= 20_000, COUNTS


# The examples that found these invariants, each a case (cell, level, seed, GPU, language) -----

def one(cell, level, seed, gpu=None, lang="en"):
    return generate_one(cell, level=level, seed=seed, lang=lang, gpu=gpu)


def md(p: Problem) -> str:
    from quizgen.render.text import render_solution

    return render_solution(p.solution, p.lang, "md", question=p.question)


@pytest.mark.parametrize("lang", LANGS)
def test_l4_slower_read_comes_from_l2_or_dram_never_a_shared_memory_miss(lang):
    for seed, gpu in ((100, "a10"), (200, "rtx4090")):
        p = one("L-4", 3, seed, gpu, lang)
        assert p.params["new_source"] in ("l2", "dram"), p.params
        assert "shared memory miss" not in p.question and "misses shared memory" not in p.question
        assert ("L2" if p.params["new_source"] == "l2" else "DRAM") in p.question


def test_l4_need_past_the_cap_is_a_shortfall_not_an_occupancy():
    p = one("L-4", 3, 200, "rtx4090")               # was "92 warps (191.667% occupancy)"
    need, cap = p.answers["warps_after"], p.gpu["max_warps_per_sm"]
    assert need > cap
    assert [s.result for s in p.solution.steps if s.formula == "warp_deficit"] == [need - cap]
    assert f"{need - cap} more than the SM's cap of {cap}" in p.solution.answer
    assert "% occupancy" not in p.solution.answer.split("At ")[-1]


def test_occ6_shares_the_warps_among_the_sms_schedulers():
    p = one("OCC-6", 2, 100)                        # was one scheduler on the 4-scheduler SM
    L, N, S = p.params["latency"], p.params["resident_warps"], p.gpu["schedulers_per_sm"]
    assert S == 4 and p.params["schedulers"] == S
    assert p.answers["plateau_warps"] == S * L
    assert p.answers["efficiency"] == pytest.approx(min(N, S * L) / (S * L))
    assert p.answers["efficiency_at_cap"] == pytest.approx(min(64 // S, L) / L)
    assert "One warp scheduler" not in p.question


def test_occ8_says_why_a_lane_never_takes_another_lanes_work():
    p = one("OCC-8", 1, 0)
    lanes_cost = sum(b["lanes"] * b["cost"] for b in p.params["branches"])
    assert p.answers["time_x"] == pytest.approx(lanes_cost / WARP)
    assert "by path" in p.question
    step = next(s for s in p.solution.steps if s.formula == "convergent_time")
    assert "never does another lane's work" in step.why or "Grouped by path" in step.why


def test_wi_idle_lanes_count_the_edge_blocks_threads_outside_the_image():
    from quizgen.grade import check_answer

    p = one("W-I", 3, 100)                          # 27 × 27 blocks on a 4,000 × 3,000 image
    assert p.answers["square_grid_idle_lanes"] == 16_688 * 736 - 12_000_000 == 282_368
    assert "165,552 threads past the image's edge" in p.solution.answer
    r = check_answer(p, "square_grid_idle_lanes", "116816")    # the padding alone
    assert r.status == "wrong" and r.misconceptions[0] == "padding_only"


@pytest.mark.parametrize("lang", LANGS)
def test_wi_square_is_balanced_gives_its_value(lang):
    from quizgen.render.phrases import phrase

    assert "0 wasted lanes" in phrase(lang, "misconception", "square_is_balanced")


@pytest.mark.parametrize("n, noun, one_form, many_form, words", [
    (1, "block", "fits", "fit", "1 block fits"), (2, "block", "fits", "fit", "2 blocks fit"),
    (0, "block", "fits", "fit", "0 blocks fit"), (1200, "lane", "is", "are", "1,200 lanes are"),
    (1, "lane", "leti hai", "leti hain", "1 lane leti hai"),
    (13, "lane", "leti hai", "leti hain", "13 lanes leti hain"),
    (2, "child|children", "runs", "run", "2 children run")])
def test_one_plural_and_agreement_rule(n, noun, one_form, many_form, words):
    from quizgen.render.numbers import agree, counted

    assert f"{counted(n, noun)} {agree(n, one_form, many_form)}" == words


@pytest.mark.parametrize("cell, level, seed, gpu, lang, said, not_said", [
    ("X-3", 1, 1, None, "en", "1 block uses 144,384 B", "1 block use "),
    ("OCC-5", 3, 2, None, "en", "Check: 1 block now fits", "1 block now fit,"),
    ("OCC-8", 3, 1, "t4", "hinglish", "1 lane yeh path leti hai,", "1 lane yeh path lete"),
    ("OCC-5", 1, 1, "v100", "en", "? 0: one block alone needs 71,680", "registers are left over"),
    ("X-1", 3, 0, None, "en", "the other lids allow", "with 0 registers"),
    ("OCC-3", 3, 82, None, "en", "0.78125 = 78.125", "= 0.7812$"),
    ("W-G", 1, 0, None, "hinglish", "", "bat-ta"),
    ("W-C", 1, 0, None, "hinglish", "", "kaat-te"),
    ("W-J", 1, 0, None, "hinglish", "", "Sawaal chahta hai"),
    ("W-J", 1, 0, None, "en", "", "hopes you say yes"),
    ("L-6", 3, 100, None, "hinglish", "", "ghat-te"),
    ("L-6", 3, 100, None, "hinglish", "", "chahiye warps"),
])
def test_named_text_slips_are_fixed_at_their_source(cell, level, seed, gpu, lang, said, not_said):
    text = md(one(cell, level, seed, gpu, lang))
    assert said in text and not_said not in text


def test_no_hyphenated_hinglish_verb_anywhere():
    """'kaat-te', 'bat-ta', 'ghat-te': a verb is one word in the notes' Hinglish (kaatte)."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[1] / "templates"
    for path in [*root.glob("phrases/*.hinglish.toml"), *root.glob("concepts/*.hinglish.toml")]:
        found = re.findall(r"\b[a-z]+-t(?:a|e|i)\b", path.read_text(encoding="utf-8"))
        assert not found, (path.name, found)


def test_occ4_names_its_trap_at_every_level():
    for level in (1, 2, 3):
        for seed in range(12):
            for lang in LANGS:
                p = one("OCC-4", level, seed, None, lang)
                assert p.solution.trap, (level, seed, lang)
                if p.answers["occupancy"] == 1:
                    assert "Free registers do not mean a full SM" not in p.solution.trap


@pytest.mark.parametrize("cell, slip", [("OCC-5", "half_block"), ("L-1", "warps_over_threads")])
def test_no_distractor_from_a_slip_no_student_makes(cell, slip):
    """'Halved the block by guesswork' and warps ÷ threads (0.651%): offered nowhere, and the
    options left are still at least four, or the card is a type-in."""
    for level in LEVELS:
        for seed in range(24):
            p = one(cell, level, seed)
            assert slip not in {c.misconception for c in p.choices}, (level, seed)
            assert not p.choices or len(p.choices) >= 4


def test_wa_wb_level_three_ask_what_level_one_cannot():
    """W-A level 3 finds a thread of a later block from its global index (block first, then
    warp: ⌊g/32⌋ is the slip); W-B level 3 counts a whole launch's idle lanes, padding and the
    last block's overhang (level 1 is one block's padding)."""
    for seed in range(24):
        a = one("W-A", 3, seed)
        g, T = a.params["global_index"], a.params["threads_per_block"]
        assert g >= 2 * T and (a.answers["global_block"], a.answers["global_warp"]) == (g // T, g % T // WARP)
        assert a.answers["global_warp"] != g // WARP
        b = one("W-B", 3, seed)
        n, T, w = b.params["elements"], b.params["threads_per_block"], b.answers["warps"]
        blocks = -(-n // T)
        assert b.answers["launch_blocks"] == blocks
        assert b.answers["launch_idle_lanes"] == blocks * w * WARP - n
        assert b.answers["launch_idle_lanes"] > blocks * b.answers["wasted_lanes"]
