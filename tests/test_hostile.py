"""Hostile input a classroom produces, through the command a teacher runs (`python -m quizgen`):
each is one `error:` line and exit code 2 (no traceback), and nothing is written outside the
output folder, or it is applied with what quizgen decided said."""

from __future__ import annotations

import copy
import csv
import hashlib
import json
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import make_class, run_quizgen, with_answer_grid
from quizgen.export.sheet import plan_exam
from quizgen.recipes import Student, parse_exam_recipe
from quizgen.generator import generate_one

RECIPE = {"title": "Hostile quiz", "lang": "en", "seed": 4,
          "questions": [{"cell": "OCC-3", "level": 1,
                         "points": {"blocks_per_sm": 2, "occupancy": 2, "limiter": 1}}]}
ROSTER = [Student("Asha", "R01"), Student("Ravi", "CON"), Student("Chitra", "aux.")]


quizgen = run_quizgen


def one_error(result: subprocess.CompletedProcess, *pieces: str) -> str:
    """The run failed as bad input: exit 2, one `error:` line (after any warnings), no traceback."""
    assert result.returncode == 2, (result.returncode, result.stderr)
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    errors = [line for line in lines if not line.startswith("warning: ")]
    assert len(errors) == 1 and errors[0] == lines[-1] and errors[0].startswith("error: "), \
        result.stderr
    for piece in pieces:
        assert piece in errors[0], errors[0]
    return errors[0]


def tree(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def exam(tmp_path_factory):
    """A manifest, a filled answer sheet and its graded folder (graded once, copied per test)."""
    def fill(roll: str, number: int, box: str, right) -> str:
        if box == "occupancy":
            return f"{right * 100:g}%"
        return "registers" if box == "limiter" else str(right)

    root = make_class(tmp_path_factory.mktemp("exam"), RECIPE,
                      [(s.name, s.roll) for s in ROSTER], fill).dir
    result = quizgen("grade", root / "manifest.json", root / "answers.csv", "--out",
                     root / "graded")
    assert result.returncode == 0, result.stderr
    return root


@pytest.fixture()
def work(exam, tmp_path):
    shutil.copytree(exam, tmp_path, dirs_exist_ok=True)
    return tmp_path


def regrade(work: Path, overrides: str | bytes) -> subprocess.CompletedProcess:
    path = work / "overrides.csv"
    path.write_bytes(overrides.encode("utf-8") if isinstance(overrides, str) else overrides)
    return quizgen("regrade", work / "manifest.json", work / "answers.csv", "--out",
                   work / "graded", "--overrides", path)


# ---------------------------------------------------------------------------------------------
# A teacher's decisions that cannot be applied


@pytest.mark.parametrize("rows, pieces", [
    ("R01,Q1.occupancy,0,,a\nR01,Q1.occupancy,1,,b\n", ("lines 2 and 3", "Q1.occupancy", "R01")),
    ("R01,Q1.limiter,1,,a\nR01,Q1.limiter,,warps,b\n", ("lines 2 and 3", "accept 'warps'")),
    ("*,Q1.occupancy,0,,a\n*,q1.occupancy,2,,b\n", ("lines 2 and 3", "every student")),
    ("R01,Q1.occupancy,,banana,\n", ("line 2", "'banana'", "cannot be read", "unexpected")),
    ("*,Q1.limiter,,banana,\n", ("line 2", "'banana'", "could not read 'banana' as a limit")),
    ("R01,Q1.occupancy,1e309,,\n", ("line 2", "'1e309' is not a finite number")),
    ("R01,Q1.occupancy,inf,,\n", ("line 2", "'inf' is not a finite number")),
    ("R01,Q1.occupancy,nan,,\n", ("line 2", "'nan' is not a finite number")),
])
def test_a_decision_that_cannot_be_applied_stops_the_regrade(work, rows, pieces):
    before = tree(work / "graded")
    result = regrade(work, "roll,box,points,accept,reason\n" + rows)
    one_error(result, "overrides.csv", *pieces)
    assert tree(work / "graded") == before          # no history, no changes.csv: nothing moved


def test_rows_that_agree_and_a_row_for_one_student_over_everyone(work):
    result = regrade(work, "roll,box,points,accept,reason\n"
                           "R01,Q1.occupancy,1,,half\n"
                           "R01,Q1.occupancy,1,,pasted twice\n"
                           "*,Q1.occupancy,0,,nobody\n")
    assert result.returncode == 0, result.stderr
    with (work / "graded" / "results.csv").open(encoding="utf-8-sig", newline="") as fh:
        rows = {r["roll"]: r for r in csv.DictReader(fh)}
    # the row for R01 decides for R01 although the row for everyone comes after it
    assert rows["R01"]["Q1.occupancy"] == "1"
    assert rows["CON"]["Q1.occupancy"] == "0"


def test_two_excel_exports_pasted_into_one_overrides_file(work):
    """A byte-order mark and a header in the middle, zero-width characters in cells: the roll
    still matches, and a warning never prints an invisible character."""
    first = "\ufeffroll,box,points,accept,reason\nR01,Q1.occupancy,1,,first export\n"
    second = ("\ufeffroll,box,points,accept,reason\n"
              "\ufeff\"\u200bCON\u200b\",Q1.occupancy\u2060,1,,\"second, export\"\n"
              "\ufeffZ\u200b9\u200e,Q1.occupancy,1,,nobody\n"
              "Z\x07X,Q1.occupancy,1,,a bell\n")
    result = regrade(work, first + second)
    assert result.returncode == 0, result.stderr
    assert "2 boxes changed" in result.stdout
    warnings = result.stderr.strip().splitlines()
    assert any("line 5" in w and "Z9 Q1.occupancy matches no graded box" in w for w in warnings)
    assert any("Z<U+0007>X" in w for w in warnings), warnings
    assert all(w.isprintable() for w in warnings), warnings
    with (work / "graded" / "results.csv").open(encoding="utf-8-sig", newline="") as fh:
        rows = {r["roll"]: r for r in csv.DictReader(fh)}
    assert rows["R01"]["Q1.occupancy"] == "1" and rows["CON"]["Q1.occupancy"] == "1"


def test_invisible_characters_are_dropped_from_every_csv_read(work):
    """A roster and an answer sheet with zero-width characters and a pasted BOM."""
    from quizgen.recipes import parse_roster
    from quizgen.grade.sheet import read_answer_sheet

    students = parse_roster("name,roll\nAsha\u200b,\ufeffR01\n\ufeffRavi,R\u200d02\n"
                            "क्\u200dष,R03\n")
    assert [(s.name, s.roll) for s in students] == [("Asha", "R01"), ("Ravi", "R02"),
                                                     ("क्\u200dष", "R03")]   # a joiner kept in Devanagari
    path = work / "answers.csv"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("R01", "\u200bR01\ufeff"), encoding="utf-8")
    sheet = read_answer_sheet(path)
    assert any(row.cells[sheet.header.index("roll")] == "R01" for row in sheet.rows)


def test_an_unknown_misconception_in_the_lms_table_lists_the_valid_keys(tmp_path):
    recipe = tmp_path / "quiz.toml"
    recipe.write_text('title = "T"\n[lms]\npartial = { no_such_trap = 50 }\n'
                      '[[questions]]\ncell = "OCC-3"\n', encoding="utf-8")
    result = quizgen("export", recipe, "--out", tmp_path / "out" / "bank.xml")
    line = one_error(result, "no_such_trap", "lms.partial", "one_block_only")
    assert line.count(",") > 20                     # the valid keys are listed
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("value", ["1e309", "inf", "nan", "-inf"])
def test_a_non_finite_number_in_a_recipe_is_refused_alike(tmp_path, value):
    recipe = tmp_path / "quiz.toml"
    recipe.write_text(f'title = "T"\n[[questions]]\ncell = "OCC-3"\npoints = {value}\n',
                      encoding="utf-8")
    line = one_error(quizgen("sheet", recipe, "--out", tmp_path / "exam"), "points")
    assert "infinite" in line or "finite" in line
    assert len(line) < 200 and not (tmp_path / "exam").exists()


# ---------------------------------------------------------------------------------------------
# File names made from rolls and names


@pytest.mark.parametrize("name, stem", [
    ("CON", "_CON"), ("con.txt", "_con.txt"), ("aux.", "_aux"), ("NUL ", "_NUL"),
    ("COM1", "_COM1"), ("lpt9.md", "_lpt9.md"), ("COM¹", "_COM¹"), ("CONSOLE", "CONSOLE"),
    ("R 07.", "R_07"), ("a<b>c:d\"e/f\\g|h?i*j", "a_b_c_d_e_f_g_h_i_j"), ("...", "student"),
    ("tab\there\x00", "tab_here"), ("e\u0301", "é"),
])
def test_a_file_stem_is_safe_on_every_system(name, stem):
    from quizgen.files import file_stems

    assert file_stems([name], fallback="student") == [stem]


def test_file_stems_stay_distinct_as_windows_and_macos_compare_them():
    from quizgen.files import STEM_BYTES, STEM_CHARS, file_stems

    names = ["CON", "con", "R01", "r01", "é", "e\u0301", "x" * 300, "x" * 301, "ठ" * 200,
             "ठ" * 201, "ठ" * 202]
    stems = file_stems(names, alternates=[f"V{i}" for i in range(len(names))])
    folded = {s.casefold() for s in stems}
    assert len(folded) == len(names), stems
    assert stems[:4] == ["_CON", "_con-V1", "R01", "r01-V3"]
    assert all(len(s) <= STEM_CHARS and len(s.encode()) <= STEM_BYTES for s in stems), stems


def test_feedback_of_a_roll_named_con_is_not_a_device_on_windows(exam):
    names = sorted(p.name for p in (exam / "graded" / "feedback").iterdir())
    assert names == ["R01.html", "_CON.html", "_aux.html"]


# ---------------------------------------------------------------------------------------------
# What nvcc prints is read with a size limit


def test_an_nvcc_that_prints_without_end_is_stopped(tmp_path):
    nvcc = tmp_path / "nvcc"
    nvcc.write_text("#!/bin/sh\nwhile :; do echo 'ptxas info    : Used 32 registers, 380 bytes "
                    "cmem[0] and a very long line of output'; done >&2\n", encoding="utf-8")
    nvcc.chmod(nvcc.stat().st_mode | stat.S_IEXEC)
    source = tmp_path / "k.cu"
    source.write_text("__global__ void k() {}\n", encoding="utf-8")
    result = quizgen("occupancy", "--cu", source, "--arch", "sm_80", "--threads", "256",
                     env={"NVCC": str(nvcc)}, cwd=tmp_path)
    one_error(result, "cu:", "printed more than 64 MB", "stopped it")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["k.cu", "nvcc"]


def test_the_bounded_reader_stops_a_program_and_keeps_its_memory(tmp_path):
    import resource

    from quizgen.errors import QuizgenError
    from quizgen.files import run_limited

    script = "import sys\nchunk = b'x' * 65536\nwhile True: sys.stdout.buffer.write(chunk)\n"
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with pytest.raises(QuizgenError, match="printed more than 1 MB"):
        run_limited([sys.executable, "-c", script], "cu", limit=1 << 20, timeout=60)
    grown_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert grown_kb < 64 << 10, grown_kb         # far below what an unbounded read would hold
    code, out, err = run_limited([sys.executable, "-c", "print('ok')"], "cu", timeout=60)
    assert (code, out.strip(), err) == (0, "ok", "")


# ---------------------------------------------------------------------------------------------
# Manifests: every field checked at load, one line naming it


@pytest.fixture(scope="module")
def scan_manifest():
    """A manifest with answer grids, as `quizgen sheet --bubbles` writes it (its layout part
    built by the sheet's own functions, without running Typst)."""
    plan = plan_exam(parse_exam_recipe(RECIPE), ROSTER[:1], None, generate=generate_one)
    return with_answer_grid(json.loads(plan.manifest_text()))


def _edit(data, path, value):
    node = data
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = value


BAD_MANIFESTS = [
    # (where, new value, the field the line names)
    (("scan", "page_size"), [1e6, 1e6], "scan.page_size"),
    (("scan", "page_size"), [210], "scan.page_size"),
    (("scan", "page_size"), "a4", "scan.page_size"),
    (("scan", "marks"), [[11, 11]], "scan.marks"),
    (("scan", "marks"), [[11, 11], [199, 11], [199, 286]], "scan.marks"),   # one mark short
    (("scan", "marks"), [[11, 11], [199, 11], [199, 286], [5000, 11]], "scan.marks[4]"),
    (("scan", "radius"), -1, "scan.radius"),
    (("scan", "qr_size"), True, "scan.qr_size"),
    (("scan", "exam"), 7, "scan.exam"),
    (("students", 0, "sheet", "boxes"), "abc", "students[1].sheet.boxes"),
    (("students", 0, "sheet", "pages"), 10**9, "students[1].sheet.pages"),
    (("students", 0, "sheet"), [], "students[1].sheet"),
    (("students", 0, "sheet", "boxes", 0, "page"), 2, "students[1].sheet.boxes[1].page"),
    (("students", 0, "sheet", "boxes", 0, "places"), 10**9, "boxes[1].places"),
    (("students", 0, "sheet", "boxes", 0, "kind"), "essay", "boxes[1].kind"),
    (("students", 0, "sheet", "boxes", 0, "region"), [1, 2], "boxes[1].region"),
    (("students", 0, "sheet", "boxes", 0, "bubbles"), [[1, 2]], "boxes[1].bubbles[1]"),
    (("students", 0, "sheet", "boxes", 0, "bubbles"), "x" * 10**4, "boxes[1].bubbles"),
    (("students", 0, "version"), ["v"], "students[1].version"),
    (("students", 0, "questions", 0, "tolerances"), {"occupancy": -1}, "tolerances.occupancy"),
    (("students", 0, "questions", 0, "asked"), "occupancy", "questions[1].asked"),
    (("format_version", ), "two", "format_version"),
    (("format", ), "something-else", "manifest"),
]


@pytest.mark.parametrize("where, value, field", BAD_MANIFESTS,
                         ids=[".".join(map(str, w)) + f"={str(v)[:12]}" for w, v, _ in BAD_MANIFESTS])
def test_a_malformed_manifest_is_one_line_naming_the_field(scan_manifest, where, value, field):
    from quizgen.errors import QuizgenError
    from quizgen.manifest import check_manifest

    data = copy.deepcopy(scan_manifest)
    _edit(data, where, value)
    with pytest.raises(QuizgenError) as info:
        check_manifest(data, "m.json", scan=True)
    message = str(info.value)
    assert field in message and "\n" not in message and len(message) < 300, message


@pytest.mark.parametrize("command", ["scan", "grade", "check"])
@pytest.mark.parametrize("name, text, field", [
    ("huge_page", None, "scan.page_size"),
    ("boxes_text", None, "students[1].sheet.boxes"),
    ("infinite", '{"students": [{"questions": [], "version": "V"}], "x": 1e400}', "finite"),
    ("nan", '{"students": [{"questions": [], "version": "V"}], "x": NaN}', "finite"),
    ("points", None, "questions[1].points"),
    ("three_marks", None, "scan.marks"),
])
def test_every_command_that_reads_a_manifest_refuses_it_alike(scan_manifest, tmp_path, command,
                                                              name, text, field):
    data = copy.deepcopy(scan_manifest)
    if name == "huge_page":
        data["scan"]["page_size"] = [1e6, 1e6]
    elif name == "boxes_text":
        data["students"][0]["sheet"]["boxes"] = "abc"
    elif name == "points":
        data["students"][0]["questions"][0]["points"] = -3
    elif name == "three_marks":          # the loader and the scanner hold one rule: four marks
        data["scan"]["marks"] = data["scan"]["marks"][:3]
    path = tmp_path / "manifest.json"
    path.write_text(text if text is not None else json.dumps(data), encoding="utf-8")
    (tmp_path / "page.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    (tmp_path / "answers.csv").write_text("name,roll,version\n", encoding="utf-8")
    if command in ("grade", "check") and name in ("huge_page", "boxes_text", "three_marks"):
        field = None                     # the grader does not read the answer grids' layout
    args = {"scan": ["scan", tmp_path / "page.png", "--manifest", path, "--out", tmp_path / "out"],
            "grade": ["grade", path, tmp_path / "answers.csv", "--out", tmp_path / "out"],
            "check": ["check", "OCC-3-nope", "1", "--manifest", path]}[command]
    result = quizgen(*args)
    if field is None:
        assert "Traceback" not in result.stderr and result.returncode in (0, 1, 2)
        return
    one_error(result, field)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("edit, pieces", [
    (lambda d: d["answers"].update(occupancy=float("nan")), ("holds NaN", "finite")),
    (lambda d: d["tolerances"].update(occupancy=float("inf")), ("holds Infinity", "finite")),
    (lambda d: d.update(tolerances={"occupancy": "x"}), ("tolerances.occupancy", "got 'x'")),
    (lambda d: d.update(choices=[None]), ("choices",)),
])
def test_a_problem_file_for_check_is_held_to_the_manifest_rules(exam, tmp_path, edit, pieces):
    manifest = json.loads((exam / "manifest.json").read_text(encoding="utf-8"))
    problem = manifest["students"][0]["questions"][0]
    edit(problem)
    path = tmp_path / "problem.json"
    path.write_text(json.dumps(problem), encoding="utf-8")      # NaN and Infinity as JSON writes them
    one_error(quizgen("check", path, "25%", "--key", "occupancy"), "problem:", *pieces)


def test_a_number_written_beyond_a_float_in_a_manifest_is_refused(exam, tmp_path):
    text = (exam / "manifest.json").read_text(encoding="utf-8")
    path = tmp_path / "m.json"
    path.write_text(text.replace('"points": ', '"points": 1e309, "was": ', 1), encoding="utf-8")
    one_error(quizgen("grade", path, exam / "answers.csv", "--out", tmp_path / "g"),
              "manifest:", "1e309", "not a finite number")
    assert not (tmp_path / "g").exists()


def test_a_regrade_that_fails_leaves_the_results_and_no_history(work):
    before = tree(work / "graded")
    data = json.loads((work / "manifest.json").read_text(encoding="utf-8"))
    data["students"][1]["questions"][0]["points"] = -3
    (work / "bad.json").write_text(json.dumps(data), encoding="utf-8")
    result = quizgen("regrade", work / "bad.json", work / "answers.csv", "--out", work / "graded")
    one_error(result, "students[2].questions[1].points")
    (work / "empty.csv").write_text("", encoding="utf-8")
    result = quizgen("regrade", work / "manifest.json", work / "empty.csv", "--out",
                     work / "graded")
    one_error(result, "empty")
    assert tree(work / "graded") == before and not (work / "graded" / "history").exists()


def test_override_rows_naming_one_student_by_roll_and_by_version_conflict(work):
    data = json.loads((work / "manifest.json").read_text(encoding="utf-8"))
    version = data["students"][0]["version"]
    result = regrade(work, f"roll,box,points\nR01,Q1.occupancy,0\n{version},Q1.occupancy,2\n")
    one_error(result, "lines 2 and 3", "Q1.occupancy")


@pytest.mark.parametrize("args", [
    ["export", "{recipe}", "--variants", "1", "--out", "{recipe}"],
    ["deck", "{recipe}", "--lock", "{recipe}", "--out", "{dir}/d.apkg", "-q"],
])
def test_an_output_that_is_the_commands_own_recipe_is_refused(tmp_path, args):
    """`--out my.toml` (a slip of the tab key) used to replace the teacher's recipe with a bank."""
    recipe = tmp_path / "my.toml"
    text = 'cells = ["OCC-2"]\nper_cell = 1\nlevels = [1]\n'
    recipe.write_text(text, encoding="utf-8")
    argv = [a.replace("{recipe}", str(recipe)).replace("{dir}", str(tmp_path)) for a in args]
    done = subprocess.run([sys.executable, "-m", "quizgen", *argv], capture_output=True,
                          text=True, cwd=tmp_path)
    assert done.returncode == 2 and "would overwrite the input" in done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert recipe.read_text(encoding="utf-8") == text
