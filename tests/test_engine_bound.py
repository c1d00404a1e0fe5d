"""Memory-bound vs compute-bound: seed 004 Ex 1–2 and its store flashcard."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from quizgen.engine import bound
from quizgen.engine.bound import classify_kernel
from quizgen.errors import QuizgenError

from engine_checks import check_steps

def test_seed004_ex1_memory_bound():
    # one float4 in (16 B), 10 FLOPs, one float out (4 B); load 400 cycles, FLOP 4 cycles
    r = classify_kernel(16, 4, 10, load_latency=400, flop_latency=4, explain=True)
    assert (r.bytes_moved, r.arithmetic_intensity, r.compute_cycles, r.critical_path) == (20, 0.5, 10, 410)
    assert r.bound == "memory" and r.memory_bound and r.reason == "memory_latency_dominates"
    assert r.memory_share > 0.9
    assert [s.note for s in r.steps if s.key == "critical_path"] == ["store_async"]
    d = json.loads(json.dumps(r.to_dict(with_steps=True)))
    assert d["bound"] == "memory" and d["critical_path"] == 410


def test_seed004_ex2_compute_bound():
    # 256 FMAs at one per cycle, 8 bytes from shared memory at ~30 cycles
    r = classify_kernel(8, 0, 256, load_latency=30)
    assert (r.compute_cycles, r.critical_path, r.arithmetic_intensity) == (256, 286, 32.0)
    assert r.bound == "compute" and r.reason == "compute_dominates"


@given(st.integers(0, 10_000), st.integers(0, 10_000))
def test_store_is_not_on_the_critical_path(stored_a, stored_b):
    a = classify_kernel(16, stored_a, 10, load_latency=400)
    b = classify_kernel(16, stored_b, 10, load_latency=400)
    assert a.critical_path == b.critical_path == 410 and a.bound == b.bound == "memory"
    assert a.bytes_moved == 16 + stored_a


def test_compute_has_a_one_flop_floor_and_no_load_is_compute_bound():
    r = classify_kernel(0, 0, 2, load_latency=0, flop_latency=4, explain=True)
    assert r.compute_cycles == 4 and r.arithmetic_intensity is None and r.bound == "compute"
    assert classify_kernel(16, 0, 100, load_latency=400, flops_per_cycle=0.5).compute_cycles == 200


@pytest.mark.parametrize("kwargs, field", [
    ({"bytes_loaded": -1}, "bytes_loaded"), ({"bytes_stored": -4}, "bytes_stored"),
    ({"flops": -10}, "flops"), ({"load_latency": -1}, "load_latency"),
    ({"flops_per_cycle": 0}, "flops_per_cycle"), ({"flop_latency": "slow"}, "flop_latency"),
])
def test_bad_input_is_one_line(kwargs, field):
    args = {"bytes_loaded": 16, "bytes_stored": 4, "flops": 10, "load_latency": 400} | kwargs
    with pytest.raises(QuizgenError) as info:
        classify_kernel(args.pop("bytes_loaded"), args.pop("bytes_stored"), args.pop("flops"), **args)
    assert info.value.field == field and "\n" not in str(info.value)


def test_formulas_agree_with_sympy_and_phrases_cover_steps():
    steps = classify_kernel(16, 4, 10, load_latency=400, explain=True).steps
    steps += classify_kernel(8, 0, 256, load_latency=30, explain=True).steps
    steps += classify_kernel(0, 0, 2, load_latency=0, explain=True).steps
    check_steps(steps, bound.FORMULAS)
