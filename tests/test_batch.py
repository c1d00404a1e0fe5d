"""The JSON Lines batch path writes exactly what `to_dict()` says, line for line."""

from __future__ import annotations

import io
import json
import random

from quizgen.engine.batch import result_json, run_batch
from quizgen.engine.occupancy import launch_config, occupancy
from quizgen.gpus import get_gpu, preset_names


def _launches(n: int, seed: int = 3):
    rng = random.Random(seed)
    for _ in range(n):
        gpu = get_gpu(rng.choice(preset_names()))
        block = rng.choice([None, [rng.choice([8, 16, 32, 64]), rng.randint(1, 8), 1]])
        threads, regs = None if block else rng.randint(1, 1100), rng.randint(0, 255)
        smem, dyn = rng.choice([0, rng.randint(0, 60000)]), rng.choice([0, rng.randint(0, 200000)])
        optin, carveout = rng.choice([None, True, rng.randint(0, 200000)]), rng.choice([-1, rng.randint(0, 100)])
        # as the GPU can be asked: its per-thread register cap, no carveout before cc 7.0
        regs = regs if gpu.is_textbook else regs % (gpu.max_regs_per_thread + 1)
        carveout = carveout if not 0 < gpu.cc_major < 7 else -1
        cfg = launch_config(threads, regs, smem, dyn, optin, carveout, rng.randint(0, 3), block)
        yield gpu, cfg, rng.choice([None, "textbook", "exact"])


def test_result_json_equals_json_dumps_of_to_dict():
    for gpu, cfg, model in _launches(3000):
        result = occupancy(gpu, cfg, model=model)
        assert result_json(result) == json.dumps(result.to_dict(), ensure_ascii=False) + "\n"


def test_batch_lines_match_single_calls():
    lines, expected = [], []
    for gpu, cfg, model in _launches(300, seed=9):
        obj = {"gpu": gpu.name, **{k: v for k, v in cfg.to_dict().items() if v is not None}, "model": model}
        if cfg.block is not None:
            obj.pop("threads_per_block")
        if model is None:
            obj.pop("model")
        lines.append(json.dumps(obj) + "\n")
        expected.append(occupancy(gpu, cfg, model=model).to_dict())
    out = io.StringIO()
    solved, errors = run_batch(lines, out)
    assert (solved, errors) == (300, 0)
    assert [json.loads(line) for line in out.getvalue().splitlines()] == expected


def test_lines_read_as_json_loads_reads_them():
    good = '{"gpu": "a100", "threads_per_block": 256, "regs_per_thread": 32}'
    lines = [good + "\n", "  " + good + "\n", good + "  \n", good + "\r\n", good,
             good + ' {"x": 1}\n', good[:-1] + "\n", good + "}\n", "[1]\n", "\n"]
    out = io.StringIO()
    solved, errors = run_batch(lines, out)
    got = [json.loads(line) for line in out.getvalue().splitlines()]
    assert (solved, errors) == (5, 4)
    assert all(g == got[0] for g in got[:5]) and got[0]["blocks_per_sm"] >= 1
    assert [g["line"] for g in got[5:]] == [6, 7, 8, 9]
    assert "not valid JSON (Extra data" in got[5]["error"]
    assert "not valid JSON" in got[6]["error"] and "Extra data" in got[7]["error"]
    assert "JSON object" in got[8]["error"]
