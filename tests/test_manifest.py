"""The exam's record has one home (`quizgen.manifest`): the sheet writes a `Manifest`, scan and
grade read the same one back, its answer columns are the answer sheet's, its lookups find what
the commands look for, and the loader and the scanner hold one rule for the corner marks."""

from __future__ import annotations

import csv
import io
import json

import pytest

from quizgen.errors import QuizgenError
from quizgen.export.sheet import plan_exam
from quizgen.export.sheet.layout import scan_layout
from quizgen.generator import generate_one
from quizgen.manifest import (CORNER_MARKS, MAX_STUDENTS, Manifest, ManifestWriter, StudentPaper,
                              answer_columns, load_manifest, manifest_json)
from quizgen.recipes import Student, parse_exam_recipe

RECIPE = {"title": "Record", "lang": "en", "seed": 9, "shuffle": True,
          "questions": [{"cell": "OCC-3", "level": 1, "points": 4,
                         "answers": ["blocks_per_sm", "occupancy"]},
                        {"cell": "W-B", "level": 1, "points": 2, "answers": ["warps"]},
                        {"cell": "OCC-1", "level": 1, "points": 3}]}
ROSTER = [Student("Asha Rao", "R01"), Student("Ravi", "r02"), Student("Meera", "R03"),
          Student("Dev", "R04")]


@pytest.fixture(scope="module")
def planned():
    return plan_exam(parse_exam_recipe(RECIPE), ROSTER, None, generate=generate_one)


def test_a_written_manifest_reads_back_as_the_same_record(planned, tmp_path):
    path = tmp_path / "manifest.json"
    path.write_text(planned.manifest_text(), encoding="utf-8")
    read = load_manifest(path)
    assert read == planned.manifest and read.source == str(path)
    assert manifest_json(read) == planned.manifest_text()
    assert [p.roll for p in read.students] == ["R01", "r02", "R03", "R04"]
    assert any(p.order is not None for p in read.students)       # the exam is shuffled


def test_the_writer_streams_what_the_whole_record_gives():
    head = Manifest({"title": "Zoë \"quoted\"", "questions": [1, 2]}, [], "a4", False,
                    scan={"exam": "X"})
    papers = [StudentPaper("राम", "", "V1", [{"a": [1, {"b": None}], "number": 1}]),
              StudentPaper("", "R2", "V2", [{"number": 2}, {"number": 1}], order=[2, 1],
                           sheet={"pages": 1, "boxes": []})]
    buf = io.StringIO()
    writer = ManifestWriter(buf, head)
    for paper in papers:
        writer.add(paper)
    writer.close()
    whole = Manifest(head.recipe, papers, "a4", False, scan={"exam": "X"})
    text = buf.getvalue()
    assert text == manifest_json(whole) and json.loads(text) == whole.to_dict()
    lines = text.splitlines()
    assert [json.loads(line.strip().rstrip(",")) for line in lines
            if line.startswith("    {")] == [p.to_dict() for p in papers]   # a line a paper
    assert '"title": "Zoë \\"quoted\\""' in text          # the head indented, UTF-8 as it is
    assert manifest_json(Manifest({}, [], None, False)).endswith('"students": []\n}\n')
    with pytest.raises(AssertionError):
        ManifestWriter(io.StringIO(), whole)          # a head holds no papers


def test_a_manifest_written_indented_reads_as_the_same_record(planned, tmp_path):
    """Manifests were written indented throughout (each paper over hundreds of lines) before
    each paper took one line; both are the same JSON and load to the same record, and a paper
    on one line takes well under two thirds of the bytes (a third with answer grids)."""
    indented = json.dumps(json.loads(planned.manifest_text()), sort_keys=True, indent=2,
                          ensure_ascii=False) + "\n"
    old, new = tmp_path / "indented.json", tmp_path / "manifest.json"
    old.write_text(indented, encoding="utf-8")
    new.write_text(planned.manifest_text(), encoding="utf-8")
    before, now = load_manifest(old), load_manifest(new)
    assert before == now == planned.manifest
    assert list(before.students) == list(now.students)
    assert before.answer_columns() == now.answer_columns()
    assert dict(before.problems()) == dict(now.problems())
    assert manifest_json(before) == planned.manifest_text()
    assert len(planned.manifest_text().encode()) < 0.65 * len(indented.encode())


def test_the_answer_columns_are_the_sheets_in_question_order(planned):
    header = next(csv.reader(io.StringIO(planned.answers_csv.removeprefix("\ufeff"))))
    columns = planned.manifest.answer_columns()
    assert header[3:3 + len(columns)] == columns
    assert columns[:3] == ["Q1.blocks_per_sm", "Q1.occupancy", "Q2.warps"]
    assert answer_columns([(2, ["b"]), (1, ["a", "b"]), (2, ["b", "c"])]) == \
        ["Q1.a", "Q1.b", "Q2.b", "Q2.c"]


def test_the_lookups_find_each_box_problem_and_paper(planned):
    manifest = planned.manifest
    boxes = list(manifest.boxes())
    assert len(boxes) == len(ROSTER) * len(manifest.answer_columns())
    paper, number, key, question = boxes[0]
    assert manifest.question(paper.version, number) is question and key in question["asked"]
    assert manifest.question(paper.version, 99) is None and manifest.question("NOPE", 1) is None
    assert manifest.problems()[question["id"]]["cell"] == question["cell"]
    assert manifest.papers_of(roll=" R02 ") == [manifest.students[1]]
    assert manifest.papers_of(version=paper.version.lower()) == [paper]
    assert manifest.by_version(paper.version) is paper
    assert manifest.title == "Record" and manifest.language() == "en"
    assert manifest.language("hinglish") == "hinglish"
    with pytest.raises(QuizgenError, match="klingon"):
        manifest.language("klingon")


def test_a_json_table_is_taken_as_its_manifest(planned):
    table = json.loads(planned.manifest_text())
    assert Manifest.of(table) == planned.manifest and Manifest.of(planned.manifest) is planned.manifest
    with pytest.raises(QuizgenError, match="students"):
        Manifest.of({"recipe": {}})


def test_the_sheet_draws_no_more_versions_than_a_manifest_holds():
    recipe = parse_exam_recipe(RECIPE)
    with pytest.raises(QuizgenError, match="from 1 to 5000"):
        plan_exam(recipe, None, MAX_STUDENTS + 1, generate=generate_one)


def _with_marks(planned, tmp_path, count: int):
    data = json.loads(planned.manifest_text())
    data["scan"] = scan_layout(parse_exam_recipe(data["recipe"]), "a4")
    data["scan"]["marks"] = data["scan"]["marks"][:count]
    for student in data["students"]:
        student["sheet"] = {"pages": 1, "boxes": []}
    path = tmp_path / f"marks-{count}.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_the_sheet_prints_the_corner_marks_the_loader_asks_for(planned, tmp_path):
    assert len(scan_layout(parse_exam_recipe(RECIPE), "a4")["marks"]) == CORNER_MARKS == 4
    assert load_manifest(_with_marks(planned, tmp_path, 4), scan=True).scan["marks"]


def test_three_corner_marks_are_refused_alike_by_the_loader_and_the_scanner(planned, tmp_path):
    from quizgen.scan import scan_class

    path = _with_marks(planned, tmp_path, 3)
    with pytest.raises(QuizgenError) as loaded:
        load_manifest(path, scan=True)
    with pytest.raises(QuizgenError) as scanned:
        scan_class([tmp_path / "page.png"], path, tmp_path / "out")
    assert str(loaded.value) == str(scanned.value)
    assert "scan.marks" in str(loaded.value) and "4 corner marks" in str(loaded.value)
    assert load_manifest(path).scan is not None        # the grader does not read the layout


def test_each_paper_is_given_once_checked_with_the_layout_before_or_after_it(planned, tmp_path):
    """`load_manifest(scan=True, each=...)` hands every paper over once, in order, checked
    against the page's layout: in the one reading when the layout comes first (as quizgen
    writes it, keys sorted), in a second pass when a hand-made file puts it last; a bubble off
    the page is refused alike both ways, and no paper is handed over before it is checked."""
    data = json.loads(_with_marks(planned, tmp_path, 4).read_text(encoding="utf-8"))
    for student in data["students"]:
        student["sheet"] = {"pages": 1, "boxes": [{
            "column": "Q1.warps", "kind": "yes_no", "page": 1, "region": [20, 30, 120, 14],
            "bubbles": [[25.0, 35.0, "p1", "0"], [30.0, 35.0, "p1", "1"]]}]}
    layout_last = {key: value for key, value in data.items() if key != "scan"}
    layout_last["scan"] = data["scan"]
    versions = [s["version"] for s in data["students"]]
    for name, table in (("first.json", data), ("last.json", layout_last)):
        path = tmp_path / name
        path.write_text(json.dumps(table, sort_keys=name == "first.json"), encoding="utf-8")
        given = []
        manifest = load_manifest(path, scan=True, each=given.append)
        assert [p.version for p in given] == versions == [p.version for p in manifest.students]
        assert given[2].sheet["boxes"][0]["bubbles"][1] == [30.0, 35.0, "p1", "1"]
    refused = []
    for name, table in (("first.json", data), ("last.json", layout_last)):
        table["students"][2]["sheet"]["boxes"][0]["bubbles"][1][0] = 900.0   # off an A4 page
        path = tmp_path / name
        path.write_text(json.dumps(table, sort_keys=name == "first.json"), encoding="utf-8")
        given = []
        with pytest.raises(QuizgenError) as error:
            load_manifest(path, scan=True, each=given.append)
        refused.append(str(error.value).replace(name, "M"))
        assert [p.version for p in given] == versions[:2]     # each checked before handed over
    assert refused[0] == refused[1]
    assert "students[3].sheet.boxes[1].bubbles[2]" in refused[0] and "900" in refused[0]
