"""How often the scanner is wrong with certainty and how often it asks the teacher, by condition,
by the way a box is marked and by the kind of box.

    python3 bench/scan_accuracy.py [--sim suite|heldout|both] [--students 12] [--seeds 1,2]

A class's papers are filled by a simulator (the test suite's, `quizgen.scan.synth`, or the held-out
one in `bench/heldout_scans.py`, whose marks, scanners and cameras are drawn differently and which
nothing in the scanner is tuned on) and scanned in three conditions: a flatbed, a sheet-fed
scanner, and phone photos on a desk. Each box is counted as

* silent wrong: read with certainty, and not what the student meant (the one figure that must be 0);
* review: written `needs_review` although the student marked one clear answer (a box meant to be
  doubtful, such as two bubbles in a row or none, is expected to be reviewed and counted apart).

Two mixes of marks are run: *clean* (solid fills) and *realistic* (every way students mark).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import warnings
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

DPI = 200
CONDITIONS = ("flatbed", "sheet-fed", "phone")

RECIPE = {
    "title": "Scanner accuracy", "lang": "en", "seed": 41,
    "questions": [
        {"cell": ["OCC-2", "OCC-3", "OCC-4"], "level": 2, "space": 0.3,
         "points": {"blocks_per_sm": 2, "active_warps": 1, "occupancy": 2, "limiter": 1}},
        {"cell": ["W-E", "W-F"], "level": 2, "space": 0.3,
         "points": {"warps_needed": 2, "deficit": 1, "hidable": 1}},
        {"cell": "OCC-9", "level": 2, "space": 0.3},
        {"cell": "K-1", "level": 1, "space": 0.3,
         "points": {"blocks_per_sm": 2, "active_warps": 1, "occupancy": 1, "limiter": 1}},
    ],
}


@dataclass
class Box:
    """What the student meant in one box, for the tally."""

    column: str
    kind: str                 # number, yes_no, limits
    style: str                # how it was marked
    expected: str             # the answer, or needs_review when the box is meant to be doubtful
    case: str                 # clean (one clear answer) or what makes it doubtful


@dataclass
class Tally:
    """Counts per (condition, style, kind): boxes with one clear answer, those read wrong with
    certainty, those sent to review; and the boxes meant to be doubtful (and how many were read)."""

    clear: dict[tuple, int] = field(default_factory=lambda: defaultdict(int))
    wrong: dict[tuple, int] = field(default_factory=lambda: defaultdict(int))
    review: dict[tuple, int] = field(default_factory=lambda: defaultdict(int))
    doubtful: dict[tuple, int] = field(default_factory=lambda: defaultdict(int))
    problems: list[tuple] = field(default_factory=list)
    lost: dict[str, int] = field(default_factory=lambda: defaultdict(int))   # boxes of pages not recognised
    reasons: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    pages: int = 0
    recognised: int = 0

    def add(self, condition: str, box: Box, got: str) -> None:
        key = (condition, box.style, box.kind)
        if box.expected == "needs_review":
            self.doubtful[key] += 1
            if got != "needs_review":
                self.wrong[key] += 1
                self.problems.append((condition, box.column, box.case, box.style, "review", got))
            return
        self.clear[key] += 1
        if got == "needs_review":
            self.review[key] += 1
        elif got != box.expected:
            self.wrong[key] += 1
            self.problems.append((condition, box.column, box.case, box.style, box.expected, got))

    def total(self, what: str, **match: str) -> int:
        names = ("condition", "style", "kind")
        table = getattr(self, what)
        return sum(n for key, n in table.items()
                   if all(key[names.index(k)] == v for k, v in match.items()))


def build(students: int, work: Path) -> tuple[Path, dict[str, Any]]:
    from quizgen.export.sheet import build_exam
    from quizgen.recipes import parse_exam_recipe
    from quizgen.generator import generate_one

    warnings.simplefilter("ignore")
    out = work / "exam"
    if not (out / "manifest.json").is_file():
        build_exam(parse_exam_recipe(RECIPE), None, students, out, generate=generate_one,
                   bubbles=True)
    return out, json.loads((out / "manifest.json").read_text(encoding="utf-8"))


def blank_pages(exam: Path, dpi: int = DPI):
    import pypdfium2 as pdfium

    document = pdfium.PdfDocument(str(exam / "exam.pdf"))
    for page in document:
        array = page.render(scale=dpi / 72, grayscale=True).to_numpy()
        yield array[..., 0] if array.ndim == 3 else array


class SuiteSim:
    """The test suite's simulator (`quizgen.scan.synth`) behind the interface both share."""

    name = "suite"

    def __init__(self, styles: tuple[str, ...]):
        self.styles = styles

    def plan(self, student: dict[str, Any], rng: random.Random):
        from quizgen.scan.synth import plan_answers

        plan = plan_answers(student, rng, self.styles)
        boxes = {m.column: Box(m.column, b["kind"], m.style if m.case in ("clean", "erased")
                               else f"{m.style}/{m.case}", m.expected, m.case)
                 for page in plan.values() for b, m in page}
        return plan, boxes

    def fill(self, image, marked, rng):
        from quizgen.scan.synth import fill_page

        return fill_page(image, DPI, marked, rng)

    def scan(self, image, condition: str, rng: random.Random) -> bytes:
        from quizgen.scan.synth import distort, photograph

        if condition == "flatbed":
            return distort(image, rng, upside_down=rng.random() < 0.15, jpeg=40)
        if condition == "sheet-fed":
            return distort(image, rng, upside_down=rng.random() < 0.5, jpeg=60, max_angle=1.2,
                           max_scale=0.01)
        return photograph(image, rng, upside_down=rng.random() < 0.15)


def make_sim(name: str, mix: str):
    if name == "suite":
        from quizgen.scan.synth import STYLES

        return SuiteSim(("solid",) if mix == "clean" else STYLES)
    from heldout_scans import HeldOut

    return HeldOut(mix)


def run(sim, exam: Path, manifest: dict[str, Any], conditions, seeds, work: Path,
        tally: Tally | None = None, scan: Callable | None = None) -> Tally:
    """Fill, scan and read every student's paper in each condition; the counts."""
    from quizgen.scan import scan_class

    tally = tally or Tally()
    blanks = list(blank_pages(exam))
    pages = [(s, p) for s in manifest["students"] for p in range(1, s["sheet"]["pages"] + 1)]
    for condition in conditions:
        for seed in seeds:
            rng = random.Random(f"{sim.name}-{condition}-{seed}")
            files, expected = [], {}
            plans = {}
            for n, ((student, page), blank) in enumerate(zip(pages, blanks)):
                if student["version"] not in plans:
                    plans[student["version"]], boxes = sim.plan(student, rng)
                    expected[student["version"]] = boxes
                marked = plans[student["version"]].get(page, [])
                path = work / f"{sim.name}-{condition}-{seed}-{n:04d}.jpg"
                path.write_bytes(sim.scan(sim.fill(blank, marked, rng), condition, rng))
                files.append(path)
            where = {f.name: (s["version"], p) for f, (s, p) in zip(files, pages)}
            pages_of = {s["version"]: {b["column"]: b["page"] for b in s["sheet"]["boxes"]}
                        for s in manifest["students"]}
            rng.shuffle(files)
            result = (scan or scan_class)(files, exam / "manifest.json",
                                          work / f"read-{sim.name}-{condition}-{seed}", report=False,
                                          force=True)
            why = _reasons(work / f"read-{sim.name}-{condition}-{seed}" / "review.csv")
            tally.pages += result.pages
            tally.recognised += result.recognised
            lost = {where[line.split(":")[0]] for line in result.unreadable
                    if line.split(":")[0] in where}
            for version, boxes in expected.items():
                for column, box in boxes.items():
                    if box.kind not in ("number", "yes_no", "limits"):
                        continue
                    if (version, pages_of[version][column]) in lost:
                        tally.lost[condition] += box.expected != "needs_review"
                        continue
                    got = result.answers[version][column]
                    tally.add(condition, box, got)
                    if got == "needs_review" and box.expected != "needs_review":
                        tally.reasons[why.get((version, column), "?").split(":")[0]] += 1
            for path in files:
                path.unlink()
    return tally


def _reasons(path: Path) -> dict[tuple[str, str], str]:
    import csv

    with open(path, encoding="utf-8-sig") as fh:
        return {(row["version"], row["box"]): row["reason"] for row in csv.DictReader(fh)}


def print_tally(title: str, tally: Tally) -> None:
    print(f"\n{title}: {tally.recognised}/{tally.pages} pages recognised "
          f"(boxes on pages not recognised, left out below: {dict(tally.lost)})")
    print(f"  {'condition':10} {'boxes':>6} {'wrong':>6} {'review':>8} {'+ lost':>8}   "
          "doubtful boxes read")
    for condition in CONDITIONS:
        clear = tally.total("clear", condition=condition)
        if not clear:
            continue
        review = tally.total("review", condition=condition)
        lost = tally.lost.get(condition, 0)
        # a box of a page not recognised goes to review too: the second figure counts it
        print(f"  {condition:10} {clear:6d} {tally.total('wrong', condition=condition):6d} "
              f"{100 * review / clear:7.1f}% {100 * (review + lost) / (clear + lost):7.1f}%   "
              f"{sum(1 for p in tally.problems if p[0] == condition and p[4] == 'review')}"
              f" of {tally.total('doubtful', condition=condition)}")
    styles = sorted({k[1] for k in tally.clear} | {k[1] for k in tally.doubtful})
    print(f"  {'mark':22} {'boxes':>6} {'wrong':>6} {'review':>7}  by kind (review/boxes)")
    for style in styles:
        clear = tally.total("clear", style=style)
        doubt = tally.total("doubtful", style=style)
        review = tally.total("review", style=style)
        kinds = "  ".join(f"{k} {tally.total('review', style=style, kind=k)}/"
                          f"{tally.total('clear', style=style, kind=k)}"
                          for k in ("number", "yes_no", "limits")
                          if tally.total("clear", style=style, kind=k))
        print(f"  {style:22} {clear + doubt:6d} {tally.total('wrong', style=style):6d} "
              f"{(f'{100 * review / clear:6.1f}%') if clear else '      -'}  {kinds}")
    print("  reviews of clear boxes by reason:",
          dict(sorted(tally.reasons.items(), key=lambda kv: -kv[1])))
    for p in tally.problems[:12]:
        print("   wrong:", p)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sim", default="both", choices=["suite", "heldout", "both"])
    parser.add_argument("--mix", default="both", choices=["clean", "realistic", "both"])
    parser.add_argument("--students", type=int, default=12)
    parser.add_argument("--seeds", default="1")
    parser.add_argument("--conditions", default=",".join(CONDITIONS))
    parser.add_argument("--work", help="keep the exam here between runs")
    args = parser.parse_args()
    work = Path(args.work or tempfile.mkdtemp(prefix="scan-accuracy-"))
    work.mkdir(parents=True, exist_ok=True)
    exam, manifest = build(args.students, work)
    seeds = [int(s) for s in args.seeds.split(",")]
    conditions = args.conditions.split(",")
    for sim_name in (("suite", "heldout") if args.sim == "both" else (args.sim,)):
        for mix in (("clean", "realistic") if args.mix == "both" else (args.mix,)):
            tally = run(make_sim(sim_name, mix), exam, manifest, conditions, seeds, work)
            print_tally(f"{sim_name} simulator, {mix} marks, {args.students} students × "
                        f"{len(seeds)} seeds", tally)
            sys.stdout.flush()


if __name__ == "__main__":
    main()
