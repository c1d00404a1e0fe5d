"""A new cell is its family file and its phrase entries, nothing else.

A copy of the package gets one new family module (``quizgen/problems/warp_slots.py``) and one
phrase file per language; nothing else is edited. The new cell must then be listed, solved,
written in both languages (by the writer every family has), carry its answer specs, and render
as Markdown, the way a contributor would try it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from quizgen.languages import LANGS

ROOT = Path(__file__).resolve().parent.parent

FAMILY = '''"""W-Z: how many blocks the SM's warp slots hold (the warp lid alone)."""

from quizgen.engine.derivation import Step
from quizgen.problems import specs as sp
from quizgen.problems.base import Family, Solved
from quizgen.problems.registry import register


@register
class WarpSlots(Family):
    cell = "W-Z"
    topic = "warps"
    main_answer = "blocks_by_warps"
    answer_specs = {
        "warps": sp.count("warps", "threads_per_block",
                          compute=lambda v, gpu: -(-v["threads_per_block"] // 32)),
        "blocks_by_warps": sp.count("blocks", "warps",
                                    compute=lambda v, gpu: gpu.max_warps_per_sm // v["warps"]),
    }

    def space(self, level, gpu):
        for T in range(32 * level, 1025, 16 * level):
            yield {"threads_per_block": T}

    def solve(self, params, gpu, explain=True):
        T = params["threads_per_block"]
        w = -(-T // 32)
        n = gpu.max_warps_per_sm // w
        steps = [Step("warps_per_block", "warps_per_block", {"T": T}, w, "warps", "warps_whole",
                      None if T % 32 == 0 else "partial_warp"),
                 Step("blocks_by_warps", "blocks_by_warps", {"W_max": gpu.max_warps_per_sm, "w": w},
                      n, "blocks", "warp_lid")]
        return Solved({"warps": w, "blocks_by_warps": n}, {"steps": steps})
'''

PHRASES = {
    "en": '''[W-Z]
title = ["Warp slots: blocks the warp lid allows"]
question = ["A block has {{ threads_per_block }} threads. How many such blocks do the SM's {{ gpu.max_warps_per_sm }} warp slots hold?"]
forecast = ["More or fewer than {{ gpu.max_warps_per_sm // 8 }} blocks?"]
verify = ["{{ blocks_by_warps }} × {{ warps }} = {{ blocks_by_warps * warps }} ≤ {{ gpu.max_warps_per_sm }} warps."]
answer = ["{{ warps }} warps per block, so {{ blocks_by_warps }} blocks."]
trap = ["Count warps, not threads."]
''',
    "hinglish": '''[W-Z]
title = ["Warp slots: warp lid kitne blocks deti hai"]
question = ["Ek block mein {{ threads_per_block }} threads hain. SM ke {{ gpu.max_warps_per_sm }} warp slots mein aise kitne blocks aayenge?"]
forecast = ["{{ gpu.max_warps_per_sm // 8 }} blocks se zyada ya kam?"]
verify = ["{{ blocks_by_warps }} × {{ warps }} = {{ blocks_by_warps * warps }} ≤ {{ gpu.max_warps_per_sm }} warps."]
answer = ["Har block mein {{ warps }} warps, toh {{ blocks_by_warps }} blocks."]
trap = ["Warps gino, threads nahi."]
''',
}


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    """A copy of the package and its templates with the new cell's three files added."""
    root = tmp_path_factory.mktemp("new-cell")
    ignore = shutil.ignore_patterns("__pycache__")
    shutil.copytree(ROOT / "quizgen", root / "quizgen", ignore=ignore)
    shutil.copytree(ROOT / "templates", root / "templates", ignore=ignore)
    (root / "quizgen" / "problems" / "warp_slots.py").write_text(FAMILY, encoding="utf-8")
    for lang in LANGS:
        text = PHRASES.get(lang, PHRASES["en"])
        (root / "templates" / "phrases" / f"families-new.{lang}.toml").write_text(text, encoding="utf-8")
    return root


def run(tree: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(tree))
    env.pop("QUIZGEN_TEMPLATES", None)
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env,
                          cwd=tree, timeout=300)


def test_the_copy_is_what_runs(tree):
    done = run(tree, "-c", "import quizgen, quizgen.problems as p; print(quizgen.__file__);"
                           "print('W-Z' in p.CELLS)")
    assert done.returncode == 0, done.stderr
    where, listed = done.stdout.split()
    assert Path(where).is_relative_to(tree) and listed == "True"


@pytest.mark.parametrize("lang", LANGS)
def test_a_new_cell_is_solved_and_written_from_its_two_files(tree, lang):
    done = run(tree, "-m", "quizgen", "generate", "--cell", "W-Z", "--count", "4", "--level", "2",
               "--lang", lang, "--format", "json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    problems = data["problems"] if isinstance(data, dict) else data
    assert len(problems) == 4
    for p in problems:
        T = p["params"]["threads_per_block"]
        w = -(-T // 32)
        n = p["gpu"]["max_warps_per_sm"] // w
        assert p["answers"] == {"warps": w, "blocks_by_warps": n}
        assert p["answer_specs"]["blocks_by_warps"]["kind"] == "count"
        assert p["answer_specs"]["blocks_by_warps"]["depends_on"] == ["warps"]
        sol = p["solution"]
        assert str(T) in p["question"] and p["title"]
        assert f"{w} warps" in sol["answer"] and f"{n} blocks" in sol["answer"]
        assert [s["formula"] for s in sol["steps"]] == ["warps_per_block", "blocks_by_warps"]
        assert all(s["title"] and s["why"] for s in sol["steps"])
        assert sol["verify"] == [f"{n} × {w} = {n * w} ≤ {p['gpu']['max_warps_per_sm']} warps."]
    done = run(tree, "-m", "quizgen", "generate", "--cell", "W-Z", "--lang", lang)
    assert done.returncode == 0, done.stderr
    assert "W-Z" in done.stdout or "Warp slots" in done.stdout
