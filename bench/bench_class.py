"""Benchmark: a class of 1,000 students end to end, and Auto Multiple Choice beside it.

    python3 bench/bench_class.py [--students 1000] [--work DIR] [--jobs 2] [--no-amc]

quizgen's side, each step a command as a teacher runs it, timed (wall, and the CPU seconds of its
whole process tree: on a machine shared with other work, what an idle one would take is about
the CPU seconds over the cores) with the peak memory of its whole process tree (each process's
VmHWM, summed over the processes alive together):

1. `quizgen sheet midterm --versions N --bubbles` (the packaged midterm: 6–7 pages, 25 answer
   boxes and 923 bubbles a student);
2. every page filled by the tests' simulator (`quizgen.scan.synth`: every way students mark,
   blanks, two in a row, erasures) and scanned at 300 dpi: 90% on a flatbed (turned, scaled,
   blurred, noisy JPEG, some upside down), 10% phone photos on a desk; not timed;
3. `quizgen scan` of every page (one JPEG each, shuffled), on every core;
4. `quizgen grade` (results, feedback pages, the class report), then again with `--remedial`
   (an Anki deck per student).

Then what was read against what each student meant: *silent wrong* (read with certainty, not what
was meant; a box meant to be doubtful counts when read) and *review* (a clear box sent to the
teacher).

AMC's side (`bench/amc_class.py`; skipped with one line when `auto-multiple-choice` is not on
PATH): the same number of students and answer boxes as one LaTeX exam (a number box as
`\\AMCnumericChoices` with as many digits, a yes/no as a two-choice question, limits as a
five-choice multiple question), `prepare --mode s`, `meptex`, `prepare --mode b`, its papers
filled by the same simulator at the boxes AMC records (data/layout.sqlite) and scanned the same
way, `analyse`, `note`, `export --module CSV`, each timed, its misreads and the boxes it asks a
teacher to verify counted the same way.

The table: step, quizgen, AMC, AMC ÷ quizgen (above 1: quizgen is faster or smaller).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

DPI = 300
PHOTOS = 0.1               # share of pages photographed with a phone
SIM_DPI = 150              # a phone photo is made from the page at this resolution


@dataclass
class Step:
    """One timed command: wall seconds and the peak memory of its process tree (MB)."""

    name: str
    seconds: float
    peak_mb: float
    note: str = ""              # what the command printed
    cpu: float = 0.0            # CPU seconds (user + system) of the whole process tree


@dataclass
class Tally:
    """What was read, against what was meant."""

    boxes: int = 0              # boxes with one clear answer
    review: int = 0             # ... sent to review
    wrong: int = 0              # read with certainty and not what was meant (doubtful ones too)
    doubtful: int = 0           # boxes meant to be doubtful (blank, two in a row, erased alone)
    pages: int = 0
    recognised: int = 0
    problems: list = field(default_factory=list)

    @property
    def review_rate(self) -> float:
        return self.review / self.boxes if self.boxes else 0.0


def run_measured(args: list[str], cwd: Path | None = None, env: dict | None = None,
                 name: str = "") -> Step:
    """Run a command; its wall time, the CPU time of its process tree (every process it started
    and waited for) and the peak of the summed VmHWM of its process tree, sampled every 50 ms (a
    process's own high-water mark: a short peak between samples counts)."""
    import resource

    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.Popen(args, cwd=cwd, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    peak = 0
    out: list[str] = []
    import threading

    readers = [threading.Thread(target=lambda s=s: out.append(s.read()), daemon=True)
               for s in (proc.stdout, proc.stderr)]
    for reader in readers:
        reader.start()
    while proc.poll() is None:
        peak = max(peak, _tree_hwm_kb(proc.pid))
        time.sleep(0.05)
    for reader in readers:
        reader.join()
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (used.ru_utime + used.ru_stime)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(args[:4])} … failed ({proc.returncode}):\n"
                           + "\n".join(out)[-3000:])
    return Step(name or Path(args[0]).name, seconds, peak / 1024, "\n".join(out), cpu)


def _tree_hwm_kb(pid: int) -> int:
    """The summed VmHWM (KB) of a process and all its descendants (Linux /proc). A child still
    running its parent's command line is between fork and exec (a `git` or Typst about to
    start): its memory is its parent's, counted once."""
    total, todo = 0, [(pid, b"")]
    while todo:
        current, parent_cmdline = todo.pop()
        try:
            cmdline = Path(f"/proc/{current}/cmdline").read_bytes()
            if cmdline != parent_cmdline:
                status = Path(f"/proc/{current}/status").read_text()
                total += int(status.split("VmHWM:")[1].split()[0])
            for task in Path(f"/proc/{current}/task").iterdir():
                todo.extend((int(c), cmdline) for c in (task / "children").read_text().split())
        except (OSError, IndexError, ValueError):
            continue
    return total


def quizgen(*args: str) -> list[str]:
    return [sys.executable, "-m", "quizgen", *args]


# ---------------------------------------------------------------------------------------------
# The pile: every page filled and scanned (in worker processes, a paper at a time)


def simulate(exam: Path, out: Path, jobs: int, seed: int = 41) -> dict[str, dict[str, list]]:
    """Fill and scan every page of `exam` into `out` (one JPEG a page, names shuffled); returns
    what each box was meant to say: version → column → [expected, case, style]. Kept: a second
    run with the same folder reuses it."""
    truth_path = out / "truth.json"
    if truth_path.is_file():
        return json.loads(truth_path.read_text(encoding="utf-8"))
    out.mkdir(parents=True, exist_ok=True)
    manifest = json.loads((exam / "manifest.json").read_text(encoding="utf-8"))
    starts, at = [], 0
    for student in manifest["students"]:
        starts.append((student["version"], at))
        at += student["sheet"]["pages"]
    order = list(range(at))
    random.Random(seed).shuffle(order)          # the pile's file names: no order to lean on
    work = [(str(exam / "exam.pdf"), str(out), version, start, seed) for version, start in starts]
    truth: dict[str, dict[str, list]] = {}
    import multiprocessing

    with multiprocessing.get_context("spawn").Pool(jobs, initializer=_sim_start,
                                                   initargs=(str(exam / "manifest.json"),
                                                             order)) as pool:
        for version, boxes in pool.imap_unordered(_simulate_paper, work, chunksize=4):
            truth[version] = boxes
    truth_path.write_text(json.dumps(truth), encoding="utf-8")
    return truth


_SIM: dict = {}


def _sim_start(manifest_path: str, order: list[int]) -> None:
    import cv2

    cv2.setNumThreads(1)
    manifest = json.loads(Path(manifest_path).read_text(encoding="utf-8"))
    _SIM["students"] = {s["version"]: s for s in manifest["students"]}
    _SIM["order"] = order


def filled_capture(pdf_page, marked: list, rng: random.Random) -> bytes:
    """A printed page (pypdfium2) filled in as `marked` plans and captured as a class's pile is:
    a phone photo for a share `PHOTOS` of pages, the rest through a sheet-fed scanner (JPEG)."""
    import cv2

    from quizgen.scan.synth import distort, fill_page, photograph

    image = pdf_page.render(scale=DPI / 72, grayscale=True).to_numpy()
    image = fill_page(image[..., 0] if image.ndim == 3 else image, DPI, marked, rng)
    if rng.random() < PHOTOS:
        small = cv2.resize(image, None, fx=SIM_DPI / DPI, fy=SIM_DPI / DPI,
                           interpolation=cv2.INTER_AREA)
        return photograph(small, rng, upside_down=rng.random() < 0.15)
    return distort(image, rng, upside_down=rng.random() < 0.15, jpeg=60, max_angle=2.0,
                   max_scale=0.02)


def _simulate_paper(item) -> tuple[str, dict[str, list]]:
    """One student's paper: planned (what they mean, how they mark), filled, scanned."""
    import pypdfium2 as pdfium

    from quizgen.scan.synth import STYLES, plan_answers

    pdf, out, version, start, seed = item
    student = _SIM["students"][version]
    rng = random.Random(f"{seed}-{version}")
    plan = plan_answers(student, rng, STYLES)
    if _SIM.get("pdf_path") != pdf:
        _SIM["pdf"], _SIM["pdf_path"] = pdfium.PdfDocument(pdf), pdf
    for page in range(1, student["sheet"]["pages"] + 1):
        index = start + page - 1
        data = filled_capture(_SIM["pdf"][index], plan.get(page, []), rng)
        (Path(out) / f"scan-{_SIM['order'][index]:05d}.jpg").write_bytes(data)
    boxes = {m.column: [m.expected, m.case, m.style]
             for page in plan.values() for _, m in page}
    return version, boxes


def tally(truth: dict[str, dict[str, list]], answers_csv: Path, pages: int,
          recognised: int) -> Tally:
    """answers.csv against what each box was meant to say."""
    import csv

    result = Tally(pages=pages, recognised=recognised)
    with open(answers_csv, encoding="utf-8-sig", newline="") as fh:
        rows = {row["version"]: row for row in csv.DictReader(fh)}
    for version, boxes in truth.items():
        for column, (expected, case, style) in boxes.items():
            if case == "written":
                continue
            got = rows[version][column]
            if expected == "needs_review":
                result.doubtful += 1
                if got != "needs_review":
                    result.wrong += 1
                    result.problems.append((version, column, case, style, got))
                continue
            result.boxes += 1
            if got == "needs_review":
                result.review += 1
            elif got != expected:
                result.wrong += 1
                result.problems.append((version, column, expected, style, got))
    return result


# ---------------------------------------------------------------------------------------------
# quizgen, end to end


def run_quizgen(students: int, work: Path, jobs: int) -> tuple[list[Step], Tally, int]:
    """The teacher's commands, each timed; the pile simulated between sheet and scan."""
    steps = []
    exam = work / "exam"
    if not (exam / "manifest.json").is_file():
        steps.append(_named(run_measured(quizgen("sheet", "midterm", "--versions", str(students),
                                                 "--bubbles", "--out", str(exam))), "sheet"))
    print(f"… simulating the pile ({students} papers)", file=sys.stderr, flush=True)
    started = time.perf_counter()
    truth = simulate(exam, work / "scans", jobs)
    print(f"  simulated in {time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)
    files = sorted(str(p) for p in (work / "scans").glob("scan-*.jpg"))
    shutil.rmtree(work / "scanned", ignore_errors=True)
    scan = _named(run_measured(quizgen("scan", *files, "--manifest", str(exam / "manifest.json"),
                                       "--out", str(work / "scanned"), "--jobs", str(jobs))),
                  "scan")
    steps.append(scan)
    import re

    # the command's summary: "N pages, M recognised; ..."
    recognised = int(re.search(r"(\d+) pages, (\d+) recognised", scan.note).group(2))
    for name, extra in (("grade", []), ("grade --remedial", ["--remedial",
                                                             str(work / "remedial")])):
        shutil.rmtree(work / "graded", ignore_errors=True)
        shutil.rmtree(work / "remedial", ignore_errors=True)
        steps.append(_named(run_measured(quizgen(
            "grade", str(exam / "manifest.json"), str(work / "scanned" / "answers.csv"),
            "--out", str(work / "graded"), "--quiet", *extra)), name))
    result = tally(truth, work / "scanned" / "answers.csv", len(files), recognised)
    return steps, result, len(files)


def _named(step: Step, name: str) -> Step:
    step.name = name
    return step


# ---------------------------------------------------------------------------------------------
# The table


def print_table(loop: float, load: str, students: int, ours: list[Step], tally_q: Tally,
                pages: int, amc: dict | None) -> None:
    by = {s.name: s for s in ours}
    rows = []
    total = sum(s.seconds for s in ours)

    def ratio(a: float | None, b: float | None) -> str:
        return f"{a / b:.2f}" if a and b else "-"

    amc_steps = amc["steps"] if amc else {}
    pairs = [("prepare (quizgen sheet | AMC prepare s + meptex + prepare b)", "sheet",
              ["prepare s", "meptex", "prepare b"]),
             ("scan (quizgen scan | AMC analyse)", "scan", ["analyse"]),
             ("grade (quizgen grade | AMC note + export)", "grade", ["note", "export"]),
             ("grade with remedial decks (quizgen only)", "grade --remedial", [])]
    for label, mine, theirs in pairs:
        q = by.get(mine)
        a_sec = sum(amc_steps[t].seconds for t in theirs) if theirs and all(
            t in amc_steps for t in theirs) else None
        a_mem = max(amc_steps[t].peak_mb for t in theirs) if a_sec is not None else None
        rows.append((label + ": wall s", q and f"{q.seconds:,.1f}", a_sec and f"{a_sec:,.1f}",
                     ratio(a_sec, q and q.seconds)))
        a_cpu = sum(amc_steps[t].cpu for t in theirs) if a_sec is not None else None
        rows.append((label + ": CPU s", q and f"{q.cpu:,.1f}", a_cpu and f"{a_cpu:,.1f}",
                     ratio(a_cpu, q and q.cpu)))
        rows.append((label + ": peak MB", q and f"{q.peak_mb:,.0f}", a_mem and f"{a_mem:,.0f}",
                     ratio(a_mem, q and q.peak_mb)))
    if "scan" in by:
        a_pages = amc["pages"] if amc else None
        a_scan = amc_steps.get("analyse")
        rows.append(("scan: wall s per page", f"{by['scan'].seconds / pages:.3f}",
                     a_scan and a_pages and f"{a_scan.seconds / a_pages:.3f}",
                     ratio(a_scan and a_pages and a_scan.seconds / a_pages,
                           by["scan"].seconds / pages)))
        a_cpu_page = a_scan and a_pages and a_scan.cpu / a_pages
        rows.append(("scan: CPU s per page", f"{by['scan'].cpu / pages:.3f}",
                     a_cpu_page and f"{a_cpu_page:.3f}",
                     ratio(a_cpu_page, by["scan"].cpu / pages)))
        rows.append(("scan: wall s per student", f"{by['scan'].seconds / students:.3f}",
                     a_scan and f"{a_scan.seconds / students:.3f}",
                     ratio(a_scan and a_scan.seconds / students, by["scan"].seconds / students)))
    rows.append(("pages scanned (recognised)", f"{pages:,} ({tally_q.recognised:,})",
                 amc and f"{amc['pages']:,} ({amc['recognised']:,})", ""))
    rows.append(("boxes with one clear answer", f"{tally_q.boxes:,}",
                 amc and f"{amc['tally'].boxes:,}", ""))
    rows.append(("silent wrong (read with certainty, not meant)", f"{tally_q.wrong}",
                 amc and f"{amc['tally'].wrong}", ""))
    rows.append(("review (clear boxes sent to the teacher)",
                 f"{tally_q.review:,} ({100 * tally_q.review_rate:.1f}%)",
                 amc and f"{amc['tally'].review:,} ({100 * amc['tally'].review_rate:.1f}%)", ""))
    rows.append(("quizgen's steps together: wall s", f"{total:,.1f}", "", ""))
    rows.append(("quizgen's steps together: CPU s", f"{sum(s.cpu for s in ours):,.1f}", "", ""))
    head = ("step", "quizgen", "AMC", "AMC ÷ quizgen")
    print(f"\n{students:,} students; machine loop {loop:.3f} s (reference 0.34 s); "
          f"load before: {load}")
    widths = [max(len(str(r[i] or "-")) for r in [head, *rows]) for i in range(4)]
    print("  ".join(h.ljust(w) for h, w in zip(head, widths)))
    print("-" * (sum(widths) + 6))
    for r in rows:
        print("  ".join(str(c or "-").ljust(w) for c, w in zip(r, widths)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=1000)
    parser.add_argument("--work", help="keep the exams, piles and results here (reused)")
    parser.add_argument("--jobs", type=int, default=len(os.sched_getaffinity(0)))
    parser.add_argument("--no-amc", action="store_true", help="quizgen's side only")
    parser.add_argument("--json", help="also write the figures here")
    args = parser.parse_args()
    if args.students < 1:
        parser.error("--students must be at least 1")
    from run import machine_row

    load = " ".join(Path("/proc/loadavg").read_text().split()[:3])
    loop = machine_row().value
    work = Path(args.work or tempfile.mkdtemp(prefix="bench-class-"))
    work.mkdir(parents=True, exist_ok=True)
    ours, tally_q, pages = run_quizgen(args.students, work / "quizgen", args.jobs)
    amc = None
    if args.no_amc:
        print("AMC: skipped (--no-amc)")
    elif shutil.which("auto-multiple-choice") is None:
        print("AMC: skipped (auto-multiple-choice is not on PATH)")
    else:
        from amc_class import run_amc

        amc = run_amc(args.students, work / "quizgen" / "exam" / "manifest.json", work / "amc",
                      args.jobs)
    print_table(loop, load, args.students, ours, tally_q, pages, amc)
    for p in tally_q.problems[:10]:
        print("  quizgen wrong:", p)
    if amc:
        for p in amc["tally"].problems[:10]:
            print("  AMC wrong:", p)
    if args.json:
        Path(args.json).write_text(json.dumps({
            "students": args.students, "loop": loop, "load": load, "pages": pages,
            "quizgen": {"steps": [vars(s) for s in ours],
                        "tally": {k: v for k, v in vars(tally_q).items() if k != "problems"}},
            "amc": None if amc is None else {
                "steps": [vars(s) for s in amc["steps"].values()], "pages": amc["pages"],
                "recognised": amc["recognised"],
                "tally": {k: v for k, v in vars(amc["tally"]).items() if k != "problems"}}},
            indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
