"""Teaching measures over generated problems: do the levels climb, do the whys talk about the
problem in front of the student, does every multiple-choice card offer four real options?

    python bench/teaching.py                 # every cell, levels 1-3, 40 seeds, both languages
    python bench/teaching.py --cells OCC-1 OCC-4 --seeds 80

Per cell it prints: the step types level 3 has and level 1 lacks (a level that climbs has at
least one), the share of whys that contain one of their own step's numbers (target ≥ 70%), and
the problems whose options number fewer than four. Overall it prints the most frequent why's
share of all whys, per language (target ≤ 2%). ``tests/test_teaching_depth.py`` asserts the
same figures through `measure`.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from quizgen.generator import LANGS, families, generate_one  # noqa: E402
from quizgen.problems.model import Problem, SolutionStep  # noqa: E402

_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")


def step_type(step: SolutionStep) -> str:
    """What kind of step this is: its formula, or for a prose step its title without numbers."""
    return step.formula or _NUMBER.sub("#", step.title).strip()


def _numbers(value: Any) -> Iterable[float]:
    if isinstance(value, bool):
        return
    if isinstance(value, (int, float)):
        yield float(value)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _numbers(v)


def why_names_its_numbers(step: SolutionStep) -> bool:
    """True when the why contains one of the step's own numbers (a value or the result), as
    written for a person: 65536, 65,536, 0.375 and 37.5% all count for their value."""
    if not step.why:
        return False
    own = set()
    for v in [*step.values.values(), step.result]:
        for n in _numbers(v):
            own.add(round(n, 6))
            own.add(round(n * 100, 6))            # a fraction written as a percentage
    for text in _NUMBER.findall(step.why):
        try:
            if round(float(text.replace(",", "")), 6) in own:
                return True
        except ValueError:
            continue
    return False


@dataclass
class CellMeasure:
    cell: str
    climbing_steps: set[str] = field(default_factory=set)     # step types in L3 and not in L1
    whys: int = 0
    whys_with_numbers: int = 0
    mcq: int = 0
    mcq_short: list[str] = field(default_factory=list)        # problem ids with < 4 options

    @property
    def number_share(self) -> float:
        return self.whys_with_numbers / self.whys if self.whys else 1.0


@dataclass
class Measures:
    cells: dict[str, CellMeasure]
    top_why_share: dict[str, float]       # language → share of the most frequent why
    top_why: dict[str, str]


def measure(cells: Iterable[str] | None = None, seeds: int = 40,
            langs: Iterable[str] = LANGS) -> Measures:
    cells = sorted(cells or families())
    out = {c: CellMeasure(c) for c in cells}
    why_count: dict[str, Counter] = {lang: Counter() for lang in langs}
    for cell in cells:
        m = out[cell]
        kinds: dict[int, set[str]] = defaultdict(set)
        for lang in langs:
            for level in (1, 2, 3):
                for seed in range(seeds):
                    try:
                        p: Problem = generate_one(cell, level=level, seed=seed, lang=lang)
                    except Exception:          # a level with fewer candidates than seeds
                        break
                    for st in p.solution.steps:
                        kinds[level].add(step_type(st))
                        if st.why:
                            m.whys += 1
                            m.whys_with_numbers += why_names_its_numbers(st)
                            why_count[lang][st.why] += 1
                    if p.choices:
                        m.mcq += 1
                        if len(p.choices) < 4:
                            m.mcq_short.append(p.id)
        m.climbing_steps = kinds[3] - kinds[1]
    share, top = {}, {}
    for lang, counter in why_count.items():
        total = sum(counter.values())
        text, n = counter.most_common(1)[0] if counter else ("", 0)
        share[lang], top[lang] = (n / total if total else 0.0), text
    return Measures(out, share, top)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cells", nargs="*", default=None)
    ap.add_argument("--seeds", type=int, default=40)
    args = ap.parse_args(argv)
    ms = measure(args.cells, args.seeds)
    print(f"{'cell':7} {'L3 new steps':>12} {'whys w/ numbers':>16} {'MCQ < 4 options':>16}")
    for c, m in ms.cells.items():
        print(f"{c:7} {len(m.climbing_steps):>12} {m.number_share:>15.1%} "
              f"{len(m.mcq_short):>7} of {m.mcq:<6}")
    whys = sum(m.whys for m in ms.cells.values())
    with_numbers = sum(m.whys_with_numbers for m in ms.cells.values())
    print(f"\nwhys naming their step's numbers: {with_numbers / max(whys, 1):.1%} of {whys:,}")
    for lang, share in ms.top_why_share.items():
        print(f"most frequent why ({lang}): {share:.2%}  {ms.top_why[lang][:70]!r}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
