"""Reading the bubbles of a straightened page, and turning each grid into an answer.

A bubble's darkness is the mean ink over the inner part of its disc (the printed ring left out),
on a scale from the page's own paper white (0) to its printed corner marks' black (1). The page's
blank bubbles set the floor (a low percentile: most bubbles on a page are empty, and each carries
a light printed digit) and its clearly filled bubbles the ceiling; in between, a mark is *faint*.
A box is read only when every bubble in it is clearly empty or clearly filled and the filled ones
spell exactly one answer; anything else, a box with no bubble filled included, is `needs_review`
with the reason, never a guess.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import numpy as np

from quizgen.grade.notes import Note
from quizgen.scan import reason
from quizgen.scan.pages import PX_PER_MM, Page

#: Share of the bubble's radius whose disc is measured (the printed ring stays outside).
INNER = 0.62
#: On the scale from the page's blank bubbles (0) to its filled ones (1): below EMPTY a bubble is
#: empty, above FILLED it is filled, in between it is a faint or erased mark.
EMPTY = 0.12
FILLED = 0.6
#: The darkest an empty bubble (its printed ring left out, a light digit inside) may be.
BLANK_AT_MOST = 0.25
#: The least darkness (paper 0 … printed black 1) that counts as a filled bubble's ceiling.
MIN_FILL_GAP = 0.35


@dataclass(slots=True)
class BoxReading:
    """What one answer box says: `text` for answers.csv (the answer, or NEEDS_REVIEW when
    doubtful), the reason when doubtful (a phrase of ``[scan_reason]``, written in the report's
    language), and each bubble's state for the report."""

    column: str
    text: str
    status: str                       # "read" or "review"
    reason: Note | None = None
    states: list[str] = field(default_factory=list)    # per bubble: "empty", "filled", "faint"
    scores: list[float] = field(default_factory=list)


def _disc_offsets(radius_px: float) -> tuple[np.ndarray, np.ndarray]:
    r = int(np.ceil(radius_px))
    ys, xs = np.mgrid[-r:r + 1, -r:r + 1]
    inside = xs ** 2 + ys ** 2 <= radius_px ** 2
    return ys[inside], xs[inside]


def page_darkness(page: Page, layout: dict[str, Any], boxes: list[dict[str, Any]]) -> list[np.ndarray]:
    """Each box's bubbles' darkness on the page's own scale (0 paper … 1 printed black)."""
    image = page.image.astype(np.float32)
    h, w = image.shape
    white = float(np.percentile(page.image[::4, ::4], 90))
    black = _mark_black(image, layout)
    span = max(white - black, 20.0)
    dy, dx = _disc_offsets(layout["radius"] * INNER * PX_PER_MM)
    out = []
    for box in boxes:
        if not box["bubbles"]:
            out.append(np.zeros(0, np.float32))
            continue
        centres = np.array([(b[0], b[1]) for b in box["bubbles"]], np.float32) * PX_PER_MM
        xs = np.clip(np.rint(centres[:, 0:1]).astype(int) + dx, 0, w - 1)
        ys = np.clip(np.rint(centres[:, 1:2]).astype(int) + dy, 0, h - 1)
        values = image[ys, xs].mean(axis=1)
        out.append(np.clip((white - values) / span, 0.0, 1.5))
    return out


def _mark_black(image: np.ndarray, layout: dict[str, Any]) -> float:
    """The printed black: the median grey inside the corner marks' centres."""
    half = max(1, int(layout["mark_size"] * PX_PER_MM * 0.25))
    values = []
    for x, y in layout["marks"]:
        cx, cy = int(x * PX_PER_MM), int(y * PX_PER_MM)
        values.append(np.median(image[cy - half:cy + half, cx - half:cx + half]))
    return float(np.median(values))


def classify(darkness: list[np.ndarray]) -> tuple[list[np.ndarray], float, float]:
    """Each bubble's score on the page's scale (0 blank … 1 filled), with the page's blank and
    filled levels."""
    every = np.concatenate([d for d in darkness if d.size] or [np.zeros(1, np.float32)])
    # Most bubbles are empty, but a page holding only a yes/no box may be half filled: a low
    # share, never above what an empty printed bubble can be.
    blank = min(float(np.percentile(every, 20)), BLANK_AT_MOST)
    dark = every[every > blank + MIN_FILL_GAP]
    filled = float(np.median(dark)) if dark.size >= 3 else blank + 0.8
    filled = max(filled, blank + MIN_FILL_GAP + 0.1)
    return [(d - blank) / (filled - blank) for d in darkness], blank, filled


def read_box(box: dict[str, Any], scores: np.ndarray) -> BoxReading:
    """One box's answer from its bubbles' scores."""
    from quizgen.export.bubbles import NEEDS_REVIEW

    column = box["column"]
    if box["kind"] == "written" or not box["bubbles"]:
        return BoxReading(column, NEEDS_REVIEW, "review", reason("no_grid"))
    states = ["filled" if s >= FILLED else "faint" if s > EMPTY else "empty" for s in scores]
    reading = BoxReading(column, "", "read", states=states, scores=[round(float(s), 2) for s in scores])
    if "faint" in states:
        return _doubt(reading, reason("faint"))
    rows: dict[str, list[str]] = {}
    for (_, _, row, value), state in zip(box["bubbles"], states):
        rows.setdefault(row, [])
        if state == "filled":
            rows[row].append(value)
    if not any(rows.values()):
        # nothing filled: perhaps no answer, perhaps one written in the box and never bubbled
        return _doubt(reading, reason("nothing_filled"))
    kind = box["kind"]
    if kind == "yes_no":
        if len(rows["opt"]) > 1:
            return _doubt(reading, reason("yes_and_no"))
        return _read(reading, rows["opt"][0])
    if kind == "limits":
        return _read(reading, ", ".join(rows["opt"]))
    return _read_number(reading, box, rows)


def _read_number(reading: BoxReading, box: dict[str, Any], rows: dict[str, list[str]]) -> BoxReading:
    places, decimals = box["places"], box["decimals"]
    powers = list(range(places - 1, -decimals - 1, -1))
    digits: list[str | None] = []
    for power in powers:
        marked = rows.get(f"p{power}", [])
        if len(marked) > 1:
            label = f"×{10 ** power}" if power >= 0 else f"×{10.0 ** power:.{-power}f}"
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


def read_page(page: Page, layout: dict[str, Any], boxes: list[dict[str, Any]]) -> list[BoxReading]:
    """Every answer box printed on this page, read."""
    darkness = page_darkness(page, layout, boxes)
    scores, _, _ = classify(darkness)
    return [read_box(box, s) for box, s in zip(boxes, scores)]
