"""A scan of ≥ 20,000 generated problems in both languages for what a student would trip over:
raw identifiers in prose, "1 blocks"-style plurals, and multiple-choice options that rule
themselves out (a fraction outside [0, 1], a negative count) or repeat each other."""

from __future__ import annotations

import re
import time

from quizgen.generator import families, generate_one

#: snake_case words; the thread-coordinate symbols t_x, t_y, t_z are the notes' notation, and
#: K-1 names real kernels and their nvcc architectures (vector_add, sm_80) on purpose.
IDENT = re.compile(r"(?<![\w{<])([a-z][a-z0-9]*_[a-z0-9_]+)\b")
NOTATION = {"t_x", "t_y", "t_z"}
PLURAL = re.compile(r"(?<![\d.,/])(?<![+\u2212-] )\b1 (cycles|blocks|warps|threads|SMs|schedulers|waves|lanes|"
                    r"registers|instructions|operations|passes|branches|bytes|slots)\b")
SEEDS = 112           # cells × 3 levels × 112 seeds × 2 languages ≥ 20,000 problems


#: A fenced block of a question is code (a kernel, its launch), read as code, not prose.
FENCED = re.compile(r"```.*?```", re.S)


def texts_of(p) -> list[str]:
    s = p.solution
    out = [p.title, FENCED.sub("", p.question), s.forecast, s.answer, s.trap, *s.verify]
    out += [x for step in s.steps for x in (step.title, step.why, step.note or "")]
    out += [x for c in p.choices for x in (c.text, c.why)]
    return out


def test_twenty_thousand_problems_read_cleanly():
    start, count, few = time.perf_counter(), 0, {}
    problems = []
    for cell in families():
        for level in (1, 2, 3):
            for seed in range(SEEDS):
                for lang in ("en", "hinglish"):
                    p = generate_one(cell, level=level, seed=seed, lang=lang)
                    count += 1
                    for text in texts_of(p):
                        for m in IDENT.finditer(text or ""):
                            if m.group(1) not in NOTATION and cell != "K-1":
                                problems.append((p.id, lang, "identifier", m.group(1), text[:120]))
                        for m in PLURAL.finditer(text or ""):
                            problems.append((p.id, lang, "plural", m.group(0), text[:120]))
                    if p.choices:
                        texts = [c.text for c in p.choices]
                        assert len(set(texts)) == len(texts), (p.id, texts)
                        assert sum(c.correct for c in p.choices) == 1, p.id
                        assert len(p.choices) >= 2, p.id
                        unit = p.units.get(p.main_answer, "") if p.main_answer else ""
                        for c in p.choices:
                            v = c.value
                            if isinstance(v, (int, float)) and not isinstance(v, bool):
                                assert v >= 0, (p.id, c.text)
                                if unit == "fraction":
                                    assert 0 <= v <= 1, (p.id, c.text)
                        if len(p.choices) < 4:
                            few[cell] = few.get(cell, 0) + 1
    assert count >= 20_000
    assert problems == [], problems[:25]
    elapsed = time.perf_counter() - start
    print(f"{count} problems scanned in {elapsed:.1f} s; MCQs with < 4 options by cell: {few}")
