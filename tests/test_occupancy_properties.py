"""Properties of both occupancy models on every preset, checked on random launches.

What is true (and asserted here):
* occupancy is in [0, 1]; blocks = min of the limits that apply, and the limiter is exactly the
  set of limits equal to it;
* more registers per thread, more static or dynamic shared memory, or a larger block never raise
  the blocks per SM. With the block fixed, fewer blocks means fewer warps, so registers and shared
  memory never raise occupancy either;
* a larger block is different: it can lower the active warps (17-warp blocks pack worse than
  16-warp ones) and it can raise them (two-warp blocks beat one-warp blocks under the block cap),
  so occupancy is not monotone in the block size;
* a launch fails exactly when no block fits, and then a failure reason is named;
* the derivation (explain=True) ends with the fast path's numbers.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from quizgen.engine.derivation import find_step
from quizgen.engine.occupancy import LIMIT_NAMES, MODELS, launch_config, occupancy
from quizgen.gpus import get_gpu, preset_names

GPUS = [get_gpu(name) for name in preset_names()]
CHECK = settings(max_examples=250, deadline=None, derandomize=True)

gpus = st.sampled_from(GPUS)
models = st.sampled_from(MODELS)
threads = st.one_of(st.integers(1, 1024), st.integers(1, 32).map(lambda k: 32 * k),
                    st.integers(1025, 1100))
regs = st.integers(0, 255)
static_smem = st.one_of(st.just(0), st.integers(0, 100 * 1024))
dyn_smem = st.one_of(st.just(0), st.integers(0, 48 * 1024), st.integers(0, 230 * 1024))
optins = st.one_of(st.none(), st.just(True), st.integers(0, 240 * 1024))
carveouts = st.one_of(st.just(-1), st.integers(0, 100))
barriers = st.integers(0, 4)


@st.composite
def launches(draw):
    return dict(threads_per_block=draw(threads), regs_per_thread=draw(regs),
                smem_per_block=draw(static_smem), dyn_smem=draw(dyn_smem), optin=draw(optins),
                carveout=draw(carveouts), barriers=draw(barriers))


def fit(gpu, model, launch):
    """The launch as this GPU can be asked it: registers within its per-thread cap (63 on cc 2.0
    and 3.0) and no carveout before cc 7.0 (both are one-line input errors, tested elsewhere)."""
    launch = dict(launch)
    if not (model == "textbook" and gpu.is_textbook):
        launch["regs_per_thread"] = min(launch.get("regs_per_thread", 0), gpu.max_regs_per_thread)
    if model == "exact" and 0 < gpu.cc_major < 7:
        launch["carveout"] = -1
    return launch


def solve(gpu, model, params, **change):
    return occupancy(gpu, launch_config(**fit(gpu, model, {**params, **change})), model=model)


@CHECK
@given(gpus, models, launches())
def test_result_is_consistent(gpu, model, params):
    res = solve(gpu, model, params)
    assert 0.0 <= res.occupancy <= 1.0
    assert res.active_warps == res.blocks_per_sm * res.warps_per_block <= gpu.max_warps_per_sm
    applied = [v for v in res.limits.values() if v is not None]
    assert res.blocks_per_sm == min(applied)
    # The limiter is every limit that equals the result, and nothing else.
    assert res.limiter, "some limit always binds"
    for name in LIMIT_NAMES:
        bound = res.limits[name]
        assert (name in res.limiter) == (bound is not None and bound == res.blocks_per_sm)
        assert bound is None or bound >= res.blocks_per_sm
    assert res.launch_fails == (res.blocks_per_sm == 0) == (res.failure is not None)


@CHECK
@given(gpus, models, launches(), st.integers(1, 64))
def test_more_registers_never_raise_blocks(gpu, model, params, extra):
    more = min(params["regs_per_thread"] + extra, 255)
    base, bigger = solve(gpu, model, params), solve(gpu, model, params, regs_per_thread=more)
    assert bigger.blocks_per_sm <= base.blocks_per_sm
    assert bigger.occupancy <= base.occupancy


@CHECK
@given(gpus, models, launches(), st.sampled_from(["smem_per_block", "dyn_smem"]),
       st.integers(1, 64 * 1024))
def test_more_shared_memory_never_raises_blocks(gpu, model, params, field, extra):
    # optin=True follows the dynamic size (re-read by launch_config), an explicit optin stays put.
    base = solve(gpu, model, params)
    bigger = solve(gpu, model, params, **{field: params[field] + extra})
    assert bigger.blocks_per_sm <= base.blocks_per_sm
    assert bigger.occupancy <= base.occupancy


@CHECK
@given(gpus, models, launches(), st.integers(1, 512))
def test_larger_block_never_raises_blocks(gpu, model, params, extra):
    base = solve(gpu, model, params)
    bigger = solve(gpu, model, params, threads_per_block=params["threads_per_block"] + extra)
    assert bigger.blocks_per_sm <= base.blocks_per_sm
    # Warps resident can go either way; they are still bounded by the warp slots.
    assert bigger.active_warps <= gpu.max_warps_per_sm


def test_larger_block_can_lower_or_raise_active_warps():
    """Block size is not monotone for occupancy, in either model: the examples that show it."""
    for model in MODELS:
        for name in ("textbook", "a100", "h100"):
            gpu = get_gpu(name)
            # 16-warp blocks fill 64 slots four times; 17-warp blocks fit only three times (51 warps).
            assert solve(gpu, model, {"threads_per_block": 512}).active_warps == 64
            assert solve(gpu, model, {"threads_per_block": 544}).active_warps == 51
            # One-warp blocks stop at the 32-block cap (32 warps); two-warp blocks reach 64.
            assert solve(gpu, model, {"threads_per_block": 32}).active_warps == 32
            assert solve(gpu, model, {"threads_per_block": 64}).active_warps == 64


@CHECK
@given(gpus, models, launches())
def test_derivation_ends_with_the_fast_numbers(gpu, model, params):
    params = fit(gpu, model, params)
    fast = solve(gpu, model, params)
    slow = occupancy(gpu, launch_config(**params), model=model, explain=True)
    assert slow.steps and not fast.steps
    assert slow.to_dict() == fast.to_dict()
    assert [s.key for s in slow.steps[-3:]] == ["blocks_per_sm", "active_warps", "occupancy"]
    assert [s.result for s in slow.steps[-3:]] == [fast.blocks_per_sm, fast.active_warps,
                                                   fast.occupancy]
    for key, name in (("blocks_by_regs", "registers"), ("blocks_by_smem", "shared_memory"),
                      ("blocks_by_warps", "warps"), ("blocks_cap", "blocks"),
                      ("blocks_by_barriers", "barriers")):
        step = find_step(slow.steps, key)
        if step is not None:
            assert step.result == fast.limits[name], key
        else:
            assert name == "barriers" and fast.limits[name] is None
