"""Inverse questions: answers checked by substitution, tightness, closed forms and hand numbers."""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quizgen.engine import formulas
from quizgen.engine.derivation import find_step
from quizgen.engine.inverse import (
    FORMULAS, max_regs_for_blocks, max_regs_for_occupancy, max_smem_for_blocks,
    max_threads_for_blocks)
from quizgen.engine.occupancy import MODELS, launch_config, occupancy
from quizgen.errors import QuizgenError
from quizgen.gpus import get_gpu, preset_names
from quizgen.languages import LANGS
from quizgen.render.solution import solution_steps

GPUS = [get_gpu(name) for name in preset_names()]
CHECK = settings(max_examples=120, deadline=None, derandomize=True)
TEXTBOOK, A100, H100 = get_gpu("textbook"), get_gpu("a100"), get_gpu("h100")

# (case, solver, gpu, launch, target, model, keyword options, answer)
HAND_CASES = [
    # Seed 000, example 5: at 256 registers the largest block that fits is T = 65536/256 = 256.
    ("000 ex5 largest block at 256 registers", max_threads_for_blocks, TEXTBOOK,
     dict(threads_per_block=1, regs_per_thread=256), 1, "textbook", {}, 256),
    # Seed 004, scenario 1 read backwards: 64 registers is the most that keeps 50% on an A100.
    ("004 scenario 1 backwards", max_regs_for_occupancy, A100, dict(threads_per_block=256), 0.5,
     "textbook", {}, 64),
    ("004 scenario 1 backwards, exact", max_regs_for_occupancy, A100, dict(threads_per_block=256),
     0.5, "exact", {}, 64),
    # 24 warps in one block: the textbook's ⌊65536/768⌋ = 85, but per sub-partition only
    # ⌊16384/6⌋ = 2730 registers per warp, in units of 256 → 2560 → 80 registers per thread.
    ("exact granularity costs 5 registers", max_regs_for_blocks, A100, dict(threads_per_block=768), 1,
     "textbook", {}, 85),
    ("exact granularity, 768 threads", max_regs_for_blocks, A100, dict(threads_per_block=768), 1,
     "exact", {}, 80),
    # 4 blocks of 32-register threads: the register lid and the warp lid both allow 512 threads.
    ("largest block for 4 blocks", max_threads_for_blocks, A100, dict(threads_per_block=1,
     regs_per_thread=32), 4, "exact", {}, 512),
    # Textbook register lid ⌊65536/(3·32)⌋ = 682 is not a whole number of warps.
    ("textbook block, any size", max_threads_for_blocks, TEXTBOOK, dict(threads_per_block=1,
     regs_per_thread=32), 3, "textbook", {}, 672),
    ("textbook block, 40 registers", max_threads_for_blocks, TEXTBOOK, dict(threads_per_block=1,
     regs_per_thread=40), 3, "textbook", {}, 546),
    ("textbook block, whole warps", max_threads_for_blocks, TEXTBOOK, dict(threads_per_block=1,
     regs_per_thread=40), 3, "textbook", {"whole_warps": True}, 544),
    # Seed 004 scenario 2 backwards: 3 blocks share 164 KB → ⌊167936/3⌋ = 55978 B each.
    ("004 scenario 2 backwards, textbook", max_smem_for_blocks, A100,
     dict(threads_per_block=256, regs_per_thread=32), 3, "textbook", {}, 55978),
    # Exact: without opt-in the 48 KB per-block limit binds first (48 KB + 1 KB reserved).
    ("exact static smem, 48 KB limit", max_smem_for_blocks, A100,
     dict(threads_per_block=256, regs_per_thread=32), 3, "exact", {}, 49152),
    # With opt-in the SM's share binds: ⌊55978/128⌋·128 − 1024 = 54912 B of dynamic memory.
    ("exact dynamic smem with opt-in", max_smem_for_blocks, A100,
     dict(threads_per_block=256, regs_per_thread=32, optin=200_000), 3, "exact", {"dynamic": True},
     54912),
    ("exact dynamic smem capped by its opt-in", max_smem_for_blocks, A100,
     dict(threads_per_block=256, regs_per_thread=32, optin=40_000), 3, "exact", {"dynamic": True},
     40000),
    # Unreachable: 1024-thread blocks can never be 3 to an SM of 64 warps.
    ("unreachable target", max_regs_for_blocks, A100, dict(threads_per_block=1024), 3, "exact", {},
     None),
]


@pytest.mark.parametrize("solver, gpu, params, target, model, options, answer",
                         [c[1:] for c in HAND_CASES], ids=[c[0] for c in HAND_CASES])
def test_hand_worked_answers(solver, gpu, params, target, model, options, answer):
    got = solver(gpu, launch_config(**params), target, model, **options)
    assert got.answer == answer
    assert got.reachable == (answer is not None)
    if answer is None:
        assert got.at_answer is None and got.at_next is None
        assert got.steps[-1].note == "unreachable"


def test_answer_is_proved_by_substitution():
    got = max_regs_for_blocks(A100, launch_config(768), 1, "exact")
    assert (got.at_answer.value, got.at_answer.blocks_per_sm) == (80, 1)
    assert (got.at_next.value, got.at_next.blocks_per_sm) == (81, 0)
    assert got.at_next.failure is not None
    assert [s.key for s in got.steps[-2:]] == ["check_answer", "check_next"]
    assert [s.result for s in got.steps[-2:]] == [1, 0]


def test_answer_at_the_hardware_maximum_has_no_next():
    got = max_regs_for_blocks(A100, launch_config(32), 1, "exact")
    assert got.answer == 255 == got.maximum and got.at_maximum
    assert got.at_next is None
    got = max_threads_for_blocks(A100, launch_config(1), 1, "exact")
    assert got.answer == 1024 and got.at_maximum and got.at_next is None


@pytest.mark.parametrize("call, field", [
    (lambda: max_regs_for_blocks(A100, launch_config(256), 0), "target_blocks"),
    (lambda: max_regs_for_blocks(A100, launch_config(256), "two"), "target_blocks"),
    (lambda: max_regs_for_occupancy(A100, launch_config(256), 1.5), "target_occupancy"),
    (lambda: max_regs_for_occupancy(A100, launch_config(256), 0), "target_occupancy"),
    (lambda: max_regs_for_occupancy(A100, launch_config(256), "half"), "target_occupancy"),
    (lambda: max_threads_for_blocks(A100, launch_config(1), 2, "fancy"), "model"),
])
def test_bad_input_is_one_line_error(call, field):
    with pytest.raises(QuizgenError) as info:
        call()
    assert info.value.field == field
    assert "\n" not in str(info.value)


def test_occupancy_target_accepts_percent_and_fraction():
    cfg = launch_config(256)
    a = max_regs_for_occupancy(A100, cfg, "50%", "exact")
    b = max_regs_for_occupancy(A100, cfg, Fraction(1, 2), "exact")
    c = max_regs_for_occupancy(A100, cfg, 0.5, "exact")
    assert a.answer == b.answer == c.answer == 64
    assert a.target_blocks == 4


def test_formulas_are_registered_and_print():
    names = formulas.sources()
    for name in FORMULAS:
        assert name in names
        formulas.expression(name)


def test_to_dict_is_json_safe():
    import json

    got = max_smem_for_blocks(A100, launch_config(256, 32, optin=200_000), 3, "exact", dynamic=True)
    data = json.loads(json.dumps(got.to_dict(with_steps=True)))
    assert data["answer"] == 54912 and data["parameter"] == "dyn_smem"
    assert data["at_next"]["value"] == 54913


# ---------------------------------------------------------------------------------------------
# Properties over every preset and both models

launches = st.fixed_dictionaries({
    "threads_per_block": st.one_of(st.integers(1, 1024), st.integers(1, 32).map(lambda k: 32 * k)),
    "regs_per_thread": st.integers(0, 128),
    "smem_per_block": st.one_of(st.just(0), st.integers(0, 48 * 1024)),
    "dyn_smem": st.one_of(st.just(0), st.integers(0, 64 * 1024)),
    "optin": st.one_of(st.none(), st.just(True), st.integers(0, 200 * 1024)),
    "carveout": st.one_of(st.just(-1), st.integers(0, 100)),
    "barriers": st.integers(0, 4),
})
targets = st.integers(1, 40)


def _closed_form_answer(result):
    step = find_step(result.steps, "answer")
    assert step is not None
    return step.result


def _assert_tight(result, parameter, step=1):
    """The answer reaches the target; one more does not, unless the hardware allows no more."""
    if result.answer is None:
        assert result.at_answer is None
        return
    probe = result.at_answer
    assert probe.value == result.answer and probe.blocks_per_sm >= result.target_blocks
    # Substitute back through the engine, independently of the solver's own probe.
    cfg = dataclasses.replace(result.config, **{parameter: result.answer})
    if parameter == "threads_per_block":
        cfg = dataclasses.replace(cfg, block=None)
    again = occupancy(get_gpu(result.gpu), cfg, model=result.model)
    assert again.blocks_per_sm == probe.blocks_per_sm
    if result.at_maximum:
        assert result.at_next is None
    else:
        assert result.at_next.value == result.answer + step
        assert result.at_next.blocks_per_sm < result.target_blocks
    assert _closed_form_answer(result) == result.answer


@settings(max_examples=120, deadline=None, derandomize=True)
@given(st.sampled_from(GPUS), st.sampled_from(MODELS), launches, targets)
def test_max_regs_is_tight_and_matches_a_full_scan(gpu, model, params, target):
    cfg = launch_config(**params)
    got = max_regs_for_blocks(gpu, cfg, target, model)
    _assert_tight(got, "regs_per_thread")
    scan = [r for r in range(gpu.max_regs_per_thread + 1)
            if occupancy(gpu, dataclasses.replace(cfg, regs_per_thread=r), model=model).blocks_per_sm
            >= target]
    assert got.answer == (max(scan) if scan else None)


@CHECK
@given(st.sampled_from(GPUS), st.sampled_from(MODELS), launches,
       st.integers(1, 64).map(lambda k: Fraction(k, 64)))
def test_max_regs_for_occupancy_reaches_it(gpu, model, params, target):
    cfg = launch_config(**params)
    got = max_regs_for_occupancy(gpu, cfg, target, model)
    _assert_tight(got, "regs_per_thread")
    if got.answer is not None:
        assert got.at_answer.occupancy >= target
        if got.at_next is not None:
            assert got.at_next.occupancy < target


@CHECK
@given(st.sampled_from(GPUS), st.sampled_from(MODELS), launches, targets, st.booleans())
def test_max_threads_is_tight(gpu, model, params, target, whole_warps):
    cfg = launch_config(**params)
    got = max_threads_for_blocks(gpu, cfg, target, model, whole_warps=whole_warps)
    if whole_warps:
        assert got.answer is None or got.answer % 32 == 0
    _assert_tight(got, "threads_per_block", 32 if whole_warps else 1)


@CHECK
@given(st.sampled_from(GPUS), st.sampled_from(MODELS), launches, targets, st.booleans())
def test_max_smem_is_tight(gpu, model, params, target, dynamic):
    cfg = launch_config(**params)
    got = max_smem_for_blocks(gpu, cfg, target, model, dynamic=dynamic)
    _assert_tight(got, "dyn_smem" if dynamic else "smem_per_block")


@settings(max_examples=25, deadline=None, derandomize=True)  # sympy evaluation is slow
@given(st.sampled_from(GPUS), st.sampled_from(MODELS), launches, targets)
def test_steps_evaluate_to_their_results(gpu, model, params, target):
    """Each closed-form step, evaluated by sympy from its formula, gives the number it records."""
    cfg = launch_config(**params)
    for got in (max_regs_for_blocks(gpu, cfg, target, model),
                max_threads_for_blocks(gpu, cfg, target, model),
                max_smem_for_blocks(gpu, cfg, target, model)):
        for step in got.steps:
            if step.result is None or any(isinstance(v, str) for v in step.values.values()):
                continue
            symbols = formulas.meaning(step.formula)
            assert set(step.values) <= set(symbols), step
            if set(step.values) == set(symbols):
                assert formulas.evaluate(step.formula, step.values) == step.result, step


@pytest.mark.parametrize("lang", LANGS)
def test_every_inverse_derivation_reads_in_every_language(lang):
    # Each step of each inverse solver has its title, why-line and note in the phrasebook, on
    # both models, with and without registers, whole warps or not.
    cases = []
    for gpu, model in ((TEXTBOOK, "textbook"), (A100, "exact")):
        for r in (0, 40):
            cfg = launch_config(128, r, 4096)
            for ww in (True, False):
                cases.append(max_threads_for_blocks(gpu, launch_config(1, r), 3, model,
                                                    whole_warps=ww))
            cases.append(max_regs_for_blocks(gpu, cfg, 2, model))
            cases.append(max_smem_for_blocks(gpu, cfg, 2, model))
    for res in cases:
        steps = solution_steps(res.steps, lang, salt="inverse")
        assert len(steps) == len(res.steps) > 0
        for st in steps:
            assert st.title.strip() and st.why.strip()
