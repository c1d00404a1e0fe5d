"""Filled papers made by program, for the scanner's tests and benchmark.

`plan_answers` picks, for every box of a manifest, what a student marks (a clean answer, nothing,
two bubbles in a row, an erased mark alone) and the reading the scanner must give, and how each
box is marked (`STYLES`: solid, off-centre, over the edge, hatched, scribbled, partly filled,
ticked, crossed, in light pencil, or with an erased smudge beside the real mark); `fill_page` draws
those marks on a rendered page at the manifest's bubble positions; `distort` turns the page into a
poor flatbed scan (turned, scaled, blurred, noisy, JPEG-compressed, perhaps upside down) and
`photograph` into a phone photo of it lying on a desk (tilted, turned, barrel-distorted, lit
unevenly, partly shadowed, with the desk around it).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import numpy as np

#: How a box is marked, and how often (the rest are clean answers).
CASES = {"blank": 0.04, "double": 0.04, "faint": 0.04}
#: The ways a student marks a bubble. A box's marks all have one style; every style but a tick
#: and a cross is a mark the scanner must read (those two it may send to review).
STYLES = ("solid", "off_centre", "over_edge", "hatching", "scribble", "partial", "tick", "cross",
          "light", "erased_beside")
#: Styles whose box may go to review though it holds one clear answer.
MAY_REVIEW = {"tick", "cross", "erased_beside"}


@dataclass(slots=True)
class Marks:
    """What one box gets: the bubbles filled (indices into the box's bubbles), those filled only
    faintly, and what the scanner must write ('needs_review', or the answer)."""

    column: str
    filled: list[int]
    faint: list[int]
    expected: str
    case: str
    style: str = "solid"
    smudges: list[int] = field(default_factory=list)    # erased marks beside the real ones


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


def plan_box(box: dict[str, Any], rng: random.Random, styles: tuple[str, ...] = ("solid",)) -> Marks:
    """The marks of one box and what the scanner must read from them, in one of `styles`."""
    marks = _plan_box(box, rng)
    style = rng.choice(styles)
    if style == "erased_beside" and marks.filled:
        # a smudge where the student first marked, in the row of one real mark
        row = box["bubbles"][marks.filled[0]][2]
        taken = set(marks.filled) | set(marks.faint)
        others = [i for i, b in enumerate(box["bubbles"]) if b[2] == row and i not in taken]
        if others:
            marks.smudges = [rng.choice(others)]
    marks.style = style
    return marks


def _plan_box(box: dict[str, Any], rng: random.Random) -> Marks:
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
        kept = [i for i in filled if i != faint]
        if box["kind"] == "limits" and kept:
            # an option erased beside others still filled: the answer changed, read as it stands
            return Marks(column, kept, [faint], ", ".join(bubbles[i][3] for i in kept), "erased")
        return Marks(column, kept, [faint], NEEDS_REVIEW, "faint")
    return Marks(column, filled, [], text, "clean")


def plan_answers(student: dict[str, Any], rng: random.Random,
                 styles: tuple[str, ...] = ("solid",)) -> dict[int, list[tuple[dict, Marks]]]:
    """page → [(box, marks)] for one student's paper."""
    out: dict[int, list[tuple[dict, Marks]]] = {}
    for box in student["sheet"]["boxes"]:
        out.setdefault(box["page"], []).append((box, plan_box(box, rng, styles)))
    return out


def fill_page(image: np.ndarray, dpi: float, marked: list[tuple[dict, Marks]],
              rng: random.Random) -> np.ndarray:
    """Draw the marks on a rendered page (greyscale, page at `dpi`) as a student would, in each
    box's style; an erased mark (a box's faint one, a smudge) as the grey trace an eraser leaves."""
    out = image.copy()
    px = dpi / 25.4
    for box, marks in marked:
        r = box["r"] * px
        for i in marks.filled:
            x, y = box["bubbles"][i][0] * px, box["bubbles"][i][1] * px
            draw_mark(out, x, y, r, marks.style, rng, px)
        for i in marks.faint + marks.smudges:
            x, y = box["bubbles"][i][0] * px, box["bubbles"][i][1] * px
            draw_mark(out, x, y, r, "erased", rng, px)
    return out


def draw_mark(out: np.ndarray, x: float, y: float, r: float, style: str, rng: random.Random,
              px: float) -> None:
    """One bubble (centre x, y and radius r in pixels; px pixels per mm) marked in `style`."""
    dark = rng.randint(10, 60)
    pen = max(1, int(round(rng.uniform(0.3, 0.45) * px)))
    if style in _FILLS:
        _draw_fill(out, x, y, r, style, rng, dark)
    elif style in _STROKES:
        _draw_strokes(out, x, y, r, style, rng, dark, pen, px)
    elif style == "light":
        _draw_light(out, x, y, r, rng)
    elif style == "erased":
        _draw_erased(out, x, y, r, rng)
    else:
        raise ValueError(style)


#: Marks that fill an area in ink, and marks drawn as pen strokes.
_FILLS = ("solid", "erased_beside", "off_centre", "over_edge", "partial")
_STROKES = ("hatching", "scribble", "tick", "cross")
_SHIFT = 4                                      # sub-pixel drawing: coordinates × 16


def _at(x: float, y: float):
    """Points (u, v) from the centre (x, y), in sub-pixel coordinates (× 16)."""
    def p(u, v):
        return (int(round((x + u) * 16)), int(round((y + v) * 16)))

    return p


def _draw_fill(out: np.ndarray, x: float, y: float, r: float, style: str, rng: random.Random,
               dark: int) -> None:
    import cv2

    shift = _SHIFT
    if style in ("solid", "erased_beside"):
        x += rng.uniform(-0.12, 0.12) * r
        y += rng.uniform(-0.12, 0.12) * r
        axes = (int(r * rng.uniform(0.85, 1.05) * 16), int(r * rng.uniform(0.8, 1.0) * 16))
        cv2.ellipse(out, _at(x, y)(0, 0), axes, rng.uniform(0, 180), 0, 360, dark, -1, cv2.LINE_AA,
                    shift)
    elif style == "off_centre":
        angle = rng.uniform(0, 2 * np.pi)
        cv2.circle(out, _at(x, y)(0.35 * r * np.cos(angle), 0.35 * r * np.sin(angle)),
                   int(0.85 * r * 16), dark, -1, cv2.LINE_AA, shift)
    elif style == "over_edge":
        cv2.ellipse(out, _at(x, y)(rng.uniform(-0.15, 0.15) * r, 0),
                    (int(1.35 * r * 16), int(1.2 * r * 16)),
                    rng.uniform(0, 180), 0, 360, dark, -1, cv2.LINE_AA, shift)
    else:                                       # partial
        start = rng.uniform(0, 360)
        cv2.ellipse(out, _at(x, y)(0, 0), (int(r * 0.95 * 16),) * 2, start, 0, rng.uniform(200, 290),
                    dark, -1, cv2.LINE_AA, shift)


def _draw_strokes(out: np.ndarray, x: float, y: float, r: float, style: str, rng: random.Random,
                  dark: int, pen: int, px: float) -> None:
    import cv2

    shift, p = _SHIFT, _at(x, y)
    if style == "hatching":
        angle = rng.uniform(0, np.pi)
        d = np.array([np.cos(angle), np.sin(angle)])
        n = np.array([-d[1], d[0]])
        step = rng.uniform(0.3, 0.45) * px
        for t in np.arange(-0.95 * r, 0.95 * r, step):
            half = np.sqrt(max(r * r - t * t, 0)) * 0.95
            a, b = n * t - d * half, n * t + d * half
            cv2.line(out, p(*a), p(*b), dark, pen, cv2.LINE_AA, shift)
    elif style == "scribble":
        points = []
        for k in range(rng.randint(9, 14)):
            angle = rng.uniform(0, 2 * np.pi)
            radius = r * rng.uniform(0.5, 1.0)
            points.append(p(radius * np.cos(angle), radius * np.sin(angle)))
        cv2.polylines(out, [np.int32(points)], False, dark, pen + 1, cv2.LINE_AA, shift)
    elif style == "tick":
        a, b, c = (-0.6 * r, 0.0), (-0.1 * r, 0.6 * r), (0.8 * r, -0.9 * r)
        cv2.polylines(out, [np.int32([p(*a), p(*b), p(*c)])], False, dark, pen, cv2.LINE_AA, shift)
    else:                                       # cross
        e = 0.8 * r
        cv2.line(out, p(-e, -e), p(e, e), dark, pen, cv2.LINE_AA, shift)
        cv2.line(out, p(-e, e), p(e, -e), dark, pen, cv2.LINE_AA, shift)


def _draw_light(out: np.ndarray, x: float, y: float, r: float, rng: random.Random) -> None:
    """A pencil pressed lightly: grey 150–180 over the bubble, with the paper's grain in it."""
    import cv2

    shade = rng.randint(150, 180)
    size = int(2 * r + 6)
    x0, y0 = int(x - r - 3), int(y - r - 3)
    patch = out[y0:y0 + size, x0:x0 + size]
    mask = np.zeros(patch.shape, np.uint8)
    cv2.ellipse(mask, (int((x - x0) * 16), int((y - y0) * 16)), (int(r * 0.95 * 16),) * 2,
                rng.uniform(0, 180), 0, 360, 255, -1, cv2.LINE_AA, _SHIFT)
    grain = np.array([rng.gauss(0, 10) for _ in range(patch.size)]).reshape(patch.shape)
    ink = np.clip(shade + grain, 0, 255)
    alpha = mask / 255.0
    patch[:] = np.minimum(patch, (patch * (1 - alpha) + ink * alpha)).astype(np.uint8)


def _draw_erased(out: np.ndarray, x: float, y: float, r: float, rng: random.Random) -> None:
    """What an eraser leaves: a patchy, blurred grey trace, lighter than any pencil mark."""
    import cv2

    size = int(2 * r + 8)
    x0, y0 = int(x - size / 2), int(y - size / 2)
    patch = out[y0:y0 + size, x0:x0 + size]
    blot = np.zeros(patch.shape, np.float32)
    cv2.ellipse(blot, (int((x - x0) * 16), int((y - y0) * 16)), (int(r * 16),) * 2, 0, 0, 360,
                1.0, -1, cv2.LINE_AA, _SHIFT)
    noise = np.array([rng.random() for _ in range(patch.size)], np.float32).reshape(patch.shape)
    blot = cv2.GaussianBlur(blot * (0.4 + 0.6 * noise), (0, 0), 0.25 * r)
    depth = rng.uniform(25, 45)
    patch[:] = np.minimum(patch, 255 - depth * blot / max(float(blot.max()), 1e-6)).astype(np.uint8)


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



def photograph(image: np.ndarray, rng: random.Random, *, max_tilt: float = 25.0,
               max_turn: float = 5.0, barrel: float = 0.03, shadow: float = 0.5,
               cast: float = 0.5, exposure: float = 0.12,
               size: tuple[int, int] = (1600, 2200), jpeg: int = 85,
               upside_down: bool = False, curl: float = 0.0) -> bytes:
    """A page (greyscale, any resolution) as a phone photographs it lying on a desk, as JPEG bytes
    of `size` pixels: the camera tilted up to `max_tilt` degrees from straight above (a keystone:
    the far edge shorter), the page turned up to ±`max_turn` degrees, barrel distortion of the lens
    (`barrel`: the share a corner of the frame moves inwards), light falling off across the page,
    a soft shadow of up to `shadow` depth over part of it, in half the photos (`cast`) the
    straight edge of a shadow cast by the phone or a hand held over the page (a penumbra a few
    millimetres wide), the exposure up to `exposure` too bright (the white paper clips at 255),
    a wooden desk around it. With `curl`, the page is not flat: each column of it is moved
    along the page by up to `curl` of its height, in a half wave across it (a page that has been
    folded or rolled), so a row of bubbles bends."""
    import cv2

    w_out, h_out = size
    h, w = image.shape
    if curl:
        ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
        image = cv2.remap(image, xs, ys + curl * h * np.sin(np.pi * xs / w), cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_REPLICATE)
    matrix = _camera(w, h, size, rng, max_tilt=max_tilt, max_turn=max_turn,
                     upside_down=upside_down)
    desk = _desk((h_out, w_out), rng)
    page = cv2.warpPerspective(image, matrix, (w_out, h_out), flags=cv2.INTER_AREA,
                               borderMode=cv2.BORDER_CONSTANT, borderValue=0).astype(np.float32)
    inside = cv2.warpPerspective(np.full((h, w), 255, np.uint8), matrix, (w_out, h_out),
                                 flags=cv2.INTER_LINEAR) / 255.0
    scene = page * inside + desk * (1 - inside)
    ys, xs = np.mgrid[0:h_out, 0:w_out].astype(np.float32)
    scene *= _light(xs, ys, size, rng, shadow)
    if rng.random() < cast:
        scene *= _cast_shadow(xs, ys, size, rng)
    scene *= 1 + rng.uniform(0, exposure)
    # the lens: barrel distortion about the frame's centre
    if barrel:
        cx, cy = w_out / 2, h_out / 2
        norm = np.hypot(cx, cy)
        u, v = (xs - cx) / norm, (ys - cy) / norm
        factor = 1 + barrel * rng.uniform(0.5, 1.0) * (u * u + v * v)
        scene = cv2.remap(scene, (u * factor * norm + cx).astype(np.float32),
                          (v * factor * norm + cy).astype(np.float32), cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_REFLECT)
    scene = cv2.GaussianBlur(scene, (0, 0), rng.uniform(0.6, 1.1))
    cv2.setRNGSeed(rng.randrange(1 << 30))
    noise = np.empty(scene.shape, np.float32)
    cv2.randn(noise, 0, 4)
    out = np.clip(scene + noise, 0, 255).astype(np.uint8)
    ok, data = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, jpeg])
    return data.tobytes()


def _camera(w: int, h: int, size: tuple[int, int], rng: random.Random, *, max_tilt: float,
            max_turn: float, upside_down: bool) -> np.ndarray:
    """The perspective that takes a w × h page into the photo's frame of `size`."""
    import cv2

    w_out, h_out = size
    # The page in 3-D, centred, tilted about a horizontal axis (and a little about the vertical),
    # seen by a pinhole camera; then turned in the frame.
    tilt = np.radians(rng.uniform(0.4, 1.0) * max_tilt) * rng.choice([-1, 1])
    yaw = np.radians(rng.uniform(-0.3, 0.3) * max_tilt)
    turn = np.radians(rng.uniform(-max_turn, max_turn) + (180 if upside_down else 0))
    corners = np.float64([[-w / 2, -h / 2, 0], [w / 2, -h / 2, 0], [w / 2, h / 2, 0], [-w / 2, h / 2, 0]])
    rx = np.array([[1, 0, 0], [0, np.cos(tilt), -np.sin(tilt)], [0, np.sin(tilt), np.cos(tilt)]])
    ry = np.array([[np.cos(yaw), 0, np.sin(yaw)], [0, 1, 0], [-np.sin(yaw), 0, np.cos(yaw)]])
    rz = np.array([[np.cos(turn), -np.sin(turn), 0], [np.sin(turn), np.cos(turn), 0], [0, 0, 1]])
    focal = 1.2 * max(w, h)                     # a phone's wide lens
    placed = corners @ (rz @ ry @ rx).T + [0, 0, 1.6 * max(w, h)]
    flat = placed[:, :2] * focal / placed[:, 2:3]
    # fitted into the frame with some desk around the page
    fill = rng.uniform(0.78, 0.9)
    span = flat.max(axis=0) - flat.min(axis=0)
    k = fill * min(w_out / span[0], h_out / span[1])
    flat = (flat - flat.min(axis=0)) * k
    flat += (np.array([w_out, h_out]) - flat.max(axis=0)) * np.array([rng.uniform(0.3, 0.7),
                                                                      rng.uniform(0.3, 0.7)])
    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    return cv2.getPerspectiveTransform(src, np.float32(flat))


def _light(xs: np.ndarray, ys: np.ndarray, size: tuple[int, int], rng: random.Random,
           shadow: float) -> np.ndarray:
    """Light: brighter on one side, and a soft shadow (a hand, the phone) over part of the page."""
    import cv2

    w_out, h_out = size
    angle = rng.uniform(0, 2 * np.pi)
    ramp = (np.cos(angle) * xs / w_out + np.sin(angle) * ys / h_out)
    ramp = (ramp - ramp.min()) / max(float(np.ptp(ramp)), 1e-6)
    light = 0.95 - rng.uniform(0.15, 0.3) * ramp
    if shadow > 0:
        small = 8                                  # drawn at 1/8 and enlarged: it is soft
        blob = np.zeros((h_out // small, w_out // small), np.float32)
        cx, cy = rng.choice([0, w_out]) / small, rng.uniform(0, h_out) / small
        axes = (int(rng.uniform(0.3, 0.6) * w_out / small), int(rng.uniform(0.2, 0.45) * h_out / small))
        cv2.ellipse(blob, (int(cx), int(cy)), axes, rng.uniform(0, 180), 0, 360, 1.0, -1)
        blob = cv2.GaussianBlur(blob, (0, 0), rng.uniform(0.02, 0.06) * w_out / small)
        blob = cv2.resize(blob, (w_out, h_out), interpolation=cv2.INTER_LINEAR)
        light *= 1 - rng.uniform(0.3, 1.0) * shadow * blob
    return light


def _cast_shadow(xs: np.ndarray, ys: np.ndarray, size: tuple[int, int],
                 rng: random.Random) -> np.ndarray:
    """The shadow of something held over the page: a straight edge across the frame at any
    angle, its penumbra 0.3–2% of the frame wide, 15–40% darker on its far side."""
    w_out, h_out = size
    angle = rng.uniform(0, 2 * np.pi)
    x0, y0 = rng.uniform(0.25, 0.75) * w_out, rng.uniform(0.25, 0.75) * h_out
    across = (np.cos(angle) * (xs - x0) + np.sin(angle) * (ys - y0)) / (
        rng.uniform(0.003, 0.02) * w_out)
    return 1 - rng.uniform(0.15, 0.4) * 0.5 * (1 + np.tanh(across))


def _desk(shape: tuple[int, int], rng: random.Random) -> np.ndarray:
    """A wooden desk: a brownish grey with grain along one direction."""
    import cv2

    cv2.setRNGSeed(rng.randrange(1 << 30))
    grain = np.empty((shape[0] // 2, shape[1] // 8), np.float32)
    cv2.randn(grain, 0, 30)
    grain = cv2.GaussianBlur(grain, (0, 0), sigmaX=5, sigmaY=1)
    grain = cv2.resize(grain, (shape[1], shape[0]), interpolation=cv2.INTER_LINEAR)
    return np.clip(rng.uniform(90, 140) + 3 * grain, 20, 230)
