"""Phone photos of filled exams, shadows, and what the scanner says about pages it cannot read.

Pages are filled by program in every way students mark a bubble (`synth.STYLES`: solid,
off-centre, over the edge, hatched, scribbled, partly filled, ticked, crossed, light pencil, an
erased smudge beside the real mark) and photographed on a desk (`synth.photograph`: tilted up to
25°, turned ±5°, barrel distortion, a lighting gradient, a soft shadow, JPEG at 1600×2200). The
scanner must recognise almost every page, never write a wrong answer with certainty, and read
the boxes a student marked clearly (one dense, scribbled or light-pencil mark per row).
"""

import json
import random
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from conftest import scan_recipe
from quizgen.export.sheet import build_exam
from quizgen.recipes import parse_exam_recipe
from quizgen.generator import generate_one

RECIPE = scan_recipe("Photo test", 33, {"cell": "OCC-9", "level": 2, "space": 0.3})
STUDENTS = 12
DPI = 200
#: Styles a box must be read in (one mark per row): the issue's "single dense, scribbled or
#: light-pencil mark".
MUST_READ = {"solid", "off_centre", "over_edge", "scribble", "hatching", "light"}


@pytest.fixture(scope="module")
def exam(tmp_path_factory):
    out = tmp_path_factory.mktemp("photo") / "exam"
    build_exam(parse_exam_recipe(RECIPE), None, STUDENTS, out, generate=generate_one, bubbles=True)
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    return out, manifest


def _blank_pages(out: Path, dpi: float = DPI):
    import pypdfium2 as pdfium

    document = pdfium.PdfDocument(str(out / "exam.pdf"))
    pages = []
    for page in document:
        array = page.render(scale=dpi / 72, grayscale=True).to_numpy()
        pages.append(array[..., 0] if array.ndim == 3 else array)
    return pages


def _paper_pages(manifest):
    return [(s, p) for s in manifest["students"] for p in range(1, s["sheet"]["pages"] + 1)]


STYLE_TALLY: dict[str, list[int]] = {}      # style → [clean boxes, sent to review] (printed)


def _tally(expected, answers):
    """(wrong reads with certainty, clear boxes, clear boxes sent to review, problems)."""
    wrong = clear = clear_review = 0
    problems = []
    for (version, column), marks in expected.items():
        got = answers[version][column]
        STYLE_TALLY.setdefault(marks.style, [0, 0])
        STYLE_TALLY[marks.style][0] += marks.case == "clean"
        STYLE_TALLY[marks.style][1] += marks.case == "clean" and got == "needs_review"
        if got != "needs_review" and got != marks.expected:
            wrong += 1
            problems.append((version, column, marks.case, marks.style, marks.expected, got))
        if marks.case == "clean" and marks.style in MUST_READ:
            clear += 1
            if got == "needs_review":
                clear_review += 1
                problems.append((version, column, "review", marks.style, marks.expected, got))
    return wrong, clear, clear_review, problems


def _photo_round(exam, students, seed, tmp: Path, **photo):
    from quizgen.scan import scan_class
    from quizgen.scan.synth import STYLES, fill_page, photograph, plan_answers

    out, manifest = exam
    rng = random.Random(seed)
    blanks = _blank_pages(out)
    files, expected = [], {}
    for n, ((student, page), blank) in enumerate(zip(_paper_pages(manifest), blanks)):
        if student["version"] not in students:
            continue
        plan = plan_answers(student, rng, STYLES) if page == 1 else plan
        marked = plan.get(page, [])
        for _, marks in marked:
            expected[(student["version"], marks.column)] = marks
        path = tmp / f"IMG_{seed}_{n:04d}.jpg"
        path.write_bytes(photograph(fill_page(blank, DPI, marked, rng), rng,
                                    upside_down=rng.random() < 0.15, **photo))
        files.append(path)
    rng.shuffle(files)
    result = scan_class(files, out / "manifest.json", tmp / f"read-{seed}", report=False)
    return result, expected, files


def _phone_condition(exam, tmp_path, papers: int, seeds):
    _, manifest = exam
    pages = recognised = 0
    wrong = clear = clear_review = 0
    problems, unread = [], []
    for seed in seeds:
        rng = random.Random(seed)
        students = {s["version"] for s in rng.sample(manifest["students"], papers)}
        result, expected, files = _photo_round(exam, students, seed, tmp_path)
        pages += result.pages
        recognised += result.recognised
        unread += result.unreadable
        w, c, cr, p = _tally(expected, result.answers)
        wrong, clear, clear_review = wrong + w, clear + c, clear_review + cr
        problems += p
    print(f"\nphone: {recognised}/{pages} pages recognised; {clear} clear boxes, "
          f"{clear_review} to review; {wrong} wrong; unread {unread[:3]}")
    print("clean boxes to review by style:",
          {k: f"{v[1]}/{v[0]}" for k, v in sorted(STYLE_TALLY.items())})
    return pages, recognised, wrong, clear, clear_review, problems


def test_phone_photos_quick(exam, tmp_path):
    """Two papers photographed: every page found, nothing read wrong."""
    pages, recognised, wrong, clear, clear_review, problems = _phone_condition(
        exam, tmp_path, 1, [101])
    assert recognised >= pages - 1
    assert wrong == 0, problems
    assert clear_review <= max(1, 0.1 * clear), problems


@pytest.mark.slow
def test_phone_photos_of_a_class(exam, tmp_path):
    """A class photographed page by page: ≥ 95% of pages recognised, 0 wrong with certainty,
    ≤ 10% of the clearly marked boxes sent to review."""
    pages, recognised, wrong, clear, clear_review, problems = _phone_condition(
        exam, tmp_path, STUDENTS, [1, 2])
    assert pages >= 60
    assert recognised >= 0.95 * pages
    assert wrong == 0, [p for p in problems if p[2] != "review"]
    assert clear >= 100 and clear_review <= 0.1 * clear, problems


# ---------------------------------------------------------------------------------------------
# A shadow over a box


@pytest.mark.parametrize("depth, edge", [(0.45, "soft"), (0.55, "hard"), (0.7, "soft"),
                                         (0.3, "hard")])
def test_a_shadow_over_any_box_never_reads_as_an_answer(exam, tmp_path, depth, edge):
    """A shadow (paper at 55%, 45%, 30% or 70% of its brightness, a soft or a hard edge) over
    the lower part of every box of a paper, limits boxes included, half of them left empty: no
    box reads other than its marks."""
    import cv2

    from quizgen.scan import scan_class
    from quizgen.scan.synth import distort, fill_page, plan_answers

    out, manifest = exam
    student = manifest["students"][0]
    rng = random.Random(int(depth * 100) + len(edge))
    plan = plan_answers(student, rng)
    pages = _blank_pages(out)
    files, expected = [], {}
    px = DPI / 25.4
    for index, (s, page) in enumerate(_paper_pages(manifest)):
        if s is not student:
            continue
        marked = plan.get(page, [])
        # half the boxes blank (the case a shadow could fill), the rest as planned
        for n, (box, marks) in enumerate(marked):
            if n % 2:
                marks.filled, marks.faint, marks.smudges = [], [], []
                marks.expected = "needs_review"
            expected[marks.column] = marks.expected
        image = fill_page(pages[index], DPI, marked, rng).astype(np.float32)
        light = np.ones_like(image)
        for box, _ in marked:
            x, y, w, h = (v * px for v in box["region"])
            cv2.rectangle(light, (int(x - 5 * px), int(y + 0.3 * h)), (int(x + w + 5 * px), int(y + h + 3 * px)),
                          1 - depth, -1)
        if edge == "soft":
            light = cv2.GaussianBlur(light, (0, 0), 3 * px)
        image = (image * light).clip(0, 255).astype(np.uint8)
        path = tmp_path / f"shadow-{page}.jpg"
        path.write_bytes(distort(image, rng, jpeg=75, max_angle=1.5))
        files.append(path)
    result = scan_class(files, out / "manifest.json", tmp_path / "read", report=False)
    assert result.recognised == len(files)
    got = result.answers[student["version"]]
    wrong = {c: (e, got[c]) for c, e in expected.items() if got[c] not in ("needs_review", e)}
    assert not wrong


def test_every_option_of_a_limits_box_filled_is_doubtful():
    from quizgen.scan.read import read_box

    limits = {"column": "Q2.limiter", "kind": "limits",
              "bubbles": [[i * 5, 0, "opt", n] for i, n in
                          enumerate(["registers", "shared_memory", "warps", "blocks"])]}
    assert read_box(limits, ["filled"] * 4).text == "needs_review"
    assert read_box(limits, ["filled", "filled", "filled", "empty"]).text == \
        "registers, shared_memory, warps"


def test_a_review_row_names_the_bubble():
    from quizgen.scan.read import read_box

    box = {"column": "Q1.x", "kind": "number", "places": 2, "decimals": 0, "sign": False,
           "selector": False,
           "bubbles": [[i, r, f"p{p}", str(i)] for r, p in ((0, 1), (1, 0)) for i in range(10)]}
    states = ["empty"] * 20
    states[4] = "mark"                                  # a tick on ×10: 4
    states[17] = "filled"
    reading = read_box(box, states)
    assert reading.text == "needs_review" and "×10: 4" in str(reading.reason)
    states[4] = "faint"                                 # an erasure alone in its row
    assert "×10: 4" in str(read_box(box, states).reason)
    states[3] = "filled"                                # ... beside a real mark: doubtful
    assert "×10: 4" in str(read_box(box, states).reason)
    states[4] = "erased"                                # ... far lighter than it: passed over
    assert read_box(box, states).text == "37"


# ---------------------------------------------------------------------------------------------
# Pages not recognised, in the report


def test_the_report_never_calls_a_scanned_paper_absent(exam, tmp_path):
    """Two papers: one page's QR code torn off (could be anyone's), one page's corner marks
    covered (its code says whose). Nobody is called absent, nothing is 'not scanned'."""
    import cv2

    from quizgen.scan import scan_class
    from quizgen.scan.synth import distort

    out, manifest = exam
    layout = manifest["scan"]
    pages = _blank_pages(out)
    students = manifest["students"][:2]
    files = []
    px = DPI / 25.4
    for index, (s, page) in enumerate(_paper_pages(manifest)):
        if s not in students:
            continue
        image = pages[index].copy()
        if s is students[0] and page == 1:           # the whole paper's one unread page
            qx, qy = layout["qr"]
            image[int((qy - 3) * px):int((qy + 20) * px), int((qx - 3) * px):int((qx + 20) * px)] = 255
        if s is students[1] and page == 2:
            for x, y in layout["marks"][:2]:
                cv2.circle(image, (int(x * px), int(y * px)), int(9 * px), 255, -1)
        if s is students[0] and page > 1:
            continue                                 # the rest of that paper not scanned
        path = tmp_path / f"p{index}.jpg"
        path.write_bytes(distort(image, random.Random(index), max_angle=1))
        files.append(path)
    result = scan_class(files, out / "manifest.json", tmp_path / "read")
    assert result.recognised == len(files) - 2 and result.unplaced == 1
    report = (tmp_path / "read" / "scan-report.html").read_text(encoding="utf-8")
    assert "Pages not recognised (2)" in report
    assert "no QR code of a quizgen page found" in report
    assert "look at it before taking anyone for absent" in report
    assert "blank</code> for each" not in report and "Pages not scanned" not in report
    assert "Scanned but not recognised" in report and "One scanned page was not" in report
    assert f"version {students[1]['version']}: page 2 (p" in report
    assert report.count("data:image/jpeg") >= 2
    review = (tmp_path / "read" / "review.csv").read_text(encoding="utf-8-sig")
    assert "page 2 was scanned" in review and "no page of this paper was scanned" not in \
        "\n".join(l for l in review.splitlines() if students[0]["version"] in l)


# ---------------------------------------------------------------------------------------------
# Bounds: nothing huge is decoded


def _measured(args, cwd):
    """Run quizgen in a child, and report (exit code, stderr, seconds, peak MB)."""
    probe = ("import resource, subprocess, sys, time\n"
             "t = time.perf_counter()\n"
             "done = subprocess.run([sys.executable, '-m', 'quizgen', *sys.argv[1:]], "
             "capture_output=True, text=True)\n"
             "peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024\n"
             "print(done.returncode, time.perf_counter() - t, peak)\n"
             "sys.stderr.write(done.stderr)\n")
    done = subprocess.run([sys.executable, "-c", probe, *map(str, args)], capture_output=True,
                          text=True, cwd=cwd)
    code, seconds, peak = done.stdout.split()
    return int(code), done.stderr, float(seconds), float(peak)


def _huge_pdf(path: Path, side_pt: int) -> None:
    body = (b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n"
            b"2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n"
            + f"3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 {side_pt} {side_pt}]>>endobj\n".encode())
    path.write_bytes(body + b"trailer<</Root 1 0 R>>\n%%EOF\n")


def _huge_png(path: Path, side: int) -> None:
    import struct
    import zlib

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    # white rows, 100 at a time: after a full flush the compressor starts afresh, so every
    # further block of 100 rows compresses to the same bytes, written again without compressing
    rows = 100
    block = (b"\x00" + b"\xff" * side) * rows
    packer = zlib.compressobj(9)
    first = packer.compress(block) + packer.flush(zlib.Z_FULL_FLUSH)
    again = packer.compress(block) + packer.flush(zlib.Z_FULL_FLUSH)
    check = 1
    for _ in range(side // rows):
        check = zlib.adler32(block, check)
    data = first + again * (side // rows - 1) + b"\x03\x00" + struct.pack(">I", check)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", side, side, 8, 0, 0, 0, 0))
                     + chunk(b"IDAT", data) + chunk(b"IEND", b""))


@pytest.mark.parametrize("kind", ["pdf", "png"])
def test_a_huge_page_is_refused_before_it_is_decoded(exam, tmp_path, kind):
    out, _ = exam
    path = tmp_path / f"huge.{kind}"
    if kind == "pdf":
        _huge_pdf(path, 20000)
        assert path.stat().st_size < 1024
    else:
        _huge_png(path, 32000)
        assert path.stat().st_size < 1.5e6
    code, stderr, seconds, peak = _measured(["scan", path, "--manifest", out / "manifest.json",
                                             "--out", tmp_path / "s"], tmp_path)
    assert code == 2 and stderr.count("\n") == 1 and "not read" in stderr, stderr
    assert ("7056 × 7056 mm" if kind == "pdf" else "32000 × 32000 px") in stderr
    assert seconds < 2 * max(1.0, _slowness()) + 3 and peak < 200, (seconds, peak)


def _slowness() -> float:
    """How much slower than an idle machine this one is now (1 when idle)."""
    t = time.perf_counter()
    sum(i * i for i in range(300_000))
    return max(1.0, (time.perf_counter() - t) / 0.02)


def test_a_huge_page_among_good_ones_is_skipped_and_reported(exam, tmp_path):
    from quizgen.scan import scan_class
    from quizgen.scan.synth import distort

    out, manifest = exam
    good = tmp_path / "good.jpg"
    good.write_bytes(distort(_blank_pages(out)[0], random.Random(1), max_angle=1))
    _huge_pdf(tmp_path / "huge.pdf", 14400)
    result = scan_class([good, tmp_path / "huge.pdf"], out / "manifest.json", tmp_path / "read")
    assert (result.pages, result.recognised) == (2, 1)
    assert "huge.pdf p. 1: a page of 5080 × 5080 mm" in result.unreadable[0]


def test_too_many_pages_is_one_clear_line(exam, tmp_path):
    import pypdfium2 as pdfium

    out, manifest = exam
    document = pdfium.PdfDocument.new()
    for _ in range(200):
        document.new_page(595, 842)
    document.save(str(tmp_path / "many.pdf"))
    done = subprocess.run([sys.executable, "-m", "quizgen", "scan", tmp_path / "many.pdf",
                           "--manifest", out / "manifest.json", "--out", tmp_path / "s"],
                          capture_output=True, text=True, cwd=tmp_path)
    total = sum(s["sheet"]["pages"] for s in manifest["students"])
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert f"this exam's papers have {total} pages in all" in done.stderr


def test_image_headers_give_the_size_without_decoding(tmp_path):
    import cv2

    from quizgen.scan.header import image_sizes

    image = np.full((37, 53), 200, np.uint8)
    for suffix in (".png", ".jpg", ".tif", ".bmp", ".webp", ".pgm"):
        cv2.imwrite(str(tmp_path / f"a{suffix}"), image)
        assert image_sizes(tmp_path / f"a{suffix}") == [(53, 37)], suffix
    cv2.imwritemulti(str(tmp_path / "two.tif"), [image, image[:20]])
    assert image_sizes(tmp_path / "two.tif") == [(53, 37), (53, 20)]
    (tmp_path / "bad.png").write_bytes(b"not an image")
    assert image_sizes(tmp_path / "bad.png") == []


def test_progress_lines_when_not_on_a_terminal(capsys):
    from quizgen.cli.scan import _progress

    progress = _progress(every=0.0)
    for done in range(3):
        progress(done, 3)
    lines = capsys.readouterr().err.splitlines()
    assert lines and all(line.startswith("scanning: ") and "of 3 pages" in line for line in lines)


def test_a_damaged_scan_layout_is_one_line(exam, tmp_path):
    out, manifest = exam
    bad = json.loads(json.dumps(manifest))
    bad["scan"]["page_size"] = [1e6, 1e6]
    (tmp_path / "m.json").write_text(json.dumps(bad), encoding="utf-8")
    (tmp_path / "p.png").write_bytes(b"")
    done = subprocess.run([sys.executable, "-m", "quizgen", "scan", tmp_path / "p.png",
                           "--manifest", tmp_path / "m.json", "--out", tmp_path / "s"],
                          capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "scan.page_size" in done.stderr


# ---------------------------------------------------------------------------------------------
# Geometry the old alignment failed on


def _warped(image, top: float, height: float):
    """A page seen in a pure keystone (its top edge `top` times the bottom's) and foreshortened
    to `height` of its height, on a grey desk."""
    import cv2

    h, w = image.shape
    margin = 0.08
    W, H = int(w * (1 + 2 * margin)), int(h * (1 + 2 * margin))
    x0, y0 = w * margin, h * margin
    inset = w * (1 - top) / 2
    dst = np.float32([[x0 + inset, y0 + h * (1 - height)], [x0 + w - inset, y0 + h * (1 - height)],
                      [x0 + w, y0 + h], [x0, y0 + h]])
    matrix = cv2.getPerspectiveTransform(np.float32([[0, 0], [w, 0], [w, h], [0, h]]), dst)
    return cv2.warpPerspective(image, matrix, (W, H), borderValue=110)


@pytest.mark.parametrize("top, height, hidden", [(0.8, 1.0, None), (1.0, 0.95, None),
                                                 (0.85, 0.92, 0), (0.9, 1.0, 2)])
def test_keystone_foreshortening_and_a_hidden_mark(exam, tmp_path, top, height, hidden):
    """A keystone of 0.80, a page foreshortened to 0.95 (a tilt of 18°), and both with one corner
    mark covered: every page found, every box read as marked; a page aligned on three marks
    says so in the report."""
    import cv2

    from quizgen.scan import scan_class
    from quizgen.scan.synth import fill_page, plan_answers

    out, manifest = exam
    student = manifest["students"][2]
    rng = random.Random(int(top * 100 + height * 10))
    plan = plan_answers(student, rng)
    index = _paper_pages(manifest).index((student, 1))
    marked = plan[1]
    image = fill_page(_blank_pages(out)[index], DPI, marked, rng)
    if hidden is not None:
        x, y = manifest["scan"]["marks"][hidden]
        px = DPI / 25.4
        cv2.circle(image, (int(x * px), int(y * px)), int(7 * px), 255, -1)
    photo = _warped(image, top, height)
    cv2.imwrite(str(tmp_path / "page.jpg"), photo, [cv2.IMWRITE_JPEG_QUALITY, 80])
    result = scan_class([tmp_path / "page.jpg"], out / "manifest.json", tmp_path / "read")
    assert result.recognised == 1, result.unreadable
    got = result.answers[student["version"]]
    assert {m.column: got[m.column] for _, m in marked} == {m.column: m.expected for _, m in marked}
    report = (tmp_path / "read" / "scan-report.html").read_text(encoding="utf-8")
    assert ("aligned on 3 corner marks" in report) == (hidden is not None)


# ---------------------------------------------------------------------------------------------
# Light that differs across a page


@pytest.mark.parametrize("seed, first", [(5, 0), (6, 3)])
def test_a_cast_shadow_and_a_bright_exposure_send_no_clean_box_to_review(exam, tmp_path, seed,
                                                                         first):
    """Three papers of firm fills photographed each under the straight edge of a cast shadow
    and with the white paper clipping: the empty bubbles under the shadow, beside the edge or in
    the glare read as empty, so no box is left for review and none is read wrong."""
    from quizgen.scan import scan_class
    from quizgen.scan.synth import fill_page, photograph, plan_answers

    out, manifest = exam
    rng = random.Random(seed)
    blanks = _blank_pages(out)
    students = {s["version"] for s in manifest["students"][first:first + 3]}
    files, expected = [], {}
    for n, ((student, page), blank) in enumerate(zip(_paper_pages(manifest), blanks)):
        if student["version"] not in students:
            continue
        plan = plan_answers(student, rng) if page == 1 else plan
        for _, marks in plan.get(page, []):
            expected[(student["version"], marks.column)] = marks
        path = tmp_path / f"IMG_{n:04d}.jpg"
        path.write_bytes(photograph(fill_page(blank, DPI, plan.get(page, []), rng), rng,
                                    cast=1.0, exposure=0.12))
        files.append(path)
    result = scan_class(files, out / "manifest.json", tmp_path / "read", report=False)
    assert result.recognised == len(files), result.unreadable
    got = {key: result.answers[key[0]][key[1]] for key in expected}
    wrong = {k: (m.expected, got[k]) for k, m in expected.items()
             if got[k] not in ("needs_review", m.expected)}
    review = {k: m.expected for k, m in expected.items()
              if m.case == "clean" and got[k] == "needs_review"}
    assert not wrong
    assert sum(m.case == "clean" for m in expected.values()) >= 30 and not review, review
