"""Problem ids: a hash of the sorted canonical JSON of the record, the same for the same inputs."""

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


# Ids of fixed inputs, as the hash of json.dumps(sort_keys=True, separators=(",", ":")) gave them
# when the canonical JSON was still written by hand: a saved deck or manifest keeps its ids.
FIXED_IDS = [
    (("OCC-2", {"threads_per_block": 256, "regs_per_thread": 40, "smem_per_block": 0}, "textbook",
      0, 1), "OCC-2-9b7cc25afb"),
    (("W-B", {"block": [200, 1, 1], "threads_per_block": 200}, "textbook", 3, 2), "W-B-4f1db5b0b8"),
    (("OCC-7", {"threads_per_block": 256, "regs_per_thread": 32, "smem_per_block": 0,
                "grid_blocks": 1000, "num_sms": 108}, "a100", 17, 3), "OCC-7-9bf62b3c24"),
    (("L-1", {"latency": 400, "work": 20.5, "exact": True, "name": "é\"x", "none": None}, "h100",
      2, 1), "L-1-d5a42aa33a"),
]


def test_ids_of_fixed_inputs_never_change():
    for (cell, params, gpu, seed, level), expected in FIXED_IDS:
        assert problem_id(cell, params, get_gpu(gpu), seed, level) == expected



# ---------------------------------------------------------------------------------------------
# Problems that do not depend on the GPU: one identity on every GPU that agrees on what they read

import pytest  # noqa: E402

from quizgen.gpus import preset_names  # noqa: E402
from quizgen.generator import CELLS, generate_one  # noqa: E402
from quizgen.problems import LEVELS, draw, family, resolve_named_gpu  # noqa: E402
from quizgen.problems.identity import GPU_FACTS, gpu_facts, identity_gpu  # noqa: E402
from quizgen.render.choices import build_choices  # noqa: E402
from quizgen.render.writers import writer_for  # noqa: E402

SEEDS = range(6)


class ReadsOf:
    """A GPU that records which of its facts are read (its name aside)."""

    def __init__(self, gpu):
        object.__setattr__(self, "_gpu", gpu)
        object.__setattr__(self, "read", set())

    def __getattr__(self, name):
        if name != "name":
            self.read.add(name)
        return getattr(self._gpu, name)


def listed():
    return [(cell, level) for cell in GPU_FACTS for level in LEVELS
            if gpu_facts(cell, level) is not None]


#: Salts of the phrase choices: a cell's sentences come in variants, and one may name the GPU
SALTS = [f"X-{n}-{n:010d}" for n in range(6)]


def words(cell, params, gpu, langs=("en", "hinglish")):
    """Everything a problem shows (answers, title, question, solution, options, figure) in
    every language and phrase variant (the salts fixed): what differs is what the GPU changes."""
    fam = family(cell)
    solved = fam.solve(params, gpu, explain=True)
    writer = writer_for(fam)
    out = [solved.answers, fam.figure(params, gpu, solved)]
    for lang in langs:
        for salt in SALTS:
            out.append(writer.write(params, gpu, solved, lang, salt))
            out.append(build_choices(fam, solved, fam.applicable_misconceptions(params, gpu, solved),
                                     lang, salt) if fam.main_answer else
                       writer.choices(params, gpu, solved, lang, salt))
    return repr(out)


def agreeing(cell, level):
    home = resolve_named_gpu(family(cell).gpu_choices(level)[0])
    facts = gpu_facts(cell, level)
    return home, [resolve_named_gpu(n) for n in preset_names()
                  if n != home.name and all(getattr(resolve_named_gpu(n), f) == getattr(home, f)
                                            for f in facts)]


@pytest.mark.parametrize("cell, level", listed())
def test_a_listed_cell_reads_only_its_facts_and_shows_the_same_words_on_every_agreeing_gpu(
        cell, level):
    assert len(family(cell).gpu_choices(level)) == 1          # one own GPU to take the id of
    home, others = agreeing(cell, level)
    assert others, "no preset agrees with the cell's own GPU: nothing to share an identity with"
    for seed in SEEDS:
        gpu, params = draw(cell, level=level, seed=seed)
        assert gpu.name == home.name
        probe = ReadsOf(gpu)
        family(cell).solve(params, probe, explain=True)
        assert probe.read <= set(gpu_facts(cell, level)), (cell, level, probe.read)
        shown = words(cell, params, home)
        for other in others:
            assert words(cell, params, other) == shown, (cell, level, seed, other.name)


def test_every_other_cell_depends_on_its_gpu():
    """A cell not listed reads a GPU fact that some preset changes, or names its GPU in its
    words: there a problem on another GPU is another problem (a new cell that depends on no
    GPU fails here until it is listed in GPU_FACTS)."""
    for cell in CELLS:
        for level in LEVELS:
            if gpu_facts(cell, level) is not None:
                continue
            assert any(_depends(cell, level, seed) for seed in SEEDS), (cell, level)


def _depends(cell, level, seed):
    gpu, params = draw(cell, level=level, seed=seed)
    shown = words(cell, params, gpu)
    for name in preset_names():
        try:
            if words(cell, params, resolve_named_gpu(name)) != shown:
                return True
        except Exception:                       # a launch this GPU cannot run: another problem
            return True
    return False


@pytest.mark.parametrize("cell, level", listed())
def test_a_problem_that_does_not_depend_on_the_gpu_keeps_its_default_id_on_another(cell, level):
    home, others = agreeing(cell, level)
    for seed in SEEDS[:3]:
        own = generate_one(cell, level=level, seed=seed, lang="en")
        for other in others[:4]:
            if draw(cell, level=level, seed=seed, gpu=other.name)[1] != own.params:
                continue                        # this GPU's pool gives another launch
            there = generate_one(cell, level=level, seed=seed, lang="en", gpu=other.name)
            assert there.gpu["name"] == other.name and there.id == own.id
            assert (there.question, there.solution, there.choices) == \
                (own.question, own.solution, own.choices)
            assert identity_gpu(cell, level, there.gpu) == home.name


def test_a_problem_that_depends_on_the_gpu_has_another_id_on_another_gpu():
    own = generate_one("OCC-6", level=1, seed=3, lang="en")
    t4 = generate_one("OCC-6", level=1, seed=3, lang="en", gpu="t4")     # a 32-warp SM
    assert t4.gpu["max_warps_per_sm"] != own.gpu["max_warps_per_sm"] and t4.id != own.id
    occ = [generate_one("OCC-2", level=1, seed=3, gpu=g).id for g in (None, "a100")]
    assert occ[0] != occ[1]
