"""Exam sheets: built with real engine problems, compiled by real Typst, read back with pypdf."""

from __future__ import annotations

import csv
import io
import json
import random
import re
import warnings
from pathlib import Path

import pypdf
import pytest

from quizgen.render.answers import param_name

from quizgen.engine.occupancy import launch_config, occupancy
from quizgen.errors import QuizgenError
from quizgen.render import numbers
from quizgen.export import sheet
from quizgen.export.sheet import FontWarning, build_exam, plan_exam
from quizgen.recipes import (Student, known_cells, load_exam_recipe, parse_exam_recipe,
                             parse_roster, read_roster)
from quizgen.files import plain_cell
from quizgen.gpus import get_gpu
from quizgen.problems.model import Problem, Solution, SolutionStep

ROOT = Path(__file__).resolve().parent.parent


def occupancy_problem(cell: str, *, level: int, seed: int, lang: str, gpu: str | None) -> Problem:
    """A real problem from the occupancy engine (stands in for the cell families)."""
    rng = random.Random(f"{cell}:{level}:{seed}")
    g = get_gpu(gpu or "textbook")
    T = rng.choice([64, 96, 128, 192, 256, 320, 384, 512, 768, 1024])
    r = rng.randrange(16, 129, 8)
    smem = rng.choice([0, 2048, 4096, 6144, 8192, 12288, 16384])
    res = occupancy(g, launch_config(T, r, smem), explain=True)
    steps = [SolutionStep(title=s.key.replace("_", " ").capitalize(), formula=s.formula,
                          values=dict(s.values), result=s.result, unit=s.unit,
                          why=f"Because of {s.why}.", note=s.note or "") for s in res.steps]
    solution = Solution(
        forecast="Which resource runs out first?", steps=steps,
        verify=[f"{res.blocks_per_sm} × {res.warps_per_block} = {res.active_warps} warps"],
        answer=f"{res.blocks_per_sm} blocks per SM, occupancy {res.occupancy:.4g}",
        trap="The floor throws away a partial block.")
    return Problem(
        id=f"{cell}-{level}-{seed}", cell=cell, level=level, lang=lang, seed=seed, gpu=g.to_dict(),
        params={"threads_per_block": T, "regs_per_thread": r, "smem_per_block": smem},
        answers={"blocks_per_sm": res.blocks_per_sm, "active_warps": res.active_warps,
                 "occupancy": res.occupancy, "limiter": list(res.limiter)},
        question=(f"A kernel runs {T} threads per block, {r} registers per thread and {smem} bytes "
                  f"of shared memory per block. How many blocks fit on one SM?"),
        solution=solution, title="Occupancy", model=res.model,
        units={"blocks_per_sm": "blocks", "active_warps": "warps"},
        tolerances={"occupancy": 0.005}, main_answer="occupancy")


RECIPE = {
    "title": "Midterm #1: $occupancy$ *and* [warps]",
    "course": "CS 433 // GPUs", "date": "2025-10-14", "duration": "60 min",
    "instructions": "= Not a heading\n- not a list\n\n#read(\"/etc/passwd\")",
    "lang": "en", "seed": 11,
    "questions": [
        {"cell": "OCC-1", "level": 1, "points": 4},
        {"cell": "OCC-2", "level": 2, "points": 6, "answers": ["blocks_per_sm", "occupancy"]},
        {"cell": "OCC-3", "level": 3, "points": 2.5, "answers": ["limiter"]},
    ],
}

HOSTILE_NAMES = [
    "Asha #read(\"/etc/passwd\")",
    "#import \"x\": *",
    "$ x $ Dollar",
    "Star*Under_Score",
    "[Bracket] \\Back\\slash",
    "<Angle> @at `tick` ~tilde",
    "// comment Name",
    "= Heading Name",
    "- Dash Name",
    "+ Plus Name",
]


def _roster(n: int) -> list[Student]:
    students = [Student(name, roll=f"H{i:02d}") for i, name in enumerate(HOSTILE_NAMES)]
    students.append(Student("राम शर्मा", roll="D01"))
    i = 0
    while len(students) < n:
        students.append(Student(f"Student {i:02d} Kumar", roll=f"R{i:03d}"))
        i += 1
    return students


def _pages(path: Path) -> list[str]:
    return [" ".join(page.extract_text().split()) for page in pypdf.PdfReader(path).pages]


def _bookmarks(path: Path) -> dict[str, range]:
    """version code → the PDF's pages of that unit, from the bookmark each unit carries."""
    reader = pypdf.PdfReader(path)
    starts = [(item.title, reader.get_destination_page_number(item)) for item in reader.outline]
    ends = [page for _, page in starts[1:]] + [len(reader.pages)]
    return {title.rsplit("Version ", 1)[1]: range(first, end)
            for (title, first), end in zip(starts, ends) if "Version " in title}


def _overview(path: Path) -> str:
    """The key's first pages: every version's answers on one table."""
    reader = pypdf.PdfReader(path)
    first_unit = min(pages[0] for pages in _bookmarks(path).values())
    return "\n".join(reader.pages[i].extract_text() for i in range(first_unit))


def _first_pages(path: Path, limit: int | None = None) -> dict[str, str]:
    """version code → the extracted text of that unit's first page (pypdf is slow on math)."""
    reader = pypdf.PdfReader(path)
    units = list(_bookmarks(path).items())[:limit]
    return {code: " ".join(reader.pages[pages[0]].extract_text().split()) for code, pages in units}


def _value_text(value) -> str:
    if isinstance(value, list):
        return ", ".join(value)
    if isinstance(value, float):
        return f"{value:.4f}".rstrip("0").rstrip(".")
    return str(value)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("exam") / "midterm"
    recipe = parse_exam_recipe(RECIPE)
    roster = _roster(40)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = build_exam(recipe, roster, None, out, generate=occupancy_problem)
    manifest = json.loads(result.manifest.read_text(encoding="utf-8"))
    return {"recipe": recipe, "roster": roster, "result": result, "manifest": manifest,
            "exam": _pages(result.exam_pdf), "key": _first_pages(result.key_pdf, limit=4),
            "overview": _overview(result.key_pdf), "caught": caught}


def _unit_pages(pages: list[str], code: str) -> list[str]:
    return [p for p in pages if f"Version {code}" in p]


def test_outputs_exist_and_folder_is_clean(built):
    result = built["result"]
    assert sorted(p.name for p in result.out_dir.iterdir()) == \
        [".quizgen-files.json", "answers.csv", "exam.pdf", "key.pdf", "manifest.json"]
    assert not [p for p in result.out_dir.parent.iterdir() if p.name.startswith(".")]
    assert result.students == 40


def test_each_student_pages_carry_name_version_and_numbers(built):
    manifest, exam = built["manifest"], built["exam"]
    codes = [s["version"] for s in manifest["students"]]
    assert len(set(codes)) == 40 and all(re.fullmatch(r"[0-9A-HJKMNP-TV-Z]{6}", c) for c in codes)
    seen_pages = 0
    for student in manifest["students"]:
        pages = _unit_pages(exam, student["version"])
        assert pages, student["name"]
        seen_pages += len(pages)
        for number, page in enumerate(pages, start=1):
            assert f"Page {number} of {len(pages)}" in page
            if student["roll"] != "D01":   # Devanagari text extraction depends on the font
                assert " ".join(student["name"].split()) in page, (student["name"], page[:200])
            assert f"Roll no. {student['roll']}" in page
            others = [c for c in codes if c != student["version"] and f"Version {c}" in page]
            assert not others
        text = " ".join(pages)
        for question in student["questions"]:
            for key, value in question["params"].items():
                name = param_name(key, "en")      # the recipe's language; None: how it is posed
                shown = numbers.number(value) if type(value) is int else value   # 16,384 as printed
                if name is None:
                    assert f"{key.replace('_', ' ')} =" not in text, (student["version"], key)
                else:
                    assert f"{name} = {shown}" in text, (student["version"], key)
            assert question["question"] in text
    assert seen_pages == len(exam)


def test_bookmarks_match_units(built):
    codes = [s["version"] for s in built["manifest"]["students"]]
    exam_units = _bookmarks(built["result"].exam_pdf)
    assert list(exam_units) == codes
    for code, pages in exam_units.items():
        assert [built["exam"][i] for i in pages] == _unit_pages(built["exam"], code)
    assert list(_bookmarks(built["result"].key_pdf)) == codes
    titles = [item.title for item in pypdf.PdfReader(built["result"].exam_pdf).outline]
    assert titles[0] == "Asha #read(\"/etc/passwd\")  ·  Roll no. H00  ·  Version " + codes[0]


def _engine_answers(params: dict) -> dict:
    engine = occupancy(get_gpu("textbook"), launch_config(
        params["threads_per_block"], params["regs_per_thread"], params["smem_per_block"]))
    return {"blocks_per_sm": engine.blocks_per_sm, "active_warps": engine.active_warps,
            "occupancy": engine.occupancy, "limiter": engine.limiter}


def _shown(question: dict, name: str) -> str:
    from quizgen.render.answers import answer_text

    return answer_text(question["answers"][name], question["units"].get(name, ""), question["lang"])


def test_manifest_answers_equal_the_engine(built):
    for student in built["manifest"]["students"]:
        for question in student["questions"]:
            expected = _engine_answers(question["params"])
            assert {k: question["answers"][k] for k in expected} == expected


def test_key_overview_equals_manifest(built):
    # one row per version: code, name (roll), then each question's answers in order
    text = built["overview"].replace("Version Name Question 1 Question 2 Question 3", "")
    # every page's running header (title · course · date · time) is not part of the table
    text = "\n".join(line for line in text.splitlines() if RECIPE["course"] not in line)
    rows = re.split(r"\n(?=[0-9A-Z]{6} )", text)
    by_code = {row[:6]: " ".join(row.split()) for row in rows[1:]}
    students = built["manifest"]["students"]
    assert list(by_code) == [s["version"] for s in students]
    for student in students:
        shown = " ".join(_shown(q, name) for q in student["questions"] for name in q["asked"])
        # pypdf may read lines of neighbouring cells interleaved: compare the words, not order
        row = by_code[student["version"]].split(f"({student['roll']}) ", 1)[1]
        # (a long value may wrap inside its cell, so compare characters, not whole words)
        assert sorted("".join(row.split())) == sorted("".join(shown.split())), (row, shown)


def test_key_version_pages_equal_manifest(built):
    students = {s["version"]: s for s in built["manifest"]["students"]}
    assert len(built["key"]) == 4
    for code, text in built["key"].items():
        student = students[code]
        assert f"Version {code}" in text and "Forecast" in text
        for question in student["questions"]:
            for name in question["asked"]:
                row = re.search(rf"Q{question['number']}\.{name} (.*?) "
                                rf"{re.escape(_shown(question, name))} ", text)
                assert row, (code, name)


def test_manifest_shape(built):
    manifest = built["manifest"]
    assert manifest["recipe"]["title"] == RECIPE["title"]
    first = manifest["students"][0]
    assert set(first) == {"name", "roll", "version", "questions", "predicted"}
    # each paper's predicted difficulty, from the prior without a calibration
    assert first["predicted"]["basis"] == "prior"
    assert set(first["predicted"]) == {"basis", "expected", "relative"}
    q1, q2, q3 = first["questions"]
    assert [q["number"] for q in (q1, q2, q3)] == [1, 2, 3]
    assert [q["points"] for q in (q1, q2, q3)] == [4, 6, 2.5]
    assert q1["asked"] == ["blocks_per_sm", "active_warps", "occupancy", "limiter"]
    assert q2["tolerances"] == {"blocks_per_sm": 0.0, "occupancy": 0.005}
    assert q3["asked"] == ["limiter"]
    assert {"id", "cell", "gpu", "params", "answers", "solution", "level", "lang"} <= set(q1)
    # the version's features, recorded before anyone sits the exam
    assert q1["features"]["cell"] == "OCC-1"
    assert q1["features"]["steps"] == len(q1["solution"]["steps"])
    assert Problem.from_dict({k: v for k, v in q1.items()
                              if k not in ("number", "points", "asked", "features")}).cell == "OCC-1"


def test_answers_csv(built):
    rows = list(csv.reader(io.StringIO(built["result"].answers_csv.read_text(encoding="utf-8-sig"))))
    assert rows[0] == ["name", "roll", "version", "Q1.blocks_per_sm", "Q1.active_warps",
                       "Q1.occupancy", "Q1.limiter", "Q2.blocks_per_sm", "Q2.occupancy",
                       "Q3.limiter", "Q1.id", "Q2.id", "Q3.id"]
    assert len(rows) == 41
    # a name a spreadsheet would run as a formula is written with an apostrophe in front
    assert [plain_cell(r[0]) for r in rows[1:]] == [s.name for s in built["roster"]]
    assert all(not r[0].startswith(("=", "+", "-", "@")) for r in rows)
    assert [r[2] for r in rows[1:]] == [s["version"] for s in built["manifest"]["students"]]
    assert all(cell == "" for r in rows[1:] for cell in r[3:-3])
    # each version's problem ids, prefilled (what `quizgen check ID ANSWER` takes)
    assert [r[-3:] for r in rows[1:]] == [[q["id"] for q in s["questions"]]
                                         for s in built["manifest"]["students"]]


def test_hostile_text_prints_literally(built):
    exam, key = built["exam"], built["key"]
    first_pages = [p for p in exam if "Page 1 of" in p]
    for page in first_pages:
        assert "Midterm #1: $occupancy$ *and* [warps]" in page
        assert "CS 433 // GPUs" in page
        assert "= Not a heading - not a list #read(\"/etc/passwd\")" in page
        assert "root:" not in page   # /etc/passwd was never read
    assert all("Midterm #1: $occupancy$ *and* [warps]" in page for page in key.values())
    assert "Midterm #1: $occupancy$ *and* [warps]" in built["overview"]


def test_hostile_names_change_nothing_else(tmp_path):
    recipe = parse_exam_recipe({**RECIPE, "questions": RECIPE["questions"][:1]})
    hostile = [Student(name, roll=f"H{i}") for i, name in enumerate(HOSTILE_NAMES)]
    plain = [Student(f"Plain Name {i}", roll=f"H{i}") for i in range(len(HOSTILE_NAMES))]
    a = build_exam(recipe, hostile, None, tmp_path / "a", generate=occupancy_problem)
    b = build_exam(recipe, plain, None, tmp_path / "b", generate=occupancy_problem)
    assert len(pypdf.PdfReader(a.key_pdf).pages) == len(pypdf.PdfReader(b.key_pdf).pages)
    pages = {"exam_pdf": (_pages(a.exam_pdf), _pages(b.exam_pdf)),
             "key_pdf": (list(_first_pages(a.key_pdf).values()),
                         list(_first_pages(b.key_pdf).values()))}
    for pdf, (pages_a, pages_b) in pages.items():
        assert len(pages_a) == len(pages_b)
        for page_a, page_b in zip(pages_a, pages_b):
            for h, p in zip(hostile, plain):
                page_a = page_a.replace(" ".join(h.name.split()), "NAME")
                page_b = page_b.replace(p.name, "NAME")
            assert page_a == page_b


def test_same_inputs_same_bytes_and_stable_versions(tmp_path):
    recipe = parse_exam_recipe(RECIPE)
    roster = _roster(14)[10:]
    one = build_exam(recipe, roster, None, tmp_path / "one", generate=occupancy_problem)
    two = build_exam(recipe, roster, None, tmp_path / "two", generate=occupancy_problem)
    for name in ("manifest.json", "answers.csv", "exam.pdf", "key.pdf"):
        assert (one.out_dir / name).read_bytes() == (two.out_dir / name).read_bytes(), name
    # a late addition to the roster changes nobody else's version
    plan = plan_exam(recipe, [Student("Late Comer", "Z9")] + roster, None,
                     generate=occupancy_problem)
    before = json.loads((one.out_dir / "manifest.json").read_text(encoding="utf-8"))["students"]
    assert [paper.to_dict() for paper in plan.manifest.students[1:]] == before
    # another seed gives other versions
    other = plan_exam(parse_exam_recipe({**RECIPE, "seed": 12}), roster, None,
                      generate=occupancy_problem)
    assert [p.version for p in other.manifest.students] != [s["version"] for s in before]


def test_anonymous_versions_and_practice_mode(tmp_path):
    recipe = parse_exam_recipe({**RECIPE, "questions": RECIPE["questions"][:2]})
    result = build_exam(recipe, None, 3, tmp_path / "practice", generate=occupancy_problem,
                        practice=True, paper="us-letter")
    manifest = json.loads(result.manifest.read_text(encoding="utf-8"))
    assert [(s["name"], s["roll"]) for s in manifest["students"]] == [("", "")] * 3
    assert len({s["version"] for s in manifest["students"]}) == 3
    reader = pypdf.PdfReader(result.exam_pdf)
    assert [round(float(v)) for v in reader.pages[0].mediabox[2:]] == [612, 792]
    pages = _pages(result.exam_pdf)
    text = " ".join(_unit_pages(pages, manifest["students"][0]["version"]))
    # the solutions come after every problem, from a page of their own
    q1, q2, solutions = text.index("Question 1"), text.index("Question 2"), text.index("Solutions")
    assert q1 < q2 < solutions < text.index("Forecast")
    under = build_exam(recipe, None, 1, tmp_path / "under", generate=occupancy_problem,
                       practice=True, solutions="under")
    text = " ".join(_pages(under.exam_pdf))
    q1, forecast1, q2, forecast2 = (text.index("Question 1"), text.index("Forecast"),
                                    text.index("Question 2"), text.rindex("Forecast"))
    assert q1 < forecast1 < q2 < forecast2 and "Solutions" not in text
    a4 = build_exam(recipe, None, 1, tmp_path / "a4", generate=occupancy_problem)
    assert [round(float(v)) for v in pypdf.PdfReader(a4.exam_pdf).pages[0].mediabox[2:]] == [595, 842]
    assert "Forecast" not in " ".join(_pages(a4.exam_pdf))


def test_devanagari_names_render_or_warn(built, tmp_path):
    families = sheet.fonts._font_families(())
    has_font = any("devanagari" in f.lower() or f in sheet.fonts._DEVANAGARI_FONTS for f in families)
    font_warnings = [w for w in built["caught"] if issubclass(w.category, FontWarning)]
    if has_font:
        assert not font_warnings and not built["result"].warnings
    else:
        assert len(font_warnings) == 1
        message = str(font_warnings[0].message)
        assert "राम शर्मा" in message and "Student 00" not in message
        assert "\n" not in message
    assert not [w for w in built["caught"] if not issubclass(w.category, FontWarning)]
    # Latin-only rosters never warn
    plan = plan_exam(parse_exam_recipe(RECIPE), [Student("Zoë Łukasz", "1")], None,
                     generate=occupancy_problem)
    assert plan.warnings == []


# ---------------------------------------------------------------------------------------------
# Bad input: one clear line, nothing half-written


def _one_line(exc: pytest.ExceptionInfo) -> str:
    message = str(exc.value)
    assert "\n" not in message and message
    return message


@pytest.mark.parametrize("text, needle", [
    ("", "is empty"),
    ("\n\n", "is empty"),
    ("given,roll\nAsha,1\n", "no name column"),
    ("name,roll\n", "no students"),
    ("name,roll\n,3\n", "line 2 has no name"),
])
def test_bad_rosters(text, needle):
    with pytest.raises(QuizgenError) as exc:
        parse_roster(text)
    assert needle in _one_line(exc)


def test_roster_file_bom_case_and_optional_roll(tmp_path):
    path = tmp_path / "roster.csv"
    path.write_bytes("\ufeffNAME,Roll,email\nअनिता,7,a@x\n\"Rao, Asha\",8,b@x\n".encode("utf-8"))
    assert read_roster(path) == [Student("अनिता", "7"), Student("Rao, Asha", "8")]
    path.write_text("Name\nAsha\nBo\n", encoding="utf-8")
    assert read_roster(path) == [Student("Asha", ""), Student("Bo", "")]
    path.write_bytes(b"name\n\xff\xfe\n")
    with pytest.raises(QuizgenError) as exc:
        read_roster(path)
    assert "UTF-8" in _one_line(exc)
    with pytest.raises(QuizgenError) as exc:
        read_roster(tmp_path / "missing.csv")
    assert "no such file" in _one_line(exc)


@pytest.mark.parametrize("change, needle", [
    ({"questions": [{"cell": "OCC-99"}]}, "questions[1].cell: unknown cell 'OCC-99'"),
    ({"questions": [{"cell": "OCC-1", "points": -2}]}, "questions[1].points"),
    ({"questions": [{"cell": "OCC-1", "level": 9}]}, "questions[1].level"),
    ({"questions": [{"cell": "OCC-1", "answers": []}]}, "questions[1].answers"),
    ({"questions": [{"cell": "OCC-1", "colour": "red"}]}, "unknown field 'colour'"),
    ({"questions": []}, "questions"),
    ({"title": ""}, "title"),
    ({"lang": "fr"}, "lang"),
    ({"gpu": "gtx-9999"}, "gpu"),
    ({"seed": -1}, "seed"),
])
def test_bad_recipes(change, needle):
    with pytest.raises(QuizgenError) as exc:
        parse_exam_recipe({**RECIPE, **change})
    assert needle in _one_line(exc)


def test_recipe_files(tmp_path):
    recipe = load_exam_recipe(ROOT / "decks" / "exams" / "midterm.toml")
    assert recipe.title and recipe.questions
    assert all(c in known_cells() for q in recipe.questions for c in q.cells)
    bad = tmp_path / "bad.toml"
    bad.write_text("title = \"x\"\n[[questions]\ncell = 1\n", encoding="utf-8")
    with pytest.raises(QuizgenError) as exc:
        load_exam_recipe(bad)
    assert "not valid TOML" in _one_line(exc)
    with pytest.raises(QuizgenError) as exc:
        load_exam_recipe(tmp_path / "nope.toml")
    assert "no such recipe file" in _one_line(exc) and "midterm (exams)" in _one_line(exc)


def test_asking_a_missing_answer_fails_before_writing(tmp_path):
    recipe = parse_exam_recipe({**RECIPE, "questions": [{"cell": "OCC-1", "answers": ["warps_needed"]}]})
    with pytest.raises(QuizgenError) as exc:
        build_exam(recipe, None, 1, tmp_path / "out", generate=occupancy_problem)
    assert "questions[1].answers" in _one_line(exc)
    assert list(tmp_path.iterdir()) == []


def test_failure_midway_leaves_no_folder(tmp_path, monkeypatch):
    recipe = parse_exam_recipe(RECIPE)

    def broken_compile(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(sheet.write, "run_job", broken_compile)
    with pytest.raises(RuntimeError):
        build_exam(recipe, None, 2, tmp_path / "out", generate=occupancy_problem)
    assert list(tmp_path.iterdir()) == []


def test_output_folder_rules(tmp_path):
    recipe = parse_exam_recipe({**RECIPE, "questions": RECIPE["questions"][:1]})
    foreign = tmp_path / "thesis"
    foreign.mkdir()
    (foreign / "chapter1.tex").write_text("precious", encoding="utf-8")
    with pytest.raises(QuizgenError) as exc:
        build_exam(recipe, None, 1, foreign, generate=occupancy_problem)
    assert "did not write" in _one_line(exc)
    assert (foreign / "chapter1.tex").read_text(encoding="utf-8") == "precious"
    # an earlier build is replaced whole
    out = tmp_path / "exam"
    build_exam(recipe, None, 2, out, generate=occupancy_problem)
    build_exam(recipe, None, 1, out, generate=occupancy_problem)
    assert len(json.loads((out / "manifest.json").read_text(encoding="utf-8"))["students"]) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["exam", "thesis"]
    with pytest.raises(QuizgenError) as exc:
        build_exam(recipe, [Student("A")], 2, tmp_path / "x", generate=occupancy_problem)
    assert "not both" in _one_line(exc)
    with pytest.raises(QuizgenError) as exc:
        build_exam(recipe, None, 1, tmp_path / "x", generate=occupancy_problem, paper="a5")
    assert "paper" in _one_line(exc)


def test_shipped_recipe_with_the_real_generator(tmp_path):
    from quizgen.generator import generate_one

    recipe = load_exam_recipe(ROOT / "decks" / "exams" / "midterm.toml")
    result = build_exam(recipe, None, 2, tmp_path / "mid", generate=generate_one)
    manifest = json.loads(result.manifest.read_text(encoding="utf-8"))
    key = " ".join(_pages(result.key_pdf))
    for student in manifest["students"]:
        for question in student["questions"]:
            for name in question["asked"]:
                assert f"Q{question['number']}.{name}" in key


def test_key_carries_each_problems_figure():
    from quizgen.export.sheet.layout import _solution
    from quizgen.generator import generate_one
    from quizgen.render.figures import figure_for

    problem = generate_one("OCC-3", level=1, seed=2, lang="en")
    svg = _solution(problem)["figure"]
    assert svg.lstrip().startswith("<svg") and svg == figure_for(problem)
    concept = generate_one("L-6", level=1, seed=0, lang="en")
    assert _solution(concept)["figure"] == ""


def test_the_answer_sheet_carries_each_versions_problem_ids_and_grades_as_without_them(tmp_path):
    from quizgen.generator import generate_one
    from quizgen.grade.grader import grade_class

    recipe = parse_exam_recipe({**RECIPE, "shuffle": True})
    roster = [Student(f"S{i}", roll=f"R{i}") for i in range(4)]
    plan = plan_exam(recipe, roster, None, generate=generate_one)
    (tmp_path / "manifest.json").write_text(plan.manifest_text(), encoding="utf-8")
    rows = list(csv.reader(io.StringIO(plan.answers_csv.removeprefix("\ufeff"))))
    header = rows[0]
    numbers_asked = sorted({q["number"] for q in plan.manifest.students[0].questions})
    assert header[-len(numbers_asked):] == [f"Q{n}.id" for n in numbers_asked]
    for row, paper in zip(rows[1:], plan.manifest.students):
        for q in paper.questions:          # the id under its question, whatever the order
            assert row[header.index(f"Q{q['number']}.id")] == q["id"]
            for i, key in enumerate(q["asked"]):
                value = q["answers"][key]
                text = ", ".join(value) if isinstance(value, list) else str(value)
                row[header.index(f"Q{q['number']}.{key}")] = text if i % 2 == 0 else "7"
    ids = [i for i, title in enumerate(header) if title.endswith(".id")]
    without = [[cell for i, cell in enumerate(row) if i not in ids] for row in rows]
    graded = {}
    for name, sheet_rows in (("with", rows), ("without", without)):
        path = tmp_path / f"{name}.csv"
        with path.open("w", encoding="utf-8", newline="") as fh:
            csv.writer(fh).writerows(sheet_rows)
        summary = grade_class(tmp_path / "manifest.json", path, tmp_path / f"graded-{name}")
        out = tmp_path / f"graded-{name}"
        graded[name] = (list(summary.students), (out / "results.csv").read_bytes(),
                        (out / "report.md").read_text(encoding="utf-8")
                        .replace(f"graded-{name}", "X").replace(f"{name}.csv", "X"),
                        sorted(p.name for p in out.rglob("*")))
    assert graded["with"] == graded["without"]
    assert len(graded["with"][0]) == len(roster)
