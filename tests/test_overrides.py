"""Invalid answers score zero and are listed for review; a teacher's overrides; `quizgen regrade`
keeps the earlier results and lists what changed."""

from __future__ import annotations

import csv
from fractions import Fraction

import pytest
from typer.testing import CliRunner

from conftest import make_class
from quizgen.cli import app
from quizgen.errors import QuizgenError
from quizgen.grade.overrides import read_overrides

runner = CliRunner()

RECIPE = {"title": "Override quiz", "lang": "en", "seed": 4,
          "questions": [{"cell": "OCC-3", "level": 1,
                         "points": {"blocks_per_sm": 2, "occupancy": 2, "limiter": 1}}]}


def _rows(path):
    with path.open(encoding="utf-8-sig", newline="") as fh:
        return {r["roll"]: r for r in csv.DictReader(fh)}


def _fill(roll: str, number: int, box: str, right) -> str:
    """Right answers (the occupancy as a percentage, the limiter as shared memory), except that
    B2's occupancy is unreadable and C3 names registers (wrong, later accepted)."""
    if box == "occupancy":
        return "oops" if roll == "B2" else f"{right * 100:g}%"
    if box == "limiter":
        return "registers" if roll == "C3" else "shared memory"
    return str(right)


@pytest.fixture()
def graded(tmp_path):
    made = make_class(tmp_path, RECIPE, [("Asha", "A1"), ("Ravi", "B2"), ("Chitra", "C3")], _fill)
    manifest, answers = made.manifest, made.answers
    out = tmp_path / "graded"
    result = runner.invoke(app, ["grade", str(manifest), str(answers), "--out", str(out)])
    assert result.exit_code == 0, result.output
    return {"manifest": manifest, "answers": answers, "out": out, "dir": tmp_path}


def test_unreadable_answers_score_zero_and_need_review(graded):
    rows = _rows(graded["out"] / "results.csv")
    assert (rows["B2"]["score"], rows["B2"]["max_score"]) == ("3", "5")
    assert rows["B2"]["Q1.occupancy"] == "0" and rows["B2"]["needs_review"] == "Q1.occupancy"
    assert rows["A1"]["score"] == "5" and rows["A1"]["needs_review"] == ""
    assert (rows["C3"]["score"], rows["C3"]["Q1.limiter"]) == ("4", "0")
    assert (graded["out"] / "results.csv").read_bytes().startswith(b"\xef\xbb\xbf")


def test_regrade_applies_overrides_and_keeps_the_earlier_results(graded):
    overrides = graded["dir"] / "overrides.csv"
    overrides.write_text("roll;box;points;accept;reason\n"
                         "B2;Q1.occupancy;1;;working shows the right fraction\n"
                         "*;q1.limiter;;registers;either limiter is right here\n"
                         "Z9;Q1.occupancy;2;;nobody\n", encoding="utf-8")
    before = (graded["out"] / "results.csv").read_bytes()
    result = runner.invoke(app, ["regrade", str(graded["manifest"]), str(graded["answers"]),
                                 "--out", str(graded["out"]), "--overrides", str(overrides)])
    assert result.exit_code == 0, result.output
    assert "2 boxes changed" in result.stdout
    assert "line 4: override for Z9 Q1.occupancy matches no graded box" in result.stderr
    assert (graded["out"] / "history" / "1" / "results.csv").read_bytes() == before
    rows = _rows(graded["out"] / "results.csv")
    assert (rows["B2"]["score"], rows["B2"]["Q1.occupancy"], rows["B2"]["needs_review"]) == \
        ("4", "1", "")
    assert (rows["C3"]["score"], rows["C3"]["Q1.limiter"]) == ("5", "1")
    assert rows["A1"]["score"] == "5"
    changes = _rows(graded["out"] / "changes.csv")
    assert {(r["roll"], r["box"], r["before"], r["after"]) for r in changes.values()} == {
        ("B2", "Q1.occupancy", "0", "1"), ("C3", "Q1.limiter", "0", "1")}
    feedback = (graded["out"] / "feedback" / "B2.html").read_text("utf-8")   # as graded
    assert "working shows the right fraction" in feedback
    # a second regrade without overrides goes back, and keeps both earlier results
    again = runner.invoke(app, ["regrade", str(graded["manifest"]), str(graded["answers"]),
                                "--out", str(graded["out"])])
    assert again.exit_code == 0, again.output
    assert (graded["out"] / "history" / "2" / "changes.csv").is_file()
    assert _rows(graded["out"] / "results.csv")["B2"]["score"] == "3"


@pytest.mark.parametrize("text, needle", [
    ("roll,box\nA1,Q1.x\n", "needs the columns"),
    ("roll,box,points\nA1,,2\n", "give the roll"),
    ("roll,box,points,accept\nA1,Q1.x,2,3\n", "not both"),
    ("roll,box,points\nA1,Q1.x,lots\n", "not a number"),
    ("roll,box,points\nA1,Q1.x,-1\n", "negative"),
    ("", "is empty"),
])
def test_bad_overrides_are_one_line(tmp_path, text, needle):
    path = tmp_path / "overrides.csv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(QuizgenError) as exc:
        read_overrides(path)
    assert needle in str(exc.value) and "\n" not in str(exc.value)


def test_override_reader_keeps_values(tmp_path):
    path = tmp_path / "o.csv"
    path.write_text("\ufeffRoll,Box,Points,Reason\nA1, q2.occupancy ,1.5,late key fix\n",
                    encoding="utf-8")
    (rule,) = read_overrides(path)
    assert (rule.roll, rule.box, rule.points, rule.accept, rule.reason) == \
        ("A1", "Q2.occupancy", Fraction(3, 2), None, "late key fix")


def test_points_above_the_box_are_refused(graded):
    overrides = graded["dir"] / "too-much.csv"
    overrides.write_text("roll,box,points\nA1,Q1.limiter,3\n", encoding="utf-8")
    result = runner.invoke(app, ["regrade", str(graded["manifest"]), str(graded["answers"]),
                                 "--out", str(graded["out"]), "--overrides", str(overrides)])
    assert result.exit_code == 0, result.output
    assert "gives 3 points to Q1.limiter, worth 1; not applied" in result.stderr
    assert _rows(graded["out"] / "results.csv")["A1"]["Q1.limiter"] == "1"
