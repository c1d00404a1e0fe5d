"""The physics every cell, calculator and grader shares (CELLS.md): one answer for one case.

Latency hiding: every scheduler needs ⌈L·X_s/(W·ILP)⌉ warps of its own and the SM needs N_sched
times that (seed 001 Ex 10: 4 × 20 = 80 against 64 → 16 short); nothing divides by N_sched.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from quizgen.engine.latency import divided_by_schedulers, efficiency, hide_latency
from quizgen.generator import families, generate_one, resolve_named_gpu

LATENCY_CELLS = ("W-E", "W-F", "W-J", "L-3", "L-4", "L-5")


def cli_json(*args: str) -> dict:
    out = subprocess.run([sys.executable, "-m", "quizgen", *args, "--json"], capture_output=True,
                         text=True, check=True).stdout
    return json.loads(out)


def solve(cell, params, gpu="textbook"):
    return families()[cell].solve(params, resolve_named_gpu(gpu)).answers


# (L, W, N_sched, T_issue): seed 001 Ex 10, its self-test, a ragged case, one scheduler, T_issue 2
CASES = [(400, 20, 4, 1), (300, 15, 4, 1), (301, 15, 4, 1), (300, 15, 1, 1), (401, 20, 4, 2),
         (128, 8, 4, 1), (400, 1, 4, 1)]


@pytest.mark.parametrize("L, W, N, T", CASES)
def test_calculator_and_cells_give_one_answer(L, W, N, T):
    expect = N * -(-L // (T * W))
    assert hide_latency(L, W, schedulers=N, issue_interval=T).warps_needed == expect
    cli = cli_json("latency", "--latency", str(L), "--work", str(W), "--schedulers", str(N),
                   "--issue-interval", str(T))
    got = {"calculator": cli["warps_needed"],
           "W-J": solve("W-J", {"schedulers": N, "latency": L, "issue_interval": T,
                                "work_per_warp": W})["warps_needed"]}
    if T == 1:
        got["W-E"] = solve("W-E", {"latency": L, "work_per_warp": W, "schedulers": N})["warps_needed"]
        if W == 1:
            got["W-F"] = solve("W-F", {"latency": L, "work_per_warp": 1, "schedulers": N})["warps_needed"]
        got["L-4"] = solve("L-4", {"bytes_loaded": 8, "bytes_stored": 0, "flops": 256, "latency": L,
                                   "flop_latency": 4, "work_per_warp": W, "schedulers": N})["warps_needed"]
        # L-3: a warp issues its F FLOPs between loads (W = F), ILP 1
        got["L-3"] = solve("L-3", {"bytes_loaded": 16, "bytes_stored": 4, "flops": W, "latency": L,
                                   "flop_latency": 4, "ilp": 1, "schedulers": N})["warps_needed"]
        # L-5 with ILP = W and X_s = 1: the same count
        got["L-5"] = solve("L-5", {"latency": L, "throughput": 1, "ilp": W, "schedulers": N})["warps_needed"]
        got["calculator (Little)"] = cli_json("latency", "--latency", str(L), "--throughput", "1",
                                              "--ilp", str(W), "--schedulers", str(N))["warps_needed"]
    assert set(got.values()) == {expect}, got


def test_seed_001_example_10_everywhere():
    cli = cli_json("latency", "--latency", "400", "--work", "20", "--schedulers", "4")
    wj = solve("W-J", {"schedulers": 4, "latency": 400, "issue_interval": 1, "work_per_warp": 20})
    for answers in (cli, wj):
        assert (answers["warps_needed"], answers["deficit"]) == (80, 16)


def test_occ6_plateau_is_the_one_scheduler_count():
    for L in (13, 300, 700):
        assert efficiency(10, L).plateau_at == hide_latency(L, 1).warps_needed == L


@pytest.mark.parametrize("cell", LATENCY_CELLS)
def test_no_answer_divides_by_the_schedulers(cell):
    """Every generated latency problem: warps needed = N_sched × one scheduler's warps, the
    correct option says so, and the divided count is only ever a labelled distractor."""
    fam = families()[cell]
    for level in (1, 2, 3):
        for seed in range(40):
            p = generate_one(cell, level=level, seed=seed, lang="en")
            if "schedulers" not in p.params:
                continue        # Little's law in bytes: bytes per SM, no count per scheduler
            a, n_sched = p.answers, p.params["schedulers"]
            assert a["warps_needed"] == n_sched * a["warps_per_scheduler"], (p.id, a)
            if p.main_answer == "warps_needed":
                correct = [c for c in p.choices if c.correct]
                assert [c.value for c in correct] == [a["warps_needed"]], p.id
            gpu = resolve_named_gpu(p.gpu["name"])
            solved = fam.solve(p.params, gpu)
            wrong = {m.key: m.answers for m in fam.misconceptions(p.params, gpu, solved)}
            assert "divided_by_schedulers" in wrong, p.id
            divided = wrong["divided_by_schedulers"]["warps_needed"]
            assert divided == divided_by_schedulers(solved.data["res"])
            assert n_sched == 1 or divided < a["warps_needed"], p.id
            for c in p.choices if p.main_answer == "warps_needed" else ():
                if c.value == divided and divided != a["warps_needed"]:
                    assert not c.correct, p.id


# Blocks go out breadth-first (OCC-7, waves) --------------------------------------------------


@pytest.mark.parametrize("lang", ["en", "hinglish"])
def test_occ7_tail_spreads_and_the_answer_line_agrees(lang):
    fam = families()["OCC-7"]
    for level in (1, 2, 3):
        for seed in range(30):
            p = generate_one("OCC-7", level=level, seed=seed, lang=lang)
            a, S, G = p.answers, p.params["num_sms"], p.params["grid_blocks"]
            assert "breadth-first" in p.question, p.id
            assert a["tail_sms"] == min(a["tail_blocks"], S), p.id
            assert a["idle_sms"] == S - min(G, S), p.id
            answer = p.solution.answer
            if a["idle_sms"]:
                assert f"{a['idle_sms']} SMs" in answer, (p.id, answer)
            if a["tail_blocks"] and a["waves"] > 1:
                assert f"{a['tail_sms']} SMs" in answer, (p.id, answer)
            gpu = resolve_named_gpu(p.gpu["name"])
            wrong = {m.key: m.answers for m in fam.misconceptions(p.params, gpu, fam.solve(p.params, gpu))}
            assert wrong["packed_tail"]["tail_sms"] == -(-a["tail_blocks"] // a["blocks_per_sm"])


def test_waves_calculator_agrees_with_occ7():
    cli = cli_json("waves", "--grid", "2000", "--blocks-per-sm", "8")
    occ7 = solve("OCC-7", {"threads_per_block": 256, "regs_per_thread": 32, "grid_blocks": 2000,
                           "num_sms": 80})
    assert cli["tail_sms"] == occ7["tail_sms"] == 80 and cli["idle_sms"] == occ7["idle_sms"] == 0


# Which model a real GPU's question uses ------------------------------------------------------

MODEL_CELLS = ("OCC-1", "OCC-2", "OCC-3", "OCC-4", "OCC-5", "OCC-7", "OCC-9", "L-1", "L-2",
               "X-1", "X-2", "X-3", "X-4", "X-5")


def test_every_real_gpu_question_is_exact_or_says_textbook_and_shows_exact():
    from quizgen.engine.occupancy import launch_config, occupancy
    from quizgen.errors import QuizgenError

    checked = 0
    for cell in MODEL_CELLS:
        for gpu in (None, "a100", "t4", "h100"):
            for level in (1, 2, 3):
                for seed in range(6):
                    for lang in ("en", "hinglish"):
                        try:
                            p = generate_one(cell, level=level, seed=seed, lang=lang, gpu=gpu)
                        except QuizgenError:
                            continue
                        the_gpu = resolve_named_gpu(p.gpu["name"])
                        if the_gpu.is_textbook or p.model == "exact":
                            continue
                        checked += 1
                        assert p.model == "textbook", p.id
                        assert "textbook" in p.question.lower(), (p.id, p.question)
                        marker = "exact model" if lang == "en" else "exact model"
                        assert marker in p.solution.answer.lower(), (p.id, p.solution.answer)
                        if cell == "L-1":   # the exact warps for the stated block size are shown
                            exact = occupancy(the_gpu, launch_config(p.params["threads_per_block"],
                                                                     p.params["regs_per_thread"]),
                                              model="exact")
                            assert f"{exact.active_warps} warp" in p.solution.answer, p.id
    assert checked > 200


def test_l1_counts_whole_blocks_and_says_why_the_exact_answer_differs():
    """L-1 states a block size, so its resident warps are whole blocks of it (the notes'
    per-warp count is a step, not the answer: seed 201 on the A100 once answered 31 warps for
    256-thread blocks). Where the real GPU's answer differs, the Answer names the rules that
    the attribution finds, and only those."""
    from quizgen.engine.attribution import attribute
    from quizgen.engine.occupancy import launch_config, occupancy

    p = generate_one("L-1", level=1, seed=201, lang="en", gpu="a100")
    assert p.answers["active_warps"] == 24 and "31 warps" not in p.solution.answer
    seen = set()
    for gpu in ("a100", "t4", "h100"):
        for level in (1, 2, 3):
            for seed in range(12):
                p = generate_one("L-1", level=level, seed=seed, lang="en", gpu=gpu)
                T = p.params["threads_per_block"]
                cfg = launch_config(T, p.params["regs_per_thread"])
                the_gpu = resolve_named_gpu(gpu)
                book = occupancy(the_gpu, cfg, model="textbook")
                assert p.answers["active_warps"] == book.active_warps, p.id
                assert p.answers["active_warps"] % (T // 32) == 0, p.id
                exact = occupancy(the_gpu, cfg, model="exact").active_warps
                if exact == book.active_warps:
                    assert "differs because" not in p.solution.answer, p.id
                    continue
                rules = attribute(the_gpu, cfg).rules()
                assert ("allocated per warp in units of" in p.solution.answer) == (
                    "reg_granularity" in rules), p.id
                assert ("sub-partitions" in p.solution.answer) == ("subpartitions" in rules), p.id
                seen.update(rules)
    assert "reg_granularity" in seen


def test_occ5_largest_block_on_an_a100():
    """The issue's case: at 176 registers the textbook model allows 352 threads; the A100's exact
    rules allow 256, and the answer says both."""
    p = generate_one("OCC-5", level=1, seed=1, lang="en", gpu="a100")
    r = p.params["regs_per_thread"]
    from quizgen.problems.real_gpu import largest_exact_block
    from quizgen.engine.occupancy import launch_config
    exact = largest_exact_block(resolve_named_gpu("a100"), lambda T: launch_config(T, r))
    assert f"{exact} threads" in p.solution.answer and "textbook" in p.question


# Memory- or compute-bound: the roofline ------------------------------------------------------


@pytest.mark.parametrize("gpu", ["textbook", "a100", "t4", "h100"])
@pytest.mark.parametrize("load, store, flops", [(16, 4, 10), (4, 0, 100), (8, 0, 256), (4, 4, 140),
                                                (32, 0, 400)])
def test_bound_is_decided_by_intensity_against_machine_balance(gpu, load, store, flops):
    from quizgen.engine.bound import classify_kernel

    g = resolve_named_gpu(gpu)
    balance = g.peak_fp32_gflops / g.mem_bandwidth_gbs
    expect = "memory" if flops / (load + store) < balance else "compute"
    cli = cli_json("bound", "--load-bytes", str(load), "--store-bytes", str(store), "--flops",
                   str(flops), "--load-latency", "400", "--gpu", gpu)
    assert cli["bound"] == expect and cli["machine_balance"] == pytest.approx(balance)
    assert classify_kernel(load, store, flops, load_latency=30, gpu=g).bound == expect


def test_issue_case_speaks_with_one_voice():
    """`bound --load-bytes 4 --flops 100 --load-latency 400`: 25 FLOP/B is above the notes' SM's
    balance (15,700/900 ≈ 17.4), so compute-bound, everywhere in the text."""
    out = subprocess.run([sys.executable, "-m", "quizgen", "bound", "--load-bytes", "4", "--flops",
                          "100", "--load-latency", "400", "--lang", "en"], capture_output=True,
                         text=True, check=True).stdout
    verdicts = [line for line in out.splitlines()
                if line.strip().startswith(("Answer:", "↳", "•"))]
    assert any("compute-bound" in line.lower() for line in verdicts)
    assert not any("memory-bound" in line.lower() for line in verdicts), verdicts


@pytest.mark.parametrize("cell, verdict", [("L-3", "memory"), ("L-4", "compute")])
def test_l3_l4_bound_by_the_roofline(cell, verdict):
    for level in (1, 2, 3):
        for seed in range(25):
            p = generate_one(cell, level=level, seed=seed, lang="en")
            g = resolve_named_gpu(p.gpu["name"])
            moved = p.params["bytes_loaded"] + p.params["bytes_stored"]
            ai = p.params["flops"] / moved
            assert p.answers["bound"] == verdict
            assert (ai < g.peak_fp32_gflops / g.mem_bandwidth_gbs) == (verdict == "memory"), p.id
            assert "roofline" in p.question.lower()


@pytest.mark.parametrize("lang, phrase", [("en", "ILP 4 → 8"), ("hinglish", "ILP 4 → 8")])
def test_extra_ilp_is_named_on_top_of_the_ilp_given(lang, phrase):
    """With ILP 4 already counted, the gap closes with 2× more (ILP 8), and that total really fits."""
    out = subprocess.run([sys.executable, "-m", "quizgen", "latency", "--latency", "400", "--work", "4",
                          "--schedulers", "4", "--throughput", "1", "--ilp", "4", "--lang", lang],
                         capture_output=True, text=True, check=True).stdout
    assert phrase in out
    step = next(line for line in out.splitlines() if "⌈25/2⌉" in line and "=" in line and "·" in line)
    assert "k_ilp" not in step          # the extra factor is not the ILP of step 3 (k_ilp = 4)
    total = hide_latency(400, 4, schedulers=4, throughput=1, ilp=8)
    assert total.warps_needed == 52 <= 64 and "52 warps" in out
