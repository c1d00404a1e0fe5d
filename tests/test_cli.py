"""The command line as a user meets it: help everywhere, one-line errors, the README's commands."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys

import pytest

from quizgen.problems import CELLS
from typer.testing import CliRunner

from conftest import REPO
from quizgen.cli import app

runner = CliRunner()


def _commands() -> list[str]:
    import typer.main

    group = typer.main.get_command(app)
    return sorted(group.commands)


def test_every_command_has_help_and_documents_every_option():
    names = _commands()
    for expected in ("occupancy", "generate", "deck"):
        assert expected in names
    for name in names:
        result = runner.invoke(app, [name, "--help"])
        assert result.exit_code == 0, (name, result.output)
        assert "Traceback" not in result.output
        import typer.main

        command = typer.main.get_command(app).commands[name]
        assert command.help and command.help.strip(), f"{name} has no help text"
        for param in command.params:
            if param.param_type_name == "option" and param.name not in ("help",):
                assert getattr(param, "help", None), f"{name} --{param.name} has no help text"


def _quizgen(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "quizgen", *args], capture_output=True, text=True,
                          input=stdin, timeout=120)


@pytest.mark.parametrize("args, field", [
    (["occupancy", "--threads", "0"], "threads_per_block"),
    (["occupancy", "--threads", "256", "--regs", "-4"], "regs_per_thread"),
    (["occupancy", "--gpu", "gtx9999", "--threads", "32"], "gpu"),
    (["occupancy", "--threads", "256", "--carveout", "101"], "carveout"),
    (["occupancy", "--block", "16,16", "--threads", "100"], "block"),
    (["occupancy", "--threads", "64", "--smem", "12 parsecs"], "smem"),
    (["generate", "--cell", "OCC-99"], "cell"),
    (["generate", "--level", "7"], "level"),
    (["deck", "no-such-recipe", "--out", "x.apkg"], "recipe"),
])
def test_bad_input_is_one_line_and_exit_code_2(args, field):
    result = _quizgen(*args)
    assert result.returncode == 2, result
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    assert field in lines[0]


def test_occupancy_worked_solution_and_json_agree():
    text = _quizgen("occupancy", "--threads", "256", "--regs", "130").stdout
    assert "Yeh step kyun?" in text and "Verify" in text
    assert "1 block/SM → 8 active warps" in text  # seed 000, Example 2's 130-register cliff
    data = json.loads(_quizgen("occupancy", "--threads", "256", "--regs", "130", "--json").stdout)
    assert data["blocks_per_sm"] == 1 and data["occupancy"] == 0.125 and data["limiter"] == ["registers"]
    en = _quizgen("occupancy", "--gpu", "a100", "--threads", "256", "--regs", "64", "--smem", "48KB",
                  "--lang", "en").stdout
    assert "Why this step?" in en and "limiter: shared memory" in en


def test_batch_keeps_going_past_bad_lines():
    lines = "\n".join([
        json.dumps({"gpu": "a100", "threads_per_block": 256, "regs_per_thread": 64}),
        json.dumps({"gpu": "h100", "threads_per_block": 0}),
        "{not json",
        json.dumps({"gpu": {"base": "a100", "max_blocks_per_sm": 16}, "block": [32, 1, 1], "regs_per_thread": 16}),
    ]) + "\n"
    out = _quizgen("occupancy", "--batch", "-", stdin=lines)
    assert out.returncode == 2          # every line ran, and the exit code says some failed
    assert out.stderr.startswith("error: batch: 2 of 4 lines failed") and out.stderr.count("\n") == 1
    rows = [json.loads(line) for line in out.stdout.splitlines()]
    assert len(rows) == 4
    assert rows[0]["blocks_per_sm"] == 4 and rows[0]["limiter"] == ["registers"]
    assert rows[1]["line"] == 2 and "threads_per_block" in rows[1]["error"]
    assert rows[2]["line"] == 3 and "JSON" in rows[2]["error"]
    assert rows[3]["blocks_per_sm"] == 16 and rows[3]["limiter"] == ["blocks"]


def test_generate_json_is_deterministic():
    a = _quizgen("generate", "--cell", "OCC-3", "--count", "2", "--seed", "5", "--format", "json").stdout
    b = _quizgen("generate", "--cell", "OCC-3", "--count", "2", "--seed", "5", "--format", "json").stdout
    assert a == b
    problems = json.loads(a)
    assert [p["cell"] for p in problems] == ["OCC-3", "OCC-3"]
    for p in problems:
        assert {"id", "cell", "gpu", "params", "answers", "model", "question", "solution", "choices",
                "level", "lang"} <= set(p)
        assert p["answers"]["limiter"] == ["shared_memory"]


def _readme_commands() -> list[str]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    head = text.split("---", 1)[0]
    return [line.strip() for line in head.splitlines() if line.startswith("    ")]


def test_readme_starts_with_the_two_commands_and_ci_runs_the_test_one():
    commands = _readme_commands()
    assert len(commands) == 3          # the two commands, then the quick subset of the tests
    main_job, tests = commands[:2]
    assert "pip install" in main_job and "quizgen deck" in main_job
    assert "pip install" in tests and "pytest" in tests
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    # CI reads the command out of the README (tests/test_readme.py checks how)
    assert 'lines.index("Install and run the tests:")' in ci


def test_readme_main_job_builds_the_default_deck(tmp_path):
    main_job = _readme_commands()[0]
    deck_part = main_job.rsplit("&&", 1)[1].strip()
    args = deck_part.split()
    assert args[0].endswith("quizgen")     # .venv/bin/quizgen
    result = subprocess.run([sys.executable, "-m", "quizgen", *args[1:], "--quiet"], cwd=tmp_path,
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    out_name = args[args.index("--out") + 1]
    deck = tmp_path / out_name
    assert deck.is_file() and deck.stat().st_size > 10_000
    summary = result.stdout.strip().splitlines()[-1]
    assert re.match(rf"\d+ notes, \d+ cards, {len(CELLS)} cells", summary), summary


def _readme_calculator_lines() -> list[str]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    lines = []
    for line in text.splitlines():
        if not line.startswith("    quizgen "):
            continue
        command = line.strip().split("  #")[0].strip()
        if command.split()[1] in ("occupancy", "warps", "latency", "divergence", "waves", "bound",
                                  "generate") and "--batch" not in command:
            lines.append(command)
    return lines


def test_readme_calculator_examples_run(tmp_path):
    lines = _readme_calculator_lines()
    assert len(lines) >= 9
    for command in lines:
        args = shlex.split(command)[1:]          # as a shell reads the line (quoted conditions)
        result = subprocess.run([sys.executable, "-m", "quizgen", *args], cwd=tmp_path,
                                capture_output=True, text=True, timeout=120)
        assert result.returncode == 0, (command, result.stderr)
        assert result.stdout.strip(), command
    assert (tmp_path / "sweep.svg").read_text(encoding="utf-8").lstrip().startswith("<svg")
