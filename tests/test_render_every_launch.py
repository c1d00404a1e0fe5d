"""Every launch renders: a worked solution in both languages for random launches on every preset,
feasible or not (no block fits, too many threads, shared memory over every limit), under both
models; and more registers per thread than the GPU allows is one input error, never a crash."""

from __future__ import annotations

import random
import time

import pytest

from quizgen.engine.occupancy import launch_config, occupancy
from quizgen.errors import QuizgenError
from quizgen.gpus import get_gpu
from quizgen.render.occupancy import occupancy_solution
from quizgen.render.text import render_solution

PRESETS = ("textbook", "v100", "t4", "a100", "a10", "rtx4090", "h100", "h200", "b200")
PER_PRESET = 1000


def random_launch(rng: random.Random, gpu):
    T = rng.choice((rng.randrange(1, 1025), rng.randrange(1, 33) * 32, rng.randrange(1025, 2049)))
    r = rng.choice((rng.randrange(0, gpu.max_regs_per_thread + 1), rng.randrange(128, gpu.max_regs_per_thread + 1)))
    s = rng.choice((0, rng.randrange(0, 49153), rng.randrange(0, 256 * 1024)))
    dyn = rng.choice((0, 0, rng.randrange(0, 128 * 1024)))
    optin = rng.choice((None, None, dyn + s))
    return launch_config(T, r, s, dyn, optin)


@pytest.mark.parametrize("name", PRESETS)
def test_every_random_launch_renders_in_both_languages(name):
    gpu = get_gpu(name)
    rng = random.Random(f"render|{name}")
    start, failing = time.perf_counter(), 0
    for i in range(PER_PRESET):
        cfg = random_launch(rng, gpu)
        model = ("textbook", "exact")[i % 2]
        res = occupancy(gpu, cfg, model=model, explain=True)
        failing += res.blocks_per_sm == 0
        for lang in ("hinglish", "en"):
            text = render_solution(occupancy_solution(res, gpu, lang), lang, "txt", title="t")
            assert "{{" not in text and "Answer" in text, (name, cfg)
    assert failing >= PER_PRESET // 20, f"only {failing} infeasible launches drawn on {name}"
    assert time.perf_counter() - start < 60


@pytest.mark.parametrize("name", PRESETS)
@pytest.mark.parametrize("model", ["textbook", "exact"])
def test_registers_above_the_maximum_are_an_input_error(name, model):
    gpu = get_gpu(name)
    if gpu.is_textbook and model == "textbook":   # the notes' formulas have no per-thread cap
        assert occupancy(gpu, launch_config(256, 256), model=model).blocks_per_sm == 1
        return
    with pytest.raises(QuizgenError) as info:
        occupancy(gpu, launch_config(256, gpu.max_regs_per_thread + 1), model=model)
    assert info.value.field == "regs_per_thread" and "\n" not in str(info.value)
    assert occupancy(gpu, launch_config(256, gpu.max_regs_per_thread), model=model).blocks_per_sm >= 0
