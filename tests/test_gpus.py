"""GPUs given as dicts (as problems and figures carry them) resolve to the same GPU each time,
and a bad field is refused every time, never answered from what an equal-looking dict gave."""

from __future__ import annotations

import pytest

from quizgen.errors import QuizgenError
from quizgen.gpus import get_gpu, resolve_gpu


def test_a_gpu_dict_resolves_to_its_preset_and_is_remembered():
    data = get_gpu("a100").to_dict()
    first = resolve_gpu(data)
    assert first == get_gpu("a100")
    assert resolve_gpu(dict(data)) is first
    changed = resolve_gpu({**data, "num_sms": 100})
    assert changed.num_sms == 100 and changed is not first


@pytest.mark.parametrize("field, bad", [("num_sms", True), ("regs_per_sm", 65536.0), ("num_sms", 0)])
def test_a_bad_field_is_refused_even_after_an_equal_good_one(field, bad):
    data = get_gpu("t4").to_dict()
    good = {**data, field: 1 if bad is True else int(bad) if bad else 40}
    resolve_gpu(good)
    with pytest.raises(QuizgenError):
        resolve_gpu({**data, field: bad})
    with pytest.raises(QuizgenError):
        resolve_gpu({**data, field: bad})


def test_unhashable_values_still_resolve():
    data = {**get_gpu("h100").to_dict(), "smem_carveout_kb": [0, 8, 16, 32, 64, 100, 132, 164, 196, 228]}
    data["notes"] = {"free": "text"}
    with pytest.raises(QuizgenError):
        resolve_gpu(data)                # an unknown field, refused (not a TypeError)
