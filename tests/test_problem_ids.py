"""Problem ids: the canonical JSON written directly must equal json.dumps with sorted keys."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from quizgen.gpus import get_gpu
from quizgen.problems.base import canonical_json, problem_id

SCALARS = st.one_of(st.integers(), st.text(), st.floats(allow_nan=True), st.booleans(), st.none())
VALUES = st.recursive(SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.tuples(inner, inner),
    st.dictionaries(st.text(max_size=5), inner, max_size=4)), max_leaves=12)


@settings(max_examples=400)
@given(VALUES)
def test_canonical_json_equals_sorted_json_dumps(value):
    assert canonical_json(value) == json.dumps(value, sort_keys=True, separators=(",", ":"))


def test_problem_id_hashes_the_sorted_record():
    import hashlib

    params = {"threads_per_block": 256, "regs_per_thread": 32, "block": [16, 16, 1], "name": "é\"x"}
    record = {"cell": "OCC-2", "params": params, "gpu": "textbook", "seed": 7, "level": 2}
    text = json.dumps(record, sort_keys=True, separators=(",", ":"))
    expected = "OCC-2-" + hashlib.blake2b(text.encode(), digest_size=5).hexdigest()
    assert problem_id("OCC-2", params, get_gpu("textbook"), 7, 2) == expected
    assert problem_id("OCC-2", params, get_gpu("textbook"), 8, 2) != expected
