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

import random

import numpy as np
import pytest

from conftest import bubbled_exam, exam_pages, marked, scan_recipe

RECIPE = scan_recipe("Certain test", 9, {"cell": "OCC-9", "level": 2, "space": 0.3})
DPI = 200


@pytest.fixture(scope="module")
def exam(tmp_path_factory):
    out = tmp_path_factory.mktemp("certain") / "exam"
    manifest = bubbled_exam(out, RECIPE, 3)
    return manifest, exam_pages(out, manifest, DPI)


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
    return marked(image, box, marks, rng, DPI)


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


def _twins(image, boxes, seed: int, marks: dict, **photo):
    """The page filled with `marks` ({box index: {bubble: style}}) and photographed, and a twin
    photograph (the same camera, light and lens) of a white page with a dot at each box's first
    and last bubble."""
    import cv2

    from quizgen.scan.synth import photograph

    rng = random.Random(seed)
    filled = image
    for k, box_marks in marks.items():
        filled = _fill(filled, boxes[k], box_marks, rng)
    dots = np.full_like(image, 255)
    px = DPI / 25.4
    for box in boxes:
        for i in (0, len(box["bubbles"]) - 1):
            x, y = box["bubbles"][i][0] * px, box["bubbles"][i][1] * px
            cv2.circle(dots, (int(round(x * 16)), int(round(y * 16))), int(0.7 * px * 16), 0, -1,
                       cv2.LINE_AA, 4)
    state = rng.getstate()
    twin = random.Random()
    twin.setstate(state)
    return photograph(filled, rng, **photo), photograph(dots, twin, **photo)


def _dots(found, data: bytes) -> np.ndarray:
    """The dots of a twin photograph on the straightened page (px)."""
    import cv2

    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_GRAYSCALE)
    h, w = found.image.shape
    straight = cv2.warpPerspective(image, found.to_scan, (w, h),
                                   flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                   borderMode=cv2.BORDER_CONSTANT, borderValue=255)
    paper = cv2.morphologyEx(straight, cv2.MORPH_CLOSE, np.ones((15, 15), np.uint8))
    ink = (paper.astype(np.int16) - straight).clip(0, 255).astype(np.uint8)
    _, blobs = cv2.threshold(ink, 40, 255, cv2.THRESH_BINARY)
    _, _, stats, centres = cv2.connectedComponentsWithStats(blobs)
    return np.float32([c for c, s in zip(centres[1:], stats[1:]) if s[4] >= 4])


@pytest.mark.parametrize("seed", range(3))
def test_every_ring_is_found_on_a_photo_of_a_page_that_is_not_flat(exam, seed):
    """A page bent by 1.2% of its height across it, photographed tilted with a barrel lens, its
    options ticked, filled and crossed: each box's first and last bubble is read within 0.5 mm
    of its ring, or 1 mm where a mark hides the ring (a disc read 1 mm or more away leaves most
    of a tick outside it: a rigid grid was 1.2 to 3 mm off)."""
    from quizgen.scan.pages import PX_PER_MM
    from quizgen.scan.read import INNER, darkness_map
    from quizgen.scan.grids import place

    manifest, _ = exam
    student, page, image, limits = _page_with(exam, "limits")
    boxes = [b for b in student["sheet"]["boxes"] if b["page"] == page and b["bubbles"]]
    marks = {0: "tick", 2: "solid", 4: "cross"}
    photo, twin = _twins(image, boxes, seed, {boxes.index(limits): marks},
                         curl=0.012, barrel=0.05, cast=0.0)
    found = _found(manifest, student, page, photo)
    dots = _dots(found, twin)
    centres = place(darkness_map(found, manifest["scan"]), manifest["scan"], boxes, INNER)
    for box, where in zip(boxes, centres):
        for i in (0, len(box["bubbles"]) - 1):
            nominal = np.float32(box["bubbles"][i][:2]) * PX_PER_MM
            dot = dots[np.argmin(np.hypot(*(dots - nominal).T))]
            assert np.hypot(*(dot - nominal)) < 8 * PX_PER_MM
            off = float(np.hypot(*(where[i] - dot))) / PX_PER_MM
            assert off <= (1.0 if box is limits and i in marks else 0.5), (box["column"], i, off)


def _hurried_tick(image, box, i: int, rng):
    """A ballpoint's hurried tick on bubble `i`: larger than the ring, its corner below it, so
    the disc that is read holds only part of its long stroke."""
    import cv2

    px = DPI / 25.4
    x, y, r = box["bubbles"][i][0] * px, box["bubbles"][i][1] * px, box["r"] * px
    s = r * rng.uniform(1.2, 1.4)
    points = np.float32([(x - 0.6 * s, y - 0.1 * s), (x - 0.1 * s, y + 0.55 * s),
                         (x + 0.7 * s, y - 0.8 * s)])
    out = image.copy()
    cv2.polylines(out, [np.int32(np.round(points * 16))], False, rng.randint(50, 80),
                  max(1, int(round(0.3 * px))), cv2.LINE_AA, 4)
    return out


@pytest.mark.parametrize("seed", range(4))
def test_a_tick_at_the_end_of_a_bent_row_of_options_is_never_dropped(exam, seed):
    """Firm fills on two options of limits and a hurried tick on the first or the last, on a
    page bent across and photographed: never read as the two options alone (the tick is read as
    an answer, or the box goes to review naming it)."""
    manifest, _ = exam
    student, page, image, box = _page_with(exam, "limits")
    names = [b[3] for b in box["bubbles"]]
    end = 0 if seed % 2 else len(names) - 1
    rng = random.Random(seed)
    filled = _hurried_tick(_fill(image, box, {1: "solid", 3: "solid"}, rng), box, end, rng)
    from quizgen.scan.synth import photograph

    found = _found(manifest, student, page,
                   photograph(filled, rng, curl=0.012, barrel=0.05, cast=0.0))
    reading = _read(manifest, student, page, found, box)
    if reading.status == "read":
        assert names[end] in reading.text.split(", "), reading.text
    else:
        assert names[end] in str(reading.reason)


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


def _speck(image, box, i: int, rng):
    """A speck of dust on bubble `i`: a dot 0.3 to 0.7 mm across, as dark as a pen, somewhere
    inside the ring."""
    import cv2

    px = DPI / 25.4
    x, y, r = box["bubbles"][i][0] * px, box["bubbles"][i][1] * px, box["r"] * px
    angle, off = rng.uniform(0, 2 * np.pi), rng.uniform(0, 0.4) * r
    out = image.copy()
    cv2.circle(out, (int(round((x + off * np.cos(angle)) * 16)),
                     int(round((y + off * np.sin(angle)) * 16))),
               int(rng.uniform(0.15, 0.35) * px * 16), rng.randint(20, 60), -1, cv2.LINE_AA, 4)
    return out


@pytest.mark.parametrize("seed", range(6))
def test_a_speck_beside_a_filled_digit_is_passed_over_and_a_tick_there_is_not(exam, seed):
    """A whole number filled in every row, and in its last row a second bubble holding a speck
    of dust as dark as the pen (the earlier reader sent the box to review, its darkest strokes
    too dark for a graze): read as the number. The same bubble ticked with the pen instead: the
    box goes to review, naming the row or the bubble."""
    from quizgen.scan.synth import distort

    manifest, _ = exam
    student, page, image, box = _page_with(exam, "number", decimals=0, selector=False)
    index = {(b[2], b[3]): i for i, b in enumerate(box["bubbles"])}
    marks = {index[(f"p{p}", "0")]: "solid" for p in range(1, box["places"])}
    marks[index[("p0", "7")]] = "solid"
    rng = random.Random(seed)
    filled = _fill(image, box, marks, rng)
    other = index[("p0", str(rng.choice([0, 1, 2, 3, 4, 5, 6, 8, 9])))]
    for drawn, expected in ((_speck(filled, box, other, rng), "7"),
                            (_fill(filled, box, {other: "tick"}, rng), None)):
        data = distort(drawn, rng, jpeg=60, max_angle=1.5)
        reading = _read(manifest, student, page, _found(manifest, student, page, data), box)
        if expected is None:
            assert reading.status == "review", reading.text
            assert "×1" in str(reading.reason)         # the row, or the bubble in it
        else:
            assert (reading.status, reading.text) == ("read", expected), reading.reason


def _shade(image, box, i: int, grey: int, rng):
    """Bubble `i` covered evenly inside its ring in pencil of this grey, with the paper's grain."""
    import cv2

    px = DPI / 25.4
    x, y, r = box["bubbles"][i][0] * px, box["bubbles"][i][1] * px, box["r"] * px
    mask = np.zeros(image.shape, np.uint8)
    cv2.circle(mask, (int(round(x * 16)), int(round(y * 16))), int(0.9 * r * 16), 255, -1,
               cv2.LINE_AA, 4)
    grain = np.random.default_rng(rng.randrange(1 << 30)).normal(0, 8, image.shape)
    pencil = np.clip(grey + grain, 0, 255)
    alpha = mask / 255.0
    return np.minimum(image, image * (1 - alpha) + pencil * alpha).astype(np.uint8)


@pytest.mark.parametrize("seed", range(4))
def test_a_second_answer_pressed_lightly_beside_a_light_fill_is_doubtful(exam, seed):
    """A student who fills in pencil (a fill 0.4 as dark as the pen) and marks a second bubble of
    the same row more lightly still, about 0.45 as dark as that fill: an eraser can leave that
    much, and so can a second answer. The box goes to review (the earlier reader took the light one
    for an erasure and read the first). An eraser's trace beside a firm fill is still passed
    over."""
    from quizgen.scan.synth import distort

    manifest, _ = exam
    student, page, image, box = _page_with(exam, "number", decimals=0, selector=False)
    index = {(b[2], b[3]): i for i, b in enumerate(box["bubbles"])}
    rng = random.Random(seed)
    zeros = [index[(f"p{p}", "0")] for p in range(1, box["places"])]
    first, second = index[("p0", "7")], index[("p0", str(rng.choice([1, 2, 3, 5, 8])))]
    light = _fill(image, box, dict.fromkeys(zeros, "solid"), rng)
    light = _shade(_shade(light, box, first, 150, rng), box, second, 204, rng)
    erased = _fill(image, box, {**dict.fromkeys(zeros, "solid"), first: "solid",
                                second: "erased"}, rng)
    for drawn, expected in ((light, None), (erased, "7")):
        data = distort(drawn, rng, jpeg=60, max_angle=1.5)
        reading = _read(manifest, student, page, _found(manifest, student, page, data), box)
        if expected is None:
            assert reading.status == "review", reading.text
        else:
            assert (reading.status, reading.text) == ("read", expected), reading.reason
