"""Auto Multiple Choice beside quizgen in `bench/bench_class.py`: the same class, AMC's own way.

The exam: one LaTeX source with as many copies as students and, for each answer box of
quizgen's paper, one AMC question with as many boxes (a number box of p places and d decimals as
`\\AMCnumericChoices` with p + d digits, a yes/no as a two-choice question, limits as a
five-choice multiple question). AMC's commands as its manual gives them, each timed with the
peak memory of its process tree: `prepare --mode s`, `meptex`, `prepare --mode b`, `analyse`
(its list of scans given with `--liste-fichiers`, the spelling its script takes; the manual's
`--list-fichiers` is read as a scan), `note`, `export --module CSV`.

Its papers are filled where AMC says its boxes are (data/layout.sqlite: `layout_box`, at the
resolution of `layout_page`), by the same simulator as quizgen's (`quizgen.scan.synth`: what each
student means, how they mark, blanks, two in a row, erasures) and scanned the same way (300 dpi,
90% flatbed, 10% phone photos).

What AMC read (data/capture.sqlite: each box's black and total pixels; ticked from 0.15 of
black, AMC's default threshold) is decoded the way AMC scores it (an empty digit row is 0) and
counted as quizgen's is: *to verify* when AMC itself would send the teacher to it — a box within
0.03 of the threshold (what sets the page's "sensitivity" at 8 or more, the value AMC's window
marks in red), an invalid answer (two boxes in a row, two ticks in a single-choice question), an
empty question, or a page not recognised; *silent wrong* when read otherwise and not what the
student meant.
"""

from __future__ import annotations

import json
import random
import shutil
import sqlite3
import sys
import time
from decimal import Decimal
from pathlib import Path

from bench_class import Step, Tally, filled_capture, run_measured

AMC = "auto-multiple-choice"
THRESHOLD = 0.15          # AMC's default darkness threshold (note --seuil)
SENSITIVE = 0.2           # sensitivity ≥ 8 of 10: within 0.2 × the threshold of it
LIMITS = ["registers", "shared_memory", "warps", "blocks", "barriers"]


def exam_tex(boxes: list[dict], students: int) -> str:
    """The LaTeX source: `students` copies of one question per quizgen answer box."""
    out = [r"\documentclass[a4paper]{article}", r"\usepackage[utf8]{inputenc}",
           r"\usepackage[T1]{fontenc}", r"\usepackage{fp}",
           r"\usepackage[box]{automultiplechoice}", r"\begin{document}",
           r"\onecopy{%d}{" % students,
           r"\noindent{\bf GPU Architecture --- Midterm}\hfill Name: \rule{6cm}{0.4pt}\par"]
    for n, box in enumerate(boxes, start=1):
        name, label = f"q{n}", "Box " + box["column"].replace("_", " ") + "."
        if box["kind"] == "number":
            digits = box["places"] + box["decimals"]
            out += [r"\begin{questionmultx}{%s}" % name, label,
                    r"\AMCnumericChoices{0}{digits=%d,decimals=%d,sign=false,borderwidth=0pt}"
                    % (digits, box["decimals"]), r"\end{questionmultx}"]
            continue
        options = ["yes", "no"] if box["kind"] == "yes_no" else LIMITS
        choices = [r"\correctchoice{%s}" % options[0].replace("_", r"\_")] + [
            r"\wrongchoice{%s}" % c.replace("_", r"\_") for c in options[1:]]
        kind = "question" if box["kind"] == "yes_no" else "questionmult"
        out += [r"\begin{%s}{%s}" % (kind, name), label, r"\begin{choiceshoriz}[o]", *choices,
                r"\end{choiceshoriz}", r"\end{%s}" % kind]
    out += [r"\AMCcleardoublepage", "}", r"\end{document}", ""]
    return "\n".join(out)


def prepare(boxes: list[dict], students: int, project: Path) -> list[Step]:
    """AMC's three preparing commands, timed."""
    shutil.rmtree(project, ignore_errors=True)
    (project / "data").mkdir(parents=True)
    (project / "cr").mkdir()
    source = project / "exam.tex"
    source.write_text(exam_tex(boxes, students), encoding="utf-8")
    common = ["--with", "pdflatex", "--data", str(project / "data")]
    return [run_measured([AMC, "prepare", "--mode", "s", "--prefix", str(project) + "/",
                          *common, str(source)], cwd=project, name="prepare s"),
            run_measured([AMC, "meptex", "--src", str(project / "calage.xy"), "--data",
                          str(project / "data")], cwd=project, name="meptex"),
            run_measured([AMC, "prepare", "--mode", "b", *common, str(source)], cwd=project,
                         name="prepare b")]


def amc_boxes(project: Path, quizgen_boxes: list[dict]) -> dict[int, list[tuple[int, dict]]]:
    """Each copy's questions as quizgen box dicts (bubbles in mm where AMC printed its boxes):
    student → [(page, box)], from layout.sqlite."""
    db = sqlite3.connect(project / "data" / "layout.sqlite")
    dpi = {(s, p): d for s, p, d in db.execute("SELECT student, page, dpi FROM layout_page")}
    out: dict[int, dict[int, dict]] = {}
    rows = db.execute("SELECT student, page, question, answer, xmin, xmax, ymin, ymax, char "
                      "FROM layout_box WHERE role = 1 ORDER BY student, question, answer")
    for student, page, question, answer, x0, x1, y0, y1, char in rows:
        mm = 25.4 / dpi[(student, page)]
        model = quizgen_boxes[question - 1]       # AMC's numbers: digits alone
        box = out.setdefault(student, {}).setdefault(question, dict(
            model, page=page, bubbles=[], r=0.5 * (x1 - x0) * mm * 0.9, sign=False,
            selector=False))
        k = len(box["bubbles"])
        if model["kind"] == "number":
            row = f"p{model['places'] - 1 - k // 10}"
            value = char
        elif model["kind"] == "yes_no":
            row, value = "opt", ("yes", "no")[k]
        else:
            row, value = "opt", LIMITS[k]
        box["bubbles"].append([(x0 + x1) / 2 * mm, (y0 + y1) / 2 * mm, row, value])
    return {s: [(q["page"], q) for _, q in sorted(qs.items())] for s, qs in out.items()}


def simulate(project: Path, quizgen_boxes: list[dict], scans: Path, jobs: int,
             seed: int = 41) -> dict:
    """AMC's papers filled and scanned as quizgen's are: (copy → question → [expected, case,
    style]), the JPEGs in `scans`."""
    truth_path = scans / "truth.json"
    if truth_path.is_file():
        return json.loads(truth_path.read_text(encoding="utf-8"))
    scans.mkdir(parents=True, exist_ok=True)
    copies = amc_boxes(project, quizgen_boxes)
    db = sqlite3.connect(project / "data" / "layout.sqlite")
    subject = {(s, p): sp for s, p, sp in db.execute(
        "SELECT student, page, subjectpage FROM layout_page")}
    work = [(str(project / "sujet.pdf"), str(scans), s, copies[s],
             {p: subject[(s, p)] for (t, p) in subject if t == s}, seed) for s in sorted(copies)]
    truth = {}
    import multiprocessing

    with multiprocessing.get_context("spawn").Pool(jobs, initializer=_start) as pool:
        for student, meant in pool.imap_unordered(_paper, work, chunksize=4):
            truth[str(student)] = meant
    truth_path.write_text(json.dumps(truth), encoding="utf-8")
    return truth


_OPEN: dict = {}


def _start() -> None:
    import cv2

    cv2.setNumThreads(1)


def _paper(item):
    import pypdfium2 as pdfium

    from quizgen.scan.synth import STYLES, plan_box

    pdf, out, student, questions, pages, seed = item
    rng = random.Random(f"amc-{seed}-{student}")
    plans = [(page, box, plan_box(box, rng, STYLES)) for page, box in questions]
    if _OPEN.get("path") != pdf:
        _OPEN["doc"], _OPEN["path"] = pdfium.PdfDocument(pdf), pdf
    for page, index in sorted(pages.items()):
        marked = [(box, marks) for p, box, marks in plans if p == page]
        data = filled_capture(_OPEN["doc"][index - 1], marked, rng)
        (Path(out) / f"amc-{student:05d}-{page:02d}.jpg").write_bytes(data)
    return student, {str(n): [m.expected, m.case, m.style]
                     for n, (_, _, m) in enumerate(plans, start=1)}


def read_back(project: Path, quizgen_boxes: list[dict], truth: dict) -> tuple[Tally, int]:
    """What AMC captured, decoded and counted against what was meant; and the pages recognised."""
    capture = sqlite3.connect(project / "data" / "capture.sqlite")
    pages = {(s, p) for s, p in capture.execute(
        "SELECT student, page FROM capture_page WHERE timestamp_auto > 0")}
    zones: dict[tuple[int, int], dict[int, float]] = {}
    for student, question, answer, total, black in capture.execute(
            "SELECT student, id_a, id_b, total, black FROM capture_zone WHERE type = 4"):
        if total > 0:
            zones.setdefault((student, question), {})[answer] = black / total
    copies = amc_boxes(project, quizgen_boxes)
    tally = Tally(recognised=len(pages))
    for student, questions in copies.items():
        for n, (page, box) in enumerate(questions, start=1):
            expected, case, style = truth[str(student)][str(n)]
            ratios = zones.get((student, n)) if (student, page) in pages else None
            got = "needs_review" if ratios is None else _decode(box, ratios)
            if expected == "needs_review":
                tally.doubtful += 1
                if got != "needs_review":
                    tally.wrong += 1
                    tally.problems.append((student, box["column"], case, style, got))
                continue
            tally.boxes += 1
            if got == "needs_review":
                tally.review += 1
            elif got != expected:
                tally.wrong += 1
                tally.problems.append((student, box["column"], expected, style, got))
    return tally, len(pages)


def _decode(box: dict, ratios: dict[int, float]) -> str:
    """A question's answer as AMC scores it, or needs_review where AMC asks for a look."""
    answers = sorted(ratios)
    if any(abs(r - THRESHOLD) <= SENSITIVE * THRESHOLD for r in ratios.values()):
        return "needs_review"                     # the page's sensitivity: 8 or more
    ticked = [a for a in answers if ratios[a] >= THRESHOLD]
    if not ticked:
        return "needs_review"                     # empty: AMC shows it in its own colour
    if box["kind"] == "yes_no":
        return ("yes", "no")[ticked[0] - 1] if len(ticked) == 1 else "needs_review"
    if box["kind"] == "limits":
        return ", ".join(LIMITS[a - 1] for a in ticked)
    digits = box["places"] + box["decimals"]
    rows: list[list[int]] = [[] for _ in range(digits)]
    for a in ticked:
        rows[(a - 1) // 10].append((a - 1) % 10)
    if any(len(r) > 1 for r in rows):
        return "needs_review"                     # invalid: two boxes in a digit's row
    text = "".join(str(r[0]) if r else "0" for r in rows)      # an empty row counts 0
    value = Decimal(text) / (Decimal(10) ** box["decimals"])
    plain = format(value.normalize(), "f")
    return "0" if plain in ("-0", "") else plain


def run_amc(students: int, manifest_path: Path, work: Path, jobs: int) -> dict:
    """AMC's side of the benchmark: steps timed, the pile read back and counted."""
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    model = [b for b in manifest["students"][0]["sheet"]["boxes"] if b["bubbles"]]
    project = work / "project"
    steps = {}
    if not (project / "data" / "layout.sqlite").is_file():
        for step in prepare(model, students, project):
            steps[step.name] = step
    print(f"… simulating AMC's pile ({students} copies)", file=sys.stderr, flush=True)
    started = time.perf_counter()
    truth = simulate(project, model, work / "scans", jobs)
    print(f"  simulated in {time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)
    files = sorted((work / "scans").glob("amc-*.jpg"))
    listing = work / "scans.txt"
    listing.write_text("\n".join(str(f) for f in files) + "\n", encoding="utf-8")
    (project / "data" / "capture.sqlite").unlink(missing_ok=True)
    data = ["--data", str(project / "data")]
    steps["analyse"] = run_measured([AMC, "analyse", "--projet", str(project), *data, "--cr",
                                     str(project / "cr"), "--n-procs", str(jobs),
                                     "--liste-fichiers", str(listing)], cwd=project,
                                    name="analyse")
    steps["note"] = run_measured([AMC, "note", *data, "--seuil", str(THRESHOLD)], cwd=project,
                                 name="note")
    names = work / "students.csv"
    names.write_text("id,name\n" + "".join(f"{n},Student {n}\n" for n in range(1, students + 1)),
                     encoding="utf-8")
    steps["export"] = run_measured([AMC, "export", *data, "--module", "CSV", "--fich-noms",
                                    str(names), "--o", str(work / "marks.csv")], cwd=project,
                                   name="export")
    tally, recognised = read_back(project, model, truth)
    tally.pages = len(files)
    return {"steps": steps, "pages": len(files), "recognised": recognised, "tally": tally}
