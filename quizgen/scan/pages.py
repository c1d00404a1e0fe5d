"""Scanned pages: read from PDFs and images, named by their QR code, aligned by their corner marks.

A page becomes a `Page`: which version and page of the exam it is, and the page straightened onto
a fixed grid of `PX_PER_MM` pixels per millimetre (page coordinates, as in the manifest), whatever
the scan's resolution, rotation (a page fed upside down included), scale or colour, and whether it
came from a scanner or a phone held over a desk.

The QR code says which page it is and roughly where and how turned; the four corner marks are
then looked for over the whole image by their shape (`marks.mark_candidates`), and the four (or
three, with the QR code's corners) whose homography puts the QR code where it was read are kept
(`_choose_marks`): a perspective, so tilt and keystone are taken out. What a homography cannot
take out (a lens's barrel, a page that is not flat) is taken up where the bubbles are read, by
matching each grid's printed rings (`quizgen.scan.read`).

Nothing is decoded before its size is known (`Scans`): a PDF page's size comes from the page tree,
an image's from its header (`quizgen.scan.header`), and both are held to `Limits` made from the
exam's paper at the highest resolution read.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

import numpy as np

from quizgen.errors import QuizgenError
from quizgen.grade.notes import Note
from quizgen.scan.reasons import reason

#: The straightened page's resolution: 6 px/mm ≈ 152 dpi, enough for 3.4 mm bubbles.
PX_PER_MM = 6.0
#: PDFs are rasterised at this resolution (a scanner's 300–600 dpi pages are read at it).
RENDER_DPI = 200
IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".tif", ".tiff", ".bmp", ".webp", ".pbm", ".pgm"}


#: The highest resolution a page is read at (``--dpi``), and how much larger than the exam's paper
#: a scanned page may be: a scanner's bed or a photo with the desk around it fits in ROOM times
#: the paper at MAX_DPI (pixels); a PDF page may measure up to PDF_ROOM times the paper (a photo
#: put into a PDF at 72 dpi is a large page) and is rendered at a resolution that fits the former.
MAX_DPI = 600
ROOM = 1.5
PDF_ROOM = 6.0
#: A scan holds at most this many times the exam's pages (plus a few): more is not one class.
PAGES_ROOM = 3
#: An image is decoded at half (or a quarter of) its size when what is left still gives the
#: paper's longer side at least this share of PX_PER_MM (a 300-dpi scan is read at 150 dpi, the
#: straightened page's own resolution; a phone photo, at its own).
FINE = 0.95


@dataclass(slots=True)
class Scan:
    """One scanned page image as read from a file (greyscale, 8 bits), or, for a page refused
    before it was decoded, no image and the reason."""

    source: str          # "class.pdf p. 7", "IMG_0042.jpg"
    image: np.ndarray | None
    refused: Note | None = None


@dataclass(slots=True)
class Page:
    """A recognised page: what it is and its straightened image (page millimetres × PX_PER_MM)."""

    source: str
    exam: str
    version: str
    page: int
    image: np.ndarray
    marks: int           # corner marks found (4, or 3 when one was hidden)
    to_scan: np.ndarray | None = None  # page px → scan px (the homography), for ``--debug``


@dataclass(slots=True)
class Unreadable:
    """A page that could not be recognised, and why (a phrase of ``[scan_reason]``, shown in the
    report with a thumbnail). `version` and `page` are known when its QR code was read."""

    source: str
    reason: Note
    image: np.ndarray
    version: str | None = None
    page: int | None = None
    placed: np.ndarray | None = None   # page mm → scan px, when the corner marks were found
    cover: str | None = None           # the version a first page's cover code names


def straighten(scan: "Scan", layout: dict[str, Any], matrix: np.ndarray, version: str, page: int,
               marks: int) -> "Page":
    """The scan straightened onto the page's grid by a homography (page mm → scan px)."""
    import cv2

    to_scan = matrix @ np.diag([1 / PX_PER_MM, 1 / PX_PER_MM, 1.0])
    width, height = layout["page_size"]
    size_px = (int(round(width * PX_PER_MM)), int(round(height * PX_PER_MM)))
    straight = cv2.warpPerspective(scan.image, to_scan, size_px,
                                   flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                   borderMode=cv2.BORDER_CONSTANT, borderValue=255)
    return Page(scan.source, layout["exam"], version, page, straight, marks, to_scan=to_scan)


@dataclass(slots=True)
class Limits:
    """What a scan may hold, from the exam's paper: pixels of one image, the size of a PDF page,
    pages in all."""

    max_side: int            # pixels, an image's longer side
    max_pixels: int
    pdf_long_pt: float       # a PDF page's longer and shorter side, points
    pdf_short_pt: float
    max_pages: int
    exam_pages: int          # the pages of every paper of the exam
    fine_px: int = 0         # an image whose longer side, halved, still holds this many pixels
                             # is decoded at half size (or a quarter): see FINE

    @classmethod
    def for_exam(cls, layout: dict[str, Any], pages: int) -> "Limits":
        width, height = sorted(float(v) for v in layout["page_size"])
        side_px = height / 25.4 * MAX_DPI * ROOM
        return cls(int(side_px), int(width / 25.4 * MAX_DPI * ROOM * side_px),
                   height / 25.4 * 72 * PDF_ROOM, width / 25.4 * 72 * PDF_ROOM,
                   PAGES_ROOM * pages + 20, pages, int(FINE * height * PX_PER_MM))


class Scans:
    """The pages of these PDFs and images, counted and bounded before any is decoded:
    ``len(scans)`` pages, iterated in order. A missing or unreadable file, or more pages than
    `limits` allow, is a `QuizgenError` naming it; an image or PDF page too large for the exam's
    paper is a `Scan` without an image (reported, not read), or, when every page is, an error."""

    def __init__(self, paths: list[str | os.PathLike[str]], dpi: int, limits: Limits | None):
        self.dpi = dpi
        self.limits = limits
        self.files = [Path(p) for p in paths]
        self.plan: list[tuple[Path, list[tuple[int, Note | None]]]] = []  # file, its pages
        count = 0
        for path in self.files:
            if not path.is_file():
                raise QuizgenError(f"no such file: {path}", field="scans")
            suffix = path.suffix.lower()
            if suffix != ".pdf" and suffix not in IMAGE_SUFFIXES:
                raise QuizgenError(f"{path} is neither a PDF nor an image (png, jpg, tiff, …)",
                                   field="scans")
        for path in self.files:
            left = limits.max_pages - count if limits else None
            sizes = (_pdf_sizes(path, left) if path.suffix.lower() == ".pdf"
                     else _image_sizes(path))
            count += len(sizes)
            if limits and count > limits.max_pages:
                raise QuizgenError(
                    f"the scans hold more than {limits.max_pages} pages (at {path.name}); this "
                    f"exam's papers have {limits.exam_pages} pages in all: scan one class at a "
                    "time, or check the files", field="scans")
            self.plan.append((path, [(i, self._refuse(path, size)) for i, size in enumerate(sizes)]))
        self.count = count
        pages = [(path, i, refused, len(listed)) for path, listed in self.plan
                 for i, refused in listed]
        if pages and all(refused for _, _, refused, _ in pages):
            path, i, refused, n = pages[0]
            raise QuizgenError(f"{_source(path, i, n)}: {refused}", field="scans")

    def _refuse(self, path: Path, size: tuple[float, float]) -> Note | None:
        if self.limits is None:
            return None
        short, long = sorted(size)
        if path.suffix.lower() == ".pdf":
            if long > self.limits.pdf_long_pt or short > self.limits.pdf_short_pt:
                return reason("page_too_large", size=f"{size[0] / 72 * 25.4:.0f} × "
                              f"{size[1] / 72 * 25.4:.0f} mm")
            return None
        if long > self.limits.max_side or short * long > self.limits.max_pixels:
            return reason("image_too_large", size=f"{size[0]:.0f} × {size[1]:.0f} px")
        return None

    def __len__(self) -> int:
        return self.count

    def __iter__(self) -> Iterator[Scan]:
        for path, pages in self.plan:
            if path.suffix.lower() == ".pdf":
                yield from _pdf_pages(path, self.dpi, pages, self.limits)
            else:
                yield from _image_pages(path, pages, limits=self.limits)

    def tasks(self) -> list["PageTask"]:
        """Every page as a `PageTask`: what `load_page` needs to decode it, in another process."""
        return [PageTask(str(path), i, len(pages), refused, self.dpi, self.limits)
                for path, pages in self.plan for i, refused in pages]


@dataclass(slots=True)
class PageTask:
    """One page of a scan, not yet decoded: its file, its index there, and how it is read."""

    path: str
    index: int
    count: int               # pages (frames) of its file
    refused: Note | None
    dpi: int
    limits: Limits | None


#: The PDF a worker has open (pages of one file come one after another).
_OPEN: dict[str, Any] = {}


def load_page(task: PageTask) -> Scan:
    """Decode one page (a PDF page rendered, an image or a frame of one read)."""
    path = Path(task.path)
    if path.suffix.lower() != ".pdf":
        return next(_image_pages(path, [(task.index, task.refused)], task.count, task.limits))
    source = f"{path.name} p. {task.index + 1}"
    if task.refused is not None:
        return Scan(source, None, task.refused)
    import pypdfium2 as pdfium

    if task.path not in _OPEN:
        for old in _OPEN.values():
            old.close()
        _OPEN.clear()
        _OPEN[task.path] = pdfium.PdfDocument(task.path)
    return _render(_OPEN[task.path][task.index], source, task.dpi, task.limits)


def load_scans(paths: list[str | os.PathLike[str]], dpi: int = RENDER_DPI,
               limits: Limits | None = None) -> Scans:
    """Every page of these PDFs and images, in order (see `Scans`)."""
    return Scans(paths, dpi, limits)


def _source(path: Path, i: int, count: int) -> str:
    return f"{path.name} p. {i + 1}" if path.suffix.lower() == ".pdf" or count > 1 else path.name


def _pdf_sizes(path: Path, most: int | None = None) -> list[tuple[float, float]]:
    """Each page's size (points) from the PDF's page tree, nothing rendered; past `most` pages,
    only how many there are (as zero sizes)."""
    import pypdfium2 as pdfium

    try:
        document = pdfium.PdfDocument(str(path))
    except pdfium.PdfiumError as exc:
        raise QuizgenError(f"{path} is not a readable PDF ({exc})", field="scans") from None
    try:
        count = len(document)
        if most is not None and count > most:
            return [(0.0, 0.0)] * count
        return [tuple(document.get_page_size(i)) for i in range(count)]
    finally:
        document.close()


def _pdf_pages(path: Path, dpi: int, pages: list[tuple[int, Note | None]],
               limits: Limits | None) -> Iterator[Scan]:
    import pypdfium2 as pdfium

    document = pdfium.PdfDocument(str(path))
    try:
        for i, refused in pages:
            source = f"{path.name} p. {i + 1}"
            if refused is not None:
                yield Scan(source, None, refused)
                continue
            page = document[i]
            yield _render(page, source, dpi, limits)
    finally:
        document.close()


def _render(page: Any, source: str, dpi: int, limits: Limits | None) -> Scan:
    """A PDF page rendered in grey at `dpi` (a large page, such as a photo at 72 dpi, at what
    fits `limits`)."""
    scale = dpi / 72
    if limits is not None:
        width, height = page.get_size()
        scale = min(scale, limits.max_side / max(width, height),
                    (limits.max_pixels / max(width * height, 1.0)) ** 0.5)
    bitmap = page.render(scale=scale, grayscale=True)
    array = bitmap.to_numpy()
    if array.ndim == 3:
        array = array[..., 0] if array.shape[2] == 1 else _grey(array)
    scan = Scan(source, np.ascontiguousarray(array))
    page.close()
    return scan


def _image_pages(path: Path, pages: list[tuple[int, Note | None]], count: int | None = None,
                 limits: Limits | None = None) -> Iterator[Scan]:
    import cv2

    count = len(pages) if count is None else count
    flags = cv2.IMREAD_GRAYSCALE
    if count == 1 and limits is not None and limits.fine_px:
        longest = max(_image_sizes(path)[0])
        for factor, reduced in ((4, cv2.IMREAD_REDUCED_GRAYSCALE_4),
                                (2, cv2.IMREAD_REDUCED_GRAYSCALE_2)):
            if longest / factor >= limits.fine_px:
                flags = reduced             # JPEG: decoded smaller, not decoded then shrunk
                break
    for i, refused in pages:
        source = _source(path, i, count)
        if refused is not None:
            yield Scan(source, None, refused)
            continue
        frame = None
        if count > 1:
            ok, frames = cv2.imreadmulti(str(path), start=i, count=1, flags=cv2.IMREAD_GRAYSCALE)
            frame = frames[0] if ok and frames else None
        else:
            frame = cv2.imread(str(path), flags)
        if frame is None:
            raise QuizgenError(f"{path} is not a readable image", field="scans")
        yield Scan(source, frame)


def _image_sizes(path: Path) -> list[tuple[int, int]]:
    """The pixel size of each frame of an image, read from its header (nothing is decoded)."""
    from quizgen.scan.header import image_sizes

    sizes = image_sizes(path)
    if not sizes:
        raise QuizgenError(f"{path} is not a readable image (its header gives no size)",
                           field="scans")
    return sizes


def _grey(array: np.ndarray) -> np.ndarray:
    import cv2

    return cv2.cvtColor(array[..., :3], cv2.COLOR_BGR2GRAY)


# ---------------------------------------------------------------------------------------------
# Recognising and aligning a page


def locate(scan: Scan, layout: dict[str, Any]) -> Page | Unreadable:
    """Find the page's QR code, then its corner marks anywhere in the image (a flatbed scan, a
    phone photo of a page on a desk), and straighten the page by the homography they give."""
    import cv2

    gray = scan.image
    if gray is None:
        return Unreadable(scan.source, scan.refused or reason("no_code"), _blank_thumb(layout))
    from quizgen.scan.marks import mark_candidates

    code = _find_code(gray)
    if code is None:
        from quizgen.scan.recover import find_page

        again = find_page(gray, layout)        # by the corner marks, the code read where they say
        if again is None or again.code is None:
            return Unreadable(scan.source, reason("no_code"), _thumb(gray),
                              placed=None if again is None else again.matrix,
                              cover=None if again is None else again.cover)
        code = (again.code, again.corners)
    (exam, version, page), corners = code
    if exam != layout["exam"]:
        return Unreadable(scan.source, reason("other_exam", code=exam, exam=layout["exam"]),
                          _thumb(gray))
    # The QR code's corners in the page (mm) and in the scan (px): a first, rough alignment
    # (position, turn and scale) that says which mark is which.
    qx, qy = layout["qr"]
    size = layout["qr_size"]
    qr_mm = np.float32([[qx, qy], [qx + size, qy], [qx + size, qy + size], [qx, qy + size]])
    rough, _ = cv2.estimateAffinePartial2D(qr_mm, corners)
    if rough is None:
        return Unreadable(scan.source, reason("code_position"), _thumb(gray), version, page)
    scale = float(np.hypot(rough[0, 0], rough[1, 0]))     # px per mm in the scan
    candidates = mark_candidates(gray, scale, layout["mark_size"], corners)
    found = _choose_marks(candidates, layout, rough, scale, qr_mm, corners)
    if found is None:
        near = _near_count(candidates, layout, rough, scale)
        why = reason("few_marks", found=near) if near < 3 else reason("marks_misfit")
        return Unreadable(scan.source, why, _thumb(gray), version, page)
    matrix, marks, points = found          # page mm → scan px
    return straighten(scan, layout, matrix, version, page, marks)


def _choose_marks(candidates: np.ndarray, layout: dict[str, Any], rough: np.ndarray,
                  scale: float, qr_mm: np.ndarray, qr_px: np.ndarray):
    """(homography page mm → scan px, marks used, their scan points) of the four candidates (one
    near each corner the QR code predicts) whose homography puts the QR code where it was read;
    else of three of them plus the code's corners; None when neither fits."""
    import itertools

    import cv2

    marks = np.float32(layout["marks"])
    width, height = layout["page_size"]
    reach = 0.3 * float(np.hypot(width, height)) * scale
    near: list[list[int]] = []
    for mark in marks:
        guess = rough @ np.float32([mark[0], mark[1], 1.0])
        distance = np.hypot(*(candidates - guess).T) if len(candidates) else np.zeros(0)
        order = [int(i) for i in np.argsort(distance) if distance[i] <= reach]
        near.append(order[:4])
    tolerance = 4.0 * scale                   # px: the code's corners within 4 mm
    best = None
    if all(near):
        for combo in itertools.product(*near):
            if len(set(combo)) < 4:
                continue
            points = candidates[list(combo)]
            if not _convex_like(points, marks):
                continue
            matrix = cv2.getPerspectiveTransform(marks, points)
            error = _worst(matrix, qr_mm, qr_px)
            if error <= tolerance and (best is None or error < best[0]):
                best = (error, matrix, 4, points)
    if best is not None:
        return best[1:]
    for hidden in range(4):
        corners = [i for i in range(4) if i != hidden]
        if not all(near[i] for i in corners):
            continue
        for combo in itertools.product(*(near[i] for i in corners)):
            if len(set(combo)) < 3:
                continue
            src = np.vstack([marks[corners], qr_mm])
            dst = np.vstack([candidates[list(combo)], qr_px])
            matrix, _ = cv2.findHomography(src, dst, 0)
            if matrix is None:
                continue
            error = _worst(matrix, src, dst)
            if error <= 0.4 * tolerance and (best is None or error < best[0]):
                best = (error, matrix, 3, candidates[list(combo)])
    return best[1:] if best is not None else None


def _worst(matrix: np.ndarray, src: np.ndarray, dst: np.ndarray) -> float:
    import cv2

    mapped = cv2.perspectiveTransform(src.reshape(-1, 1, 2).astype(np.float64), matrix)
    return float(np.max(np.hypot(*(mapped.reshape(-1, 2) - dst).T)))


def _convex_like(points: np.ndarray, marks: np.ndarray) -> bool:
    """The four points turn the same way as the page's marks (no crossed quadrilateral)."""
    def turns(q):
        out = []
        for i in range(4):
            (ax, ay), (bx, by) = q[(i + 1) % 4] - q[i], q[(i + 2) % 4] - q[(i + 1) % 4]
            out.append(np.sign(ax * by - ay * bx))
        return out

    return turns(points.astype(np.float64)) == turns(marks.astype(np.float64))


def _near_count(candidates: np.ndarray, layout: dict[str, Any], rough: np.ndarray,
                scale: float) -> int:
    """How many corners have a mark-like blob within reach (for the reason a page is refused)."""
    width, height = layout["page_size"]
    reach = 0.3 * float(np.hypot(width, height)) * scale
    count = 0
    for mark in layout["marks"]:
        guess = rough @ np.float32([mark[0], mark[1], 1.0])
        if len(candidates) and np.min(np.hypot(*(candidates - guess).T)) <= reach:
            count += 1
    return count


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


def _thumb(gray: np.ndarray, width: int = 300) -> np.ndarray:
    import cv2

    h, w = gray.shape
    return cv2.resize(gray, (width, max(1, int(h * width / w))), interpolation=cv2.INTER_AREA)


def _blank_thumb(layout: dict[str, Any], width: int = 300) -> np.ndarray:
    """A grey page in place of an image that was not decoded."""
    w, h = layout["page_size"]
    return np.full((max(1, int(width * h / w)), width), 200, np.uint8)
