"""Reading the bubbles of a straightened page, and turning each grid into an answer.

Light and shadow cancel: every pixel's darkness is measured against the paper around it (the
page's own white where no print is, found by a grey-level closing, of a view with the camera's
noise taken out, that removes everything smaller than a few bubbles), so a bubble under a shadow
or at the dim end of a phone photo is judged against the paper beside it, and on the scale of the
page's printed black (its corner marks: 1).
Each bubble is read where its printed ring is (`grids.place`): each grid found near where the
page's homography puts it, then each clear ring on its own, and the bubbles whose rings are hidden
by a mark placed by the smooth field those rings give, which takes up the curve of a lens and the
slack of a page that is not flat.

Each bubble's inner disc (the printed ring left out) is then described by its mean darkness above
the blank bubbles beside it (`levels.local_levels`: the empty bubbles near it, with its printed
digit), how much of it is covered by ink, how dark its darkest strokes are, and
how dark the paper just outside its ring is (above and below it, where nothing is printed, a side
towards a marked neighbour left out):

* *filled*: dense (a solid or over-the-edge fill), or mostly covered with dark strokes (hatching,
  a scribble, a partial fill), or evenly covered in light pencil;
* *stain*: an even shade, without a stroke, that goes on past the ring as much as it lies inside
  it (a drop of tea, a smudge of the hand): a mark stays inside the ring;
* *mark*: something drawn that is not a fill (a tick, a cross, a half fill, a very light pencil);
* *faint*: a light, even trace without strokes (an erasure);
* *empty*.

Then the page speaks for its student (`own_marks`): when they answered with ticks or crosses, the
page shows several such marks each alone in its row, and a mark as dark as theirs is read as filled
on that page; when they press a pencil lightly (`own_pencil`: several even, stroke-less shades each
alone in its row), an even trace inside the ring, alone in a row that takes one answer, at least
0.6 of their usual darkness is one of theirs, not an eraser's (half as dark as theirs, or less).
A stain lighter than any fill is a *shade* on the paper, passed over. A trace at most about a third
as dark as the filled bubble of its row is an answer changed (*erased*), passed over in a row that
takes one answer (up to half as dark, it may be an eraser's or a second answer pressed lightly:
doubtful); in a row of limits (any set may be filled) none is, since a light pencil's option
looks the same. In a row that takes one answer, a speck beside the filled bubble (dust, the graze
of a neighbour's stroke: a third as dark, and its darkest strokes far lighter than the pen's or
its ink a dot no wider than a millimetre) is passed over too; a tick drawn with the pen is as
dark as the pen and runs across the bubble, and stays doubtful.

A box is read only when its marks spell exactly one answer; anything else (no bubble filled, two in
a row, a mark or a trace that may be an answer, every option of a set of limits filled) is
`needs_review` with the reason and the bubbles named, never a guess. A number's rules may leave
one reading of a stroke alone in its row (`_by_structure`): a leading zero reads the same taken or
not, and a digit between two others cannot be left out.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import numpy as np

from quizgen.grade.notes import Note
from quizgen.scan.grids import place
from quizgen.scan.levels import local_levels
from quizgen.scan.reasons import reason
from quizgen.scan.pages import PX_PER_MM, Page

#: Share of the bubble's radius whose disc is measured (the printed ring stays outside).
INNER = 0.62
#: Score thresholds on the page's scale (0 blank bubble … 1 printed black), see `bubble_states`.
DENSE = 0.45          # mean darkness of a filled bubble
STROKES = 0.28        # mean darkness of a bubble mostly covered by dark strokes ...
COVERED = 0.4         # ... the share of it they cover ...
STROKE = 0.55         # ... and their darkness
LIGHT = 0.2           # mean darkness of an evenly covered light-pencil bubble ...
EVEN = 0.12           # ... and the darkness of its lighter quarter
SHADED = 0.38         # mean darkness of a bubble evenly covered by strokes ...
SOLID_COVER = 0.85    # ... over this share of it (a fill of a pen's many strokes)
FAINT = 0.05          # a trace
TRACE = 0.17          # a trace is lighter than this ...
TRACE_HIGH = 0.3      # ... and has no stroke darker than this
STAIN = 0.6           # the paper outside the ring at least this share of the disc's darkness
STAIN_HIGH = 0.4      # ... and no stroke in it darker than this
#: A page's own marks: at least this many marks each alone in its row, and a mark is read as
#: filled when at least OWN_SHARE of their typical darkness (and never below OWN_LEAST).
OWN_EVIDENCE = 3
OWN_SHARE = 0.5
OWN_LEAST = 0.12
#: A page's own light pencil: at least PENCIL_EVIDENCE even, stroke-less marks each alone in its
#: row, and an even trace is read as filled when at least PENCIL_SHARE of their typical darkness
#: (and never below PENCIL_LEAST). Even: its lighter quarter at least PENCIL_EVEN of its mean.
PENCIL_EVIDENCE = 5
PENCIL_SHARE = 0.6
PENCIL_LEAST = 0.1
PENCIL_EVEN = 0.7
#: What an eraser leaves of a fill: at most ERASED_SHARE of its darkness (half as dark). An answer
#: changed: a trace at most ERASED_BESIDE of the darkness of its row's filled bubble (about a
#: third), in a row that takes one answer; a trace between the two may as well be a second
#: answer pressed lightly (a light pencil's can be 0.4 as dark as a firm fill) and is doubtful.
ERASED_SHARE = 0.5
ERASED_BESIDE = 0.35
#: A speck (dust, a graze of a neighbour's stroke) beside a filled bubble in a row that takes one
#: answer: a third as dark as the fill, and its darkest strokes at most SPECK_HIGH of the fill's, or
#: its ink a dot at most SPECK_SPAN mm across (a tick or a cross runs across the bubble's 2 mm).
SPECK_HIGH = 0.6
SPECK_SPAN = 1.0
#: A number is read past at most this many strokes, each alone in its row (`_by_structure`).
MOST_STROKES = 3
#: Paper is looked for in this window (mm): larger than a filled bubble with its overflow.
PAPER_WINDOW = 7.5
#: The paper is looked for in a view whose noise a median of this many pixels across takes out:
#: the brightest pixels of a noisy view overstate the paper, and the more so the dimmer it is
#: lit (a shadow would leave its empty bubbles darker than the others).
DENOISE = 5

#: Plain scores (0 empty … 1 filled) as `read_box` also takes them: below EMPTY empty, from
#: FILLED filled, in between a trace.
EMPTY = 0.12
FILLED = 0.6


@dataclass(slots=True)
class BoxReading:
    """What one answer box says: `text` for answers.csv (the answer, or NEEDS_REVIEW when
    doubtful), the reason when doubtful (a phrase of ``[scan_reason]``, written in the report's
    language), and each bubble's state for the report."""

    column: str
    text: str
    status: str                       # "read" or "review"
    reason: Note | None = None
    # per bubble: "empty", "filled", "mark", "faint", "erased", "stain", "shade"
    states: list[str] = field(default_factory=list)
    scores: list[float] = field(default_factory=list)
    centres: list[tuple[float, float]] = field(default_factory=list)   # where read (page px)


@dataclass(slots=True)
class Bubbles:
    """One box's bubbles as measured: mean darkness, its lighter quarter, its darkest tenth, the
    share of the disc covered by ink, the mean darkness just outside the ring (each on the page's
    scale), and the centres read (px)."""

    mean: np.ndarray
    low: np.ndarray
    high: np.ndarray
    covered: np.ndarray
    centres: np.ndarray
    around: np.ndarray
    sides: np.ndarray | None = None    # the paper just outside the ring above it, below it
    span: np.ndarray | None = None     # how far its ink reaches across the disc (mm)


def _disc_offsets(radius_px: float) -> tuple[np.ndarray, np.ndarray]:
    r = int(np.ceil(radius_px))
    ys, xs = np.mgrid[-r:r + 1, -r:r + 1]
    inside = xs ** 2 + ys ** 2 <= radius_px ** 2
    return ys[inside], xs[inside]


def _around_offsets(radius_px: float) -> tuple[np.ndarray, np.ndarray]:
    """The paper just outside a printed ring, above and below it (a label may stand to its
    right, a neighbour's ring is further away)."""
    r = int(np.ceil(1.6 * radius_px))
    ys, xs = np.mgrid[-r:r + 1, -r:r + 1]
    d2 = xs ** 2 + ys ** 2
    inside = (d2 >= (1.25 * radius_px) ** 2) & (d2 <= (1.6 * radius_px) ** 2) & (abs(xs) <= abs(ys))
    return ys[inside], xs[inside]


def darkness_map(page: Page, layout: dict[str, Any]) -> np.ndarray:
    """Each pixel's darkness against the paper around it, on the scale of the printed black:
    0 paper … 1 the corner marks' black."""
    import cv2

    side = int(PAPER_WINDOW * PX_PER_MM) | 1
    kernel = cv2.getStructuringElement(cv2.MORPH_RECT, (side, side))
    quiet = cv2.medianBlur(page.image, DENOISE)
    paper = cv2.morphologyEx(quiet, cv2.MORPH_CLOSE, kernel)            # 8-bit: fast
    paper = cv2.GaussianBlur(paper, (0, 0), PX_PER_MM).astype(np.float32)
    np.maximum(paper, 8.0, out=paper)
    dark = 1.0 - page.image.astype(np.float32) / paper
    np.clip(dark, 0.0, 1.0, out=dark)
    black = _mark_black(dark, layout)
    return np.clip(dark / max(black, 0.3), 0.0, 1.5)


def _mark_black(dark: np.ndarray, layout: dict[str, Any]) -> float:
    """The printed black: the median darkness inside the corner marks' centres."""
    half = max(1, int(layout["mark_size"] * PX_PER_MM * 0.25))
    values = []
    for x, y in layout["marks"]:
        cx, cy = int(x * PX_PER_MM), int(y * PX_PER_MM)
        patch = dark[max(0, cy - half):cy + half, max(0, cx - half):cx + half]
        if patch.size:
            values.append(float(np.median(patch)))
    return float(np.median(values)) if values else 0.9


def measure(dark: np.ndarray, layout: dict[str, Any], box: dict[str, Any],
            centres: np.ndarray) -> Bubbles:
    """One box's bubbles, measured where they were found (`grids.place`: px)."""
    radius_px = layout["radius"] * PX_PER_MM
    dy, dx = _disc_offsets(layout["radius"] * INNER * PX_PER_MM)
    h, w = dark.shape
    xs = np.clip(np.rint(centres[:, 0:1]).astype(int) + dx, 0, w - 1)
    ys = np.clip(np.rint(centres[:, 1:2]).astype(int) + dy, 0, h - 1)
    values = dark[ys, xs]
    ay, ax = _around_offsets(radius_px)
    ring = dark[np.clip(np.rint(centres[:, 1:2]).astype(int) + ay, 0, h - 1),
                np.clip(np.rint(centres[:, 0:1]).astype(int) + ax, 0, w - 1)]
    sides = np.stack([ring[:, ay < 0].mean(axis=1), ring[:, ay > 0].mean(axis=1)], axis=1)
    ink = values >= 0.4
    return Bubbles(values.mean(axis=1), np.percentile(values, 25, axis=1),
                   np.percentile(values, 90, axis=1), ink.mean(axis=1), centres,
                   ring.mean(axis=1), sides, _span(ink, dy, dx))


def _span(ink: np.ndarray, dy: np.ndarray, dx: np.ndarray) -> np.ndarray:
    """How far each bubble's ink reaches (mm): the larger side of the box around its ink pixels
    (0 with none). A tick or a cross runs across the disc; a speck of dust is a dot."""
    far = np.int32(1 << 20)
    sides = [np.where(ink, d, far).min(axis=1) for d in (dx, dy)]
    sides = [np.where(ink, d, -far).max(axis=1) - low + 1 for d, low in zip((dx, dy), sides)]
    return np.maximum(np.maximum(*sides), 0).astype(np.float32) / PX_PER_MM


def bubble_states(bubbles: Bubbles, blank: float, paper: float = 0.0) -> list[str]:
    """Each bubble: "filled", "stain", "mark", "faint" or "empty" (see the module's
    description); `paper` is the page's darkness outside an empty ring."""
    states = []
    for mean, low, high, covered, around in zip(bubbles.mean - blank, bubbles.low - blank,
                                                bubbles.high, bubbles.covered,
                                                bubbles.around - paper):
        if mean >= DENSE or (mean >= STROKES and covered >= COVERED and high >= STROKE) \
                or (mean >= SHADED and covered >= SOLID_COVER):
            states.append("filled")
        elif mean < FAINT:
            states.append("empty")
        elif around >= STAIN * mean and high < STAIN_HIGH:
            states.append("stain")        # as dark outside the ring as in it: not drawn in it
        elif mean >= LIGHT and low >= EVEN and high < STROKE + 0.1:
            states.append("filled")       # light pencil, evenly
        elif mean < TRACE and high < TRACE_HIGH:
            states.append("faint")
        else:
            states.append("mark")
    return states


def own_marks(boxes: list[dict[str, Any]], states: list[list[str]],
              means: list[np.ndarray]) -> float | None:
    """How dark this student's own marks are, when the page shows they answer with ticks or
    crosses (at least OWN_EVIDENCE marks, each alone in a row that takes one answer); else None."""
    alone = []
    for box, box_states, mean in zip(boxes, states, means):
        if box["kind"] == "limits":
            continue
        rows: dict[str, list[int]] = {}
        for i, bubble in enumerate(box["bubbles"]):
            if box_states[i] != "empty":
                rows.setdefault(bubble[2], []).append(i)
        alone += [float(mean[m[0]]) for m in rows.values()
                  if len(m) == 1 and box_states[m[0]] == "mark"]
    if len(alone) < OWN_EVIDENCE:
        return None
    return max(OWN_LEAST, OWN_SHARE * float(np.median(alone)))


def _pencil_like(m: "Measured", i: int) -> bool:
    """An even, stroke-less shade drawn inside the ring: how a light pencil covers a bubble (a
    tick or a cross covers a little of it; a smear or a stain runs past the ring)."""
    mean = float(m.mean[i])
    return (FAINT <= mean < DENSE and float(m.low[i]) >= PENCIL_EVEN * mean
            and float(m.high[i]) < STROKE + 0.1 and float(m.around[i]) < 0.3 * mean)


def own_pencil(boxes: list[dict[str, Any]], measured: list["Measured"]) -> float | None:
    """How dark this student's light pencil is, when the paper shows they answer in it: at least
    PENCIL_EVIDENCE even, stroke-less marks, each alone in a row that takes one answer (read as
    filled or not); else None. A trace at least PENCIL_SHARE of their typical darkness, and more
    than half as dark as their filled bubbles, is then one of their marks: an eraser leaves half
    of one, or less, and less evenly."""
    alone = []
    filled = [float(v) for m in measured for v, s in zip(m.mean, m.states) if s == "filled"]
    for box, m in zip(boxes, measured):
        if box["kind"] == "limits":
            continue
        rows: dict[str, list[int]] = {}
        for i, bubble in enumerate(box["bubbles"]):
            if m.states[i] != "empty":
                rows.setdefault(bubble[2], []).append(i)
        alone += [float(m.mean[r[0]]) for r in rows.values()
                  if len(r) == 1 and _pencil_like(m, r[0])]
    if len(alone) < PENCIL_EVIDENCE:
        return None
    # and more than half as dark as their filled bubbles: what an eraser leaves of one is less
    return max(PENCIL_LEAST, PENCIL_SHARE * float(np.median(alone)),
               ERASED_SHARE * float(np.median(filled)) + 1e-3 if filled else 0.0)


def settle(box: dict[str, Any], states: list[str], mean: np.ndarray, high: np.ndarray,
           own: float | None, pencil: tuple[float, "Measured"] | None = None,
           span: np.ndarray | None = None) -> list[str]:
    """A box's states with what the page tells: a mark as dark as the student's own marks is
    filled, and so is an even trace as dark as their own light pencil (`pencil`: how dark, and
    this box as measured; in a row that takes one answer, alone in its row); a stain lighter
    than any fill is a shade on the paper ("shade", passed over); a trace far lighter than its
    row's filled bubble is an answer changed ("erased"), and so is a speck beside it in a row that
    takes one answer (its strokes far lighter than the pen's, or its ink a dot: `span`, mm)."""
    states = ["filled" if s == "mark" and own is not None and mean[i] >= own else
              "shade" if s == "stain" and mean[i] < LIGHT and box["kind"] != "limits" else s
              for i, s in enumerate(states)]
    if pencil is not None and box["kind"] != "limits":
        least, m = pencil               # only a trace alone in its row: beside another mark it
        rows = [b[2] for b, s in zip(box["bubbles"], states) if s != "empty"]   # may be erased
        states = ["filled" if s in ("faint", "mark") and mean[i] >= least
                  and rows.count(box["bubbles"][i][2]) == 1 and _pencil_like(m, i) else s
                  for i, s in enumerate(states)]
    filled: dict[str, float] = {}
    strokes: dict[str, float] = {}
    for i, bubble in enumerate(box["bubbles"]):
        if states[i] == "filled":
            filled[bubble[2]] = min(filled.get(bubble[2], 9.0), float(mean[i]))
            strokes[bubble[2]] = min(strokes.get(bubble[2], 9.0), float(high[i]))
    for i, bubble in enumerate(box["bubbles"]):
        row = bubble[2]
        if states[i] not in ("faint", "mark") or row not in filled or box["kind"] == "limits":
            continue                    # among limits, a light pencil's option looks the same
        lighter = mean[i] <= ERASED_BESIDE * filled[row]
        if states[i] == "mark":         # a speck or a graze: its strokes far from the pen's,
            lighter = lighter and (high[i] <= SPECK_HIGH * strokes[row]       # or a dot
                                   or (span is not None and span[i] <= SPECK_SPAN))
        if lighter:
            states[i] = "erased"
    return states


def bubble_name(box: dict[str, Any], i: int) -> str:
    """A bubble as the teacher finds it on the sheet: ``×10: 4``, ``registers``, ``−``."""
    _, _, row, value = box["bubbles"][i]
    if row.startswith("p"):
        power = int(row[1:])
        label = f"×{10 ** power}" if power >= 0 else f"×{10.0 ** power:.{-power}f}"
        return f"{label}: {value}"
    return "−" if row == "sign" else str(value)


def read_box(box: dict[str, Any], scores: np.ndarray | list[str]) -> BoxReading:
    """One box's answer from its bubbles' states ("filled", "mark", "faint", "erased", "stain",
    "shade", "empty"), or from plain scores (0 empty … 1 filled; in between, faint)."""
    from quizgen.export.bubbles import NEEDS_REVIEW

    column = box["column"]
    if box["kind"] == "written" or not box["bubbles"]:
        return BoxReading(column, NEEDS_REVIEW, "review", reason("no_grid"))
    if len(scores) and isinstance(scores[0], str):
        states, values = list(scores), []
    else:
        states = ["filled" if s >= FILLED else "faint" if s > EMPTY else "empty" for s in scores]
        values = [round(float(s), 2) for s in scores]
    reading = BoxReading(column, "", "read", states=states, scores=values)
    marks = [i for i, state in enumerate(states) if state == "mark"]
    if marks:
        text = _by_structure(box, states, marks)
        if text is None:
            return _doubt(reading, reason("stroke", bubbles=_names(box, marks)))
        return _read(reading, text)
    rows: dict[str, list[str]] = {}
    odd: dict[str, dict[str, list[int]]] = {"faint": {}, "erased": {}, "stain": {}}
    for i, ((_, _, row, value), state) in enumerate(zip(box["bubbles"], states)):
        rows.setdefault(row, [])
        if state == "filled":
            rows[row].append(value)
        elif state in odd:
            odd[state].setdefault(row, []).append(i)
    # a trace may be an answer, beside a filled bubble or alone: doubtful; one far lighter than
    # its row's filled bubble ("erased", see `settle`) is an answer changed, passed over
    beside = [i for row, members in odd["faint"].items() if rows[row] for i in members]
    if beside:
        return _doubt(reading, reason("faint_beside", bubbles=_names(box, beside)))
    lone = [i for kind in ("faint", "erased") for row, members in odd[kind].items()
            if not rows[row] for i in members]
    if lone:
        return _doubt(reading, reason("faint_at", bubbles=_names(box, lone)))
    if box["kind"] == "limits" and any(odd["stain"].values()):
        # a stain over an option may hide a light mark, whatever is filled beside it
        stained = [i for members in odd["stain"].values() for i in members]
        return _doubt(reading, reason("stain_among", bubbles=_names(box, stained)))
    stained = [i for row, members in odd["stain"].items() if not rows[row] for i in members]
    if stained:
        return _doubt(reading, reason("stain_at", bubbles=_names(box, stained)))
    if not any(rows.values()):
        # nothing filled: perhaps no answer, perhaps one written in the box and never bubbled
        return _doubt(reading, reason("nothing_filled"))
    kind = box["kind"]
    if kind == "yes_no":
        if len(rows["opt"]) > 1:
            return _doubt(reading, reason("yes_and_no"))
        return _read(reading, rows["opt"][0])
    if kind == "limits":
        if len(rows["opt"]) == len(box["bubbles"]) > 2:
            # never an answer by itself: a shadow, a box crossed out, a student hedging
            return _doubt(reading, reason("every_option"))
        return _read(reading, ", ".join(rows["opt"]))
    return _read_number(reading, box, rows)


def _by_structure(box: dict[str, Any], states: list[str], marks: list[int]) -> str | None:
    """A number whose strokes (ticks, crosses, half fills) each stand alone in a row of their
    own: read when the number's rules leave one reading, whether each stroke is taken as filled
    or as empty (a leading zero either way; a digit between two others, or the only choice of
    percent or fraction, that the number cannot do without); else None. A box left without any
    digit is a reading of its own (no answer), and never the one reading: a stroke alone in an
    empty box is read neither as a digit nor as no answer (a grid with nothing filled goes to
    review)."""
    rows = [box["bubbles"][i][2] for i in marks]
    if box["kind"] != "number" or len(marks) > MOST_STROKES or len(set(rows)) < len(rows):
        return None
    if any(s not in ("empty", "erased", "shade") and box["bubbles"][i][2] in rows
           and i not in marks for i, s in enumerate(states)):
        return None                         # something else in a stroke's row
    texts = set()
    for taken in itertools.product(("filled", "empty"), repeat=len(marks)):
        trial = list(states)
        for i, state in zip(marks, taken):
            trial[i] = state
        reading = read_box(box, trial)
        if reading.status == "read":
            texts.add(reading.text)
        elif reading.reason is not None and reading.reason.key in ("nothing_filled", "no_digit"):
            texts.add("")           # no answer is a reading too: a lone stroke may be a speck
    # and never the one reading: a grid with nothing filled goes to review whatever is on it
    return texts.pop() if len(texts) == 1 and "" not in texts else None


def _names(box: dict[str, Any], indices: list[int]) -> str:
    return "; ".join(bubble_name(box, i) for i in indices)


def _read_number(reading: BoxReading, box: dict[str, Any], rows: dict[str, list[str]]) -> BoxReading:
    places, decimals = box["places"], box["decimals"]
    powers = list(range(places - 1, -decimals - 1, -1))
    digits: list[str | None] = []
    for power in powers:
        marked = rows.get(f"p{power}", [])
        if len(marked) > 1:
            label = f"×{10 ** power}" if power >= 0 else f"×{10.0 ** power:.{-power}f}"
            if len(marked) == 10:        # every digit: never an answer (a shadow, a crossing out)
                return _doubt(reading, reason("every_digit", row=label))
            return _doubt(reading, reason("two_in_row", row=label))
        digits.append(marked[0] if marked else None)
    filled = [i for i, d in enumerate(digits) if d is not None]
    if not filled:
        return _doubt(reading, reason("no_digit"))
    # Empty rows count as 0 only before the first digit (leading places) or, after the decimal
    # point, after the last one (trailing places); an empty row between digits is a gap.
    first, last = filled[0], filled[-1]
    for i in range(first, last + 1):
        if digits[i] is None:
            power = powers[i]
            label = f"×{10 ** power}" if power >= 0 else f"×{10.0 ** power:.{-power}f}"
            return _doubt(reading, reason("row_gap", row=label))
    if last < places - 1:
        return _doubt(reading, reason("no_units"))
    whole = "".join(d or "0" for d in digits[:places])
    fraction = "".join(d or "0" for d in digits[places:])
    value = Decimal(whole + ("." + fraction if fraction else ""))
    if box.get("sign") and rows.get("sign"):
        value = -value
    text = _plain(value)
    if box.get("selector"):
        chosen = rows.get("as", [])
        if len(chosen) != 1:
            return _doubt(reading, reason("share_twice") if chosen
                          else reason("share_none"))
        if chosen[0] == "%":
            text += "%"
    return _read(reading, text)


def _plain(value: Decimal) -> str:
    text = format(value.normalize(), "f")
    return "0" if text in ("-0", "") else text


def _read(reading: BoxReading, text: str) -> BoxReading:
    reading.text, reading.status = text, "read"
    return reading


def _doubt(reading: BoxReading, why: Note) -> BoxReading:
    from quizgen.export.bubbles import NEEDS_REVIEW

    reading.text, reading.status, reading.reason = NEEDS_REVIEW, "review", why
    return reading


@dataclass(slots=True)
class Measured:
    """One box of a page as measured, before the paper is judged whole: its bubbles' states, their
    darkness above the page's blank bubbles, their darkest strokes, and where they were found."""

    states: list[str]
    mean: np.ndarray
    high: np.ndarray
    centres: np.ndarray
    low: np.ndarray           # the lighter quarter, above the page's blank bubbles
    around: np.ndarray        # the paper just outside the ring, above the page's paper
    span: np.ndarray | None = None      # how far its ink reaches across the disc (mm)


def measure_page(page: Page, layout: dict[str, Any],
                 boxes: list[dict[str, Any]]) -> list[Measured | None]:
    """Every answer box printed on this page, measured (None for a box without a grid)."""
    dark = darkness_map(page, layout)
    gridded = [box for box in boxes if box["bubbles"]]
    where = iter(place(dark, layout, gridded, INNER))
    measured = [measure(dark, layout, box, next(where)) if box["bubbles"] else None
                for box in boxes]
    present = [m for m in measured if m is not None]
    printed = [[b[3] if b[2].startswith("p") else None for b in box["bubbles"]]
               for box, m in zip(boxes, measured) if m is not None]
    levels = iter(local_levels(present, printed, layout["radius"] * PX_PER_MM, (LIGHT, STAIN_HIGH)))
    out: list[Measured | None] = []
    for m in measured:
        if m is None:
            out.append(None)
            continue
        blank, paper, m.around = next(levels)
        out.append(Measured(bubble_states(m, blank, paper), (m.mean - blank).astype(np.float32),
                            m.high.astype(np.float32), m.centres.astype(np.float32),
                            (m.low - blank).astype(np.float32),
                            (m.around - paper).astype(np.float32),
                            m.span))
    return out


def read_paper(pages: list[tuple[list[dict[str, Any]], list[Measured | None]]]
               ) -> list[list[BoxReading]]:
    """The boxes of a student's pages read, the paper judged whole: how this student marks
    (`own_marks`, over every page read) decides what a tick or a cross of theirs says."""
    present = [(box, m) for boxes, measured in pages for box, m in zip(boxes, measured)
               if m is not None]
    own = own_marks([b for b, _ in present], [m.states for _, m in present],
                    [m.mean for _, m in present])
    pencil = own_pencil([b for b, _ in present], [m for _, m in present])
    out = []
    for boxes, measured in pages:
        readings = []
        for box, m in zip(boxes, measured):
            if m is None:
                readings.append(read_box(box, []))
                continue
            reading = read_box(box, settle(box, m.states, m.mean, m.high, own,
                                           None if pencil is None else (pencil, m), m.span))
            reading.scores = [round(float(v), 2) for v in m.mean]
            reading.centres = [(float(x), float(y)) for x, y in m.centres]
            readings.append(reading)
        out.append(readings)
    return out


def read_page(page: Page, layout: dict[str, Any], boxes: list[dict[str, Any]]) -> list[BoxReading]:
    """Every answer box printed on this page, read (the page taken as the whole paper)."""
    return read_paper([(boxes, measure_page(page, layout, boxes))])[0]
