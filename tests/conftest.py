"""Shared test helpers, and how fast this machine is right now.

`SPEED` is this machine's slowness next to the reference machine (an idle desktop core), measured
once per session with the benchmark's machine loop: 1 there, 3 on a machine three times slower
(or as loaded). Every wait on another process (Chromium's replies, a CLI run, a compile) is
`scaled(seconds at the reference)`, so a loaded machine is slower but green, and a hung process
still fails.
"""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import pytest
from hypothesis import settings

# Timing deadlines fail under load on a shared machine; the tests' own sizes bound their work.
settings.register_profile("quizgen", deadline=None)
settings.load_profile("quizgen")

REPO = Path(__file__).resolve().parent.parent

#: The machine loop's time on the reference machine (bench/run.py's REFERENCE_LOOP_S).
REFERENCE_LOOP_S = 0.34


def _loop_seconds(steps: int = 2_000_000) -> float:
    """Best of three timings of the machine loop, scaled to its 10 million steps."""
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        total = 0
        for i in range(steps):
            total += i
        best = min(best, time.perf_counter() - start)
    return best * (10_000_000 / steps)


def _speed() -> float:
    given = os.environ.get("QUIZGEN_TEST_SPEED")     # e.g. 4 on a machine known to be shared
    if given:
        try:
            return max(1.0, float(given))
        except ValueError:
            pass
    # never below 1 (a fast machine keeps the reference waits), and the loop is measured again
    # by nothing else: a machine that gets busier later is covered by the margin in each wait
    return max(1.0, _loop_seconds() / REFERENCE_LOOP_S)


#: This machine's slowness next to the reference (≥ 1).
SPEED = _speed()


def scaled(seconds: float) -> float:
    """A wait of `seconds` on the reference machine, on this one (with a margin of 2 for a
    machine that gets busier while the tests run)."""
    return seconds * SPEED * 2


def _scale_process_timeouts() -> None:
    """Every `timeout=` a test gives subprocess (run, communicate, wait) is a wait on the
    reference machine: stretch it by `SPEED` here, in one place, so no test needs its own."""
    import subprocess

    if SPEED <= 1.0 or getattr(subprocess, "_quizgen_scaled", False):
        return
    # subprocess.run waits through Popen.communicate, so these two cover run() as well
    communicate, wait = subprocess.Popen.communicate, subprocess.Popen.wait

    def scaled_communicate(self, input=None, timeout=None):
        return communicate(self, input, None if timeout is None else timeout * SPEED)

    def scaled_wait(self, timeout=None):
        return wait(self, None if timeout is None else timeout * SPEED)

    subprocess.Popen.communicate = scaled_communicate
    subprocess.Popen.wait = scaled_wait
    subprocess._quizgen_scaled = True


_scale_process_timeouts()


def run_quizgen(*args: Any, cwd: Path | None = None, env: dict[str, str] | None = None,
                stdin: str | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    """`python -m quizgen ARGS` as a user runs it (this interpreter, not whatever is on PATH),
    text captured; `env` adds to the environment; the timeout scales with the machine."""
    return subprocess.run([sys.executable, "-m", "quizgen", *map(str, args)], cwd=cwd,
                          env={**os.environ, **(env or {})}, input=stdin, capture_output=True,
                          text=True, timeout=timeout)


# ---------------------------------------------------------------------------------------------
# A class: an exam planned for a roster, its manifest, and the answer sheet a teacher fills in

#: What a student writes in one box: fill(roll, question number, box, right answer) → text.
Fill = Callable[[str, int, str, Any], str]


@dataclass(frozen=True)
class ClassFiles:
    dir: Path
    manifest: Path          # manifest.json, as `quizgen sheet` writes it
    answers: Path           # answers.csv, filled by `fill`
    data: dict              # the manifest, read


def right_answer(roll: str, number: int, box: str, right: Any) -> str:
    """Every box filled with its right answer, as a student would type it."""
    if isinstance(right, (list, tuple)):
        return ", ".join(map(str, right))
    return str(right)


def make_class(folder: Path, recipe: dict, roster: list[tuple[str, str]],
               fill: Fill = right_answer) -> ClassFiles:
    """Plan `recipe` (an exam recipe's table) for `roster` ((name, roll) pairs), write its
    manifest and the answer sheet with every box as `fill` says (no Typst, no PDFs)."""
    from quizgen.export.sheet import plan_exam
    from quizgen.recipes import Student, parse_exam_recipe
    from quizgen.generator import generate_one

    folder.mkdir(parents=True, exist_ok=True)
    plan = plan_exam(parse_exam_recipe(recipe), [Student(n, r) for n, r in roster], None,
                     generate=generate_one)
    manifest = folder / "manifest.json"
    manifest.write_text(plan.manifest_text(), encoding="utf-8")
    rows = list(csv.reader(io.StringIO(plan.answers_csv.removeprefix("\ufeff"))))
    header = rows[0]
    for row, paper in zip(rows[1:], plan.manifest.students):
        for question in paper.questions:
            for box, right in question["answers"].items():
                column = f"Q{question['number']}.{box}"
                if column in header:
                    row[header.index(column)] = fill(paper.roll, question["number"], box, right)
    answers = folder / "answers.csv"
    with answers.open("w", encoding="utf-8", newline="") as fh:
        csv.writer(fh).writerows(rows)
    return ClassFiles(folder, manifest, answers, plan.manifest.to_dict())


#: The shared class's exam: two questions of different rooms (occupancy, warps).
#: The two answer boxes most scan tests print: an occupancy question (numbers, a percentage and a
#: set of limits) and a latency one (numbers and a yes/no).
SCAN_QUESTIONS = (
    {"cell": ["OCC-2", "OCC-3", "OCC-4"], "level": 2, "space": 0.3,
     "points": {"blocks_per_sm": 2, "active_warps": 1, "occupancy": 2, "limiter": 1}},
    {"cell": ["W-E", "W-F"], "level": 2, "space": 0.3,
     "points": {"warps_needed": 2, "deficit": 1, "hidable": 1}},
)


def scan_recipe(title: str, seed: int, *more: dict) -> dict:
    """An English exam recipe of `SCAN_QUESTIONS`, then `more` questions."""
    questions = [dict(q, points=dict(q["points"])) for q in SCAN_QUESTIONS]
    return {"title": title, "lang": "en", "seed": seed, "questions": questions + list(more)}


def bubbled_exam(out: Path, recipe: dict, versions: int) -> dict:
    """`recipe` built into `out` as an exam of `versions` versions with answer grids; its
    manifest."""
    from quizgen.export.sheet import build_exam
    from quizgen.generator import generate_one
    from quizgen.recipes import parse_exam_recipe

    build_exam(parse_exam_recipe(recipe), None, versions, out, generate=generate_one, bubbles=True)
    return json.loads((out / "manifest.json").read_text(encoding="utf-8"))


def exam_pages(exam: Path, manifest: dict, dpi: float) -> list[tuple[tuple[dict, int], Any]]:
    """Every page of `exam`/exam.pdf rendered in greyscale at `dpi`, beside its (student, page
    number) from `manifest`, in the PDF's order."""
    import pypdfium2 as pdfium

    images = []
    for page in pdfium.PdfDocument(str(exam / "exam.pdf")):
        array = page.render(scale=dpi / 72, grayscale=True).to_numpy()
        images.append(array[..., 0] if array.ndim == 3 else array)
    pages = [(s, p) for s in manifest["students"] for p in range(1, s["sheet"]["pages"] + 1)]
    return list(zip(pages, images))


def marked(image: Any, box: dict, marks: dict[int, str], rng: Any, dpi: float) -> Any:
    """A copy of the page `image` (rendered at `dpi`) with bubbles of `box` marked: {bubble index:
    a style of `quizgen.scan.synth`}."""
    from quizgen.scan.synth import draw_mark

    px = dpi / 25.4
    out = image.copy()
    for i, style in marks.items():
        x, y = box["bubbles"][i][0] * px, box["bubbles"][i][1] * px
        draw_mark(out, x, y, box["r"] * px, style, rng, px)
    return out


CLASS_RECIPE = {"title": "Shared class", "lang": "en", "seed": 4,
                "questions": [{"cell": "OCC-3", "level": 1, "points": 4,
                               "answers": ["blocks_per_sm", "occupancy"]},
                              {"cell": "W-B", "level": 1, "points": 2, "answers": ["warps"]}]}
CLASS_ROSTER = [("Asha Rao", "R01"), ("Ravi, K.", "R02"), ("Meera", "R03"),
                ("Chitra", "R04"), ("Dev", "R05"), ("Farah", "R06")]


@pytest.fixture(scope="session")
def generated_class(tmp_path_factory) -> ClassFiles:
    """Six students, every box right (read-only: copy it before writing beside it)."""
    return make_class(tmp_path_factory.mktemp("class"), CLASS_RECIPE, CLASS_ROSTER)


@pytest.fixture(scope="session")
def exam_folder(tmp_path_factory) -> Path:
    """`quizgen sheet --versions 2 --seed 11`: exam.pdf, key.pdf, manifest.json, answers.csv
    (built once, with Typst; read-only: copy it before writing into it)."""
    root = tmp_path_factory.mktemp("sheet")
    done = run_quizgen("sheet", "--versions", "2", "--seed", "11", "--out", "exam", cwd=root,
                       timeout=600)
    assert done.returncode == 0, done.stderr
    return root / "exam"


@pytest.fixture(scope="session")
def built_deck(tmp_path_factory) -> Path:
    """`quizgen deck occupancy-basics`: a real .apkg built once by the command (read-only)."""
    root = tmp_path_factory.mktemp("deck")
    done = run_quizgen("deck", "occupancy-basics", "--out", "deck.apkg", "-q", cwd=root,
                       timeout=600)
    assert done.returncode == 0, done.stderr
    return root / "deck.apkg"


#: Seeds per cell × level × language × GPU choice in `every_problem` (the cell's own choice
#: and every preset, the textbook SM among them).
SWEEP_SEEDS = 3


@pytest.fixture(scope="session")
def every_problem() -> list:
    """Every registered cell × levels 1–3 × both languages × the cell's own GPU and every
    preset × `SWEEP_SEEDS` seeds, and the first problem of each kind the cell poses, each
    distinct problem once (a GPU with no problem of the cell is skipped): the sweep the sentence
    checks read, generated once per session."""
    from quizgen.errors import QuizgenError
    from quizgen.generator import CELLS, LANGS, LEVELS, generate_one
    from quizgen.gpus import preset_names

    out, seen = [], set()
    for cell in CELLS:
        for lang in LANGS:
            for level in LEVELS:
                for gpu in (None, *preset_names()):
                    for seed in range(SWEEP_SEEDS):
                        try:
                            p = generate_one(cell, level=level, seed=seed, lang=lang, gpu=gpu)
                        except QuizgenError as exc:
                            if f"no {cell} problem exists" not in str(exc):
                                raise
                            break
                        if (p.id, lang) not in seen:
                            seen.add((p.id, lang))
                            out.append(p)
                for seed in _first_of_each_shape(cell, level):
                    p = generate_one(cell, level=level, seed=seed, lang=lang)
                    if (p.id, lang) not in seen:
                        seen.add((p.id, lang))
                        out.append(p)
    return out


def _first_of_each_shape(cell: str, level: int) -> list[int]:
    """The first seed of each kind of problem `cell` poses at `level` on its own GPU (a kind:
    the names of its parameters, and the code cells' variant), so that a kind drawn only past
    the first seeds (L-5's measured curves, K-1's kernels) is read too."""
    from quizgen.problems import family, pool

    fam = family(cell)
    variant = getattr(fam, "variant", lambda params: "")
    candidates = pool(cell, level, fam.gpu_choices(level))
    first: dict[tuple, int] = {}
    for seed in range(len(candidates)):
        params = candidates.params(seed)[1]
        first.setdefault((frozenset(params), variant(params)), seed)
    return sorted(first.values())


def with_answer_grid(manifest: dict) -> dict:
    """A copy of `manifest` with answer grids, as `quizgen sheet --bubbles` lays them out (the
    sheet's own layout functions, without Typst): the scan layout of its recipe, and one grid for
    the first student's ``Q1.occupancy`` on page 1."""
    import json

    from quizgen.export import bubbles
    from quizgen.export.sheet.layout import scan_layout
    from quizgen.recipes import parse_exam_recipe

    data = json.loads(json.dumps(manifest))
    data["scan"] = scan_layout(parse_exam_recipe(data["recipe"]), "a4")
    labels = {"bubble_sign": "-", "bubble_as": "as", "bubble_percent": "%",
              "bubble_fraction": "f", "bubble_choose": "choose"}
    grid = bubbles.box_grid("fraction", 0.5, labels)
    box = {"column": "Q1.occupancy", "kind": "number", "page": 1, "region": [20, 40, 120, 60],
           "r": bubbles.RADIUS, "places": grid["places"], "decimals": grid["decimals"],
           "sign": grid["sign"], "selector": grid["selector"],
           "bubbles": [[20 + b["x"], 40 + b["y"], b["row"], b["value"]] for b in grid["bubbles"]]}
    data["students"][0]["sheet"] = {"pages": 1, "boxes": [box]}
    return data


def copy_of(folder: Path, into: Path) -> Path:
    """A writable copy of a shared fixture's folder."""
    return Path(shutil.copytree(folder, into / folder.name))


def seeds_dir() -> Path | None:
    """The source notes: ../shared/seeds beside the checkout (as on developer machines and CI)."""
    for candidate in (REPO.parent / "shared" / "seeds", Path("/work/shared/seeds")):
        if candidate.is_dir():
            return candidate
    return None


def pytest_report_header(config) -> str:
    return (f"machine speed: the machine loop is {SPEED:.2f}× the reference's time; process "
            f"and browser timeouts scale by {SPEED * 2:.2f}")


#: Modules of end-to-end checks (Chromium, whole decks and exams built and re-read, fresh
#: installs, every phrase or family swept): marked slow, so that `-m "not slow"` is the quick
#: subset. Measured on 2 shared cores, each takes from half a minute to several minutes.
SLOW_MODULES = frozenset({
    "test_cards_in_chromium", "test_skills", "test_new_language", "test_families",
    "test_phrases", "test_sheet_chunks", "test_rebuild", "test_bench", "test_scan",
    "test_anki_export", "test_lms_export", "test_typst_printer", "test_exam_recipes",
    "test_reliability", "test_cli_fuzz", "test_invariants",
})


#: Single tests of other modules that take 10 s or more on 2 busy cores (sweeps over tens of
#: thousands of problems, the data files rebuilt, compiles with nvcc, the default deck).
SLOW_TESTS = frozenset({
    "test_applicability.py::test_twenty_thousand_problems_say_only_what_applies",
    "test_build_data.py::test_shipped_data_files_are_current",
    "test_readme.py::test_quick_subset_is_marked",
    "test_parse.py::test_fast_path_agrees_with_the_full_reader",
    "test_text_scan.py::test_twenty_thousand_problems_read_cleanly",
    "test_problem_ids.py::test_canonical_json_equals_sorted_json_dumps",
    "test_pool_cache.py::test_cached_and_live_pools_agree",
    "test_cli.py::test_readme_calculator_examples_run",
    "test_cli.py::test_readme_main_job_builds_the_default_deck",
    "test_ptxas.py::test_cu_compiles_with_nvcc_and_matches_the_shipped_report",
    "test_ptxas.py::test_ptxas_gives_the_same_answer_as_the_numbers_by_hand",
    "test_shared_physics.py::test_every_real_gpu_question_is_exact_or_says_textbook_and_shows_exact",
})


def pytest_collection_modifyitems(config, items) -> None:
    import pytest

    for item in items:
        name = f"{item.path.name}::{getattr(item, 'originalname', item.name)}"
        if item.path.stem in SLOW_MODULES or name in SLOW_TESTS:
            item.add_marker(pytest.mark.slow)
