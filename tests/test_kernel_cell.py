"""Cell K-1: problems from real compiled kernels, answered from the compiler's own numbers."""

from __future__ import annotations

import json

import pytest

from quizgen import kernels as shipped
from quizgen.gpus import get_gpu
from quizgen.generator import generate_one
from quizgen.problems.kernel_families import K1_GPUS, arch_of
from quizgen.recipes import load_deck_recipe
from quizgen.render.figures import figure_for


@pytest.mark.parametrize("level", [1, 2, 3])
@pytest.mark.parametrize("lang", ["en", "hinglish"])
def test_k1_problems_show_the_line_and_answer_it_like_the_calculator(level, lang):
    for seed in range(12):
        p = generate_one("K-1", level=level, seed=seed, lang=lang)
        params = p.params
        usage = shipped.kernel_usage(params["kernel"], params["arch"])
        assert params["arch"] == arch_of(get_gpu(p.gpu["name"]))
        assert (params["regs_per_thread"], params["smem_per_block"]) == (usage.registers, usage.smem)
        assert usage.line in p.question and p.model == "exact"
        # the same numbers through `quizgen occupancy --ptxas` (the library call behind it)
        block = params.get("block") or [params["threads_per_block"], 1, 1]
        (answer,) = shipped.answer_kernels([usage], block=block, dyn_smem=params.get("dyn_smem", 0))
        assert answer.gpu.name in (p.gpu["name"], "h100")    # sm_90 reports stand for H100 and H200
        if answer.gpu.name == p.gpu["name"]:
            assert answer.result.blocks_per_sm == p.answers["blocks_per_sm"]
            assert answer.result.occupancy == pytest.approx(p.answers["occupancy"])
            assert answer.result.limiter == p.answers["limiter"]
        svg = figure_for(p)
        assert "nvcc --resource-usage" in svg and usage.line.split(",")[0] in svg


def test_level_3_asks_what_a_change_does():
    changes = set()
    for seed in range(40):
        p = generate_one("K-1", level=3, seed=seed, lang="en")
        changes.add(p.params["change"])
        assert p.answers["occupancy_before"] != p.answers["occupancy"]
        if p.params["change"] == "launch_bounds":
            assert shipped.kernel_usage(p.params["kernel"], p.params["arch"]).spills
    assert changes == {"bigger_tile", "launch_bounds", "bigger_block"}


def test_level_2_traps_include_dynamic_shared_memory_the_line_does_not_show():
    seen = set()
    for seed in range(120):
        p = generate_one("K-1", level=2, seed=seed, lang="en")
        if p.params.get("dyn_smem"):
            seen.add("dyn")
            if "never shows dynamic shared memory" in p.solution.trap:
                seen.add("trap")
    assert seen == {"dyn", "trap"}


def test_k1_is_in_the_default_deck_and_the_default_exam():
    deck = load_deck_recipe("default")
    assert "K-1" in deck.cells
    from quizgen.resources import packaged_path
    import tomllib

    exam = tomllib.loads(packaged_path("decks", "exams", "midterm.toml").read_text(encoding="utf-8"))
    assert any(q["cell"] == "K-1" for q in exam["questions"])


def test_every_k1_gpu_has_shipped_reports():
    for name in K1_GPUS:
        assert arch_of(get_gpu(name)) in shipped.shipped_archs()


@pytest.mark.parametrize("level", [1, 2, 3])
def test_k1_is_graded_like_any_cell(level):
    from quizgen.grade import check_answer

    p = generate_one("K-1", level=level, seed=3, lang="en")
    record = json.loads(json.dumps(p.to_dict()))
    occ = record["answers"]["occupancy"]
    assert check_answer(record, "occupancy", f"{occ * 100:.4f}%").status == "correct"
    assert check_answer(record, "blocks_per_sm", str(record["answers"]["blocks_per_sm"] + 1)).status != "correct"
    assert check_answer(record, "limiter", " + ".join(record["answers"]["limiter"])).status == "correct"
    if level == 3:
        before = record["answers"]["occupancy_before"]
        assert check_answer(record, "occupancy_before", f"{before:.6f}").status == "correct"
        wrong = check_answer(record, "occupancy", f"{before * 100:.4f}%")
        assert wrong.status != "correct"
