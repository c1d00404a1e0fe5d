"""The calculator commands: seed numbers in --json, worked solutions in both languages, help, errors.

JSON and text go through typer's CliRunner (fast); errors go through `quizgen.cli.main` (the
console script's entry point) in-process, and a few through the installed `quizgen` script.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import typer
from typer.testing import CliRunner

from quizgen.cli import app, main

runner = CliRunner()

COMMANDS = ("warps", "latency", "divergence", "waves", "bound")


def run_json(args: list[str]) -> dict:
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, "one JSON object on one line"
    return json.loads(lines[0])


def run_text(args: list[str]) -> str:
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    return result.output


def dig(data: dict, path: str):
    for part in path.split("."):
        data = data[int(part)] if isinstance(data, list) else data[part]
    return data


# ------------------------------------------------------------------------------------------------
# The notes' own answers, read from --json

SEED_CASES = [
    # seed 001 Ex 1: clean 1D block
    ("001-ex1", ["warps", "--block", "256,1,1"], {"warps": 8, "wasted_lanes": 0, "top_warp_id": 7}),
    # seed 001 Ex 2: 100 threads → 4 warps, tail of 4, 28 idle lanes, 87.5% of the tail warp
    ("001-ex2", ["warps", "--block", "100"],
     {"warps": 4, "top_warp_id": 3, "full_warps": 3, "tail_active": 4, "wasted_lanes": 28,
      "tail_waste_fraction": 0.875}),
    # seed 001 Ex 3: 48×4, warp 1 = row 0 x 32–47 + row 1 x 0–15
    ("001-ex3", ["warps", "--block", "48,4,1", "--warp", "1"],
     {"threads_per_block": 192, "warps": 6, "wasted_lanes": 0, "rows_aligned": False,
      "warp_members.segments.0.y": 0, "warp_members.segments.0.x_start": 32,
      "warp_members.segments.0.x_end": 47, "warp_members.segments.1.y": 1,
      "warp_members.segments.1.x_start": 0, "warp_members.segments.1.x_end": 15,
      "warp_members.segments.1.linear_end": 63}),
    # seed 001 Ex 3b: 8×4×3, linear 70 → (6, 0, 2), 3 warps, one per z-slice
    ("001-ex3b", ["warps", "--block", "8,4,3", "--thread", "70"],
     {"threads_per_block": 96, "warps": 3, "slices_aligned": True, "thread.coords": [6, 0, 2],
      "thread.warp_id": 2, "thread.z_slice": 2, "thread.offset_in_slice": 6}),
    ("001-ex3b-inverse", ["warps", "--block", "8,4,3", "--coords", "6,0,2"],
     {"thread.linear_index": 70, "thread.warp_id": 2, "thread.lane": 6}),
    # seed 001 Ex 6: W = 1 cannot be hidden: 400 warps per scheduler (the seed's count), and the
    # textbook SM's 4 schedulers each need their own (shared physics: 1600, not 400)
    ("001-ex6", ["latency", "--latency", "400", "--work", "1", "--stall", "memory"],
     {"warps_per_scheduler": 400, "warps_needed": 1600, "max_warps": 64, "memory_bound": True,
      "degenerate": True}),
    ("001-ex6-one-scheduler", ["latency", "--latency", "400", "--work", "1", "--schedulers", "1"],
     {"warps_needed": 400, "deficit": 336}),
    # seed 001 Ex 7: 20 and 12 lanes, 30 cycles each → 60 cycles, 2×
    ("001-ex7", ["divergence", "--branch", "20:30", "--branch", "12:30"],
     {"serialised": 60, "baseline": 30, "slowdown": 2.0, "divergent": True,
      "split_matters": False}),
    # seed 001 Ex 8: all 32 lanes agree, the empty else costs nothing
    ("001-ex8", ["divergence", "--branch", "32:30", "--branch", "0:30"],
     {"serialised": 30, "slowdown": 1.0, "divergent": False, "lane_utilisation": 1.0}),
    # seed 001 Ex 9: (30, 30) vs (32, 8)
    ("001-ex9", ["warps", "--block", "30,30", "--compare", "32,8"],
     {"warps": 29, "tail_active": 4, "wasted_lanes": 28, "compare.better": "second",
      "compare.better_block": [32, 8, 1], "compare.second.warps": 8,
      "compare.second.wasted_lanes": 0, "compare.second.rows_aligned": True}),
    # seed 001 Ex 10: 4 schedulers × 400 / 1 = 1600 slots → 80 warps, 16 over the cap of 64
    ("001-ex10", ["latency", "--latency", "400", "--work", "20", "--schedulers", "4",
                  "--issue-interval", "1"],
     {"in_flight": 1600, "warps_per_scheduler": 20, "warps_needed": 80, "max_warps": 64,
      "deficit": 16, "hidable": False, "ilp_factor": 2, "warps_with_ilp": 40}),
    # seed 001 self-test
    ("001-self-72", ["warps", "--block", "72,1,1"], {"warps": 3, "tail_active": 8, "wasted_lanes": 24}),
    ("001-self-8x4x3", ["warps", "--block", "8,4,3"], {"warps": 3, "wasted_lanes": 0}),
    # seed 001 self-test: 20 warps per scheduler; the SM's 4 schedulers need 80 (shared physics)
    ("001-self-L300", ["latency", "--latency", "300", "--work", "15"],
     {"warps_per_scheduler": 20, "warps_needed": 80, "hidable": False, "deficit": 16}),
    ("001-self-L300-one", ["latency", "--latency", "300", "--work", "15", "--schedulers", "1"],
     {"warps_needed": 20, "hidable": True, "deficit": 0}),
    ("001-self-div", ["divergence", "--branch", "16:40", "--branch", "16:40"],
     {"serialised": 80, "slowdown": 2.0}),
    # seed 000 Ex 6: η(N) = min(N, 300)/300
    ("000-ex6-64", ["latency", "--latency", "300", "--resident", "64"],
     {"latency": 300, "efficiency.plateau_at": 300, "efficiency.saturated": False}),
    # The seed's N = 600 is past any SM's cap (64): the shared physics makes it an input error on
    # a real SM, so the seed's curve is reproduced on a hypothetical SM that holds 1,024 warps.
    ("000-ex6-600", ["latency", "--latency", "300", "--resident", "600", "--max-warps", "1024"],
     {"efficiency.efficiency": 1.0, "efficiency.spare_warps": 300}),
    # seed 000 Ex 7: 80 SMs × 8 blocks; a grid of 40, then of 2000
    ("000-ex7-small", ["waves", "--grid", "40", "--blocks-per-sm", "8"],
     {"num_sms": 80, "slots": 640, "sms_with_blocks": 40, "idle_sms": 40, "waves": 1,
      "sm_utilisation": 0.5, "blocks_per_sm_from": "given"}),
    ("000-ex7-big", ["waves", "--grid", "2000", "--blocks-per-sm", "8"],
     {"waves": 4, "full_waves": 3, "tail_blocks": 80, "tail_sms": 80, "tail_idle_sms": 0,
      "idle_sms": 0, "tail_utilisation": 0.125}),
    # seed 000 Ex 7 with Ex 1's kernel (256 threads, 32 registers): blocks per SM computed = 8
    ("000-ex7-from-ex1", ["waves", "--grid", "2000", "--threads", "256", "--regs", "32"],
     {"blocks_per_sm": 8, "blocks_per_sm_from": "occupancy", "occupancy.blocks_per_sm": 8,
      "occupancy.model": "textbook", "waves": 4, "tail_blocks": 80}),
    # seed 000 Ex 8: equal occupancy, Y splits 16/16 → utilisation 0.5, 2×
    ("000-ex8", ["divergence", "--branch", "16:10", "--branch", "16:10"],
     {"lane_utilisation": 0.5, "slowdown": 2.0}),
    # seed 004 Ex 1: float4 load, 10 FLOPs, float store, 400-cycle load
    ("004-ex1", ["bound", "--load-bytes", "16", "--store-bytes", "4", "--flops", "10",
                 "--load-latency", "400", "--flop-latency", "4"],
     {"bytes_moved": 20, "arithmetic_intensity": 0.5, "compute_cycles": 10, "bound": "memory",
      "memory_bound": True}),
    # seed 004 Ex 2: 256 FMAs, 8 bytes from shared memory at 30 cycles
    ("004-ex2", ["bound", "--load-bytes", "8", "--flops", "256", "--load-latency", "30"],
     {"compute_cycles": 256, "bound": "compute"}),
]


@pytest.mark.parametrize("args, expected", [(a, e) for _, a, e in SEED_CASES],
                         ids=[name for name, _, _ in SEED_CASES])
def test_seed_numbers_in_json(args, expected):
    data = run_json(args)
    for path, value in expected.items():
        got = dig(data, path)
        if isinstance(value, float):
            assert got == pytest.approx(value), path
        else:
            assert got == value, path


def test_eta_at_64_of_300():
    # seed 000 Ex 6's reality check: 64/300 ≈ 21%
    data = run_json(["latency", "--latency", "300", "--resident", "64"])
    assert data["efficiency"]["efficiency"] == pytest.approx(64 / 300)


def test_littles_law_keeps_the_latency():
    data = run_json(["latency", "--latency", "400", "--throughput", "1", "--ilp", "2",
                     "--schedulers", "4"])
    assert {k: data[k] for k in ("latency", "throughput", "ilp", "schedulers", "in_flight",
                                 "warps_per_scheduler", "warps_needed")} == {
        "latency": 400, "throughput": 1, "ilp": 2, "schedulers": 4, "in_flight": 1600,
        "warps_per_scheduler": 200, "warps_needed": 800}


def test_issue_report_case_has_one_answer():
    """--work and --ilp and --throughput together: one model, one answer (4 × ⌈400/16⌉ = 100)."""
    args = ["latency", "--latency", "400", "--work", "4", "--schedulers", "4", "--throughput", "1",
            "--ilp", "4"]
    data = run_json(args)
    assert (data["warps_per_scheduler"], data["warps_needed"], data["deficit"]) == (25, 100, 36)
    text = subprocess.run([sys.executable, "-m", "quizgen", *args, "--lang", "en"],
                          capture_output=True, text=True, check=True).stdout
    assert "100 warps needed" in text and "25 warps supply" not in text


def test_cap_comes_from_the_gpu_or_the_option():
    assert run_json(["latency", "-L", "400", "-W", "10", "--gpu", "t4"])["max_warps"] == 32
    assert run_json(["latency", "-L", "400", "-W", "10", "--max-warps", "48"])["max_warps"] == 48


def test_waves_on_a100_use_its_sms_and_exact_model():
    data = run_json(["waves", "--gpu", "a100", "--grid", "2000", "--threads", "256", "--regs", "32"])
    assert data["gpu"] == "a100" and data["num_sms"] == 108
    assert data["occupancy"]["model"] == "exact"
    slots = data["slots"]
    assert slots == 108 * data["blocks_per_sm"]
    assert data["waves"] * slots >= 2000 > (data["waves"] - 1) * slots


def test_divergence_takes_any_number_of_branches():
    data = run_json(["divergence", "-b", "8:10", "-b", "8:20", "-b", "0:99", "-b", "16:5"])
    assert data["serialised"] == 35 and len(data["branches"]) == 4 and data["populated"] == 3


# ------------------------------------------------------------------------------------------------
# Worked solutions

TEXT_CASES = [
    (["warps", "--block", "100"], ["28 wasted lanes", "4 × 32 = 128 ≥ 100 > 96 = 3 × 32"]),
    (["warps", "--block", "8,4,3", "--thread", "70"],
     ["(6, 0, 2)", "warp 2, lane 6", "2·(8·4) + 0·8 + 6 = 70"]),
    (["warps", "--block", "8,4,3", "--coords", "6,0,2"], ["70 = 2·32 + 6", "linear 70"]),
    (["warps", "--block", "48,4,1", "--warp", "1"],
     ["x=32–47", "x=0–15", "16 + 16 = 32", "63 − 32 + 1"]),
    (["warps", "--block", "30,30", "--compare", "32,8"],
     ["32×8×1", "29 × 32 = 928 ≥ 900 > 896 = 28 × 32"]),
    (["latency", "--latency", "400", "--work", "20", "--schedulers", "4"],
     ["4·20 = 80", "= 16 warps", "4 × ⌈20/2⌉ = 40"]),
    (["latency", "--latency", "400", "--work", "1", "--stall", "memory"], ["4 × 400 = 1,600 > 64 ✗", "memory-bound"]),
    (["latency", "--latency", "300", "--resident", "600", "--max-warps", "1024"],
     ["η(600) = 100%", "300"]),
    (["divergence", "--branch", "20:30", "--branch", "12:30"],
     ["30 + 30 = 60", "2× slowdown", "20 + 12 = 32"]),
    (["waves", "--grid", "2000", "--blocks-per-sm", "8"],
     ["4 × 640 = 2,560 ≥ 2,000 > 1,920 = 3 × 640", "3 × 640 + 80 = 2,000", "min(80, 80) = 80", "80/640 = 12.5%"]),
    (["waves", "--grid", "40", "--threads", "256", "--regs", "32"],
     ["40/80", "50%", "8 blocks/SM"]),
    (["bound", "--load-bytes", "16", "--store-bytes", "4", "--flops", "10", "--load-latency", "400"],
     ["Memory-bound", "0.5 FLOP/B × 20 B = 10", "400 + 10 = 410"]),
]

WHY = {"hinglish": "Yeh step kyun?", "en": "Why this step?"}
ANSWER = {"hinglish": "Answer:", "en": "Answer:"}


@pytest.mark.parametrize("lang", ["hinglish", "en"])
@pytest.mark.parametrize("args, needles", TEXT_CASES, ids=[" ".join(a[:3]) for a, _ in TEXT_CASES])
def test_worked_solution_text(args, needles, lang):
    text = run_text([*args, "--lang", lang])
    assert "1. " in text and "2. " in text
    assert WHY[lang] in text and WHY["en" if lang == "hinglish" else "hinglish"] not in text
    assert "Verify:" in text and ANSWER[lang] in text and "Forecast:" in text
    assert "{{" not in text and "{%" not in text and "Traceback" not in text
    for needle in needles:
        assert needle in text, needle


def test_hinglish_is_the_default_and_differs_from_english():
    default = run_text(["warps", "--block", "100"])
    assert default == run_text(["warps", "--block", "100", "--lang", "hinglish"])
    english = run_text(["warps", "--block", "100", "--lang", "en"])
    assert "aakhri warp" in default and "the last warp" in english


def test_waves_says_where_blocks_per_sm_came_from():
    text = run_text(["waves", "--gpu", "a100", "--grid", "2000", "--threads", "256", "--regs",
                     "32", "--lang", "en"])
    assert "Blocks per SM were not given" in text and "exact model" in text
    # the occupancy derivation comes first, then the waves
    assert text.index("min(B_R, B_S, B_W, B_max)") < text.index("⌈G/C_slots⌉")
    plain = run_text(["waves", "--grid", "2000", "--blocks-per-sm", "8", "--lang", "en"])
    assert "not given" not in plain


def test_answer_line_is_last_and_single():
    text = run_text(["divergence", "-b", "32:30", "-b", "0:30", "--lang", "en"])
    lines = text.rstrip().splitlines()
    assert lines[-1].startswith("Answer: No divergence") and "(no penalty)" in lines[-1]


# ------------------------------------------------------------------------------------------------
# Help


@pytest.mark.parametrize("name", COMMANDS)
def test_help_lists_every_option_with_text(name):
    command = typer.main.get_command(app).commands[name]
    assert command.help and command.help.strip()
    result = runner.invoke(app, [name, "--help"], terminal_width=200)
    assert result.exit_code == 0 and "Traceback" not in result.output
    for param in command.params:
        if param.name == "help":
            continue
        assert param.help and len(param.help) > 10, (name, param.name)
        assert param.opts[0] in result.output, (name, param.opts[0])


def test_root_help_lists_the_calculators():
    result = runner.invoke(app, ["--help"], terminal_width=200)
    assert result.exit_code == 0
    for name in COMMANDS:
        assert name in result.output


# ------------------------------------------------------------------------------------------------
# Bad input: one line on stderr, exit code 2

BAD_INPUT = [
    (["warps", "--block", "0,4"], "block"),
    (["warps", "--block", "8,4,3", "--thread", "96"], "thread"),
    (["warps", "--block", "8,4,3", "--coords", "0,4,0"], "coords"),
    (["warps", "--block", "8,4", "--thread", "1", "--coords", "1,0"], "thread"),
    (["warps", "--block", "48,4", "--warp", "6"], "warp"),
    (["warps", "--block", "32", "--compare", "0,8"], "compare"),
    (["divergence", "--branch", "33:30", "--branch", "0:30"], "branch 1 lanes"),
    (["divergence", "--branch", "20:30", "--branch", "10:30"], "branch"),
    (["divergence", "--branch", "20-30"], "branch 1"),
    (["divergence", "--branch", "20:30", "--branch", "12:-1"], "branch 2 cost"),
    (["latency", "--latency", "400"], "work"),
    (["latency", "--latency", "0", "--work", "4"], "latency"),
    (["latency", "--latency", "400", "--work", "0"], "work"),
    (["latency", "--latency", "400", "--work", "4", "--lang", "fr"], "lang"),
    (["waves", "--grid", "0", "--blocks-per-sm", "8"], "grid"),
    (["waves", "--grid", "10"], "blocks-per-sm"),
    (["waves", "--grid", "10", "--threads", "2048"], "blocks-per-sm"),
    (["waves", "--grid", "10", "--gpu", "nosuchgpu", "--blocks-per-sm", "2"], None),
    (["bound", "--load-bytes", "-1", "--flops", "3", "--load-latency", "4"], "load-bytes"),
    (["bound", "--load-bytes", "4", "--flops", "x", "--load-latency", "4"], "flops"),
    # more warps than the SM can hold are not resident (the textbook SM's cap is 64)
    (["latency", "--latency", "300", "--resident", "65"], "resident"),
    (["latency", "--latency", "300", "--resident", "100", "--max-warps", "96"], "resident"),
]


@pytest.mark.parametrize("args, field", BAD_INPUT, ids=[" ".join(a) for a, _ in BAD_INPUT])
def test_bad_input_one_line_exit_2(args, field, monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", ["quizgen", *args])
    with pytest.raises(SystemExit) as exit_info:
        main()
    assert exit_info.value.code == 2
    out, err = capsys.readouterr()
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    if field is not None:
        assert lines[0].startswith(f"error: {field}: "), lines[0]


@pytest.mark.parametrize("args", [
    ["warps", "--block", "8,4,3", "--thread", "96"],
    ["divergence", "--branch", "20:30", "--branch", "10:30"],
    ["waves", "--grid", "0", "--blocks-per-sm", "8"],
])
def test_bad_input_through_the_console_script(args):
    proc = subprocess.run([sys.executable, "-m", "quizgen", *args], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert len(proc.stderr.strip().splitlines()) == 1 and proc.stderr.startswith("error: ")


def test_good_input_through_the_console_script():
    proc = subprocess.run([sys.executable, "-m", "quizgen", "warps", "--block", "100", "--json"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["wasted_lanes"] == 28
