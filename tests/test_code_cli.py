"""The calculators over code as a user runs them (`python -m quizgen`): the answers a teacher
would check, in both languages and as JSON, and hostile or bad input answered with one line and
exit code 2, nothing run, in bounded time and memory."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from conftest import run_quizgen, scaled

IF_RANGES = ["divergence", "--if", "threadIdx.x < 40 || threadIdx.x >= 104", "--block", "128",
             "--grid", "8"]


def as_json(*args):
    done = run_quizgen(*args, "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_issues_condition_in_eight_blocks():
    data = as_json(*IF_RANGES)
    assert (data["launch"]["grid_warps"], data["then_warps"], data["divergent_warps"]) == (32, 24, 16)
    assert data["divergent_blocks"] == 8 and data["threads_taking"] == 8 * 64


@pytest.mark.parametrize("lang, words", [("en", "16 diverge"), ("hinglish", "16 diverge karte hain")])
def test_the_worked_solution_in_both_languages(lang, words):
    done = run_quizgen(*IF_RANGES, "--lang", lang)
    assert done.returncode == 0, done.stderr
    assert words in done.stdout and "W_t + W_e - W_r = 24 + 24 - 32 = 16" in done.stdout


def test_the_boundary_warp_with_an_earlier_exit_and_costs():
    data = as_json("divergence", "--if", "i % 2 == 0", "--let", "int i = blockIdx.x * blockDim.x + threadIdx.x",
                   "--n", "1000", "--exit", "i >= n", "--block", "256", "--grid", "4", "--warp", "3,7",
                   "--costs", "20,12")
    warp = data["warp"]
    assert (warp["present"], warp["reach"], warp["take"]) == (32, 8, 4)
    assert warp["time"] == 32 and warp["region_efficiency"] == (4 * 20 + 4 * 12) / (32 * 32)
    assert data["divergent_warps"] == 32 and data["threads_reaching"] == 1000


def test_a_loop_of_five_minus_i_mod_three():
    data = as_json("divergence", "--loop", "5 - (i % 3)", "--let", "int i = threadIdx.x", "--block", "256",
                   "--iteration", "4")
    assert (data["longest"], data["issued"], data["divergent_iterations"]) == (5, 40, 16)
    assert data["iteration"] == {"iteration": 4, "running": 8, "diverging": 8,
                                 "lanes": sum(1 for t in range(256) if 5 - t % 3 >= 4)}


@pytest.mark.parametrize("kind, issued, divergent", [("interleaved", 191, list(range(1, 11))),
                                                     ("sequential", 36, [6, 7, 8, 9, 10])])
def test_the_two_reductions(kind, issued, divergent):
    data = as_json("divergence", "--reduction", kind, "--block", "1024", "--grid", "3")
    assert (data["issued"], data["grid_issued"], data["divergent_iterations"]) == (issued, 3 * issued, divergent)


def test_eight_threads_at_a_barrier():
    data = as_json("barrier", "--arrivals", "2.0,2.3,3.0,2.8,2.4,1.9,2.6,2.9", "--unit", "µs")
    assert data["release"] == 3 and data["total_wait"] == 4.1 and round(data["share"], 3) == 0.171
    done = run_quizgen("barrier", "--arrivals", "2.0,2.3,3.0,2.8,2.4,1.9,2.6,2.9", "--unit", "µs",
                       "--lang", "en")
    assert "17.083%" in done.stdout and "4.1 thread-µs" in done.stdout


@pytest.mark.parametrize("read, block, barrier", [("t ^ 1", "32", "syncwarp"), ("t", "64", "none"),
                                                  ("(t + 32) % blockDim.x", "128", "syncthreads"),
                                                  ("tx * blockDim.x + ty", "16,16", "syncthreads")])
def test_the_least_barrier_of_an_exchange(read, block, barrier):
    assert as_json("barrier", "--read", read, "--block", block)["barrier"] == barrier


def test_the_branch_form_still_works():
    data = as_json("divergence", "--branch", "20:30", "--branch", "12:30")
    assert data["serialised"] == 60 and data["slowdown"] == 2.0


HOSTILE = [
    ("--if", "__import__('os').system('touch PWNED')"),
    ("--if", "exec(\"open('PWNED','w')\")"),
    ("--if", "threadIdx.x.__class__.__mro__"),
    ("--if", "1 << 1000"),
    ("--if", "(" * 5000 + "1" + ")" * 5000),
    ("--if", "x" * 10_000),
    ("--if", "threadIdx.x / 0"),
    ("--if", "unknown_name < 3"),
    ("--loop", "2147483647 * 2147483647"),
    ("--let", "__builtins__ = 1"),
    ("--let", "int i = open('PWNED')"),
    ("--grid", "1000000"),
    ("--block", "2048"),
]


@pytest.mark.parametrize("option, value", HOSTILE)
def test_hostile_input_is_one_line_and_exit_2_and_nothing_runs(option, value, tmp_path):
    args = ["divergence", "--block", "128", "--grid", "8"]
    if option in ("--let", "--grid", "--block"):
        args += ["--if", "i < 64" if option == "--let" else "threadIdx.x < 3"]
    elif option == "--loop":
        args = ["divergence", "--block", "128"]
    args += [option, value]
    done = subprocess.run([sys.executable, "-m", "quizgen", *args], cwd=tmp_path, capture_output=True,
                          text=True, timeout=scaled(30))
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert done.stderr.startswith("error: ") and done.stderr.count("\n") == 1, done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""
    assert list(tmp_path.iterdir()) == []                     # nothing was run: no file written


def test_the_largest_launch_runs_in_bounded_time_and_memory(tmp_path):
    """4,194,304 threads (the limit): evaluated a chunk at a time, so the process stays small."""
    code = ("import resource, subprocess, sys\n"
            "subprocess.run([sys.executable, '-m', 'quizgen', 'divergence', '--if', "
            "'i % 7 < 3 && threadIdx.x > 5', '--let', 'int i = blockIdx.x * blockDim.x + threadIdx.x', "
            "'--block', '1024', '--grid', '4096', '--json'], check=True, capture_output=True)\n"
            "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=scaled(60), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) < 400_000, f"{int(done.stdout) / 1024:.0f} MB"     # ru_maxrss: KB


def test_help_names_every_option():
    done = run_quizgen("divergence", "--help")
    for option in ("--if", "--loop", "--reduction", "--block", "--grid", "--let", "--n", "--exit",
                   "--costs", "--warp", "--iteration", "--branch", "--json"):
        assert option in done.stdout, option
    done = run_quizgen("barrier", "--help")
    assert "--arrivals" in done.stdout and "--read" in done.stdout and done.returncode == 0


@pytest.mark.parametrize("args, says", [
    (["divergence", "--if", "threadIdx.x < 3"], "give the block shape"),
    (["divergence", "--if", "threadIdx.x < 3", "--loop", "3", "--block", "32"], "give one of"),
    (["divergence", "--branch", "20:30", "--if", "threadIdx.x < 3"], "not both"),
    (["divergence", "--reduction", "zigzag", "--block", "64"], "interleaved, sequential"),
    (["divergence", "--reduction", "sequential", "--block", "64", "--iteration", "9"], "runs 6 iterations"),
    (["divergence", "--if", "threadIdx.x < 3", "--block", "64", "--warp", "5"], "not in 1 block"),
    (["barrier", "--arrivals", "1,2", "--weights", "32"], "1 weights for 2 arrivals"),
    (["barrier", "--read", "t + 1", "--block", "32"], "no thread of a 32-thread block writes"),
    (["barrier"], "give --arrivals"),
])
def test_bad_input_names_the_option(args, says):
    done = run_quizgen(*args)
    assert done.returncode == 2 and says in done.stderr and done.stderr.count("\n") == 1, done.stderr
