"""A teacher's first day: their own exam on every page, packaged recipes to copy, a box checked
by roll number, the command-line conventions (version, progress off a terminal, folders others
can read), a spreadsheet's dates flagged for review, and the benchmark's scaled targets."""

from __future__ import annotations

import csv
import importlib.util
import io
import json
import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pypdf
import pytest

from conftest import REPO


def run(args, cwd, env=None, stdin=None, timeout=300):
    return subprocess.run([sys.executable, "-m", "quizgen", *args], cwd=cwd, capture_output=True,
                          text=True, env=env, input=stdin, timeout=timeout)


def _excel_roster(path: Path, n: int) -> None:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(["Enrollment", "Name"])
    names = ["Asha Verma", "अनन्या शर्मा", "Kumar, Vikram", "Meera Pillai"]
    for i in range(n):
        writer.writerow([f"2026CS{i + 1:03d}", f"{names[i % len(names)]} {i + 1}"])
    path.write_bytes(b"\xef\xbb\xbf" + out.getvalue().encode("utf-8"))


@pytest.mark.slow
def test_a_40_student_sheet_prints_the_teachers_cover_on_every_page(tmp_path):
    _excel_roster(tmp_path / "class.csv", 40)
    cover = {"--title": "Midsem: Occupancy", "--course": "CS 610: GPU Programming",
             "--date": "2026-03-12", "--duration": "90 minutes"}
    args = ["sheet", "--roster", "class.csv", "--out", "midsem", "--seed", "11",
            "--instructions", "Write in ink."]
    for option, value in cover.items():
        args += [option, value]
    env = {**os.environ, "QUIZGEN_PROGRESS_SECONDS": "0"}
    done = run(args, tmp_path, env=env, timeout=1200)
    assert done.returncode == 0, done.stderr
    # off a terminal the progress is lines on stderr, the result one line on stdout
    assert re.search(r"^sheet: \d+/40 students \(\d+ s\)$", done.stderr, re.M), done.stderr
    assert done.stdout.startswith("40 versions → midsem/")
    for pdf in ("exam.pdf", "key.pdf"):
        pages = [" ".join(p.extract_text().split())
                 for p in pypdf.PdfReader(tmp_path / "midsem" / pdf).pages]
        assert len(pages) >= 40
        for i, text in enumerate(pages):
            for value in cover.values():
                assert value in text, f"{pdf} page {i + 1} lacks {value!r}: {text[:300]}"
            assert "CS 433" not in text and "2025-10-14" not in text
    manifest = json.loads((tmp_path / "midsem" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["recipe"]["course"] == "CS 610: GPU Programming"
    assert manifest["recipe"]["seed"] == 11 and manifest["recipe"]["instructions"] == "Write in ink."
    # folders as the user's umask makes them: a TA (group) and a web server (others) can read
    mode = stat.S_IMODE((tmp_path / "midsem").stat().st_mode)
    umask = os.umask(0)
    os.umask(umask)
    assert mode == 0o777 & ~umask


def test_the_seed_changes_the_numbers_and_a_bad_cover_value_is_one_line(tmp_path):
    ids = []
    for seed in ("1", "2"):
        done = run(["sheet", "--versions", "1", "--seed", seed, "--out", f"s{seed}"], tmp_path)
        assert done.returncode == 0, done.stderr
        manifest = json.loads((tmp_path / f"s{seed}" / "manifest.json").read_text("utf-8"))
        ids.append([q["id"] for q in manifest["students"][0]["questions"]])
    assert ids[0] != ids[1]
    done = run(["sheet", "--versions", "1", "--title", " ", "--out", "bad"], tmp_path)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "title" in done.stderr
    assert not (tmp_path / "bad").exists()


def test_recipe_list_show_copy(tmp_path):
    listed = run(["recipe", "list"], tmp_path)
    assert listed.returncode == 0
    names = [line.split()[0] for line in listed.stdout.splitlines()]
    assert {"default", "occupancy-basics", "midterm"} <= set(names)
    assert re.search(r"^midterm\s+exam\s+GPU Architecture", listed.stdout, re.M)
    shown = run(["recipe", "show", "midterm"], tmp_path)
    packaged = (REPO / "decks" / "exams" / "midterm.toml").read_text(encoding="utf-8")
    assert shown.stdout == packaged
    copied = run(["recipe", "copy", "midterm", "my-exam.toml"], tmp_path)
    assert copied.returncode == 0 and "quizgen sheet my-exam.toml" in copied.stdout
    mine = tmp_path / "my-exam.toml"
    assert mine.read_text(encoding="utf-8") == packaged
    again = run(["recipe", "copy", "midterm", "my-exam.toml"], tmp_path)
    assert again.returncode == 2 and "--force" in again.stderr
    # the copy is the teacher's: edit it, build from it
    mine.write_text(packaged.replace('# course = "CS 610: GPU Programming"', 'course = "EE 739"'),
                    encoding="utf-8")
    built = run(["sheet", "my-exam.toml", "--versions", "1", "--out", "mine"], tmp_path)
    assert built.returncode == 0, built.stderr
    manifest = json.loads((tmp_path / "mine" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["recipe"]["course"] == "EE 739"


@pytest.mark.parametrize("args, names", [
    (["sheet", "decks/exams/midterm.toml"], "midterm (exams)"),
    (["sheet", "final"], "midterm (exams)"),
    (["deck", "my-deck.toml"], "default, occupancy-basics (decks)"),
    (["recipe", "show", "nope"], "midterm (exams)"),
])
def test_a_missing_recipe_names_the_packaged_ones(tmp_path, args, names):
    done = run(args, tmp_path)
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1
    assert names in done.stderr and "quizgen recipe copy" in done.stderr


def test_check_a_box_by_roll_number(tmp_path):
    _excel_roster(tmp_path / "class.csv", 3)
    assert run(["sheet", "--roster", "class.csv", "--out", "mid"], tmp_path).returncode == 0
    manifest = json.loads((tmp_path / "mid" / "manifest.json").read_text(encoding="utf-8"))
    student = manifest["students"][1]
    question = next(q for q in student["questions"] if q["number"] == 1)
    right = str(question["answers"]["occupancy"])
    base = ["--manifest", "mid/manifest.json", "--roll", student["roll"]]
    done = run(["check", "Q1.occupancy", right, *base], tmp_path)
    assert done.returncode == 0 and done.stdout.startswith("occupancy: correct"), done.stdout
    wrong = run(["check", "Q1.occupancy", "0.999", *base], tmp_path)
    assert wrong.returncode == 1
    by_code = run(["check", "Q1.occupancy", right, "--manifest", "mid/manifest.json",
                   "--version-code", student["version"].lower()], tmp_path)
    assert by_code.returncode == 0
    # the id the key prints beside the question checks the same problem
    key_text = "".join(p.extract_text() for p in pypdf.PdfReader(tmp_path / "mid" / "key.pdf").pages)
    assert question["id"] in key_text
    by_id = run(["check", question["id"], right, "--key", "occupancy", "--manifest",
                 "mid/manifest.json"], tmp_path)
    assert by_id.returncode == 0
    for bad, why in ((["Q1.nope", "1", *base], "Q1.occupancy"),
                     (["Q1.occupancy", "1", "--manifest", "mid/manifest.json", "--roll", "X9"], "X9"),
                     (["Q1.occupancy", "1", "--manifest", "mid/manifest.json"], "--roll")):
        done = run(["check", *bad], tmp_path)
        assert done.returncode == 2 and why in done.stderr, done.stderr


@pytest.mark.parametrize("typed", ["4/1/2026", "3/8/2026", "2026-04-01", "1-Apr", "Apr-01",
                                   "08.03.2026"])
def test_a_date_shaped_answer_is_for_review_not_wrong(typed):
    from quizgen.grade.parse import parse_answer

    parsed = parse_answer(typed)
    assert not parsed.ok and parsed.error.key == "date_shaped"
    assert "date" in str(parsed.error)


@pytest.mark.parametrize("typed, value", [("16/64", 0.25), ("2^16-1", 65535), ("64-16-8", 40),
                                          ("2026", 2026), ("3/8", 0.375), ("1/4/2", 0.125)])
def test_fractions_and_sums_are_not_dates(typed, value):
    from quizgen.grade.parse import parse_answer

    parsed = parse_answer(typed)
    assert parsed.ok and float(parsed.value) == value


def test_a_date_in_the_answer_sheet_is_needs_review_with_its_reason(tmp_path, exam_folder):
    shutil.copytree(exam_folder, tmp_path / "mid")
    with open(tmp_path / "mid" / "answers.csv", encoding="utf-8-sig", newline="") as fh:
        rows = list(csv.reader(fh))
    rows[1][rows[0].index("Q1.occupancy")] = "3/8/2026"
    with open(tmp_path / "filled.csv", "w", encoding="utf-8-sig", newline="") as fh:
        csv.writer(fh).writerows(rows)
    done = run(["grade", "mid/manifest.json", "filled.csv"], tmp_path)   # --out: graded/
    assert done.returncode == 0, done.stderr
    with open(tmp_path / "graded" / "results.csv", encoding="utf-8-sig") as fh:
        result = next(csv.DictReader(fh))
    assert "Q1.occupancy" in result["needs_review"].split(";")[0] or \
        "Q1.occupancy" in result["needs_review"]
    import html

    pages = [html.unescape(page.read_text(encoding="utf-8"))      # the pages are HTML
             for page in sorted((tmp_path / "graded" / "feedback").iterdir())]
    # the student reads what happened to the box; the teacher's instruction is in report.md
    assert sum("reached the grader as the date '3/8/2026'" in page for page in pages) == 1
    assert not any("read what the student wrote" in page for page in pages)
    report = (tmp_path / "graded" / "report.md").read_text(encoding="utf-8")
    assert "'3/8/2026' is a date" in report and "read what the student wrote" in report


def test_version_and_completion(tmp_path):
    from importlib.metadata import version

    done = run(["--version"], tmp_path)
    assert done.returncode == 0 and done.stdout.startswith(f"quizgen {version('quizgen')} ")
    shown = run(["--show-completion", "bash"], tmp_path,
                env={**os.environ, "_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION": "1"})
    assert shown.returncode == 0 and "complete" in shown.stdout


def test_short_flags_have_one_meaning_each():
    import typer.main

    from quizgen.cli import app

    meanings: dict[str, set[str]] = {}

    def walk(command):
        for param in command.params:
            for opt in param.opts:
                if re.fullmatch(r"-[A-Za-z]", opt):
                    meanings.setdefault(opt, set()).add(param.name)
        for sub in getattr(command, "commands", {}).values():
            walk(sub)

    walk(typer.main.get_command(app))
    # -b is a block shape in the occupancy calculators and a branch in divergence: both are
    # what the one calculator describes; every other letter has one option behind it
    clashes = {k: v for k, v in meanings.items() if len(v) > 1 and k != "-b"}
    assert not clashes, clashes
    assert meanings                 # the walk found the commands' short flags


def test_deck_off_a_terminal_prints_progress_lines_and_a_summary_first(tmp_path):
    env = {**os.environ, "QUIZGEN_PROGRESS_SECONDS": "0"}
    done = run(["deck", "occupancy-basics", "--out", "occ.apkg"], tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    assert re.match(r"\d+ notes, \d+ cards, ", done.stdout), repr(done.stdout[:80])
    assert re.search(r"^deck: \d+/\d+ problems \(\d+ s\)$", done.stderr, re.M), done.stderr
    quiet = run(["deck", "occupancy-basics", "--out", "occ2.apkg", "--quiet"], tmp_path, env=env)
    assert quiet.stderr == ""


def test_batch_takes_the_command_lines_names(tmp_path):
    lines = ('{"gpu": "a100", "threads": 256, "regs": 64, "smem": "48KB"}\n'
             '{"gpu": "a100", "threads_per_block": 256, "regs_per_thread": 64, "smem_per_block": 49152}\n'
             '{"gpu": "a100", "threads": 256, "threads_per_block": 128}\n')
    done = run(["occupancy", "--batch", "-"], tmp_path, stdin=lines)
    out = [json.loads(line) for line in done.stdout.splitlines()]
    assert out[0] == out[1] and out[0]["smem_per_block"] == 49152
    cli = json.loads(run(["occupancy", "--gpu", "a100", "--threads", "256", "--regs", "64",
                          "--smem", "48KB", "--json"], tmp_path).stdout)
    assert cli["blocks_per_sm"] == out[0]["blocks_per_sm"]
    assert "'threads' and 'threads_per_block'" in out[2]["error"] and done.returncode == 2


def _bench_run():
    spec = importlib.util.spec_from_file_location("bench_run", REPO / "bench" / "run.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_benchmark_targets_scale_with_the_machine_loop():
    bench = _bench_run()
    from common import Row

    slow_deck = Row("deck", 4.0, "s", "", 0.0, "< 2.5 s", False)
    assert not bench.scaled(slow_deck, 1.0).ok            # the reference machine: missed
    twice = bench.scaled(slow_deck, 2.0)                  # a machine twice as slow: 5 s allowed
    assert twice.ok and "5.00 s" in twice.target
    rate = Row("gen", 2000.0, "problems/s", "", 0.0, "≥ 3,000/s", False)
    assert not bench.scaled(rate, 1.0).ok and bench.scaled(rate, 2.0).ok
    relative = Row("deck", 9.0, "s", "genanki", 1.0, "≤ 3× floor", False)
    assert bench.scaled(relative, 5.0) is relative        # a floor from the same run: as it was


def test_bench_ships_in_the_sdist():
    import tomllib

    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    include = config["tool"]["hatch"]["build"]["targets"]["sdist"]["include"]
    assert "bench" in include and "tests" in include and ".ci" in include


def test_a_class_that_writes_every_right_answer_scores_full_marks(generated_class, tmp_path):
    """Every box holds the manifest's own answer, typed as a student types it: the command
    gives every student the exam's whole total, with nothing to review."""
    done = run(["grade", generated_class.manifest, generated_class.answers, "--out",
                tmp_path / "graded"], tmp_path)
    assert done.returncode == 0, done.stderr
    with open(tmp_path / "graded" / "results.csv", encoding="utf-8-sig", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert [r["roll"] for r in rows] == [s["roll"] for s in generated_class.data["students"]]
    for r in rows:
        assert float(r["score"]) == float(r["max_score"]) > 0, r
        assert r["needs_review"] == "", r
