"""Every sentence true for its numbers: the checks of `sentence_checks` over every generated
problem (every registered cell × levels 1–3 × both languages × the cell's own GPU, the textbook SM
and every real preset × several seeds), and each check shown to catch the sentence that made it
necessary.

The sweep is generated once per session (`every_problem` in conftest) and read by every check.
"""

from __future__ import annotations

import time

import pytest

from quizgen.generator import CELLS, LANGS, LEVELS, generate_one
from quizgen.gpus import preset_names
from quizgen.problems.model import Problem
from sentence_arithmetic import equations, evaluate
from sentence_checks import CHECKS, faults_of

CHECK_NAMES = [fn.__name__ for fn in CHECKS]


def by_name(name: str):
    return next(fn for fn in CHECKS if fn.__name__ == name)


def test_the_sweep_reads_every_cell_level_language_and_gpu(every_problem):
    cells = {p.cell for p in every_problem}
    assert cells == set(CELLS)
    assert {(p.level, p.lang) for p in every_problem} == {(lv, la) for lv in LEVELS for la in LANGS}
    gpus = {p.gpu["name"] for p in every_problem}
    assert "textbook" in gpus and len(gpus & set(preset_names())) >= len(preset_names()) - 1
    assert len(every_problem) >= 4000


@pytest.mark.parametrize("name", CHECK_NAMES)
def test_every_problem_reads_true(every_problem, name):
    check = by_name(name)
    start = time.perf_counter()
    faults = []
    for p in every_problem:
        for fault in check(p):
            faults.append(f"{p.cell} L{p.level} {p.gpu['name']} seed {p.seed} {p.lang}: {fault}")
    print(f"{name}: {len(every_problem)} problems in {time.perf_counter() - start:.1f} s")
    assert not faults, f"{len(faults)} faults:\n" + "\n".join(faults[:12])


# --- Each check catches the sentence that made it necessary -------------------------------

def one(cell, level, seed, gpu=None, lang="en") -> Problem:
    return generate_one(cell, level=level, seed=seed, lang=lang, gpu=gpu)


def copy(p: Problem) -> Problem:
    return Problem.from_dict(p.to_dict())


def test_the_reader_evaluates_what_the_solutions_write():
    assert evaluate("⌊65,536/(256·65)⌋") == 3
    assert evaluate("min(3250, 40)") == 40
    assert evaluate("⌈0.75·64/4⌉") == 12
    assert evaluate("24/32") == 0.75 and evaluate("75%") == 0.75
    assert evaluate("3 blocks") is None
    # a side with words around it is not read, so a unit never passes for a number
    assert [str(e) for e in equations("3 blocks × 8 warps = 24 warps; 24/32 = 75%.")] == ["24/32 = 75%"]
    assert [e.holds for e in equations("64 ÷ 6 = 10 blocks")] == [False]
    assert [e.holds for e in equations("⌊64/6⌋ = 10 blocks")] == [True]
    assert [e.holds for e in equations("utilisation 33.333% = 1/3 ✓")] == [True]


@pytest.mark.parametrize("lang", LANGS)
def test_the_right_option_of_l1_arrives_at_its_answer(lang):
    """`--cell L-1 --level 1 --seed 9101 --gpu t4`: 24 warps = 75%; the old reason's rule
    (⌊R_SM/(32·r)⌋ warps, ÷ the max) gives 31 warps, the whole-blocks distractor."""
    p = one("L-1", 1, 9101, "t4", lang)
    right = next(c for c in p.choices if c.correct)
    assert right.value == 0.75 and "⌊65,536/(256·65)⌋ = 3" in right.why and "24/32" in right.why
    assert not by_name("right_option_reaches_its_value")(p)
    old = copy(p)
    for c in old.choices:
        if c.correct:
            c.why = "Right: registers per warp = 32·r, warps = ⌊R_SM/(32·r)⌋ (at most the cap), then ÷ the max warps."
    assert by_name("right_option_reaches_its_value")(old)
    for c in old.choices:       # the same rule with its numbers: it arrives at 96.875%, not 75%
        if c.correct:
            c.why = "Right: ⌊65,536/(32·65)⌋ = 31 warps; 31/32 = 96.875%."
    assert by_name("right_option_reaches_its_value")(old)


@pytest.mark.parametrize("lang", LANGS)
def test_doubling_the_block_says_how_far_the_warp_lid_falls(lang):
    """`--cell K-1 --level 3 --seed 9103 --gpu a100`: 352 → 704 threads takes the warp-slot lid
    from 5 to 2 blocks, not half."""
    p = one("K-1", 3, 9103, "a100", lang)
    assert ("from 5 to 2 blocks" if lang == "en" else "5 se 2 blocks") in p.solution.trap
    assert ("less than half" if lang == "en" else "aadhe se kam") in p.solution.trap
    assert not by_name("halving_claims_hold")(p)
    old = copy(p)
    old.solution.trap = ("Doubling the block halves the blocks that fit by warps but not always by "
                         "the other limits: occupancy went from 85.938% to 68.75%.")
    assert by_name("halving_claims_hold")(old)


@pytest.mark.parametrize("lang", LANGS)
def test_a_three_path_warp_is_never_compared_with_a_two_way_split(lang):
    """`--cell W-G --level 2 --seed 9101 --gpu a100`: three taken paths; a 31/1 split runs two."""
    p = one("W-G", 2, 9101, "a100", lang)
    assert len(p.params["branches"]) == 3 and not by_name("split_claims_match_the_paths")(p)
    assert "31/1" not in " ".join(t for _, t in __import__("sentence_checks").solution_texts(p))
    old = copy(p)
    old.solution.steps[-2].note = "A 31/1 split would give the same answer as this one."
    assert by_name("split_claims_match_the_paths")(old)


@pytest.mark.parametrize("lang", LANGS)
def test_l4_divides_dram_bytes_by_the_dram_bandwidth(lang):
    p = one("L-4", 1, 0, "a100", lang)
    assert "DRAM" in p.question and not by_name("roofline_bytes_cross_dram")(p)
    old = copy(p)
    b = p.params["bytes_loaded"]
    old.question = f"Per thread: 384 FLOPs, {b} B from shared memory (latency 24 cycles), 4 B stored."
    assert by_name("roofline_bytes_cross_dram")(old)


def test_a_verify_bound_comes_from_the_problem():
    p = one("L-4", 1, 0, "a100")
    assert not by_name("verify_thresholds_are_the_problems")(p)
    old = copy(p)
    old.solution.verify[-1] = "× 4 = 12 warps, occupancy 12/64 = 18.75% ≤ 25% ✓."
    assert by_name("verify_thresholds_are_the_problems")(old)
    old.solution.verify[-1] = "× 4 = 20 warps ≤ 32 = 50% of 64 ✓."     # and a false equation
    assert by_name("stated_equations_hold")(old)


@pytest.mark.parametrize("lang, text", [
    ("en", "Barriers are a pooled resource here too, so a block can be resident only if its 1 are free."),
    ("en", "⌊65,536 / 49,152⌋ = 1 block fit in shared memory."),
    ("en", "min(4,854, 40) = 40 SMs hold at least one block."),
    ("en", "GPU-wide only 108 of 108 SMs are used: 100%."),
    ("en", "NVIDIA allocates a warp's registers in whole units of 256, and 1,024 already is one."),
    ("hinglish", "Lanes 2 paths par 15 / 17 mein batti hain, har path 10 cycles ka."),
    ("hinglish", "Lanes 30 / 2 mein bati, har path 90 cycles."),
    ("hinglish", "Opt-in karke 1 block fit hote hain."),
    ("hinglish", "Is path ka asli kaam sirf woh 1 lane karte hain jo ise lete hain."),
    ("en", "A block stays resident with all its warps, so 1 resident block of 20 warps each give "
           "the scheduler 20 warps to pick from."),
    ("en", "Slots, not resources: a block brings all 18 of its warps, so 1 block fill 18 of the 32 "
           "warp slots."),
    ("en", "The registers of the other 1 warp stay unused, because they are not a whole block."),
    ("hinglish", "Pipeline har cycle 1 FLOPs shuru karti hai jab pichhle abhi in flight hain."),
    ("hinglish", "Toh 1 resident block, har ek mein 16 warps, scheduler ke paas 16 warps."),
])
def test_each_glitch_is_caught(lang, text):
    p = copy(one("OCC-7", 1, 0, "t4", lang))
    assert not by_name("no_glitch")(p)
    p.solution.steps[0].why = text
    assert by_name("no_glitch")(p), text


@pytest.mark.parametrize("lang", LANGS)
def test_a_sum_said_in_words_adds_up(lang):
    """`--cell W-H --level 3 --seed 49 --gpu a10`: the untaken paths' 29 + 32 cycles give 72 only
    with the taken path's 11; the trap says so, and the old sentence is caught."""
    p = one("W-H", 3, 49, "a10", lang)
    assert "11 + 29 + 32 = 72" in p.solution.trap and not by_name("sums_in_words_add_up")(p)
    old = copy(p)
    old.solution.trap = ("Adding 29 + 32 for the untaken paths would give 72 cycles, but no lane "
                         "runs them." if lang == "en" else
                         "Na liye gaye paths ke 29 + 32 jodne se 72 cycles aate, lekin koi lane "
                         "unhe chalati hi nahi.")
    assert by_name("sums_in_words_add_up")(old)


@pytest.mark.parametrize("lang", LANGS)
def test_each_branch_step_has_its_own_title(lang):
    p = one("W-G", 3, 1, None, lang)
    assert not by_name("step_titles_are_distinct")(p)
    old = copy(p)
    old.solution.steps[1].title = old.solution.steps[0].title
    assert by_name("step_titles_are_distinct")(old)


def test_a_floor_written_as_a_division_is_caught():
    p = copy(one("X-1", 1, 0, "a100"))
    assert not faults_of(p)
    p.solution.steps[0].why = "The SM has only 64 warp slots, and a block needs one per warp: 64 ÷ 6 = 10 blocks."
    assert by_name("stated_equations_hold")(p)


@pytest.mark.parametrize("lang", LANGS)
def test_the_measured_bandwidth_problem_asks_its_main_answer(lang):
    """`--cell L-5 --level 3 --seed 540`: Little's law in bytes on the H200's measured curve.
    Its main answer was a key it does not have and its stem named a latency in cycles it does
    not draw, so a type-in card asked the whole seven-part question; now it asks the warps."""
    p = generate_one("L-5", level=3, seed=540, lang=lang, mcq=False)
    assert p.main_answer == "warps_for_bandwidth" and p.answers[p.main_answer] == 32
    assert "37.5 GB/s" in p.mcq_stem and "ILP 4" in p.mcq_stem
    assert not by_name("the_main_answer_is_asked")(p)
    old = copy(p)
    old.main_answer, old.mcq_stem = "warps_needed", ""
    assert len(by_name("the_main_answer_is_asked")(old)) == 2


def test_the_sweep_reaches_every_kind_of_problem(every_problem):
    """Each cell's kinds of problem (the names of their parameters) at each level are all in
    the sweep, the ones drawn only after many seeds too (L-5's measured curves)."""
    from quizgen.problems import draw

    kinds = {(p.cell, p.level, frozenset(p.params)) for p in every_problem}
    assert {("L-5", 3, frozenset(draw("L-5", level=3, seed=s)[1])) for s in (0, 38, 76)} <= kinds
    assert len({k for k in kinds if k[:2] == ("K-1", 1)}) >= 3


def test_every_level_three_problem_names_its_trap(every_problem):
    """Level 3 adds the step a trap turns on (OCC-1's extra registers break its clean divide),
    so no level-3 problem leaves the Trap empty."""
    empty = [f"{p.cell} {p.gpu['name']} seed {p.seed} {p.lang}" for p in every_problem
             if p.level == 3 and not p.solution.trap]
    assert not empty, empty[:10]


def test_hinglish_feedback_quotes_the_hinglish_step(tmp_path):
    """An exam written in English, graded with Hinglish feedback: the step where a student's
    numbers part from the solution is named as the Hinglish solution names it."""
    from conftest import make_class
    from quizgen.grade import grade_class

    recipe = {"title": "Quiz", "lang": "en", "seed": 3,
              "questions": [{"cell": "OCC-1", "level": 1, "points": 2,
                             "answers": ["warps", "blocks_per_sm"]}]}

    def fill(roll, number, box, right):
        return str(right + 3) if box == "warps" else str(right)

    made = make_class(tmp_path / "class", recipe, [("Asha", "A1")], fill)
    grade_class(made.manifest, made.answers, tmp_path / "out", lang="hinglish")
    page = (tmp_path / "out" / "feedback" / "A1.md").read_text(encoding="utf-8")
    question = made.data["students"][0]["questions"][0]
    en = Problem.from_dict({k: v for k, v in question.items()
                            if k in Problem.__dataclass_fields__})
    hi = generate_one(en.cell, level=en.level, seed=en.seed, lang="hinglish",
                      gpu=en.gpu["name"])
    step = next(i for i, s in enumerate(en.solution.steps) if s.formula == "warps_per_block")
    assert "alag ho jaate hain" in page
    assert f"({hi.solution.steps[step].title})" in page
    assert f"({en.solution.steps[step].title})" not in page
    assert hi.title in page
