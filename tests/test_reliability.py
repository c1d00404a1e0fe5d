"""Bad input through the real entry point: one line on stderr, exit code 2, never a traceback."""

from __future__ import annotations

import copy
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from quizgen.cli import main

GOOD_ROSTER = "name,roll\nAsha,A1\nRavi,B2\n"


def run_cli(args: list[str], capsys, monkeypatch, stdin: bytes | None = None) -> tuple[int, str, str]:
    """Run `quizgen ARGS` in this process, through the same boundary as the console script."""
    monkeypatch.setattr(sys, "argv", ["quizgen", *args])
    if stdin is not None:
        wrapper = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
        monkeypatch.setattr(sys, "stdin", wrapper)
    with pytest.raises(SystemExit) as info:
        main()
    out, err = capsys.readouterr()
    code = info.value.code
    return (0 if code is None else code), out, err


@pytest.fixture(scope="module")
def manifest_data():
    from quizgen.export.sheet import plan_exam
    from quizgen.recipes import Student, parse_exam_recipe
    from quizgen.generator import generate_one

    recipe = {"title": "Quiz", "lang": "en", "seed": 9,
              "questions": [{"cell": "OCC-3", "level": 1, "points": 4,
                             "answers": ["blocks_per_sm", "occupancy"]}]}
    plan = plan_exam(parse_exam_recipe(recipe), [Student(name="Asha", roll="A1")], None,
                     generate=generate_one)
    return json.loads(plan.manifest_text()), plan.answers_csv


def _files(tmp: Path, manifest_data) -> None:
    data, answers = manifest_data
    (tmp / "answers.csv").write_text(answers, encoding="utf-8")
    (tmp / "m.json").write_text(json.dumps(data), encoding="utf-8")
    for name, edit in {"num_x": ("number", "x"), "points_huge": ("points", "1e999999")}.items():
        bad = copy.deepcopy(data)
        bad["students"][0]["questions"][0][edit[0]] = edit[1]
        (tmp / f"{name}.json").write_text(json.dumps(bad), encoding="utf-8")
    (tmp / "deep.json").write_text('{"students": ' + "[" * 100_000 + "]" * 100_000 + "}")
    (tmp / "mixed.json").write_text(json.dumps({"students": ["x", 5]}))
    (tmp / "carve_abc.toml").write_text('[mine]\nbase = "a100"\nsmem_carveout_kb = "abc"\n')
    (tmp / "carve_5.toml").write_text('[mine]\nbase = "a100"\nsmem_carveout_kb = 5\n')
    (tmp / "random.bin").write_bytes(bytes(range(256)) * 4)
    (tmp / "folder").mkdir()
    (tmp / "long_name.csv").write_text("name,roll\n" + "x" * (1 << 20) + ",1\n")
    (tmp / "unterminated.csv").write_text('name,roll\n"Asha,A1\nRavi,B2\n')
    (tmp / "latin1.csv").write_bytes("name\nJosé\n".encode("latin-1"))


BAD = [
    # (arguments, the field the one line names or a piece of it)
    (["occupancy", "--threads", "256", "--plot", "{tmp}/nonexistent/x.svg"], "plot"),
    (["generate", "--out", "{tmp}/folder"], "out"),
    (["generate", "--count", "-1"], "count"),
    (["generate", "--count", "abc"], "--count"),          # a usage error is one line too
    (["nonsense"], "nonsense"),
    (["latency"], "--latency"),
    (["generate", "--count", "100000000000000000000"], "count"),
    (["occupancy", "--threads", "256", "--set", "smem_carveout_kb=abc"], "set"),
    (["occupancy", "--threads", "256", "--set", "smem_per_sm=1e999999"], "set"),
    (["occupancy", "--threads", "256", "--set", "num_sms=1,5"], "set"),
    (["occupancy", "--threads", "256", "--gpu", "mine", "--gpu-file", "{tmp}/carve_abc.toml"], "gpu"),
    (["occupancy", "--threads", "256", "--gpu", "mine", "--gpu-file", "{tmp}/carve_5.toml"], "gpu"),
    (["occupancy", "--threads", "256", "--gpu", "mine", "--gpu-file", "{tmp}/folder"], "gpu-file"),
    (["occupancy", "--threads", "256", "--gpu", "mine", "--gpu-file", "{tmp}/random.bin"], "gpu-file"),
    (["latency", "--latency", "400", "--throughput", "1e999999"], "throughput"),
    (["divergence", "--branch", "32:1e999999"], "branch 1 cost"),
    (["bound", "--load-bytes", "16", "--flops", "10", "--load-latency", "400",
      "--flops-per-cycle", "1e-999999"], "flops-per-cycle"),
    (["occupancy", "--threads", "1000000000000", "--plot", "{tmp}/x.svg"], "plot"),
    (["occupancy", "--threads", "256", "--smem", "1,5"], "smem"),
    (["occupancy", "--threads", "256", "--dyn-smem", "1,5KB"], "dyn-smem"),
    (["occupancy", "--block", ",32"], "block"),
    (["occupancy", "--threads", "256", "--smem", "1e30"], "smem"),
    (["warps", "--block", "8,,4"], "block"),
    (["deck", "--per-cell", "100000000000000000000", "--out", "{tmp}/d.apkg"], "per_cell"),
    (["sheet", "--versions", "10000", "--out", "{tmp}/exam"], "versions"),
    (["sheet", "/dev/zero", "--out", "{tmp}/exam"], "recipe"),
    (["deck", "/dev/zero", "--out", "{tmp}/d.apkg"], "recipe"),
    (["sheet", "--roster", "{tmp}/long_name.csv", "--out", "{tmp}/exam"], "roster"),
    (["sheet", "--roster", "{tmp}/unterminated.csv", "--out", "{tmp}/exam"], "roster"),
    (["sheet", "--roster", "{tmp}/latin1.csv", "--out", "{tmp}/exam"], "roster"),
    (["grade", "{tmp}/num_x.json", "{tmp}/answers.csv", "--out", "{tmp}/g"], "number"),
    (["grade", "{tmp}/points_huge.json", "{tmp}/answers.csv", "--out", "{tmp}/g"], "points"),
    (["grade", "{tmp}/deep.json", "{tmp}/answers.csv", "--out", "{tmp}/g"], "manifest"),
    (["grade", "{tmp}/mixed.json", "{tmp}/answers.csv", "--out", "{tmp}/g"], "students[1]"),
    (["grade", "{tmp}/m.json", "{tmp}/folder", "--out", "{tmp}/g"], "answers"),
    (["check", "X", "1", "--manifest", "{tmp}/deep.json"], "manifest"),
    (["check", "X", "1", "--manifest", "{tmp}/mixed.json"], "students[1]"),
    (["check", "{tmp}/random.bin", "1"], "problem"),
    (["occupancy", "--batch", "{tmp}/folder"], "batch"),
    (["occupancy", "--batch", "-", "--threads", "256"], "batch"),
    (["occupancy", "--batch", "-", "--lang", "en"], "batch"),
]


@pytest.mark.parametrize("args, field", BAD, ids=[" ".join(a) for a, _ in BAD])
def test_bad_input_is_one_line_and_exit_2(args, field, tmp_path, manifest_data, capsys,
                                          monkeypatch):
    _files(tmp_path, manifest_data)
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    before = sorted(p.name for p in tmp_path.iterdir())
    code, out, err = run_cli(args, capsys, monkeypatch, stdin=b"")
    assert code == 2, (code, err)
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert field in lines[0], lines[0]
    # nothing was written beside the inputs (no partial output, no temporary)
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def _quizgen(*args: str, stdin=None, env=None, stdout=subprocess.PIPE,
             **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "quizgen", *args], stdout=stdout,
                          stderr=subprocess.PIPE, stdin=stdin, env={**os.environ, **(env or {})},
                          timeout=120, **kw)


def test_check_with_stdin_closed_or_endless(tmp_path):
    closed = subprocess.run(["sh", "-c", f"'{sys.executable}' -m quizgen check - 1 <&-"],
                            capture_output=True, timeout=60)
    assert closed.returncode == 2 and b"closed" in closed.stderr
    assert b"Traceback" not in closed.stderr
    with open("/dev/zero", "rb") as zero:
        done = _quizgen("check", "-", "1", stdin=zero)
    assert done.returncode == 2 and done.stderr.count(b"\n") == 1
    assert b"more than" in done.stderr
    # fd 0 closed altogether
    shut = subprocess.run([sys.executable, "-c", "import os, sys, runpy; os.close(0); "
                           "sys.argv = ['quizgen', 'check', '-', '1']; "
                           "runpy.run_module('quizgen', run_name='__main__')"],
                          capture_output=True, timeout=60)
    assert shut.returncode == 2 and b"closed" in shut.stderr and b"Traceback" not in shut.stderr


def test_output_that_cannot_be_written():
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    with open("/dev/full", "wb") as full:
        for args in (["occupancy", "--threads", "256"], ["--help"]):
            done = _quizgen(*args, stdout=full)
            assert done.returncode == 2, args
            assert b"Traceback" not in done.stderr and done.stderr.count(b"\n") == 1
            assert b"No space left" in done.stderr


def test_an_encoding_that_cannot_print_the_solution():
    done = _quizgen("occupancy", "--threads", "256", env={"PYTHONIOENCODING": "latin-1"})
    assert done.returncode == 2
    assert b"Traceback" not in done.stderr and b"PYTHONIOENCODING=utf-8" in done.stderr


def test_a_bug_prints_a_traceback_and_exit_3(capsys, monkeypatch):
    import quizgen.cli.calculators as calculators

    def broken(*args, **kwargs):
        raise TypeError("a bug")

    monkeypatch.setattr(calculators, "_emit_json", broken)
    code, out, err = run_cli(["warps", "--block", "100", "--json"], capsys, monkeypatch)
    assert code == 3 and "Traceback" in err and "please report it" in err


def test_batch_keeps_going_past_every_kind_of_bad_line(tmp_path):
    good = json.dumps({"gpu": "a100", "threads_per_block": 256}).encode()
    lines = [
        good,
        json.dumps({"gpu": {"base": "a100", "smem_carveout_kb": 5}, "threads_per_block": 64}).encode(),
        b"[" * 100_000 + b"]" * 100_000,
        b'{"threads_per_block": ' + b"9" * 5000 + b"}",
        b'{"threads_per_block": 256, "id": "caf\xe9"}',
        b"x" * (2 << 20),
        good,
    ]
    path = tmp_path / "launches.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    done = _quizgen("occupancy", "--batch", str(path), "--gpu", "h100")
    assert done.returncode == 2
    assert done.stderr.decode().startswith("error: batch: 5 of 7 lines failed")
    rows = [json.loads(line) for line in done.stdout.decode().splitlines()]
    assert len(rows) == 7
    assert rows[0]["gpu"] == "a100" and rows[6] == rows[0]
    assert [r["line"] for r in rows[1:6]] == [2, 3, 4, 5, 6]
    assert "smem_carveout_kb" in rows[1]["error"] and "nested" in rows[2]["error"]
    assert "digits" in rows[3]["error"] and "UTF-8" in rows[4]["error"]
    assert "longer than" in rows[5]["error"]
    # --gpu is the GPU of lines that name none
    plain = _quizgen("occupancy", "--batch", "-", "--gpu", "h100",
                     input=b'{"threads_per_block": 256}\n')
    assert plain.returncode == 0 and json.loads(plain.stdout)["gpu"] == "h100"


# ------------------------------------------------------------------------------------------------
# Nothing lost: atomic writes, folders that hold someone else's files, spreadsheet formulas


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path, capsys, monkeypatch):
    import quizgen.export.text as text

    out = tmp_path / "problems.md"
    out.write_text("the old problems\n", encoding="utf-8")
    real = text.iter_problems_text

    def fails_midway(*args, **kwargs):
        for i, piece in enumerate(real(*args, **kwargs)):
            if i == 2:
                raise OSError(28, "No space left on device")
            yield piece

    monkeypatch.setattr(text, "iter_problems_text", fails_midway)
    code, _, err = run_cli(["generate", "--cell", "OCC-1", "--count", "5", "--out", str(out)],
                           capsys, monkeypatch)
    assert code == 2 and "No space left" in err and err.count("\n") == 1
    assert out.read_text(encoding="utf-8") == "the old problems\n"
    assert [p.name for p in tmp_path.iterdir()] == ["problems.md"]


def test_sigterm_during_a_deck_build_leaves_no_temporaries(tmp_path):
    import signal
    import time

    temp = tmp_path / "temp"
    temp.mkdir()
    proc = subprocess.Popen([sys.executable, "-m", "quizgen", "deck", "--per-cell", "5",
                             "--out", str(tmp_path / "d.apkg"), "--quiet"],
                            env={**os.environ, "TMPDIR": str(temp)}, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    deadline = time.monotonic() + 90
    while not list(temp.glob("quizgen-*.anki2")) and proc.poll() is None:
        assert time.monotonic() < deadline
        time.sleep(0.005)
    assert list(temp.glob("quizgen-*.anki2")) or proc.returncode == 0
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert b"Traceback" not in err
    if proc.returncode == 143:            # stopped while writing (else it had just finished)
        assert not (tmp_path / "d.apkg").exists()
    assert list(temp.iterdir()) == []
    assert [p.name for p in tmp_path.iterdir() if p.name != "temp"] in ([], ["d.apkg"])


def test_sheet_never_deletes_what_it_did_not_write(tmp_path, capsys, monkeypatch):
    out = tmp_path / "exam"
    args = ["sheet", "--versions", "2", "--out", str(out)]
    assert run_cli(args, capsys, monkeypatch)[0] == 0
    # run again on its own files: replaced without a question
    assert run_cli(args, capsys, monkeypatch)[0] == 0
    filled = out / "answers.csv"
    filled.write_text(filled.read_text(encoding="utf-8-sig").replace(",,,", ",,,8", 1),
                      encoding="utf-8")
    (out / "graded").mkdir()
    (out / "graded" / "results.csv").write_text("precious", encoding="utf-8")
    before = filled.read_bytes()
    code, _, err = run_cli(args, capsys, monkeypatch)
    assert code == 2 and "did not write" in err and "--force" in err
    assert filled.read_bytes() == before
    code, _, err = run_cli([*args, "--force"], capsys, monkeypatch)
    assert code == 0 and "kept as answers.csv.kept" in err
    assert (out / "answers.csv.kept").read_bytes() == before
    assert (out / "graded" / "results.csv").read_text(encoding="utf-8") == "precious"
    assert (out / "answers.csv").read_bytes() != before


def test_obsidian_writes_beside_other_files_only_with_force(tmp_path, capsys, monkeypatch):
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "diary.md").write_text("my own note", encoding="utf-8")
    (vault / "OCC-1.hinglish.md").write_bytes(b"\xff\xfe not UTF-8")
    (vault / ".obsidian").mkdir()
    args = ["deck", "occupancy-basics", "--format", "obsidian", "--out", str(vault),
            "--per-cell", "1", "--quiet"]
    code, _, err = run_cli(args, capsys, monkeypatch)
    assert code == 2 and "not quizgen notes" in err and "Traceback" not in err
    code, _, err = run_cli([*args, "--force"], capsys, monkeypatch)
    assert code == 0, err
    assert (vault / "diary.md").read_text(encoding="utf-8") == "my own note"
    assert (vault / "OCC-1.hinglish.md.kept").read_bytes() == b"\xff\xfe not UTF-8"
    assert (vault / "OCC-1.hinglish.md").read_text(encoding="utf-8").startswith("---\nquizgen-recipe:")
    # once the other files are gone, a rebuild over its own notes needs no --force
    (vault / "diary.md").unlink()
    (vault / "OCC-1.hinglish.md.kept").unlink()
    assert run_cli(args, capsys, monkeypatch)[0] == 0
    assert not [p for p in vault.iterdir() if p.name.endswith(".tmp")]


FORMULAS = ["=HYPERLINK(\"http://x\",\"y\")", "@SUM(1+1)", "+cmd|' /C calc'!A0", "-2+3",
            "\tTab", "\rCR"]


def test_every_csv_cell_that_a_spreadsheet_would_run_is_neutralised(tmp_path, manifest_data):
    import csv

    from quizgen.export.sheet import plan_exam
    from quizgen.recipes import Student, parse_exam_recipe
    from quizgen.files import csv_text, plain_cell, safe_cell
    from quizgen.grade.grader import grade_class
    from quizgen.generator import generate_one

    assert [safe_cell(v) for v in ("-3", "+2.5", "12%", "plain", "")] == \
        ["-3", "+2.5", "12%", "plain", ""]
    assert all(safe_cell(f).startswith("'") and plain_cell(safe_cell(f)) == f for f in FORMULAS)
    assert csv_text([["a"]]).startswith("\ufeff")
    recipe = {"title": "Quiz", "lang": "en", "seed": 9,
              "questions": [{"cell": "OCC-3", "level": 1, "points": 4,
                             "answers": ["blocks_per_sm", "occupancy"]}]}
    students = [Student(name=f, roll=f"R{i}") for i, f in enumerate(FORMULAS[:4])]
    plan = plan_exam(parse_exam_recipe(recipe), students, None, generate=generate_one)
    assert plan.answers_csv.startswith("\ufeff")
    (tmp_path / "m.json").write_text(plan.manifest_text(), encoding="utf-8")
    rows = list(csv.reader(io.StringIO(plan.answers_csv.lstrip("\ufeff"))))
    rows[1][3] = "=1+1"                         # a student's answer that is a formula
    rows.append(["=stranger", "X9", "NOPE", "1"])       # a row matching nobody: unmatched.csv
    buf = io.StringIO()
    csv.writer(buf).writerows(rows)
    (tmp_path / "filled.csv").write_text(buf.getvalue(), encoding="utf-8")
    summary = grade_class(tmp_path / "m.json", tmp_path / "filled.csv", tmp_path / "graded")
    assert sorted(s.name for s in summary.students) == sorted(FORMULAS[:4])
    for name in ("results.csv", "unmatched.csv"):
        text = (tmp_path / "graded" / name).read_text(encoding="utf-8")
        assert text.startswith("\ufeff")
        for row in csv.reader(io.StringIO(text.lstrip("\ufeff"))):
            assert not any(cell.startswith(("=", "+", "@", "\t", "\r")) or
                           (cell.startswith("-") and not cell[1:].replace(".", "").isdigit())
                           for cell in row), row


def test_a_deck_build_that_fails_at_the_output_step_leaves_nothing(tmp_path, capsys, monkeypatch):
    import tempfile
    import zipfile

    temp = tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    out = tmp_path / "deck.apkg"
    out.write_bytes(b"the old deck")

    class FullDisk(zipfile.ZipFile):
        def writestr(self, *args, **kwargs):
            raise OSError(28, "No space left on device")

    monkeypatch.setattr(zipfile, "ZipFile", FullDisk)
    code, _, err = run_cli(["deck", "occupancy-basics", "--per-cell", "1", "--out", str(out),
                            "--quiet"], capsys, monkeypatch)
    assert code == 2 and "No space left" in err and "Traceback" not in err
    assert out.read_bytes() == b"the old deck"
    assert list(temp.iterdir()) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["deck.apkg", "temp"]
