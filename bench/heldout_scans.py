"""A second simulator of filled and scanned papers, held out from the scanner's tuning.

The test suite's simulator (`quizgen.scan.synth`) is what the scanner's thresholds are set on;
this one is drawn independently, so that figures measured on it say how the scanner does on marks
and machines it was not fitted to. Nothing in `quizgen/` imports it.

What differs from the suite's:

* students have habits: each paper has one usual way of marking (a firm graphite fill, a ballpoint
  tick, a zigzag, a cross, a light pencil), and about one bubble in five is marked another way
  (a hurried tick or a half fill beside firm fills: the case that must never be dropped);
* marks are drawn as strokes of a pen with pressure and texture (graphite grain, ballpoint's
  gaps), ticks and crosses of random shape that overshoot the ring, half fills as crescents;
* changes of mind: an eraser's smear (darker than the suite's traces) beside the new mark, and
  coffee stains (a ring with a darker rim, or a blot) reaching a bubble;
* scanners: a flatbed with dust and a grey lid edge and gamma; a sheet feeder with roller streaks,
  a stretched feed and skew; phones with a camera tilted 10–25°, page curl, pincushion or barrel,
  a hard-edged shadow, vignetting, motion blur, on a dark cloth or a white table.
"""

from __future__ import annotations

import math
import random
from typing import Any

import numpy as np

from scan_accuracy import DPI, Box

HABITS = ("fill", "tick", "zigzag", "cross", "pencil", "half")
#: Marks a reader can be sure of alone (a lone tick, cross or half fill may go to review).
FIRM = {"fill", "zigzag", "pencil"}


class HeldOut:
    name = "heldout"

    def __init__(self, mix: str):
        self.mix = mix

    # -- what each student marks ------------------------------------------------------------

    def plan(self, student: dict[str, Any], rng: random.Random):
        habit = "fill" if self.mix == "clean" else rng.choice(HABITS)
        plan: dict[int, list] = {}
        boxes = {}
        for box in student["sheet"]["boxes"]:
            if box["kind"] == "written" or not box["bubbles"]:
                continue
            marks, meant = self._box(box, habit, rng)
            plan.setdefault(box["page"], []).append((box, marks))
            boxes[box["column"]] = meant
        return plan, boxes

    def _box(self, box, habit, rng):
        bubbles = box["bubbles"]
        kind = box["kind"]
        if kind == "yes_no":
            chosen = [rng.randrange(2)]
        elif kind == "limits":
            chosen = sorted(rng.sample(range(len(bubbles)), rng.choice([1, 2, 2, 3])))
        else:
            chosen, _ = _number(box, rng)
        marks = []          # (bubble index, how)
        style = habit
        for i in chosen:
            how = habit
            if self.mix != "clean" and rng.random() < 0.2:
                how = rng.choice(["tick", "half", "pencil", "cross"])
            marks.append((i, how))
        text = _answer(box, chosen)
        case = "clean"
        roll = rng.random()
        if self.mix == "clean":
            roll = 1.0 if roll > 0.12 else roll
        if roll < 0.03:
            marks, text, case = [], "needs_review", "blank"
        elif roll < 0.06 and kind != "limits":
            row = bubbles[chosen[0]][2]
            other = rng.choice([j for j, b in enumerate(bubbles) if b[2] == row and j not in chosen])
            marks.append((other, habit))
            text, case = "needs_review", "double"
        elif roll < 0.10:
            # changed their mind: the eraser's smear where the first answer was, beside the new
            row = bubbles[chosen[0]][2]
            others = [j for j, b in enumerate(bubbles) if b[2] == row and j not in chosen]
            if others:
                marks.append((rng.choice(others), "smear"))
                case = "changed"
        elif roll < 0.13 and self.mix != "clean":
            marks.append((rng.randrange(len(bubbles)), "stain"))
            case = "stain"
        how = {h for _, h in marks}
        style = case if case in ("changed", "stain", "blank", "double") else (
            "mixed" if len(how) > 1 else next(iter(how)))
        if case == "clean" and kind == "limits" and len(how) > 1:
            style = "limits-mixed"
        return marks, Box(box["column"], kind, style, text, case)

    # -- drawing --------------------------------------------------------------------------

    def fill(self, image: np.ndarray, marked, rng: random.Random) -> np.ndarray:
        out = image.astype(np.float32)
        px = DPI / 25.4
        pen = rng.choice(["graphite", "ballpoint"])
        for box, marks in marked:
            r = box["r"] * px
            for i, how in marks:
                x, y = box["bubbles"][i][0] * px, box["bubbles"][i][1] * px
                _mark(out, x, y, r, how, pen, rng, px)
        return np.clip(out, 0, 255).astype(np.uint8)

    # -- the machines ----------------------------------------------------------------------

    def scan(self, image: np.ndarray, condition: str, rng: random.Random) -> bytes:
        if condition == "flatbed":
            return _flatbed(image, rng)
        if condition == "sheet-fed":
            return _sheet_fed(image, rng)
        return _phone(image, rng)


def _number(box, rng):
    places, decimals = box["places"], box["decimals"]
    index = {(row, value): i for i, (_, _, row, value) in enumerate(box["bubbles"])}
    value = rng.choice([rng.randrange(10), rng.randrange(1000), rng.randrange(10 ** places)])
    digits = str(value).rjust(places, "0")
    chosen = []
    lead = rng.random() < 0.6
    for k, power in enumerate(range(places - 1, -1, -1)):
        if lead and power > 0 and digits[:k + 1].strip("0") == "":
            continue
        chosen.append(index[(f"p{power}", digits[k])])
    for power in range(-1, -decimals - 1, -1):
        chosen.append(index[(f"p{power}", str(rng.randrange(10)))])
    if box.get("sign") and rng.random() < 0.25 and value:
        chosen.append(index[("sign", "-")])
    if box.get("selector"):
        chosen.append(index[("as", rng.choice(["%", "fraction"]))])
    return chosen, None


def _answer(box, chosen) -> str:
    from decimal import Decimal

    bubbles = box["bubbles"]
    if box["kind"] != "number":
        return ", ".join(bubbles[i][3] for i in sorted(chosen))
    rows = {bubbles[i][2]: bubbles[i][3] for i in chosen}
    places, decimals = box["places"], box["decimals"]
    whole = "".join(rows.get(f"p{p}", "0") for p in range(places - 1, -1, -1))
    frac = "".join(rows.get(f"p{p}", "0") for p in range(-1, -decimals - 1, -1))
    value = Decimal(whole + ("." + frac if frac else ""))
    if rows.get("sign"):
        value = -value
    text = format(value.normalize(), "f")
    text = "0" if text in ("-0", "") else text
    if rows.get("as") == "%":
        text += "%"
    return text


def _stroke(out, points, width, ink, rng, texture):
    """A pen stroke through `points` (px), `width` px wide, of darkness `ink` (0–255 taken off
    the paper), with the pen's texture."""
    import cv2

    mask = np.zeros(out.shape, np.float32)
    pts = np.int32(np.round(np.asarray(points) * 8))
    cv2.polylines(mask, [pts], False, 1.0, max(1, int(round(width))), cv2.LINE_AA, 3)
    _apply(out, mask, ink, rng, texture)


def _apply(out, mask, ink, rng, texture):
    ys, xs = np.nonzero(mask > 0.01)
    if not len(ys):
        return
    y0, y1, x0, x1 = ys.min(), ys.max() + 1, xs.min(), xs.max() + 1
    m = mask[y0:y1, x0:x1]
    if texture == "graphite":       # grain: the paper's tooth shows through
        grain = np.asarray([rng.random() for _ in range(m.size)], np.float32).reshape(m.shape)
        m = m * (0.55 + 0.45 * grain)
    elif texture == "ballpoint":    # skips
        gaps = np.asarray([rng.random() < 0.08 for _ in range(m.size)], np.float32).reshape(m.shape)
        m = m * (1 - 0.6 * gaps)
    region = out[y0:y1, x0:x1]
    region[:] = region * (1 - m) + np.minimum(region, 255 - ink) * m


def _mark(out, x, y, r, how, pen, rng, px):
    import cv2

    ink = rng.uniform(170, 215) if pen == "ballpoint" else rng.uniform(150, 205)
    width = rng.uniform(0.25, 0.5) * px
    if how == "fill":
        # a fill made of many overlapping strokes that mostly stay inside the ring
        angle = rng.uniform(0, math.pi)
        d = np.array([math.cos(angle), math.sin(angle)])
        n = np.array([-d[1], d[0]])
        points = []
        reach = rng.uniform(0.85, 1.1) * r
        t = -reach
        while t <= reach:
            half = math.sqrt(max(reach * reach - t * t, 0))
            points += [n * t - d * half + (x, y), n * t + d * half + (x, y)]
            t += width * rng.uniform(0.5, 0.8)
        _stroke(out, points, width * 1.3, ink, rng, pen)
    elif how == "zigzag":
        points = [(x + rng.uniform(-0.9, 0.9) * r, y + rng.uniform(-0.9, 0.9) * r)
                  for _ in range(rng.randint(10, 16))]
        _stroke(out, points, width * 1.6, ink, rng, pen)
    elif how == "tick":
        s = r * rng.uniform(0.9, 1.4)
        a = (x - 0.6 * s + rng.uniform(-0.2, 0.2) * r, y - 0.1 * s)
        b = (x - 0.1 * s, y + 0.55 * s)
        c = (x + 0.7 * s, y - 0.8 * s + rng.uniform(-0.2, 0.2) * r)
        _stroke(out, [a, b, c], width * rng.uniform(1.0, 1.5), ink, rng, pen)
    elif how == "cross":
        s = r * rng.uniform(0.7, 1.3)
        _stroke(out, [(x - s, y - s), (x + s, y + s)], width * 1.2, ink, rng, pen)
        _stroke(out, [(x - s, y + s), (x + s, y - s)], width * 1.2, ink, rng, pen)
    elif how == "half":
        mask = np.zeros(out.shape, np.float32)
        start = rng.uniform(0, 360)
        cv2.ellipse(mask, (int(x * 8), int(y * 8)), (int(r * 0.9 * 8),) * 2, 0, start,
                    start + rng.uniform(150, 230), 1.0, -1, cv2.LINE_AA, 3)
        _apply(out, mask, ink, rng, pen)
    elif how == "pencil":
        mask = np.zeros(out.shape, np.float32)
        cv2.circle(mask, (int(x * 8), int(y * 8)), int(r * rng.uniform(0.8, 1.0) * 8), 1.0, -1,
                   cv2.LINE_AA, 3)
        _apply(out, mask, rng.uniform(75, 110), rng, "graphite")
    elif how == "smear":
        mask = np.zeros(out.shape, np.float32)
        cv2.ellipse(mask, (int(x * 8), int(y * 8)), (int(r * 1.2 * 8), int(r * 0.8 * 8)),
                    rng.uniform(0, 180), 0, 360, 1.0, -1, cv2.LINE_AA, 3)
        mask = cv2.GaussianBlur(mask, (0, 0), 0.3 * r)
        _apply(out, mask, rng.uniform(30, 60), rng, "graphite")
    elif how == "stain":
        mask = np.zeros(out.shape, np.float32)
        cx, cy = x + rng.uniform(-2, 2) * r, y + rng.uniform(-2, 2) * r
        radius = r * rng.uniform(2.5, 5)
        if rng.random() < 0.5:          # a cup's ring: a darker rim
            cv2.circle(mask, (int(cx * 8), int(cy * 8)), int(radius * 8), 1.0,
                       max(1, int(0.12 * radius)), cv2.LINE_AA, 3)
            mask = cv2.GaussianBlur(mask, (0, 0), 1.0) + 0.25 * _disc(out.shape, cx, cy, radius)
        else:
            mask = cv2.GaussianBlur(_disc(out.shape, cx, cy, radius), (0, 0), 0.3 * radius)
        _apply(out, np.clip(mask, 0, 1), rng.uniform(35, 70), rng, "none")
    else:
        raise ValueError(how)


def _disc(shape, x, y, radius):
    import cv2

    mask = np.zeros(shape, np.float32)
    cv2.circle(mask, (int(x * 8), int(y * 8)), int(radius * 8), 1.0, -1, cv2.LINE_AA, 3)
    return mask


def _jpeg(image: np.ndarray, quality: int) -> bytes:
    import cv2

    ok, data = cv2.imencode(".jpg", np.clip(image, 0, 255).astype(np.uint8),
                            [cv2.IMWRITE_JPEG_QUALITY, quality])
    return data.tobytes()


def _flatbed(image, rng):
    """A flatbed: the page a little off square on the glass, the lid's grey edge, dust, gamma."""
    import cv2

    h, w = image.shape
    angle = rng.uniform(-2.0, 2.0) + (180 if rng.random() < 0.2 else 0)
    m = cv2.getRotationMatrix2D((w / 2, h / 2), angle, 1.0)
    bed = (int(w * 1.04), int(h * 1.03))
    m[:, 2] += (rng.uniform(0, 0.04 * w), rng.uniform(0, 0.03 * h))
    out = cv2.warpAffine(image, m, bed, flags=cv2.INTER_CUBIC, borderMode=cv2.BORDER_CONSTANT,
                         borderValue=rng.randint(170, 215)).astype(np.float32)
    out = 255 * (out / 255) ** rng.uniform(0.8, 1.25)
    for _ in range(rng.randint(20, 80)):          # dust
        cv2.circle(out, (rng.randrange(bed[0]), rng.randrange(bed[1])), rng.randint(1, 3),
                   rng.uniform(40, 140), -1)
    out = cv2.GaussianBlur(out, (0, 0), rng.uniform(0.4, 0.9))
    return _jpeg(out + np.random.default_rng(rng.randrange(1 << 30)).normal(0, 5, out.shape),
                 rng.randint(45, 90))


def _sheet_fed(image, rng):
    """A sheet feeder: skew, the feed stretching the page, streaks from a dirty roller."""
    import cv2

    h, w = image.shape
    stretch = 1 + rng.uniform(-0.025, 0.025)
    angle = rng.uniform(-1.5, 1.5) + (180 if rng.random() < 0.5 else 0)
    m = cv2.getRotationMatrix2D((w / 2, h / 2), angle, 1.0)
    m[1] *= stretch
    out = cv2.warpAffine(image, m, (w, int(h * 1.03)), flags=cv2.INTER_LINEAR,
                         borderMode=cv2.BORDER_CONSTANT, borderValue=255).astype(np.float32)
    for _ in range(rng.randint(1, 4)):
        x = rng.randrange(w)
        out[:, x:x + rng.randint(1, 3)] *= rng.uniform(0.75, 0.92)
    out = (out - 128) * rng.uniform(1.0, 1.3) + 128 + rng.uniform(0, 15)
    return _jpeg(out + np.random.default_rng(rng.randrange(1 << 30)).normal(0, 6, out.shape),
                 rng.randint(35, 75))


def _phone(image, rng):
    """A phone: the page curled, seen tilted 10–25°, the lens's pincushion or barrel, a hard
    shadow of the phone, vignetting, a little motion blur, on a dark cloth or a white table."""
    import cv2

    h, w = image.shape
    size = (1700, 2300) if rng.random() < 0.7 else (2300, 1700)
    curl = rng.uniform(0, 0.012) * h
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    page = cv2.remap(image, xs, ys + curl * np.sin(np.pi * xs / w), cv2.INTER_LINEAR,
                     borderMode=cv2.BORDER_REPLICATE)
    tilt = math.radians(rng.uniform(10, 25)) * rng.choice([-1, 1])
    side = math.radians(rng.uniform(-6, 6))
    turn = math.radians(rng.uniform(-8, 8) + (180 if rng.random() < 0.1 else 0))
    corners = np.float64([[-w / 2, -h / 2, 0], [w / 2, -h / 2, 0], [w / 2, h / 2, 0],
                          [-w / 2, h / 2, 0]])
    cx, sx, cy, sy = math.cos(tilt), math.sin(tilt), math.cos(side), math.sin(side)
    rot = np.array([[cy, 0, sy], [0, 1, 0], [-sy, 0, cy]]) @ np.array(
        [[1, 0, 0], [0, cx, -sx], [0, sx, cx]])
    placed = corners @ rot.T + [0, 0, 2.0 * max(w, h)]
    flat = placed[:, :2] * 1.4 * max(w, h) / placed[:, 2:3]
    ct, st = math.cos(turn), math.sin(turn)
    flat = flat @ np.array([[ct, -st], [st, ct]]).T
    span = flat.max(axis=0) - flat.min(axis=0)
    k = rng.uniform(0.8, 0.92) * min(size[0] / span[0], size[1] / span[1])
    flat = (flat - flat.min(axis=0)) * k
    flat += (np.array(size) - flat.max(axis=0)) * [rng.uniform(0.2, 0.8), rng.uniform(0.2, 0.8)]
    matrix = cv2.getPerspectiveTransform(np.float32([[0, 0], [w, 0], [w, h], [0, h]]),
                                         np.float32(flat))
    warped = cv2.warpPerspective(page, matrix, size, flags=cv2.INTER_AREA).astype(np.float32)
    inside = cv2.warpPerspective(np.ones((h, w), np.float32), matrix, size)
    table = rng.choice([rng.uniform(30, 70), rng.uniform(215, 240)])
    scene = warped * inside + table * (1 - inside)
    gy, gx = np.mgrid[0:size[1], 0:size[0]].astype(np.float32)
    u, v = (gx - size[0] / 2) / size[0], (gy - size[1] / 2) / size[1]
    scene *= 1 - rng.uniform(0.15, 0.35) * (u * u + v * v) * 2          # vignetting
    a, b = rng.uniform(-1, 1), rng.uniform(-1, 1)                       # the phone's shadow
    edge = a * u + b * v + rng.uniform(-0.3, 0.1)
    soft = rng.uniform(0.005, 0.03)
    scene *= 1 - rng.uniform(0.25, 0.5) * (1 / (1 + np.exp(-edge / soft)))
    k1 = rng.uniform(-0.05, 0.05)                                        # barrel or pincushion
    rr = u * u + v * v
    scene = cv2.remap(scene, (u * (1 + k1 * rr) * size[0] + size[0] / 2).astype(np.float32),
                      (v * (1 + k1 * rr) * size[1] + size[1] / 2).astype(np.float32),
                      cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    length = rng.randint(1, 4)
    kernel = np.zeros((length * 2 + 1,) * 2, np.float32)
    kernel[length, :] = 1
    kernel = cv2.warpAffine(kernel, cv2.getRotationMatrix2D((length, length),
                                                            rng.uniform(0, 180), 1.0),
                            kernel.shape)
    scene = cv2.filter2D(scene, -1, kernel / max(float(kernel.sum()), 1e-6))
    noise = np.random.default_rng(rng.randrange(1 << 30)).normal(0, 4, scene.shape)
    return _jpeg(scene + noise, rng.randint(70, 92))
