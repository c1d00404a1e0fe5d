"""The benchmark suite runs end to end at tiny sizes, and the figures that do not depend on the
size or the load hold there: memory stays flat in students, the deck's build stays under its
memory target, grading's fast path beats the full reader, and every "met" agrees with its value
against its target scaled by the machine loop."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from conftest import REFERENCE_LOOP_S, REPO

EVERY_BENCHMARK = ("machine:", "CLI start: quizgen --help", "CLI: one quizgen occupancy",
                   "generate + solve + worked solution (hinglish)",
                   "generate + solve + worked solution (en)", "occupancy --batch",
                   "code engine: a condition over",
                   "deck end to end", "deck build peak memory", "default deck: `quizgen deck`",
                   "exam: 3 students", "exam peak memory", "exam CPU time",
                   "grading ",           # "grading 3,008 answers": the count follows the exam
                   "parse_answer on the same", "scan: 4 pages",
                   "fairness: one simulated class graded and assessed",
                   "preview peak memory", "grade peak memory", "grade --remedial peak memory",
                   "check --manifest /dev/zero peak memory", "sheet --bubbles peak memory")

_TARGET = re.compile(r"^(<|≤|>|≥)\s*([0-9][0-9,]*(?:\.[0-9]+)?)\s*(s|/s|MB)\b")
_FLOOR_TARGET = re.compile(r"^(<|≤)\s*([0-9.]+)\s*×\s*floor$")


@pytest.fixture(scope="module")
def smoke(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench") / "rows.json"
    done = subprocess.run([sys.executable, str(REPO / "bench" / "run.py"), "--smoke",
                           "--json", str(out)], capture_output=True, text=True, timeout=600,
                          cwd=REPO)
    assert done.returncode == 0, done.stderr[-3000:]
    data = json.loads(out.read_text(encoding="utf-8"))
    data["table"] = done.stdout
    return data


def row(smoke, start: str) -> dict:
    found = [r for r in smoke["rows"] if r["figure"].startswith(start)]
    assert len(found) == 1, (start, [r["figure"] for r in smoke["rows"]])
    return found[0]


def test_every_benchmark_fills_its_row_in_the_table_and_the_json(smoke):
    for start in EVERY_BENCHMARK:
        assert row(smoke, start)["value"] > 0, start
        assert any(line.startswith(start) for line in smoke["table"].splitlines()), start


def test_the_bench_and_the_tests_share_the_reference_machine(smoke):
    assert smoke["reference_loop_s"] == REFERENCE_LOOP_S
    loop = row(smoke, "machine:")["value"]
    assert smoke["factor"] == pytest.approx(loop / REFERENCE_LOOP_S)


def test_each_met_is_its_value_against_its_target(smoke):
    """A row's "met" is recomputed here from the row alone: an absolute target scaled by the
    machine factor (times and rates; memory is not scaled), or a ratio to the row's floor."""
    checked = 0
    for r in smoke["rows"][1:]:
        target = r["target"]
        if (m := _TARGET.match(target)) is not None:
            op, number, unit = m.groups()
            limit = float(number.replace(",", ""))
            limit = (limit * smoke["factor"] if unit == "s" else
                     limit / smoke["factor"] if unit == "/s" else limit)
        elif (m := _FLOOR_TARGET.match(target)) is not None:
            op, limit = m.group(1), float(m.group(2)) * r["floor_value"]
        else:
            continue
        met = {"<": r["value"] < limit * (1 + 1e-12), "≤": r["value"] <= limit * (1 + 1e-12),
               ">": r["value"] > limit * (1 - 1e-12), "≥": r["value"] >= limit * (1 - 1e-12)}[op]
        assert r["ok"] == met, r
        checked += 1
    assert checked >= 10


def test_user_facing_targets_are_the_ones_promised(smoke):
    assert row(smoke, "generate + solve + worked solution (en)")["target"].startswith("≥ 3,000/s")
    assert row(smoke, "default deck: `quizgen deck`")["target"].startswith("≤ 2.5 s")
    assert row(smoke, "grading ")["target"].startswith("≤ 5 s")


def test_memory_is_flat_in_students_and_the_deck_fits_its_budget(smoke):
    """Size- and load-independent: twice the students must not take twice the memory (the
    sheet streams), and a deck build stays under its target even at smoke size."""
    exam = row(smoke, "exam peak memory")
    assert exam["value"] <= 1.5 * exam["floor_value"], exam
    assert exam["ok"]
    assert row(smoke, "deck build peak memory")["ok"]
    # refused before it is read: /dev/zero never fills the memory
    assert row(smoke, "check --manifest /dev/zero peak memory")["ok"]


def test_the_fast_answer_path_beats_the_full_reader(smoke):
    parse = row(smoke, "parse_answer on the same")
    assert parse["value"] < parse["floor_value"], parse


def test_an_unknown_benchmark_or_option_is_a_one_line_error():
    for args in (["nosuch"], ["--fast"], ["--json"]):
        done = subprocess.run([sys.executable, str(REPO / "bench" / "run.py"), *args],
                              capture_output=True, text=True, timeout=60, cwd=REPO)
        assert done.returncode == 2
        assert len(done.stderr.strip().splitlines()) == 1


@pytest.mark.slow
def test_the_class_benchmark_runs_beside_amc_or_says_it_skipped_it(tmp_path):
    """bench/bench_class.py end to end for two students: quizgen's steps timed with their peak
    memory, nothing read wrong with certainty, and AMC's side run when it is installed, else
    skipped with one line (CI does not install AMC: it pulls LaTeX, about 1 GB)."""
    import shutil

    out = tmp_path / "figures.json"
    done = subprocess.run([sys.executable, str(REPO / "bench" / "bench_class.py"), "--students",
                           "2", "--work", str(tmp_path / "work"), "--json", str(out)],
                          capture_output=True, text=True, timeout=1200, cwd=REPO)
    assert done.returncode == 0, done.stderr[-3000:]
    figures = json.loads(out.read_text(encoding="utf-8"))
    steps = {s["name"]: s for s in figures["quizgen"]["steps"]}
    assert set(steps) == {"sheet", "scan", "grade", "grade --remedial"}
    assert all(s["seconds"] > 0 and s["peak_mb"] > 20 and s["cpu"] > 0 for s in steps.values())
    assert steps["sheet"]["cpu"] > 0.5           # its Typst processes counted with it
    tally = figures["quizgen"]["tally"]
    assert tally["wrong"] == 0 and tally["boxes"] >= 30 and tally["recognised"] == figures["pages"]
    assert "scan: wall s per page" in done.stdout and "scan: CPU s per page" in done.stdout
    if shutil.which("auto-multiple-choice") is None:
        assert "AMC: skipped (auto-multiple-choice is not on PATH)" in done.stdout
        assert figures["amc"] is None
    else:
        amc = {s["name"] for s in figures["amc"]["steps"]}
        assert amc == {"prepare s", "meptex", "prepare b", "analyse", "note", "export"}
        assert figures["amc"]["tally"]["boxes"] >= 30
