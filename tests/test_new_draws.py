"""The draws OCC-5 and L-5 gained: a block over the per-block thread limit (OCC-5, levels 1 and 2,
on the notes' SM and on PMPP's SM of 512-thread blocks) and Little's law in bytes (L-5, level 2).
Each in both languages: the question states what the answer needs, the answers agree with a
second route, the words name the right limit, and the grader diagnoses the slips they offer."""

from __future__ import annotations

import math

from quizgen.generator import generate_one
from quizgen.grade import check_answer

SEEDS = range(60)


def occ5_over_threads(level: int) -> list:
    out = []
    for seed in SEEDS:
        p = generate_one("OCC-5", level=level, seed=seed, lang="en")
        if p.params["threads_per_block"] > p.gpu["max_threads_per_block"]:
            out.append(p)
    return out


def test_occ5_draws_blocks_over_the_thread_limit_at_levels_1_and_2():
    one, two = occ5_over_threads(1), occ5_over_threads(2)
    assert len(one) >= 5 and len(two) >= 5
    assert {p.gpu["name"] for p in two} == {"textbook", "pmpp-512"}
    for p in one + two:
        T, r, gpu = p.params["threads_per_block"], p.params["regs_per_thread"], p.gpu
        # second route: nothing fits, registers alone would, and the largest block is the limit
        assert p.answers["blocks_per_sm"] == 0 and p.answers["occupancy"] == 0
        assert T * r <= gpu["regs_per_sm"]
        assert p.answers["largest_block"] == gpu["max_threads_per_block"]
        assert f"{gpu['max_threads_per_block']:,} threads" in p.question
        limit = f"{gpu['max_threads_per_block']:,}"
        assert limit in p.solution.trap and "too many resources" not in p.solution.trap
        correct = [c for c in p.choices if c.correct]
        assert all("more threads than one block may have" in c.why for c in correct)
    # the register case is still drawn, and says so
    regs = [generate_one("OCC-5", level=1, seed=s, lang="en") for s in SEEDS]
    assert any(p.answers["largest_block"] < p.gpu["max_threads_per_block"] for p in regs)


def test_occ5_thread_limit_words_in_hinglish():
    for seed in SEEDS:
        p = generate_one("OCC-5", level=2, seed=seed, lang="hinglish")
        if p.params["threads_per_block"] > p.gpu["max_threads_per_block"]:
            limit = f"{p.gpu['max_threads_per_block']:,}"
            assert f"{limit} threads" in p.question and limit in p.solution.trap
            T = f"{p.params['threads_per_block']:,}"
            assert any(limit in s.why and T in s.why for s in p.solution.steps)     # the lid's why
            return
    raise AssertionError("no OCC-5 level-2 draw over the thread limit in 60 seeds")


def test_the_slip_of_the_sms_thread_capacity_is_offered_and_diagnosed():
    for p in occ5_over_threads(2):
        offered = {c.misconception: c.value for c in p.choices if not c.correct}
        if "sm_limit_as_block_limit" not in offered:
            continue
        wrong = offered["sm_limit_as_block_limit"]
        assert wrong == min(p.gpu["max_warps_per_sm"] * 32,
                            p.gpu["regs_per_sm"] // p.params["regs_per_thread"] // 32 * 32)
        result = check_answer(p, "largest_block", str(wrong))
        assert not result.earns and "sm_limit_as_block_limit" in result.misconceptions
        assert "SM's thread capacity" in result.explanation
        return
    raise AssertionError("the SM-capacity slip was never offered")


def test_l5_level_2_asks_littles_law_in_bytes():
    seen = 0
    for seed in SEEDS:
        for lang in ("en", "hinglish"):
            p = generate_one("L-5", level=2, seed=seed, lang=lang)
            if "latency_ns" not in p.params:
                break
            v, a = p.params, p.answers
            # second route: bandwidth (bytes per ns) × latency, shared by the SMs, 32 lanes a warp
            q = v["peak_gbs"] * v["latency_ns"]
            assert a["bytes_needed"] == q and a["bytes_per_sm"] == q / v["sms"]
            assert a["warps_for_bytes"] == math.ceil(q / v["sms"] / (32 * v["lane_bytes"] * v["ilp"]))
            assert ("ilp_for_bytes" in a) == (a["warps_for_bytes"] > p.gpu["max_warps_per_sm"])
            assert "Little's law" in p.question and f"{v['latency_ns']} ns" in p.question
            assert p.main_answer == "warps_for_bytes"
            if p.choices:
                assert [c.value for c in p.choices if c.correct] == [a["warps_for_bytes"]]
            seen += 1
    assert seen >= 10
    wrong = next(generate_one("L-5", level=2, seed=s, lang="en") for s in SEEDS
                 if "latency_ns" in generate_one("L-5", level=2, seed=s, lang="en").params)
    q = wrong.answers["bytes_needed"]
    whole_gpu = math.ceil(q / (32 * wrong.params["lane_bytes"] * wrong.params["ilp"]))
    result = check_answer(wrong, "warps_for_bytes", str(whole_gpu))
    assert not result.earns and "whole_gpu_bytes" in result.misconceptions
