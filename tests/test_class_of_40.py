"""A class of 40, graded box by box to points worked out by hand.

Every student has the same three problems (fixed parameters, solved by the families), so each
expected point below can be checked with pencil and paper:

* Q1 (OCC-2, textbook SM: 65,536 registers, 64 warps, 32 blocks): 256 threads/block, 40
  registers/thread, no shared memory. Registers per block 256·40 = 10,240 → ⌊65,536/10,240⌋ = 6
  blocks; warps 8 per block → ⌊64/8⌋ = 8 blocks; so 6 blocks/SM, 6·8 = 48 active warps,
  48/64 = 75%, limiter registers. Points: blocks 2, active warps 1, occupancy 2, limiter 1.
* Q2 (W-B): 200 threads per block → ⌈200/32⌉ = 7 warps, 6 full, 200 − 192 = 8 threads in the
  tail warp, 7·32 − 200 = 24 wasted lanes. One point each.
* Q3 (OCC-7, A100 with the notes' formulas: 108 SMs, 64 warps): 256 threads/block, 32
  registers/thread → ⌊65,536/8,192⌋ = 8 = ⌊64/8⌋ blocks/SM; 8·108 = 864 slots; 1,000 blocks →
  ⌈1000/864⌉ = 2 waves; 1000 − 864 = 136 blocks in the tail. One point each.

Carried credit: a later box that is right for the student's own earlier (wrong but whole) answer
earns its points — never from a fractional count (6.25 warps, 6.4 blocks).
"""

from __future__ import annotations

import csv
import io
from fractions import Fraction

import pytest

from quizgen.export.sheet import plan_exam
from quizgen.recipes import Student, parse_exam_recipe
from quizgen.grade.grader import grade_class
from quizgen.problems import family, resolve_named_gpu, spec_dicts
from quizgen.render.writers import writer_for
from quizgen.problems.model import Problem

PARAMS = {
    "OCC-2": ("textbook", {"threads_per_block": 256, "regs_per_thread": 40, "smem_per_block": 0}),
    "W-B": ("textbook", {"block": [200, 1, 1], "threads_per_block": 200}),
    "OCC-7": ("a100", {"threads_per_block": 256, "regs_per_thread": 32, "smem_per_block": 0,
                       "grid_blocks": 1000, "num_sms": 108}),
}
KEY = {  # worked out by hand (see above)
    "OCC-2": {"blocks_per_sm": 6, "active_warps": 48, "occupancy": 0.75, "limiter": ["registers"]},
    "W-B": {"warps": 7, "full_warps": 6, "tail_active": 8, "wasted_lanes": 24},
    "OCC-7": {"blocks_per_sm": 8, "slots": 864, "waves": 2, "tail_blocks": 136},
}
RECIPE = {"title": "Class of 40", "lang": "en", "seed": 40, "questions": [
    {"cell": "OCC-2", "points": {"blocks_per_sm": 2, "active_warps": 1, "occupancy": 2,
                                 "limiter": 1}},
    {"cell": "W-B", "points": {"warps": 1, "full_warps": 1, "tail_active": 1, "wasted_lanes": 1}},
    {"cell": "OCC-7", "points": {"blocks_per_sm": 1, "slots": 1, "waves": 1, "tail_blocks": 1}},
]}

# Per question: what a student wrote in each box, and the points each box must earn.
Q1 = {  # blocks_per_sm, active_warps, occupancy, limiter
    "plain":       (("6", "48", "0.75", "registers"), (2, 1, 2, 1)),
    "units":       (("6 blocks", "48 warps", "75%", "registers"), (2, 1, 2, 1)),
    "fraction":    (("6", "48", "48/64", "Registers"), (2, 1, 2, 1)),
    "spacing":     ((" 6 ", "48.0", "75.0 %", "REGISTERS"), (2, 1, 2, 1)),
    "ignore_regs": (("8", "64", "100%", "warps"), (0, 1, 2, 0)),        # 8·8 = 64, 64/64: carried
    "no_floor":    (("6.4", "51.2", "80%", "registers"), (0, 0, 0, 1)),  # nothing carries from 6.4
    "occ_blocks":  (("6", "48", "18.75%", "registers"), (2, 1, 0, 1)),   # blocks ÷ 32: a trap
    "carried":     (("5", "40", "62.5%", "registers"), (0, 1, 2, 1)),    # 5·8 = 40, 40/64
    "rounded":     (("6", "48", "76%", "registers"), (2, 1, 0, 1)),      # ±0.05 points only
    "blank":       (("", "", "", ""), (0, 0, 0, 0)),
    "garbage":     (("asdf", "#REF!", "<script>", "__import__('os')"), (0, 0, 0, 0)),
}
Q2 = {  # warps, full_warps, tail_active, wasted_lanes
    "plain":       (("7", "6", "8", "24"), (1, 1, 1, 1)),
    "units":       (("7 warps", "6 warps", "8 threads", "24 lanes"), (1, 1, 1, 1)),
    "carried":     (("8", "6", "8", "56"), (0, 1, 1, 1)),       # 8·32 − 200 = 56
    "fractional":  (("6.25", "6", "8", "0"), (0, 1, 1, 0)),     # 6.25 warps carries nothing
    "partial":     (("7", "", "8", ""), (1, 0, 1, 0)),
    "blank":       (("", "", "", ""), (0, 0, 0, 0)),
    "garbage":     (("??", "n/a", "x", "-"), (0, 0, 0, 0)),
}
Q3 = {  # blocks_per_sm, slots, waves, tail_blocks
    "plain":       (("8", "864", "2", "136"), (1, 1, 1, 1)),
    "units":       (("8 blocks", "864 blocks", "2 waves", "136 blocks"), (1, 1, 1, 1)),
    "carried":     (("7", "756", "2", "244"), (0, 1, 1, 1)),    # 7·108 = 756; 1000 − 756
    "chain":       (("4", "432", "3", "136"), (0, 1, 1, 1)),    # 432 slots → 3 waves, tail 136
    "wrong_tail":  (("8", "864", "1", "0"), (1, 1, 0, 0)),
    "blank":       (("", "", "", ""), (0, 0, 0, 0)),
    "garbage":     (("eight", "lots", "2 2", "%"), (0, 0, 0, 0)),
}
CLASS = [  # roll, Q1, Q2, Q3 variants; total points worked out from the tables above
    ("S01", "plain", "plain", "plain", 14), ("S02", "units", "units", "units", 14),
    ("S03", "fraction", "plain", "units", 14), ("S04", "spacing", "units", "plain", 14),
    ("S05", "ignore_regs", "plain", "plain", 11), ("S06", "no_floor", "plain", "plain", 9),
    ("S07", "occ_blocks", "plain", "plain", 12), ("S08", "carried", "plain", "plain", 12),
    ("S09", "rounded", "plain", "plain", 12), ("S10", "blank", "blank", "blank", 0),
    ("S11", "garbage", "garbage", "garbage", 0), ("S12", "plain", "carried", "plain", 13),
    ("S13", "plain", "fractional", "plain", 12), ("S14", "plain", "partial", "plain", 12),
    ("S15", "plain", "plain", "carried", 13), ("S16", "plain", "plain", "chain", 13),
    ("S17", "plain", "plain", "wrong_tail", 12), ("S18", "carried", "carried", "carried", 10),
    ("S19", "ignore_regs", "fractional", "chain", 8), ("S20", "no_floor", "partial", "blank", 3),
    ("S21", "occ_blocks", "garbage", "units", 8), ("S22", "rounded", "blank", "carried", 7),
    ("S23", "blank", "plain", "plain", 8), ("S24", "garbage", "units", "units", 8),
    ("S25", "units", "blank", "garbage", 6), ("S26", "fraction", "carried", "wrong_tail", 11),
    ("S27", "spacing", "fractional", "chain", 11), ("S28", "carried", "partial", "units", 10),
    ("S29", "ignore_regs", "units", "wrong_tail", 9), ("S30", "no_floor", "carried", "carried", 7),
    ("S31", "occ_blocks", "fractional", "plain", 10), ("S32", "rounded", "units", "chain", 11),
    ("S33", "plain", "garbage", "garbage", 6), ("S34", "blank", "blank", "plain", 4),
    ("S35", "garbage", "plain", "blank", 4), ("S36", "units", "partial", "carried", 11),
    ("S37", "carried", "fractional", "wrong_tail", 8), ("S38", "ignore_regs", "garbage", "chain", 6),
    ("S39", "fraction", "plain", "garbage", 10), ("S40", "spacing", "blank", "wrong_tail", 8),
]
TABLES = (("Q1", ("blocks_per_sm", "active_warps", "occupancy", "limiter"), Q1),
          ("Q2", ("warps", "full_warps", "tail_active", "wasted_lanes"), Q2),
          ("Q3", ("blocks_per_sm", "slots", "waves", "tail_blocks"), Q3))


def fixed_problem(cell: str, *, level: int, seed: int, lang: str, gpu: str | None) -> Problem:
    """The same problem for every student: the family's solver on fixed parameters."""
    gpu_name, params = PARAMS[cell]
    fam, the_gpu = family(cell), resolve_named_gpu(gpu_name)
    solved = fam.solve(params, the_gpu, explain=True)
    title, question, solution = writer_for(fam).write(params, the_gpu, solved, lang,
                                                      f"{cell}-class-of-40")
    specs = spec_dicts(fam)
    answers = solved.answers
    return Problem(f"{cell}-class-of-40", cell, level, lang, seed, the_gpu.to_dict(), params,
                   answers, question, solution, title,
                   fam.model_for(the_gpu) if fam.uses_model else None,
                   {k: v for k, v in fam.units.items() if k in answers},
                   {k: v for k, v in fam.tolerances.items() if k in answers}, [],
                   fam.main_answer or None, [], None,
                   {k: specs[k] for k in answers if k in specs})


def test_the_hand_worked_totals_add_up():
    for roll, *variants, total in CLASS:
        points = sum(sum(table[v][1]) for (_, _, table), v in zip(TABLES, variants))
        assert points == total, roll


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    work = tmp_path_factory.mktemp("class40")
    roster = [Student(f"Student {roll}", roll) for roll, *_ in CLASS]
    plan = plan_exam(parse_exam_recipe(RECIPE), roster, None, generate=fixed_problem)
    (work / "manifest.json").write_text(plan.manifest_text(), encoding="utf-8")
    rows = list(csv.reader(io.StringIO(plan.answers_csv.removeprefix("\ufeff"))))
    header = rows[0]
    for row, (roll, *variants, _) in zip(rows[1:], CLASS):
        assert row[1] == roll
        for (q, keys, table), variant in zip(TABLES, variants):
            for key, text in zip(keys, table[variant][0]):
                row[header.index(f"{q}.{key}")] = text
    with (work / "answers.csv").open("w", encoding="utf-8", newline="") as fh:
        csv.writer(fh).writerows(rows)
    summary = grade_class(work / "manifest.json", work / "answers.csv", work / "graded")
    return plan.manifest, summary


def test_the_key_is_the_hand_worked_one(graded):
    manifest, _ = graded
    for question in manifest.students[0].questions:
        key = KEY[question["cell"]]
        assert {k: question["answers"][k] for k in key} == key


@pytest.mark.parametrize("roll, q1, q2, q3, total", CLASS, ids=[row[0] for row in CLASS])
def test_each_box_earns_its_hand_worked_points(graded, roll, q1, q2, q3, total):
    _, summary = graded
    student = next(s for s in summary.students if s.roll == roll)
    got = {b.column: b.points for b in student.boxes}
    expected = {}
    for (q, keys, table), variant in zip(TABLES, (q1, q2, q3)):
        for key, points in zip(keys, table[variant][1]):
            expected[f"{q}.{key}"] = Fraction(points)
    assert got == expected
    assert student.score == total and student.max_score == 14
    # garbage is unreadable: scored 0 and listed for review; a blank box is simply empty
    garbage = {f"{q}.{key}" for (q, keys, _), variant in zip(TABLES, (q1, q2, q3))
               if variant == "garbage" for key in keys}
    assert {b.column for b in student.boxes if b.check.status == "invalid"} == garbage
    blank = {f"{q}.{key}" for (q, keys, table), variant in zip(TABLES, (q1, q2, q3))
             for key, text in zip(keys, table[variant][0]) if not text}
    assert {b.column for b in student.boxes if b.check.status == "blank"} == blank


def test_carried_boxes_say_where_they_carry_from(graded):
    _, summary = graded
    s08 = next(s for s in summary.students if s.roll == "S08")
    occupancy = next(b for b in s08.boxes if b.column == "Q1.occupancy")
    assert occupancy.check.status == "carried" and occupancy.check.carried

