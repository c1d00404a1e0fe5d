"""A pile scanned at class scale, and the page speaking for its student.

* Pages are read by a pool of processes (`--jobs`): the files written do not depend on how many,
  nor on the order the pages come in; a script calling `scan_class` without a ``__main__`` guard
  still runs (the workers do not run it again).
* Memory is flat in pages: the report is written part by part, and what the pages showed waits in
  a temporary file; twice the pages take no more memory, and the main process holds nothing per
  page while it reads them.
* A page whose QR code is blurred past reading is found by its corner marks and its code read
  again where they put it; a first page whose own code is lost is named by its cover's code
  when the pile agrees.
* The marks: a stain is told from a mark, a student's own ticks count once the paper shows them,
  an eraser's trace far lighter than the answer beside it is passed over, and a number's rules may
  leave one reading of a stroke.
"""

from __future__ import annotations

import html.parser
import json
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from conftest import bubbled_exam, exam_pages, scaled, scan_recipe

RECIPE = scan_recipe("Scale test", 41)
STUDENTS = 24
DPI = 150


@pytest.fixture(scope="module")
def exam(tmp_path_factory):
    out = tmp_path_factory.mktemp("scale") / "exam"
    manifest = bubbled_exam(out, RECIPE, STUDENTS)
    return out, manifest


@pytest.fixture(scope="module")
def blanks(exam):
    out, manifest = exam
    return {(s["version"], p): image for (s, p), image in exam_pages(out, manifest, DPI)}


def _pile(exam, blanks, folder: Path, students: int, seed: int = 1, styles=("solid",)):
    """The first `students` papers filled, scanned on a flatbed and shuffled: (files, plans)."""
    from quizgen.scan.synth import distort, fill_page, plan_answers

    _, manifest = exam
    folder.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    files, plans = [], {}
    for student in manifest["students"][:students]:
        plans[student["version"]] = plan = plan_answers(student, rng, styles)
        for page in range(1, student["sheet"]["pages"] + 1):
            image = fill_page(blanks[(student["version"], page)], DPI, plan.get(page, []), rng)
            path = folder / f"{student['version']}-{page}.jpg"
            path.write_bytes(distort(image, rng, upside_down=rng.random() < 0.2, jpeg=70))
            files.append(path)
    rng.shuffle(files)
    return files, plans


def _quizgen(*args, timeout: float = 300):
    return subprocess.run([sys.executable, "-m", "quizgen", *map(str, args)], capture_output=True,
                          text=True, timeout=scaled(timeout))


# ---------------------------------------------------------------------------------------------
# The pool, the report in parts, the order of the pile


class _Report(html.parser.HTMLParser):
    """The report's page headings in order, and whether its tables and rows close."""

    def __init__(self):
        super().__init__()
        self.headings, self.open, self.bad = [], [], []

    def handle_starttag(self, tag, attrs):
        if tag == "h2" and dict(attrs).get("id"):
            self.headings.append(dict(attrs)["id"])
        if tag in ("table", "tr", "td", "h2", "html", "body"):
            self.open.append(tag)

    def handle_endtag(self, tag):
        if tag in ("table", "tr", "td", "h2", "html", "body"):
            if not self.open or self.open.pop() != tag:
                self.bad.append(tag)


def test_any_number_of_jobs_writes_the_same_files(exam, blanks, tmp_path):
    """`--jobs 1` and `--jobs 2` write byte-identical answers.csv, review.csv and report, from a
    shuffled pile with a page that has no code; the report lists the pages in order."""
    out, manifest = exam
    files, _ = _pile(exam, blanks, tmp_path / "pile", 3)
    stray = tmp_path / "pile" / "stray.png"
    import cv2

    cv2.imwrite(str(stray), np.full((1700, 1200), 245, np.uint8))   # no code, no marks
    files.insert(len(files) // 2, stray)
    assert len(files) >= 7                            # enough pages for two workers
    written = {}
    for jobs in (1, 2):
        done = _quizgen("scan", *files, "--manifest", out / "manifest.json", "--out",
                        tmp_path / f"jobs{jobs}", "--jobs", jobs)
        assert done.returncode == 0, done.stderr
        assert "stray.png: no QR code" in done.stderr
        written[jobs] = {name: (tmp_path / f"jobs{jobs}" / name).read_bytes()
                         for name in ("answers.csv", "review.csv", "scan-report.html")}
    assert written[1] == written[2]
    report = _Report()
    report.feed(written[2]["scan-report.html"].decode("utf-8"))
    assert report.bad == [] and report.open == []
    recognised = sorted((s["version"], p) for s in manifest["students"][:3]
                        for p in range(1, s["sheet"]["pages"] + 1))
    assert report.headings == [f"{v}-{p}" for v, p in recognised]


def test_jobs_out_of_range_is_one_line(exam, tmp_path):
    out, _ = exam
    done = _quizgen("scan", out / "exam.pdf", "--manifest", out / "manifest.json", "--out",
                    tmp_path / "s", "--jobs", 0, timeout=60)
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1 and "jobs" in done.stderr


def test_a_script_without_a_main_guard_scans_on_every_core(exam, blanks, tmp_path):
    """Spawned workers run the parent's script again unless told not to: here it would start
    workers that start workers. The scan must finish, in pool mode, with every page read."""
    out, _ = exam
    files, _ = _pile(exam, blanks, tmp_path / "pile", 3)
    script = tmp_path / "mine.py"
    script.write_text(
        "from quizgen.scan import scan_class\n"
        f"files = {[str(f) for f in files]!r}\n"
        f"result = scan_class(files, {str(out / 'manifest.json')!r}, {str(tmp_path / 'read')!r},"
        " jobs=2, report=False)\n"
        "print(result.recognised, len(files))\n", encoding="utf-8")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=scaled(180), cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    recognised, pages = map(int, done.stdout.split())
    assert recognised == pages >= 6


# ---------------------------------------------------------------------------------------------
# Memory flat in pages

#: A scan through the command line in a fresh interpreter, reporting its peak resident memory
#: (VmHWM, which starts afresh at exec) and the largest peak of the workers it started (each a
#: fresh interpreter too); the tree's peak is at most the first plus the workers' count × the
#: second.
_PEAK = """
import resource, sys
from typer.testing import CliRunner
from quizgen.cli import app
result = CliRunner().invoke(app, sys.argv[1:])
assert result.exit_code == 0, result.output
with open("/proc/self/status") as fh:
    own = next(int(line.split()[1]) for line in fh if line.startswith("VmHWM:")) // 1024
print(own, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)
"""


@pytest.mark.slow
def test_twice_the_pages_take_no_more_memory(exam, blanks, tmp_path):
    """The same manifest, half the class's pages and all of them, on two workers: the process
    tree's peak grows by at most a tenth."""
    out, manifest = exam
    files, _ = _pile(exam, blanks, tmp_path / "pile", STUDENTS)
    half = {s["version"] for s in manifest["students"][:STUDENTS // 2]}
    peaks = []
    for pile in ([f for f in files if f.name.split("-")[0] in half], files):
        done = subprocess.run([sys.executable, "-c", _PEAK, "scan", *map(str, pile),
                               "--manifest", str(out / "manifest.json"), "--out",
                               str(tmp_path / f"read{len(pile)}"), "--jobs", "2"],
                              capture_output=True, text=True, timeout=scaled(600))
        assert done.returncode == 0, done.stderr[-2000:]
        own, worker = map(int, done.stdout.split()[-2:])
        peaks.append(own + 2 * worker)
    assert len(files) >= 40
    assert peaks[1] <= 1.1 * peaks[0], peaks


#: scan_class in a fresh interpreter, its Python memory traced: at each page (the progress
#: callback), what the main process holds. Printed: the pages, and the least held over a tenth of
#: them from half way (once the first papers are judged and the phrasebook is loaded), and over
#: the last tenth (a paper being judged holds its pages for a moment, a worker's page waits to be
#: taken).
# Each page's report part is rendered by jinja2, whose contexts form reference cycles: garbage
# the cyclic collector frees when it next runs, not memory the scan holds, so it is collected
# before each reading.
_HELD = """
import gc, json, sys, tracemalloc
from quizgen.scan import scan_class
files, manifest, out = json.loads(sys.argv[1])
held = []
tracemalloc.start()
scan_class(files, manifest, out, jobs=2, progress=lambda done, total: held.append(
    gc.collect() * 0 + tracemalloc.get_traced_memory()[0]))
n = len(held)
print(n, min(held[n // 2:n // 2 + n // 10]), min(held[-(n // 10):]))
"""


def _class_of(exam, tmp_path, copies: int) -> tuple[Path, int]:
    """The exam's manifest with each paper there `copies` times (a version code of its own
    each): a larger class without printing it; and the bytes of one paper."""
    from quizgen.manifest import Manifest, manifest_json

    _, manifest = exam
    papers = [{**s, "version": f"{s['version']}{k}"} for k in range(copies)
              for s in manifest["students"]]
    path = tmp_path / f"class-{copies}.json"
    path.write_text(manifest_json(Manifest.from_dict({**manifest, "students": papers})),
                    encoding="utf-8")
    return path, len(json.dumps(manifest["students"][0]))


def test_the_class_is_read_in_one_pass_holding_a_line_per_student(exam, tmp_path):
    """What `quizgen scan` takes from the manifest before a page is read (the papers checked
    against the layout, their grids to a temporary file, who wrote each kept) costs the main
    process about the same peak for 768 students as for 192 (the reading's buffers, a few MB),
    growing and holding well under a tenth of a paper per student: the papers pass through one
    at a time and none is kept."""
    import tracemalloc

    from quizgen.manifest import load_manifest
    from quizgen.scan.papers import Papers

    figures = {}
    for copies in (8, 32):
        path, paper_bytes = _class_of(exam, tmp_path, copies)
        tracemalloc.start()
        papers = Papers()
        manifest = load_manifest(path, scan=True, each=papers.add)
        papers.ready()
        held, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        assert len(papers.students) == len(manifest.students) == copies * STUDENTS
        assert papers.grids(papers.students[-1]["version"])       # every paper's grids kept
        papers.close()
        figures[copies] = held, peak
    more = 24 * STUDENTS                                         # 576 more students
    assert figures[32][1] - figures[8][1] < more * paper_bytes / 10, (figures, paper_bytes)
    assert figures[32][0] - figures[8][0] < more * paper_bytes / 10, (figures, paper_bytes)


@pytest.mark.slow
def test_the_main_process_holds_nothing_per_page(exam, blanks, tmp_path):
    """While the workers read, the main process keeps each page, its readings and its report part
    in temporary files: from half way to the end of the pile its memory grows by less than 3 KB a
    page (a page's readings and crops are tens of KB)."""
    out, _ = exam
    files, _ = _pile(exam, blanks, tmp_path / "pile", STUDENTS)
    args = json.dumps([[str(f) for f in files], str(out / "manifest.json"), str(tmp_path / "r")])
    done = subprocess.run([sys.executable, "-c", _HELD, args], capture_output=True, text=True,
                          timeout=scaled(600))
    assert done.returncode == 0, done.stderr[-2000:]
    pages, early, late = map(int, done.stdout.split())
    assert pages == len(files) >= 40
    assert (late - early) / (0.4 * pages) < 3000, (early, late)      # bytes per page


# ---------------------------------------------------------------------------------------------
# Pages found without their code


def _blurred(image: np.ndarray, length: int, angle: float) -> np.ndarray:
    """A shake of the camera: the image smeared along a line `length` px long."""
    import cv2

    kernel = np.zeros((length, length), np.float32)
    kernel[length // 2, :] = 1.0
    turn = cv2.getRotationMatrix2D(((length - 1) / 2, (length - 1) / 2), angle, 1.0)
    kernel = cv2.warpAffine(kernel, turn, (length, length))
    return cv2.filter2D(image, -1, kernel / kernel.sum())


def test_a_shaken_phone_photo_is_found_by_its_marks(exam, blanks):
    """A photo blurred by a shake: no QR code reads in the whole image, but the corner marks give
    where it lies, and there, the blur taken out, it reads; the page is straightened and named."""
    import cv2

    from quizgen.scan.pages import Page, Scan, _find_code, locate
    from quizgen.scan.synth import photograph

    out, manifest = exam
    student = manifest["students"][1]
    rng = random.Random(3)
    photo = photograph(blanks[(student["version"], 2)], rng, size=(1200, 1650))
    gray = cv2.imdecode(np.frombuffer(photo, np.uint8), cv2.IMREAD_GRAYSCALE)
    shaken = _blurred(gray, 9, 20.0)
    assert _find_code(shaken) is None                 # the first look finds nothing
    found = locate(Scan("IMG_1.jpg", shaken), manifest["scan"])
    assert isinstance(found, Page), found.reason
    assert (found.version, found.page) == (student["version"], 2)


def _without_page_code(image: np.ndarray, layout) -> np.ndarray:
    """The page's own code painted over (its cover's code, on a first page, left)."""
    out = image.copy()
    px = DPI / 25.4
    (qx, qy), size = layout["qr"], layout["qr_size"]

    def span(start: float, end: float) -> slice:
        return slice(int(start * px), int(end * px))

    out[span(qy - 1, qy + size + 1), span(qx - 1, qx + size + 1)] = 255
    # a dark square where the code was, as a smudged code looks: ink, but nothing to read
    out[span(qy + 2, qy + size - 2), span(qx + 2, qx + size - 2)] = 40
    return out


def test_a_page_with_no_code_at_all_is_still_refused(exam, blanks):
    """Corner marks and grids but the code scraped off: found by its marks, never named."""
    from quizgen.scan.pages import Scan, Unreadable, locate

    out, manifest = exam
    layout = manifest["scan"]
    image = _without_page_code(blanks[(manifest["students"][0]["version"], 2)], layout)
    found = locate(Scan("p.png", image), layout)
    assert isinstance(found, Unreadable) and found.reason.key == "no_code"
    assert found.placed is not None and found.cover is None


def test_a_first_page_is_named_by_its_cover_code_when_the_pile_agrees(exam, blanks, tmp_path):
    """Page 1 with its page code smudged: its cover's code names the version; with the paper's
    other pages in the pile it is read (and said so), alone it is not."""
    from quizgen.scan import scan_class
    from quizgen.scan.synth import fill_page, plan_answers

    out, manifest = exam
    layout = manifest["scan"]
    student = manifest["students"][4]
    version = student["version"]
    plan = plan_answers(student, random.Random(8))
    folder = tmp_path / "pile"
    folder.mkdir()
    import cv2

    files = []
    for page in range(1, student["sheet"]["pages"] + 1):
        image = fill_page(blanks[(version, page)], DPI, plan.get(page, []), random.Random(page))
        if page == 1:
            image = _without_page_code(image, layout)
        files.append(folder / f"p{page}.png")
        cv2.imwrite(str(files[-1]), image)
    result = scan_class(files, out / "manifest.json", tmp_path / "all", report=True)
    assert result.recognised == len(files) and result.unreadable == []
    assert len(result.named) == 1 and "p1.png" in result.named[0]
    first = [marks for _, marks in plan.get(1, []) if marks.case == "clean"]
    assert first and all(result.answers[version][m.column] == m.expected for m in first)
    assert "named by the cover" in (tmp_path / "all" / "scan-report.html").read_text("utf-8")
    alone = scan_class(files[:1], out / "manifest.json", tmp_path / "alone", report=False)
    assert alone.recognised == 0 and alone.named == [] and len(alone.unreadable) == 1


# ---------------------------------------------------------------------------------------------
# What a mark says: stains, a student's own ticks, erasures, a number's rules


def _bubbles(mean, low=None, high=None, covered=None, around=None):
    from quizgen.scan.read import Bubbles

    n = len(mean)
    f = lambda v, d: np.float32(v if v is not None else [d] * n)  # noqa: E731
    return Bubbles(np.float32(mean), f(low, 0.0), f(high, 0.0), f(covered, 0.0),
                   np.zeros((n, 2), np.float32), f(around, 0.0))


def _number_box(places=3):
    rows = [f"p{p}" for p in range(places - 1, -1, -1)]
    bubbles = [[5.0 * d, 4.6 * r, row, str(d)] for r, row in enumerate(rows) for d in range(10)]
    return {"column": "Q1.n", "kind": "number", "page": 1, "places": places, "decimals": 0,
            "bubbles": bubbles}


def _limits_box():
    names = ["registers", "shared_memory", "warps", "blocks"]
    return {"column": "Q1.limiter", "kind": "limits", "page": 1,
            "bubbles": [[30.0 * i, 0.0, "opt", n] for i, n in enumerate(names)]}


def test_a_stain_is_told_from_a_mark_by_the_paper_around_it():
    from quizgen.scan.read import bubble_states

    # an even shade as dark outside the ring as in it: a stain; a mark drawn in it: not
    states = bubble_states(_bubbles([0.12, 0.12, 0.12], high=[0.2, 0.2, 0.6],
                                    around=[0.1, 0.0, 0.1]), blank=0.0)
    assert states == ["stain", "faint", "mark"]


def test_a_light_stain_is_passed_over_and_a_dark_one_alone_is_doubtful():
    from quizgen.scan.read import read_box, settle

    box = _number_box()
    states = ["empty"] * 30
    states[3] = states[15] = states[27] = "filled"             # 3 5 7
    mean, high = np.zeros(30, np.float32), np.zeros(30, np.float32)
    mean[[3, 15, 27]] = 0.6
    states[8], mean[8] = "stain", 0.1                          # a light stain in the ×100 row
    states[22], mean[22] = "stain", 0.1                        # ... and beside the ×1 answer
    reading = read_box(box, settle(box, states, mean, high, None))
    assert (reading.status, reading.text) == ("read", "357")
    wide = _number_box(4)                                      # a stain alone in a leading row
    states = ["empty"] * 40
    states[13] = states[25] = states[37] = "filled"
    mean = np.zeros(40, np.float32)
    mean[[13, 25, 37]] = 0.6
    states[4], mean[4] = "stain", 0.3                          # as dark as a light pencil fill
    reading = read_box(wide, settle(wide, states, mean, np.zeros(40, np.float32), None))
    assert reading.status == "review" and "stain" in str(reading.reason) and "×1000: 4" in str(
        reading.reason)


def test_a_students_own_ticks_count_once_the_paper_shows_them():
    """Three boxes each with one tick alone in its row: the paper vouches that the student
    ticks; a fourth tick as dark then reads, in a row of limits too. With two, it is doubtful."""
    from quizgen.scan.read import Measured, read_paper

    def measured(box, ticks, fills=()):
        states = ["empty"] * len(box["bubbles"])
        mean = np.zeros(len(states), np.float32)
        for i in ticks:
            states[i], mean[i] = "mark", 0.22
        for i in fills:
            states[i], mean[i] = "filled", 0.6
        return Measured(states, mean, np.where(mean > 0, 0.7, 0.0).astype(np.float32),
                        np.zeros((len(states), 2), np.float32), np.zeros_like(mean),
                        np.zeros_like(mean))

    single = {"column": "Q{}.yn", "kind": "yes_no", "page": 1,
              "bubbles": [[0.0, 0.0, "opt", "yes"], [20.0, 0.0, "opt", "no"]]}
    yes_no = [dict(single, column=f"Q{n}.yn") for n in range(3)]
    limits = _limits_box()
    boxes = [*yes_no, limits]
    paper = [measured(b, [n % 2]) for n, b in enumerate(yes_no)] + [measured(limits, [1], [2])]
    readings = read_paper([(boxes, paper)])[0]
    assert [r.text for r in readings] == ["yes", "no", "yes", "shared_memory, warps"]
    readings = read_paper([(boxes[1:], paper[1:])])[0]                 # two ticks: not enough
    assert [r.status for r in readings] == ["review"] * 3
    assert "shared_memory" in str(readings[-1].reason)


def test_a_students_own_light_pencil_counts_once_the_paper_shows_it():
    """Five yes/no boxes, each with one even, light trace alone in its row (a pencil pressed
    lightly, read as faint on its own): the paper shows the student marks that way, and each is
    read. With four such traces, or a trace patchy like an eraser's, running past the ring like a
    stain, or far lighter than the student's marks, or on the paper of a student who fills
    firmly (at most half as dark as their fills: erasures), the box stays in review."""
    from quizgen.scan.read import Measured, read_paper

    def measured(pick, mean=0.14, low=0.12, around=0.0):
        states = ["empty", "empty"]
        states[pick] = "faint"
        values = np.zeros(2, np.float32)
        values[pick] = mean
        lows = np.zeros(2, np.float32)
        lows[pick] = low
        arounds = np.zeros(2, np.float32)
        arounds[pick] = around
        return Measured(states, values, np.where(values > 0, 0.22, 0.0).astype(np.float32),
                        np.zeros((2, 2), np.float32), lows, arounds)

    single = {"column": "Q{}.yn", "kind": "yes_no", "page": 1,
              "bubbles": [[0.0, 0.0, "opt", "yes"], [20.0, 0.0, "opt", "no"]]}
    boxes = [dict(single, column=f"Q{n}.yn") for n in range(8)]
    paper = [measured(n % 2) for n in range(5)]
    odd = [measured(0, low=0.04), measured(1, around=0.1), measured(0, mean=0.06, low=0.05)]
    readings = read_paper([(boxes, paper + odd)])[0]
    assert [r.text for r in readings[:5]] == ["yes", "no", "yes", "no", "yes"]
    assert [r.status for r in readings[5:]] == ["review"] * 3
    readings = read_paper([(boxes[:4], paper[:4])])[0]                  # four: not enough
    assert [r.status for r in readings] == ["review"] * 4
    firm = measured(0, mean=0.7, low=0.6)                   # a student who fills firmly: the
    firm.states[0] = "filled"                               # even traces are their erasures
    readings = read_paper([(boxes[:6], paper + [firm])])[0]
    assert [r.status for r in readings] == ["review"] * 5 + ["read"]


def test_an_erasure_a_third_as_dark_as_the_answer_is_passed_over():
    """Up to a third as dark as the fill beside it, a trace is an eraser's; from there to half as
    dark it may as well be a second answer pressed lightly, and the box is doubtful."""
    from quizgen.scan.read import read_box, settle

    box = _number_box(2)
    for trace, status in ((0.2, "read"), (0.26, "review"), (0.32, "review")):   # fill: 0.6
        states = ["empty"] * 20
        states[4] = states[17] = "filled"                       # 4 7
        states[6] = "faint"                                     # a trace in the ×10 row
        mean = np.zeros(20, np.float32)
        mean[[4, 17]], mean[6] = 0.6, trace
        reading = read_box(box, settle(box, states, mean, np.zeros(20, np.float32), None))
        assert reading.status == status, trace
        assert reading.text == ("47" if status == "read" else "needs_review")


def test_a_speck_beside_an_answer_is_passed_over_but_a_tick_of_the_pen_is_not():
    from quizgen.scan.read import read_box, settle

    box = _number_box(2)
    for high, status in ((0.35, "read"), (0.7, "review")):     # the fill's strokes: 0.8
        states = ["empty"] * 20
        states[4] = states[17] = "filled"
        states[6] = "mark"
        mean = np.zeros(20, np.float32)
        mean[[4, 17]], mean[6] = 0.7, 0.07
        strokes = np.zeros(20, np.float32)
        strokes[[4, 17]], strokes[6] = 0.8, high
        reading = read_box(box, settle(box, states, mean, strokes, None))
        assert reading.status == status, high
        # as dark as the pen, but a dot: its ink reaches 0.6 mm, where a tick's runs across
        for span, status in ((0.6, "read"), (1.8, "review")):
            reach = np.zeros(20, np.float32)
            reach[[4, 17]], reach[6] = 2.1, span
            reading = read_box(box, settle(box, states, mean, strokes, None, span=reach))
            assert reading.status == (status if high > 0.6 else "read"), (high, span)
    limits = _limits_box()                                      # never in a row of limits
    states = ["filled", "mark", "empty", "empty"]
    reading = read_box(limits, settle(limits, states, np.float32([0.7, 0.07, 0, 0]),
                                      np.float32([0.8, 0.35, 0, 0]), None))
    assert reading.status == "review"


@pytest.mark.parametrize("strokes, filled, text", [
    ([0], [14, 27], "47"),            # a stroke on the leading zero: 047 either way
    ([14], [7, 27], "747"),           # between two digits: the number cannot do without it
    ([5], [14, 27], "needs_review"),  # on a leading 5: 547 or 47, both numbers
    ([14], [4, 17, 27], "needs_review"),   # beside a filled bubble in its row
    ([27], [], "needs_review"),       # alone in the box: 7, or no answer and a speck of dust
    ([5], [], "needs_review"),        # on ×100 alone: no number, and never read as no answer
])
def test_a_numbers_rules_may_leave_one_reading_of_a_stroke(strokes, filled, text):
    from quizgen.scan.read import read_box

    box = _number_box()
    states = ["empty"] * 30
    for i in filled:
        states[i] = "filled"
    for i in strokes:
        states[i] = "mark"
    assert read_box(box, states).text == text


def test_ticks_on_a_whole_paper_read_and_nothing_is_read_wrong(exam, blanks, tmp_path):
    """A student who ticks every answer: the paper shows it, so most of their boxes read; none
    reads wrong."""
    from quizgen.scan import scan_class

    out, manifest = exam
    files, plans = _pile(exam, blanks, tmp_path / "pile", 3, seed=5, styles=("tick",))
    result = scan_class(files, out / "manifest.json", tmp_path / "read", report=False)
    clear = read = 0
    for version, plan in plans.items():
        for marks in (m for page in plan.values() for _, m in page):
            got = result.answers[version][marks.column]
            assert got in ("needs_review", marks.expected), (marks, got)
            if marks.case == "clean":
                clear += 1
                read += got == marks.expected
    assert clear >= 20 and read >= 0.8 * clear, (read, clear)


def test_a_stain_over_an_option_of_limits_sends_the_box_to_review():
    """A stain over one option beside filled ones may hide a light mark (on a photo, a pencil's
    shade runs past the ring): the row of limits is not read without it, whatever its darkness."""
    from quizgen.scan.read import read_box, settle

    box = _limits_box()
    states = ["filled", "stain", "empty", "filled", "empty"][:len(box["bubbles"])]
    mean = np.float32([0.6, 0.1, 0.0, 0.6, 0.0][:len(states)])
    settled = settle(box, states, mean, np.float32([0.8, 0.2, 0, 0.8, 0][:len(states)]), None)
    reading = read_box(box, settled)
    assert reading.status == "review" and box["bubbles"][1][3] in str(reading.reason)
    assert read_box(box, ["filled", "empty", "empty", "filled", "empty"][:len(states)]).status \
        == "read"
