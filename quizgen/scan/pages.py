"""Scanned pages: read from PDFs and images, named by their QR code, aligned by their corner marks.

A page becomes a `Page`: which version and page of the exam it is, and the page straightened onto
a fixed grid of `PX_PER_MM` pixels per millimetre (page coordinates, as in the manifest), whatever
the scan's resolution, rotation (a page fed upside down included), scale or colour.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

import numpy as np

from quizgen.errors import QuizgenError
from quizgen.grade.notes import Note
from quizgen.scan import reason

#: The straightened page's resolution: 6 px/mm ≈ 152 dpi, enough for 3.4 mm bubbles.
PX_PER_MM = 6.0
#: PDFs are rasterised at this resolution (a scanner's 300–600 dpi pages are read at it).
RENDER_DPI = 200
IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".tif", ".tiff", ".bmp", ".webp", ".pbm", ".pgm"}


@dataclass(slots=True)
class Scan:
    """One scanned page image as read from a file (greyscale, 8 bits)."""

    source: str          # "class.pdf p. 7", "IMG_0042.jpg"
    image: np.ndarray


@dataclass(slots=True)
class Page:
    """A recognised page: what it is and its straightened image (page millimetres × PX_PER_MM)."""

    source: str
    exam: str
    version: str
    page: int
    image: np.ndarray
    marks: int           # corner marks found (4, or 3 when one was hidden)


@dataclass(slots=True)
class Unreadable:
    """A page that could not be recognised, and why (a phrase of ``[scan_reason]``, shown in the
    report with a thumbnail)."""

    source: str
    reason: Note
    image: np.ndarray


def load_scans(paths: list[str | os.PathLike[str]], dpi: int = RENDER_DPI) -> Iterator[Scan]:
    """Every page of these PDFs and images, in order. A missing or unreadable file is a
    `QuizgenError` naming it (checked before any page is read)."""
    files = [Path(p) for p in paths]
    for path in files:
        if not path.is_file():
            raise QuizgenError(f"no such file: {path}", field="scans")
        if path.suffix.lower() != ".pdf" and path.suffix.lower() not in IMAGE_SUFFIXES:
            raise QuizgenError(f"{path} is neither a PDF nor an image (png, jpg, tiff, …)",
                               field="scans")
    for path in files:
        if path.suffix.lower() == ".pdf":
            yield from _pdf_pages(path, dpi)
        else:
            yield from _image_pages(path)


def _pdf_pages(path: Path, dpi: int) -> Iterator[Scan]:
    import pypdfium2 as pdfium

    try:
        document = pdfium.PdfDocument(str(path))
    except pdfium.PdfiumError as exc:
        raise QuizgenError(f"{path} is not a readable PDF ({exc})", field="scans") from None
    try:
        for i in range(len(document)):
            page = document[i]
            bitmap = page.render(scale=dpi / 72, grayscale=True)
            array = bitmap.to_numpy()
            if array.ndim == 3:
                array = array[..., 0] if array.shape[2] == 1 else _grey(array)
            yield Scan(f"{path.name} p. {i + 1}", np.ascontiguousarray(array))
            page.close()
    finally:
        document.close()


def _image_pages(path: Path) -> Iterator[Scan]:
    import cv2

    ok, frames = cv2.imreadmulti(str(path), flags=cv2.IMREAD_GRAYSCALE)
    if not ok or not frames:
        image = cv2.imread(str(path), cv2.IMREAD_GRAYSCALE)
        if image is None:
            raise QuizgenError(f"{path} is not a readable image", field="scans")
        frames = [image]
    for i, frame in enumerate(frames):
        yield Scan(path.name if len(frames) == 1 else f"{path.name} p. {i + 1}", frame)


def _grey(array: np.ndarray) -> np.ndarray:
    import cv2

    return cv2.cvtColor(array[..., :3], cv2.COLOR_BGR2GRAY)


# ---------------------------------------------------------------------------------------------
# Recognising and aligning a page


def locate(scan: Scan, layout: dict[str, Any]) -> Page | Unreadable:
    """Find the page's QR code, then its four corner marks near where the code says they are,
    and straighten the page by the homography the marks give."""
    import cv2

    gray = scan.image
    code = _find_code(gray)
    if code is None:
        return Unreadable(scan.source, reason("no_code"), _thumb(gray))
    (exam, version, page), corners = code
    if exam != layout["exam"]:
        return Unreadable(scan.source, reason("other_exam", code=exam, exam=layout["exam"]),
                          _thumb(gray))
    # The QR code's corners in the page (mm) and in the scan (px): a first, rough alignment.
    qx, qy = layout["qr"]
    size = layout["qr_size"]
    qr_mm = np.float32([[qx, qy], [qx + size, qy], [qx + size, qy + size], [qx, qy + size]])
    rough, _ = cv2.estimateAffinePartial2D(qr_mm, corners)
    if rough is None:
        return Unreadable(scan.source, reason("code_position"), _thumb(gray))
    scale = float(np.hypot(rough[0, 0], rough[1, 0]))     # px per mm in the scan
    found_mm, found_px = [], []
    for mark in layout["marks"]:
        guess = rough @ np.float32([mark[0], mark[1], 1.0])
        centre = _find_mark(gray, guess, scale, layout["mark_size"])
        if centre is not None:
            found_mm.append(mark)
            found_px.append(centre)
    if len(found_mm) < 3:
        return Unreadable(scan.source, reason("few_marks", found=len(found_mm)), _thumb(gray))
    src = np.float32(found_mm) * PX_PER_MM
    dst = np.float32(found_px)
    if len(found_mm) == 4:
        matrix = cv2.getPerspectiveTransform(src, dst)
    else:
        matrix = np.vstack([cv2.getAffineTransform(src, dst), [0, 0, 1]])
    width, height = layout["page_size"]
    size_px = (int(round(width * PX_PER_MM)), int(round(height * PX_PER_MM)))
    straight = cv2.warpPerspective(gray, matrix, size_px,
                                   flags=cv2.INTER_AREA | cv2.WARP_INVERSE_MAP,
                                   borderMode=cv2.BORDER_CONSTANT, borderValue=255)
    return Page(scan.source, exam, version, page, straight, len(found_mm))


def _find_code(gray: np.ndarray):
    """((exam, version, page), the code's four corners in px) of the first quizgen page code in
    the image; the cover's version-only QR code and foreign codes are passed over."""
    import zxingcpp

    from quizgen.export.bubbles import parse_page_code

    for image, factor in _code_views(gray):
        for barcode in zxingcpp.read_barcodes(image, formats=zxingcpp.BarcodeFormat.QRCode,
                                              try_downscale=False, try_invert=False):
            parsed = parse_page_code(barcode.text)
            if parsed is None:
                continue
            p = barcode.position
            corners = np.float32([[p.top_left.x, p.top_left.y], [p.top_right.x, p.top_right.y],
                                  [p.bottom_right.x, p.bottom_right.y],
                                  [p.bottom_left.x, p.bottom_left.y]]) * factor
            return parsed, corners
    return None


def _code_views(gray: np.ndarray):
    """The image for the QR reader: as it is (halved when it is large), then sharper views."""
    import cv2

    h, w = gray.shape
    factor = 1.0
    base = gray
    while max(h, w) / factor > 2600:
        factor *= 2
    if factor > 1:
        base = cv2.resize(gray, (int(w / factor), int(h / factor)), interpolation=cv2.INTER_AREA)
    yield base, factor
    _, binary = cv2.threshold(base, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)
    yield binary, factor
    if factor > 1:
        yield gray, 1.0


def _find_mark(gray: np.ndarray, guess: np.ndarray, scale: float, side_mm: float):
    """The centre (px) of the solid square nearest `guess`, within a window of ±12 mm."""
    import cv2

    half = int(12 * scale) + 2
    h, w = gray.shape
    x0, y0 = max(0, int(guess[0]) - half), max(0, int(guess[1]) - half)
    x1, y1 = min(w, int(guess[0]) + half), min(h, int(guess[1]) + half)
    if x1 - x0 < 8 or y1 - y0 < 8:
        return None
    window = gray[y0:y1, x0:x1]
    _, binary = cv2.threshold(window, 0, 255, cv2.THRESH_BINARY_INV | cv2.THRESH_OTSU)
    count, _, stats, centroids = cv2.connectedComponentsWithStats(binary, connectivity=8)
    expected = (side_mm * scale) ** 2
    best, best_distance = None, None
    for i in range(1, count):
        bw, bh, area = stats[i, cv2.CC_STAT_WIDTH], stats[i, cv2.CC_STAT_HEIGHT], stats[i, cv2.CC_STAT_AREA]
        if not 0.5 * expected <= area <= 1.8 * expected:
            continue
        if area < 0.75 * bw * bh * 0.9 or not 0.7 <= bw / max(bh, 1) <= 1.4:
            continue          # not a solid square (a QR code's corner, a word)
        cx, cy = centroids[i]
        distance = np.hypot(cx + x0 - guess[0], cy + y0 - guess[1])
        if best_distance is None or distance < best_distance:
            best, best_distance = (float(cx + x0), float(cy + y0)), distance
    return best


def _thumb(gray: np.ndarray, width: int = 300) -> np.ndarray:
    import cv2

    h, w = gray.shape
    return cv2.resize(gray, (width, max(1, int(h * width / w))), interpolation=cv2.INTER_AREA)
