"""Checks a careful reader makes of every sentence of a generated problem, written once over the
problem record (its texts, params, answers, steps and answer specs), never per cell, so a new cell
is read by all of them.

Each check returns the faults it finds as short strings (an empty list: none). Classes:

* `stated_equations_hold`: every equation a solution states (``⌊65,536/(256·65)⌋ = 3``) is true.
* `right_option_reaches_its_value`: the reason under the right option works the problem with its
  own numbers and arrives at the option's value, with no rule left in symbols.
* `halving_claims_hold`: "halves", "exactly half", "less than half" next to a "from A to B".
* `split_claims_match_the_paths`: "a 30/1/1 split" has one part per taken path, summing to the
  warp's lanes.
* `roofline_bytes_cross_dram`: a roofline divides by the bytes that cross the DRAM interface,
  never by bytes read from shared memory.
* `a_failed_launch_names_its_hard_limit`: a block over the most shared memory any block may
  take fails for that reason, not for the 1 KB reserve.
* `a_limit_named_as_a_cause_is_passed`: a per-block limit blamed for a failed launch is
  exceeded by the block's need, as the sentence states it.
* `design_values_show_their_arithmetic`: the exact design value is worked out (share, unit,
  reserve), not only stated.
* `verify_thresholds_are_the_problems`: a Verify line compares with numbers of the problem.
* `no_glitch`: the named slips of wording, per language ("its 1 are free", "1 block fit",
  "min(4,854, 40)", "batti hain", ...).
* `steps_do_what_their_titles_say`: no step titled as deciding is explained as deciding
  nothing, and a what-if title names its quantity.
* `step_titles_are_distinct`: no solution repeats a step's title.
* `the_main_answer_is_asked`: a problem with a main answer holds it and has the one-answer stem
  that asks it.
"""

from __future__ import annotations

import re
from typing import Callable, Iterator

from quizgen.problems.model import Problem
from sentence_arithmetic import equations, false_equations

Check = Callable[[Problem], list[str]]
CHECKS: list[Check] = []


def check(fn: Check) -> Check:
    CHECKS.append(fn)
    return fn


def solution_texts(p: Problem) -> Iterator[tuple[str, str]]:
    """(where, text) for every sentence the solution states as true: whys, notes, Verify lines,
    the answer, the trap and the right option's reason."""
    sol = p.solution
    for i, st in enumerate(sol.steps, 1):
        yield f"step {i} why", st.why
        if st.note:
            yield f"step {i} note", st.note
    for line in sol.verify:
        yield "verify", line
    yield "answer", sol.answer
    if sol.trap:
        yield "trap", sol.trap
    for c in p.choices:
        if c.correct:
            yield "right option", c.why


def every_text(p: Problem) -> Iterator[tuple[str, str]]:
    """Every text a reader sees: the question, titles, stems and every option besides."""
    yield "question", p.question
    yield "forecast", p.solution.forecast
    for i, st in enumerate(p.solution.steps, 1):
        yield f"step {i} title", st.title
    yield from solution_texts(p)
    for c in p.choices:
        if not c.correct:
            yield "option", f"{c.text}: {c.why}"
    if p.mcq_stem:
        yield "stem", p.mcq_stem


def sentences(text: str) -> list[str]:
    """`text` cut into sentences (a decimal point does not end one)."""
    return [s for s in re.split(r"(?<!\d)[.;!?](?!\d)|[.;!?](?=\s|$)", text) if s.strip()]


# -------------------------------------------------------------------------------------------
# The arithmetic a sentence states


@check
def stated_equations_hold(p: Problem) -> list[str]:
    return [f"{where}: {e} is false in {text!r}" for where, text in solution_texts(p)
            for e in false_equations(text)]


#: A rule written in symbols (R_SM, ⌈grid/slots⌉, 32·r): it cannot be held to the numbers.
_SYMBOLIC = re.compile(r"[A-Za-z]+_[A-Za-z]+|[⌊⌈][^⌋⌉\d]*[A-Za-z][^⌋⌉]*[⌋⌉]|\b\d*[A-Za-z]\s*[·×]\s*\w|"
                       r"\w\s*[·×]\s*[A-Za-z]\b")

#: A function the arithmetic names (min, max): a word, but not a symbol.
_FUNCTION = re.compile(r"\b(?:min|max)\(")


def _scalar(value) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


@check
def right_option_reaches_its_value(p: Problem) -> list[str]:
    right = next((c for c in p.choices if c.correct), None)
    if right is None or not p.main_answer:
        return []
    found = equations(right.why)
    faults = []
    if _SYMBOLIC.search(_FUNCTION.sub("(", right.why)):
        faults.append(f"right option states a rule in symbols: {right.why!r}")
    values = [e.right_value for e in found]
    want = right.value
    if isinstance(want, (list, tuple)):
        missing = [v for v in want if isinstance(v, (int, float)) and v
                   and not any(abs(v - x) < 1e-9 for x in values)]
        if missing:
            faults.append(f"right option {right.text} never arrives at {missing}: {right.why!r}")
        return faults
    target = _scalar(want)
    if target is None:
        return faults
    if not any(e.right_value == target or abs(e.right_value - target) <= 1e-4 * max(1, abs(target))
               or e.holds and abs(e.left_value - target) <= 1e-9 * max(1, abs(target))
               for e in found):
        faults.append(f"right option {right.text} is not reached by its reason: {right.why!r}")
    return faults


# -------------------------------------------------------------------------------------------
# Claims in words, recomputed from the numbers beside them

#: (pattern of the claim, relation a "from A to B" pair must satisfy, its name)
_HALVING = [
    (re.compile(r"\bless than half\b|aadhe se kam", re.I), lambda a, b: 2 * b < a, "less than half"),
    (re.compile(r"\bmore than half\b|aadhe se zyada", re.I), lambda a, b: 2 * b > a, "more than half"),
    (re.compile(r"\b(?:halves|halved|exactly half|cut in half)\b|theek aadh|aadh[aei] ho ja|"
                r"aadha khaali|half empty", re.I), lambda a, b: 2 * b == a, "half"),
]
_PAIR = re.compile(r"from ([\d,]+) to ([\d,]+)|([\d,]+) se ([\d,]+)\b|([\d,]+) → ([\d,]+)")


def _number(text: str) -> float:
    return float(text.replace(",", ""))


@check
def halving_claims_hold(p: Problem) -> list[str]:
    faults = []
    for where, text in solution_texts(p):
        for sentence in sentences(text):
            for pattern, holds, name in _HALVING:
                if not pattern.search(sentence):
                    continue
                pairs = [[g for g in m.groups() if g] for m in _PAIR.finditer(sentence)]
                if not pairs:
                    faults.append(f"{where}: says {name} with no numbers to show it: {sentence!r}")
                elif not any(holds(_number(a), _number(b)) for a, b in pairs):
                    faults.append(f"{where}: says {name}, but {pairs}: {sentence!r}")
                break
    return faults


#: A sum said in words ("adding 29 + 32 … would give 72", "29 + 32 jodne se 72 cycles aate"):
#: its terms, then what it is said to give (with a number the terms are added to, "to the 11");
#: a sum written out ("would give 11 + 29 + 32 = 72") is left to `stated_equations_hold`.
_WORDED_SUM = re.compile(r"\b[Aa]dding (?:[^\d.;]*?)(\d[\d,]*(?:\s*\+\s*\d[\d,]*)*)(?![\d,])"
                         r"(?:[^.;=\d]*?\bto [^.;=\d]*?(\d[\d,]*))?[^.;=\d]*?\bwould give (\d[\d,]*)"
                         r"(?![\d,])(?!\s*\+)|"
                         r"(\d[\d,]*(?:\s*\+\s*\d[\d,]*)*)(?![\d,])[^.;=\d]*?(?:\b(\d[\d,]*) mein )?"
                         r"jodne se (\d[\d,]*)(?![\d,])(?!\s*\+)")


@check
def sums_in_words_add_up(p: Problem) -> list[str]:
    """A sum stated in words gives what its terms add up to: "adding 29 + 32 for the untaken
    paths would give 72" is false (29 + 32 = 61; the 72 counts the taken path's 11 too)."""
    faults = []
    for where, text in solution_texts(p):
        for m in _WORDED_SUM.finditer(text):
            terms, onto, said = (m.group(1), m.group(2), m.group(3)) if m.group(3) else \
                (m.group(4), m.group(5), m.group(6))
            total = sum(_number(t) for t in terms.split("+")) + (_number(onto) if onto else 0)
            if abs(total - _number(said)) > 1e-9:
                faults.append(f"{where}: {terms}{f' onto {onto}' if onto else ''} is {total:g}, "
                              f"said to give {said}: {m.group(0)!r}")
    return faults


_SPLIT = re.compile(r"\b(\d+(?:\s*/\s*\d+)+) split\b|\bsplit (?:of |ke saath )?(\d+(?:\s*/\s*\d+)+)|"
                    r"lanes (\d+(?:\s*/\s*\d+)+)\b")


@check
def split_claims_match_the_paths(p: Problem) -> list[str]:
    """A split named as an alternative to this warp's has one part per path this warp takes and
    its parts fill the warp's lanes (a 31/1 split runs 2 passes, not the 3 of three paths)."""
    branches = p.params.get("branches")
    if not branches:
        return []
    taken = [b for b in branches if b["lanes"] > 0]
    lanes = sum(b["lanes"] for b in branches)
    faults = []
    for where, text in solution_texts(p):
        for m in _SPLIT.finditer(text):
            parts = [int(x) for x in re.split(r"\s*/\s*", next(g for g in m.groups() if g))]
            if len(parts) != len(taken) or sum(parts) != lanes or 0 in parts:
                faults.append(f"{where}: the split {m.group(0)!r} is not one of this warp's "
                              f"{len(taken)} taken paths over {lanes} lanes: {text!r}")
    return faults


#: Bytes said to come from shared memory, in the question ("8 B from shared memory",
#: "8 B read from shared memory", "shared memory se 8 B").
_SMEM_BYTES = re.compile(r"([\d,]+) B (?:read )?from shared memory|([\d,]+) B (?:of )?shared-memory"
                         r"|shared memory se ([\d,]+) B|([\d,]+) B shared memory se")


@check
def roofline_bytes_cross_dram(p: Problem) -> list[str]:
    """The roofline's bytes are the bytes that cross the DRAM interface: a step that divides
    FLOPs by bytes against the GPU's memory bandwidth must not count bytes the question says
    come from shared memory (on-chip traffic, with its own, much higher roof)."""
    roof = [st for st in p.solution.steps if st.formula in ("bytes_moved", "arithmetic_intensity")]
    if not roof:
        return []
    smem = {_number(g) for m in _SMEM_BYTES.finditer(p.question) for g in m.groups() if g}
    faults = []
    for st in roof:
        counted = {float(v) for k, v in st.values.items() if k in ("b_ld", "b_st", "B_mem", "b")
                   and isinstance(v, (int, float))}
        if counted & smem:
            faults.append(f"{st.title!r} divides by {sorted(counted & smem)} B the question reads "
                          f"from shared memory, against the DRAM bandwidth")
    return faults


@check
def a_failed_launch_names_its_hard_limit(p: Problem) -> list[str]:
    """A block that asks for more shared memory than any block may take, even opted in, fails
    for that reason: an explanation of its failure names that maximum, never only the 1 KB
    reserve or a rounding."""
    asked = p.params.get("smem_per_block", 0) + p.params.get("dyn_smem", 0)
    most = p.gpu.get("smem_per_block_optin") or 0
    if not asked or not most or asked <= most:
        return []
    text = p.solution.answer
    if f"{most:,}" in text or "0 blocks" not in text and "no block" not in text \
            and "koi block" not in text:
        return []
    return [f"answer: {asked:,} B is over the {most:,} B any block may take, but the answer "
            f"does not say so: {text!r}"]


#: "may use at most L … and this one needs N": the limit named as the reason a launch fails.
_LIMIT_AND_NEED = re.compile(
    r"at most ([\d,]+) (?:B of shared memory|registers)[^()]*?(?:\(\+ [\d,]+ B reserved\))?"
    r"[^()]*?(?:needs |: )([\d,]+)(?: B)? \(|"
    r"zyada se zyada ([\d,]+) (?:B shared memory|registers)[^()]*?(?:\(\+ [\d,]+ B reserved\))?"
    r"[^()]*?(?:isse |: )([\d,]+)(?: B)?(?: chahiye)? \(")


@check
def a_limit_named_as_a_cause_is_passed(p: Problem) -> list[str]:
    """A per-block limit given as the reason a launch fails is one the block passes: "at most
    65,536 registers and this one needs 59,904" explains nothing."""
    faults = []
    for where, text in solution_texts(p):
        for m in _LIMIT_AND_NEED.finditer(text):
            limit, need = (g for g in m.groups() if g)
            if _number(need) <= _number(limit):
                faults.append(f"{where}: needs {need} within the limit {limit}: {m.group(0)!r}")
    return faults


_DESIGN = re.compile(r"most that keeps \d+ blocks? is ([\d,]+) B per block[^.]*|"
                     r"rakhne wala sabse bada value ([\d,]+) B per block[^.]*")


@check
def design_values_show_their_arithmetic(p: Problem) -> list[str]:
    """The most shared memory per block that keeps a target on the real chip is shown worked out
    (the share, the allocation unit, the reserve), arriving at the value it states."""
    faults = []
    for m in _DESIGN.finditer(p.solution.answer):
        value = _number(m.group(1) or m.group(2))
        if not any(abs(e.right_value - value) < 0.5 and e.holds for e in equations(m.group(0))):
            faults.append(f"answer: {value:,.0f} B stated without the arithmetic that gives it: "
                          f"{m.group(0)!r}")
    return faults


_COMPARISON = re.compile(r"([\d,.]+%?)\s*(?:warps\s*)?[≤≥<>]\s*([\d,.]+)(%?)")


def _known_numbers(p: Problem) -> set[float]:
    """Every number the problem gives or computes outside its Verify lines (params, answers,
    the GPU, the steps' values and results, the numbers its question, whys and answer write),
    each also as a percentage."""
    out: set[float] = set()

    def add(value) -> None:
        if isinstance(value, bool):
            return
        if isinstance(value, (int, float)):
            out.add(round(float(value), 6))
            out.add(round(float(value) * 100, 6))
        elif isinstance(value, (list, tuple)):
            for v in value:
                add(v)
        elif isinstance(value, dict):
            for v in value.values():
                add(v)

    for source in (p.params, p.answers, p.gpu):
        add(source)
    for st in p.solution.steps:
        add(st.values)
        add(st.result)
    texts = [p.question, p.solution.answer, *(st.why for st in p.solution.steps),
             *(st.note for st in p.solution.steps), *(st.result for st in p.solution.steps
                                                       if isinstance(st.result, str))]
    for text in texts:
        for n in re.findall(r"\d[\d,]*(?:\.\d+)?", text):
            out.add(round(_number(n), 6))
    return out


@check
def verify_thresholds_are_the_problems(p: Problem) -> list[str]:
    """A Verify line that holds a number against a bound takes the bound from the problem (the
    SM's cap, a step's result) or works it out in the same line, never from nowhere
    ("occupancy 18.75% ≤ 25% ✓")."""
    known = None
    faults = []
    for line in p.solution.verify:
        for m in _COMPARISON.finditer(line):
            bound = m.group(2).rstrip(".,")
            if not bound:
                continue
            value = round(_number(bound), 6)
            if known is None:
                known = _known_numbers(p)
            worked = {round(e.right_value * (100 if m.group(3) else 1), 6) for e in equations(line)}
            if value not in known and value not in worked:
                faults.append(f"verify: {m.group(0)!r} compares with {bound}{m.group(3)}, a number "
                              f"the problem never gives: {line!r}")
    return faults


# -------------------------------------------------------------------------------------------
# Wording

#: (language or None for every language, pattern, what is wrong)
GLITCHES: list[tuple[str | None, re.Pattern, str]] = [
    (None, re.compile(r"\bits 1 (?:are|were)\b"), "a count of one with a plural verb"),
    ("en", re.compile(r"(?<![\d.,])(?<!\bof )\b1 (?:block|warp|lane|thread|SM) (?:fit|are|were|take|run|"
                      r"hold|wait|do|use|need|fill|give|get|leave|hit|stay|cover)\b"), "a count of one with a plural verb"),
    ("hinglish", re.compile(r"(?<![\d.,])\b1 (?:block|warp|lane|thread|SM) (?!(?:mein|par|se)\b)"
                            r"(?:(?!\bk[eia]\b)[^.;,]){0,30}?"
                            r"\b(?:hote|karte|lete|rehte|chalte|aate|jaate|dete) hain\b"),
     "a count of one with a plural verb"),
    (None, re.compile(r"(?<![\d.,/])(?<![+\u2212-] )\b1 (?:blocks|warps|lanes|threads|SMs|cycles|"
                      r"registers|bytes|FLOPs|instructions|schedulers|waves|passes|slots)\b"),
     "a count of one with a plural noun"),
    ("en", re.compile(r"(?<![\d.,])\b1 (?:resident )?(?:block|warp|lane|thread|SM) of [\d,]+ \w+ "
                      r"each\b"), "'each' of a count of one"),
    ("hinglish", re.compile(r"(?<![\d.,])\b1 (?:resident )?(?:block|warp|lane|thread|SM), har ek\b"),
     "'har ek' (each) of a count of one"),
    (None, re.compile(r"\b(?:min|max)\([^()]*\d,\d{3}"), "a grouped number inside a function's "
                                                          "arguments (min(4,854, 40))"),
    ("hinglish", re.compile(r"\bbatti\b|\bbati\b|\bbantti\b|\bbat-t|baṭ", re.I),
     "not the Hinglish verb for 'are divided' (batti is a lamp)"),
    (None, re.compile(r"\b(?:all its|these|saare|inhi) 1\b(?![\d.,])"),
     "a count of one read as many (all its 1 warp)"),
    (None, re.compile(r"\bonly (\d[\d,]*) of \1\b|\bsirf (\d[\d,]*) mein se \2\b"),
     "'only N of N': nothing is left out"),
    (None, re.compile(r"already is one\b|pehle se ek hai\b"), "a count called one unit of itself"),
    ("en", re.compile(r"\bnot 1 per SM on\b"), "a contrast with itself: one block per SM either way"),
    (None, re.compile(r"share of the SM that (?:divergence leaves )?work|SM ka itna hissa kaam karta"),
     "occupancy × lane utilisation called the share of the SM that works"),
    ("en", re.compile(r"\b([A-Za-z]+) \1\b(?<!\bthat that\b)"), "a word twice in a row"),
]


@check
def no_glitch(p: Problem) -> list[str]:
    faults = []
    for where, text in every_text(p):
        for lang, pattern, what in GLITCHES:
            if lang not in (None, p.lang):
                continue
            m = pattern.search(text)
            if m:
                faults.append(f"{where}: {what}: {m.group(0)!r} in {text!r}")
    return faults


#: A title that claims a step decides something, and a why that says another step decided it.
_DECIDES = re.compile(r"\bclassif|\bdecides?\b|classify karo|tay karo", re.I)
_DECIDED_ELSEWHERE = re.compile(r"already decided|not this share|decides nothing|ne tay kiya, is|"
                                r"already decide", re.I)


@check
def steps_do_what_their_titles_say(p: Problem) -> list[str]:
    """A step titled as the one that classifies or decides is not explained as deciding nothing
    ("Classify the kernel" whose why says the roofline above already decided), and a what-if
    title names the quantity its step computes, not only the scenario."""
    faults = []
    for i, st in enumerate(p.solution.steps, 1):
        if _DECIDES.search(st.title) and _DECIDED_ELSEWHERE.search(st.why):
            faults.append(f"step {i} {st.title!r} says it decides, its why says it does not")
        if re.fullmatch(r"What-if: (?:an? )?[\w -]+ branch", st.title) or \
                re.fullmatch(r"What-if: warp-uniform branch", st.title):
            faults.append(f"step {i} {st.title!r} names a scenario, not its {st.unit or 'result'}")
    return faults


@check
def step_titles_are_distinct(p: Problem) -> list[str]:
    seen: dict[str, int] = {}
    faults = []
    for i, st in enumerate(p.solution.steps, 1):
        if st.title in seen:
            faults.append(f"steps {seen[st.title]} and {i} share the title {st.title!r}")
        seen.setdefault(st.title, i)
    return faults


@check
def the_main_answer_is_asked(p: Problem) -> list[str]:
    """A problem with a main answer holds that answer and a one-answer stem that asks it: the
    question a choice card and a type-in card show (without one, such a card falls back to
    the whole question, which asks for more than its box takes)."""
    if not p.main_answer:
        return []
    faults = []
    if p.main_answer not in p.answers:
        faults.append(f"main answer {p.main_answer!r} is not among {sorted(p.answers)}")
    if not p.mcq_stem.strip():
        faults.append(f"no one-answer stem for {p.main_answer!r}")
    return faults


def faults_of(p: Problem) -> dict[str, list[str]]:
    """Check name → the faults it finds in `p` (only checks that find some)."""
    out = {}
    for fn in CHECKS:
        found = fn(p)
        if found:
            out[fn.__name__] = found
    return out
