"""Words apply where they are said: over 20,000 generated problems (every cell, level and both
languages), every offered distractor's misconception holds on its problem, every "cliff" note
sits on a binding lid, a trap is named only where its family says it is present (`trap_when`),
each right option is explained by its own cell, and every number an
occupancy Answer line prints equals the answer record."""

from __future__ import annotations

import re
import time

import pytest

from quizgen.gpus import gpu_from_dict
from quizgen.grade import check_answer
from quizgen.generator import CELLS, LEVELS, family, generate_one
from quizgen.problems.applicability import Facts, applies, changes_answer, keep_applicable_notes
from quizgen.render.phrases import book, has

SEEDS = 108            # 31 cells × 3 levels × 2 languages × 108 seeds = 20,088 problems
LANGS = ("en", "hinglish")
OCC_LINE = re.compile(r"(?:([A-Z0-9]+): )?(\d+) blocks?/SM → (\d+) active warps? → "
                      r"occupancy (\d+)/(\d+) = ([\d.]+)%")


def variants(lang: str, section: str, key: str) -> set[str]:
    value = book(lang).get(section, {}).get(key, ())
    return {value} if isinstance(value, str) else set(value)


def from_template(text: str, templates: set[str]) -> bool:
    """The sentence is one of these phrases: its words up to the first `{% ... %}` block match,
    each `{{ ... }}` slot standing for what the problem's own numbers fill (the right option's
    arithmetic); a phrase without blocks matches whole."""
    for template in templates:
        head, *rest = re.split(r"\{%", template, maxsplit=1)
        words = re.split(r"\{\{.*?\}\}", head, flags=re.S)
        pattern = "(?s:.+?)".join(re.escape(w) for w in words)
        if (re.match(pattern, text) if rest else re.fullmatch(pattern, text)) and len(head) >= 10:
            return True
    return False


def check_problem(p, fam, floor_notes: set[str], correct_whys: set[str]) -> int:
    gpu = gpu_from_dict(p.gpu)
    solved = fam.solve(p.params, gpu, explain=False)
    facts = Facts(p.params, gpu, solved)
    miscs = {m.key: m for m in fam.misconceptions(p.params, gpu, solved)}
    for choice in p.choices:
        if choice.correct:
            if fam.main_answer:
                assert from_template(choice.why, correct_whys), (p.id, choice.why)
            continue
        if choice.misconception is None or fam.cell == "L-6":
            continue
        m = miscs[choice.misconception]
        assert applies(fam.misconception_when, facts, m) and changes_answer(facts, m), (p.id, m.key)
        assert has(p.lang, "misconception", m.key), (p.lang, m.key)      # never a bare name
    blocks = {v for k, v in p.answers.items() if k.startswith("blocks_per_sm")}
    blocks |= {s.result for s in p.solution.steps if s.formula in ("blocks_per_sm", "blocks_per_sm_exact")}
    for step in p.solution.steps:
        if step.note in floor_notes:
            assert step.result in blocks, (p.id, step.title, step.result, blocks)
    for name, b, a, num, den, pct in OCC_LINE.findall(p.solution.answer):
        suffix = f"_{name.lower()}" if name else ""
        assert int(b) == p.answers["blocks_per_sm" + suffix], (p.id, p.solution.answer)
        assert int(a) == int(num) == p.answers["active_warps" + suffix]
        assert abs(float(pct) / 100 - p.answers["occupancy" + suffix]) < 5e-5
    if p.choices:      # multiple choice: the right answer and three distinct, plausible slips
        assert len(p.choices) >= 4, (p.id, [c.text for c in p.choices])
        assert len({c.text for c in p.choices}) == len(p.choices), p.id
        assert sum(c.correct for c in p.choices) == 1, p.id
        assert p.mcq_stem, p.id                                       # one quantity asked
        kind = p.answer_specs.get(p.main_answer or "", {}).get("kind")
        numbers = [c.value for c in p.choices if isinstance(c.value, (int, float))]
        if kind == "fraction":
            assert all(0 <= v <= 1 for v in numbers), (p.id, numbers)
        elif kind in ("count", "bytes", "cycles"):
            assert all(v >= 0 for v in numbers), (p.id, numbers)
    if not fam.trap_applies(p.params, gpu, solved):      # a trap only where it is present
        assert p.solution.trap == "", (p.id, p.solution.trap)
    if fam.cell == "OCC-4" and "100%" in p.solution.trap:
        assert p.answers["occupancy"] == 1.0, (p.id, p.solution.trap)
    return len(p.choices)


def test_twenty_thousand_problems_say_only_what_applies():
    start = time.perf_counter()
    count = offered = 0
    for lang in LANGS:
        floor_notes = variants(lang, "note", "floor_drops")
        for cell in CELLS:
            fam = family(cell)
            # the cell's own reasons (a case of it may have its own: "correct_threads")
            whys = {v for key in book(lang).get(cell, {}) if key.startswith("correct")
                    for v in variants(lang, cell, key)} or variants(lang, "misconception", "correct")
            for level in LEVELS:
                for seed in range(SEEDS):
                    p = generate_one(cell, level=level, seed=seed, lang=lang)
                    offered += check_problem(p, fam, floor_notes, whys)
                    count += 1
    elapsed = time.perf_counter() - start
    assert count >= 20_000 and offered > 20_000
    print(f"{count} problems, {offered} options checked in {elapsed:.1f} s")


@pytest.mark.parametrize("cell", ["X-1", "OCC-3", "OCC-7", "X-2"])
def test_diagnosis_names_one_applicable_misconception_in_the_students_language(cell):
    """A wrong answer is diagnosed only by a misconception that applies and gives exactly that
    answer; the explanation is that misconception's own sentence, in the student's language."""
    fam = family(cell)
    for lang in LANGS:
        for seed in range(6):
            p = generate_one(cell, level=1, seed=seed, lang=lang)
            gpu = gpu_from_dict(p.gpu)
            solved = fam.solve(p.params, gpu)
            facts = Facts(p.params, gpu, solved)
            for m in fam.misconceptions(p.params, gpu, solved):
                for key, value in m.answers.items():
                    if key not in p.answers or not changes_answer(facts, m):
                        continue
                    result = check_answer(p, key, str(value), lang=lang)
                    if result.status != "wrong":
                        continue
                    for name in result.misconceptions:
                        other = next(x for x in fam.misconceptions(p.params, gpu, solved)
                                     if x.key == name)
                        assert applies(fam.misconception_when, facts, other) and changes_answer(facts, other), (p.id, name)
                    if result.misconceptions:
                        best = result.misconceptions[0]
                        assert result.explanation in variants(lang, "misconception", best)


def test_no_shared_memory_no_shared_memory_diagnosis():
    """X-1 draws launches without shared memory: no smem slip is offered or diagnosed there."""
    for seed in range(30):
        p = generate_one("X-1", level=1, seed=seed, lang="en")
        assert not p.params.get("smem_per_block")
        assert all(c.misconception not in ("ignore_smem", "kb_as_1000") for c in p.choices)
        for c in p.choices:
            r = check_answer(p, "occupancy", c.text)
            assert "ignore_smem" not in r.misconceptions and "kb_as_1000" not in r.misconceptions


def test_the_cliff_note_stays_only_on_binding_lids():
    from quizgen.engine.occupancy import launch_config, occupancy
    from quizgen.gpus import get_gpu

    gpu = get_gpu("textbook")
    # 256 threads, 36 registers: registers bind (7 blocks ≥ ... ), the warp lid divides whole
    res = occupancy(gpu, launch_config(192, 20, 5000), model="textbook", explain=True)
    raw = {s.key: s.note for s in res.steps}
    keep_applicable_notes(res.steps, res.limiter)
    kept = {s.key: s.note for s in res.steps}
    assert raw["blocks_by_smem"] == "floor_drops" or raw["blocks_by_regs"] == "floor_drops"
    for key, lid in (("blocks_by_regs", "registers"), ("blocks_by_smem", "shared_memory")):
        assert (kept[key] == "floor_drops") == (raw[key] == "floor_drops" and lid in res.limiter)
