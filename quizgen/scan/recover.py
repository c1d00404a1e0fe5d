"""A page whose QR code was not read at first sight: found by its corner marks alone, and its
code read again where the marks say it is.

A phone held by hand blurs a little as it takes the picture, and a page photographed from across a
desk puts few pixels on its QR code; the reader then finds no code in the whole image. The page is
still there: its four corner marks are the outermost mark-shaped blobs in the picture, and the
homography they give (which of the two ways up is told by the printed code's ink, and the long
sides by the page's shape) says where the code lies. That small region is cut out, enlarged, and
read again as it is, sharpened, and with the blur of a short shake taken out (a Wiener
deconvolution along each of a few directions and lengths). A code read this way carries the same
checksum as any other, so a page is never named by a misread code; a page still not read keeps
its homography, so its printed grids can be compared with the exam's pages (`fingerprint`).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

import numpy as np

#: Each try at the corner marks assumes the page's longer side spans this share of the image's.
SPANS = (0.95, 0.6, 0.38)
#: The outermost candidates tried as the page's corners.
HULL_MOST = 12
#: The printed QR code: its dark share; the same square at the opposite corner, upside down,
#: holds at most LIGHT of it (margin, header).
QR_INK = 0.25
#: The code's region is enlarged to this many pixels per module, when its modules are smaller.
PX_PER_MODULE = 6.0
MODULES = 25
#: The blur of a shake: its lengths (px of the image) and directions (degrees) tried, and the
#: Wiener filter's noise-to-signal ratio.
SHAKE_PX = tuple(float(n) for n in range(3, 15))
SHAKE_ANGLES = tuple(range(0, 180, 10))
WIENER = 0.02


@dataclass(slots=True)
class Found:
    """A page found by its corner marks: the homography page mm → scan px and, when its code was
    read at the second try, what it names and the code's corners in the scan; else the version
    its cover's code names, when it is a first page and that code was read."""

    matrix: np.ndarray
    code: tuple[str, str, int] | None
    corners: np.ndarray | None
    cover: str | None = None


def find_page(gray: np.ndarray, layout: dict[str, Any]) -> Found | None:
    """The page in `gray` by its corner marks alone, and its code read in the place they give."""
    for span in SPANS:
        scale = span * max(gray.shape) / max(layout["page_size"])      # px per mm, a guess
        matrix = _corners(gray, layout, scale)
        if matrix is None:
            continue
        code, corners = _read_code(gray, layout, matrix)
        return Found(matrix, code, corners, None if code else _cover(gray))
    return None


def _cover(gray: np.ndarray) -> str | None:
    """The version a first page's cover code names (a larger code, of the version alone), read
    anywhere in the image, or None."""
    import re

    import cv2
    import zxingcpp

    half = cv2.resize(gray, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
    for view in (gray, half):
        for barcode in zxingcpp.read_barcodes(view, formats=zxingcpp.BarcodeFormat.QRCode):
            if re.fullmatch(r"[0-9A-Z]{4,16}", barcode.text.strip()):
                return barcode.text.strip()
    return None


def _corners(gray: np.ndarray, layout: dict[str, Any], scale: float) -> np.ndarray | None:
    """The homography (page mm → scan px) of four outermost mark-shaped blobs that make the
    page: the long sides long, and the QR code's ink at its corner and not at the opposite one."""
    import cv2

    from quizgen.scan.marks import mark_candidates

    away = np.float32([[-1e4, -1e4]] * 4)
    candidates = mark_candidates(gray, scale, layout["mark_size"], away)
    if len(candidates) < 4:
        return None
    hull = cv2.convexHull(candidates.astype(np.float32)).reshape(-1, 2)
    if len(hull) < 4:
        return None
    if len(hull) > HULL_MOST:
        centre = hull.mean(axis=0)
        far = np.argsort(-np.hypot(*(hull - centre).T))[:HULL_MOST]
        hull = hull[np.sort(far)]
    quads = sorted(itertools.combinations(range(len(hull)), 4),
                   key=lambda q: -cv2.contourArea(hull[list(q)]))
    marks = np.float32(layout["marks"])
    for quad in quads[:6]:
        points = hull[list(quad)]
        matrix = _orient(gray, layout, marks, points)
        if matrix is not None:
            return matrix
    return None


def _orient(gray: np.ndarray, layout: dict[str, Any], marks: np.ndarray,
            points: np.ndarray) -> np.ndarray | None:
    """Which of the four points is which mark: the page's long sides on the quadrilateral's long
    sides, and the way up where the QR code's corner holds ink and the opposite corner none."""
    import cv2

    # the hull runs one way round; the marks run top-left, top-right, bottom-right, bottom-left
    if cv2.contourArea(points) * cv2.contourArea(marks) < 0 or _signed(points) * _signed(marks) < 0:
        points = points[::-1]
    long_marks = np.hypot(*(marks[1] - marks[0])) < np.hypot(*(marks[2] - marks[1]))
    found = []
    for shift in range(4):
        rolled = np.roll(points, -shift, axis=0)
        sides = [np.hypot(*(rolled[(i + 1) % 4] - rolled[i])) for i in range(4)]
        if ((sides[1] + sides[3]) > (sides[0] + sides[2])) != long_marks:
            continue
        matrix = cv2.getPerspectiveTransform(marks, rolled.astype(np.float32))
        found.append((_ink(gray, layout, matrix), matrix))
    found.sort(key=lambda f: -f[0])
    if len(found) == 2 and found[0][0] >= QR_INK and found[1][0] <= 0.5 * found[0][0]:
        return found[0][1]
    return None


def _signed(points: np.ndarray) -> float:
    x, y = points[:, 0].astype(np.float64), points[:, 1].astype(np.float64)
    return float(np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y))


def _ink(gray: np.ndarray, layout: dict[str, Any], matrix: np.ndarray) -> float:
    """The dark share of the QR code's square as this homography puts it (a printed code: about
    half; blank paper: none)."""
    import cv2

    side = 8.0                                    # px per mm of the view
    qx, qy = layout["qr"]
    size = layout["qr_size"]
    to_view = np.float64([[side, 0, -qx * side], [0, side, -qy * side], [0, 0, 1]])
    view = cv2.warpPerspective(gray, to_view @ np.linalg.inv(matrix),
                               (int(size * side), int(size * side)),
                               flags=cv2.INTER_AREA | cv2.WARP_FILL_OUTLIERS,
                               borderMode=cv2.BORDER_CONSTANT, borderValue=255)
    paper = float(np.percentile(view, 95))
    return float(np.mean(view < 0.6 * paper))


def _read_code(gray: np.ndarray, layout: dict[str, Any], matrix: np.ndarray):
    """(exam, version, page) and the code's corners (scan px) read in the square where the
    homography puts the code; (None, None) when no view of it reads."""
    import cv2

    qx, qy = layout["qr"]
    size = layout["qr_size"]
    square = np.float32([[qx, qy], [qx + size, qy], [qx + size, qy + size], [qx, qy + size]])
    at = cv2.perspectiveTransform(square.reshape(-1, 1, 2), matrix).reshape(-1, 2)
    side = float(np.mean([np.hypot(*(at[(i + 1) % 4] - at[i])) for i in range(4)]))
    pad = 0.5 * side
    x0, y0 = np.floor(at.min(axis=0) - pad).astype(int)
    x1, y1 = np.ceil(at.max(axis=0) + pad).astype(int)
    h, w = gray.shape
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
    if x1 - x0 < 8 or y1 - y0 < 8:
        return None, None
    crop = np.ascontiguousarray(gray[y0:y1, x0:x1])
    for view, zoom in _views(crop, side / MODULES):
        got = _decode(view)
        if got is not None:
            parsed, corners = got
            return parsed, corners / zoom + np.float32([x0, y0])
    return None, None


def _views(crop: np.ndarray, module: float):
    """The code's region (and its scale in it) as it is, smaller (a blur shrinks with it),
    larger when its modules are small, sharpened, and with each shake's blur taken out."""
    import cv2

    yield crop, 1.0
    small = cv2.resize(crop, None, fx=0.6, fy=0.6, interpolation=cv2.INTER_AREA)
    yield small, 0.6
    zoom = max(1.0, PX_PER_MODULE / max(module, 0.5))
    large = cv2.resize(crop, None, fx=zoom, fy=zoom, interpolation=cv2.INTER_CUBIC)
    blur = cv2.GaussianBlur(large, (0, 0), 0.5 * module * zoom)
    yield cv2.addWeighted(large, 2.0, blur, -1.0, 0), zoom
    zoom = max(2.0, zoom)
    large = cv2.resize(crop, None, fx=zoom, fy=zoom, interpolation=cv2.INTER_CUBIC)
    spectrum = np.fft.rfft2(large.astype(np.float32) / 255.0)
    for length in SHAKE_PX:
        for angle in SHAKE_ANGLES:
            yield _unshaken(large.shape, spectrum, length * zoom, angle), zoom


def _unshaken(shape: tuple[int, int], spectrum: np.ndarray, length: float,
              angle: float) -> np.ndarray:
    """A Wiener deconvolution of a straight blur `length` px long at `angle` degrees (the blur
    drawn with sub-pixel weights, centred on the origin)."""
    kernel = np.zeros(shape, np.float32)
    dx, dy = np.cos(np.radians(angle)) * length / 2, np.sin(np.radians(angle)) * length / 2
    for t in np.linspace(-1.0, 1.0, int(4 * length) + 1):
        x, y = t * dx, t * dy
        x0, y0 = int(np.floor(x)), int(np.floor(y))
        fx, fy = x - x0, y - y0
        for xx, yy, weight in ((x0, y0, (1 - fx) * (1 - fy)), (x0 + 1, y0, fx * (1 - fy)),
                               (x0, y0 + 1, (1 - fx) * fy), (x0 + 1, y0 + 1, fx * fy)):
            kernel[yy % shape[0], xx % shape[1]] += weight
    psf = np.fft.rfft2(kernel / kernel.sum())
    restored = np.fft.irfft2(spectrum * np.conj(psf) / (np.abs(psf) ** 2 + WIENER), s=shape)
    return np.clip(restored * 255.0, 0, 255).astype(np.uint8)


def _decode(view: np.ndarray):
    import zxingcpp

    from quizgen.export.bubbles import parse_page_code

    for barcode in zxingcpp.read_barcodes(view, formats=zxingcpp.BarcodeFormat.QRCode,
                                          try_rotate=True, try_downscale=True, try_invert=False):
        parsed = parse_page_code(barcode.text)
        if parsed is None:
            continue
        p = barcode.position
        return parsed, np.float32([[p.top_left.x, p.top_left.y], [p.top_right.x, p.top_right.y],
                                   [p.bottom_right.x, p.bottom_right.y],
                                   [p.bottom_left.x, p.bottom_left.y]])
    return None

