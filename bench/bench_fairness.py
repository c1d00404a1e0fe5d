"""Benchmark: the fairness statistics on simulated classes of the shipped midterm.

    python3 bench/bench_fairness.py [--classes 100] [--students 300] [--jobs 2]

The midterm is drawn for a class of `--students` (its papers fixed); each simulated class gives
those papers to students of ability N(0, 1), their answers graded by the real grader
(`quizgen.fairness.simulate`). Printed, as one table:

* **power**: in how many of `--classes` classes a planted effect of 0.7 logits (Q1 harder where
  registers bind) is flagged (target ≥ 80%), and in how many classes *without* a planted effect
  any flag appears (target ≤ 5%);
* **intervals**: how often the 95% interval of an effect covers the planted value (and 0, for
  every feature of a question with nothing planted on it);
* **even papers**: the calibration of one class with four planted effects (Q1 where registers
  bind, Q4 when the stall cannot be hidden, Q5 with several waves, Q6 with the trap present: each
  0.7 logits harder), then the next class (100 students) drawn plain and calibrated: the
  standard deviation and the largest gap of the papers' expected scores, calibrated over plain,
  under the model the sheet fitted and under the planted truth (averaged over three
  calibration classes).

`measure(size)` gives the same rows to ``bench/run.py``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")      # small fits: one BLAS thread is fastest
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from common import Row, pick  # noqa: E402

from quizgen.export.sheet import plan_exam  # noqa: E402
from quizgen.fairness.simulate import (Planted, calibration_study,  # noqa: E402
                                       power_study)
from quizgen.generator import generate_one  # noqa: E402
from quizgen.recipes import Student, load_exam_recipe  # noqa: E402

#: The planted effect the power is measured on, and the four of the calibration study.
POWER = [Planted(1, "limiter", "registers", -0.7)]
UNEVEN = [Planted(1, "limiter", "registers", -0.7), Planted(4, "cell", "W-F", -0.7),
          Planted(5, "steps", 18, -0.7), Planted(6, "trap", True, -0.7)]
TOLERANCE = 0.5


def midterm(students: int):
    """The shipped midterm drawn for a roster of `students` (its recipe and manifest)."""
    recipe = load_exam_recipe("midterm")
    roster = [Student(f"Student {i}", f"S{i:04d}") for i in range(students)]
    return recipe, plan_exam(recipe, roster, None, generate=generate_one).manifest


def run(classes: int, students: int, jobs: int, calibrations: int, next_class: int) -> dict:
    start = time.perf_counter()
    recipe, manifest = midterm(students)
    planned = time.perf_counter() - start
    start = time.perf_counter()
    fair = power_study(manifest, [], classes, seed=1, jobs=jobs)
    planted = power_study(manifest, POWER, classes, seed=2, jobs=jobs)
    studied = time.perf_counter() - start
    roster = [Student(f"Next {i}", f"N{i:04d}") for i in range(next_class)]
    start = time.perf_counter()
    even = calibration_study(recipe, manifest, UNEVEN, roster, range(100, 100 + calibrations),
                             tolerance=TOLERANCE)
    calibrated = time.perf_counter() - start
    return {"fair": fair, "planted": planted, "even": even, "planned": planned,
            "per_class": studied / (2 * classes), "calibrated": calibrated / calibrations}


def _ratio(pairs) -> float:
    """The mean of calibrated over plain (a plain spread of 0, as a tiny class may give: 1)."""
    return sum(after / before if before > 0 else 1.0 for before, after in pairs) / len(pairs)


def rows(result: dict, classes: int, students: int) -> list[Row]:
    fair, planted, even = result["fair"], result["planted"], result["even"]
    power = planted.planted_flagged / max(1, planted.planted_tested)
    false = fair.any_flag / fair.classes
    cover = planted.planted_covered / max(1, planted.planted_tested)
    others = (fair.others_covered + planted.others_covered) / max(
        1, fair.others_tested + planted.others_tested)
    of = f"{classes} classes of {students}"
    out = [
        Row(f"fairness: planted 0.7-logit effect flagged ({of})", power, "share",
            "", 0.0, "≥ 0.80", power >= 0.80),
        Row(f"fairness: any flag with no planted effect ({of})", false, "share",
            "", 0.0, "≤ 0.05", false <= 0.05),
        Row("fairness: 95% intervals covering the planted value", cover, "share",
            "", 0.0, "0.90 to 0.99", 0.90 <= cover <= 0.99),
        Row("fairness: 95% intervals covering 0 (nothing planted on the question)", others, "share",
            "", 0.0, "0.93 to 0.97", 0.93 <= others <= 0.97),
    ]
    for name, key in (("standard deviation", "sd"), ("easiest − hardest", "gap")):
        model = _ratio([getattr(e, f"model_{key}") for e in even])
        truth = _ratio([getattr(e, f"truth_{key}") for e in even])
        out.append(Row(f"fairness: calibrated/plain papers' {name}, fitted model", model,
                       "ratio", "", 0.0, "≤ 0.50", model <= 0.50))
        out.append(Row(f"fairness: calibrated/plain papers' {name}, planted truth", truth,
                       "ratio", "", 0.0, "(reported)", True))
    out.append(Row("fairness: one simulated class graded and assessed", result["per_class"], "s",
                   "", 0.0, "(reported)", True))
    return out


def measure(size: str = "full") -> list:
    """Rows for bench/run.py."""
    classes = pick(size, 100, 20, 2)
    students = pick(size, 300, 300, 60)
    result = run(classes, students, jobs=pick(size, 2, 2, 1), calibrations=pick(size, 3, 1, 1),
                 next_class=pick(size, 100, 60, 12))
    return rows(result, classes, students)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--classes", type=int, default=100)
    parser.add_argument("--students", type=int, default=300)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--calibrations", type=int, default=3)
    parser.add_argument("--next-class", type=int, default=100)
    args = parser.parse_args()
    result = run(args.classes, args.students, args.jobs, args.calibrations, args.next_class)
    for row in rows(result, args.classes, args.students):
        print(f"{row.figure:72s} {row.value:8.3f}  target {row.target}")
    for k, e in enumerate(result["even"]):
        print(f"  calibration {k}: SD truth {e.truth_sd[0]:.2f} → {e.truth_sd[1]:.2f}, "
              f"model {e.model_sd[0]:.2f} → {e.model_sd[1]:.2f}; gap truth {e.truth_gap[0]:.2f} "
              f"→ {e.truth_gap[1]:.2f}, model {e.model_gap[0]:.2f} → {e.model_gap[1]:.2f}; "
              f"{e.beyond} of {e.papers} papers beyond ±{TOLERANCE / 2:g}")
    print(f"  planted estimates: mean {sum(result['planted'].estimates) / len(result['planted'].estimates):.3f} logits "
          f"(planted −0.7); drawing the exam {result['planned']:.1f} s; per class "
          f"{result['per_class']:.2f} s; per calibration {result['calibrated']:.1f} s")


if __name__ == "__main__":
    main()
