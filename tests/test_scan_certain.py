"""A box read with certainty is what the student meant: the ways a box was once read wrong without
review, each drawn on a page and photographed or scanned.

* The corner marks: a first page's cover code sits near a corner mark, and a clump of its modules
  is as square and solid as a mark; taken for it, the page was straightened askew (4 mm in the
  middle) and a grid of digits matched one row off ("62" read as "6").
* Where a bubble is: on a page that is not flat a row of options bends by a millimetre or more; a
  grid placed as one rigid piece reads the option at the end of the row off its ring, and a tick
  there read as empty beside the firm marks on the other options. Every ring is found where it is
  (each box's first and last bubble within 0.8 mm of where a twin photograph shows it).
* An option has nothing printed in it: it is lighter than the digits' bubbles around it, and a
  weak mark on it, judged against their level, looked empty.
* The paper around a ring: an eraser's trace between two over-the-edge fills, one above it and
  one below, has their overflow on both sides; taken for a stain's, the trace was passed over and
  the number read without it.
"""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from conftest import scan_recipe
from quizgen.export.sheet import build_exam
from quizgen.generator import generate_one
from quizgen.recipes import parse_exam_recipe

RECIPE = scan_recipe("Certain test", 9, {"cell": "OCC-9", "level": 2, "space": 0.3})
DPI = 200


@pytest.fixture(scope="module")
def exam(tmp_path_factory):
    import pypdfium2 as pdfium

    out = tmp_path_factory.mktemp("certain") / "exam"
    build_exam(parse_exam_recipe(RECIPE), None, 3, out, generate=generate_one, bubbles=True)
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    document = pdfium.PdfDocument(str(out / "exam.pdf"))
    images = []
    for page in document:
        array = page.render(scale=DPI / 72, grayscale=True).to_numpy()
        images.append(array[..., 0] if array.ndim == 3 else array)
    pages = [(s, p) for s in manifest["students"] for p in range(1, s["sheet"]["pages"] + 1)]
    return manifest, list(zip(pages, images))


def _page_with(exam, kind: str, **extra):
    """The first page holding a box of `kind` (with `extra` fields), its image and that box."""
    manifest, pages = exam
    for (student, page), image in pages:
        for box in student["sheet"]["boxes"]:
            if (box["page"] == page and box["kind"] == kind
                    and all(box.get(k) == v for k, v in extra.items())):
                return student, page, image, box
    raise AssertionError(f"no {kind} box")


def _fill(image, box, marks: dict[int, str], rng):
    from quizgen.scan.synth import draw_mark

    px = DPI / 25.4
    out = image.copy()
    for i, style in marks.items():
        x, y = box["bubbles"][i][0] * px, box["bubbles"][i][1] * px
        draw_mark(out, x, y, box["r"] * px, style, rng, px)
    return out


def _found(manifest, student, page, data: bytes):
    import cv2

    from quizgen.scan.pages import Scan, locate

    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_GRAYSCALE)
    found = locate(Scan("photo.jpg", image), manifest["scan"])
    assert found.version == student["version"] and found.page == page
    return found


def _read(manifest, student, page, found, box):
    from quizgen.scan.read import measure_page, read_paper

    boxes = [b for b in student["sheet"]["boxes"] if b["page"] == page and b["bubbles"]]
    return read_paper([(boxes, measure_page(found, manifest["scan"], boxes))])[0][
        boxes.index(box)]


@pytest.mark.parametrize("seed", range(6))
def test_a_clump_of_the_cover_codes_modules_is_never_taken_for_a_corner_mark(exam, seed,
                                                                             monkeypatch):
    """A first page, as rendered and in five phone photos: no mark candidate lies inside the
    cover's code (the version alone, printed near the top right mark), and the page is
    straightened by its four marks."""
    import cv2
    import zxingcpp

    from quizgen.scan import marks as marks_module
    from quizgen.scan.synth import photograph

    manifest, pages = exam
    (student, page), image = pages[0]
    assert page == 1
    gray = image if seed == 0 else cv2.imdecode(
        np.frombuffer(photograph(image, random.Random(seed)), np.uint8), cv2.IMREAD_GRAYSCALE)
    covers = []
    for code in zxingcpp.read_barcodes(gray, formats=zxingcpp.BarcodeFormat.QRCode):
        if code.text.strip() == student["version"]:
            p = code.position
            covers.append(np.float32([[p.top_left.x, p.top_left.y], [p.top_right.x, p.top_right.y],
                                      [p.bottom_right.x, p.bottom_right.y],
                                      [p.bottom_left.x, p.bottom_left.y]]))
    assert covers, "the cover's code is on the first page"
    seen = []
    real = marks_module.mark_candidates
    monkeypatch.setattr(marks_module, "mark_candidates",
                        lambda *a, **k: seen.append(real(*a, **k)) or seen[-1])
    from quizgen.scan.pages import Scan, locate

    found = locate(Scan("page.png", gray), manifest["scan"])
    assert found.page == 1 and found.marks == 4
    inside = [tuple(point) for point in seen[0] for quad in covers
              if cv2.pointPolygonTest(quad.reshape(-1, 1, 2),
                                      (float(point[0]), float(point[1])), False) >= 0]
    assert not inside


def test_a_weak_mark_on_an_option_is_judged_against_the_paper_not_the_digits_around_it():
    """Options with nothing printed in them below a grid of digits whose print makes their
    empty bubbles 0.04 darker than the paper: an option 0.07 above the paper is a trace (against
    the digits' level it would be 0.03 above: empty), an empty option is empty."""
    from quizgen.scan.levels import local_levels
    from quizgen.scan.read import Bubbles, bubble_states

    xy = np.float32([[30 * d, 28 * r] for r in range(4) for d in range(10)])
    digits = Bubbles(np.full(40, 0.04, np.float32), np.full(40, 0.03, np.float32),
                     np.full(40, 0.2, np.float32), np.zeros(40, np.float32), xy,
                     np.zeros(40, np.float32), np.zeros((40, 2), np.float32))
    mean = np.float32([0.07, 0.0, 0.0, 0.7, 0.0])
    options = Bubbles(mean, mean - 0.01, mean + 0.1, (mean > 0.5).astype(np.float32),
                      np.float32([[60 * i, 140] for i in range(5)]), np.zeros(5, np.float32),
                      np.zeros((5, 2), np.float32))
    printed = [[str(d) for _ in range(4) for d in range(10)], [None] * 5]
    levels = local_levels([digits, options], printed, radius_px=10.0)
    states = bubble_states(options, *levels[1][:2])
    assert states == ["faint", "empty", "empty", "filled", "empty"]
    assert set(bubble_states(digits, *levels[0][:2])) == {"empty"}


@pytest.mark.parametrize("seed", range(4))
def test_an_erased_trace_between_two_over_the_edge_fills_is_doubtful(exam, seed):
    """A share of a number: its last decimal row holds an eraser's trace between an
    over-the-edge fill in the row above and one on percent below (the same column): the box
    goes to review, never read without that row, whether scanned or photographed."""
    from quizgen.scan.synth import distort, photograph

    manifest, _ = exam
    student, page, image, box = _page_with(exam, "number", selector=True)
    index = {(b[2], b[3]): i for i, b in enumerate(box["bubbles"])}
    last = -box["decimals"]
    marks = {index[("p0", "5")]: "over_edge", index[(f"p{last + 1}", "0")]: "over_edge",
             index[(f"p{last}", "0")]: "erased", index[("as", "%")]: "over_edge"}
    for power in range(-1, last + 1, -1):
        marks.setdefault(index[(f"p{power}", "0")], "over_edge")
    rng = random.Random(seed)
    filled = _fill(image, box, marks, rng)
    data = (photograph(filled, rng, cast=0.0) if seed % 2
            else distort(filled, rng, jpeg=60, max_angle=1.5))
    reading = _read(manifest, student, page, _found(manifest, student, page, data), box)
    assert reading.status == "review", reading.text
