"""`quizgen grade --lms moodle|canvas`: the gradebook import CSV, one row per roster student."""

from __future__ import annotations

import csv
from fractions import Fraction

import pytest
from typer.testing import CliRunner

from conftest import make_class
from quizgen.cli import app
from quizgen.recipes import Student

runner = CliRunner()

RECIPE = {"title": "Unit test", "lang": "en", "seed": 4,
          "questions": [{"cell": "OCC-3", "level": 1, "points": 4,
                         "answers": ["blocks_per_sm", "occupancy"]},
                        {"cell": "W-B", "level": 1, "points": 2.5, "answers": ["warps"]}]}
ROSTER = [Student(name="Asha Rao", roll="CS21-001"), Student(name="Ravi, K.", roll="CS21-002"),
          Student(name="Meera", roll="CS21-003")]


def _fill(roll: str, number: int, box: str, right) -> str:
    """Ravi gets the occupancy wrong; Meera leaves question 2 blank; the rest is right."""
    if roll == "CS21-002" and box == "occupancy":
        return "0.999"
    if roll == "CS21-003" and number == 2:
        return ""
    return str(right)


@pytest.fixture()
def graded(tmp_path):
    exam = make_class(tmp_path, RECIPE, [(s.name, s.roll) for s in ROSTER], _fill)
    return exam.manifest, exam.answers, tmp_path


def _read(path):
    with path.open(encoding="utf-8-sig", newline="") as fh:
        return list(csv.reader(fh))


def _graded_into(graded, folder, lms):
    """Grade the class with ``--lms``: (the output folder, the rows of its gradebook CSV)."""
    manifest, answers, tmp = graded
    out = tmp / folder
    result = runner.invoke(app, ["grade", str(manifest), str(answers), "--out", str(out),
                                 "--lms", lms])
    assert result.exit_code == 0, result.output
    return out, _read(out / f"{lms}-grades.csv")


def test_moodle_gradebook_has_an_id_column_matching_the_roster_and_a_column_per_item(graded):
    out, rows = _graded_into(graded, "g", "moodle")
    assert rows[0] == ["ID number", "Full name", "Unit test: Q1 OCC-3", "Unit test: Q2 W-B",
                       "Unit test: total"]
    assert [r[0] for r in rows[1:]] == [s.roll for s in ROSTER]
    assert [r[1] for r in rows[1:]] == [s.name for s in ROSTER]
    with (out / "results.csv").open(encoding="utf-8-sig", newline="") as fh:
        results = {r["roll"]: r for r in csv.DictReader(fh)}
    for row in rows[1:]:
        q1, q2, total = (Fraction(v) for v in row[2:])
        assert q1 + q2 == total
        assert total == Fraction(results[row[0]]["score"])
    by_roll = {r[0]: [Fraction(v) for v in r[2:]] for r in rows[1:]}
    assert by_roll["CS21-001"] == [4, Fraction(5, 2), Fraction(13, 2)]
    assert by_roll["CS21-002"] == [2, Fraction(5, 2), Fraction(9, 2)]     # occupancy wrong
    assert by_roll["CS21-003"] == [4, 0, 4]                                # question 2 blank


# ---------------------------------------------------------------------------------------------
# Moodle's CSV grade import, as its code does it: grade_import_mapping_form (grade/import/
# grade_import_form.php: every column's mapping starts at its first option, "Ignore"; "New grade
# item" or an existing item are the others), gradeimport_csv_load_data::map_user_data_with_value
# and import_new_grade_item (grade/import/csv/classes/load_data.php: a "new" column becomes a
# grade_import_newitem named by its header), grade_import_commit (grade/import/lib.php: a new
# item is `new grade_item(courseid, itemtype manual, itemname)`, so its maximum is grade_item's
# default, 100); the course total of natural aggregation sums every item, grades and maximums.


def moodle_import(rows, mapping, items):
    """(course total per ID number, course maximum) after importing `rows` with `mapping`
    (column header → "ignore", "new", or the name of an existing item in `items`, name → max)."""
    header, body = rows[0], rows[1:]
    maxima = dict(items)
    grades = {name: {} for name in items}
    id_column = header.index("ID number")
    for j, title in enumerate(header):
        target = mapping.get(title, "ignore")
        if target == "ignore" or j == id_column:
            continue
        if target == "new":
            target = title
            maxima[target] = 100
            grades[target] = {}
        for row in body:
            grades[target][row[id_column]] = Fraction(row[j])
    totals = {row[id_column]: sum(g.get(row[id_column], 0) for g in grades.values()) for row in body}
    return totals, sum(maxima.values())


def test_moodle_import_as_the_readme_says_keeps_the_total_and_each_questions_points(graded):
    from conftest import REPO

    out, rows = _graded_into(graded, "m", "moodle")
    questions, total = rows[0][2:-1], rows[0][-1]
    points = dict(zip(questions, (Fraction(4), Fraction(5, 2))))
    quizgen_totals = {r[0]: Fraction(r[-1]) for r in rows[1:]}
    # the README: items out of each question's points first, each question's column mapped to
    # its item, the total's column left at Ignore
    totals, maximum = moodle_import(rows, {q: q for q in questions}, points)
    assert totals == quizgen_totals and maximum == sum(points.values())
    # what the README said before: every column a new item, the total among them
    naive, naive_max = moodle_import(rows, {title: "new" for title in rows[0][2:]}, {})
    assert naive == {roll: 2 * value for roll, value in quizgen_totals.items()}
    assert naive_max == 100 * (len(questions) + 1)
    readme = " ".join((REPO / "README.md").read_text(encoding="utf-8").split())
    assert "leave the total's column at *Ignore*" in readme
    assert "*Maximum grade* the question's points" in readme
    assert '("New grade item") is out of 100' in readme and total.endswith(": total")


def test_canvas_gradebook_has_points_possible_and_sis_ids(graded):
    manifest, answers, tmp = graded
    out = tmp / "c"
    result = runner.invoke(app, ["grade", str(manifest), str(answers), "--out", str(out),
                                 "--lms", "canvas"])
    assert result.exit_code == 0, result.output
    rows = _read(out / "canvas-grades.csv")
    assert rows[0][:5] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
    assert rows[1] == ["Points Possible", "", "", "", "", "4", "2.5", "6.5"]
    assert [(r[0], r[2]) for r in rows[2:]] == [(s.name, s.roll) for s in ROSTER]
    assert rows[3][5:] == ["2", "2.5", "4.5"]


def test_unknown_lms_is_one_line_before_any_grading(graded):
    manifest, answers, tmp = graded
    result = runner.invoke(app, ["grade", str(manifest), str(answers), "--out", str(tmp / "x"),
                                 "--lms", "blackboard"])
    assert result.exit_code == 2
    assert "lms: got 'blackboard'" in result.stderr and result.stderr.strip().count("\n") == 0
    assert not (tmp / "x").exists()


# ---------------------------------------------------------------------------------------------
# Every shipped exam recipe, as a teacher runs it: sheet → fill in → grade --lms


def _shipped_exams():
    from quizgen.recipes import packaged_path

    return sorted(packaged_path("decks", "exams").glob("*.toml"))


def _quizgen(*args, cwd):
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-m", "quizgen", *map(str, args)], cwd=cwd,
                          capture_output=True, text=True, encoding="utf-8")


def _fill_right_answers(folder):
    """answers.csv with every box written as the key writes it (the right answers)."""
    import json

    from quizgen.render.answers import answer_text

    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8-sig"))
    rows = _read(folder / "answers.csv")
    header = rows[0]
    by_roll = {s["roll"]: s for s in manifest["students"]}
    for row in rows[1:]:
        for q in by_roll[row[header.index("roll")]]["questions"]:
            for key in q["asked"]:
                row[header.index(f"Q{q['number']}.{key}")] = answer_text(
                    q["answers"][key], q["units"].get(key, ""), q["lang"])
    filled = folder.parent / "filled-answers.csv"
    with filled.open("w", encoding="utf-8", newline="") as fh:
        csv.writer(fh).writerows(rows)
    return manifest, filled


@pytest.mark.parametrize("extra", [(), ("--lang", "hinglish", "--shuffle")],
                         ids=["as-shipped", "hinglish-shuffled"])
@pytest.mark.parametrize("recipe", _shipped_exams(), ids=lambda p: p.stem)
def test_every_shipped_exam_grades_into_both_gradebooks(tmp_path, recipe, extra):
    """The README's sheet → grade --lms commands on each shipped exam recipe (points per box
    or per question): full marks in every column for a class that writes the key's answers."""
    (tmp_path / "class.csv").write_text("name,roll\nAsha Rao,CS21-001\nRavi K,CS21-002\n",
                                        encoding="utf-8")
    built = _quizgen("sheet", recipe, "--roster", "class.csv", "--out", "midterm/", *extra,
                     cwd=tmp_path)
    assert built.returncode == 0, built.stderr
    manifest, filled = _fill_right_answers(tmp_path / "midterm")
    questions = manifest["recipe"]["questions"]
    possible = [sum(Fraction(str(v)) for v in q["points"].values())
                if isinstance(q["points"], dict) else Fraction(str(q["points"]))
                for q in questions]
    for lms in ("moodle", "canvas"):
        out = f"graded-{lms}/"
        result = _quizgen("grade", "midterm/manifest.json", filled.name, "--out", out, "--lms",
                          lms, cwd=tmp_path)
        assert result.returncode == 0, result.stderr
        rows = _read(tmp_path / out / f"{lms}-grades.csv")
        first = 2 if lms == "moodle" else 5
        assert len(rows[0]) == first + len(questions) + 1
        assert all("{" not in title and "[" not in title for title in rows[0])
        students = rows[1:] if lms == "moodle" else rows[2:]
        if lms == "canvas":
            assert [Fraction(v) for v in rows[1][first:]] == possible + [sum(possible)]
        assert len(students) == 2
        for row in students:
            assert [Fraction(v) for v in row[first:]] == possible + [sum(possible)]
