"""The exact model explains itself: which of NVIDIA's rules change the count, checked against the
two models, against NVIDIA's own header (rules switched off in the header's device description),
and in the words of the problems the issue names."""

from __future__ import annotations

import dataclasses
import re
import shlex
import subprocess
import sys

from test_occupancy_header import driver, input_line, run_driver, sample  # noqa: F401 (fixture)

from quizgen.engine.attribution import RULES, attribute, count
from quizgen.engine.occupancy import launch_config, occupancy
from quizgen.errors import QuizgenError
from quizgen.generator import generate_one
from quizgen.gpus import get_gpu

ALL = frozenset(RULES)


def test_no_rule_is_the_textbook_model_and_every_rule_the_exact_one():
    """Over the header test's 11,200 random launches: count() with no rule is the textbook
    model, with every rule the exact model, and the chain of effects leads from one to the other."""
    checked = 0
    for gpu, cfg in sample():
        try:
            exact = occupancy(gpu, cfg, model="exact")
        except QuizgenError:
            continue
        book = occupancy(gpu, cfg, model="textbook")
        assert count(gpu, cfg, frozenset()).blocks == book.blocks_per_sm, (gpu.name, cfg)
        assert count(gpu, cfg, ALL).blocks == exact.blocks_per_sm, (gpu.name, cfg)
        att = attribute(gpu, cfg)
        assert (att.book_blocks, att.exact_blocks) == (book.blocks_per_sm, exact.blocks_per_sm)
        at = att.book_blocks
        for e in att.effects:        # each effect changes the count and starts where the last ended
            assert e.blocks_before == at and e.blocks_after != e.blocks_before, (gpu.name, cfg, att)
            at = e.blocks_after
        assert at == att.exact_blocks
        checked += 1
    assert checked > 9000


def test_switching_a_rule_off_matches_the_header_without_it(driver):  # noqa: F811
    """The header's device description carries two of the rules: a GPU that reserves nothing per
    block, and one whose per-block shared-memory and register limits are as large as the SM. NVIDIA's
    header on that GPU gives the count that `without[rule]` says."""
    lines, want = [], []
    for gpu, cfg in sample()[::4]:
        if cfg.optin is not None:
            continue
        try:
            att = attribute(gpu, cfg)
        except QuizgenError:
            continue
        no_reserve = gpu.with_overrides(reserved_smem_per_block=0)
        no_limit = gpu.with_overrides(smem_per_block=gpu.smem_per_sm,
                                      smem_per_block_optin=gpu.smem_per_sm)
        for other, rule in ((no_reserve, "reserve"), (no_limit, "block_limit")):
            lines.append(input_line(other, cfg))
            want.append((gpu.name, cfg, rule, att.without[rule]))
    got = run_driver(driver, lines)
    wrong = [(w, h.blocks) for w, h in zip(want, got) if h.status == 0 and h.blocks != w[3]]
    assert len(lines) > 1500 and not wrong, wrong[:5]


def test_occ9_on_an_a100_is_the_per_block_limit_without_opt_in(driver):  # noqa: F811
    """--level 2 --seed 200 --gpu a100: the textbook's 3 blocks become 2 by the register
    granularity and 0 by the 48 KB per-block limit; opted in, 2 blocks fit (NVIDIA's header too)."""
    p = generate_one("OCC-9", level=2, seed=200, gpu="a100", lang="en")
    gpu = get_gpu("a100")
    cfg = launch_config(p.params["threads_per_block"], p.params["regs_per_thread"],
                        p.params["smem_per_block"])
    att = attribute(gpu, cfg)
    assert att.rules() == ["reg_granularity", "block_limit"]
    limit = att.effect("block_limit")
    assert (limit.blocks_before, limit.blocks_after, limit.detail["with_optin"]) == (2, 0, 2)
    [header] = run_driver(driver, [input_line(gpu, dataclasses.replace(cfg, optin=0))])
    assert header.blocks == 2
    answer = p.solution.answer
    assert "without opting in, one block may use at most 49,152 B" in answer
    assert "2 blocks fit" in answer and "1 KB reserved per block" not in answer
    hinglish = generate_one("OCC-9", level=2, seed=200, gpu="a100").solution.answer
    assert "opt-in ke bina" in hinglish and "2 blocks fit hote hain" in hinglish


def test_x3_says_the_driver_raised_the_carveout_where_it_did():
    """X-3 level 3: the preference's own number, then the size the driver sets and why; a
    raised carveout is never credited to the preference, and no size is 'less than' itself."""
    raised = 0
    for gpu in ("rtx4090", "a100", "h100"):
        for seed in range(100, 112):
            p = generate_one("X-3", level=3, seed=seed, gpu=gpu, lang="en")
            text = " ".join(s.why for s in p.solution.steps) + " " + p.solution.trap
            for a, b in re.findall(r"([\d,]+) B here, less than the ([\d,]+) B", text):
                assert a != b, p.id
            c = p.params.get("carveout", -1)
            if c == -1:
                continue
            res = occupancy(get_gpu(gpu), launch_config(**{k: p.params[k] for k in (
                "threads_per_block", "regs_per_thread", "dyn_smem", "optin", "carveout")}),
                model="exact")
            asked = c * get_gpu(gpu).smem_per_sm // 100
            step = next(s for s in p.solution.steps if s.formula == "smem_carveout")
            assert step.result == asked, p.id             # c% of the SM, its own number
            picked = [s for s in p.solution.steps if s.result == res.smem_per_sm_available
                      and "driver" in s.why]
            assert picked, p.id
            if "raises the carveout" in picked[0].why:
                raised += 1
                assert res.smem_per_block_allocated > asked, p.id
    assert raised


def test_l2_design_value_on_a_b200_is_searched_with_the_exact_model(driver):  # noqa: F811
    """--cell L-2 --level 3 --seed 100 --gpu b200: the notes' 33,353 B gives 6 blocks on the
    B200, not 7 (NVIDIA's header agrees); the exact search gives 32,256 B."""
    p = generate_one("L-2", level=3, seed=100, gpu="b200", lang="en")
    assert p.answers["max_smem"] == 33_353 and p.params["target_blocks"] == 7
    gpu = get_gpu("b200")
    base = launch_config(p.params["threads_per_block"], p.params["regs_per_thread"], 33_353)
    header = run_driver(driver, [input_line(gpu, base),
                                 input_line(gpu, dataclasses.replace(base, smem_per_block=32_256)),
                                 input_line(gpu, dataclasses.replace(base, smem_per_block=32_257))])
    assert [h.blocks for h in header] == [6, 7, 6]
    assert "33,353 B of shared memory per block gives 6 blocks/SM" in p.solution.answer
    assert "not 7" in p.solution.answer and "32,256 B per block (7 blocks/SM)" in p.solution.answer


def test_occ2_design_value_on_a_real_gpu_is_checked_and_searched_again():
    for gpu in ("a100", "h100", "t4"):
        for seed in range(6):
            p = generate_one("OCC-2", level=3, seed=seed, gpu=gpu, lang="en")
            r, T = p.answers["regs_next_block"], p.params["threads_per_block"]
            target = p.answers["blocks_per_sm"] + 1          # one more block than now
            exact = occupancy(get_gpu(gpu), launch_config(T, r), model="exact").blocks_per_sm
            assert f"{r} registers per thread give {exact} block" in p.solution.answer, p.id
            assert (f"not {target}, because" in p.solution.answer) == (exact < target), p.id
            found = re.search(r"the most that keeps \d+ blocks is (\d+) registers", p.solution.answer)
            if found:            # the exact search's value keeps the target, one more does not
                r2 = int(found.group(1))
                assert occupancy(get_gpu(gpu), launch_config(T, r2), model="exact").blocks_per_sm >= target
                assert occupancy(get_gpu(gpu), launch_config(T, r2 + 1),
                                 model="exact").blocks_per_sm < target or r2 == 255


def test_per_warp_register_budgets_show_the_sub_partition_rounding():
    """X-1 and X-4 level 3: a budget per warp from the per-block limit names the warps it is
    spread over, the block's warps rounded up to a multiple of the sub-partitions."""
    seen = 0
    for cell in ("X-1", "X-4"):
        for gpu in ("a100", "h100", "t4"):
            for seed in range(100, 106):
                for lang in ("en", "hinglish"):
                    p = generate_one(cell, level=3, seed=seed, gpu=gpu, lang=lang)
                    for s in p.solution.steps:
                        if s.formula != "inv_regs_per_warp_by_block":
                            continue
                        w, P = s.values["w"], s.values["P"]
                        places = P * -(-w // P)
                        assert f"{places} warps" in s.why, (p.id, s.why)
                        assert s.result == s.values["R_blk"] // places
                        seen += 1
    assert seen > 20


def test_every_k1_self_check_command_prints_the_problems_answer():
    """The command a K-1 solution tells the student to run prints that problem's occupancy (a
    sample over levels and GPUs, with the issue's case: --level 2 --seed 100 --gpu a100)."""
    cases = [(2, 100, "a100")] + [(level, seed, None) for level in (1, 2, 3) for seed in (1, 2, 11, 12, 18, 26)]
    ran = 0
    for level, seed, gpu in cases:
        p = generate_one("K-1", level=level, seed=seed, gpu=gpu, lang="en", mcq=False)
        commands = [m for line in p.solution.verify
                    for m in re.findall(r"quizgen occupancy [^\n]*?(?=\.?$)", line)]
        assert commands, p.id
        for command in commands:
            assert f"--gpu {p.gpu['name']}" in command
            if p.params.get("dyn_smem"):
                assert f"--dyn-smem {p.params['dyn_smem']}" in command
            out = subprocess.run([sys.executable, "-m", "quizgen", *shlex.split(command)[1:]],
                                 capture_output=True, text=True)
            assert out.returncode == 0, out.stderr
            m = re.search(r"occupancy (\d+)/(\d+) = ([\d.]+)%", out.stdout.strip().splitlines()[-1])
            assert m and abs(float(m.group(3)) / 100 - p.answers["occupancy"]) < 1e-4, (p.id, command)
            ran += 1
    assert ran == len(cases)


def test_x1_trap_names_only_the_register_rules_that_change_the_count():
    seen = set()
    for seed in range(30):
        p = generate_one("X-1", level=1, seed=seed, lang="en")
        if not p.solution.trap:
            continue
        gpu = get_gpu(p.gpu["name"])
        res = occupancy(gpu, launch_config(p.params["threads_per_block"], p.params["regs_per_thread"],
                                           p.params.get("smem_per_block", 0)), model="exact")
        rules = attribute(gpu, res.config).rules()
        assert ("sub-partitions" in p.solution.trap) == ("subpartitions" in rules), (p.id, rules)
        assert ("256" in p.solution.trap) == ("reg_granularity" in rules), (p.id, rules)
        seen.add(tuple(rules))
    assert ("reg_granularity",) in seen and len(seen) > 1
