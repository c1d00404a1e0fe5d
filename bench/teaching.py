"""Teaching measures over generated problems: do the levels climb, do the whys talk about the
problem in front of the student, does every multiple-choice card offer four real options?

    python bench/teaching.py                 # every cell, levels 1-3, 40 seeds, both languages
    python bench/teaching.py --cells OCC-1 OCC-4 --seeds 80

Per cell it prints: the step types level 3 has and level 1 lacks (a level that climbs has at
least one), the share of whys that contain one of their own step's numbers (target ≥ 70%), per
language the share of whys that give a reason and the share that only restate their formula
with numbers (`why_kind`; target: reasons ≥ 90% in every cell and language), and the problems
whose options number fewer than four. Overall it prints the most frequent why's
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

from quizgen.generator import families, generate_one  # noqa: E402
from quizgen.languages import LANGS  # noqa: E402
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


# --- Does a why give a reason? -------------------------------------------------------------
# A why gives a reason when it says *what in the hardware or the rule makes the step necessary*,
# beyond its own arithmetic. Measured per sentence, once its numbers, symbols and the words of
# the step's own formula name are taken out: a reason marker, and a mechanism term on the side
# of the marker that carries the cause:
#   - a consequence marker ("so", "toh", "isliye") takes its cause from the words before it,
#   - a cause marker ("because", "since", "kyunki", "chahe") from the words after it,
#   - the modal of a rule ("cannot", "must", "nahi ho sakta", "chahiye") from its sentence.
# Mechanism terms name the hardware and its rules (a reservation, a pool, a cap, whole warps,
# masked lanes, a scheduler that issues, blocks handed out one SM at a time, ...), never the
# outcome a step computes (idle, wasted, rounded, left over). So "Occupancy = 8/32 = 25%." and
# "16 warps give 512 lanes for 512 threads, so 0 lanes idle." fail (no cause before the "so"),
# "This step matters, so do it carefully." fails (no mechanism), and "Registers are reserved
# per block, because a block cannot start until all its threads have theirs" passes. Both
# vocabularies are per language; a new language of the phrasebook needs its own (tested).

#: lang → reason markers by where their cause stands: ``after`` the marker ("because X"),
#: ``before`` it ("X, so"), or anywhere in the ``sentence`` (the modal of a rule).
REASON_MARKERS: dict[str, dict[str, tuple[str, ...]]] = {
    "en": {
        "after": ("because", "since", "so that", "as long as", "unless", "until", "whether or not",
                  "even", "whatever", "however", "if", "once", "as soon as", "while"),
        "before": ("so", "hence", "therefore", "thus", "which is why", "that is why"),
        "sentence": ("cannot", "can't", "can only", "never", "must", "has to", "have to", "need",
                     "needs", "no more than", "at most", "at least", "only if", "only when",
                     "only after", "still", "nor", "instead of", "rather than", "otherwise",
                     "else", "not until"),
    },
    "hinglish": {
        "after": ("kyunki", "kyonki", "taaki", "chahe", "jab", "agar", "kitna bhi", "kitne bhi",
                  "kuch bhi", "jab tak"),
        "before": ("toh", "isliye", "isi wajah se"),
        "sentence": ("padta", "padte", "padti", "padega", "padegi", "chahiye", "sakta", "sakte",
                     "sakti", "kabhi", "bina", "tab bhi", "phir bhi", "warna", "varna",
                     "zyada se zyada", "kam se kam", "ke baad hi", "tabhi"),
    },
}

#: lang → mechanism terms (stems: "reserv" covers reserve, reserved, reservation): the hardware
#: and its rules, not the names or outcomes of the quantities a step computes.
MECHANISMS: dict[str, tuple[str, ...]] = {
    "en": ("reserv", "pool", "allocat", "granular", "whole", "cap", "ceiling", "limit", "lid",
           "hardware", "schedul", "issu", "resident", "host", "hold", "fit", "share", "compet",
           "lane", "mask", "lockstep", "serial", "one after another", "pass", "stall", "wait",
           "latenc", "hide", "in flight", "outstanding", "slot", "wave", "distribut",
           "breadth-first", "spread", "overlap", "pipelin", "bandwidth", "roof", "feed", "alu",
           "register file", "sub-partition", "carveout", "carve-out", "opt-in", "barrier",
           "bundle", "boundar", "straddle", "align", "row-major", "fastest", "place value",
           "order", "at once", "together", "independent", "unit", "multiple of", "rule",
           "driver", "l1", "l2", "dram", "memory", "bound", "block by block", "run out",
           "runs out", "one per sm", "hand out", "hands out", "handed out", "deal",
           "consecutive", "full warp", "all its", "all of its", "path"),
    "hinglish": ("reserv", "pool", "allocat", "granular", "poor", "adhoor", "aadh", "cap",
                 "ceiling", "limit", "lid", "hardware", "schedul", "issu", "resident", "host",
                 "rakh", "fit", "hissa", "hisse", "baant", "bant", "compet", "lane", "mask",
                 "lockstep", "serial", "ek ke baad ek", "pass", "stall", "wait", "intezaar",
                 "latenc", "chhup", "in flight", "outstanding", "slot", "wave", "distribut",
                 "breadth-first", "overlap", "pipelin", "bandwidth", "roof", "alu",
                 "register file", "sub-partition", "carveout", "carve-out", "opt-in", "barrier",
                 "bundle", "boundar", "straddle", "align", "row-major", "fastest", "place value",
                 "order", "ek saath", "independent", "unit", "multiple", "rule", "niyam",
                 "driver", "l1", "l2", "dram", "memory", "bound", "takra", "jagah", "khatam",
                 "baari", "ek-ek", "consecutive", "lagatar", "apne saare", "path"),
}

_ARITHMETIC = re.compile(r"\d|_|[=÷×⌊⌋⌈⌉≤≥<>+−·/∞η→]")
_TOKEN = re.compile(r"[^\W\d_]+(?:[-'][^\W\d_]+)*")
#: Where a cause stops: a sentence's end, or a colon (what follows a colon is the arithmetic or
#: its reading, not the cause of what precedes it); a semicolon or a dash does not stop it.
_SENTENCE = re.compile(r"(?<!\d)[.:!?]+|[.:!?]+(?!\d)")


def _words(text: str) -> list[str]:
    """`text` lowercased as words, without numbers, symbols, and the tokens that hold a digit,
    an underscore or an operator (B_max, R_SM, ⌊65,536/8,192⌋: a formula's own writing)."""
    return _TOKEN.findall(" ".join(t for t in text.split() if not _ARITHMETIC.search(t)).lower())


def _at(words: list[str], phrase: str) -> list[int]:
    """Where the words of `phrase` start in `words`."""
    p = phrase.split()
    return [i for i in range(len(words) - len(p) + 1) if words[i:i + len(p)] == p]


def _names_mechanism(words: list[str], lang: str) -> bool:
    line = " " + " ".join(words)
    return any(" " + term in line for term in MECHANISMS[lang])


def gives_reason(why: str, lang: str, formula: str | None = None) -> bool:
    """True when `why` gives a reason beyond its own arithmetic: in one of its sentences, with
    numbers, symbols and the words of the step's `formula` name (``blocks_by_regs`` → blocks, by,
    regs) taken out, a reason marker of `lang` has a mechanism term on its cause's side. The one
    criterion of the benchmark and the tests."""
    own = set((formula or "").lower().split("_"))
    for sentence in _SENTENCE.split(why):
        words = [w for w in _words(sentence) if w not in own]
        for side, markers in REASON_MARKERS[lang].items():
            for marker in markers:
                for i in _at(words, marker):
                    cause = (words[i + len(marker.split()):] if side == "after" else
                             words[:i] if side == "before" else
                             words[:i] + words[i + len(marker.split()):])
                    if _names_mechanism(cause, lang):
                        return True
    return False


def why_gives_reason(step: SolutionStep, lang: str) -> bool:
    """True when the why of `step` gives a reason (`gives_reason`), not its formula again."""
    return bool(step.why) and gives_reason(step.why, lang, step.formula)


#: A number joined to an operator, or a floor/ceiling: the why writes out arithmetic.
_RESTATED = re.compile(r"\d\S*\s*[=÷×/−+<>≤≥]|[⌊⌈]")


def why_kind(step: SolutionStep, lang: str) -> str:
    """``reason`` (`why_gives_reason`), ``formula`` (arithmetic with no reason: the formula
    restated with numbers) or ``prose`` (words with neither: a claim without its reason)."""
    if why_gives_reason(step, lang):
        return "reason"
    return "formula" if _RESTATED.search(step.why) else "prose"


@dataclass
class CellMeasure:
    cell: str
    climbing_steps: set[str] = field(default_factory=set)     # step types in L3 and not in L1
    whys: int = 0
    whys_with_numbers: int = 0
    kinds: dict[str, Counter] = field(default_factory=lambda: defaultdict(Counter))  # lang → kind → n
    mcq: int = 0
    mcq_short: list[str] = field(default_factory=list)        # problem ids with < 4 options

    @property
    def number_share(self) -> float:
        return self.whys_with_numbers / self.whys if self.whys else 1.0

    def share(self, kind: str, lang: str) -> float:
        """The share of `lang`'s whys in this cell that are of `kind` (see `why_kind`)."""
        n = sum(self.kinds[lang].values())
        return self.kinds[lang][kind] / n if n else (1.0 if kind == "reason" else 0.0)


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
                            m.kinds[lang][why_kind(st, lang)] += 1
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
    langs = list(LANGS)
    head = "".join(f" {'reason ' + lang[:5]:>12} {'formula ' + lang[:5]:>13}" for lang in langs)
    print(f"{'cell':7} {'L3 new steps':>12} {'whys w/ numbers':>16}{head} {'MCQ < 4 options':>16}")
    for c, m in ms.cells.items():
        cols = "".join(f" {m.share('reason', lang):>12.1%} {m.share('formula', lang):>13.1%}"
                       for lang in langs)
        print(f"{c:7} {len(m.climbing_steps):>12} {m.number_share:>15.1%}{cols} "
              f"{len(m.mcq_short):>7} of {m.mcq:<6}")
    whys = sum(m.whys for m in ms.cells.values())
    with_numbers = sum(m.whys_with_numbers for m in ms.cells.values())
    print(f"\nwhys naming their step's numbers: {with_numbers / max(whys, 1):.1%} of {whys:,}")
    for lang in langs:
        kinds = sum((m.kinds[lang] for m in ms.cells.values()), Counter())
        n = max(sum(kinds.values()), 1)
        low = min(ms.cells.values(), key=lambda m: m.share("reason", lang))
        print(f"whys giving a reason ({lang}): {kinds['reason'] / n:.1%}, formula restated "
              f"{kinds['formula'] / n:.1%}, other prose {kinds['prose'] / n:.1%} of {n:,}; "
              f"lowest cell {low.cell} {low.share('reason', lang):.1%}")
    for lang, share in ms.top_why_share.items():
        print(f"most frequent why ({lang}): {share:.2%}  {ms.top_why[lang][:70]!r}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
