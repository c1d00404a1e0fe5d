"""Answer specs: every answer declared once, carried by the record, and computable from its inputs."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from quizgen.gpus import gpu_from_dict
from quizgen.generator import CELLS, LEVELS, families, family, generate_one
from quizgen.problems.specs import KINDS, AnswerSpec, order


def inputs(problem: dict, key: str) -> dict:
    """The values a spec's compute reads: earlier answers first, else the problem's givens."""
    spec = problem["answer_specs"][key]
    out = {}
    for dep in spec["depends_on"]:
        if dep != key and dep in problem["answers"]:
            out[dep] = problem["answers"][dep]
        elif dep in problem["params"]:
            out[dep] = problem["params"][dep]
    return out


def same(a, b, tolerance: float) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b or a == b
    if isinstance(a, (list, tuple)):
        return list(a) == list(b)
    tol = Fraction(repr(tolerance)) if tolerance else Fraction(0)
    exact = lambda v: Fraction(repr(v)) if isinstance(v, float) else Fraction(v)
    # Records hold floats; a compute gives the exact value: allow the float's own rounding.
    return abs(exact(a) - exact(b)) <= max(tol / 10, Fraction(1, 10**9))


@pytest.mark.parametrize("cell", CELLS)
def test_every_answer_has_a_spec_and_the_record_carries_it(cell):
    fam = family(cell)
    for level in LEVELS:
        for seed in range(4):
            p = generate_one(cell, level=level, seed=seed, lang="en").to_dict()
            assert set(p["answer_specs"]) == set(p["answers"]), (cell, level, seed)
            for key, spec in p["answer_specs"].items():
                assert spec["kind"] in KINDS
                assert set(spec) == {"kind", "unit", "format", "tolerance", "depends_on"}
                assert AnswerSpec.from_dict(spec).to_dict() == spec
                for dep in spec["depends_on"]:
                    assert dep in p["answers"] or dep in p["params"] or dep in fam.answer_specs \
                        or dep in ("smem_per_block", "dyn_smem"), (cell, key, dep)
            json.dumps(p)              # JSON-safe
    order(fam.answer_specs)           # no cycles


@pytest.mark.parametrize("cell", [c for c in CELLS if any(
    s.compute for s in family(c).answer_specs.values())])
def test_computed_answers_equal_the_record(cell):
    """The compute a spec names gives the solver's own answer from the record's earlier answers."""
    fam = family(cell)
    checked = 0
    for level in LEVELS:
        for seed in range(12):
            p = generate_one(cell, level=level, seed=seed, lang="en").to_dict()
            gpu = gpu_from_dict(p["gpu"])
            for key in p["answers"]:
                spec = fam.answer_specs[key]
                if spec.compute is None:
                    continue
                got = spec.compute(inputs(p, key), gpu)
                assert same(got, p["answers"][key], spec.tolerance), (p["id"], key, got, p["answers"][key])
                checked += 1
    assert checked > 0


def test_kinds_follow_the_declaration_not_the_name():
    """A warp index is a count, a lane share a fraction, hidable a yes/no: declared, not guessed."""
    assert family("W-A").answer_specs["warp_id"].kind == "count"
    assert family("W-E").answer_specs["hidable"].kind == "yes_no"
    assert family("X-5").answer_specs["occupancy_t4"].kind == "fraction"
    assert family("OCC-3").answer_specs["limiter"].kind == "limits"
    assert family("L-6").answer_specs["concept"].kind == "choice"


@pytest.mark.parametrize("lang", ["en", "hinglish"])
def test_every_answer_key_has_a_name_in_every_language(lang):
    """Box labels, card hints and carried-credit sentences name answers from the phrasebook,
    never by guessing from the key (``occupancy_t4`` is declared, not split at a GPU name)."""
    from quizgen.render.phrases import book

    names = book(lang).get("answer_name", {})
    missing = sorted({key for cell in CELLS for key in family(cell).answer_specs if key not in names})
    assert not missing, missing


def test_a_printed_unit_is_a_word_of_every_language_and_never_doubles_a_format():
    # Cards, sheets and LMS banks print `printed_unit` after a value: it must be a unit the
    # phrasebook can say, and empty where the written value already says what it is (37.5%, 2×).
    from quizgen.languages import LANGS
    from quizgen.render.phrases import book
    from quizgen.problems.specs import SELF_DESCRIBING_FORMATS

    seen = set()
    for fam in families().values():
        for key, spec in fam.answer_specs.items():
            unit = spec.printed_unit
            if spec.format in SELF_DESCRIBING_FORMATS:
                assert unit == "", (fam.cell, key)
            elif unit:
                seen.add(unit)
                for lang in LANGS:
                    assert unit in book(lang)["unit"], (fam.cell, key, unit, lang)
    assert {"blocks", "warps", "B"} <= seen


def test_every_numeric_kind_is_compared_and_every_count_unit_reads_as_itself():
    """The grader compares by the kinds the specs declare: a numeric spec kind the comparison did
    not know would refuse every answer of it; a count unit must read back as itself, or a right
    count in its own unit would be marked as written in another."""
    from quizgen.problems.specs import COMPARE_KINDS, COUNT_UNITS, NUMERIC_KINDS, canonical_unit

    assert NUMERIC_KINDS <= set(COMPARE_KINDS)
    assert {u: canonical_unit(u) for u in COUNT_UNITS} == {u: u for u in COUNT_UNITS}
    assert {w: canonical_unit(w) for w in ("warp", "KiB", "×", "pct", "2x")} == \
        {"warp": "warps", "KiB": "B", "×": "x", "pct": "%", "2x": None}


def test_a_record_without_specs_takes_its_family_declaration_or_its_values():
    from quizgen.problems.records import record_specs

    problem = generate_one("OCC-2", level=2, seed=7, lang="en").to_dict()
    declared = dict(family("OCC-2").answer_specs)
    bare = {"cell": "OCC-2", "answers": problem["answers"]}
    assert {k: s.to_dict() for k, s in record_specs(bare).items()} == \
        {k: declared[k].to_dict() for k in problem["answers"]}
    unknown = {"cell": "NOPE-9", "answers": {"n": 3, "ok": True, "why": ["smem"], "at": [1, 2],
                                             "pick": "a"}}
    assert {k: s.kind for k, s in record_specs(unknown).items()} == \
        {"n": "real", "ok": "yes_no", "why": "limits", "at": "coords", "pick": "choice"}
