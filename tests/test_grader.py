"""The grader, end to end: a class built by the real exam builder, answered many ways, graded."""

from __future__ import annotations

import csv
import hashlib
import io
import json
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest

from quizgen.errors import QuizgenError
from quizgen.export.sheet import build_exam
from quizgen.recipes import Student, parse_exam_recipe
from quizgen.gpus import get_gpu, gpu_from_dict
from quizgen.grade import check_answer, grade_class
from quizgen.grade.grader import read_answer_sheet
from quizgen.generator import families, family, generate_one
from quizgen.render.phrases import phrase

RECIPE = {
    "title": "Grader test", "lang": "en", "seed": 5,
    "questions": [
        {"cell": "OCC-2", "level": 1, "points": 6},
        {"cell": "L-1", "level": 1, "points": 3},
        {"cell": "X-5", "level": 1, "points": 3,
         "answers": ["blocks_per_sm_t4", "active_warps_t4", "occupancy_t4"]},
        {"cell": "OCC-5", "level": 1, "points": 2, "answers": ["largest_block", "blocks_per_sm"]},
        {"cell": "L-6", "level": 1, "points": 1},
    ],
}
PERSONAS = ("plain", "styled", "expressions", "carried", "trap", "hostile", "blank", "unreadable")


def exact(value) -> Fraction:
    return Fraction(repr(value)) if isinstance(value, float) else Fraction(value)


def decimal_text(value: Fraction) -> str:
    """A terminating fraction as its exact decimal (0.28125 → '0.28125')."""
    return format(Decimal(value.numerator) / Decimal(value.denominator), "f")


def plain(value) -> str:
    if isinstance(value, list):
        return " and ".join(value) if value and isinstance(value[0], str) else str(value)
    return str(value)


def max_warps(question: dict, key: str) -> int:
    suffix = key.rpartition("_")[2]
    if suffix in ("t4", "a100", "h100"):
        return get_gpu(suffix).max_warps_per_sm
    return question["gpu"]["max_warps_per_sm"]


def warps_per_block(question: dict) -> int:
    return -(-question["params"]["threads_per_block"] // 32)


def styled(question: dict, key: str) -> str:
    """The right answer as a student might write it: units, percent, thousands, ceil()."""
    value = question["answers"][key]
    base = key.split("_t4")[0]
    if base == "occupancy":
        return decimal_text(exact(value) * 100) + "%"
    if base in ("blocks_per_sm", "blocks_without_optin"):
        return f"{value} blocks"
    if base == "active_warps":
        return f"{value} warps"
    if base == "warps":
        return f"ceil({question['params']['threads_per_block']}/32)"
    if base in ("regs_per_block", "regs_per_warp"):
        return f"{value:,}"
    if base == "largest_block":
        return f"{value} threads"
    if base == "limiter":
        return " & ".join({"registers": "regs", "shared_memory": "smem"}.get(v, v) for v in value)
    if base == "concept":
        return next(c["text"] for c in question["choices"] if c["correct"])
    return plain(value)


def expression(question: dict, key: str) -> str:
    """The right answer as arithmetic: 16/64, floor(65536/(256*36)), 32*r."""
    params, gpu = question["params"], question["gpu"]
    base = key.split("_t4")[0]
    if base == "occupancy":
        active = question["answers"][key.replace("occupancy", "active_warps")]
        return f"{active}/{max_warps(question, key)}"
    if base == "blocks_per_sm" and question["cell"] == "OCC-2":
        return f"floor({gpu['regs_per_sm']}/({params['threads_per_block']}*{params['regs_per_thread']}))"
    if base == "regs_per_warp":
        return f"32*{params['regs_per_thread']}"
    if base == "regs_per_block" and question["cell"] == "OCC-2":
        return f"{params['threads_per_block']} × {params['regs_per_thread']}"
    return styled(question, key)


def first_trap(question: dict, key: str):
    """A misconception whose answer for `key` differs from the right one (recomputed)."""
    fam = family(question["cell"])
    gpu = gpu_from_dict(question["gpu"])
    solved = fam.solve(question["params"], gpu)
    for m in fam.applicable_misconceptions(question["params"], gpu, solved):
        if key in m.answers and check_answer(question, key, plain(m.answers[key])).status == "wrong":
            return m
    return None


HOSTILE = [
    "__import__('os').system('touch {pwned}')",
    "$(touch {pwned})",
    "x" * 1_000_000,
    "(" * 5000 + "1" + ")" * 5000,
    "9**9**9",
    "import os; os.system('touch {pwned}')",
    "`touch {pwned}`",
    "eval('1+1')",
    "open('{pwned}', 'w')",
    "<script>alert(1)</script>",
    "lambda: 0",
    "(((((((((((((((((((((((((1)))))))))))))))))))))))))",
]


def carried_answers(question: dict) -> dict[str, str]:
    """An early slip, then later answers right by the student's own numbers."""
    a = question["answers"]
    cell = question["cell"]
    if cell == "OCC-2":
        b = a["blocks_per_sm"] + 1
        w = a["warps"]
        return {"blocks_per_sm": str(b), "active_warps": str(b * w),
                "occupancy": f"{b * w}/{question['gpu']['max_warps_per_sm']}"}
    if cell == "L-1":
        gpu = question["gpu"]
        rpw = a["regs_per_warp"] * 2                      # a doubled register count
        w = -(-question["params"]["threads_per_block"] // 32)   # whole blocks of the stated size
        active = min(min(gpu["max_warps_per_sm"], gpu["regs_per_sm"] // rpw) // w,
                     gpu["max_blocks_per_sm"]) * w
        return {"regs_per_warp": str(rpw), "active_warps": str(active),
                "occupancy": decimal_text(Fraction(active, gpu["max_warps_per_sm"]) * 100) + "%"}
    if cell == "X-5":
        b = a["blocks_per_sm_t4"] - 1
        active = b * warps_per_block(question)
        return {"blocks_per_sm_t4": str(b), "active_warps_t4": str(active),
                "occupancy_t4": f"{active}/32"}
    return {}


@pytest.fixture(scope="module")
def exam(tmp_path_factory):
    root = tmp_path_factory.mktemp("class")
    roster = [Student(name=f"Student {p}", roll=f"R{i:02d}") for i, p in enumerate(PERSONAS)]
    result = build_exam(parse_exam_recipe(RECIPE), roster, None, root / "exam",
                        generate=generate_one)
    manifest = json.loads(result.manifest.read_text(encoding="utf-8"))
    pwned = root / "PWNED"
    with result.answers_csv.open(encoding="utf-8-sig", newline="") as fh:
        rows = list(csv.reader(fh))
    header = rows[0]
    filled = [header]
    for row, student, persona in zip(rows[1:], manifest["students"], PERSONAS):
        cells = list(row)
        n = 0
        for q in student["questions"]:
            carried = carried_answers(q)
            trap = first_trap(q, q["main_answer"]) if q.get("main_answer") in q["asked"] else None
            for key in q["asked"]:
                column = header.index(f"Q{q['number']}.{key}")
                if persona == "plain":
                    text = plain(q["answers"][key])
                elif persona == "styled":
                    text = styled(q, key)
                elif persona == "expressions":
                    text = expression(q, key)
                elif persona == "carried":
                    text = carried.get(key, plain(q["answers"][key]))
                elif persona == "trap":
                    text = (plain(trap.answers[key]) if trap is not None and key == q["main_answer"]
                            else plain(q["answers"][key]))
                elif persona == "hostile":
                    text = HOSTILE[n % len(HOSTILE)].format(pwned=pwned)
                elif persona == "blank":
                    text = ""
                else:
                    text = "twenty five" if n % 2 == 0 else plain(q["answers"][key])
                cells[column] = text
                n += 1
        filled.append(cells)
    answers = root / "filled.csv"
    with answers.open("w", encoding="utf-8", newline="") as fh:
        csv.writer(fh).writerows(filled)
    return {"root": root, "manifest": result.manifest, "answers": answers, "data": manifest,
            "pwned": pwned}


@pytest.fixture(scope="module")
def graded(exam):
    return grade_class(exam["manifest"], exam["answers"], exam["root"] / "graded", invalid="flag")


def read_rows(path: Path) -> list[list[str]]:
    """The filled sheet holds a megabyte-long answer: lift the csv module's field cap to read it."""
    limit = csv.field_size_limit()
    csv.field_size_limit(1 << 24)
    try:
        with path.open(encoding="utf-8-sig", newline="") as fh:
            return list(csv.reader(fh))
    finally:
        csv.field_size_limit(limit)


def by_persona(summary, persona):
    return next(s for s in summary.students if s.name == f"Student {persona}")


def results_rows(summary):
    with summary.results_csv.open(encoding="utf-8-sig", newline="") as fh:
        return {row["student"]: row for row in csv.DictReader(fh)}


@pytest.mark.parametrize("persona", ["plain", "styled", "expressions"])
def test_every_correct_form_scores_full_marks(graded, persona):
    student = by_persona(graded, persona)
    assert student.max_score == 15
    assert student.score == 15, [(b.column, b.check.answer, b.check.status, b.check.note)
                                 for b in student.boxes if not b.check.earns]
    row = results_rows(graded)[student.name]
    assert (row["score"], row["max_score"]) == ("15", "15")


def test_carried_errors_earn_their_points(graded, exam):
    student = by_persona(graded, "carried")
    carried = {b.column: b for b in student.boxes if b.check.status == "carried"}
    wrong = {b.column for b in student.boxes if b.check.status == "wrong"}
    # The first slip of each chain costs its points; what follows from it is credited.
    assert wrong == {"Q1.blocks_per_sm", "Q2.regs_per_warp", "Q3.blocks_per_sm_t4"}
    for column in ("Q1.active_warps", "Q2.active_warps", "Q3.active_warps_t4"):
        assert column in carried, column
        assert carried[column].points == carried[column].max_points > 0
    for column in ("Q1.occupancy", "Q2.occupancy", "Q3.occupancy_t4"):
        box = next(b for b in student.boxes if b.column == column)
        assert box.check.earns and box.points == box.max_points
    lost = sum(b.max_points for b in student.boxes if b.column in wrong)
    assert student.score == student.max_score - lost
    page = (graded.out_dir / "feedback" / "R03.md").read_text(encoding="utf-8")
    assert page.count("Carried from (") >= 3
    assert "right for your own earlier answer" in page


def test_each_trap_answer_is_diagnosed_end_to_end(graded, exam):
    student = by_persona(graded, "trap")
    data = next(s for s in exam["data"]["students"] if s["name"] == "Student trap")
    page = (graded.out_dir / "feedback" / "R04.md").read_text(encoding="utf-8")
    named = 0
    for q in data["questions"]:
        key = q.get("main_answer")
        if key not in q["asked"]:
            continue
        trap = first_trap(q, key)
        box = next(b for b in student.boxes if b.column == f"Q{q['number']}.{key}")
        if trap is None:
            assert box.check.status == "correct"
            continue
        assert box.check.status == "wrong"
        assert trap.key in box.check.misconceptions
        assert box.check.explanation
        assert box.check.explanation in page
        named += 1
    assert named >= 3
    report = (graded.out_dir / "report.md").read_text(encoding="utf-8")
    assert "Misconceptions in this class" in report


def test_hostile_answers_are_invalid_and_nothing_runs(graded, exam):
    student = by_persona(graded, "hostile")
    statuses = {b.column: b.check.status for b in student.boxes}
    assert set(statuses.values()) == {"invalid"}, statuses
    assert not exam["pwned"].exists()
    assert all(not b.counted for b in student.boxes)          # flagged, left out of the score
    assert student.max_score == 0 and student.score == 0
    page = (graded.out_dir / "feedback" / "R05.md").read_text(encoding="utf-8")
    assert "x" * 100 not in page                                # a megabyte is not echoed back
    assert "<script>" not in page
    report = (graded.out_dir / "report.md").read_text(encoding="utf-8")
    assert report.count("| Student hostile |") == len(student.boxes)
    assert "9\\*\\*9\\*\\*9" in report


def test_blank_is_not_invalid(graded):
    student = by_persona(graded, "blank")
    assert {b.check.status for b in student.boxes} == {"blank"}
    assert student.score == 0 and student.max_score == 15


def test_invalid_policy_zero_versus_flag(graded, exam, tmp_path):
    flagged = by_persona(graded, "unreadable")
    unreadable = [b for b in flagged.boxes if b.check.status == "invalid"]
    assert unreadable and all(b.check.note for b in unreadable)
    assert flagged.max_score == 15 - sum(b.max_points for b in unreadable)
    assert flagged.score == flagged.max_score
    zero = grade_class(exam["manifest"], exam["answers"], tmp_path / "zero", invalid="zero")
    zeroed = by_persona(zero, "unreadable")
    assert zeroed.max_score == 15 and zeroed.score == flagged.score
    row = results_rows(graded)["Student unreadable"]
    assert row[unreadable[0].column] == "invalid"
    assert results_rows(zero)["Student unreadable"][unreadable[0].column] == "0"


def test_results_csv_shape_and_points_split(graded, exam):
    with graded.results_csv.open(encoding="utf-8-sig", newline="") as fh:
        rows = list(csv.reader(fh))
    header = rows[0]
    assert header[:5] == ["student", "roll", "version", "score", "max_score"]
    sheet_header = read_rows(exam["answers"])[0]
    answers = [c for c in sheet_header[3:] if not c.endswith(".id")]    # ids: no answer
    assert header[5:-1] == answers and header[-1] == "needs_review"
    assert len(rows) == 1 + len(PERSONAS)
    plain_row = dict(zip(header, rows[1 + PERSONAS.index("plain")]))
    q1 = [c for c in header if c.startswith("Q1.")]
    assert sum(Fraction(plain_row[c]).limit_denominator(100) for c in q1) == 6
    assert plain_row["Q5.concept"] == "1"
    versions = {s["version"] for s in exam["data"]["students"]}
    assert {r[2] for r in rows[1:]} == versions
    assert sorted(p.name for p in (graded.out_dir / "feedback").iterdir()) == \
        [f"R{i:02d}.md" for i in range(len(PERSONAS))]


def test_inputs_are_never_written_and_outputs_never_clobbered(exam, tmp_path):
    before = {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in (exam["manifest"], exam["answers"])}
    out = tmp_path / "out"
    grade_class(exam["manifest"], exam["answers"], out)
    stale = out / "feedback" / "someone-old.md"
    stale.write_text("old", encoding="utf-8")
    with pytest.raises(QuizgenError, match="--force"):
        grade_class(exam["manifest"], exam["answers"], out)
    assert stale.exists()
    ours = out / "feedback" / sorted(p.name for p in (out / "feedback").iterdir())[0]
    ours.unlink()                         # one of our pages gone: written again
    notes = out / "report.md"
    notes.write_text("the teacher's own notes", encoding="utf-8")
    with pytest.warns(UserWarning, match="kept as report.md.kept"):
        grade_class(exam["manifest"], exam["answers"], out, force=True)
    # --force replaces only quizgen's own files: a file it did not write stays, one in the way
    # of a new file is kept under another name
    assert stale.read_text(encoding="utf-8") == "old" and ours.exists()
    assert (out / "report.md.kept").read_text(encoding="utf-8") == "the teacher's own notes"
    assert (out / "report.md").read_text(encoding="utf-8") != "the teacher's own notes"
    after = {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in before}
    assert after == before
    # An answer sheet called results.csv in the output folder would be overwritten: refused.
    clash = tmp_path / "clash"
    clash.mkdir()
    (clash / "results.csv").write_bytes(exam["answers"].read_bytes())
    with pytest.raises(QuizgenError, match="overwrite the input"):
        grade_class(exam["manifest"], clash / "results.csv", clash, force=True)


def test_excel_csv_and_bad_rows_are_reported_by_line(exam, tmp_path):
    data = exam["data"]
    rows = read_rows(exam["answers"])
    header = rows[0]
    plain_row = rows[1 + PERSONAS.index("plain")]
    styled_row = rows[1 + PERSONAS.index("styled")]
    dropped = "Q2.occupancy"
    keep = [i for i, h in enumerate(header) if h != dropped]
    occ = header.index("Q1.occupancy")
    # A European Excel sheet: decimal comma in the occupancy, in a semicolon file.
    comma_row = list(rows[1 + PERSONAS.index("expressions")])
    q1 = data["students"][PERSONAS.index("expressions")]["questions"][0]
    comma_row[occ] = decimal_text(exact(q1["answers"]["occupancy"])).replace(".", ",")
    unknown_version = list(plain_row)
    unknown_version[2] = "ZZZZZZ"
    unknown_student = list(plain_row)
    unknown_student[0], unknown_student[1], unknown_student[2] = "Nobody", "X999", ""
    styled_row = list(styled_row)
    styled_row[0] = "Student styled\n(second line)"           # a quoted field across two lines

    out_rows = [[header[i] for i in keep] + ["comments"]]
    out_rows.append([plain_row[i] for i in keep] + ["fine; really"])          # line 2
    out_rows.append([unknown_version[i] for i in keep] + [""])                # line 3
    out_rows.append([styled_row[i] for i in keep] + [""])                     # lines 4-5
    out_rows.append([plain_row[i] for i in keep] + [""])                      # line 6: duplicate
    out_rows.append([unknown_student[i] for i in keep] + [""])                # line 7
    out_rows.append([comma_row[i] for i in keep] + [""])                      # line 8
    buf = io.StringIO()
    csv.writer(buf, delimiter=";", lineterminator="\r\n", quoting=csv.QUOTE_ALL).writerows(out_rows)
    path = tmp_path / "excel.csv"
    path.write_bytes(b"\xef\xbb\xbf" + buf.getvalue().encode("utf-8"))

    summary = grade_class(exam["manifest"], path, tmp_path / "graded", invalid="flag")
    lines: dict[int, str] = {}
    for issue in summary.issues:
        lines[issue.line] = lines.get(issue.line, "") + str(issue.message) + "\n"
    assert "byte-order mark" in lines[1] and "semicolon" in lines[1]
    assert f"column {dropped} is missing" in lines[1]
    assert "'comments' is not an answer" in lines[1]
    assert "unknown version 'ZZZZZZ'" in lines[3]
    assert "duplicate of line 2" in lines[6]
    assert "unknown student 'Nobody'" in lines[7]
    assert not {2, 4, 5, 8} & set(lines)
    assert [s.line for s in summary.students] == [2, 4, 8]
    expressions = by_persona(summary, "expressions")
    assert next(b for b in expressions.boxes if b.column == "Q1.occupancy").check.status == "correct"
    styled_result = next(s for s in summary.students if s.line == 4)
    assert styled_result.score == styled_result.max_score
    assert all(b.check.status == "missing" and not b.counted
               for s in summary.students for b in s.boxes if b.column == dropped)
    with summary.unmatched.open(encoding="utf-8", newline="") as fh:
        kept = list(csv.reader(fh))
    assert [r[0] for r in kept[1:]] == ["3", "6", "7"]
    assert kept[1][1:] == [unknown_version[i] for i in keep] + [""]
    report = summary.report.read_text(encoding="utf-8")
    assert "line 3:" in report and "line 7:" in report


def test_sheet_reader_keeps_line_numbers_through_quoted_newlines(tmp_path):
    path = tmp_path / "a.csv"
    path.write_text('name,roll,version,Q1.occupancy\n"A\nB",1,V1,25%\n\nC,2,V2,0.5\n',
                    encoding="utf-8")
    sheet = read_answer_sheet(path)
    assert sheet.header == ["name", "roll", "version", "Q1.occupancy"]
    assert [(r.line, r.cells[0]) for r in sheet.rows] == [(2, "A\nB"), (5, "C")]


def test_feedback_in_hinglish_rewrites_the_solution(exam, tmp_path):
    summary = grade_class(exam["manifest"], exam["answers"], tmp_path / "hi", lang="hinglish")
    data = exam["data"]["students"][PERSONAS.index("blank")]
    page = (tmp_path / "hi" / "feedback" / "R06.md").read_text(encoding="utf-8")
    assert "Tumhara answer" in page
    q = data["questions"][0]
    hinglish = generate_one(q["cell"], level=q["level"], seed=q["seed"], lang="hinglish",
                            gpu=q["gpu"]["name"])
    assert hinglish.params == q["params"]
    assert hinglish.question in page
    trap = by_persona(summary, "trap")
    box = next(b for b in trap.boxes if b.check.misconceptions)
    assert box.check.explanation == phrase("hinglish", "misconception", box.check.misconceptions[0],
                                           salt=next(q["id"] for q in exam["data"]["students"][
                                               PERSONAS.index("trap")]["questions"]
                                               if q["number"] == box.question))


def test_html_feedback_is_escaped(exam, tmp_path):
    summary = grade_class(exam["manifest"], exam["answers"], tmp_path / "html",
                          feedback_format="html")
    page = (tmp_path / "html" / "feedback" / "R05.html").read_text(encoding="utf-8")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "<script>alert(1)" not in page
    assert len(summary.feedback) == len(PERSONAS)


# ---------------------------------------------------------------------------------------------
# One answer at a time


def occ1():
    problem = generate_one("OCC-1", level=1, seed=0, lang="en")
    gpu = problem.gpu
    T, r = problem.params["threads_per_block"], problem.params["regs_per_thread"]
    blocks = min(gpu["regs_per_sm"] // (T * r), gpu["max_blocks_per_sm"],
                 gpu["max_warps_per_sm"] // -(-T // 32))
    return problem, T, r, blocks


def test_check_answer_reads_many_forms():
    problem, T, r, blocks = occ1()
    w = -(-T // 32)
    active = blocks * w
    W = problem.gpu["max_warps_per_sm"]
    occ = Fraction(active, W)
    forms = {
        "occupancy": [decimal_text(occ), decimal_text(occ * 100) + "%",
                      decimal_text(occ * 100) + " %", f"{active}/{W}", f"{active} / {W}",
                      f"  {decimal_text(occ)} "],
        "blocks_per_sm": [str(blocks), f"{blocks} blocks", f"{blocks}.0",
                          f"floor({problem.gpu['regs_per_sm']}/({T}*{r}))"],
        "warps": [f"ceil({T}/32)", f"{w} warps"],
        "regs_per_block": [f"{T * r:,}", f"{T}*{r}"],
    }
    for key, texts in forms.items():
        for text in texts:
            result = check_answer(problem, key, text)
            assert result.status == "correct", (key, text, result.note)
    assert check_answer(problem, "blocks_per_sm", f"{blocks} KB").status == "wrong"
    assert check_answer(problem, "blocks_per_sm", "").status == "blank"
    assert check_answer(problem, "blocks_per_sm", "many").status == "invalid"
    assert check_answer(problem, None, decimal_text(occ)).key == "occupancy"


def test_parting_step_points_at_the_first_wrong_number():
    problem, T, r, blocks = occ1()
    w = -(-T // 32)
    wrong_warps = w + 3
    result = check_answer(problem, "warps", str(wrong_warps),
                          given={"blocks_per_sm": str(blocks)})
    assert result.status == "wrong" and not result.misconceptions
    formulas = [s.formula for s in problem.solution.steps]
    assert result.step == formulas.index("warps_per_block") + 1
    assert result.step_title == problem.solution.steps[result.step - 1].title
    assert result.step_result == str(w)


def test_limiter_answers():
    problem = generate_one("OCC-3", level=1, seed=0, lang="en")
    assert problem.answers["limiter"] == ["shared_memory"]
    for text in ("shared memory", "smem", "Shared_Memory", "shared-memory limited", "SHMEM"):
        assert check_answer(problem, "limiter", text).status == "correct", text
    assert check_answer(problem, "limiter", "registers").status == "wrong"
    assert check_answer(problem, "limiter", "smem and registers").status == "wrong"
    assert check_answer(problem, "limiter", "the moon").status == "invalid"


def test_carry_follows_the_declared_dependencies():
    """A dependent answer is recomputed by its spec's compute from the student's own value."""
    problem, T, r, blocks = occ1()
    data = problem.to_dict()
    slip = blocks + 1
    w = data["answers"]["warps"]
    result = check_answer(data, "active_warps", str(slip * w), given={"blocks_per_sm": str(slip)})
    assert result.status == "carried" and str(slip * w) in result.carried
    assert "(a)" in result.carried or "(b)" in result.carried or "(c)" in result.carried
    # A record saved under another meaning (other inputs) is graded without carrying.
    data["answer_specs"]["active_warps"]["depends_on"] = ["threads_per_block"]
    stale = check_answer(data, "active_warps", str(slip * w), given={"blocks_per_sm": str(slip)})
    assert stale.status == "wrong"


def test_points_may_be_given_per_answer(exam):
    from quizgen.grade.grader import question_points

    assert question_points(6, ["a", "b", "c"]) == {k: 2 for k in "abc"}
    assert question_points(5, ["a", "b", "c"])["a"] == Fraction(5, 3)
    assert question_points({"a": 4, "b": 1.5}, ["a", "b", "c"]) == {"a": 4, "b": Fraction(3, 2),
                                                                   "c": 0}
    assert question_points(None, ["a"]) == {"a": 1}
    with pytest.raises(QuizgenError):
        question_points(-1, ["a"])


# ---------------------------------------------------------------------------------------------
# Every family grades its own problems


def _as_text(value) -> str:
    return plain(value)


@pytest.mark.parametrize("cell", list(families()))
def test_family_correct_scores_full_and_every_distractor_less(cell):
    fam = family(cell)
    for level in (1, 2, 3):
        for seed in range(5):
            problem = generate_one(cell, level=level, seed=seed, lang="en")
            for key, value in problem.answers.items():
                assert check_answer(problem, key, _as_text(value)).status == "correct", \
                    (level, seed, key, value)
            main = problem.main_answer or next(iter(problem.answers))
            for choice in problem.choices:
                result = check_answer(problem, main, choice.text)
                assert result.earns == choice.correct, (level, seed, choice.text, result.note)
                if not choice.correct and choice.misconception:
                    assert choice.misconception in result.misconceptions
            gpu = gpu_from_dict(problem.gpu)
            solved = fam.solve(problem.params, gpu)
            for m in fam.applicable_misconceptions(problem.params, gpu, solved):
                for key, value in m.answers.items():
                    if key not in problem.answers or value == problem.answers[key]:
                        continue
                    result = check_answer(problem, key, _as_text(value))
                    assert result.status == "wrong", (level, seed, m.key, key, value)
                    assert m.key in result.misconceptions, (level, seed, m.key, key)
            assert check_answer(problem, main, "print(1)").status == "invalid"


def test_work_shared_across_students_never_changes_a_verdict(tmp_path, monkeypatch):
    """A class whose students share problems and write the same texts, graded once with
    everything shared (prepared problems, readings, comparisons, diagnoses) and once student
    by student from fresh copies with no reading or comparison remembered: the same results."""
    import copy
    import random

    from quizgen.grade import diagnose, grader, judge
    from quizgen.grade.compare import compare
    from quizgen.grade.parse import parse_with_work

    cells = (("OCC-2", 1), ("L-1", 1), ("OCC-1", 1))
    problems = {cell: [generate_one(cell, level=level, seed=s, lang="en").to_dict()
                       for s in range(3)] for cell, level in cells}
    rng = random.Random(7)
    students, rows, columns = [], [], {}
    for i in range(60):
        questions, cells_text = [], {}
        for number, (cell, _) in enumerate(cells, start=1):
            problem = problems[cell][rng.randrange(3)]
            fam = family(cell)
            gpu = gpu_from_dict(problem["gpu"])
            traps = fam.misconceptions(problem["params"], gpu, fam.solve(problem["params"], gpu))
            carried = carried_answers(problem)
            item = {**copy.deepcopy(problem), "number": number, "points": 3}
            questions.append(item)
            for key, value in problem["answers"].items():
                forms = [plain(value), styled(problem, key), "", "n/a", "1,5", plain(value) + "0"]
                forms += [plain(t.answers[key]) for t in traps if key in t.answers]
                if key in carried:
                    forms.append(carried[key])
                if isinstance(value, int):
                    forms += [str(value + 1), f"{value - 1} blocks"]
                columns[f"Q{number}.{key}"] = None
                cells_text[f"Q{number}.{key}"] = rng.choice(forms)
        students.append({"name": f"S{i}", "roll": f"R{i}", "version": f"V{i}",
                         "questions": questions})
        rows.append(cells_text)
    manifest = {"recipe": {"lang": "en"}, "students": students}
    buf = io.StringIO()
    writer = csv.writer(buf)
    writer.writerow(["name", "roll", "version", *columns])
    for s, cells_text in zip(students, rows):
        writer.writerow([s["name"], s["roll"], s["version"], *[cells_text.get(c, "") for c in columns]])
    (tmp_path / "a.csv").write_text(buf.getvalue(), encoding="utf-8")
    graded, _, unmatched = grader.grade_rows(manifest, read_answer_sheet(tmp_path / "a.csv"))
    assert not unmatched and len(graded) == 60
    statuses = {b.check.status for s in graded for b in s.boxes}
    assert {"correct", "wrong", "carried", "blank", "invalid"} <= statuses

    # The reference: nothing remembered between students, no reading or comparison reused.
    monkeypatch.setattr(judge, "compared", compare)
    monkeypatch.setattr(diagnose, "compared", compare)
    monkeypatch.setattr(judge, "_parse", lambda text: parse_with_work(text)[0])
    grader.clear_caches()
    for student, cells_text, result in zip(students, rows, graded):
        for item, got in zip(student["questions"], result.questions):
            q = grader.Prepared(copy.deepcopy(item), number=item["number"], points=3)
            texts = {key: cells_text[f"Q{item['number']}.{key}"] for key in q.asked}
            fresh = grader.grade_question(q, texts, lang="en")
            assert [b.check for b in got.boxes] == fresh, (student["name"], item["number"])
