"""Filled papers made by program, for the scanner's tests and benchmark.

`plan_answers` picks, for every box of a manifest, what a student marks (a clean answer, nothing,
two bubbles in a row, a faint mark) and the reading the scanner must give; `fill_page` draws those
marks on a rendered page at the manifest's bubble positions; `distort` turns the page into a poor
scan (turned, scaled, blurred, noisy, JPEG-compressed, perhaps upside down).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import numpy as np

#: How a box is marked, and how often (the rest are clean answers).
CASES = {"blank": 0.04, "double": 0.04, "faint": 0.04}


@dataclass(slots=True)
class Marks:
    """What one box gets: the bubbles filled (indices into the box's bubbles), those filled only
    faintly, and what the scanner must write ('needs_review', or the answer)."""

    column: str
    filled: list[int]
    faint: list[int]
    expected: str
    case: str


def _number_marks(box: dict[str, Any], rng: random.Random) -> tuple[list[int], str]:
    places, decimals = box["places"], box["decimals"]
    bubbles = box["bubbles"]
    index = {(row, value): i for i, (_, _, row, value) in enumerate(bubbles)}
    whole = rng.choice([rng.randrange(10), rng.randrange(100), rng.randrange(10 ** places)])
    digits = str(whole).rjust(places, "0")
    frac = "".join(str(rng.randrange(10)) for _ in range(rng.choice([0, 1, decimals]))) if decimals else ""
    frac = frac.ljust(decimals, "0") if decimals else ""
    filled = []
    skip_leading = rng.random() < 0.5          # leading zeros left empty (allowed)
    for i, power in enumerate(range(places - 1, -1, -1)):
        if skip_leading and digits[i] == "0" and digits[:i + 1].strip("0") == "" and power > 0:
            continue
        filled.append(index[(f"p{power}", digits[i])])
    for i, power in enumerate(range(-1, -decimals - 1, -1)):
        filled.append(index[(f"p{power}", frac[i])])
    value = Decimal(digits + ("." + frac if frac else ""))
    text = format(value.normalize(), "f")
    if box.get("sign") and rng.random() < 0.3 and value != 0:
        filled.append(index[("sign", "-")])
        text = "-" + text
    if box.get("selector"):
        choice = rng.choice(["%", "fraction"])
        filled.append(index[("as", choice)])
        if choice == "%":
            text += "%"
    return filled, text


def plan_box(box: dict[str, Any], rng: random.Random) -> Marks:
    """The marks of one box and what the scanner must read from them."""
    from quizgen.export.bubbles import NEEDS_REVIEW

    column, bubbles = box["column"], box["bubbles"]
    if box["kind"] == "written" or not bubbles:
        return Marks(column, [], [], NEEDS_REVIEW, "written")
    roll = rng.random()
    if roll < CASES["blank"]:
        return Marks(column, [], [], NEEDS_REVIEW, "blank")
    if box["kind"] == "yes_no":
        pick = rng.randrange(2)
        filled, text = [pick], bubbles[pick][3]
    elif box["kind"] == "limits":
        picks = sorted(rng.sample(range(len(bubbles)), rng.choice([1, 1, 2, 3])))
        filled, text = picks, ", ".join(bubbles[i][3] for i in picks)
    else:
        filled, text = _number_marks(box, rng)
    roll -= CASES["blank"]
    if roll < CASES["double"]:
        # a second bubble in the row of one already filled
        row = bubbles[filled[0]][2]
        others = [i for i, b in enumerate(bubbles) if b[2] == row and i not in filled]
        if box["kind"] == "limits":      # several limits are an answer: mark yes/no style rows only
            return Marks(column, filled, [], text, "clean")
        return Marks(column, filled + [rng.choice(others)], [], NEEDS_REVIEW, "double")
    roll -= CASES["double"]
    if roll < CASES["faint"]:
        faint = rng.choice(filled)
        return Marks(column, [i for i in filled if i != faint], [faint], NEEDS_REVIEW, "faint")
    return Marks(column, filled, [], text, "clean")


def plan_answers(student: dict[str, Any], rng: random.Random) -> dict[int, list[tuple[dict, Marks]]]:
    """page → [(box, marks)] for one student's paper."""
    out: dict[int, list[tuple[dict, Marks]]] = {}
    for box in student["sheet"]["boxes"]:
        out.setdefault(box["page"], []).append((box, plan_box(box, rng)))
    return out


def fill_page(image: np.ndarray, dpi: float, marked: list[tuple[dict, Marks]],
              rng: random.Random) -> np.ndarray:
    """Draw the marks on a rendered page (greyscale, page at `dpi`) as a pen would: a dark,
    slightly uneven blot over each bubble; faint marks in light grey."""
    import cv2

    out = image.copy()
    px = dpi / 25.4
    for box, marks in marked:
        r = box["r"] * px
        for i, shade in [(i, rng.randint(10, 60)) for i in marks.filled] + \
                        [(i, rng.randint(150, 200)) for i in marks.faint]:
            x, y = box["bubbles"][i][0] * px, box["bubbles"][i][1] * px
            x += rng.uniform(-0.12, 0.12) * r
            y += rng.uniform(-0.12, 0.12) * r
            axes = (max(1, int(r * rng.uniform(0.85, 1.05))), max(1, int(r * rng.uniform(0.8, 1.0))))
            cv2.ellipse(out, (int(round(x)), int(round(y))), axes, rng.uniform(0, 180), 0, 360,
                        int(shade), -1, lineType=cv2.LINE_AA)
    return out


def distort(image: np.ndarray, rng: random.Random, *, upside_down: bool = False,
            jpeg: int = 40, max_angle: float = 3.0, max_scale: float = 0.03) -> bytes:
    """A page as a cheap scanner returns it, as JPEG bytes: turned up to ±max_angle degrees,
    scaled by up to ±max_scale, blurred, with noise, perhaps upside down."""
    import cv2

    h, w = image.shape
    angle = rng.uniform(-max_angle, max_angle) + (180 if upside_down else 0)
    scale = 1 + rng.uniform(-max_scale, max_scale)
    matrix = cv2.getRotationMatrix2D((w / 2, h / 2), angle, scale)
    # the scanner's bed holds the whole turned page, with a little more paper-white around it
    corners = np.array([[0, 0, 1], [w, 0, 1], [w, h, 1], [0, h, 1]], np.float64) @ matrix.T
    margin = rng.uniform(0, 0.01) * w
    low = corners.min(axis=0) - margin
    size = corners.max(axis=0) + margin - low
    matrix[:, 2] -= low
    out = cv2.warpAffine(image, matrix, (int(size[0]), int(size[1])), flags=cv2.INTER_LINEAR,
                         borderMode=cv2.BORDER_CONSTANT, borderValue=255)
    out = cv2.GaussianBlur(out, (0, 0), rng.uniform(0.5, 1.2))
    cv2.setRNGSeed(rng.randrange(1 << 30))
    noise = np.empty(out.shape, np.int16)
    cv2.randn(noise, 0, 8)
    out = cv2.add(out.astype(np.int16), noise).clip(0, 255).astype(np.uint8)
    ok, data = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, jpeg])
    return data.tobytes()


def images_to_pdf(jpegs: list[bytes], path: str, dpi: float) -> None:
    """JPEG pages into one PDF, each page sized as a scanner at `dpi` would make it."""
    import io

    import pypdfium2 as pdfium


    document = pdfium.PdfDocument.new()
    for data in jpegs:
        import cv2

        h, w = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_GRAYSCALE).shape
        width, height = w * 72 / dpi, h * 72 / dpi
        page = document.new_page(width, height)
        image = pdfium.PdfImage.new(document)
        image.load_jpeg(io.BytesIO(data), inline=True)
        image.set_matrix(pdfium.PdfMatrix(width, 0, 0, height, 0, 0))
        page.insert_obj(image)
        page.gen_content()
    document.save(path)

