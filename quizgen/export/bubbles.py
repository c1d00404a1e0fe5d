"""Answer grids a scanner can read (``quizgen sheet --bubbles``): their layout and what they encode.

Under each answer box the student fills bubbles that spell the answer, as optical mark sheets do:

* a number: one row per decimal place (``×100``, ``×10``, ``×1``, ``×0.1`` …), ten bubbles 0–9
  in each; a ``−`` bubble for answers that may be negative; for a share, a row choosing percent or
  fraction (the box accepts either);
* yes/no: two bubbles; a set of limits: one bubble per limit, as many as tie;
* anything else (a tuple, a named option): no grid; the scanner lists the box for the teacher.

This module decides every bubble's place relative to its grid's top-left corner, in millimetres,
and, once Typst has laid out the pages (`place_layout`), in page coordinates: millimetres from the
page's top-left corner. The sheet template draws the bubbles from the same numbers, and the
manifest records them, so the scanner (`quizgen.scan`) reads exactly where the sheet printed.

Every page also carries four corner marks (squares at fixed places, for alignment) and a QR code
naming the exam, the version, the page and a checksum (`page_code` / `parse_page_code`).
"""

from __future__ import annotations

import hashlib
import io
import re
from typing import Any

from quizgen.engine.occupancy import LIMIT_NAMES
from quizgen.manifest import MAX_PAGES  # QR codes are made for this many pages per paper

#: Bubble grid geometry, millimetres: horizontal and vertical pitch, bubble radius, row label width.
PITCH_X = 5.0
PITCH_Y = 4.6
RADIUS = 1.7
LABEL_W = 16.0
#: An option bubble (yes/no, a limit, percent or fraction) takes this much width with its word.
OPTION_W = 29.0

#: Corner marks: solid squares of this side, their outer edges this far from the paper's edges.
MARK_SIZE = 6.0
MARK_INSET = 8.0
#: Paper sizes in millimetres (width, height).
PAPER_MM = {"a4": (210.0, 297.0), "us-letter": (215.9, 279.4)}
#: The side of the printed QR code, millimetres.
QR_SIZE = 17.0

#: Decimal places for numbers with fractions, integer places by kind (a box grows when its own
#: answer needs more, never shrinks: the grid's size must not hint at the answer).
DECIMALS = 3
INT_PLACES = {"count": 4, "bytes": 6, "cycles": 5, "real": 4, "ratio": 3, "fraction": 3}
MAX_INT_PLACES = 8

#: What the scanner writes for a box it could not read with certainty.
NEEDS_REVIEW = "needs_review"


def mark_centres(paper: str) -> list[tuple[float, float]]:
    """The four corner marks' centres in page millimetres: top-left, top-right, bottom-right,
    bottom-left."""
    width, height = PAPER_MM[paper]
    c = MARK_INSET + MARK_SIZE / 2
    return [(c, c), (width - c, c), (width - c, height - c), (c, height - c)]


# ---------------------------------------------------------------------------------------------
# Page codes


def exam_id(recipe: dict[str, Any]) -> str:
    """Four characters naming one exam (its recipe), so that a page of another exam is refused."""
    import json

    digest = hashlib.sha256(json.dumps(recipe, sort_keys=True).encode("utf-8")).digest()
    return _base32(int.from_bytes(digest[:8], "big"), 4)


def _base32(value: int, length: int) -> str:
    alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
    out = []
    for _ in range(length):
        value, digit = divmod(value, 32)
        out.append(alphabet[digit])
    return "".join(out)


def _check(text: str) -> str:
    return hashlib.sha256(text.encode("ascii")).hexdigest()[:4].upper()


def page_code(exam: str, version: str, page: int) -> str:
    """The text of a page's QR code: ``QZ:<exam>:<version>:<page>:<check>`` (QR's alphanumeric
    characters only, so the code stays small)."""
    body = f"QZ:{exam}:{version}:{page:02d}"
    return f"{body}:{_check(body)}"


_CODE = re.compile(r"QZ:([0-9A-Z]{4}):([0-9A-Z]{4,16}):(\d{2}):([0-9A-F]{4})")


def parse_page_code(text: str) -> tuple[str, str, int] | None:
    """(exam, version, page) from a QR code's text, or None if it is not one of ours or its
    checksum is wrong."""
    match = _CODE.fullmatch(text.strip())
    if not match:
        return None
    exam, version, page, check = match.groups()
    if _check(f"QZ:{exam}:{version}:{page}") != check:
        return None
    return exam, version, int(page)


def qr_svg(text: str) -> str:
    """A QR code as SVG text (error correction Q: a smudge or a staple hole is survived)."""
    import segno

    buf = io.BytesIO()
    segno.make(text, error="q", micro=False).save(buf, kind="svg", scale=4, border=0,
                                                  xmldecl=False, svgns=True)
    return buf.getvalue().decode("ascii")


# ---------------------------------------------------------------------------------------------
# Grids


def _places(value: Any, kind: str) -> tuple[int, int]:
    """(integer places, decimal places) of a number grid for one box."""
    if kind in ("count", "bytes", "cycles"):
        decimals = 0
    else:
        decimals = DECIMALS
    places = INT_PLACES.get(kind, 4)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        shown = abs(value) * (100 if kind == "fraction" else 1)
        if shown == shown and shown != float("inf"):
            places = max(places, len(str(int(shown))))
    return places, decimals


def box_grid(kind: str, value: Any, labels: dict[str, str]) -> dict[str, Any] | None:
    """The bubble grid of one answer box, relative to the grid's top-left corner (mm), or None
    when the answer's kind has no grid (the scanner sends such boxes to the teacher).

    ``{"kind": "number"|"yes_no"|"limits", "width", "height", "rows": [{"y", "label"}],
    "bubbles": [{"x", "y", "row", "value", "text", "side"}], ...}``: `text` is printed inside the
    bubble, `side` beside it; `row` and `value` are what a filled bubble means.
    """
    if kind in ("count", "bytes", "cycles", "real", "ratio", "fraction"):
        places, decimals = _places(value, kind)
        if places > MAX_INT_PLACES:
            return None
        return _number_grid(places, decimals, sign=kind == "real", selector=kind == "fraction",
                            labels=labels)
    if kind == "yes_no":
        return _option_grid("yes_no", [("yes", labels["yes"]), ("no", labels["no"])], labels)
    if kind == "limits":
        return _option_grid("limits", [(name, name.replace("_", " ")) for name in LIMIT_NAMES],
                            labels)
    return None


def _row_y(i: int) -> float:
    return round(i * PITCH_Y + PITCH_Y / 2, 3)


def _number_grid(places: int, decimals: int, *, sign: bool, selector: bool,
                 labels: dict[str, str]) -> dict[str, Any]:
    rows, bubbles = [], []
    i = 0
    if sign:
        rows.append({"y": _row_y(i), "label": labels["bubble_sign"]})
        bubbles.append({"x": LABEL_W + PITCH_X / 2, "y": _row_y(i), "row": "sign", "value": "-",
                        "text": "−", "side": ""})
        i += 1
    for power in range(places - 1, -decimals - 1, -1):
        label = "×" + (str(10 ** power) if power >= 0 else f"{10.0 ** power:.{-power}f}")
        rows.append({"y": _row_y(i), "label": label})
        for digit in range(10):
            bubbles.append({"x": round(LABEL_W + digit * PITCH_X + PITCH_X / 2, 3), "y": _row_y(i),
                            "row": f"p{power}", "value": str(digit), "text": str(digit),
                            "side": ""})
        i += 1
    if selector:
        rows.append({"y": _row_y(i), "label": labels["bubble_as"]})
        for j, (value, side) in enumerate((("%", labels["bubble_percent"]),
                                           ("fraction", labels["bubble_fraction"]))):
            bubbles.append({"x": round(LABEL_W + j * OPTION_W + PITCH_X / 2, 3), "y": _row_y(i),
                            "row": "as", "value": value, "text": "", "side": side})
        i += 1
    width = LABEL_W + max(10 * PITCH_X, (2 * OPTION_W) if selector else 0)
    return {"kind": "number", "places": places, "decimals": decimals, "sign": sign,
            "selector": selector, "width": width, "height": round(i * PITCH_Y, 3),
            "rows": rows, "bubbles": bubbles}


def _option_grid(kind: str, options: list[tuple[str, str]], labels: dict[str, str]) -> dict[str, Any]:
    bubbles = [{"x": round(LABEL_W + j * OPTION_W + PITCH_X / 2, 3), "y": _row_y(0), "row": "opt",
                "value": value, "text": "", "side": side} for j, (value, side) in enumerate(options)]
    return {"kind": kind, "width": LABEL_W + len(options) * OPTION_W, "height": PITCH_Y,
            "rows": [{"y": _row_y(0), "label": labels["bubble_choose"]}], "bubbles": bubbles}


# ---------------------------------------------------------------------------------------------
# From Typst's layout to page coordinates


def place_layout(found: list[dict[str, Any]], units: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Every version's bubbles in page coordinates, from Typst's layout query.

    `found` is the query's answer: metadata ``{"v": version, "c": column, "what": "grid"|"box",
    "page", "x", "y"}`` at each answer block's and grid's top-left corner, and ``{"v", "what":
    "end", "page"}`` on each paper's last page. `units` are the exam data's units (their boxes
    hold the relative grids). Returns version → ``{"pages": n, "boxes": [...]}``, each box with
    its column, page, region (x, y, w, h of the answer block and its grid) and bubbles
    ``[x, y, row, value]`` with one radius ``r``.
    """
    from quizgen.errors import QuizgenError

    where: dict[tuple[str, str, str], dict[str, Any]] = {}
    pages: dict[str, int] = {}
    for item in found:
        value = item["value"]
        if value["what"] == "end":
            pages[value["v"]] = int(value["page"])
        else:
            where[(value["v"], value["c"], value["what"])] = value
    out: dict[str, dict[str, Any]] = {}
    for unit in units:
        version = unit["version"]
        count = pages.get(version, 0)
        if count > MAX_PAGES:
            raise QuizgenError(f"version {version} prints on {count} pages; a paper with answer "
                               f"grids may have at most {MAX_PAGES} (give questions less space)",
                               field="bubbles")
        boxes = []
        for question in unit["questions"]:
            for box in question["boxes"]:
                grid = box.get("grid")
                column = box["column"]
                if grid is None:
                    block = where.get((version, column, "box"))
                    if block is None:
                        continue
                    boxes.append({"column": column, "kind": "written", "page": block["page"],
                                  "region": [round(block["x"], 2), round(block["y"], 2),
                                             120.0, 14.0], "r": RADIUS, "bubbles": []})
                    continue
                origin = where[(version, column, "grid")]
                block = where.get((version, column, "box"), origin)
                gx, gy = origin["x"], origin["y"]
                top = min(block["y"], gy)
                region = [round(block["x"], 2), round(top, 2),
                          round(max(grid["width"], 120.0), 2), round(gy + grid["height"] - top, 2)]
                entry = {"column": column, "kind": grid["kind"], "page": origin["page"],
                         "region": region, "r": RADIUS,
                         "bubbles": [[round(gx + b["x"], 2), round(gy + b["y"], 2), b["row"],
                                      b["value"]] for b in grid["bubbles"]]}
                if grid["kind"] == "number":
                    entry.update(places=grid["places"], decimals=grid["decimals"],
                                 sign=grid["sign"], selector=grid["selector"])
                boxes.append(entry)
        out[version] = {"pages": count, "boxes": boxes}
    return out
