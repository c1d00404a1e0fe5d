"""Paper exams read back from a scanner: `sheet --bubbles`, `quizgen scan` and `scan --fix`.

The class test prints a 30-student exam with answer grids, fills every grid by program with known
answers (clean ones, blanks, two bubbles in a row, faint marks), makes poor scans of the pages
(turned up to ±3°, scaled ±3%, blurred, noisy, JPEG quality 40, some upside down, shuffled) and
checks that the scanner writes every clean box right and flags every doubtful one.
"""

import csv
import io
import json
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from quizgen.export import bubbles
from quizgen.export.sheet import build_exam
from quizgen.recipes import parse_exam_recipe
from quizgen.generator import generate_one

RECIPE = {
    "title": "Scan test", "lang": "en", "seed": 21,
    "questions": [
        {"cell": ["OCC-2", "OCC-3", "OCC-4"], "level": 2, "space": 0.3,
         "points": {"blocks_per_sm": 2, "active_warps": 1, "occupancy": 2, "limiter": 1}},
        {"cell": "W-B", "level": 1, "space": 0.3},
        {"cell": ["W-E", "W-F"], "level": 2, "space": 0.3,
         "points": {"warps_needed": 2, "deficit": 1, "hidable": 1}},
        {"cell": "OCC-7", "level": 2, "space": 0.3},
        {"cell": "OCC-9", "level": 2, "space": 0.3},
        {"cell": "K-1", "level": 1, "space": 0.3,
         "points": {"blocks_per_sm": 2, "active_warps": 1, "occupancy": 1, "limiter": 1}},
    ],
}
STUDENTS = 30


@pytest.fixture(scope="module")
def exam(tmp_path_factory):
    out = tmp_path_factory.mktemp("scan") / "exam"
    build_exam(parse_exam_recipe(RECIPE), None, STUDENTS, out, generate=generate_one, bubbles=True)
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    return out, manifest


def _pages(pdf: Path, dpi: float):
    import pypdfium2 as pdfium

    document = pdfium.PdfDocument(str(pdf))
    for page in document:
        array = page.render(scale=dpi / 72, grayscale=True).to_numpy()
        yield array[..., 0] if array.ndim == 3 else array


def _paper_pages(manifest):
    """(student, page) of every page of exam.pdf, in order."""
    return [(s, p) for s in manifest["students"] for p in range(1, s["sheet"]["pages"] + 1)]


# ---------------------------------------------------------------------------------------------
# The printed sheet


def test_every_page_carries_its_code_and_marks(exam):
    import zxingcpp

    out, manifest = exam
    layout = manifest["scan"]
    expected = _paper_pages(manifest)
    pages = list(_pages(out / "exam.pdf", 100))
    assert len(pages) == len(expected)
    for image, (student, page) in list(zip(pages, expected))[:12]:
        codes = [bubbles.parse_page_code(b.text) for b in zxingcpp.read_barcodes(image)]
        assert (layout["exam"], student["version"], page) in codes
        px = 100 / 25.4
        for x, y in layout["marks"]:      # a solid black square at each corner mark
            assert image[int(y * px), int(x * px)] < 60


def test_bubbles_are_printed_where_the_manifest_says(exam):
    out, manifest = exam
    dpi = 200
    px = dpi / 25.4
    image = next(_pages(out / "exam.pdf", dpi)).astype(float)
    boxes = [b for b in manifest["students"][0]["sheet"]["boxes"] if b["page"] == 1]
    assert boxes and all(b["bubbles"] for b in boxes)
    angles = np.linspace(0, 2 * np.pi, 24, endpoint=False)
    for box in boxes:
        for x, y, _, _ in box["bubbles"]:
            ring = image[np.rint((y + box["r"] * np.sin(angles)) * px).astype(int),
                         np.rint((x + box["r"] * np.cos(angles)) * px).astype(int)]
            outside = image[np.rint((y + (box["r"] + 0.6) * np.sin(angles)) * px).astype(int),
                            np.rint((x + (box["r"] + 0.6) * np.cos(angles)) * px).astype(int)]
            assert ring.mean() < outside.mean() - 40, (box["column"], x, y)


def test_grids_encode_each_kind(exam):
    _, manifest = exam
    kinds = {}
    for box in manifest["students"][0]["sheet"]["boxes"]:
        kinds.setdefault(box["column"].split(".")[1], box)
    assert kinds["occupancy"]["selector"] and kinds["occupancy"]["decimals"] == 3
    assert {b[3] for b in kinds["hidable"]["bubbles"]} == {"yes", "no"}
    assert {b[3] for b in kinds["limiter"]["bubbles"]} >= {"registers", "shared_memory", "warps"}
    assert kinds["warps"]["decimals"] == 0 and len(kinds["warps"]["bubbles"]) == 10 * kinds["warps"]["places"]


def test_page_codes_carry_a_checksum():
    code = bubbles.page_code("AB12", "QF3DZ1", 3)
    assert bubbles.parse_page_code(code) == ("AB12", "QF3DZ1", 3)
    assert bubbles.parse_page_code(code.replace(":03:", ":04:")) is None
    assert bubbles.parse_page_code("QF3DZ1") is None


# ---------------------------------------------------------------------------------------------
# Reading one box


def _number_box(places=3, decimals=0, selector=False):
    grid = bubbles.box_grid("fraction" if selector else "count", 1, {
        "bubble_sign": "-", "bubble_as": "as", "bubble_percent": "%", "bubble_fraction": "f",
        "bubble_choose": "", "yes": "yes", "no": "no"})
    if selector:
        places, decimals = grid["places"], grid["decimals"]
    rows = [b for b in grid["bubbles"]
            if not b["row"].startswith("p") or -decimals <= int(b["row"][1:]) < places]
    return {"column": "Q1.x", "kind": "number", "places": places, "decimals": decimals,
            "sign": False, "selector": selector,
            "bubbles": [[b["x"], b["y"], b["row"], b["value"]] for b in rows]}


def _scores(box, filled, faint=()):
    index = {(row, value): i for i, (_, _, row, value) in enumerate(box["bubbles"])}
    scores = np.zeros(len(box["bubbles"]))
    for key in filled:
        scores[index[key]] = 1.0
    for key in faint:
        scores[index[key]] = 0.35
    return scores


@pytest.mark.parametrize("filled, faint, text, status", [
    ([("p2", "0"), ("p1", "4"), ("p0", "8")], [], "48", "read"),
    ([("p1", "4"), ("p0", "8")], [], "48", "read"),                       # leading place empty
    ([("p2", "1"), ("p0", "8")], [], "needs_review", "review"),           # a gap
    ([("p1", "4")], [], "needs_review", "review"),                        # no units digit
    ([("p1", "4"), ("p1", "5"), ("p0", "8")], [], "needs_review", "review"),   # two in a row
    ([("p1", "4"), ("p0", "8")], [("p2", "1")], "needs_review", "review"),     # faint mark
    ([], [], "needs_review", "review"),                                   # nothing filled
])
def test_reading_a_number_box(filled, faint, text, status):
    from quizgen.scan.read import read_box

    box = _number_box()
    reading = read_box(box, _scores(box, filled, faint))
    assert (reading.text, reading.status) == (text, status)


@pytest.mark.parametrize("filled, text", [
    ([("p1", "4"), ("p0", "6"), ("p-1", "8"), ("p-2", "7"), ("p-3", "5"), ("as", "%")], "46.875%"),
    ([("p0", "0"), ("p-1", "4"), ("p-2", "6"), ("p-3", "9"), ("as", "fraction")], "0.469"),
    ([("p2", "1"), ("p1", "0"), ("p0", "0"), ("as", "%")], "100%"),
    ([("p0", "0"), ("p-1", "5"), ("as", "fraction")], "0.5"),             # trailing places empty
    ([("p0", "0"), ("p-1", "5")], "needs_review"),                        # percent or fraction?
    ([("p0", "0"), ("p-1", "5"), ("as", "%"), ("as", "fraction")], "needs_review"),
])
def test_reading_a_share(filled, text):
    from quizgen.scan.read import read_box

    box = _number_box(selector=True)
    assert read_box(box, _scores(box, filled)).text == text


def test_reading_options():
    from quizgen.scan.read import read_box

    yes_no = {"column": "Q4.hidable", "kind": "yes_no",
              "bubbles": [[0, 0, "opt", "yes"], [5, 0, "opt", "no"]]}
    assert read_box(yes_no, np.array([0.0, 1.0])).text == "no"
    assert read_box(yes_no, np.array([1.0, 1.0])).text == "needs_review"
    limits = {"column": "Q2.limiter", "kind": "limits",
              "bubbles": [[i * 5, 0, "opt", n] for i, n in enumerate(["registers", "shared_memory", "warps"])]}
    assert read_box(limits, np.array([1.0, 0.0, 1.0])).text == "registers, warps"


# ---------------------------------------------------------------------------------------------
# A class, scanned


def _scan_round(exam, blanks, seed: int, dpi: int, tmp: Path):
    """Fill every student's paper, scan it badly, read it back: (expected, read) per box."""
    from quizgen.scan import scan_class
    from quizgen.scan.synth import distort, fill_page, plan_answers

    out, manifest = exam
    rng = random.Random(seed)
    files, expected = [], {}
    plans = {s["version"]: plan_answers(s, rng) for s in manifest["students"]}
    for n, ((student, page), blank) in enumerate(zip(_paper_pages(manifest), blanks)):
        marked = plans[student["version"]].get(page, [])
        for _, marks in marked:
            expected[(student["version"], marks.column)] = marks
        image = fill_page(blank, dpi, marked, rng)
        path = tmp / f"scan-{seed}-{n:04d}.jpg"
        path.write_bytes(distort(image, rng, upside_down=rng.random() < 0.15))
        files.append(path)
    rng.shuffle(files)
    result = scan_class(files, out / "manifest.json", tmp / f"read-{seed}", report=seed == 0)
    assert result.unreadable == [] and result.recognised == len(files)
    return expected, result.answers


@pytest.mark.slow
def test_a_class_scanned_badly_is_read_right_or_flagged(exam, tmp_path):
    out, manifest = exam
    dpi = 150
    blanks = list(_pages(out / "exam.pdf", dpi))
    boxes = wrong = clean = clean_flagged = doubtful = 0
    problems = []
    for seed in range(7):
        expected, answers = _scan_round(exam, blanks, seed, dpi, tmp_path)
        for (version, column), marks in expected.items():
            got = answers[version][column]
            boxes += 1
            if marks.case == "clean":
                clean += 1
                if got == "needs_review":
                    clean_flagged += 1
                elif got != marks.expected:
                    wrong += 1
                    problems.append((version, column, marks.expected, got))
            else:
                doubtful += 1
                if got != marks.expected:
                    wrong += got != "needs_review"
                    problems.append((version, column, marks.case, got))
    print(f"\n{boxes} boxes, {clean} clean ({clean_flagged} flagged), {doubtful} doubtful, "
          f"{wrong} wrong")
    assert boxes >= 5000
    assert wrong == 0, problems[:10]
    assert not [p for p in problems if p[2] in ("double", "faint")], "a doubtful box was read"
    assert clean_flagged <= 0.01 * clean
    assert doubtful >= 300


def _quizgen(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "quizgen", *map(str, args)], capture_output=True,
                          text=True, cwd=cwd)


def test_scan_fix_and_grade_from_one_pdf_at_300_dpi(exam, tmp_path):
    """Two students' papers in one PDF at 300 dpi (pages shuffled, one upside down, one page
    missing), through the command line: scan, fix the doubtful boxes, grade."""
    from quizgen.scan.synth import distort, fill_page, images_to_pdf, plan_answers

    out, manifest = exam
    dpi = 300
    rng = random.Random(5)
    students = manifest["students"][:2]
    plans = {s["version"]: plan_answers(s, rng) for s in students}
    pages = _paper_pages(manifest)[:sum(s["sheet"]["pages"] for s in students)]
    jpegs = []
    for (student, page), blank in zip(pages, _pages(out / "exam.pdf", dpi)):
        if student is students[1] and page == 2:
            continue                                   # a page the teacher forgot to scan
        image = fill_page(blank, dpi, plans[student["version"]].get(page, []), rng)
        jpegs.append(distort(image, rng, upside_down=len(jpegs) == 1))
    rng.shuffle(jpegs)
    images_to_pdf(jpegs, str(tmp_path / "class.pdf"), dpi)

    done = _quizgen("scan", tmp_path / "class.pdf", "--manifest", out / "manifest.json",
                    "--out", tmp_path / "scanned", "--dpi", 300)
    assert done.returncode == 0, done.stderr
    assert "page missing" in done.stderr and "no page scanned" in done.stderr
    answers = list(csv.DictReader(io.StringIO((tmp_path / "scanned" / "answers.csv")
                                              .read_text(encoding="utf-8-sig"))))
    review = list(csv.DictReader(io.StringIO((tmp_path / "scanned" / "review.csv")
                                             .read_text(encoding="utf-8-sig"))))
    missing = [b["column"] for b in students[1]["sheet"]["boxes"] if b["page"] == 2]
    assert missing and {r["box"] for r in review if r["version"] == students[1]["version"]} >= set(missing)
    absent = {r["box"] for r in review if r["version"] == answers[2]["version"]}
    assert absent == set(answers[2]) - {"name", "roll", "version"}     # a student not scanned
    for row in answers[:2]:
        for (box, marks) in [bm for page in plans[row["version"]].values() for bm in page]:
            if box["column"] not in missing or row["version"] != students[1]["version"]:
                assert row[box["column"]] == marks.expected, (row["version"], box["column"])
    report = (tmp_path / "scanned" / "scan-report.html").read_text(encoding="utf-8")
    scanned_doubts = [r for r in review if "scanned" not in r["reason"]]
    assert scanned_doubts and report.count("data:image/jpeg") >= len(scanned_doubts)
    assert len({r["version"] for r in review}) == STUDENTS   # the 28 papers not scanned too

    # The teacher reads every doubtful box: 7 where a number is needed, else blank.
    with open(tmp_path / "fixes.csv", "w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["version", "box", "answer"])
        for r in review:
            writer.writerow([r["version"], r["box"], "7" if "limiter" not in r["box"] and "hidable" not in r["box"] else "blank"])
    done = _quizgen("scan", "--fix", tmp_path / "fixes.csv", "--out", tmp_path / "scanned")
    assert done.returncode == 0, done.stderr
    assert f"{len(review)} boxes fixed" in done.stdout and "0 still needs_review" in done.stdout
    text = (tmp_path / "scanned" / "answers.csv").read_text(encoding="utf-8-sig")
    assert "needs_review" not in text
    done = _quizgen("grade", out / "manifest.json", tmp_path / "scanned" / "answers.csv",
                    "--out", tmp_path / "graded")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "graded" / "results.csv").is_file()
    # a new scan into the same folder replaces quizgen's own files (the fixed sheet too) ...
    done = _quizgen("scan", tmp_path / "class.pdf", "--manifest", out / "manifest.json",
                    "--out", tmp_path / "scanned", "--no-report")
    assert done.returncode == 0, done.stderr
    assert "needs_review" in (tmp_path / "scanned" / "answers.csv").read_text(encoding="utf-8-sig")
    # ... but never the sheet's own folder, whose answers.csv is not the scanner's
    done = _quizgen("scan", tmp_path / "class.pdf", "--manifest", out / "manifest.json",
                    "--out", out)
    assert done.returncode == 2 and "folder of its own" in done.stderr
    assert (out / "exam.pdf").is_file() and (out / "manifest.json").is_file()


@pytest.mark.parametrize("args, message", [
    (["scan", "nope.pdf", "--manifest", "m.json"], "no such file"),
    (["scan", "--manifest", "MANIFEST"], "give the scanned pages"),
    (["scan", "x.pdf"], "give the exam's manifest.json"),
    (["scan", "--fix", "FIXES", "--out", "OUT"], "no box"),
])
def test_bad_input_is_one_line_and_exit_2(exam, tmp_path, args, message):
    out, manifest = exam
    scanned = tmp_path / "scanned"
    scanned.mkdir()
    columns = ["Q1.blocks_per_sm"]
    (scanned / "answers.csv").write_text("name,roll,version,Q1.blocks_per_sm\n,,"
                                         f"{manifest['students'][0]['version']},needs_review\n")
    (tmp_path / "fixes.csv").write_text(f"version,box,answer\n{manifest['students'][0]['version']},Q9.x,4\n")
    (tmp_path / "x.pdf").write_bytes(b"%PDF-1.4\n")
    args = [{"MANIFEST": out / "manifest.json", "FIXES": tmp_path / "fixes.csv",
             "OUT": scanned}.get(a, a) for a in args]
    done = _quizgen(*args, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and message in done.stderr, done.stderr
    del columns


def test_a_manifest_without_grids_is_refused(tmp_path):
    out = tmp_path / "plain"
    build_exam(parse_exam_recipe(RECIPE), None, 1, out, generate=generate_one)
    (tmp_path / "page.png").write_bytes(b"")
    done = _quizgen("scan", tmp_path / "page.png", "--manifest", out / "manifest.json",
                    "--out", tmp_path / "s")
    assert done.returncode == 2 and "sheet --bubbles" in done.stderr


def test_colour_images_from_150_to_600_dpi(exam, tmp_path):
    """One paper as separate colour images (PNG and JPEG), pages at 600 and 150 dpi, one upside
    down: every box read as marked."""
    import cv2

    from quizgen.scan import scan_class
    from quizgen.scan.synth import distort, fill_page, plan_answers

    out, manifest = exam
    rng = random.Random(9)
    student = manifest["students"][3]
    plan = plan_answers(student, rng)
    first = _paper_pages(manifest).index((student, 1))
    files, expected = [], {}
    for page in range(1, student["sheet"]["pages"] + 1):
        dpi = 600 if page % 2 else 150
        import pypdfium2 as pdfium

        rendered = pdfium.PdfDocument(str(out / "exam.pdf"))[first + page - 1].render(
            scale=dpi / 72, grayscale=True).to_numpy()
        blank = rendered[..., 0] if rendered.ndim == 3 else rendered
        marked = plan.get(page, [])
        expected.update({marks.column: marks.expected for _, marks in marked})
        grey = cv2.imdecode(np.frombuffer(distort(fill_page(blank, dpi, marked, rng), rng,
                                                  upside_down=page == 2), np.uint8), 0)
        tint = [np.clip(grey.astype(int) + d, 0, 255).astype(np.uint8) for d in (0, 12, -18)]
        path = tmp_path / f"page-{page}.{'png' if page % 2 else 'jpg'}"
        cv2.imwrite(str(path), cv2.merge(tint))
        files.append(path)
    result = scan_class(files, out / "manifest.json", tmp_path / "read", report=False)
    assert result.recognised == len(files) and not result.unreadable
    assert {c: result.answers[student["version"]][c] for c in expected} == expected


def test_a_page_without_a_code_is_listed_and_nothing_is_read_from_it(exam, tmp_path):
    import cv2

    from quizgen.scan import scan_class

    out, manifest = exam
    cv2.imwrite(str(tmp_path / "white.png"), np.full((1754, 1240), 250, np.uint8))
    result = scan_class([tmp_path / "white.png"], out / "manifest.json", tmp_path / "read")
    assert (result.pages, result.recognised) == (1, 0)
    assert "no QR code" in result.unreadable[0]
    assert all(text == "needs_review" for row in result.answers.values() for text in row.values())
    assert "no QR code" in (tmp_path / "read" / "scan-report.html").read_text(encoding="utf-8")
