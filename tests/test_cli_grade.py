"""`quizgen grade` and `quizgen check` through the real command line (typer's runner)."""

from __future__ import annotations

import csv
import json
import os
import re
import subprocess
import sys
from fractions import Fraction

import pytest
from typer.testing import CliRunner

from conftest import make_class
from quizgen.cli import app
from quizgen.generator import generate_one

runner = CliRunner()

RECIPE = {"title": "CLI quiz", "lang": "en", "seed": 9,
          "questions": [{"cell": "OCC-3", "level": 1, "points": 4,
                         "answers": ["blocks_per_sm", "occupancy"]}]}


def _fill(roll: str, number: int, box: str, right) -> str:
    """Blocks with their unit; Ravi's occupancy is not a number."""
    if box == "blocks_per_sm":
        return f"{right} blocks"
    return "oops" if roll == "B2" else str(right)


@pytest.fixture()
def exam(tmp_path):
    made = make_class(tmp_path, RECIPE, [("Asha", "A1"), ("Ravi", "B2")], _fill)
    return {"manifest": made.manifest, "answers": made.answers, "data": made.data,
            "dir": tmp_path}


def test_grade_writes_results_and_refuses_to_overwrite(exam):
    out = exam["dir"] / "graded"
    args = ["grade", str(exam["manifest"]), str(exam["answers"]), "--out", str(out)]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "2 students, 4 answers graded" in result.stdout
    assert "1 unreadable or missing answers scored 0" in result.stderr
    with (out / "results.csv").open(encoding="utf-8-sig", newline="") as fh:
        rows = {r["roll"]: r for r in csv.DictReader(fh)}
    assert (rows["A1"]["score"], rows["A1"]["max_score"]) == ("4", "4")
    # by default an unreadable answer scores 0 and is listed for review
    assert (rows["B2"]["score"], rows["B2"]["max_score"]) == ("2", "4")
    assert rows["B2"]["Q1.occupancy"] == "0" and rows["B2"]["needs_review"] == "Q1.occupancy"
    assert rows["A1"]["needs_review"] == ""
    # the feedback a student can open anywhere: HTML with its math typeset by the browser
    assert sorted(p.name for p in (out / "feedback").iterdir()) == ["A1.html", "B2.html"]

    again = runner.invoke(app, args)
    assert again.exit_code == 2
    assert again.stderr.strip().count("\n") == 0 and "--force" in again.stderr
    flag = runner.invoke(app, args + ["--force", "--invalid", "flag", "--format", "md"])
    assert flag.exit_code == 0, flag.output
    assert "1 answers left out of the score" in flag.stderr
    with (out / "results.csv").open(encoding="utf-8-sig", newline="") as fh:
        rows = {r["roll"]: r for r in csv.DictReader(fh)}
    assert (rows["B2"]["score"], rows["B2"]["max_score"]) == ("2", "2")
    assert rows["B2"]["Q1.occupancy"] == "invalid"
    assert sorted(p.name for p in (out / "feedback").iterdir()) == ["A1.md", "B2.md"]


@pytest.mark.parametrize("extra, message", [
    (["--invalid", "maybe"], "invalid"),
    (["--lang", "fr"], "lang"),
    (["--format", "pdf"], "format"),
])
def test_grade_bad_options_are_one_line(exam, extra, message):
    result = runner.invoke(app, ["grade", str(exam["manifest"]), str(exam["answers"]), "--out",
                                 str(exam["dir"] / "o"), *extra])
    assert result.exit_code == 2
    assert message in result.stderr and result.stderr.strip().count("\n") == 0


def test_grade_missing_files_are_one_line(exam):
    result = runner.invoke(app, ["grade", str(exam["dir"] / "nope.json"), str(exam["answers"]),
                                 "--out", str(exam["dir"] / "o")])
    assert result.exit_code == 2 and "no such file" in result.stderr
    assert not (exam["dir"] / "o").exists()


def test_check_against_a_manifest_id(exam):
    question = exam["data"]["students"][0]["questions"][0]
    occ = Fraction(repr(question["answers"]["occupancy"]))
    right = runner.invoke(app, ["check", question["id"], f"{float(occ * 100):g}%",
                                "--manifest", str(exam["manifest"])])
    assert right.exit_code == 0, right.output
    assert right.stdout.startswith("occupancy: correct")
    blocks = question["answers"]["blocks_per_sm"]
    wrong = runner.invoke(app, ["check", question["id"], str(blocks + 1), "--key", "blocks_per_sm",
                                "--manifest", str(exam["manifest"]), "--json"])
    assert wrong.exit_code == 1
    data = json.loads(wrong.stdout)
    assert data["status"] == "wrong" and data["expected"] == blocks
    missing = runner.invoke(app, ["check", "OCC-3-0000000000", "1", "--manifest",
                                  str(exam["manifest"])])
    assert missing.exit_code == 2 and "no problem" in missing.stderr


def test_check_a_problem_file_and_stdin(tmp_path):
    problem = generate_one("OCC-2", level=1, seed=3, lang="en")
    path = tmp_path / "p.json"
    path.write_text(json.dumps([problem.to_dict()]), encoding="utf-8")
    a = problem.answers
    trap = next(c for c in problem.choices if not c.correct and c.misconception)
    result = runner.invoke(app, ["check", str(path), trap.text])
    assert result.exit_code == 1
    assert f"misconception: {trap.why}" in result.stdout
    assert trap.misconception not in result.stdout          # explained, never a bare key
    carried = runner.invoke(app, ["check", "-", str((a["blocks_per_sm"] + 1) * a["warps"]),
                                  "--key", "active_warps",
                                  "--given", f"blocks_per_sm={a['blocks_per_sm'] + 1}"],
                            input=json.dumps(problem.to_dict()))
    assert carried.exit_code == 0, carried.output
    assert carried.stdout.startswith("active_warps: carried")
    bad_key = runner.invoke(app, ["check", str(path), "3", "--key", "nope"])
    assert bad_key.exit_code == 2 and "'nope' is not an answer" in bad_key.stderr
    no_file = runner.invoke(app, ["check", str(tmp_path / "missing.json"), "3"])
    assert no_file.exit_code == 2 and "--manifest" in no_file.stderr
    hostile = runner.invoke(app, ["check", str(path), "__import__('os').system('id')"])
    assert hostile.exit_code == 1 and "invalid" in hostile.stdout


def _class(folder, students: int):
    """A generated class of `students` papers and its answer sheet filled the way a class fills
    one: right answers, a unit written out, a trap, a blank, an unreadable box."""
    rolls = [f"R{i:03d}" for i in range(students)]

    def fill(roll: str, number: int, box: str, right) -> str:
        i = rolls.index(roll)
        if box == "blocks_per_sm":
            return ("", f"{right} blocks", str(right + 1))[i % 3]
        return (f"{right * 100:g}%", "1,5", str(right))[i % 2 if i % 5 else 1]

    make_class(folder, RECIPE, [(f"Student {i}", roll) for i, roll in enumerate(rolls)], fill)


def _graded(folder) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and p.name != ".quizgen-files.json"}


def test_grade_off_a_terminal_prints_progress_lines_and_grades_the_same(tmp_path):
    _class(tmp_path, 30)
    env = {**os.environ, "QUIZGEN_PROGRESS_SECONDS": "0"}

    def grade(*args):
        done = subprocess.run([sys.executable, "-m", "quizgen", *args], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        return done

    shown = grade("grade", "manifest.json", "answers.csv", "--out", "shown")
    quiet = grade("grade", "manifest.json", "answers.csv", "--out", "quiet", "--quiet")
    # stderr is a pipe here: progress is lines, for both phases, and stdout only the result
    graded = re.findall(r"^grade: (\d+)/30 students graded \(\d+ s\)$", shown.stderr, re.M)
    written = re.findall(r"^grade: (\d+)/30 feedback pages written \(\d+ s\)$", shown.stderr,
                         re.M)
    assert graded and written, shown.stderr
    assert [int(n) for n in graded] == sorted(int(n) for n in graded) and int(graded[-1]) < 30
    assert shown.stdout == quiet.stdout.replace("→ quiet", "→ shown")
    assert shown.stdout.startswith("30 students, 60 answers graded")
    assert "grade:" not in quiet.stderr
    assert [line for line in shown.stderr.splitlines() if not line.startswith("grade: ")] == \
        quiet.stderr.splitlines()
    # the same results, page for page
    assert _graded(tmp_path / "shown") == _graded(tmp_path / "quiet")
    with (tmp_path / "shown" / "results.csv").open(encoding="utf-8-sig", newline="") as fh:
        statuses = {r["Q1.occupancy"] for r in csv.DictReader(fh)}
    assert "0" in statuses and len(statuses) > 1     # a class with right and unreadable boxes

    again = grade("regrade", "manifest.json", "answers.csv", "--out", "shown")
    assert re.search(r"^grade: \d+/30 feedback pages written \(\d+ s\)$", again.stderr, re.M)
    assert again.stdout.startswith("30 students graded again; 0 boxes changed")


@pytest.mark.parametrize("command, options", [
    ("grade", ["--out", "--invalid", "--force", "--lang", "--format", "--quiet"]),
    ("regrade", ["--out", "--overrides", "--invalid", "--lang", "--format", "--quiet"]),
    ("check", ["--key", "--manifest", "--given", "--lang", "--json"]),
])
def test_help_documents_every_option(command, options):
    result = runner.invoke(app, [command, "--help"], terminal_width=200)
    assert result.exit_code == 0
    for option in options:
        assert option in result.stdout
    assert "Example: quizgen " + command in result.stdout


def _counting(monkeypatch, manifest):
    """Count the opens of `manifest` (by any route: open, Path.read_text, the size-limited
    reader) and the class analyses made, while a command runs in this process."""
    import builtins
    import io

    from quizgen.grade.analysis import ClassAnalysis

    seen = {"reads": 0, "analyses": 0}
    target = os.path.realpath(manifest)
    real_open, real_init = io.open, ClassAnalysis.__init__

    def counting_open(file, *args, **kwargs):
        if isinstance(file, (str, bytes, os.PathLike)) and os.path.realpath(file) == target:
            seen["reads"] += 1
        return real_open(file, *args, **kwargs)

    def counting_init(self, *args, **kwargs):
        seen["analyses"] += 1
        real_init(self, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", counting_open)
    monkeypatch.setattr(io, "open", counting_open)
    monkeypatch.setattr(ClassAnalysis, "__init__", counting_init)
    return seen


def test_grade_reads_the_manifest_once_and_analyses_the_class_once(exam, monkeypatch):
    out, follow = exam["dir"] / "graded", exam["dir"] / "follow"
    overrides = exam["dir"] / "overrides.csv"
    overrides.write_text("roll,box,points,reason\nB2,Q1.occupancy,1,partly right\n",
                         encoding="utf-8")
    seen = _counting(monkeypatch, exam["manifest"])
    result = runner.invoke(app, ["grade", str(exam["manifest"]), str(exam["answers"]), "--out",
                                 str(out), "--lms", "moodle", "--remedial", str(follow),
                                 "--overrides", str(overrides), "--quiet"])
    assert result.exit_code == 0, result.output
    assert seen == {"reads": 1, "analyses": 1}
    # everything the one read and the one analysis feed was written
    assert (out / "moodle-grades.csv").is_file() and (out / "class-report.html").is_file()
    assert sorted(p.name for p in follow.glob("*.apkg")) == ["A1.apkg", "B2.apkg", "class.apkg"]

    seen.update(reads=0, analyses=0)
    again = runner.invoke(app, ["regrade", str(exam["manifest"]), str(exam["answers"]), "--out",
                                str(out), "--overrides", str(overrides), "--quiet"])
    assert again.exit_code == 0, again.output
    assert seen == {"reads": 1, "analyses": 1}


def _roster(path, rows) -> None:
    with path.open("w", encoding="utf-8", newline="") as fh:
        csv.writer(fh).writerows([["Roll No", "Name"], *rows])


def test_grading_the_roster_instead_of_the_answers_is_refused(exam):
    """The class list given where the filled answer sheet belongs: every box would be 'missing'
    and everyone 0. One line, exit 2, nothing written."""
    roster = exam["dir"] / "class.csv"
    _roster(roster, [["A1", "Asha"], ["B2", "Ravi"]])
    out = exam["dir"] / "g"
    result = runner.invoke(app, ["grade", str(exam["manifest"]), str(roster), "--out", str(out)])
    assert result.exit_code == 2, result.output
    assert result.stderr.strip().count("\n") == 0
    assert "class.csv" in result.stderr and "roster" in result.stderr
    assert "answers.csv" in result.stderr and not out.exists()
    # the same through regrade: the earlier results stay as they were
    graded = exam["dir"] / "graded"
    assert runner.invoke(app, ["grade", str(exam["manifest"]), str(exam["answers"]), "--out",
                               str(graded)]).exit_code == 0
    before = (graded / "results.csv").read_bytes()
    again = runner.invoke(app, ["regrade", str(exam["manifest"]), str(roster), "--out", str(graded)])
    assert again.exit_code == 2 and "roster" in again.stderr
    assert (graded / "results.csv").read_bytes() == before
    assert not (graded / "history").exists() or not any((graded / "history").iterdir())


def test_a_missing_input_is_named_before_the_output_folder(exam):
    out = exam["dir"] / "graded"
    out.mkdir()
    (out / "notes.txt").write_text("mine", encoding="utf-8")     # an existing, non-empty folder
    for manifest, answers, named in ((exam["manifest"], exam["dir"] / "nope.csv", "nope.csv"),
                                     (exam["dir"] / "nope.json", exam["answers"], "nope.json")):
        result = runner.invoke(app, ["grade", str(manifest), str(answers), "--out", str(out)])
        assert result.exit_code == 2
        assert named in result.stderr and "--force" not in result.stderr, result.stderr
