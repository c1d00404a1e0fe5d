"""Light that differs across a photographed page: each bubble judged against its own paper.

* Empty bubbles under the straight edge of a cast shadow, in the glare of a clipping exposure, or
  with a dark digit printed in them, read as empty (an eraser's trace is as light as the shift a
  shadow gives a page-wide level).
* A trace in a shadow still reads as a trace, a weak mark beside firm fills in a row of limits
  still goes to review, and a fill in the row above does not turn the paper around a mark into a
  stain's.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from conftest import bubbled_exam, exam_pages, marked, scan_recipe

RECIPE = scan_recipe("Light test", 7)
DPI = 200


@pytest.fixture(scope="module")
def exam(tmp_path_factory):
    out = tmp_path_factory.mktemp("light") / "exam"
    manifest = bubbled_exam(out, RECIPE, 5)
    return manifest, exam_pages(out, manifest, DPI)


def _measured(manifest, student, page, photo: bytes):
    import cv2

    from quizgen.scan.pages import Scan, locate
    from quizgen.scan.read import measure_page

    image = cv2.imdecode(np.frombuffer(photo, np.uint8), cv2.IMREAD_GRAYSCALE)
    found = locate(Scan("photo.jpg", image), manifest["scan"])
    assert found.version == student["version"] and found.page == page
    boxes = [b for b in student["sheet"]["boxes"] if b["page"] == page and b["bubbles"]]
    return boxes, measure_page(found, manifest["scan"], boxes)


def test_empty_bubbles_under_a_cast_shadow_and_in_the_glare_read_empty(exam):
    """Blank pages photographed three times, each under a cast shadow's edge, a soft shadow and
    perhaps a clipping exposure: every one of about 3,400 empty bubbles reads as empty, none as a
    trace or a stain that would send its box to review (one level for the whole page leaves a few
    a trace's darkness above it)."""
    from quizgen.scan.synth import photograph

    manifest, pages = exam
    states, rng = [], random.Random(3)
    for (student, page), image in pages * 3:
        boxes, measured = _measured(manifest, student, page, photograph(image, rng, cast=1.0))
        states += [s for m in measured for s in m.states]
    assert len(states) >= 3000
    assert {s: states.count(s) for s in set(states)} == {"empty": len(states)}


def _fill(image, box, marks: dict[int, str], rng):
    return marked(image, box, marks, rng, DPI)


@pytest.mark.parametrize("seed", range(4))
def test_a_weak_mark_among_limits_under_a_shadow_goes_to_review(exam, seed):
    """Two firm fills in a row of limits and a third option with an eraser's light trace, or with a
    light pencil, on a photographed page under a cast shadow: never read as the two options alone
    (the trace goes to review, the pencil reads as the third option)."""
    from quizgen.scan.read import read_paper
    from quizgen.scan.synth import photograph

    manifest, pages = exam
    rng = random.Random(seed)
    (student, page), image = next(((s, p), im) for (s, p), im in pages if any(
        b["kind"] == "limits" and b["page"] == p for b in s["sheet"]["boxes"]))
    box = next(b for b in student["sheet"]["boxes"] if b["kind"] == "limits" and b["page"] == page)
    third = "erased" if seed % 2 else "light"
    filled = _fill(image, box, {0: "solid", 2: "solid", 3: third}, rng)
    boxes, measured = _measured(manifest, student, page, photograph(filled, rng, cast=1.0))
    reading = read_paper([(boxes, measured)])[0][boxes.index(box)]
    names = [b[3] for b in box["bubbles"]]
    assert reading.text != f"{names[0]}, {names[2]}"
    if third == "erased":
        assert reading.status == "review" and names[3] in str(reading.reason)


def test_the_levels_follow_a_shadow_and_keep_a_trace():
    """Three grids of empty bubbles, the right one 0.07 darker (under a shadow): all empty; an
    eraser's trace 0.1 above the shadowed bubbles beside it is still a trace, a fill a fill."""
    from quizgen.scan.read import Bubbles, bubble_states
    from quizgen.scan.levels import local_levels

    grids = []
    for g in range(3):
        xy = np.float32([[600 * g + 30 * d, 28 * r] for r in range(4) for d in range(10)])
        mean = np.full(40, 0.02 + (0.07 if g == 2 else 0.0), np.float32)
        grids.append(Bubbles(mean, mean - 0.01, mean + 0.1, np.zeros(40, np.float32), xy,
                             np.zeros(40, np.float32)))
    grids[2].mean[5] += 0.1                                      # a trace in the shadow
    grids[0].mean[13] = 0.7                                      # a fill in the light
    states = [bubble_states(g, blank, paper) for g, (blank, paper, _) in
              zip(grids, local_levels(grids))]
    assert states[2][5] == "faint" and states[0][13] == "filled"
    assert sum(s != "empty" for row in states for s in row) == 2
    page_level = min(float(np.percentile(np.concatenate([g.mean for g in grids]), 20)), 0.25)
    assert sum(s != "empty" for g in grids for s in bubble_states(g, page_level, 0.0)) > 2


def test_a_fill_in_the_next_row_does_not_make_a_mark_a_stain():
    """A light even mark whose paper above is darkened by the over-the-edge fill of the bubble
    above it, the paper below clean: a mark, not a stain; with a dark paper on both sides and no
    mark beside it, a stain; a stain over two rows (darkest between them) stays a stain in both,
    since only a firm mark's side is left out."""
    from quizgen.scan.read import Bubbles, bubble_states
    from quizgen.scan.levels import local_levels

    xy = np.float32([[30 * d, 28 * r] for r in range(4) for d in range(10)])
    mean = np.full(40, 0.02, np.float32)
    sides = np.zeros((40, 2), np.float32)
    mean[3], mean[13] = 0.7, 0.3                      # a fill above, a light pencil below it
    sides[13] = (0.4, 0.0)                            # the fill's overflow above the ring only
    mean[27], sides[27] = 0.3, (0.25, 0.25)           # a shade running past the ring both ways
    mean[[21, 31]] = 0.15                             # a stain over two rows, darkest between
    sides[21], sides[31] = (0.05, 0.2), (0.2, 0.05)
    grid = Bubbles(mean, mean - 0.01, mean + 0.05, np.zeros(40, np.float32), xy,
                   sides.mean(axis=1), sides)
    (blank, paper, around), = local_levels([grid], radius_px=10.0)
    grid.around = around
    states = bubble_states(grid, blank, paper)
    assert (states[3], states[13], states[27]) == ("filled", "filled", "stain")
    assert states[21] == states[31] == "stain"        # a stain leaves no side out
    grid.sides = None                                 # the whole ring's paper: a stain
    grid.around = sides.mean(axis=1)
    (blank, paper, around), = local_levels([grid])
    assert bubble_states(grid, blank, paper)[13] == "stain"


def test_weak_crosses_among_limits_stay_doubtful_whatever_else_is_filled():
    """Two rows of limits (nothing printed in their bubbles), most options firmly filled, two
    weak crosses (mostly outside the measured disc: 0.07 above blank) in the first, below a grid
    of digits: the fills do not raise the options' blank level, so the weak crosses keep the box
    for review (read as empty they would drop two options from the answer)."""
    from quizgen.scan.levels import local_levels
    from quizgen.scan.read import Bubbles, bubble_states, read_box

    digits = np.float32([[30 * d, 28 * r] for r in range(4) for d in range(10)])
    grid = Bubbles(np.full(40, 0.03, np.float32), np.full(40, 0.02, np.float32),
                   np.full(40, 0.2, np.float32), np.zeros(40, np.float32), digits,
                   np.zeros(40, np.float32))
    names = ["registers", "shared_memory", "warps", "blocks", "barriers"]
    mean = np.float32([0.7, 0.07, 0.07, 0.7, 0.25, 0.7, 0.7, 0.7, 0.0, 0.7]) + 0.03
    low = np.where(mean > 0.5, mean - 0.01, 0.02).astype(np.float32)
    high = np.float32([0.8, 0.3, 0.3, 0.8, 0.65, 0.8, 0.8, 0.8, 0.1, 0.8])
    options = Bubbles(mean, low, high, (mean > 0.5).astype(np.float32),
                      np.float32([[60 * i, 140 + 30 * (i // 5)] for i in range(10)]),
                      np.zeros(10, np.float32))
    printed = [[str(d) for _ in range(4) for d in range(10)], [None] * 10]
    levels = local_levels([grid, options], printed)
    states = bubble_states(options, *levels[1][:2])
    assert states[1:3] == ["mark", "mark"] and states[0] == states[3] == "filled"
    box = {"column": "Q1.limiter", "kind": "limits",
           "bubbles": [[60 * i, 140, "opt", n] for i, n in enumerate(names)]}
    assert read_box(box, states[:5]).status == "review"
