"""Every family: 200 problems per level land in their cell, are distinct, and render completely."""

from __future__ import annotations

import json
import re

import pytest

from quizgen.gpus import gpu_from_dict
from quizgen.generator import LEVELS, families, generate_one, resolve_named_gpu
from quizgen.problems.model import Problem
from quizgen.render.text import render_solution

PER_LEVEL = 200
NUMERIC = [cell for cell, fam in families().items() if fam.main_answer]
ALL = list(families())


def _norm(value):
    if isinstance(value, float):
        return round(value, 9)
    if isinstance(value, list):
        return [_norm(v) for v in value]
    if isinstance(value, dict):
        return {k: _norm(v) for k, v in value.items()}
    return value


@pytest.mark.parametrize("cell", NUMERIC)
@pytest.mark.parametrize("level", LEVELS)
def test_problems_land_in_their_cell_and_are_distinct(cell, level):
    fam = families()[cell]
    seen = set()
    for seed in range(PER_LEVEL):
        problem = generate_one(cell, level=level, seed=seed, lang="en")
        # Re-solve from the saved record alone (JSON round trip), as a grader next week would.
        record = json.loads(json.dumps(problem.to_dict()))
        gpu = gpu_from_dict(record["gpu"])
        solved = fam.solve(record["params"], gpu)
        assert fam.in_cell(record["params"], gpu, solved), (cell, level, seed, record["params"])
        assert _norm(solved.answers) == _norm(record["answers"])
        seen.add(json.dumps([record["params"], record["gpu"]["name"]], sort_keys=True))
    assert len(seen) == PER_LEVEL, f"{cell} level {level}: only {len(seen)} distinct problems"


@pytest.mark.parametrize("cell", ALL)
def test_same_seed_same_problem(cell):
    a = generate_one(cell, level=2, seed=11, lang="hinglish").to_dict()
    b = generate_one(cell, level=2, seed=11, lang="hinglish").to_dict()
    assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    c = generate_one(cell, level=2, seed=12, lang="hinglish")
    assert c.id != a["id"]


def _balanced_latex(text: str) -> bool:
    return text.count(r"\(") == text.count(r"\)") and text.count(r"\[") == text.count(r"\]") \
        and text.count("$") % 2 == 0


@pytest.mark.parametrize("cell", ALL)
@pytest.mark.parametrize("lang", ["hinglish", "en"])
def test_solution_has_every_part_in_both_languages(cell, lang):
    for level in LEVELS:
        for seed in range(3):
            p: Problem = generate_one(cell, level=level, seed=seed, lang=lang)
            sol = p.solution
            assert p.question.strip() and p.title.strip()
            assert sol.forecast.strip(), "Forecast missing"
            assert sol.steps, "no steps"
            for step in sol.steps:
                assert step.title.strip() and step.why.strip(), step
            assert sol.verify and all(line.strip() for line in sol.verify), "Verify missing"
            assert sol.answer.strip()
            # the trap box is there exactly when the cell's trap is present in these numbers
            fam = families()[cell]
            gpu = resolve_named_gpu(p.gpu["name"])
            present = fam.trap_applies(p.params, gpu, fam.solve(p.params, gpu, explain=False))
            assert bool(sol.trap.strip()) == present, (p.id, sol.trap)
            for fmt in ("txt", "md", "html"):
                text = render_solution(sol, lang, fmt, title=p.title, question=p.question)
                assert "{{" not in text and "{%" not in text
                if fmt != "txt":
                    assert _balanced_latex(text), text
            blob = json.dumps(p.to_dict(), ensure_ascii=False)
            assert "Undefined" not in blob


@pytest.mark.parametrize("cell", NUMERIC)
def test_distractors_differ_from_answer_and_each_other(cell):
    for level in LEVELS:
        for seed in range(40):
            p = generate_one(cell, level=level, seed=seed, lang="en")
            if not p.choices:
                continue
            correct = [c for c in p.choices if c.correct]
            assert len(correct) == 1
            assert correct[0].value == p.answers[p.main_answer]
            texts = [c.text for c in p.choices]
            assert len(set(texts)) == len(texts), texts
            for c in p.choices:
                if not c.correct:
                    assert c.misconception and c.why
                    assert _norm(c.value) != _norm(p.answers[p.main_answer])


def test_hinglish_reads_as_hinglish():
    words = {"hai", "karo", "kyunki", "nahi", "ka", "ki", "ke", "mein"}
    for cell in ALL:
        p = generate_one(cell, level=1, seed=0, lang="hinglish")
        text = " ".join([p.question, p.solution.forecast, p.solution.trap] + [s.why for s in p.solution.steps])
        found = {w for w in re.findall(r"[a-z]+", text.lower()) if w in words}
        assert len(found) >= 2, (cell, text[:200])


def _numbers(value):
    if isinstance(value, bool):
        return []
    if isinstance(value, (int, float)):
        return [value]
    if isinstance(value, list):
        return [x for item in value for x in _numbers(item)]
    if isinstance(value, dict):
        return [x for item in value.values() for x in _numbers(item)]
    return []


#: Parameters a question need not state: derived from others it states, or fixed constants.
DERIVED = {"threads_per_block", "flop_latency"}


@pytest.mark.parametrize("lang", ["hinglish", "en"])
def test_every_given_number_is_in_the_question(lang):
    """A student can only solve what the question states: every parameter appears in it."""
    missing = []
    for cell in NUMERIC:
        for level in LEVELS:
            for seed in range(4):
                p = generate_one(cell, level=level, seed=seed, lang=lang)
                shown = set(re.findall(r"\d+(?:\.\d+)?", p.question.replace(",", "")))
                for key, value in p.params.items():
                    if key in DERIVED:
                        continue
                    for n in _numbers(value):
                        if n in (0, 1, -1):
                            continue
                        forms = {f"{n:g}", str(n)}
                        if isinstance(n, int) and n % 1024 == 0:
                            forms.add(str(n // 1024))
                        if isinstance(n, float):
                            forms.add(f"{n * 100:g}")
                        if not forms & shown:
                            missing.append((cell, level, seed, key, n))
    assert not missing, missing[:10]


def test_to_dict_is_the_whole_record():
    import dataclasses

    for cell in ALL:
        p = generate_one(cell, level=2, seed=1, lang="en")
        full = dataclasses.asdict(p)
        if p.model is None:
            full.pop("model")
        assert p.to_dict() == full
        assert Problem.from_dict(json.loads(json.dumps(p.to_dict()))).to_dict() == p.to_dict()
